// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf stat's arithmetic: interval deltas, multiplexing scale, per-CPU
 * rows, means and noise over runs, derived metrics, worked out by hand
 * from counts put into a handle that looks opened (no kernel needed);
 * event lists against the parser and a fake PMU tree; thread discovery
 * against this process and a zombie child.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ftkit/perfstat.h>

#include "perf-local.h"
#include "tap.h"

static char root[64], pmus[128];

static void put(const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail_out("cannot write %s", path);
}

/* Make @p look opened on @ncpu CPUs and one thread, every fd closed: ftk_perf_read() keeps the counts. */
static void fake_open(struct ftk_perf *p, size_t ncpu)
{
	size_t i, c;

	p->nr_cpus = ncpu;
	p->nr_tids = 1;
	p->cpus = calloc(ncpu, sizeof(*p->cpus));
	for (c = 0; c < ncpu; c++)
		p->cpus[c] = c;
	for (i = 0; i < p->nr_ev; i++) {
		p->ev[i].fds = malloc(ncpu * sizeof(int));
		p->ev[i].ids = calloc(ncpu, sizeof(uint64_t));
		p->ev[i].counts = calloc(ncpu, sizeof(struct ftk_counts));
		for (c = 0; c < ncpu; c++)
			p->ev[i].fds[c] = -1;
	}
	p->opened = 1;
}

static void set(struct ftk_perf *p, size_t ev, size_t cpu, uint64_t val, uint64_t ena,
		uint64_t run)
{
	p->ev[ev].counts[cpu] = (struct ftk_counts){ val, ena, run };
}

static struct ftk_perf *events(const char *spec, size_t ncpu)
{
	struct ftk_perf *p;

	if (ftk_perf_new(pmus, NULL, &p) || ftk_perf_add(p, spec))
		bail_out("cannot parse '%s'", spec);
	fake_open(p, ncpu);
	return p;
}

static double val(struct ftk_perf_stat *s, size_t ev, size_t row, enum ftk_perf_stat_span span)
{
	struct ftk_perf_stat_count c;

	if (ftk_perf_stat_count(s, ev, row, span, &c))
		return NAN;
	return c.val;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static void deltas(void)
{
	struct ftk_perf *p = events("cs,page-faults", 2);
	struct ftk_perf_stat *s, *pc;
	struct ftk_perf_stat_count c;

	ftk_perf_stat_new(p, 0, &s);
	ftk_perf_stat_new(p, FTK_PERF_STAT_PER_CPU, &pc);
	set(p, 0, 0, 100, 1000, 1000);
	set(p, 0, 1, 50, 1000, 1000);
	/* page-faults ran half its enabled time on CPU 1: the count there doubles. */
	set(p, 1, 0, 10, 1000, 1000);
	set(p, 1, 1, 10, 1000, 500);
	ok(!ftk_perf_stat_read(s) && !ftk_perf_stat_read(pc), "the first read");
	ok(val(s, 0, 0, FTK_PERF_STAT_RUN) == 150 && val(s, 0, 0, FTK_PERF_STAT_DELTA) == 150,
	   "first read: run and delta are the whole count, summed over CPUs (150)");
	ok(ftk_perf_stat_nr_rows(s) == 1 && ftk_perf_stat_nr_rows(pc) == 2,
	   "one row per event, or one per CPU");
	ok(val(pc, 0, 0, FTK_PERF_STAT_RUN) == 100 && val(pc, 0, 1, FTK_PERF_STAT_RUN) == 50,
	   "per CPU: 100 and 50");
	/* Summed: val 20, ena 2000, run 1500: 20 * 2000 / 1500. */
	ok(near(val(s, 1, 0, FTK_PERF_STAT_RUN), 20.0 * 2000 / 1500),
	   "multiplexed: the sum scaled by enabled/running (26.67)");
	ok(val(pc, 1, 1, FTK_PERF_STAT_RUN) == 20, "and on the CPU where it ran half: doubled");

	set(p, 0, 0, 400, 3000, 3000);
	set(p, 0, 1, 100, 3000, 3000);
	ftk_perf_stat_read(s);
	ok(val(s, 0, 0, FTK_PERF_STAT_RUN) == 500 && val(s, 0, 0, FTK_PERF_STAT_DELTA) == 350,
	   "second read: run 500, delta 350");
	ftk_perf_stat_count(s, 0, 0, FTK_PERF_STAT_DELTA, &c);
	ok(c.ena == 4000 && c.run == 4000 && !c.status, "the delta's times are differences too");
	ok(ftk_perf_stat_count(s, 2, 0, FTK_PERF_STAT_RUN, &c) == -EINVAL &&
	   ftk_perf_stat_count(s, 0, 1, FTK_PERF_STAT_RUN, &c) == -EINVAL,
	   "a bad event or row: EINVAL");
	ftk_perf_stat_free(s);
	ftk_perf_stat_free(pc);
	ftk_perf_free(p);
}

static void runs(void)
{
	struct ftk_perf *p = events("cs", 1);
	static const uint64_t v[] = { 10, 20, 30 };
	struct ftk_perf_stat_count c;
	struct ftk_perf_stat *s;
	double mean, sd;
	size_t i;

	ftk_perf_stat_new(p, 0, &s);
	for (i = 0; i < 3; i++) {
		/* Each run opens anew: its counters start from 0. */
		set(p, 0, 0, v[i], 100, 100);
		ftk_perf_stat_read(s);
		ok(val(s, 0, 0, FTK_PERF_STAT_DELTA) == v[i], "run %zu: its first read's delta is %llu",
		   i + 1, (unsigned long long)v[i]);
		ftk_perf_stat_run_end(s, 1000 * (i + 1));
	}
	ftk_perf_stat_count(s, 0, 0, FTK_PERF_STAT_MEAN, &c);
	/* Mean 20; sample variance 100; stddev of the mean sqrt(100 / 3) = 5.7735; of 20: 28.87%. */
	ok(c.val == 20 && c.ena == 100 && c.run == 100, "the mean of 10, 20, 30 is 20");
	ok(near(c.noise, 100 * sqrt(100.0 / 3) / 20), "its noise: 28.87%% (%.4f)", c.noise);
	ok(ftk_perf_stat_elapsed(s, &mean, &sd) == 3 && mean == 2000 &&
	   near(sd, sqrt(1000000.0 / 3)), "elapsed: 3 runs, mean 2000, stddev of the mean 577.35");
	ftk_perf_stat_free(s);
	ftk_perf_free(p);
}

/* The metric's text as perf prints it. */
static const char *metric(struct ftk_perf_stat *s, size_t ev, double elapsed, char *buf, size_t len)
{
	struct ftk_perf_stat_metric m;
	int n;

	if (ftk_perf_stat_metric(s, ev, 0, FTK_PERF_STAT_RUN, elapsed, &m) || !m.fmt)
		return "";
	n = snprintf(buf, len, m.fmt, m.val);
	snprintf(buf + n, len - n, " %s", m.unit);
	return buf;
}

static void metrics(void)
{
	struct ftk_perf *p = events("task-clock,cs,cycles,instructions,branches,branch-misses,"
				    "L1-dcache-loads,L1-dcache-load-misses,page-faults", 1);
	struct ftk_perf_stat *s;
	char b[64];

	ftk_perf_stat_new(p, 0, &s);
	set(p, 0, 0, 2000000000, 1, 1);		/* 2 s of task-clock */
	set(p, 1, 0, 1000, 1, 1);
	set(p, 2, 0, 4000000000, 1, 1);
	set(p, 3, 0, 12000000000, 1, 1);
	set(p, 4, 0, 200, 1, 1);
	set(p, 5, 0, 5, 1, 1);
	set(p, 6, 0, 1000, 1, 1);
	set(p, 7, 0, 10, 1, 1);
	set(p, 8, 0, 3, 1, 0);			/* never ran: no metric */
	ftk_perf_stat_read(s);
	is_str(metric(s, 0, 1e9, b, sizeof(b)), "   2.000 CPUs utilized", "task-clock 2 s in 1 s");
	is_str(metric(s, 1, 1e9, b, sizeof(b)), " 500.000 /sec", "1000 cs in 2 s of clock");
	is_str(metric(s, 2, 1e9, b, sizeof(b)), "   2.000 GHz", "4e9 cycles in 2 s of clock");
	is_str(metric(s, 3, 1e9, b, sizeof(b)), "   3.00   insn per cycle", "3 instructions a cycle");
	is_str(metric(s, 4, 1e9, b, sizeof(b)), " 100.000 /sec", "200 branches in 2 s");
	is_str(metric(s, 5, 1e9, b, sizeof(b)), "   2.50% of all branches", "5 of 200 branches miss");
	is_str(metric(s, 7, 1e9, b, sizeof(b)), "   1.00% of all L1-dcache accesses",
	       "10 of 1000 L1-dcache loads miss");
	is_str(metric(s, 8, 1e9, b, sizeof(b)), "", "an event that never ran: no metric");
	p->ev[2].status = -ENOENT;
	ftk_perf_stat_read(s);
	is_str(metric(s, 3, 1e9, b, sizeof(b)), "", "no insn per cycle without cycles");
	is_str(metric(s, 2, 1e9, b, sizeof(b)), "", "nor a metric for the uncounted cycles");
	ftk_perf_stat_free(s);
	ftk_perf_free(p);

	p = events("cs", 1);
	ftk_perf_stat_new(p, 0, &s);
	set(p, 0, 0, 1000, 1, 1);
	ftk_perf_stat_read(s);
	is_str(metric(s, 0, 1e9, b, sizeof(b)), "", "no rate without a clock event");
	ftk_perf_stat_free(s);
	ftk_perf_free(p);
}

/* Units against the fake PMU tree: fakepmu/energy/ scales by 2^-32 into Joules. */
static void units(void)
{
	struct ftk_perf *p = events("task-clock,cpu-clock,cs,fakepmu/energy/,fakepmu/ev1/", 1);
	struct ftk_perf_stat_unit u;
	struct ftk_perf_stat *s;

	ftk_perf_stat_new(p, 0, &s);
	ok(!ftk_perf_stat_unit(s, 0, &u) && !strcmp(u.unit, "msec") && u.div == 1e6 &&
	   u.decimals == 2, "task-clock shows in msec with 2 decimals");
	ok(!ftk_perf_stat_unit(s, 1, &u) && !strcmp(u.unit, "msec") && u.div == 1e6,
	   "so does cpu-clock");
	ok(!ftk_perf_stat_unit(s, 2, &u) && !strcmp(u.unit, "") && u.div == 1 && !u.decimals,
	   "cs shows whole, without a unit");
	ok(!ftk_perf_stat_unit(s, 3, &u) && !strcmp(u.unit, "Joules") && u.div == 1 &&
	   u.decimals == 2, "a sysfs-scaled event: its unit, 2 decimals");
	ok(!ftk_perf_stat_unit(s, 4, &u) && !strcmp(u.unit, "") && !u.decimals,
	   "a PMU alias without .unit and .scale shows whole");
	ok(ftk_perf_stat_unit(s, 5, &u) == -EINVAL && !strcmp(u.unit, ""),
	   "a bad index: EINVAL, and an empty unit");
	ftk_perf_stat_free(s);
	ftk_perf_free(p);
}

static int has(char **list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static void lists(void)
{
	struct ftk_perf *p, *q;
	char **l, **n;
	int bad = 0;

	ftk_perf_new(pmus, NULL, &p);
	ok(!ftk_perf_list(p, FTK_PERF_KIND_SOFTWARE, &l) && has(l, "context-switches OR cs") &&
	   has(l, "task-clock") && !has(l, "cycles"), "software names, aliases joined by OR");
	ftk_list_free(l);
	ok(!ftk_perf_list(p, FTK_PERF_KIND_HARDWARE, &l) && has(l, "cpu-cycles OR cycles") &&
	   has(l, "ref-cycles"), "hardware names");
	ftk_list_free(l);
	ok(!ftk_perf_list(p, FTK_PERF_KIND_CACHE, &l) && ftk_list_len(l) == 32 &&
	   has(l, "L1-dcache-loads") && has(l, "iTLB-load-misses") && !has(l, "iTLB-stores"),
	   "32 generic cache events as perf lists them");
	/* Every name listed parses back to a cache event. */
	for (n = l; n && *n; n++) {
		ftk_perf_new(pmus, NULL, &q);
		if (ftk_perf_add(q, *n) || ftk_perf_attr(q, 0)->type != PERF_TYPE_HW_CACHE) {
			diag("'%s' does not parse: %s", *n, ftk_perf_errmsg(q));
			bad++;
		}
		ftk_perf_free(q);
	}
	ok(!bad, "and each one parses as a cache event");
	ftk_list_free(l);
	ok(!ftk_perf_list(p, FTK_PERF_KIND_PMU, &l) && ftk_list_len(l) == 2 &&
	   has(l, "fakepmu/energy/") && has(l, "fakepmu/ev1/"),
	   "PMU events from sysfs, without their .unit and .scale files");
	ftk_list_free(l);
	ok(ftk_perf_list(p, (enum ftk_perf_kind)99, &l) == -EINVAL && !l, "an unknown kind: EINVAL");
	ftk_perf_free(p);

	ftk_perf_new(pmus, NULL, &p);
	ok(!ftk_perf_stat_defaults(p, 0, 0) && ftk_perf_nr_events(p) == 8 &&
	   !strcmp(ftk_perf_name(p, 0), "task-clock") &&
	   !strcmp(ftk_perf_name(p, 7), "branch-misses"), "perf stat's 8 default events");
	ftk_perf_free(p);
	ftk_perf_new(pmus, NULL, &p);
	ok(!ftk_perf_stat_defaults(p, FTK_PERF_STAT_SYSTEM_WIDE, 3) &&
	   ftk_perf_nr_events(p) == 20 && !strcmp(ftk_perf_name(p, 0), "cpu-clock"),
	   "system wide: cpu-clock; -ddd adds 12 cache events");
	ftk_perf_free(p);
}

static void why(void)
{
	struct ftk_perf *p = events("cycles,{cs,faults}", 1);
	char buf[256];

	p->ev[0].status = -ENOENT;
	p->ev[1].status = -ECANCELED;
	ok(ftk_perf_why(p, 0, buf, sizeof(buf)) && strstr(buf, "not supported: ") &&
	   strstr(buf, "no hardware counters here"), "cycles without a CPU PMU: %s", buf);
	ok(ftk_perf_why(p, 1, buf, sizeof(buf)) && strstr(buf, "group leader"),
	   "a member of a refused group: %s", buf);
	ok(!ftk_perf_why(p, 2, buf, sizeof(buf)), "a counted event: NULL");
	put("devices/cpu/type", "4\n");
	ok(ftk_perf_why(p, 0, buf, sizeof(buf)) && !strstr(buf, "no hardware counters"),
	   "with a cpu PMU, no such hint");
	ftk_perf_free(p);
}

static void targets(void)
{
	pid_t *tids = NULL, self = getpid(), child;
	size_t nr = 0, i;
	int found = 0, *cpus;

	ok(!ftk_perf_threads(self, 0, &tids, &nr) && nr >= 1, "this process has %zu thread(s)", nr);
	for (i = 0; i < nr; i++)
		found |= tids[i] == self;
	ok(found, "and its main thread is one of them");
	ok(ftk_perf_alive(tids, nr) == 1, "it is alive");
	ok(!ftk_perf_threads(self, FTK_PERF_STAT_THREAD, &tids, &nr) && tids[nr - 1] == self,
	   "-t: the thread itself is appended");
	free(tids);
	tids = NULL;
	nr = 0;
	child = fork();
	if (child == 0)
		_exit(0);
	/* A zombie until reaped: alive no more. */
	for (i = 0; i < 500 && ftk_perf_alive(&child, 1); i++)
		usleep(10000);
	ok(!ftk_perf_alive(&child, 1), "an exited child, not yet reaped, is not alive");
	waitpid(child, NULL, 0);
	ok(ftk_perf_threads(child, 0, &tids, &nr) == -ESRCH && !nr, "a reaped process: ESRCH");
	ok(ftk_perf_threads(child, FTK_PERF_STAT_THREAD, &tids, &nr) == -ESRCH, "as a thread too");
	free(tids);
	if (access("/sys/devices/system/cpu/online", R_OK)) {
		skip("no /sys/devices/system/cpu/online");
	} else {
		ok(!ftk_perf_online_cpus(&cpus, &nr) && nr >= 1 && nr <= (size_t)sysconf(_SC_NPROCESSORS_CONF),
		   "online CPUs: %zu, at most the %ld configured", nr, sysconf(_SC_NPROCESSORS_CONF));
		free(cpus);
	}
}

int main(void)
{
	char cmd[128];

	need_lane("unit");
	strcpy(root, "/tmp/ftkit-t6002.XXXXXX");
	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	snprintf(pmus, sizeof(pmus), "%s/devices", root);
	put("devices/fakepmu/type", "42\n");
	put("devices/fakepmu/format/event", "config:0-7\n");
	put("devices/fakepmu/events/ev1", "event=0x3c\n");
	put("devices/fakepmu/events/energy", "event=0x2\n");
	put("devices/fakepmu/events/energy.unit", "Joules\n");
	put("devices/fakepmu/events/energy.scale", "2.3283064365386962890625e-10\n");

	deltas();
	runs();
	metrics();
	units();
	lists();
	why();
	targets();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		diag("cannot remove %s", root);
	return done_testing();
}
