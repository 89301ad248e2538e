// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-compile: the own print-format compiler
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

#include <traceevent/event-parse.h>

#include "internal.h"
#include "print-local.h"

/*
 * (The compiled programs are run by print-text.c.)
 * Printing an event's own text through tep_print_event() costs about
 * three quarters of the time of a report. For the events whose print
 * format is plain (literal text and %d %u %x %s of fields, __get_str(),
 * __print_symbolic(), __print_flags(), %ps, %s of ?: and of a string's
 * kernel address), for ftrace:bprint's printk formats (print-printk.c)
 * and for the sched_switch and sched_wakeup plugins, the text is
 * formatted here instead, with the same reads and casts libtraceevent
 * makes (fields read unsigned at their size, then cast to int, long or
 * long long by the length modifier). The first CHECK_FIRST records of
 * every event are also printed by libtraceevent and compared: an event
 * whose output differs goes back to libtraceevent for good, so a newer
 * libtraceevent or plugin cannot make the text wrong.
 */
static struct tep_format_field *num_field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)))
		return NULL;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return NULL;
	return f;
}

static struct tep_format_field *comm_field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC) || f->size <= 0 || f->size > 64)
		return NULL;
	return f;
}

/* The mask eval_type_str() applies for a cast to @t; -1 for a type it would misread. */
static int cast_mask(const char *t, unsigned long long *mask)
{
	size_t len = t ? strlen(t) : 0;

	*mask = ~0ULL;
	if (len < 2)
		return -1;
	if (t[len - 1] == '*' || !strncmp(t, "struct", 6))
		return 0;
	if (!strcmp(t, "u8") || !strcmp(t, "s8"))
		*mask = 0xff;
	else if (!strcmp(t, "u16") || !strcmp(t, "s16"))
		*mask = 0xffff;
	else if (!strcmp(t, "u32") || !strcmp(t, "s32"))
		*mask = 0xffffffff;
	else if (!strcmp(t, "u64") || !strcmp(t, "s64"))
		return 0;
	if (*mask != ~0ULL)
		return 0;
	if (!strncmp(t, "unsigned ", 9))
		t += 9;
	/* signed or not, (char)v & 0xff is v & 0xff */
	if (!strcmp(t, "char"))
		*mask = 0xff;
	else if (!strcmp(t, "short"))
		*mask = 0xffff;
	else if (!strcmp(t, "int"))
		*mask = 0xffffffff;
	return 0;
}

/*
 * The literal text at *@fmt, up to its next conversion, into @op, as
 * libtraceevent's parse_arg_string() reads it: "%%" is a '%'; a backslash
 * and the character after it are \n, \t, \r or that character (the
 * kprobe formats' \"). Text with either is copied, unescaped, to
 * pr->text. NULL, or why not: a backslash that ends the format
 * (libtraceevent reads past it).
 */
static const char *compile_literal(struct fprog *pr, struct fop *op, const char **fmt)
{
	const char *s = *fmt, *q = s;
	char *o;

	while (*q && *q != '%' && *q != '\\')
		q++;
	*op = (struct fop){ .kind = FOP_LIT, .lit = s, .litlen = q - s };
	if (!*q || (*q == '%' && q[1] != '%')) {
		*fmt = q;
		return NULL;
	}
	if (!pr->text) {
		/* the unescaped text of all literals is no longer than the format */
		pr->text = malloc(strlen(pr->ev->print_fmt.format) + 1);
		pr->textlen = 0;
		if (!pr->text)
			return "out of memory";
	}
	o = pr->text + pr->textlen;
	op->lit = o;
	for (q = s; *q && (*q != '%' || q[1] == '%'); q++) {
		if (*q == '%') {
			*o++ = *q++;
		} else if (*q == '\\') {
			if (!*++q)
				return "a backslash at the end of the print fmt";
			*o++ = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q == 'r' ? '\r' : *q;
		} else {
			*o++ = *q;
		}
	}
	op->litlen = o - op->lit;
	pr->textlen += op->litlen;
	*fmt = q;
	return NULL;
}

/*
 * The field a number argument reads, REC->f or (type)REC->f, with the
 * mask of the cast in *@mask (see cast_mask()); NULL if it is another
 * expression or not a plain number field.
 */
static struct tep_format_field *num_arg(struct tep_event *ev, struct tep_print_arg *a,
					unsigned long long *mask)
{
	struct tep_format_field *f;

	*mask = ~0ULL;
	if (a && a->type == TEP_PRINT_TYPE) {
		if (cast_mask(a->typecast.type, mask))
			return NULL;
		a = a->typecast.item;
	}
	if (!a || a->type != TEP_PRINT_FIELD)
		return NULL;
	f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return NULL;
	return f;
}

static const char *compile_expr(struct tep_event *ev, struct tep_print_arg *a, struct fexpr *ex,
				int *nex, int depth);

/*
 * A value of a __print_symbolic() or __print_flags() pair as
 * libtraceevent's eval_flag() reads it: a number, or a name the kernel
 * left in the format, which it knows a dozen of (the softirqs and the
 * hrtimer restart values) and reads as -1 otherwise (so does a negative
 * number: "-2" is not a digit). The CHECK_FIRST records compared with
 * libtraceevent's text cover a libtraceevent that knows others.
 */
static unsigned long long named_value(const char *v)
{
	static const struct { const char *name; unsigned long long val; } known[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
		{ "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
		{ "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	size_t i;

	if (isdigit((unsigned char)v[0]))
		return strtoull(v, NULL, 0);
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(v, known[i].name))
			return known[i].val;
	return ~0ULL;
}

/*
 * "%s" of __print_symbolic(REC->f, { 0, "HI" }, ...) or of
 * __print_flags(REC->f, "|", { 1, "A" }, ...) (@a) into @op. As
 * libtraceevent's print_str_arg(): the field's value, read unsigned at its
 * size and masked by a cast, is looked up in the pairs in their order; for
 * a symbol the first equal prints its name through the conversion, none
 * "0x%llx"; for flags each pair whose bits are all set prints, joined by
 * the delimiter, and the bits left over print as "0x%llx". A value written
 * as a name is read as eval_flag() reads it (named_value()).
 */
static const char *compile_symbolic(struct tep_event *ev, struct tep_print_arg *a, struct fop *op)
{
	int flags = a->type == TEP_PRINT_FLAGS;
	struct tep_print_flag_sym *sym, *list = flags ? a->flags.flags : a->symbol.symbols;
	struct tep_format_field *f;
	struct fsym *t;
	int n = 0;

	f = num_arg(ev, flags ? a->flags.field : a->symbol.field, &op->mask);
	if (!f) {
		/* of an expression: sched_switch's REC->prev_state & (...) */
		struct fexpr ex[MAX_EXPR];
		const char *why;
		int nex = 0;

		why = compile_expr(ev, flags ? a->flags.field : a->symbol.field, ex, &nex, 0);
		if (why)
			return why;
		op->ex = malloc(nex * sizeof(*ex));
		if (!op->ex)
			return "out of memory";
		memcpy(op->ex, ex, nex * sizeof(*ex));
	}
	for (sym = list; sym; sym = sym->next) {
		if (!sym->value || !sym->str)
			return "__print_symbolic or __print_flags of a named value";
		if (++n > 1024)
			return "__print_symbolic or __print_flags of too many values";
	}
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return "out of memory";
	for (n = 0, sym = list; sym; sym = sym->next, n++) {
		t[n].val = named_value(sym->value);
		t[n].str = sym->str;
		t[n].len = strlen(sym->str);
	}
	op->kind = flags ? FOP_FLAGS : FOP_SYM;
	if (flags && a->flags.delim) {
		op->lit = a->flags.delim;
		op->litlen = strlen(a->flags.delim);
	}
	if (f) {
		op->off = f->offset;
		op->size = f->size;
	}
	op->syms = t;
	op->nsyms = n;
	return NULL;
}

/*
 * Node *@nex of @ex, and the nodes below it, from @a, a number argument
 * that is an expression: NULL, or why it is not compiled. What
 * libtraceevent's eval_num_arg() evaluates the same way: numbers, plain
 * number fields (read unsigned at their size), casts (masks, as
 * cast_mask()), the operators it knows, ?:. Dividing is by a constant
 * only (args_safe()); an atom that is a name (test_for_symbol()) is left
 * to it, and so is [] inside an expression.
 */
static const char *compile_expr(struct tep_event *ev, struct tep_print_arg *a, struct fexpr *ex,
				int *nex, int depth)
{
	static const char *const ops[] = { "!", "!=", "~", "|", "||", "&", "&&", "<", "<<", "<=",
					   ">", ">>", ">=", "==", "-", "+", "/", "%", "*", "?" };
	struct tep_format_field *f;
	struct fexpr *e;
	const char *why;
	size_t i;
	int n = *nex;

	if (!a)
		return "an expression with an operand missing";
	if (n >= MAX_EXPR || depth > 32)
		return "a long expression";
	e = &ex[n];
	*e = (struct fexpr){ .mask = ~0ULL, .l = -1, .r = -1, .c = -1 };
	(*nex)++;
	switch (a->type) {
	case TEP_PRINT_NULL:	/* the left of a unary operator: 0 */
		e->kind = EX_CONST;
		return NULL;
	case TEP_PRINT_ATOM:
		if (!a->atom.atom)
			return "an expression of a name";
		e->kind = EX_CONST;
		if (isdigit((unsigned char)a->atom.atom[0]) ||
		    (a->atom.atom[0] == '-' && isdigit((unsigned char)a->atom.atom[1]))) {
			/* strtoull() takes "-4095" too, as eval_num_arg() reads it */
			e->val = strtoull(a->atom.atom, NULL, 0);
			return NULL;
		}
		/*
		 * A name, (struct page *)vmemmap_base: eval_num_arg()'s
		 * test_for_symbol() looks it up in the tep's own function
		 * list, which is empty when a resolver is set (the trace
		 * file reader sets one): 0. A tep that has the name gives
		 * another value, and the records checked first
		 * (CHECK_FIRST) send the event back to libtraceevent.
		 */
		if (!isalpha((unsigned char)a->atom.atom[0]) && a->atom.atom[0] != '_')
			return "an expression of a name";
		e->val = 0;
		return NULL;
	case TEP_PRINT_FIELD:
		f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
		if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) ||
		    f->offset < 0 || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return "an expression of an odd field";
		e->kind = EX_FIELD;
		e->off = f->offset;
		e->size = f->size;
		return NULL;
	case TEP_PRINT_TYPE: {
		unsigned long long m;

		/* the node is the value cast: masked after it is evaluated */
		if (cast_mask(a->typecast.type, &m))
			return "a cast to an odd type";
		*nex = n;
		why = compile_expr(ev, a->typecast.item, ex, nex, depth + 1);
		ex[n].mask &= m;
		return why;
	}
	case TEP_PRINT_OP:
		break;
	default:
		return "an expression of another kind";
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (a->op.op && !strcmp(a->op.op, ops[i]))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return "an operator";
	if (!strcmp(a->op.op, "?")) {
		struct tep_print_arg *r = a->op.right;

		if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
			return "an operator";
		e->kind = EX_COND;
		e->c = *nex;
		why = compile_expr(ev, a->op.left, ex, nex, depth + 1);
		if (!why) {
			e->l = *nex;
			why = compile_expr(ev, r->op.left, ex, nex, depth + 1);
		}
		if (!why) {
			e->r = *nex;
			why = compile_expr(ev, r->op.right, ex, nex, depth + 1);
		}
		return why;
	}
	e->kind = EX_OP;
	strcpy(e->op, a->op.op);
	e->l = *nex;
	why = compile_expr(ev, a->op.left, ex, nex, depth + 1);
	if (why)
		return why;
	e->r = *nex;
	why = compile_expr(ev, a->op.right, ex, nex, depth + 1);
	if (!why && (e->op[0] == '/' || e->op[0] == '%') &&
	    (ex[e->r].kind != EX_CONST || !(ex[e->r].val & ex[e->r].mask)))
		return "a division by a record value";
	return why;
}

/* The number argument @a, an expression, into @op (its nodes in op->ex). */
static const char *compile_num_expr(struct tep_event *ev, struct tep_print_arg *a, struct fop *op)
{
	struct fexpr ex[MAX_EXPR];
	const char *why;
	int n = 0;

	why = compile_expr(ev, a, ex, &n, 0);
	if (why)
		return why;
	op->ex = malloc(n * sizeof(*ex));
	if (!op->ex)
		return "out of memory";
	memcpy(op->ex, ex, n * sizeof(*ex));
	op->kind = op->pconv ? FOP_FUNC : FOP_EXPR;
	op->mask = ~0ULL;
	return NULL;
}

static const char *compile_str_branch(struct tep_event *ev, struct tep_print_arg *a,
				      struct fop *op, int depth);

/*
 * "%s" of c ? a : b (@a, '?' with ':' on its right) into @op: the
 * condition is evaluated as a number (eval_num_arg()), and the string
 * chosen prints through the conversion (print_str_arg()): sched_switch's
 * prev_state without its plugin (-N).
 */
static const char *compile_scond(struct tep_event *ev, struct tep_print_arg *a, struct fop *op,
				 int depth)
{
	struct tep_print_arg *r = a->op.right;
	struct fexpr ex[MAX_EXPR];
	const char *why;
	int i, n = 0;

	if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
		return "an operator";
	if (depth > 8)
		return "a long expression";
	why = compile_expr(ev, a->op.left, ex, &n, 0);
	if (why)
		return why;
	op->ex = malloc(n * sizeof(*ex));
	op->alt = calloc(2, sizeof(*op->alt));
	if (!op->ex || !op->alt)
		return "out of memory";
	memcpy(op->ex, ex, n * sizeof(*ex));
	op->kind = FOP_SCOND;
	for (i = 0; i < 2; i++) {
		struct fop *b = &op->alt[i];

		*b = (struct fop){ .mask = ~0ULL, .ls = op->ls, .plain = op->plain, .conv = op->conv };
		memcpy(b->fmt, op->fmt, sizeof(b->fmt));
		why = compile_str_branch(ev, i ? r->op.right : r->op.left, b, depth + 1);
		if (why)
			return why;
	}
	return NULL;
}

/*
 * A string a '?' chooses (@a) into @op: a constant ("R"), a symbol or
 * flags, a char array field, or another ?:.
 */
static const char *compile_str_branch(struct tep_event *ev, struct tep_print_arg *a,
				      struct fop *op, int depth)
{
	struct tep_format_field *f;

	if (!a)
		return "an operator";
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if (!a->atom.atom || strchr(a->atom.atom, '\\'))
			return "a string constant with an escape";
		op->kind = FOP_LIT;
		op->lit = a->atom.atom;
		op->litlen = strlen(a->atom.atom);
		return NULL;
	case TEP_PRINT_SYMBOL:
	case TEP_PRINT_FLAGS:
		return compile_symbolic(ev, a, op);
	case TEP_PRINT_OP:
		if (a->op.op && !strcmp(a->op.op, "?"))
			return compile_scond(ev, a, op, depth);
		return "an operator";
	case TEP_PRINT_FIELD:
		f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
		    f->size <= 0 || f->size > 1024 || !strstr(f->type, "char"))
			return "%s of a field not a char array";
		op->kind = FOP_STR;
		op->off = f->offset;
		op->size = f->size;
		return NULL;
	default:
		return "?: of a string of another kind";
	}
}

/**
 * ftk_print_clamp_widths() - widths and precisions of a printf spec cut to FTK_PRINT_WIDTH_MAX
 * @s: the spec ("%08llx"), changed in place
 * @np: its length, updated
 *
 * A record is at most a sub-buffer and the kernel prints 1 KB a
 * trace_printk(): a width of a billion, in a format or a record, is a
 * damaged file's, and would make a line of a gigabyte, a billion steps of
 * printf's (libtraceevent prints it). A string's precision only limits
 * it, and is cut too only past what any record holds.
 *
 * Return: 1 if @s was cut, else 0.
 */
int ftk_print_clamp_widths(char *s, size_t *np)
{
	size_t i = 0, j, n = *np;
	int cut = 0;

	while (i < n) {
		if (s[i] < '0' || s[i] > '9') {
			i++;
			continue;
		}
		for (j = i; j < n && s[j] >= '0' && s[j] <= '9'; j++)
			;
		if (j - i > 5 || (j - i == 5 && strncmp(s + i, "65536", 5) > 0)) {
			memcpy(s + i, "65536", 5);	/* FTK_PRINT_WIDTH_MAX */
			memmove(s + i + 5, s + j, n - j);
			n -= j - i - 5;
			j = i + 5;
			cut = 1;
		}
		i = j;
	}
	*np = n;
	return cut;
}

/*
 * The conversion from @fmt (its '%') to @q (its letter) into @op: its
 * printf format and whether the own digits can print it. The format
 * after it, or NULL if it is too long.
 */
static const char *compile_conv(struct fop *op, const char *fmt, const char *q)
{
	size_t n = q - fmt + 1;

	op->conv = *q;
	if (n >= sizeof(op->fmt))
		return NULL;
	memcpy(op->fmt, fmt, n);
	op->clamped = ftk_print_clamp_widths(op->fmt, &n);
	op->fmt[n] = 0;
	if (fmt[1] == '0' && fmt[2] >= '1' && fmt[2] <= '9') {
		const char *w = fmt + 2;

		while (*w >= '0' && *w <= '9')
			w++;
		if (op->ls >= 0 && w == q - op->ls && strchr("ux", *q)) {
			op->zpad = 1;
			op->width = atoi(op->fmt + 2);
		}
	} else if (op->plain && *q == 'x') {
		op->zpad = 1;
		op->width = 0;
	}
	return q + 1;
}

/*
 * The field an argument is under its casts, as print_field() (of
 * tep_print_fields()) matches a field to its conversion; NULL for any
 * other argument.
 */
static struct tep_format_field *arg_field(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD ? a->field.field : NULL;
}

/*
 * %pM, %pm (a MAC), %pI4, %pi4, %pI6, %pi6 and %pI6c (an IP address) at
 * @l (the letter after the 'p') into @op, as libtraceevent reads them:
 * the letters parse_arg_format_pointer() takes as the conversion's (the
 * text goes on after them), what print_arg_pointer() prints of them
 * (print_mac_arg(), print_ipv4_arg(), print_ipv6_arg()): a MAC's bytes
 * in hex, joined by ':' ('-' for %pMF, none for %pm), last to first for
 * %pMR; an IPv4's in decimal (%pi4: 3 digits each), last to first for
 * %pI4l, and for %pI4h of a little-endian file; an IPv6's 16-bit words
 * in 4 hex digits, joined by ':' (%pI6) or not (%pi6, and %pi6c: the 'c'
 * is read but only %pI6c compresses); %pIS, %pISp, %pISc, %pISpc: a
 * sockaddr (print_ipsa_arg()), with the port, compressed. @file_big: the
 * file is big-endian. The format after the letters, or NULL for another
 * form: %pI and a letter other than 4, 6 or S; %piS; %pIS with letters
 * the parser and the printer read apart (%pIScp, %pISpch, %pISf, ...).
 */
static const char *compile_addr_spec(struct fop *op, const char *l, int file_big)
{
	op->kind = FOP_ADDR;
	op->conv = 'a';
	op->plain = 0;
	if (*l == 'M' || *l == 'm') {
		op->addr = ADDR_MAC;
		op->addr_sep = *l == 'm' ? 0 : l[1] == 'F' ? '-' : ':';
		op->addr_rev = l[1] == 'R';
		return l + 1 + (l[1] == 'R' || l[1] == 'F');
	}
	if (l[1] == '4') {
		op->addr = ADDR_IP4;
		op->addr_lz = *l == 'i';
		op->addr_rev = l[2] == 'l' || (l[2] == 'h' && !file_big);
		return l + 2 + (l[2] && strchr("hnlb", l[2]) ? 1 : 0);
	}
	if (l[1] == '6') {
		op->addr = *l == 'I' && l[2] == 'c' ? ADDR_IP6C : ADDR_IP6;
		op->addr_sep = *l == 'I' ? ':' : 0;
		return l + 2 + (l[2] == 'c');
	}
	if (*l == 'I' && l[1] == 'S') {
		l += 2;
		op->addr_port = *l == 'p';
		l += op->addr_port;
		op->addr = *l == 'c' ? ADDR_SAC : ADDR_SA;
		l += op->addr == ADDR_SAC;
		return *l && strchr("pfscnhlb", *l) ? NULL : l;
	}
	return NULL;
}

/*
 * The field of a FOP_ADDR conversion's argument *@argp (under its casts,
 * as print_mac_arg() and the others look through them) into @op, of the
 * size the address has (the others print "INVALIDMAC" and such, left to
 * libtraceevent), and *@argp moved on. NULL, or why not.
 */
static const char *compile_addr_arg(struct tep_event *ev, struct fop *op,
				    struct tep_print_arg **argp)
{
	/* a sockaddr: room for a struct sockaddr_in6, its family's checks never fail */
	static const int size[] = { [ADDR_MAC] = 6, [ADDR_IP4] = 4, [ADDR_IP6] = 16,
				    [ADDR_IP6C] = 16, [ADDR_SA] = 28, [ADDR_SAC] = 28 };
	struct tep_print_arg *a = *argp;
	struct tep_format_field *f;

	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	if (!a || a->type != TEP_PRINT_FIELD)
		return "%p of an address not in a field";
	f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
	if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset < 0 ||
	    (op->addr >= ADDR_SA ? f->size < size[op->addr] : f->size != size[op->addr]))
		return "%p of an address in a field of another size";
	op->off = f->offset;
	op->size = f->size;
	*argp = (*argp)->next;
	return NULL;
}

/*
 * The conversion at *@fmtp ('%' and its flags, width, precision, length
 * and letter) into @op, and *@fmtp past it: NULL, or why it cannot be.
 */
static const char *compile_spec(struct fprog *pr, struct fop *op, const char **fmtp)
{
	const char *fmt = *fmtp, *q;

	q = fmt + 1;
	while (*q && strchr("-+ #0", *q))
		q++;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q == '.') {
		q++;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	*op = (struct fop){ .mask = ~0ULL };
	/* no flag, width or precision: what the own digits print */
	op->plain = q == fmt + 1;
	while (*q == 'l' || *q == 'L' || *q == 'z' || *q == 'Z' || *q == 'h') {
		/* as libtraceevent counts them: L is ll, z is l, each h one less */
		op->ls = *q == 'l' ? op->ls + 1 : *q == 'h' ? op->ls - 1 : *q == 'L' ? 2 : 1;
		q++;
	}
	if (op->ls < 0)	/* a short or a char: through printf */
		op->plain = 0;
	if (*q == 'p') {
		/*
		 * %ps, %pS, %pf, %pF of an address: libtraceevent's
		 * print_function() ignores flags and width; other %p
		 * print through the C library.
		 */
		if (q[1] && strchr("sSfF", q[1])) {
			if (q != fmt + 1)
				return "%p";
			op->conv = 'p';
			op->pconv = q[1];
			fmt = q + 2;
		} else if (q[1] && strchr("MmIi", q[1])) {
			if (q != fmt + 1)
				return "%p of an address with flags or a width";
			fmt = compile_addr_spec(op, q + 1, tep_is_file_bigendian(pr->ev->tep));
			if (!fmt)
				return "%p of an IP address of another form";
		} else if (q[1] && strchr("Uh", q[1])) {
			return "%p of a UUID or a buffer";
		} else {
			/*
			 * A plain %p: print_arg_pointer() prints the
			 * value through the C library's "%p", whatever
			 * the flags and width; the letter after it is
			 * text.
			 */
			op->conv = 'p';
			op->plain = 0;
			fmt = q + 1;
		}
	} else if (op->ls > 2 || op->ls < -2 || !*q || !strchr("diuxXos", *q) ||
		   (*q == 's' && op->ls < 0)) {
		return "a conversion other than d i u x X o s";
	} else {
		fmt = compile_conv(op, fmt, q);
		if (!fmt)
			return "a long conversion";
		if (op->clamped)	/* libtraceevent would print a gigabyte: not compared */
			pr->checked = CHECK_FIRST;
	}
	*fmtp = fmt;
	return NULL;
}

/*
 * The argument *@argp for @op, whose conversion is parsed: what @op reads
 * of the record, and *@argp moved to the next argument. NULL, or why it
 * cannot be.
 */
static const char *compile_arg(struct fprog *pr, struct tep_event *ev, struct fop *op,
			       struct tep_print_arg **argp)
{
	struct tep_print_arg *arg = *argp;
	struct tep_format_field *f;

	op->field = arg_field(arg);
	if (op->kind == FOP_ADDR)
		return compile_addr_arg(ev, op, argp);
	{
		struct tep_print_arg *fa = arg;

		const struct tep_print_arg *in = fa->type == TEP_PRINT_TYPE ? fa->typecast.item : fa;
		int index = in && in->type == TEP_PRINT_OP && in->op.op && !strcmp(in->op.op, "[");
		const char *why = NULL;
		int whole = 1;

		if ((fa->type == TEP_PRINT_SYMBOL || fa->type == TEP_PRINT_FLAGS) &&
		    op->conv == 's')
			why = compile_symbolic(ev, fa, op);
		else if (op->conv == 's' && fa->type == TEP_PRINT_OP && fa->op.op &&
			 !strcmp(fa->op.op, "?"))
			why = compile_scond(ev, fa, op, 0);
		else if (op->conv != 's' && !index &&
			 (fa->type == TEP_PRINT_OP ||
			  (fa->type == TEP_PRINT_TYPE && (!in || in->type != TEP_PRINT_FIELD))))
			/* an expression, (unsigned int)((REC->dev) >> 20) */
			why = compile_num_expr(ev, fa, op);
		else
			whole = 0;
		if (whole) {
			if (why)
				return why;
			arg = arg->next;
			*argp = arg;
			return NULL;
		}
		/*
		 * A cast: libtraceevent's eval_type_str() masks the value
		 * read to the size of the type it names (u8, s16, int,
		 * unsigned char, ...) and leaves it as it is for any other
		 * (long, u64, pointers, structs, typedefs); the conversion
		 * then casts it as it casts a field, as the syscall
		 * events' ((unsigned long)(REC->fd)) and sched_stat_runtime's
		 * (unsigned long long)REC->runtime have it.
		 */
		if (fa->type == TEP_PRINT_TYPE) {
			/* of a field or of an element, (void *)REC->caller[0] */
			if (cast_mask(fa->typecast.type, &op->mask))
				return "a cast to an odd type";
			fa = fa->typecast.item;
			if (op->conv == 's')
				return "a cast of a string";
			if (!fa)
				return "a cast of nothing";
		}
		if (fa->type == TEP_PRINT_FIELD) {
			f = fa->field.field ? fa->field.field :
			    tep_find_any_field(ev, fa->field.name);
		} else if (fa->type == TEP_PRINT_STRING && op->conv == 's') {
			/* __get_str(): a __data_loc string */
			f = fa->string.field ? fa->string.field :
			    tep_find_any_field(ev, fa->string.string);
			arg = arg->next;
			if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
				return "__get_str() of an odd field";
			op->kind = FOP_DSTR;
			op->off = f->offset;
			op->size = f->size;
			op->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
			*argp = arg;
			return NULL;
		} else if (fa->type == TEP_PRINT_OP && fa->op.op && !strcmp(fa->op.op, "[") &&
			   op->conv != 's') {
			/*
			 * REC->args[N] (raw_syscalls): libtraceevent reads
			 * the element at its size, as a field of its own.
			 */
			const struct tep_print_arg *l = fa->op.left, *r = fa->op.right;
			char *end;
			long idx;

			if (l && l->type == TEP_PRINT_TYPE && op->mask == ~0ULL &&
			    l->typecast.type) {
				/*
				 * (void *)REC->caller[0] parses as a cast of
				 * the array: libtraceevent casts the element
				 * to the type pointed to (eval_type_str()).
				 */
				const char *t = l->typecast.type;
				size_t tl = strlen(t);
				char pointee[64];

				if (tl >= 2 && t[tl - 1] == '*') {
					if (tl - 2 >= sizeof(pointee))
						return "a cast to an odd type";
					memcpy(pointee, t, tl - 2);
					pointee[tl - 2] = 0;
					if (cast_mask(pointee, &op->mask))
						return "a cast to an odd type";
				}
				l = l->typecast.item;
			}
			if (!l || l->type != TEP_PRINT_FIELD || !r || r->type != TEP_PRINT_ATOM)
				return "[] of an expression";
			f = l->field.field ? l->field.field : tep_find_any_field(ev, l->field.name);
			errno = 0;
			idx = strtol(r->atom.atom, &end, 0);
			if (!f || errno || *end || idx < 0 || !(f->flags & TEP_FIELD_IS_ARRAY) ||
			    (f->flags & TEP_FIELD_IS_DYNAMIC) || f->elementsize <= 0 ||
			    (f->elementsize != 1 && f->elementsize != 2 && f->elementsize != 4 &&
			     f->elementsize != 8) ||
			    (idx + 1) * (long)f->elementsize > (long)f->size)
				return "[] of an odd array";
			arg = arg->next;
			op->kind = op->pconv ? FOP_FUNC : FOP_NUM;
			op->off = f->offset + idx * f->elementsize;
			op->size = f->elementsize;
			*argp = arg;
			return NULL;
		} else {
			return fa->type == TEP_PRINT_OP ? "an operator" :
			       fa->type == TEP_PRINT_FLAGS ? "__print_flags" :
			       fa->type == TEP_PRINT_SYMBOL ? "__print_symbolic" :
			       fa->type == TEP_PRINT_FUNC ? "a helper function" :
			       fa->type == TEP_PRINT_HEX || fa->type == TEP_PRINT_HEX_STR ?
			       "__print_hex" :
			       fa->type == TEP_PRINT_INT_ARRAY ? "__print_array" :
			       fa->type == TEP_PRINT_DYNAMIC_ARRAY ? "__get_dynamic_array" :
			       fa->type == TEP_PRINT_BSTRING ? "a bprint string" :
			       "an argument of another kind";
		}
	}
	arg = arg->next;
	if (!f)
		return "an unknown field";
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return "a dynamic field";
	op->off = f->offset;
	op->size = f->size;
	if (op->conv == 's' && !(f->flags & TEP_FIELD_IS_ARRAY) &&
	    f->size == tep_get_long_size(ev->tep) && (f->size == 4 || f->size == 8)) {
		/*
		 * A string's kernel address (ftrace:bputs' str): the
		 * text the printk formats list there (print-printk.c).
		 */
		op->kind = FOP_PSTR;
	} else if (op->conv == 's') {
		if (!(f->flags & TEP_FIELD_IS_ARRAY) || f->size <= 0 || f->size > 1024 ||
		    !strstr(f->type, "char"))
			return "%s of a field not a char array";
		op->kind = FOP_STR;
	} else {
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING))
			return "a number of an array";
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return "a number of an odd size";
		op->kind = op->pconv ? FOP_FUNC : FOP_NUM;
	}
	*argp = arg;
	return NULL;
}

/* Compile @ev's print fmt into @pr: NULL, or why it cannot be (for ftreport --stat -v). */
static const char *compile_generic(struct fprog *pr, struct tep_event *ev)
{
	const char *fmt = ev->print_fmt.format, *q;
	struct tep_print_arg *arg = ev->print_fmt.args;
	struct fop *op;

	if (!fmt)
		return "no print fmt";
	while (*fmt) {
		if (pr->nops >= MAX_OPS)
			return "too many parts";
		op = &pr->ops[pr->nops];
		if (*fmt != '%' || fmt[1] == '%') {
			q = compile_literal(pr, op, &fmt);
			if (q)
				return q;
			pr->nops++;
			continue;
		}
		q = compile_spec(pr, op, &fmt);
		if (q)
			return q;
		if (!arg)
			return "fewer arguments than conversions";
		q = compile_arg(pr, ev, op, &arg);
		if (q)
			return q;
		pr->nops++;
	}
	return arg ? "more arguments than conversions" : NULL;
}

/*
 * Whether every field of @ev lies inside @rec. libtraceevent trusts the
 * format: a record shorter than its fields, or a dynamic array pointing
 * past the record, makes it read out of bounds (found by fuzzing).
 */
int ftk_print_record_ok(struct ftk_printer *p, struct tep_event *ev, const struct tep_record *rec)
{
	struct tep_format_field *f;
	unsigned long long v, off, len;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (f = pass ? ev->format.fields : ev->format.common_fields; f; f = f->next) {
			if (f->offset < 0 || f->size < 0)
				return 0;
			if ((unsigned long long)f->offset + f->size > (unsigned long long)rec->size)
				return 0;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (f->size != 4)
				return 0;
			v = rdn(p, (const char *)rec->data + f->offset, 4);
			off = v & 0xffff;
			len = v >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += f->offset + f->size;
			if (off + len > (unsigned long long)rec->size)
				return 0;
		}
	}
	return 1;
}

/*
 * Whether libtraceevent can evaluate these arguments on any record: it
 * divides by whatever the divisor evaluates to, so a '/' or '%' by a
 * record value traps (SIGFPE) on 0 or on LLONG_MIN / -1. Formats read
 * from a file have passed format-check.c already; this also covers a tep
 * handle a library user filled.
 */
static int args_safe(const struct tep_print_arg *a, int depth)
{
	long long v;
	char *end;

	for (; a; a = a->next) {
		if (depth > 256)
			return 0;
		switch (a->type) {
		case TEP_PRINT_OP:
			if (a->op.op && (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%"))) {
				if (!a->op.right || a->op.right->type != TEP_PRINT_ATOM ||
				    !a->op.right->atom.atom)
					return 0;
				errno = 0;
				v = strtoll(a->op.right->atom.atom, &end, 0);
				if (errno || end == a->op.right->atom.atom || v <= 0)
					return 0;
			}
			if (!args_safe(a->op.left, depth + 1) || !args_safe(a->op.right, depth + 1))
				return 0;
			break;
		case TEP_PRINT_TYPE:
			if (!args_safe(a->typecast.item, depth + 1))
				return 0;
			break;
		case TEP_PRINT_FLAGS:
			if (!args_safe(a->flags.field, depth + 1))
				return 0;
			break;
		case TEP_PRINT_SYMBOL:
			if (!args_safe(a->symbol.field, depth + 1))
				return 0;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			if (!args_safe(a->hex.field, depth + 1) || !args_safe(a->hex.size, depth + 1))
				return 0;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (!args_safe(a->int_array.field, depth + 1) ||
			    !args_safe(a->int_array.count, depth + 1) ||
			    !args_safe(a->int_array.el_size, depth + 1))
				return 0;
			break;
		case TEP_PRINT_FUNC:
			if (!args_safe(a->func.args, depth + 1))
				return 0;
			break;
		default:
			break;
		}
	}
	return 1;
}

/*
 * ftrace:print, trace_marker's event: "%ps: %s", (void *)REC->ip, REC->buf.
 * libtraceevent prints the name of the function at ip and the text of
 * buf, the rest of the record, up to its first NUL. Other shapes of it are
 * left to libtraceevent. 1 if compiled (the fields in pr->f[0] and f[1]).
 */
static int compile_print(struct fprog *pr, struct tep_event *ev)
{
	const struct tep_print_arg *a = ev->print_fmt.args, *b;
	struct tep_format_field *ip, *buf;

	if (strcmp(ev->system, "ftrace") || strcmp(ev->name, "print") || !ev->print_fmt.format ||
	    strcmp(ev->print_fmt.format, "%ps: %s"))
		return 0;
	ip = tep_find_field(ev, "ip");
	buf = tep_find_field(ev, "buf");
	if (!ip || !buf || ip->size != tep_get_long_size(ev->tep) || (ip->size != 4 && ip->size != 8) ||
	    (ip->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
	    !(buf->flags & TEP_FIELD_IS_ARRAY) || (buf->flags & TEP_FIELD_IS_DYNAMIC) ||
	    buf->size != 0 || buf->offset < ip->offset + ip->size)
		return 0;
	if (!a || a->type != TEP_PRINT_TYPE || !a->typecast.type ||
	    strcmp(a->typecast.type, "void *") || !(b = a->typecast.item) ||
	    b->type != TEP_PRINT_FIELD || !b->field.name || strcmp(b->field.name, "ip"))
		return 0;
	b = a->next;
	if (!b || b->type != TEP_PRINT_FIELD || !b->field.name || strcmp(b->field.name, "buf") ||
	    b->next)
		return 0;
	pr->f[0] = ip;
	pr->f[1] = buf;
	return 1;
}

/*
 * ftrace:bprint (trace_printk()): libtraceevent prints it by the printk
 * format at REC->fmt, not by its print fmt; the fields ip, fmt and buf
 * into pr->f[0..2] (print-printk.c prints it). NULL, or why not.
 */
static const char *compile_bprint(struct fprog *pr, struct tep_event *ev)
{
	struct tep_format_field *ip = num_field(ev, "ip"), *fmt = num_field(ev, "fmt");
	struct tep_format_field *buf = tep_find_field(ev, "buf");

	if (!ip || !fmt || !buf || buf->offset < 0 || (buf->flags & TEP_FIELD_IS_DYNAMIC))
		return "a bprint event of odd fields";
	pr->f[0] = ip;
	pr->f[1] = fmt;
	pr->f[2] = buf;
	return NULL;
}

/*
 * The fields of @ev as tep_print_fields() prints them (-R, and after
 * "[FAILED TO PARSE]"), into pr->raw: " name=" and the value, which is
 * the print fmt's conversion of the field where print_field() finds
 * one, else print_field_raw()'s (run by print-text.c). print_field()
 * looks for a field's conversion among the print fmt's parts from the
 * part after the one it last used, around to where it started; after a
 * match of the last part, none is looked for any more; a "0x" that ends
 * the text before the conversion is printed too. The parts are the
 * compiled ops (compile_generic() splits text and conversions as
 * parse_args() does), so the walk is the same for every record and done
 * here once. NULL, or why not.
 */
static const char *compile_raw(struct fprog *pr, struct tep_event *ev)
{
	struct tep_format_field *f;
	const struct tep_print_arg *a;
	const char *why = NULL;
	int n = 0, i, part = 0, start, has0x, done = 0;

	for (f = ev->format.fields; f; f = f->next)
		n++;
	pr->raw = calloc(n ? n : 1, sizeof(*pr->raw));
	if (!pr->raw)
		return "out of memory";
	/* a bprint event has no parts (parse_args() is not run for it): all raw */
	if (!(ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT)) && ev->print_fmt.format) {
		why = compile_generic(pr, ev);
		if (why) {
			/* without the ops, only if no conversion is of a plain field */
			pr->nops = 0;
			for (a = ev->print_fmt.args; a; a = a->next)
				if (arg_field(a))
					return why;
			why = NULL;
		}
	}
	done = !pr->nops;
	for (n = 0, f = ev->format.fields; f; f = f->next, n++) {
		struct rawf *r = &pr->raw[n];

		r->f = f;
		r->namelen = strlen(f->name);
		r->op = -1;
		if (f->offset < 0 || f->size < 0 ||
		    (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size != 1 && f->size != 2 &&
		     f->size != 4 && f->size != 8) ||
		    ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4))
			return "a field of an odd size";
		if (done || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)))
			continue;
		start = part;
		has0x = 0;
		do {
			const struct fop *op = &pr->ops[part];

			if (op->kind == FOP_LIT) {
				has0x = op->litlen >= 2 && !memcmp(op->lit + op->litlen - 2, "0x", 2);
			} else if (op->field != f) {
				has0x = 0;
			} else {
				if (op->kind != FOP_NUM && op->kind != FOP_FUNC && op->kind != FOP_EXPR &&
				    op->kind != FOP_PSTR)
					return "a field printed by a conversion of another kind";
				r->op = part;
				r->has0x = has0x;
				if (++part == pr->nops)
					done = 1;	/* *parse_ptr is NULL: raw from here on */
				break;
			}
			part = part + 1 < pr->nops ? part + 1 : 0;
		} while (part != start);
	}
	pr->nraw = n;
	for (i = 0; i < pr->nops; i++)
		if (pr->ops[i].clamped)
			pr->checked = CHECK_FIRST;
	return why;
}

/* What @op holds (not @op itself). */
static void fop_release(struct fop *op)
{
	int i;

	free(op->syms);
	free(op->ex);
	for (i = 0; op->alt && i < 2; i++)
		fop_release(&op->alt[i]);
	free(op->alt);
}

void ftk_print_prog_free(struct fprog *pr)
{
	int i;

	if (!pr)
		return;
	for (i = 0; i < MAX_OPS; i++)
		fop_release(&pr->ops[i]);
	free(pr->text);
	free(pr->raw);
	free(pr);
}

/*
 * The events the kmem plugin gives its call_site_handler(): it prints
 * "(func+0x%x) " and lets the print fmt follow.
 */
static int is_kmem_call_site(const char *name)
{
	static const char *const names[] = { "kfree", "kmalloc", "kmalloc_node",
		"kmem_cache_alloc", "kmem_cache_alloc_node", "kmem_cache_free" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

struct fprog *ftk_print_compile(struct ftk_printer *p, struct tep_event *ev)
{
	struct fprog *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return NULL;
	pr->ev = ev;
	pr->namelen = strlen(ev->name);
	pr->kind = PROG_SLOW;
	{
		struct tep_format_field *f;
		int pass;

		for (pass = 0; pass < 2; pass++)
			for (f = pass ? ev->format.fields : ev->format.common_fields; f; f = f->next)
				if (f->offset >= 0 && f->size >= 0 &&
				    (unsigned int)(f->offset + f->size) > pr->min_size)
					pr->min_size = f->offset + f->size;
	}
	if (!p->type_size) {
		struct tep_format_field *t = tep_find_common_field(ev, "common_type");
		struct tep_format_field *d = tep_find_common_field(ev, "common_pid");

		if (t && d && (t->size == 1 || t->size == 2 || t->size == 4) && d->size == 4) {
			p->type_off = t->offset;
			p->pid_off = d->offset;
			p->pid_size = d->size;
			p->type_size = t->size;
		}
	}
	if (!(ev->flags & TEP_EVENT_FL_FAILED) && !args_safe(ev->print_fmt.args, 0)) {
		pr->kind = PROG_UNSAFE;
		pr->why = "the print fmt divides by a record value";
		return pr;
	}
	pr->why = p->no_fast ? "FTK_PRINT_SLOW is set" :
		  (ev->flags & TEP_EVENT_FL_NOHANDLE) ? "the event's NOHANDLE flag" : NULL;
	if (pr->why)
		return pr;
	if ((p->flags & FTK_PRINT_RAW) || (ev->flags & TEP_EVENT_FL_PRINTRAW) ||
	    ((ev->flags & TEP_EVENT_FL_FAILED) && !ev->handler)) {
		/* tep_print_fields(), after "[FAILED TO PARSE]" if it could not parse it */
		pr->why = compile_raw(pr, ev);
		if (pr->why)
			pr->nops = 0;
		else
			pr->kind = PROG_RAW;
		pr->failed = !(p->flags & FTK_PRINT_RAW) && !(ev->flags & TEP_EVENT_FL_PRINTRAW) &&
			     (ev->flags & TEP_EVENT_FL_FAILED);
		return pr;
	}
	if (ev->flags & TEP_EVENT_FL_ISBPRINT) {
		pr->why = compile_bprint(pr, ev);
		if (!pr->why)
			pr->kind = PROG_BPRINT;
		return pr;
	}
	if (ev->handler && (ev->flags & TEP_EVENT_FL_ISFTRACE)) {
		/* the printer's own function_graph and kernel_stack handlers */
		pr->kind = ftk_print_graph_compile(p, ev, pr->f);
		if (pr->kind == PROG_SLOW)
			/* libtraceevent's function plugin */
			pr->why = ftk_print_plugin_compile(p, ev, pr->f, &pr->indent, &pr->kind);
		return pr;
	}
	if (!ev->handler && (ev->flags & TEP_EVENT_FL_ISFTRACE) && compile_print(pr, ev)) {
		pr->kind = PROG_PRINT;
		return pr;
	}
	if (ev->handler && !strcmp(ev->system, "kmem") && is_kmem_call_site(ev->name)) {
		/* the kmem plugin's prefix, then the print fmt */
		pr->call_site = num_field(ev, "call_site");
		if (!pr->call_site) {
			pr->why = "a plugin's handler";
			return pr;
		}
	} else if (ev->handler && !strcmp(ev->system, "tlb") && !strcmp(ev->name, "tlb_flush")) {
		pr->why = "a plugin's handler";
		pr->f[0] = num_field(ev, "pages");
		pr->f[1] = num_field(ev, "reason");
		if (pr->f[0] && pr->f[1]) {
			pr->kind = PROG_TLB;
			pr->why = NULL;
		}
		return pr;
	} else if (ev->handler && !strcmp(ev->system, "timer") &&
		   (!strcmp(ev->name, "hrtimer_start") || !strcmp(ev->name, "hrtimer_expire_entry"))) {
		/* the hrtimer plugin's handlers (see PROG_HRTIMER) */
		int start = ev->name[8] == 's';

		pr->why = "a plugin's handler";
		pr->f[0] = tep_find_field(ev, "timer") ? num_field(ev, "timer") :
			   num_field(ev, "hrtimer");
		pr->f[1] = tep_find_field(ev, "function");
		pr->f[2] = start ? NULL : num_field(ev, "now");
		pr->f[3] = start ? num_field(ev, "expires") : NULL;
		pr->f[4] = start ? num_field(ev, "softexpires") : NULL;
		if (pr->f[0] && (!pr->f[1] || num_field(ev, "function")) &&
		    (start ? pr->f[3] && pr->f[4] : !!pr->f[2])) {
			pr->kind = PROG_HRTIMER;
			pr->why = NULL;
		}
		return pr;
	} else if (ev->handler && !strcmp(ev->system, "syscalls") &&
		   !strcmp(ev->name, "sys_enter_futex")) {
		/* the futex plugin's futex_handler() (see PROG_FUTEX) */
		static const char *const names[] = { "uaddr", "op", "val", "utime", "uaddr2",
						      "val3" };
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			/* tep_get_field_val(): not a common field; read at its size */
			pr->f[i] = num_field(ev, names[i]);
			if (!pr->f[i]) {
				pr->why = "a plugin's handler";
				return pr;
			}
		}
		/* an op past its table: the handler prints nothing, the print fmt follows */
		pr->why = compile_generic(pr, ev);
		if (pr->why)
			pr->nops = 0;
		pr->kind = PROG_FUTEX;
		return pr;
	} else if (ev->handler) {
		pr->why = "a plugin's handler";
		if (strcmp(ev->system, "sched"))
			return pr;
		if (!strcmp(ev->name, "sched_switch") && !tep_find_field(ev, "prev_state_char")) {
			pr->f[0] = num_field(ev, "prev_pid");
			pr->f[1] = comm_field(ev, "prev_comm");
			pr->f[2] = num_field(ev, "prev_prio");
			pr->f[3] = num_field(ev, "prev_state");
			pr->f[4] = num_field(ev, "next_pid");
			pr->f[5] = comm_field(ev, "next_comm");
			pr->f[6] = num_field(ev, "next_prio");
			if (pr->f[0] && pr->f[1] && pr->f[2] && pr->f[3] && pr->f[4] && pr->f[5] &&
			    pr->f[6])
				pr->kind = PROG_SWITCH;
		} else if (!strcmp(ev->name, "sched_wakeup") || !strcmp(ev->name, "sched_wakeup_new")) {
			pr->f[0] = num_field(ev, "pid");
			pr->f[1] = comm_field(ev, "comm");
			pr->f[2] = num_field(ev, "prio");
			pr->f[3] = tep_find_field(ev, "success");
			pr->f[4] = tep_find_field(ev, "target_cpu");
			if (pr->f[0] && pr->f[1] && pr->f[2] && !pr->f[3] &&
			    (!pr->f[4] || num_field(ev, "target_cpu")))
				pr->kind = PROG_WAKEUP;
		}
		if (pr->kind != PROG_SLOW)
			pr->why = NULL;
		return pr;
	}
	pr->why = compile_generic(pr, ev);
	if (!pr->why)
		pr->kind = PROG_GENERIC;
	else
		pr->nops = 0;
	return pr;
}

