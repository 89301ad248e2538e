/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the latency tools (ftsyscount, ftexecsnoop, ftopensnoop,
 * ftrunqlat, ftfunclat, ...) share: the private instance with the mono
 * clock, the -p/COMMAND pid filter, the events and uprobes they enable,
 * field access, and the loop that reads the live buffer in time order
 * while COMMAND runs, for -D seconds or until Ctrl-C, with -i ticks.
 *
 *	struct lat l = { .name = "ftsyscount" };
 *	lat_open(&l, &args, pid);		// the session, COMMAND forked
 *	lat_event(&l, "raw_syscalls:sys_exit", NULL);
 *	ev = lat_find(&l, "raw_syscalls", "sys_exit");
 *	code = lat_run(&l, on_record, ctx, tick, interval);
 *	... print, lat_lost(&l, stdout) ...
 *	tool_exit(code);			// the session taken down on the way
 */
#ifndef FTK_TOOL_LAT_H
#define FTK_TOOL_LAT_H

/* Usage lines of the options the latency tools share, in the same words. */
#define LAT_HELP_TIMESTAMP \
"  -t, --timestamp       a time stamp column (seconds since the start)\n"
#define LAT_HELP_PID \
"  -p, --pid PID         this process only\n"
#define LAT_HELP_D \
"  -d SECS               as -D\n"
#define LAT_HELP_JSON \
"      --json            one JSON object a line\n"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "tool.h"
#include <ftkit/heatmap.h>
#include <ftkit/latency.h>
#include <ftkit/live.h>
#include <ftkit/session.h>
#include <ftkit/stream.h>
#include <ftkit/trigger.h>

/* What lat_parse() takes for the tools: the options they share. */
struct lat_opt {
	const char		*heatmap;	/* --heatmap FILE */
	double			interval;	/* -i, --interval SECS */
	pid_t			pid;		/* -p, --pid PID */
	int			json;		/* --json */
	int			stamps;		/* -t, --timestamp */
	int			unit;		/* -m, -u: 'm', 'u'; -n: 0 (the tool's default before) */
};

struct lat {
	const char		*name;		/* the tool, for the instance name */
	struct lat_opt		opt;		/* lat_parse()'s */
	struct tool_args	*args;
	struct ftk_session	*s;		/* the trace, from lat_open() to the exit */
	struct ftk_tracefs	*t;		/* the session's instance */
	struct ftk_tracefs	*top;		/* the session's top level, for uprobes */
	struct ftk_live		*live;		/* the session's reader, once lat_tep() opened it */
	struct tep_handle	*tep;
	struct tool_cmd		cmd;
	int			has_cmd;
	pid_t			pid;		/* -p, or COMMAND's */
	int			verbose;	/* -v given */
	int			all_tasks;
	int			stream;		/* --stream: pair in user space even where the kernel can */
	struct ftk_heatmap	*heat;		/* --heatmap, or NULL */
	FILE			*heat_out;	/* every task's events, also with COMMAND (set before lat_open) */
	uint64_t		start_ns;	/* the trace clock (mono) as tracing began: -t's zero */
	char			instance[128];
};

/* The options a latency tool shares with the others, as struct lat_def.shared asks. */
enum lat_opt_shared {
	LAT_OPT_PID		= 1 << 0,	/* -p, --pid PID */
	LAT_OPT_INTERVAL	= 1 << 1,	/* -i, --interval SECS */
	LAT_OPT_JSON		= 1 << 2,	/* --json */
	LAT_OPT_HEATMAP		= 1 << 3,	/* --heatmap FILE.svg */
	LAT_OPT_STREAM		= 1 << 4,	/* --stream (struct lat's stream) */
	LAT_OPT_TIMESTAMP	= 1 << 5,	/* -t, --timestamp */
	LAT_OPT_MSECS		= 1 << 6,	/* -m, --msecs */
	LAT_OPT_USECS		= 1 << 7,	/* -u, --usecs */
	LAT_OPT_NSECS		= 1 << 8,	/* -n, --nsecs */
};

/* A latency tool for lat_parse(): its own options, and the shared ones it takes. */
struct lat_def {
	const char		*name;
	const char		*usage;
	const char		*opts;		/* its own short options, getopt syntax */
	const struct option	*longopts;	/* its own long options ({ } ends them), or NULL */
	void			(*option)(int opt, char *arg, void *ctx);	/* its own */
	unsigned int		shared;		/* LAT_OPT_* */
	int			operands;	/* before COMMAND, as tool_def.operands */
};

/*
 * Parse the command line the way every latency tool does: the options of
 * @d->shared into @l->opt (and --stream into @l->stream), -d SECS as -D,
 * -B, -D and a COMMAND after the options (tool_parse()), the tool's own
 * through @d->option(opt, arg, @ctx). @l->args = @a.
 */
void lat_parse(struct lat *l, const struct lat_def *d, int argc, char **argv,
	       struct tool_args *a, void *ctx);

/*
 * The session (ftk_session_new(): the private instance or -B's, mono clock,
 * buffers, task names), taken down at the tool's exit; fork COMMAND, to be
 * traced from its exec on; the pid filter (COMMAND and its children, or
 * every thread of -p), unless @l->all_tasks (events of no task: I/O
 * completions).
 */
void lat_open(struct lat *l, struct tool_args *args, pid_t pid);
/* Enable SYS:EVENT in the instance, with @filter if not NULL; dies with the reason. */
void lat_event(struct lat *l, const char *event, const char *filter);
/*
 * A uprobe (or uretprobe with "%return") from an ftprobe-style spec
 * ("BINARY:SYMBOL [ARGS]"), named @name in this run's group, made at the
 * top level (removed on exit) and enabled in the instance. 0, or -errno
 * with the reason in @why (if not NULL) when it cannot be made.
 */
int lat_uprobe(struct lat *l, const char *spec, const char *name, char *why, size_t len);
/* A function traced by uprobe (BINARY:SYMBOL) or kprobe (SYMBOL) pairs. */
struct lat_func {
	const char		*spec;		/* as given */
	int			kernel;		/* a kernel function (kprobes) */
	int			entry_id;	/* tep event ids, after lat_funcs_find() */
	int			ret_id;		/* -1 without a return probe */
	struct tep_format_field	*f_ret;		/* the return probe's "ret" */
};
/*
 * Probes on entry (and return, with @ret) of each function; dies with the
 * kernel's reason where it forbids them ("kprobes: ... lockdown").
 */
struct lat_func *lat_funcs(struct lat *l, char **specs, int n, int ret);
/*
 * FUNCTION... [-- COMMAND]: the functions (lat_def.operands of them, taken
 * by lat_parse()) into *@funcs, their count returned; one only unless @many.
 */
int lat_func_args(struct tool_args *a, char ***funcs, int many);
/* Event ids and fields, once the formats are read. */
void lat_funcs_find(struct lat *l, struct lat_func *f, int n);
/* The function of event @type: its index, *@is_ret set; -1 if none. */
int lat_func_of(const struct lat_func *f, int n, int type, int *is_ret);

/*
 * A pairing by thread for entry and return probes, where a thread's calls
 * nest (recursion): its returns pair innermost first. Dies without memory.
 */
struct ftk_pair *lat_pair_nested(void);

/* The event, after lat_run() began or lat_tep(); dies if the kernel has none. */
struct tep_event *lat_find(struct lat *l, const char *sys, const char *name);
/* The field of @ev; dies if missing. */
struct tep_format_field *lat_field(struct lat *l, struct tep_event *ev, const char *name);
/* Read the live buffer's formats now (done by lat_run() otherwise). */
struct tep_handle *lat_tep(struct lat *l);
/* The event type (tep id) of @rec, a record lat_run() handed over. */
static inline int lat_type(const struct lat *l, const struct tep_record *rec)
{
	return tep_data_type(l->tep, (struct tep_record *)rec);
}


/*
 * Start tracing (and COMMAND), hand records to @fn in time order until
 * COMMAND ends, -D passes or a signal, calling @tick every @interval
 * seconds (0: never); read what is left. @fn NULL: records are read and
 * dropped (the kernel path, whose result is read after). Returns
 * COMMAND's exit code as a shell reports it (0 without one).
 */
int lat_run(struct lat *l, ftk_live_fn fn, void *ctx, void (*tick)(void *ctx), double interval);
/*
 * --heatmap FILE: the output made now (so that a bad path fails before
 * tracing), columns @interval seconds wide (-i), else 10 ms doubling to
 * fit 200; lat_heat() adds samples, lat_heat_write() draws the whole run.
 */
void lat_heatmap(struct lat *l, const char *path, double interval);
static inline void lat_heat(struct lat *l, uint64_t ts, uint64_t value)
{
	if (l->heat && ftk_heatmap_add(l->heat, ts, value))
		tool_die("out of memory");
}
/* -t: seconds from the start of tracing (lat_run()) to the record's time @ts. */
static inline double lat_since_start(const struct lat *l, uint64_t ts)
{
	return ts > l->start_ns ? (ts - l->start_ns) / 1e9 : 0;
}
/* Write the heat map (if asked), @title and @unit on it; dies with the reason. */
void lat_heat_write(struct lat *l, const char *title, const char *unit);
#define LAT_HELP_HEATMAP \
"      --heatmap FILE    an SVG heat map of the latencies over time (whole run)\n"

/*
 * The kernel path: where the kernel has hist triggers (on @event) and
 * synthetic events, the pairing and the histogram run there and the tool
 * reads the result at the end. 1 to take it; 0 (and -v says why) with
 * --stream, when @blocker (an option the kernel cannot do, "-w") is not
 * NULL, or when the kernel lacks them.
 */
int lat_kernel_ok(struct lat *l, const char *event, const char *blocker);
/*
 * A synthetic latency event "OWNER_@suffix" between @o->start and @o->end
 * (ftk_trigger_latency_add(), @o->name filled in), its "synthetic:NAME"
 * into @event; dies with the kernel's reason.
 */
void lat_latency(struct lat *l, struct ftk_trigger_latency_opts *o, const char *suffix,
		 char *event, size_t len);
/*
 * What the two hists of lat_latency()'s @o had no room for (their Dropped:
 * starts or ends not paired), to be said with the results.
 */
uint64_t lat_latency_dropped(struct lat *l, const struct ftk_trigger_latency_opts *o);
/* Add hist trigger @trigger on @event, journaled; dies with the reason. */
void lat_hist(struct lat *l, const char *event, const char *trigger);
/*
 * Read back the hist of @event whose trigger has @match in its text
 * (ftk_trigger_hist_parse(): the keys and values named, each row to @fn,
 * the totals into @tot if not NULL). Dies if the hist cannot be read.
 */
void lat_hist_read(struct lat *l, const char *event, const char *match, const char *keys,
		   const char *vals, ftk_trigger_hist_fn fn, void *ctx,
		   struct ftk_trigger_hist_totals *tot);
/*
 * "Dropped N samples: the kernel's hist table was full" on @f if @dropped
 * (the kernel path's loss, said with the results as lost events are).
 */
void lat_dropped_print(uint64_t dropped, FILE *f);
#define LAT_HELP_STREAM \
"      --stream          pair in user space even where the kernel could (see -v)\n"

/* Lost events and records, for the results: 0 if none. */
uint64_t lat_lost(struct lat *l);
/* "Lost N events" on @f if any were lost (said with the results, never silently). */
void lat_lost_print(struct lat *l, FILE *f);
/* -v: how the numbers were made ("stream: ..." or "kernel: ..."). */
void lat_path(struct lat *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The unit chosen with -m/-u ("msecs", "usecs", "nsecs") and its divisor of nanoseconds. */
const char *lat_unit(int unit_opt, uint64_t *div);
/* Exit (restoring tracefs) if writing stdout failed, a closed pipe included. */
void lat_check_out(struct lat *l);

#endif
