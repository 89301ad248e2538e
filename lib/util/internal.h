/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared inside libftkit; never installed. */
#ifndef FTKIT_INTERNAL_H
#define FTKIT_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <ftkit/common.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* At each public return: set errno and return the negative code. */
static inline int ftk_err(int ret)
{
	if (ret < 0)
		errno = -ret;
	return ret;
}

/* For functions returning pointers: set errno from a negative code, return NULL. */
static inline void *ftk_err_ptr(int ret)
{
	errno = ret < 0 ? -ret : ret;
	return NULL;
}

/*
 * Every handle's last failure lives in one of these, written only through
 * ftk_errmsg_set(): the text is always NUL-terminated and never runs past
 * the buffer, however long the path or the reason.
 */
#define FTK_ERRMSG_MAX	512
struct ftk_errmsg {
	char	text[FTK_ERRMSG_MAX];
};

enum ftk_errmsg_flags {
	FTK_ERRMSG_KEEP	= 1 << 0,	/* keep a reason already there (the innermost) */
};

/*
 * Format "@prefix: " (when @prefix is not NULL) and @fmt into @e; returns
 * @err (a negative errno), so that a failing path reads
 * "return ftk_errmsg_set(&h->err, 0, h->path, -EINVAL, "bad page size %u", n);".
 */
int ftk_errmsg_set(struct ftk_errmsg *e, unsigned int flags, const char *prefix, int err,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int ftk_errmsg_vset(struct ftk_errmsg *e, unsigned int flags, const char *prefix, int err,
		    const char *fmt, va_list ap);
/* Forget the last failure. */
static inline void ftk_errmsg_clear(struct ftk_errmsg *e)
{
	e->text[0] = '\0';
}

void ftk_log(enum ftk_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_error(fmt, ...)	ftk_log(FTK_LOG_ERROR, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	ftk_log(FTK_LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	ftk_log(FTK_LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	ftk_log(FTK_LOG_DEBUG, fmt, ##__VA_ARGS__)

/*
 * Whole-file helpers: read @path (opened without blocking: a FIFO with no
 * writer reads as empty), or @fd to its end, into a malloc'd NUL-terminated
 * buffer; 0 or -errno.
 */
int ftk_read_file(const char *path, char **out, size_t *lenp);
int ftk_read_fd(int fd, char **out, size_t *lenp);

/* Write @len bytes of @buf to @path opened with @oflags; returns 0 or -errno. */
int ftk_write_file(const char *path, int oflags, const void *buf, size_t len);

/*
 * The threads of process @pid as /proc/@pid/task lists them now, appended
 * to the malloc'd *@tids (NULL for a new array) of *@nr: 0, -ESRCH when
 * there is no such process, another negative errno, -ENOMEM (what was
 * appended before the failure stays). ftk_tid_add() appends one.
 */
int ftk_proc_threads(pid_t pid, pid_t **tids, size_t *nr);
int ftk_tid_add(pid_t tid, pid_t **tids, size_t *nr);
/*
 * From /proc/@pid/stat: the name (field 2) into @comm if not NULL, the
 * parent (field 4) into *@ppid if not NULL, and the start time (field 22,
 * clock ticks after boot) returned; 0 when it cannot be read.
 */
unsigned long long ftk_proc_stat(pid_t pid, char *comm, size_t len, pid_t *ppid);

/*
 * Owner tags, "PID_NS_START", in the names of instances and probe groups
 * a process creates for itself (lib/control/owner.c). ftk_owner_state() reads
 * one at @tag (ending at '\0' or '/'): an enum ftk_instance_owner value.
 */
int ftk_owner_tag(char *buf, size_t len);
int ftk_owner_state(const char *tag, pid_t *pid);
/* 1 and "in use by PID 123 (ftrecord)" in @why when @tag's owner runs and is not us. */
int ftk_owner_busy(const char *tag, char *why, size_t len);

/* An unlinked file in @dir for scratch data (O_TMPFILE, or O_EXCL and unlink): fd or -errno. */
int ftk_file_tmp(const char *dir);

/*
 * rmdir(2) of an instance, retried for a moment on EBUSY: another process
 * reading one of its files (a dump of all instances) holds it briefly.
 */
int ftk_rmdir(const char *path);

/*
 * escape.c: @n bytes of @s as XML text or attribute value (&<>"' escaped;
 * control characters, invalid UTF-8, U+FFFE and U+FFFF as U+FFFD), for
 * every SVG picture libftkit draws. ftk_json_str() is its JSON sibling.
 */
void ftk_xml_put(FILE *f, const char *s, size_t n);

/*
 * tracefs.c: the tracing directory ($FTK_TRACEFS, else libtracefs' mount),
 * and the one check of a name that becomes a path under it (0 or -EINVAL).
 */
const char *ftk_tracefs_find(void);
int ftk_name_check(const char *name);

/*
 * common.c: the environment variables libftkit reads, read only through
 * ftk_env() (getenv(3) semantics: NULL when unset). The list is there.
 */
enum ftk_env_var {
	FTK_ENV_TRACEFS,	/* FTK_TRACEFS: the tracing directory */
	FTK_ENV_LOG_LEVEL,	/* FTK_LOG_LEVEL: the library's log level */
	FTK_ENV_PRINT_SLOW,	/* FTK_PRINT_SLOW: every event through libtraceevent */
	FTK_ENV_PRINT_NOCHECK,	/* FTK_PRINT_NOCHECK: own text never checked (tests) */
	FTK_ENV_PMU_DIR,	/* FTK_PMU_DIR: the sysfs PMU directory */
	FTK_ENV_TMPDIR,		/* TMPDIR: where spools go */
};
const char *ftk_env(enum ftk_env_var v);

/* strdup that tolerates NULL. */
char *ftk_strdup(const char *s);
/* Append @s to a NULL-terminated list (growing it); returns 0 or -ENOMEM. */
int ftk_list_add(char ***list, const char *s);
/* Whether a NULL-terminated list (NULL: empty) holds @s. */
bool ftk_list_has(char **list, const char *s);
/* Remove trailing white space in place; returns @s. */
char *ftk_strstrip(char *s);

#endif
