// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * marker-example: an application that marks its own trace with libftkit-marker.
 *
 *	cc marker-example.c $(pkg-config --cflags --libs ftkit-marker)
 *	./marker-example [INSTANCE]
 *
 * It runs the same with or without tracing: when trace_marker cannot be
 * opened, the marks cost nothing and the program does its work anyway.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/marker.h>

static struct ftk_marker *tm;

/* Marks are async-signal-safe: a handler may mark too. */
static void on_alarm(int sig)
{
	ftk_mark(tm, "alarm: signal %d", sig);
}

static long work(int n)
{
	long sum = 0;

	for (int i = 0; i < n * 1000; i++)
		sum += i % 7;
	return sum;
}

int main(int argc, char **argv)
{
	long total = 0;

	tm = ftk_marker_open(argc > 1 ? argv[1] : NULL, FTK_MARKER_RAW);
	if (!ftk_marker_enabled(tm))
		fprintf(stderr, "marker-example: no tracing (%s), running anyway\n",
			strerror(ftk_marker_error(tm)));

	signal(SIGALRM, on_alarm);
	ftk_mark(tm, "marker-example starts, pid %d", (int)getpid());
	for (int i = 1; i <= 3; i++) {
		ftk_mark_begin(tm, "step %d", i);
		total += work(i);
		ftk_mark_counter(tm, "total", total);
		ftk_mark_end(tm, "step %d", i);
	}
	raise(SIGALRM);
	ftk_mark_raw(tm, 7, &total, sizeof(total));
	ftk_mark(tm, "marker-example done: %ld", total);
	ftk_marker_close(tm);
	printf("%ld\n", total);
	return 0;
}
