// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-text: trace-cmd report's text: line heads, the compiled event text, output
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/futex.h>
#include <sys/socket.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "print-local.h"

/* ---------------------------------------------------------------- line building */

static const char spaces[32] = "                                ";

/*
 * Right-align @n chars in @width, writing at @o; returns the new end. Up
 * to 32 bytes past the end may be written (the line head has room).
 */
static inline char *pad_left(char *o, const char *s, int n, int width)
{
	if (width > n) {
		if (width - n <= 32) {
			memcpy(o, spaces, 32);
			o += width - n;
		} else {
			memset(o, ' ', width - n);
			o += width - n;
		}
	}
	ftk_small_copy(o, s, n);
	return o + n;
}

/*
 * The stamp as libtraceevent prints TEP_PRINT_TIME with trace-cmd's
 * formats: " %6.1000d" (seconds.microseconds, rounded), " %9.1d" with -t,
 * "%12d" for clocks that do not count nanoseconds.
 */
static char *put_time(struct ftk_printer *p, struct tep_record *rec, char *o,
		      unsigned long long ts, int in_ns, int nsec)
{
	unsigned long long t, p10;
	int prec, i;

	if (!in_ns) {
		i = ftk_ulen(ts);
		if (i < 12) {
			memcpy(o, spaces, 12 - i);
			o += 12 - i;
		}
		ftk_utoa(o + i, ts);
		return o + i;
	}
	*o++ = ' ';
	if (nsec) {
		t = ts;
		prec = 9;
		p10 = 1000000000ULL;
	} else {
		t = (ts + 500) / 1000;
		prec = 6;
		p10 = 1000000ULL;
	}
	if (t <= p10) {
		/* Stamps under a second: leave the edge cases to libtraceevent. */
		trace_seq_reset(&p->s);
		tep_print_event(p->tep, &p->s, rec, nsec ? "%9.1d" : "%6.1000d", TEP_PRINT_TIME);
		memcpy(o, p->s.buffer, p->s.len);
		return o + p->s.len;
	}
	{
		unsigned long long sec = t / p10;

		i = ftk_ulen(sec);
		memcpy(o, spaces, 8);
		o += i < 5 ? 5 : i;
		ftk_utoa(o, sec);
		*o++ = '.';
		memcpy(o, "0000000000000000", 16);
		ftk_utoa(o + prec, t % p10);
		return o + prec;
	}
}

static unsigned long long rd(struct ftk_printer *p, const struct tep_record *rec,
			     const struct tep_format_field *f)
{
	return rdn(p, (const char *)rec->data + f->offset, f->size);
}

/*
 * The plugin's write_and_save_comm(): print the comm and register it for
 * @pid, on every call as the plugin does. How often matters: until the
 * first look-up of a pid, comms are kept as a list that takes duplicates,
 * and which duplicate wins after its sort depends on them all. In
 * checking mode (@reg 0) libtraceevent's own call registers too, with
 * libtraceevent: the tep's comm table (comm.c) still needs this one.
 */
static void put_comm(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
		     const struct tep_format_field *f, int pid, int reg)
{
	const char *c = (const char *)rec->data + f->offset;
	size_t n = strnlen(c, f->size);

	ftk_ob_put(o, c, n);
	if (!reg && !p->ctab)
		return;
	ftk_comms_add(p->ctab, p->tep, c, n, pid);
	/* only this pid's comm can have changed */
	if (p->comms && p->comms[(unsigned int)pid % COMM_SLOTS].pid == pid)
		p->comms[(unsigned int)pid % COMM_SLOTS].gen = 0;
}

/*
 * The sched_switch plugin's write_state(): a letter for each of the low
 * eight bits set, joined by '|', or R. The letters are those of
 * libtraceevent 1.7.1's plugin; ftk_print_event_text() checks the first record of
 * each state against the plugin, as other plugins may name them otherwise.
 */
static void put_state(struct obuf *o, int val)
{
	static const char states[] = "SDTtZXxW";
	char buf[40];
	int i, n = 0;

	for (i = 0; i < 8; i++) {
		if (!(val & (1 << i)))
			continue;
		if (n)
			buf[n++] = '|';
		buf[n++] = states[i];
	}
	if (!n)
		buf[n++] = 'R';
	ftk_ob_put(o, buf, n);
}

/* A plain %p, as the C library prints it (print_arg_pointer()). */
static void put_pointer(struct obuf *o, unsigned long long v)
{
	if (!v) {
		ftk_ob_put(o, "(nil)", 5);
		return;
	}
	ftk_ob_put(o, "0x", 2);
	ftk_ob_num0(o, (unsigned long long)(uintptr_t)v, 0, 16);
}

/* A number through its conversion, cast as the length modifier says. */
static inline __attribute__((always_inline)) void put_num(struct obuf *o, const struct fop *op,
							  unsigned long long v)
{
	if (op->plain && (op->conv == 'd' || op->conv == 'i'))
		ftk_ob_lld(o, op->ls == 0 ? (long long)(int)v :
			  op->ls == 1 ? (long long)(long)v : (long long)v);
	else if (op->plain && op->conv == 'u')
		ftk_ob_u0(o, op->ls == 0 ? (unsigned long long)(unsigned int)v :
			 op->ls == 1 ? (unsigned long long)(unsigned long)v : v, 0);
	else if (op->zpad)
		ftk_ob_num0(o, op->ls == 0 ? (unsigned long long)(unsigned int)v :
			   op->ls == 1 ? (unsigned long long)(unsigned long)v : v,
			op->width, op->conv == 'x' ? 16 : 10);
	else if (op->conv == 'p')
		put_pointer(o, v);
	else if (op->ls < 0)	/* %hd, %hhx: print_arg_number() casts to short or char */
		ftk_ob_printf(o, op->fmt, op->ls == -1 ? (int)(short)v : (int)(char)v);
	else if (op->ls == 0)
		ftk_ob_printf(o, op->fmt, (int)v);
	else if (op->ls == 1)
		ftk_ob_printf(o, op->fmt, (long)v);
	else
		ftk_ob_printf(o, op->fmt, (long long)v);
}

/*
 * Node @i of the expression @ex on @rec, as eval_num_arg() evaluates it
 * (see compile_expr()); shifts count modulo 64, as the machine shifts.
 */
static unsigned long long eval_expr(struct ftk_printer *p, const struct fexpr *ex, int i,
				    const struct tep_record *rec)
{
	const struct fexpr *e = &ex[i];
	unsigned long long l, r, v = 0;

	switch (e->kind) {
	case EX_CONST:
		v = e->val;
		break;
	case EX_FIELD:
		v = rdn(p, (const char *)rec->data + e->off, e->size);
		break;
	case EX_COND:
		v = eval_expr(p, ex, eval_expr(p, ex, e->c, rec) ? e->l : e->r, rec);
		break;
	case EX_OP:
		l = eval_expr(p, ex, e->l, rec);
		r = eval_expr(p, ex, e->r, rec);
		switch (e->op[0]) {
		case '!':
			v = e->op[1] ? l != r : !r;
			break;
		case '~':
			v = ~r;
			break;
		case '|':
			v = e->op[1] ? l || r : (l | r);
			break;
		case '&':
			v = e->op[1] ? l && r : (l & r);
			break;
		case '<':
			v = e->op[1] == '<' ? l << (r & 63) : e->op[1] == '=' ? l <= r : l < r;
			break;
		case '>':
			v = e->op[1] == '>' ? l >> (r & 63) : e->op[1] == '=' ? l >= r : l > r;
			break;
		case '=':
			v = l == r;
			break;
		case '-':
			v = l - r;
			break;
		case '+':
			v = l + r;
			break;
		case '*':
			v = l * r;
			break;
		case '/':	/* by a constant not 0 (compile_expr()) */
			v = r ? l / r : 0;
			break;
		case '%':
			v = r ? l % r : 0;
			break;
		}
		break;
	}
	return v & e->mask;
}

/* %s of a char array field (at most 1024 bytes, compile_generic()), up to its NUL. */
static inline void put_char_array(struct obuf *o, const struct fop *op, const struct tep_record *rec)
{
	char buf[1025];

	memcpy(buf, (const char *)rec->data + op->off, op->size);
	buf[op->size] = 0;
	if (op->plain)
		ftk_ob_put(o, buf, strlen(buf));
	else
		ftk_ob_printf(o, op->fmt, buf);
}

/* A name of __print_symbolic() or __print_flags(), through the conversion. */
static void put_sym_str(struct obuf *o, const struct fop *op, const struct fsym *y)
{
	if (op->plain)
		ftk_ob_put(o, y->str, y->len);
	else
		ftk_ob_printf(o, op->fmt, y->str);
}

/*
 * The rarer parts of a print fmt, out of run_prog()'s loop: %s of
 * __print_symbolic() and __print_flags() (print_str_arg(), see
 * compile_symbolic()), %ps of an address, numbers of expressions.
 */
static __attribute__((noinline)) void put_symbol(struct ftk_printer *p, const struct fop *op,
						 const struct tep_record *rec, struct obuf *o)
{
	unsigned long long v;
	const struct fsym *y, *end;

	while (op->kind == FOP_SCOND)
		/* %s of c ? a : b (print_str_arg()): the string chosen */
		op = &op->alt[eval_expr(p, op->ex, 0, rec) ? 0 : 1];
	if (op->kind == FOP_LIT) {
		/* a string constant, through the conversion */
		if (op->plain)
			ftk_ob_put(o, op->lit, op->litlen);
		else
			ftk_ob_printf(o, op->fmt, op->lit);
		return;
	}
	if (op->kind == FOP_STR) {
		put_char_array(o, op, rec);
		return;
	}
	if (op->ex) {
		v = eval_expr(p, op->ex, 0, rec);
		if (op->kind == FOP_EXPR) {
			put_num(o, op, v);
			return;
		}
	} else {
		v = rdn(p, (const char *)rec->data + op->off, op->size) & op->mask;
	}
	if (op->kind == FOP_FUNC) {
		ftk_put_function(p, o, v, op->pconv);
		return;
	}
	y = op->syms;
	end = y + op->nsyms;
	if (op->kind == FOP_FLAGS) {
		/* signed, as print_str_arg() has them */
		long long val = (long long)v, fval;
		int print = 0;

		for (; y < end; y++) {
			fval = (long long)y->val;
			if (!val && fval < 0) {
				put_sym_str(o, op, y);
				break;
			}
			if (fval > 0 && (val & fval) == fval) {
				if (print && op->lit)
					ftk_ob_put(o, op->lit, op->litlen);
				put_sym_str(o, op, y);
				print = 1;
				val &= ~fval;
			}
		}
		if (val) {
			if (print && op->lit)
				ftk_ob_put(o, op->lit, op->litlen);
			ftk_ob_printf(o, "0x%llx", (unsigned long long)val);
		}
		return;
	}
	while (y < end && y->val != v)
		y++;
	if (y == end)
		ftk_ob_printf(o, "0x%llx", v);
	else
		put_sym_str(o, op, y);
}

/*
 * The kmem plugin's call_site_handler(), before the event's own text:
 * "(func+0x%x) " of the function at @v, its offset cast to int; nothing
 * when no function is there.
 */
static __attribute__((noinline)) void put_call_site(struct ftk_printer *p, struct obuf *o,
						    unsigned long long v)
{
	unsigned long long start;
	unsigned int len;
	const char *func = ftk_print_func(p, v, &start, &len);

	if (!func)
		return;
	ftk_ob_put(o, "(", 1);
	ftk_ob_put(o, func, len);
	ftk_ob_put(o, "+0x", 3);
	ftk_ob_num0(o, (unsigned int)(int)(v - start), 0, 16);
	ftk_ob_put(o, ") ", 2);
}

/* An IPv4 address at @d, its bytes last to first if @rev, 3 digits each if @lz (%pi4). */
static char *put_ip4(char *d, const unsigned char *b, int rev, int lz)
{
	int i, v;

	for (i = 0; i < 4; i++) {
		v = b[rev ? 3 - i : i];
		if (i)
			*d++ = '.';
		if (lz) {
			*d++ = '0' + v / 100;
			*d++ = '0' + v / 10 % 10;
			*d++ = '0' + v % 10;
		} else {
			d += ftk_ulen(v);
			ftk_utoa(d, v);
		}
	}
	return d;
}

/* An IPv6 address at @d (%pI6, %pi6): 16-bit words of 4 hex digits, joined by @sep if not 0. */
static char *put_ip6(char *d, const unsigned char *b, char sep)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		if (i && !(i & 1) && sep)
			*d++ = sep;
		*d++ = hex[b[i] >> 4];
		*d++ = hex[b[i] & 15];
	}
	return d;
}

/*
 * An IPv6 address as libtraceevent's %pI6c prints it (print_ip6c_addr()):
 * the 16-bit words in hex without leading zeros, joined by ':'; the first
 * of the longest runs of two or more zero words as "::"; a v4-mapped
 * (::ffff:0:0/96) or ISATAP address (its third 32 bits 0x00005efe or
 * 0x02005efe) with its last 32 bits as IPv4 after the first six words.
 * Returns the end of the text at @d (at most 46 bytes).
 */
static char *put_ip6c(char *d, const unsigned char *b)
{
	static const char hex[] = "0123456789abcdef";
	int i, j, n, words, at = -1, longest = 1, sep = 0;
	unsigned int w[8];

	for (i = 0; i < 8; i++)
		w[i] = b[2 * i] << 8 | b[2 * i + 1];
	words = (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff) ||
		((b[8] | 2) == 2 && !b[9] && b[10] == 0x5e && b[11] == 0xfe) ? 6 : 8;
	for (i = 0; i < words; i++) {
		for (j = i; j < words && !w[j]; j++)
			;
		if (j - i > longest) {
			longest = j - i;
			at = i;
		}
	}
	for (i = 0; i < words; i++) {
		if (i == at) {
			*d++ = ':';
			*d++ = ':';
			sep = 0;
			i += longest - 1;
			continue;
		}
		if (sep)
			*d++ = ':';
		n = (32 - __builtin_clz(w[i] | 1) + 3) / 4;
		for (j = n; j--; )
			*d++ = hex[(w[i] >> (4 * j)) & 15];
		sep = 1;
	}
	if (words == 6) {
		if (sep)
			*d++ = ':';
		d = put_ip4(d, b + 12, 0, 0);
	}
	return d;
}

/*
 * A FOP_ADDR conversion: the MAC or IP address in @op's field (see
 * compile_addr_spec()). %pISpc's is a struct sockaddr_in or _in6, its
 * family read in this machine's order as print_ipsa_arg() reads it (the
 * field is 28 bytes or more, compile_addr_arg()): "a.b.c.d:port" or
 * "[v6]:port" (the port's two bytes in network order, printed as "%d"),
 * nothing for another family.
 */
static __attribute__((noinline)) void put_addr(struct obuf *o, const struct fop *op,
					       const struct tep_record *rec)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = (const unsigned char *)rec->data + op->off;
	char buf[64], *d = buf;
	unsigned short family;
	int i, v;

	switch (op->addr) {
	case ADDR_MAC:
		for (i = 0; i < 6; i++) {
			v = b[op->addr_rev ? 5 - i : i];
			if (i && op->addr_sep)
				*d++ = op->addr_sep;
			*d++ = hex[v >> 4];
			*d++ = hex[v & 15];
		}
		break;
	case ADDR_IP4:
		d = put_ip4(d, b, op->addr_rev, op->addr_lz);
		break;
	case ADDR_IP6:
		d = put_ip6(d, b, op->addr_sep);
		break;
	case ADDR_IP6C:
		d = put_ip6c(d, b);
		break;
	case ADDR_SA:
	case ADDR_SAC:
		memcpy(&family, b, sizeof(family));
		if (family == AF_INET) {
			d = put_ip4(d, b + 4, 0, 0);
		} else if (family == AF_INET6) {
			if (op->addr_port)
				*d++ = '[';
			d = op->addr == ADDR_SAC ? put_ip6c(d, b + 8) : put_ip6(d, b + 8, ':');
			if (op->addr_port)
				*d++ = ']';
		} else {
			break;
		}
		if (op->addr_port) {
			*d++ = ':';
			v = b[2] << 8 | b[3];
			d += ftk_ulen(v);
			ftk_utoa(d, v);
		}
		break;
	}
	ftk_ob_put(o, buf, d - buf);
}

/* One part of a compiled print fmt: 0, or -1 if the record cannot be printed here. */
static inline __attribute__((always_inline)) int run_op(struct ftk_printer *p, struct fprog *pr,
							const struct fop *op,
							const struct tep_record *rec,
							struct obuf *o)
{
	if (op->kind == FOP_LIT) {
		ftk_ob_put(o, op->lit, op->litlen);
	} else if (op->kind == FOP_DSTR) {
		const char *d = rec->data, *str, *nul;
		unsigned long long v, off, len;

		v = rdn(p, d + op->off, 4);
		off = v & 0xffff;
		len = v >> 16;
		if (op->rel)
			off += op->off + op->size;
		if (!len)
			return 0;	/* libtraceevent prints nothing, not even padding */
		if (off >= (unsigned long long)rec->size)
			return -1;
		str = d + off;
		nul = memchr(str, 0, rec->size - off);
		if (!nul)
			return -1;
		if (op->plain)
			ftk_ob_put(o, str, nul - str);
		else
			ftk_ob_printf(o, op->fmt, str);
	} else if (op->kind == FOP_STR) {
		put_char_array(o, op, rec);
	} else if (op->kind == FOP_NUM) {
		put_num(o, op, rdn(p, (const char *)rec->data + op->off, op->size) & op->mask);
	} else if (op->kind == FOP_PSTR) {
		if (ftk_print_pstr(p, o, (const char *)rec->data + op->off, &pr->why))
			return -1;
	} else if (op->kind == FOP_ADDR) {
		put_addr(o, op, rec);
	} else {
		put_symbol(p, op, rec, o);
	}
	return 0;
}

/*
 * A field's value as libtraceevent's print_field_raw() prints it: a
 * string array that prints as text up to its NUL, any other array as
 * "ARRAY[" and its bytes in hex (and it is no string for libtraceevent
 * from then on: the flag is cleared as it clears it), a number by what
 * its type says. 0, or -1 for a record left to libtraceevent (a dynamic
 * array outside it, a string without its NUL).
 */
static int put_raw_field(struct ftk_printer *p, struct tep_format_field *f,
			 const struct tep_record *rec, struct obuf *o)
{
	const unsigned char *d = rec->data;
	unsigned long long v;
	unsigned int off, len, i;

	if (f->flags & TEP_FIELD_IS_ARRAY) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			v = rdn(p, d + f->offset, 4);
			off = v & 0xffff;
			len = v >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += f->offset + f->size;
		} else {
			off = f->offset;
			len = f->size;
		}
		if ((unsigned long long)off + len > (unsigned long long)rec->size)
			return -1;
		if (f->flags & TEP_FIELD_IS_STRING) {
			const char *str = (const char *)d + off;
			const char *nul = memchr(str, 0, rec->size - off);

			for (i = 0; i < len && str[i]; i++)
				if (!isprint((unsigned char)str[i]) && !isspace((unsigned char)str[i]))
					break;
			if (i == len || !str[i]) {
				if (!nul)
					return -1;
				ftk_ob_put(o, str, nul - str);
				return 0;
			}
		}
		ftk_ob_put(o, "ARRAY[", 6);
		for (i = 0; i < len; i++) {
			static const char hex[] = "0123456789abcdef";
			char b[4] = { ',', ' ', hex[d[off + i] >> 4], hex[d[off + i] & 15] };

			if (i)
				ftk_ob_put(o, b, 4);
			else
				ftk_ob_put(o, b + 2, 2);
		}
		ftk_ob_put(o, "]", 1);
		f->flags &= ~TEP_FIELD_IS_STRING;
		return 0;
	}
	v = rdn(p, d + f->offset, f->size);
	if (f->flags & TEP_FIELD_IS_POINTER) {
		ftk_ob_put(o, "0x", 2);
		ftk_ob_num0(o, v, 0, 16);
	} else if (f->flags & TEP_FIELD_IS_SIGNED) {
		if (f->size == 4 && (f->flags & TEP_FIELD_IS_LONG)) {
			ftk_ob_put(o, "0x", 2);
			ftk_ob_num0(o, (unsigned int)v, 0, 16);
		} else if (f->size == 4) {
			ftk_ob_lld(o, (int)v);
		} else if (f->size == 2) {
			ftk_ob_printf(o, "%2d", (short)v);
		} else if (f->size == 1) {
			ftk_ob_lld(o, (signed char)v);
		} else {
			ftk_ob_lld(o, (long long)v);
		}
	} else if (f->flags & TEP_FIELD_IS_LONG) {
		ftk_ob_put(o, "0x", 2);
		ftk_ob_num0(o, v, 0, 16);
	} else {
		ftk_ob_u0(o, v, 0);
	}
	return 0;
}

/* tep_print_fields() of the record (see compile_raw()). */
static int put_raw_fields(struct ftk_printer *p, struct fprog *pr, const struct tep_record *rec,
			  struct obuf *o)
{
	int i;

	if (pr->failed)
		ftk_ob_put(o, "[FAILED TO PARSE]", 17);
	for (i = 0; i < pr->nraw; i++) {
		const struct rawf *r = &pr->raw[i];

		ftk_ob_put(o, " ", 1);
		ftk_ob_put(o, r->f->name, r->namelen);
		ftk_ob_put(o, "=", 1);
		if (r->op < 0) {
			if (put_raw_field(p, r->f, rec, o))
				return -1;
			continue;
		}
		if (r->has0x)
			ftk_ob_put(o, "0x", 2);
		if (run_op(p, pr, &pr->ops[r->op], rec, o))
			return -1;
	}
	return 0;
}

/*
 * The futex plugin's futex_handler() for syscalls:sys_enter_futex (the
 * fields in pr->f[0..5]: uaddr, op, val, utime, uaddr2, val3): the
 * command's name and the flags of op, then the arguments that command
 * takes, each as the plugin's table prints it. An op past the table is
 * left to the print fmt (the handler prints nothing); -1 if that did not
 * compile.
 */
static int put_futex(struct ftk_printer *p, struct fprog *pr, const struct tep_record *rec,
		     struct obuf *o)
{
	/* val: 'x' hex, 'u' decimal; utime: 't' utime in hex, 'v' val2 in decimal */
	static const struct { const char *name; char val, utime, uaddr2, val3; } cmds[] = {
		{ "FUTEX_WAIT", 'x', 't', 0, 0 },
		{ "FUTEX_WAKE", 'u', 0, 0, 0 },
		{ "FUTEX_FD", 'u', 0, 0, 0 },
		{ "FUTEX_REQUEUE", 'u', 'v', 1, 0 },
		{ "FUTEX_CMP_REQUEUE", 'u', 'v', 1, 1 },
		{ "FUTEX_WAKE_OP", 'u', 'v', 1, 1 },
		{ "FUTEX_LOCK_PI", 0, 't', 0, 0 },
		{ "FUTEX_UNLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_TRYLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_WAIT_BITSET", 'x', 't', 0, 1 },
		{ "FUTEX_WAKE_BITSET", 'u', 0, 0, 1 },
		{ "FUTEX_WAIT_REQUEUE_PI", 'x', 't', 1, 1 },
		{ "FUTEX_CMP_REQUEUE_PI", 'u', 'v', 1, 1 },
	};
	unsigned long long op = rd(p, rec, pr->f[1]), cmd = op & FUTEX_CMD_MASK;
	int i;

	if (cmd >= sizeof(cmds) / sizeof(cmds[0])) {
		if (pr->why)
			return -1;
		for (i = 0; i < pr->nops; i++)
			if (run_op(p, pr, &pr->ops[i], rec, o))
				return -1;
		return 0;
	}
	ftk_ob_put(o, "op=", 3);
	ftk_ob_put(o, cmds[cmd].name, strlen(cmds[cmd].name));
	if (op & FUTEX_PRIVATE_FLAG)
		ftk_ob_put(o, "|FUTEX_PRIVATE_FLAG", 19);
	if (op & FUTEX_CLOCK_REALTIME)
		ftk_ob_put(o, "|FUTEX_CLOCK_REALTIME", 21);
	ftk_ob_put(o, " uaddr=0x", 9);
	ftk_ob_num0(o, rd(p, rec, pr->f[0]), 8, 16);
	if (cmds[cmd].val == 'x') {
		ftk_ob_put(o, " val=0x", 7);
		ftk_ob_num0(o, rd(p, rec, pr->f[2]), 8, 16);
	} else if (cmds[cmd].val) {
		ftk_ob_put(o, " val=", 5);
		ftk_ob_u0(o, rd(p, rec, pr->f[2]), 0);
	}
	if (cmds[cmd].utime == 't') {
		ftk_ob_put(o, " utime=0x", 9);
		ftk_ob_num0(o, rd(p, rec, pr->f[3]), 8, 16);
	} else if (cmds[cmd].utime) {
		ftk_ob_put(o, " val2=", 6);
		ftk_ob_u0(o, rd(p, rec, pr->f[3]), 0);
	}
	if (cmds[cmd].uaddr2) {
		ftk_ob_put(o, " uaddr2=0x", 10);
		ftk_ob_num0(o, rd(p, rec, pr->f[4]), 8, 16);
	}
	if (cmds[cmd].val3) {
		ftk_ob_put(o, " val3=0x", 8);
		ftk_ob_num0(o, rd(p, rec, pr->f[5]), 8, 16);
	}
	return 0;
}

/*
 * libtraceevent's tep_print_func_field() of @v with " function=%s": the
 * function and its start less @v, or the address, cut to 127 bytes.
 */
static void put_func_field(struct ftk_printer *p, struct obuf *o, unsigned long long v)
{
	unsigned long long start;
	unsigned int len;
	const char *func = ftk_print_func(p, v, &start, &len);
	char tmp[128];

	if (func)
		snprintf(tmp, sizeof(tmp), "%s/0x%llx", func, start - v);
	else
		snprintf(tmp, sizeof(tmp), "0x%08llx", v);
	ftk_ob_put(o, " function=", 10);
	ftk_ob_put(o, tmp, strlen(tmp));
}

static int run_prog(struct ftk_printer *p, struct fprog *pr, const struct tep_record *rec,
		    struct obuf *o, int reg)
{
	unsigned long long v;
	int i, pid;

	switch (pr->kind) {
	case PROG_SWITCH:
		pid = (int)rd(p, rec, pr->f[0]);
		v = rd(p, rec, pr->f[3]);
		put_comm(p, o, rec, pr->f[1], pid, reg);
		ftk_ob_put(o, ":", 1);
		ftk_ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ftk_ob_put(o, " [", 2);
		ftk_ob_lld(o, (int)rd(p, rec, pr->f[2]));
		ftk_ob_put(o, "] ", 2);
		put_state(o, (int)v);
		ftk_ob_put(o, " ==> ", 5);
		pid = (int)rd(p, rec, pr->f[4]);
		put_comm(p, o, rec, pr->f[5], pid, reg);
		ftk_ob_put(o, ":", 1);
		ftk_ob_lld(o, (long long)rd(p, rec, pr->f[4]));
		ftk_ob_put(o, " [", 2);
		ftk_ob_lld(o, (int)rd(p, rec, pr->f[6]));
		ftk_ob_put(o, "]", 1);
		return 0;
	case PROG_WAKEUP:
		pid = (int)rd(p, rec, pr->f[0]);
		put_comm(p, o, rec, pr->f[1], pid, reg);
		ftk_ob_put(o, ":", 1);
		ftk_ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ftk_ob_put(o, " [", 2);
		ftk_ob_lld(o, (long long)rd(p, rec, pr->f[2]));
		ftk_ob_put(o, "]", 1);
		if (pr->f[4]) {
			ftk_ob_put(o, " CPU:", 5);
			ftk_ob_u0(o, rd(p, rec, pr->f[4]), 3);
		}
		return 0;
	case PROG_PRINT: {
		/* ftrace:print (see compile_print()) */
		const char *str = (const char *)rec->data + pr->f[1]->offset;
		size_t n = (size_t)rec->size - pr->f[1]->offset;

		ftk_put_function(p, o, rd(p, rec, pr->f[0]), 's');
		ftk_ob_put(o, ": ", 2);
		ftk_ob_put(o, str, strnlen(str, n));
		return 0;
	}
	case PROG_GRAPH_ENTRY:
		return ftk_print_graph_entry(p, o, rd(p, rec, pr->f[0]), rd(p, rec, pr->f[1]),
					     p->pid_size ? (int)rdn(p, (const char *)rec->data +
								   p->pid_off, p->pid_size) :
					     tep_data_pid(p->tep, (struct tep_record *)rec));
	case PROG_GRAPH_EXIT:
		ftk_print_graph_exit(o, rd(p, rec, pr->f[0]), rd(p, rec, pr->f[1]), rd(p, rec, pr->f[2]));
		return 0;
	case PROG_FUNCTION:
		ftk_print_function(p, o, rd(p, rec, pr->f[0]), rd(p, rec, pr->f[1]), rec->cpu,
				   pr->indent);
		return 0;
	case PROG_RAW_DATA:
		ftk_print_raw_data(p, o, rec, rd(p, rec, pr->f[0]), pr->f[1]);
		return 0;
	case PROG_STACK:
		ftk_print_graph_stack(p, o, rec, pr->f[0]);
		return 0;
	case PROG_BPRINT:
		return ftk_print_bprint(p, pr, rec, o);
	case PROG_TLB:
		/* the tlb plugin's tlb_flush_handler() */
		v = rd(p, rec, pr->f[1]);
		ftk_ob_put(o, "pages=", 6);
		ftk_ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ftk_ob_put(o, " reason=", 8);
		if (v < 4) {
			static const char *const why[] = { "flush on task switch",
				"remote shootdown", "local shootdown", "local mm shootdown" };

			ftk_ob_put(o, why[v], strlen(why[v]));
		}
		ftk_ob_put(o, " (", 2);
		ftk_ob_lld(o, (long long)v);
		ftk_ob_put(o, ")", 1);
		return 0;
	case PROG_RAW:
		return put_raw_fields(p, pr, rec, o);
	case PROG_FUTEX:
		return put_futex(p, pr, rec, o);
	case PROG_HRTIMER:
		/*
		 * The hrtimer plugin's timer_start_handler() (f[3], f[4]: its
		 * expires and softexpires) and timer_expire_handler() (f[2]: now).
		 */
		ftk_ob_put(o, "hrtimer=0x", 10);
		ftk_ob_num0(o, rd(p, rec, pr->f[0]), 0, 16);
		if (pr->f[2]) {
			ftk_ob_put(o, " now=", 5);
			ftk_ob_u0(o, rd(p, rec, pr->f[2]), 0);
		}
		if (pr->f[1])
			put_func_field(p, o, rd(p, rec, pr->f[1]));
		if (pr->f[3]) {
			ftk_ob_put(o, " expires=", 9);
			ftk_ob_u0(o, rd(p, rec, pr->f[3]), 0);
			ftk_ob_put(o, " softexpires=", 13);
			ftk_ob_u0(o, rd(p, rec, pr->f[4]), 0);
		}
		return 0;
	case PROG_GENERIC:
		if (pr->call_site)
			put_call_site(p, o, rd(p, rec, pr->call_site));
		for (i = 0; i < pr->nops; i++)
			if (run_op(p, pr, &pr->ops[i], rec, o))
				return -1;
		return 0;
	}
	return -1;
}

/* The compiled program of @ev, built on first use; NULL if out of memory. */
struct fprog *ftk_print_prog(struct ftk_printer *p, struct tep_event *ev)
{
	if (ev->id < 0 || ev->id >= 65536)
		return NULL;
	if (ev->id >= p->nr_progs) {
		int n = ev->id + 64;
		struct fprog **np = realloc(p->progs, n * sizeof(*np));

		if (!np)
			return NULL;
		memset(np + p->nr_progs, 0, (n - p->nr_progs) * sizeof(*np));
		p->progs = np;
		p->nr_progs = n;
	}
	if (!p->progs[ev->id])
		p->progs[ev->id] = ftk_print_compile(p, ev);
	return p->progs[ev->id];
}

/*
 * The event's own text into p->s, through libtraceevent (@what is
 * TEP_PRINT_INFO or TEP_PRINT_INFO_RAW). A record goes to libtraceevent
 * only when ftk_print_record_ok() found every field inside it, and an event only
 * when its print fmt cannot trap (args_safe()): libtraceevent trusts
 * both, and the library catches no signals.
 */
void ftk_print_info(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
		      const char *what)
{
	struct fprog *pr = ev ? ftk_print_prog(p, ev) : NULL;

	trace_seq_reset(&p->s);
	if (ev && !ftk_print_record_ok(p, ev, rec)) {
		trace_seq_puts(&p->s, "[record shorter than its format]");
		return;
	}
	if (ev && (!pr || pr->kind == PROG_UNSAFE)) {
		trace_seq_puts(&p->s, "[print fmt divides by a record value]");
		tep_print_fields(&p->s, rec->data, rec->size, ev);
		return;
	}
	p->comm_gen++;	/* a plugin may register comms */
	tep_print_event(p->tep, &p->s, rec, "%s", what);
}

/* Append the event's own text (as TEP_PRINT_INFO gives it, or _RAW with -R) to @o. */
void ftk_print_event_text(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
			  struct obuf *o)
{
	struct fprog *pr = ev ? ftk_print_prog(p, ev) : NULL;
	size_t start = o->len;

	if (pr && pr->kind != PROG_SLOW && pr->kind != PROG_UNSAFE &&
	    (unsigned int)rec->size >= pr->min_size) {
		int check = pr->checked < CHECK_FIRST && !p->no_check;
		unsigned int st = 0;

		if ((pr->kind == PROG_SWITCH || pr->kind == PROG_FUTEX) && !p->no_check) {
			/*
			 * The first record of each state is checked too:
			 * sched_switch's low 8 bits of prev_state, the futex
			 * command and its two flags (all past its table one).
			 */
			if (pr->kind == PROG_SWITCH) {
				st = (unsigned int)rd(p, rec, pr->f[3]) & 0xff;
			} else {
				unsigned long long op = rd(p, rec, pr->f[1]);
				unsigned long long cmd = op & FUTEX_CMD_MASK;

				st = cmd < 32 ? cmd | (op & FUTEX_PRIVATE_FLAG ? 32 : 0) |
						(op & FUTEX_CLOCK_REALTIME ? 64 : 0) : 255;
			}
			if (!(pr->state_ok[st >> 3] & (1 << (st & 7))))
				check = 1;
		}
		p->bcheck = NULL;
		p->clamped = 0;
		if (run_prog(p, pr, rec, o, !check) == 0) {
			if (p->bcheck && !p->no_check)
				/* the first record of each bprint format is checked too */
				check = 1;
			if (!check || p->clamped || !ftk_print_record_ok(p, ev, rec))
				return;
			if (pr->checked < CHECK_FIRST)
				pr->checked++;
			ftk_print_info(p, rec, ev, (p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW :
						   TEP_PRINT_INFO);
			if (p->s.len == o->len - start && !memcmp(p->s.buffer, o->b + start, p->s.len)) {
				if (pr->kind == PROG_SWITCH || pr->kind == PROG_FUTEX)
					pr->state_ok[st >> 3] |= 1 << (st & 7);
				if (p->bcheck)
					*p->bcheck = 1;
				return;
			}
			pr_debug("print: %s:%s: own text differs from libtraceevent's, using libtraceevent\n",
				 ev->system, ev->name);
			pr->kind = PROG_SLOW;
			pr->why = "the own text differed from libtraceevent's";
			pr->slow++;
			o->len = start;
			ftk_ob_put(o, p->s.buffer, p->s.len);
			return;
		}
		o->len = start;
		if (!pr->why)
			pr->why = "a record the own code refused";
	}
	if (pr)
		pr->slow++;
	ftk_print_info(p, rec, ev, (p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	ftk_ob_put(o, p->s.buffer, p->s.len);
}

/*
 * A comm is a binary search; lines of one task come in runs, so keep
 * what it said, until a comm may have been registered.
 */
static const char *lookup_comm(struct ftk_printer *p, int pid, size_t *len)
{
	struct comm_slot *c;
	const char *comm;

	if (!p->comms)
		p->comms = calloc(COMM_SLOTS, sizeof(*p->comms));
	if (!p->comms) {
		comm = ftk_comms_get(p->ctab, p->tep, pid);
		*len = strlen(comm);
		return comm;
	}
	c = &p->comms[(unsigned int)pid % COMM_SLOTS];
	if (c->gen == p->comm_gen && c->pid == pid) {
		*len = c->len;
		return c->comm;
	}
	comm = ftk_comms_get(p->ctab, p->tep, pid);
	*len = strlen(comm);
	if (*len < sizeof(c->comm)) {
		c->gen = p->comm_gen;
		c->pid = pid;
		c->len = *len;
		memcpy(c->comm, comm, *len + 1);
		return c->comm;
	}
	return comm;
}

#define OUT_FLUSH	(256 * 1024)

/* Write the text buffered in p->ob; 0 or the write's -errno (-ENOSPC on a full disk). */
/* Hand the record text to @p->out's own stdio buffer (no write(2) of its own). */
static int ob_to_stdio(struct ftk_printer *p)
{
	fwrite(p->ob.b, 1, p->ob.len, p->out);
	p->ob.len = 0;
	return ferror(p->out) ? -EIO : 0;
}

int ftk_print_flush(struct ftk_printer *p)
{
	size_t done = 0;
	ssize_t r;

	int fd = fileno(p->out);

	if (!p->ob.len)
		return 0;
	if (fd < 0)	/* a memory stream */
		return ob_to_stdio(p);
	if (fflush(p->out))
		return -errno;
	while (done < p->ob.len) {
		r = write(fd, p->ob.b + done, p->ob.len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += r;
	}
	p->ob.len = 0;
	return 0;
}

int ftk_print_text(struct ftk_printer *p, const struct tep_record *crec, int buf,
		      struct tep_event *ev)
{
	struct tep_record *rec = (struct tep_record *)crec;
	const struct pbuf *pb = buf >= 0 && buf < p->nr_bufs ? &p->bufs[buf] : NULL;
	const struct fprog *pr;
	char *o;
	const char *comm, *name;
	size_t nlen, clen;
	int pid, n;

	/*
	 * The head first: printing the event may register comms (the
	 * sched_switch plugin does), which trace-cmd only sees on later lines.
	 */
	if (p->pid_size && p->pid_off + p->pid_size <= rec->size)
		pid = (int)rdn(p, (const char *)rec->data + p->pid_off, p->pid_size);
	else
		pid = tep_data_pid(p->tep, rec);
	comm = lookup_comm(p, pid, &clen);
	name = ev ? ev->name : "[UNKNOWN EVENT]";
	pr = ev ? ftk_print_prog(p, ev) : NULL;
	nlen = pr ? pr->namelen : strlen(name);
	if (ftk_ob_need(&p->ob, nlen + clen + p->name_width + 256 + (p->file ? strlen(p->file) : 0)))
		return -ENOMEM;
	o = p->ob.b + p->ob.len;
	if (p->file)
		o = stpcpy(o, p->file);
	if (p->prefix) {
		const char *bn = pb ? pb->name : "";

		n = strlen(bn);
		o = pad_left(o, bn, n, p->name_width);
		*o++ = n ? ':' : ' ';
		*o++ = ' ';
	}
	if (rec->missed_events > 0)
		o += sprintf(o, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu, rec->missed_events);
	else if (rec->missed_events < 0)
		o += sprintf(o, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);
	/* "%16s-%-5d [%03d]" */
	o = pad_left(o, comm, clen, 16);
	*o++ = '-';
	if (pid < 0) {
		o += sprintf(o, "%-5d", pid);
	} else {
		n = ftk_ulen(pid);
		memcpy(o, spaces, 8);
		ftk_utoa(o + n, pid);
		o += n < 5 ? 5 : n;
	}
	if (rec->cpu >= 0 && rec->cpu < 1000000) {
		n = ftk_ulen(rec->cpu);
		memcpy(o, " [000", 5);
		o += 2 + (n < 3 ? 3 - n : 0);
		ftk_utoa(o + n, rec->cpu);
		o += n;
		*o++ = ']';
	} else {
		o += sprintf(o, " [%03d]", rec->cpu);
	}
	o = put_time(p, rec, o, rec->ts, pb ? pb->in_ns : 1, p->flags & FTK_PRINT_NSEC);
	*o++ = ':';
	/* " %s: " and the name padded to 20 */
	*o++ = ' ';
	ftk_small_copy(o, name, nlen);
	o += nlen;
	*o++ = ':';
	*o++ = ' ';
	if (nlen < 20) {
		memcpy(o, spaces, 32);
		o += 20 - nlen;
	}
	p->ob.len = o - p->ob.b;
	n = p->ob.len;
	ftk_print_event_text(p, rec, ev, &p->ob);
	if ((int)p->ob.len > n && p->ob.b[p->ob.len - 1] == '\n')
		p->ob.len--;
	ftk_ob_put(&p->ob, "\n", 1);
	/*
	 * Printers of several files share the output: each record goes out in
	 * its turn, through the stream's stdio buffer (a write(2) per record
	 * was one system call per line: 2301 for a 2308-line report).
	 */
	if (p->file)
		return ob_to_stdio(p);
	if (p->ob.len >= OUT_FLUSH)
		return ftk_print_flush(p);
	return 0;
}
