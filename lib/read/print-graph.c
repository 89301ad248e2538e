// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * print-graph: trace-cmd's handlers for the ftrace events
 */

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "internal.h"
#include "print-local.h"

/* ---------------------------------------------------------------- trace-cmd's ftrace handlers */

/*
 * trace-cmd report prints the function_graph and kernel_stack events with
 * handlers of its own (libtracecmd), not with libtraceevent's print
 * formats (the function event goes to libtraceevent's function plugin).
 * These do the same, written here from the output they must give. A
 * function_graph entry whose next record (of all CPUs) is its own return
 * on the same task prints as a leaf "func();" with the duration, and that
 * return is consumed. The text is made by the same functions whether
 * libtraceevent calls the handler (tep_print_event(): FTK_PRINT_SLOW,
 * checks) or the fast path does, with the fields it found once
 * (ftk_print_graph_compile()).
 */
#define GRAPH_INDENT	2

static int field_val(struct trace_seq *s, struct tep_event *ev, const char *name,
		     struct tep_record *rec, unsigned long long *v)
{
	return tep_get_field_val(s, ev, name, rec, v, 1);
}

static void put_func(struct ftk_printer *p, struct obuf *o, unsigned long long addr,
		     const char *tail)
{
	const char *func = tep_find_function(p->tep, addr);

	if (func)
		ftk_ob_printf(o, "%s%s", func, tail);
	else
		ftk_ob_printf(o, "%llx%s", addr, tail);
}

static void graph_overhead(struct obuf *o, unsigned long long d)
{
	const char *mark = d == ~0ULL ? "  " : d > 1000000000ULL ? "$ " : d > 1000000ULL ? "# " :
			   d > 100000ULL ? "! " : d > 10000ULL ? "+ " : "  ";

	ftk_ob_put(o, mark, 2);
}

static void graph_duration(struct obuf *o, unsigned long long d)
{
	char num[48];
	int n;

	n = snprintf(num, sizeof(num), "%lu", (unsigned long)(d / 1000));
	if (n < 7)
		n += snprintf(num + n, sizeof(num) - n, ".%03lu", (unsigned long)(d % 1000) % 1000);
	ftk_ob_put(o, num, n);
	ftk_ob_put(o, " us ", 4);
	while (n++ < 7)
		ftk_ob_put(o, " ", 1);
	ftk_ob_put(o, "|  ", 3);
}

/* @n blanks (none if @n is not above 0) */
static void put_blanks(struct obuf *o, long n)
{
	static const char blanks[64] = "                                                                ";

	for (; n > (long)sizeof(blanks); n -= sizeof(blanks))
		ftk_ob_put(o, blanks, sizeof(blanks));
	if (n > 0)
		ftk_ob_put(o, blanks, n);
}

static void graph_indent(struct obuf *o, unsigned long long depth)
{
	int n = (int)(depth * GRAPH_INDENT);

	/* A damaged depth must not print gigabytes of blanks (found by fuzzing). */
	if (n > 4096)
		n = 4096;
	put_blanks(o, n);
}

/*
 * A number field of @ev that lies inside @rec, read into *@v: -1 if there
 * is none (a damaged format or record).
 */
static int rec_val(struct ftk_printer *p, struct tep_format_field *f, const struct tep_record *rec,
		   unsigned long long *v)
{
	if (!f || f->offset < 0 || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    f->offset + f->size > rec->size)
		return -1;
	*v = rdn(p, (const char *)rec->data + f->offset, f->size);
	return 0;
}

/* The funcgraph_exit event and its fields, looked up once found. */
static struct tep_event *graph_ret_event(struct ftk_printer *p)
{
	struct tep_event *ev;

	if (p->gret)
		return p->gret;
	ev = tep_find_event_by_name(p->tep, "ftrace", "funcgraph_exit");
	if (ev) {
		p->gret_f[0] = tep_find_field(ev, "func");
		p->gret_f[1] = tep_find_field(ev, "calltime");
		p->gret_f[2] = tep_find_field(ev, "rettime");
		p->gret = ev;
	}
	return ev;
}

/*
 * A funcgraph_exit: its duration (@rettime - @calltime) and the closing
 * brace at @depth.
 */
void ftk_print_graph_exit(struct obuf *o, unsigned long long calltime, unsigned long long rettime,
			  unsigned long long depth)
{
	graph_overhead(o, rettime - calltime);
	graph_duration(o, rettime - calltime);
	graph_indent(o, depth);
	ftk_ob_put(o, "}", 1);
}

/*
 * A funcgraph_entry of @func at @depth by @pid: a leaf "func();" with its
 * duration when the next record of the merge is its own return, which
 * then prints nothing when it comes; else "func() {". 0, or -1 if the
 * return's times cannot be read.
 */
int ftk_print_graph_entry(struct ftk_printer *p, struct obuf *o, unsigned long long func,
			  unsigned long long depth, int pid)
{
	unsigned long long v, rettime, calltime;
	const struct tep_record *next = NULL;
	struct tep_event *ret_ev = NULL;

	/*
	 * Peek first: formats may be read lazily, on their first record, and
	 * funcgraph_exit's then is once its first record has been peeked.
	 */
	if (p->merge)
		next = ftk_merge_peek(p->merge, NULL);
	if (next)
		ret_ev = graph_ret_event(p);
	if (next && ret_ev && next->size >= 8 &&
	    tep_data_type(p->tep, (struct tep_record *)next) == ret_ev->id &&
	    tep_data_pid(p->tep, (struct tep_record *)next) == pid &&
	    !rec_val(p, p->gret_f[0], next, &v) && v == func) {
		/*
		 * A leaf: print it with its duration. Its return stays in the
		 * merge for the caller to take; it prints nothing when it comes.
		 */
		p->leaf_pending = 1;
		p->leaf_ts = next->ts;
		p->leaf_cpu = next->cpu;
		if (rec_val(p, p->gret_f[2], next, &rettime) ||
		    rec_val(p, p->gret_f[1], next, &calltime))
			return -1;
		graph_overhead(o, rettime - calltime);
		graph_duration(o, rettime - calltime);
		graph_indent(o, depth);
		put_func(p, o, func, "();");
		return 0;
	}
	graph_overhead(o, ~0ULL);
	ftk_ob_put(o, "           |  ", 14);
	graph_indent(o, depth);
	put_func(p, o, func, "() {");
	return 0;
}

/* kernel_stack: the addresses from @f (its caller array) up to the end mark. */
void ftk_print_graph_stack(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
			   const struct tep_format_field *f)
{
	int lsize = tep_get_long_size(p->tep);
	unsigned long long addr;
	const char *func;
	int off;

	if (lsize != 4 && lsize != 8)
		lsize = 8;
	ftk_ob_put(o, "<stack trace >\n", 15);
	for (off = f->offset; off >= 0 && off + lsize <= rec->size; off += lsize) {
		addr = rdn(p, (const char *)rec->data + off, lsize);
		if ((lsize == 8 && addr == ~0ULL) || (int)addr == -1)
			break;
		func = tep_find_function(p->tep, addr);
		if (func)
			ftk_ob_printf(o, "=> %s (%llx)\n", func, addr);
		else
			ftk_ob_printf(o, "=> %llx\n", addr);
	}
}

/* The text in @o, to @s; frees @o. */
static int to_seq(struct trace_seq *s, struct obuf *o)
{
	ftk_ob_put(o, "", 1);
	if (o->b)
		trace_seq_puts(s, o->b);
	free(o->b);
	return 0;
}

static int tc_graph_exit(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			 void *ctx)
{
	unsigned long long rettime, calltime, depth;
	struct obuf o = { 0 };

	(void)ctx;
	if (field_val(s, ev, "rettime", rec, &rettime) ||
	    field_val(s, ev, "calltime", rec, &calltime) ||
	    field_val(s, ev, "depth", rec, &depth))
		return trace_seq_putc(s, '!');
	ftk_print_graph_exit(&o, calltime, rettime, depth);
	return to_seq(s, &o);
}

static int tc_graph_entry(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			  void *ctx)
{
	struct ftk_printer *p = ctx;
	unsigned long long func, depth;
	struct obuf o = { 0 };

	if (field_val(s, ev, "func", rec, &func) || field_val(s, ev, "depth", rec, &depth))
		return trace_seq_putc(s, '!');
	if (ftk_print_graph_entry(p, &o, func, depth, tep_data_pid(ev->tep, rec))) {
		o.len = 0;
		ftk_ob_put(&o, "!", 1);
	}
	return to_seq(s, &o);
}

static int tc_kernel_stack(struct trace_seq *s, struct tep_record *rec, struct tep_event *ev,
			   void *ctx)
{
	struct tep_format_field *f = tep_find_any_field(ev, "caller");
	struct obuf o = { 0 };

	if (!f) {
		trace_seq_printf(s, "<CANT FIND FIELD %s>", "caller");
		return 0;
	}
	ftk_print_graph_stack(ctx, &o, rec, f);
	return to_seq(s, &o);
}

/*
 * The kind of compiled program for @ev if these handlers print it on @p
 * (PROG_GRAPH_ENTRY, PROG_GRAPH_EXIT, PROG_STACK, with the fields they read
 * in @f), or PROG_SLOW.
 */
int ftk_print_graph_compile(struct ftk_printer *p, struct tep_event *ev,
			    struct tep_format_field **f)
{
	static const char *const names[][4] = {
		[PROG_GRAPH_ENTRY] = { "func", "depth" },
		[PROG_GRAPH_EXIT] = { "calltime", "rettime", "depth" },
		[PROG_STACK] = { "caller" },
	};
	int kind, i;

	if (ev->context != p)
		return PROG_SLOW;
	if (ev->handler == tc_graph_entry)
		kind = PROG_GRAPH_ENTRY;
	else if (ev->handler == tc_graph_exit)
		kind = PROG_GRAPH_EXIT;
	else if (ev->handler == tc_kernel_stack)
		kind = PROG_STACK;
	else
		return PROG_SLOW;
	for (i = 0; i < 4 && names[kind][i]; i++) {
		f[i] = kind == PROG_STACK ? tep_find_any_field(ev, names[kind][i]) :
		       tep_find_field(ev, names[kind][i]);
		if (!f[i] || f[i]->offset < 0 || (kind != PROG_STACK &&
		    ((f[i]->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
		     (f[i]->size != 1 && f[i]->size != 2 && f[i]->size != 4 && f[i]->size != 8))))
			return PROG_SLOW;
	}
	return kind;
}

/* ------------------------------------------------------------ libtraceevent's function plugin */

/*
 * ftrace:function has libtraceevent's function plugin as its handler: it
 * prints the function's name (0x%llx of the address without one), after
 * three blanks per level of an indent it guesses from the parents it saw
 * on the CPU, and with its options, " <-- parent" (parent) and "+0x.."
 * (offset). ftk_print_function() gives the same text with the same
 * guess, from a state of its own: once the printer's checks are done,
 * libtraceevent is no longer called, and its state must not be needed.
 * The plugin keeps one state for all the tep handles of a process (files
 * printed together share it), so a printer of several files
 * (ftk_printer_set_part()) leaves the event to it.
 */

/*
 * The function plugin's option @name (parent, indent, offset): its "set"
 * as tep_plugin_print_options() lists it in @list, in blocks of
 * "%8s:\t%s" lines ("  plugin:\tftrace", "  option:\tindent",
 * "     set:\t1"), one option a block.
 */
static int function_option(const char *list, const char *name, int *set)
{
	const char *b, *e, *v;
	char want[64];

	snprintf(want, sizeof(want), "  option:\t%s\n", name);
	for (b = list; b && *b; b = e) {
		e = strstr(b, "\n------------\n");
		if (!e)
			e = strstr(b, "\n============\n");
		e = e ? e + 1 : b + strlen(b);
		v = strstr(b, "  plugin:\tftrace\n");
		if (!v || v > e)
			continue;
		v = strstr(b, want);
		if (!v || v > e)
			continue;
		v = strstr(b, "     set:\t");
		if (!v || v > e)
			continue;
		*set = atoi(v + 10);
		return 0;
	}
	return -1;
}

/*
 * Whether @ev is printed by libtraceevent 1.7's function plugin (its
 * handler is plugin_function.so's) in a way the fast path knows: NULL, or
 * why not. ftrace:function with the parent and offset options off (the
 * indent option in *@indent, the ip and parent_ip fields in @f, *@kind
 * PROG_FUNCTION), ftrace:raw_data (trace_marker_raw: id and buf,
 * PROG_RAW_DATA).
 */
const char *ftk_print_plugin_compile(struct ftk_printer *p, struct tep_event *ev,
				     struct tep_format_field **f, int *indent, int *kind)
{
	const char *base;
	int parent, offset;
	struct trace_seq s;
	Dl_info info;

	if (!ev->handler || strcmp(ev->system, "ftrace") ||
	    (strcmp(ev->name, "function") && strcmp(ev->name, "raw_data")))
		return "a function or ftrace event";
	if (!dladdr((void *)ev->handler, &info) || !info.dli_fname)
		return "a plugin's handler";
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (strcmp(base, "plugin_function.so"))
		return "a plugin's handler";
	if (!strcmp(ev->name, "raw_data")) {
		f[0] = tep_find_field(ev, "id");
		f[1] = tep_find_any_field(ev, "buf");
		if (!f[0] || !f[1] || f[1]->offset < 0 ||
		    (f[0]->size != 1 && f[0]->size != 2 && f[0]->size != 4 && f[0]->size != 8))
			return "a raw_data event of other fields";
		*kind = PROG_RAW_DATA;
		return NULL;
	}
	if (p->parts > 1)
		return "the function plugin's state, shared by the files";
	f[0] = tep_find_field(ev, "ip");
	f[1] = tep_find_field(ev, "parent_ip");
	if (!f[0] || !f[1] || (f[0]->flags | f[1]->flags) & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
	    (f[0]->size != 4 && f[0]->size != 8) || (f[1]->size != 4 && f[1]->size != 8))
		return "a function event of other fields";
	trace_seq_init(&s);
	tep_plugin_print_options(&s);
	trace_seq_terminate(&s);
	if (function_option(s.buffer, "parent", &parent) ||
	    function_option(s.buffer, "offset", &offset) ||
	    function_option(s.buffer, "indent", indent) || parent || offset) {
		trace_seq_destroy(&s);
		return "the function plugin's options";
	}
	trace_seq_destroy(&s);
	*kind = PROG_FUNCTION;
	return NULL;
}

/*
 * ftrace:raw_data as the plugin prints it: "# " and the id in hex, then
 * the bytes from buf to the record's end, " %02x" each, in steps of the
 * file's long but with up to sizeof(long) bytes a step, as it does.
 */
void ftk_print_raw_data(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
			unsigned long long id, const struct tep_format_field *buf)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *d = rec->data;
	int lsize = tep_get_long_size(p->tep);
	int off, i, n;
	char b[3 * sizeof(long)];

	ftk_ob_printf(o, "# %llx", id);
	if (lsize <= 0)
		return;
	for (off = buf->offset; off < rec->size; off += lsize) {
		n = rec->size - off < (int)sizeof(long) ? rec->size - off : (int)sizeof(long);
		for (i = 0; i < n; i++) {
			b[3 * i] = ' ';
			b[3 * i + 1] = hex[d[off + i] >> 4];
			b[3 * i + 2] = hex[d[off + i] & 15];
		}
		ftk_ob_put(o, b, 3 * n);
	}
}

/* The plugin's add_child(): @child at @pos of @st, which grows by ten. */
static void fstack_put(struct fstack *st, const char *child, int pos)
{
	const char **n;

	if (!child)
		return;
	if (pos >= st->size) {
		n = realloc(st->stack, (st->size + 10) * sizeof(*n));
		if (!n)
			return;
		memset(n + st->size, 0, 10 * sizeof(*n));
		st->stack = n;
		st->size += 10;
	}
	st->stack[pos] = child;
}

/*
 * The plugin's add_and_get_index(): the level of @parent in what the CPU
 * called last, @child put above it; an unknown parent starts the CPU's
 * list again (what was above the second place stays, as in the plugin).
 * The names are the tep handle's, which outlives the printer.
 */
static int function_indent(struct ftk_printer *p, const char *parent, const char *child, int cpu)
{
	struct fstack *st;
	int i;

	if (cpu < 0)
		return 0;
	if (cpu >= p->nr_fstacks) {
		st = realloc(p->fstacks, (cpu + 1) * sizeof(*st));
		if (!st)
			return 0;
		memset(st + p->nr_fstacks, 0, (cpu + 1 - p->nr_fstacks) * sizeof(*st));
		p->fstacks = st;
		p->nr_fstacks = cpu + 1;
	}
	st = &p->fstacks[cpu];
	for (i = 0; i < st->size && st->stack[i]; i++) {
		if (st->stack[i] == parent || !strcmp(parent, st->stack[i])) {
			fstack_put(st, child, i + 1);
			return i;
		}
	}
	fstack_put(st, parent, 0);
	fstack_put(st, child, 1);
	return 0;
}

/* ftrace:function's text, as the plugin prints it (see above). */
void ftk_print_function(struct ftk_printer *p, struct obuf *o, unsigned long long ip,
			unsigned long long parent_ip, int cpu, int indent)
{
	const char *func = tep_find_function(p->tep, ip);
	const char *parent = tep_find_function(p->tep, parent_ip);

	if (parent && indent)
		put_blanks(o, 3L * function_indent(p, parent, func, cpu));
	if (func)
		ftk_ob_put(o, func, strlen(func));
	else
		ftk_ob_printf(o, "0x%llx", ip);
}

/* Register the handlers above on the printer's tep handle. */
void ftk_print_graph_register(struct ftk_printer *p)
{
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_entry", tc_graph_entry, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "funcgraph_exit", tc_graph_exit, p);
	tep_register_event_handler(p->tep, -1, "ftrace", "kernel_stack", tc_kernel_stack, p);
}
