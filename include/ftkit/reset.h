/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reset: put a tracefs handle (top level or instance) back as the kernel
 * sets it up at boot, and remove dynamic events.
 *
 * The defaults are the kernel's own: they are read from a fresh scratch
 * instance ("ftkit-reset-PID", removed again), not from a table here. Each
 * change is reported through a callback before it is made.
 */
#ifndef FTKIT_RESET_H
#define FTKIT_RESET_H

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftk_reset_flags {
	/* Report what would change, change nothing. */
	FTK_RESET_DRY_RUN	= 1 << 0,
	/* ftk_reset_dynevents(): every dynamic event, not only ftkit's. */
	FTK_RESET_ALL		= 1 << 1,
	/* Also what a running ftkit process owns (its instance, its probes). */
	FTK_RESET_FORCE		= 1 << 2,
};

/* @file relative to the tracing directory; @old and @new as the file reads. */
typedef void (*ftk_reset_fn)(void *arg, const char *file, const char *old, const char *new_);

FTK_API int ftk_reset(struct ftk_tracefs *t, unsigned int flags, ftk_reset_fn fn, void *arg);
FTK_API int ftk_reset_dynevents(struct ftk_tracefs *t, unsigned int flags, ftk_reset_fn fn,
				void *arg);

#ifdef __cplusplus
}
#endif
#endif
