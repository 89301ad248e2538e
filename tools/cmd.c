// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Running the COMMAND a tool traces: see cmd.h for the protocol.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "tool.h"

double tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In the child, before exec: nothing of the tool's signal set-up stays. */
static void reset_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);	/* EINVAL for the few unsettable: fine */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void tool_cmd_fork(struct tool_cmd *c, char **argv, const char *instance)
{
	tool_cmd_fork_flags(c, argv, instance, 0);
}

/* TOOL_CMD_MAPS_AT_EXIT: seize the child (waiting before exec) to stop it as it exits. */
static void seize(struct tool_cmd *c)
{
	if (ptrace(PTRACE_SEIZE, c->pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT) < 0) {
		tool_warn("cannot follow '%s' to its exit (ptrace: %s): no process map",
			  c->argv[0], strerror(errno));
		return;
	}
	c->traced = 1;
}

/*
 * @name as execvp() finds it: itself if it holds a '/', else the first
 * PATH entry where it is an executable regular file (malloc'd); NULL when
 * none is, and the child's execvp() then fails with the reason.
 */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat st;
	char *full;

	if (strchr(name, '/'))
		return strdup(name);
	if (!*name)
		return NULL;
	if (!path)
		path = "/bin:/usr/bin";		/* glibc's default */
	for (p = path; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (asprintf(&full, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name) < 0)
			return NULL;
		if (!stat(full, &st) && S_ISREG(st.st_mode) && !access(full, X_OK))
			return full;
		free(full);
		if (!*end)
			return NULL;
	}
}

/* In the child: exec @c's command, as execvp() would but with one execve(). */
static void exec_command(struct tool_cmd *c)
{
	if (!c->path) {
		execvp(c->argv[0], c->argv);
		return;
	}
	execv(c->path, c->argv);
	if (errno == ENOEXEC) {
		/* a script without #!: execvp() hands it to the shell */
		int n = 0;
		char **sh;

		while (c->argv[n])
			n++;
		sh = calloc(n + 2, sizeof(*sh));
		if (!sh)
			return;
		sh[0] = "/bin/sh";
		sh[1] = c->path;
		memcpy(sh + 2, c->argv + 1, n * sizeof(*sh));
		execv(sh[0], sh);
		errno = ENOEXEC;
	}
}

void tool_cmd_on_exec(struct tool_cmd *c, int (*fn)(void *ctx), void *ctx)
{
	c->on_exec = fn;
	c->on_exec_ctx = ctx;
}

void tool_cmd_fork_flags(struct tool_cmd *c, char **argv, const char *instance,
			 unsigned int flags)
{
	int go[2], ex[2], err;
	char b = 0;
	pid_t self;

	memset(c, 0, sizeof(*c));
	c->argv = argv;
	if (flags & TOOL_CMD_MAPS_AT_EXIT)
		flags &= ~TOOL_CMD_EXEC_GATE;
	c->flags = flags;
	c->path = find_in_path(argv[0]);
	c->pid = -1;
	c->pidfd = c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		tool_die("cannot make a pipe: %s", strerror(errno));
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0)
		tool_die("cannot fork: %s", strerror(errno));
	if (c->pid == 0) {
		self = getpid();
		close(go[1]);
		close(ex[0]);
		reset_signals();
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		if (b != 'g')		/* the tool gave up before starting us */
			_exit(127);
		if (instance && setenv("FTK_INSTANCE", instance, 1) < 0)
			_exit(127);
		if ((flags & TOOL_CMD_STDOUT_TO_STDERR) && dup2(2, 1) < 0)
			_exit(127);
		/*
		 * The gate: stopped here, the tool arms tracing; the stop comes
		 * as kill() returns, after its own system-call exit, so the next
		 * system call after SIGCONT is the execve().
		 */
		if (flags & TOOL_CMD_EXEC_GATE)
			kill(self, SIGSTOP);
		exec_command(c);
		err = errno;
		if (write(ex[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->err_fd = ex[0];
	c->pidfd = pidfd_open(c->pid, 0);	/* -1 on kernels before 5.3: we poll waitpid */
	if (c->pidfd >= 0)
		fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
	if (flags & TOOL_CMD_MAPS_AT_EXIT)
		seize(c);
}

/* The whole of a /proc file, malloc'd and NUL-terminated, or NULL. */
static char *read_proc(const char *path)
{
	size_t len = 0, cap = 0;
	char *text = NULL, *n;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			n = realloc(text, cap);
			if (!n)
				break;
			text = n;
		}
		r = read(fd, text + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += r;
	}
	close(fd);
	if (text)
		text[len] = '\0';
	return text;
}

int tool_cmd_maps(struct tool_cmd *c)
{
	char path[64], exe[4096], *maps;
	ssize_t n;

	if (c->pid <= 0 || c->reaped)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c->pid);
	maps = read_proc(path);
	if (!maps || !*maps) {
		free(maps);
		return -1;
	}
	free(c->maps);
	c->maps = maps;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)c->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	free(c->exe);
	c->exe = n > 0 ? strndup(exe, n) : NULL;
	return 0;
}

/*
 * A ptrace stop of the traced command. At its exit (PTRACE_EVENT_EXIT, its
 * memory still there): keep its maps and exe, and let it go. A signal it
 * was sent: deliver it. A group stop (SIGSTOP): stay stopped, as untraced.
 */
static void traced_stop(struct tool_cmd *c)
{
	int sig = WSTOPSIG(c->status), event = (unsigned int)c->status >> 16;

	if (event == PTRACE_EVENT_EXIT) {
		tool_cmd_maps(c);
		if (ptrace(PTRACE_DETACH, c->pid, NULL, NULL) == 0)
			c->traced = 0;
		return;
	}
	if (event == PTRACE_EVENT_STOP) {
		ptrace(PTRACE_LISTEN, c->pid, NULL, NULL);
		return;
	}
	ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)sig);
}

static void reap(struct tool_cmd *c, int options)
{
	pid_t w;

	if (c->reaped || c->pid <= 0)
		return;
	for (;;) {
		do
			w = waitpid(c->pid, &c->status, options);
		while (w < 0 && errno == EINTR && !(options & WNOHANG));
		if (w != c->pid || !c->traced || !WIFSTOPPED(c->status))
			break;
		traced_stop(c);
	}
	if (w == c->pid || (w < 0 && errno == ECHILD)) {
		c->reaped = 1;
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pidfd = -1;
	}
}

/* TOOL_CMD_EXEC_GATE: wait for the child's stop before its exec, arm, let it go. */
static int gate(struct tool_cmd *c)
{
	pid_t w;

	do
		w = waitpid(c->pid, &c->status, WUNTRACED);
	while (w < 0 && errno == EINTR);
	if (w != c->pid)
		return 0;
	if (!WIFSTOPPED(c->status)) {
		/* it ended before its exec */
		c->reaped = 1;
		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pidfd = -1;
		return 0;
	}
	if (c->on_exec && c->on_exec(c->on_exec_ctx)) {
		kill(c->pid, SIGKILL);
		kill(c->pid, SIGCONT);
		return -1;
	}
	kill(c->pid, SIGCONT);
	return 0;
}

int tool_cmd_start(struct tool_cmd *c)
{
	ssize_t n;
	int err = 0;

	if (write(c->go_fd, "g", 1) != 1)
		err = errno;
	close(c->go_fd);
	c->go_fd = -1;
	if (!err && (c->flags & TOOL_CMD_EXEC_GATE) && gate(c)) {
		close(c->err_fd);
		c->err_fd = -1;
		reap(c, 0);
		c->exec_err = 0;
		c->gate_failed = 1;
		return -1;
	}
	/* EOF when exec succeeded (the pipe is close-on-exec); an errno when it failed. */
	do
		n = read(c->err_fd, &c->exec_err, sizeof(c->exec_err));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n != sizeof(c->exec_err))
		c->exec_err = 0;
	if (!c->exec_err && !err)
		return 0;
	reap(c, 0);
	if (c->exec_err == ENOENT && !strchr(c->argv[0], '/'))
		tool_err("%s: command not found", c->argv[0]);
	else
		tool_err("cannot run '%s': %s", c->argv[0],
			 strerror(c->exec_err ? c->exec_err : err));
	return -1;
}

void tool_cmd_abandon(struct tool_cmd *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);	/* EOF: the child exits without exec */
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	reap(c, 0);
}

int tool_cmd_done(struct tool_cmd *c)
{
	reap(c, WNOHANG);
	return c->reaped;
}

static void forward(struct tool_cmd *c)
{
	if (tool_stop && !c->forwarded && !c->reaped) {
		kill(c->pid, tool_stop == SIGINT ? SIGINT : SIGTERM);
		c->forwarded = 1;
	}
}

int tool_cmd_wait(struct tool_cmd *c, double seconds)
{
	double end = seconds > 0 ? tool_now() + seconds : 0;
	struct pollfd pfd;
	int ms;

	while (!tool_cmd_done(c)) {
		forward(c);
		ms = 1000;
		if (end) {
			double left = end - tool_now();

			if (left <= 0)
				return 0;
			if (left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		/* a traced command's stops do not wake the pidfd: look often */
		if (c->traced && ms > 20)
			ms = 20;
		if (c->pidfd >= 0) {
			pfd.fd = c->pidfd;
			pfd.events = POLLIN;
			poll(&pfd, 1, ms);	/* EINTR on a signal: forward() sees it */
		} else {
			usleep(ms < 10 ? ms * 1000 : 10000);
		}
	}
	return 1;
}

void tool_cmd_kill(struct tool_cmd *c)
{
	int i;

	if (c->pid <= 0 || c->reaped)
		return;
	if (c->go_fd >= 0) {
		tool_cmd_abandon(c);
		return;
	}
	kill(c->pid, SIGTERM);
	for (i = 0; i < 100 && !tool_cmd_done(c); i++)
		usleep(10000);
	if (!c->reaped)
		kill(c->pid, SIGKILL);
	reap(c, 0);
}

int tool_cmd_code(const struct tool_cmd *c)
{
	if (c->gate_failed)
		return EXIT_FAIL;
	if (c->exec_err)
		return c->exec_err == ENOENT ? 127 : 126;
	if (!c->reaped)
		return 0;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return EXIT_FAIL;
}

void tool_cmd_report(const struct tool_cmd *c)
{
	if (!c->reaped || c->exec_err)
		return;
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status))
		tool_warn("'%s' exited with status %d", c->argv[0], WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status) && !c->forwarded)
		tool_warn("'%s' was killed by signal %d (%s)", c->argv[0], WTERMSIG(c->status),
			  strsignal(WTERMSIG(c->status)));
}

void tool_sleep(double seconds)
{
	double end = seconds > 0 ? tool_now() + seconds : 0, left;
	struct timespec ts;
	sigset_t stop, old;

	/*
	 * The stop signals stay blocked but inside ppoll(): one that comes
	 * between the check of tool_stop and the wait is not lost.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, &old);
	while (!tool_stop) {
		if (end) {
			left = end - tool_now();
			if (left <= 0)
				break;
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		}
		ppoll(NULL, 0, end ? &ts : NULL, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}
