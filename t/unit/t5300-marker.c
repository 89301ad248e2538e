// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The marker API against a fake tracefs: the exact bytes of each mark, one
 * write(2) per mark and no malloc on the write path (both wrapped at link
 * time), the formatter against libc's snprintf, a cheap no-op when
 * tracing is unavailable, and whole marks from threads and a signal handler.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/marker.h>

#include "tap.h"

/* write(2) and malloc, counted: see -Wl,--wrap in Makefile.am. */
ssize_t __real_write(int fd, const void *buf, size_t len);
void *__real_malloc(size_t size);
static int nwrites, nmallocs, counting, fail_with;
static char last[2048];
static size_t last_len;

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	if (fail_with) {
		/* what the kernel says when the buffer does not record (tracing_on 0) */
		errno = fail_with;
		return -1;
	}
	if (counting) {
		__atomic_add_fetch(&nwrites, 1, __ATOMIC_RELAXED);
		if (len < sizeof(last)) {
			memcpy(last, buf, len);
			last_len = len;
		}
	}
	return __real_write(fd, buf, len);
}

void *__wrap_malloc(size_t size)
{
	if (counting)
		__atomic_add_fetch(&nmallocs, 1, __ATOMIC_RELAXED);
	return __real_malloc(size);
}

static char dir[64];

static char *slurp(const char *name, size_t *lenp)
{
	static char buf[1 << 20];
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	if (lenp)
		*lenp = n < 0 ? 0 : n;
	return buf;
}

static void reset(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (truncate(path, 0))
		bail_out("truncate %s: %s", path, strerror(errno));
}

static void touch(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		bail_out("create %s: %s", path, strerror(errno));
	close(fd);
}

/* One mark: the bytes written and that it took exactly one write and no malloc. */
#define MARK(want, call) do {							\
	int _mr;									\
	reset("trace_marker");							\
	nwrites = nmallocs = 0;							\
	counting = 1;								\
	_mr = (call);								\
	counting = 0;								\
	is_str(slurp("trace_marker", NULL), want, #call " writes '" want "'");	\
	ok(nwrites == 1 && nmallocs == 0 && _mr == (int)strlen(want),		\
	   "  one write, no malloc, returns %d", (int)strlen(want));		\
} while (0)

static int fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = ftk_marker_format(buf, len, f, ap);
	va_end(ap);
	return n;
}

#define SAME(...) do {								\
	char _a[256], _b[256];							\
	int _na = fmt(_a, sizeof(_a), __VA_ARGS__);				\
	int _nb = snprintf(_b, sizeof(_b), __VA_ARGS__);			\
	ok(_na == _nb && !strcmp(_a, _b), "format %s: '%s' (libc '%s')", #__VA_ARGS__, _a, _b); \
} while (0)

static struct ftk_marker *shared;

static void *thread_fn(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 500; i++)
		ftk_mark(shared, "thread %ld mark %d end", id, i);
	return NULL;
}

static volatile sig_atomic_t in_handler;

static void on_usr1(int sig)
{
	in_handler++;
	ftk_mark(shared, "signal %d mark", sig);
}

int main(void)
{
	struct ftk_marker *m, *off;
	char buf[16], big[FTK_MARKER_MAX + 100];
	size_t len;
	int ret;

	need_lane("unit");
	snprintf(dir, sizeof(dir), "/tmp/ftkit-marker-XXXXXX");
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	touch("trace_marker");
	touch("trace_marker_raw");
	setenv("FTK_TRACEFS", dir, 1);

	/* Unavailable: disabled handle, every call a no-op that returns 0. */
	setenv("FTK_TRACEFS", "/nonexistent/tracing", 1);
	off = ftk_marker_open(NULL, FTK_MARKER_RAW);
	ok(off != NULL, "open without tracefs still returns a handle");
	ok(!ftk_marker_enabled(off), "... disabled");
	is_int(ftk_marker_error(off), ENOENT, "... and says ENOENT");
	errno = 1234;
	nwrites = 0;
	counting = 1;
	ret = ftk_mark(off, "x %d", 1) + ftk_mark_begin(off, "a") + ftk_mark_end(off, NULL) +
	      ftk_mark_counter(off, "c", 1) + ftk_mark_raw(off, 1, "x", 1) +
	      ftk_mark_write(off, "x", 1) + ftk_mark(NULL, "null handle");
	counting = 0;
	ok(ret == 0 && nwrites == 0, "marks on it return 0 and write nothing");
	is_int(errno, 1234, "... and leave errno alone");
	ftk_marker_close(off);
	ftk_marker_close(NULL);
	setenv("FTK_TRACEFS", dir, 1);
	off = ftk_marker_open("no-such-instance", 0);
	ok(!ftk_marker_enabled(off) && ftk_marker_error(off) == ENOENT,
	   "a missing instance: disabled, ENOENT");
	ftk_marker_close(off);
	off = ftk_marker_open("../x", 0);
	ok(!ftk_marker_enabled(off) && ftk_marker_error(off) == EINVAL,
	   "an instance name with '/': disabled, EINVAL");
	ftk_marker_close(off);

	/* Available: exact bytes. */
	m = ftk_marker_open(NULL, FTK_MARKER_RAW);
	ok(ftk_marker_enabled(m) && ftk_marker_error(m) == 0, "open on the fake tracefs");
	MARK("hello world", ftk_mark(m, "hello %s", "world"));
	MARK("n=-42 u=42 x=2a X=2A o=52 c=z", ftk_mark(m, "n=%d u=%u x=%x X=%X o=%o c=%c",
						       -42, 42u, 42u, 42u, 42u, 'z'));
	MARK("ll=-9000000000 zu=18 lx=ffffffffffffffff",
	     ftk_mark(m, "ll=%lld zu=%zu lx=%lx", -9000000000LL, (size_t)18, -1UL));
	MARK("[   7] [7   ] [0007] [ab] 100%", ftk_mark(m, "[%4d] [%-4d] [%04d] [%.2s] 100%%", 7, 7,
						      7, "abc"));
	MARK("pi=3.14 e=2.718282", ftk_mark(m, "pi=%.2f e=%f", 3.14159, 2.7182818));
	{
		char want[64];

		snprintf(want, sizeof(want), "B|%d|parse %d", (int)getpid(), 3);
		reset("trace_marker");
		ftk_mark_begin(m, "parse %d", 3);
		is_str(slurp("trace_marker", NULL), want, "begin writes 'B|PID|parse 3'");
		snprintf(want, sizeof(want), "E|%d|parse", (int)getpid());
		reset("trace_marker");
		ftk_mark_end(m, "parse");
		is_str(slurp("trace_marker", NULL), want, "end writes 'E|PID|parse'");
		snprintf(want, sizeof(want), "E|%d", (int)getpid());
		reset("trace_marker");
		ftk_mark_end(m, NULL);
		is_str(slurp("trace_marker", NULL), want, "end(NULL) writes 'E|PID'");
		snprintf(want, sizeof(want), "C|%d|queue|-5", (int)getpid());
		reset("trace_marker");
		nwrites = nmallocs = 0;
		counting = 1;
		ftk_mark_counter(m, "queue", -5);
		counting = 0;
		is_str(slurp("trace_marker", NULL), want, "counter writes 'C|PID|queue|-5'");
		ok(nwrites == 1 && nmallocs == 0, "  one write, no malloc");
	}

	/* A long mark is cut to FTK_MARKER_MAX - 1 bytes, still one write. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	reset("trace_marker");
	nwrites = 0;
	counting = 1;
	ret = ftk_mark(m, "%s", big);
	counting = 0;
	slurp("trace_marker", &len);
	ok(ret == FTK_MARKER_MAX - 1 && len == FTK_MARKER_MAX - 1 && nwrites == 1,
	   "a long mark is cut to %d bytes in one write (got %zu)", FTK_MARKER_MAX - 1, len);

	/* Raw: 4 bytes of id, then the payload, one write. */
	reset("trace_marker_raw");
	nwrites = 0;
	counting = 1;
	ret = ftk_mark_raw(m, 0x01020304, "\xff\x00z", 3);
	counting = 0;
	{
		const char *raw = slurp("trace_marker_raw", &len);
		uint32_t id = 0x01020304;

		ok(ret == 7 && len == 7 && !memcmp(raw, &id, 4) && !memcmp(raw + 4, "\xff\x00z", 3) &&
		   nwrites == 1, "raw: id then payload, 7 bytes, one write");
	}
	is_int(ftk_mark_raw(m, 1, big, sizeof(big)), -EMSGSIZE, "raw: too long is -EMSGSIZE");

	/* The formatter agrees with libc. */
	SAME("%d|%i|%5d|%-5d|%05d|%+d|% d|%.3d", 12, -12, 42, 42, -42, 5, 5, 7);
	SAME("%u|%x|%#x|%#o|%X|%08x|%hhu|%hd", 3000000000u, 255u, 255u, 8u, 0xabcu, 0x1fu, 300, 70000);
	SAME("%ld|%lu|%lld|%llx|%zd|%zu", -1L, 1UL << 40, -(1LL << 62), 1ULL << 63, (ssize_t)-3,
	     (size_t)3);
	SAME("%s|%10s|%-10s|%.1s|%*d|%-*d|%.*s", "ab", "ab", "ab", "ab", 4, 1, 4, 1, 2, "abc");
	SAME("%c%c|%%|%5c|%-3c|", 'a', 'b', 'x', 'y');
	SAME("%.0f|%.1f|%f|%8.3f|%-8.2f|%08.2f|%+.1f", 2.6, -0.05, 123.456, 3.14159, 1.5, -1.5, 1.0);
	SAME("%p|%p", (void *)0x1234, (void *)&fmt);
	ok(fmt(buf, sizeof(buf), "%s", "0123456789abcdefghij") == 20 && !strcmp(buf,
	   "0123456789abcde"), "format into a short buffer: cut, NUL-terminated, full length returned");

	/* Threads and a signal handler: every mark arrives whole. */
	reset("trace_marker");
	ftk_marker_close(m);
	shared = ftk_marker_open(NULL, 0);
	signal(SIGUSR1, on_usr1);
	{
		pthread_t th[4];
		char *text, *line, *save;
		int good = 0, bad = 0, sigs = 0;

		for (long i = 0; i < 4; i++)
			pthread_create(&th[i], NULL, thread_fn, (void *)i);
		for (int i = 0; i < 50; i++)
			raise(SIGUSR1);
		for (int i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
		text = slurp("trace_marker", NULL);
		/* The fake file gets no newlines from a kernel: marks end with "end" or "mark". */
		for (line = strtok_r(text, "", &save); line; line = NULL) {
			const char *p = line;
			long id;
			int i, n;

			while (*p) {
				if (sscanf(p, "thread %ld mark %d end%n", &id, &i, &n) == 2 && n > 0) {
					good++;
					p += n;
				} else if (sscanf(p, "signal %d mark%n", &i, &n) == 1 && n > 0) {
					sigs++;
					p += n;
				} else {
					bad++;
					break;
				}
			}
		}
		ok(good == 2000 && sigs == 50 && bad == 0,
		   "4 threads x 500 marks and 50 from a signal handler arrive whole (%d, %d, bad %d)",
		   good, sigs, bad);
	}
	ftk_marker_close(shared);

	/*
	 * The recorder went away (its buffer stopped, the kernel says EBADF):
	 * every kind of mark returns 0, is counted as dropped, errno untouched.
	 */
	m = ftk_marker_open(NULL, FTK_MARKER_RAW);
	is_int((int)ftk_marker_dropped(m), 0, "a new handle has dropped nothing");
	fail_with = EBADF;
	errno = 1234;
	ret = ftk_mark(m, "x %d", 1) + ftk_mark_begin(m, "a") + ftk_mark_end(m, NULL) +
	      ftk_mark_end(m, "a") + ftk_mark_counter(m, "c", 1) + ftk_mark_raw(m, 1, "x", 1) +
	      ftk_mark_write(m, "x", 1);
	fail_with = 0;
	is_int(ret, 0, "marks into a buffer that does not record return 0 (no error)");
	is_int((int)ftk_marker_dropped(m), 7, "... and are counted as dropped");
	is_int(errno, 1234, "... and leave errno alone");
	fail_with = EIO;
	ret = ftk_mark(m, "x");
	fail_with = 0;
	is_int(ret, -EIO, "another write error is still returned");
	is_int((int)ftk_marker_dropped(m), 7, "... and not counted as dropped");
	reset("trace_marker");
	MARK("after", ftk_mark(m, "after"));
	ftk_marker_close(m);

	/* A link, or a FIFO, where trace_marker should be: disabled, nothing written there. */
	{
		char path[128], target[128];

		snprintf(path, sizeof(path), "%s/trace_marker", dir);
		snprintf(target, sizeof(target), "%s/elsewhere", dir);
		touch("elsewhere");
		unlink(path);
		if (symlink(target, path))
			bail_out("symlink: %s", strerror(errno));
		m = ftk_marker_open(NULL, 0);
		ok(!ftk_marker_enabled(m) && ftk_marker_error(m) == ELOOP,
		   "trace_marker a symbolic link: not followed, disabled, ELOOP");
		ftk_mark(m, "to elsewhere");
		is_str(slurp("elsewhere", NULL), "", "... and nothing written where it points");
		ftk_marker_close(m);
		unlink(path);
		unlink(target);
		if (mkfifo(path, 0600))
			bail_out("mkfifo: %s", strerror(errno));
		m = ftk_marker_open(NULL, 0);
		ok(!ftk_marker_enabled(m), "trace_marker a FIFO: no hang, disabled (error %d)",
		   ftk_marker_error(m));
		ftk_marker_close(m);
		unlink(path);
		touch("trace_marker");
	}

	slurp("trace_marker", NULL);
	unlink(strcat(strcpy(big, dir), "/trace_marker"));
	unlink(strcat(strcpy(big, dir), "/trace_marker_raw"));
	rmdir(dir);
	return done_testing();
}
