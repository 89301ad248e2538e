/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Printing records: trace-cmd report's text (byte for byte), raw fields,
 * JSON lines, CSV and Chrome trace-event JSON (ui.perfetto.dev opens it).
 *
 *	p = ftk_printer_new(stdout, tep, FTK_PRINT_TEXT, 0);
 *	ftk_printer_add_buffer(p, "", 1);		// buffer 0: top, nanosecond clock
 *	ftk_printer_begin(p, cpus);			// "cpus=N" in text
 *	while ((rec = ftk_merge_peek(m, &buf))) { ftk_printer_print(p, rec, buf); ftk_merge_consume(m); }
 *	ftk_printer_end(p);
 *	ftk_printer_free(p);
 */
#ifndef FTKIT_PRINT_H
#define FTKIT_PRINT_H

#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tep_handle;
struct tep_record;
struct ftk_printer;

enum ftk_print_format {
	FTK_PRINT_TEXT,		/* trace-cmd report's text */
	FTK_PRINT_JSON,		/* one JSON object a line */
	FTK_PRINT_CSV,		/* header line, then one record a line */
	FTK_PRINT_CHROME,	/* Chrome trace-event JSON */
};

enum ftk_print_flags {
	FTK_PRINT_NSEC		= 1 << 0,	/* full nanosecond stamps (report -t) */
	FTK_PRINT_RAW		= 1 << 1,	/* raw fields, not the event's print format (-R) */
};

/* Parse "text", "json", "csv" or "chrome"; -EINVAL otherwise. */
FTK_API int ftk_print_format_parse(const char *name);

FTK_API struct ftk_printer *ftk_printer_new(FILE *out, struct tep_handle *tep,
					    enum ftk_print_format format, unsigned int flags);
FTK_API void ftk_printer_free(struct ftk_printer *p);
/* Declare buffer N (in order from 0): its name ("" for the top) and whether its clock is ns. */
FTK_API int ftk_printer_add_buffer(struct ftk_printer *p, const char *name, int in_ns);
/* Several files printed together: text lines start "FILE: ", the name right-aligned to @width. */
FTK_API int ftk_printer_set_file(struct ftk_printer *p, const char *name, int width);
/*
 * Several printers writing one output (one a file, ftreport -i A -i B -o
 * FMT): this one is the @index-th of @count. The first writes the header
 * (CSV's column line, chrome's opening), the last the closing; with
 * ftk_printer_set_file(), JSON and CSV records carry the file's name and
 * chrome puts each file's threads in a process named after the file.
 */
FTK_API int ftk_printer_set_part(struct ftk_printer *p, int index, int count);
/* Start the output: "cpus=N" for text, the opening of the JSON array for chrome. */
FTK_API int ftk_printer_begin(struct ftk_printer *p, int cpus);
/* Print one record of buffer @buf. */
FTK_API int ftk_printer_print(struct ftk_printer *p, const struct tep_record *rec, int buf);
/*
 * Print ftrace's function_graph and kernel_stack events as
 * trace-cmd report does; with @m, take records with ftk_merge_next().
 */
struct ftk_merge;
FTK_API int ftk_printer_ftrace_overrides(struct ftk_printer *p, struct ftk_merge *m);
/* Events libtraceevent printed (not the own formatter), why, and how many records. */
struct tep_event;
FTK_API int ftk_printer_slow(const struct ftk_printer *p, int i, struct tep_event **ev,
			     const char **why, unsigned long long *records);
/* Finish the output (closes chrome's JSON); returns 0 or -EIO if writing failed. */
FTK_API int ftk_printer_end(struct ftk_printer *p);

/*
 * Add a trace-cmd report -F filter ("EVENTS: EXPRESSION") to libtraceevent's
 * @filter, refusing (-EINVAL, the reason in @why) the shapes that crash
 * libtraceevent 1.7.1's filter parser. A word that is not a field of an
 * event is FALSE for it, as in trace-cmd report.
 */
struct tep_event_filter;
FTK_API int ftk_filter_add(struct tep_event_filter *filter, const char *str, char *why,
			   size_t len);

#ifdef __cplusplus
}
#endif
#endif
