/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * capture: the recorder behind ftrecord.
 *
 * One thread per CPU waits with poll(2) on per_cpu/cpuN/trace_pipe_raw
 * (the kernel wakes it when the buffer is buffer_percent full) and moves
 * whole pages with splice(2) through a pipe into a per-CPU spool file,
 * so the trace data never passes through user space. On stop, tracing is
 * switched off and each thread drains what is left, the last partly
 * filled page included. ftk_capture_save() then assembles a trace.dat
 * with copy_file_range(2).
 *
 * Usage:
 *	ftk_capture_new(t, &opts, &c);	   instance already set up (events...)
 *	ftk_capture_start(c);		   threads run, tracing_on = 1
 *	... workload ...
 *	ftk_capture_stop(c);		   tracing_on = 0, drain, join
 *	ftk_capture_save(c, "trace.dat", &wopts);
 *	ftk_capture_free(c);
 *
 * Every tracefs file the capture changes (tracing_on, buffer_percent,
 * set_event_notrace_pid) goes through the handle's restore journal.
 *
 * The metadata of a file (ftk_tracemeta_new(): formats, kallsyms, printk
 * formats, saved cmdlines, clocks) is read here too, on the capture side,
 * and handed to the writer, which reads no tracefs file itself:
 *	ftk_tracemeta_new(t, &wopts, NULL, &m);
 *	ftk_tracewrite_new(m, &wopts, &w);
 *	ftk_capture_add_to(c, w);
 *	ftk_tracewrite_save(w, "trace.dat");
 */
#ifndef FTKIT_CAPTURE_H
#define FTKIT_CAPTURE_H

#include <stdint.h>

#include <ftkit/common.h>
#include <ftkit/tracefs.h>
#include <ftkit/tracewrite.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_capture;

enum ftk_capture_flags {
	/* Leave the recorder's own threads in the trace (no set_event_notrace_pid). */
	FTK_CAPTURE_TRACE_SELF	= 1 << 0,
	/* Do not touch tracing_on: the caller switches tracing on and off. */
	FTK_CAPTURE_NO_ONOFF	= 1 << 1,
	/*
	 * Spools are named files spool_dir/cpuN (created, never followed
	 * through a link), not anonymous ones: a recorder that dies keeps
	 * them, for ftk_spool_recover(). ftk_capture_free() removes
	 * them. Not with max_kb (its halves are anonymous).
	 */
	FTK_CAPTURE_NAMED_SPOOLS = 1 << 2,
	/*
	 * Spools are in memory (memfd_create(2)), not in spool_dir: nothing
	 * reaches a disk, for a recording sent elsewhere that must be held
	 * whole first (a flight recorder's window sent with ftk_net(3)).
	 * Not with FTK_CAPTURE_NAMED_SPOOLS.
	 */
	FTK_CAPTURE_MEMORY_SPOOLS = 1 << 3,
};

struct ftk_capture_opts {
	size_t		sz;
	/* Directory of the spool files (unlinked at once); NULL: $TMPDIR or /tmp. */
	const char	*spool_dir;
	/* buffer_percent to wait for: 0 wakes on every event; default (0 here) means 50. */
	int		buffer_percent;
	/* Also wake at least every this many ms, 0 = only on buffer_percent (and stop). */
	int		poll_ms;
	/* Keep at most about this much per CPU (two halves, newest kept); 0 = no limit. */
	uint64_t	max_kb;
	/* More PIDs to keep out of the trace with the recorder's threads (the tool's main). */
	const int	*notrace_pids;
	int		nr_notrace_pids;
	unsigned int	flags;		/* enum ftk_capture_flags */
	/* Pipe capacity per CPU in bytes (the memory the capture holds); 0 = 1 MiB. */
	unsigned int	pipe_bytes;
	/* SCHED_FIFO priority of the CPU threads (1-99); 0 = normal scheduling. */
	int		rt_priority;
	/*
	 * Called once, from a CPU thread, when the capture cannot go on (the
	 * spool's file system is full: -ENOSPC, -EDQUOT, -EIO; or the buffer
	 * went away). Every thread stops at once; the caller should then call
	 * ftk_capture_stop(). Must be async-signal-safe-ish: set a flag, write
	 * an fd, kill(getpid(), SIGTERM).
	 */
	void		(*on_failure)(void *arg, int err);
	void		*on_failure_arg;
	/*
	 * Send instead of spool: each CPU's pages go to cpu_fds[cpu] (a
	 * socket, ftk_net_sender_cpu_fd()), nothing to disk; nr_cpu_fds must
	 * be the CPU count (sysconf(_SC_NPROCESSORS_CONF)). The capture
	 * writes through its own copies and closes them when the CPU's thread
	 * ends (at stop): the peer then sees the end of the data. Not with
	 * max_kb or FTK_CAPTURE_NAMED_SPOOLS; ftk_capture_add_to() and
	 * ftk_capture_save() then have nothing to give (-EINVAL).
	 */
	const int	*cpu_fds;
	int		nr_cpu_fds;
};

/* What one CPU's capture did; plain data the caller reads. */
struct ftk_capture_cpu {
	uint64_t	bytes;		/* stored (whole pages), what goes into the file */
	uint64_t	pages;		/* of which pages */
	uint64_t	moved;		/* moved out of the ring buffer (more with max_kb) */
	uint64_t	lost;		/* events lost: overrun + dropped events, from stats */
	uint64_t	read_events;	/* "read events" of stats during the capture */
	uint64_t	wakeups;	/* poll wake-ups */
	uint64_t	cpu_ns;		/* CPU time of the CPU's thread */
	/*
	 * Events recorded but not in the file: left in the ring or in the
	 * pipe when a failure (a full disk) stopped the threads, and those
	 * ftk_capture_shrink() dropped.
	 */
	uint64_t	unstored;
	int		online;		/* a trace_pipe_raw existed for it */
};

FTK_API int ftk_capture_clock_pair(struct ftk_tracefs *t, struct ftk_clock_pair *p);
FTK_API int ftk_capture_new(struct ftk_tracefs *t, const struct ftk_capture_opts *opts,
			    struct ftk_capture **out);
FTK_API void ftk_capture_free(struct ftk_capture *c);
FTK_API int ftk_capture_start(struct ftk_capture *c);
FTK_API int ftk_capture_stop(struct ftk_capture *c);
FTK_API int ftk_capture_cpus(const struct ftk_capture *c);
FTK_API int ftk_capture_cpu_info(const struct ftk_capture *c, int cpu,
				 struct ftk_capture_cpu *info);
FTK_API uint64_t ftk_capture_duration_ns(const struct ftk_capture *c);
FTK_API int ftk_capture_suggest_kb(const struct ftk_capture *c, int cpu, uint64_t *kb);
FTK_API int ftk_capture_add_to(struct ftk_capture *c, struct ftk_tracewrite *w);
FTK_API int ftk_capture_save(struct ftk_capture *c, const char *path,
			     const struct ftk_tracewrite_opts *wopts);
FTK_API const char *ftk_capture_errmsg(const struct ftk_capture *c);

FTK_API int ftk_tracemeta_new(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *opts,
			      const struct ftk_tracemeta *prev, struct ftk_tracemeta **out);
FTK_API int ftk_tracemeta_buffer(struct ftk_tracemeta *m, const char *name,
				 struct ftk_tracefs *t);
FTK_API int ftk_tracemeta_system(struct ftk_tracemeta *m, const char *system);
FTK_API const char *ftk_tracemeta_errmsg(const struct ftk_tracemeta *m);
FTK_API void ftk_tracemeta_free(struct ftk_tracemeta *m);
FTK_API int ftk_capture_failed(const struct ftk_capture *c);
FTK_API uint64_t ftk_capture_shrink(struct ftk_capture *c);

#ifdef __cplusplus
}
#endif
#endif
