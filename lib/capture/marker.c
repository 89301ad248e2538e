// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * marker: trace_marker writing for applications.
 *
 * Built twice: into libftkit, and alone as libftkit-marker, which needs
 * nothing but libc. So this file includes no other ftkit header.
 *
 * What the write path guarantees (ftk_mark*, ftk_marker_format):
 *  - one write(2) per mark, of at most FTK_MARKER_MAX bytes, so a mark is
 *    never split or interleaved with another thread's;
 *  - no malloc, no stdio, no locks, no thread-local storage: only a stack
 *    buffer, our own formatter (vsnprintf is not async-signal-safe in
 *    POSIX and may take locale locks or allocate for %f), getpid() and
 *    write(2), which are async-signal-safe; errno is left as it was;
 *  - thread-safe: the handle is only read after ftk_marker_open() returns,
 *    and ftk_marker_close() must not race with marks in flight;
 *  - on a disabled handle (or NULL) a mark returns 0 after one load;
 *  - a mark the kernel refuses because the buffer does not record (EBADF:
 *    its recorder stopped it, or tracing_on is 0) is dropped and counted,
 *    never an error: a recorder going away must not disturb the program.
 * The formatter knows d i u x X o c s p % and f (fixed point, up to 9
 * decimals), flags '-' '0' '+' ' ' '#', width and precision (also '*'), and
 * the length modifiers hh h l ll z j t. Anything else is copied as written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* secure_getenv */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/marker.h>

struct ftk_marker {
	int	fd;		/* trace_marker, or -1 when disabled */
	int	raw_fd;		/* trace_marker_raw, or -1 */
	int	err;		/* why disabled: a positive errno, or 0 */
	int	is_static;
	unsigned long	dropped;	/* marks the buffer did not take (atomic) */
};

/* What ftk_marker_open() returns when it cannot even allocate: disabled. */
static struct ftk_marker no_marker = { -1, -1, ENOMEM, 1, 0 };

/* ---------------------------------------------------------------- formatting */

struct out {
	char	*p;
	char	*end;		/* last byte is kept for the NUL */
	size_t	total;		/* what a full write would have been */
};

static void put(struct out *o, char c)
{
	if (o->p < o->end)
		*o->p++ = c;
	o->total++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

enum { F_LEFT = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16 };

static void put_num(struct out *o, unsigned long long v, int neg, unsigned int base, int upper,
		    int flags, int width, int prec, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], sign = 0;
	int n = 0, len, zeros, plen = prefix ? (int)strlen(prefix) : 0;

	if (neg)
		sign = '-';
	else if (flags & F_PLUS)
		sign = '+';
	else if (flags & F_SPACE)
		sign = ' ';
	while (v || (n == 0 && prec != 0)) {
		tmp[n++] = digits[v % base];
		v /= base;
	}
	zeros = prec > n ? prec - n : 0;
	len = n + zeros + (sign != 0) + plen;
	if ((flags & F_ZERO) && !(flags & F_LEFT) && prec < 0 && width > len) {
		zeros += width - len;
		len = width;
	}
	if (!(flags & F_LEFT))
		pad(o, ' ', width - len);
	if (sign)
		put(o, sign);
	while (plen && *prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (flags & F_LEFT)
		pad(o, ' ', width - len);
}

static void put_str(struct out *o, const char *s, int flags, int width, int prec)
{
	int n = 0;

	if (!s)
		s = "(null)";
	while ((prec < 0 || n < prec) && s[n])
		n++;
	if (!(flags & F_LEFT))
		pad(o, ' ', width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (flags & F_LEFT)
		pad(o, ' ', width - n);
}

static void put_double(struct out *o, double d, int flags, int width, int prec)
{
	unsigned long long ip, fp, scale = 1;
	char buf[48];
	struct out b = { buf, buf + sizeof(buf) - 1, 0 };
	int neg = d < 0, i;

	if (d != d) {
		put_str(o, "nan", flags & F_LEFT, width, -1);
		return;
	}
	if (neg)
		d = -d;
	if (d > 1.8e19) {
		put_str(o, neg ? "-inf" : "inf", flags & F_LEFT, width, -1);
		return;
	}
	if (prec < 0)
		prec = 6;
	if (prec > 9)
		prec = 9;
	for (i = 0; i < prec; i++)
		scale *= 10;
	ip = (unsigned long long)d;
	fp = (unsigned long long)((d - (double)ip) * (double)scale + 0.5);
	if (fp >= scale) {
		ip++;
		fp -= scale;
	}
	put_num(&b, ip, neg, 10, 0, flags & (F_PLUS | F_SPACE), 0, -1, NULL);
	if (prec) {
		put(&b, '.');
		put_num(&b, fp, 0, 10, 0, 0, 0, prec, NULL);
	}
	*b.p = '\0';
	if ((flags & F_ZERO) && !(flags & F_LEFT) && width > (int)(b.p - buf)) {
		/* zero padding goes after the sign */
		const char *s = buf;

		if (*s == '-' || *s == '+' || *s == ' ')
			put(o, *s++);
		pad(o, '0', width - (int)(b.p - buf));
		put_str(o, s, 0, 0, -1);
		return;
	}
	put_str(o, buf, flags, width, -1);
}

/**
 * ftk_marker_format() - format like vsnprintf(), async-signal-safe
 * @buf: where the text goes (always NUL-terminated when @len > 0)
 * @len: size of @buf
 * @fmt: printf format (see the list of conversions at the top of marker.c)
 * @ap: the arguments
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: the length the full text has, as vsnprintf() returns; it was
 * cut if that is >= @len.
 */
FTK_API int ftk_marker_format(char *buf, size_t len, const char *fmt, va_list ap)
{
	char dummy;
	struct out o = { len ? buf : &dummy, len ? buf + len - 1 : &dummy, 0 };
	const char *f;

	for (f = fmt; *f; f++) {
		int flags = 0, width = 0, prec = -1, lng = 0, neg = 0;
		const char *start = f;
		unsigned long long u;
		long long s;

		if (*f != '%') {
			put(&o, *f);
			continue;
		}
		for (f++;; f++) {
			if (*f == '-')
				flags |= F_LEFT;
			else if (*f == '0')
				flags |= F_ZERO;
			else if (*f == '+')
				flags |= F_PLUS;
			else if (*f == ' ')
				flags |= F_SPACE;
			else if (*f == '#')
				flags |= F_ALT;
			else
				break;
		}
		if (*f == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				flags |= F_LEFT;
				width = -width;
			}
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				width = width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			prec = 0;
			if (*f == '*') {
				prec = va_arg(ap, int);
				f++;
			} else {
				while (*f >= '0' && *f <= '9')
					prec = prec * 10 + (*f++ - '0');
			}
		}
		/* lng: -2 hh, -1 h, 0 int, 1 long, 2 long long, 3 size_t/intmax/ptrdiff */
		if (*f == 'h') {
			lng = -1;
			if (*++f == 'h') {
				lng = -2;
				f++;
			}
		} else if (*f == 'l') {
			lng = 1;
			if (*++f == 'l') {
				lng = 2;
				f++;
			}
		} else if (*f == 'z' || *f == 'j' || *f == 't') {
			lng = 3;
			f++;
		}
		switch (*f) {
		case 'd':
		case 'i':
			if (lng == 2)
				s = va_arg(ap, long long);
			else if (lng == 1)
				s = va_arg(ap, long);
			else if (lng == 3)
				s = va_arg(ap, intmax_t);	/* same size as ssize_t here */
			else
				s = va_arg(ap, int);
			if (lng == -1)
				s = (short)s;
			else if (lng == -2)
				s = (signed char)s;
			neg = s < 0;
			u = neg ? -(unsigned long long)s : (unsigned long long)s;
			put_num(&o, u, neg, 10, 0, flags, width, prec, NULL);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (lng == 2)
				u = va_arg(ap, unsigned long long);
			else if (lng == 1)
				u = va_arg(ap, unsigned long);
			else if (lng == 3)
				u = va_arg(ap, size_t);
			else
				u = va_arg(ap, unsigned int);
			if (lng == -1)
				u = (unsigned short)u;
			else if (lng == -2)
				u = (unsigned char)u;
			put_num(&o, u, 0, *f == 'o' ? 8 : *f == 'u' ? 10 : 16, *f == 'X',
				flags & ~(F_PLUS | F_SPACE), width, prec,
				(flags & F_ALT) && u ? (*f == 'x' ? "0x" : *f == 'X' ? "0X" :
							*f == 'o' ? "0" : NULL) : NULL);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_num(&o, u, 0, 16, 0, flags & F_LEFT, width, prec, "0x");
			break;
		case 'c':
			if (!(flags & F_LEFT))
				pad(&o, ' ', width - 1);
			put(&o, (char)va_arg(ap, int));
			if (flags & F_LEFT)
				pad(&o, ' ', width - 1);
			break;
		case 's':
			put_str(&o, va_arg(ap, const char *), flags, width, prec);
			break;
		case 'f':
		case 'F':
			put_double(&o, va_arg(ap, double), flags, width, prec);
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown conversion: copy it as written; its argument is not taken. */
			while (start <= f && *start)
				put(&o, *start++);
			if (!*f)
				f--;
			break;
		}
	}
	*o.p = '\0';
	return o.total > INT32_MAX ? INT32_MAX : (int)o.total;
}

/* ---------------------------------------------------------------- handle */

static int open_file(const char *root, const char *instance, const char *file)
{
	char path[4096];
	struct stat st;
	int n, fd;

	if (instance)
		n = snprintf(path, sizeof(path), "%s/instances/%s/%s", root, instance, file);
	else
		n = snprintf(path, sizeof(path), "%s/%s", root, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/*
	 * No link followed and nothing but a regular file taken (tracefs's
	 * files are): a program that links this and runs with more privilege
	 * than its caller must not append to a file the caller points it at.
	 * O_NONBLOCK: a FIFO put there must not hang the open.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* The environment, but none of it in a set-user-ID or set-group-ID program. */
static const char *env(const char *name)
{
	const char *v = secure_getenv(name);

	return v && *v ? v : NULL;
}

/**
 * ftk_marker_open() - open trace_marker for marking
 * @instance: a tracefs instance name, or NULL for $FTK_INSTANCE if set (ftrecord
 *	      sets it for the command it records), else the top-level buffer
 * @flags: FTK_MARKER_RAW to open trace_marker_raw as well
 *
 * The tracing directory is $FTK_TRACEFS if set, else /sys/kernel/tracing,
 * else /sys/kernel/debug/tracing. In a set-user-ID or set-group-ID program
 * (secure_getenv(3)) FTK_TRACEFS and FTK_INSTANCE are ignored. The files
 * are opened without following a link, and only a regular file is taken.
 * When trace_marker cannot be opened the handle is returned disabled: marks
 * on it do nothing and return 0, and ftk_marker_error() says why. An
 * application never has to check.
 *
 * Return: a handle, never NULL, to be released with ftk_marker_close().
 */
FTK_API struct ftk_marker *ftk_marker_open(const char *instance, unsigned int flags)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *tracefs = env("FTK_TRACEFS");
	struct ftk_marker *m;
	int saved = errno;
	size_t i;

	m = malloc(sizeof(*m));
	if (!m) {
		errno = saved;
		return &no_marker;
	}
	m->fd = m->raw_fd = -1;
	m->err = ENOENT;
	m->is_static = 0;
	m->dropped = 0;
	/* A command run by ftrecord marks the instance being recorded. */
	if (!instance)
		instance = env("FTK_INSTANCE");
	if (instance && (!*instance || strchr(instance, '/') || !strcmp(instance, "..") ||
			 !strcmp(instance, "."))) {
		m->err = EINVAL;
		errno = saved;
		return m;
	}
	for (i = 0; i < (tracefs ? 1 : sizeof(roots) / sizeof(roots[0])); i++) {
		const char *root = tracefs ? tracefs : roots[i];

		m->fd = open_file(root, instance, "trace_marker");
		if (m->fd < 0) {
			/* Keep the most telling reason: EACCES/EPERM beat ENOENT. */
			if (m->err == ENOENT || errno != ENOENT)
				m->err = errno;
			continue;
		}
		m->err = 0;
		if (flags & FTK_MARKER_RAW) {
			m->raw_fd = open_file(root, instance, "trace_marker_raw");
			if (m->raw_fd < 0)
				m->err = errno;	/* text marks still work */
		}
		break;
	}
	errno = saved;
	return m;
}

/**
 * ftk_marker_close() - close a marker handle; NULL is fine
 * @m: the handle
 *
 * Context: no mark may be in flight on @m in another thread.
 */
FTK_API void ftk_marker_close(struct ftk_marker *m)
{
	int saved = errno;

	if (!m || m->is_static)
		return;
	if (m->fd >= 0)
		close(m->fd);
	if (m->raw_fd >= 0)
		close(m->raw_fd);
	free(m);
	errno = saved;
}

/** ftk_marker_enabled() - 1 if marks on @m reach trace_marker, else 0 */
FTK_API int ftk_marker_enabled(const struct ftk_marker *m)
{
	return m && m->fd >= 0;
}

/**
 * ftk_marker_error() - why @m is disabled
 * @m: the handle
 *
 * Return: 0 if trace_marker (and trace_marker_raw, if asked for) opened,
 * else the positive errno of the failed open (ENOENT: no tracefs or no
 * such instance; EACCES or EPERM: not permitted).
 */
FTK_API int ftk_marker_error(const struct ftk_marker *m)
{
	return m ? m->err : EINVAL;
}

/**
 * ftk_marker_dropped() - marks the buffer did not take
 * @m: the handle
 *
 * The kernel refuses a mark with EBADF when the ring buffer does not record
 * ("as if not open for write"): its instance's recorder stopped it (a
 * flight recording that ended), or tracing_on is 0. Such a mark is dropped
 * and counted here, and the mark returns 0, as on a disabled handle.
 *
 * Return: the number of marks dropped on @m so far.
 */
FTK_API unsigned long ftk_marker_dropped(const struct ftk_marker *m)
{
	return m ? __atomic_load_n(&m->dropped, __ATOMIC_RELAXED) : 0;
}

static int do_write(struct ftk_marker *m, int fd, const void *buf, size_t len)
{
	int saved = errno, ret;
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	ret = n < 0 ? -errno : (int)n;
	if (ret == -EBADF) {
		/* not recording: drop it (an atomic add is async-signal-safe) */
		__atomic_add_fetch(&m->dropped, 1, __ATOMIC_RELAXED);
		ret = 0;
	}
	errno = saved;
	return ret;
}

/**
 * ftk_mark_write() - write bytes as one mark
 * @m: the handle (NULL or disabled: no-op)
 * @buf: the text (a newline is added by the kernel when missing)
 * @len: its length; more than FTK_MARKER_MAX is written as is, and the
 *	kernel cuts it at its own limit
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: the bytes written, 0 when @m is disabled or the buffer does not
 * record (see ftk_marker_dropped()), or a negative errno.
 */
FTK_API int ftk_mark_write(struct ftk_marker *m, const void *buf, size_t len)
{
	if (!m || m->fd < 0)
		return 0;
	return do_write(m, m->fd, buf, len);
}

static int vmark(struct ftk_marker *m, const char *prefix, const char *fmt, va_list ap)
{
	char buf[FTK_MARKER_MAX];
	size_t n = 0;
	int len;

	while (prefix && *prefix && n < sizeof(buf) - 1)
		buf[n++] = *prefix++;
	len = ftk_marker_format(buf + n, sizeof(buf) - n, fmt, ap);
	if (len < 0)
		len = 0;
	n += (size_t)len < sizeof(buf) - n ? (size_t)len : sizeof(buf) - n - 1;
	return do_write(m, m->fd, buf, n);
}

/**
 * ftk_vmark() - ftk_mark() with a va_list
 * @m: the handle (NULL or disabled: no-op)
 * @fmt: the format
 * @ap: its arguments
 *
 * Return: as ftk_mark().
 */
FTK_API int ftk_vmark(struct ftk_marker *m, const char *fmt, va_list ap)
{
	if (!m || m->fd < 0)
		return 0;
	return vmark(m, NULL, fmt, ap);
}

/**
 * ftk_mark() - write a printf-style mark
 * @m: the handle (NULL or disabled: no-op)
 * @fmt: the format (see ftk_marker_format()); the text is cut at
 *	FTK_MARKER_MAX - 1 bytes
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: the bytes written, 0 when @m is disabled or the buffer does not
 * record (see ftk_marker_dropped()), or a negative errno (errno itself is
 * left untouched).
 */
FTK_API int ftk_mark(struct ftk_marker *m, const char *fmt, ...)
{
	va_list ap;
	int ret;

	if (!m || m->fd < 0)
		return 0;
	va_start(ap, fmt);
	ret = vmark(m, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* "B|PID|" and the like, without stdio. */
static void span_prefix(char *buf, size_t len, char kind)
{
	char num[16];
	int n = 0, pid = (int)getpid();
	size_t i = 0;

	buf[i++] = kind;
	buf[i++] = '|';
	do
		num[n++] = '0' + pid % 10;
	while ((pid /= 10) && n < (int)sizeof(num));
	while (n && i < len - 2)
		buf[i++] = num[--n];
	buf[i++] = '|';
	buf[i] = '\0';
}

/**
 * ftk_mark_begin() - open a span: writes "B|PID|NAME"
 * @m: the handle (NULL or disabled: no-op)
 * @fmt: the span's name, printf-style
 *
 * The systrace (atrace) form, which Perfetto and Catapult show as slices.
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: as ftk_mark().
 */
FTK_API int ftk_mark_begin(struct ftk_marker *m, const char *fmt, ...)
{
	char prefix[24];
	va_list ap;
	int ret;

	if (!m || m->fd < 0)
		return 0;
	span_prefix(prefix, sizeof(prefix), 'B');
	va_start(ap, fmt);
	ret = vmark(m, prefix, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * ftk_mark_end() - close the innermost span: writes "E|PID|NAME"
 * @m: the handle (NULL or disabled: no-op)
 * @fmt: the span's name, printf-style, or NULL for "E|PID"
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: as ftk_mark().
 */
FTK_API int ftk_mark_end(struct ftk_marker *m, const char *fmt, ...)
{
	char prefix[24];
	va_list ap;
	int ret;

	if (!m || m->fd < 0)
		return 0;
	span_prefix(prefix, sizeof(prefix), 'E');
	if (!fmt) {
		prefix[strlen(prefix) - 1] = '\0';
		return do_write(m, m->fd, prefix, strlen(prefix));
	}
	va_start(ap, fmt);
	ret = vmark(m, prefix, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * ftk_mark_counter() - write a counter value: "C|PID|NAME|VALUE"
 * @m: the handle (NULL or disabled: no-op)
 * @name: the counter's name (no '|')
 * @value: its value
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: as ftk_mark().
 */
FTK_API int ftk_mark_counter(struct ftk_marker *m, const char *name, long long value)
{
	char prefix[24];

	if (!m || m->fd < 0)
		return 0;
	span_prefix(prefix, sizeof(prefix), 'C');
	return ftk_mark(m, "%s%s|%lld", prefix, name, value);
}

/**
 * ftk_mark_raw() - write a binary record to trace_marker_raw
 * @m: a handle opened with FTK_MARKER_RAW (else a no-op)
 * @id: the record's id (the first 4 bytes, which the kernel reads as "id")
 * @data: the payload
 * @len: its length; at most FTK_MARKER_MAX - 4
 *
 * Context: async-signal-safe, thread-safe, allocation-free.
 *
 * Return: the bytes written (4 + @len), 0 when @m has no
 * trace_marker_raw, -EMSGSIZE when @len is too long, or a negative errno.
 */
FTK_API int ftk_mark_raw(struct ftk_marker *m, uint32_t id, const void *data, size_t len)
{
	char buf[FTK_MARKER_MAX];

	if (!m || m->raw_fd < 0)
		return 0;
	if (len > sizeof(buf) - sizeof(id))
		return -EMSGSIZE;
	memcpy(buf, &id, sizeof(id));
	if (len)
		memcpy(buf + sizeof(id), data, len);
	return do_write(m, m->raw_fd, buf, sizeof(id) + len);
}
