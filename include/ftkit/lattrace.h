/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lattrace: the kernel's own latency tracers (Documentation/trace/ftrace.rst,
 * hwlat_detector.rst, osnoise-tracer.rst, timerlat-tracer.rst):
 *
 *   wakeup, wakeup_rt, wakeup_dl      wake-up to run of the highest-priority
 *                                     task, an RT task, a deadline task
 *   irqsoff, preemptoff, preemptirqsoff  interrupts, preemption, either, off
 *   hwlat                             latency the kernel did not cause (SMIs)
 *   osnoise                           noise a busy thread sees, per CPU
 *   timerlat                          timer IRQ and thread wake-up latency, per CPU
 *
 * The first six keep the worst latency in tracing_max_latency and its trace
 * in the max buffer (what "trace" then shows, and snapshot_raw holds in
 * pages); tracing_thresh makes them keep every latency above it instead of
 * only a new maximum. They run at the top level only. osnoise and timerlat
 * may run in instances (since Linux 5.16); their settings in osnoise/ are
 * global. Every change is journaled on the handles, as ftrace.h does.
 *
 *	ftk_lattrace_check(top, "wakeup_rt");		// why not, if not
 *	ftk_lattrace_start(top, top, "wakeup_rt", &opts);
 *	... run the workload ...
 *	ftk_lattrace_max(top, &usecs);
 *	ftk_tracefs_read(top, "trace", &text);		// the worst case's trace
 *	ftk_lattrace_header(text, &hdr);
 *	ftk_tracefs_restore(top);
 */
#ifndef FTKIT_LATTRACE_H
#define FTKIT_LATTRACE_H

#include <stdint.h>

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftk_lattrace_kind {
	FTK_LATTRACE_WAKEUP,		/* wakeup, wakeup_rt, wakeup_dl */
	FTK_LATTRACE_OFF,		/* irqsoff, preemptoff, preemptirqsoff */
	FTK_LATTRACE_HWLAT,
	FTK_LATTRACE_OSNOISE,
	FTK_LATTRACE_TIMERLAT,
};

struct ftk_lattrace_info {
	const char		*name;		/* "wakeup_rt" */
	const char		*config;	/* what the kernel needs: "CONFIG_SCHED_TRACER" */
	const char		*what;		/* one line saying what it measures */
	enum ftk_lattrace_kind	kind;
	int			max_buffer;	/* the worst case's trace is in the max buffer */
	int			instances;	/* may run in an instance */
	int			per_cpu;	/* results per CPU (hwlat, osnoise, timerlat) */
};

/* What ftk_lattrace_start() sets; a field < 0 (NULL for @cpus) leaves the file as it is. */
struct ftk_lattrace_opts {
	size_t		sz;
	long		thresh_us;	/* tracing_thresh: keep latencies above it (0: new maxima) */
	int		functions;	/* options/function-trace: 1 function entries, 0 events only */
	long		period_us;	/* osnoise/period_us, osnoise/timerlat_period_us,
					   hwlat_detector/window */
	long		runtime_us;	/* osnoise/runtime_us, hwlat_detector/width */
	long		stop_us;	/* osnoise/stop_tracing_us: stop at a sample above it */
	long		stop_total_us;	/* osnoise/stop_tracing_total_us (timerlat: thread) */
	long		stack_us;	/* osnoise/print_stack (timerlat): a stack above it */
	const char	*cpus;		/* osnoise/cpus, a CPU list */
};

#define FTK_LATTRACE_OPTS_INIT { .sz = sizeof(struct ftk_lattrace_opts), .thresh_us = -1, \
	.functions = -1, .period_us = -1, .runtime_us = -1, .stop_us = -1, .stop_total_us = -1, \
	.stack_us = -1 }

/* What the header of a latency tracer's trace says (latency-format). */
struct ftk_lattrace_hdr {
	uint64_t	latency_us;	/* "latency: N us" */
	int		cpu;		/* "CPU#N", -1 if absent */
	int		pid;		/* "task: COMM-PID", -1 if absent */
	int		prio;		/* its "rt_prio:N", -1 if absent */
	char		comm[64];	/* its command, "" if absent */
	char		tracer[32];	/* "# tracer: NAME" */
};

FTK_API const struct ftk_lattrace_info *ftk_lattrace_get(const char *name);
FTK_API const struct ftk_lattrace_info *ftk_lattrace_at(size_t i);
FTK_API int ftk_lattrace_check(struct ftk_tracefs *t, const char *name);
FTK_API int ftk_lattrace_start(struct ftk_tracefs *t, struct ftk_tracefs *top, const char *name,
			       const struct ftk_lattrace_opts *opts);
FTK_API int ftk_lattrace_max(struct ftk_tracefs *t, uint64_t *usecs);
FTK_API int ftk_lattrace_max_clear(struct ftk_tracefs *t);
FTK_API int ftk_lattrace_stop(struct ftk_tracefs *t);
FTK_API int ftk_lattrace_header(const char *text, struct ftk_lattrace_hdr *hdr);

#ifdef __cplusplus
}
#endif
#endif
