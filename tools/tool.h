/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every ftkit tool shares: its name in messages, exit codes, the -v/-q
 * level, signals that ask it to stop, and the tracefs handles whose
 * journals are replayed on every way out.
 */
#ifndef FTK_TOOL_H
#define FTK_TOOL_H

#include <signal.h>

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
/* -D/--duration: seconds > 0, or a usage error. */
double tool_seconds(const char *arg);
/* "NAME: message" and "Try 'NAME --help'" on stderr, exit EXIT_USAGE. */
void tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Open the handle the tool works in and register it for restore: the
 * instance given with -B (created if missing and removed again if we
 * created it), or the top level when @instance is NULL. Dies with the
 * reason on failure.
 */
struct ftk_tracefs *tool_tracefs(const char *instance, unsigned int flags);
/* Register a handle opened otherwise, so tool_exit() restores it. */
void tool_register(struct ftk_tracefs *t);
/* Unregister and close @t without restoring it: its changes are meant to stay. */
void tool_keep(struct ftk_tracefs *t);
/* Restore and close every registered handle, newest first; 0 or the first error. */
int tool_cleanup(void);
/* tool_cleanup(), then exit with @code (EXIT_FAIL if the cleanup failed and @code was 0). */
void tool_exit(int code) __attribute__((noreturn));

#endif
