/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The printer's output buffer (print-obuf.c), the bottom of the print
 * files: every part writes its text through these, and they use none of
 * the parts.
 */
#ifndef FTKIT_PRINT_OBUF_LOCAL_H
#define FTKIT_PRINT_OBUF_LOCAL_H

#include <stdint.h>
#include <string.h>

struct ftk_printer;

/* A growing output buffer for the fast path. */
struct obuf {
	char	*b;
	size_t	len, cap;
};

int ftk_ob_need(struct obuf *o, size_t n);
void ftk_ob_printf(struct obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ftk_put_function(struct ftk_printer *p, struct obuf *o, unsigned long long v, char conv);
const char *ftk_print_func(struct ftk_printer *p, unsigned long long v, unsigned long long *start,
			   unsigned int *len);

/* @v in decimal, written backwards from @end, two digits a step; returns its start. */
static inline char *ftk_utoa(char *end, unsigned long long v)
{
	static const char digits2[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	unsigned int w;

	while (v > 0xffffffffULL) {
		end -= 2;
		memcpy(end, digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	for (w = (unsigned int)v; w >= 100; w /= 100) {
		end -= 2;
		memcpy(end, digits2 + 2 * (w % 100), 2);
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, digits2 + 2 * w, 2);
	} else {
		*--end = '0' + w;
	}
	return end;
}

/*
 * Copy a few bytes without a call or a byte loop: most pieces of a line
 * are short. Two overlapping moves of 4, 8 or 16 bytes cover 4 to 32;
 * nothing is read or written outside [@s, @s + @n) and [@d, @d + @n).
 */
static inline __attribute__((always_inline)) void ftk_small_copy(char *d, const char *s,
								 size_t n)
{
	uint64_t a, b;
	uint32_t x, y;
	char v[16], w[16];

	if (n >= 8) {
		if (n <= 16) {
			memcpy(&a, s, 8);
			memcpy(&b, s + n - 8, 8);
			memcpy(d, &a, 8);
			memcpy(d + n - 8, &b, 8);
		} else if (n <= 32) {
			memcpy(v, s, 16);
			memcpy(w, s + n - 16, 16);
			memcpy(d, v, 16);
			memcpy(d + n - 16, w, 16);
		} else {
			memcpy(d, s, n);
		}
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n) {
		d[0] = s[0];
		d[n >> 1] = s[n >> 1];
		d[n - 1] = s[n - 1];
	}
}

static inline __attribute__((always_inline)) void ftk_ob_put(struct obuf *o, const char *s,
							     size_t n)
{
	if (o->len + n > o->cap && ftk_ob_need(o, n))
		return;
	ftk_small_copy(o->b + o->len, s, n);
	o->len += n;
}

/* The count of decimal digits of @v. */
static inline int ftk_ulen(unsigned long long v)
{
	int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/*
 * The writers below put their digits straight into the buffer, never
 * through a buffer of their own and a copy: reading back, 4 or 8 bytes
 * at a time, digits just stored 1 or 2 at a time stalls the load until
 * the stores retire (store forwarding fails), and that was a third of
 * the line head's time.
 */

/* @v in base @base (10 or 16, lower case), zero-padded to @width (at most 64). */
static inline __attribute__((always_inline)) void ftk_ob_num0(struct obuf *o,
							      unsigned long long v,
							      int width, int base)
{
	static const char digits[] = "0123456789abcdef";
	int n, i;
	char *d;

	if (width > 64)
		width = 64;
	if (o->len + 88 > o->cap && ftk_ob_need(o, 88))
		return;
	d = o->b + o->len;
	if (base == 16)
		n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	else
		n = ftk_ulen(v);
	for (i = n; i < width; i++)
		*d++ = '0';
	if (base == 16) {
		for (i = n; i--; v >>= 4)
			d[i] = digits[v & 15];
	} else {
		ftk_utoa(d + n, v);
	}
	o->len = d + n - o->b;
}

static inline void ftk_ob_lld(struct obuf *o, long long v)
{
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
	int n = ftk_ulen(u) + (v < 0);
	char *d;

	if (o->len + 24 > o->cap && ftk_ob_need(o, 24))
		return;
	d = o->b + o->len;
	if (v < 0)
		*d = '-';
	ftk_utoa(d + n, u);
	o->len += n;
}

/* @v in decimal, zero-padded to @width (the "%03llu" the plugins use). */
static inline void ftk_ob_u0(struct obuf *o, unsigned long long v, int width)
{
	ftk_ob_num0(o, v, width, 10);
}

#endif
