/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * watchdog: a child that outlives a recorder killed with SIGKILL.
 *
 * Forked at the start, it holds one end of a socket pair and a pidfd on
 * the recorder and sleeps. When the recorder dies without saying goodbye,
 * it turns tracing off in the instance, appends what the ring still holds
 * to the recording's spools (FILE.spool/cpuN, with a template if there is
 * none, so that ftk_spool_recover() makes the file), removes the instance
 * the recorder made, and exits. A recorder that ends normally says goodbye
 * first (ftk_watchdog_free()): the watchdog then does nothing at all.
 *
 *	ftk_watchdog_start(t, &opts, &wd);	   before tracing goes on
 *	... record ...
 *	ftk_watchdog_save(wd, 1);		   (flight: a trigger fired)
 *	ftk_watchdog_free(wd);			   goodbye, before the teardown
 */
#ifndef FTKIT_WATCHDOG_H
#define FTKIT_WATCHDOG_H

#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/spool.h>
#include <ftkit/tracefs.h>
#include <ftkit/tracewrite.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_watchdog;

enum ftk_watchdog_flags {
	/* Save the ring only after ftk_watchdog_save(wd, 1) (a flight recorder's trigger). */
	FTK_WATCHDOG_SAVE_LATER	= 1 << 0,
	/* Leave the watchdog in the trace (no set_event_notrace_pid). */
	FTK_WATCHDOG_TRACE_SELF	= 1 << 1,
};

struct ftk_watchdog_opts {
	size_t		sz;
	/* The recording's spool directory (ftk_spool_new()); NULL: nothing is saved. */
	struct ftk_spool *spool;
	/* The writer's options for a template the spool lacks; NULL: none written. */
	const struct ftk_tracewrite_opts *template_opts;
	unsigned int	flags;		/* enum ftk_watchdog_flags */
};

FTK_API int ftk_watchdog_start(struct ftk_tracefs *t, const struct ftk_watchdog_opts *opts,
			       struct ftk_watchdog **out);
FTK_API int ftk_watchdog_save(struct ftk_watchdog *wd, int on);
FTK_API pid_t ftk_watchdog_pid(const struct ftk_watchdog *wd);
FTK_API void ftk_watchdog_free(struct ftk_watchdog *wd);

#ifdef __cplusplus
}
#endif
#endif
