// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftfuncslower: each call of a function slower than a threshold, with its
 * task and return value, as perf-tools' and bcc's funcslower: user
 * functions (BINARY:SYMBOL) by uprobe and uretprobe pairs, also on a
 * locked-down kernel; kernel functions by kprobes where allowed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lat.h"

struct funcslower {
	struct lat		l;
	struct lat_func		*funcs;
	struct ftk_pair		*pair;
	int			nfuncs, ms;
	uint64_t		min_ns, calls, shown;
};

static const char usage[] =
"usage: ftfuncslower [-mt] [-p PID] [-D SECS] [--json] [-B NAME]\n"
"                    FUNCTION MIN [-- COMMAND [ARG...]]\n"
"\n"
"Print each call of FUNCTION that took MIN microseconds or more (MIN\n"
"milliseconds with -m): BINARY:SYMBOL for a user function (uprobe and\n"
"uretprobe, also on a locked-down kernel), SYMBOL for a kernel function\n"
"(kprobes, where the kernel allows them).\n"
"\n"
"  -m, --msecs           MIN and latencies in milliseconds\n"
LAT_HELP_TIMESTAMP
LAT_HELP_PID
LAT_HELP_D
LAT_HELP_JSON
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftfuncslower ./app:handle_request 10000 -- ./app --serve\n"
"  ftfuncslower -m /lib/x86_64-linux-gnu/libc.so.6:fsync 5 -p 1234\n"
"  ftfuncslower vfs_read 1000       # a kernel function (needs kprobes)\n";

static void option(int opt, char *arg, void *ctx)
{
	struct funcslower *f = ctx;

	switch (opt) {
	case 'm': f->ms = 1; break;
	}
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct funcslower *f = ctx;
	int is_ret, pid = ftk_record_pid(rec);
	int i = lat_func_of(f->funcs, f->nfuncs, lat_type(&f->l, rec), &is_ret);
	double unit = f->ms ? 1e6 : 1e3;
	char comm[32];
	uint64_t ns;

	if (i < 0)
		return 0;
	if (!is_ret) {
		ftk_pair_start(f->pair, pid, rec->ts, i);
		return 0;
	}
	if (ftk_pair_end(f->pair, pid, rec->ts, &ns, NULL) != 1)
		return 0;
	f->calls++;
	if (ns < f->min_ns)
		return 0;
	f->shown++;
	ftk_session_comm(f->l.s, pid, comm, sizeof(comm));
	if (f->l.opt.json) {
		printf("{\"time\":%.6f,\"comm\":", lat_since_start(&f->l, rec->ts));
		ftk_json_str(stdout, comm, sizeof(comm));
		printf(",\"pid\":%d,\"latency\":%.3f,\"unit\":\"%s\",\"ret\":%lld,\"function\":", pid,
		       ns / unit, f->ms ? "msecs" : "usecs", ftk_record_num(rec, f->funcs[i].f_ret));
		ftk_json_str(stdout, f->funcs[i].spec, (size_t)-1);
		printf("}\n");
	} else {
		if (f->l.opt.stamps)
			printf("%-12.6f ", lat_since_start(&f->l, rec->ts));
		printf("%-16s %-7d %12.3f %18llx %s\n", comm, pid, ns / unit,
		       (unsigned long long)ftk_record_num(rec, f->funcs[i].f_ret), f->funcs[i].spec);
	}
	lat_check_out(&f->l);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "msecs", no_argument, NULL, 'm' },	{ }
	};
	static const struct lat_def def = {
		.name = "ftfuncslower", .usage = usage, .opts = "m", .longopts = longopts,
		.option = option, .shared = LAT_OPT_TIMESTAMP | LAT_OPT_PID | LAT_OPT_JSON,
		.operands = 2,
	};
	struct tool_args args;
	struct funcslower f = { .l.name = "funcslower" };
	char **specs;
	int code;

	lat_parse(&f.l, &def, argc, argv, &args, &f);
	if (lat_func_args(&args, &specs, 1) != 2)
		tool_usage_error("want FUNCTION MIN");
	f.min_ns = tool_num(specs[1], "MIN", 0, 1LL << 40) * (f.ms ? 1000000 : 1000);
	f.nfuncs = 1;
	f.pair = lat_pair_nested();
	if (!f.pair)
		tool_die("out of memory");
	lat_open(&f.l, &args, f.l.opt.pid);
	f.funcs = lat_funcs(&f.l, specs, 1, 1);
	lat_funcs_find(&f.l, f.funcs, 1);
	if (!f.l.opt.json) {
		if (ftk_log_level() >= FTK_LOG_WARN)
			fprintf(stderr, "Tracing \"%s\" slower than %s %s...\n", specs[0], specs[1],
				f.ms ? "ms" : "us");
		printf("%s%-16s %-7s %12s %18s %s\n", f.l.opt.stamps ? "TIME(s)      " : "", "COMM", "PID",
		       f.ms ? "LAT(ms)" : "LAT(us)", "RVAL", "FUNC");
	}
	code = lat_run(&f.l, on_record, &f, NULL, 0);
	if (!f.l.opt.json)
		lat_lost_print(&f.l, stdout);
	lat_path(&f.l, "%llu calls, %llu shown", (unsigned long long)f.calls,
		 (unsigned long long)f.shown);
	lat_check_out(&f.l);
	tool_exit(code);
}
