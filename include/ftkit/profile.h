/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile: a sampling profile, from the kernel's rings to folded stacks.
 *
 *	FTK_OPTS(ftk_sample_opts, o, .freq = 99, .callchain = FTK_CALLCHAIN_DWARF);
 *	ftk_profile_open(&o, 0, NULL, 0, &pid, 1, &p);
 *	ftk_profile_enable(p);
 *	while (running)
 *		ftk_profile_read(p, 100);	samples -> symbols -> stacks
 *	ftk_profile_stop(p);			the rest of the rings
 *	ftk_stacks_write_folded(ftk_profile_stacks(p), stdout);
 *	ftk_profile_free(p);
 *
 * Each sample's records are put in time order across the rings before
 * they are used, so that a process's MMAP2 records name its samples on
 * other CPUs. Stacks are folded root first: the command name, then user
 * frames (main ...), then kernel frames with perf's "_[k]" mark; JIT frames
 * carry "_[j]"; a frame without a name is "[unknown] (OBJECT+0xOFFSET)".
 * With FTK_PROFILE_OFF_CPU, the event is sched:sched_switch and each stack
 * of a task leaving the CPU weighs the microseconds until it runs again.
 */
#ifndef FTKIT_PROFILE_H
#define FTKIT_PROFILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/sample.h>
#include <ftkit/stacks.h>
#include <ftkit/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_profile;

enum ftk_profile_flags {
	FTK_PROFILE_NO_COMM	= 1 << 0,	/* no command name as the root frame */
	FTK_PROFILE_PID		= 1 << 1,	/* the root frame is "comm-PID" */
	FTK_PROFILE_OFF_CPU	= 1 << 2,	/* off-CPU time from sched:sched_switch */
	FTK_PROFILE_NO_DEMANGLE	= 1 << 3,	/* mangled C++ and Rust names */
	FTK_PROFILE_WAKEUP	= 1 << 4,	/* off-CPU: "blocked;--;waker" (sched_waking) */
};

struct ftk_profile_stats {
	uint64_t	samples;	/* samples taken into stacks */
	uint64_t	lost;		/* records the rings had no room for (PERF_RECORD_LOST) */
	uint64_t	lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	uint64_t	unwound;	/* DWARF samples whose user stack was unwound */
	uint64_t	unwind_short;	/* ... of which libunwind found only the first frame */
	uint64_t	malformed;	/* records skipped as malformed */
	unsigned int	mmap_pages;	/* data pages per ring */
	size_t		nr_rings;
};

FTK_API int ftk_profile_open(const struct ftk_sample_opts *o, unsigned int flags, const int *cpus,
			     size_t nr_cpus, const pid_t *tids, size_t nr_tids,
			     struct ftk_profile **out);
FTK_API int ftk_profile_load(const char *path, unsigned int flags, struct ftk_profile **out);
FTK_API int ftk_profile_load_script(const char *path, unsigned int flags, FILE *script,
				    struct ftk_profile **out);
FTK_API int ftk_profile_load_mem(const void *data, size_t size, const char *name,
				 unsigned int flags, FILE *script, struct ftk_profile **out);
FTK_API void ftk_profile_free(struct ftk_profile *p);
FTK_API const char *ftk_profile_errmsg(const struct ftk_profile *p);
FTK_API int ftk_profile_follow(struct ftk_profile *p, pid_t pid);
FTK_API int ftk_profile_enable(struct ftk_profile *p);
FTK_API int ftk_profile_read(struct ftk_profile *p, int timeout_ms);
FTK_API void ftk_profile_script(struct ftk_profile *p, FILE *f);
FTK_API int ftk_profile_stop(struct ftk_profile *p);
FTK_API void ftk_profile_stats(const struct ftk_profile *p, struct ftk_profile_stats *st);
FTK_API struct ftk_stacks *ftk_profile_stacks(struct ftk_profile *p);
FTK_API struct ftk_symbols *ftk_profile_symbols(struct ftk_profile *p);

#ifdef __cplusplus
}
#endif
#endif
