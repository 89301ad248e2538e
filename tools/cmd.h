/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one way an ftkit tool runs a COMMAND it traces, counts or profiles.
 *
 *	struct tool_cmd c;
 *
 *	tool_cmd_fork(&c, argv, instance);	// child made, waiting before exec
 *	... set up tracing, filter on c.pid, open counters with enable_on_exec ...
 *	if (tool_cmd_start(&c))			// exec; "ls2: command not found"
 *		tool_exit(tool_cmd_code(&c));	// 127 or 126, like a shell
 *	tool_cmd_wait(&c, duration);		// until it ends, -D runs out or a signal
 *	...
 *	tool_exit(tool_cmd_code(&c));
 *
 * The child has every signal disposition at its default and an empty signal
 * mask (whatever the tool ignores or blocks, SIGPIPE included), and
 * FTK_INSTANCE set to the instance the tool works in, so that the command's
 * ftk_mark() and ftmark calls land in it. A tool that polls file
 * descriptors of its own adds c.pidfd (POLLIN once the command ended) to
 * its set, and calls tool_cmd_done() when it fires.
 */
#ifndef FTK_TOOL_CMD_H
#define FTK_TOOL_CMD_H

#include <sys/types.h>

enum tool_cmd_flags {
	/* The command's standard output goes to standard error (the tool's is data). */
	TOOL_CMD_STDOUT_TO_STDERR	= 1 << 0,
	/*
	 * Follow the command with ptrace (PTRACE_O_TRACEEXIT) and keep its
	 * /proc/PID/maps and exe as it exits, in .maps and .exe. Where the
	 * kernel refuses (Yama, a tracer already there), a warning says so and
	 * the command runs untraced.
	 */
	TOOL_CMD_MAPS_AT_EXIT		= 1 << 1,
	/*
	 * The command stops itself just before its execve() (kill(SIGSTOP),
	 * after which it makes no system call until the exec), and
	 * tool_cmd_start() calls the function given to tool_cmd_on_exec()
	 * there: tracing armed then counts from the exec on, nothing of the
	 * runner's own work (its pipe, its environment) charged to the command.
	 * Not with TOOL_CMD_MAPS_AT_EXIT.
	 */
	TOOL_CMD_EXEC_GATE		= 1 << 2,
};

struct tool_cmd {
	char		**argv;
	unsigned int	flags;		/* enum tool_cmd_flags */
	int		traced;		/* ptrace-seized for TOOL_CMD_MAPS_AT_EXIT */
	char		*maps;		/* its /proc/PID/maps at exit (malloc'd), or NULL */
	char		*exe;		/* its /proc/PID/exe then (malloc'd), or NULL */
	char		*path;		/* argv[0] found in PATH (malloc'd), NULL if not found */
	int		(*on_exec)(void *ctx);	/* TOOL_CMD_EXEC_GATE's */
	void		*on_exec_ctx;
	pid_t		pid;		/* > 0 from fork until reaped */
	int		pidfd;		/* readable once the command ended; -1 when reaped */
	int		status;		/* wait(2) status once reaped */
	int		reaped;
	int		exec_err;	/* errno of a failed exec, 0 if it ran */
	int		gate_failed;	/* the on_exec function failed: killed before its exec */
	int		go_fd;		/* the child execs on a byte here */
	int		err_fd;		/* the child's exec errno comes back here */
	int		forwarded;	/* a stop signal was passed on */
};

/*
 * Fork @argv; the child waits until tool_cmd_start(). The command is looked
 * up in PATH here, as execvp() would, so that the child makes one execve()
 * and not one per PATH entry (they would be charged to the command). With @instance not
 * NULL, the child sees FTK_INSTANCE=@instance. Dies (restoring tracefs) when
 * it cannot fork.
 */
void tool_cmd_fork(struct tool_cmd *c, char **argv, const char *instance);
/* The same with TOOL_CMD_* @flags. */
void tool_cmd_fork_flags(struct tool_cmd *c, char **argv, const char *instance,
			 unsigned int flags);
/*
 * With TOOL_CMD_EXEC_GATE: call @fn(@ctx) when the command is stopped just
 * before its exec; a non-zero return kills it (tool_cmd_start() then fails).
 */
void tool_cmd_on_exec(struct tool_cmd *c, int (*fn)(void *ctx), void *ctx);
/*
 * Let the child exec. 0 once it runs; -1 after printing why it could not
 * ("NAME: CMD: command not found", "NAME: cannot run 'CMD': REASON"), the
 * child reaped, tool_cmd_code() then 127 or 126.
 */
int tool_cmd_start(struct tool_cmd *c);
/* Without a start: the child exits, unexec'd, and is reaped (error paths). */
void tool_cmd_abandon(struct tool_cmd *c);
/* 1 once the command has ended (and is reaped), 0 while it runs. Never blocks. */
int tool_cmd_done(struct tool_cmd *c);
/*
 * Wait until the command ends, @seconds pass (0: no limit) or a signal sets
 * tool_stop; SIGINT, SIGTERM and SIGHUP that reach the tool are passed on to
 * the command once, and the wait goes on until it ends. Returns 1 if the
 * command ended, 0 if the time ran out first.
 */
int tool_cmd_wait(struct tool_cmd *c, double seconds);
/*
 * Read the command's /proc/PID/maps and exe into .maps and .exe now, while
 * it runs (TOOL_CMD_MAPS_AT_EXIT does it at its exit): 0, or -1 when it has
 * gone or they cannot be read.
 */
int tool_cmd_maps(struct tool_cmd *c);
/* End the command if it still runs (SIGTERM, SIGKILL a second later) and reap it. */
void tool_cmd_kill(struct tool_cmd *c);
/*
 * As a shell reports it: the exit status, 128+N if signal N killed it, 127
 * when it was not found, 126 when it could not be executed, EXIT_FAIL when
 * the tool_cmd_on_exec() function failed; 0 while it runs.
 */
int tool_cmd_code(const struct tool_cmd *c);
/* Say on stderr how it ended when that was not 0 ("'make' exited with status 2"). */
void tool_cmd_report(const struct tool_cmd *c);

/* Wait without a command: @seconds (0: until a signal) or until tool_stop. */
void tool_sleep(double seconds);
/* Seconds on CLOCK_MONOTONIC. */
double tool_now(void);

#endif
