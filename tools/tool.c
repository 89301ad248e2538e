// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

const char *tool_name = "ftkit";
volatile sig_atomic_t tool_stop;

static struct ftk_tracefs *handles[16];
static int nr_handles;
static int verbosity = FTK_LOG_WARN;

static int tool_print(enum ftk_log_level level, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", tool_name);
	return vfprintf(stderr, fmt, ap);
}

void tool_init(const char *name)
{
	tool_name = name;
	ftk_set_print(tool_print);
	ftk_set_log_level(verbosity);
}

void tool_verbose(int delta)
{
	verbosity += delta;
	if (verbosity < FTK_LOG_ERROR)
		verbosity = FTK_LOG_ERROR;
	if (verbosity > FTK_LOG_DEBUG)
		verbosity = FTK_LOG_DEBUG;
	ftk_set_log_level(verbosity);
}

static void on_signal(int sig)
{
	tool_stop = sig;
}

void tool_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked poll() or read() returns EINTR and the loop sees tool_stop. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", tool_name, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void tool_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void tool_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void tool_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	tool_exit(EXIT_FAIL);
}

void tool_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", tool_name);
	tool_exit(EXIT_USAGE);
}

void tool_die_tracefs(struct ftk_tracefs *t, const char *what)
{
	const char *detail = ftk_tracefs_errdetail(t);

	if (what)
		tool_err("%s: %s", what, ftk_tracefs_errmsg(t));
	else
		tool_err("%s", ftk_tracefs_errmsg(t));
	if (*detail)
		fprintf(stderr, "%s\n", detail);
	tool_exit(EXIT_FAIL);
}

double tool_seconds(const char *arg)
{
	char *end;
	double s = strtod(arg, &end);

	if (end == arg || *end || !(s > 0))
		tool_usage_error("bad duration '%s': want seconds > 0", arg);
	return s;
}

void tool_register(struct ftk_tracefs *t)
{
	if (nr_handles == (int)(sizeof(handles) / sizeof(handles[0])))
		tool_die("too many tracefs handles");
	handles[nr_handles++] = t;
}

struct ftk_tracefs *tool_tracefs(const char *instance, unsigned int flags)
{
	struct ftk_tracefs *t;
	char buf[128];
	int ret;

	ret = ftk_tracefs_open(NULL, instance, flags, &t);
	if (ret == -ENODEV)
		tool_die("cannot find tracefs: is it mounted, and are you root?");
	if (ret == -ENOENT && instance)
		tool_die("instance '%s' does not exist", instance);
	if (ret)
		tool_die("cannot open tracefs%s%s: %s", instance ? " instance " : "",
			 instance ? instance : "", ftk_strerror(ret, buf, sizeof(buf)));
	tool_register(t);
	return t;
}

void tool_keep(struct ftk_tracefs *t)
{
	int i;

	for (i = 0; i < nr_handles; i++) {
		if (handles[i] != t)
			continue;
		memmove(&handles[i], &handles[i + 1], (nr_handles - i - 1) * sizeof(handles[0]));
		nr_handles--;
		break;
	}
	ftk_tracefs_close(t);
}

int tool_cleanup(void)
{
	int ret = 0;

	while (nr_handles > 0) {
		struct ftk_tracefs *t = handles[--nr_handles];

		if (ftk_tracefs_restore(t)) {
			tool_err("cannot put back %s", ftk_tracefs_errmsg(t));
			ret = -1;
		}
		ftk_tracefs_close(t);
	}
	return ret;
}

void tool_exit(int code)
{
	if (tool_cleanup() && code == EXIT_OK)
		code = EXIT_FAIL;
	fflush(stdout);
	exit(code);
}
