/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * flight: a flight recorder on one tracefs instance.
 *
 * The instance's own per-CPU ring runs in overwrite mode (options/overwrite)
 * and nothing is read while armed. A trigger ends the wait: a traceoff
 * trigger in the kernel on an event matching a filter, or on a trace_marker
 * write matching a glob (ftrace:print), or the caller's own request (a
 * signal). The reason is written into the instance as a mark, whose time
 * is the trigger's time; then the window after it is recorded and the ring
 * drained through an ftk_capture, cut to the window before it. A latency
 * over a threshold triggers too: in the kernel (hist onmatch() and a
 * traceoff trigger on a synthetic event) or from a second instance's
 * stream, paired in user space.
 *
 *	ftk_flight_new(t, &opts, &f);	   overwrite, triggers, tracing off
 *	... set up events ...
 *	ftk_flight_arm(f);		   tracing on
 *	if (ftk_flight_wait(f, check, arg) == 1) {
 *		ftk_flight_collect(f, check, arg);
 *		ftk_capture_save(ftk_flight_capture(f), "trace.dat", NULL);
 *		ftk_flight_arm(f);	   again, for the next anomaly
 *	}
 *	ftk_flight_free(f);
 */
#ifndef FTKIT_FLIGHT_H
#define FTKIT_FLIGHT_H

#include <stdint.h>

#include <ftkit/capture.h>
#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_flight;

/* What the caller's check function answers. */
enum ftk_flight_check {
	FTK_FLIGHT_WAIT	= 0,	/* nothing: go on */
	FTK_FLIGHT_STOP	= 1,	/* end the wait (or the --after window) */
	FTK_FLIGHT_FIRE	= 2,	/* trigger now, for the reason set in *why */
};

/* Called about every poll_ms: FTK_FLIGHT_*; with FIRE, *@why names the reason. */
typedef int (*ftk_flight_check_fn)(void *arg, const char **why);

/* The text before the reason in the mark the recorder writes at a trigger. */
#define FTK_FLIGHT_MARK "ftkit flight trigger: "

struct ftk_flight_opts {
	size_t		sz;
	/*
	 * Keep this many seconds before the trigger; 0: all the ring holds.
	 * Never before the oldest event of a CPU whose ring lapped: the
	 * window starts at one time stamp on every CPU.
	 */
	double		before;
	/* Record this many seconds after the trigger; 0: stop at the trigger. */
	double		after;
	/* Per-CPU ring size in KiB (buffer_size_kb); 0: leave it. */
	uint64_t	buffer_kb;
	/* Trigger on this "system:event" when it matches event_filter (NULL: always). */
	const char	*event;
	const char	*event_filter;
	/* Trigger on a trace_marker write whose text matches this kernel glob. */
	const char	*mark;
	/* Check period in ms; 0: 10. */
	int		poll_ms;
	/* Passed to the capture that drains the ring (see ftk_capture_new()). */
	const char	*spool_dir;
	const int	*notrace_pids;
	int		nr_notrace_pids;
	int		rt_priority;
	unsigned int	capture_flags;
	/*
	 * Trigger when a latency passes a threshold: "wakeup>20ms" (a task's
	 * wake-up to its switch-in), "syscall>10ms" or "syscall:NAME>10ms",
	 * "BINARY:FUNCTION>5ms" (uprobe to uretprobe); units ns, us, ms, s.
	 * In the kernel (synthetic events, hist onmatch(), traceoff) where it
	 * can, else from the stream of @watch.
	 */
	const char	*latency;
	/* The top level: uprobes and synthetic events are made there, journaled. */
	struct ftk_tracefs *top;
	/* An empty private instance for the stream path's few events. */
	struct ftk_tracefs *watch;
	unsigned int	flags;		/* FTK_FLIGHT_* */
};

enum ftk_flight_flags {
	FTK_FLIGHT_LAT_STREAM	= 1 << 0,	/* the latency from the stream, even if the kernel can */
};

FTK_API int ftk_flight_new(struct ftk_tracefs *t, const struct ftk_flight_opts *opts,
			   struct ftk_flight **out);
FTK_API void ftk_flight_free(struct ftk_flight *f);
FTK_API int ftk_flight_arm(struct ftk_flight *f);
FTK_API int ftk_flight_wait(struct ftk_flight *f, ftk_flight_check_fn check, void *arg);
FTK_API int ftk_flight_collect(struct ftk_flight *f, ftk_flight_check_fn check, void *arg);
FTK_API struct ftk_capture *ftk_flight_capture(struct ftk_flight *f);
FTK_API const char *ftk_flight_reason(const struct ftk_flight *f);
FTK_API const char *ftk_flight_errmsg(const struct ftk_flight *f);

#ifdef __cplusplus
}
#endif
#endif
