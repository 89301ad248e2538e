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
 *	lat-work rtwake N AT MS		N wake-ups of a SCHED_FIFO 10 victim on CPU 0 by a
 *					SCHED_OTHER waker on CPU 1 ("victim PID", "busy PID"
 *					on stdout); before wake-up AT a SCHED_FIFO 20 task on
 *					CPU 0 starts spinning MS milliseconds, so that wake-up
 *					waits for it: wakeup_rt's worst case
 *	lat-work spin PRIO MS		"spinner PID" on stdout, then spin MS milliseconds at
 *					SCHED_FIFO PRIO on CPU 0: nothing of a lower
 *					priority runs on CPU 0 meanwhile
 *	lat-work rename NAME N		N getppid syscalls, a 300 ms sleep, then
 *					prctl(PR_SET_NAME, NAME) and N getppid syscalls more
 *	lat-work reuse FIRST SECOND	a child runs "FIRST getppid 5"; then a second child
 *					that got the first one's PID (ns_last_pid) runs
 *					"SECOND getppid 7": "reused PID" on stdout; exit 77
 *					when no child got that PID in 200 tries
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Run @prog with "getppid @n" in a child: its PID once it exited 0, or -1. */
static pid_t run_as(const char *prog, const char *n)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(prog, prog, "getppid", n, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pid;
}

/* Two programs, one after the other, with the same PID (ns_last_pid, root only). */
static int do_reuse(const char *first, const char *second)
{
	pid_t a = run_as(first, "5"), b;
	int i, fd;
	char buf[32];

	if (a < 0)
		return 1;
	for (i = 0; i < 200; i++) {
		fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return 77;
		snprintf(buf, sizeof(buf), "%d", (int)a - 1);
		if (write(fd, buf, strlen(buf)) < 0) {
			close(fd);
			return 77;
		}
		close(fd);
		b = fork();
		if (b < 0)
			return 1;
		if (b == 0) {
			if (getpid() != a)
				_exit(0);
			execl(second, second, "getppid", "7", (char *)NULL);
			_exit(127);
		}
		if (waitpid(b, &fd, 0) != b || !WIFEXITED(fd) || WEXITSTATUS(fd))
			return 1;
		if (b == a) {
			printf("reused %d\n", (int)a);
			return 0;
		}
	}
	return 77;
}

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

/* On CPU @cpu at SCHED_FIFO @prio (0: SCHED_OTHER). */
static int pin_on(int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ||
	       sched_setscheduler(0, prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* On CPU 0 at SCHED_FIFO @prio: then nothing but a higher priority delays us. */
static int pin_fifo(int prio)
{
	return pin_on(0, prio);
}

/*
 * The victim (FIFO 10) blocks on a pipe; we (FIFO 20, same CPU) write a
 * byte and sleep, so that it runs at once; at wake-up @at we spin @ms
 * milliseconds first: that one wake-up waits @ms for its CPU.
 */
static void spin(long ms)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec < ms * 1000000L);
}

/* A child that reads bytes from @fd until 'q' or EOF, at @prio on CPU 0. */
static pid_t reader(int fd, int wfd, int prio, long ms, volatile int *spinning)
{
	char c;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (pin_fifo(prio))
		_exit(77);
	close(wfd);
	while (read(fd, &c, 1) == 1 && c != 'q') {
		if (!spinning)
			continue;
		*spinning = 1;
		spin(ms);
		*spinning = 0;
	}
	_exit(0);
}

/*
 * wakeup_rt traces a wake-up only when the woken task outranks the waker:
 * the waker is SCHED_OTHER on CPU 1, the victim SCHED_FIFO 10 on CPU 0,
 * and before wake-up @at a SCHED_FIFO 20 task on CPU 0 spins @ms.
 */
static int do_rtwake(long n, long at, long ms)
{
	volatile int *spinning;
	int v[2], b[2], status, bad = 0;
	pid_t victim, busy;
	long i;

	spinning = mmap(NULL, sizeof(*spinning), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (spinning == MAP_FAILED || pipe(v) || pipe(b))
		return 2;
	*spinning = 0;
	victim = reader(v[0], v[1], 10, 0, NULL);
	busy = reader(b[0], b[1], 20, ms, spinning);
	if (victim < 0 || busy < 0 || pin_on(1, 0))
		return 77;
	printf("victim %d\nbusy %d\n", (int)victim, (int)busy);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		if (i == at) {
			if (write(b[1], "x", 1) != 1)
				return 1;
			while (!*spinning)
				;
		}
		if (write(v[1], "x", 1) != 1)
			return 1;
		if (i == at)
			while (*spinning)
				;
		pace();
	}
	if (write(v[1], "q", 1) != 1 || write(b[1], "q", 1) != 1)
		return 1;
	if (waitpid(victim, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		bad = 1;
	if (waitpid(busy, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		bad = 1;
	return bad;
}

static int do_stall(long n, long at, long ms)
{
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
		if (i == at)
			spin(ms);
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
	if (!strcmp(argv[1], "rtwake") && argc == 5)
		return do_rtwake(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10),
				 strtol(argv[4], NULL, 10));
	if (!strcmp(argv[1], "stall") && argc == 5)
		return do_stall(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10),
				strtol(argv[4], NULL, 10));
	if (!strcmp(argv[1], "spin") && argc == 4) {
		printf("spinner %d\n", (int)getpid());
		fflush(stdout);
		if (pin_fifo(atoi(argv[2])))
			return 77;
		spin(atol(argv[3]));
		return 0;
	}
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
	if (!strcmp(argv[1], "rename") && argc == 4) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		lat_sleep_fn(300);	/* a reader that names at first sight has done so */
		if (prctl(PR_SET_NAME, argv[2], 0, 0, 0))
			return 1;
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (!strcmp(argv[1], "reuse") && argc == 4)
		return do_reuse(argv[2], argv[3]);
usage:
	fprintf(stderr, "usage: lat-work getppid|open PATH|exec|sleep N MS|recurse N DEPTH|"
		"pingpong N|stall N AT MS|slowcall N AT MS|rtwake N AT MS|spin PRIO MS|rename NAME N|"
		"reuse FIRST SECOND\n");
	return 2;
}
