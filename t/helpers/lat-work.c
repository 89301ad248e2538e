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
 *	lat-work stall N AT MS		N wake-ups of a child ("victim PID" on stdout), each
 *					run at once but wake-up AT, held off MS milliseconds;
 *					at the end "switches N": the child's context switches
 *					(voluntary + involuntary, getrusage), which is how many
 *					times it was switched in (its first run, not its exit)
 *	lat-work slowcall N AT MS	N calls of lat_sleep_fn(0), but call AT sleeps MS ms
 *					(SCHED_FIFO on CPU 0)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

static void pace(void)
{
	struct timespec ts = { 0, 500000 };

	nanosleep(&ts, NULL);
}

/* On CPU 0 at SCHED_FIFO @prio: then nothing but a higher priority delays us. */
static int pin_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp);
}

/*
 * The victim (FIFO 10) blocks on a pipe; we (FIFO 20, same CPU) write a
 * byte and sleep, so that it runs at once; at wake-up @at we spin @ms
 * milliseconds first: that one wake-up waits @ms for its CPU.
 */
static int do_stall(long n, long at, long ms)
{
	struct timespec t0, now;
	struct rusage ru;
	int p[2], status;
	char c = 'x';
	long i;
	pid_t pid;

	if (pipe(p) || pin_fifo(20))
		return 77;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		struct sched_param sp = { .sched_priority = 10 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(77);
		close(p[1]);	/* a parent ended early (a flight trigger) gives EOF */
		while (read(p[0], &c, 1) == 1 && c != 'q')
			;
		_exit(0);
	}
	printf("victim %d\n", (int)pid);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		if (write(p[1], "x", 1) != 1)
			return 1;
		if (i == at) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			do
				clock_gettime(CLOCK_MONOTONIC, &now);
			while ((now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec <
			       ms * 1000000L);
		}
		pace();
	}
	if (write(p[1], "q", 1) != 1)
		return 1;
	waitpid(pid, &status, 0);
	if (!getrusage(RUSAGE_CHILDREN, &ru))
		printf("switches %ld\n", ru.ru_nvcsw + ru.ru_nivcsw);
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
	if (!strcmp(argv[1], "stall") && argc == 5)
		return do_stall(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10),
				strtol(argv[4], NULL, 10));
	if (!strcmp(argv[1], "slowcall") && argc == 5) {
		/* SCHED_FIFO: no other task makes a fast call slow */
		if (pin_fifo(20))
			return 77;
		n = strtol(argv[2], NULL, 10);
		for (i = 0; i < n; i++) {
			lat_sleep_fn(i == strtol(argv[3], NULL, 10) ? atoi(argv[4]) : 0);
			pace();
		}
		return 0;
	}
usage:
	fprintf(stderr, "usage: lat-work getppid|open PATH|exec|sleep N MS|recurse N DEPTH|"
		"pingpong N|stall N AT MS|slowcall N AT MS\n");
	return 2;
}
