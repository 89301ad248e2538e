/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ftrace: the function tracers' settings: the current tracer, function
 * filter lists, PID lists, options, graph depth and threshold.
 *
 * Every change is journaled on the handle. Kernels that forbid function
 * tracing (lockdown) refuse these writes with -EPERM; the error text says so.
 */
#ifndef FTKIT_FTRACE_H
#define FTKIT_FTRACE_H

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftk_ftrace_list {
	FTK_FTRACE_FILTER,		/* set_ftrace_filter: trace only these */
	FTK_FTRACE_NOTRACE,		/* set_ftrace_notrace: never these */
	FTK_FTRACE_GRAPH,		/* set_graph_function: graph from these */
	FTK_FTRACE_GRAPH_NOTRACE,	/* set_graph_notrace: not inside these */
	FTK_FTRACE_PID,			/* set_ftrace_pid */
	FTK_FTRACE_NOTRACE_PID,		/* set_ftrace_notrace_pid */
};

FTK_API const char *ftk_ftrace_list_file(enum ftk_ftrace_list which);
FTK_API int ftk_ftrace_has_tracer(struct ftk_tracefs *t, const char *tracer);
FTK_API int ftk_ftrace_tracer_set(struct ftk_tracefs *t, const char *tracer);
FTK_API int ftk_ftrace_tracer_stop(struct ftk_tracefs *t);
FTK_API int ftk_ftrace_graph_limits(struct ftk_tracefs *top, long depth, long thresh_us);
FTK_API int ftk_ftrace_list_set(struct ftk_tracefs *t, enum ftk_ftrace_list which,
				char *const *items, size_t nr);
FTK_API int ftk_ftrace_option_set(struct ftk_tracefs *t, const char *option, int on);
FTK_API int ftk_ftrace_value_set(struct ftk_tracefs *t, const char *file, unsigned long value);

#ifdef __cplusplus
}
#endif
#endif
