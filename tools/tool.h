/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every ftkit tool shares: its name in messages, exit codes, the -v/-q
 * level, signals that ask it to stop, and the tracefs handles whose
 * journals are replayed on every way out.
 */
#ifndef FTK_TOOL_H
#define FTK_TOOL_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <ftkit/ftkit.h>

enum {
	EXIT_OK		= 0,
	EXIT_USAGE	= 1,
	EXIT_FAIL	= 2,
};

extern const char *tool_name;
/* Set by SIGINT, SIGTERM and SIGHUP once tool_signals() ran: the signal number. */
extern volatile sig_atomic_t tool_stop;

void tool_init(const char *name);
/* -v raises, -q lowers the level of libftkit, libtracefs and libtraceevent. */
void tool_verbose(int delta);
/* Catch SIGINT, SIGTERM and SIGHUP into tool_stop; blocking calls return EINTR. */
void tool_signals(void);

/* "NAME: message" on stderr. */
void tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* tool_err(), restore every registered handle, exit EXIT_FAIL. */
void tool_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/*
 * A tracefs failure: "NAME: [WHAT: ]FILE: OP: REASON", then the kernel's
 * error_log command and caret lines if it wrote any; restore, exit EXIT_FAIL.
 */
void tool_die_tracefs(struct ftk_tracefs *t, const char *what) __attribute__((noreturn));
/*
 * Option values: each returns the value or exits 1 with
 * "NAME: bad WHAT 'ARG': want ..." on stderr.
 */
/* -D/--duration: seconds > 0. */
double tool_seconds(const char *arg);
/* A whole number in [@min, @max] (decimal, or 0x hex). */
long long tool_num(const char *arg, const char *what, long long min, long long max);
/* A PID (1 and up). */
int tool_pid(const char *arg);
/* A list of PIDs separated by spaces or commas ("12,34"): @arg itself. */
const char *tool_pid_list(const char *arg);
/* A CPU list ("0-3,6"): a malloc'd array of CPU numbers in @cpus, their count in @nr. */
void tool_cpus(const char *arg, int **cpus, size_t *nr);

/*
 * The options every tool shares. -q/--quiet, -v/--verbose, -h/--help and
 * -V/--version are always taken; a tool asks for the others with
 * TOOL_OPT_* in struct tool_def.common, and their letters are the same in
 * every tool that takes them.
 */
enum tool_opt_common {
	TOOL_OPT_INSTANCE	= 1 << 0,	/* -B, --instance NAME */
	TOOL_OPT_DURATION	= 1 << 1,	/* -D, --duration SECONDS */
	TOOL_OPT_COMMAND	= 1 << 2,	/* [--] COMMAND [ARG...] after the options */
};

/* Lines for a tool's usage text, in the same words everywhere. */
#define TOOL_HELP_INSTANCE \
"  -B, --instance NAME   work in tracefs instance NAME (created if missing)\n"
#define TOOL_HELP_DURATION \
"  -D, --duration S      stop after S seconds (Ctrl-C stops sooner)\n"
#define TOOL_HELP_COMMON \
"  -q, --quiet           fewer messages\n" \
"  -v, --verbose         more messages (again for more)\n" \
"  -V, --version         the version of ftkit\n" \
"  -h, --help            this text\n"

#define TOOL_OPERANDS_ALL	(-1)

/* What a tool is and which options it takes, for tool_parse(). */
struct tool_def {
	const char		*name;
	const char		*usage;		/* printed by -h; to stderr on a bad option */
	const char		*opts;		/* the tool's own short options, getopt syntax */
	const struct option	*longopts;	/* its own long options ({ } ends them), or NULL */
	unsigned int		common;		/* TOOL_OPT_* */
	/*
	 * With TOOL_OPT_COMMAND: the operands that come before COMMAND
	 * (FUNCTION MIN), options taken among them: 0 (COMMAND starts at the
	 * first operand), that many, or TOOL_OPERANDS_ALL (up to "--").
	 */
	int			operands;
	/* Called with each of the tool's own options and its argument (NULL for none). */
	void			(*option)(int opt, char *arg, void *ctx);
};

/* The common options' values and the operands. */
struct tool_args {
	const char	*instance;	/* -B NAME (a name checked safe for a path), or NULL */
	double		duration;	/* -D, 0 without */
	char		**argv;		/* COMMAND, NULL-terminated; NULL without one */
	/*
	 * The operands: with tool_def.operands, those before COMMAND
	 * (NULL-terminated); else all of them, COMMAND included.
	 */
	char		**rest;
	int		nrest;
};

/*
 * tool_init(@d->name), then parse @argv into @a, calling @d->option(opt,
 * arg, @ctx) for the tool's own options. -h prints the usage and exits 0,
 * -V the version; a bad option prints the usage to stderr and exits 1.
 * With TOOL_OPT_COMMAND, parsing stops at the first operand, which starts
 * COMMAND (so "ftsyscount -- make -j2" and "ftsyscount make -j2" agree),
 * or, with @d->operands, at "--" or the first operand after those the tool
 * takes first: options may come anywhere before COMMAND
 * ("ftfunclat ./prog:work -D 1 -u", "ftfuncslower F 100 -D 1").
 */
void tool_parse(const struct tool_def *d, int argc, char **argv, struct tool_args *a, void *ctx);
/* @name if it is safe as an instance name (no '/', not "." or ".."), else a usage error. */
const char *tool_instance_name(const char *name);
/* Print @d's usage to @f. */
void tool_usage(const struct tool_def *d, FILE *f);
/* "NAME: message" and "Try 'NAME --help'" on stderr, exit EXIT_USAGE. */
void tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Open the handle the tool works in and register it for restore: the
 * instance given with -B (created if missing and removed again if we
 * created it), or the top level when @instance is NULL. Dies with the
 * reason on failure.
 */
struct ftk_tracefs *tool_tracefs(const char *instance, unsigned int flags);
/*
 * Tracepoint ids and field offsets for the perf side (ftk_perf_new(),
 * struct ftk_sample_opts), which reads no tracefs: the control side's
 * look-ups (ftk_event_tracepoints()), reading tracefs only when a
 * tracepoint is named.
 */
const struct ftk_tracepoints *tool_tracepoints(void);
/*
 * A tracing session (ftk_session_new()), taken down by tool_exit() on the
 * exit chain: the reader closed, tracefs put back, the instance removed.
 * Dies with the reason when it cannot be made.
 */
struct ftk_session_opts;
struct ftk_session *tool_session(const struct ftk_session_opts *o);
/*
 * ftk_session_start(@session), saying why it failed: 0 or -1. The
 * function for tool_cmd_on_exec(): tracing from the command's exec on.
 */
int tool_session_start(void *session);
/* Register a handle opened otherwise, so tool_exit() restores it. */
void tool_register(struct ftk_tracefs *t);
/* Unregister and close @t without restoring it: its changes are meant to stay. */
void tool_keep(struct ftk_tracefs *t);
/*
 * Call @fn(@ctx) at tool_exit() (and so from tool_die() and after a
 * signal ended the run), after the handlers pushed later: a LIFO chain, as
 * git's sigchain. @fn says what failed itself and returns 0 or -1.
 */
void tool_on_exit(int (*fn)(void *ctx), void *ctx);
/* Take @fn(@ctx) off the chain, calling it if @run: its return, 0 if it was not there. */
int tool_on_exit_pop(int (*fn)(void *ctx), void *ctx, int run);
/* Run the whole chain, newest first: every registered handle restored; 0 or -1. */
int tool_cleanup(void);
/*
 * The tool's output file, the one rule for every tool's -o: a regular file
 * is replaced whole (ftk_file_create(): written beside it, no link
 * followed, renamed into place by tool_output_close()); "-" is standard
 * output; a device, FIFO or /dev/stdout is written as it is. NULL @path:
 * @dflt. Call it before any work starts: it dies with the reason (a
 * directory, no such directory, not writable) when the file cannot be made.
 * @flags: FTK_FILE_APPEND, FTK_FILE_STREAM (no FTK_FILE_EXCL: -o overwrites).
 */
FILE *tool_output(const char *path, unsigned int flags, FILE *dflt);
/*
 * Flush and close what tool_output() gave, and publish the file: 0, or -1
 * after saying "cannot write 'PATH': No space left on device". @keep: publish
 * even after an error (what was written is still worth having).
 */
int tool_output_close(FILE *f, int keep);
/* Remember a failed write to the output (errno @err), for tool_output_close() to report. */
void tool_output_error(int err);
/* fflush(3) the output, remembering a failure's errno: 0 or -1. */
int tool_output_flush(FILE *f);
/* tool_cleanup(), then exit with @code (EXIT_FAIL if the cleanup failed and @code was 0). */
void tool_exit(int code) __attribute__((noreturn));

#endif
