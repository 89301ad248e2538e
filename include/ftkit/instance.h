/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * instance: naming, listing and removing tracefs instances.
 *
 * Every instance a tool creates for itself is named "ftkit-TOOL-PID", so
 * that a later run can tell whose it is: one whose creator is gone is
 * stale and may be removed; one of a running process, or one named by a
 * person, is left alone unless asked.
 */
#ifndef FTKIT_INSTANCE_H
#define FTKIT_INSTANCE_H

#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftk_instance_owner {
	FTK_INSTANCE_OTHER	= 0,	/* not named by ftkit */
	FTK_INSTANCE_LIVE	= 1,	/* ftkit's, its creator runs */
	FTK_INSTANCE_STALE	= 2,	/* ftkit's, its creator is gone */
};

FTK_API int ftk_instance_name(const char *tool, char *buf, size_t len);
FTK_API enum ftk_instance_owner ftk_instance_owner(const char *name, pid_t *pid);
FTK_API int ftk_instance_list(struct ftk_tracefs *t, char ***out);
FTK_API int ftk_instance_remove(struct ftk_tracefs *t, const char *name);
FTK_API int ftk_instance_reap(struct ftk_tracefs *t, char ***removed);

#ifdef __cplusplus
}
#endif
#endif
