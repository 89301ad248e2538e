// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print: output formats for records; the public calls (the parts are
 * listed in print-local.h).
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
#include <ftkit/latency.h>
#include "print-local.h"

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
	p->no_fast = ftk_env(FTK_ENV_PRINT_SLOW) != NULL;
	p->no_check = ftk_env(FTK_ENV_PRINT_NOCHECK) != NULL;
	p->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	p->comm_gen = 1;
	p->ctab = ftk_comms_of(tep);
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
		ftk_print_prog_free(p->progs[i]);
	free(p->progs);
	for (i = 0; i < p->nr_fstacks; i++)
		free(p->fstacks[i].stack);
	free(p->fstacks);
	free(p->comms);
	free(p->funcs);
	free(p->chrome_seen);
	free(p->chrome_pids);
	if (p->csv_fields)
		fclose(p->csv_fields);
	free(p->csv_b);
	ftk_printk_free(p->printk);
	free(p->ob.b);
	free(p->info.b);
	free(p->file);
	free(p->file_name);
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
 * ftk_printer_set_file() - tag every line with the file it comes from
 * @p: the printer
 * @name: the file's name
 * @width: the widest name of the files printed together
 *
 * For reports of several files merged by time (ftreport -i A -i B), one
 * printer a file, all writing to the same output: text lines start with
 * the name right-aligned to @width and ": ", as trace-cmd report -i A -i B
 * prints them, and each record is written out when printed, so that the
 * printers' lines come in the order they are printed.
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_printer_set_file(struct ftk_printer *p, const char *name, int width)
{
	free(p->file);
	free(p->file_name);
	p->file_name = strdup(name);
	if (!p->file_name || asprintf(&p->file, "%*s: ", width, name) < 0) {
		p->file = NULL;
		return ftk_err(-ENOMEM);
	}
	return 0;
}

/**
 * ftk_printer_set_part() - one of several printers writing one output
 * @p: the printer
 * @index: its place, from 0
 * @count: how many write the output
 *
 * Several files printed together (ftreport -i A -i B) have one printer
 * each, all writing the same output in the order of the merge. The first
 * (@index 0) writes the output's header (CSV's column line, chrome's
 * opening), the last (@index @count - 1) its closing. With
 * ftk_printer_set_file(), a JSON record starts with "file":NAME, a CSV
 * line with a file column, and chrome puts the file's threads under a
 * process of its own (pid @index + 1) named after the file, so that the
 * same pid in two files (host and guest) stays two tracks.
 *
 * Return: 0, or -EINVAL if @index is not below @count.
 */
FTK_API int ftk_printer_set_part(struct ftk_printer *p, int index, int count)
{
	if (index < 0 || index >= count)
		return ftk_err(-EINVAL);
	p->part = index;
	p->parts = count;
	return 0;
}

/* The output's header is this printer's to write, and its closing. */
static int first_part(const struct ftk_printer *p)
{
	return !p->parts || p->part == 0;
}

static int last_part(const struct ftk_printer *p)
{
	return !p->parts || p->part == p->parts - 1;
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
		fprintf(p->out, "%scpus=%d\n", p->file ? p->file : "", cpus);
		break;
	case FTK_PRINT_CSV:
		if (first_part(p))
			fputs("file,ts,cpu,pid,comm,buffer,system,event,missed,fields,info\n", p->out);
		break;
	case FTK_PRINT_CHROME:
		if (first_part(p))
			fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", p->out);
		if (p->file_name) {
			/* the file's process: its records follow with a separator */
			fprintf(p->out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
				first_part(p) ? "" : ",\n", p->part + 1);
			ftk_json_str(p->out, p->file_name, strlen(p->file_name));
			fputs("}}", p->out);
		}
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
 * Return: 0, or the negative errno of the failed write (-ENOSPC, -EIO).
 */
FTK_API int ftk_printer_end(struct ftk_printer *p)
{
	int ret = ftk_print_flush(p);

	if (ret < 0)
		return ftk_err(ret);
	if (p->format == FTK_PRINT_CHROME) {
		int i;

		/* Name each thread's track, as Perfetto and chrome://tracing show them. */
		for (i = 0; i < p->chrome_npids; i++) {
			const char *comm = ftk_comms_get(p->ctab, p->tep, p->chrome_pids[i]);

			fprintf(p->out, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
				p->nrec || i || p->file_name ? ",\n" : "",
				p->file_name ? p->part + 1 : p->chrome_pids[i], p->chrome_pids[i]);
			ftk_json_str(p->out, comm, strlen(comm));
			fputs("}}", p->out);
		}
		if (last_part(p))
			fputs("\n]}\n", p->out);
	}
	if (fflush(p->out))
		return ftk_err(-errno);
	return ferror(p->out) ? ftk_err(-EIO) : 0;
}

/**
 * ftk_printer_ftrace_overrides() - print ftrace events as trace-cmd report does
 * @p: the printer
 * @m: the merge the records come from, for function_graph leaves; may be NULL
 *
 * Registers on the printer's libtraceevent handle the handlers trace-cmd
 * uses for the ftrace funcgraph_entry, funcgraph_exit and kernel_stack
 * events. With @m, a funcgraph_entry whose next record is its return
 * prints as a leaf, with the duration, as trace-cmd does: the printer
 * peeks at @m (ftk_merge_peek()) and never takes from it, so records must
 * be taken (ftk_merge_next()) before they are printed, for the peek to
 * show the one after; that return then prints nothing when it comes.
 *
 * Return: 0.
 */
FTK_API int ftk_printer_ftrace_overrides(struct ftk_printer *p, struct ftk_merge *m)
{
	int i;

	p->merge = m;
	ftk_print_graph_register(p);
	/* programs compiled before the handlers were there are built again */
	for (i = 0; i < p->nr_progs; i++) {
		ftk_print_prog_free(p->progs[i]);
		p->progs[i] = NULL;
	}
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

	if (p->leaf_pending) {
		/* the return a function_graph leaf printed already */
		p->leaf_pending = 0;
		if (rec->ts == p->leaf_ts && rec->cpu == p->leaf_cpu && ev &&
		    !strcmp(ev->name, "funcgraph_exit") && !strcmp(ev->system, "ftrace"))
			return 0;
	}

	if (p->format == FTK_PRINT_TEXT)
		ret = ftk_print_text(p, rec, buf, ev);
	else
		ret = ftk_print_other(p, rec, buf, ev);
	p->nrec++;
	return ret ? ftk_err(ret) : 0;
}

/**
 * ftk_printer_slow() - the events whose text libtraceevent printed, and why
 * @p: the printer
 * @i: 0 for the first, then what the last call returned
 * @ev: receives the event
 * @why: receives why the own formatter did not print it ("__print_symbolic",
 *	"a plugin's handler", "raw fields (-R)", ...); owned by the printer
 * @records: receives how many of its records libtraceevent printed
 *
 * The printer formats the text of most events itself, with the same bytes
 * as libtraceevent (see ftk_printer_print()); the others go through
 * tep_print_event(), which is several times slower. This says which.
 *
 * Return: the value of @i for the next call, or 0 when there are no more.
 */
FTK_API int ftk_printer_slow(const struct ftk_printer *p, int i, struct tep_event **ev,
			     const char **why, unsigned long long *records)
{
	for (; i >= 0 && i < p->nr_progs; i++) {
		const struct fprog *pr = p->progs[i];

		if (!pr || !pr->slow)
			continue;
		*ev = pr->ev;
		*why = pr->why ? pr->why : "unknown";
		*records = pr->slow;
		return i + 1;
	}
	return 0;
}
