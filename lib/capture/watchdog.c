// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * watchdog: a child of the recorder that acts when the recorder is killed
 * (SIGKILL, a crash) and so cannot put its instance back itself. Without
 * it, the orphaned instance keeps tracing until some later ftkit run
 * reaps it, and reaps the ring with it.
 *
 * The child waits in poll(2) on a socket pair and a pidfd on the recorder:
 *   'S' / 's'	save the ring at a death from now on / not (a flight
 *		recorder saves only a window it was asked for)
 *   'Q'	goodbye: the recorder ends normally and tears down itself
 *   EOF, or the pidfd readable: the recorder is gone. Tracing goes off
 *		in the instance, the ring is appended to the spools (through
 *		spool.c, the layout's one owner), a template is written where
 *		there is none, and the instance the recorder made is removed.
 *
 * It is forked before tracing goes on, blocks before the fork returns, and
 * puts its PID in set_event_notrace_pid, so that it is in no trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/instance.h>
#include <ftkit/trigger.h>
#include <ftkit/watchdog.h>

#include <ftkit/capture.h>

#include "internal.h"
#include "spool-local.h"
#include "tracefs-local.h"

struct ftk_watchdog {
	struct ftk_tracefs		*t;
	struct ftk_spool		*spool;
	struct ftk_tracewrite_opts	wopts;
	int				has_wopts;
	unsigned int			flags;
	int				created;	/* the recorder made the instance */
	dev_t				dev;		/* the instance directory, to know it again */
	ino_t				ino;
	pid_t				owner;		/* the recorder */
	pid_t				pid;		/* the watchdog */
	int				fd;		/* the recorder's end of the socket pair */
	long long			saved;		/* bytes of ring saved at a rescue */
};

/* Whether @t's journal says the handle created its instance (it removes it at restore). */
static int made_by(const struct ftk_tracefs *t)
{
	const struct undo *u;

	for (u = t->journal; u; u = u->prev)
		if (u->kind == UNDO_RMDIR && t->dir && !strcmp(u->file, t->dir))
			return 1;
	return 0;
}

/* Write all of @len bytes; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

/* What the ring of @cpu holds, appended to its spool; bytes saved, or -errno. */
static long long save_cpu(struct ftk_watchdog *wd, const char *dir, int cpu, char *page,
			  size_t psz, long long limit)
{
	char file[64], path[PATH_MAX];
	long long saved = 0;
	int in, out = -1, ret = 0;
	ssize_t n = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	if (ftk_tracefs_path(wd->t, file, path, sizeof(path)))
		return -ENAMETOOLONG;
	in = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -errno;
	/* tracing is off: the ring empties, the last partly filled page included */
	while (saved < limit && (n = read(in, page, psz)) > 0) {
		if ((size_t)n != psz)
			memset(page + n, 0, psz - n);
		if (out < 0 && (out = ftk_spool_cpu_append(dir, cpu, psz)) < 0) {
			ret = out;
			break;
		}
		ret = write_all(out, page, psz);
		if (ret)
			break;
		saved += psz;
	}
	if (saved < limit && n < 0 && errno != EAGAIN && !ret)
		ret = -errno;
	if (out >= 0 && fsync(out) < 0 && !ret)
		ret = -errno;
	if (out >= 0)
		close(out);
	close(in);
	return ret ? ret : saved;
}

/* The ring of every CPU into the spools, and a template where there is none. */
static void save_ring(struct ftk_watchdog *wd)
{
	const char *dir = ftk_spool_dir(wd->spool);
	size_t psz = ftk_tracefs_page_size(wd->t);
	long long total = 0, n, limit = 1ll << 40;
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), cpu;
	struct ftk_tracewrite *w = NULL;
	char *page = malloc(psz), *kb;

	if (!page || !dir)
		goto out;
	/* no more than a ring's worth, should tracing have stayed on */
	if (!ftk_tracefs_read(wd->t, "buffer_size_kb", &kb)) {
		n = strtoll(kb, NULL, 10);
		if (n > 0 && n < 1ll << 30)
			limit = n * 1024 + 16 * (long long)psz;
		free(kb);
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		n = save_cpu(wd, dir, cpu, page, psz, limit);
		if (n < 0)
			pr_warn("watchdog: cannot save cpu%d's ring into '%s': %s\n", cpu, dir,
				strerror(-n));
		else
			total += n;
	}
	if (wd->has_wopts && !ftk_spool_has_template(dir) && total) {
		struct ftk_tracemeta *m = NULL;
		int ret = ftk_tracemeta_new(wd->t, &wd->wopts, NULL, &m);

		if (!ret)
			ret = ftk_tracewrite_new(m, &wd->wopts, &w);
		if (ret)
			pr_warn("watchdog: cannot write the recovery template in '%s': %s\n", dir,
				m && ftk_tracemeta_errmsg(m)[0] ? ftk_tracemeta_errmsg(m) :
				strerror(-ret));
		else if (ftk_spool_save_template(wd->spool, w))
			pr_warn("watchdog: %s\n", ftk_spool_errmsg(wd->spool));
		ftk_tracewrite_free(w);
		ftk_tracemeta_free(m);
	}
	wd->saved = total;
out:
	free(page);
}

/*
 * Whether the instance is still the one the dead recorder had: the same
 * directory (not made again since), and not named for another live run
 * (the dead recorder, a zombie until reaped, still counts as live).
 */
static int still_ours(struct ftk_watchdog *wd)
{
	struct stat st;
	pid_t pid = 0;

	if (stat(wd->t->dir, &st) < 0 || st.st_dev != wd->dev || st.st_ino != wd->ino)
		return 0;
	return ftk_instance_owner(wd->t->instance, &pid) != FTK_INSTANCE_LIVE || pid == wd->owner;
}

/* The recorder is gone without its goodbye: put its instance out of use. */
static void rescue(struct ftk_watchdog *wd, int save)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char path[PATH_MAX];
	int ret, tries, hold = -1;

	/* a file of it held open: another run's reaper cannot take it (EBUSY) while we save */
	if (!ftk_tracefs_path(wd->t, "tracing_on", path, sizeof(path)))
		hold = open(path, O_RDONLY | O_CLOEXEC);
	if (!still_ours(wd)) {
		if (hold >= 0)
			close(hold);
		return;
	}
	ret = ftk_tracefs_write(wd->t, "tracing_on", "0");
	if (ret)
		pr_warn("watchdog: %s\n", ftk_tracefs_errmsg(wd->t));
	if (save && wd->spool)
		save_ring(wd);
	if (hold >= 0)
		close(hold);
	/* its files may still be closing */
	ret = 0;
	for (tries = 0; wd->created && tries < 50; tries++) {
		ret = ftk_instance_remove(wd->t, wd->t->instance);
		if (ret != -EBUSY)
			break;
		/*
		 * Hist triggers that use each other's variables (--on-latency's
		 * onmatch()) hold the instance: EBUSY until they are gone, in
		 * the kernel's order. Read only then: listing every event's
		 * trigger file takes a while under emulation.
		 */
		if (!tries)
			ftk_trigger_clear(wd->t, NULL);
		else
			nanosleep(&pause, NULL);
	}
	if (ret)
		pr_warn("watchdog: %s\n", ftk_tracefs_errmsg(wd->t));
	if (save && wd->spool)
		pr_warn("watchdog: recorder %d died: %lld KiB of its ring saved in '%s'\n",
			(int)wd->owner, wd->saved / 1024, ftk_spool_dir(wd->spool));
}

/* Close every descriptor above 2 but @a and @b (-1: none). */
static void close_others(int a, int b)
{
	int keep[2] = { a < b ? a : b, a < b ? b : a }, from = 3, i, fd;

	for (i = 0; i < 2; i++) {
		if (keep[i] < from)
			continue;
		if (keep[i] > from && close_range(from, keep[i] - 1, 0))
			goto loop;
		from = keep[i] + 1;
	}
	if (!close_range(from, ~0U, 0))
		return;
loop:	/* before Linux 5.9 */
	for (fd = 3; fd < 65536; fd++)
		if (fd != a && fd != b)
			close(fd);
}

/* The child: wait for a goodbye or the recorder's end. Never returns. */
static void __attribute__((noreturn)) watch(struct ftk_watchdog *wd, int sock, int pidfd)
{
	int save = !(wd->flags & FTK_WATCHDOG_SAVE_LATER), devnull;
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
	sigset_t pipe;
	char c;
	ssize_t n;

	/*
	 * Out of the terminal's process group: Ctrl-C is the recorder's to
	 * handle. The recorder's handlers stay (the library sets none); SIGPIPE
	 * is blocked, so that a closed stderr is an EPIPE, not the end of a rescue.
	 */
	setsid();
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_SETMASK, &pipe, NULL);
	prctl(PR_SET_NAME, "ftk-watchdog");
	/* Hold nothing of the recorder's: its instance files would keep rmdir busy. */
	close_others(sock, pidfd);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
		if (devnull > STDERR_FILENO)
			close(devnull);
	}
	c = 'R';
	if (write(sock, &c, 1) != 1)
		_exit(1);
	for (;;) {
		if (poll(p, pidfd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (p[0].revents) {
			n = read(sock, &c, 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n == 1 && c == 'Q')
				_exit(0);
			if (n == 1) {
				save = c == 'S';
				continue;
			}
		} else if (!p[1].revents) {
			continue;
		}
		/* gone: a goodbye cannot be pending, the recorder waits for us after one */
		break;
	}
	rescue(wd, save);
	_exit(0);
}

/**
 * ftk_watchdog_start() - fork a watchdog for a recorder's instance
 * @t: the instance the recorder traces in, set up (its spool made, and
 *     what ftk_tracewrite_new() reads in place) but tracing not yet on
 * @opts: the spool to save into and the template's writer options, the
 *	  flags; NULL: tracing off and the instance removed, nothing saved
 * @out: receives the handle
 *
 * The child is forked here, before the caller starts threads (it takes a
 * copy of the process, and uses @t, @opts->spool and the caller's memory
 * as they are now). It leaves the terminal's process group, holds no
 * descriptor of the recorder's, and is put in @t's set_event_notrace_pid
 * (journaled) unless FTK_WATCHDOG_TRACE_SELF. When the recorder dies
 * without ftk_watchdog_free(), the child turns tracing off in @t, appends
 * each CPU's ring to @opts->spool's spools (unless FTK_WATCHDOG_SAVE_LATER
 * and no ftk_watchdog_save(wd, 1) came), writes a template with
 * @opts->template_opts when the spool has none, removes the instance if
 * @t created it, and exits. An instance that is gone, or made again, or
 * owned by a live run, is not touched.
 *
 * Return: 0, or a negative errno (the fork, the socket pair, the filter).
 */
FTK_API int ftk_watchdog_start(struct ftk_tracefs *t, const struct ftk_watchdog_opts *opts,
			       struct ftk_watchdog **out)
{
	FTK_OPTS(ftk_watchdog_opts, o);
	struct ftk_watchdog *wd;
	int sv[2] = { -1, -1 }, pidfd, ret;
	struct stat st;
	char c, *old = NULL, *list;

	*out = NULL;
	if (!t || !t->instance)
		return ftk_err(-EINVAL);
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (stat(t->dir, &st) < 0)
		return ftk_err(-errno);
	wd = calloc(1, sizeof(*wd));
	if (!wd)
		return ftk_err(-ENOMEM);
	wd->t = t;
	wd->spool = o.spool;
	wd->flags = o.flags;
	if (o.template_opts) {
		memcpy(&wd->wopts, o.template_opts, o.template_opts->sz < sizeof(wd->wopts) ?
		       o.template_opts->sz : sizeof(wd->wopts));
		wd->wopts.sz = sizeof(wd->wopts);
		wd->has_wopts = 1;
	}
	wd->created = made_by(t);
	wd->dev = st.st_dev;
	wd->ino = st.st_ino;
	wd->owner = getpid();
	wd->fd = -1;
	/* -1 before Linux 5.3: then the socket's end alone tells */
	pidfd = pidfd_open(wd->owner, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		ret = -errno;
		goto fail;
	}
	wd->pid = fork();
	if (wd->pid < 0) {
		ret = -errno;
		goto fail;
	}
	if (!wd->pid) {
		close(sv[0]);
		watch(wd, sv[1], pidfd);
	}
	close(sv[1]);
	sv[1] = -1;
	if (pidfd >= 0)
		close(pidfd);
	pidfd = -1;
	wd->fd = sv[0];
	/* blocked in poll() before tracing can go on */
	while ((ret = read(wd->fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (ret != 1) {
		ret = -ECHILD;
		goto fail;
	}
	if (!(o.flags & FTK_WATCHDOG_TRACE_SELF) && ftk_tracefs_exists(t, "set_event_notrace_pid")) {
		if (ftk_tracefs_read(t, "set_event_notrace_pid", &old))
			old = NULL;
		if (asprintf(&list, "%s %d", old ? old : "", (int)wd->pid) < 0) {
			free(old);
			ret = -ENOMEM;
			goto fail;
		}
		for (ret = 0; list[ret]; ret++)
			if (list[ret] == '\n')
				list[ret] = ' ';
		ret = ftk_tracefs_set(t, "set_event_notrace_pid", list);
		free(list);
		free(old);
		if (ret)
			goto fail;
	}
	*out = wd;
	return 0;
fail:
	if (pidfd >= 0)
		close(pidfd);
	if (sv[1] >= 0)
		close(sv[1]);
	ftk_watchdog_free(wd);
	return ftk_err(ret);
}

static int tell(struct ftk_watchdog *wd, char c)
{
	if (!wd || wd->fd < 0)
		return -EINVAL;
	return send(wd->fd, &c, 1, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

/**
 * ftk_watchdog_save() - whether a death from now on saves the ring
 * @wd: the watchdog
 * @on: 1 to save (a flight recorder's trigger fired), 0 not to (its window
 *	was written)
 *
 * Return: 0, or a negative errno (-EPIPE: the watchdog is gone).
 */
FTK_API int ftk_watchdog_save(struct ftk_watchdog *wd, int on)
{
	return ftk_err(tell(wd, on ? 'S' : 's'));
}

/** ftk_watchdog_pid() - the watchdog's PID, to keep out of a trace; 0 for NULL */
FTK_API pid_t ftk_watchdog_pid(const struct ftk_watchdog *wd)
{
	return wd ? wd->pid : 0;
}

/**
 * ftk_watchdog_free() - say goodbye: the recorder ends normally
 * @wd: the watchdog, or NULL
 *
 * Call it before the recorder's own teardown (stopping, saving, removing
 * the instance): the watchdog exits without touching anything, and is
 * waited for. From another process than the one that started it (a child
 * forked since), only the handle is freed.
 */
FTK_API void ftk_watchdog_free(struct ftk_watchdog *wd)
{
	if (!wd)
		return;
	if (wd->fd >= 0 && wd->owner == getpid()) {
		tell(wd, 'Q');
		while (wd->pid > 0 && waitpid(wd->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (wd->fd >= 0)
		close(wd->fd);
	free(wd);
}
