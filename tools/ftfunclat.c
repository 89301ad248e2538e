// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftfunclat: the time functions take, as a log2 histogram, as bcc's
 * funclatency: user functions (BINARY:SYMBOL) by uprobe and uretprobe
 * pairs, which work on a locked-down kernel too; kernel functions by
 * kprobe and kretprobe pairs where the kernel allows them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lat.h"

struct funclat {
	struct lat		l;
	struct lat_func		*funcs;
	struct ftk_hist		*hist;
	struct ftk_pair		*pair;
	int			nfuncs;
	uint64_t		div;
	const char		*uname;
};

static const char usage[] =
"usage: ftfunclat [-mu] [-p PID] [-i SECS] [-D SECS] [--json] [-B NAME]\n"
"                 FUNCTION [-- COMMAND [ARG...]]\n"
"\n"
"A histogram of the time FUNCTION takes: BINARY:SYMBOL for a user function\n"
"(uprobe and uretprobe, also on a locked-down kernel), SYMBOL for a kernel\n"
"function (kprobe and kretprobe, where the kernel allows them).\n"
"\n"
"  -m, --msecs           milliseconds\n"
"  -u, --usecs           microseconds (nanoseconds by default)\n"
LAT_HELP_PID
"  -i, --interval S      print and reset every S seconds\n"
LAT_HELP_D
"      --json            the histogram as JSON\n"
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftfunclat -u /lib/x86_64-linux-gnu/libc.so.6:malloc -p 1234\n"
"  ftfunclat -m ./app:handle_request -- ./app --serve\n"
"  ftfunclat -u vfs_read -D 10      # a kernel function (needs kprobes)\n";

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct funclat *f = ctx;
	int is_ret, i = lat_func_of(f->funcs, f->nfuncs, lat_type(&f->l, rec), &is_ret);
	uint64_t ns;

	if (i < 0)
		return 0;
	if (!is_ret)
		ftk_pair_start(f->pair, ftk_record_pid(rec), rec->ts, i);
	else if (ftk_pair_end(f->pair, ftk_record_pid(rec), rec->ts, &ns, NULL) == 1)
		ftk_hist_add(f->hist, ns);
	return 0;
}

static void print(void *ctx)
{
	struct funclat *f = ctx;
	struct ftk_hist_stats st;

	ftk_hist_stats(f->hist, &st);
	if (f->l.opt.json) {
		printf("{\"function\":");
		ftk_json_str(stdout, f->funcs[0].spec, (size_t)-1);
		printf(",\"latency\":");
		ftk_hist_json(f->hist, stdout, f->uname);
		printf(",\"lost\":%llu}\n", (unsigned long long)lat_lost(&f->l));
	} else {
		char avg[48], sum[48];

		/* bcc funclatency's line, with sums exact to the nanosecond */
		ftk_hist_print(f->hist, stdout, f->uname);
		printf("\navg = %s %s, total: %s %s, count: %llu\n",
		       ftk_hist_value_str(avg, sizeof(avg), st.count ? st.sum / st.count : 0, f->div),
		       f->uname, ftk_hist_value_str(sum, sizeof(sum), st.sum, f->div), f->uname,
		       (unsigned long long)st.count);
		lat_lost_print(&f->l, stdout);
	}
	ftk_hist_reset(f->hist);
	lat_check_out(&f->l);
}

int main(int argc, char **argv)
{
	static const struct lat_def def = {
		.name = "ftfunclat", .usage = usage,
		.shared = LAT_OPT_MSECS | LAT_OPT_USECS | LAT_OPT_PID | LAT_OPT_INTERVAL | LAT_OPT_JSON,
		.operands = 1,
	};
	struct tool_args args;
	struct funclat f = { .l.name = "funclat" };
	char **specs;
	int code;

	lat_parse(&f.l, &def, argc, argv, &args, &f);
	f.nfuncs = lat_func_args(&args, &specs, 0);
	f.uname = lat_unit(f.l.opt.unit, &f.div);
	f.hist = ftk_hist_new();
	f.pair = lat_pair_nested();
	/* latencies added in ns, bucketed in the unit: sums and means stay exact */
	if (!f.hist || !f.pair || ftk_hist_scale(f.hist, f.div))
		tool_die("out of memory");
	lat_open(&f.l, &args, f.l.opt.pid);
	f.funcs = lat_funcs(&f.l, specs, 1, 1);
	lat_funcs_find(&f.l, f.funcs, 1);
	if (ftk_log_level() >= FTK_LOG_WARN && !f.l.opt.json)
		fprintf(stderr, "Tracing 1 function for \"%s\"...\n", f.funcs[0].spec);
	code = lat_run(&f.l, on_record, &f, print, f.l.opt.interval);
	print(&f);
	tool_exit(code);
}
