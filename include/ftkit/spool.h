/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * spool: a recording's spool directory, FILE.spool/ beside the output
 * FILE, which outlives a recorder killed with SIGKILL or by a power cut.
 * This module alone knows its layout:
 *
 *	lock		held (flock(2)) by the recorder while it runs; its PID inside
 *	template	the metadata as of the start (ftk_tracewrite_save_template())
 *	cpuN		the pages of CPU N as the capture stored them
 *
 * Usage:
 *	ftk_spool_new("trace.dat", &s);		   FILE.spool/ made, locked
 *	opts.spool_dir = ftk_spool_dir(s);	   the capture's named spools go there
 *	ftk_spool_save_template(s, w);		   after the events are set up
 *	... record, save trace.dat ...
 *	ftk_spool_free(s);			   the directory removed
 *
 * and after a crash: ftk_spool_recover("trace.dat", &r).
 */
#ifndef FTKIT_SPOOL_H
#define FTKIT_SPOOL_H

#include <sys/types.h>

#include <ftkit/common.h>
#include <ftkit/tracewrite.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_spool;

FTK_API int ftk_spool_new(const char *output, struct ftk_spool **sp);
FTK_API void ftk_spool_free(struct ftk_spool *s);
FTK_API const char *ftk_spool_dir(const struct ftk_spool *s);
FTK_API int ftk_spool_save_template(struct ftk_spool *s, struct ftk_tracewrite *w);
FTK_API const char *ftk_spool_errmsg(const struct ftk_spool *s);
FTK_API int ftk_spool_busy(const char *output, pid_t *pid);
FTK_API int ftk_spool_left(const char *dir, char ***outputs);
FTK_API int ftk_spool_recover(const char *output, struct ftk_tracewrite_recovered *r);

#ifdef __cplusplus
}
#endif
#endif
