// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Logging, error texts, string lists and file helpers shared by every
 * module.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs.h>

#include "internal.h"

/**
 * ftk_errmsg_vset() - record a handle's failure (internal)
 * @e: the handle's error buffer
 * @flags: FTK_ERRMSG_KEEP to leave a reason already recorded in place
 * @prefix: what failed, usually a path, or NULL
 * @err: the negative errno to return
 * @fmt: the reason
 * @ap: its arguments
 *
 * Clamps at every step: the text is cut, never overrun, whatever the
 * lengths of @prefix and the formatted reason.
 *
 * Return: @err.
 */
int ftk_errmsg_vset(struct ftk_errmsg *e, unsigned int flags, const char *prefix, int err,
		    const char *fmt, va_list ap)
{
	size_t n = 0;
	int r;

	if ((flags & FTK_ERRMSG_KEEP) && e->text[0])
		return err;
	e->text[0] = '\0';
	if (prefix) {
		r = snprintf(e->text, sizeof(e->text), "%s: ", prefix);
		n = r < 0 ? 0 : (size_t)r;
		if (n >= sizeof(e->text))
			return err;
	}
	vsnprintf(e->text + n, sizeof(e->text) - n, fmt, ap);
	return err;
}

int ftk_errmsg_set(struct ftk_errmsg *e, unsigned int flags, const char *prefix, int err,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(e, flags, prefix, err, fmt, ap);
	va_end(ap);
	return err;
}

static int default_print(enum ftk_log_level level, const char *fmt, va_list ap)
{
	fputs("libftkit: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static ftk_print_fn print_fn = default_print;
static int log_level = -1;

/**
 * ftk_set_print() - replace the library's message callback
 * @fn: the new callback, or NULL to silence the library
 *
 * The callback receives messages that pass the log level (warnings and
 * errors by default), already without the "libftkit: " prefix the default
 * one adds.
 *
 * Return: the previous callback.
 */
FTK_API ftk_print_fn ftk_set_print(ftk_print_fn fn)
{
	ftk_print_fn old = print_fn;

	print_fn = fn;
	return old;
}

/**
 * ftk_set_log_level() - choose which messages the library prints
 * @level: the highest level printed; FTK_LOG_LEVEL in the environment
 *	   (error, warn, info, debug) wins over it
 *
 * libtracefs and libtraceevent are set to the same level.
 */
FTK_API void ftk_set_log_level(enum ftk_log_level level)
{
	/* Ours: error 0 .. debug 3; theirs: none 0, critical 1, error 2, warn 3, info 4, debug 5. */
	enum tep_loglevel tl = TEP_LOG_ERROR + level;

	log_level = level;
	if (level < FTK_LOG_ERROR)
		tl = TEP_LOG_NONE;
	tracefs_set_loglevel(tl);
	tep_set_loglevel(tl);
}

/*
 * The environment variables of libftkit, all read here (the tools read
 * theirs in tools/). libftkit-marker, which links nothing but libc, reads
 * FTK_INSTANCE itself.
 */
const char *ftk_env(enum ftk_env_var v)
{
	static const char *const names[] = {
		[FTK_ENV_TRACEFS]	= "FTK_TRACEFS",
		[FTK_ENV_LOG_LEVEL]	= "FTK_LOG_LEVEL",
		[FTK_ENV_PRINT_SLOW]	= "FTK_PRINT_SLOW",
		[FTK_ENV_PRINT_NOCHECK]	= "FTK_PRINT_NOCHECK",
		[FTK_ENV_PMU_DIR]	= "FTK_PMU_DIR",
		[FTK_ENV_TMPDIR]	= "TMPDIR",
	};

	return (size_t)v < ARRAY_SIZE(names) ? getenv(names[v]) : NULL;
}

/**
 * ftk_log_level() - the level in force
 *
 * Return: FTK_LOG_LEVEL from the environment if set, else what
 * ftk_set_log_level() chose, else FTK_LOG_WARN.
 */
FTK_API enum ftk_log_level ftk_log_level(void)
{
	static const char *names[] = { "error", "warn", "info", "debug" };
	const char *env = ftk_env(FTK_ENV_LOG_LEVEL);
	size_t i;

	if (env) {
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcasecmp(env, names[i]))
				return i;
		if (isdigit((unsigned char)*env))
			return atoi(env) > FTK_LOG_DEBUG ? FTK_LOG_DEBUG : atoi(env);
	}
	return log_level < 0 ? FTK_LOG_WARN : log_level;
}

void ftk_log(enum ftk_log_level level, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (!print_fn || level > ftk_log_level())
		return;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

#define _FTK_E(name, text) text,
static const char *const ftk_error_text[] = { FTK_ERRORS };
#undef _FTK_E

/**
 * ftk_strerror() - the text of an error code
 * @code: an errno value or an FTK_E_* code, either sign
 * @buf: where to put the text
 * @len: size of @buf
 *
 * Return: @buf.
 */
FTK_API const char *ftk_strerror(int code, char *buf, size_t len)
{
	if (code < 0)
		code = -code;
	if (code > FTK_E_FIRST && code < FTK_E_LAST)
		snprintf(buf, len, "%s", ftk_error_text[code - FTK_E_FIRST - 1]);
	else
		snprintf(buf, len, "%s", strerror(code));
	return buf;
}

/**
 * ftk_list_free() - free a NULL-terminated list of strings
 * @list: the list, or NULL
 */
FTK_API void ftk_list_free(char **list)
{
	char **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		free(*p);
	free(list);
}

/**
 * ftk_list_len() - count the entries of a NULL-terminated list
 * @list: the list, or NULL (0 entries)
 *
 * Return: the number of strings before the NULL.
 */
FTK_API size_t ftk_list_len(char **list)
{
	size_t n = 0;

	while (list && list[n])
		n++;
	return n;
}

bool ftk_list_has(char **list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

int ftk_list_add(char ***list, const char *s)
{
	size_t n = ftk_list_len(*list);
	char **l;

	l = realloc(*list, (n + 2) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	*list = l;
	l[n] = strdup(s);
	if (!l[n])
		return -ENOMEM;
	l[n + 1] = NULL;
	return 0;
}

int ftk_rmdir(const char *path)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 25; i++) {
		if (rmdir(path) == 0)
			return 0;
		if (errno != EBUSY)
			return -1;
		nanosleep(&ts, NULL);
	}
	return -1;
}

char *ftk_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *ftk_strstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int ftk_read_fd(int fd, char **out, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf, *nb;
	ssize_t r;
	int fl = fcntl(fd, F_GETFL);

	/* Opened without blocking (a FIFO with no writer); read with it. */
	if (fl < 0 || ((fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		return -errno;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - len < 2) {
			nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			free(buf);
			return r;
		}
		if (r == 0)
			break;
		len += r;
	}
	buf[len] = '\0';
	*out = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

int ftk_read_file(const char *path, char **out, size_t *lenp)
{
	/* O_NONBLOCK: a FIFO put in a file's place reads as empty, it does not hang open() */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ret;

	if (fd < 0)
		return -errno;
	ret = ftk_read_fd(fd, out, lenp);
	close(fd);
	return ret;
}

int ftk_write_file(const char *path, int oflags, const void *buf, size_t len)
{
	ssize_t r;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC | oflags);
	if (fd < 0)
		return -errno;
	/* Control files take one write; a short write is the kernel's refusal. */
	r = write(fd, buf, len);
	if (r < 0)
		ret = -errno;
	else if ((size_t)r != len)
		ret = -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

/* ------------------------------------------------------------ files ftkit writes */

/*
 * Every file ftkit writes is made here, so that none is written through a
 * link planted in its place and none is left half written under its name:
 * the data goes into an anonymous O_TMPFILE (or, where the file system has
 * none, a fresh name made with O_CREAT|O_EXCL, which follows no link) in
 * the target's directory, and ftk_file_publish() syncs it and links it
 * into place with one rename(2), which replaces a link rather than follow it.
 */
struct ftk_file {
	char			*path;
	char			*base;		/* last component of path, in dir */
	char			*tmpname;	/* named temporary, or NULL */
	unsigned int		flags;
	int			fd;
	int			dirfd;
	int			direct;		/* a device, FIFO or appended file: no rename */
	int			published;
	struct ftk_errmsg	err;
};

/* A name for a temporary beside @base: ".BASE.XXXXXXXX", fresh each call. */
static void tmp_name(char *buf, size_t len, const char *base)
{
	static unsigned int seq;
	struct timespec ts;
	unsigned int r;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	r = (unsigned int)ts.tv_nsec ^ ((unsigned int)getpid() << 16) ^
	    __atomic_add_fetch(&seq, 0x9e3779b9u, __ATOMIC_RELAXED);
	snprintf(buf, len, ".%.200s.%08x", base, r);
}

/* Create a new file in @dirfd under a fresh name, without following links. */
static int create_named(int dirfd, const char *base, char **name, mode_t mode)
{
	char buf[256];
	int i, fd;

	for (i = 0; i < 100; i++) {
		tmp_name(buf, sizeof(buf), base);
		fd = openat(dirfd, buf, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0) {
			*name = strdup(buf);
			if (!*name) {
				unlinkat(dirfd, buf, 0);
				close(fd);
				return -ENOMEM;
			}
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* No O_TMPFILE on this file system (or this kernel)? */
static int no_tmpfile(int err)
{
	return err == -EOPNOTSUPP || err == -EISDIR || err == -EINVAL;
}

/* An anonymous file in @dirfd: O_TMPFILE, else a fresh name, or -errno. */
static int create_anon(int dirfd, const char *base, char **name, mode_t mode)
{
	int fd;

	*name = NULL;
	fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0)
		return fd;
	if (!no_tmpfile(-errno))
		return -errno;
	return create_named(dirfd, base, name, mode);
}

int ftk_file_tmp(const char *dir)
{
	char *name;
	int dirfd, fd;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	fd = create_anon(dirfd, "ftkit-spool", &name, 0600);
	if (fd >= 0 && name)
		unlinkat(dirfd, name, 0);
	free(name);
	close(dirfd);
	return fd;
}

static int file_fail(struct ftk_file *f, int err, const char *what)
{
	return ftk_errmsg_set(&f->err, FTK_ERRMSG_KEEP, NULL, err, "cannot %s '%s': %s", what,
			      f->path, strerror(-err));
}

/* @path exists and is not a regular file (through a link too): write to it as it is. */
static int open_direct(struct ftk_file *f, int follow)
{
	f->fd = open(f->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	if (f->fd < 0)
		return file_fail(f, -errno, "open");
	f->direct = 1;
	return 0;
}

/*
 * Is @path a descriptor of this process reached through /proc: /dev/stdout,
 * /dev/stderr (links to /proc/self/fd/N), /dev/fd/N, /proc/self/fd/N? Its
 * link goes wherever the descriptor does (a pipe, a terminal, a file the
 * shell opened): it is written through, never replaced by a rename, which
 * would put a regular file in the place of /dev/stdout.
 */
static int proc_fd(const char *path)
{
	char buf[PATH_MAX], *dir, *slash;
	struct stat st;
	ssize_t n;
	int ret;

	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0 && (buf[n] = '\0', !strncmp(buf, "/proc/", 6)))
		return 1;
	/* /dev/fd/N, /proc/self/fd/N: the link is in a /proc/PID/fd directory */
	dir = strdup(path);
	if (!dir)
		return 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	ret = slash && slash != dir && realpath(dir, buf) && !strncmp(buf, "/proc/", 6) &&
	      (slash = strrchr(buf, '/')) && !strcmp(slash, "/fd");
	free(dir);
	return ret;
}

/**
 * ftk_file_create() - start a file that ftkit writes
 * @path: the file to write
 * @flags: FTK_FILE_EXCL to fail if @path exists; FTK_FILE_APPEND to add to
 *	   an existing regular file (not through a link), creating it if need be;
 *	   FTK_FILE_STREAM for output read while it is written (intervals, logs):
 *	   the file appears under @path at once (what was there, a link
 *	   included, is unlinked first; the new one is made with O_EXCL);
 *	   FTK_FILE_PRIVATE to make it readable by its owner alone (0600, as
 *	   perf.data is), for data an unprivileged user may not read (kernel
 *	   addresses)
 * @fp: where the handle goes
 *
 * No link is followed and nothing is overwritten yet: the data goes into
 * an anonymous file (O_TMPFILE, or a fresh name opened with O_EXCL where
 * the file system has no O_TMPFILE) in @path's directory, which
 * ftk_file_publish() links into place. A link at @path is replaced, not
 * followed, unless it leads to a device, FIFO or socket, or is one of this
 * process's descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N): those,
 * and devices, FIFOs and sockets themselves, are written directly (a
 * regular file behind a descriptor is appended to, as the shell's ">>").
 *
 * Return: 0 and a handle to close with ftk_file_close(), or a negative
 * errno with the reason in ftk_file_errmsg() (when the handle could be
 * made, *@fp is set even on failure, so the text can be read; close it).
 */
FTK_API int ftk_file_create(const char *path, unsigned int flags, struct ftk_file **fp)
{
	mode_t mode = flags & FTK_FILE_PRIVATE ? 0600 : 0666;
	struct stat st, tst;
	struct ftk_file *f;
	char *dir, *slash;
	int ret;

	*fp = NULL;
	if (!path || !*path)
		return ftk_err(-EINVAL);
	f = calloc(1, sizeof(*f));
	if (!f)
		return ftk_err(-ENOMEM);
	f->fd = f->dirfd = -1;
	f->flags = flags;
	f->path = strdup(path);
	if (!f->path) {
		free(f);
		return ftk_err(-ENOMEM);
	}
	*fp = f;
	if (flags & FTK_FILE_APPEND) {
		f->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			     mode);
		if (f->fd < 0)
			return ftk_err(file_fail(f, -errno, "open"));
		if (fstat(f->fd, &st) == 0 && S_ISDIR(st.st_mode))
			return ftk_err(file_fail(f, -EISDIR, "open"));
		f->direct = 1;
		return 0;
	}
	if (proc_fd(path)) {
		/* O_APPEND: after what the descriptor's owner wrote, not over it */
		f->fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
		if (f->fd < 0)
			return ftk_err(file_fail(f, -errno, "open"));
		f->direct = 1;
		return 0;
	}
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return ftk_err(file_fail(f, -EISDIR, "write"));
		if ((flags & FTK_FILE_STREAM) && !(flags & FTK_FILE_EXCL) &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		    !(S_ISLNK(st.st_mode) && stat(path, &tst) == 0 &&
		      (S_ISCHR(tst.st_mode) || S_ISFIFO(tst.st_mode) || S_ISSOCK(tst.st_mode)))) {
			/* Replaced, not written through: the name goes, a new file comes. */
			if (unlink(path) < 0 && errno != ENOENT)
				return ftk_err(file_fail(f, -errno, "replace"));
			goto stream;
		}
		if (flags & FTK_FILE_EXCL)
			return ftk_err(file_fail(f, -EEXIST, "create"));
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
		    S_ISBLK(st.st_mode))
			return ftk_err(open_direct(f, 0));
		if (S_ISLNK(st.st_mode) && stat(path, &tst) == 0 &&
		    (S_ISCHR(tst.st_mode) || S_ISFIFO(tst.st_mode) || S_ISSOCK(tst.st_mode)))
			return ftk_err(open_direct(f, 1));
	} else if (errno != ENOENT) {
		return ftk_err(file_fail(f, -errno, "write"));
	}
	if (flags & FTK_FILE_STREAM) {
stream:
		/* O_EXCL: a link planted after the unlink is refused, not followed. */
		f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			     mode);
		if (f->fd < 0)
			return ftk_err(file_fail(f, -errno, "create"));
		f->direct = 1;
		return 0;
	}
	dir = strdup(path);
	if (!dir)
		return ftk_err(file_fail(f, -ENOMEM, "write"));
	slash = strrchr(dir, '/');
	f->base = strdup(slash ? path + (slash - dir) + 1 : path);
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	f->dirfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = f->dirfd < 0 ? -errno : 0;
	free(dir);
	if (!f->base)
		return ftk_err(file_fail(f, -ENOMEM, "write"));
	if (!*f->base)
		return ftk_err(file_fail(f, -EISDIR, "write"));
	if (ret)
		return ftk_err(file_fail(f, ret, "write"));
	ret = create_anon(f->dirfd, f->base, &f->tmpname, mode);
	if (ret < 0)
		return ftk_err(file_fail(f, ret, "create"));
	f->fd = ret;
	return 0;
}

/** ftk_file_fd() - the descriptor to write the data to; owned by @f */
FTK_API int ftk_file_fd(const struct ftk_file *f)
{
	return f->fd;
}

/** ftk_file_path() - the path given to ftk_file_create(); owned by @f */
FTK_API const char *ftk_file_path(const struct ftk_file *f)
{
	return f->path;
}

/** ftk_file_errmsg() - the last failure's text, naming the file; owned by @f */
FTK_API const char *ftk_file_errmsg(const struct ftk_file *f)
{
	return f->err.text;
}

/* Link the anonymous file @f->fd into @f->dirfd as @name (which must not exist). */
static int link_anon(struct ftk_file *f, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (linkat(AT_FDCWD, proc, f->dirfd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT)
		return -errno;
	/* No /proc: AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH. */
	return linkat(f->fd, "", f->dirfd, name, AT_EMPTY_PATH) ? -errno : 0;
}

/**
 * ftk_file_publish() - make the written file appear under its path
 * @f: the file, all written
 *
 * fsync(2)s the data, links it into place (replacing what was at the path,
 * a link included, in one rename(2); with FTK_FILE_EXCL, failing if
 * something appeared there meanwhile) and fsyncs the directory, so that
 * after a crash the path holds either the old file or the whole new one.
 * A device or FIFO written directly is only synced.
 *
 * Return: 0, or a negative errno (-ENOSPC, -EIO, -EDQUOT from the sync)
 * with the reason in ftk_file_errmsg().
 */
FTK_API int ftk_file_publish(struct ftk_file *f)
{
	char buf[256];
	int ret, i;

	if (f->fd < 0 || f->published)
		return ftk_err(f->fd < 0 ? -EBADF : 0);
	if (fsync(f->fd) < 0 && !(f->direct && (errno == EINVAL || errno == EROFS)))
		return ftk_err(file_fail(f, -errno, "write"));
	if (f->direct) {
		f->published = 1;
		return 0;
	}
	if (!f->tmpname) {
		if (f->flags & FTK_FILE_EXCL) {
			ret = link_anon(f, f->base);
			goto synced;
		}
		for (i = 0; i < 100; i++) {
			tmp_name(buf, sizeof(buf), f->base);
			ret = link_anon(f, buf);
			if (ret != -EEXIST)
				break;
		}
		if (ret)
			return ftk_err(file_fail(f, ret, "create"));
		f->tmpname = strdup(buf);
		if (!f->tmpname) {
			unlinkat(f->dirfd, buf, 0);
			return ftk_err(file_fail(f, -ENOMEM, "create"));
		}
	}
	if (f->flags & FTK_FILE_EXCL) {
		ret = linkat(f->dirfd, f->tmpname, f->dirfd, f->base, 0) ? -errno : 0;
		unlinkat(f->dirfd, f->tmpname, 0);
	} else {
		ret = renameat(f->dirfd, f->tmpname, f->dirfd, f->base) ? -errno : 0;
		if (ret)
			unlinkat(f->dirfd, f->tmpname, 0);
	}
	free(f->tmpname);
	f->tmpname = NULL;
synced:
	if (ret)
		return ftk_err(file_fail(f, ret, "create"));
	f->published = 1;
	if (fsync(f->dirfd) < 0 && errno != EINVAL)
		return ftk_err(file_fail(f, -errno, "write"));
	return 0;
}

/**
 * ftk_file_close() - close a file; one not published is thrown away
 * @f: the file, or NULL
 *
 * Nothing of an unpublished file remains: an O_TMPFILE goes with its last
 * descriptor, a named temporary is unlinked.
 */
FTK_API void ftk_file_close(struct ftk_file *f)
{
	if (!f)
		return;
	if (f->tmpname)
		unlinkat(f->dirfd, f->tmpname, 0);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->tmpname);
	free(f->base);
	free(f->path);
	free(f);
}

int ftk_tid_add(pid_t tid, pid_t **tids, size_t *nr)
{
	pid_t *n = realloc(*tids, (*nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	*tids = n;
	n[(*nr)++] = tid;
	return 0;
}

/* The one listing of a process's threads (the session's PID filter, perf counting). */
int ftk_proc_threads(pid_t pid, pid_t **tids, size_t *nr)
{
	struct dirent *d;
	char path[64];
	int ret = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!ret && (d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			ret = ftk_tid_add(atoi(d->d_name), tids, nr);
	closedir(dir);
	return ret;
}

unsigned long long ftk_proc_stat(pid_t pid, char *comm, size_t len, pid_t *ppid)
{
	unsigned long long v = 0;
	char path[64], *text, *p, *open;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ftk_read_file(path, &text, NULL))
		return 0;
	/* The name may hold spaces and parentheses: it ends at the last ')'. */
	open = strchr(text, '(');
	p = strrchr(text, ')');
	if (!open || !p || p < open) {
		free(text);
		return 0;
	}
	if (comm && len)
		snprintf(comm, len, "%.*s", (int)(p - open - 1), open + 1);
	if (ppid && p[1] == ' ' && p[2] && p[3] == ' ')
		*ppid = (pid_t)strtol(p + 4, NULL, 10);
	for (i = 3; p && i <= 22; i++) {
		p = strchr(p + 1, ' ');
		if (p && i == 22)
			v = strtoull(p + 1, NULL, 10);
	}
	free(text);
	return v;
}
