// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf-stat: what perf stat makes of a struct ftk_perf's counts.
 *
 * The targets it counts (online CPUs, the threads of a process), its
 * default events, and per event and CPU row: the difference between two
 * reads (an interval), the count of the run, and the mean of several runs
 * with the noise perf prints (the standard deviation of the mean, from
 * Welford's running variance), and the derived metrics of perf's shadow
 * stats. Kept apart from perf.c, which only opens and reads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/perfstat.h>

#include "internal.h"
#include "perf-local.h"

#define CPU_ONLINE	"/sys/devices/system/cpu/online"

/**
 * ftk_perf_online_cpus() - the CPUs the kernel has online
 * @cpus: a malloc'd array of CPU numbers, in order, to free()
 * @nr: its length
 *
 * Reads /sys/devices/system/cpu/online, the CPUs a system-wide count opens
 * its events on.
 *
 * Return: 0, the negative errno of the read, -EINVAL when the file does
 * not hold a CPU list, or -ENOMEM.
 */
FTK_API int ftk_perf_online_cpus(int **cpus, size_t *nr)
{
	char *text;
	int ret;

	*cpus = NULL;
	*nr = 0;
	ret = ftk_read_file(CPU_ONLINE, &text, NULL);
	if (ret)
		return ftk_err(ret);
	ret = ftk_perf_cpu_list(text, cpus, nr);
	free(text);
	return ftk_err(ret);
}


/**
 * ftk_perf_threads() - append the threads to count for a process or thread
 * @id: a process id, or with FTK_PERF_STAT_THREAD a thread id
 * @flags: FTK_PERF_STAT_THREAD or 0
 * @tids: a malloc'd array the ids are appended to (NULL for a new one), to free()
 * @nr: its length, updated
 *
 * For a process, every thread in /proc/@id/task as of now (perf stat -p);
 * threads it creates later are counted through inherit. For a thread, the
 * thread itself, once /proc shows it exists (perf stat -t).
 *
 * Return: 0, -ESRCH when there is no such process or thread, another
 * negative errno when /proc cannot be read, -ENOMEM. On failure *@tids and
 * *@nr keep what they had.
 */
FTK_API int ftk_perf_threads(pid_t id, unsigned int flags, pid_t **tids, size_t *nr)
{
	size_t old = *nr;
	char path[64];
	int ret;

	if (id <= 0)
		return ftk_err(-ESRCH);
	if (flags & FTK_PERF_STAT_THREAD) {
		snprintf(path, sizeof(path), "/proc/%d", (int)id);
		if (access(path, F_OK))
			return ftk_err(errno == ENOENT ? -ESRCH : -errno);
		return ftk_err(ftk_tid_add(id, tids, nr));
	}
	ret = ftk_proc_threads(id, tids, nr);
	if (ret)
		*nr = old;
	return ftk_err(ret);
}

/**
 * ftk_perf_alive() - whether any of the threads still runs
 * @tids: thread ids
 * @nr: their number
 *
 * A zombie counts as gone: its counters will not move again.
 *
 * Return: 1 when one of them lives, 0 when none does.
 */
FTK_API int ftk_perf_alive(const pid_t *tids, size_t nr)
{
	char path[64], *text, *p;
	size_t i;
	int alive = 0;

	for (i = 0; i < nr && !alive; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)tids[i]);
		if (ftk_read_file(path, &text, NULL))
			continue;
		/* "PID (COMM) S ...": the comm may hold anything, the state follows its last ')'. */
		p = strrchr(text, ')');
		alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
		free(text);
	}
	return alive;
}

/**
 * ftk_perf_stat_defaults() - add the events perf stat counts without -e
 * @p: the handle, not opened yet
 * @flags: FTK_PERF_STAT_SYSTEM_WIDE to count cpu-clock rather than task-clock
 * @detail: 0, or 1 to 3 for perf stat's -d, -dd and -ddd cache events
 *
 * Return: 0, or what ftk_perf_add() returns.
 */
FTK_API int ftk_perf_stat_defaults(struct ftk_perf *p, unsigned int flags, int detail)
{
	static const char *const detailed[] = {
		"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
		"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
		"iTLB-loads,iTLB-load-misses",
		"L1-dcache-prefetches,L1-dcache-prefetch-misses",
	};
	int ret, i;

	ret = ftk_perf_add(p, flags & FTK_PERF_STAT_SYSTEM_WIDE ? "cpu-clock" : "task-clock");
	if (!ret)
		ret = ftk_perf_add(p, "context-switches,cpu-migrations,page-faults,cycles,"
				   "instructions,branches,branch-misses");
	for (i = 0; !ret && i < detail && i < (int)ARRAY_SIZE(detailed); i++)
		ret = ftk_perf_add(p, detailed[i]);
	return ret;
}

/**
 * ftk_perf_why() - why an event is not counted, in words
 * @p: the handle, opened
 * @ev: the event's index
 * @buf: where to write the text
 * @len: its size
 *
 * "not counted: its group leader is not supported", or "not supported: "
 * and the kernel's reason, with a hint when a hardware event was refused on
 * a machine whose CPU exposes no PMU (a virtual machine without counters).
 *
 * Return: @buf, or NULL when the event is counted.
 */
FTK_API const char *ftk_perf_why(const struct ftk_perf *p, size_t ev, char *buf, size_t len)
{
	const struct perf_event_attr *a = ftk_perf_attr(p, ev);
	int st = ftk_perf_status(p, ev), cpu_pmu;
	char reason[128], path[4096];

	if (!a || !st)
		return NULL;
	if (st == -ECANCELED) {
		snprintf(buf, len, "not counted: its group leader is not supported");
		return buf;
	}
	ftk_strerror(st, reason, sizeof(reason));
	/* A CPU with counters the kernel drives has a "cpu" PMU (cpu_core, cpu_atom if hybrid). */
	snprintf(path, sizeof(path), "%s/cpu", p->sysfs);
	cpu_pmu = !access(path, F_OK);
	snprintf(path, sizeof(path), "%s/cpu_core", p->sysfs);
	cpu_pmu |= !access(path, F_OK);
	if (!cpu_pmu && (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
			 a->type == PERF_TYPE_RAW))
		snprintf(buf, len, "not supported: %s (no hardware counters here: no CPU PMU in %s; the CPU or the hypervisor exposes none)",
			 reason, p->sysfs);
	else
		snprintf(buf, len, "not supported: %s", reason);
	return buf;
}

/* ------------------------------------------------------------ counts */

/* Welford's running mean and variance. */
struct welford {
	double		n;
	double		mean;
	double		m2;
};

static void welford_add(struct welford *w, double v)
{
	double d = v - w->mean;

	w->n++;
	w->mean += d / w->n;
	w->m2 += d * (v - w->mean);
}

/* The standard deviation of the mean, as perf prints it. */
static double welford_stddev(const struct welford *w)
{
	if (w->n < 2)
		return 0;
	return sqrt(w->m2 / (w->n - 1) / w->n);
}

struct stat_row {
	struct ftk_perf_stat_count	delta;
	struct ftk_perf_stat_count	run;
	struct ftk_counts		prev;	/* raw, at the run's previous read */
	struct welford			runs;	/* of run.val over the ended runs */
	double				ena;	/* sums over the ended runs */
	double				ran;
	int				status;	/* of the last ended run */
};

struct ftk_perf_stat {
	struct ftk_perf		*perf;
	struct stat_row		*rows;		/* [ev * nr_rows + row] */
	size_t			nr_ev;
	size_t			nr_rows;	/* per event */
	struct welford		elapsed;
	unsigned int		flags;
};

/**
 * ftk_perf_stat_new() - a perf stat session over a handle's events
 * @p: the handle; its events must not change while the session lives
 * @flags: FTK_PERF_STAT_PER_CPU for one row per CPU slot, else one summed row
 * @out: the session
 *
 * The rows take their shape at the first ftk_perf_stat_read(); @p may be
 * closed and opened again between runs, on the same number of CPUs.
 *
 * Return: 0 or -ENOMEM. *@out must be freed with ftk_perf_stat_free(), before @p.
 */
FTK_API int ftk_perf_stat_new(struct ftk_perf *p, unsigned int flags, struct ftk_perf_stat **out)
{
	struct ftk_perf_stat *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return ftk_err(-ENOMEM);
	s->perf = p;
	s->flags = flags & FTK_PERF_STAT_PER_CPU;
	*out = s;
	return 0;
}

/** ftk_perf_stat_free() - free a session (not its ftk_perf); NULL is fine */
FTK_API void ftk_perf_stat_free(struct ftk_perf_stat *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s);
}

static void fill(struct ftk_perf_stat_count *c, const struct ftk_counts *raw, double scale,
		 int status)
{
	c->val = ftk_counts_scaled(raw) * scale;
	c->ena = raw->ena;
	c->run = raw->run;
	c->noise = 0;
	c->status = status;
}

/**
 * ftk_perf_stat_read() - read the counters and update every row
 * @s: the session, its ftk_perf opened
 *
 * Each row's RUN count becomes the count so far, scaled for multiplexing
 * and by the event's sysfs scale; its DELTA count the difference from the
 * previous read of this run (the whole run at its first read).
 *
 * Return: 0, the negative errno of ftk_perf_read() (ftk_perf_errmsg() says
 * why), -EINVAL when the handle is not open or its number of CPUs changed
 * between runs, -ENOMEM.
 */
FTK_API int ftk_perf_stat_read(struct ftk_perf_stat *s)
{
	size_t ev, r, nr_ev = ftk_perf_nr_events(s->perf), nr_rows;
	struct ftk_counts cur, d;
	double scale;
	int ret, st;

	if (!ftk_perf_nr_cpus(s->perf))
		return ftk_err(-EINVAL);	/* not opened */
	nr_rows = s->flags & FTK_PERF_STAT_PER_CPU ? ftk_perf_nr_cpus(s->perf) : 1;
	if (!s->rows) {
		s->rows = calloc(nr_ev * nr_rows + 1, sizeof(*s->rows));
		if (!s->rows)
			return ftk_err(-ENOMEM);
		s->nr_ev = nr_ev;
		s->nr_rows = nr_rows;
	}
	if (nr_ev != s->nr_ev || nr_rows != s->nr_rows)
		return ftk_err(-EINVAL);
	ret = ftk_perf_read(s->perf);
	if (ret)
		return ret;
	for (ev = 0; ev < nr_ev; ev++) {
		ftk_perf_unit(s->perf, ev, &scale);
		for (r = 0; r < nr_rows; r++) {
			struct stat_row *row = &s->rows[ev * nr_rows + r];

			st = ftk_perf_counts(s->perf, ev,
					     s->flags & FTK_PERF_STAT_PER_CPU ? (int)r : -1, &cur);
			if (st == -EINVAL)
				return ftk_err(st);
			d = cur;
			d.val -= row->prev.val;
			d.ena -= row->prev.ena;
			d.run -= row->prev.run;
			fill(&row->delta, &d, scale, st);
			fill(&row->run, &cur, scale, st);
			row->prev = cur;
		}
	}
	return 0;
}

/**
 * ftk_perf_stat_run_end() - end a run: add its counts to the means
 * @s: the session
 * @elapsed_ns: the run's wall-clock time
 *
 * Each row's RUN count (as of the last read) joins the mean; the next run's
 * reads start from zero, as its ftk_perf_open() does. A run without a read
 * (no events: perf stat -n) adds its elapsed time only.
 *
 * Return: 0.
 */
FTK_API int ftk_perf_stat_run_end(struct ftk_perf_stat *s, uint64_t elapsed_ns)
{
	size_t i;

	welford_add(&s->elapsed, elapsed_ns);
	for (i = 0; s->rows && i < s->nr_ev * s->nr_rows; i++) {
		struct stat_row *row = &s->rows[i];

		welford_add(&row->runs, row->run.val);
		row->ena += row->run.ena;
		row->ran += row->run.run;
		row->status = row->run.status;
		memset(&row->prev, 0, sizeof(row->prev));
		memset(&row->run, 0, sizeof(row->run));
		memset(&row->delta, 0, sizeof(row->delta));
	}
	return 0;
}

/** ftk_perf_stat_nr_rows() - rows per event: the CPU slots with FTK_PERF_STAT_PER_CPU, else 1 */
FTK_API size_t ftk_perf_stat_nr_rows(const struct ftk_perf_stat *s)
{
	if (s->rows)
		return s->nr_rows;
	return s->flags & FTK_PERF_STAT_PER_CPU ? ftk_perf_nr_cpus(s->perf) : 1;
}

static int get(const struct ftk_perf_stat *s, size_t ev, size_t r, enum ftk_perf_stat_span span,
	       struct ftk_perf_stat_count *c)
{
	const struct stat_row *row;

	memset(c, 0, sizeof(*c));
	if (!s->rows)
		return ev < ftk_perf_nr_events(s->perf) && r < ftk_perf_stat_nr_rows(s) ? 0 : -EINVAL;
	if (ev >= s->nr_ev || r >= s->nr_rows)
		return -EINVAL;
	row = &s->rows[ev * s->nr_rows + r];
	switch (span) {
	case FTK_PERF_STAT_DELTA:
		*c = row->delta;
		return 0;
	case FTK_PERF_STAT_RUN:
		*c = row->run;
		return 0;
	case FTK_PERF_STAT_MEAN:
		if (!row->runs.n)
			return 0;
		c->val = row->runs.mean;
		c->ena = row->ena / row->runs.n;
		c->run = row->ran / row->runs.n;
		c->noise = row->runs.mean ? 100.0 * welford_stddev(&row->runs) / row->runs.mean : 0;
		c->status = row->status;
		return 0;
	}
	return -EINVAL;
}

/**
 * ftk_perf_stat_count() - one row's count
 * @s: the session
 * @ev: the event's index
 * @row: the row: a CPU slot with FTK_PERF_STAT_PER_CPU (ftk_perf_cpu() names
 *	 it), else 0
 * @span: FTK_PERF_STAT_DELTA, _RUN or _MEAN
 * @c: the count; zero before any read or ended run
 *
 * Return: 0, or -EINVAL for a bad index or span.
 */
FTK_API int ftk_perf_stat_count(const struct ftk_perf_stat *s, size_t ev, size_t row,
				enum ftk_perf_stat_span span, struct ftk_perf_stat_count *c)
{
	return ftk_err(get(s, ev, row, span, c));
}

static int is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static int is_hw(const struct perf_event_attr *a, uint64_t config)
{
	return a->type == PERF_TYPE_HARDWARE && a->config == config;
}

/*
 * The value of the first counted event of row @r with @type and @config
 * (type PERF_TYPE_SOFTWARE: either clock), or -1 when there is none.
 */
static double find(const struct ftk_perf_stat *s, size_t r, enum ftk_perf_stat_span span,
		   uint32_t type, uint64_t config)
{
	struct ftk_perf_stat_count c;
	const struct perf_event_attr *a;
	size_t ev;

	for (ev = 0; ev < s->nr_ev; ev++) {
		a = ftk_perf_attr(s->perf, ev);
		if (get(s, ev, r, span, &c) || c.status || !c.run)
			continue;
		if (type == PERF_TYPE_SOFTWARE ? is_clock(a) :
		    (a->type == type && a->config == config))
			return c.val;
	}
	return -1;
}

/* @num per @den, shown as @fmt and @unit; no metric when @den is missing (< 0) or zero. */
static void per(struct ftk_perf_stat_metric *m, const char *fmt, double num, double den,
		const char *unit)
{
	if (den <= 0)
		return;
	m->fmt = fmt;
	m->unit = unit;
	m->val = num / den;
}

/* @num as a percentage of @den. */
static void ratio(struct ftk_perf_stat_metric *m, double num, double den, const char *unit)
{
	per(m, "%7.2f%%", 100.0 * num, den, unit);
}

/**
 * ftk_perf_stat_metric() - perf stat's derived metric for a row
 * @s: the session
 * @ev: the event's index
 * @row: the row, as for ftk_perf_stat_count()
 * @span: which counts to derive it from
 * @elapsed_ns: the wall-clock time the counts cover (the interval's, the run's)
 * @m: the metric; m->fmt NULL when the event has none (or is not counted)
 *
 * As perf's shadow stats compute it from the other events of the same row:
 * CPUs utilized for task-clock and cpu-clock (over @elapsed_ns), insn per
 * cycle, branch-miss, cache-miss and generic cache-miss ratios, GHz for
 * cycles, else the rate per second of the clock (/sec, K/sec, M/sec, G/sec)
 * when a clock event is counted too. m->fmt is the printf format perf uses
 * for the value; m->unit is static text.
 *
 * Return: 0, or -EINVAL for a bad index or span.
 */
FTK_API int ftk_perf_stat_metric(const struct ftk_perf_stat *s, size_t ev, size_t row,
				 enum ftk_perf_stat_span span, double elapsed_ns,
				 struct ftk_perf_stat_metric *m)
{
	static const char *const cache_units[] = {
		"of all L1-dcache accesses", "of all L1-icache accesses",
		"of all LL-cache accesses", "of all dTLB cache accesses",
		"of all iTLB cache accesses", "of all branch cache accesses",
		"of all node accesses",
	};
	const struct perf_event_attr *a = ftk_perf_attr(s->perf, ev);
	struct ftk_perf_stat_count c;
	double clock, other;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = get(s, ev, row, span, &c);
	if (ret || !a)
		return ftk_err(ret ? ret : -EINVAL);
	if (c.status || !c.run)
		return 0;
	if (is_clock(a)) {
		per(m, "%8.3f", c.val, elapsed_ns, "CPUs utilized");
		return 0;
	}
	if (is_hw(a, PERF_COUNT_HW_INSTRUCTIONS)) {
		other = find(s, row, span, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
		per(m, "%7.2f ", c.val, other, " insn per cycle");
		return 0;
	}
	if (is_hw(a, PERF_COUNT_HW_BRANCH_MISSES)) {
		other = find(s, row, span, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
		ratio(m, c.val, other, "of all branches");
		return 0;
	}
	if (is_hw(a, PERF_COUNT_HW_CACHE_MISSES)) {
		other = find(s, row, span, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES);
		ratio(m, c.val, other, "of all cache refs");
		return 0;
	}
	if (a->type == PERF_TYPE_HW_CACHE &&
	    (a->config >> 16) == PERF_COUNT_HW_CACHE_RESULT_MISS &&
	    (a->config & 0xff) < ARRAY_SIZE(cache_units)) {
		/* The same cache and operation, counting accesses. */
		other = find(s, row, span, PERF_TYPE_HW_CACHE,
			     (a->config & 0xffff) |
			     ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16));
		ratio(m, c.val, other, cache_units[a->config & 0xff]);
		return 0;
	}
	clock = find(s, row, span, PERF_TYPE_SOFTWARE, 0);
	if (clock < 0)
		return 0;
	if (is_hw(a, PERF_COUNT_HW_CPU_CYCLES)) {
		per(m, "%8.3f", c.val, clock, "GHz");
		return 0;
	}
	/* Per second of the clock. */
	m->val = clock ? c.val * 1e9 / clock : 0;
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
	return 0;
}

/**
 * ftk_perf_stat_unit() - how perf stat shows an event's count
 * @s: the session
 * @ev: the event's index
 * @u: the unit, the divisor and the number of decimals
 *
 * task-clock and cpu-clock count nanoseconds and show as msec with two
 * decimals; an event whose PMU gives a sysfs unit shows with it (two
 * decimals when sysfs scales it too, as power/energy-pkg/ in Joules);
 * others show whole, without a unit. The value shown is the count's
 * val / u->div; u->unit is owned by the handle.
 *
 * Return: 0, or -EINVAL for a bad index.
 */
FTK_API int ftk_perf_stat_unit(const struct ftk_perf_stat *s, size_t ev,
			       struct ftk_perf_stat_unit *u)
{
	const struct perf_event_attr *a = ftk_perf_attr(s->perf, ev);
	const char *unit;
	double scale;

	memset(u, 0, sizeof(*u));
	u->unit = "";
	u->div = 1;
	if (!a)
		return ftk_err(-EINVAL);
	unit = ftk_perf_unit(s->perf, ev, &scale);
	if (is_clock(a)) {
		u->unit = "msec";
		u->div = 1e6;
		u->decimals = 2;
		return 0;
	}
	if (unit)
		u->unit = unit;
	u->decimals = scale != 1 ? 2 : 0;
	return 0;
}

/**
 * ftk_perf_stat_elapsed() - the wall-clock time of the ended runs
 * @s: the session
 * @mean_ns: their mean, or NULL
 * @stddev_ns: the standard deviation of the mean, or NULL
 *
 * Return: the number of runs ended.
 */
FTK_API unsigned int ftk_perf_stat_elapsed(const struct ftk_perf_stat *s, double *mean_ns,
					   double *stddev_ns)
{
	if (mean_ns)
		*mean_ns = s->elapsed.mean;
	if (stddev_ns)
		*stddev_ns = welford_stddev(&s->elapsed);
	return (unsigned int)s->elapsed.n;
}
