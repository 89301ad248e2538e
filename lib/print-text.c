// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-text: trace-cmd report's text: line heads, the compiled event text, output
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "print-local.h"

/* ---------------------------------------------------------------- line building */

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* @v in decimal, written backwards from @end, two digits a step; returns its start. */
static inline char *utoa(char *end, unsigned long long v)
{
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
static inline __attribute__((always_inline)) void small_copy(char *d, const char *s, size_t n)
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
	small_copy(o, s, n);
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
	char num[32], *e = num + sizeof(num), *b;
	unsigned long long t, p10;
	int prec, i;

	if (!in_ns) {
		b = utoa(e, ts);
		return pad_left(o, b, e - b, 12);
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
		b = utoa(e, t / p10);
		o = pad_left(o, b, e - b, 5);
		*o++ = '.';
		b = utoa(e, t % p10);
		i = e - b;	/* at most prec */
		memcpy(o, "0000000000000000", 16);
		small_copy(o + prec - i, b, i);
		return o + prec;
	}
}

static int ob_need(struct obuf *o, size_t n)
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

static inline __attribute__((always_inline)) void ob_put(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n > o->cap && ob_need(o, n))
		return;
	small_copy(o->b + o->len, s, n);
	o->len += n;
}

/* @v in base @base (10 or 16, lower case), zero-padded to @width. */
static inline __attribute__((always_inline)) void ob_num0(struct obuf *o, unsigned long long v,
							  int width, int base)
{
	static const char digits[] = "0123456789abcdef";
	char num[80], *e = num + sizeof(num), *b;

	if (base == 16) {
		b = e;
		do {
			*--b = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		b = utoa(e, v);
	}
	while (e - b < width && b > num)
		*--b = '0';
	ob_put(o, b, e - b);
}

static void ob_lld(struct obuf *o, long long v)
{
	char num[40], *e = num + sizeof(num), *b;
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;

	b = utoa(e, u);
	if (v < 0)
		*--b = '-';
	ob_put(o, b, e - b);
}

/* ob_put() for the other parts of the printer (print-graph.c). */
void ftk_ob_put(struct obuf *o, const char *s, size_t n)
{
	ob_put(o, s, n);
}

void ftk_ob_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* most conversions fit the room left: format once */
	if (o->cap - o->len < 64 && ob_need(o, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->b + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		if (ob_need(o, n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(o->b + o->len, n + 1, fmt, ap);
		va_end(ap);
	}
	o->len += n;
}

static unsigned long long rd(struct ftk_printer *p, const struct tep_record *rec,
			     const struct tep_format_field *f)
{
	return rdn(p, (const char *)rec->data + f->offset, f->size);
}

/* @v in decimal, zero-padded to @width (the "%03llu" the plugins use). */
static void ob_u0(struct obuf *o, unsigned long long v, int width)
{
	char num[40], *e = num + sizeof(num), *b = utoa(e, v);

	while (e - b < width)
		*--b = '0';
	ob_put(o, b, e - b);
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

	ob_put(o, c, n);
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
 * libtraceevent 1.7.1's plugin; event_text() checks the first record of
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
	ob_put(o, buf, n);
}

/* A number through its conversion, cast as the length modifier says. */
static inline __attribute__((always_inline)) void put_num(struct obuf *o, const struct fop *op,
							  unsigned long long v)
{
	if (op->plain && (op->conv == 'd' || op->conv == 'i'))
		ob_lld(o, op->ls == 0 ? (long long)(int)v :
			  op->ls == 1 ? (long long)(long)v : (long long)v);
	else if (op->plain && op->conv == 'u')
		ob_u0(o, op->ls == 0 ? (unsigned long long)(unsigned int)v :
			 op->ls == 1 ? (unsigned long long)(unsigned long)v : v, 0);
	else if (op->zpad)
		ob_num0(o, op->ls == 0 ? (unsigned long long)(unsigned int)v :
			   op->ls == 1 ? (unsigned long long)(unsigned long)v : v,
			op->width, op->conv == 'x' ? 16 : 10);
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

/*
 * %ps of @v, as libtraceevent's print_function() prints it: the name of
 * the function at @v, with "+0x" and the offset into it for %pS and %pF
 * (@conv 'S', 'F'); without one, the address in hex.
 */
__attribute__((noinline)) void ftk_put_function(struct ftk_printer *p, struct obuf *o,
						unsigned long long v, char conv)
{
	const char *func = tep_find_function(p->tep, v);

	if (!func) {
		if (tep_get_long_size(p->tep) == 4)
			ftk_ob_printf(o, "0x%lx", (long)v);
		else
			ftk_ob_printf(o, "0x%llx", v);
		return;
	}
	ob_put(o, func, strlen(func));
	if (conv == 'S' || conv == 'F')
		ftk_ob_printf(o, "+0x%llx", v - tep_find_function_address(p->tep, v));
}

/* %s of a char array field (at most 1024 bytes, compile_generic()), up to its NUL. */
static inline void put_char_array(struct obuf *o, const struct fop *op, const struct tep_record *rec)
{
	char buf[1025];

	memcpy(buf, (const char *)rec->data + op->off, op->size);
	buf[op->size] = 0;
	if (op->plain)
		ob_put(o, buf, strlen(buf));
	else
		ftk_ob_printf(o, op->fmt, buf);
}

/* A name of __print_symbolic() or __print_flags(), through the conversion. */
static void put_sym_str(struct obuf *o, const struct fop *op, const struct fsym *y)
{
	if (op->plain)
		ob_put(o, y->str, y->len);
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
			ob_put(o, op->lit, op->litlen);
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
					ob_put(o, op->lit, op->litlen);
				put_sym_str(o, op, y);
				print = 1;
				val &= ~fval;
			}
		}
		if (val) {
			if (print && op->lit)
				ob_put(o, op->lit, op->litlen);
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
		ob_put(o, ":", 1);
		ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ob_put(o, " [", 2);
		ob_lld(o, (int)rd(p, rec, pr->f[2]));
		ob_put(o, "] ", 2);
		put_state(o, (int)v);
		ob_put(o, " ==> ", 5);
		pid = (int)rd(p, rec, pr->f[4]);
		put_comm(p, o, rec, pr->f[5], pid, reg);
		ob_put(o, ":", 1);
		ob_lld(o, (long long)rd(p, rec, pr->f[4]));
		ob_put(o, " [", 2);
		ob_lld(o, (int)rd(p, rec, pr->f[6]));
		ob_put(o, "]", 1);
		return 0;
	case PROG_WAKEUP:
		pid = (int)rd(p, rec, pr->f[0]);
		put_comm(p, o, rec, pr->f[1], pid, reg);
		ob_put(o, ":", 1);
		ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ob_put(o, " [", 2);
		ob_lld(o, (long long)rd(p, rec, pr->f[2]));
		ob_put(o, "]", 1);
		if (pr->f[4]) {
			ob_put(o, " CPU:", 5);
			ob_u0(o, rd(p, rec, pr->f[4]), 3);
		}
		return 0;
	case PROG_PRINT: {
		/* ftrace:print (see compile_print()) */
		const char *str = (const char *)rec->data + pr->f[1]->offset;
		size_t n = (size_t)rec->size - pr->f[1]->offset;

		ftk_put_function(p, o, rd(p, rec, pr->f[0]), 's');
		ob_put(o, ": ", 2);
		ob_put(o, str, strnlen(str, n));
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
	case PROG_GENERIC:
		for (i = 0; i < pr->nops; i++) {
			const struct fop *op = &pr->ops[i];

			if (op->kind == FOP_LIT) {
				ob_put(o, op->lit, op->litlen);
			} else if (op->kind == FOP_DSTR) {
				const char *d = rec->data, *str, *nul;
				unsigned long long off, len;

				v = rdn(p, d + op->off, 4);
				off = v & 0xffff;
				len = v >> 16;
				if (op->rel)
					off += op->off + op->size;
				if (!len)
					continue;	/* libtraceevent prints nothing, not even padding */
				if (off >= (unsigned long long)rec->size)
					return -1;
				str = d + off;
				nul = memchr(str, 0, rec->size - off);
				if (!nul)
					return -1;
				if (op->plain)
					ob_put(o, str, nul - str);
				else
					ftk_ob_printf(o, op->fmt, str);
			} else if (op->kind == FOP_STR) {
				put_char_array(o, op, rec);
			} else if (op->kind == FOP_NUM) {
				put_num(o, op, rdn(p, (const char *)rec->data + op->off, op->size) &
					op->mask);
			} else if (op->kind == FOP_PSTR) {
				if (ftk_print_pstr(p, o, (const char *)rec->data + op->off, &pr->why))
					return -1;
			} else {
				put_symbol(p, op, rec, o);
			}
		}
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

/* Append the event's own text (as TEP_PRINT_INFO gives it) to @o. */
static void event_text(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
		       struct obuf *o)
{
	struct fprog *pr = ev ? ftk_print_prog(p, ev) : NULL;
	size_t start = o->len;

	if (pr && pr->kind != PROG_SLOW && pr->kind != PROG_UNSAFE &&
	    (unsigned int)rec->size >= pr->min_size) {
		int check = pr->checked < CHECK_FIRST && !p->no_check;
		unsigned int st = 0;

		if (pr->kind == PROG_SWITCH && !p->no_check) {
			/* the first record of each state (its low 8 bits) is checked too */
			st = (unsigned int)rd(p, rec, pr->f[3]) & 0xff;
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
			ftk_print_info(p, rec, ev, TEP_PRINT_INFO);
			if (p->s.len == o->len - start && !memcmp(p->s.buffer, o->b + start, p->s.len)) {
				if (pr->kind == PROG_SWITCH)
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
			ob_put(o, p->s.buffer, p->s.len);
			return;
		}
		o->len = start;
		if (!pr->why)
			pr->why = "a record the own code refused";
	}
	if (pr)
		pr->slow++;
	ftk_print_info(p, rec, ev, (p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	ob_put(o, p->s.buffer, p->s.len);
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
	char num[32], *e = num + sizeof(num), *b, *o;
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
	nlen = strlen(name);
	if (ob_need(&p->ob, nlen + clen + p->name_width + 256 + (p->file ? strlen(p->file) : 0)))
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
		b = utoa(e, pid);
		memcpy(o, spaces, 8);
		small_copy(o, b, e - b);
		o += e - b < 5 ? 5 : e - b;
	}
	if (rec->cpu >= 0 && rec->cpu < 1000000) {
		b = utoa(e, rec->cpu);
		memcpy(o, " [000", 5);
		o += 2 + (e - b < 3 ? 3 - (e - b) : 0);
		small_copy(o, b, e - b);
		o += e - b;
		*o++ = ']';
	} else {
		o += sprintf(o, " [%03d]", rec->cpu);
	}
	o = put_time(p, rec, o, rec->ts, pb ? pb->in_ns : 1, p->flags & FTK_PRINT_NSEC);
	*o++ = ':';
	/* " %s: " and the name padded to 20 */
	*o++ = ' ';
	small_copy(o, name, nlen);
	o += nlen;
	*o++ = ':';
	*o++ = ' ';
	if (nlen < 20) {
		memcpy(o, spaces, 32);
		o += 20 - nlen;
	}
	p->ob.len = o - p->ob.b;
	n = p->ob.len;
	event_text(p, rec, ev, &p->ob);
	if ((int)p->ob.len > n && p->ob.b[p->ob.len - 1] == '\n')
		p->ob.len--;
	ob_put(&p->ob, "\n", 1);
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
