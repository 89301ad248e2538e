// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every input that once crashed the reader under the fuzzer
 * (t/fixtures/fuzz-*.dat, see t/fuzz/run.sh) is read to its end, or to a
 * clean error, without a crash.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include "tap.h"
#include <ftkit/ftkit.h>

int main(void)
{
	const char *src = getenv("top_srcdir");
	char pat[4096];
	glob_t g;
	size_t i;
	FILE *null = fopen("/dev/null", "w");

	tep_set_loglevel(TEP_LOG_NONE);
	ftk_set_print(NULL);
	snprintf(pat, sizeof(pat), "%s/t/fixtures/fuzz-*.dat", src ? src : ".");
	if (glob(pat, 0, NULL, &g) != 0)
		skip_all("no fuzz inputs in %s", pat);
	for (i = 0; i < g.gl_pathc; i++) {
		struct ftk_tracefile *tf;
		const struct tep_record *r;
		struct ftk_printer *p;
		struct ftk_merge *m;
		int ret, tag, b, n = 0;
		char msg[512] = "";

		ret = ftk_tracefile_open(g.gl_pathv[i], 0, &tf);
		if (ret == 0) {
			m = ftk_tracefile_merge(tf, 0, NULL);
			p = ftk_printer_new(null, ftk_tracefile_tep(tf), FTK_PRINT_TEXT, 0);
			for (b = 0; b < ftk_tracefile_buffers(tf); b++)
				ftk_printer_add_buffer(p, ftk_tracefile_buffer_name(tf, b), 1);
			while (m && (r = ftk_merge_peek(m, &tag))) {
				ftk_printer_print(p, r, tag);
				ftk_merge_consume(m);
				n++;
			}
			if (m && ftk_merge_failed(m))
				snprintf(msg, sizeof(msg), "%s", ftk_stream_errmsg(ftk_merge_failed(m)));
			ftk_printer_free(p);
			ftk_merge_free(m);
		} else {
			snprintf(msg, sizeof(msg), "%s", tf ? ftk_tracefile_errmsg(tf) : "");
		}
		ftk_tracefile_close(tf);
		ok(1, "%s: no crash (%d records) %s", g.gl_pathv[i], n, msg);
	}
	globfree(&g);
	return done_testing();
}
