// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * marker-bench INSTANCE N: ns per mark for ftk_mark() with a format,
 * ftk_mark_write() of a ready string, a plain write(2) of the same string
 * on our own fd, snprintf()+write(2), and ftk_mark() on a disabled handle.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/marker.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *inst = argc > 1 ? argv[1] : NULL;
	long n = argc > 2 ? atol(argv[2]) : 100000, i;
	struct ftk_marker *m, *off;
	char path[512], buf[128];
	double t0, t;
	int fd;

	m = ftk_marker_open(inst, 0);
	if (!ftk_marker_enabled(m)) {
		fprintf(stderr, "marker-bench: no trace_marker: %s\n", strerror(ftk_marker_error(m)));
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s%s%strace_marker",
		 inst ? "instances/" : "", inst ? inst : "", inst ? "/" : "");
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	setenv("FTK_TRACEFS", "/nonexistent", 1);
	off = ftk_marker_open(NULL, 0);

	/* Warm up: page faults, caches, the buffer's first pages. */
	for (i = 0; i < n / 10; i++)
		if (write(fd, "bench mark 12345", 16) < 0)
			return 2;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (write(fd, "bench mark 12345", 16) < 0)
			return 2;
	t = now_ns();
	printf("write\t%.1f\n", (t - t0) / n);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		ftk_mark_write(m, "bench mark 12345", 16);
	t = now_ns();
	printf("ftk_mark_write\t%.1f\n", (t - t0) / n);

	t0 = now_ns();
	for (i = 0; i < n; i++)
		ftk_mark(m, "bench mark %ld", i);
	t = now_ns();
	printf("ftk_mark\t%.1f\n", (t - t0) / n);

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "bench mark %ld", i);

		if (write(fd, buf, len) < 0)
			return 2;
	}
	t = now_ns();
	printf("snprintf+write\t%.1f\n", (t - t0) / n);

	t0 = now_ns();
	for (i = 0; i < n * 10; i++)
		ftk_mark(off, "bench mark %ld", i);
	t = now_ns();
	printf("ftk_mark_disabled\t%.2f\n", (t - t0) / (n * 10));

	close(fd);
	ftk_marker_close(m);
	ftk_marker_close(off);
	return 0;
}
