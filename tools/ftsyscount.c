// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftsyscount: syscalls counted by syscall or by process, with their
 * latency (-L), as perf-tools' syscount and bcc's syscount.
 *
 * In the kernel where it has hist triggers and synthetic events: a hist
 * on raw_syscalls:sys_exit keyed by id or pid counts, and with -L a
 * synthetic event from sys_enter to sys_exit of a thread, with a hist on
 * it, sums the time; read at the end. With --stream, -i, or without them,
 * sys_enter and sys_exit are paired by thread from the live stream.
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
	int			by_proc, latency, failures, top, syscall;
	uint64_t		div, paired, dropped;
	char			synth[160];	/* the kernel path's "synthetic:NAME" with -L */
	struct ftk_trigger_latency_opts lo;	/* and how it was made */
	struct ftk_lattab	*execs;		/* the kernel path's -P: pid -> name at its exec */
	struct tep_format_field	*f_filename;
	int			exec_id;
	char			comm[32];
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
LAT_HELP_STREAM
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
	case 'e':
		s->syscall = ftk_syscall_nr(arg);
		if (s->syscall < 0)
			tool_usage_error("unknown syscall '%s'", arg);
		break;
	case 't': s->top = tool_num(arg, "top", 1, 1 << 20); break;
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
	if (type == s->exec_id) {
		int len;
		const char *fn = lat_str(rec, s->f_filename, &len), *base = fn;

		for (; len > 0 && *fn; fn++, len--)
			if (*fn == '/')
				base = fn + 1;
		snprintf(comm, 16, "%.*s", (int)(fn - base), base);
		ftk_lattab_name(s->execs, tid, comm);
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
	if (s->latency && ftk_pair_end(s->pair, tid, rec->ts, &ns, NULL) == 1) {
		ftk_lattab_add(s->tab, key, ns / s->div, ret < 0);
		s->paired++;
	}
	else
		ftk_lattab_count(s->tab, key, ret < 0);
	return 0;
}

/*
 * The kernel path's name of process @pid: its comm now if it runs, else
 * the one it took at its last exec (seen in the stream), else the one the
 * hist row kept (.execname: the name at its first syscall).
 */
static const char *kernel_comm(struct sc *s, int pid, const char *line)
{
	struct ftk_lat_row *row;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f && fgets(s->comm, sizeof(s->comm), f)) {
		fclose(f);
		s->comm[strcspn(s->comm, "\n")] = '\0';
		return s->comm;
	}
	if (f)
		fclose(f);
	row = ftk_lattab_find(s->execs, pid);
	if (row && row->name)
		return row->name;
	return lat_hist_execname(line, s->comm, sizeof(s->comm));
}

/* The in-kernel counts: "{ id: 39 } hitcount: 5" rows of the count hist on sys_exit. */
static void on_count(void *ctx, const uint64_t *key, const uint64_t *val, const char *line)
{
	struct sc *s = ctx;
	struct ftk_lat_row *row;

	if (s->by_proc)
		ftk_lattab_name(s->tab, key[0], kernel_comm(s, key[0], line));
	row = ftk_lattab_row(s->tab, key[0]);
	if (!row)
		tool_die("out of memory");
	row->count = val[0];
	row->errors = s->failures ? val[0] : 0;
}

/*
 * The in-kernel latencies: "{ id: 39 } hitcount: 5 lat: 12345" rows of
 * the hist on the synthetic event, the sum in nanoseconds. The row gets
 * that many samples whose sum in the unit is the kernel's (their spread
 * is not known: the mean for each).
 */
static void on_latency(void *ctx, const uint64_t *key, const uint64_t *val, const char *line)
{
	struct sc *s = ctx;
	struct ftk_lat_row *row = ftk_lattab_row(s->tab, key[0]);
	uint64_t sum = val[1] / s->div, q, r;

	(void)line;
	if (!row || (!row->hist && !(row->hist = ftk_hist_new())))
		tool_die("out of memory");
	if (!val[0])
		return;
	q = sum / val[0];
	r = sum % val[0];
	ftk_hist_add_n(row->hist, q, val[0] - r);
	ftk_hist_add_n(row->hist, q + 1, r);
	s->paired += val[0];
}

/*
 * The kernel path: a count hist on sys_exit keyed by syscall or pid (it
 * soft-enables the event: nothing goes to the buffer); with -L also a
 * synthetic event from sys_enter to sys_exit of the same thread, carrying
 * the syscall, and a hist on it summing the latency per key.
 */
static void kernel_setup(struct sc *s, const char *filter, const char *enter_filter)
{
	FTK_OPTS(ftk_trigger_latency_opts, o, .start = "raw_syscalls:sys_enter",
		 .end = "raw_syscalls:sys_exit", .start_keys = "common_pid",
		 .end_keys = "common_pid", .key_name = "pid", .end_fields = "id,ret",
		 .start_filter = *enter_filter ? enter_filter : NULL,
		 .end_filter = *filter ? filter : NULL, .size = 16384,
		 .clock = "mono");
	char trig[256];

	snprintf(trig, sizeof(trig), "hist:keys=%s:size=8192%s%s",
		 s->by_proc ? "common_pid.execname" : "id", *filter ? " if " : "", filter);
	lat_hist(&s->l, "raw_syscalls:sys_exit", trig);
	/* the names processes take at exec, for those gone by the end */
	if (s->by_proc)
		lat_event(&s->l, "sched:sched_process_exec", NULL);
	if (!s->latency) {
		lat_path(&s->l, "kernel: hist trigger on raw_syscalls:sys_exit, keys=%s",
			 s->by_proc ? "common_pid" : "id");
		return;
	}
	lat_latency(&s->l, &o, "sys", s->synth, sizeof(s->synth));
	s->lo = o;
	snprintf(trig, sizeof(trig), "hist:keys=%s:vals=hitcount,lat:size=8192",
		 s->by_proc ? "pid" : "id");
	lat_hist(&s->l, s->synth, trig);
	lat_path(&s->l, "kernel: hist trigger on raw_syscalls:sys_exit, keys=%s; sys_enter -> "
		 "sys_exit by common_pid -> %s, a hist on it summing lat by %s",
		 s->by_proc ? "common_pid" : "id", s->synth, s->by_proc ? "pid" : "id");
}

static void kernel_read(struct sc *s)
{
	struct lat_hist_totals tot;
	uint64_t dropped;

	lat_hist_read(&s->l, "raw_syscalls:sys_exit", s->by_proc ?
		      "keys=common_pid.execname:vals=hitcount:sort" : "keys=id:vals=hitcount:sort",
		      s->by_proc ? "common_pid" : "id", "hitcount", on_count, s, &tot);
	dropped = tot.dropped;
	if (s->latency) {
		lat_hist_read(&s->l, s->synth, "keys=", s->by_proc ? "pid" : "id",
			      "hitcount,lat", on_latency, s, &tot);
		dropped += tot.dropped + lat_latency_dropped(&s->l, &s->lo);
	}
	s->dropped = dropped;
}

static void print(void *ctx)
{
	struct sc *s = ctx;
	struct ftk_lat_row **rows;
	unsigned long long total;
	char name[64];
	long n, i;

	if (s->l.opt.json) {
		printf("{\"by\":\"%s\",\"unit\":\"%s\",\"rows\":", s->by_proc ? "process" : "syscall",
		       s->uname);
		ftk_lattab_json(s->tab, stdout, FTK_LATTAB_BY_COUNT, s->top, s->uname);
		printf(",\"lost\":%llu}\n", (unsigned long long)(lat_lost(&s->l) + s->dropped));
		goto out;
	}
	n = ftk_lattab_rows(s->tab, s->latency ? FTK_LATTAB_BY_TOTAL : FTK_LATTAB_BY_COUNT, &rows);
	for (i = 0, total = 0; i < n; i++)
		total += rows[i]->count;
	lat_path(&s->l, "%llu syscalls%s, %llu paired with their entry", (unsigned long long)total,
		 s->failures ? " (failed)" : "", (unsigned long long)s->paired);
	s->paired = 0;
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
	lat_dropped_print(s->dropped, stdout);
out:
	ftk_lattab_reset(s->tab);
	lat_check_out(&s->l);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "latency", no_argument, NULL, 'L' },	{ "process", no_argument, NULL, 'P' },
		{ "failures", no_argument, NULL, 'x' },	{ "syscall", required_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 't' },	{ }
	};
	static const struct lat_def def = {
		.name = "ftsyscount", .usage = usage, .opts = "LPxe:t:", .longopts = longopts,
		.option = option, .shared = LAT_OPT_PID | LAT_OPT_INTERVAL | LAT_OPT_JSON |
		LAT_OPT_STREAM | LAT_OPT_MSECS | LAT_OPT_NSECS,
	};
	struct tool_args args;
	struct sc s = { .l.name = "syscount", .syscall = -1, .l.opt.unit = 'u' };
	char filter[128] = "", enter_filter[64] = "";
	int code, kernel;

	lat_parse(&s.l, &def, argc, argv, &args, &s);
	s.uname = lat_unit(s.l.opt.unit, &s.div);
	s.tab = ftk_lattab_new();
	s.pair = ftk_pair_new();
	s.execs = ftk_lattab_new();
	if (!s.tab || !s.pair || !s.execs)
		tool_die("out of memory");
	lat_open(&s.l, &args, s.l.opt.pid);
	if (s.syscall >= 0)
		snprintf(filter, sizeof(filter), "id == %d", s.syscall);
	snprintf(enter_filter, sizeof(enter_filter), "%s", filter);
	if (s.failures)
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter), "%sret < 0",
			 *filter ? " && " : "");
	kernel = lat_kernel_ok(&s.l, "raw_syscalls:sys_exit", s.l.opt.interval ? "-i" : NULL);
	if (kernel) {
		kernel_setup(&s, filter, enter_filter);
	} else {
		if (s.latency)
			lat_event(&s.l, "raw_syscalls:sys_enter", *enter_filter ? enter_filter : NULL);
		lat_event(&s.l, "raw_syscalls:sys_exit", *filter ? filter : NULL);
		lat_path(&s.l, "stream: raw_syscalls sys_%s paired by thread from the live buffer",
			 s.latency ? "enter/sys_exit" : "exit");
	}
	lat_tep(&s.l);
	s.exit_id = lat_find(&s.l, "raw_syscalls", "sys_exit")->id;
	s.enter_id = s.latency ? lat_find(&s.l, "raw_syscalls", "sys_enter")->id : -1;
	s.f_id = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "id");
	s.f_ret = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "ret");
	s.exec_id = -1;
	if (kernel && s.by_proc) {
		struct tep_event *ev = lat_find(&s.l, "sched", "sched_process_exec");

		s.exec_id = ev->id;
		s.f_filename = lat_field(&s.l, ev, "filename");
	}
	code = lat_run(&s.l, on_record, &s, print, s.l.opt.interval);
	if (kernel)
		kernel_read(&s);
	print(&s);
	ftk_lattab_free(s.tab);
	ftk_pair_free(s.pair);
	ftk_lattab_free(s.execs);
	lat_exit(&s.l, code);
}
