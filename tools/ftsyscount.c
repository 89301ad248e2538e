// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftsyscount: syscalls counted by syscall or by process, with their
 * latency (-L), as perf-tools' syscount and bcc's syscount.
 *
 * Counts alone are made in the kernel where it has hist triggers (a hist
 * on raw_syscalls:sys_exit keyed by id or pid, read at the end); with -L,
 * or without hist triggers, sys_enter and sys_exit are paired by thread
 * from the live stream.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lat.h"

struct sc {
	struct lat		l;
	struct ftk_lattab	*tab;
	struct ftk_pair		*pair;
	struct tep_format_field	*f_id, *f_ret;
	int			exit_id, enter_id;
	int			by_proc, latency, failures, json, top, syscall, unit;
	pid_t			pid;
	double			interval;
	uint64_t		div;
	const char		*uname;
};

static const char usage[] =
"usage: ftsyscount [-LPx] [-p PID] [-e SYSCALL] [-t TOP] [-i SECS] [-m|-u] [-D SECS]\n"
"                  [--json] [-B NAME] [[--] COMMAND [ARG...]]\n"
"\n"
"Count syscalls by syscall (or by process with -P), with their latency\n"
"(-L), system-wide, of one process (-p) or of COMMAND and its children.\n"
"\n"
"  -L, --latency         also the total and mean time in each syscall\n"
"  -P, --process         by process (pid) instead of by syscall\n"
"  -x, --failures        failed syscalls only (return value < 0)\n"
"  -p, --pid PID         this process only (its threads)\n"
"  -e, --syscall NAME    this syscall only\n"
"  -t, --top N           the N largest rows (default all)\n"
"  -i, --interval S      print and reset every S seconds\n"
"  -m, --msecs           latency in milliseconds (default microseconds)\n"
"  -n, --nsecs           latency in nanoseconds\n"
"  -d SECS               as -D (perf-tools' letter)\n"
"      --json            one JSON object (per interval)\n"
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftsyscount -D 5              # every syscall for five seconds\n"
"  ftsyscount -LP -p 1234       # per thread of 1234, with time spent\n"
"  ftsyscount -L -- make -j2    # the syscalls of a build\n"
"  ftsyscount -x -e openat      # failed openat calls\n";

static void option(int opt, char *arg, void *ctx)
{
	struct sc *s = ctx;

	switch (opt) {
	case 'L': s->latency = 1; break;
	case 'P': s->by_proc = 1; break;
	case 'x': s->failures = 1; break;
	case 'p': s->pid = tool_pid(arg); break;
	case 'e':
		s->syscall = ftk_syscall_nr(arg);
		if (s->syscall < 0)
			tool_usage_error("unknown syscall '%s'", arg);
		break;
	case 't': s->top = tool_num(arg, "top", 1, 1 << 20); break;
	case 'i': s->interval = tool_seconds(arg); break;
	case 'm': case 'n': s->unit = opt == 'n' ? 0 : 'm'; break;
	case 'd': s->l.args->duration = tool_seconds(arg); break;
	case 'J': s->json = 1; break;
	}
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct sc *s = ctx;
	int type = tep_data_type(s->l.tep, (struct tep_record *)rec), tid = lat_pid(rec);
	long long id = lat_num(rec, s->f_id), ret;
	uint64_t ns, key;
	char comm[32];

	if (type == s->enter_id) {
		ftk_pair_start(s->pair, tid, rec->ts, id);
		return 0;
	}
	if (type != s->exit_id)
		return 0;
	ret = lat_num(rec, s->f_ret);
	key = s->by_proc ? (uint64_t)tid : (uint64_t)id;
	if (s->by_proc && !ftk_lattab_find(s->tab, key))
		ftk_lattab_name(s->tab, key, lat_comm(&s->l, tid, comm, sizeof(comm)));
	if (s->failures && ret >= 0) {
		ftk_pair_drop(s->pair, tid);
		return 0;
	}
	if (s->latency && ftk_pair_end(s->pair, tid, rec->ts, &ns, NULL) == 1)
		ftk_lattab_add(s->tab, key, ns / s->div, ret < 0);
	else
		ftk_lattab_count(s->tab, key, ret < 0);
	return 0;
}

/* The in-kernel counts: "{ id: 39 } hitcount: 5" lines of the hist file. */
static void read_hist(struct sc *s)
{
	const char *field = s->by_proc ? "common_pid:" : "id:";
	char *text, *line, *p, *save = NULL;
	unsigned long long key, hits;

	if (ftk_trigger_hist(s->l.t, "raw_syscalls:sys_exit", &text))
		tool_die_tracefs(s->l.t, "hist");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Dropped:", 8) && strtoull(line + 8, NULL, 10))
			tool_warn("the kernel's hist table was full: %s", line);
		p = strstr(line, field);
		if (line[0] != '{' || !p || !strstr(line, "hitcount:"))
			continue;
		key = strtoull(p + strlen(field), NULL, 10);
		hits = strtoull(strstr(line, "hitcount:") + 9, NULL, 10);
		if (s->by_proc)
			ftk_lattab_name(s->tab, key, tep_data_comm_from_pid(s->l.tep, key));
		while (hits--)
			ftk_lattab_count(s->tab, key, s->failures);
	}
	free(text);
}

static void print(void *ctx)
{
	struct sc *s = ctx;
	struct ftk_lat_row **rows;
	char name[64];
	long n, i;

	if (s->json) {
		printf("{\"by\":\"%s\",\"unit\":\"%s\",\"rows\":", s->by_proc ? "process" : "syscall",
		       s->uname);
		ftk_lattab_json(s->tab, stdout, FTK_LATTAB_BY_COUNT, s->top, s->uname);
		printf(",\"lost\":%llu}\n", (unsigned long long)lat_lost(&s->l));
		goto out;
	}
	n = ftk_lattab_rows(s->tab, s->latency ? FTK_LATTAB_BY_TOTAL : FTK_LATTAB_BY_COUNT, &rows);
	printf(s->by_proc ? "%-7s %-16s %10s" : "%-24s %10s", s->by_proc ? "PID" : "SYSCALL",
	       s->by_proc ? "COMM" : "COUNT", "COUNT");
	if (s->latency)
		printf(" %14s %12s", s->div == 1 ? "TOTAL(ns)" : s->div == 1000 ? "TOTAL(us)" :
		       "TOTAL(ms)", "MEAN");
	putchar('\n');
	for (i = 0; i < n && (!s->top || i < s->top); i++) {
		struct ftk_hist_stats st = { 0 };

		if (!rows[i]->count)
			continue;
		if (s->by_proc) {
			printf("%-7llu %-16s %10llu", (unsigned long long)rows[i]->key,
			       rows[i]->name ? rows[i]->name : "?",
			       (unsigned long long)rows[i]->count);
		} else {
			const char *nm = ftk_syscall_name(rows[i]->key);

			if (!nm)
				snprintf(name, sizeof(name), "[%llu]", (unsigned long long)rows[i]->key);
			printf("%-24s %10llu", nm ? nm : name, (unsigned long long)rows[i]->count);
		}
		if (s->latency && rows[i]->hist) {
			ftk_hist_stats(rows[i]->hist, &st);
			printf(" %14llu %12.1f", (unsigned long long)st.sum,
			       st.count ? (double)st.sum / st.count : 0.0);
		}
		putchar('\n');
	}
	free(rows);
	lat_lost_print(&s->l, stdout);
out:
	ftk_lattab_reset(s->tab);
	lat_check_out(&s->l);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "latency", no_argument, NULL, 'L' },	{ "process", no_argument, NULL, 'P' },
		{ "failures", no_argument, NULL, 'x' },	{ "pid", required_argument, NULL, 'p' },
		{ "syscall", required_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 't' },	{ "interval", required_argument, NULL, 'i' },
		{ "msecs", no_argument, NULL, 'm' },	{ "nsecs", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },	{ }
	};
	static const struct tool_def def = {
		.name = "ftsyscount", .usage = usage, .opts = "LPxp:e:t:i:mnd:",
		.longopts = longopts, .option = option,
		.common = TOOL_OPT_INSTANCE | TOOL_OPT_DURATION | TOOL_OPT_COMMAND,
	};
	struct tool_args args;
	struct sc s = { .l.name = "syscount", .syscall = -1, .unit = 'u', .l.args = &args };
	char filter[128] = "", trig[160];
	int code, kernel;

	tool_parse(&def, argc, argv, &args, &s);
	s.uname = lat_unit(s.unit, &s.div);
	s.tab = ftk_lattab_new();
	s.pair = ftk_pair_new();
	if (!s.tab || !s.pair)
		tool_die("out of memory");
	lat_open(&s.l, &args, s.pid);
	if (s.syscall >= 0)
		snprintf(filter, sizeof(filter), "id == %d", s.syscall);
	kernel = !s.latency && !s.interval && ftk_tracefs_exists(s.l.t, "events/raw_syscalls/sys_exit/hist");
	if (s.latency)
		lat_event(&s.l, "raw_syscalls:sys_enter", *filter ? filter : NULL);
	if (s.failures)
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter), "%sret < 0",
			 *filter ? " && " : "");
	if (kernel) {
		snprintf(trig, sizeof(trig), "hist:keys=%s:size=8192%s%s",
			 s.by_proc ? "common_pid" : "id", *filter ? " if " : "", filter);
		/* the trigger soft-enables the event: it counts, nothing goes to the buffer */
		if (ftk_trigger_add(s.l.t, "raw_syscalls:sys_exit", trig))
			tool_die_tracefs(s.l.t, "raw_syscalls:sys_exit");
	} else {
		lat_event(&s.l, "raw_syscalls:sys_exit", *filter ? filter : NULL);
	}
	lat_tep(&s.l);
	s.exit_id = lat_find(&s.l, "raw_syscalls", "sys_exit")->id;
	s.enter_id = s.latency ? lat_find(&s.l, "raw_syscalls", "sys_enter")->id : -1;
	s.f_id = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "id");
	s.f_ret = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "ret");
	lat_path(&s.l, kernel ? "kernel: hist trigger on raw_syscalls:sys_exit, keys=%s" :
		 "stream: raw_syscalls sys_enter/sys_exit paired by thread from the live buffer%s",
		 kernel ? (s.by_proc ? "common_pid" : "id") : "");
	code = lat_run(&s.l, on_record, &s, print, s.interval);
	if (kernel)
		read_hist(&s);
	print(&s);
	ftk_lattab_free(s.tab);
	ftk_pair_free(s.pair);
	lat_exit(&s.l, code);
}
