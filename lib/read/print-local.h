/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The printer's parts, one job a file, sharing the printer:
 *   print.c          the public calls: new, buffers, begin, end, print
 *   print-compile.c  the own print-format compiler (fast text) and the
 *                    checks a record and an event pass before libtraceevent
 *   print-text.c     trace-cmd report's text
 *   print-json.c     JSON, CSV and Chrome/Perfetto trace output
 *   print-graph.c    trace-cmd's ftrace handlers (function_graph, kernel_stack)
 *   print-printk.c   the file's printk formats: bprint and bputs records
 *   print-obuf.c     the output buffer they all write to (the bottom file)
 */
#ifndef FTKIT_PRINT_LOCAL_H
#define FTKIT_PRINT_LOCAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/merge.h>
#include <ftkit/print.h>

#include "comm-local.h"
#include "print-obuf-local.h"

struct pbuf {
	char	*name;
	int	in_ns;
};

/* A CPU's functions, for the function plugin's indent (print-graph.c). */
struct fstack {
	int		size;
	const char	**stack;
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
	char			*file;		/* several files: "FILE: " before each record */
	char			*file_name;	/* and the name alone, for the other formats */
	int			part, parts;	/* ftk_printer_set_part(): index, count (0: alone) */
	int			nrec;
	int			err;
	struct trace_seq	s;
	struct fprog		**progs;	/* per event id, built on first use */
	int			nr_progs;
	int			no_fast;	/* FTK_PRINT_SLOW in the environment */
	int			no_check;	/* FTK_PRINT_NOCHECK: own text never compared */
	int			swap;		/* file endianness differs from ours */
	unsigned int		comm_gen;	/* bumped whenever comms may change */
	struct comm_slot	*comms;		/* pid -> comm cache */
	struct ftk_func_slot	*funcs;		/* address -> function cache (print-obuf.c) */
	struct ftk_comms	*ctab;		/* the tep's comm table (comm.c), or NULL */
	struct obuf		ob;		/* text lines not written yet */
	struct obuf		info;		/* the other formats: a record's text */
	FILE			*csv_fields;	/* csv: a record's fields as JSON, */
	char			*csv_b;		/* written here (open_memstream) */
	size_t			csv_n;
	int			type_off, type_size;	/* common_type, common_pid: */
	int			pid_off, pid_size;	/* read without a field lookup */
	struct ftk_merge	*merge;		/* for function_graph leaves: peeked, never consumed */
	int			leaf_cpu;	/* the funcgraph_exit a leaf printed already: */
	unsigned long long	leaf_ts;	/* it prints nothing when it comes */
	int			leaf_pending;
	struct fstack		*fstacks;	/* ftrace:function: per CPU */
	int			nr_fstacks;
	struct tep_event	*gret;		/* funcgraph_exit, once found */
	struct tep_format_field	*gret_f[3];	/* its func, calltime, rettime */
	unsigned char		*chrome_seen;	/* chrome: pids named in metadata */
	int			*chrome_pids;
	int			chrome_npids, chrome_apids;
	struct ftk_printk	*printk;	/* the file's printk formats, on first use */
	int			printk_none;	/* none kept for this tep */
	unsigned char		*bcheck;	/* a bprint format printed first: its checked flag */
	int			clamped;	/* this record's text had a width cut: not compared */
};

#define COMM_SLOTS	4096

struct comm_slot {
	unsigned int	gen;
	int		pid;
	unsigned short	len;
	char		comm[30];
};

/*
 * Printing an event's own text through tep_print_event() costs about
 * three quarters of the time of a report. For the events whose print
 * format is plain (literal text and %d %u %x %s of fields, __get_str(),
 * __print_symbolic(), %s of ?: and of a string's kernel address), for
 * ftrace:bprint's printk formats (print-printk.c) and for the sched_switch
 * and sched_wakeup plugins, the text is
 * formatted here instead, with the same reads and casts libtraceevent
 * makes (fields read unsigned at their size, then cast to int, long or
 * long long by the length modifier). The first CHECK_FIRST records of
 * every event are also printed by libtraceevent and compared: an event
 * whose output differs goes back to libtraceevent for good, so a newer
 * libtraceevent or plugin cannot make the text wrong.
 */
#define CHECK_FIRST	32
#define MAX_OPS		64

enum fop_kind { FOP_LIT, FOP_NUM, FOP_STR, FOP_DSTR, FOP_SYM, FOP_FLAGS, FOP_FUNC, FOP_EXPR,
	       FOP_PSTR, FOP_SCOND, FOP_ADDR };

/* FOP_ADDR: the address a field holds (%pM, %pm, %pI4, %pi4, %pI6, %pi6, %pI6c, %pISpc) */
enum { ADDR_MAC, ADDR_IP4, ADDR_IP6, ADDR_IP6C, ADDR_SA, ADDR_SAC };

/*
 * A node of a number argument that is an expression, ((unsigned int)
 * ((REC->dev) >> 20)): evaluated as libtraceevent's eval_num_arg() does,
 * in unsigned long long, each node's value masked by the casts around it.
 */
enum { EX_CONST, EX_FIELD, EX_OP, EX_COND };

struct fexpr {
	unsigned long long	val;	/* EX_CONST */
	unsigned long long	mask;	/* of the casts around the node */
	unsigned int		off, size;	/* EX_FIELD */
	short			l, r, c;	/* operands; EX_COND: c ? l : r */
	unsigned char		kind;
	char			op[3];	/* EX_OP */
};

#define MAX_EXPR	64

/* A __print_symbolic() pair: the value and its name (the tep handle's). */
struct fsym {
	unsigned long long	val;
	const char		*str;
	unsigned int		len;
};

struct fop {
	/* what every record reads first: the first cache line */
	enum fop_kind	kind;
	int		ls;		/* number of 'l's */
	int		plain;		/* bare %d/%u/%s: no flags, width or precision */
	int		zpad;		/* "%0Nx"-style: zero-padded to width, done here */
	int		width;
	char		conv;
	char		pconv;		/* FOP_FUNC: the letter after %p (s S f F) */
	unsigned int	off, size;
	int		rel;		/* FOP_DSTR: __rel_loc, offset from the field's end */
	unsigned long long mask;	/* FOP_NUM, _SYM, _FLAGS: of a cast (u8, int, ...): all ones if none */
	const char	*lit;		/* FOP_LIT; FOP_FLAGS: the delimiter (or NULL) */
	unsigned int	litlen;
	int		clamped;	/* a width of fmt was cut (ftk_print_clamp_widths()) */
	unsigned char	addr;		/* FOP_ADDR: ADDR_MAC, ... */
	unsigned char	addr_rev;	/* FOP_ADDR: the bytes last to first (%pMR, %pI4h, %pI4l) */
	unsigned char	addr_lz;	/* FOP_ADDR: %pi4's 3 digits a byte */
	char		addr_sep;	/* FOP_ADDR: between a MAC's bytes or an IPv6's words, or 0 */
	unsigned char	addr_port;	/* FOP_ADDR: %pISp's port */
	char		fmt[24];
	struct fsym	*syms;		/* FOP_SYM, FOP_FLAGS: in the print fmt's order */
	int		nsyms;
	struct fexpr	*ex;		/* FOP_EXPR, and FOP_FUNC of one: node 0 is the root;
					 * FOP_SCOND: the condition */
	struct fop	*alt;		/* FOP_SCOND: the strings if true [0] and if not [1] */
	struct tep_format_field *field;	/* the argument's field under its casts, or NULL */
};

enum { PROG_SLOW, PROG_GENERIC, PROG_SWITCH, PROG_WAKEUP, PROG_PRINT, PROG_UNSAFE,
       PROG_GRAPH_ENTRY, PROG_GRAPH_EXIT, PROG_STACK, PROG_FUNCTION, PROG_RAW_DATA, PROG_BPRINT,
       PROG_TLB, PROG_RAW, PROG_HRTIMER, PROG_FUTEX };

/* A field as tep_print_fields() prints it (PROG_RAW, see compile_raw()). */
struct rawf {
	struct tep_format_field	*f;
	size_t			namelen;	/* of f->name */
	int			op;	/* through ops[op], or -1: print_field_raw()'s */
	int			has0x;	/* "0x" before it */
};

struct fprog {
	struct tep_event	*ev;
	size_t			namelen;	/* of ev->name, for the line head */
	unsigned int		min_size;	/* fixed fields end here */
	int			kind;
	int			checked;
	int			nops;
	struct tep_format_field	*call_site;	/* PROG_GENERIC: the kmem plugin's prefix first */
	struct rawf		*raw;		/* PROG_RAW: the fields */
	int			nraw;
	int			failed;		/* PROG_RAW: "[FAILED TO PARSE]" first */
	const char		*why;		/* PROG_SLOW, PROG_UNSAFE: why not compiled */
	unsigned long long	slow;		/* records printed by libtraceevent */
	char			*text;		/* literals with escapes, unescaped */
	size_t			textlen;
	/* plugin layouts */
	struct tep_format_field	*f[8];
	unsigned char		state_ok[32];	/* PROG_SWITCH, _FUTEX: states checked against the plugin */
	int			indent;		/* PROG_FUNCTION: the plugin's indent option */
	/* last: what comes before fits the first cache lines, read for every record */
	struct fop		ops[MAX_OPS];
};

static inline unsigned long long rdn(struct ftk_printer *p, const void *ptr, int size)
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

/* print-compile.c */
struct fprog *ftk_print_compile(struct ftk_printer *p, struct tep_event *ev);
void ftk_print_prog_free(struct fprog *pr);
int ftk_print_record_ok(struct ftk_printer *p, struct tep_event *ev, const struct tep_record *rec);
/* print-text.c */
struct fprog *ftk_print_prog(struct ftk_printer *p, struct tep_event *ev);
void ftk_print_info(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
		    const char *what);
int ftk_print_text(struct ftk_printer *p, const struct tep_record *crec, int buf,
		   struct tep_event *ev);
int ftk_print_flush(struct ftk_printer *p);
void ftk_print_event_text(struct ftk_printer *p, struct tep_record *rec, struct tep_event *ev,
			  struct obuf *o);
/* print-printk.c */
struct ftk_printk;
void ftk_printk_free(struct ftk_printk *t);
int ftk_print_bprint(struct ftk_printer *p, struct fprog *pr, const struct tep_record *rec,
		     struct obuf *o);
int ftk_print_pstr(struct ftk_printer *p, struct obuf *o, const void *field, const char **why);
/* print-json.c */
int ftk_print_other(struct ftk_printer *p, const struct tep_record *crec, int buf,
		    struct tep_event *ev);
/* print-graph.c */
void ftk_print_graph_register(struct ftk_printer *p);
int ftk_print_graph_compile(struct ftk_printer *p, struct tep_event *ev,
			    struct tep_format_field **f);
int ftk_print_graph_entry(struct ftk_printer *p, struct obuf *o, unsigned long long func,
			  unsigned long long depth, int pid);
void ftk_print_graph_exit(struct obuf *o, unsigned long long calltime, unsigned long long rettime,
			  unsigned long long depth);
void ftk_print_graph_stack(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
			   const struct tep_format_field *f);
const char *ftk_print_plugin_compile(struct ftk_printer *p, struct tep_event *ev,
				     struct tep_format_field **f, int *indent, int *kind);
void ftk_print_raw_data(struct ftk_printer *p, struct obuf *o, const struct tep_record *rec,
			unsigned long long id, const struct tep_format_field *buf);
void ftk_print_function(struct ftk_printer *p, struct obuf *o, unsigned long long ip,
			unsigned long long parent_ip, int cpu, int indent);

/* print-compile.c: the widest a conversion prints, and cutting a spec to it */
#define FTK_PRINT_WIDTH_MAX	65536
int ftk_print_clamp_widths(char *s, size_t *np);

#endif
