/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session: one trace from its start to its end, in a private instance.
 *
 * A session makes its instance (named for its owner, so that one left by a
 * run killed with SIGKILL is recognised and removed by the next), sets the
 * buffer size and the clock, enables events with their filters and sets
 * the PID filters, starts and stops tracing, and reads the live buffer in
 * time order. Every change goes through the restore journal of the
 * instance's handle (or of the top level's, for probes); ftk_session_free()
 * takes everything down in order: the reader closed, tracing state put
 * back, the instance removed.
 *
 *	FTK_OPTS(ftk_session_opts, o, .tool = "mytool", .clock = "mono",
 *		 .buffer_kb = 8192);
 *	struct ftk_session *s;
 *
 *	if (ftk_session_new(&o, &s))
 *		die(ftk_session_errmsg(s));
 *	ftk_session_event(s, "raw_syscalls:sys_exit", NULL);
 *	ftk_session_pid(s, child, FTK_SESSION_PID_FOLLOW);
 *	... let the child run up to its exec, then:
 *	ftk_session_start(s);			// tracing from the child's exec
 *	while (running)
 *		ftk_session_read(s, fn, ctx, 0);	// fn(ctx, rec) in time order
 *	ftk_session_read(s, fn, ctx, FTK_LIVE_FINAL);
 *	ftk_session_free(s);
 *
 * What else a trace needs has a verb of its own, journaled the same way:
 * the buffer and sub-buffer size, the clock, options, the CPUs traced
 * (tracing_cpumask), marks copied from the top level (copy_trace_marker),
 * the function tracer with its lists, and the tool's own threads kept out
 * of several sessions at once (ftk_session_notrace_share()).
 *
 * Task names: with FTK_SESSION_COMMS the session also enables the fork and
 * rename events (task:task_rename fires on exec and on prctl(PR_SET_NAME))
 * of the tasks it traces and keeps the name each task had last, read from
 * those records as ftk_session_read() passes them. ftk_session_comm()
 * answers from that table, else from /proc for a task that already ran
 * when tracing started, and never from the kernel's saved_cmdlines, whose
 * entry may be of an earlier task that had the same PID.
 */
#ifndef FTKIT_SESSION_H
#define FTKIT_SESSION_H

#include <stdint.h>
#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/ftrace.h>
#include <ftkit/live.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_session;

enum ftk_session_flags {
	/* Learn task names from fork and rename records (ftk_session_comm()). */
	FTK_SESSION_COMMS	= 1 << 0,
	/* Work at the top level, not in an instance (what it changes is put back). */
	FTK_SESSION_TOP		= 1 << 1,
	/* Trace the caller's own threads too (kept out by default). */
	FTK_SESSION_SELF	= 1 << 2,
	/*
	 * No watchdog. By default ftk_session_start() forks one (watchdog.h)
	 * for an instance the session made: if the caller is killed with
	 * SIGKILL, it turns tracing off there and removes the instance within
	 * a second, instead of leaving it tracing until a later run reaps it.
	 */
	FTK_SESSION_NO_WATCHDOG	= 1 << 3,
};

struct ftk_session_opts {
	size_t		sz;
	const char	*root;		/* the tracefs mount; NULL finds it */
	const char	*tool;		/* names the instance "ftkit-TOOL-OWNER"; NULL "session" */
	const char	*instance;	/* work in this instance instead (made if absent) */
	const char	*clock;		/* trace_clock ("mono" keeps time order); NULL leaves it */
	unsigned int	buffer_kb;	/* per-CPU buffer; 0 leaves the kernel's size */
	unsigned int	flags;		/* enum ftk_session_flags */
	unsigned int	wake_percent;	/* wake trace_pipe's readers this full (buffer_percent); 0 leaves it */
};

enum ftk_session_pid_flags {
	/* Also the tasks it forks from now on (options/event-fork). */
	FTK_SESSION_PID_FOLLOW	= 1 << 0,
	/* Every task but these (set_event_notrace_pid). */
	FTK_SESSION_PID_NOTRACE	= 1 << 1,
	/* The function tracers too (set_ftrace_pid, options/function-fork), where the kernel has them. */
	FTK_SESSION_PID_FUNCTION = 1 << 2,
};

FTK_API int ftk_session_new(const struct ftk_session_opts *opts, struct ftk_session **out);
FTK_API void ftk_session_free(struct ftk_session *s);
FTK_API const char *ftk_session_errmsg(const struct ftk_session *s);

FTK_API const char *ftk_session_instance(const struct ftk_session *s);
FTK_API struct ftk_tracefs *ftk_session_tracefs(struct ftk_session *s);
FTK_API struct ftk_tracefs *ftk_session_top(struct ftk_session *s);

FTK_API int ftk_session_event(struct ftk_session *s, const char *event, const char *filter);
FTK_API int ftk_session_pid(struct ftk_session *s, pid_t pid, unsigned int flags);
FTK_API int ftk_session_notrace_share(struct ftk_session *const *s, size_t nr);

/* The instance's settings, each put back by ftk_session_free(). */
FTK_API int ftk_session_buffer(struct ftk_session *s, unsigned int kb);
FTK_API int ftk_session_subbuf(struct ftk_session *s, unsigned int kb);
FTK_API int ftk_session_clock(struct ftk_session *s, const char *clock);
FTK_API int ftk_session_option(struct ftk_session *s, const char *option, int on);
FTK_API int ftk_session_cpus(struct ftk_session *s, const int *cpus, size_t nr);
FTK_API int ftk_session_copy_marker(struct ftk_session *s, int on);
FTK_API int ftk_session_tracer(struct ftk_session *s, const char *tracer);
FTK_API int ftk_session_functions(struct ftk_session *s, enum ftk_ftrace_list which,
				  char *const *items, size_t nr);

FTK_API int ftk_session_start(struct ftk_session *s);
FTK_API int ftk_session_stop(struct ftk_session *s);

FTK_API struct ftk_live *ftk_session_live(struct ftk_session *s);
FTK_API int ftk_session_read(struct ftk_session *s, ftk_live_fn fn, void *ctx,
			     unsigned int flags);
FTK_API const char *ftk_session_comm(struct ftk_session *s, pid_t pid, char *buf, size_t len);
FTK_API pid_t ftk_session_ppid(struct ftk_session *s, pid_t pid);

#ifdef __cplusplus
}
#endif
#endif
