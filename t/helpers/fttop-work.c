// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload of known counts for fttop's tests.
 *
 *   fttop-work getppid N   print its pid, wait for SIGUSR1, make exactly N
 *                          getppid() calls, print "done", then wait for
 *                          SIGTERM or SIGINT
 *   fttop-work forks N     the same, but N child processes make one
 *                          getppid() call each, one after the other
 *
 * Its comm is "fttop-work", so views that name tasks can be checked.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t go, stop;

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_go };
	sigset_t block, old;
	long n, i;

	if (argc != 3 || (strcmp(argv[1], "getppid") && strcmp(argv[1], "forks"))) {
		fprintf(stderr, "usage: fttop-work getppid|forks N\n");
		return 1;
	}
	n = strtol(argv[2], NULL, 10);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (!go && !stop)
		sigsuspend(&old);
	if (stop)
		return 0;
	/* syscall(2), so that no libc caches the answer */
	for (i = 0; i < n; i++) {
		pid_t c;

		if (argv[1][0] == 'g') {
			syscall(SYS_getppid);
			continue;
		}
		c = fork();
		if (c < 0) {
			perror("fttop-work: fork");
			return 1;
		}
		if (!c) {
			syscall(SYS_getppid);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	printf("done\n");
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
