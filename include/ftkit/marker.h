/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * marker: let an application mark the trace through trace_marker.
 *
 *	static struct ftk_marker *tm;
 *	tm = ftk_marker_open(NULL, 0);			// once; never NULL, never fatal
 *	ftk_mark(tm, "request %d done in %u us", id, us);
 *	ftk_mark_begin(tm, "parse");  ...  ftk_mark_end(tm, "parse");
 *	ftk_mark_counter(tm, "queue_len", n);
 *	ftk_marker_close(tm);
 *
 * Every mark is formatted into a stack buffer and written with one
 * write(2): no malloc, no stdio, no locks, so marks may be made from any
 * thread and from signal handlers. When tracing is unavailable (no
 * tracefs, not permitted), the handle is disabled and every mark returns
 * 0 at the cost of one load and a branch.
 *
 * This header needs nothing else of ftkit: link with -lftkit-marker
 * (pkg-config ftkit-marker, libc only) or with -lftkit.
 */
#ifndef FTKIT_MARKER_H
#define FTKIT_MARKER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FTK_API
#define FTK_API __attribute__((visibility("default")))
#endif

/* The longest mark: longer ones are cut (the kernel takes up to about 4 KiB). */
#define FTK_MARKER_MAX	1024

enum ftk_marker_flags {
	/* Also open trace_marker_raw, for ftk_mark_raw(). */
	FTK_MARKER_RAW		= 1 << 0,
};

struct ftk_marker;

FTK_API struct ftk_marker *ftk_marker_open(const char *instance, unsigned int flags);
FTK_API void ftk_marker_close(struct ftk_marker *m);
FTK_API int ftk_marker_enabled(const struct ftk_marker *m);
FTK_API int ftk_marker_error(const struct ftk_marker *m);
/* Marks dropped because the buffer did not record (its recorder stopped it). */
FTK_API unsigned long ftk_marker_dropped(const struct ftk_marker *m);

FTK_API int ftk_mark(struct ftk_marker *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
FTK_API int ftk_vmark(struct ftk_marker *m, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
FTK_API int ftk_mark_write(struct ftk_marker *m, const void *buf, size_t len);
FTK_API int ftk_mark_begin(struct ftk_marker *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
FTK_API int ftk_mark_end(struct ftk_marker *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
FTK_API int ftk_mark_counter(struct ftk_marker *m, const char *name, long long value);
FTK_API int ftk_mark_raw(struct ftk_marker *m, uint32_t id, const void *data, size_t len);

FTK_API int ftk_marker_format(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#ifdef __cplusplus
}
#endif
#endif
