// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftfunccount: calls of functions counted, as perf-tools' and bcc's
 * funccount: user functions (BINARY:SYMBOL) by uprobes, which work on a
 * locked-down kernel too; kernel functions by kprobes where allowed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lat.h"

struct funccount {
	struct lat		l;
	struct lat_func		*funcs;
	struct ftk_lattab	*tab;
	int			nfuncs;
};

static const char usage[] =
"usage: ftfunccount [-p PID] [-i SECS] [-D SECS] [--json] [-B NAME]\n"
"                   FUNCTION... [-- COMMAND [ARG...]]\n"
"\n"
"Count the calls of each FUNCTION: BINARY:SYMBOL for a user function\n"
"(uprobe, also on a locked-down kernel), SYMBOL for a kernel function\n"
"(kprobe, where the kernel allows them).\n"
"\n"
LAT_HELP_PID
"  -i, --interval S      print and reset every S seconds\n"
LAT_HELP_D
"      --json            the counts as JSON\n"
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftfunccount /lib/x86_64-linux-gnu/libc.so.6:malloc -p 1234\n"
"  ftfunccount ./app:parse ./app:render -- ./app input.txt\n"
"  ftfunccount vfs_read vfs_write -D 5   # kernel functions (needs kprobes)\n";

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct funccount *f = ctx;
	int is_ret, i = lat_func_of(f->funcs, f->nfuncs, lat_type(&f->l, rec), &is_ret);

	if (i >= 0)
		ftk_lattab_count(f->tab, i, 0);
	return 0;
}

static void print(void *ctx)
{
	struct funccount *f = ctx;
	struct ftk_lat_row **rows;
	long n, i;

	if (f->l.opt.json) {
		printf("{\"functions\":");
		ftk_lattab_json(f->tab, stdout, FTK_LATTAB_BY_COUNT, 0, NULL);
		printf(",\"lost\":%llu}\n", (unsigned long long)lat_lost(&f->l));
	} else {
		n = ftk_lattab_rows(f->tab, FTK_LATTAB_BY_COUNT, &rows);
		printf("%-40s %10s\n", "FUNC", "COUNT");
		for (i = 0; i < n; i++)
			printf("%-40s %10llu\n", rows[i]->name, (unsigned long long)rows[i]->count);
		free(rows);
		lat_lost_print(&f->l, stdout);
	}
	ftk_lattab_reset(f->tab);
	lat_check_out(&f->l);
}

int main(int argc, char **argv)
{
	static const struct lat_def def = {
		.name = "ftfunccount", .usage = usage,
		.shared = LAT_OPT_PID | LAT_OPT_INTERVAL | LAT_OPT_JSON,
		.operands = TOOL_OPERANDS_ALL,
	};
	struct tool_args args;
	struct funccount f = { .l.name = "funccount" };
	char **specs;
	int code, i;

	lat_parse(&f.l, &def, argc, argv, &args, &f);
	f.nfuncs = lat_func_args(&args, &specs, 1);
	f.tab = ftk_lattab_new();
	if (!f.tab)
		tool_die("out of memory");
	lat_open(&f.l, &args, f.l.opt.pid);
	f.funcs = lat_funcs(&f.l, specs, f.nfuncs, 0);
	lat_funcs_find(&f.l, f.funcs, f.nfuncs);
	/* every function gets a row, so that one never called shows 0 */
	for (i = 0; i < f.nfuncs; i++)
		ftk_lattab_name(f.tab, i, f.funcs[i].spec);
	if (ftk_log_level() >= FTK_LOG_WARN && !f.l.opt.json)
		fprintf(stderr, "Tracing %d functions...\n", f.nfuncs);
	code = lat_run(&f.l, on_record, &f, print, f.l.opt.interval);
	print(&f);
	tool_exit(code);
}
