/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tally: live totals and rates of a record stream, by event, by task, by
 * CPU and by system call, refreshed in intervals (fttop's data side).
 *
 *	struct ftk_tally *t = ftk_tally_new(ftk_live_tep(l), nr_cpus);
 *	loop:
 *		ftk_live_read(l, add, t, 0);	// add() calls ftk_tally_add(t, rec)
 *		ftk_tally_mark(t, seconds);	// close an interval of @seconds
 *		n = ftk_tally_rows(t, FTK_TALLY_EVENTS, &rows);
 *		... print rows[0..n-1] ...; free(rows);
 *	ftk_tally_free(t);
 *
 * Records come from any source (a live buffer through ftk_live_read(), a
 * file through ftk_tracefile_merge()), in time order.
 *
 * Task CPU time and CPU idle time come from sched:sched_switch (who ran
 * from one switch to the next on each CPU); system call latency from
 * raw_syscalls:sys_enter and sys_exit paired by task. Without those events
 * the fields stay unknown (share -1, lat_count 0).
 */
#ifndef FTKIT_TALLY_H
#define FTKIT_TALLY_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tep_handle;
struct tep_record;
struct ftk_tally;

enum ftk_tally_view {
	FTK_TALLY_EVENTS,	/* one row per event type */
	FTK_TALLY_TASKS,	/* one row per task (pid) */
	FTK_TALLY_CPUS,		/* one row per CPU */
	FTK_TALLY_SYSCALLS,	/* one row per system call number */
	FTK_TALLY_SYSCALLS_PID,	/* one row per task and system call */
	FTK_TALLY_HIST,		/* one row per key of ftk_tally_hist() */
};

/* One row of a view: plain data, the caller's. */
struct ftk_tally_row {
	int64_t		id;		/* event id, pid, CPU or syscall number */
	int		pid;		/* FTK_TALLY_SYSCALLS_PID: the task, or -1 for the
					   row of other processes once 4096 (pid, syscall)
					   rows exist; else -1 */
	char		name[64];	/* "system:event", comm, "cpuN" or syscall name */
	char		comm[16];	/* tasks and FTK_TALLY_SYSCALLS_PID: the task's comm */
	uint64_t	total;		/* records since the start */
	uint64_t	delta;		/* records in the last interval */
	double		rate;		/* delta per second of the last interval */
	uint64_t	time_ns;	/* tasks: on-CPU time; CPUs: idle time; since the start */
	uint64_t	time_delta_ns;	/* the same in the last interval */
	double		share;		/* time_delta_ns / interval (tasks: of one CPU); -1 unknown */
	uint64_t	lost;		/* CPUs: events the kernel dropped, since the start */
	uint64_t	lost_delta;	/* the same in the last interval */
	uint64_t	lat_count;	/* syscalls: enter/exit pairs since the start */
	uint64_t	lat_avg_ns;	/* their mean, maximum and 99th percentile */
	uint64_t	lat_max_ns;
	uint64_t	lat_p99_ns;
	uint64_t	errors;		/* syscalls: exits with a negative return value */
};

/* The whole of the last interval. */
struct ftk_tally_sum {
	uint64_t	total;		/* records since the start */
	uint64_t	delta;		/* records in the last interval */
	double		rate;
	uint64_t	lost;		/* events dropped since the start */
	uint64_t	lost_delta;
	double		seconds;	/* length of the last interval (ftk_tally_mark()) */
	double		elapsed;	/* sum of all intervals */
	int		nr_cpus;
	unsigned int	intervals;	/* ftk_tally_mark() calls */
};

FTK_API struct ftk_tally *ftk_tally_new(struct tep_handle *tep, int nr_cpus);
FTK_API void ftk_tally_free(struct ftk_tally *t);
/*
 * Count one record (its CPU in rec->cpu; rec->missed_events, as streams set
 * it on the first record of a sub-buffer, counts as lost on that CPU).
 */
FTK_API void ftk_tally_add(struct ftk_tally *t, const struct tep_record *rec);
/* Close an interval that lasted @seconds: deltas and rates are taken here. */
FTK_API void ftk_tally_mark(struct ftk_tally *t, double seconds);
/* The rows of @view, unsorted, in *@out (free() it); their number or a negative errno. */
FTK_API long ftk_tally_rows(const struct ftk_tally *t, enum ftk_tally_view view,
			    struct ftk_tally_row **out);
FTK_API void ftk_tally_sum(const struct ftk_tally *t, struct ftk_tally_sum *sum);
/*
 * Count the records of @event ("system:event") by the keys of a hist
 * trigger ("hist:keys=K,...[:vals=V,...]"), in user space, for kernels
 * without hist triggers: rows of FTK_TALLY_HIST.
 */
FTK_API int ftk_tally_hist(struct ftk_tally *t, const char *event, const char *trigger);
/* Forget every count (the names of tasks stay). */
FTK_API void ftk_tally_reset(struct ftk_tally *t);
/* The last failure of ftk_tally_hist(), "" if none. */
FTK_API const char *ftk_tally_errmsg(const struct ftk_tally *t);

#ifdef __cplusplus
}
#endif
#endif
