// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-printk: the file's printk formats on the fast path: ftrace:bprint
 * (trace_printk()) records, whose format is a kernel address and whose
 * arguments are packed as the kernel's vbin_printf() packs them, and %s
 * of a string's kernel address (ftrace:bputs, trace_puts()).
 *
 * libtraceevent keeps the printk formats the reader gives it
 * (tep_parse_printk_formats()) but exports no look-up, so the reader
 * also keeps their text beside the tep handle (ftk_printk_keep()), and a
 * printer makes its own table of it on the first record that needs one.
 * Everything below reproduces libtraceevent 1.7.1's reading of the text
 * and of the records (tep_register_print_string(), make_bprint_args(),
 * parse_args(), print_str_arg()), not the kernel's: where the two
 * disagree (%c, %-5d, %hd), trace-cmd report prints libtraceevent's
 * reading, and so does this. Shapes whose text libtraceevent decides by
 * the record's bytes, or which make it fail or read past the record, are
 * left to it, with the reason (ftreport --stat -v).
 */

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "print-local.h"
#include "tep-side-local.h"

/* A copy of @tep's printk text (tep-side.c); NULL if no reader kept one. */
static char *kept_copy(struct tep_handle *tep)
{
	struct ftk_tep_side *s = ftk_tep_side_of(tep);

	return s ? strdup(s->printk ? s->printk : "") : NULL;
}

/* ---------------------------------------------------------------- the table */

/* A bprint format's producer: an argument read from the record's buf. */
enum { BS_NUM, BS_STR };

struct bslot {
	unsigned char	kind;
	unsigned char	size;		/* BS_NUM: 4 or 8 */
	unsigned char	first;		/* read only while buf has bytes left */
};

/* A bprint format's consumer: literal text or a conversion of an argument. */
enum { BO_LIT, BO_NUM, BO_PTR, BO_STR };

struct bop {
	unsigned char	kind;
	signed char	ls;		/* BO_NUM: -2 (hh) .. 2 (ll) */
	char		pconv;		/* BO_PTR: s S f F, or 0 for plain %p */
	char		plain;		/* "%s", "%d", "%u", "%x" with ls 0..2: no printf */
	char		conv;
	short		slot;		/* the argument (0: the ip) */
	short		lslot;		/* the '*' argument, or -1 */
	unsigned int	off, len;	/* BO_LIT: the text; others: the printf spec (in text) */
};

struct bfmt {
	const char	*why;		/* not compiled: why */
	unsigned char	checked;	/* its text once matched libtraceevent's */
	unsigned char	clamped;	/* a width was cut: never compared (ftk_print_clamp_widths()) */
	int		nslots;		/* arguments in buf (slot 0, the ip, not counted) */
	int		maxslot;	/* the highest argument a conversion takes */
	int		nops;
	struct bslot	*slots;		/* [1 .. nslots] */
	struct bop	*ops;
	char		*text;
};

struct pk_ent {
	unsigned long long	addr;
	const char		*str;
	struct bfmt		*bf;	/* compiled on first use */
	int			dup;	/* listed twice with different text */
};

struct ftk_printk {
	struct pk_ent	*e;
	size_t		n;
	char		*text;
	const char	*why;		/* set: the table cannot be trusted */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct pk_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->str, y->str);
}

static void bfmt_free(struct bfmt *bf)
{
	if (!bf)
		return;
	free(bf->slots);
	free(bf->ops);
	free(bf->text);
	free(bf);
}

void ftk_printk_free(struct ftk_printk *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		bfmt_free(t->e[i].bf);
	free(t->e);
	free(t->text);
	free(t);
}

/*
 * The table of @text, as tep_parse_printk_formats() reads it: lines
 * split at '\n' (empty ones skipped), the address up to the first ':'
 * after any leading ones (strtoull base 16), the text one character
 * after that ':', then tep_register_print_string(): one leading '"' off,
 * the last character off if it is '"', and then a trailing "\n" (the
 * two characters) off.
 */
static struct ftk_printk *table_new(char *text)
{
	struct ftk_printk *t = calloc(1, sizeof(*t));
	char *line, *next, *addr, *fmt, *s;
	size_t cap = 0, i, j, n;

	if (!t) {
		free(text);
		return NULL;
	}
	t->text = text;
	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		addr = strtok_r(line, ":", &fmt);
		if (!addr)
			break;
		if (!*fmt || !fmt[1]) {
			/* libtraceevent reads past the line's end: not this table */
			t->why = "a printk formats line with nothing after its ':'";
			continue;
		}
		if (t->n == cap) {
			struct pk_ent *ne = realloc(t->e, (cap ? 2 * cap : 64) * sizeof(*ne));

			if (!ne) {
				t->why = "out of memory";
				break;
			}
			t->e = ne;
			cap = cap ? 2 * cap : 64;
		}
		s = fmt + 1;
		if (*s == '"')
			s++;
		n = strlen(s);
		if (n < 3) {
			/* tep_register_print_string() reads before the text */
			t->why = "a printk format of fewer than 3 characters";
			continue;
		}
		/* "\n" goes only before a closing quote: it compares the two before the last */
		if (s[n - 1] == '"') {
			s[--n] = 0;
			if (s[n - 2] == '\\' && s[n - 1] == 'n')
				s[n - 2] = 0;
		}
		t->e[t->n++] = (struct pk_ent){ .addr = strtoull(addr, NULL, 16), .str = s };
	}
	if (t->n)	/* t->e is NULL for a text of no line */
		qsort(t->e, t->n, sizeof(*t->e), ent_cmp);
	/* one address with two texts: which libtraceevent finds depends on its sort */
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->e[j].addr == t->e[i].addr; j++)
			if (strcmp(t->e[j].str, t->e[i].str))
				t->e[i].dup = 1;
		for (n = i + 1; n < j; n++)
			t->e[n].dup = t->e[i].dup;
	}
	return t;
}

/* The printer's table, made on its first use; NULL, with *@why, if it cannot be used. */
static struct ftk_printk *table(struct ftk_printer *p, const char **why)
{
	char *text;

	if (!p->printk && !p->printk_none) {
		text = kept_copy(p->tep);
		p->printk = text ? table_new(text) : NULL;
		if (!p->printk)
			p->printk_none = 1;
	}
	if (!p->printk) {
		*why = "no printk formats kept by ftkit's reader";
		return NULL;
	}
	if (p->printk->why) {
		*why = p->printk->why;
		return NULL;
	}
	return p->printk;
}

/* The entry of @addr, or NULL. */
static struct pk_ent *find(struct ftk_printk *t, unsigned long long addr)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->e[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n && t->e[lo].addr == addr ? &t->e[lo] : NULL;
}

/* ---------------------------------------------------------------- bprint formats */

static int add_slot(struct bfmt *bf, int kind, int size, int first)
{
	struct bslot *ns = realloc(bf->slots, (bf->nslots + 2) * sizeof(*ns));

	if (!ns)
		return -1;
	bf->slots = ns;
	bf->nslots++;
	ns[bf->nslots] = (struct bslot){ .kind = kind, .size = size, .first = first };
	return 0;
}

/*
 * The arguments make_bprint_args() reads from buf for @s (the printk
 * format): after each '%', flags '0'-'9' '.' '#' and l L z Z go on; d u
 * i x X o and %p read a number (4 bytes, a long with one l, z or p, 8
 * with two or L), '*' a number of 4 bytes and goes on, s a string; any
 * other character ends the conversion with no argument. Numbers are
 * 4-byte aligned, strings not. NULL, or why not compiled.
 */
static const char *producer(struct bfmt *bf, const char *s, int long_size)
{
	const char *ptr;
	int ls, first;

	for (ptr = s; *ptr; ptr++) {
		if (*ptr != '%')
			continue;
		ls = 0;
		first = 1;
again:
		ptr++;
		switch (*ptr) {
		case 0:
			/* it reads on past the format's end */
			return "a bprint format that ends inside a conversion";
		case '%':
			break;
		case 'l':
			ls++;
			goto again;
		case 'L':
			ls = 2;
			goto again;
		case '0' ... '9':
		case '.':
		case '#':
			goto again;
		case 'z':
		case 'Z':
			ls = 1;
			goto again;
		case 'p':
			ls = 1;
			if (isalnum((unsigned char)ptr[1])) {
				ptr++;
				if (!strchr("sSxfF", *ptr) || (tolower(*ptr) == 'f' && ptr[1] == 'w'))
					/* a string or a number, by whether buf's byte is printable */
					return "a bprint %p extension (%pM, %pI4, %pK, ...)";
			}
			/* fall through */
		case 'd':
		case 'u':
		case 'i':
		case 'x':
		case 'X':
		case 'o':
			if (ls > 2)
				return "a bprint conversion with three l's";
			if (add_slot(bf, BS_NUM, ls == 0 ? 4 : ls == 1 ? long_size : 8, first))
				return "out of memory";
			break;
		case '*':
			if (add_slot(bf, BS_NUM, 4, first))
				return "out of memory";
			first = 0;	/* the conversion's own argument is read unchecked */
			goto again;
		case 's':
			if (add_slot(bf, BS_STR, 0, first))
				return "out of memory";
			break;
		default:
			break;
		}
	}
	return NULL;
}

static int add_op(struct bfmt *bf, struct bop *op, size_t *cap)
{
	if ((size_t)bf->nops == *cap) {
		struct bop *no = realloc(bf->ops, (*cap ? 2 * *cap : 16) * sizeof(*no));

		if (!no)
			return -1;
		bf->ops = no;
		*cap = *cap ? 2 * *cap : 16;
	}
	bf->ops[bf->nops++] = *op;
	if (op->kind != BO_LIT && op->slot > bf->maxslot)
		bf->maxslot = op->slot;
	if (op->lslot > bf->maxslot)
		bf->maxslot = op->lslot;
	return 0;
}

/* How many characters after "%p" parse_arg_format_pointer() takes for @f (0 to 2). */
static int pointer_suffix(const char *f)
{
	switch (*f) {
	case 'F':
	case 'S':
	case 'f':
	case 's':
		return 1;
	default:
		return 0;
	}
}

/* Whether spec @s of @n characters is "%d", "%lu", "%llx", "%s", ...: printed without printf. */
static int plain_spec(const char *s, size_t n, char conv)
{
	size_t i;

	for (i = 1; i + 1 < n; i++)
		if (s[i] != 'l')
			return 0;
	return strchr("diux", conv) != NULL || (conv == 's' && n == 2);
}

/*
 * The text of @full ("%ps: " and the printk format) as parse_args()
 * cuts it: literal text (parse_arg_string(): \n \t \r \\ and \c escapes,
 * "%%"), and conversions (parse_arg_format()), each taking the next
 * argument, in order, whatever the producer read it as. NULL, or why not
 * compiled: a conversion without an argument (libtraceevent marks the
 * event failed), a format it reads past.
 */
static const char *consumer(struct bfmt *bf, const char *full)
{
	size_t cap = 0, len = strlen(full), tl = 0, n;
	const char *f = full, *start;
	int k = 0, nargs = bf->nslots + 1, ret, ls, lslot, res;
	struct bop op;
	char *t;

	/* literals unescaped and specs copied are no longer than the format, plus ">c<"s */
	bf->text = t = malloc(3 * len + 1);
	if (!t)
		return "out of memory";
	while (*f) {
		if (*f == '%' && f[1] != '%') {
			start = f;
			ret = 1;
			ls = 0;
			lslot = -1;
			for (f++; *f; f++) {
				op = (struct bop){ .slot = -1, .lslot = -1 };
				switch (*f) {
				case '#':
				case '.':
				case '0' ... '9':
				case '-':
					break;
				case 'h':
					ls--;
					break;
				case 'l':
					ls++;
					break;
				case 'L':
					ls = 2;
					break;
				case 'z':
				case 'Z':
					ls = 1;
					break;
				case '*':
					if (k >= nargs || lslot >= 0)
						return "a bprint format libtraceevent fails on (arguments)";
					lslot = k++;
					break;
				case 'p':
				case 'd':
				case 'u':
				case 'i':
				case 'x':
				case 'X':
				case 'o':
				case 's':
					if (k >= nargs)
						return "a bprint format libtraceevent fails on (arguments)";
					op.kind = *f == 'p' ? BO_PTR : *f == 's' ? BO_STR : BO_NUM;
					if (*f == 'p') {
						if (strchr("MmIiUh", f[1]))
							return "a bprint %p extension (%pM, %pI4, %pK, ...)";
						res = pointer_suffix(f + 1);
						op.pconv = res ? f[1] : 0;
						f += res;
						ret += res;
					}
					op.conv = *f;
					n = f + 1 - start;
					if (n > 30 || ls < -2 || ls > 2)
						return "a bprint conversion libtraceevent fails on";
					if (*f == 's' && ls)
						/* "%ls" prints a wide string: not what the record holds */
						return "a bprint %ls or %hs";
					op.ls = ls;
					op.slot = k++;
					op.lslot = lslot;
					op.off = tl;
					op.plain = lslot < 0 && ls >= 0 && plain_spec(start, n, *f);
					memcpy(t + tl, start, n);
					if (ftk_print_clamp_widths(t + tl, &n))
						bf->clamped = 1;
					op.len = n;
					t[tl + n] = 0;
					tl += n + 1;
					if (add_op(bf, &op, &cap))
						return "out of memory";
					f++;
					ret++;
					goto next;
				default:
					/* ">c<": %c, %+d, %f, ... */
					op.kind = BO_LIT;
					op.off = tl;
					op.len = 3;
					t[tl++] = '>';
					t[tl++] = *f;
					t[tl++] = '<';
					if (add_op(bf, &op, &cap))
						return "out of memory";
					f++;
					ret++;
					goto next;
				}
				ret++;
			}
			/* the format ended inside the conversion: nothing printed */
		} else {
			op = (struct bop){ .kind = BO_LIT, .off = tl, .slot = -1, .lslot = -1 };
			for (ret = 0; *f; f++) {
				if (*f == '\\') {
					f++;
					ret++;
					if (!*f)
						return "a bprint format that ends in a backslash";
					t[tl++] = *f == 'n' ? '\n' : *f == 't' ? '\t' : *f == 'r' ? '\r' : *f;
				} else if (*f == '%') {
					if (f[1] != '%')
						break;
					t[tl++] = '%';
					f++;
					ret++;
				} else {
					t[tl++] = *f;
				}
				ret++;
			}
			op.len = tl - op.off;
			if (op.len && add_op(bf, &op, &cap))
				return "out of memory";
		}
next:
		len -= ret;
		if ((long)len <= 0)
			break;
	}
	return NULL;
}

static struct bfmt *bfmt_compile(const char *s, int long_size)
{
	struct bfmt *bf = calloc(1, sizeof(*bf));
	char *full;

	if (!bf)
		return NULL;
	bf->why = producer(bf, s, long_size);
	if (bf->why)
		return bf;
	full = malloc(strlen(s) + 6);
	if (!full) {
		bf->why = "out of memory";
		return bf;
	}
	memcpy(full, "%ps: ", 5);
	strcpy(full + 5, s);
	bf->why = consumer(bf, full);
	free(full);
	return bf;
}

/* ---------------------------------------------------------------- printing */

#define MAX_BARGS	64

struct barg {
	unsigned long long	val;
	const char		*str;	/* BS_STR: in the record */
};

static void put_u(struct obuf *o, unsigned long long v, char conv)
{
	char num[24], *e = num + sizeof(num), *b = e;

	if (conv == 'x') {
		do {
			*--b = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			*--b = '0' + v % 10;
			v /= 10;
		} while (v);
	}
	ftk_ob_put(o, b, e - b);
}

/* A number through its conversion, as print_arg_number() casts it by ls. */
static void put_bnum(struct obuf *o, const struct bop *op, const char *spec, int plen,
		     unsigned long long v)
{
	long long sv = op->ls == 0 ? (int)v : op->ls == 1 ? (long)v : (long long)v;

	if (op->plain) {
		if (op->conv == 'd' || op->conv == 'i') {
			if (sv < 0) {
				ftk_ob_put(o, "-", 1);
				put_u(o, -(unsigned long long)sv, 'd');
			} else {
				put_u(o, sv, 'd');
			}
		} else {
			put_u(o, op->ls == 0 ? (unsigned int)v : op->ls == 1 ? (unsigned long)v : v,
			      op->conv);
		}
		return;
	}
	if (op->ls <= 0) {
		/* char and short go as int */
		int iv = op->ls == -2 ? (char)v : op->ls == -1 ? (short)v : (int)v;

		if (plen >= 0)
			ftk_ob_printf(o, spec, plen, iv);
		else
			ftk_ob_printf(o, spec, iv);
	} else if (op->ls == 1) {
		if (plen >= 0)
			ftk_ob_printf(o, spec, plen, (long)v);
		else
			ftk_ob_printf(o, spec, (long)v);
	} else {
		if (plen >= 0)
			ftk_ob_printf(o, spec, plen, (long long)v);
		else
			ftk_ob_printf(o, spec, (long long)v);
	}
}

static void put_bstr(struct obuf *o, const struct bop *op, const char *spec, int plen,
		     const char *s)
{
	if (op->plain)
		ftk_ob_put(o, s, strlen(s));
	else if (plen >= 0)
		ftk_ob_printf(o, spec, plen, s);
	else
		ftk_ob_printf(o, spec, s);
}

/*
 * A record the own code refuses for its data (too short, a string past its
 * end, a '*' below 0), of a format with a '*' width or
 * precision: libtraceevent would read that argument from beyond the
 * record, and a width of a billion costs printf a billion steps (the
 * fuzzer's input took minutes). Such a record is printed here, saying
 * why, and not handed to libtraceevent (nor compared with it).
 */
static int bprint_damaged(struct ftk_printer *p, struct obuf *o, size_t start,
			  const struct bfmt *bf, unsigned long long ip, const char *why)
{
	const struct bop *op;

	for (op = bf->ops; op < bf->ops + bf->nops; op++)
		if (op->kind != BO_LIT && op->lslot >= 0)
			break;
	if (op == bf->ops + bf->nops)
		return -1;	/* no '*': libtraceevent prints it */
	o->len = start;		/* what was printed of the record */
	ftk_put_function(p, o, ip, 's');
	ftk_ob_printf(o, ": (damaged record: %s)\n", why);
	p->clamped = 1;
	return 0;
}

/*
 * An ftrace:bprint record (pr->f[0..2]: ip, fmt, buf) into @o, as
 * libtraceevent's pretty_print() prints it: 0, or -1 (pr->why says why)
 * to leave it to libtraceevent.
 */
int ftk_print_bprint(struct ftk_printer *p, struct fprog *pr, const struct tep_record *rec,
		     struct obuf *o)
{
	const unsigned char *d = rec->data;
	struct barg a[MAX_BARGS + 1];
	unsigned long long ip, addr;
	unsigned int off, size = rec->size;
	struct ftk_printk *t;
	const struct bop *op;
	struct pk_ent *e;
	struct bfmt *bf;
	int i, nprod, plen;
	size_t start = o->len;

	if (pr->ev->flags & TEP_EVENT_FL_FAILED) {
		/* an earlier record made libtraceevent give up on bprint */
		pr->why = "libtraceevent failed on an earlier bprint record";
		return -1;
	}
	ip = rdn(p, d + pr->f[0]->offset, pr->f[0]->size);
	addr = rdn(p, d + pr->f[1]->offset, pr->f[1]->size);
	t = table(p, &pr->why);
	if (!t)
		return -1;
	e = find(t, addr);
	if (!e) {
		ftk_put_function(p, o, ip, 's');
		ftk_ob_printf(o, ": (NO FORMAT FOUND at %llx)\n", addr);
		return 0;
	}
	if (e->dup) {
		pr->why = "a bprint format address listed twice with different text";
		return -1;
	}
	if (!e->bf) {
		e->bf = bfmt_compile(e->str, tep_get_long_size(p->tep));
		if (!e->bf) {
			pr->why = "out of memory";
			return -1;
		}
		if (!e->bf->why && e->bf->nslots > MAX_BARGS)
			e->bf->why = "a bprint format of many arguments";
	}
	bf = e->bf;
	if (bf->why) {
		pr->why = bf->why;
		return -1;
	}
	/* the producer: make_bprint_args() */
	a[0].val = ip;
	a[0].str = NULL;
	off = pr->f[2]->offset;
	for (i = 1; i <= bf->nslots; i++) {
		const struct bslot *sl = &bf->slots[i];

		if (sl->first && off >= size)
			break;
		if (sl->kind == BS_STR) {
			const unsigned char *nul = off < size ? memchr(d + off, 0, size - off) : NULL;

			if (!nul) {
				pr->why = "a bprint string running past the record";
				return bprint_damaged(p, o, start, bf, ip, pr->why);
			}
			a[i].str = (const char *)d + off;
			off = nul + 1 - d;
		} else {
			off = (off + 3) & ~3U;
			if (off + sl->size > size) {
				pr->why = "a bprint record shorter than its arguments";
				return bprint_damaged(p, o, start, bf, ip, pr->why);
			}
			a[i].val = rdn(p, d + off, sl->size);
			a[i].str = NULL;
			off += sl->size;
		}
	}
	nprod = i;
	if (bf->maxslot >= nprod) {
		/* a conversion without an argument: libtraceevent marks bprint failed */
		pr->why = "a bprint record with fewer arguments than its format";
		return -1;
	}
	if (!bf->checked && !bf->clamped)
		p->bcheck = &bf->checked;
	/* the consumer: parse_args(), print_event_cache() */
	for (op = bf->ops; op < bf->ops + bf->nops; op++) {
		const char *spec = bf->text + op->off;
		const struct barg *x;
		char num[24];

		if (op->kind == BO_LIT) {
			ftk_ob_put(o, spec, op->len);
			continue;
		}
		x = &a[op->slot];
		plen = -1;
		if (op->lslot >= 0) {
			plen = a[op->lslot].str ? 0 : (int)a[op->lslot].val;
			if (plen < 0) {
				/* printf would take the value as the width */
				pr->why = "a bprint '*' argument below 0";
				return bprint_damaged(p, o, start, bf, ip, pr->why);
			}
			/*
			 * The kernel prints 1 KB a trace_printk(): a width or a
			 * number's precision of a billion is a damaged record's,
			 * and would cost printf a billion steps. A string's
			 * precision only limits it.
			 */
			if (plen > FTK_PRINT_WIDTH_MAX &&
			    !(op->kind == BO_STR && memmem(spec, op->len, ".*", 2))) {
				plen = FTK_PRINT_WIDTH_MAX;
				p->clamped = 1;	/* not compared with libtraceevent */
			}
		}
		switch (op->kind) {
		case BO_NUM:
			put_bnum(o, op, spec, plen, x->str ? 0 : x->val);
			break;
		case BO_STR:
			if (x->str) {
				put_bstr(o, op, spec, plen, x->str);
			} else {
				snprintf(num, sizeof(num), "%lld", (long long)x->val);
				put_bstr(o, op, spec, plen, num);
			}
			break;
		case BO_PTR:
			if (x->str)
				ftk_ob_put(o, x->str, strlen(x->str));
			else if (op->pconv)
				ftk_put_function(p, o, x->val, op->pconv);
			else if (!x->val)
				ftk_ob_put(o, "(nil)", 5);
			else
				ftk_ob_printf(o, "0x%llx", x->val);
			break;
		}
	}
	return 0;
}

/*
 * %s of a pointer-sized field (ftrace:bputs' str, tracepoint strings):
 * as print_str_arg() prints it, the text registered at that address, as
 * it is, or the address in hex. The address is read in the host's byte
 * order, as libtraceevent reads it. 0, or -1 with *@why.
 */
int ftk_print_pstr(struct ftk_printer *p, struct obuf *o, const void *field, const char **why)
{
	struct ftk_printk *t = table(p, why);
	unsigned long long addr;
	struct pk_ent *e;
	uint32_t a4;

	if (!t)
		return -1;
	if (tep_get_long_size(p->tep) == 8) {
		memcpy(&addr, field, 8);
	} else {
		memcpy(&a4, field, 4);
		addr = a4;
	}
	e = find(t, addr);
	if (e && e->dup) {
		*why = "a printk string address listed twice with different text";
		return -1;
	}
	if (e)
		ftk_ob_put(o, e->str, strlen(e->str));
	else
		ftk_ob_printf(o, "%llx", addr);
	return 0;
}
