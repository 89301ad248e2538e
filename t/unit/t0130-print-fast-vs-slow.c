// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The printer's own formatting (line head, stamps, plain print formats,
 * sched plugins, the function plugin, function_graph) against
 * libtraceevent's, record by record (bprint and bputs too): every fixture printed with
 * FTK_PRINT_SLOW (all through tep_print_event) and without must give the
 * same bytes, with and without -t (and -N for the ftrace tracers' files);
 * the trace-cmd-vm files must leave no record to libtraceevent; every
 * event format of a real kernel that compiles prints random records as
 * libtraceevent does; and stamps around the second and rounding edges
 * print as TEP_PRINT_TIME prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tap.h"
#include <ftkit/ftkit.h>

/*
 * @path printed as ftreport prints it, with the own formatter or (@slow)
 * all through libtraceevent; *@slow_recs: how many records the printer
 * left to libtraceevent, and *@why the reason it gave for the first.
 */
static char *print_file(const char *path, int slow, unsigned int flags, int noplug, size_t *len,
			unsigned long long *slow_recs, char *why, size_t whylen)
{
	unsigned long long recs;
	struct ftk_tracefile *tf;
	const struct tep_record *r;
	struct ftk_printer *p;
	struct tep_event *ev;
	struct ftk_merge *m;
	const char *w;
	char *text = NULL;
	FILE *out;
	int b, tag, i;

	if (slow)
		setenv("FTK_PRINT_SLOW", "1", 1);
	else
		unsetenv("FTK_PRINT_SLOW");
	if (ftk_tracefile_open(path, noplug ? FTK_TRACEFILE_NO_PLUGINS : 0, &tf) < 0) {
		ftk_tracefile_close(tf);
		return NULL;
	}
	out = open_memstream(&text, len);
	m = ftk_tracefile_merge(tf, 0, NULL);
	p = ftk_printer_new(out, ftk_tracefile_tep(tf), FTK_PRINT_TEXT, flags);
	for (b = 0; b < ftk_tracefile_buffers(tf); b++)
		ftk_printer_add_buffer(p, ftk_tracefile_buffer_name(tf, b),
				       ftk_tracefile_buffer_in_ns(tf, b));
	ftk_printer_begin(p, ftk_tracefile_cpus(tf));
	if (!noplug)	/* as ftreport -N: without trace-cmd's handlers either */
		ftk_printer_ftrace_overrides(p, m);
	while ((r = ftk_merge_next(m, &tag))) {
		ftk_printer_print(p, r, tag);
		ftk_record_put((struct tep_record *)r);
	}
	ftk_printer_end(p);
	*slow_recs = 0;
	why[0] = 0;
	for (i = 0; (i = ftk_printer_slow(p, i, &ev, &w, &recs));) {
		if (!*slow_recs)
			snprintf(why, whylen, "%s:%s: %s", ev->system, ev->name, w);
		*slow_recs += recs;
	}
	ftk_printer_free(p);
	ftk_merge_free(m);
	ftk_tracefile_close(tf);
	fclose(out);
	return text;
}

/* The stamp column of the first event line of a one-record memory stream. */
static void check_stamp(struct tep_handle *tep, unsigned long long ts, int nsec)
{
	unsigned char page[4096 + 64] = { 0 };
	struct ftk_stream_fmt fmt = { .sz = sizeof(fmt), .subbuf_size = 4096, .long_size = 8,
				      .name = "mem" };
	struct trace_seq s;
	struct ftk_printer *p;
	struct ftk_stream *st;
	struct tep_record rec;
	char *text = NULL, *got, *colon;
	unsigned int hdr = 2 << 0;	/* type_len 2: 8 bytes */
	size_t len;
	FILE *out = open_memstream(&text, &len);

	memcpy(page, &ts, 8);
	memcpy(page + 8, &(unsigned long long){ 12 }, 8);
	memcpy(page + 16, &hdr, 4);
	page[20] = 1;	/* event id 1 */
	st = ftk_stream_open_mem(page, 4096, &fmt);
	p = ftk_printer_new(out, tep, FTK_PRINT_TEXT, nsec ? FTK_PRINT_NSEC : 0);
	ftk_printer_add_buffer(p, "", 1);
	rec = *ftk_stream_peek(st);
	ftk_printer_print(p, &rec, 0);
	ftk_printer_end(p);
	fclose(out);
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, nsec ? " %9.1d:" : " %6.1000d:", TEP_PRINT_TIME);
	trace_seq_terminate(&s);
	got = strstr(text, "] ");
	colon = got ? strchr(got + 1, ':') : NULL;
	if (got && colon)
		colon[1] = 0;
	ok(got && !strcmp(got + 1, s.buffer), "stamp %llu%s: '%s' as libtraceevent '%s'", ts,
	   nsec ? " (-t)" : "", got ? got + 1 : "?", s.buffer);
	trace_seq_destroy(&s);
	ftk_printer_free(p);
	ftk_stream_close(st);
	free(text);
}

/*
 * A print format that divides by a record value: libtraceevent would trap
 * on a zero divisor, so the event prints as a note with its fields, for
 * every record, and nothing crashes (the library catches no signals).
 */
static void check_div0(void)
{
	static const char fmt2[] =
		"name: div\nID: 2\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"q=%d\", REC->a / REC->b\n";
	unsigned char data[64] = { 2, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0 };
	struct tep_handle *tep = tep_alloc();
	struct tep_record rec = { .ts = 5000000000ULL, .size = 16, .data = data };
	struct ftk_printer *p;
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	tep_set_long_size(tep, 8);
	tep_parse_event(tep, fmt2, sizeof(fmt2) - 1, "test");
	p = ftk_printer_new(out, tep, FTK_PRINT_TEXT, 0);
	ftk_printer_add_buffer(p, "", 1);
	ftk_printer_print(p, &rec, 0);
	data[12] = 2;
	ftk_printer_print(p, &rec, 0);
	ftk_printer_end(p);
	ftk_printer_free(p);
	fclose(out);
	ok(text && strstr(text, "divides by a record value") && strstr(text, "a=7 b=0") &&
	   strstr(text, "a=7 b=2") && !strstr(text, "q="),
	   "a print format dividing by a field: a note with the fields, for each record");
	free(text);
	tep_free(tep);
}

/*
 * Print @n records of event 3 (@fmt, of system @sys) with the own
 * formatter or libtraceevent's, with libtraceevent's plugins if @plugins;
 * @fill, if not NULL, sets record @i's bytes after the pattern of numbers.
 */
static char *print_shape(const char *fmt, const char *sys, int plugins,
			 void (*fill)(unsigned char *data, int i), int slow, int n,
			 unsigned long long *slow_recs)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_plugin_list *plist;
	unsigned char data[64] = { 3, 0, 0, 0, 42, 0, 0, 0 };
	struct tep_record rec = { .ts = 5000000000ULL, .size = 64, .data = data };
	unsigned long long v, recs;
	struct ftk_printer *p;
	struct tep_event *ev;
	const char *why;
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	int i, k;

	if (slow)
		setenv("FTK_PRINT_SLOW", "1", 1);
	else
		unsetenv("FTK_PRINT_SLOW");
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	plist = plugins ? tep_load_plugins(tep) : NULL;
	tep_parse_event(tep, fmt, strlen(fmt), sys);
	/* for %ps and %pS: every 16-bit address has a function, most others none */
	for (k = 0; k < 0x10000; k += 0x4000) {
		char name[32];

		snprintf(name, sizeof(name), "func_%x", k);
		tep_register_function(tep, name, k, NULL);
	}
	p = ftk_printer_new(out, tep, FTK_PRINT_TEXT, 0);
	ftk_printer_add_buffer(p, "", 1);
	for (i = 0; i < n; i++) {
		for (k = 8; k < 64; k += 8) {	/* negative, huge, small values */
			v = (unsigned long long)(i - 20) * 0x9e3779b97f4a7c15ULL >> (k % 48);
			memcpy(data + k, &v, 8);
		}
		if (fill)
			fill(data, i);
		rec.ts += 1000;
		ftk_printer_print(p, &rec, 0);
	}
	ftk_printer_end(p);
	*slow_recs = 0;
	for (i = 0; (i = ftk_printer_slow(p, i, &ev, &why, &recs));)
		*slow_recs += recs;
	ftk_printer_free(p);
	fclose(out);
	tep_unload_plugins(plist, tep);
	tep_free(tep);
	return text;
}

/*
 * Shapes of real kernels' formats the own formatter compiles: each must
 * print through it (no record left to libtraceevent) and give the same
 * bytes; 40 records, past the 32 the printer checks itself.
 */
static void check_shapes(void)
{
	static const char common[] =
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
	static const struct { const char *name, *fields, *print; } shapes[] = {
		{ "sys_enter: REC->args[N]",
		  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		  "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n",
		  "\"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], REC->args[1], "
		  "REC->args[2], REC->args[3], REC->args[4], REC->args[5]" },
		{ "sys_exit: %ld",
		  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		  "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n",
		  "\"NR %ld = %ld\", REC->id, REC->ret" },
		{ "%Lu and %zu",
		  "\tfield:u64 runtime;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:size_t len;\toffset:16;\tsize:8;\tsigned:0;\n\n",
		  "\"runtime=%Lu [ns] len=%zu\", REC->runtime, REC->len" },
		{ "int array elements, padded",
		  "\tfield:int v[4];\toffset:8;\tsize:16;\tsigned:1;\n\n",
		  "\"a=%d b=%08x c=%u\", REC->v[0], REC->v[1], REC->v[3]" },
		{ "escapes and %%",
		  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:int dfd;\toffset:16;\tsize:4;\tsigned:1;\n\n",
		  "\"(%lx) dfd=\\\"%d\\\"\\t100%%\\\\ \\q\\n\", REC->ip, REC->dfd" },
		{ "%ps and %pS",
		  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n",
		  "\" %ps <-- %pS [%pf]\", (void *)REC->ip, (u16)REC->parent_ip, (u16)REC->ip" },
		{ "kernel_stack: (void *)REC->caller[N], (u8 *)REC->caller[N]",
		  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
		  "\tfield:unsigned long caller[6];\toffset:16;\tsize:48;\tsigned:0;\n\n",
		  "\"\\t=> %ps\\n\\t=> %pS\\n\" \"%x %lx\", (void *)REC->caller[0], "
		  "(u16 *)REC->caller[1], (u8 *)REC->caller[2], (unsigned int *)REC->caller[3]" },
		{ "expressions: MAJOR/MINOR, ?:, !, ~, &&, ||, comparisons, / and % by constants",
		  "\tfield:unsigned int dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		  "\tfield:unsigned char a;\toffset:16;\tsize:1;\tsigned:0;\n"
		  "\tfield:long b;\toffset:24;\tsize:8;\tsigned:1;\n\n",
		  "\"dev %d,%d %u %ld %d %d %llx %u %lu %x\", ((unsigned int) ((REC->dev) >> 20)), "
		  "((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->a > 127 ? REC->a : ~REC->a, "
		  "(REC->b >= 0 ? REC->b : -REC->b), !REC->a, REC->a && REC->b || REC->a == 3, "
		  "(u64)(REC->a << 3) | (REC->b >> 60), REC->a / 7 + REC->b % 3 - 1, "
		  "(unsigned long)(u8)(REC->b * 3), REC->a != (u16)REC->b" },
		{ "__print_flags",
		  "\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
		  "\tfield:unsigned char b;\toffset:16;\tsize:1;\tsigned:0;\n\n",
		  "\"f=%s [%s] %-6s|\", __print_flags(REC->flags, \"|\", { 0x1, \"A\" }, "
		  "{ 0x2, \"B\" }, { 0x6, \"BC\" }, { 0x10, \"E\" }, { 0xffffffffffffffff, \"ALL\" }), "
		  "__print_flags((u8)REC->flags, \"\", { 1, \"a\" }, { 128, \"h\" }), "
		  "__print_flags(REC->b, \",\", { 0x3, \"LOW\" }, { 0xf0, \"HIGH\" })" },
		{ "__print_symbolic",
		  "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n"
		  "\tfield:unsigned char b;\toffset:17;\tsize:1;\tsigned:0;\n\n",
		  "\"vec=%u [action=%s] [%-8s|%5s]\", REC->vec, __print_symbolic((u8)REC->vec, "
		  "SYMS), __print_symbolic(REC->b, SYMS), __print_symbolic(REC->vec, { 0, \"HI\" })" },
	};
	char syms[4096] = "", *at;
	int k, n;
	unsigned long long nslow, nslow2;
	char fmt[8192], *fast, *slow;
	size_t i;

	/* { 0, "S0" }, ..., { 0x7f, "S127" }: half the bytes have a name */
	for (k = 0, n = 0; k < 128; k++)
		n += snprintf(syms + n, sizeof(syms) - n, k & 1 ? "%s{ 0x%x, \"S%d\" }" :
			      "%s{ %d, \"S%d\" }", k ? ", " : "", k, k);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		n = snprintf(fmt, sizeof(fmt), "name: shape\nID: 3\nformat:\n%s%sprint fmt: ", common,
			     shapes[i].fields);
		for (at = (char *)shapes[i].print; *at; at++) {
			if (!strncmp(at, "SYMS", 4)) {
				n += snprintf(fmt + n, sizeof(fmt) - n, "%s", syms);
				at += 3;
			} else if (n < (int)sizeof(fmt) - 2) {
				fmt[n++] = *at;
			}
		}
		snprintf(fmt + n, sizeof(fmt) - n, "\n");
		fast = print_shape(fmt, "raw_syscalls", 0, NULL, 0, 40, &nslow);
		slow = print_shape(fmt, "raw_syscalls", 0, NULL, 1, 40, &nslow2);
		ok(fast && slow && !strcmp(fast, slow) && nslow == 0 && nslow2 == 40,
		   "%s: compiled (%llu records left to libtraceevent), same text", shapes[i].name,
		   nslow);
		if (fast && slow && strcmp(fast, slow))
			diag("own:\n%.300s\nlibtraceevent:\n%.300s", fast, slow);
		free(fast);
		free(slow);
	}
}

/* Record @i's addresses: IPv6 addresses that %pI6c compresses each its own way. */
static void fill_addresses(unsigned char *data, int i)
{
	static const unsigned short v6[][8] = {
		{ 0 }, { 0, 0, 0, 0, 0, 0, 0, 1 }, { 1 }, { 0, 0, 0, 0, 0, 0xffff, 0x7f00, 1 },
		{ 0, 0, 0, 0, 0, 0xffff, 0, 0 }, { 0, 0, 0, 0, 0, 0xfffe, 0x7f00, 1 },
		{ 0xfe80, 0, 0, 0, 0, 0x5efe, 0x0a00, 1 }, { 0xfe80, 0, 0, 0, 0x200, 0x5efe, 0xc0a8, 0x101 },
		{ 0, 0, 0, 0, 0x200, 0x5efe, 0x102, 0x304 }, { 1, 0, 0, 0, 0x300, 0x5efe, 1, 2 },
		{ 1, 0, 2, 3, 4, 5, 6, 7 }, { 1, 0, 0, 2, 0, 0, 3, 4 }, { 1, 0, 0, 2, 0, 0, 0, 3 },
		{ 1, 2, 3, 4, 5, 0, 0, 0 }, { 0xab, 0xab00, 0xa, 0xfff, 0, 0x100, 0x10, 0 },
		{ 0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329 }, { 0xffff, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 1, 0, 0, 0, 0 }, { 0, 1, 0, 0, 0, 0xffff, 1, 2 },
	};
	/* the sockaddr's family (in this machine's order, as the kernel wrote it) */
	unsigned short family = i % 3 == 0 ? AF_INET : i % 3 == 1 ? AF_INET6 : i;
	int k;

	memcpy(data + 36, &family, 2);
	if (i >= (int)(sizeof(v6) / sizeof(v6[0])))
		return;	/* the numbers' pattern: random-looking bytes */
	for (k = 0; k < 8; k++) {
		data[8 + 2 * k] = v6[i][k] >> 8;
		data[9 + 2 * k] = v6[i][k] & 0xff;
		data[44 + 2 * k] = v6[i][k] >> 8;	/* sin6_addr */
		data[45 + 2 * k] = v6[i][k] & 0xff;
	}
}

/*
 * MAC and IP addresses (%pM, %pI4, %pI6c, %pISpc and their other forms,
 * the text after each as libtraceevent takes it) compile and print as
 * libtraceevent prints them (a sockaddr of AF_INET, AF_INET6 and another
 * family); fields of the wrong size or of flags and widths are left to it.
 */
static void check_addresses(void)
{
	static const char fmt[] =
		"name: addr\nID: 3\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__u8 a6[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:unsigned char mac[6];\toffset:24;\tsize:6;\tsigned:0;\n"
		"\tfield:__be32 a4;\toffset:32;\tsize:4;\tsigned:0;\n"
		"\tfield:__u8 odd[5];\toffset:40;\tsize:5;\tsigned:0;\n"
		"\tfield:__u8 sa[28];\toffset:36;\tsize:28;\tsigned:0;\n\n"
		"print fmt: \"c=%pI6c I6=%pI6 i6=%pi6 i6c=%pi6c|%pI6cc M=%pM R=%pMR F=%pMF m=%pm "
		"mR=%pmR mF=%pmF MM=%pMM I4=%pI4 i4=%pi4 h=%pI4h l=%pI4l n=%pI4n b=%pi4b x=%pI4x "
		"c4=%pI4c Spc=%pISpc Sp=%pISp Sc=%pISc S=%pIS|\", REC->a6, REC->a6, REC->a6, REC->a6, "
		"REC->a6, REC->mac, REC->mac, REC->mac, REC->mac, REC->mac, REC->mac, (u8 *)REC->mac, "
		"REC->a4, REC->a4, REC->a4, REC->a4, REC->a4, REC->a4, REC->a4, REC->a4, REC->sa, "
		"REC->sa, REC->sa, REC->sa\n";
	static const char *const odd[] = {
		"%pI4\", REC->odd", "%pM\", REC->a4", "%pI6c\", REC->mac", "%-20pI4\", REC->a4",
		"%pISpc\", REC->a6", "%pU\", REC->a6", "%pIScp\", REC->sa", "%piS\", REC->sa",
	};
	unsigned long long nslow, nslow2;
	char *fast, *slow, buf[2048];
	size_t i;

	fast = print_shape(fmt, "net", 0, fill_addresses, 0, 60, &nslow);
	slow = print_shape(fmt, "net", 0, fill_addresses, 1, 60, &nslow2);
	ok(fast && slow && !strcmp(fast, slow) && nslow == 0 && nslow2 == 60,
	   "%%pM, %%pI4, %%pI6c, %%pISpc and their forms: compiled (%llu records left to libtraceevent), same text",
	   nslow);
	if (fast && slow && strcmp(fast, slow))
		diag("own:\n%.2000s\nlibtraceevent:\n%.2000s", fast, slow);
	free(fast);
	free(slow);
	setenv("FTK_PRINT_NOCHECK", "1", 1);
	fast = print_shape(fmt, "net", 0, fill_addresses, 0, 60, &nslow);
	unsetenv("FTK_PRINT_NOCHECK");
	slow = print_shape(fmt, "net", 0, fill_addresses, 1, 60, &nslow2);
	ok(fast && slow && !strcmp(fast, slow), "%%pM, %%pI4, %%pI6c: the own text alone is libtraceevent's");
	free(fast);
	free(slow);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		snprintf(buf, sizeof(buf), "%.*s\"%s\n", (int)(strstr(fmt, "print fmt: ") - fmt + 11),
			 fmt, odd[i]);
		fast = print_shape(buf, "net", 0, fill_addresses, 0, 4, &nslow);
		slow = print_shape(buf, "net", 0, fill_addresses, 1, 4, &nslow2);
		ok(fast && slow && !strcmp(fast, slow) && nslow == 4,
		   "\"%s: left to libtraceevent (%llu of 4)", odd[i], nslow);
		free(fast);
		free(slow);
	}
}

/* Record @i of sys_enter_futex: every command, with each flag, and ops past the table. */
static void fill_futex(unsigned char *data, int i)
{
	unsigned long long op = (i % 16) | (unsigned long long)(i / 16 % 4) << 7;

	if (i % 23 == 22)
		op = i & 1 ? ~0ULL : 0x100000000ULL | 1;
	memcpy(data + 24, &op, 8);
}

/*
 * The futex plugin's handler for syscalls:sys_enter_futex: each command
 * and flag prints as the plugin prints it, an op past its table by the
 * print fmt; without the plugin, the print fmt.
 */
static void check_futex(void)
{
	static const char fmt[] =
		"name: sys_enter_futex\nID: 3\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:int op;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:u32 val;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:const struct __kernel_timespec * utime;\toffset:40;\tsize:8;\tsigned:0;\n"
		"\tfield:u32 * uaddr2;\toffset:48;\tsize:8;\tsigned:0;\n"
		"\tfield:u32 val3;\toffset:56;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"uaddr: 0x%08lx, op: 0x%08lx, val: 0x%08lx, utime: 0x%08lx, "
		"uaddr2: 0x%08lx, val3: 0x%08lx\", ((unsigned long)(REC->uaddr)), "
		"((unsigned long)(REC->op)), ((unsigned long)(REC->val)), "
		"((unsigned long)(REC->utime)), ((unsigned long)(REC->uaddr2)), "
		"((unsigned long)(REC->val3))\n";
	unsigned long long nslow, nslow2;
	char *fast, *slow;
	int plugins;

	for (plugins = 1; plugins >= 0; plugins--) {
		fast = print_shape(fmt, "syscalls", plugins, fill_futex, 0, 100, &nslow);
		slow = print_shape(fmt, "syscalls", plugins, fill_futex, 1, 100, &nslow2);
		ok(fast && slow && !strcmp(fast, slow) && nslow == 0 && nslow2 == 100 &&
		   (!plugins || strstr(slow, "op=FUTEX_CMP_REQUEUE_PI|FUTEX_PRIVATE_FLAG|FUTEX_CLOCK_REALTIME")),
		   "sys_enter_futex%s: compiled (%llu records left to libtraceevent), same text",
		   plugins ? " (futex plugin)" : " (-N)", nslow);
		if (fast && slow && strcmp(fast, slow))
			diag("own:\n%.2000s\nlibtraceevent:\n%.2000s", fast, slow);
		free(fast);
		free(slow);
	}
}

/*
 * Records of @ev with random contents (small numbers often, addresses
 * of the file's functions, valid __data_loc strings), printed by @p.
 */
static void print_random(struct ftk_printer *p, struct tep_event *ev, unsigned int seed, int n)
{
	unsigned char data[512];
	struct tep_record rec = { .ts = 5000000000ULL, .data = data };
	struct tep_format_field *f, *t = tep_find_common_field(ev, "common_type");
	unsigned long long v;
	int i, k, size;

	srand(seed);
	for (i = 0; i < n; i++) {
		for (k = 0; k < (int)sizeof(data); k++)
			data[k] = rand() >> 7;
		size = 0;
		for (f = ev->format.fields; f; f = f->next) {
			if (f->offset + f->size > size)
				size = f->offset + f->size;
			if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) && f->size <= 8 &&
			    (rand() & 1)) {
				v = rand() & ((rand() & 1) ? 0xff : 0xf);
				if (!(rand() & 3))
					v = 0xffffffff81000000ULL + (rand() % 4096) * 0x100;
				memcpy(data + f->offset, &v, f->size);
			}
			if ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char") && f->size > 0)
				data[f->offset + rand() % f->size] = 0;
		}
		if (size > 256)
			continue;
		for (f = ev->format.fields; f; f = f->next) {
			unsigned int l = rand() % 12, off = size, loc;

			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
				continue;
			for (k = 0; k + 1 < (int)l; k++)
				data[off + k] = 'a' + rand() % 26;
			if (l)
				data[off + l - 1] = 0;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= f->offset + 4;
			loc = (off & 0xffff) | (l << 16);
			memcpy(data + f->offset, &loc, 4);
			size += l;
		}
		if (t && t->size == 2)
			memcpy(data + t->offset, &(unsigned short){ ev->id }, 2);
		rec.size = size;
		rec.ts += 1000;
		ftk_printer_print(p, &rec, 0);
	}
}

/*
 * Every event format of a file from a real kernel (the trace-cmd-vm files
 * keep all of the VM kernel's), with random records: each event the own
 * formatter compiles whole must print them as libtraceevent does, its text
 * alone (FTK_PRINT_NOCHECK) against libtraceevent's. Checks the compiler
 * on the shapes real formats have (casts, expressions, __print_flags,
 * __print_symbolic, escapes, %ps), not only those the fixtures record.
 */
static void check_all_formats(const char *path)
{
	struct ftk_tracefile *tf;
	struct tep_event **evs, *sev;
	unsigned char head[8] = { 0 };
	struct tep_record rec = { .ts = 5000000000ULL, .size = 8, .data = head };
	struct tep_handle *tep;
	int i, own = 0, same = 0, slowed;

	unsetenv("FTK_PRINT_SLOW");
	unsetenv("FTK_PRINT_NOCHECK");
	if (ftk_tracefile_open(path, FTK_TRACEFILE_NO_PLUGINS, &tf) < 0) {
		ok(0, "%s: opened", path);
		return;
	}
	tep = ftk_tracefile_tep(tf);
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (i = 0; evs && evs[i]; i++) {
		unsigned long long recs;
		char *text[2] = { NULL, NULL };
		struct ftk_printer *p;
		const char *why;
		size_t len[2];
		FILE *out;
		int slow, k;

		if (evs[i]->id < 0 || evs[i]->id > 0xffff)
			continue;
		/*
		 * Whether it compiles, without libtraceevent: a record of the
		 * common fields alone is shorter than the event's format, and
		 * goes to libtraceevent only as a note, with the reason why the
		 * own formatter did not print it ("unknown" when it compiled).
		 */
		out = fopen("/dev/null", "w");
		p = ftk_printer_new(out, tep, FTK_PRINT_TEXT, 0);
		ftk_printer_add_buffer(p, "", 1);
		memcpy(head, &(unsigned short){ evs[i]->id }, 2);
		ftk_printer_print(p, &rec, 0);
		slowed = 0;
		for (k = 0; (k = ftk_printer_slow(p, k, &sev, &why, &recs));)
			slowed |= strcmp(why, "unknown") != 0;
		ftk_printer_free(p);
		fclose(out);
		if (slowed)
			continue;
		for (slow = 0; slow < 2; slow++) {
			if (slow)
				setenv("FTK_PRINT_SLOW", "1", 1);
			else
				setenv("FTK_PRINT_NOCHECK", "1", 1);
			out = open_memstream(&text[slow], &len[slow]);
			p = ftk_printer_new(out, tep, FTK_PRINT_TEXT, 0);
			ftk_printer_add_buffer(p, "", 1);
			print_random(p, evs[i], i, 40);
			ftk_printer_end(p);
			ftk_printer_free(p);
			fclose(out);
			unsetenv("FTK_PRINT_SLOW");
			unsetenv("FTK_PRINT_NOCHECK");
		}
		if (!slowed && text[0] && text[1] && len[0] > 0) {
			own++;
			if (len[0] == len[1] && !memcmp(text[0], text[1], len[0]))
				same++;
			else
				diag("%s:%s differs:\n%.400s\nlibtraceevent:\n%.400s", evs[i]->system,
				     evs[i]->name, text[0], text[1]);
		}
		free(text[0]);
		free(text[1]);
	}
	ok(own > 500 && same == own, "%s: %d event formats compiled whole, %d print random records as libtraceevent does",
	   path, own, same);
	ftk_tracefile_close(tf);
}

int main(void)
{
	/*
	 * The trace-cmd-vm files (real kernels' formats) must print every
	 * record with the own formatter (@all_own): the function plugin's
	 * indents, the function_graph handlers, __print_symbolic (irq's
	 * softirq events), a kprobe's escaped quotes.
	 */
	static const struct { const char *name; int all_own, noplug; } files[] = {
		{ "synth-v6", 1 }, { "synth-v6-be4", 1 }, { "synth-v6-8k", 0 },
		{ "synth-v6-inst", 0 }, { "synth-v7-zstd-inst", 0 }, { "synth-v6-opts", 0 },
		{ "synth-v6-graph", 1 }, { "synth-v6-graph", 0, 1 },
		{ "synth-v6-bprint", 1 }, { "synth-v6-bprint", 1, 1 },
		{ "trace-cmd-vm/mixed", 1 }, { "trace-cmd-vm/kprobe", 1 },
		{ "trace-cmd-vm/function", 1 }, { "trace-cmd-vm/function-graph", 1 },
		{ "trace-cmd-vm/function", 1, 1 }, { "trace-cmd-vm/function-graph", 1, 1 },
		{ "trace-cmd-vm/marker", 1 }, { "trace-cmd-vm/v7-zstd-sched-2cpu", 1 },
		/* without the sched_switch plugin: %s of ?: and __print_flags() */
		{ "trace-cmd-vm/mixed", 1, 1 }, { "trace-cmd-vm/v7-zstd-sched-2cpu", 1, 1 },
	};
	static const unsigned long long stamps[] = {
		0, 1, 499, 500, 999999, 999999499, 999999500, 1000000000, 1000000499,
		1000000500, 1999999999, 123456789012345ULL, 18446744073709551ULL,
	};
	static const char fmt1[] =
		"name: ev\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"x\"\n";
	const char *src = getenv("top_srcdir");
	struct tep_handle *tep;
	char path[4096];
	size_t i, la, lb;
	int nsec;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		for (nsec = 0; nsec < 2; nsec++) {
			unsigned long long nslow, nslow2;
			char *fast, *slow, why[256], why2[256];

			snprintf(path, sizeof(path), "%s/t/fixtures/%s.dat", src ? src : ".",
				 files[i].name);
			fast = print_file(path, 0, nsec ? FTK_PRINT_NSEC : 0, files[i].noplug, &la,
					  &nslow, why, sizeof(why));
			slow = print_file(path, 1, nsec ? FTK_PRINT_NSEC : 0, files[i].noplug, &lb,
					  &nslow2, why2, sizeof(why2));
			ok(fast && slow && la == lb && !memcmp(fast, slow, la),
			   "%s%s%s: own formatting equals libtraceevent's (%zu/%zu bytes)",
			   files[i].name, nsec ? " -t" : "", files[i].noplug ? " -N" : "", la, lb);
			if (files[i].all_own)
				ok(fast && nslow == 0, "%s%s%s: no record left to libtraceevent (%llu: %s)",
				   files[i].name, nsec ? " -t" : "", files[i].noplug ? " -N" : "",
				   nslow, nslow ? why : "-");
			free(fast);
			free(slow);
		}
	}

	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_parse_event(tep, fmt1, sizeof(fmt1) - 1, "test");
	for (i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++)
		for (nsec = 0; nsec < 2; nsec++)
			check_stamp(tep, stamps[i], nsec);
	tep_free(tep);
	check_div0();
	check_shapes();
	check_addresses();
	check_futex();
	/* function.dat keeps the formats of all the VM kernel's events (1387) */
	snprintf(path, sizeof(path), "%s/t/fixtures/trace-cmd-vm/function.dat", src ? src : ".");
	check_all_formats(path);
	return done_testing();
}
