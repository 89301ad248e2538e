// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Logging, error texts, string lists and file helpers shared by every
 * module.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int ftk_read_file(const char *path, char **out, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf, *nb;
	ssize_t r;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (cap - len < 2) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += r;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	if (lenp)
		*lenp = len;
out:
	free(buf);
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
