// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-obuf: the printer's output buffer, the bottom of the print files
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "print-local.h"

int ftk_ob_need(struct obuf *o, size_t n)
{
	char *nb;
	size_t cap = o->cap ? o->cap : 256;

	if (o->len + n <= o->cap)
		return 0;
	while (cap < o->len + n)
		cap *= 2;
	nb = realloc(o->b, cap);
	if (!nb)
		return -1;
	o->b = nb;
	o->cap = cap;
	return 0;
}

void ftk_ob_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* most conversions fit the room left: format once */
	if (o->cap - o->len < 64 && ftk_ob_need(o, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->b + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		if (ftk_ob_need(o, n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(o->b + o->len, n + 1, fmt, ap);
		va_end(ap);
	}
	o->len += n;
}

#define FUNC_SLOTS	4096

/* A function found at an address: lines of one call site come in runs. */
struct ftk_func_slot {
	unsigned long long	addr, start;
	const char		*name;	/* NULL: no function there */
	unsigned int		len;
	int			used;
};

/**
 * ftk_print_func() - the function at an address, through a cache
 * @p: the printer (its tep handle's function resolver answers first)
 * @v: the address
 * @start: the function's start, when one is found
 * @len: the length of its name
 *
 * tep_find_function() and tep_find_function_address() are each a binary
 * search of the file's kallsyms; an -e all recording asks for a few
 * hundred call sites a hundred thousand times (the kmem plugin's prefix
 * and its %pS). What the resolver said is kept per address.
 *
 * Return: the name, or NULL if no function is at @v.
 */
const char *ftk_print_func(struct ftk_printer *p, unsigned long long v, unsigned long long *start,
			   unsigned int *len)
{
	struct ftk_func_slot *c;

	if (!p->funcs)
		p->funcs = calloc(FUNC_SLOTS, sizeof(*p->funcs));
	c = p->funcs ? &p->funcs[(v ^ (v >> 12)) % FUNC_SLOTS] : NULL;
	if (!c || !c->used || c->addr != v) {
		struct ftk_func_slot n = { .addr = v, .used = 1 };

		n.name = tep_find_function(p->tep, v);
		if (n.name) {
			n.start = tep_find_function_address(p->tep, v);
			n.len = strlen(n.name);
		}
		if (!c) {
			*start = n.start;
			*len = n.len;
			return n.name;
		}
		*c = n;
	}
	*start = c->start;
	*len = c->len;
	return c->name;
}

/*
 * %ps of @v, as libtraceevent's print_function() prints it: the name of
 * the function at @v, with "+0x" and the offset into it for %pS and %pF
 * (@conv 'S', 'F'); without one, the address in hex.
 */
__attribute__((noinline)) void ftk_put_function(struct ftk_printer *p, struct obuf *o,
						unsigned long long v, char conv)
{
	unsigned long long start;
	unsigned int len;
	const char *func = ftk_print_func(p, v, &start, &len);

	if (!func) {
		/* "0x%lx" of (long)v for 4-byte longs: the same digits here */
		ftk_ob_put(o, "0x", 2);
		ftk_ob_num0(o, v, 0, 16);
		return;
	}
	ftk_ob_put(o, func, len);
	if (conv == 'S' || conv == 'F') {
		ftk_ob_put(o, "+0x", 3);
		ftk_ob_num0(o, v - start, 0, 16);
	}
}
