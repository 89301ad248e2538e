// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/perf.h>
#include <ftkit/session.h>
#include <ftkit/version.h>

#include "tool.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *tool_name = "ftkit";
volatile sig_atomic_t tool_stop;

/*
 * What tool_exit() undoes, newest first (git's sigchain, for clean-up):
 * tracefs handles to restore, sessions to take down, the tool's own.
 */
static struct exit_handler {
	int		(*fn)(void *ctx);
	void		*ctx;
} handlers[32];
static int nr_handlers;
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
	const char *detail = ftk_tracefs_errdetail(t), *msg = ftk_tracefs_errmsg(t);
	int err = errno;

	/* A library path that gave no text still has its errno: never an empty reason. */
	if (!*msg)
		msg = strerror(err ? err : EIO);
	if (what)
		tool_err("%s: %s", what, msg);
	else
		tool_err("%s", msg);
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

long long tool_num(const char *arg, const char *what, long long min, long long max)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(arg, &end, 0);
	if (end == arg || *end || errno || v < min || v > max)
		tool_usage_error("bad %s '%s': want a whole number from %lld to %lld", what, arg,
				 min, max);
	return v;
}

int tool_pid(const char *arg)
{
	return (int)tool_num(arg, "PID", 1, INT_MAX);
}

const char *tool_pid_list(const char *arg)
{
	size_t n = strspn(arg, "0123456789, ");

	if (arg[n] || !strpbrk(arg, "0123456789"))
		tool_usage_error("bad PID list '%s': want PIDs separated by ',' or ' '", arg);
	return arg;
}

void tool_cpus(const char *arg, int **cpus, size_t *nr)
{
	if (ftk_perf_cpu_list(arg, cpus, nr) || !*nr)
		tool_usage_error("bad CPU list '%s': want numbers and ranges, as in 0-3,6", arg);
}

void tool_usage(const struct tool_def *d, FILE *f)
{
	fputs(d->usage, f);
}

/* What getopt refused, said plainly (the word as typed, not argv[0]'s path), then the usage. */
static void __attribute__((noreturn)) bad_option(const struct tool_def *d, int opt,
						  const char *word)
{
	if (optopt && optopt < 256 && word[0] == '-' && word[1] != '-')
		fprintf(stderr, "%s: %s '-%c'\n", tool_name, opt == ':' ? "a value is missing after" :
			"unknown option", optopt);
	else
		fprintf(stderr, "%s: %s '%s'\n", tool_name, opt == ':' ? "a value is missing after" :
			"unknown option", word);
	tool_usage(d, stderr);
	exit(EXIT_USAGE);
}

static size_t count_longopts(const struct option *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

/*
 * FTK_TOOL_OPTIONS set: print what getopt takes, "-p:" "--pid:" ("::" for
 * an optional value) a line, and exit 0: the truth t0930 holds the usage
 * text and the man page to, read from the tables getopt itself is given.
 */
static void __attribute__((noreturn)) list_options(const char *so, const struct option *lo)
{
	const char *p;

	for (p = so; *p; p++) {
		if (*p == ':' || *p == '+')
			continue;
		printf("-%c%s\n", *p, p[1] != ':' ? "" : p[2] == ':' ? "::" : ":");
	}
	for (; lo->name; lo++)
		printf("--%s%s\n", lo->name, lo->has_arg == required_argument ? ":" :
		       lo->has_arg == optional_argument ? "::" : "");
	exit(EXIT_OK);
}

void tool_parse(const struct tool_def *d, int argc, char **argv, struct tool_args *a, void *ctx)
{
	static const struct option common[] = {
		{ "instance",	required_argument,	NULL, 'B' },
		{ "duration",	required_argument,	NULL, 'D' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
	};
	size_t nown = count_longopts(d->longopts), n = 0, i;
	int opt, before, dashdash = 0, nops = 0;
	struct option *lo;
	char **ops = NULL;
	char *so;

	tool_init(d->name);
	memset(a, 0, sizeof(*a));
	lo = calloc(nown + ARRAY_SIZE(common) + 1, sizeof(*lo));
	so = malloc(strlen(d->opts ? d->opts : "") + 16);
	if (!lo || !so)
		tool_die("out of memory");
	for (i = 0; i < nown; i++)
		lo[n++] = d->longopts[i];
	for (i = 0; i < ARRAY_SIZE(common); i++) {
		if ((common[i].val == 'B' && !(d->common & TOOL_OPT_INSTANCE)) ||
		    (common[i].val == 'D' && !(d->common & TOOL_OPT_DURATION)))
			continue;
		lo[n++] = common[i];
	}
	/* ':' first: a missing value comes back as ':', and getopt prints nothing itself. */
	sprintf(so, "%s:%s%s%sqvVh", d->common & TOOL_OPT_COMMAND ? "+" : "",
		d->opts ? d->opts : "", d->common & TOOL_OPT_INSTANCE ? "B:" : "",
		d->common & TOOL_OPT_DURATION ? "D:" : "");
	if (getenv("FTK_TOOL_OPTIONS"))
		list_options(so, lo);
	if (d->operands) {
		ops = calloc(argc + 1, sizeof(*ops));
		if (!ops)
			tool_die("out of memory");
	}
	opterr = 0;
	for (;;) {
		before = optind;
		opt = getopt_long(argc, argv, so, lo, NULL);
		if (opt == -1) {
			/* "+": getopt stops at each operand; those before COMMAND are taken here */
			if (optind == before + 1 && !strcmp(argv[before], "--"))
				dashdash = 1;
			if (!d->operands || dashdash || optind >= argc ||
			    (d->operands > 0 && nops == d->operands))
				break;
			ops[nops++] = argv[optind++];
			continue;
		}
		switch (opt) {
		case 'B':
			if (d->common & TOOL_OPT_INSTANCE) {
				a->instance = tool_instance_name(optarg);
				continue;
			}
			break;
		case 'D':
			if (d->common & TOOL_OPT_DURATION) {
				a->duration = tool_seconds(optarg);
				continue;
			}
			break;
		case 'q': tool_verbose(-1); continue;
		case 'v': tool_verbose(1); continue;
		case 'V':
			printf("%s (ftkit) %s\n", d->name, FTK_VERSION_STRING);
			exit(EXIT_OK);
		case 'h':
			tool_usage(d, stdout);
			exit(EXIT_OK);
		case '?':
		case ':':
			bad_option(d, opt, argv[optind - 1]);
		}
		d->option(opt, optarg, ctx);
	}
	free(lo);
	free(so);
	if (d->operands) {
		a->rest = ops;
		a->nrest = nops;
		if (optind < argc)
			a->argv = argv + optind;
		else if (dashdash)
			tool_usage_error("'--' and no COMMAND");
		return;
	}
	a->rest = argv + optind;
	a->nrest = argc - optind;
	if ((d->common & TOOL_OPT_COMMAND) && optind < argc)
		a->argv = argv + optind;
}

const char *tool_instance_name(const char *name)
{
	/* A name becomes a path under instances/: nothing that can leave that directory. */
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/') ||
	    strchr(name, '\n') || strlen(name) > 200)
		tool_usage_error("bad instance name '%s': a name, not a path", name);
	return name;
}

void tool_on_exit(int (*fn)(void *ctx), void *ctx)
{
	if (nr_handlers == (int)(sizeof(handlers) / sizeof(handlers[0])))
		tool_die("too many exit handlers");
	handlers[nr_handlers].fn = fn;
	handlers[nr_handlers++].ctx = ctx;
}

int tool_on_exit_pop(int (*fn)(void *ctx), void *ctx, int run)
{
	int i, ret = 0;

	for (i = nr_handlers - 1; i >= 0; i--) {
		if (handlers[i].fn != fn || handlers[i].ctx != ctx)
			continue;
		memmove(&handlers[i], &handlers[i + 1], (nr_handlers - i - 1) * sizeof(handlers[0]));
		nr_handlers--;
		if (run)
			ret = fn(ctx);
		break;
	}
	return ret;
}

static int restore_handle(void *ctx)
{
	struct ftk_tracefs *t = ctx;
	int ret = 0;

	if (ftk_tracefs_restore(t)) {
		tool_err("cannot put back %s", ftk_tracefs_errmsg(t));
		ret = -1;
	}
	ftk_tracefs_close(t);
	return ret;
}

void tool_register(struct ftk_tracefs *t)
{
	tool_on_exit(restore_handle, t);
}

static int session_free(void *ctx)
{
	ftk_session_free(ctx);
	return 0;
}

int tool_session_start(void *session)
{
	if (ftk_session_start(session)) {
		tool_err("%s", ftk_session_errmsg(session));
		return -1;
	}
	return 0;
}

struct ftk_session *tool_session(const struct ftk_session_opts *o)
{
	struct ftk_session *s;
	int ret = ftk_session_new(o, &s);

	if (s)
		tool_on_exit(session_free, s);
	if (ret == -ENODEV)
		tool_die("cannot find tracefs: is it mounted, and are you root?");
	if (ret)
		tool_die("%s", ftk_session_errmsg(s));
	return s;
}

/*
 * Before the first instance this process creates: remove the instances and
 * probes of ftkit runs that are gone (killed with SIGKILL, say), and say so.
 */
static void reap(void)
{
	static int done;
	struct ftk_tracefs *top;
	char **removed = NULL, **p;

	if (done++ || ftk_tracefs_open(NULL, NULL, 0, &top))
		return;
	if (ftk_instance_reap(top, &removed))
		tool_warn("cannot remove what a dead run left: %s", ftk_tracefs_errmsg(top));
	for (p = removed; p && *p; p++)
		tool_warn("removed '%s', left behind by a run that is gone", *p);
	ftk_list_free(removed);
	ftk_tracefs_close(top);
}

const struct ftk_tracepoints *tool_tracepoints(void)
{
	static struct ftk_tracepoints tp;

	if (!tp.ids)
		ftk_event_tracepoints(NULL, &tp);
	return &tp;
}

struct ftk_tracefs *tool_tracefs(const char *instance, unsigned int flags)
{
	struct ftk_tracefs *t;
	char buf[128];
	int ret;

	if (instance && (flags & FTK_TRACEFS_CREATE))
		reap();
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
	tool_on_exit_pop(restore_handle, t, 0);
	ftk_tracefs_close(t);
}

int tool_cleanup(void)
{
	int ret = 0;

	while (nr_handlers > 0) {
		struct exit_handler h = handlers[--nr_handlers];

		if (h.fn(h.ctx))
			ret = -1;
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

static struct ftk_file *out_file;
static const char *out_name;
static int out_err;

void tool_output_error(int err)
{
	if (!out_err)
		out_err = err > 0 ? err : EIO;
}

int tool_output_flush(FILE *f)
{
	if (!fflush(f))
		return 0;
	tool_output_error(errno);
	return -1;
}

FILE *tool_output(const char *path, unsigned int flags, FILE *dflt)
{
	FILE *f;
	int fd;

	out_name = path && strcmp(path, "-") ? path : "stdout";
	if (!path)
		return dflt;
	if (!strcmp(path, "-"))
		return stdout;
	if (ftk_file_create(path, flags, &out_file))
		tool_die("%s", out_file ? ftk_file_errmsg(out_file) : strerror(errno));
	fd = dup(ftk_file_fd(out_file));
	f = fd < 0 ? NULL : fdopen(fd, flags & FTK_FILE_APPEND ? "a" : "w");
	if (!f)
		tool_die("cannot write '%s': %s", path, strerror(errno));
	return f;
}

int tool_output_close(FILE *f, int keep)
{
	int err;

	/* The first failure's errno, not ferror()'s loss of it: ENOSPC, not EIO. */
	tool_output_flush(f);
	if (ferror(f))
		tool_output_error(EIO);
	err = out_err;
	if (f != stdout && f != stderr && fclose(f) && !err)
		err = errno;
	if (out_file) {
		if ((!err || keep) && ftk_file_publish(out_file) && !err) {
			tool_err("%s", ftk_file_errmsg(out_file));
			err = -1;
		}
		ftk_file_close(out_file);
		out_file = NULL;
	}
	if (err > 0)
		tool_err("cannot write '%s': %s", out_name ? out_name : "stdout", strerror(err));
	return err ? -1 : 0;
}
