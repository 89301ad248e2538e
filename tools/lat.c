// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The latency tools' shared setup and read loop (see lat.h).
 */
#include <dirent.h>
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
#define LAT_BUFFER_KB	"8192"
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
		TOOL_OPT_COMMAND,
	};
	l->args = a;
	tool_parse(&td, argc, argv, a, &c);
	free(lo);
	free(so);
}

static void set_or_die(struct lat *l, const char *file, const char *val)
{
	if (ftk_tracefs_set(l->t, file, val))
		tool_die_tracefs(l->t, NULL);
}

/* "TID TID ..." of every thread of @pid, as set_event_pid takes them. */
char *lat_threads(pid_t pid)
{
	char path[64], *list = NULL;
	size_t len = 0;
	struct dirent *d;
	FILE *f;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		tool_die("no process %d: %s", (int)pid, strerror(errno));
	f = open_memstream(&list, &len);
	if (!f)
		tool_die("out of memory");
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			fprintf(f, "%s ", d->d_name);
	closedir(dir);
	fclose(f);
	return list;
}

void lat_open(struct lat *l, struct tool_args *args, pid_t pid)
{
	const char *inst = args->instance;
	char buf[32], *list;

	l->args = args;
	l->verbose = ftk_log_level() >= FTK_LOG_INFO;
	if (pid && args->argv)
		tool_usage_error("-p and a COMMAND do not go together");
	tool_signals();
	signal(SIGPIPE, SIG_IGN);
	/* formats libtraceevent cannot parse are of events these tools do not read */
	tep_set_loglevel(TEP_LOG_CRITICAL);
	if (!inst) {
		if (ftk_instance_name(l->name, l->instance, sizeof(l->instance)) < 0)
			tool_die("cannot name an instance: %s", strerror(errno));
		inst = l->instance;
	}
	/*
	 * The top level first: uprobes made there are removed after the
	 * instance (restores run newest first), once nothing enables them.
	 */
	l->top = tool_tracefs(NULL, 0);
	l->t = tool_tracefs(inst, FTK_TRACEFS_CREATE);
	set_or_die(l, "tracing_on", "0");
	/* A clock the reader reads too, so that it can keep time order (ftk_live_open()). */
	set_or_die(l, "trace_clock", "mono");
	set_or_die(l, "buffer_size_kb", LAT_BUFFER_KB);
	if (args->argv) {
		tool_cmd_fork(&l->cmd, args->argv, ftk_tracefs_instance(l->t));
		l->has_cmd = 1;
		l->pid = l->cmd.pid;
		if (l->all_tasks)
			return;
		snprintf(buf, sizeof(buf), "%d", (int)l->pid);
		set_or_die(l, "options/event-fork", "1");
		set_or_die(l, "set_event_pid", buf);
	} else if (pid) {
		l->pid = pid;
		list = lat_threads(pid);
		set_or_die(l, "set_event_pid", list);
		free(list);
	} else if (ftk_tracefs_exists(l->t, "set_event_notrace_pid")) {
		/* system-wide: not the tool's own reads */
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		set_or_die(l, "set_event_notrace_pid", buf);
	}
}

void lat_event(struct lat *l, const char *event, const char *filter)
{
	int ret;

	if (filter && ftk_event_filter_set(l->t, event, filter))
		tool_die_tracefs(l->t, event);
	ret = ftk_event_enable(l->t, event, 1);
	if (ret == -ENOENT)
		tool_die("this kernel has no event %s", event);
	if (ret)
		tool_die_tracefs(l->t, event);
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
	int ret;

	if (l->tep)
		return l->tep;
	ret = ftk_live_open(NULL, ftk_tracefs_instance(l->t), &l->live);
	if (ret)
		tool_die("%s", ftk_live_errmsg(l->live));
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
		lat_exit(l, EXIT_FAIL);
	}
	return ev;
}

struct tep_format_field *lat_field(struct lat *l, struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f) {
		tool_err("event %s:%s has no field '%s'", ev->system, ev->name, name);
		lat_exit(l, EXIT_FAIL);
	}
	return f;
}

long long lat_num(const struct tep_record *rec, const struct tep_format_field *f)
{
	unsigned long long v;

	if ((unsigned int)f->offset + f->size > (unsigned int)rec->size ||
	    tep_read_number_field((struct tep_format_field *)f, rec->data, &v))
		return 0;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		switch (f->size) {
		case 1: return (signed char)v;
		case 2: return (short)v;
		case 4: return (int)v;
		}
	}
	return (long long)v;
}

const char *lat_str(const struct tep_record *rec, const struct tep_format_field *f, int *len)
{
	const char *data = rec->data;
	unsigned int off = f->offset, n = f->size, loc;

	*len = 0;
	if ((unsigned int)f->offset + f->size > (unsigned int)rec->size)
		return "";
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		memcpy(&loc, data + f->offset, sizeof(loc));
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
		if (off + n > (unsigned int)rec->size)
			return "";
	}
	*len = strnlen(data + off, n);
	return data + off;
}

const char *lat_comm(struct lat *l, int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, len, f)) {
		lat_tep(l);	/* opens l->live */
		snprintf(buf, len, "%s", ftk_live_comm(l->live, pid));
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
	return buf;
}

int lat_pid(const struct tep_record *rec)
{
	int pid;

	if (rec->size < 8)
		return -1;
	memcpy(&pid, (const char *)rec->data + 4, sizeof(pid));
	return pid;
}

static void read_or_die(struct lat *l, ftk_live_fn fn, void *ctx, unsigned int flags)
{
	int ret = ftk_live_read(l->live, fn, ctx, flags);

	if (ret < 0) {
		tool_err("%s", ftk_live_errmsg(l->live));
		lat_exit(l, EXIT_FAIL);
	}
}

void lat_exit(struct lat *l, int code)
{
	/* the instance cannot go while its trace_pipe_raw files are open */
	ftk_live_close(l->live);
	l->live = NULL;
	tool_exit(code);
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
	set_or_die(l, "tracing_on", "1");
	if (l->has_cmd && tool_cmd_start(&l->cmd))
		lat_exit(l, tool_cmd_code(&l->cmd));
	if (ftk_log_level() >= FTK_LOG_WARN && !l->has_cmd)
		fprintf(stderr, "Tracing... Ctrl-C to end.\n");
	start = tool_now();
	next = start + interval;
	while (!tool_stop) {
		read_or_die(l, fn, ctx, 0);
		if (l->has_cmd && tool_cmd_done(&l->cmd))
			break;
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
	ftk_tracefs_write(l->t, "tracing_on", "0");
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
		lat_exit(l, EXIT_FAIL);
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
		lat_exit(l, EXIT_FAIL);
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
	lat_exit(l, EXIT_FAIL);
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
	int n = 0;

	if (!a->argv)
		tool_usage_error("which function?");
	*funcs = a->argv;
	while (a->argv[n] && strcmp(a->argv[n], "--") && (many || !n))
		n++;
	if (!a->argv[n])
		a->argv = NULL;
	else if (!strcmp(a->argv[n], "--") && !a->argv[n + 1])
		tool_usage_error("'--' and no COMMAND");
	else
		a->argv += n + !strcmp(a->argv[n], "--");
	return n;
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
	char path[256];

	snprintf(path, sizeof(path), "events/%.*s/%s/hist", (int)strcspn(event, ":"), event,
		 event + strcspn(event, ":") + (event[strcspn(event, ":")] ? 1 : 0));
	if (l->stream)
		lat_path(l, "no kernel path: --stream");
	else if (blocker)
		lat_path(l, "no kernel path: %s needs the stream", blocker);
	else if (!ftk_tracefs_exists(l->t, path))
		lat_path(l, "no kernel path: no hist triggers here (%s is absent)", path);
	else if (!ftk_tracefs_exists(l->top, "synthetic_events"))
		lat_path(l, "no kernel path: no synthetic events here (synthetic_events is absent)");
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
		lat_exit(l, EXIT_FAIL);
	}
	snprintf(event, len, "synthetic:%s", name);
	o->name = NULL;
}

uint64_t lat_latency_dropped(struct lat *l, const struct ftk_trigger_latency_opts *o)
{
	struct lat_hist_totals tot;
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
		lat_exit(l, EXIT_FAIL);
	}
}

/*
 * The number after "NAME:" in @s..@end (a word of its own), a bucket's
 * "~ LOW-HIGH" too; NAME is the first @n bytes of @list ("pid,lat").
 */
static uint64_t hist_field(const char *s, const char *end, const char *list, size_t n)
{
	char name[64];
	const char *p;

	snprintf(name, sizeof(name), "%.*s", (int)n, list);
	n = strlen(name);
	for (p = s; (p = strstr(p, name)) && p < end; p += n) {
		if (p[n] != ':' || (p > s && p[-1] != ' ' && p[-1] != '{' && p[-1] != ','))
			continue;
		p += n + 1;
		while (*p == ' ' || *p == '~')
			p++;
		/* .execname and .syscall keys: "NAME [ PID]" */
		if ((*p < '0' || *p > '9') && (p = strchr(p, '[')) && p < end)
			p++;
		return p ? strtoull(p, NULL, 10) : 0;
	}
	return 0;
}

void lat_hist_read(struct lat *l, const char *event, const char *match, const char *keys,
		   const char *vals, lat_hist_fn fn, void *ctx, struct lat_hist_totals *tot)
{
	char *text, *line, *save = NULL, *brace;
	uint64_t key[8], val[8];
	const char *k;
	int in = 0, i;
	size_t n;

	if (tot)
		memset(tot, 0, sizeof(*tot));
	if (ftk_trigger_hist(l->t, event, &text)) {
		tool_err("%s: cannot read its hist: %s", event, ftk_tracefs_errmsg(l->t));
		lat_exit(l, EXIT_FAIL);
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# trigger info:", 15)) {
			in = strstr(line, match) != NULL;
			continue;
		}
		if (!in)
			continue;
		if (tot && sscanf(line, " Hits: %" SCNu64, &tot->hits) == 1)
			continue;
		if (tot && sscanf(line, " Entries: %" SCNu64, &tot->entries) == 1)
			continue;
		if (tot && sscanf(line, " Dropped: %" SCNu64, &tot->dropped) == 1)
			continue;
		brace = strchr(line, '}');
		if (line[0] != '{' || !brace)
			continue;
		for (i = 0, k = keys; *k && i < 8; i++, k += n + (k[n] == ',')) {
			n = strcspn(k, ",");
			key[i] = hist_field(line, brace, k, n);
		}
		for (i = 0, k = vals; *k && i < 8; i++, k += n + (k[n] == ',')) {
			n = strcspn(k, ",");
			val[i] = hist_field(brace, brace + strlen(brace), k, n);
		}
		if (fn)
			fn(ctx, key, val, line);
	}
	free(text);
}

void lat_dropped_print(uint64_t dropped, FILE *f)
{
	if (dropped)
		fprintf(f, "Dropped %llu samples: the kernel's hist table was full (the counts "
			"above are short)\n", (unsigned long long)dropped);
}

const char *lat_hist_execname(const char *line, char *buf, size_t len)
{
	const char *p = strchr(line, ':'), *q = p ? strchr(p, '[') : NULL;

	snprintf(buf, len, "?");
	if (!q)
		return buf;
	for (p++; *p == ' '; p++)
		;
	while (q > p && q[-1] == ' ')
		q--;
	if (q > p)
		snprintf(buf, len, "%.*s", (int)(q - p), p);
	return buf;
}
