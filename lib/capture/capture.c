// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capture: per-CPU recorder threads that splice trace_pipe_raw into spools.
 *
 * Why by hand: libtracefs 1.6 has no recorder (trace-cmd's lives in
 * libtracecmd; doc/design.md, "Why the reader is ftkit's own"), and its
 * tracefs_iterate_raw_events() reads pages into user space.
 *
 * Each CPU thread:
 *   poll(trace_pipe_raw, stop eventfd)	the kernel wakes it at buffer_percent
 *   splice(trace_pipe_raw -> pipe)	whole pages only, no copy
 *   splice(pipe -> spool file)		pages move into the page cache
 * and after stop (tracing already off):
 *   splice until EAGAIN, then read(2) until EAGAIN: read() is the only way
 *   to get the page the writer was still filling, and it is read once, at
 *   the end, so no partly filled page is stored in the middle of the trace.
 *
 * Memory: one pipe per CPU (pipe_bytes) and one page; the spools are files.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include <ftkit/capture.h>

#include "capture-local.h"
#include "spool-local.h"
#include "internal.h"
#include "tracefs-local.h"

struct cap_cpu {
	struct ftk_capture	*c;
	char			*stats;		/* stats text at stop */
	char			*page;		/* for the final read(2) */
	struct ftk_capture_cpu	info;
	pthread_t		thread;
	uint64_t		base_overrun;
	uint64_t		base_dropped;
	uint64_t		base_read;
	uint64_t		spool_len[2];
	uint64_t		skip;		/* leading bytes add_to leaves out (flight) */
	pid_t			tid;
	int			cpu;
	int			trace_fd;
	int			pipe[2];
	int			spool[2];
	int			cur;		/* the spool being written */
	int			switched;	/* the other spool holds older pages */
	int			err;
	int			write_err;	/* the failure was the spool's, not the buffer's */
	bool			running;
	bool			linked;		/* spool_dir/cpuN to remove */
	struct ftk_errmsg	errmsg;
};

struct ftk_capture {
	struct ftk_tracefs	*t;
	struct ftk_capture_opts	o;
	struct cap_cpu		*cpus;
	int			*notrace;
	int			*send_fds;	/* the caller's cpu_fds, copied */
	char			*spool_dir;
	char			*set_event;	/* the events on at start, to see a change under us */
	uint64_t		t_start;
	uint64_t		t_stop;
	uint64_t		buffer_kb;
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	size_t			page_size;
	int			nr_ready;
	int			nr_threads;
	int			ncpus;
	int			stop_fd;
	int			onoff_fd;	/* tracing_on, for a thread that fails */
	int			failed;		/* first thread failure, set once */
	bool			started;
	bool			stopped;
	struct ftk_errmsg	err;
};

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The capture's failure: the reason in @c's tracefs handle. */
static int cap_fail_tracefs(struct ftk_capture *c, int err)
{
	return ftk_errmsg_set(&c->err, 0, NULL, err, "%s", ftk_tracefs_errmsg(c->t));
}

/* A "name: number" line of per_cpu/cpuN/stats. */
static uint64_t stat_value(const char *text, const char *name)
{
	const char *p = text;
	size_t n = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, n) && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static int read_stats(struct ftk_capture *c, int cpu, char **out)
{
	char file[64];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	return ftk_tracefs_read(c->t, file, out);
}

/* Whether @c's spools are named files (kept by a recorder that dies). */
static bool named_spools(const struct ftk_capture *c)
{
	return (c->o.flags & FTK_CAPTURE_NAMED_SPOOLS) && !c->o.max_kb;
}

/*
 * Spools are anonymous files (nothing to follow, nothing left behind), or
 * with FTK_CAPTURE_NAMED_SPOOLS the spools of a spool directory (spool.c):
 * a recording that dies leaves them for ftk_spool_recover().
 */
static int open_spool(struct ftk_capture *c, int cpu)
{
	int fd;

	if (c->send_fds) {
		fd = fcntl(c->send_fds[cpu], F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	if (c->o.flags & FTK_CAPTURE_MEMORY_SPOOLS) {
		fd = memfd_create("ftk-spool", MFD_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (!named_spools(c))
		return ftk_file_tmp(c->spool_dir);
	return ftk_spool_cpu_create(c->spool_dir, cpu);
}

/* A page decoder for this machine's ring buffer pages. */
static struct kbuffer *page_decoder(void)
{
	return kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			     __BYTE_ORDER == __LITTLE_ENDIAN ? KBUFFER_ENDIAN_LITTLE :
			     KBUFFER_ENDIAN_BIG);
}

/* Events in a ring buffer page (0 for a page kbuffer cannot load). */
static uint64_t page_events(struct kbuffer *kb, void *page)
{
	unsigned long long ts;
	uint64_t n = 0;
	void *d;

	if (kbuffer_load_subbuffer(kb, page))
		return 0;
	for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts))
		n++;
	return n;
}

/*
 * After a failure: the pages spliced out of the ring into the pipe that
 * never reached the spool are gone; count their events so that the loss
 * is reported, not silent.
 */
static void count_pipe_loss(struct cap_cpu *cc)
{
	size_t psz = cc->c->page_size;
	struct kbuffer *kb = page_decoder();
	ssize_t n;
	int fl = fcntl(cc->pipe[0], F_GETFL);

	if (!kb || fl < 0 || fcntl(cc->pipe[0], F_SETFL, fl | O_NONBLOCK) < 0) {
		kbuffer_free(kb);
		return;
	}
	while ((n = read(cc->pipe[0], cc->page, psz)) == (ssize_t)psz)
		cc->info.unstored += page_events(kb, cc->page);
	kbuffer_free(kb);
}

/* ------------------------------------------------------------ threads */

/* -m: two halves; when one is full, the other is emptied and written. */
static int maybe_switch(struct cap_cpu *cc, size_t n)
{
	uint64_t half = cc->c->o.max_kb * 1024 / 2;

	if (!half || !cc->spool_len[cc->cur] || cc->spool_len[cc->cur] + n <= half)
		return 0;
	cc->cur ^= 1;
	cc->switched = 1;
	if (ftruncate(cc->spool[cc->cur], 0) < 0 || lseek(cc->spool[cc->cur], 0, SEEK_SET) < 0)
		return -errno;
	cc->spool_len[cc->cur] = 0;
	return 0;
}

static int to_spool(struct cap_cpu *cc, ssize_t n)
{
	ssize_t r;
	int ret;

	ret = maybe_switch(cc, n);
	if (ret)
		return ret;
	while (n > 0) {
		r = splice(cc->pipe[0], NULL, cc->spool[cc->cur], NULL, n, SPLICE_F_MOVE);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cc->write_err = 1;
			return r < 0 ? -errno : -EIO;
		}
		n -= r;
		cc->spool_len[cc->cur] += r;
		cc->info.moved += r;
	}
	return 0;
}

/* Move every full page the kernel has; returns bytes moved or -errno. */
static ssize_t move_pages(struct cap_cpu *cc)
{
	uint64_t half = cc->c->o.max_kb * 1024 / 2;
	size_t want = cc->c->o.pipe_bytes;
	ssize_t n, total = 0;
	int ret;

	/* With a size limit, move no more than a half at a time. */
	if (half && half < want)
		want = half > cc->c->page_size ? half / cc->c->page_size * cc->c->page_size :
						 cc->c->page_size;

	for (;;) {
		n = splice(cc->trace_fd, NULL, cc->pipe[1], NULL, want,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return total;
		if (n < 0)
			return -errno;
		if (n == 0)
			return total;
		ret = to_spool(cc, n);
		if (ret)
			return ret;
		total += n;
	}
}

/* After stop: full pages first, then the partly filled one with read(2). */
static int drain(struct cap_cpu *cc)
{
	size_t psz = cc->c->page_size;
	ssize_t n, r, off;
	int ret;

	n = move_pages(cc);
	if (n < 0)
		return n;
	for (;;) {
		n = read(cc->trace_fd, cc->page, psz);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* read() hands back a page image; store whole pages. */
		if ((size_t)n < psz)
			memset(cc->page + n, 0, psz - n);
		ret = maybe_switch(cc, psz);
		if (ret)
			return ret;
		for (off = 0; off < (ssize_t)psz; off += r) {
			r = write(cc->spool[cc->cur], cc->page + off, psz - off);
			if (r < 0 && errno == EINTR) {
				r = 0;
				continue;
			}
			if (r <= 0) {
				cc->write_err = 1;
				return r < 0 ? -errno : -EIO;
			}
		}
		cc->spool_len[cc->cur] += psz;
		cc->info.moved += psz;
	}
	if (n < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static void *cpu_thread(void *arg)
{
	struct cap_cpu *cc = arg;
	struct ftk_capture *c = cc->c;
	struct pollfd p[2];
	int timeout = c->o.poll_ms > 0 ? c->o.poll_ms : -1;
	ssize_t n;
	int ret = 0, idle = 0;

	cc->tid = syscall(SYS_gettid);
	/* A real-time reader runs as soon as the kernel wakes it: no wait behind busy tasks. */
	if (c->o.rt_priority > 0) {
		struct sched_param sp = { .sched_priority = c->o.rt_priority };
		int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (err)
			pr_info("cpu%d: cannot use SCHED_FIFO %d (%s): normal scheduling\n",
				cc->cpu, c->o.rt_priority, strerror(err));
	}
	pthread_mutex_lock(&c->lock);
	c->nr_ready++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);

	p[0] = (struct pollfd){ .fd = cc->trace_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = c->stop_fd, .events = POLLIN };
	for (;;) {
		/*
		 * A wake-up that found no full page (buffer_percent 0 wakes on
		 * every event, but only whole pages can be spliced): sleep a
		 * little on the stop fd alone rather than spin on a readable fd.
		 */
		if (idle) {
			n = poll(&p[1], 1, timeout > 0 && timeout < 10 ? timeout : 10);
			if (n > 0)
				break;
			idle = 0;
		}
		n = poll(p, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (p[1].revents)
			break;
		cc->info.wakeups++;
		n = move_pages(cc);
		if (n < 0) {
			ret = n;
			break;
		}
		idle = n == 0 && p[0].revents;
	}
	/* After a failure (another thread's too) nothing more is moved. */
	if (!ret && !__atomic_load_n(&c->failed, __ATOMIC_ACQUIRE))
		ret = drain(cc);
	if (ret) {
		char file[64];
		int zero = 0;

		cc->err = ret;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cc->cpu);
		if (cc->write_err && c->send_fds)
			ftk_errmsg_set(&cc->errmsg, 0, NULL, ret, "cpu%d: cannot send its pages: %s",
				       cc->cpu, strerror(-ret));
		else if (cc->write_err)
			ftk_errmsg_set(&cc->errmsg, 0, NULL, ret, "cpu%d: cannot write the spool in "
				       "'%s': %s", cc->cpu, c->spool_dir, strerror(-ret));
		else
			ftk_errmsg_set(&cc->errmsg, 0, file, ret, "%s", strerror(-ret));
		if (cc->page)
			count_pipe_loss(cc);
		/*
		 * The first failure stops every thread at once and tells the
		 * caller. Tracing goes off at the same moment: a ring still
		 * written while nobody reads it would overwrite what the
		 * readers had not yet taken, with nothing to say so.
		 */
		if (__atomic_compare_exchange_n(&c->failed, &zero, ret, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			uint64_t one = 1;

			if (c->onoff_fd >= 0 && pwrite(c->onoff_fd, "0", 1, 0) < 0)
				pr_debug("cannot switch tracing off: %s\n", strerror(errno));
			if (write(c->stop_fd, &one, sizeof(one)) < 0)
				pr_debug("cannot wake the CPU threads: %s\n", strerror(errno));
			if (c->o.on_failure)
				c->o.on_failure(c->o.on_failure_arg, ret);
		}
	}
	/* A spool write cut short leaves part of a page: store whole pages only. */
	cc->spool_len[cc->cur] -= cc->spool_len[cc->cur] % c->page_size;
	cc->info.cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
	cc->info.bytes = cc->spool_len[cc->cur] + (cc->switched ? cc->spool_len[cc->cur ^ 1] : 0);
	cc->info.pages = cc->info.bytes / c->page_size;
	/* Sent: the peer sees the end of this CPU's data. */
	if (c->send_fds && cc->spool[0] >= 0) {
		close(cc->spool[0]);
		cc->spool[0] = -1;
	}
	return NULL;
}

/* Close every per-CPU fd: an instance with an open trace_pipe_raw cannot be removed. */
static void close_cpus(struct ftk_capture *c)
{
	int cpu, i;

	for (cpu = 0; c->cpus && cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];
		int *fds[] = { &cc->trace_fd, &cc->pipe[0], &cc->pipe[1], &cc->spool[0],
			       &cc->spool[1] };

		for (i = 0; i < (int)ARRAY_SIZE(fds); i++) {
			if (*fds[i] >= 0)
				close(*fds[i]);
			*fds[i] = -1;
		}
	}
}

/* Open trace_pipe_raw, the pipe and the spools of each online CPU. */
static int open_cpus(struct ftk_capture *c)
{
	char file[PATH_MAX], *text;
	int cpu, ret = 0, online = 0;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		snprintf(file, sizeof(file), "%s/per_cpu/cpu%d/trace_pipe_raw", ftk_tracefs_dir(c->t),
			 cpu);
		cc->trace_fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (cc->trace_fd < 0 && errno == ENOENT)
			continue;	/* offline CPU */
		if (cc->trace_fd < 0) {
			ret = ftk_tracefs_fail(c->t, file, "open", -errno);
			goto out;
		}
		cc->info.online = 1;
		online++;
		if (pipe2(cc->pipe, O_CLOEXEC) < 0) {
			ret = -errno;
			goto out;
		}
		/* Bigger pipes mean fewer splices; the limit is pipe-max-size. */
		if (fcntl(cc->pipe[1], F_SETPIPE_SZ, c->o.pipe_bytes) < 0) {
			int sz = fcntl(cc->pipe[1], F_GETPIPE_SZ);

			c->o.pipe_bytes = sz > 0 ? (unsigned int)sz : 65536;
		}
		cc->spool[0] = open_spool(c, cpu);
		cc->spool[1] = c->o.max_kb ? open_spool(c, cpu) : -1;
		cc->linked = cc->spool[0] >= 0 && named_spools(c);
		if (cc->spool[0] < 0 || (c->o.max_kb && cc->spool[1] < 0)) {
			ret = cc->spool[0] < 0 ? cc->spool[0] : cc->spool[1];
			pr_error("cannot create a spool file in '%s': %s\n", c->spool_dir,
				 strerror(-ret));
			goto out;
		}
		cc->page = malloc(c->page_size);
		if (!cc->page) {
			ret = -ENOMEM;
			goto out;
		}
		if (!read_stats(c, cpu, &text)) {
			cc->base_overrun = stat_value(text, "overrun");
			cc->base_dropped = stat_value(text, "dropped events");
			cc->base_read = stat_value(text, "read events");
			free(text);
		}
	}
	if (!online)
		ret = ftk_tracefs_fail(c->t, "per_cpu", "open", -ENOENT);
out:
	return ret;
}

/* ------------------------------------------------------------ API */

/**
 * ftk_capture_new() - prepare a capture of an instance's per-CPU buffers
 * @t: the instance (or top level) to record; kept, not owned
 * @opts: options, or NULL for the defaults
 * @out: where the capture goes
 *
 * Switches tracing off through the journal (unless FTK_CAPTURE_NO_ONOFF),
 * so that the caller can set up events before ftk_capture_start() opens
 * the buffers and switches it on. Nothing is opened yet: a tracer can
 * still be set (the kernel refuses while trace_pipe_raw is open).
 *
 * Return: 0 and a capture to free with ftk_capture_free(), or a negative
 * errno with the reason in ftk_tracefs_errmsg(@t) or, where no capture was
 * made, logged.
 */
FTK_API int ftk_capture_new(struct ftk_tracefs *t, const struct ftk_capture_opts *opts,
			    struct ftk_capture **out)
{
	struct ftk_capture *c;
	const char *dir;
	char *text;
	int cpu, ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ftk_err(-ENOMEM);
	c->t = t;
	c->stop_fd = -1;
	c->onoff_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	if (opts)
		memcpy(&c->o, opts, opts->sz < sizeof(c->o) ? opts->sz : sizeof(c->o));
	c->o.sz = sizeof(c->o);
	if (!c->o.buffer_percent)
		c->o.buffer_percent = 50;
	if (c->o.buffer_percent < 0)	/* -1: wake on every event */
		c->o.buffer_percent = 0;
	if (!c->o.pipe_bytes)
		c->o.pipe_bytes = 1 << 20;
	if (c->o.nr_notrace_pids > 0) {
		c->notrace = calloc(c->o.nr_notrace_pids, sizeof(int));
		if (!c->notrace) {
			ret = -ENOMEM;
			goto error;
		}
		memcpy(c->notrace, c->o.notrace_pids, c->o.nr_notrace_pids * sizeof(int));
	}
	c->o.notrace_pids = NULL;
	if ((c->o.flags & FTK_CAPTURE_MEMORY_SPOOLS) && (c->o.flags & FTK_CAPTURE_NAMED_SPOOLS)) {
		ret = -EINVAL;
		goto error;
	}
	dir = c->o.spool_dir;
	if (!dir)
		dir = getenv("TMPDIR");
	/* where messages say the spools are */
	if (c->o.flags & FTK_CAPTURE_MEMORY_SPOOLS)
		dir = "memory";
	c->spool_dir = strdup(dir && *dir ? dir : "/tmp");
	c->o.spool_dir = NULL;
	if (!c->spool_dir) {
		ret = -ENOMEM;
		goto error;
	}

	c->page_size = ftk_tracefs_page_size(t);
	if (c->o.pipe_bytes < c->page_size)
		c->o.pipe_bytes = c->page_size;

	c->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (c->ncpus < 1)
		c->ncpus = 1;
	if (c->o.cpu_fds) {
		if (c->o.nr_cpu_fds != c->ncpus || c->o.max_kb ||
		    (c->o.flags & FTK_CAPTURE_NAMED_SPOOLS)) {
			ret = -EINVAL;
			goto error;
		}
		c->send_fds = malloc(c->ncpus * sizeof(int));
		if (!c->send_fds) {
			ret = -ENOMEM;
			goto error;
		}
		memcpy(c->send_fds, c->o.cpu_fds, c->ncpus * sizeof(int));
	}
	c->o.cpu_fds = NULL;
	c->cpus = calloc(c->ncpus, sizeof(*c->cpus));
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!c->cpus || c->stop_fd < 0) {
		ret = c->cpus ? -errno : -ENOMEM;
		goto error;
	}
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		cc->c = c;
		cc->cpu = cpu;
		cc->trace_fd = cc->pipe[0] = cc->pipe[1] = cc->spool[0] = cc->spool[1] = -1;
	}
	if (!ftk_tracefs_read(t, "buffer_size_kb", &text)) {
		c->buffer_kb = strtoull(text, NULL, 10);
		free(text);
	}
	if (!(c->o.flags & FTK_CAPTURE_NO_ONOFF)) {
		ret = ftk_tracefs_set(t, "tracing_on", "0");
		if (ret)
			goto error;
	}
	*out = c;
	return 0;
error:
	ftk_capture_free(c);
	return ftk_err(ret);
}

/**
 * ftk_capture_free() - close a capture (NULL is fine)
 * @c: the capture
 *
 * Stops the threads if they still run (without saving anything) and
 * closes the spools, which were never linked into the file system (or,
 * with FTK_CAPTURE_NAMED_SPOOLS, removes them).
 */
FTK_API void ftk_capture_free(struct ftk_capture *c)
{
	int cpu;

	if (!c)
		return;
	if (c->started && !c->stopped)
		ftk_capture_stop(c);
	for (cpu = 0; c->cpus && cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		free(cc->page);
		free(cc->stats);
	}
	for (cpu = 0; c->cpus && named_spools(c) && cpu < c->ncpus; cpu++)
		if (c->cpus[cpu].linked)
			ftk_spool_cpu_remove(c->spool_dir, cpu);
	close_cpus(c);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	if (c->onoff_fd >= 0)
		close(c->onoff_fd);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c->cpus);
	free(c->notrace);
	free(c->spool_dir);
	free(c->send_fds);
	free(c->set_event);
	free(c);
}

/**
 * ftk_capture_start() - start the CPU threads and switch tracing on
 * @c: the capture
 *
 * Sets buffer_percent, puts the threads' ids (and the notrace_pids of the
 * options) in set_event_notrace_pid unless FTK_CAPTURE_TRACE_SELF, then
 * writes tracing_on; all through the journal. The threads block every
 * signal, so signals reach the caller's threads.
 *
 * Return: 0, or a negative errno with the reason in ftk_capture_errmsg().
 */
FTK_API int ftk_capture_start(struct ftk_capture *c)
{
	sigset_t all, old;
	char val[32], *list = NULL, *kept;
	size_t len = 0;
	FILE *m;
	int cpu, ret = 0, i;

	if (c->started)
		return ftk_err(-EBUSY);
	ret = open_cpus(c);
	if (ret) {
		cap_fail_tracefs(c, ret);
		close_cpus(c);
		return ftk_err(ret);
	}
	if (ftk_tracefs_exists(c->t, "buffer_percent")) {
		snprintf(val, sizeof(val), "%d", c->o.buffer_percent);
		ret = ftk_tracefs_set(c->t, "buffer_percent", val);
		if (ret) {
			cap_fail_tracefs(c, ret);
			close_cpus(c);
			return ftk_err(ret);
		}
	}
	/* Opened now: a failing thread switches tracing off with one write. */
	if (!(c->o.flags & FTK_CAPTURE_NO_ONOFF)) {
		char file[PATH_MAX];

		snprintf(file, sizeof(file), "%s/tracing_on", ftk_tracefs_dir(c->t));
		c->onoff_fd = open(file, O_WRONLY | O_CLOEXEC);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		if (cc->trace_fd < 0)
			continue;
		ret = -pthread_create(&cc->thread, NULL, cpu_thread, cc);
		if (ret)
			break;
		cc->running = true;
		c->nr_threads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	c->started = true;
	if (ret) {
		ftk_errmsg_set(&c->err, 0, NULL, ret, "cannot start the CPU threads: %s",
			       strerror(-ret));
		goto error;
	}
	pthread_mutex_lock(&c->lock);
	while (c->nr_ready < c->nr_threads)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);

	if (!(c->o.flags & FTK_CAPTURE_TRACE_SELF)) {
		if (ftk_tracefs_exists(c->t, "set_event_notrace_pid")) {
			m = open_memstream(&list, &len);
			if (!m) {
				ret = -ENOMEM;
				goto error;
			}
			for (cpu = 0; cpu < c->ncpus; cpu++)
				if (c->cpus[cpu].running)
					fprintf(m, "%d ", (int)c->cpus[cpu].tid);
			for (i = 0; i < c->o.nr_notrace_pids; i++)
				fprintf(m, "%d ", c->notrace[i]);
			/* kept: those already there (the recorder's watchdog, the user's) */
			if (!ftk_tracefs_read(c->t, "set_event_notrace_pid", &kept)) {
				for (i = 0; kept[i]; i++)
					fputc(kept[i] == '\n' ? ' ' : kept[i], m);
				free(kept);
			}
			fclose(m);
			ret = ftk_tracefs_set(c->t, "set_event_notrace_pid", list);
			free(list);
			if (ret) {
				cap_fail_tracefs(c, ret);
				goto error;
			}
		} else {
			pr_info("no set_event_notrace_pid here: the recorder's own events stay in\n");
		}
	}
	c->t_start = now_ns(CLOCK_MONOTONIC);
	if (ftk_tracefs_read(c->t, "set_event", &c->set_event))
		c->set_event = NULL;
	if (!(c->o.flags & FTK_CAPTURE_NO_ONOFF)) {
		ret = ftk_tracefs_write(c->t, "tracing_on", "1");
		if (ret) {
			cap_fail_tracefs(c, ret);
			goto error;
		}
	}
	return 0;
error:
	ftk_capture_stop(c);
	close_cpus(c);
	return ftk_err(ret);
}

/*
 * Another program (ftreset, a person) switched tracing off or turned the
 * events off in our buffer while we recorded: what we hold is not what was
 * asked for. -ECANCELED with the reason; the data is still saved.
 */
static int changed_under_us(struct ftk_capture *c)
{
	const char *where = ftk_tracefs_instance(c->t) ? ftk_tracefs_instance(c->t) : "top level";
	char *on = NULL, *ev = NULL;
	int ret = 0;

	/* A failing thread switched it off itself. */
	if (!(c->o.flags & FTK_CAPTURE_NO_ONOFF) && !c->failed &&
	    !ftk_tracefs_read(c->t, "tracing_on", &on) &&
	    atoi(on) == 0)
		ret = ftk_errmsg_set(&c->err, 0, NULL, -ECANCELED, "%s: tracing was switched off "
				     "by another program while recording", where);
	if (!ret && c->set_event && *ftk_strstrip(c->set_event) &&
	    !ftk_tracefs_read(c->t, "set_event", &ev) &&
	    strcmp(ftk_strstrip(ev), c->set_event))
		ret = ftk_errmsg_set(&c->err, 0, NULL, -ECANCELED, "%s: events were %s by another "
				     "program while recording", where, *ev ? "changed" : "disabled");
	free(on);
	free(ev);
	return ret;
}

/**
 * ftk_capture_stop() - switch tracing off, drain every CPU and join
 * @c: the capture
 *
 * After this the spools hold everything the buffers held, the last partly
 * filled pages included, and the per-CPU counts (lost events from the
 * stats file) are final.
 *
 * Return: 0, or the first failure's negative errno, its text in
 * ftk_capture_errmsg(): -ECANCELED when another program switched tracing
 * off or changed the events of the buffer while it recorded (what was
 * stored can still be saved), the errno of a failed thread (see
 * ftk_capture_failed()).
 */
FTK_API int ftk_capture_stop(struct ftk_capture *c)
{
	uint64_t one = 1;
	int cpu, ret = 0;
	char *text;

	if (!c->started || c->stopped)
		return 0;
	c->stopped = true;
	ret = changed_under_us(c);
	if (!(c->o.flags & FTK_CAPTURE_NO_ONOFF)) {
		int r = ftk_tracefs_write(c->t, "tracing_on", "0");

		if (r && !ret)
			ret = cap_fail_tracefs(c, r);
	}
	c->t_stop = now_ns(CLOCK_MONOTONIC);
	if (write(c->stop_fd, &one, sizeof(one)) < 0 && !ret)
		ret = ftk_errmsg_set(&c->err, 0, NULL, -errno, "cannot wake the CPU threads: %s",
				     strerror(errno));
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		if (!cc->running)
			continue;
		pthread_join(cc->thread, NULL);
		cc->running = false;
		if (cc->err && !ret && (!c->failed || cc->err == c->failed))
			ret = ftk_errmsg_set(&c->err, 0, NULL, cc->err, "%s", cc->errmsg.text);
		/* The buffers are done with; only the spools are still needed. */
		close(cc->trace_fd);
		close(cc->pipe[0]);
		close(cc->pipe[1]);
		cc->trace_fd = cc->pipe[0] = cc->pipe[1] = -1;
	}
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];
		uint64_t ov, dr, rd;

		if (!cc->info.online || read_stats(c, cpu, &text))
			continue;
		ov = stat_value(text, "overrun");
		dr = stat_value(text, "dropped events");
		rd = stat_value(text, "read events");
		cc->info.lost = (ov - cc->base_overrun) + (dr - cc->base_dropped);
		cc->info.read_events = rd - cc->base_read;
		/* After a failure, what the ring still holds was never stored. */
		if (c->failed)
			cc->info.unstored += stat_value(text, "entries");
		free(cc->stats);
		cc->stats = text;
	}
	return ftk_err(ret);
}

/** ftk_capture_cpus() - the number of CPUs (configured, online or not) */
FTK_API int ftk_capture_cpus(const struct ftk_capture *c)
{
	return c->ncpus;
}

/**
 * ftk_capture_cpu_info() - what one CPU's capture did
 * @c: the capture
 * @cpu: the CPU
 * @info: filled in; final after ftk_capture_stop()
 *
 * Return: 0 or -EINVAL.
 */
FTK_API int ftk_capture_cpu_info(const struct ftk_capture *c, int cpu,
				 struct ftk_capture_cpu *info)
{
	if (cpu < 0 || cpu >= c->ncpus)
		return ftk_err(-EINVAL);
	*info = c->cpus[cpu].info;
	return 0;
}

/** ftk_capture_duration_ns() - time between start and stop, in nanoseconds */
FTK_API uint64_t ftk_capture_duration_ns(const struct ftk_capture *c)
{
	uint64_t end = c->t_stop ? c->t_stop : now_ns(CLOCK_MONOTONIC);

	return c->t_start ? end - c->t_start : 0;
}

/**
 * ftk_capture_suggest_kb() - a per-CPU buffer size that would have lost nothing
 * @c: the stopped capture
 * @cpu: the CPU
 * @kb: where the size in KiB goes
 *
 * From the measured fill rate: the buffer must hold what arrives while the
 * reader is away, and the events lost show how far short it fell. The
 * answer is the current size scaled by (read + lost) / read, doubled for
 * headroom, rounded up to a power of two, and at least a quarter second
 * of data at the CPU's average rate.
 *
 * Return: 0 (and *@kb the current size when nothing was lost), or -EINVAL.
 */
FTK_API int ftk_capture_suggest_kb(const struct ftk_capture *c, int cpu, uint64_t *kb)
{
	const struct ftk_capture_cpu *i;
	uint64_t cur = c->buffer_kb ? c->buffer_kb : 1408, want, rate_kb, p = 1;
	uint64_t dur = ftk_capture_duration_ns(c);
	double f;

	if (cpu < 0 || cpu >= c->ncpus)
		return ftk_err(-EINVAL);
	i = &c->cpus[cpu].info;
	*kb = cur;
	if (!i->lost)
		return 0;
	f = i->read_events ? (double)(i->read_events + i->lost) / i->read_events : 4.0;
	want = (uint64_t)(cur * f * 2);
	rate_kb = dur ? (uint64_t)((double)i->moved * f / 1024 / (dur / 1e9)) : 0;
	if (want < rate_kb / 4)
		want = rate_kb / 4;
	while (p < want)
		p <<= 1;
	*kb = p;
	return 0;
}

/**
 * ftk_capture_add_to() - hand the captured data to a trace.dat writer
 * @c: the stopped capture
 * @w: the writer; the spools must stay open (do not free @c) until
 *     ftk_tracewrite_save() returned
 *
 * Adds each CPU's spool (the older half first with max_kb) and its stats
 * text, which the writer stores as CPUSTAT options, as trace-cmd does.
 *
 * Return: 0, -EBUSY while the capture runs, or -ENOMEM.
 */
FTK_API int ftk_capture_add_to(struct ftk_capture *c, struct ftk_tracewrite *w)
{
	int cpu, ret = 0;

	if (c->started && !c->stopped)
		return ftk_err(-EBUSY);
	if (c->send_fds)
		return ftk_err(-EINVAL);	/* sent, not kept */
	for (cpu = 0; cpu < c->ncpus && !ret; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		if (!cc->info.online)
			continue;
		if (cc->switched)
			ret = ftk_tracewrite_add(w, cpu, cc->spool[cc->cur ^ 1], 0,
						 cc->spool_len[cc->cur ^ 1]);
		if (!ret && cc->skip < cc->spool_len[cc->cur])
			ret = ftk_tracewrite_add(w, cpu, cc->spool[cc->cur], cc->skip,
						 cc->spool_len[cc->cur] - cc->skip);
		if (!ret && cc->stats)
			ret = ftk_tracewrite_cpustat(w, cpu, cc->stats);
	}
	return ftk_err(ret);
}

/**
 * ftk_capture_save() - write the captured data as a trace.dat
 * @c: the stopped capture
 * @path: the file to write
 * @wopts: writer options (version, compression), or NULL for the defaults
 *
 * ftk_tracemeta_new(), ftk_tracewrite_new(), ftk_capture_add_to() and
 * ftk_tracewrite_save() in one: the metadata is read now, the spools are
 * copied into the file with copy_file_range(2).
 *
 * Return: 0, or a negative errno with the reason in ftk_capture_errmsg().
 */
FTK_API int ftk_capture_save(struct ftk_capture *c, const char *path,
			     const struct ftk_tracewrite_opts *wopts)
{
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m;
	int ret;

	if (c->started && !c->stopped)
		return ftk_err(-EBUSY);
	ret = ftk_tracemeta_new(c->t, wopts, NULL, &m);
	if (!ret)
		ret = ftk_tracewrite_new(m, wopts, &w);
	if (ret) {
		ftk_errmsg_set(&c->err, 0, NULL, ret, "cannot write '%s': %s", path,
			       m && ftk_tracemeta_errmsg(m)[0] ? ftk_tracemeta_errmsg(m) :
			       strerror(-ret));
		ftk_tracemeta_free(m);
		return ftk_err(ret);
	}
	ret = ftk_capture_add_to(c, w);
	if (ret) {
		ftk_errmsg_set(&c->err, 0, NULL, ret, "cannot write '%s': %s", path, strerror(-ret));
	} else {
		ret = ftk_tracewrite_save(w, path);
		if (ret)
			ftk_errmsg_set(&c->err, 0, NULL, ret, "%s", ftk_tracewrite_errmsg(w));
	}
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	return ftk_err(ret);
}

/**
 * ftk_capture_failed() - whether a CPU thread failed
 * @c: the capture
 *
 * Context: may be called while the threads run (the value is set once).
 *
 * Return: 0 while all is well, else the first failure's negative errno
 * (-ENOSPC, -EDQUOT or -EIO when the spool's file system failed): the
 * threads have stopped, and ftk_capture_stop() gives its text.
 */
FTK_API int ftk_capture_failed(const struct ftk_capture *c)
{
	return __atomic_load_n(&c->failed, __ATOMIC_ACQUIRE);
}

/* One stored page of a CPU: which spool, where, and its time stamp. */
struct spage {
	uint64_t	ts;
	uint64_t	off;
	int		spool;
};

/* The stored pages of @cc, oldest first (the older spool of max_kb first); -errno. */
static int stored_pages(struct cap_cpu *cc, struct spage **out, size_t *nr)
{
	size_t psz = cc->c->page_size, n = 0, i;
	int order[2] = { cc->switched ? cc->cur ^ 1 : cc->cur, cc->cur };
	struct spage *p;
	uint64_t off, ts;

	*out = NULL;
	*nr = 0;
	for (i = 0; i < (cc->switched ? 2u : 1u); i++)
		n += cc->spool_len[order[i]] / psz;
	if (!n)
		return 0;
	p = calloc(n, sizeof(*p));
	if (!p)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < (cc->switched ? 2u : 1u); i++) {
		off = order[i] == cc->cur ? cc->skip : 0;
		for (; off + psz <= cc->spool_len[order[i]]; off += psz) {
			if (pread(cc->spool[order[i]], &ts, sizeof(ts), off) != sizeof(ts)) {
				free(p);
				return -EIO;
			}
			p[n++] = (struct spage){ ts, off, order[i] };
		}
	}
	*out = p;
	*nr = n;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Cut the page at @p of @cc after its last event before @cut: the header's
 * commit (its data size) is lowered, a stored missed-events count moves
 * along. Returns the events cut, or 0 when the page stays as it is; *@empty
 * is set when no event of the page is before @cut.
 */
static uint64_t cut_page(struct cap_cpu *cc, struct kbuffer *kb, const struct spage *p,
			 uint64_t cut, bool *empty)
{
	const unsigned long missed_events = 1UL << 31, missed_stored = 1UL << 30;
	size_t psz = cc->c->page_size, hdr = 8 + sizeof(long);
	unsigned long long ts;
	unsigned long commit, flags, size, missed = 0;
	uint64_t kept = 0, dropped = 0;
	long at = -1;
	void *d;

	*empty = false;
	if (pread(cc->spool[p->spool], cc->page, psz, p->off) != (ssize_t)psz ||
	    kbuffer_load_subbuffer(kb, cc->page))
		return 0;
	for (d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
		if (ts < cut) {
			kept++;
			continue;
		}
		if (at < 0)
			at = kbuffer_curr_index(kb);
		dropped++;
	}
	if (!kept) {
		*empty = true;
		return dropped;
	}
	if (!dropped)
		return 0;
	memcpy(&commit, (char *)cc->page + 8, sizeof(commit));
	flags = commit & (missed_events | missed_stored);
	size = commit & ~(missed_events | missed_stored);
	if ((flags & missed_stored) && hdr + size + sizeof(long) <= psz)
		memcpy(&missed, (char *)cc->page + hdr + size, sizeof(missed));
	commit = (unsigned long)at | flags;
	memcpy((char *)cc->page + 8, &commit, sizeof(commit));
	memset((char *)cc->page + hdr + at, 0, psz - hdr - at);
	if (flags & missed_stored)
		memcpy((char *)cc->page + hdr + at, &missed, sizeof(missed));
	if (pwrite(cc->spool[p->spool], cc->page, psz, p->off) != (ssize_t)psz)
		return 0;
	return dropped;
}

/* Drop @cc's pages from @first on (and cut the one before at @cut); the bytes freed. */
static uint64_t drop_from(struct cap_cpu *cc, struct kbuffer *kb, struct spage *p, size_t nr,
			  size_t first, uint64_t cut)
{
	size_t psz = cc->c->page_size, i;
	uint64_t freed = 0;
	bool empty = false;
	int sp;

	/* The last page kept may hold events at or after the cut: they go too. */
	while (first > 0) {
		uint64_t n = cut_page(cc, kb, &p[first - 1], cut, &empty);

		if (empty) {	/* counted with the whole pages below */
			first--;
			continue;
		}
		cc->info.unstored += n;
		break;
	}
	for (i = first; i < nr; i++)
		if (pread(cc->spool[p[i].spool], cc->page, psz, p[i].off) == (ssize_t)psz)
			cc->info.unstored += page_events(kb, cc->page);
	if (first == nr)
		return 0;
	/* Truncate the spool holding the first page dropped, and empty a newer one. */
	for (sp = 0; sp < 2; sp++) {
		uint64_t keep;

		if (cc->spool[sp] < 0 || !cc->spool_len[sp])
			continue;
		if (p[first].spool == sp)
			keep = p[first].off;
		else if (cc->switched && p[first].spool != cc->cur && sp == cc->cur)
			keep = cc->skip;	/* the whole newer spool goes */
		else
			continue;
		if (keep < cc->spool_len[sp] && ftruncate(cc->spool[sp], keep) == 0) {
			freed += cc->spool_len[sp] - keep;
			cc->spool_len[sp] = keep;
		}
	}
	return freed;
}

/**
 * ftk_capture_shrink() - drop the newest half of what was stored, at one time stamp
 * @c: the stopped capture
 *
 * For a file system too full to take the file: picks the time stamp that
 * leaves about half of the stored pages (of all CPUs together) before it,
 * and drops every event at or after it, on every CPU: whole pages, and the
 * newer events of the last page kept. What is left is one window, the same
 * for every CPU, and a save that failed with -ENOSPC can be tried again
 * with it. The events dropped are counted in the CPUs' unstored counts
 * (ftk_capture_cpu_info()).
 *
 * Return: the bytes dropped, 0 when nothing is left to drop (or the
 * capture still runs).
 */
FTK_API uint64_t ftk_capture_shrink(struct ftk_capture *c)
{
	struct spage **pages;
	uint64_t freed = 0, cut, *all = NULL;
	size_t *nr, total = 0, i;
	struct kbuffer *kb;
	int cpu;

	if ((c->started && !c->stopped) || c->send_fds)
		return 0;
	pages = calloc(c->ncpus, sizeof(*pages));
	nr = calloc(c->ncpus, sizeof(*nr));
	kb = page_decoder();
	if (!pages || !nr || !kb)
		goto out;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		if (!c->cpus[cpu].info.online || !c->cpus[cpu].page)
			continue;
		if (stored_pages(&c->cpus[cpu], &pages[cpu], &nr[cpu]))
			goto out;
		total += nr[cpu];
	}
	if (!total)
		goto out;
	all = malloc(total * sizeof(*all));
	if (!all)
		goto out;
	total = 0;
	for (cpu = 0; cpu < c->ncpus; cpu++)
		for (i = 0; i < nr[cpu]; i++)
			all[total++] = pages[cpu][i].ts;
	qsort(all, total, sizeof(*all), cmp_u64);
	/* Pages starting at or after the cut go: at least the newer half. */
	cut = all[total / 2];
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		struct cap_cpu *cc = &c->cpus[cpu];

		if (!nr[cpu])
			continue;
		for (i = 0; i < nr[cpu] && pages[cpu][i].ts < cut; i++)
			;
		freed += drop_from(cc, kb, pages[cpu], nr[cpu], i, cut);
		cc->info.bytes = cc->spool_len[cc->cur] - cc->skip +
				 (cc->switched ? cc->spool_len[cc->cur ^ 1] : 0);
		cc->info.pages = cc->info.bytes / c->page_size;
	}
out:
	for (cpu = 0; pages && cpu < c->ncpus; cpu++)
		free(pages[cpu]);
	free(pages);
	free(nr);
	free(all);
	kbuffer_free(kb);
	return freed;
}

/** ftk_capture_errmsg() - the last failure's text; owned by the capture */
FTK_API const char *ftk_capture_errmsg(const struct ftk_capture *c)
{
	return c->err.text;
}

/* ------------------------------------------------------------ for lib/flight.c */

/* The one spool of @cpu of a stopped capture without max_kb: its fd, length and page size. */
int ftk_capture_spool(const struct ftk_capture *c, int cpu, int *fd, uint64_t *len,
		      size_t *page_size)
{
	const struct cap_cpu *cc;

	if (cpu < 0 || cpu >= c->ncpus || !c->stopped || c->o.max_kb)
		return -EINVAL;
	cc = &c->cpus[cpu];
	if (!cc->info.online)
		return -ENOENT;
	*fd = cc->spool[cc->cur];
	*len = cc->spool_len[cc->cur];
	*page_size = c->page_size;
	return 0;
}

/*
 * Put only bytes [@from, @to) (whole pages) of @cpu's spool in the file:
 * the pages before @from are left out, those from @to on are truncated away.
 */
int ftk_capture_range(struct ftk_capture *c, int cpu, uint64_t from, uint64_t to)
{
	struct cap_cpu *cc;

	if (cpu < 0 || cpu >= c->ncpus || c->o.max_kb || from % c->page_size ||
	    to % c->page_size || from > to)
		return -EINVAL;
	cc = &c->cpus[cpu];
	if (to > cc->spool_len[cc->cur])
		to = cc->spool_len[cc->cur];
	if (from > to)
		from = to;
	if (to < cc->spool_len[cc->cur]) {
		if (ftruncate(cc->spool[cc->cur], to) < 0)
			return -errno;
		cc->spool_len[cc->cur] = to;
	}
	cc->skip = from;
	cc->info.bytes = to - from;
	cc->info.pages = cc->info.bytes / c->page_size;
	return 0;
}
