// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the trace.dat reader: open, merge and print every
 * record of the input. Build and run with t/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <ftkit/ftkit.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char path[] = "/tmp/ftk-fuzz-XXXXXX";
	struct ftk_tracefile *tf;
	struct ftk_printer *p;
	struct tep_record *r;
	struct ftk_merge *m;
	int fd, b, tag, n = 0;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		tep_set_loglevel(TEP_LOG_NONE);
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
	if (ftk_tracefile_open(path, FTK_TRACEFILE_NO_PLUGINS, &tf) == 0) {
		m = ftk_tracefile_merge(tf, 0, NULL);
		p = ftk_printer_new(devnull, ftk_tracefile_tep(tf), FTK_PRINT_TEXT, 0);
		for (b = 0; p && b < ftk_tracefile_buffers(tf); b++)
			ftk_printer_add_buffer(p, ftk_tracefile_buffer_name(tf, b), 1);
		if (p && m)
			ftk_printer_ftrace_overrides(p, m);
		while (m && p && (r = ftk_merge_next(m, &tag)) && n++ < 100000) {
			ftk_printer_print(p, r, tag);
			ftk_record_put(r);
		}
		ftk_printer_free(p);
		ftk_merge_free(m);
	}
	ftk_tracefile_close(tf);
	unlink(path);
	return 0;
}
