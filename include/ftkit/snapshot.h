/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * snapshot: the snapshot buffer of a tracefs handle (top level or
 * instance): take one (swap it with the live buffer), read, clear, free.
 * @cpu is a CPU number, or -1 for all CPUs. Per-CPU snapshots need a
 * kernel whose ring buffer swaps per CPU (most do).
 */
#ifndef FTKIT_SNAPSHOT_H
#define FTKIT_SNAPSHOT_H

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

FTK_API int ftk_snapshot_take(struct ftk_tracefs *t, int cpu);
FTK_API int ftk_snapshot_read(struct ftk_tracefs *t, int cpu, char **out);
FTK_API int ftk_snapshot_clear(struct ftk_tracefs *t, int cpu);
FTK_API int ftk_snapshot_free(struct ftk_tracefs *t);
FTK_API int ftk_snapshot_allocated(struct ftk_tracefs *t);

#ifdef __cplusplus
}
#endif
#endif
