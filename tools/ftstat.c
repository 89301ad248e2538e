// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftstat: count perf events for a command, processes, threads or CPUs,
 * and print them as `perf stat` does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define NSEC_PER_SEC	1000000000ULL

enum output_mode { OUT_STD, OUT_CSV, OUT_JSON };

static struct {
	struct ftk_perf	*perf;
	FILE		*out;
	char		**argv;		/* the command, or NULL */
	int		argc;
	const char	*pid_list;
	const char	*tid_list;
	const char	*cpu_list;
	pid_t		*tids;
	size_t		nr_tids;
	int		*cpus;
	size_t		nr_cpus;
	size_t		nr_aggr;	/* rows per event: CPUs with -A, else 1 */
	double		*scale;		/* per event: sysfs .scale, else 1 */
	int		unit_width;	/* of the unit column: 4, or the longest sysfs unit */
	enum output_mode mode;
	const char	*sep;
	unsigned int	interval_ms;
	unsigned int	interval_count;
	unsigned int	runs;
	int		system_wide;
	int		no_aggr;
	int		no_inherit;
	int		big_num;
	int		detailed;
	int		null_run;
	int		verbose;
	pid_t		child;
} cfg = {
	.runs = 1,
	.big_num = 1,
	.child = -1,
};

/* One printed row: an event on one CPU (with -A) or summed. */
struct cnt {
	double		val;		/* scaled; the mean over runs with -r */
	double		ena;
	double		run;
	double		noise;		/* relative stddev of the mean, percent */
	int		status;		/* 0 or ftk_perf_status() */
};

/* Welford's running mean and variance, for -r. */
struct stats {
	double		n;
	double		mean;
	double		m2;
};

static void stats_add(struct stats *s, double v)
{
	double d = v - s->mean;

	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (v - s->mean);
}

/* Standard deviation of the mean, as perf prints it. */
static double stats_stddev(const struct stats *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

static double stats_rel(const struct stats *s)
{
	return s->mean ? 100.0 * stats_stddev(s) / s->mean : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftstat [-aAinqv] [-e EVENTS] [-p PID | -t TID | -C CPUS] [-I MS] [-r N]\n"
"              [-x SEP | --json] [-d] [-o FILE] [--] [COMMAND [ARGS...]]\n"
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
"  -o, --output FILE      write the counts to FILE, not stderr\n"
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
"  ftstat -x, -e task-clock ./prog        # CSV\n");
}

/* ------------------------------------------------------------ events */

static int is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static int is_hw(const struct perf_event_attr *a, uint64_t config)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == config;
}

static void add_events(const char *spec)
{
	int ret = ftk_perf_add(cfg.perf, spec);

	if (ret)
		tool_usage_error("%s", ftk_perf_errmsg(cfg.perf));
}

static void default_events(void)
{
	add_events(cfg.system_wide ? "cpu-clock" : "task-clock");
	add_events("context-switches,cpu-migrations,page-faults,cycles,instructions,branches,"
		   "branch-misses");
	if (cfg.detailed >= 1)
		add_events("L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses");
	if (cfg.detailed >= 2)
		add_events("L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
			   "iTLB-loads,iTLB-load-misses");
	if (cfg.detailed >= 3)
		add_events("L1-dcache-prefetches,L1-dcache-prefetch-misses");
}

static void list_events(void)
{
	/* Lines starting with '#' are headings. */
	static const char *const names[] = {
		"#Hardware event", "cpu-cycles OR cycles", "instructions", "cache-references",
		"cache-misses", "branch-instructions OR branches", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend OR idle-cycles-frontend",
		"stalled-cycles-backend OR idle-cycles-backend", "ref-cycles",
		"#Software event", "cpu-clock", "task-clock", "page-faults OR faults",
		"context-switches OR cs", "cpu-migrations OR migrations", "minor-faults",
		"major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output",
		"cgroup-switches",
		"#Hardware cache event",
		"{L1-dcache|L1-icache|LLC|dTLB|iTLB|branch|node}[-{load|store|prefetch}][-{refs|misses}]",
		"#Raw and PMU events", "rNNN (hex config of the CPU PMU)",
		"PMU/TERM=VALUE,.../ (terms in /sys/bus/event_source/devices/PMU/format)",
		"PMU/NAME/ (aliases in /sys/bus/event_source/devices/PMU/events)",
		"#Tracepoint events", "SYSTEM:EVENT (globs allowed: sched:sched_*)",
		"#Modifiers", "EVENT:MODS, {EVENT,...}:MODS; MODS from u k h G H p D",
	};
	size_t i;

	const char *dir = getenv("FTK_PMU_DIR") ? getenv("FTK_PMU_DIR") :
			  "/sys/bus/event_source/devices";
	struct dirent **pmus = NULL, **evs;
	int n, m, j, k;
	char path[4096];

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i][0] == '#')
			printf("%s%s:\n", i ? "\n" : "", names[i] + 1);
		else
			printf("  %s\n", names[i]);
	}
	/* What this machine's PMUs name in sysfs, as perf list's "Kernel PMU event". */
	n = scandir(dir, &pmus, NULL, alphasort);
	printf("\nKernel PMU events (%s/*/events):\n", dir);
	for (j = 0; j < n; j++) {
		snprintf(path, sizeof(path), "%s/%s/events", dir, pmus[j]->d_name);
		m = pmus[j]->d_name[0] == '.' ? -1 : scandir(path, &evs, NULL, alphasort);
		for (k = 0; k < m; k++) {
			/* .scale and .unit files describe the events; they are not events. */
			if (evs[k]->d_name[0] != '.' && !strchr(evs[k]->d_name, '.'))
				printf("  %s/%s/\n", pmus[j]->d_name, evs[k]->d_name);
			free(evs[k]);
		}
		if (m >= 0)
			free(evs);
		free(pmus[j]);
	}
	free(pmus);
}

/* ------------------------------------------------------------ targets */

static void add_tid(pid_t tid)
{
	pid_t *n = realloc(cfg.tids, (cfg.nr_tids + 1) * sizeof(*n));

	if (!n)
		tool_die("out of memory");
	cfg.tids = n;
	cfg.tids[cfg.nr_tids++] = tid;
}

static pid_t parse_id(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0)
		tool_usage_error("bad %s '%s'", what, s);
	return v;
}

/* -p: every thread of each process; -t: the threads themselves. */
static void targets_from_list(const char *list, int threads_of_pid)
{
	char *copy = strdup(list), *tok, *save = NULL, path[64];
	struct dirent *d;
	DIR *dir;
	pid_t id;

	if (!copy)
		tool_die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		id = parse_id(tok, threads_of_pid ? "process id" : "thread id");
		snprintf(path, sizeof(path), "/proc/%d/task", id);
		if (!threads_of_pid) {
			snprintf(path, sizeof(path), "/proc/%d", id);
			if (access(path, F_OK))
				tool_die("cannot count thread %d: no such thread", id);
			add_tid(id);
			continue;
		}
		dir = opendir(path);
		if (!dir)
			tool_die("cannot count process %d: %s", id,
				 errno == ENOENT ? "no such process" : strerror(errno));
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.')
				add_tid(atoi(d->d_name));
		closedir(dir);
	}
	free(copy);
}

static void online_cpus(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f || getline(&text, &len, f) < 0)
		tool_die("cannot read '/sys/devices/system/cpu/online': %s", strerror(errno));
	fclose(f);
	if (ftk_perf_cpu_list(text, &cfg.cpus, &cfg.nr_cpus))
		tool_die("cannot parse '/sys/devices/system/cpu/online': '%s'", text);
	free(text);
}

/* ------------------------------------------------------------ the command */

static int go_pipe[2] = { -1, -1 };
static int err_pipe[2] = { -1, -1 };

/*
 * Fork the command, stopped on a pipe until the counters are open on it:
 * its exec then starts them (enable_on_exec), so ftstat's own work is not
 * counted.
 */
static void prepare_command(void)
{
	sigset_t none;
	char c;
	int err;

	if (pipe2(go_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC))
		tool_die("cannot create a pipe: %s", strerror(errno));
	cfg.child = fork();
	if (cfg.child < 0)
		tool_die("cannot fork: %s", strerror(errno));
	if (cfg.child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* ignored in ftstat; the command gets it back */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go_pipe[1]);
		close(err_pipe[0]);
		if (read(go_pipe[0], &c, 1) != 1)
			_exit(127);
		execvp(cfg.argv[0], cfg.argv);
		err = errno;
		if (write(err_pipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(go_pipe[0]);
	close(err_pipe[1]);
	go_pipe[0] = err_pipe[1] = -1;
}

/* Let it exec; 0, or the errno of a failed exec. */
static int start_command(void)
{
	ssize_t n;
	int err = 0;

	if (write(go_pipe[1], "g", 1) != 1)
		tool_die("cannot start the command: %s", strerror(errno));
	close(go_pipe[1]);
	go_pipe[1] = -1;
	do {
		n = read(err_pipe[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(err_pipe[0]);
	err_pipe[0] = -1;
	return n == sizeof(err) ? err : 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAIL;
}

/* ------------------------------------------------------------ time */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ------------------------------------------------------------ printing */

struct metric {
	const char	*fmt;		/* NULL: none */
	const char	*unit;
	double		val;
	char		unitbuf[32];
};

static double find(const struct cnt *row, size_t a, int (*match)(const struct perf_event_attr *,
					     const void *), const void *arg, int *found)
{
	size_t i, n = ftk_perf_nr_events(cfg.perf);

	for (i = 0; i < n; i++) {
		const struct cnt *c = &row[i * cfg.nr_aggr + a];

		if (!c->status && c->run && match(ftk_perf_attr(cfg.perf, i), arg)) {
			*found = 1;
			return c->val;
		}
	}
	*found = 0;
	return 0;
}

static int match_clock(const struct perf_event_attr *a, const void *arg)
{
	return is_clock(a);
}

static int match_hw(const struct perf_event_attr *a, const void *arg)
{
	return is_hw(a, *(const uint64_t *)arg);
}

static int match_cache_access(const struct perf_event_attr *a, const void *arg)
{
	uint64_t want = *(const uint64_t *)arg;

	return a->type == PERF_TYPE_HW_CACHE && (a->config & 0xffff) == (want & 0xffff) &&
	       (a->config >> 16) == PERF_COUNT_HW_CACHE_RESULT_ACCESS;
}

static void ratio_metric(struct metric *m, double num, double den, const char *unit)
{
	if (!den)
		return;
	m->fmt = "%7.2f%%";
	m->unit = unit;
	m->val = 100.0 * num / den;
}

/*
 * The "# ..." column, as perf's shadow stats compute it: CPUs utilized for
 * clocks, GHz, IPC, miss ratios, and per-second rates against the clock.
 */
static void compute_metric(const struct cnt *rows, size_t ev, size_t a, double elapsed_ns,
			   struct metric *m)
{
	static const char *const cache_units[] = {
		"of all L1-dcache accesses", "of all L1-icache accesses",
		"of all LL-cache accesses", "of all dTLB cache accesses",
		"of all iTLB cache accesses", "of all branch cache accesses",
		"of all node accesses",
	};
	const struct perf_event_attr *attr = ftk_perf_attr(cfg.perf, ev);
	const struct cnt *c = &rows[ev * cfg.nr_aggr + a];
	uint64_t key;
	double clock, other;
	int has_clock, found;

	memset(m, 0, sizeof(*m));
	if (c->status || !c->run)
		return;
	if (is_clock(attr)) {
		if (elapsed_ns > 0) {
			m->fmt = "%8.3f";
			m->unit = "CPUs utilized";
			m->val = c->val / elapsed_ns;
		}
		return;
	}
	clock = find(rows, a, match_clock, NULL, &has_clock);
	if (is_hw(attr, PERF_COUNT_HW_INSTRUCTIONS)) {
		key = PERF_COUNT_HW_CPU_CYCLES;
		other = find(rows, a, match_hw, &key, &found);
		if (found && other) {
			m->fmt = "%7.2f ";
			m->unit = " insn per cycle";
			m->val = c->val / other;
		}
		return;
	}
	if (is_hw(attr, PERF_COUNT_HW_BRANCH_MISSES)) {
		key = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		other = find(rows, a, match_hw, &key, &found);
		if (found)
			ratio_metric(m, c->val, other, "of all branches");
		return;
	}
	if (is_hw(attr, PERF_COUNT_HW_CACHE_MISSES)) {
		key = PERF_COUNT_HW_CACHE_REFERENCES;
		other = find(rows, a, match_hw, &key, &found);
		if (found)
			ratio_metric(m, c->val, other, "of all cache refs");
		return;
	}
	if (attr->type == PERF_TYPE_HW_CACHE &&
	    (attr->config >> 16) == PERF_COUNT_HW_CACHE_RESULT_MISS &&
	    (attr->config & 0xff) < sizeof(cache_units) / sizeof(cache_units[0])) {
		key = attr->config;
		other = find(rows, a, match_cache_access, &key, &found);
		if (found)
			ratio_metric(m, c->val, other, cache_units[attr->config & 0xff]);
		return;
	}
	if (!has_clock)
		return;
	if (is_hw(attr, PERF_COUNT_HW_CPU_CYCLES)) {
		if (clock) {
			m->fmt = "%8.3f";
			m->unit = "GHz";
			m->val = c->val / clock;
		}
		return;
	}
	/* Per second of the clock. */
	m->val = clock ? c->val * 1e9 / clock : 0;
	m->fmt = "%8.3f";
	if (m->val >= 1e9) {
		m->val /= 1e9;
		m->unit = "G/sec";
	} else if (m->val >= 1e6) {
		m->val /= 1e6;
		m->unit = "M/sec";
	} else if (m->val >= 1e3) {
		m->val /= 1e3;
		m->unit = "K/sec";
	} else {
		m->unit = "/sec";
	}
}

static const char *status_text(int status)
{
	return status == -ECANCELED || status == 0 ? "<not counted>" : "<not supported>";
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void print_ts(uint64_t ts)
{
	if (cfg.mode == OUT_JSON)
		fprintf(cfg.out, "\"interval\" : %llu.%09llu, ",
			(unsigned long long)(ts / NSEC_PER_SEC),
			(unsigned long long)(ts % NSEC_PER_SEC));
	else
		fprintf(cfg.out, "%6llu.%09llu%s", (unsigned long long)(ts / NSEC_PER_SEC),
			(unsigned long long)(ts % NSEC_PER_SEC), cfg.sep);
}

static void print_row(const struct cnt *rows, size_t ev, size_t a, double elapsed_ns,
		      int interval, uint64_t ts)
{
	const struct perf_event_attr *attr = ftk_perf_attr(cfg.perf, ev);
	const struct cnt *c = &rows[ev * cfg.nr_aggr + a];
	double scale;
	const char *name = ftk_perf_name(cfg.perf, ev), *unit = ftk_perf_unit(cfg.perf, ev, &scale);
	double val = is_clock(attr) ? c->val / 1e6 : c->val;
	/* Clocks in msec, and sysfs-scaled events (Joules), keep two decimals. */
	int frac = is_clock(attr) || scale != 1;
	double pct = c->ena ? 100.0 * c->run / c->ena : 100.0;
	int ok = !c->status && c->run, cpu = cfg.no_aggr ? cfg.cpus[a] : -1;
	FILE *f = cfg.out;
	struct metric m;
	char num[64];

	if (is_clock(attr))
		unit = "msec";
	else if (!unit)
		unit = "";
	compute_metric(rows, ev, a, elapsed_ns, &m);
	if (!ok)
		pct = 100.0;
	if (cfg.mode == OUT_JSON) {
		fputc('{', f);
		if (interval)
			print_ts(ts);
		if (cfg.no_aggr)
			fprintf(f, "\"cpu\" : \"%d\", ", cpu);
		if (ok)
			fprintf(f, "\"counter-value\" : \"%f\", ", val);
		else
			fprintf(f, "\"counter-value\" : \"%s\", ", status_text(c->status));
		fprintf(f, "\"unit\" : ");
		json_str(f, unit);
		fprintf(f, ", \"event\" : ");
		json_str(f, name);
		if (cfg.runs > 1)
			fprintf(f, ", \"variance\" : %.2f", c->noise);
		fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
			(unsigned long long)(ok ? c->run : 0), pct);
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : ", m.fmt ? m.val : 0.0);
		json_str(f, m.fmt ? m.unit : "");
		fprintf(f, "}\n");
		return;
	}
	if (interval)
		print_ts(ts);
	if (cfg.mode == OUT_CSV) {
		if (cfg.no_aggr)
			fprintf(f, "CPU%d%s", cpu, cfg.sep);
		if (ok)
			fprintf(f, frac ? "%.2f" : "%.0f", val);
		else
			fputs(status_text(c->status), f);
		fprintf(f, "%s%s%s%s%s", cfg.sep, unit, cfg.sep, name, cfg.sep);
		if (cfg.runs > 1)
			fprintf(f, "%.2f%%%s", c->noise, cfg.sep);
		fprintf(f, "%llu%s%.2f%s", (unsigned long long)(ok ? c->run : 0), cfg.sep, pct,
			cfg.sep);
		if (m.fmt) {
			const char *p;

			snprintf(num, sizeof(num), m.fmt, m.val);
			for (p = num; *p == ' '; p++)
				;
			fprintf(f, "%.*s%s%s", (int)strcspn(p, " %"), p, cfg.sep,
				m.unit + (*m.unit == ' '));
		} else {
			fputs(cfg.sep, f);
		}
		fputc('\n', f);
		return;
	}
	/* perf's layout: count 18, unit 4, name 32, then " # value unit" in 35 columns. */
	if (cfg.no_aggr)
		fprintf(f, "CPU%-7d ", cpu);
	if (!ok) {
		fprintf(f, "%18s %-*s %-25s%35s", status_text(c->status), cfg.unit_width, unit,
			name, "");
	} else {
		if (frac)
			fprintf(f, cfg.big_num ? "%'18.2f" : "%18.2f", val);
		else
			fprintf(f, cfg.big_num ? "%'18.0f" : "%18.0f", val);
		fprintf(f, " %-*s %-32s", cfg.unit_width, unit, name);
		if (m.fmt) {
			int n = snprintf(num, sizeof(num), m.fmt, m.val);

			fprintf(f, " # %s %-*s", num, 35 - 3 - n - 1, m.unit);
		} else {
			fprintf(f, "%35s", "");
		}
	}
	if (ok && cfg.runs > 1 && c->noise)
		fprintf(f, "  ( +-%6.2f%% )", c->noise);
	if (ok && c->run < c->ena)
		fprintf(f, "  (%.2f%%)", pct);
	fputc('\n', f);
}

static void print_rows(const struct cnt *rows, double elapsed_ns, int interval, uint64_t ts)
{
	size_t i, a, n = ftk_perf_nr_events(cfg.perf);

	for (i = 0; i < n; i++)
		for (a = 0; a < cfg.nr_aggr; a++)
			print_row(rows, i, a, elapsed_ns, interval, ts);
}

/* One interval's rows; perf repeats the column heading every 25 intervals. */
static void print_interval(const struct cnt *rows, size_t nr, uint64_t len, uint64_t ts)
{
	if (cfg.mode == OUT_STD && nr % 25 == 0)
		fprintf(cfg.out, cfg.no_aggr ?
			"#           time CPU                    counts unit events\n" :
			"#           time             counts unit events\n");
	print_rows(rows, len, 1, ts);
}

static void print_header(void)
{
	FILE *f = cfg.out;
	int i;

	fprintf(f, "\n Performance counter stats for ");
	if (cfg.system_wide && !cfg.cpu_list) {
		fprintf(f, "'system wide");
	} else if (cfg.cpu_list) {
		fprintf(f, "'CPU(s) %s", cfg.cpu_list);
	} else if (cfg.pid_list) {
		fprintf(f, "process id '%s", cfg.pid_list);
	} else if (cfg.tid_list) {
		fprintf(f, "thread id '%s", cfg.tid_list);
	} else {
		fprintf(f, "'%s", cfg.argv[0]);
		for (i = 1; i < cfg.argc; i++)
			fprintf(f, " %s", cfg.argv[i]);
	}
	fputc('\'', f);
	if (cfg.runs > 1)
		fprintf(f, " (%u runs)", cfg.runs);
	fprintf(f, ":\n\n");
}

/* Digits perf keeps for the elapsed time: two more than the noise's first. */
static int precision(double sd)
{
	if (sd > 1)
		return 0;
	if (sd <= 0)
		return 7;
	return lround(ceil(-log10(sd)));
}

static void print_footer(const struct stats *elapsed, const struct rusage *ru, int show_ru)
{
	FILE *f = cfg.out;
	double avg = elapsed->mean / 1e9, sd = stats_stddev(elapsed) / 1e9, rel;
	int prec;

	if (!cfg.null_run)
		fputc('\n', f);
	if (cfg.runs == 1 || elapsed->n < 2) {
		fprintf(f, " %17.9f seconds time elapsed", avg);
		if (show_ru) {
			fprintf(f, "\n\n");
			fprintf(f, " %17.9f seconds user\n",
				ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6);
			fprintf(f, " %17.9f seconds sys\n",
				ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
		}
	} else {
		prec = precision(sd) + 2;
		fprintf(f, " %17.*f +- %.*f seconds time elapsed", prec, avg, prec, sd);
		rel = stats_rel(elapsed);
		if (rel)
			fprintf(f, "  ( +-%6.2f%% )", rel);
	}
	fprintf(f, "\n\n");
}

/* ------------------------------------------------------------ counting */

static size_t nr_rows(void)
{
	return ftk_perf_nr_events(cfg.perf) * cfg.nr_aggr;
}

/* Raw counts of every row now; -1 status rows are the not counted ones. */
static void read_raw(struct ftk_counts *raw, int *status)
{
	size_t i, a, n = ftk_perf_nr_events(cfg.perf);
	int ret;

	if (cfg.null_run)
		return;
	ret = ftk_perf_read(cfg.perf);
	if (ret)
		tool_die("%s", ftk_perf_errmsg(cfg.perf));
	for (i = 0; i < n; i++) {
		for (a = 0; a < cfg.nr_aggr; a++) {
			size_t r = i * cfg.nr_aggr + a;

			status[r] = ftk_perf_counts(cfg.perf, i, cfg.no_aggr ? (int)a : -1, &raw[r]);
		}
	}
}

/* Rows from raw counts, or from the difference of two raw readings. */
static void make_rows(struct cnt *rows, const struct ftk_counts *cur,
		      const struct ftk_counts *prev, const int *status)
{
	size_t r, n = nr_rows();
	struct ftk_counts d;

	for (r = 0; r < n; r++) {
		d = cur[r];
		if (prev) {
			d.val -= prev[r].val;
			d.ena -= prev[r].ena;
			d.run -= prev[r].run;
		}
		rows[r].val = ftk_counts_scaled(&d) * cfg.scale[r / cfg.nr_aggr];
		rows[r].ena = d.ena;
		rows[r].run = d.run;
		rows[r].noise = 0;
		rows[r].status = status[r];
	}
}

static void explain_unsupported(void)
{
	size_t i, n = ftk_perf_nr_events(cfg.perf);
	const struct perf_event_attr *a;
	char buf[128];
	int st, cpu_pmu;

	/* A CPU with counters the kernel drives has a "cpu" PMU (cpu_core, cpu_atom if hybrid). */
	cpu_pmu = !access("/sys/bus/event_source/devices/cpu", F_OK) ||
		  !access("/sys/bus/event_source/devices/cpu_core", F_OK);
	for (i = 0; i < n; i++) {
		st = ftk_perf_status(cfg.perf, i);
		if (!st)
			continue;
		a = ftk_perf_attr(cfg.perf, i);
		if (st == -ECANCELED)
			tool_warn("%s: not counted: its group leader is not supported",
				  ftk_perf_name(cfg.perf, i));
		else if (!cpu_pmu && (a->type == PERF_TYPE_HARDWARE ||
				      a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_RAW))
			tool_warn("%s: not supported: %s (no hardware counters here: no CPU PMU in /sys/bus/event_source/devices; the CPU or the hypervisor exposes none)",
				  ftk_perf_name(cfg.perf, i), ftk_strerror(st, buf, sizeof(buf)));
		else
			tool_warn("%s: not supported: %s", ftk_perf_name(cfg.perf, i),
				  ftk_strerror(st, buf, sizeof(buf)));
	}
}

static int open_counters(pid_t child)
{
	unsigned int flags = cfg.no_inherit ? 0 : FTK_PERF_INHERIT;
	int ret;

	if (cfg.null_run)
		return 0;
	if (cfg.system_wide) {
		ret = ftk_perf_open(cfg.perf, cfg.cpus, cfg.nr_cpus, NULL, 0,
				    FTK_PERF_DISABLED);
	} else if (cfg.tids) {
		/* -p/-t: counted for as long as they live, or the command runs. */
		ret = ftk_perf_open(cfg.perf, NULL, 0, cfg.tids, cfg.nr_tids,
				    flags | FTK_PERF_DISABLED);
	} else {
		ret = ftk_perf_open(cfg.perf, NULL, 0, &child, 1, flags | FTK_PERF_ON_EXEC);
	}
	if (ret) {
		if (ret == -EACCES || ret == -EPERM)
			tool_err("%s (perf_event_paranoid is %s; try as root)",
				 ftk_perf_errmsg(cfg.perf),
				 access("/proc/sys/kernel/perf_event_paranoid", R_OK) ? "?" :
				 "too high");
		else
			tool_err("%s", ftk_perf_errmsg(cfg.perf));
		return ret;
	}
	if (cfg.verbose)
		explain_unsupported();
	return 0;
}

/* Are the -p/-t targets still there? Zombies count as gone. */
static int targets_alive(void)
{
	char path[64], *text;
	size_t i, len = 0;
	FILE *f;
	int alive = 0;

	for (i = 0; i < cfg.nr_tids && !alive; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", cfg.tids[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		text = NULL;
		if (getline(&text, &len, f) > 0) {
			char *p = strrchr(text, ')');

			alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
		}
		free(text);
		fclose(f);
	}
	return alive;
}

/*
 * Wait until @deadline (ns, 0: none): returns 1 when the command or the
 * targets are gone, 0 at the deadline, -1 on a signal.
 */
static int wait_event(int pidfd, uint64_t deadline, int *status, struct rusage *ru)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	uint64_t now;
	int timeout, n;

	for (;;) {
		if (tool_stop)
			return -1;
		if (cfg.child > 0 && pidfd < 0) {
			/* No pidfd (old kernel): a blocking wait if no deadline, else poll. */
			n = wait4(cfg.child, status, deadline ? WNOHANG : 0, ru);
			if (n == cfg.child)
				return 1;
			if (n < 0 && errno == EINTR)
				continue;
		}
		now = now_ns();
		if (deadline && now >= deadline)
			return 0;
		timeout = deadline ? (int)((deadline - now + 999999) / 1000000) : -1;
		if (cfg.child <= 0 && cfg.tids) {
			if (!targets_alive())
				return 1;
			if (timeout < 0 || timeout > 100)
				timeout = 100;
		} else if (cfg.child > 0 && pidfd < 0) {
			if (timeout < 0 || timeout > 10)
				timeout = 10;
		}
		n = poll(pidfd >= 0 ? &pfd : NULL, pidfd >= 0 ? 1 : 0, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0 && cfg.child > 0) {
			while (wait4(cfg.child, status, 0, ru) < 0 && errno == EINTR)
				;
			return 1;
		}
	}
}

/* A signal reached us: pass it on unless the terminal sent it to the command too. */
static void forward_signal(void)
{
	int sig = tool_stop;

	tool_stop = 0;
	if (cfg.child <= 0)
		return;
	if (sig == SIGINT && isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp())
		return;
	kill(cfg.child, sig);
}

struct run_result {
	struct cnt	*rows;
	uint64_t	elapsed;
	struct rusage	ru;
	int		exit;		/* the command's exit code */
	int		failed;		/* the command did not start */
	int		stopped;	/* by a signal without a command */
};

static void run_once(struct run_result *res)
{
	size_t n = nr_rows(), nr_interval = 0;
	struct ftk_counts *cur = calloc(n + 1, sizeof(*cur)), *prev = calloc(n + 1, sizeof(*prev));
	int *status = calloc(n + 1, sizeof(*status)), wstatus = 0, pidfd = -1, r, err;
	uint64_t start, last, next = 0, t;
	char buf[128];

	if (!cur || !prev || !status)
		tool_die("out of memory");
	memset(&res->ru, 0, sizeof(res->ru));
	if (cfg.argv)
		prepare_command();
	if (open_counters(cfg.child)) {
		if (cfg.child > 0) {
			kill(cfg.child, SIGKILL);
			waitpid(cfg.child, NULL, 0);
		}
		tool_exit(EXIT_FAIL);
	}
	if (cfg.system_wide || cfg.tids) {
		if (!cfg.null_run && ftk_perf_enable(cfg.perf))
			tool_die("%s", ftk_perf_errmsg(cfg.perf));
	}
	start = now_ns();
	if (cfg.argv) {
		pidfd = syscall(SYS_pidfd_open, cfg.child, 0);
		err = start_command();
		if (err) {
			while (waitpid(cfg.child, &wstatus, 0) < 0 && errno == EINTR)
				;
			tool_err("cannot run '%s': %s", cfg.argv[0], ftk_strerror(err, buf,
										    sizeof(buf)));
			res->failed = err == ENOENT ? 127 : 126;
			if (pidfd >= 0)
				close(pidfd);
			goto out;
		}
	}
	last = start;
	if (cfg.interval_ms)
		next = start + cfg.interval_ms * 1000000ULL;
	for (;;) {
		r = wait_event(pidfd, next, &wstatus, &res->ru);
		if (r < 0) {
			if (!cfg.argv) {
				res->stopped = 1;
				break;
			}
			forward_signal();
			continue;
		}
		if (r == 0 && cfg.interval_ms) {
			t = now_ns();
			read_raw(cur, status);
			make_rows(res->rows, cur, prev, status);
			print_interval(res->rows, nr_interval, t - last, t - start);
			fflush(cfg.out);
			memcpy(prev, cur, n * sizeof(*cur));
			last = t;
			nr_interval++;
			if (cfg.interval_count && nr_interval >= cfg.interval_count)
				break;
			next += cfg.interval_ms * 1000000ULL;
			continue;
		}
		break;
	}
	t = now_ns();
	if (!cfg.null_run)
		ftk_perf_disable(cfg.perf);
	if (cfg.argv && r != 1) {
		/* --interval-count ended it: stop the command, as perf does. */
		kill(cfg.child, SIGTERM);
		while (wait4(cfg.child, &wstatus, 0, &res->ru) < 0 && errno == EINTR)
			;
	}
	if (cfg.argv)
		res->exit = r != 1 && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM ? 0 :
			    exit_code(wstatus);
	read_raw(cur, status);
	if (cfg.interval_ms) {
		make_rows(res->rows, cur, prev, status);
		if (!cfg.interval_count || nr_interval < cfg.interval_count)
			print_interval(res->rows, nr_interval, t - last, t - start);
	}
	make_rows(res->rows, cur, NULL, status);
	res->elapsed = t - start;
	if (pidfd >= 0)
		close(pidfd);
out:
	cfg.child = -1;
	if (!cfg.null_run)
		ftk_perf_close(cfg.perf);
	free(cur);
	free(prev);
	free(status);
}

static FILE *open_output(const char *path, int append)
{
	FILE *f;

	if (!path)
		return stderr;
	f = tool_output(path, append ? FTK_FILE_APPEND : FTK_FILE_STREAM, stderr);
	/* perf's first line in a file; not in JSON, where it would break the parsers. */
	if (cfg.mode != OUT_JSON) {
		time_t now = time(NULL);

		fprintf(f, "# started on %s\n", ctime(&now));
		fflush(f);
	}
	return f;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_NO_BIG_NUM, OPT_LIST, OPT_INTERVAL_COUNT, OPT_APPEND };
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
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "verbose",		no_argument,		NULL, 'v' },
		{ "version",		no_argument,		NULL, 'V' },
		{ "help",		no_argument,		NULL, 'h' },
		{ }
	};
	const char *output = NULL, *events[64];
	size_t nr_events = 0, i, n;
	struct stats elapsed = { 0 }, *st = NULL;
	struct run_result res = { 0 };
	struct cnt *sum = NULL;
	int opt, ret, append = 0, code = EXIT_OK;
	unsigned int run;
	char *end;
	long v;

	tool_init("ftstat");
	/*
	 * Ctrl-C ends the counting (a command gets it from the terminal too) and the
	 * counts so far are printed: caught from the start, so that none is lost.
	 */
	tool_signals();
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt_long(argc, argv, "+e:p:t:aC:AiI:r:dnx:o:BqvVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (nr_events == sizeof(events) / sizeof(events[0]))
				tool_usage_error("too many -e options");
			events[nr_events++] = optarg;
			break;
		case 'p': cfg.pid_list = optarg; break;
		case 't': cfg.tid_list = optarg; break;
		case 'a': cfg.system_wide = 1; break;
		case 'C': cfg.cpu_list = optarg; cfg.system_wide = 1; break;
		case 'A': cfg.no_aggr = 1; break;
		case 'i': cfg.no_inherit = 1; break;
		case 'I':
		case 'r':
		case OPT_INTERVAL_COUNT:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 || v > 100000000)
				tool_usage_error("bad number '%s'", optarg);
			if (opt == 'I') {
				if (v < 10)
					tool_usage_error("-I needs at least 10 ms");
				cfg.interval_ms = v;
			} else if (opt == 'r') {
				cfg.runs = v;
			} else {
				cfg.interval_count = v;
			}
			break;
		case 'd': cfg.detailed++; break;
		case 'n': cfg.null_run = 1; break;
		case 'x': cfg.mode = OUT_CSV; cfg.sep = optarg; break;
		case OPT_JSON: cfg.mode = OUT_JSON; break;
		case 'o': output = optarg; break;
		case OPT_APPEND: append = 1; break;
		case 'B': cfg.big_num = 1; break;
		case OPT_NO_BIG_NUM: cfg.big_num = 0; break;
		case OPT_LIST: list_events(); return EXIT_OK;
		case 'q': tool_verbose(-1); break;
		case 'v': tool_verbose(1); cfg.verbose = 1; break;
		case 'V': printf("ftstat (ftkit) %s\n", FTK_VERSION_STRING); return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cfg.argv = argv + optind;
		cfg.argc = argc - optind;
	}
	if (!!cfg.pid_list + !!cfg.tid_list + !!cfg.system_wide > 1)
		tool_usage_error("-p, -t and -a/-C exclude each other");
	if (!cfg.argv && !cfg.pid_list && !cfg.tid_list && !cfg.system_wide)
		tool_usage_error("nothing to count: give a command, -p, -t, -a or -C");
	if (cfg.no_aggr && !cfg.system_wide)
		tool_usage_error("-A needs -a or -C");
	if (cfg.runs > 1 && !cfg.argv)
		tool_usage_error("-r needs a command");
	if (cfg.runs > 1 && cfg.interval_ms)
		tool_usage_error("-r and -I exclude each other");
	if (cfg.interval_count && !cfg.interval_ms)
		tool_usage_error("--interval-count needs -I");
	if (cfg.mode == OUT_CSV && !*cfg.sep)
		tool_usage_error("-x needs a separator");
	if (cfg.mode != OUT_CSV)
		cfg.sep = " ";
	if (cfg.mode != OUT_STD)
		cfg.big_num = 0;
	if (cfg.big_num)
		setlocale(LC_NUMERIC, "");

	ret = ftk_perf_new(NULL, NULL, &cfg.perf);
	if (ret)
		tool_die("out of memory");
	if (cfg.system_wide) {
		online_cpus();
		if (cfg.cpu_list) {
			int *want;
			size_t nr, j, k;

			if (ftk_perf_cpu_list(cfg.cpu_list, &want, &nr))
				tool_usage_error("bad CPU list '%s'", cfg.cpu_list);
			for (j = 0; j < nr; j++) {
				for (k = 0; k < cfg.nr_cpus && cfg.cpus[k] != want[j]; k++)
					;
				if (k == cfg.nr_cpus)
					tool_usage_error("CPU %d is not online (see /sys/devices/system/cpu/online)",
							 want[j]);
			}
			free(cfg.cpus);
			cfg.cpus = want;
			cfg.nr_cpus = nr;
		}
	}
	cfg.nr_aggr = cfg.no_aggr ? cfg.nr_cpus : 1;
	if (cfg.pid_list)
		targets_from_list(cfg.pid_list, 1);
	if (cfg.tid_list)
		targets_from_list(cfg.tid_list, 0);
	for (i = 0; i < nr_events; i++)
		add_events(events[i]);
	if (!nr_events && !cfg.null_run)
		default_events();
	if (cfg.null_run)
		cfg.nr_aggr = 0;
	/* perf widens the unit column for the longest unit: "Joules". */
	cfg.unit_width = 4;
	cfg.scale = calloc(ftk_perf_nr_events(cfg.perf) + 1, sizeof(*cfg.scale));
	if (!cfg.scale)
		tool_die("out of memory");
	for (i = 0; i < ftk_perf_nr_events(cfg.perf); i++) {
		const char *u = ftk_perf_unit(cfg.perf, i, &cfg.scale[i]);

		if (u && (int)strlen(u) > cfg.unit_width)
			cfg.unit_width = strlen(u);
	}
	cfg.out = open_output(output, append);

	n = nr_rows();
	res.rows = calloc(n + 1, sizeof(*res.rows));
	sum = calloc(n + 1, sizeof(*sum));
	st = calloc(n + 1, sizeof(*st));
	if (!res.rows || !sum || !st)
		tool_die("out of memory");

	for (run = 0; run < cfg.runs; run++) {
		run_once(&res);
		if (res.failed)
			tool_exit(res.failed);
		code = res.exit;
		stats_add(&elapsed, res.elapsed);
		for (i = 0; i < n; i++) {
			stats_add(&st[i], res.rows[i].val);
			sum[i].ena += res.rows[i].ena;
			sum[i].run += res.rows[i].run;
			sum[i].status = res.rows[i].status;
		}
		if (tool_stop)
			break;
	}
	for (i = 0; i < n; i++) {
		sum[i].val = st[i].mean;
		sum[i].noise = stats_rel(&st[i]);
		sum[i].ena /= elapsed.n;
		sum[i].run /= elapsed.n;
	}
	if (cfg.runs > 1)
		cfg.runs = elapsed.n;
	if (!cfg.interval_ms) {
		if (cfg.mode == OUT_STD)
			print_header();
		print_rows(sum, elapsed.mean, 0, 0);
		if (cfg.mode == OUT_STD)
			print_footer(&elapsed, &res.ru, cfg.argv && !cfg.system_wide && !cfg.tids &&
				     cfg.runs == 1);
	}
	if (tool_output_close(cfg.out, 1))
		code = EXIT_FAIL;
	free(res.rows);
	free(sum);
	free(st);
	free(cfg.tids);
	free(cfg.cpus);
	free(cfg.scale);
	ftk_perf_free(cfg.perf);
	tool_exit(code);
}
