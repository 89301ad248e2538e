// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ftrace: function and function_graph tracer settings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftrace.h>

#include "internal.h"
#include "tracefs-local.h"

static const char *const list_files[] = {
	[FTK_FTRACE_FILTER]		= "set_ftrace_filter",
	[FTK_FTRACE_NOTRACE]		= "set_ftrace_notrace",
	[FTK_FTRACE_GRAPH]		= "set_graph_function",
	[FTK_FTRACE_GRAPH_NOTRACE]	= "set_graph_notrace",
	[FTK_FTRACE_PID]		= "set_ftrace_pid",
	[FTK_FTRACE_NOTRACE_PID]	= "set_ftrace_notrace_pid",
};

/**
 * ftk_ftrace_list_file() - the control file of a list
 * @which: the list
 *
 * Return: its name relative to the handle's directory, or NULL.
 */
FTK_API const char *ftk_ftrace_list_file(enum ftk_ftrace_list which)
{
	if ((unsigned int)which >= ARRAY_SIZE(list_files))
		return NULL;
	return list_files[which];
}

static int missing(struct ftk_tracefs *t, const char *file, const char *why)
{
	if (t->instance)
		snprintf(t->errmsg, sizeof(t->errmsg), "instances/%s/%s is absent (%s)",
			 t->instance, file, why);
	else
		snprintf(t->errmsg, sizeof(t->errmsg), "%s is absent (%s)", file, why);
	t->errdetail[0] = '\0';
	return -ENOENT;
}

/**
 * ftk_ftrace_has_tracer() - whether the handle can select a tracer
 * @t: the handle
 * @tracer: "function", "function_graph", ...
 *
 * An instance lists only the tracers that may run in instances.
 *
 * Return: 1 when available_tracers lists it, 0 when not (with the reason
 * in ftk_tracefs_errmsg()), or a negative errno.
 */
FTK_API int ftk_ftrace_has_tracer(struct ftk_tracefs *t, const char *tracer)
{
	char *s, *tok, *save;
	int found = 0, ret;

	ret = ftk_tracefs_read(t, "available_tracers", &s);
	if (ret)
		return ret;
	for (tok = strtok_r(s, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, tracer))
			found = 1;
	free(s);
	if (!found)
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "%s%s%savailable_tracers: no '%s' (%s)", t->instance ? "instances/" : "",
			 t->instance ? t->instance : "", t->instance ? "/" : "", tracer,
			 t->instance ? "not allowed in instances, or not built in"
				     : "kernel built without it");
	return found;
}

/**
 * ftk_ftrace_tracer_set() - select the current tracer
 * @t: the handle
 * @tracer: a name from available_tracers ("nop" to stop)
 *
 * Return: 0, -ENODEV when the handle does not offer @tracer, or the
 * write's negative errno (-EPERM: forbidden here, kernel lockdown).
 */
FTK_API int ftk_ftrace_tracer_set(struct ftk_tracefs *t, const char *tracer)
{
	int ret = ftk_ftrace_has_tracer(t, tracer);

	if (ret < 0)
		return ret;
	if (!ret)
		return ftk_err(-ENODEV);
	return ftk_tracefs_set(t, "current_tracer", tracer);
}

/**
 * ftk_ftrace_list_set() - replace a function or PID list
 * @t: the handle
 * @which: the list
 * @items: function globs ("vfs_*", "*:mod:ext4", "!name" to drop one) or
 *	   PIDs; an empty list clears it
 * @nr: how many
 *
 * The old list is journaled; a failure part-way puts it back.
 *
 * Return: 0, -ENOENT when the handle lacks the file, or the kernel's
 * refusal (-EINVAL: no function matches a glob; -EPERM: lockdown).
 */
FTK_API int ftk_ftrace_list_set(struct ftk_tracefs *t, enum ftk_ftrace_list which,
				char *const *items, size_t nr)
{
	struct undo *mark = ftk_tracefs_mark(t);
	const char *file = ftk_ftrace_list_file(which);
	size_t i;
	int ret = 0;

	if (!file)
		return ftk_err(-EINVAL);
	for (i = 0; i < nr; i++)
		if (!*items[i] || strpbrk(items[i], "\n "))
			return ftk_err(-EINVAL);
	if (!ftk_tracefs_exists(t, file))
		return ftk_err(missing(t, file, "not in this kernel or not in instances"));
	/*
	 * Each item ends with a newline: the kernel parses a token when white
	 * space follows it, and one left unfinished only at close(2), where a
	 * glob that matches nothing would fail unseen and leave the list empty
	 * (every function traced).
	 */
	for (i = 0; !ret && i < (nr ? nr : 1); i++) {
		char *line;

		if (asprintf(&line, "%s\n", nr ? items[i] : "") < 0) {
			ret = -ENOMEM;
			break;
		}
		if (i == 0)
			ret = ftk_tracefs_set(t, file, nr ? line : "");
		else
			ret = ftk_tracefs_append(t, file, line);
		free(line);
	}
	if (ret)
		ftk_tracefs_rollback(t, mark);
	return ftk_err(ret);
}

/**
 * ftk_ftrace_option_set() - turn a trace option on or off
 * @t: the handle
 * @option: a name in options/ ("func_stack_trace", "funcgraph-proc", ...)
 * @on: 1 or 0
 *
 * Return: 0, -ENOENT when the handle has no such option (tracer options
 * appear once their tracer is built in), or the write's negative errno.
 */
FTK_API int ftk_ftrace_option_set(struct ftk_tracefs *t, const char *option, int on)
{
	char file[256];

	if (ftk_name_check(option))
		return ftk_err(-EINVAL);
	snprintf(file, sizeof(file), "options/%s", option);
	if (!ftk_tracefs_exists(t, file))
		return ftk_err(missing(t, file, "no such option here"));
	return ftk_tracefs_set(t, file, on ? "1" : "0");
}

/**
 * ftk_ftrace_tracer_stop() - select the nop tracer, for good
 * @t: the handle
 *
 * Not journaled: a persistent change (ftfunc --stop), which a journaled
 * write would undo as the tool exits.
 *
 * Return: 0, or the write's negative errno.
 */
FTK_API int ftk_ftrace_tracer_stop(struct ftk_tracefs *t)
{
	return ftk_tracefs_write(t, "current_tracer", "nop");
}

/**
 * ftk_ftrace_graph_limits() - the function graph's depth and threshold
 * @top: the top level (the two files exist there only)
 * @depth: max_graph_depth, or < 0 to leave it
 * @thresh_us: tracing_thresh in microseconds, or < 0 to leave it
 *
 * Return: 0, or as ftk_ftrace_value_set() for the first that fails.
 */
FTK_API int ftk_ftrace_graph_limits(struct ftk_tracefs *top, long depth, long thresh_us)
{
	int ret = 0;

	if (depth >= 0)
		ret = ftk_ftrace_value_set(top, "max_graph_depth", depth);
	if (!ret && thresh_us >= 0)
		ret = ftk_ftrace_value_set(top, "tracing_thresh", thresh_us);
	return ret;
}

/**
 * ftk_ftrace_value_set() - set a numeric control file
 * @t: the handle
 * @file: "max_graph_depth", "tracing_thresh" (microseconds) and the like;
 *	  these two exist at the top level only
 * @value: the number
 *
 * Return: 0, -ENOENT when the handle lacks @file, or the write's errno.
 */
FTK_API int ftk_ftrace_value_set(struct ftk_tracefs *t, const char *file, unsigned long value)
{
	char buf[32];

	if (!ftk_tracefs_exists(t, file))
		return ftk_err(missing(t, file, t->instance ? "top level only" : "not in this kernel"));
	snprintf(buf, sizeof(buf), "%lu", value);
	return ftk_tracefs_set(t, file, buf);
}
