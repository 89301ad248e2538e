// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Workloads with a known truth for the latency tools' tests:
 *	lat-work getppid N		N getppid syscalls
 *	lat-work open PATH N		N openat(PATH, O_RDONLY|O_CLOEXEC), closed again
 *	lat-work exec N			N children, each exec'ing "lat-work child I x-I",
 *					which exits with status I % 7
 *	lat-work child I ARG		exit I % 7
 *	lat-work sleep N MS		N calls of lat_sleep_fn(), each sleeping MS milliseconds
 *	lat-work pingpong N		N round trips of a byte between two processes over pipes
 *	lat-work recurse N DEPTH	N calls of lat_recurse_fn(DEPTH), which calls itself
 *					down to 1: N * DEPTH calls, DEPTH nested at most;
 *					each level sleeps 1 ms after its inner call returns
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int lat_sleep_fn(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	__asm__ volatile("" ::: "memory");
	nanosleep(&ts, NULL);
	return ms;
}

/* Level @depth returns later than every level inside it: 1 ms more each. */
__attribute__((noinline)) int lat_recurse_fn(int depth)
{
	struct timespec ts = { 0, 1000000L };
	int r = depth > 1 ? lat_recurse_fn(depth - 1) : 0;

	__asm__ volatile("" ::: "memory");
	nanosleep(&ts, NULL);
	return r + 1;
}

static int do_exec(const char *self, long n)
{
	char num[32], arg[48];
	int status, bad = 0;
	long i;
	pid_t pid;

	for (i = 0; i < n; i++) {
		snprintf(num, sizeof(num), "%ld", i);
		snprintf(arg, sizeof(arg), "x-%ld", i);
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			execl(self, "lat-work", "child", num, arg, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != i % 7)
			bad++;
	}
	return bad ? 1 : 0;
}

static int do_pingpong(long n)
{
	int ab[2], ba[2], status;
	char c = 'x';
	long i;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	long i, n;
	int fd;

	if (argc < 3)
		goto usage;
	n = strtol(argv[argc > 3 && strcmp(argv[1], "sleep") && strcmp(argv[1], "recurse") ? 3 : 2],
		   NULL, 10);
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (!strcmp(argv[1], "open") && argc == 4) {
		for (i = 0; i < n; i++) {
			fd = open(argv[2], O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
		}
		return 0;
	}
	if (!strcmp(argv[1], "exec")) {
		char self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (len <= 0)
			return 2;
		self[len] = '\0';
		return do_exec(self, n);
	}
	if (!strcmp(argv[1], "child"))
		return strtol(argv[2], NULL, 10) % 7;
	if (!strcmp(argv[1], "sleep") && argc == 4) {
		for (i = 0; i < n; i++)
			lat_sleep_fn(atoi(argv[3]));
		return 0;
	}
	if (!strcmp(argv[1], "recurse") && argc == 4) {
		for (i = 0; i < n; i++)
			if (lat_recurse_fn(atoi(argv[3])) != atoi(argv[3]))
				return 1;
		return 0;
	}
	if (!strcmp(argv[1], "pingpong"))
		return do_pingpong(n);
usage:
	fprintf(stderr, "usage: lat-work getppid|open PATH|exec|sleep N MS|recurse N DEPTH|pingpong N\n");
	return 2;
}
