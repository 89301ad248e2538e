// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for JIT perf maps (/tmp/perf-PID.map, "START SIZE
 * name" in hex): the input is the map of a made-up process, whose
 * addresses (the first lines' starts, and around them) are named. Build
 * and run with t/fuzz/run.sh perfmap.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], tmp[80];
	struct ftk_symbols *s;
	struct ftk_frame f;
	char *text, *line;
	pid_t pid = 0x7fff0000 + getpid() % 0xffff;
	int fd, i;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || rename(tmp, path)) {
		close(fd);
		unlink(tmp);
		return 0;
	}
	close(fd);
	text = malloc(size + 1);
	if (text && !ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s)) {
		memcpy(text, data, size);
		text[size] = '\0';
		line = text;
		for (i = 0; i < 16 && line; i++) {
			uint64_t a = strtoull(line, NULL, 16);

			ftk_symbols_resolve(s, pid, a, &f);
			ftk_symbols_resolve(s, pid, a + 1, &f);
			ftk_symbols_resolve(s, pid, a - 1, &f);
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		ftk_symbols_free(s);
	}
	free(text);
	unlink(path);
	return 0;
}
