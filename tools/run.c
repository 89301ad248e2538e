// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control tools' two modes (see run.h): persistent changes, or a run
 * that traces in a private instance and puts everything back.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/instance.h>

#include "run.h"

void run_check_stop(void)
{
	if (tool_stop) {
		tool_err("interrupted: putting back what was changed");
		tool_exit(128 + tool_stop);
	}
}

struct ftk_tracefs *run_top(struct run *r)
{
	if (!r->top_t && r->s && !(r->top_t = ftk_session_top(r->s)))
		tool_die("%s", ftk_session_errmsg(r->s));
	if (!r->top_t)
		r->top_t = r->top && r->t ? r->t : tool_tracefs(NULL, 0);
	return r->top_t;
}

/*
 * Run mode: a session (ftk_session_new()) in a private instance, -B's or
 * the top level, taken down at the exit; the tool's own threads left out
 * unless --trace-self, and the reader woken when the buffer is half full,
 * not at every event (its reads and wake-ups would be traced otherwise).
 */
static void run_session(struct run *r)
{
	FTK_OPTS(ftk_session_opts, o, .tool = tool_name, .instance = r->instance,
		 .wake_percent = 50,
		 .flags = (r->top ? FTK_SESSION_TOP : 0) | (r->trace_self ? FTK_SESSION_SELF : 0));

	r->s = tool_session(&o);
	r->t = ftk_session_tracefs(r->s);
	if (!r->trace_self)
		snprintf(r->self, sizeof(r->self), "%d", (int)getpid());
}

void run_open(struct run *r)
{
	if (r->top && r->instance)
		tool_usage_error("-B and -T exclude each other");
	r->persist = (r->instance || r->top) && !r->duration && !r->argv;
	if (r->follow && !r->argv)
		tool_usage_error("-F needs a COMMAND");
	tool_signals();
	/*
	 * A reader that goes away ("| head") must not kill us before we put
	 * things back. COMMAND does not inherit this: tool_cmd_fork() resets
	 * every disposition in the child.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (r->top && r->persist) {
		r->t = run_top(r);
		return;
	}
	/* A name we create is one a shell script can use unquoted. */
	if (r->instance &&
	    (strspn(r->instance, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
	     strlen(r->instance) || r->instance[0] == '.' || r->instance[0] == '-')) {
		struct ftk_tracefs *t;

		if (ftk_tracefs_open(NULL, r->instance, 0, &t))
			tool_usage_error("bad instance name '%s': use letters, digits, '.', '_' "
					 "and '-'", r->instance);
		ftk_tracefs_close(t);
	}
	if (r->persist)
		r->t = tool_tracefs(r->instance, FTK_TRACEFS_CREATE);
	else
		run_session(r);
}

/* -T and --trace-self: 1 if @opt was one of them. */
static int run_option(struct run *r, int opt)
{
	switch (opt) {
	case 'T':
		r->top = 1;
		return 1;
	case RUN_OPT_TRACE_SELF:
		r->trace_self = 1;
		return 1;
	}
	return 0;
}

struct run_parse_ctx {
	struct run	*r;
	void		(*option)(int opt, char *arg, void *ctx);
	void		*ctx;
};

static void run_parse_option(int opt, char *arg, void *ctx)
{
	struct run_parse_ctx *c = ctx;

	if (!run_option(c->r, opt))
		c->option(opt, arg, c->ctx);
}

void run_parse(struct run *r, const struct tool_def *d, int argc, char **argv,
	       struct tool_args *a, void *ctx)
{
	struct run_parse_ctx c = { .r = r, .option = d->option, .ctx = ctx };
	struct tool_def td = *d;

	td.common = TOOL_OPT_INSTANCE | TOOL_OPT_DURATION | TOOL_OPT_COMMAND;
	td.option = run_parse_option;
	tool_parse(&td, argc, argv, a, &c);
	r->instance = a->instance;
	r->duration = a->duration;
	r->argv = a->argv;
}

void run_fork(struct run *r)
{
	if (!r->argv)
		return;
	/* traced from its exec on: not what the tool does to start it */
	tool_cmd_fork_flags(&r->cmd, r->argv, r->s ? ftk_session_instance(r->s) :
			    ftk_tracefs_instance(r->t), r->s ? TOOL_CMD_EXEC_GATE : 0);
	if (r->s)
		tool_cmd_on_exec(&r->cmd, tool_session_start, r->s);
}

/*
 * Copy what trace_pipe has now to stdout, at most @max reads (0: no limit);
 * 0 at EAGAIN or the limit, -1 on error (EPIPE: no reader). A read returns at
 * most a page, and the tool's own reads and writes may be traced (ftfunc -f
 * 'vfs_*'): trace_pipe then never runs dry, so the loop over it must come
 * back to check for a signal, the child and the time.
 */
static int drain(int fd, unsigned int max)
{
	char buf[65536];
	unsigned int reads = 0;
	ssize_t n;

	for (;;) {
		if (max && reads++ >= max)
			return 0;
		n = read(fd, buf, sizeof(buf));
		if (n > 0) {
			if (fwrite(buf, 1, n, stdout) != (size_t)n || fflush(stdout))
				return -1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno == EAGAIN)
			return 0;
		return -1;
	}
}

/*
 * What to wait on: the command's pidfd, and each CPU's trace_pipe_raw, which
 * polls readable once the buffer is buffer_percent full (trace_pipe itself
 * wakes at every event). Files that are not the kernel's (a fake tree of
 * plain files) are left out: they always poll readable.
 */
static int watch(struct run *r, struct pollfd **pfd)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	char file[64], path[4096];
	struct stat st;
	int n = 1, cpu, fd;

	if (ncpus < 1 || ncpus > 4096)
		ncpus = 1;
	*pfd = calloc(ncpus + 1, sizeof(**pfd));
	if (!*pfd)
		tool_die("out of memory");
	(*pfd)[0].fd = r->argv ? r->cmd.pidfd : -1;
	(*pfd)[0].events = POLLIN;
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if (ftk_tracefs_path(r->t, file, path, sizeof(path)))
			continue;
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		(*pfd)[n].fd = fd;
		(*pfd)[n++].events = POLLIN;
	}
	return n;
}

static void unwatch(struct pollfd *pfd, int n)
{
	while (--n > 0)
		close(pfd[n].fd);
	free(pfd);
}

int run_trace(struct run *r)
{
	double end = r->duration ? tool_now() + r->duration : 0, left;
	int fd, n, ms, timed_out = 0, ret = 0;
	struct pollfd *pfd;
	char path[4096];

	if (ftk_tracefs_path(r->t, "trace_pipe", path, sizeof(path)))
		tool_die_tracefs(r->t, NULL);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		tool_err("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!r->argv && ftk_session_start(r->s)) {
		tool_err("%s", ftk_session_errmsg(r->s));
		close(fd);
		return -1;
	}
	if (r->argv && tool_cmd_start(&r->cmd)) {
		close(fd);
		tool_exit(tool_cmd_code(&r->cmd));
	}
	if (!r->argv && !r->duration)
		fprintf(stderr, "Tracing... Ctrl-C to end.\n");
	n = watch(r, &pfd);
	while (!tool_stop && !(r->argv && tool_cmd_done(&r->cmd))) {
		ms = 1000;
		if (end) {
			left = end - tool_now();
			if (left <= 0) {
				timed_out = 1;
				break;
			}
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		poll(pfd, n, ms);	/* EINTR on a signal: the loop sees tool_stop */
		if (drain(fd, 256) < 0) {
			if (errno == EPIPE)	/* "| head" has all it wants: stop, put back */
				break;
			tool_err("cannot copy '%s': %s", path, strerror(errno));
			ret = -1;
			break;
		}
	}
	unwatch(pfd, n);
	if (r->argv) {
		tool_cmd_kill(&r->cmd);
		/* Ended by -D running out: the tool's choice, not the command's failure. */
		r->code = timed_out ? 0 : tool_cmd_code(&r->cmd);
		if (!timed_out)
			tool_cmd_report(&r->cmd);
	}
	/*
	 * Stop recording (the journal puts tracing_on back), then print what the
	 * buffer holds: a bounded amount, even when the tool's own reads and
	 * writes are traced. Where tracing_on cannot be written, print a bounded
	 * amount all the same.
	 */
	if (!ret && !ferror(stdout))
		drain(fd, ftk_session_stop(r->s) ? 4096 : 0);
	close(fd);
	fflush(stdout);
	return ret;
}

void run_finish(struct run *r, const char *what)
{
	const char *where = r->top ? "the top level" : r->instance;

	if (r->persist) {
		if (what)
			fprintf(stderr, "%s: %s in %s%s%s; it stays until undone (ftreset%s%s)\n",
				tool_name, what, r->top ? "" : "instance '", where,
				r->top ? "" : "'", r->top ? "" : " -B ", r->top ? "" : where);
		if (r->top_t && r->top_t != r->t)
			tool_keep(r->top_t);
		tool_keep(r->t);
	}
	tool_exit(tool_stop ? 128 + tool_stop : r->code);
}
