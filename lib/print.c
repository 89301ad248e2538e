// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print: output formats for records.
 *
 * The text format is trace-cmd report's. The event's own part (its print
 * format, plugins included) comes from libtraceevent's tep_print_event();
 * the line head (comm, pid, cpu, stamp, event name) is formatted here, to
 * the same bytes as libtraceevent's TEP_PRINT_COMM/PID/CPU/TIME give with
 * the formats trace-cmd passes ("%16s-%-5d [%03d]", " %6.1000d:"), because
 * four tep_print_event() calls a record cost more than the rest of the
 * work. t0130-print checks both against each other.
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
#include <ftkit/merge.h>
#include <ftkit/print.h>

struct pbuf {
	char	*name;
	int	in_ns;
};

/* A growing output buffer for the fast path. */
struct obuf {
	char	*b;
	size_t	len, cap;
};

struct ftk_printer {
	FILE			*out;
	struct tep_handle	*tep;
	enum ftk_print_format	format;
	unsigned int		flags;
	struct pbuf		*bufs;
	int			nr_bufs;
	int			name_width;	/* widest instance name, for the prefix */
	int			prefix;		/* print the buffer name prefix */
	int			nrec;
	int			err;
	struct trace_seq	s;
	struct fprog		**progs;	/* per event id, built on first use */
	int			nr_progs;
	int			no_fast;	/* FTK_PRINT_SLOW in the environment */
	int			swap;		/* file endianness differs from ours */
	unsigned int		comm_gen;	/* bumped whenever comms may change */
	struct comm_slot	*comms;		/* pid -> comm cache */
	struct obuf		ob;		/* text lines not written yet */
	int			type_off, type_size;	/* common_type, common_pid: */
	int			pid_off, pid_size;	/* read without a field lookup */
	struct ftk_merge	*merge;		/* for function_graph leaves */
	unsigned char		*comm_known;	/* pids libtraceevent has a comm for */
	int			comm_array;	/* libtraceevent's comm list became its array */
	unsigned char		*chrome_seen;	/* chrome: pids named in metadata */
	int			*chrome_pids;
	int			chrome_npids, chrome_apids;
};

#define COMM_SLOTS	4096

struct comm_slot {
	unsigned int	gen;
	int		pid;
	unsigned short	len;
	char		comm[30];
};

static int out_flush(struct ftk_printer *p);
static void put_json_str(FILE *f, const char *s, size_t n);


/**
 * ftk_print_format_parse() - output format from its name
 * @name: "text", "json", "csv" or "chrome"
 *
 * Return: the enum ftk_print_format value, or -EINVAL.
 */
FTK_API int ftk_print_format_parse(const char *name)
{
	if (!strcmp(name, "text"))
		return FTK_PRINT_TEXT;
	if (!strcmp(name, "json"))
		return FTK_PRINT_JSON;
	if (!strcmp(name, "csv"))
		return FTK_PRINT_CSV;
	if (!strcmp(name, "chrome"))
		return FTK_PRINT_CHROME;
	return ftk_err(-EINVAL);
}

/**
 * ftk_printer_new() - a printer
 * @out: where to write; stays the caller's
 * @tep: the event formats (ftk_tracefile_tep()); stays the caller's
 * @format: enum ftk_print_format
 * @flags: FTK_PRINT_NSEC for full stamps, FTK_PRINT_RAW for raw fields
 *
 * FTK_PRINT_NSEC sets TEP_NSEC_OUTPUT on @tep, as trace-cmd report -t does.
 *
 * Return: the printer, to free with ftk_printer_free(), or NULL with errno set.
 */
FTK_API struct ftk_printer *ftk_printer_new(FILE *out, struct tep_handle *tep,
					    enum ftk_print_format format, unsigned int flags)
{
	struct ftk_printer *p;

	if (!out || !tep || format > FTK_PRINT_CHROME)
		return ftk_err_ptr(-EINVAL);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->out = out;
	p->tep = tep;
	p->format = format;
	p->flags = flags;
	trace_seq_init(&p->s);
	p->no_fast = getenv("FTK_PRINT_SLOW") != NULL;
	p->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	p->comm_gen = 1;
	if (flags & FTK_PRINT_NSEC)
		tep_set_flag(tep, TEP_NSEC_OUTPUT);
	return p;
}

/**
 * ftk_printer_free() - release a printer
 * @p: the printer, or NULL
 */
FTK_API void ftk_printer_free(struct ftk_printer *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_bufs; i++)
		free(p->bufs[i].name);
	for (i = 0; i < p->nr_progs; i++)
		free(p->progs[i]);
	free(p->progs);
	free(p->comms);
	free(p->comm_known);
	free(p->chrome_seen);
	free(p->chrome_pids);
	free(p->ob.b);
	free(p->bufs);
	trace_seq_destroy(&p->s);
	free(p);
}

/**
 * ftk_printer_add_buffer() - declare the next buffer
 * @p: the printer
 * @name: its name, "" for the top buffer
 * @in_ns: 1 if its clock counts nanoseconds, 0 for counter and x86-tsc
 *
 * As trace-cmd report does, text lines get a "NAME: " prefix when the
 * file has instances besides the top buffer.
 *
 * Return: the buffer's index, or -ENOMEM.
 */
FTK_API int ftk_printer_add_buffer(struct ftk_printer *p, const char *name, int in_ns)
{
	struct pbuf *b = realloc(p->bufs, (p->nr_bufs + 1) * sizeof(*b));
	int len;

	if (!b)
		return ftk_err(-ENOMEM);
	p->bufs = b;
	b[p->nr_bufs].name = strdup(name ? name : "");
	b[p->nr_bufs].in_ns = in_ns;
	if (!b[p->nr_bufs].name)
		return ftk_err(-ENOMEM);
	len = strlen(b[p->nr_bufs].name);
	if (len) {
		p->prefix = 1;
		if (len > p->name_width)
			p->name_width = len;
	}
	return p->nr_bufs++;
}

/**
 * ftk_printer_begin() - start the output
 * @p: the printer
 * @cpus: CPU count of the trace
 *
 * Return: 0.
 */
FTK_API int ftk_printer_begin(struct ftk_printer *p, int cpus)
{
	switch (p->format) {
	case FTK_PRINT_TEXT:
		fprintf(p->out, "cpus=%d\n", cpus);
		break;
	case FTK_PRINT_CSV:
		fputs("ts,cpu,pid,comm,buffer,event,info\n", p->out);
		break;
	case FTK_PRINT_CHROME:
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", p->out);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * ftk_printer_end() - finish the output
 * @p: the printer
 *
 * Return: 0, or -EIO if a write failed.
 */
FTK_API int ftk_printer_end(struct ftk_printer *p)
{
	if (out_flush(p) < 0)
		return ftk_err(-EIO);
	if (p->format == FTK_PRINT_CHROME) {
		int i;

		/* Name each thread's track, as Perfetto and chrome://tracing show them. */
		for (i = 0; i < p->chrome_npids; i++) {
			const char *comm = tep_data_comm_from_pid(p->tep, p->chrome_pids[i]);

			fprintf(p->out, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
				p->nrec || i ? ",\n" : "", p->chrome_pids[i], p->chrome_pids[i]);
			put_json_str(p->out, comm, strlen(comm));
			fputs("}}", p->out);
		}
		fputs("\n]}\n", p->out);
	}
	if (fflush(p->out) || ferror(p->out))
		return ftk_err(-EIO);
	return 0;
}

/* ---------------------------------------------------------------- line building */

static char *utoa(char *end, unsigned long long v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

/* Right-align @n chars in @width, writing at @o; returns the new end. */
/* Copy a few bytes without a call: most pieces of a line are short. */
static inline __attribute__((always_inline)) void small_copy(char *d, const char *s, size_t n)
{
	if (n > 32) {
		memcpy(d, s, n);
		return;
	}
	while (n--)
		*d++ = *s++;
}

static char *pad_left(char *o, const char *s, int n, int width)
{
	while (width-- > n)
		*o++ = ' ';
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
		for (i = e - b; i < prec; i++)
			*o++ = '0';
		memcpy(o, b, e - b);
		return o + (e - b);
	}
}


/* ---------------------------------------------------------------- fast event text */

/*
 * Printing an event's own text through tep_print_event() costs about
 * three quarters of the time of a report. For the events whose print
 * format is plain (literal text and %d %u %x %s of fields, no helpers)
 * and for the sched_switch and sched_wakeup plugins, the text is
 * formatted here instead, with the same reads and casts libtraceevent
 * makes (fields read unsigned at their size, then cast to int, long or
 * long long by the length modifier). The first CHECK_FIRST records of
 * every event are also printed by libtraceevent and compared: an event
 * whose output differs goes back to libtraceevent for good, so a newer
 * libtraceevent or plugin cannot make the text wrong.
 */
#define CHECK_FIRST	32
#define MAX_OPS		32

enum fop_kind { FOP_LIT, FOP_NUM, FOP_STR, FOP_DSTR };

struct fop {
	enum fop_kind	kind;
	int		ls;		/* number of 'l's */
	int		plain;		/* bare %d/%u/%s: no flags, width or precision */
	int		zpad;		/* "%0Nx"-style: zero-padded to width, done here */
	int		width;
	char		conv;
	char		fmt[24];
	const char	*lit;
	unsigned int	litlen;
	unsigned int	off, size;
	int		rel;		/* FOP_DSTR: __rel_loc, offset from the field's end */
};

enum { PROG_SLOW, PROG_GENERIC, PROG_SWITCH, PROG_WAKEUP, PROG_UNSAFE };

struct fprog {
	struct tep_event	*ev;
	unsigned int		min_size;	/* fixed fields end here */
	int			kind;
	int			checked;
	int			nops;
	struct fop		ops[MAX_OPS];
	/* plugin layouts */
	struct tep_format_field	*f[8];
};

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

static int compile_generic(struct fprog *pr, struct tep_event *ev)
{
	const char *fmt = ev->print_fmt.format, *q;
	struct tep_print_arg *arg = ev->print_fmt.args;
	struct tep_format_field *f;
	struct fop *op;
	size_t n;

	if (!fmt || strchr(fmt, '\\'))
		return -1;
	while (*fmt) {
		if (pr->nops >= MAX_OPS)
			return -1;
		op = &pr->ops[pr->nops];
		if (*fmt != '%') {
			q = strchr(fmt, '%');
			n = q ? (size_t)(q - fmt) : strlen(fmt);
			*op = (struct fop){ .kind = FOP_LIT, .lit = fmt, .litlen = n };
			pr->nops++;
			fmt += n;
			continue;
		}
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
		*op = (struct fop){ 0 };
		while (*q == 'l') {
			op->ls++;
			q++;
		}
		if (op->ls > 2 || !*q || !strchr("diuxXs", *q))
			return -1;
		op->conv = *q;
		n = q - fmt + 1;
		if (n >= sizeof(op->fmt))
			return -1;
		memcpy(op->fmt, fmt, n);
		op->fmt[n] = 0;
		op->plain = (n == 2 + (size_t)op->ls);
		if (fmt[1] == '0' && fmt[2] >= '1' && fmt[2] <= '9') {
			const char *w = fmt + 2;

			while (*w >= '0' && *w <= '9')
				w++;
			if (w == q - op->ls && strchr("ux", *q)) {
				op->zpad = 1;
				op->width = atoi(fmt + 2);
			}
		} else if (op->plain && *q == 'x') {
			op->zpad = 1;
			op->width = 0;
		}
		fmt = q + 1;
		if (!arg)
			return -1;
		{
			struct tep_print_arg *fa = arg;

			/*
			 * A cast that leaves a 64-bit value as it is, as the
			 * syscall events have: ((unsigned long)(REC->fd)).
			 */
			if (fa->type == TEP_PRINT_TYPE) {
				const char *t = fa->typecast.type;

				if (!t || tep_get_long_size(ev->tep) != 8 ||
				    (strcmp(t, "unsigned long") && strcmp(t, "long") &&
				     strcmp(t, "u64") && strcmp(t, "s64")))
					return -1;
				fa = fa->typecast.item;
				if (!fa || fa->type != TEP_PRINT_FIELD)
					return -1;
				f = fa->field.field ? fa->field.field :
				    tep_find_any_field(ev, fa->field.name);
				if (!f || f->size != 8)
					return -1;
			} else if (fa->type == TEP_PRINT_FIELD) {
				f = fa->field.field ? fa->field.field :
				    tep_find_any_field(ev, fa->field.name);
			} else if (fa->type == TEP_PRINT_STRING && op->conv == 's') {
				/* __get_str(): a __data_loc string */
				f = fa->string.field ? fa->string.field :
				    tep_find_any_field(ev, fa->string.string);
				arg = arg->next;
				if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
					return -1;
				op->kind = FOP_DSTR;
				op->off = f->offset;
				op->size = f->size;
				op->rel = !!(f->flags & TEP_FIELD_IS_RELATIVE);
				pr->nops++;
				continue;
			} else {
				return -1;
			}
		}
		arg = arg->next;
		if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC))
			return -1;
		op->off = f->offset;
		op->size = f->size;
		if (op->conv == 's') {
			if (!(f->flags & TEP_FIELD_IS_ARRAY) || f->size <= 0 || f->size > 1024 ||
			    !strstr(f->type, "char"))
				return -1;
			op->kind = FOP_STR;
		} else {
			if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING))
				return -1;
			if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
				return -1;
			op->kind = FOP_NUM;
		}
		pr->nops++;
	}
	return arg ? -1 : 0;
}

static unsigned long long rdn(struct ftk_printer *p, const void *ptr, int size);

/*
 * Whether every field of @ev lies inside @rec. libtraceevent trusts the
 * format: a record shorter than its fields, or a dynamic array pointing
 * past the record, makes it read out of bounds (found by fuzzing).
 */
static int record_ok(struct ftk_printer *p, struct tep_event *ev, const struct tep_record *rec)
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

static struct fprog *compile(struct ftk_printer *p, struct tep_event *ev)
{
	struct fprog *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return NULL;
	pr->ev = ev;
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
		return pr;
	}
	if (p->no_fast || (p->flags & FTK_PRINT_RAW) || ev->flags)
		return pr;
	if (ev->handler) {
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
		return pr;
	}
	if (compile_generic(pr, ev) == 0)
		pr->kind = PROG_GENERIC;
	else
		pr->nops = 0;
	return pr;
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
static void ob_num0(struct obuf *o, unsigned long long v, int width, int base)
{
	static const char digits[] = "0123456789abcdef";
	char num[80], *e = num + sizeof(num), *b = e;

	do {
		*--b = digits[v % base];
		v /= base;
	} while (v);
	while (e - b < width && b > num)
		*--b = '0';
	ob_put(o, b, e - b);
}

static void ob_lld(struct obuf *o, long long v)
{
	char num[24], *e = num + sizeof(num), *b;
	unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;

	b = utoa(e, u);
	if (v < 0)
		*--b = '-';
	ob_put(o, b, e - b);
}

static void ob_printf(struct obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ob_printf(struct obuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || ob_need(o, n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(o->b + o->len, n + 1, fmt, ap);
	va_end(ap);
	o->len += n;
}

static unsigned long long rdn(struct ftk_printer *p, const void *ptr, int size)
{
	if (p->swap)
		return tep_read_number(p->tep, ptr, size);
	switch (size) {
	case 1: return *(const uint8_t *)ptr;
	case 2: { uint16_t v; memcpy(&v, ptr, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, ptr, 4); return v; }
	case 8: { uint64_t v; memcpy(&v, ptr, 8); return v; }
	}
	return tep_read_number(p->tep, ptr, size);
}

static unsigned long long rd(struct ftk_printer *p, const struct tep_record *rec,
			     const struct tep_format_field *f)
{
	return rdn(p, (const char *)rec->data + f->offset, f->size);
}

/* @v in decimal, zero-padded to @width (the "%03llu" the plugins use). */
static void ob_u0(struct obuf *o, unsigned long long v, int width)
{
	char num[24], *e = num + sizeof(num), *b = utoa(e, v);

	while (e - b < width)
		*--b = '0';
	ob_put(o, b, e - b);
}

/*
 * The plugin's write_and_save_comm(): print the comm and register it for
 * @pid, on every call as the plugin does. How often matters: until the
 * first look-up of a pid, libtraceevent keeps comms in a list that takes
 * duplicates, and which duplicate wins after its sort depends on them
 * all. In checking mode (@reg 0) libtraceevent's own call registers.
 */
static void put_comm(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
		     const struct tep_format_field *f, int pid, int reg)
{
	const char *c = (const char *)rec->data + f->offset;
	size_t n = strnlen(c, f->size);
	char comm[72];

	ob_put(o, c, n);
	if (!reg)
		return;
	/*
	 * Once libtraceevent sorted its comms into an array, registering a
	 * pid it has is a no-op: skip the search for pids known to be there.
	 */
	if (p->comm_array && p->comm_known && pid > 0 && pid < (1 << 22) &&
	    (p->comm_known[pid >> 3] & (1 << (pid & 7))))
		return;
	memcpy(comm, c, n);
	comm[n] = 0;
	tep_register_comm(p->tep, comm, pid);
	if (p->comm_array && p->comm_known && pid > 0 && pid < (1 << 22))
		p->comm_known[pid >> 3] |= 1 << (pid & 7);
	/* only this pid's comm can have changed */
	if (p->comms && p->comms[(unsigned int)pid % COMM_SLOTS].pid == pid)
		p->comms[(unsigned int)pid % COMM_SLOTS].gen = 0;
}

static int run_prog(struct ftk_printer *p, const struct fprog *pr, const struct tep_record *rec,
		    struct obuf *o, int reg)
{
	unsigned long long v;
	int i, pid;

	switch (pr->kind) {
	case PROG_SWITCH:
		pid = (int)rd(p, rec, pr->f[0]);
		v = rd(p, rec, pr->f[3]);
		if (v > 3)
			return -1;	/* state letters differ between plugin versions */
		put_comm(p, o, rec, pr->f[1], pid, reg);
		ob_put(o, ":", 1);
		ob_lld(o, (long long)rd(p, rec, pr->f[0]));
		ob_put(o, " [", 2);
		ob_lld(o, (int)rd(p, rec, pr->f[2]));
		ob_put(o, "] ", 2);
		ob_put(o, v == 0 ? "R" : v == 1 ? "S" : v == 2 ? "D" : "S|D", v == 3 ? 3 : 1);
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
					ob_printf(o, op->fmt, str);
			} else if (op->kind == FOP_STR) {
				char buf[1025];

				memcpy(buf, (const char *)rec->data + op->off, op->size);
				buf[op->size] = 0;
				if (op->plain)
					ob_put(o, buf, strlen(buf));
				else
					ob_printf(o, op->fmt, buf);
			} else {
				v = rdn(p, (const char *)rec->data + op->off, op->size);
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
					ob_printf(o, op->fmt, (int)v);
				else if (op->ls == 1)
					ob_printf(o, op->fmt, (long)v);
				else
					ob_printf(o, op->fmt, (long long)v);
			}
		}
		return 0;
	}
	return -1;
}

/* The compiled program of @ev, built on first use; NULL if out of memory. */
static struct fprog *prog_of(struct ftk_printer *p, struct tep_event *ev)
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
		p->progs[ev->id] = compile(p, ev);
	return p->progs[ev->id];
}

/*
 * The event's own text into p->s, through libtraceevent (@what is
 * TEP_PRINT_INFO or TEP_PRINT_INFO_RAW). A record goes to libtraceevent
 * only when record_ok() found every field inside it, and an event only
 * when its print fmt cannot trap (args_safe()): libtraceevent trusts
 * both, and the library catches no signals.
 */
static void info_text(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
		      const char *what)
{
	struct fprog *pr = ev ? prog_of(p, ev) : NULL;

	trace_seq_reset(&p->s);
	if (ev && !record_ok(p, ev, rec)) {
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
	struct fprog *pr = ev ? prog_of(p, ev) : NULL;
	size_t start = o->len;

	if (pr && pr->kind != PROG_SLOW && pr->kind != PROG_UNSAFE &&
	    (unsigned int)rec->size >= pr->min_size) {
		if (run_prog(p, pr, rec, o, pr->checked >= CHECK_FIRST) == 0) {
			if (pr->checked >= CHECK_FIRST || !record_ok(p, ev, rec))
				return;
			pr->checked++;
			info_text(p, rec, ev, TEP_PRINT_INFO);
			if (p->s.len == o->len - start && !memcmp(p->s.buffer, o->b + start, p->s.len))
				return;
			pr_debug("print: %s:%s: own text differs from libtraceevent's, using libtraceevent\n",
				 ev->system, ev->name);
			pr->kind = PROG_SLOW;
			o->len = start;
			ob_put(o, p->s.buffer, p->s.len);
			return;
		}
		o->len = start;
	}
	info_text(p, rec, ev, (p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	ob_put(o, p->s.buffer, p->s.len);
}

/*
 * tep_data_comm_from_pid() is a binary search; lines of one task come in
 * runs, so keep what it said, until a comm may have been registered.
 */
static const char *lookup_comm(struct ftk_printer *p, int pid, size_t *len)
{
	struct comm_slot *c;
	const char *comm;

	if (!p->comms)
		p->comms = calloc(COMM_SLOTS, sizeof(*p->comms));
	if (!p->comms) {
		comm = tep_data_comm_from_pid(p->tep, pid);
		*len = strlen(comm);
		return comm;
	}
	c = &p->comms[(unsigned int)pid % COMM_SLOTS];
	if (c->gen == p->comm_gen && c->pid == pid) {
		*len = c->len;
		return c->comm;
	}
	comm = tep_data_comm_from_pid(p->tep, pid);
	*len = strlen(comm);
	if (pid != 0) {
		/* the first look-up of a pid sorts libtraceevent's comm list into an array */
		p->comm_array = 1;
		if (!p->comm_known)
			p->comm_known = calloc(1, (1 << 22) / 8);
		if (p->comm_known && pid > 0 && pid < (1 << 22) && strcmp(comm, "<...>"))
			p->comm_known[pid >> 3] |= 1 << (pid & 7);
	}
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

/* Write the text buffered in p->ob; 0 or -EIO. */
static int out_flush(struct ftk_printer *p)
{
	size_t done = 0;
	ssize_t r;

	int fd = fileno(p->out);

	if (!p->ob.len)
		return 0;
	if (fd < 0) {	/* a memory stream */
		r = fwrite(p->ob.b, 1, p->ob.len, p->out);
		p->ob.len = 0;
		return ferror(p->out) ? -EIO : 0;
	}
	if (fflush(p->out))
		return -EIO;
	while (done < p->ob.len) {
		r = write(fd, p->ob.b + done, p->ob.len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		done += r;
	}
	p->ob.len = 0;
	return 0;
}

static int print_text(struct ftk_printer *p, const struct tep_record *crec, int buf,
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
	if (ob_need(&p->ob, nlen + clen + p->name_width + 256))
		return -ENOMEM;
	o = p->ob.b + p->ob.len;
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
		memcpy(o, b, e - b);
		o += e - b;
		for (n = e - b; n < 5; n++)
			*o++ = ' ';
	}
	if (rec->cpu >= 0 && rec->cpu < 1000000) {
		b = utoa(e, rec->cpu);
		*o++ = ' ';
		*o++ = '[';
		for (n = e - b; n < 3; n++)
			*o++ = '0';
		memcpy(o, b, e - b);
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
	for (n = nlen; n < 20; n++)
		*o++ = ' ';
	p->ob.len = o - p->ob.b;
	n = p->ob.len;
	event_text(p, rec, ev, &p->ob);
	if ((int)p->ob.len > n && p->ob.b[p->ob.len - 1] == '\n')
		p->ob.len--;
	ob_put(&p->ob, "\n", 1);
	if (p->ob.len >= OUT_FLUSH)
		return out_flush(p);
	return 0;
}

/* ---------------------------------------------------------------- JSON, CSV, chrome */

static void put_json_str(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_fields(struct ftk_printer *p, struct tep_event *ev, struct tep_record *rec)
{
	struct tep_format_field *f;
	unsigned long long v;
	int first = 1, len;
	const char *str;

	fputc('{', p->out);
	for (f = ev ? ev->format.fields : NULL; f; f = f->next) {
		if ((unsigned int)f->offset + f->size > (unsigned int)rec->size)
			continue;
		if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) {
			if (!(f->flags & TEP_FIELD_IS_STRING) && !strstr(f->type, "char"))
				continue;
			str = tep_get_field_raw(&p->s, ev, f->name, rec, &len, 0);
			if (!str)
				continue;
			if (str < (const char *)rec->data ||
			    str + len > (const char *)rec->data + rec->size)
				continue;
			fprintf(p->out, "%s\"%s\":", first ? "" : ",", f->name);
			put_json_str(p->out, str, len);
			first = 0;
			continue;
		}
		if (f->flags & TEP_FIELD_IS_ARRAY) {
			int el = f->elementsize, n, i;

			/* arrays of numbers (kernel_stack's caller[]) as JSON arrays */
			if (el != 1 && el != 2 && el != 4 && el != 8)
				continue;
			n = f->size / el;
			fprintf(p->out, "%s\"%s\":[", first ? "" : ",", f->name);
			for (i = 0; i < n; i++)
				fprintf(p->out, "%s%llu", i ? "," : "",
					tep_read_number(p->tep, (char *)rec->data + f->offset + i * el, el));
			fputc(']', p->out);
			first = 0;
			continue;
		}
		if (tep_read_number_field(f, rec->data, &v))
			continue;
		fprintf(p->out, "%s\"%s\":", first ? "" : ",", f->name);
		if (f->flags & TEP_FIELD_IS_SIGNED) {
			long long sv = f->size == 1 ? (long long)(int8_t)v :
				       f->size == 2 ? (long long)(int16_t)v :
				       f->size == 4 ? (long long)(int32_t)v : (long long)v;
			fprintf(p->out, "%lld", sv);
		} else {
			fprintf(p->out, "%llu", v);
		}
		first = 0;
	}
	fputc('}', p->out);
}

static void put_csv(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i] == '\n' ? ' ' : s[i], f);
	}
	fputc('"', f);
}

static int print_other(struct ftk_printer *p, const struct tep_record *crec, int buf,
		       struct tep_event *ev)
{
	struct tep_record *rec = (struct tep_record *)crec;
	const struct pbuf *pb = buf >= 0 && buf < p->nr_bufs ? &p->bufs[buf] : NULL;
	const char *bname = pb ? pb->name : "";
	int pid = tep_data_pid(p->tep, rec);
	const char *comm = tep_data_comm_from_pid(p->tep, pid);
	const char *sys = ev ? ev->system : "unknown", *name = ev ? ev->name : "unknown";
	size_t info;

	info_text(p, rec, ev, (p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	info = p->s.len;
	while (info && p->s.buffer[info - 1] == '\n')
		info--;
	switch (p->format) {
	case FTK_PRINT_JSON:
		fprintf(p->out, "{\"ts\":%llu,\"cpu\":%d,\"pid\":%d,\"comm\":", rec->ts, rec->cpu,
			pid);
		put_json_str(p->out, comm, strlen(comm));
		if (*bname) {
			fputs(",\"buffer\":", p->out);
			put_json_str(p->out, bname, strlen(bname));
		}
		fprintf(p->out, ",\"system\":\"%s\",\"event\":\"%s\"", sys, name);
		if (rec->missed_events)
			fprintf(p->out, ",\"missed\":%lld", rec->missed_events);
		fputs(",\"fields\":", p->out);
		if (ev && record_ok(p, ev, rec))
			put_fields(p, ev, rec);
		else
			fputs("{}", p->out);
		fputs(",\"info\":", p->out);
		put_json_str(p->out, p->s.buffer, info);
		fputs("}\n", p->out);
		break;
	case FTK_PRINT_CSV:
		fprintf(p->out, "%llu,%d,%d,", rec->ts, rec->cpu, pid);
		put_csv(p->out, comm, strlen(comm));
		fputc(',', p->out);
		put_csv(p->out, bname, strlen(bname));
		fprintf(p->out, ",%s:%s,", sys, name);
		put_csv(p->out, p->s.buffer, info);
		fputc('\n', p->out);
		break;
	case FTK_PRINT_CHROME:
		if (pid >= 0 && pid < (1 << 22)) {
			if (!p->chrome_seen)
				p->chrome_seen = calloc(1, (1 << 22) / 8);
			if (p->chrome_seen && !(p->chrome_seen[pid >> 3] & (1 << (pid & 7)))) {
				if (p->chrome_npids == p->chrome_apids) {
					int n = p->chrome_apids ? 2 * p->chrome_apids : 256;
					int *np = realloc(p->chrome_pids, n * sizeof(*np));

					if (np) {
						p->chrome_pids = np;
						p->chrome_apids = n;
					}
				}
				if (p->chrome_npids < p->chrome_apids) {
					p->chrome_pids[p->chrome_npids++] = pid;
					p->chrome_seen[pid >> 3] |= 1 << (pid & 7);
				}
			}
		}
		/*
		 * Instant events on the thread's track; function_graph entries
		 * and returns open and close slices. Chrome wants microseconds.
		 */
		{
			const char *ph = "\"ph\":\"i\",\"s\":\"t\"";
			unsigned long long func;
			char fname[64];
			const char *label = name;

			if (ev && !strcmp(sys, "ftrace") && record_ok(p, ev, rec) &&
			    (!strcmp(name, "funcgraph_entry") || !strcmp(name, "funcgraph_exit")) &&
			    !tep_get_field_val(NULL, ev, "func", rec, &func, 0)) {
				label = tep_find_function(p->tep, func);
				if (!label) {
					snprintf(fname, sizeof(fname), "0x%llx", func);
					label = fname;
				}
				ph = name[10] == 'e' && name[11] == 'n' ? "\"ph\":\"B\"" : "\"ph\":\"E\"";
			}
			fprintf(p->out, "%s{\"name\":", p->nrec ? ",\n" : "");
			put_json_str(p->out, label, strlen(label));
			fprintf(p->out, ",\"cat\":\"%s\",%s,\"ts\":", sys, ph);
		}
		if (!pb || pb->in_ns)
			fprintf(p->out, "%llu.%03llu", rec->ts / 1000, rec->ts % 1000);
		else
			fprintf(p->out, "%llu", rec->ts);
		fprintf(p->out, ",\"pid\":%d,\"tid\":%d,\"args\":{\"cpu\":%d,\"comm\":", pid, pid,
			rec->cpu);
		put_json_str(p->out, comm, strlen(comm));
		fputs(",\"info\":", p->out);
		put_json_str(p->out, p->s.buffer, info);
		fputs("}}", p->out);
		break;
	default:
		break;
	}
	return ferror(p->out) ? -EIO : 0;
}


/* ---------------------------------------------------------------- trace-cmd's ftrace handlers */

/*
 * trace-cmd report prints the function_graph and kernel_stack events with
 * handlers of its own (libtracecmd), not with libtraceevent's print
 * formats (the function event goes to libtraceevent's function plugin). These do the same, written here from the
 * output they must give. A function_graph entry whose next record (of
 * all CPUs) is its own return on the same task prints as a leaf
 * "func();" with the duration, and that return is consumed.
 */
#define GRAPH_INDENT	2

static int field_val(struct trace_seq *s, struct tep_event *ev, const char *name,
		     struct tep_record *rec, unsigned long long *v)
{
	return tep_get_field_val(s, ev, name, rec, v, 1);
}

static void put_func(struct trace_seq *s, struct tep_handle *tep, unsigned long long addr,
		     const char *fmt_name, const char *fmt_addr)
{
	const char *func = tep_find_function(tep, addr);

	if (func)
		trace_seq_printf(s, fmt_name, func);
	else
		trace_seq_printf(s, fmt_addr, addr);
}

static void graph_overhead(struct trace_seq *s, unsigned long long d)
{
	if (d == ~0ULL)
		trace_seq_puts(s, "  ");
	else if (d > 1000000000ULL)
		trace_seq_puts(s, "$ ");
	else if (d > 1000000ULL)
		trace_seq_puts(s, "# ");
	else if (d > 100000ULL)
		trace_seq_puts(s, "! ");
	else if (d > 10000ULL)
		trace_seq_puts(s, "+ ");
	else
		trace_seq_puts(s, "  ");
}

static void graph_duration(struct trace_seq *s, unsigned long long d)
{
	char num[48];
	int n, i;

	n = snprintf(num, sizeof(num), "%lu", (unsigned long)(d / 1000));
	if (n < 7)
		n += snprintf(num + n, sizeof(num) - n, ".%03lu", (unsigned long)(d % 1000) % 1000);
	trace_seq_puts(s, num);
	trace_seq_puts(s, " us ");
	for (i = n; i < 7; i++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

static void graph_indent(struct trace_seq *s, unsigned long long depth)
{
	int i, n = (int)(depth * GRAPH_INDENT);

	/* A damaged depth must not print gigabytes of blanks (found by fuzzing). */
	if (n > 4096)
		n = 4096;
	for (i = 0; i < n; i++)
		trace_seq_putc(s, ' ');
}

static int tc_graph_exit(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			 void *ctx)
{
	unsigned long long rettime, calltime, depth;

	if (field_val(s, ev, "rettime", rec, &rettime) ||
	    field_val(s, ev, "calltime", rec, &calltime))
		return trace_seq_putc(s, '!');
	graph_overhead(s, rettime - calltime);
	graph_duration(s, rettime - calltime);
	if (field_val(s, ev, "depth", rec, &depth))
		return trace_seq_putc(s, '!');
	graph_indent(s, depth);
	trace_seq_putc(s, '}');
	return 0;
}

static int tc_graph_entry(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			  void *ctx)
{
	struct ftk_printer *p = ctx;
	struct tep_event *ret_ev = tep_find_event_by_name(ev->tep, "ftrace", "funcgraph_exit");
	const struct tep_record *next = NULL;
	unsigned long long func, depth, v, rettime, calltime;
	int pid = tep_data_pid(ev->tep, rec);

	if (field_val(s, ev, "func", rec, &func))
		return trace_seq_putc(s, '!');
	if (p->merge && ret_ev)
		next = ftk_merge_peek(p->merge, NULL);
	if (next && next->size >= 8 && tep_data_type(ev->tep, (struct tep_record *)next) == ret_ev->id &&
	    tep_data_pid(ev->tep, (struct tep_record *)next) == pid &&
	    !tep_get_field_val(s, ret_ev, "func", (struct tep_record *)next, &v, 1) && v == func) {
		/* a leaf: print it with its duration, and take its return */
		if (field_val(s, ret_ev, "rettime", (struct tep_record *)next, &rettime) ||
		    field_val(s, ret_ev, "calltime", (struct tep_record *)next, &calltime)) {
			ftk_merge_consume(p->merge);
			return trace_seq_putc(s, '!');
		}
		ftk_merge_consume(p->merge);
		graph_overhead(s, rettime - calltime);
		graph_duration(s, rettime - calltime);
		if (field_val(s, ev, "depth", rec, &depth))
			return trace_seq_putc(s, '!');
		graph_indent(s, depth);
		put_func(s, ev->tep, func, "%s();", "%llx();");
		return 0;
	}
	graph_overhead(s, ~0ULL);
	trace_seq_puts(s, "           |  ");
	if (field_val(s, ev, "depth", rec, &depth))
		return trace_seq_putc(s, '!');
	graph_indent(s, depth);
	put_func(s, ev->tep, func, "%s() {", "%llx() {");
	return 0;
}

static int tc_kernel_stack(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			   void *ctx)
{
	struct tep_format_field *f = tep_find_any_field(ev, "caller");
	int lsize = tep_get_long_size(ev->tep);
	unsigned long long addr;
	const char *func;
	int off;

	if (!f) {
		trace_seq_printf(s, "<CANT FIND FIELD %s>", "caller");
		return 0;
	}
	if (lsize != 4 && lsize != 8)
		lsize = 8;
	trace_seq_puts(s, "<stack trace >\n");
	for (off = f->offset; off >= 0 && off + lsize <= rec->size; off += lsize) {
		addr = tep_read_number(ev->tep, (char *)rec->data + off, lsize);
		if ((lsize == 8 && addr == ~0ULL) || (int)addr == -1)
			break;
		func = tep_find_function(ev->tep, addr);
		if (func)
			trace_seq_printf(s, "=> %s (%llx)\n", func, addr);
		else
			trace_seq_printf(s, "=> %llx\n", addr);
	}
	return 0;
}

/**
 * ftk_printer_ftrace_overrides() - print ftrace events as trace-cmd report does
 * @p: the printer
 * @m: the merge the records come from, for function_graph leaves; may be NULL
 *
 * Registers on the printer's libtraceevent handle the handlers trace-cmd
 * uses for the ftrace funcgraph_entry, funcgraph_exit and kernel_stack
 * events. With @m, a funcgraph_entry whose next record is
 * its return prints as a leaf and takes that return from @m: records must
 * then be taken from @m (ftk_merge_next()) before they are printed.
 *
 * Return: 0.
 */
FTK_API int ftk_printer_ftrace_overrides(struct ftk_printer *p, struct ftk_merge *m)
{
	p->merge = m;
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_entry", tc_graph_entry, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_exit", tc_graph_exit, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "kernel_stack", tc_kernel_stack, p);
	return 0;
}

/**
 * ftk_printer_print() - print one record
 * @p: the printer
 * @rec: the record
 * @buf: index of its buffer (see ftk_printer_add_buffer())
 *
 * Return: 0, -EIO if writing failed, -ENOMEM.
 */
FTK_API int ftk_printer_print(struct ftk_printer *p, const struct tep_record *rec, int buf)
{
	struct tep_event *ev;
	int ret, id;

	if (p->type_size && p->type_off + p->type_size <= rec->size)
		id = (int)rdn(p, (const char *)rec->data + p->type_off, p->type_size);
	else
		id = tep_data_type(p->tep, (struct tep_record *)rec);

	/* tep_find_event() is a binary search; most records repeat the last few ids */
	if (id >= 0 && id < p->nr_progs && p->progs[id] && p->progs[id]->ev)
		ev = p->progs[id]->ev;
	else
		ev = tep_find_event(p->tep, id);

	if (p->format == FTK_PRINT_TEXT)
		ret = print_text(p, rec, buf, ev);
	else
		ret = print_other(p, rec, buf, ev);
	p->nrec++;
	return ret ? ftk_err(ret) : 0;
}
