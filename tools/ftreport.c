// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftreport: print or summarise a trace.dat file, or a live buffer, with
 * the records of every CPU merged by time stamp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>

#include "tool.h"
#include <ftkit/merge.h>
#include <ftkit/print.h>
#include <ftkit/stream.h>
#include <ftkit/tracefile.h>

static const char usage[] =
"usage: ftreport [-NRt] [-i file] [--cpu list] [-F filter]... [--stat]\n"
"                [-o text|json|csv|chrome] [--output file] [file]\n"
"       ftreport -i file -i file... [--offset file=ns]... [options]\n"
"       ftreport --live [-B instance] [options]\n"
"\n"
"Print the events of a trace.dat file (trace-cmd's format, version 6 or 7,\n"
"compressed or not) merged by time stamp, in trace-cmd report's text.\n"
"\n"
"  -i, --input FILE     the file to read (default trace.dat); several: their\n"
"                       events merged by time, each line tagged with its file\n"
"                       (--stat: a summary a file); a guest's TIME_SHIFT puts\n"
"                       its stamps on its host's clock, as in trace-cmd\n"
"      --offset FILE=NS add NS nanoseconds to FILE's time stamps (another\n"
"                       box's clock)\n"
"  -N, --no-plugins     do not load libtraceevent's print plugins\n"
"  -R, --raw            print the raw fields of each event\n"
"  -t, --nsec           print full nanosecond time stamps\n"
"      --cpu LIST       only these CPUs (e.g. 0,2-3)\n"
"  -F, --filter FILTER  event filter, as trace-cmd report -F: 'sched_switch',\n"
"                       'sched/sched_wakeup: pid > 100' (repeatable)\n"
"      --stat           counts per event and CPU, lost events, first and last\n"
"                       time stamps, clock, what the file's options say (date,\n"
"                       offsets, guest and host, process maps); no event lines\n"
"  -o, --format FMT     text (default), json (one object a line), csv, chrome\n"
"                       (Chrome trace-event JSON for ui.perfetto.dev)\n"
"      --output FILE    write to FILE instead of standard output\n"
"      --live           read the live ring buffer instead of a file; this\n"
"                       CONSUMES the events, like trace-cmd extract\n"
"  -B, --instance NAME  with --live: the instance to read\n"
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftreport                           # trace.dat, as trace-cmd report prints it\n"
"  ftreport -i run.dat --cpu 1 -F sched_switch\n"
"  ftreport --stat run.dat\n"
"  ftreport -i host.dat -i box2.dat --offset box2.dat=-1500000\n"
"  ftreport -o json -i host.dat -i guest.dat      # guest on the host's clock\n"
"  ftreport --stat host.dat guest.dat\n"
"  ftreport -o chrome run.dat --output run.json   # open in ui.perfetto.dev\n"
"  ftreport --live -B mytrace         # drain an instance's buffer, merged\n";

enum { OPT_CPU = 256, OPT_STAT, OPT_LIVE, OPT_OUTPUT, OPT_OFFSET };

/* Name of the buffer the i-th stream of @m reads ("" for the top one). */
static const char *stream_buffer(struct ftk_tracefile *tf, struct ftk_merge *m, int i)
{
	int tag = ftk_merge_tag(m, i);

	return tag >= 0 && tag < ftk_tracefile_buffers(tf) ? ftk_tracefile_buffer_name(tf, tag) : "";
}

/* --stat: the flight recorder's trigger, from its reason mark (ftrecord --flight). */
static char trigger[512];
/* The file's ftrace:print event and its buf field, found on its first record (report() resets). */
static struct tep_event *trigger_print;
static struct tep_format_field *trigger_buf;

static void note_trigger(struct tep_handle *tep, const struct tep_record *rec, int id)
{
	struct tep_format_field *buf;
	size_t n = strlen(FTK_FLIGHT_MARK), len;
	const char *text;

	if (!trigger_print) {
		/*
		 * By the record's event, not by name: a file without
		 * ftrace:print (or whose format is not read yet, lazily) made
		 * tep_find_event_by_name() walk every event for every record
		 * (--stat of a -e all file: 0.85 s, six times its report).
		 */
		struct tep_event *ev = tep_find_event(tep, id);

		if (!ev || strcmp(ev->name, "print") || strcmp(ev->system, "ftrace"))
			return;
		trigger_print = ev;
	}
	if (id != trigger_print->id ||
	    (!trigger_buf && !(trigger_buf = tep_find_field(trigger_print, "buf"))))
		return;
	buf = trigger_buf;
	if (rec->size <= buf->offset + (int)n)
		return;
	text = (const char *)rec->data + buf->offset;
	if (strncmp(text, FTK_FLIGHT_MARK, n))
		return;
	len = strnlen(text + n, rec->size - buf->offset - n);
	if (len && text[n + len - 1] == '\n')
		len--;
	snprintf(trigger, sizeof(trigger), "%.*s at %llu.%09llu", (int)len, text + n,
		 rec->ts / 1000000000ULL, rec->ts % 1000000000ULL);
}

/* --stat: what the file's options say about the recording. */
static void print_options(FILE *out, struct ftk_tracefile *tf)
{
	unsigned long long id, tsc_off;
	unsigned int mult, shift, flags;
	const struct ftk_time_sample *ts;
	long long v, lo = 0, hi = 0;
	const int *cpu_pid;
	int i, k, n, cpus, vcpus, pid, nr_maps, nsamples = 0;
	const char *name;

	if (ftk_tracefile_date(tf, &v))
		fprintf(out, "date:      %+lld us from the trace clock to the time of day (DATE)\n", v);
	if (ftk_tracefile_clock_offset(tf, &v))
		fprintf(out, "offset:    %+lld ns added to every stamp (OFFSET)\n", v);
	if (ftk_tracefile_tsc2nsec(tf, &mult, &shift, &tsc_off))
		fprintf(out, "tsc2nsec:  ns = tsc * %u >> %u, tsc offset %llu\n", mult, shift, tsc_off);
	if (ftk_tracefile_trace_id(tf, &id))
		fprintf(out, "trace id:  0x%llx\n", id);
	if (ftk_tracefile_time_shift(tf, &id, &flags, &cpus)) {
		for (i = 0; i < cpus; i++) {
			ts = ftk_tracefile_time_shift_cpu(tf, i, &n);
			for (k = 0; k < n; k++) {
				if (!nsamples++ || ts[k].offset < lo)
					lo = ts[k].offset;
				if (nsamples == 1 || ts[k].offset > hi)
					hi = ts[k].offset;
			}
		}
		fprintf(out, "guest of:  host trace id 0x%llx: stamps put on the host's clock (TIME_SHIFT)\n",
			id);
		fprintf(out, "timeshift: %d cpus, %d samples, offsets %lld to %lld ns, %s\n", cpus,
			nsamples, lo, hi,
			flags & FTK_TIME_SHIFT_INTERPOLATE ? "interpolated" : "stepwise");
	}
	for (i = 0; (name = ftk_tracefile_guest(tf, i, &id, &vcpus, &cpu_pid)); i++) {
		fprintf(out, "guest:     %s trace id 0x%llx, %d vcpus", name, id, vcpus);
		for (k = 0; k < vcpus && k < 16; k++)
			fprintf(out, "%s%d:pid %d", k ? ", " : " (vcpu ", k, cpu_pid[k]);
		fputs(vcpus > 16 ? ", ...)\n" : vcpus ? ")\n" : "\n", out);
	}
	for (i = 0; (name = ftk_tracefile_procmap(tf, i, &pid, &nr_maps)); i++)
		fprintf(out, "procmaps:  pid %d %s, %d mappings\n", pid, name, nr_maps);
}

static void print_stat(FILE *out, struct ftk_tracefile *tf, struct ftk_merge *m,
		       unsigned long long *per_event, int nr_ids, unsigned long long total,
		       unsigned long long first, unsigned long long last)
{
	struct tep_handle *tep = ftk_tracefile_tep(tf);
	struct ftk_stream_stats st;
	unsigned long long lost = 0;
	int i, b, id;

	fprintf(out, "file:      %s\n", ftk_tracefile_path(tf));
	if (ftk_tracefile_version(tf))
		fprintf(out, "version:   %d (%s)\n", ftk_tracefile_version(tf),
			ftk_tracefile_compression(tf));
	if (ftk_tracefile_tracer_version(tf))
		fprintf(out, "recorder:  %s\n", ftk_tracefile_tracer_version(tf));
	if (ftk_tracefile_uname(tf))
		fprintf(out, "uname:     %s\n", ftk_tracefile_uname(tf));
	fprintf(out, "cpus:      %d\n", ftk_tracefile_cpus(tf));
	print_options(out, tf);
	for (b = 0; b < ftk_tracefile_buffers(tf); b++)
		fprintf(out, "buffer:    %s clock=%s cpus=%d\n",
			*ftk_tracefile_buffer_name(tf, b) ? ftk_tracefile_buffer_name(tf, b) : "(top)",
			ftk_tracefile_buffer_clock(tf, b), ftk_tracefile_buffer_cpus(tf, b));
	fprintf(out, "events:    %llu\n", total);
	if (total && ftk_tracefile_buffer_in_ns(tf, 0)) {
		fprintf(out, "first:     %llu.%09llu", first / 1000000000ULL, first % 1000000000ULL);
		if (ftk_tracefile_date(tf, NULL)) {
			/* DATE puts the stamps on the time of day */
			time_t t = (time_t)(first / 1000000000ULL);
			struct tm tm;
			char when[64];

			if (gmtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
				fprintf(out, " (%s)", when);
		}
		fputc('\n', out);
		fprintf(out, "last:      %llu.%09llu\n", last / 1000000000ULL, last % 1000000000ULL);
		fprintf(out, "span:      %llu.%09llu s\n", (last - first) / 1000000000ULL,
			(last - first) % 1000000000ULL);
	} else if (total) {
		/* counter and x86-tsc stamps are counts, not nanoseconds */
		fprintf(out, "first:     %llu\nlast:      %llu\n", first, last);
	}
	if (trigger[0])
		fprintf(out, "trigger:   %s\n", trigger);
	fprintf(out, "\nper cpu:\n");
	for (i = 0; i < ftk_merge_count(m); i++) {
		struct ftk_stream *s = ftk_merge_stream(m, i);

		ftk_stream_stats(s, &st);
		lost += st.missed;
		fprintf(out, "  cpu%-4d events %-12llu subbufs %-8llu lost %llu%s%s%s\n",
			ftk_stream_cpu(s), st.records, st.subbufs, st.missed,
			st.missed_unknown ? " (and more, uncounted)" : "",
			*stream_buffer(tf, m, i) ? "  buffer " : "", stream_buffer(tf, m, i));
	}
	fprintf(out, "lost:      %llu\n", lost);
	if (ftk_tracefile_cpustats(tf)) {
		char **cs;

		fprintf(out, "\nkernel buffer stats when recorded:\n");
		for (cs = ftk_tracefile_cpustats(tf); *cs; cs++) {
			char *line = *cs, *nl;

			/* one line per CPU: "CPU: 0 entries: 0 overrun: 0 ..." */
			fputs(" ", out);
			while (*line) {
				nl = strchr(line, '\n');
				if (nl == line) {
					line++;
					continue;
				}
				fprintf(out, " %.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
				line = nl ? nl + 1 : line + strlen(line);
			}
			fputc('\n', out);
		}
	}
	fprintf(out, "\nper event:\n");
	for (;;) {
		unsigned long long best = 0;
		int bid = -1;

		for (id = 0; id < nr_ids; id++)
			if (per_event[id] > best) {
				best = per_event[id];
				bid = id;
			}
		if (bid < 0)
			break;
		{
			struct tep_event *ev = tep_find_event(tep, bid);
			char name[256];

			snprintf(name, sizeof(name), "%s:%s", ev ? ev->system : "?",
				 ev ? ev->name : "unknown");
			fprintf(out, "  %-40s %llu\n", name, best);
		}
		per_event[bid] = 0;
	}
}

/* --stat -v: the events whose text libtraceevent formatted, and why. */
static void print_slow(FILE *out, struct ftk_printer *p)
{
	unsigned long long n, total = 0;
	struct tep_event *ev;
	const char *why;
	char name[256];
	int i = 0;

	fprintf(out, "\nslow path (text formatted by libtraceevent):\n");
	while ((i = ftk_printer_slow(p, i, &ev, &why, &n))) {
		snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
		fprintf(out, "  %-40s %-12llu %s\n", name, n, why);
		total += n;
	}
	fprintf(out, "  %-40s %llu\n", "total", total);
}

/*
 * Whether -F keeps @rec, as trace-cmd report decides: a kernel_stack event
 * that no filter names is kept after a record of its CPU was printed.
 */
static int filter_keep(struct tep_handle *tep, struct tep_event_filter *filter,
		       const struct tep_record *rec, int buf, int stack_id,
		       unsigned char *last_printed, int stride, int nlast)
{
	int ret = tep_filter_match(filter, (struct tep_record *)rec);
	int id = tep_data_type(tep, (struct tep_record *)rec);
	int slot = buf * stride + rec->cpu;

	if (rec->cpu < 0 || rec->cpu >= stride || slot < 0 || slot >= nlast)
		slot = -1;
	if (ret == TEP_ERRNO__FILTER_MATCH) {
		if (id != stack_id && slot >= 0)
			last_printed[slot] = 1;
		return 1;
	}
	if (ret != TEP_ERRNO__FILTER_NOT_FOUND || stack_id < 0)
		return 0;
	/*
	 * trace-cmd 3.1.6 prints such a stack once any record of its CPU
	 * was printed before it (measured: the flag is never cleared).
	 */
	if (id == stack_id)
		return slot >= 0 && last_printed[slot];
	return 0;
}

/* The command line. */
struct opts {
	const char	*input, *outpath;
	const char	**inputs;	/* -i and the file operands, in order */
	int		ninputs, noffsets;
	char		**offsets;	/* --offset FILE=NS */
	unsigned int	tflags, pflags;
	int		format, stat, live, nfilters;
	char		**filters;
	int		*cpus;		/* -1 ends them; NULL for all */
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;
	size_t nr;

	switch (opt) {
	case 'i':
		o->inputs = realloc(o->inputs, (o->ninputs + 1) * sizeof(*o->inputs));
		if (!o->inputs)
			tool_die("out of memory");
		o->inputs[o->ninputs++] = arg;
		break;
	case OPT_OFFSET:
		o->offsets = realloc(o->offsets, (o->noffsets + 1) * sizeof(*o->offsets));
		if (!o->offsets)
			tool_die("out of memory");
		o->offsets[o->noffsets++] = arg;
		break;
	case 'N': o->tflags |= FTK_TRACEFILE_NO_PLUGINS; break;
	case 'R': o->pflags |= FTK_PRINT_RAW; break;
	case 't': o->pflags |= FTK_PRINT_NSEC; break;
	case OPT_CPU:
		free(o->cpus);
		tool_cpus(arg, &o->cpus, &nr);
		o->cpus = realloc(o->cpus, (nr + 1) * sizeof(*o->cpus));
		if (!o->cpus)
			tool_die("out of memory");
		o->cpus[nr] = -1;
		break;
	case 'F':
		o->filters = realloc(o->filters, (o->nfilters + 1) * sizeof(*o->filters));
		if (!o->filters)
			tool_die("out of memory");
		o->filters[o->nfilters++] = arg;
		break;
	case OPT_STAT: o->stat = 1; break;
	case 'o':
		o->format = ftk_print_format_parse(arg);
		if (o->format < 0)
			tool_usage_error("unknown format '%s' (text, json, csv, chrome)", arg);
		break;
	case OPT_OUTPUT: o->outpath = arg; break;
	case OPT_LIVE: o->live = 1; break;
	}
}

static const struct option longopts[] = {
	{ "input",	required_argument,	NULL, 'i' },
	{ "no-plugins",	no_argument,		NULL, 'N' },
	{ "raw",	no_argument,		NULL, 'R' },
	{ "nsec",	no_argument,		NULL, 't' },
	{ "cpu",	required_argument,	NULL, OPT_CPU },
	{ "filter",	required_argument,	NULL, 'F' },
	{ "stat",	no_argument,		NULL, OPT_STAT },
	{ "format",	required_argument,	NULL, 'o' },
	{ "output",	required_argument,	NULL, OPT_OUTPUT },
	{ "live",	no_argument,		NULL, OPT_LIVE },
	{ "offset",	required_argument,	NULL, OPT_OFFSET },
	{ }
};

static const struct tool_def def = {
	.name = "ftreport", .usage = usage, .opts = "i:NRtF:o:", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE, .option = option,
};

static long long file_offset(const struct opts *o, const char *path);

static void check_usage(struct opts *o, const struct tool_args *a)
{
	int i;

	for (i = 0; i < a->nrest; i++) {
		o->inputs = realloc(o->inputs, (o->ninputs + 1) * sizeof(*o->inputs));
		if (!o->inputs)
			tool_die("out of memory");
		o->inputs[o->ninputs++] = a->rest[i];
	}
	if (o->ninputs == 1)
		o->input = o->inputs[0];
	if (o->noffsets && o->ninputs < 2)
		tool_usage_error("--offset needs several files (-i A -i B)");
	file_offset(o, "");	/* a bad --offset is a usage error before any file is read */
	if (a->instance && !o->live)
		tool_usage_error("-B needs --live (a file's instances are all printed)");
	if (o->live && o->ninputs)
		tool_usage_error("--live reads no file");
	if (!o->input)
		o->input = "trace.dat";
	/* Formats libtraceevent cannot parse leave their events unknown, quietly, as in trace-cmd. */
	tep_set_loglevel(ftk_log_level() > FTK_LOG_WARN ? TEP_LOG_WARNING : TEP_LOG_CRITICAL);
}

/* -F: one filter of them all, as trace-cmd report -F builds it. */
static struct tep_event_filter *make_filter(struct tep_handle *tep, char **filters, int n)
{
	struct tep_event_filter *filter;
	char err[256];
	int i, ret;

	if (!n)
		return NULL;
	filter = tep_filter_alloc(tep);
	if (!filter)
		tool_die("out of memory");
	for (i = 0; i < n; i++) {
		ret = ftk_filter_add(filter, filters[i], err, sizeof(err));
		if (ret == -ENOMEM)
			tool_die("out of memory");
		if (ret < 0)
			tool_usage_error("bad filter '%s': %s", filters[i], err);
	}
	return filter;
}

/* Print (or count, with --stat) every record the merge gives; 0 or EXIT_FAIL. */
static int report(struct ftk_tracefile *tf, const struct opts *o,
		  struct tep_event_filter *filter, FILE *out)
{
	struct tep_handle *tep = ftk_tracefile_tep(tf);
	unsigned long long *per_event = NULL, total = 0, first = 0, last = 0;
	int nr_ids = 0, stack_id = -1, nlast = 0, take = 0, b, i, tag, ret = EXIT_OK, stride = 1;
	unsigned char *last_printed = NULL;
	const struct tep_record *rec;
	FILE *sink = NULL;
	struct ftk_printer *p = NULL;
	struct ftk_merge *m;

	m = ftk_tracefile_merge(tf, 0, o->cpus);
	if (!m)
		tool_die("%s: %s", ftk_tracefile_path(tf), strerror(errno));
	trigger[0] = '\0';
	trigger_print = NULL;
	trigger_buf = NULL;
	if (o->stat) {
		nr_ids = 65536;
		per_event = calloc(nr_ids, sizeof(*per_event));
		if (!per_event)
			tool_die("out of memory");
		/* -v: also format the text, unwritten, to say which events take the slow path */
		if (ftk_log_level() >= FTK_LOG_INFO && !(sink = fopen("/dev/null", "we")))
			tool_die("/dev/null: %s", strerror(errno));
	}
	if (!o->stat || sink) {
		p = ftk_printer_new(sink ? sink : out, tep, sink ? FTK_PRINT_TEXT : o->format,
				    o->pflags);
		if (!p)
			tool_die("cannot print: %s", strerror(errno));
		/* json and csv name the file in every record, one file or many */
		if (!o->live && !sink && (o->format == FTK_PRINT_JSON || o->format == FTK_PRINT_CSV) &&
		    ftk_printer_set_file(p, ftk_tracefile_path(tf), 0) < 0)
			tool_die("cannot print: %s", strerror(errno));
		/*
		 * trace-cmd report prints the boot clock's stamps as a plain
		 * count, although they are nanoseconds: do the same in text.
		 */
		for (b = 0; b < ftk_tracefile_buffers(tf); b++)
			ftk_printer_add_buffer(p, o->live ? "" : ftk_tracefile_buffer_name(tf, b),
					       ftk_tracefile_buffer_in_ns(tf, b) &&
					       (o->format != FTK_PRINT_TEXT ||
						strcmp(ftk_tracefile_buffer_clock(tf, b), "boot")));
		ftk_printer_begin(p, ftk_tracefile_cpus(tf));
	}
	/* trace-cmd report -N drops its own ftrace handlers with the plugins */
	/*
	 * With function_graph events, records are taken before they are
	 * printed: an entry may take its own return from the merge to print
	 * a leaf. Otherwise they are printed in place, without a copy. A
	 * lazily read file has parsed no format yet: whether it holds
	 * function_graph records is not known, so they are taken.
	 */
	take = p && o->format == FTK_PRINT_TEXT && !(o->tflags & FTK_TRACEFILE_NO_PLUGINS) &&
	       ((o->tflags & FTK_TRACEFILE_LAZY) ||
		tep_find_event_by_name(tep, "ftrace", "funcgraph_entry"));
	if (p && o->format == FTK_PRINT_TEXT && !(o->tflags & FTK_TRACEFILE_NO_PLUGINS))
		ftk_printer_ftrace_overrides(p, take ? m : NULL);
	if (filter) {
		struct tep_event *ev = tep_find_event_by_name(tep, "ftrace", "kernel_stack");

		stack_id = ev ? ev->id : -1;
		/*
		 * By the CPU numbers that have data (at most MAX_CPUS), not the
		 * CPUCOUNT option, which a damaged file may make 2^31.
		 */
		for (b = 0; b < ftk_tracefile_buffers(tf); b++)
			for (i = 0; i < ftk_tracefile_buffer_cpus(tf, b); i++)
				if (ftk_tracefile_buffer_cpu(tf, b, i) >= stride)
					stride = ftk_tracefile_buffer_cpu(tf, b, i) + 1;
		nlast = ftk_tracefile_buffers(tf) * stride;
		last_printed = calloc(nlast ? nlast : 1, 1);
		if (!last_printed)
			tool_die("out of memory");
	}
	while (!tool_stop && (rec = take ? ftk_merge_next(m, &tag) : ftk_merge_peek(m, &tag))) {
		int keep = 1;

		if (filter)
			keep = filter_keep(tep, filter, rec, tag, stack_id, last_printed,
					   stride, nlast);
		if (keep && o->stat) {
			int id = tep_data_type(tep, (struct tep_record *)rec);

			if (!total)
				first = rec->ts;
			last = rec->ts;
			total++;
			if (id >= 0 && id < nr_ids)
				per_event[id]++;
			note_trigger(tep, rec, id);
			if (sink)
				ftk_printer_print(p, rec, tag);
		} else if (keep && ftk_printer_print(p, rec, tag) < 0) {
			tool_output_error(errno);
			ret = EXIT_FAIL;
			if (take)
				ftk_record_put((struct tep_record *)rec);
			break;
		}
		if (take)
			ftk_record_put((struct tep_record *)rec);
		else
			ftk_merge_consume(m);
	}
	if (o->stat) {
		print_stat(out, tf, m, per_event, nr_ids, total, first, last);
		if (sink)
			print_slow(out, p);
	} else if (ftk_printer_end(p) < 0 && ret == EXIT_OK) {
		tool_output_error(errno);
		ret = EXIT_FAIL;
	}
	if (tool_output_flush(out))
		ret = EXIT_FAIL;
	if (ftk_merge_failed(m)) {
		tool_err("%s", ftk_stream_errmsg(ftk_merge_failed(m)));
		ret = EXIT_FAIL;
	}
	ftk_printer_free(p);
	if (sink)
		fclose(sink);
	ftk_merge_free(m);
	free(per_event);
	free(last_printed);
	return ret;
}

/* --offset FILE=NS for @path: the nanoseconds, 0 if none names it; a bad one is a usage error. */
static long long file_offset(const struct opts *o, const char *path)
{
	long long ns = 0;
	const char *eq;
	char *end;
	int i, k, named;

	for (i = 0; i < o->noffsets; i++) {
		eq = strrchr(o->offsets[i], '=');
		if (!eq || eq == o->offsets[i])
			tool_usage_error("--offset '%s': FILE=NS expected", o->offsets[i]);
		for (k = 0, named = 0; k < o->ninputs; k++)
			named |= strlen(o->inputs[k]) == (size_t)(eq - o->offsets[i]) &&
				 !strncmp(o->inputs[k], o->offsets[i], eq - o->offsets[i]);
		if (!named)
			tool_usage_error("--offset '%s': the file is not one of the -i files",
					 o->offsets[i]);
		errno = 0;
		if (strlen(path) == (size_t)(eq - o->offsets[i]) &&
		    !strncmp(path, o->offsets[i], eq - o->offsets[i])) {
			ns = strtoll(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end)
				tool_usage_error("--offset '%s': NS is not a number of nanoseconds",
						 o->offsets[i]);
		}
	}
	return ns;
}

/*
 * Files merged by stamps of different trace clocks ("counter" and
 * "global", or two machines' "local"s cannot be told apart) come out in an
 * order that is not the events': say so. A guest's file (TIME_SHIFT) has
 * its stamps put on its host's clock, whatever its own.
 */
static void warn_clocks(const struct opts *o, struct ftk_tracefile **tf, int n)
{
	const char *c0 = NULL, *ci;
	int i, first = -1, cpus;

	for (i = 0; i < n; i++) {
		if (ftk_tracefile_time_shift(tf[i], NULL, NULL, &cpus) && cpus > 0)
			continue;
		ci = ftk_tracefile_buffer_clock(tf[i], 0);
		if (!ci)
			continue;
		if (first < 0) {
			first = i;
			c0 = ci;
		} else if (strcmp(c0, ci)) {
			tool_warn("'%s' is on the %s clock and '%s' on the %s clock: their stamps do "
				  "not compare, so the merged order is not the order of the events",
				  o->inputs[first], c0, o->inputs[i], ci);
		}
	}
}

/*
 * Several files (ftreport -i A -i B): one merge of the streams of all of
 * them (tags FILE * 64 + BUFFER), one printer a file for its formats,
 * each line tagged with its file as trace-cmd report -i A -i B does (JSON
 * and CSV records name it, chrome gives it a process), and one output.
 */
static int report_files(const struct opts *o, FILE *out)
{
	int n = o->ninputs, i, tag, width = 0, ret = EXIT_OK, b, keep;
	struct ftk_tracefile **tf = calloc(n, sizeof(*tf));
	struct ftk_printer **p = calloc(n, sizeof(*p));
	struct tep_event_filter **filter = calloc(n, sizeof(*filter));
	struct ftk_merge *m = ftk_merge_new();
	const struct tep_record *rec;

	if (!tf || !p || !filter || !m)
		tool_die("out of memory");
	for (i = 0; i < n; i++)
		if ((int)strlen(o->inputs[i]) > width)
			width = strlen(o->inputs[i]);
	for (i = 0; i < n; i++) {
		if (ftk_tracefile_open(o->inputs[i], o->tflags, &tf[i]) < 0)
			tool_die("%s", tf[i] ? ftk_tracefile_errmsg(tf[i]) : strerror(ENOMEM));
		if (ftk_tracefile_damage(tf[i])) {
			tool_warn("%s", ftk_tracefile_damage(tf[i]));
			ret = EXIT_FAIL;
		}
		ftk_tracefile_shift(tf[i], file_offset(o, o->inputs[i]));
		filter[i] = make_filter(ftk_tracefile_tep(tf[i]), o->filters, o->nfilters);
		if (ftk_tracefile_merge_add(tf[i], m, 0, o->cpus, i * 64) < 0)
			tool_die("%s: %s", o->inputs[i], strerror(errno));
		p[i] = ftk_printer_new(out, ftk_tracefile_tep(tf[i]), o->format, o->pflags);
		if (!p[i] || ftk_printer_set_file(p[i], o->inputs[i], width) < 0 ||
		    ftk_printer_set_part(p[i], i, n) < 0)
			tool_die("cannot print: %s", strerror(errno));
		/* as for one file: text prints the boot clock's stamps as a count */
		for (b = 0; b < ftk_tracefile_buffers(tf[i]); b++)
			ftk_printer_add_buffer(p[i], ftk_tracefile_buffer_name(tf[i], b),
					       ftk_tracefile_buffer_in_ns(tf[i], b) &&
					       (o->format != FTK_PRINT_TEXT ||
						strcmp(ftk_tracefile_buffer_clock(tf[i], b), "boot")));
		if (o->format == FTK_PRINT_TEXT && !(o->tflags & FTK_TRACEFILE_NO_PLUGINS))
			ftk_printer_ftrace_overrides(p[i], NULL);
	}
	warn_clocks(o, tf, n);
	for (i = 0; i < n; i++)
		ftk_printer_begin(p[i], ftk_tracefile_cpus(tf[i]));
	while (!tool_stop && (rec = ftk_merge_peek(m, &tag))) {
		i = tag / 64;
		keep = !filter[i] || tep_filter_match(filter[i], (struct tep_record *)rec) ==
			TEP_ERRNO__FILTER_MATCH;
		if (keep && ftk_printer_print(p[i], rec, tag % 64) < 0) {
			tool_output_error(errno);
			ret = EXIT_FAIL;
			break;
		}
		ftk_merge_consume(m);
	}
	for (i = 0; i < n; i++)
		if (ftk_printer_end(p[i]) < 0 && ret == EXIT_OK) {
			tool_output_error(errno);
			ret = EXIT_FAIL;
		}
	if (ftk_merge_failed(m)) {
		tool_err("%s", ftk_stream_errmsg(ftk_merge_failed(m)));
		ret = EXIT_FAIL;
	}
	ftk_merge_free(m);
	for (i = 0; i < n; i++) {
		ftk_printer_free(p[i]);
		if (filter[i])
			tep_filter_free(filter[i]);
		ftk_tracefile_close(tf[i]);
	}
	free(tf);
	free(p);
	free(filter);
	return ret;
}

/* Open the output on first use: a file that cannot be read leaves none behind. */
static FILE *open_output(const struct opts *o, FILE **out)
{
	static char obuf[1 << 20];

	if (!*out) {
		*out = tool_output(o->outpath, 0, stdout);
		setvbuf(*out, obuf, _IOFBF, sizeof(obuf));
	}
	return *out;
}

/*
 * One file (or the live buffer) printed or summarised: 0 or EXIT_FAIL.
 * --stat over several files calls it for each, @shift their --offset.
 */
static int report_file(const struct opts *o, const char *path, const char *instance,
		       long long shift, FILE **out, int last)
{
	struct tep_event_filter *filter;
	int ret, exit_code = EXIT_OK;
	struct ftk_tracefile *tf;

	if (o->live)
		ret = ftk_tracefile_open_live(getenv("FTK_TRACEFS"), instance, o->tflags, &tf);
	else
		ret = ftk_tracefile_open(path, o->tflags, &tf);
	if (ret < 0) {
		tool_err("%s", tf ? ftk_tracefile_errmsg(tf) : strerror(-ret));
		ftk_tracefile_close(tf);
		return EXIT_FAIL;
	}
	/* A file cut short is read up to the damage: say what was lost, and exit 2 at the end. */
	if (ftk_tracefile_damage(tf)) {
		tool_warn("%s", ftk_tracefile_damage(tf));
		exit_code = EXIT_FAIL;
	}
	ftk_tracefile_shift(tf, shift);
	open_output(o, out);
	filter = make_filter(ftk_tracefile_tep(tf), o->filters, o->nfilters);
	if (ftk_tracefile_latency_text(tf) && !o->stat)
		fprintf(*out, "cpus=%d\n%s", ftk_tracefile_cpus(tf), ftk_tracefile_latency_text(tf));
	else if (report(tf, o, filter, *out) != EXIT_OK)
		exit_code = EXIT_FAIL;
	if (filter)
		tep_filter_free(filter);
	/*
	 * The last file of a report that exits next is left open: freeing
	 * its thousands of comms and formats and unloading the plugins was
	 * a tenth of a small report's time, and the exit frees it all.
	 */
	if (!last || o->live)
		ftk_tracefile_close(tf);
	return exit_code;
}

int main(int argc, char **argv)
{
	struct opts o = { .format = FTK_PRINT_TEXT };
	int i, exit_code = EXIT_OK;
	struct tool_args a;
	FILE *out = NULL;

	tool_parse(&def, argc, argv, &a, &o);
	check_usage(&o, &a);
	/* a filter names events before their records are read: it needs every format */
	if (!o.nfilters)
		o.tflags |= FTK_TRACEFILE_LAZY;
	if (o.ninputs > 1 && o.stat) {
		/* a section a file, each headed by its "file:" line */
		for (i = 0; i < o.ninputs; i++) {
			if (out)	/* after a section printed */
				fputc('\n', out);
			if (report_file(&o, o.inputs[i], NULL, file_offset(&o, o.inputs[i]),
					&out, 0) != EXIT_OK)
				exit_code = EXIT_FAIL;
		}
	} else if (o.ninputs > 1) {
		exit_code = report_files(&o, open_output(&o, &out));
	} else {
		exit_code = report_file(&o, o.input, a.instance, 0, &out, 1);
	}
	if (out && tool_output_close(out, 1))
		exit_code = EXIT_FAIL;
	free(o.inputs);
	free(o.offsets);
	free(o.filters);
	free(o.cpus);
	return exit_code;
}
