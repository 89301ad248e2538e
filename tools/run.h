/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the control tools (ftevent, fttrigger, ftfunc) share: where their
 * changes go, and the run mode that traces, prints and puts things back.
 *
 * Two ways to use a control tool, as trace-cmd's start and stream:
 *  - persistent: with -B NAME or -T and no --duration or COMMAND, the change
 *    is made in that instance (created if missing) or at the top level and
 *    stays after the tool exits; ftreset (or the tool's undo options) take it
 *    away. If anything fails half-way, all of it is undone.
 *  - run: otherwise the change is made in a private instance
 *    "ftkit-TOOL-PID" (or the one given), the trace is printed while
 *    COMMAND runs, for --duration seconds or until Ctrl-C, and everything
 *    is put back, the private instance removed. The tool's own threads are
 *    left out of the trace (--trace-self keeps them), and it wakes when the
 *    buffer fills to its watermark or once a second, not for every event.
 */
#ifndef FTK_RUN_H
#define FTK_RUN_H

#include "cmd.h"
#include "tool.h"

/* The options every control tool takes besides tool.h's; the help of all it shares. */
enum { RUN_OPT_TRACE_SELF = 0x1000 };
#define RUN_LONGOPTS \
	{ "top",	no_argument,	NULL, 'T' }, \
	{ "trace-self",	no_argument,	NULL, RUN_OPT_TRACE_SELF }
#define RUN_HELP \
TOOL_HELP_DURATION \
TOOL_HELP_INSTANCE \
"  -T, --top             work at the top level\n" \
"      --trace-self      keep the tool's own threads in the trace\n" \
TOOL_HELP_COMMON

struct run {
	const char		*instance;	/* -B */
	int			top;		/* -T */
	double			duration;	/* -D seconds, 0 for none */
	char			**argv;		/* COMMAND, or NULL */
	int			follow;		/* -F: only COMMAND's PIDs (events) */
	int			trace_self;	/* --trace-self */
	int			persist;	/* decided by run_open() */
	struct ftk_session	*s;		/* run mode's session, NULL when persistent */
	struct ftk_tracefs	*t;		/* where the changes go (the session's in run mode) */
	struct ftk_tracefs	*top_t;		/* the top level, opened on demand */
	struct tool_cmd		cmd;		/* COMMAND, once run_fork() made it */
	char			self[16];	/* our PID, to leave out; "" to trace it */
	int			code;		/* COMMAND's exit code, as a shell has it */
};

/*
 * tool_parse() for a control tool: -B, -D and COMMAND taken (whatever
 * @d->common says) into @a and @r, -T and --trace-self into @r, the
 * tool's own options to @d->option(opt, arg, @ctx).
 */
void run_parse(struct run *r, const struct tool_def *d, int argc, char **argv,
	       struct tool_args *a, void *ctx);
/* Decide the mode, open (or create) where to work. */
void run_open(struct run *r);
/* The top-level handle (registered for restore; kept with the rest if persistent). */
struct ftk_tracefs *run_top(struct run *r);
/*
 * Fork COMMAND stopped before exec, so its PID (r->cmd.pid) can be filtered
 * on; tracing starts at its exec. In run mode the session leaves the tool's
 * own threads out of the events (r->self holds its PID for other lists).
 */
void run_fork(struct run *r);
/*
 * Let COMMAND go, print the instance's trace_pipe until it ends, the time is
 * up or a signal; returns 0 (r->code: COMMAND's exit code), or -1 with the
 * reason printed. A COMMAND that cannot run ends the tool with 127 or 126.
 */
int run_trace(struct run *r);
/* Keep the changes (persistent mode) or restore them; exits with r->code. */
void run_finish(struct run *r, const char *what) __attribute__((noreturn));
/* In a loop of changes: die (restoring everything) if a signal came. */
void run_check_stop(void);

#endif
