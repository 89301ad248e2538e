// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-graph: trace-cmd's handlers for the ftrace events
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
	struct tep_event *ret_ev = NULL;
	const struct tep_record *next = NULL;
	unsigned long long func, depth, v, rettime, calltime;
	int pid = tep_data_pid(ev->tep, rec);

	if (field_val(s, ev, "func", rec, &func))
		return trace_seq_putc(s, '!');
	/*
	 * Peek first: formats may be read lazily, on their first record, and
	 * funcgraph_exit's then is once its first record has been peeked.
	 */
	if (p->merge)
		next = ftk_merge_peek(p->merge, NULL);
	if (next)
		ret_ev = tep_find_event_by_name(ev->tep, "ftrace", "funcgraph_exit");
	if (next && ret_ev && next->size >= 8 && tep_data_type(ev->tep, (struct tep_record *)next) == ret_ev->id &&
	    tep_data_pid(ev->tep, (struct tep_record *)next) == pid &&
	    !tep_get_field_val(s, ret_ev, "func", (struct tep_record *)next, &v, 1) && v == func) {
		/*
		 * A leaf: print it with its duration. Its return stays in the
		 * merge for the caller to take; it prints nothing when it comes.
		 */
		p->leaf_pending = 1;
		p->leaf_ts = next->ts;
		p->leaf_cpu = next->cpu;
		if (field_val(s, ret_ev, "rettime", (struct tep_record *)next, &rettime) ||
		    field_val(s, ret_ev, "calltime", (struct tep_record *)next, &calltime))
			return trace_seq_putc(s, '!');
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

/* Register the handlers above on the printer's tep handle. */
void ftk_print_graph_register(struct ftk_printer *p)
{
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_entry", tc_graph_entry, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_exit", tc_graph_exit, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "kernel_stack", tc_kernel_stack, p);
}
