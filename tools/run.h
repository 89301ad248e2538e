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
 *    is put back, the private instance removed.
 */
#ifndef FTK_RUN_H
#define FTK_RUN_H

#include "tool.h"

struct run {
	const char		*instance;	/* -B */
	int			top;		/* -T */
	double			duration;	/* -D seconds, 0 for none */
	char			**argv;		/* COMMAND, or NULL */
	int			follow;		/* -F: only COMMAND's PIDs (events) */
	int			persist;	/* decided by run_open() */
	struct ftk_tracefs	*t;		/* where the changes go */
	struct ftk_tracefs	*top_t;		/* the top level, opened on demand */
	pid_t			child;
	int			go[2];		/* the child waits for a byte on go[0] */
};

/* Decide the mode, open (or create) where to work. */
void run_open(struct run *r);
/* The top-level handle (registered for restore; kept with the rest if persistent). */
struct ftk_tracefs *run_top(struct run *r);
/* Fork COMMAND stopped before exec, so its PID can be filtered on; no-op without one. */
void run_fork(struct run *r);
/* Let COMMAND go, print the instance's trace_pipe until it ends, the time is up or
 * a signal; returns 0, or -1 with the reason printed. */
int run_trace(struct run *r);
/* Keep the changes (persistent mode) or restore them; exits. */
void run_finish(struct run *r, const char *what) __attribute__((noreturn));
/* In a loop of changes: die (restoring everything) if a signal came. */
void run_check_stop(void);

#endif
