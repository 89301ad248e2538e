// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrecord: record events into a trace.dat that trace-cmd and KernelShark
 * read, with trace-cmd record's letters for what the two share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "tool.h"

struct evspec {
	char	*spec;
	char	*filter;
};

/* An instance recorded beside the top buffer (-B repeated), with its own events. */
struct xbuf {
	const char		*name;
	struct evspec		*events;
	int			nr_events;
	struct ftk_tracefs	*t;
	struct ftk_capture	*cap;
};

/* The command line. */
static struct {
	struct evspec	*events;
	int		nr_events, nr_pids, children, follow, stack, self, noksyms, bp_set;
	char		**func_filter, **func_notrace, **graph_funcs, **ftopts;
	int		*pids;
	const char	*tracer, *clock, *output, *compression, *recover;
	long		buffer_kb, sleep_us, max_kb, bp, version, rt;
	int		flight, repeat;
	double		before, after;
	const char	*on_event, *on_filter, *on_mark, *on_latency;
	const char	*instance;	/* -B: the one instance recorded as the top buffer */
	struct xbuf	*xb;		/* -B NAME -e ...: instances beside the top buffer */
	int		nr_xb, date, procmap, ts_offset_set, to_stdout;
	long long	ts_offset;
} o = { .output = "trace.dat", .version = 7, .rt = 1 };

static struct ftk_capture *cap;
static struct ftk_flight *fl;
static struct ftk_tracefs *fl_top, *fl_watch;	/* --on-latency's */
static struct tool_cmd cmd;
static int quiet, timed_out;
static volatile sig_atomic_t usr1;

static const char usage[] =
"usage: ftrecord [-cFqTv] [-e event [-f filter]]... [-p tracer] [-l func] [-n func]\n"
"                [-g func] [-P pid] [-C clock] [-b kb] [-o file|-]\n"
"                [-B instance [-e event [-f filter]]...]...\n"
"                [-s usecs] [-r prio] [-m kb] [-O option] [-D seconds]\n"
"                [--date | --ts-offset NS] [--proc-map]\n"
"                [--file-version 6|7] [--compression none|zstd|zlib]\n"
"                [--flight [--before S] [--after S] [--repeat N]\n"
"                 [--on-event SYS:EV [--on-filter F] | --on-mark GLOB |\n"
"                  --on-latency WHAT>TIME]] [command [arg...]]\n"
"       ftrecord --recover FILE\n"
"\n"
"Record tracing events into a trace.dat (trace-cmd's format), until the\n"
"command exits, -D seconds pass, or Ctrl-C or SIGTERM. Works in a private\n"
"instance that is removed at the end; tracefs is left as it was found.\n"
"\n"
"  -e, --event EV      system:event, system, event or 'all'; globs work\n"
"  -f, --filter F      filter for the -e before it ('prev_pid != 0')\n"
"  -p, --plugin TR     a tracer (function, function_graph, ...)\n"
"  -l, --func F        function filter (set_ftrace_filter); -n: notrace\n"
"  -g, --graph F       function_graph entry (set_graph_function)\n"
"  -P, --pid PID       only events of PID (set_event_pid); repeatable\n"
"  -c, --children      follow the children of -P and -F processes\n"
"  -F, --follow        only events of the command\n"
"  -C, --clock CLK     trace clock (local, global, mono, boot, ...)\n"
"  -b, --buffer KB     per-CPU buffer size in KiB\n"
"  -B, --instance NAME record in this instance (created if missing); given more\n"
"                      than once, or with -e before and after it, each -B\n"
"                      records its own -e's as a buffer of that name in the file\n"
"  -o, --output FILE   the file to write (default trace.dat); - for stdout\n"
"  -s, --sleep USECS   wake at least this often (default: when half full)\n"
"  -r, --rt PRIO       readers' SCHED_FIFO priority (default 1; 0: normal)\n"
"  -m, --max KB        keep about the last KB KiB per CPU\n"
"  -T, --stacktrace    a kernel stack with every event\n"
"  -O, --option OPT    set options/OPT (noOPT clears it)\n"
"  -D, --duration S    stop after S seconds (the command too)\n"
"      --file-version N  6 or 7 (default 7)\n"
"      --compression C   none (default), zstd or zlib; version 7 only\n"
"      --buffer-percent N  wake the reader at N% full (default 50)\n"
"      --trace-self     keep the recorder's own threads in the trace\n"
"      --no-kallsyms    leave /proc/kallsyms out of the file\n"
"      --date           store the time of day of the clock (DATE): reports show\n"
"                       wall-clock times\n"
"      --ts-offset NS   store NS to add to every time stamp (OFFSET)\n"
"      --proc-map       store the command's memory map at its exit (PROCMAPS)\n"
"      --recover FILE   make FILE of what a recorder that died (kill -9, power\n"
"                       cut) left in FILE.spool/: every whole page it stored\n"
"      --flight         flight recorder: keep the last -b/-m KiB per CPU in the\n"
"                       kernel's ring, write -o only when a trigger fires\n"
"                       (--on-event, --on-mark, or SIGUSR1 to ftrecord)\n"
"      --before S       keep S seconds before the trigger (default: the ring)\n"
"      --after S        go on recording S seconds after it (default 0)\n"
"      --repeat N       re-arm after each trigger: FILE-1.dat ... FILE-N.dat\n"
"      --on-event SYS:EV  trigger on this event (in the kernel: traceoff)\n"
"      --on-filter F    ... when it matches filter F\n"
"      --on-mark GLOB   trigger on a mark (ftmark, trace_marker) matching GLOB,\n"
"                       the whole text with its newline: 'BOOM*'\n"
"      --on-latency WHAT>TIME  trigger on a latency over TIME (ns, us, ms, s):\n"
"                       wakeup (wake-up to run), syscall or syscall:NAME, or\n"
"                       BINARY:FUNCTION (uprobe to return); in the kernel where\n"
"                       it can, else from a second instance's stream (-v says)\n"
"  -q, --quiet         no summary\n"
"  -v, --verbose       more messages (again for more)\n"
"  -V, --version       the version of ftkit\n"
"  -h, --help          this text\n"
"\n"
"examples:\n"
"  ftrecord -e sched:sched_switch -e sched:sched_wakeup make -j2\n"
"  ftrecord -e 'syscalls:sys_enter_open*' -f 'filename != 0' -o open.dat ls\n"
"  ftrecord -e sched -F -c ./server      # the server and its children only\n"
"  ftrecord --compression zstd -e irq -D 10\n"
"  ftrecord -e sched -B irqs -e irq -D 5   # two buffers: top and 'irqs'\n"
"  ssh box ftrecord -e sched -D 5 -o - > box.dat\n"
"  ftrecord --date --proc-map -e 'uprobes:*' ./app\n"
"  ftrecord --recover trace.dat           # after a crash: the pages stored\n"
"  ftrecord --flight -b 512 --before 2 --after 1 -e sched --on-mark 'slow*'\n"
"  ftrecord --flight --before 1 -e sched --on-latency 'wakeup>20ms' -F -c ./app\n"
"  ftrecord --flight -e syscalls --on-latency './app:handle>5ms' -F ./app\n";

static void add_list(char ***list, const char *s)
{
	size_t n = ftk_list_len(*list);
	char **nl = realloc(*list, (n + 2) * sizeof(char *));

	if (!nl || !(nl[n] = strdup(s)))
		tool_die("out of memory");
	nl[n + 1] = NULL;
	*list = nl;
}

static char *join(char **list, const char *sep)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; list && list[i]; i++)
		len += strlen(list[i]) + strlen(sep);
	s = calloc(1, len);
	if (!s)
		tool_die("out of memory");
	for (i = 0; list && list[i]; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, list[i]);
	}
	return s;
}

static void set_or_die(struct ftk_tracefs *t, const char *file, const char *val)
{
	if (ftk_tracefs_set(t, file, val)) {
		tool_cmd_kill(&cmd);	/* forked, not started: it goes before the instance */
		tool_die("cannot write '%s': %s", file, ftk_tracefs_errmsg(t));
	}
}

static int scan_dirs(const char *dir, struct dirent ***out)
{
	int n = scandir(dir, out, NULL, alphasort);

	if (n < 0)
		tool_die("cannot read '%s': %s", dir, strerror(errno));
	return n;
}

static void free_dirs(struct dirent **d, int n)
{
	while (n-- > 0)
		free(d[n]);
	free(d);
}

static int is_subdir(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (name[0] == '.')
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Enable the events that match @e; a filter goes to each match. */
static int enable_spec(struct ftk_tracefs *t, const struct evspec *e)
{
	char evdir[PATH_MAX], sysdir[PATH_MAX + 256], file[PATH_MAX * 2];
	struct dirent **sys, **ev;
	const char *sglob, *eglob;
	char *spec, *sep;
	int ns, ne, i, j, matched = 0, by_event;

	snprintf(evdir, sizeof(evdir), "%s/events", ftk_tracefs_dir(t));
	if (!strcmp(e->spec, "all")) {
		set_or_die(t, "events/enable", "1");
		return 1;
	}
	spec = strdup(e->spec);
	if (!spec)
		tool_die("out of memory");
	sep = strpbrk(spec, ":/");
	if (sep) {
		*sep = '\0';
		sglob = spec;
		eglob = sep + 1;
	} else {
		sglob = spec;
		eglob = NULL;
	}
	ns = scan_dirs(evdir, &sys);
	/* "-e name": a system of that name, else events of that name anywhere. */
	for (by_event = 0; by_event < 2 && !matched; by_event++) {
		if (by_event && sep)
			break;
		for (i = 0; i < ns; i++) {
			const char *s = sys[i]->d_name;

			if (!is_subdir(evdir, s) || !strcmp(s, "ftrace"))
				continue;
			if (!by_event && fnmatch(sglob, s, 0))
				continue;
			if (!by_event && !eglob) {
				snprintf(file, sizeof(file), "events/%s/enable", s);
				if (e->filter) {
					snprintf(file, sizeof(file), "events/%s/filter", s);
					set_or_die(t, file, e->filter);
					snprintf(file, sizeof(file), "events/%s/enable", s);
				}
				set_or_die(t, file, "1");
				matched++;
				continue;
			}
			snprintf(sysdir, sizeof(sysdir), "%s/%s", evdir, s);
			ne = scan_dirs(sysdir, &ev);
			for (j = 0; j < ne; j++) {
				const char *n = ev[j]->d_name;

				if (!is_subdir(sysdir, n) || fnmatch(by_event ? sglob : eglob, n, 0))
					continue;
				if (e->filter) {
					snprintf(file, sizeof(file), "events/%s/%s/filter", s, n);
					set_or_die(t, file, e->filter);
				}
				snprintf(file, sizeof(file), "events/%s/%s/enable", s, n);
				set_or_die(t, file, "1");
				matched++;
			}
			free_dirs(ev, ne);
		}
	}
	free_dirs(sys, ns);
	free(spec);
	return matched;
}

static void set_option(struct ftk_tracefs *t, const char *opt)
{
	const char *name = opt, *val = "1";
	char file[256];

	if (!strncmp(opt, "no", 2)) {
		snprintf(file, sizeof(file), "options/%s", opt);
		if (!ftk_tracefs_exists(t, file)) {
			name = opt + 2;
			val = "0";
		}
	}
	snprintf(file, sizeof(file), "options/%s", name);
	if (!ftk_tracefs_exists(t, file))
		tool_usage_error("unknown option '%s' (see %s/options)", name,
				 ftk_tracefs_dir(t));
	set_or_die(t, file, val);
}

static int has_option(const char *name)
{
	char **opt;

	for (opt = o.ftopts; opt && *opt; opt++)
		if (!strcmp(*opt, name) || (!strncmp(*opt, "no", 2) && !strcmp(*opt + 2, name)))
			return 1;
	return 0;
}

/* The captures of the -B buffers: their fds close before their instances go. */
static void free_extra(void)
{
	int i;

	for (i = 0; i < o.nr_xb; i++) {
		ftk_capture_free(o.xb[i].cap);
		o.xb[i].cap = NULL;
	}
}

/* After the capture started: its fds must close before the instance can go. */
#define fatal(...) do {					\
		tool_cmd_kill(&cmd);			\
		if (fl)					\
			cap = NULL;	/* the flight's */	\
		ftk_flight_free(fl);			\
		fl = NULL;				\
		ftk_capture_free(cap);			\
		cap = NULL;				\
		free_extra();				\
		tool_die(__VA_ARGS__);			\
	} while (0)

/* Set when the output's file system failed: the recording stopped, what was stored is kept. */
static int full;

/* The output in messages: the file, or standard output for -o -. */
static const char *out_name(void)
{
	return o.to_stdout ? "standard output" : o.output;
}

/*
 * Where spools go: beside the output, so that it is on the output's file
 * system; with -o -, $TMPDIR or /tmp. *@copy is the caller's to free.
 */
static const char *out_dir(char **copy)
{
	const char *dir = getenv("TMPDIR");

	*copy = NULL;
	if (o.to_stdout)
		return dir && *dir ? dir : "/tmp";
	*copy = strdup(o.output);
	if (!*copy)
		tool_die("out of memory");
	return dirname(*copy);
}

static int disk_full(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EIO;
}

/* From a CPU thread: end the wait as Ctrl-C would; record() says why after ftk_capture_stop(). */
static void capture_failed(void *arg, int err)
{
	kill(getpid(), SIGTERM);
}

/*
 * --date, --ts-offset and --proc-map. A date that cannot be measured or a
 * map that was not taken is said and left out; the recording is kept.
 */
static int time_and_maps(struct ftk_tracewrite *w)
{
	int ret = 0;

	if (o.date && ftk_tracewrite_date(w, NULL))
		tool_warn("--date: no date stored: %s", ftk_tracewrite_errmsg(w));
	if (o.ts_offset_set)
		ret = ftk_tracewrite_ts_offset(w, o.ts_offset);
	if (!o.procmap || ret)
		return ret;
	/* still running (--flight fired): its maps as they are now */
	if (!tool_cmd_done(&cmd))
		tool_cmd_maps(&cmd);
	if (!cmd.maps) {
		tool_warn("--proc-map: no map of '%s' stored: it was not seen exiting",
			  cmd.argv[0]);
		return 0;
	}
	ret = ftk_tracewrite_procmaps(w, cmd.pid, cmd.exe ? cmd.exe : cmd.argv[0], cmd.maps);
	if (ret == -EINVAL) {
		tool_warn("--proc-map: '%s' had no mapping with a path at its exit", cmd.argv[0]);
		ret = 0;
	}
	return ret;
}

/* The template's writer: the save takes its event formats and kallsyms while current. */
static struct ftk_tracewrite *tmpl_w;

/* The file, with the command's name for its pid (saved_cmdlines may lack it). */
static int save(struct ftk_tracefs *t, const char *output, const struct ftk_tracewrite_opts *wopts,
		const char *comm, pid_t pid)
{
	struct ftk_tracewrite *w;
	char buf[128];
	int ret, i;

	ret = ftk_tracewrite_new(t, wopts, &w);
	if (ret) {
		tool_err("cannot write '%s': %s", output, ftk_strerror(ret, buf, sizeof(buf)));
		return ret;
	}
	ftk_tracewrite_reuse(w, tmpl_w);
	ret = ftk_capture_add_to(cap, w);
	for (i = 0; !ret && i < o.nr_xb; i++) {
		ret = ftk_tracewrite_buffer(w, o.xb[i].name, o.xb[i].t);
		if (ret > 0)
			ret = ftk_capture_add_to(o.xb[i].cap, w);
	}
	if (!ret && comm && pid > 0)
		ret = ftk_tracewrite_comm(w, pid, strrchr(comm, '/') ? strrchr(comm, '/') + 1 : comm);
	if (!ret)
		ret = time_and_maps(w);
	if (!ret && o.to_stdout)
		ret = ftk_tracewrite_save_fd(w, STDOUT_FILENO, out_name());
	else if (!ret)
		ret = ftk_tracewrite_save(w, output);
	if (ret && full && disk_full(ret))
		;	/* said once by the caller, which tries again with less */
	else if (ret && ftk_tracewrite_errmsg(w)[0])
		tool_err("%s", ftk_tracewrite_errmsg(w));
	else if (ret)
		tool_err("cannot write '%s': %s", output, ftk_strerror(ret, buf, sizeof(buf)));
	ftk_tracewrite_free(w);
	return ret;
}

enum { OPT_FILE_VERSION = 256, OPT_COMPRESSION, OPT_BP, OPT_SELF, OPT_NOKSYMS, OPT_FLIGHT,
       OPT_BEFORE, OPT_AFTER, OPT_REPEAT, OPT_ON_EVENT, OPT_ON_FILTER, OPT_ON_MARK,
       OPT_ON_LATENCY, OPT_RECOVER, OPT_DATE, OPT_TS_OFFSET, OPT_PROC_MAP };

/* -e and -f go to the buffer of the last -B, or to the top one before any. */
static void add_event(struct evspec **ev, int *nr, char *spec)
{
	*ev = realloc(*ev, (*nr + 1) * sizeof(**ev));
	if (!*ev)
		tool_die("out of memory");
	(*ev)[(*nr)++] = (struct evspec){ spec, NULL };
}

static void add_filter(struct evspec *ev, int nr, char *filter)
{
	if (!nr)
		tool_usage_error("-f must follow the -e it filters");
	ev[nr - 1].filter = filter;
}

static void option(int opt, char *arg, void *ctx)
{
	struct xbuf *x = o.nr_xb ? &o.xb[o.nr_xb - 1] : NULL;
	int i;

	switch (opt) {
	case 'e':
		if (x)
			add_event(&x->events, &x->nr_events, arg);
		else
			add_event(&o.events, &o.nr_events, arg);
		break;
	case 'f':
		if (x)
			add_filter(x->events, x->nr_events, arg);
		else
			add_filter(o.events, o.nr_events, arg);
		break;
	case 'B':
		tool_instance_name(arg);
		for (i = 0; i < o.nr_xb; i++)
			if (!strcmp(o.xb[i].name, arg))
				tool_usage_error("-B %s given twice", arg);
		o.xb = realloc(o.xb, (o.nr_xb + 1) * sizeof(*o.xb));
		if (!o.xb)
			tool_die("out of memory");
		o.xb[o.nr_xb++] = (struct xbuf){ .name = arg };
		break;
	case OPT_DATE: o.date = 1; break;
	case OPT_TS_OFFSET:
		o.ts_offset = tool_num(arg, "time stamp offset", LLONG_MIN, LLONG_MAX);
		o.ts_offset_set = 1;
		break;
	case OPT_PROC_MAP: o.procmap = 1; break;
	case 'p': o.tracer = arg; break;
	case 'l': add_list(&o.func_filter, arg); break;
	case 'n': add_list(&o.func_notrace, arg); break;
	case 'g': add_list(&o.graph_funcs, arg); break;
	case 'P':
		o.pids = realloc(o.pids, (o.nr_pids + 1) * sizeof(int));
		if (!o.pids)
			tool_die("out of memory");
		o.pids[o.nr_pids++] = tool_pid(arg);
		break;
	case 'c': o.children = 1; break;
	case 'F': o.follow = 1; break;
	case 'C': o.clock = arg; break;
	case 'b': o.buffer_kb = tool_num(arg, "buffer size", 1, 1L << 30); break;
	case 'o': o.output = arg; break;
	case 's': o.sleep_us = tool_num(arg, "sleep interval", 1, 1L << 40); break;
	case 'r': o.rt = tool_num(arg, "real-time priority", 0, 99); break;
	case 'm': o.max_kb = tool_num(arg, "max size", 1, 1L << 40); break;
	case 'T': o.stack = 1; break;
	case 'O': add_list(&o.ftopts, arg); break;
	case OPT_FILE_VERSION: o.version = tool_num(arg, "file version", 6, 7); break;
	case OPT_COMPRESSION: o.compression = arg; break;
	case OPT_BP: o.bp = tool_num(arg, "buffer percent", 0, 100), o.bp_set = 1; break;
	case OPT_SELF: o.self = 1; break;
	case OPT_NOKSYMS: o.noksyms = 1; break;
	case OPT_FLIGHT: o.flight = 1; break;
	case OPT_BEFORE: o.before = tool_seconds(arg); break;
	case OPT_AFTER: o.after = tool_seconds(arg); break;
	case OPT_REPEAT: o.repeat = tool_num(arg, "repeat count", 1, 1000000); break;
	case OPT_ON_EVENT: o.on_event = arg; break;
	case OPT_ON_FILTER: o.on_filter = arg; break;
	case OPT_ON_MARK: o.on_mark = arg; break;
	case OPT_ON_LATENCY: o.on_latency = arg; break;
	case OPT_RECOVER: o.recover = arg; break;
	}
}

static const struct option longopts[] = {
	{ "event",		required_argument,	NULL, 'e' },
	{ "filter",		required_argument,	NULL, 'f' },
	{ "plugin",		required_argument,	NULL, 'p' },
	{ "func",		required_argument,	NULL, 'l' },
	{ "notrace",		required_argument,	NULL, 'n' },
	{ "graph",		required_argument,	NULL, 'g' },
	{ "pid",		required_argument,	NULL, 'P' },
	{ "children",		no_argument,		NULL, 'c' },
	{ "follow",		no_argument,		NULL, 'F' },
	{ "clock",		required_argument,	NULL, 'C' },
	{ "buffer",		required_argument,	NULL, 'b' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "sleep",		required_argument,	NULL, 's' },
	{ "rt",			required_argument,	NULL, 'r' },
	{ "max",		required_argument,	NULL, 'm' },
	{ "stacktrace",		no_argument,		NULL, 'T' },
	{ "option",		required_argument,	NULL, 'O' },
	{ "file-version",	required_argument,	NULL, OPT_FILE_VERSION },
	{ "compression",	required_argument,	NULL, OPT_COMPRESSION },
	{ "buffer-percent",	required_argument,	NULL, OPT_BP },
	{ "trace-self",		no_argument,		NULL, OPT_SELF },
	{ "no-kallsyms",	no_argument,		NULL, OPT_NOKSYMS },
	{ "flight",		no_argument,		NULL, OPT_FLIGHT },
	{ "before",		required_argument,	NULL, OPT_BEFORE },
	{ "after",		required_argument,	NULL, OPT_AFTER },
	{ "repeat",		required_argument,	NULL, OPT_REPEAT },
	{ "on-event",		required_argument,	NULL, OPT_ON_EVENT },
	{ "on-filter",		required_argument,	NULL, OPT_ON_FILTER },
	{ "on-mark",		required_argument,	NULL, OPT_ON_MARK },
	{ "on-latency",		required_argument,	NULL, OPT_ON_LATENCY },
	{ "recover",		required_argument,	NULL, OPT_RECOVER },
	{ "instance",		required_argument,	NULL, 'B' },
	{ "date",		no_argument,		NULL, OPT_DATE },
	{ "ts-offset",		required_argument,	NULL, OPT_TS_OFFSET },
	{ "proc-map",		no_argument,		NULL, OPT_PROC_MAP },
	{ }
};

/* -B is the tool's own: where it stands among the -e's matters. */
static const struct tool_def def = {
	.name = "ftrecord", .usage = usage, .opts = "e:f:p:l:n:g:P:cFC:b:o:s:r:m:TO:B:",
	.longopts = longopts, .option = option,
	.common = TOOL_OPT_DURATION | TOOL_OPT_COMMAND,
};

/*
 * One -B with the events all on one side of it is the instance ftrecord
 * records in, stored as the file's top buffer (as before several -B were
 * taken). Otherwise each -B is a buffer of its own beside the top one.
 */
static void instances(void)
{
	struct xbuf *x = o.xb;

	if (o.nr_xb != 1 || (o.nr_events && x->nr_events))
		return;
	o.instance = x->name;
	if (x->nr_events) {
		o.events = x->events;
		o.nr_events = x->nr_events;
	}
	free(o.xb);
	o.xb = NULL;
	o.nr_xb = 0;
}

static void check_usage(const struct tool_args *a)
{
	instances();
	o.to_stdout = !strcmp(o.output, "-");
	if (o.date && o.ts_offset_set)
		tool_usage_error("--date and --ts-offset: one or the other");
	if (o.procmap && !a->argv)
		tool_usage_error("--proc-map needs a command");
	if (o.nr_xb && (o.flight || o.max_kb))
		tool_usage_error("several -B buffers: not with --flight or -m");
	if (o.to_stdout && o.repeat)
		tool_usage_error("--repeat writes several files: not with -o -");
	if (o.to_stdout && isatty(STDOUT_FILENO))
		tool_usage_error("-o -: standard output is a terminal; redirect it to a file or "
				 "a pipe");
	if (o.compression && !ftk_tracewrite_compression_ok(o.compression))
		tool_usage_error("unknown compression '%s' (none, zstd or zlib)", o.compression);
	if (o.compression && strcmp(o.compression, "none") && o.version < 7)
		tool_usage_error("compression needs --file-version 7");
	if (o.follow && !a->argv)
		tool_usage_error("-F needs a command");
	if ((o.func_filter || o.func_notrace || o.graph_funcs) && !o.tracer)
		tool_usage_error("-l, -n and -g need a function tracer (-p)");
	if (!*o.output)
		tool_usage_error("empty output file name");
	if (!o.flight && (o.before || o.after || o.repeat || o.on_event || o.on_mark ||
			  o.on_latency))
		tool_usage_error("--before, --after, --repeat and the --on-* triggers need --flight");
	if (o.on_filter && !o.on_event)
		tool_usage_error("--on-filter must come with --on-event");
	if (!!o.on_event + !!o.on_mark + !!o.on_latency > 1)
		tool_usage_error("--on-event, --on-mark and --on-latency: one trigger at a time");
	if (o.on_latency && (!strchr(o.on_latency, '>') || strchr(o.on_latency, '\n')))
		tool_usage_error("--on-latency wants WHAT>TIME ('wakeup>20ms'), not '%s'",
				 o.on_latency);
	if (o.on_event && !strchr(o.on_event, ':'))
		tool_usage_error("--on-event wants SYSTEM:EVENT, not '%s'", o.on_event);
	if (o.on_mark && (!*o.on_mark || strpbrk(o.on_mark, "\"\n")))
		tool_usage_error("bad --on-mark pattern '%s': empty, or a quote or newline in it",
				 o.on_mark);
	if (o.recover && (a->argv || o.nr_events || o.tracer || o.flight || o.instance ||
			  o.nr_xb))
		tool_usage_error("--recover FILE takes no command, events, instance or --flight");
	if (o.recover && !*o.recover)
		tool_usage_error("empty file name for --recover");
	/* -q also drops the summary. */
	quiet = ftk_log_level() < FTK_LOG_WARN;
}

/* ------------------------------------------------------------ spools kept for --recover */

/*
 * Without -m the spools are named files in FILE.spool/, with the metadata
 * as of the start (template) and a lock the recorder holds: a recorder
 * killed by SIGKILL or a power cut leaves them, and --recover makes FILE
 * of them. A normal end removes the directory.
 */
static char *spool_dir;
static int lock_fd = -1;

static char *spool_dir_of(const char *file)
{
	char *d;

	if (asprintf(&d, "%s.spool", file) < 0)
		tool_die("out of memory");
	return d;
}

/* Whether a live recorder holds @dir's lock; its pid into *@pid. */
static int spool_busy(const char *dir, int *pid)
{
	char path[PATH_MAX], text[32] = "";
	int fd, busy;

	*pid = 0;
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (read(fd, text, sizeof(text) - 1) > 0)
		*pid = atoi(text);
	close(fd);
	return busy;
}

/* Remove a spool directory's files (cpuN, template, lock) and the directory. */
static void spool_remove(const char *dir)
{
	struct dirent **d;
	char path[PATH_MAX];
	int n, i;

	n = scandir(dir, &d, NULL, NULL);
	for (i = 0; i < n; i++) {
		const char *e = d[i]->d_name;

		if (!strcmp(e, "template") || !strcmp(e, "lock") ||
		    (!strncmp(e, "cpu", 3) && e[3] >= '0' && e[3] <= '9')) {
			snprintf(path, sizeof(path), "%s/%s", dir, e);
			unlink(path);
		}
		free(d[i]);
	}
	if (n >= 0)
		free(d);
	if (rmdir(dir) < 0 && errno != ENOENT)
		tool_warn("cannot remove '%s': %s", dir, strerror(errno));
}

static void spool_cleanup(void)
{
	if (spool_dir && lock_fd >= 0) {
		spool_remove(spool_dir);
		close(lock_fd);
		lock_fd = -1;
	}
}

/* Say where a recording that died left its spools: in the output's directory. */
static void tell_recoverable(const char *outdir)
{
	struct dirent **d;
	char dir[PATH_MAX], tpl[PATH_MAX + 16];
	size_t len;
	int n, i, pid;

	n = scandir(outdir, &d, NULL, alphasort);
	for (i = 0; i < n; i++) {
		len = strlen(d[i]->d_name);
		snprintf(dir, sizeof(dir), "%s/%s", outdir, d[i]->d_name);
		snprintf(tpl, sizeof(tpl), "%s/template", dir);
		if (len > 6 && !strcmp(d[i]->d_name + len - 6, ".spool") && !access(tpl, F_OK) &&
		    !spool_busy(dir, &pid))
			tool_warn("'%s' holds a recording that did not finish: "
				  "'ftrecord --recover %.*s' makes a trace.dat of it", dir,
				  (int)(strlen(dir) - 6), dir);
		free(d[i]);
	}
	if (n >= 0)
		free(d);
}

/* Make FILE.spool/ with its lock held; refuse one a recording left or a recorder uses. */
static void spool_make(const char *outdir)
{
	char path[PATH_MAX], text[32];
	int pid;

	tell_recoverable(outdir);
	spool_dir = spool_dir_of(o.output);
	if (mkdir(spool_dir, 0700) < 0) {
		if (errno != EEXIST)
			tool_die("cannot create '%s': %s", spool_dir, strerror(errno));
		if (spool_busy(spool_dir, &pid))
			tool_die("'%s' is in use: ftrecord %d is recording into '%s'", spool_dir, pid,
				 o.output);
		tool_die("'%s' exists: recover it first (ftrecord --recover %s) or remove it",
			 spool_dir, o.output);
	}
	snprintf(path, sizeof(path), "%s/lock", spool_dir);
	lock_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
		tool_err("cannot create '%s': %s", path, strerror(errno));
		rmdir(spool_dir);
		tool_exit(EXIT_FAIL);
	}
	atexit(spool_cleanup);
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (write(lock_fd, text, strlen(text)) < 0)
		tool_warn("cannot write '%s': %s", path, strerror(errno));
}

/* The metadata as of the start, for --recover; after setup() so the formats are there. */
static void spool_template(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts)
{
	struct ftk_tracewrite *w;
	char path[PATH_MAX];

	if (!spool_dir || lock_fd < 0)
		return;
	snprintf(path, sizeof(path), "%s/template", spool_dir);
	if (ftk_tracewrite_new(t, wopts, &w) || ftk_tracewrite_save_template(w, path))
		fatal("cannot write the recovery template: %s",
		      w ? ftk_tracewrite_errmsg(w) : "out of memory");
	tmpl_w = w;
}

/* --recover FILE: FILE.spool/ into FILE. */
static int recover(void)
{
	struct ftk_tracewrite_recovered r;
	char *dir = spool_dir_of(o.recover);
	int pid;

	if (spool_busy(dir, &pid))
		tool_die("'%s' is in use: ftrecord %d is still recording into '%s'", dir, pid,
			 o.recover);
	if (ftk_tracewrite_recover(dir, o.recover, &r))
		tool_die("cannot recover '%s': %s", o.recover, r.errmsg);
	if (!quiet)
		fprintf(stderr, "ftrecord: recovered '%s' from '%s': %llu KiB of events from %d "
			"CPUs%s\n", o.recover, dir, (unsigned long long)r.bytes / 1024, r.ncpus,
			r.dropped ? " (a partial page at a spool's end left out)" : "");
	spool_remove(dir);
	free(dir);
	return 0;
}

/* The capture, spooling beside the output, leaving the recorder out unless --trace-self. */
static struct ftk_capture *capture_new(struct ftk_tracefs *t, int *mainpid, int top)
{
	FTK_OPTS(ftk_capture_opts, copts);
	struct ftk_capture *c;
	char *outcopy;
	const char *outdir = out_dir(&outcopy);
	int ret;

	if (access(outdir, W_OK) < 0)
		tool_die("cannot write '%s': %s", o.to_stdout ? outdir : o.output, strerror(errno));
	copts.spool_dir = outdir;
	/* kept for --recover: the top buffer's spools, in FILE.spool/ */
	if (!o.max_kb && top && !o.to_stdout) {
		spool_make(outdir);
		copts.spool_dir = spool_dir;
		copts.flags |= FTK_CAPTURE_NAMED_SPOOLS;
	}
	copts.buffer_percent = o.bp_set ? (o.bp ? o.bp : -1) : 50;
	copts.poll_ms = o.sleep_us ? (o.sleep_us + 999) / 1000 : 0;
	copts.max_kb = o.max_kb;
	copts.rt_priority = o.rt;
	copts.flags |= o.self ? FTK_CAPTURE_TRACE_SELF : 0;
	copts.on_failure = capture_failed;
	copts.notrace_pids = mainpid;
	copts.nr_notrace_pids = 1;
	/* Tracing goes off first (journaled), then everything is set up. */
	ret = ftk_capture_new(t, &copts, &c);
	free(outcopy);
	if (ret)
		tool_die("cannot set up the capture: %s", ftk_tracefs_errmsg(t)[0] ?
			 ftk_tracefs_errmsg(t) : strerror(-ret));
	return c;
}

static void set_list(struct ftk_tracefs *t, const char *file, char **list)
{
	char *s;

	if (!list)
		return;
	s = join(list, " ");
	set_or_die(t, file, s);
	free(s);
}

/* Buffer, clock, options, function lists, tracer, events: what to record. */
/*
 * Buffer, clock and options in every buffer; the tracer and its function
 * lists in the top one (@top); then the buffer's own events @ev.
 */
static void setup(struct ftk_tracefs *t, const struct evspec *ev, int nr, int top)
{
	char kb[32];
	int i;

	if (o.buffer_kb) {
		snprintf(kb, sizeof(kb), "%ld", o.buffer_kb);
		set_or_die(t, "buffer_size_kb", kb);
	}
	if (o.clock)
		set_or_die(t, "trace_clock", o.clock);
	for (i = 0; o.ftopts && o.ftopts[i]; i++)
		set_option(t, o.ftopts[i]);
	if (o.stack)
		set_option(t, "stacktrace");
	if (top) {
		set_list(t, "set_ftrace_filter", o.func_filter);
		set_list(t, "set_ftrace_notrace", o.func_notrace);
		set_list(t, "set_graph_function", o.graph_funcs);
		if (o.tracer && ftk_tracefs_set(t, "current_tracer", o.tracer))
			tool_die("cannot use tracer '%s': %s", o.tracer, ftk_tracefs_errmsg(t));
	}
	for (i = 0; i < nr; i++)
		if (!enable_spec(t, &ev[i]))
			tool_usage_error("no event matches '%s' (see %s/available_events)",
					 ev[i].spec, ftk_tracefs_root(t));
	if (o.children) {
		set_or_die(t, "options/event-fork", "1");
		if (top && o.tracer && ftk_tracefs_exists(t, "options/function-fork"))
			set_or_die(t, "options/function-fork", "1");
	}
}

/* -P and -F: only those PIDs (the command's, forked and waiting by now). */
static void set_pids(struct ftk_tracefs *t)
{
	char list[4096] = "";
	size_t n = 0;
	int i;

	if (!o.nr_pids && !o.follow)
		return;
	for (i = 0; i < o.nr_pids; i++)
		n += snprintf(list + n, sizeof(list) - n, "%d ", o.pids[i]);
	if (o.follow)
		snprintf(list + n, sizeof(list) - n, "%d", (int)cmd.pid);
	set_or_die(t, "set_event_pid", list);
	if (o.tracer && ftk_tracefs_exists(t, "set_ftrace_pid"))
		set_or_die(t, "set_ftrace_pid", list);
}

/*
 * Record until the command ends, -D runs out or a signal. Applications
 * write the top-level trace_marker: copy it into this instance, but only
 * while it records. The kernel stops copying at the first instance whose
 * buffer is off, so an instance with tracing off and the copy on would cut
 * the markers off from other instances.
 */
static int copy_marker_on(struct ftk_tracefs *t)
{
	if (!ftk_tracefs_instance(t) || !ftk_tracefs_exists(t, "options/copy_trace_marker") ||
	    has_option("copy_trace_marker"))
		return 0;
	if (ftk_tracefs_set(t, "options/copy_trace_marker", "1"))
		fatal("cannot write 'options/copy_trace_marker': %s", ftk_tracefs_errmsg(t));
	return 1;
}

/* Set when a -B buffer's recording failed: the others are kept, the exit is 2. */
static int extra_failed;

/*
 * Each capture leaves its own threads out of its instance; with several
 * buffers, every instance leaves out every capture's threads too, or each
 * would record the others' wake-ups. The captures put set_event_notrace_pid
 * back as they found it.
 */
static void notrace_each_other(struct ftk_tracefs *t)
{
	char *all = NULL, *s, *p;
	size_t len = 0;
	FILE *m;
	int i;

	if (o.self || !o.nr_xb || !ftk_tracefs_exists(t, "set_event_notrace_pid"))
		return;
	m = open_memstream(&all, &len);
	if (!m)
		tool_die("out of memory");
	for (i = -1; i < o.nr_xb; i++) {
		if (ftk_tracefs_read(i < 0 ? t : o.xb[i].t, "set_event_notrace_pid", &s))
			continue;
		for (p = s; *p; p++)
			if (*p == '\n')
				*p = ' ';
		fprintf(m, "%s ", s);
		free(s);
	}
	fclose(m);
	for (i = -1; i < o.nr_xb; i++)
		if (ftk_tracefs_append(i < 0 ? t : o.xb[i].t, "set_event_notrace_pid", all))
			tool_warn("'%s': cannot leave the other buffers' readers out: %s",
				  i < 0 ? "top buffer" : o.xb[i].name,
				  ftk_tracefs_errmsg(i < 0 ? t : o.xb[i].t));
	free(all);
}

static int record(struct ftk_tracefs *t, const struct tool_args *a)
{
	int ret, copy_marker, i;

	ret = ftk_capture_start(cap);
	if (ret)
		fatal("cannot start recording: %s", ftk_capture_errmsg(cap));
	for (i = 0; i < o.nr_xb; i++)
		if (ftk_capture_start(o.xb[i].cap))
			fatal("cannot start recording in '%s': %s", o.xb[i].name,
			      ftk_capture_errmsg(o.xb[i].cap));
	notrace_each_other(t);
	copy_marker = copy_marker_on(t);
	if (!quiet && !o.nr_events && !o.tracer && !o.nr_xb)
		tool_warn("no event enabled: recording trace_marker writes only");
	if (a->argv) {
		if (tool_cmd_start(&cmd)) {
			ftk_capture_free(cap);
			free_extra();
			tool_exit(tool_cmd_code(&cmd));
		}
		if (!tool_cmd_wait(&cmd, a->duration)) {
			timed_out = 1;	/* -D ran out */
			tool_cmd_kill(&cmd);
		}
	} else {
		if (!quiet)
			fprintf(stderr, "ftrecord: recording into '%s'... Ctrl-C to end.\n",
				out_name());
		tool_sleep(a->duration);
	}
	if (copy_marker)
		ftk_tracefs_write(t, "options/copy_trace_marker", "0");
	for (i = 0; i < o.nr_xb; i++)
		if (ftk_capture_stop(o.xb[i].cap)) {
			tool_err("recording in '%s' failed: %s", o.xb[i].name,
				 ftk_capture_errmsg(o.xb[i].cap));
			extra_failed = 1;
		}
	ret = ftk_capture_stop(cap);
	full = disk_full(ftk_capture_failed(cap));
	if (ret && full)
		tool_err("cannot write '%s': %s: recording stopped (%s)", out_name(), strerror(-ret),
			 ftk_capture_errmsg(cap));
	else if (ret == -ECANCELED)	/* taken from under us: say so, keep what came before */
		tool_err("%s", ftk_capture_errmsg(cap));
	else if (ret)
		tool_err("recording failed: %s", ftk_capture_errmsg(cap));
	return ret;
}

/* Per CPU: what was stored, and what was lost with the buffer size that would lose none. */
static uint64_t summary_of(struct ftk_capture *c, const char *who)
{
	struct ftk_capture_cpu ci;
	uint64_t kb, total = 0;
	int cpu;

	for (cpu = 0; cpu < ftk_capture_cpus(c); cpu++) {
		ftk_capture_cpu_info(c, cpu, &ci);
		if (!ci.online)
			continue;
		total += ci.bytes;
		if (!quiet)
			fprintf(stderr, "ftrecord: %scpu%d: %llu pages (%llu KiB) stored, %llu wake-ups, "
				"%.3f s CPU\n", who, cpu, (unsigned long long)ci.pages,
				(unsigned long long)ci.bytes / 1024,
				(unsigned long long)ci.wakeups, ci.cpu_ns / 1e9);
		if (ci.unstored)
			fprintf(stderr, "ftrecord: %scpu%d: %llu events recorded are not in the file "
				"(no room for them)\n", who, cpu, (unsigned long long)ci.unstored);
		if (ci.lost && full)	/* the ring's own loss; a bigger buffer is not the cure */
			fprintf(stderr, "ftrecord: %scpu%d: %llu events lost\n", who, cpu,
				(unsigned long long)ci.lost);
		if (!ci.lost || full)
			continue;
		ftk_capture_suggest_kb(c, cpu, &kb);
		fprintf(stderr, "ftrecord: %scpu%d: %llu events lost\n", who, cpu,
			(unsigned long long)ci.lost);
		fprintf(stderr, "ftrecord: %scpu%d: %.1f MB/s stored; to lose none try -b %llu\n",
			who, cpu, ftk_capture_duration_ns(c) ?
			ci.moved / 1e6 / (ftk_capture_duration_ns(c) / 1e9) : 0.0,
			(unsigned long long)kb);
	}
	return total;
}

/* Per CPU of every buffer: what was stored, what was lost; the bytes stored in all. */
static uint64_t summary(void)
{
	uint64_t total = summary_of(cap, "");
	char who[300];
	int i;

	for (i = 0; i < o.nr_xb; i++) {
		if (!o.xb[i].cap)
			continue;
		snprintf(who, sizeof(who), "%s: ", o.xb[i].name);
		total += summary_of(o.xb[i].cap, who);
	}
	return total;
}

static void print_written(const char *path, uint64_t total)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "ftrecord: wrote '%s' (version %ld%s%s, %llu KiB of events), "
		"peak RSS %ld KiB, %.3f s CPU in all\n", path, o.version,
		o.compression ? ", " : "", o.compression ? o.compression : "",
		(unsigned long long)total / 1024, ru.ru_maxrss,
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

/* ------------------------------------------------------------ --flight */

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

/* The flight recorder instead of a capture: overwrite mode and its trigger. */
static void flight_new(struct ftk_tracefs *t, int *mainpid)
{
	FTK_OPTS(ftk_flight_opts, fo);
	struct sigaction sa = { .sa_handler = on_usr1 };
	char *outcopy;
	int ret;

	fo.spool_dir = out_dir(&outcopy);
	if (access(fo.spool_dir, W_OK) < 0)
		tool_die("cannot write '%s': %s", o.to_stdout ? fo.spool_dir : o.output,
			 strerror(errno));
	fo.before = o.before;
	fo.after = o.after;
	fo.buffer_kb = o.buffer_kb ? o.buffer_kb : o.max_kb;
	fo.event = o.on_event;
	fo.event_filter = o.on_filter;
	fo.mark = o.on_mark;
	if (o.on_latency) {
		char name[64];

		if (ftk_instance_name("reclat", name, sizeof(name)))
			tool_die("cannot name an instance");
		/* formats libtraceevent cannot parse are of events the watcher does not read */
		tep_set_loglevel(TEP_LOG_CRITICAL);
		fo.latency = o.on_latency;
		fo.top = fl_top;
		fo.watch = fl_watch = tool_tracefs(name, FTK_TRACEFS_CREATE);
	}
	fo.notrace_pids = mainpid;
	fo.nr_notrace_pids = 1;
	fo.rt_priority = o.rt;
	fo.capture_flags = o.self ? FTK_CAPTURE_TRACE_SELF : 0;
	ret = ftk_flight_new(t, &fo, &fl);
	free(outcopy);
	if (ret)
		tool_die("cannot set up the flight recorder: %s", ftk_tracefs_errmsg(t)[0] ?
			 ftk_tracefs_errmsg(t) : strerror(-ret));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Armed: stop on a stop signal, the command's end or -D; fire on SIGUSR1. */
static int flight_check(void *arg, const char **why)
{
	const struct tool_args *a = arg;
	static struct timespec t0;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!t0.tv_sec)
		t0 = now;
	if (tool_stop || (a->argv && tool_cmd_done(&cmd)))
		return FTK_FLIGHT_STOP;
	if (a->duration && (now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >=
	    a->duration) {
		timed_out = 1;
		return FTK_FLIGHT_STOP;
	}
	if (usr1) {
		usr1 = 0;
		*why = "SIGUSR1";
		return FTK_FLIGHT_FIRE;
	}
	return FTK_FLIGHT_WAIT;
}

/* -o FILE with --repeat: FILE-N before its extension (trace.dat: trace-1.dat). */
static char *numbered(int n)
{
	const char *base = strrchr(o.output, '/'), *dot;
	char *s;

	base = base ? base + 1 : o.output;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = o.output + strlen(o.output);
	if (asprintf(&s, "%.*s-%d%s", (int)(dot - o.output), o.output, n, dot) < 0)
		tool_die("out of memory");
	return s;
}

/* The flight recorder's failure: its message outlives the recorder that fatal() frees. */
static void flight_fatal(const char *what) __attribute__((noreturn));
static void flight_fatal(const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s", ftk_flight_errmsg(fl));
	fatal("%s: %s", what, msg);
}

/* Wait, write a file per trigger (--repeat: up to N), re-arm. The files written. */
static int fly(struct ftk_tracefs *t, const struct tool_args *a,
	       const struct ftk_tracewrite_opts *wopts)
{
	int n, ret = 0, sret, copy_marker = copy_marker_on(t);
	const char *name;
	uint64_t dropped;
	char *path;

	if (fl_watch) {
		/* the latency watcher follows what the recorder follows */
		char self[32];

		set_pids(fl_watch);
		if (o.children)
			set_or_die(fl_watch, "options/event-fork", "1");
		snprintf(self, sizeof(self), "%d", (int)getpid());
		/* system-wide: not the recorder's own sleeps */
		if (!o.nr_pids && !o.follow && ftk_tracefs_exists(fl_watch, "set_event_notrace_pid"))
			set_or_die(fl_watch, "set_event_notrace_pid", self);
	}
	if (ftk_flight_arm(fl))
		flight_fatal("cannot arm the flight recorder");
	if (a->argv && tool_cmd_start(&cmd)) {
		ftk_flight_free(fl);
		tool_exit(tool_cmd_code(&cmd));
	}
	if (!quiet)
		fprintf(stderr, "ftrecord: armed: writing '%s' at a trigger... Ctrl-C to end.\n",
			out_name());
	for (n = 1; n <= (o.repeat ? o.repeat : 1); n++) {
		if (n > 1 && ftk_flight_arm(fl))
			flight_fatal("cannot arm the flight recorder");
		ret = ftk_flight_wait(fl, flight_check, (void *)a);
		if (ret < 0)
			flight_fatal("flight recorder");
		if (!ret)
			break;
		if (!quiet)
			fprintf(stderr, "ftrecord: trigger: %s\n", ftk_flight_reason(fl));
		path = o.repeat ? numbered(n) : strdup(o.output);
		if (!path)
			fatal("out of memory");
		name = o.to_stdout ? out_name() : path;
		ret = ftk_flight_collect(fl, flight_check, (void *)a);
		cap = ftk_flight_capture(fl);
		/* A full disk: the window as far as it was stored, in what fits. */
		full = ret && cap && disk_full(ftk_capture_failed(cap));
		if (ret && !full) {
			free(path);
			flight_fatal("flight recorder");
		}
		if (full)
			tool_err("cannot write '%s': %s: recording stopped (%s)", name,
				 strerror(-ftk_capture_failed(cap)), ftk_flight_errmsg(fl));
		/* Standard output is written once: a second try would follow the first. */
		while (disk_full(sret = save(t, path, wopts, a->argv ? a->argv[0] : NULL,
					     cmd.pid)) && full && !o.to_stdout &&
		       (dropped = ftk_capture_shrink(cap)) > 0)
			tool_warn("'%s': no room for all of it; dropping the newest %llu KiB "
				  "(every CPU cut at one time stamp)",
				  name, (unsigned long long)dropped / 1024);
		if (sret && full)
			tool_err("cannot write '%s': %s", name, strerror(-sret));
		else if (!sret && full)
			tool_warn("wrote what fit into '%s': the window is cut short", name);
		if (!sret && !quiet)
			print_written(name, summary());
		if (!ret)
			ret = sret;
		cap = NULL;
		free(path);
		if (ret)
			break;
	}
	if (n == 1 && !ret && !quiet)
		fprintf(stderr, "ftrecord: no trigger fired: nothing written\n");
	if (copy_marker)
		ftk_tracefs_write(t, "options/copy_trace_marker", "0");
	/* Every way out: the command ends, reaped, before the instance goes. */
	if (a->argv && !tool_cmd_done(&cmd)) {
		timed_out = 1;	/* ended by us: not its own status */
		tool_cmd_kill(&cmd);
	}
	ftk_flight_free(fl);
	fl = NULL;
	return ret;
}

/*
 * Write the file after record() returned @ret: also after a full disk or a
 * recording taken away under us, what was stored stays readable (the newest
 * half is dropped until the file fits). Returns 0 or the first error.
 */
static int keep(struct ftk_tracefs *t, struct tool_args *a, struct ftk_tracewrite_opts *wopts,
		int ret)
{
	uint64_t dropped, total;
	int sret = 0;

	if (!ret || full || ret == -ECANCELED) {
		while (disk_full(sret = save(t, o.output, wopts, a->argv ? a->argv[0] : NULL,
					     cmd.pid)) &&
		       full && (dropped = ftk_capture_shrink(cap)) > 0)
			tool_warn("'%s': no room for all of it; dropping the newest %llu KiB "
				  "(every CPU cut at one time stamp)",
				  out_name(), (unsigned long long)dropped / 1024);
		if (sret && full)
			tool_err("cannot write '%s': %s", out_name(), strerror(-sret));
		else if (!sret && full)
			tool_warn("wrote what fit into '%s': the recording is cut short", out_name());
		if (!ret)
			ret = sret;
	}
	ftk_tracewrite_free(tmpl_w);
	tmpl_w = NULL;
	total = summary();
	ftk_capture_free(cap);
	free_extra();
	if (!sret && (!ret || full || ret == -ECANCELED) && !quiet)
		print_written(out_name(), total);
	return ret;
}

int main(int argc, char **argv)
{
	FTK_OPTS(ftk_tracewrite_opts, wopts);
	int ret, i, mainpid = getpid();
	struct ftk_tracefs *t;
	struct tool_args a;
	char name[64];

	tool_parse(&def, argc, argv, &a, NULL);
	check_usage(&a);
	if (o.recover)
		tool_exit(recover());
	/* -o -: before anything is opened, which could take a closed stdout's number */
	if (o.to_stdout && fcntl(STDOUT_FILENO, F_GETFD) < 0)
		tool_die("cannot write standard output: %s", strerror(errno));
	if (o.to_stdout)
		signal(SIGPIPE, SIG_IGN);	/* a reader gone is EPIPE: said, exit 2 */
	tool_signals();
	if (!o.instance && ftk_instance_name("rec", name, sizeof(name)))
		tool_die("cannot name an instance");
	/* --on-latency's probes and synthetic events: put back after the instances using them */
	if (o.on_latency)
		fl_top = tool_tracefs(NULL, 0);
	t = tool_tracefs(o.instance ? o.instance : name, FTK_TRACEFS_CREATE);
	if (o.flight)
		flight_new(t, &mainpid);
	else
		cap = capture_new(t, &mainpid, 1);
	setup(t, o.events, o.nr_events, 1);
	for (i = 0; i < o.nr_xb; i++) {
		o.xb[i].t = tool_tracefs(o.xb[i].name, FTK_TRACEFS_CREATE);
		o.xb[i].cap = capture_new(o.xb[i].t, &mainpid, 0);
		setup(o.xb[i].t, o.xb[i].events, o.xb[i].nr_events, 0);
	}
	/* Marks the command makes with ftmark or ftk_marker_open() land in the instance. */
	if (a.argv)
		tool_cmd_fork_flags(&cmd, a.argv, ftk_tracefs_instance(t),
				    (o.to_stdout ? TOOL_CMD_STDOUT_TO_STDERR : 0) |
				    (o.procmap ? TOOL_CMD_MAPS_AT_EXIT : 0));
	set_pids(t);
	for (i = 0; i < o.nr_xb; i++)
		set_pids(o.xb[i].t);
	wopts.version = o.version;
	wopts.compression = o.compression;
	wopts.flags = o.noksyms ? FTK_TRACEWRITE_NO_KALLSYMS : 0;
	/* the formats of the events on, as trace-cmd record stores those asked for */
	if (!o.flight)
		wopts.flags |= FTK_TRACEWRITE_ENABLED_SYSTEMS;
	if (!o.flight)
		spool_template(t, &wopts);
	if (o.flight) {
		ret = fly(t, &a, &wopts) ? -1 : 0;
		ftk_capture_free(cap);
	} else {
		ret = keep(t, &a, &wopts, record(t, &a));
	}
	if (ret || extra_failed)
		tool_exit(EXIT_FAIL);
	/* The command's status; 0 when a signal to ftrecord ended it, or -D did. */
	tool_exit(!a.argv || cmd.forwarded || tool_stop || timed_out ? EXIT_OK :
		  tool_cmd_code(&cmd));
}
