// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program for uprobe tests: "uprobe-target N" calls ftk_target(i, 100 + i)
 * for i = 0..N-1 and strverscmp("ftkit-i", "x") from libc N times.
 * "uprobe-target wait" sleeps until killed (for -p PID lookups), and calls
 * ftk_target(i, 100 + i) for i = 0..2 at each SIGUSR1.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int ftk_target(int a, long b)
{
	__asm__ volatile("" ::: "memory");
	return 2 * a + (int)b;
}

static volatile sig_atomic_t poked;

static void on_usr1(int sig)
{
	poked = 1;
}

int main(int argc, char **argv)
{
	int (*volatile cmp)(const char *, const char *) = strverscmp;
	long n, i, sum = 0;
	char buf[32];

	if (argc > 1 && !strcmp(argv[1], "wait")) {
		signal(SIGUSR1, on_usr1);
		for (;;) {
			pause();
			for (i = 0; poked && i < 3; i++)
				sum += ftk_target((int)i, 100 + i);
			poked = 0;
		}
	}
	n = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	for (i = 0; i < n; i++) {
		sum += ftk_target((int)i, 100 + i);
		snprintf(buf, sizeof(buf), "ftkit-%ld", i);
		sum += cmp(buf, "x") < 0;
	}
	return sum == 0 && n > 0;
}
