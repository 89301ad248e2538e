// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload with a known call tree, for ftprofile's tests: it burns CPU
 * time in spin(), called as main -> a -> b -> spin (mode "chain"), or from
 * a thread as thread_main -> a -> b -> spin ("thread"), or in code it
 * generates at run time and names in /tmp/perf-PID.map ("jit"), or in a
 * function whose symbol is a mangled C++ name ("cxx"); or sleeps 5 x 100 ms
 * under main -> c -> d -> snooze ("sleep"); or plays pipe ping-pong, a
 * child blocked in pong_wait() woken 20 times by its parent's ping_wake()
 * 50 ms later each time ("pingpong"). Built twice: with
 * frame pointers, and with -fomit-frame-pointer.
 *
 * usage: profile-work MODE [CPU-SECONDS]   (default 1 second of CPU time)
 *        profile-work fixed [BATCHES]       (main -> a -> b -> spin, a fixed amount of work)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds;
static long batches;	/* "fixed": a fixed amount of work instead of CPU time */
static volatile unsigned long sink;

static double cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static int spin(int x)
{
	double end = cputime() + cpu_seconds;
	unsigned long i;

	if (batches) {
		while (batches-- > 0)
			for (i = 0; i < 100000; i++)
				sink += i ^ x;
		return (int)(sink & 1);
	}
	while (cputime() < end)
		for (i = 0; i < 100000; i++)
			sink += i ^ x;
	return (int)(sink & 1);
}

__attribute__((noinline)) static int b(int x)
{
	return spin(x + 1) + 1;
}

__attribute__((noinline)) static int a(int x)
{
	return b(x * 2) + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Off the CPU for a known time: 5 sleeps of 100 ms under main -> c -> d ->
 * snooze. On a busy machine a task waits for its CPU after each wake-up
 * too, so it says how long it was off the CPU in all: the time that passed
 * less the CPU time it used meanwhile ("offcpu_us N" on standard output).
 */
__attribute__((noinline)) static int snooze(int x)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	double t0 = now(), c0 = cputime();
	int i;

	for (i = 0; i < 5; i++)
		nanosleep(&ts, NULL);
	printf("offcpu_us %.0f\n", ((now() - t0) - (cputime() - c0)) * 1e6);
	return x + 1;
}

__attribute__((noinline)) static int d(int x)
{
	return snooze(x + 1) + 1;
}

__attribute__((noinline)) static int c(int x)
{
	return d(x * 2) + 1;
}

static void *thread_main(void *arg)
{
	sink += a((int)(long)arg);
	return NULL;
}

/* A C++ method's symbol, spelt mangled: ftk_test::Shape::area(int) const. */
int cxx_area(int x) __asm__("_ZNK8ftk_test5Shape4areaEi");
__attribute__((noinline)) int cxx_area(int x)
{
	return spin(x) + 1;
}

/*
 * "JIT" code: mov rcx, 50000000; 1: dec rcx; jnz 1b; ret. Copied to an
 * executable anonymous mapping and named in /tmp/perf-PID.map, as a
 * runtime with a JIT does.
 */
static const unsigned char jit_code[] = {
	0x48, 0xb9, 0x80, 0xf0, 0xfa, 0x02, 0, 0, 0, 0,	/* mov $50000000, %rcx */
	0x48, 0xff, 0xc9,				/* dec %rcx */
	0x75, 0xfb,					/* jnz .-3 */
	0xc3,						/* ret */
};

static int jit(void)
{
	void (*fn)(void);
	char path[64];
	double end;
	void *mem;
	FILE *f;

	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED) {
		perror("profile-work: mmap");
		return 1;
	}
	memcpy(mem, jit_code, sizeof(jit_code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "%lx %zx jitted_loop\n", (unsigned long)mem, sizeof(jit_code));
	fclose(f);
	fn = (void (*)(void))mem;
	end = cputime() + cpu_seconds;
	while (cputime() < end)
		fn();
	return 0;
}

/* The child waits here for each ping... */
__attribute__((noinline)) static int pong_wait(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/* ...which the parent sends here, 50 ms apart. */
__attribute__((noinline)) static int ping_wake(int fd)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	return write(fd, "p", 1) == 1;
}

static int pingpong(void)
{
	int fds[2], i, st;
	pid_t pid;

	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(fds[1]);
		while (pong_wait(fds[0]))
			;
		_exit(0);
	}
	close(fds[0]);
	for (i = 0; i < 20; i++)
		ping_wake(fds[1]);
	close(fds[1]);
	return waitpid(pid, &st, 0) != pid || st;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "chain";
	pthread_t t;

	cpu_seconds = argc > 2 ? atof(argv[2]) : 1;
	if (!strcmp(mode, "chain"))
		return a(argc) == 12345;
	if (!strcmp(mode, "fixed")) {
		batches = argc > 2 ? atol(argv[2]) : 10000;
		return a(argc) == 12345;
	}
	if (!strcmp(mode, "sleep"))
		return c(argc) == 12345;
	if (!strcmp(mode, "pingpong"))
		return pingpong();
	if (!strcmp(mode, "cxx"))
		return cxx_area(argc) == 12345;
	if (!strcmp(mode, "jit"))
		return jit();
	if (!strcmp(mode, "thread")) {
		if (pthread_create(&t, NULL, thread_main, (void *)(long)argc))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	fprintf(stderr, "usage: profile-work chain|thread|jit|cxx|sleep|pingpong [CPU-SECONDS] | fixed [BATCHES]\n");
	return 2;
}
