// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Load generator and a naive reader for t/bench/record-bench.sh.
 *
 *   record-loadgen syscall N        N getppid() calls as fast as one CPU goes
 *   record-loadgen rate R S         getppid() calls at R a second for S seconds
 *                                   (or as many as one CPU makes) or until
 *                                   SIGTERM; prints the calls made and the
 *                                   seconds they took
 *   record-loadgen marker N FILE    N writes of a 32-byte line to FILE (trace_marker)
 *   record-loadgen poll DIR OUT MS  one thread per CPU reads DIR/per_cpu/cpuN/
 *                                   trace_pipe_raw with read(2) every MS ms into
 *                                   OUT.cpuN, until SIGINT or SIGTERM; prints
 *                                   bytes stored and CPU seconds
 * The first two print the elapsed nanoseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static const char *dir, *out;
static int ms;
static long long stored[256];

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_sig(int sig)
{
	stop = 1;
}

static void *poller(void *arg)
{
	long cpu = (long)arg;
	char path[4096], page[65536];
	int in, o, last = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/trace_pipe_raw", dir, cpu);
	in = open(path, O_RDONLY | O_NONBLOCK);
	snprintf(path, sizeof(path), "%s.cpu%ld", out, cpu);
	o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || o < 0)
		return NULL;
	for (;;) {
		/* Like a recorder that sleeps a fixed time, then takes what is there. */
		while ((n = read(in, page, 4096)) > 0) {
			if (write(o, page, n) != n)
				break;
			stored[cpu] += n;
		}
		if (last)
			break;
		if (stop)
			last = 1;	/* one more pass after tracing stopped */
		else
			usleep(ms * 1000);
	}
	close(in);
	close(o);
	return NULL;
}

int main(int argc, char **argv)
{
	long long i, n, t0;
	pthread_t th[256];
	struct rusage ru;
	long cpus, c;
	char line[40];
	int fd;

	if (argc >= 3 && !strcmp(argv[1], "syscall")) {
		n = atoll(argv[2]);
		t0 = now();
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		printf("%lld\n", now() - t0);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "rate")) {
		double rate = atof(argv[2]);
		long long end, t, owed;
		struct timespec ms1 = { 0, 1000000 };

		signal(SIGTERM, on_sig);
		t0 = now();
		end = t0 + (long long)(atof(argv[3]) * 1e9);
		for (n = 0; (t = now()) < end && !stop;) {
			/* the calls owed by now (caught up if a step ran late), else a nap */
			owed = (long long)(rate * (t - t0) / 1e9) - n;
			if (owed <= 0) {
				nanosleep(&ms1, NULL);
				continue;
			}
			if (owed > 1000)
				owed = 1000;
			for (i = 0; i < owed; i++)
				syscall(SYS_getppid);
			n += owed;
		}
		printf("%lld %.3f\n", n, (now() - t0) / 1e9);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "marker")) {
		n = atoll(argv[2]);
		fd = open(argv[3], O_WRONLY);
		if (fd < 0)
			return perror(argv[3]), 1;
		memset(line, 'x', sizeof(line));
		line[31] = '\n';
		t0 = now();
		for (i = 0; i < n; i++)
			if (write(fd, line, 32) < 0)
				return perror("write"), 1;
		printf("%lld\n", now() - t0);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "poll")) {
		dir = argv[2];
		out = argv[3];
		ms = atoi(argv[4]);
		signal(SIGINT, on_sig);
		signal(SIGTERM, on_sig);
		cpus = sysconf(_SC_NPROCESSORS_CONF);
		for (c = 0; c < cpus && c < 256; c++)
			pthread_create(&th[c], NULL, poller, (void *)c);
		while (!stop)
			pause();
		for (c = 0; c < cpus && c < 256; c++)
			pthread_join(th[c], NULL);
		for (n = 0, c = 0; c < cpus && c < 256; c++)
			n += stored[c];
		getrusage(RUSAGE_SELF, &ru);
		printf("%lld %.3f\n", n, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		return 0;
	}
	fprintf(stderr, "usage: record-loadgen syscall N | rate R S | marker N FILE | poll DIR OUT MS\n");
	return 1;
}
