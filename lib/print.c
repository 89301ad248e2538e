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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include <ftkit/print.h>

struct pbuf {
	char	*name;
	int	in_ns;
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
	char			*line;
	size_t			line_cap;
};

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
	free(p->bufs);
	free(p->line);
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
	if (p->format == FTK_PRINT_CHROME)
		fputs("\n]}\n", p->out);
	if (fflush(p->out) || ferror(p->out))
		return ftk_err(-EIO);
	return 0;
}

/* ---------------------------------------------------------------- line building */

static int grow(struct ftk_printer *p, size_t need)
{
	size_t cap = p->line_cap ? p->line_cap : 512;
	char *n;

	if (need <= p->line_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	n = realloc(p->line, cap);
	if (!n)
		return -ENOMEM;
	p->line = n;
	p->line_cap = cap;
	return 0;
}

static char *utoa(char *end, unsigned long long v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

/* Right-align @n chars in @width, writing at @o; returns the new end. */
static char *pad_left(char *o, const char *s, int n, int width)
{
	while (width-- > n)
		*o++ = ' ';
	memcpy(o, s, n);
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

static int print_text(struct ftk_printer *p, const struct tep_record *crec, int buf,
		      struct tep_event *ev)
{
	struct tep_record *rec = (struct tep_record *)crec;
	const struct pbuf *pb = buf >= 0 && buf < p->nr_bufs ? &p->bufs[buf] : NULL;
	const char *comm, *name;
	char num[32], *e = num + sizeof(num), *b, *o;
	size_t nlen, clen, info, head;
	int pid, n;

	/*
	 * The head first: printing the event may register comms (the
	 * sched_switch plugin does), which trace-cmd only sees on later lines.
	 */
	pid = tep_data_pid(p->tep, rec);
	comm = tep_data_comm_from_pid(p->tep, pid);
	name = ev ? ev->name : "[UNKNOWN EVENT]";
	nlen = strlen(name);
	clen = strlen(comm);
	if (grow(p, nlen + clen + p->name_width + 256))
		return -ENOMEM;
	o = p->line;
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
		n = sprintf(o, "%-5d", pid);
		o += n;
	} else {
		b = utoa(e, pid);
		memcpy(o, b, e - b);
		o += e - b;
		for (n = e - b; n < 5; n++)
			*o++ = ' ';
	}
	o += sprintf(o, " [%03d]", rec->cpu);
	o = put_time(p, rec, o, rec->ts, pb ? pb->in_ns : 1, p->flags & FTK_PRINT_NSEC);
	*o++ = ':';
	/* " %s: " and the name padded to 20 */
	*o++ = ' ';
	memcpy(o, name, nlen);
	o += nlen;
	*o++ = ':';
	*o++ = ' ';
	for (n = nlen; n < 20; n++)
		*o++ = ' ';
	head = o - p->line;
	trace_seq_reset(&p->s);
	tep_print_event(p->tep, &p->s, rec, "%s",
			(p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	info = p->s.len;
	if (info && p->s.buffer[info - 1] == '\n')
		info--;
	if (grow(p, head + info + 2))
		return -ENOMEM;
	o = p->line + head;
	memcpy(o, p->s.buffer, info);
	o += info;
	*o++ = '\n';
	if (fwrite(p->line, 1, o - p->line, p->out) != (size_t)(o - p->line))
		return -EIO;
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
		if (f->flags & TEP_FIELD_IS_ARRAY)
			continue;
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

	trace_seq_reset(&p->s);
	tep_print_event(p->tep, &p->s, rec, "%s",
			(p->flags & FTK_PRINT_RAW) ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
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
		put_fields(p, ev, rec);
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
		/* Instant events on the thread's track; chrome wants microseconds. */
		fprintf(p->out, "%s{\"name\":", p->nrec ? ",\n" : "");
		put_json_str(p->out, name, strlen(name));
		fprintf(p->out, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", sys);
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
	struct tep_event *ev = tep_find_event_by_record(p->tep, (struct tep_record *)rec);
	int ret;

	if (p->format == FTK_PRINT_TEXT)
		ret = print_text(p, rec, buf, ev);
	else
		ret = print_other(p, rec, buf, ev);
	p->nrec++;
	return ret ? ftk_err(ret) : 0;
}
