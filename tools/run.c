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
#include <sys/wait.h>
#include <time.h>
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
	if (!r->top_t)
		r->top_t = r->top && r->t ? r->t : tool_tracefs(NULL, 0);
	return r->top_t;
}

void run_open(struct run *r)
{
	char name[64];

	r->child = -1;
	r->go[0] = r->go[1] = -1;
	if (r->top && r->instance)
		tool_usage_error("-B and -T exclude each other");
	r->persist = (r->instance || r->top) && !r->duration && !r->argv;
	if (r->follow && !r->argv)
		tool_usage_error("-F needs a COMMAND");
	tool_signals();
	/* A reader that goes away ("| head") must not kill us before we put things back. */
	signal(SIGPIPE, SIG_IGN);
	/*
	 * Stale instances are not reaped here: a tool in another PID namespace
	 * sharing this tracefs looks dead from here. ftreset removes them when
	 * asked.
	 */
	if (r->top) {
		r->t = run_top(r);
		return;
	}
	if (!r->instance) {
		if (ftk_instance_name(tool_name, name, sizeof(name)))
			tool_die("cannot name an instance for '%s'", tool_name);
		r->t = tool_tracefs(name, FTK_TRACEFS_CREATE);
		return;
	}
	/* A name we create is one a shell script can use unquoted. */
	if (strspn(r->instance, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
	    strlen(r->instance) || r->instance[0] == '.' || r->instance[0] == '-') {
		struct ftk_tracefs *t;

		if (ftk_tracefs_open(NULL, r->instance, 0, &t))
			tool_usage_error("bad instance name '%s': use letters, digits, '.', '_' "
					 "and '-'", r->instance);
		ftk_tracefs_close(t);
	}
	r->t = tool_tracefs(r->instance, FTK_TRACEFS_CREATE);
}

void run_fork(struct run *r)
{
	char c;

	if (!r->argv)
		return;
	if (pipe2(r->go, O_CLOEXEC) < 0)
		tool_die("cannot make a pipe: %s", strerror(errno));
	fflush(NULL);
	r->child = fork();
	if (r->child < 0)
		tool_die("cannot fork: %s", strerror(errno));
	if (r->child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(r->go[1]);
		/* Wait until tracing is set up; EOF means the parent gave up. */
		if (read(r->go[0], &c, 1) != 1)
			_exit(127);
		execvp(r->argv[0], r->argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool_name, r->argv[0],
			strerror(errno));
		_exit(127);
	}
	close(r->go[0]);
	r->go[0] = -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

int run_trace(struct run *r)
{
	char path[4096];
	double end = r->duration ? now() + r->duration : 0;
	struct pollfd pfd;
	int fd, status, done = 0, ret = 0;

	if (ftk_tracefs_path(r->t, "trace_pipe", path, sizeof(path)))
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		tool_err("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (r->child > 0) {
		if (write(r->go[1], "g", 1) != 1)
			tool_warn("cannot start '%s'", r->argv[0]);
		close(r->go[1]);
		r->go[1] = -1;
	} else if (!r->duration) {
		fprintf(stderr, "Tracing... Ctrl-C to end.\n");
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (!done && !tool_stop) {
		if (poll(&pfd, 1, 100) > 0 && drain(fd, 256) < 0) {
			if (errno == EPIPE)	/* "| head" has all it wants: stop, put back */
				break;
			tool_err("cannot copy '%s': %s", path, strerror(errno));
			ret = -1;
			break;
		}
		if (r->child > 0 && waitpid(r->child, &status, WNOHANG) == r->child) {
			r->child = -1;
			done = 1;
		}
		if (end && now() >= end)
			done = 1;
	}
	if (r->child > 0) {
		kill(r->child, SIGTERM);
		waitpid(r->child, &status, 0);
		r->child = -1;
	}
	/*
	 * Stop recording (the journal puts tracing_on back), then print what the
	 * buffer holds: a bounded amount, even when the tool's own reads and
	 * writes are traced. Where tracing_on cannot be written, print a bounded
	 * amount all the same.
	 */
	if (!ret && !ferror(stdout))
		drain(fd, ftk_tracefs_set(r->t, "tracing_on", "0") ? 4096 : 0);
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
	tool_exit(tool_stop ? 128 + tool_stop : EXIT_OK);
}
