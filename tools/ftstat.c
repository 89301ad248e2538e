// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftstat: count perf events for a command, processes, threads or CPUs,
 * and print them as `perf stat` does. Counting and perf stat's arithmetic
 * (deltas, scaling, means and noise, derived metrics, targets, default
 * events) are libftkit's perf and perf-stat parts; this file holds the
 * options and perf stat's three output layouts.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/perfstat.h>
#include <ftkit/text.h>

#include "cmd.h"
#include "tool.h"

#define NSEC_PER_SEC	1000000000ULL

enum output_mode { OUT_STD, OUT_CSV, OUT_JSON };

enum {
	OPT_JSON = 256,
	OPT_NO_BIG_NUM,
	OPT_LIST,
	OPT_INTERVAL_COUNT,
	OPT_APPEND,
};

static struct {
	struct ftk_perf		*perf;
	struct ftk_perf_stat	*stat;
	FILE			*out;
	const char		*output;	/* -o FILE, or NULL for stderr */
	char			**argv;		/* the command, or NULL */
	const char		*pid_list;
	const char		*tid_list;
	const char		*cpu_list;
	const char		*events[64];	/* -e */
	size_t			nr_events;
	pid_t			*tids;
	size_t			nr_tids;
	int			*cpus;
	size_t			nr_cpus;
	size_t			nr_rows;	/* per event: CPUs with -A, else 1; 0 with -n */
	const char		*sep;
	enum output_mode	mode;
	int			unit_width;	/* of the unit column: 4, or the longest unit */
	unsigned int		interval_ms;
	unsigned int		interval_count;
	unsigned int		runs;
	int			system_wide;
	int			no_aggr;
	int			no_inherit;
	int			big_num;
	int			detailed;
	int			null_run;
	int			append;
} settings = {
	.runs = 1,
	.big_num = 1,
};

static const char usage_text[] =
"usage: ftstat [-aAinqv] [-e EVENTS] [-p PID | -t TID | -C CPUS]\n"
"              [-I MS [--interval-count N]] [-r N] [-x SEP | --json] [-d]\n"
"              [-o FILE [--append]] [-B | --no-big-num] [--] [COMMAND [ARGS...]]\n"
"       ftstat --list\n"
"\n"
"Count perf events (software, hardware, cache, raw, PMU and tracepoint events)\n"
"for a command and its children, processes, threads or CPUs, and print them as\n"
"perf stat does: on stderr, or FILE with -o.\n"
"\n"
"  -e, --event EVENTS     events, perf syntax: cs,task-clock  {a,b}:u  sched:sched_*\n"
"                         r003c  msr/tsc/  cpu/event=0x3c,umask=0x1/  (repeatable)\n"
"  -p, --pid PIDS         count these processes (all their threads) until they\n"
"                         exit, or while COMMAND runs\n"
"  -t, --tid TIDS         count these threads\n"
"  -a, --all-cpus         count every task on every CPU\n"
"  -C, --cpu CPUS         count every task on these CPUs: 0-3,6\n"
"  -A, --no-aggr          one row per CPU (with -a or -C)\n"
"  -i, --no-inherit       do not count the command's children\n"
"  -I, --interval-print MS  print the counts of every MS milliseconds\n"
"      --interval-count N stop after N intervals\n"
"  -r, --repeat N         run the command N times; print means and their noise\n"
"  -d, --detailed         add cache events (-dd, -ddd: more)\n"
"  -n, --null             no counters: the elapsed time only\n"
"  -x, --field-separator SEP  CSV output, fields as perf stat -x\n"
"      --json             JSON output, one object a line, as perf stat --json\n"
"  -o, --output FILE      write the counts to FILE, not stderr (- for stdout)\n"
"      --append           add to FILE rather than replace it\n"
"  -B, --big-num          thousands separators from the locale (default)\n"
"      --no-big-num       no thousands separators\n"
"      --list             list the named events\n"
"  -q, --quiet            fewer messages\n"
"  -v, --verbose          more messages: why an event is not supported\n"
"  -V, --version          print the version\n"
"  -h, --help             this text\n"
"\n"
"examples:\n"
"  ftstat make -j2                        # the default events for a build\n"
"  ftstat -e page-faults,cs -r 5 ./prog   # mean of 5 runs with their noise\n"
"  ftstat -a -A -I 1000 -e cs             # per-CPU context switches every second\n"
"  ftstat -e 'syscalls:sys_enter_*' -p 1234   # syscalls of a process until Ctrl-C\n"
"  ftstat -x, -e task-clock ./prog        # CSV\n";

/* ------------------------------------------------------------ --list */

static void list_kind(const char *heading, enum ftk_perf_kind kind)
{
	char **names, **n;

	if (ftk_perf_list(settings.perf, kind, &names))
		tool_die("cannot list events: %s", strerror(errno));
	printf("%s", heading);
	for (n = names; *n; n++)
		printf("  %s\n", *n);
	ftk_list_free(names);
}

/* The names perf list shows (the library's tables), and the syntax of the rest. */
static void list_events(void)
{
	list_kind("Hardware event:\n", FTK_PERF_KIND_HARDWARE);
	list_kind("\nSoftware event:\n", FTK_PERF_KIND_SOFTWARE);
	list_kind("\nHardware cache event:\n", FTK_PERF_KIND_CACHE);
	printf("\nRaw and PMU events:\n"
	       "  rNNN (hex config of the CPU PMU)\n"
	       "  PMU/TERM=VALUE,.../ (terms in /sys/bus/event_source/devices/PMU/format)\n"
	       "  PMU/NAME/ (aliases in /sys/bus/event_source/devices/PMU/events)\n"
	       "\nTracepoint events:\n"
	       "  SYSTEM:EVENT (globs allowed: sched:sched_*)\n"
	       "\nModifiers:\n"
	       "  EVENT:MODS, {EVENT,...}:MODS; MODS from u k h G H p D\n");
	list_kind("\nKernel PMU events (/sys/bus/event_source/devices/*/events):\n",
		  FTK_PERF_KIND_PMU);
	tool_exit(EXIT_OK);
}

/* ------------------------------------------------------------ printing */

static const char *status_text(int status)
{
	return status == -ECANCELED || status == 0 ? "<not counted>" : "<not supported>";
}

static void print_ts(uint64_t ts)
{
	unsigned long long s = ts / NSEC_PER_SEC, ns = ts % NSEC_PER_SEC;

	if (settings.mode == OUT_JSON)
		fprintf(settings.out, "\"interval\" : %llu.%09llu, ", s, ns);
	else
		fprintf(settings.out, "%6llu.%09llu%s", s, ns, settings.sep);
}

static void print_json(const struct ftk_perf_stat_count *c, const struct ftk_perf_stat_metric *m,
		       const struct ftk_perf_stat_unit *u, const char *name, int cpu, int ok,
		       double pct)
{
	FILE *f = settings.out;

	if (cpu >= 0)
		fprintf(f, "\"cpu\" : \"%d\", ", cpu);
	if (ok)
		fprintf(f, "\"counter-value\" : \"%f\", ", c->val / u->div);
	else
		fprintf(f, "\"counter-value\" : \"%s\", ", status_text(c->status));
	fprintf(f, "\"unit\" : ");
	ftk_json_str(f, u->unit, SIZE_MAX);
	fprintf(f, ", \"event\" : ");
	ftk_json_str(f, name, SIZE_MAX);
	if (settings.runs > 1)
		fprintf(f, ", \"variance\" : %.2f", c->noise);
	fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
		(unsigned long long)(ok ? c->run : 0), pct);
	fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : ", m->fmt ? m->val : 0.0);
	ftk_json_str(f, m->fmt ? m->unit : "", SIZE_MAX);
	fprintf(f, "}\n");
}

static void print_csv(const struct ftk_perf_stat_count *c, const struct ftk_perf_stat_metric *m,
		      const struct ftk_perf_stat_unit *u, const char *name, int cpu, int ok,
		      double pct)
{
	const char *sep = settings.sep, *p;
	FILE *f = settings.out;
	char num[64];

	if (cpu >= 0)
		fprintf(f, "CPU%d%s", cpu, sep);
	if (ok)
		fprintf(f, "%.*f", u->decimals, c->val / u->div);
	else
		fputs(status_text(c->status), f);
	fprintf(f, "%s%s%s%s%s", sep, u->unit, sep, name, sep);
	if (settings.runs > 1)
		fprintf(f, "%.2f%%%s", c->noise, sep);
	fprintf(f, "%llu%s%.2f%s", (unsigned long long)(ok ? c->run : 0), sep, pct, sep);
	if (m->fmt) {
		snprintf(num, sizeof(num), m->fmt, m->val);
		for (p = num; *p == ' '; p++)
			;
		fprintf(f, "%.*s%s%s", (int)strcspn(p, " %"), p, sep, m->unit + (*m->unit == ' '));
	} else {
		fputs(sep, f);
	}
	fputc('\n', f);
}

/* perf's layout: count 18, unit 4, name 32, then " # value unit" in 35 columns. */
static void print_std(const struct ftk_perf_stat_count *c, const struct ftk_perf_stat_metric *m,
		      const struct ftk_perf_stat_unit *u, const char *name, int cpu, int ok,
		      double pct)
{
	FILE *f = settings.out;
	char num[64];
	int n;

	if (cpu >= 0)
		fprintf(f, "CPU%-7d ", cpu);
	if (!ok) {
		fprintf(f, "%18s %-*s %-25s%35s", status_text(c->status), settings.unit_width, u->unit,
			name, "");
	} else {
		fprintf(f, settings.big_num ? "%'18.*f" : "%18.*f", u->decimals, c->val / u->div);
		fprintf(f, " %-*s %-32s", settings.unit_width, u->unit, name);
		if (m->fmt) {
			n = snprintf(num, sizeof(num), m->fmt, m->val);
			fprintf(f, " # %s %-*s", num, 35 - 3 - n - 1, m->unit);
		} else {
			fprintf(f, "%35s", "");
		}
	}
	if (ok && settings.runs > 1 && c->noise)
		fprintf(f, "  ( +-%6.2f%% )", c->noise);
	if (ok && c->run < c->ena)
		fprintf(f, "  (%.2f%%)", pct);
	fputc('\n', f);
}

/* Every event's rows of @span, with their metrics over @elapsed_ns; @ts: an interval's stamp. */
static void print_rows(enum ftk_perf_stat_span span, double elapsed_ns, int interval, uint64_t ts)
{
	size_t ev, r, n = ftk_perf_nr_events(settings.perf);
	struct ftk_perf_stat_count c;
	struct ftk_perf_stat_metric m;
	struct ftk_perf_stat_unit u;
	int ok, cpu;
	double pct;

	for (ev = 0; ev < n; ev++) {
		for (r = 0; r < settings.nr_rows; r++) {
			ftk_perf_stat_count(settings.stat, ev, r, span, &c);
			ftk_perf_stat_metric(settings.stat, ev, r, span, elapsed_ns, &m);
			ftk_perf_stat_unit(settings.stat, ev, &u);
			ok = !c.status && c.run;
			pct = ok && c.ena ? 100.0 * c.run / c.ena : 100.0;
			cpu = settings.no_aggr ? settings.cpus[r] : -1;
			if (settings.mode == OUT_JSON)
				fputc('{', settings.out);
			if (interval)
				print_ts(ts);
			if (settings.mode == OUT_JSON)
				print_json(&c, &m, &u, ftk_perf_name(settings.perf, ev), cpu, ok, pct);
			else if (settings.mode == OUT_CSV)
				print_csv(&c, &m, &u, ftk_perf_name(settings.perf, ev), cpu, ok, pct);
			else
				print_std(&c, &m, &u, ftk_perf_name(settings.perf, ev), cpu, ok, pct);
		}
	}
}

/* One interval's rows; perf repeats the column heading every 25 intervals. */
static void print_interval(size_t nr, uint64_t len, uint64_t ts)
{
	if (settings.mode == OUT_STD && nr % 25 == 0)
		fprintf(settings.out, settings.no_aggr ?
			"#           time CPU                    counts unit events\n" :
			"#           time             counts unit events\n");
	print_rows(FTK_PERF_STAT_DELTA, len, 1, ts);
	fflush(settings.out);
}

static void print_header(void)
{
	FILE *f = settings.out;
	char **a;

	fprintf(f, "\n Performance counter stats for ");
	if (settings.system_wide && !settings.cpu_list)
		fprintf(f, "'system wide");
	else if (settings.cpu_list)
		fprintf(f, "'CPU(s) %s", settings.cpu_list);
	else if (settings.pid_list)
		fprintf(f, "process id '%s", settings.pid_list);
	else if (settings.tid_list)
		fprintf(f, "thread id '%s", settings.tid_list);
	else
		for (a = settings.argv; *a; a++)
			fprintf(f, a == settings.argv ? "'%s" : " %s", *a);
	fputc('\'', f);
	if (settings.runs > 1)
		fprintf(f, " (%u runs)", settings.runs);
	fprintf(f, ":\n\n");
}

/* The elapsed time, with its noise over runs; the command's CPU times after one run. */
static void print_footer(const struct rusage *ru)
{
	double avg, sd, rel;
	FILE *f = settings.out;
	int prec;

	ftk_perf_stat_elapsed(settings.stat, &avg, &sd);
	rel = avg ? 100.0 * sd / avg : 0;
	avg /= 1e9;
	sd /= 1e9;
	if (!settings.null_run)
		fputc('\n', f);
	if (settings.runs < 2) {
		fprintf(f, " %17.9f seconds time elapsed", avg);
		if (ru) {
			fprintf(f, "\n\n");
			fprintf(f, " %17.9f seconds user\n",
				ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6);
			fprintf(f, " %17.9f seconds sys\n",
				ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
		}
	} else {
		/* Digits perf keeps: two more than the noise's first. */
		prec = 2 + (sd > 1 ? 0 : sd <= 0 ? 7 : (int)lround(ceil(-log10(sd))));
		fprintf(f, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		if (rel)
			fprintf(f, "  ( +-%6.2f%% )", rel);
	}
	fprintf(f, "\n\n");
}

/* ------------------------------------------------------------ counting */

static void open_counters(struct tool_cmd *cmd)
{
	unsigned int flags = settings.no_inherit ? 0 : FTK_PERF_INHERIT;
	size_t ev, n = ftk_perf_nr_events(settings.perf);
	char buf[256];
	int ret;

	if (settings.system_wide)
		ret = ftk_perf_open(settings.perf, settings.cpus, settings.nr_cpus, NULL, 0, FTK_PERF_DISABLED);
	else if (settings.tids)	/* -p/-t: counted for as long as they live, or the command runs */
		ret = ftk_perf_open(settings.perf, NULL, 0, settings.tids, settings.nr_tids,
				    flags | FTK_PERF_DISABLED);
	else
		ret = ftk_perf_open(settings.perf, NULL, 0, &cmd->pid, 1, flags | FTK_PERF_ON_EXEC);
	if (ret) {
		if (ret == -EACCES || ret == -EPERM)
			tool_err("%s (perf_event_paranoid is %s; try as root)",
				 ftk_perf_errmsg(settings.perf),
				 access("/proc/sys/kernel/perf_event_paranoid", R_OK) ? "?" :
				 "too high");
		else
			tool_err("%s", ftk_perf_errmsg(settings.perf));
		if (settings.argv)
			tool_cmd_abandon(cmd);
		tool_exit(EXIT_FAIL);
	}
	for (ev = 0; ev < n && ftk_log_level() >= FTK_LOG_INFO; ev++)
		if (ftk_perf_why(settings.perf, ev, buf, sizeof(buf)))
			tool_warn("%s: %s", ftk_perf_name(settings.perf, ev), buf);
	fflush(stderr);		/* before the command's own output */
}

/*
 * Wait until @deadline (tool_now(), 0: none): 1 when the counting ends (the
 * command or the -p/-t targets are gone, or a signal came without a
 * command), 0 at the deadline. A signal is passed on to the command, whose
 * end then ends the counting.
 */
static int wait_until(struct tool_cmd *cmd, double deadline)
{
	double left;

	for (;;) {
		left = deadline ? deadline - tool_now() : 0;
		if (deadline && left <= 0)
			return 0;
		if (settings.argv)
			return tool_cmd_wait(cmd, left);
		if (tool_stop || (settings.tids && !ftk_perf_alive(settings.tids, settings.nr_tids)))
			return 1;
		/* Targets are polled: a thread that is not our child gives no signal. */
		tool_sleep(settings.tids && (!deadline || left > 0.1) ? 0.1 : left);
	}
}

static void read_counts(void)
{
	if (!settings.null_run && ftk_perf_stat_read(settings.stat))
		tool_die("%s", ftk_perf_errmsg(settings.perf));
}

/* One run: count until the command, the targets, -I --interval-count or a signal ends it. */
static int run_once(struct rusage *ru)
{
	double start, last, next = 0, t;
	struct tool_cmd cmd = { .pid = -1 };
	size_t nr_interval = 0;
	int ended = 0, code = 0;

	if (settings.argv)
		tool_cmd_fork(&cmd, settings.argv, NULL);
	if (!settings.null_run)
		open_counters(&cmd);
	/* The elapsed time spans the counting: CPUs utilized stays <= 1 a CPU. */
	start = last = tool_now();
	if (!settings.null_run && (settings.system_wide || settings.tids) && ftk_perf_enable(settings.perf))
		tool_die("%s", ftk_perf_errmsg(settings.perf));
	if (settings.argv && tool_cmd_start(&cmd))
		tool_exit(tool_cmd_code(&cmd));
	if (settings.interval_ms)
		next = start + settings.interval_ms / 1e3;
	while (!ended) {
		ended = wait_until(&cmd, next);
		if (ended || !settings.interval_ms)
			break;
		t = tool_now();
		read_counts();
		print_interval(nr_interval++, (uint64_t)((t - last) * 1e9),
			       (uint64_t)((t - start) * 1e9));
		last = t;
		if (settings.interval_count && nr_interval >= settings.interval_count)
			break;
		next += settings.interval_ms / 1e3;
	}
	if (!settings.null_run)
		ftk_perf_disable(settings.perf);
	t = tool_now();
	if (settings.argv && !ended) {
		/* --interval-count ended it: stop the command, as perf does. */
		tool_cmd_kill(&cmd);
		code = WIFSIGNALED(cmd.status) && WTERMSIG(cmd.status) == SIGTERM ? 0 :
		       tool_cmd_code(&cmd);
	} else if (settings.argv) {
		code = tool_cmd_code(&cmd);
	}
	read_counts();
	if (settings.interval_ms && (!settings.interval_count || nr_interval < settings.interval_count))
		print_interval(nr_interval, (uint64_t)((t - last) * 1e9),
			       (uint64_t)((t - start) * 1e9));
	ftk_perf_stat_run_end(settings.stat, (uint64_t)((t - start) * 1e9));
	if (!settings.null_run)
		ftk_perf_close(settings.perf);
	getrusage(RUSAGE_CHILDREN, ru);
	return code;
}

/* ------------------------------------------------------------ set-up */

/* -p: every thread of each process; -t: the threads themselves. */
static void add_targets(const char *list, unsigned int flags)
{
	char *copy = strdup(list), *tok, *save = NULL, buf[128];
	const char *what = flags & FTK_PERF_STAT_THREAD ? "thread" : "process";
	int id, ret;

	if (!copy)
		tool_die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		id = tool_pid(tok);
		ret = ftk_perf_threads(id, flags, &settings.tids, &settings.nr_tids);
		if (ret == -ESRCH)
			tool_die("cannot count %s %d: no such %s", what, id, what);
		if (ret)
			tool_die("cannot count %s %d: %s", what, id, ftk_strerror(ret, buf, sizeof(buf)));
	}
	free(copy);
}

/* -a: the online CPUs; -C: those of the list, each online. */
static void add_cpus(void)
{
	size_t i, k, nr;
	int *want;

	if (ftk_perf_online_cpus(&settings.cpus, &settings.nr_cpus))
		tool_die("cannot read '/sys/devices/system/cpu/online': %s", strerror(errno));
	if (!settings.cpu_list)
		return;
	tool_cpus(settings.cpu_list, &want, &nr);
	for (i = 0; i < nr; i++) {
		for (k = 0; k < settings.nr_cpus && settings.cpus[k] != want[i]; k++)
			;
		if (k == settings.nr_cpus)
			tool_usage_error("CPU %d is not online (see /sys/devices/system/cpu/online)",
					 want[i]);
	}
	free(settings.cpus);
	settings.cpus = want;
	settings.nr_cpus = nr;
}

static void add_events(void)
{
	struct ftk_perf_stat_unit u;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < settings.nr_events; i++)
		ret = ftk_perf_add(settings.perf, settings.events[i]);
	if (!ret && !settings.nr_events && !settings.null_run)
		ret = ftk_perf_stat_defaults(settings.perf, settings.system_wide ?
					     FTK_PERF_STAT_SYSTEM_WIDE : 0, settings.detailed);
	if (ret)
		tool_usage_error("%s", ftk_perf_errmsg(settings.perf));
	if (ftk_perf_stat_new(settings.perf, settings.no_aggr ? FTK_PERF_STAT_PER_CPU : 0, &settings.stat))
		tool_die("out of memory");
	/* perf widens the unit column for the longest unit: "Joules". */
	settings.unit_width = 4;
	for (i = 0; i < ftk_perf_nr_events(settings.perf); i++)
		if (!ftk_perf_stat_unit(settings.stat, i, &u) && (int)strlen(u.unit) > settings.unit_width)
			settings.unit_width = strlen(u.unit);
	settings.nr_rows = settings.null_run ? 0 : settings.no_aggr ? settings.nr_cpus : 1;
}

static void open_output(void)
{
	static char buf[BUFSIZ];
	time_t now = time(NULL);

	settings.out = stderr;
	if (!settings.output) {
		/* One write for the report, not one per fprintf; -I flushes each interval. */
		setvbuf(stderr, buf, _IOFBF, sizeof(buf));
		return;
	}
	settings.out = tool_output(settings.output, settings.append ? FTK_FILE_APPEND : FTK_FILE_STREAM, stderr);
	/* perf's first line in a file; not in JSON, where it would break the parsers. */
	if (settings.mode != OUT_JSON) {
		fprintf(settings.out, "# started on %s\n", ctime(&now));
		fflush(settings.out);
	}
}

static void option(int opt, char *arg, void *ctx)
{
	switch (opt) {
	case 'e':
		if (settings.nr_events == sizeof(settings.events) / sizeof(settings.events[0]))
			tool_usage_error("too many -e options");
		settings.events[settings.nr_events++] = arg;
		break;
	case 'p': settings.pid_list = arg; break;
	case 't': settings.tid_list = arg; break;
	case 'a': settings.system_wide = 1; break;
	case 'C': settings.cpu_list = arg; settings.system_wide = 1; break;
	case 'A': settings.no_aggr = 1; break;
	case 'i': settings.no_inherit = 1; break;
	case 'I': settings.interval_ms = tool_num(arg, "interval (ms)", 10, 100000000); break;
	case 'r': settings.runs = tool_num(arg, "repeat count", 1, 100000000); break;
	case OPT_INTERVAL_COUNT:
		settings.interval_count = tool_num(arg, "interval count", 1, 100000000);
		break;
	case 'd': settings.detailed++; break;
	case 'n': settings.null_run = 1; break;
	case 'x': settings.mode = OUT_CSV; settings.sep = arg; break;
	case OPT_JSON: settings.mode = OUT_JSON; break;
	case 'o': settings.output = arg; break;
	case OPT_APPEND: settings.append = 1; break;
	case 'B': settings.big_num = 1; break;
	case OPT_NO_BIG_NUM: settings.big_num = 0; break;
	case OPT_LIST: list_events(); break;
	}
}

static const struct option longopts[] = {
	{ "event",		required_argument,	NULL, 'e' },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "tid",		required_argument,	NULL, 't' },
	{ "all-cpus",		no_argument,		NULL, 'a' },
	{ "cpu",		required_argument,	NULL, 'C' },
	{ "no-aggr",		no_argument,		NULL, 'A' },
	{ "no-inherit",		no_argument,		NULL, 'i' },
	{ "interval-print",	required_argument,	NULL, 'I' },
	{ "interval-count",	required_argument,	NULL, OPT_INTERVAL_COUNT },
	{ "repeat",		required_argument,	NULL, 'r' },
	{ "detailed",		no_argument,		NULL, 'd' },
	{ "null",		no_argument,		NULL, 'n' },
	{ "field-separator",	required_argument,	NULL, 'x' },
	{ "json",		no_argument,		NULL, OPT_JSON },
	{ "output",		required_argument,	NULL, 'o' },
	{ "append",		no_argument,		NULL, OPT_APPEND },
	{ "big-num",		no_argument,		NULL, 'B' },
	{ "no-big-num",		no_argument,		NULL, OPT_NO_BIG_NUM },
	{ "list",		no_argument,		NULL, OPT_LIST },
	{ }
};

static const struct tool_def ftstat = {
	.name		= "ftstat",
	.usage		= usage_text,
	.opts		= "e:p:t:aC:AiI:r:dnx:o:B",
	.longopts	= longopts,
	.common		= TOOL_OPT_COMMAND,
	.option		= option,
};

/* The options' combinations; the separator and the locale they imply. */
static void check_options(void)
{
	if (!!settings.pid_list + !!settings.tid_list + !!settings.system_wide > 1)
		tool_usage_error("-p, -t and -a/-C exclude each other");
	if (!settings.argv && !settings.pid_list && !settings.tid_list && !settings.system_wide)
		tool_usage_error("nothing to count: give a command, -p, -t, -a or -C");
	if (settings.no_aggr && !settings.system_wide)
		tool_usage_error("-A needs -a or -C");
	if (settings.runs > 1 && (!settings.argv || settings.interval_ms))
		tool_usage_error(settings.argv ? "-r and -I exclude each other" : "-r needs a command");
	if (settings.interval_count && !settings.interval_ms)
		tool_usage_error("--interval-count needs -I");
	if (settings.mode == OUT_CSV && !*settings.sep)
		tool_usage_error("-x needs a separator");
	if (settings.mode != OUT_CSV)
		settings.sep = " ";
	if (settings.mode != OUT_STD)
		settings.big_num = 0;
	if (settings.big_num)
		setlocale(LC_NUMERIC, "");
}

/* The whole count (the means with -r), unless -I printed it interval by interval. */
static void print_report(const struct rusage *ru)
{
	unsigned int runs;
	double elapsed;

	runs = ftk_perf_stat_elapsed(settings.stat, &elapsed, NULL);
	if (settings.runs > 1)	/* fewer after a Ctrl-C */
		settings.runs = runs;
	if (!settings.interval_ms && settings.mode == OUT_STD)
		print_header();
	if (!settings.interval_ms)
		print_rows(FTK_PERF_STAT_MEAN, elapsed, 0, 0);
	if (!settings.interval_ms && settings.mode == OUT_STD)
		print_footer(settings.argv && !settings.system_wide && !settings.tids && settings.runs == 1 ? ru : NULL);
	if (settings.output && tool_output_close(settings.out, 1))
		tool_exit(EXIT_FAIL);	/* it said why */
	if (!settings.output && (fflush(settings.out) || ferror(settings.out)))
		tool_die("cannot write to stderr: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct tool_args args;
	struct rusage ru;
	unsigned int run;
	int code = EXIT_OK;

	/* Ctrl-C ends the counting and the counts so far are printed: caught from the start. */
	tool_signals();
	signal(SIGPIPE, SIG_IGN);
	if (ftk_perf_new(NULL, tool_tracepoints(), &settings.perf))
		tool_die("out of memory");
	tool_parse(&ftstat, argc, argv, &args, NULL);
	settings.argv = args.argv;
	check_options();
	if (settings.system_wide)
		add_cpus();
	if (settings.pid_list)
		add_targets(settings.pid_list, 0);
	if (settings.tid_list)
		add_targets(settings.tid_list, FTK_PERF_STAT_THREAD);
	add_events();
	open_output();
	for (run = 0; run < settings.runs; run++) {
		code = run_once(&ru);
		if (tool_stop)
			break;
	}
	print_report(&ru);
	ftk_perf_stat_free(settings.stat);
	ftk_perf_free(settings.perf);
	free(settings.tids);
	free(settings.cpus);
	tool_exit(code);
}
