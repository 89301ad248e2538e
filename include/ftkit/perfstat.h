/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perfstat: what `perf stat` does with the counts of a struct ftk_perf.
 *
 * Targets: the online CPUs, the threads of a process, whether targets
 * still live. Events: perf stat's default set and the names perf list
 * shows. Counts: a struct ftk_perf_stat reads an opened ftk_perf and keeps,
 * for each event (and CPU with FTK_PERF_STAT_PER_CPU), the count since the
 * previous read (an interval), since the run began, and the mean of the
 * runs ended so far with its noise; and perf stat's derived metrics
 * (CPUs utilized, GHz, insn per cycle, miss ratios, rates per second):
 *
 *	ftk_perf_stat_new(p, 0, &s);
 *	for each run:
 *		ftk_perf_open(p, ...); ftk_perf_enable(p) or exec the command;
 *		every interval: ftk_perf_stat_read(s); ftk_perf_stat_count(s, ev, 0,
 *			FTK_PERF_STAT_DELTA, &c);
 *		ftk_perf_stat_read(s); ftk_perf_stat_run_end(s, elapsed_ns);
 *		ftk_perf_close(p);
 *	ftk_perf_stat_count(s, ev, 0, FTK_PERF_STAT_MEAN, &c);	mean and noise
 *	ftk_perf_stat_free(s);
 */
#ifndef FTKIT_PERFSTAT_H
#define FTKIT_PERFSTAT_H

#include <stdint.h>
#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/perf.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_perf_stat;

enum ftk_perf_stat_flags {
	/* One row per CPU slot of the opened events, not one summed row. */
	FTK_PERF_STAT_PER_CPU		= 1 << 0,
	/* ftk_perf_stat_defaults(): counting every task (cpu-clock, not task-clock). */
	FTK_PERF_STAT_SYSTEM_WIDE	= 1 << 1,
	/* ftk_perf_threads(): @id is a thread, not a process. */
	FTK_PERF_STAT_THREAD		= 1 << 2,
};

/* Which count of a row. */
enum ftk_perf_stat_span {
	FTK_PERF_STAT_DELTA,	/* between the last two ftk_perf_stat_read() of the run */
	FTK_PERF_STAT_RUN,	/* since the run began, as of the last read */
	FTK_PERF_STAT_MEAN,	/* the mean of the runs ended by ftk_perf_stat_run_end() */
};

/* A row's count: one event, summed over its targets or on one CPU. */
struct ftk_perf_stat_count {
	double		val;	/* scaled for multiplexing and by the PMU's sysfs .scale */
	double		ena;	/* time enabled, ns */
	double		run;	/* time running, ns */
	double		noise;	/* MEAN: relative standard deviation of the mean, percent */
	int		status;	/* 0, or the event's ftk_perf_status() */
};

/* A derived metric, perf stat's "# value unit" column. */
struct ftk_perf_stat_metric {
	const char	*fmt;	/* perf stat's printf format for @val; NULL: no metric */
	const char	*unit;	/* "CPUs utilized", "GHz", "of all branches", "K/sec", ... */
	double		val;
};

/* How perf stat shows an event's count: clocks in msec, sysfs-scaled events with their unit. */
struct ftk_perf_stat_unit {
	const char	*unit;		/* "msec", the PMU's sysfs unit ("Joules"), or "" */
	double		div;		/* show val / div: 1e6 for the clocks (ns), else 1 */
	int		decimals;	/* 2 for the clocks and sysfs-scaled events, else 0 */
};

/* Event names perf list shows, by kind. */
enum ftk_perf_kind {
	FTK_PERF_KIND_HARDWARE,		/* "cpu-cycles OR cycles", ... */
	FTK_PERF_KIND_SOFTWARE,		/* "task-clock", "context-switches OR cs", ... */
	FTK_PERF_KIND_CACHE,		/* "L1-dcache-loads", "L1-dcache-load-misses", ... */
	FTK_PERF_KIND_PMU,		/* "msr/tsc/": the events this machine's PMUs name */
};

FTK_API int ftk_perf_online_cpus(int **cpus, size_t *nr);
FTK_API int ftk_perf_threads(pid_t id, unsigned int flags, pid_t **tids, size_t *nr);
FTK_API int ftk_perf_alive(const pid_t *tids, size_t nr);
FTK_API int ftk_perf_list(const struct ftk_perf *p, enum ftk_perf_kind kind, char ***names);
FTK_API int ftk_perf_stat_defaults(struct ftk_perf *p, unsigned int flags, int detail);
FTK_API const char *ftk_perf_why(const struct ftk_perf *p, size_t ev, char *buf, size_t len);

FTK_API int ftk_perf_stat_new(struct ftk_perf *p, unsigned int flags,
			      struct ftk_perf_stat **out);
FTK_API void ftk_perf_stat_free(struct ftk_perf_stat *s);
FTK_API int ftk_perf_stat_read(struct ftk_perf_stat *s);
FTK_API int ftk_perf_stat_run_end(struct ftk_perf_stat *s, uint64_t elapsed_ns);
FTK_API size_t ftk_perf_stat_nr_rows(const struct ftk_perf_stat *s);
FTK_API int ftk_perf_stat_count(const struct ftk_perf_stat *s, size_t ev, size_t row,
				enum ftk_perf_stat_span span, struct ftk_perf_stat_count *c);
FTK_API int ftk_perf_stat_metric(const struct ftk_perf_stat *s, size_t ev, size_t row,
				 enum ftk_perf_stat_span span, double elapsed_ns,
				 struct ftk_perf_stat_metric *m);
FTK_API int ftk_perf_stat_unit(const struct ftk_perf_stat *s, size_t ev,
			       struct ftk_perf_stat_unit *u);
FTK_API unsigned int ftk_perf_stat_elapsed(const struct ftk_perf_stat *s, double *mean_ns,
					   double *stddev_ns);

#ifdef __cplusplus
}
#endif
#endif
