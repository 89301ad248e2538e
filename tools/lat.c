// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The latency tools' shared setup and read loop (see lat.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lat.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Per CPU: room for bursts (an exec storm, a syscall loop) between two reads. */
#define LAT_BUFFER_KB	8192
/* Between reads of the live buffer. */
#define LAT_PERIOD_NS	50000000L

/* The shared options: letter (0: long only), long name, argument, LAT_OPT_* */
static const struct {
	int		val;
	const char	*name;
	int		has_arg;
	unsigned int	bit;
} shared_opts[] = {
	{ 'p', "pid", required_argument, LAT_OPT_PID },
	{ 'i', "interval", required_argument, LAT_OPT_INTERVAL },
	{ 'J', "json", no_argument, LAT_OPT_JSON },
	{ 'H', "heatmap", required_argument, LAT_OPT_HEATMAP },
	{ 'S', "stream", no_argument, LAT_OPT_STREAM },
	{ 't', "timestamp", no_argument, LAT_OPT_TIMESTAMP },
	{ 'm', "msecs", no_argument, LAT_OPT_MSECS },
	{ 'u', "usecs", no_argument, LAT_OPT_USECS },
	{ 'n', "nsecs", no_argument, LAT_OPT_NSECS },
};

/* Long-only options: codes no letter takes. */
static int long_only(int val)
{
	return val == 'J' || val == 'H' || val == 'S';
}

struct lat_parse_ctx {
	struct lat		*l;
	const struct lat_def	*d;
	void			*ctx;
};

/* A shared option the tool asked for goes into struct lat; the others to the tool. */
static void lat_option(int opt, char *arg, void *ctx)
{
	struct lat_parse_ctx *c = ctx;
	struct lat_opt *o = &c->l->opt;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shared_opts); i++)
		if (shared_opts[i].val == opt && (c->d->shared & shared_opts[i].bit))
			break;
	if (i == ARRAY_SIZE(shared_opts) && opt != 'd') {
		if (c->d->option)
			c->d->option(opt, arg, c->ctx);
		return;
	}
	switch (opt) {
	case 'd': c->l->args->duration = tool_seconds(arg); return;
	case 'p': o->pid = tool_pid(arg); return;
	case 'i': o->interval = tool_seconds(arg); return;
	case 'J': o->json = 1; return;
	case 'H': o->heatmap = arg; return;
	case 'S': c->l->stream = 1; return;
	case 't': o->stamps = 1; return;
	case 'm': case 'u': o->unit = opt; return;
	case 'n': o->unit = 0; return;
	}
}

void lat_parse(struct lat *l, const struct lat_def *d, int argc, char **argv,
	       struct tool_args *a, void *ctx)
{
	struct lat_parse_ctx c = { .l = l, .d = d, .ctx = ctx };
	size_t nown = 0, n = 0, i;
	struct tool_def td;
	struct option *lo;
	char *so, *p;

	while (d->longopts && d->longopts[nown].name)
		nown++;
	lo = calloc(nown + ARRAY_SIZE(shared_opts) + 1, sizeof(*lo));
	so = malloc(strlen(d->opts ? d->opts : "") + 2 * ARRAY_SIZE(shared_opts) + 3);
	if (!lo || !so)
		tool_die("out of memory");
	for (i = 0; i < nown; i++)
		lo[n++] = d->longopts[i];
	p = so + sprintf(so, "%sd:", d->opts ? d->opts : "");
	for (i = 0; i < ARRAY_SIZE(shared_opts); i++) {
		if (!(d->shared & shared_opts[i].bit))
			continue;
		lo[n].name = shared_opts[i].name;
		lo[n].has_arg = shared_opts[i].has_arg;
		lo[n++].val = shared_opts[i].val;
		if (long_only(shared_opts[i].val))
			continue;
		*p++ = shared_opts[i].val;
		if (shared_opts[i].has_arg)
			*p++ = ':';
	}
	*p = '\0';
	td = (struct tool_def){
		.name = d->name, .usage = d->usage, .opts = so, .longopts = lo,
		.option = lat_option, .common = TOOL_OPT_INSTANCE | TOOL_OPT_DURATION |
		TOOL_OPT_COMMAND, .operands = d->operands,
	};
	l->args = a;
	tool_parse(&td, argc, argv, a, &c);
	free(lo);
	free(so);
}

/* The session's last failure, and exit. */
static void __attribute__((noreturn)) lat_die(struct lat *l)
{
	tool_die("%s", ftk_session_errmsg(l->s));
}

void lat_open(struct lat *l, struct tool_args *args, pid_t pid)
{
	FTK_OPTS(ftk_session_opts, o, .tool = l->name, .instance = args->instance,
		 .clock = "mono", .buffer_kb = LAT_BUFFER_KB, .flags = FTK_SESSION_COMMS);

	l->args = args;
	l->verbose = ftk_log_level() >= FTK_LOG_INFO;
	if (pid && args->argv)
		tool_usage_error("-p and a COMMAND do not go together");
	tool_signals();
	signal(SIGPIPE, SIG_IGN);
	/* formats libtraceevent cannot parse are of events these tools do not read */
	tep_set_loglevel(TEP_LOG_CRITICAL);
	l->s = tool_session(&o);
	l->t = ftk_session_tracefs(l->s);
	l->top = ftk_session_top(l->s);
	if (!l->top)
		lat_die(l);
	if (args->argv) {
		tool_cmd_fork_flags(&l->cmd, args->argv, ftk_session_instance(l->s),
				    TOOL_CMD_EXEC_GATE);
		tool_cmd_on_exec(&l->cmd, tool_session_start, l->s);
		l->has_cmd = 1;
		l->pid = l->cmd.pid;
		if (!l->all_tasks && ftk_session_pid(l->s, l->pid, FTK_SESSION_PID_FOLLOW))
			lat_die(l);
	} else if (pid) {
		l->pid = pid;
		if (ftk_session_pid(l->s, pid, 0))
			lat_die(l);
	}
}

void lat_event(struct lat *l, const char *event, const char *filter)
{
	if (ftk_session_event(l->s, event, filter))
		lat_die(l);
}

int lat_uprobe(struct lat *l, const char *spec, const char *name, char *why, size_t len)
{
	struct ftk_probe *p = ftk_probe_new();
	char group[64], event[160];
	int ret;

	if (!p)
		tool_die("out of memory");
	ftk_probe_owner_group(group, sizeof(group));
	{
		FTK_OPTS(ftk_probe_opts, o, .group = group, .name = name,
			 .pid = l->pid > 0 && !l->has_cmd ? l->pid : 0);

		ret = ftk_probe_parse(p, spec, &o);
	}
	if (!ret)
		ret = ftk_probe_create(p, l->top, FTK_PROBE_JOURNAL);
	if (ret) {
		if (why)
			snprintf(why, len, "%s", ftk_probe_errmsg(p));
		ftk_probe_free(p);
		return ret;
	}
	snprintf(event, sizeof(event), "%s:%s", ftk_probe_group(p), ftk_probe_name(p));
	ftk_probe_free(p);
	lat_event(l, event, NULL);
	return 0;
}

struct tep_handle *lat_tep(struct lat *l)
{
	if (l->tep)
		return l->tep;
	l->live = ftk_session_live(l->s);
	if (!l->live)
		lat_die(l);
	l->tep = ftk_live_tep(l->live);
	return l->tep;
}

struct tep_event *lat_find(struct lat *l, const char *sys, const char *name)
{
	struct tep_event *ev;

	lat_tep(l);
	ev = ftk_live_event(l->live, sys, name);

	if (!ev) {
		tool_err("this kernel has no event %s:%s", sys, name);
		tool_exit(EXIT_FAIL);
	}
	return ev;
}

struct tep_format_field *lat_field(struct lat *l, struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f) {
		tool_err("event %s:%s has no field '%s'", ev->system, ev->name, name);
		tool_exit(EXIT_FAIL);
	}
	return f;
}

static void read_or_die(struct lat *l, ftk_live_fn fn, void *ctx, unsigned int flags)
{
	if (ftk_session_read(l->s, fn, ctx, flags) < 0) {
		tool_err("%s", ftk_session_errmsg(l->s));
		tool_exit(EXIT_FAIL);
	}
}

/* The kernel path's reader: its records (none, or an exec) matter to no one. */
static int no_record(void *ctx, const struct tep_record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

int lat_run(struct lat *l, ftk_live_fn fn, void *ctx, void (*tick)(void *ctx), double interval)
{
	struct timespec ts = { 0, LAT_PERIOD_NS };
	double start, next, now;
	struct ftk_live_stats st;

	if (!fn)
		fn = no_record;
	lat_tep(l);
	ftk_live_stats(l->live, &st);
	if (!st.ordered)
		tool_warn("trace clock is not mono: records of two CPUs may come out of order");
	/*
	 * -t's zero: now, as tracing starts (or COMMAND is started, whose exec
	 * turns it on); the instance's clock is mono, CLOCK_MONOTONIC's base.
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	l->start_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	ts = (struct timespec){ 0, LAT_PERIOD_NS };
	/* with COMMAND, tracing starts at its exec (lat_arm()) */
	if (!l->has_cmd && ftk_session_start(l->s))
		lat_die(l);
	if (l->has_cmd && tool_cmd_start(&l->cmd))
		tool_exit(tool_cmd_code(&l->cmd));
	if (ftk_log_level() >= FTK_LOG_WARN && !l->has_cmd)
		fprintf(stderr, "Tracing... Ctrl-C to end.\n");
	start = tool_now();
	next = start + interval;
	while (!tool_stop) {
		read_or_die(l, fn, ctx, 0);
		if (l->has_cmd && tool_cmd_done(&l->cmd))
			break;
		/* -p PID: its end is the end, as a COMMAND's is */
		if (!l->has_cmd && l->pid > 0 && !ftk_perf_alive(&l->pid, 1)) {
			tool_warn("process %d ended", (int)l->pid);
			break;
		}
		now = tool_now();
		if (l->args->duration && now - start >= l->args->duration)
			break;
		if (tick && interval > 0 && now >= next) {
			tick(ctx);
			next += interval;
		}
		nanosleep(&ts, NULL);
	}
	if (l->has_cmd && !tool_cmd_done(&l->cmd))
		tool_cmd_kill(&l->cmd);
	/* what the command did up to its end, or up to now */
	read_or_die(l, fn, ctx, FTK_LIVE_FINAL);
	ftk_session_stop(l->s);
	return l->has_cmd ? tool_cmd_code(&l->cmd) : 0;
}

void lat_heatmap(struct lat *l, const char *path, double interval)
{
	l->heat_out = tool_output(path, 0, NULL);
	l->heat = interval > 0 ? ftk_heatmap_new(interval * 1e9, FTK_HEATMAP_MAX_COLS) :
				 ftk_heatmap_new(0, 0);
	if (!l->heat)
		tool_die("out of memory");
}

void lat_heat_write(struct lat *l, const char *title, const char *unit)
{
	if (!l->heat)
		return;
	ftk_heatmap_write_svg(l->heat, l->heat_out, title, unit);
	if (tool_output_close(l->heat_out, 0))
		tool_exit(EXIT_FAIL);
	l->heat_out = NULL;
	lat_path(l, "heat map: %llu samples in columns of %.3g s", (unsigned long long)
		 ftk_heatmap_total(l->heat), ftk_heatmap_col_ns(l->heat) / 1e9);
	ftk_heatmap_free(l->heat);
	l->heat = NULL;
}

uint64_t lat_lost(struct lat *l)
{
	struct ftk_live_stats st;

	if (!l->live)
		return 0;
	ftk_live_stats(l->live, &st);
	return st.lost + st.lost_unknown;
}

void lat_lost_print(struct lat *l, FILE *f)
{
	struct ftk_live_stats st;

	if (!l->live)
		return;
	ftk_live_stats(l->live, &st);
	if (st.lost)
		fprintf(f, "Lost %llu events: the counts above are short (a larger "
			"buffer, or fewer events, helps)\n", (unsigned long long)st.lost);
	if (st.lost_unknown)
		fprintf(f, "Lost events in %llu sub-buffers, uncounted\n",
			(unsigned long long)st.lost_unknown);
}

void lat_path(struct lat *l, const char *fmt, ...)
{
	va_list ap;

	if (!l->verbose)
		return;
	fprintf(stderr, "%s: ", tool_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *lat_unit(int unit_opt, uint64_t *div)
{
	switch (unit_opt) {
	case 'm':
		*div = 1000000;
		return "msecs";
	case 'u':
		*div = 1000;
		return "usecs";
	default:
		*div = 1;
		return "nsecs";
	}
}

void lat_check_out(struct lat *l)
{
	if (fflush(stdout) || ferror(stdout))
		tool_exit(EXIT_FAIL);
}

static void func_probe(struct lat *l, struct lat_func *f, int i, int ret)
{
	char spec[4096], name[32], why[512];
	const struct ftk_cap *cap;
	struct ftk_caps *caps;

	snprintf(name, sizeof(name), ret ? "lat%d_ret" : "lat%d", i);
	snprintf(spec, sizeof(spec), "%s%s", f->spec, ret ? "%return ret=$retval:s64" : "");
	if (!lat_uprobe(l, spec, name, why, sizeof(why)))
		return;
	if (f->kernel && !ftk_caps_probe(l->top, &caps) && (cap = ftk_caps_get(caps, "kprobes")) &&
	    !cap->usable)
		/* the capability's own reason says why, better than the write's errno */
		tool_err("cannot trace kernel function '%s': %s: %s", f->spec, cap->name, cap->reason);
	else if (f->kernel)
		tool_err("cannot trace kernel function '%s': %s", f->spec, why);
	else
		tool_err("cannot trace '%s': %s", f->spec, why);
	tool_exit(EXIT_FAIL);
}

struct lat_func *lat_funcs(struct lat *l, char **specs, int n, int ret)
{
	struct lat_func *f = calloc(n, sizeof(*f));
	int i;

	if (!f)
		tool_die("out of memory");
	for (i = 0; i < n; i++) {
		f[i].spec = specs[i];
		f[i].kernel = !strchr(specs[i], ':');
		f[i].ret_id = -1;
		func_probe(l, &f[i], i, 0);
		if (ret)
			func_probe(l, &f[i], i, 1);
	}
	lat_path(l, "stream: %s probes on entry%s, paired by thread from the live buffer",
		 f[0].kernel ? "kprobe" : "uprobe", ret ? " and return" : "");
	return f;
}

int lat_func_args(struct tool_args *a, char ***funcs, int many)
{
	if (!a->nrest)
		tool_usage_error("which function?");
	if (!many && a->nrest > 1)
		tool_usage_error("one FUNCTION only");
	*funcs = a->rest;
	return a->nrest;
}

void lat_funcs_find(struct lat *l, struct lat_func *f, int n)
{
	char group[64], name[32];
	struct tep_event *ev;
	int i;

	ftk_probe_owner_group(group, sizeof(group));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "lat%d", i);
		f[i].entry_id = lat_find(l, group, name)->id;
		snprintf(name, sizeof(name), "lat%d_ret", i);
		ev = ftk_live_event(l->live, group, name);
		if (ev) {
			f[i].ret_id = ev->id;
			f[i].f_ret = lat_field(l, ev, "ret");
		}
	}
}

/* Deeper than this, a thread's pending entries are replaced (returns lost, a longjmp). */
#define LAT_NEST_DEPTH	4096

struct ftk_pair *lat_pair_nested(void)
{
	struct ftk_pair *p = ftk_pair_new();

	if (!p || ftk_pair_nest(p, LAT_NEST_DEPTH))
		tool_die("out of memory");
	return p;
}

int lat_func_of(const struct lat_func *f, int n, int type, int *is_ret)
{
	int i;

	for (i = 0; i < n; i++) {
		if (type == f[i].entry_id || type == f[i].ret_id) {
			*is_ret = type == f[i].ret_id;
			return i;
		}
	}
	return -1;
}

int lat_kernel_ok(struct lat *l, const char *event, const char *blocker)
{
	char why[600];

	if (l->stream)
		lat_path(l, "no kernel path: --stream");
	else if (blocker)
		lat_path(l, "no kernel path: %s needs the stream", blocker);
	else if (!ftk_trigger_latency_ok(l->t, l->top, event, why, sizeof(why)))
		lat_path(l, "no kernel path: %s", why);
	else
		return 1;
	return 0;
}

void lat_latency(struct lat *l, struct ftk_trigger_latency_opts *o, const char *suffix,
		 char *event, size_t len)
{
	char name[128];

	if (ftk_probe_owner_group(name, sizeof(name) - 32))
		tool_die("cannot name a synthetic event");
	snprintf(name + strlen(name), 32, "_%s", suffix);
	o->name = name;
	if (ftk_trigger_latency_add(l->t, o)) {
		tool_err("cannot make synthetic event %s (%s -> %s): %s", name, o->start, o->end,
			 ftk_tracefs_errmsg(l->t));
		tool_exit(EXIT_FAIL);
	}
	snprintf(event, len, "synthetic:%s", name);
	o->name = NULL;
}

uint64_t lat_latency_dropped(struct lat *l, const struct ftk_trigger_latency_opts *o)
{
	struct ftk_trigger_hist_totals tot;
	char match[160];
	uint64_t n;

	snprintf(match, sizeof(match), "keys=%s:", o->start_keys);
	lat_hist_read(l, o->start, match, "", "", NULL, NULL, &tot);
	n = tot.dropped;
	snprintf(match, sizeof(match), "onmatch(%.*s.%s)", (int)strcspn(o->start, ":"), o->start,
		 o->start + strcspn(o->start, ":") + 1);
	lat_hist_read(l, o->end, match, "", "", NULL, NULL, &tot);
	return n + tot.dropped;
}

void lat_hist(struct lat *l, const char *event, const char *trigger)
{
	if (ftk_trigger_add(l->t, event, trigger)) {
		tool_err("%s: cannot add '%s': %s", event, trigger, ftk_tracefs_errmsg(l->t));
		tool_exit(EXIT_FAIL);
	}
}

void lat_hist_read(struct lat *l, const char *event, const char *match, const char *keys,
		   const char *vals, ftk_trigger_hist_fn fn, void *ctx,
		   struct ftk_trigger_hist_totals *tot)
{
	char *text;

	if (ftk_trigger_hist(l->t, event, &text)) {
		tool_err("%s: cannot read its hist: %s", event, ftk_tracefs_errmsg(l->t));
		tool_exit(EXIT_FAIL);
	}
	ftk_trigger_hist_parse(text, match, keys, vals, fn, ctx, tot);
	free(text);
}

void lat_dropped_print(uint64_t dropped, FILE *f)
{
	if (dropped)
		fprintf(f, "Dropped %llu samples: the kernel's hist table was full (the counts "
			"above are short)\n", (unsigned long long)dropped);
}
