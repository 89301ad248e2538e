// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deterministic workloads for counting tests:
 *	ftstat-work touch N	write to N fresh pages: N page faults (huge pages off)
 *	ftstat-work pingpong N	N round trips over two pipes between two processes
 *				pinned to one CPU: at least 2N-1 context switches;
 *				prints the kernel's own count of them (voluntary and
 *				involuntary, getrusage of itself and its child)
 *	ftstat-work getppid N	N getppid() calls: syscalls:sys_enter_getppid hits N
 *	ftstat-work fork N	N fork()s, each child exiting at once: N sched_process_fork
 *	ftstat-work spin MS	burn MS milliseconds of CPU time
 *	ftstat-work syscalls N	N getppid() calls as fast as it can (benchmarks)
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (!n)
		return;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	/* One fault a page: no transparent huge page may cover several. */
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
}

static void pingpong(long n)
{
	struct rusage self, child;
	int ab[2], ba[2];
	cpu_set_t set;
	pid_t pid;
	char c = 0;
	long i;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (pipe(ab) || pipe(ba))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(2);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			die("pipe i/o");
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
	/*
	 * The scheduler's count of the same switches (nvcsw + nivcsw), to check a
	 * counter against: it also has the ones before exec and the child's last.
	 */
	if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &child))
		die("getrusage");
	printf("%ld\n", self.ru_nvcsw + self.ru_nivcsw + child.ru_nvcsw + child.ru_nivcsw);
}

static void forks(long n)
{
	pid_t pid;
	long i;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
}

static void spin(long ms)
{
	struct timespec ts;
	long long end, now;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = ts.tv_sec * 1000000000LL + ts.tv_nsec + ms * 1000000LL;
	do {
		for (int i = 0; i < 10000; i++)
			x++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	} while (now < end);
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc != 3) {
		fprintf(stderr, "usage: ftstat-work touch|pingpong|getppid|fork|spin|syscalls N\n");
		return 1;
	}
	n = atol(argv[2]);
	if (!strcmp(argv[1], "touch"))
		touch(n);
	else if (!strcmp(argv[1], "pingpong"))
		pingpong(n);
	else if (!strcmp(argv[1], "getppid") || !strcmp(argv[1], "syscalls"))
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	else if (!strcmp(argv[1], "fork"))
		forks(n);
	else if (!strcmp(argv[1], "spin"))
		spin(n);
	else
		return 1;
	return 0;
}
