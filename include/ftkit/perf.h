/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * perf: counting perf_event groups.
 *
 * A struct ftk_perf holds a list of events, parsed from perf's event
 * syntax ("cycles,{cs,page-faults:u},sched:sched_*,msr/tsc/") or added as
 * raw attributes, and opens them on a set of CPUs and threads:
 *
 *	ftk_event_tracepoints(NULL, &tp);		tracepoints: the control side's
 *	ftk_perf_new(NULL, &tp, &p);			(or NULL: none)
 *	ftk_perf_add(p, "task-clock,cs");		parse, no kernel needed
 *	ftk_perf_open(p, NULL, 0, &pid, 1, FTK_PERF_INHERIT);
 *	ftk_perf_enable(p); ... ftk_perf_disable(p);
 *	ftk_perf_read(p);				one read per group and fd
 *	ftk_perf_counts(p, 0, -1, &c);			summed over CPUs and threads
 *	ftk_perf_free(p);
 *
 * Every group is read with PERF_FORMAT_GROUP, so its members' counts come
 * from the same instant; an event the kernel refuses with "not supported"
 * errors is left out and ftk_perf_status() says why, the rest is counted.
 *
 * The perf side reads no tracefs file: a tracepoint's id (and, for the
 * profiler, a field's offset in its record) comes from a struct
 * ftk_tracepoints the caller hands in, which the control side fills
 * (ftk_event_tracepoints(), <ftkit/event.h>).
 */
#ifndef FTKIT_PERF_H
#define FTKIT_PERF_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_perf;

/* A count as the kernel gives it: the value, time enabled and time running (ns). */
struct ftk_counts {
	uint64_t	val;
	uint64_t	ena;
	uint64_t	run;
};

/* Called for each tracepoint a look-up matches; a non-zero return stops it. */
typedef int (*ftk_tracepoint_fn)(void *ctx, const char *sys, const char *ev, uint64_t id);

/*
 * Tracepoints for the perf side, which reads no tracefs: filled by the
 * caller, from the control side with ftk_event_tracepoints().
 */
struct ftk_tracepoints {
	/*
	 * Call @fn for each tracepoint SYS:EV matches (either part may be a
	 * glob), in sorted order, with its id. Returns 0 (none matching is
	 * not an error), @fn's first non-zero return, or -errno when the
	 * tracepoints cannot be read.
	 */
	int	(*ids)(void *arg, const char *sys, const char *ev, ftk_tracepoint_fn fn,
		       void *ctx);
	/* The offset of @field in the raw data of SYS:EV into *@off; 0 or -errno. */
	int	(*field)(void *arg, const char *sys, const char *ev, const char *field,
			 uint32_t *off);
	void	*arg;
};

enum ftk_perf_flags {
	/* Count the children the targets create after the open (perf's inherit). */
	FTK_PERF_INHERIT	= 1 << 0,
	/* Start counting when the target task calls exec (a forked command). */
	FTK_PERF_ON_EXEC	= 1 << 1,
	/* Open disabled; ftk_perf_enable() starts the counting. */
	FTK_PERF_DISABLED	= 1 << 2,
};

FTK_API int ftk_perf_new(const char *sysfs, const struct ftk_tracepoints *tp,
			 struct ftk_perf **out);
FTK_API void ftk_perf_free(struct ftk_perf *p);
FTK_API const char *ftk_perf_errmsg(const struct ftk_perf *p);

FTK_API int ftk_perf_add(struct ftk_perf *p, const char *spec);
FTK_API int ftk_perf_add_attr(struct ftk_perf *p, const struct perf_event_attr *attr,
			      const char *name, int leader);
FTK_API size_t ftk_perf_nr_events(const struct ftk_perf *p);
FTK_API const char *ftk_perf_name(const struct ftk_perf *p, size_t ev);
FTK_API const struct perf_event_attr *ftk_perf_attr(const struct ftk_perf *p, size_t ev);
FTK_API int ftk_perf_leader(const struct ftk_perf *p, size_t ev);
FTK_API const char *ftk_perf_unit(const struct ftk_perf *p, size_t ev, double *scale);

FTK_API int ftk_perf_open(struct ftk_perf *p, const int *cpus, size_t nr_cpus,
			  const pid_t *tids, size_t nr_tids, unsigned int flags);
FTK_API void ftk_perf_close(struct ftk_perf *p);
FTK_API int ftk_perf_status(const struct ftk_perf *p, size_t ev);
FTK_API int ftk_perf_set_filter(struct ftk_perf *p, size_t ev, const char *filter);
FTK_API int ftk_perf_enable(struct ftk_perf *p);
FTK_API int ftk_perf_disable(struct ftk_perf *p);
FTK_API int ftk_perf_read(struct ftk_perf *p);
FTK_API size_t ftk_perf_nr_cpus(const struct ftk_perf *p);
FTK_API int ftk_perf_cpu(const struct ftk_perf *p, size_t idx);
FTK_API int ftk_perf_counts(const struct ftk_perf *p, size_t ev, int cpu_idx,
			    struct ftk_counts *c);

FTK_API double ftk_counts_scaled(const struct ftk_counts *c);
FTK_API int ftk_perf_cpu_list(const char *list, int **cpus, size_t *nr);

#ifdef __cplusplus
}
#endif
#endif
