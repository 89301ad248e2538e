// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the perf.data reader (ftprofile -i): load the input
 * as a perf.data file, its samples written as perf script text, and its
 * stacks written folded, as a top table and as a flame graph. Build and
 * run with t/fuzz/run.sh perf.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char path[] = "/tmp/ftk-fuzz-XXXXXX";
	struct ftk_profile *p = NULL;
	struct ftk_stacks *st;
	int fd;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		ftk_set_print(NULL);
	}
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	if (!ftk_profile_load_script(path, 0, devnull, &p)) {
		st = ftk_profile_stacks(p);
		ftk_stacks_write_folded(st, devnull);
		ftk_stacks_write_top(st, devnull, 25, "samples");
		ftk_stacks_write_svg(st, NULL, devnull, "fuzz", "samples");
	}
	ftk_profile_free(p);
	unlink(path);
	return 0;
}
