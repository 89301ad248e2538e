/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Things every libftkit module shares: export marking, logging, error
 * codes of our own and string lists.
 */
#ifndef FTKIT_COMMON_H
#define FTKIT_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>	/* memset, for FTK_OPTS() */

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FTK_API
#define FTK_API __attribute__((visibility("default")))
#endif

/*
 * Options structs start with their size, so fields can be added later:
 *	FTK_OPTS(ftk_capture_opts, o, .bufsize_kb = 4096);
 */
#define FTK_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };	\
	})

enum ftk_log_level {
	FTK_LOG_ERROR,
	FTK_LOG_WARN,
	FTK_LOG_INFO,
	FTK_LOG_DEBUG,
};

typedef int (*ftk_print_fn)(enum ftk_log_level level, const char *fmt, va_list ap);

/* Replace the print callback (NULL silences the library); returns the old one. */
FTK_API ftk_print_fn ftk_set_print(ftk_print_fn fn);
/* Messages above @level are dropped; FTK_LOG_LEVEL in the environment overrides. */
FTK_API void ftk_set_log_level(enum ftk_log_level level);
FTK_API enum ftk_log_level ftk_log_level(void);

/*
 * Error codes of libftkit's own, returned negated like errno values.
 * They sit in a reserved range above every errno.
 */
#define FTK_ERRNO_BASE	5000
#define FTK_ERRORS							\
	_FTK_E(FORMAT,	"malformed data")					\
	_FTK_E(VERSION,	"unsupported file version")			\
	_FTK_E(TRUNC,	"file is truncated")				\
	_FTK_E(NOEVENT,	"unknown event")					\
	_FTK_E(PARSE,	"cannot parse")					\
	_FTK_E(LOCKDOWN, "forbidden by the kernel (lockdown)")

#define _FTK_E(name, text) FTK_E_##name,
enum ftk_errno {
	FTK_E_FIRST = FTK_ERRNO_BASE,
	FTK_ERRORS
	FTK_E_LAST
};
#undef _FTK_E

/* Text of an errno or FTK_E_* code (either sign); returns @buf. */
FTK_API const char *ftk_strerror(int code, char *buf, size_t len);

/* Free a NULL-terminated list of strings; NULL is fine. */
FTK_API void ftk_list_free(char **list);
/* Number of entries of a NULL-terminated list. */
FTK_API size_t ftk_list_len(char **list);

/*
 * Files ftkit writes (trace files, reports, SVGs, folded stacks): made so
 * that no link is followed and nothing is clobbered half written.
 *
 *	ftk_file_create(path, 0, &f);	an anonymous file beside path
 *	write(ftk_file_fd(f), ...);	(or fdopen(dup(fd)) for stdio)
 *	ftk_file_publish(f);		fsync, rename into place, fsync the dir
 *	ftk_file_close(f);		unpublished: nothing is left
 */
struct ftk_file;

enum ftk_file_flags {
	FTK_FILE_EXCL	= 1 << 0,	/* fail with -EEXIST if the path exists */
	FTK_FILE_APPEND	= 1 << 1,	/* append to a regular file (no link followed) */
	FTK_FILE_STREAM	= 1 << 2,	/* appears at once (read while written); no rename */
	FTK_FILE_PRIVATE = 1 << 3,	/* mode 0600, not 0666 & ~umask (kernel addresses inside) */
};

FTK_API int ftk_file_create(const char *path, unsigned int flags, struct ftk_file **fp);
FTK_API int ftk_file_fd(const struct ftk_file *f);
FTK_API const char *ftk_file_path(const struct ftk_file *f);
FTK_API int ftk_file_publish(struct ftk_file *f);
FTK_API const char *ftk_file_errmsg(const struct ftk_file *f);
FTK_API void ftk_file_close(struct ftk_file *f);

#ifdef __cplusplus
}
#endif
#endif
