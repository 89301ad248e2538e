// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrecord: record events into a trace.dat that trace-cmd and KernelShark
 * read, with trace-cmd record's letters for what the two share.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <ftkit/net.h>

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
	struct ftk_session	*s;
	struct ftk_tracefs	*t;
	struct ftk_capture	*cap;
	struct ftk_watchdog	*wd;
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
	const char	*net, *listen, *dir;	/* -N HOST:PORT, --listen [ADDR:]PORT, -d DIR */
	const char	*data_ports;		/* --data-ports LOW-HIGH */
	long		max_clients, client_timeout;
} settings = { .output = "trace.dat", .version = 7, .rt = 1 };

static struct ftk_capture *cap;
static struct ftk_flight *fl;
static struct ftk_tracefs *fl_top, *fl_watch;	/* --on-latency's */
static struct ftk_watchdog *fl_watch_wd;
static struct ftk_session *sess, *fl_watch_s;	/* the top buffer's; the watcher's */
static struct tool_cmd cmd;
static int quiet, timed_out;
static volatile sig_atomic_t usr1;

static const char usage[] =
"usage: ftrecord [-cFqTv] [-e event [-f filter]]... [-p tracer] [-l func] [-n func]\n"
"                [-g func] [-P pid] [-C clock] [-b kb] [-o file|-]\n"
"                [-B instance [-e event [-f filter]]...]...\n"
"                [-s usecs] [-r prio] [-m kb] [-O option] [-D seconds]\n"
"                [--date | --ts-offset NS] [--proc-map] [--no-kallsyms]\n"
"                [--buffer-percent N] [--trace-self]\n"
"                [--file-version 6|7] [--compression none|zstd|zlib]\n"
"                [--flight [--before S] [--after S] [--repeat N]\n"
"                 [--on-event SYS:EV [--on-filter F] | --on-mark GLOB |\n"
"                  --on-latency WHAT>TIME]] [command [arg...]]\n"
"       ftrecord --recover FILE\n"
"       ftrecord -N HOST:PORT [recording options] [command [arg...]]\n"
"       ftrecord --listen [ADDR:]PORT [-d dir] [--max-clients N]\n"
"                [--data-ports LOW-HIGH] [--client-timeout S]\n"
"\n"
"Record tracing events into a trace.dat (trace-cmd's format), until the\n"
"command exits, -D seconds pass, or Ctrl-C or SIGTERM. Works in a private\n"
"instance that is removed at the end; tracefs is left as it was found.\n"
"\n"
"  -e, --event EV      system:event, system, event or 'all'; globs work\n"
"  -f, --filter F      filter for the -e before it ('prev_pid != 0')\n"
"  -p, --plugin TR     a tracer (function, function_graph, ...)\n"
"  -l, --func F        function filter (set_ftrace_filter)\n"
"  -n, --notrace F     functions never traced (set_ftrace_notrace)\n"
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
"  -N, --net HOST:PORT send to a collector (trace-cmd listen, ftrecord --listen)\n"
"                      instead of writing a file; nothing is kept here; with\n"
"                      --flight each window on a connection of its own\n"
"      --listen PORT   be the collector on PORT (or ADDR:PORT, on ADDR only:\n"
"                      127.0.0.1 behind ssh forwarding): a trace.HOST:PORT.dat\n"
"                      per sender in -d\n"
"  -d, --dir DIR       where --listen writes (default .)\n"
"      --max-clients N senders at once for --listen (default 32)\n"
"      --data-ports LOW-HIGH  --listen's per-CPU data ports from this range\n"
"      --client-timeout S  --listen drops a sender silent S s before its\n"
"                      metadata is in (default 10)\n"
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
"                       (with -N: N windows, a file each at the collector)\n"
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
"  ftrecord --listen 12345 -d /srv/traces  # collect from many boxes\n"
"  ftrecord -N collector:12345 -e sched -D 10   # on each box\n"
"  ftrecord --flight --repeat 5 -N collector:12345 -e sched --on-mark 'slow*'\n"
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

/* A session verb's failure: the command (forked, not started) goes first, then the instance. */
static void session_check(struct ftk_session *s, int ret, const char *what)
{
	if (ret) {
		tool_cmd_kill(&cmd);
		tool_die("cannot set %s: %s", what, ftk_session_errmsg(s));
	}
}

/* -O OPT (noOPT clears it), -T. */
static void set_option(struct ftk_session *s, const char *opt)
{
	int ret = ftk_session_option(s, opt, 1);

	if (ret == -ENOENT || ret == -EINVAL)
		tool_usage_error("unknown option '%s' (see %s/options)",
				 strncmp(opt, "no", 2) || !opt[2] ? opt : opt + 2,
				 ftk_tracefs_dir(ftk_session_tracefs(s)));
	session_check(s, ret, opt);
}

static int has_option(const char *name)
{
	char **opt;

	for (opt = settings.ftopts; opt && *opt; opt++)
		if (!strcmp(*opt, name) || (!strncmp(*opt, "no", 2) && !strcmp(*opt + 2, name)))
			return 1;
	return 0;
}

/* The captures of the -B buffers: their fds close before their instances go. */
static void free_extra(void)
{
	int i;

	for (i = 0; i < settings.nr_xb; i++) {
		ftk_capture_free(settings.xb[i].cap);
		settings.xb[i].cap = NULL;
	}
}

/*
 * On the exit chain: the captures, the flight recorder and the command go
 * before the instances are put back (their fds hold the instances), also
 * after tool_die() and a signal. Again on the normal exit: it finds them gone.
 */
static int record_close(void *ctx)
{
	(void)ctx;
	tool_cmd_kill(&cmd);
	if (fl)
		cap = NULL;	/* the flight's */
	ftk_flight_free(fl);
	fl = NULL;
	ftk_capture_free(cap);
	cap = NULL;
	free_extra();
	return 0;
}

/* tool_tracefs(), with record_close() kept after it on the chain (LIFO: run before it). */
static struct ftk_tracefs *record_tracefs(const char *instance, unsigned int flags)
{
	struct ftk_tracefs *t = tool_tracefs(instance, flags);

	tool_on_exit_pop(record_close, NULL, 0);
	tool_on_exit(record_close, NULL);
	return t;
}

/* A session in @instance (made if missing), record_close() kept after it as above. */
static struct ftk_session *record_session(const char *instance)
{
	FTK_OPTS(ftk_session_opts, o, .instance = instance);
	struct ftk_session *s = tool_session(&o);

	tool_on_exit_pop(record_close, NULL, 0);
	tool_on_exit(record_close, NULL);
	return s;
}

/* Set when the output's file system failed: the recording stopped, what was stored is kept. */
static int full;

/* The output in messages: the file, or standard output for -o -. */
static const char *out_name(void)
{
	return settings.net ? settings.net : settings.to_stdout ? "standard output" : settings.output;
}

/*
 * Where spools go: beside the output, so that it is on the output's file
 * system; with -o -, $TMPDIR or /tmp. *@copy is the caller's to free.
 */
static const char *out_dir(char **copy)
{
	const char *dir = getenv("TMPDIR");

	*copy = NULL;
	if (settings.to_stdout)
		return dir && *dir ? dir : "/tmp";
	*copy = strdup(settings.output);
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
static int time_opts(struct ftk_tracefs *t, struct ftk_tracewrite *w)
{
	struct ftk_clock_pair pair;

	if (settings.date && ftk_capture_clock_pair(t, &pair))
		tool_warn("--date: no date stored: %s", ftk_tracefs_errmsg(t));
	else if (settings.date && ftk_tracewrite_date(w, &pair, NULL))
		tool_warn("--date: no date stored: %s", ftk_tracewrite_errmsg(w));
	return settings.ts_offset_set ? ftk_tracewrite_ts_offset(w, settings.ts_offset) : 0;
}

static int maps(struct ftk_tracewrite *w)
{
	int ret;

	if (!settings.procmap)
		return 0;
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

static int time_and_maps(struct ftk_tracefs *t, struct ftk_tracewrite *w)
{
	int ret = time_opts(t, w);

	return ret ? ret : maps(w);
}

/* The template's metadata: the save takes its event formats and kallsyms while current. */
static struct ftk_tracemeta *tmpl_m;

/*
 * The writer of the recording of @t and the -B buffers beside it: their
 * metadata read now, the captures' data, the command's name for its pid
 * (saved_cmdlines may lack it), --date, --ts-offset and --proc-map. A
 * failure is said, naming @name (the file, or the collector).
 */
static int writer_new(struct ftk_tracefs *t, const char *name,
		      const struct ftk_tracewrite_opts *wopts, const char *comm, pid_t pid,
		      struct ftk_tracemeta **mp, struct ftk_tracewrite **wp)
{
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m;
	char buf[128];
	int ret, i;

	*mp = NULL;
	*wp = NULL;
	ret = ftk_tracemeta_new(t, wopts, tmpl_m, &m);
	for (i = 0; !ret && i < settings.nr_xb; i++)
		ret = ftk_tracemeta_buffer(m, settings.xb[i].name, settings.xb[i].t);
	if (!ret)
		ret = ftk_tracewrite_new(m, wopts, &w);
	if (ret) {
		tool_err("cannot write '%s': %s", name, m && ftk_tracemeta_errmsg(m)[0] ?
			 ftk_tracemeta_errmsg(m) : ftk_strerror(ret, buf, sizeof(buf)));
		ftk_tracemeta_free(m);
		return ret;
	}
	ret = ftk_capture_add_to(cap, w);
	for (i = 0; !ret && i < settings.nr_xb; i++) {
		ret = ftk_tracewrite_buffer(w, settings.xb[i].name);
		if (ret > 0)
			ret = ftk_capture_add_to(settings.xb[i].cap, w);
	}
	if (!ret && comm && pid > 0)
		ret = ftk_tracewrite_comm(w, pid, strrchr(comm, '/') ? strrchr(comm, '/') + 1 : comm);
	if (!ret)
		ret = time_and_maps(t, w);
	if (ret) {
		if (ftk_tracewrite_errmsg(w)[0])
			tool_err("%s", ftk_tracewrite_errmsg(w));
		else
			tool_err("cannot write '%s': %s", name,
				 ftk_strerror(ret, buf, sizeof(buf)));
		ftk_tracewrite_free(w);
		ftk_tracemeta_free(m);
		return ret;
	}
	*mp = m;
	*wp = w;
	return 0;
}

/* The file @output (standard output with -o -). */
static int save(struct ftk_tracefs *t, const char *output, const struct ftk_tracewrite_opts *wopts,
		const char *comm, pid_t pid)
{
	struct ftk_tracewrite *w;
	struct ftk_tracemeta *m;
	char buf[128];
	int ret;

	ret = writer_new(t, output, wopts, comm, pid, &m, &w);
	if (ret)
		return ret;
	if (settings.to_stdout)
		ret = ftk_tracewrite_save_fd(w, STDOUT_FILENO, out_name());
	else
		ret = ftk_tracewrite_save(w, output);
	if (ret && disk_full(ret) && !settings.to_stdout)
		;	/* said once by the caller, which tries again with less */
	else if (ret && ftk_tracewrite_errmsg(w)[0])
		tool_err("%s", ftk_tracewrite_errmsg(w));
	else if (ret)
		tool_err("cannot write '%s': %s", output, ftk_strerror(ret, buf, sizeof(buf)));
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	return ret;
}

/*
 * save() @path, and on a full disk again with less until it fits: first
 * without kallsyms (5 MB, and /proc/kallsyms of the same boot has it),
 * then with the formats of the systems on alone (the flight recorder
 * stores them all), then compressed (zstd, in a version 7 file), then
 * without the newest data, halved each time (every CPU cut at one time
 * stamp). In *@cut 1 when metadata was left out, 2 when data was; the last error is
 * said here. Standard output is written once: a second try would follow
 * the first.
 */
static int save_fitting(struct ftk_tracefs *t, const char *path, const char *name,
			struct ftk_tracewrite_opts *wopts, const char *comm, pid_t pid, int *cut)
{
	uint64_t dropped;
	int ret;

	*cut = 0;
	while (disk_full(ret = save(t, path, wopts, comm, pid)) && !settings.to_stdout) {
		if (!(wopts->flags & FTK_TRACEWRITE_NO_KALLSYMS)) {
			tool_warn("'%s': no room for all of it; leaving kallsyms out "
				  "(addresses as numbers)", name);
			wopts->flags |= FTK_TRACEWRITE_NO_KALLSYMS;
		} else if (!(wopts->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS)) {
			tool_warn("'%s': no room for all of it; storing the formats of the "
				  "systems on alone", name);
			wopts->flags |= FTK_TRACEWRITE_ENABLED_SYSTEMS;
		} else if (wopts->version != 6 && (!wopts->compression ||
			   !strcmp(wopts->compression, "none")) &&
			   ftk_tracewrite_compression_ok("zstd")) {
			tool_warn("'%s': no room for all of it; compressing with zstd", name);
			wopts->compression = "zstd";
		} else if ((dropped = ftk_capture_shrink(cap)) > 0) {
			tool_warn("'%s': no room for all of it; dropping the newest %llu KiB "
				  "(every CPU cut at one time stamp)",
				  name, (unsigned long long)dropped / 1024);
			*cut = 2;
			continue;
		} else {
			break;
		}
		if (!*cut)
			*cut = 1;
	}
	if (disk_full(ret) && !settings.to_stdout)
		tool_err("cannot write '%s': %s", name, strerror(-ret));
	return ret;
}

enum { OPT_FILE_VERSION = 256, OPT_COMPRESSION, OPT_BP, OPT_SELF, OPT_NOKSYMS, OPT_FLIGHT,
       OPT_BEFORE, OPT_AFTER, OPT_REPEAT, OPT_ON_EVENT, OPT_ON_FILTER, OPT_ON_MARK,
       OPT_ON_LATENCY, OPT_RECOVER, OPT_DATE, OPT_TS_OFFSET, OPT_PROC_MAP, OPT_LISTEN,
       OPT_MAX_CLIENTS, OPT_DATA_PORTS, OPT_CLIENT_TIMEOUT };

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
	struct xbuf *x = settings.nr_xb ? &settings.xb[settings.nr_xb - 1] : NULL;
	int i;

	switch (opt) {
	case 'e':
		if (x)
			add_event(&x->events, &x->nr_events, arg);
		else
			add_event(&settings.events, &settings.nr_events, arg);
		break;
	case 'f':
		if (x)
			add_filter(x->events, x->nr_events, arg);
		else
			add_filter(settings.events, settings.nr_events, arg);
		break;
	case 'B':
		tool_instance_name(arg);
		for (i = 0; i < settings.nr_xb; i++)
			if (!strcmp(settings.xb[i].name, arg))
				tool_usage_error("-B %s given twice", arg);
		settings.xb = realloc(settings.xb, (settings.nr_xb + 1) * sizeof(*settings.xb));
		if (!settings.xb)
			tool_die("out of memory");
		settings.xb[settings.nr_xb++] = (struct xbuf){ .name = arg };
		break;
	case OPT_DATE: settings.date = 1; break;
	case OPT_TS_OFFSET:
		settings.ts_offset = tool_num(arg, "time stamp offset", LLONG_MIN, LLONG_MAX);
		settings.ts_offset_set = 1;
		break;
	case OPT_PROC_MAP: settings.procmap = 1; break;
	case 'p': settings.tracer = arg; break;
	case 'l': add_list(&settings.func_filter, arg); break;
	case 'n': add_list(&settings.func_notrace, arg); break;
	case 'g': add_list(&settings.graph_funcs, arg); break;
	case 'P':
		settings.pids = realloc(settings.pids, (settings.nr_pids + 1) * sizeof(int));
		if (!settings.pids)
			tool_die("out of memory");
		settings.pids[settings.nr_pids++] = tool_pid(arg);
		break;
	case 'c': settings.children = 1; break;
	case 'F': settings.follow = 1; break;
	case 'C': settings.clock = arg; break;
	case 'b': settings.buffer_kb = tool_num(arg, "buffer size", 1, 1L << 30); break;
	case 'o': settings.output = arg; break;
	case 's': settings.sleep_us = tool_num(arg, "sleep interval", 1, 1L << 40); break;
	case 'r': settings.rt = tool_num(arg, "real-time priority", 0, 99); break;
	case 'm': settings.max_kb = tool_num(arg, "max size", 1, 1L << 40); break;
	case 'T': settings.stack = 1; break;
	case 'O': add_list(&settings.ftopts, arg); break;
	case OPT_FILE_VERSION: settings.version = tool_num(arg, "file version", 6, 7); break;
	case OPT_COMPRESSION: settings.compression = arg; break;
	case OPT_BP: settings.bp = tool_num(arg, "buffer percent", 0, 100), settings.bp_set = 1; break;
	case OPT_SELF: settings.self = 1; break;
	case OPT_NOKSYMS: settings.noksyms = 1; break;
	case OPT_FLIGHT: settings.flight = 1; break;
	case OPT_BEFORE: settings.before = tool_seconds(arg); break;
	case OPT_AFTER: settings.after = tool_seconds(arg); break;
	case OPT_REPEAT: settings.repeat = tool_num(arg, "repeat count", 1, 1000000); break;
	case OPT_ON_EVENT: settings.on_event = arg; break;
	case OPT_ON_FILTER: settings.on_filter = arg; break;
	case OPT_ON_MARK: settings.on_mark = arg; break;
	case OPT_ON_LATENCY: settings.on_latency = arg; break;
	case OPT_RECOVER: settings.recover = arg; break;
	case 'N': settings.net = arg; break;
	case 'd': settings.dir = arg; break;
	case OPT_LISTEN: settings.listen = arg; break;
	case OPT_DATA_PORTS: settings.data_ports = arg; break;
	case OPT_CLIENT_TIMEOUT:
		settings.client_timeout = tool_num(arg, "client timeout", 1, 86400);
		break;
	case OPT_MAX_CLIENTS: settings.max_clients = tool_num(arg, "client limit", 1, 100000); break;
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
	{ "net",		required_argument,	NULL, 'N' },
	{ "listen",		required_argument,	NULL, OPT_LISTEN },
	{ "dir",		required_argument,	NULL, 'd' },
	{ "max-clients",	required_argument,	NULL, OPT_MAX_CLIENTS },
	{ "data-ports",		required_argument,	NULL, OPT_DATA_PORTS },
	{ "client-timeout",	required_argument,	NULL, OPT_CLIENT_TIMEOUT },
	{ }
};

/* -B is the tool's own: where it stands among the -e's matters. */
static const struct tool_def def = {
	.name = "ftrecord", .usage = usage, .opts = "e:f:p:l:n:g:P:cFC:b:o:s:r:m:TO:B:N:d:",
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
	struct xbuf *x = settings.xb;

	if (settings.nr_xb != 1 || (settings.nr_events && x->nr_events))
		return;
	settings.instance = x->name;
	if (x->nr_events) {
		settings.events = x->events;
		settings.nr_events = x->nr_events;
	}
	free(settings.xb);
	settings.xb = NULL;
	settings.nr_xb = 0;
}

/* -N and --listen: what goes with them. */
static void net_usage(const struct tool_args *a)
{
	if ((settings.dir || settings.max_clients || settings.data_ports || settings.client_timeout) && !settings.listen)
		tool_usage_error("-d, --max-clients, --data-ports and --client-timeout go with "
				 "--listen");
	if (settings.listen && (a->argv || settings.nr_events || settings.net || settings.flight || settings.instance || settings.nr_xb ||
			 settings.recover || settings.tracer))
		tool_usage_error("--listen PORT takes only -d, --max-clients, --data-ports and "
				 "--client-timeout");
	if (!settings.net)
		return;
	/* (with --flight, -m is the size of the ring: no pages are kept on disk) */
	if (settings.max_kb && !settings.flight)
		tool_usage_error("-N: not with -m (the newest pages are kept on the box's disk; "
				 "-N sends each page as it comes and keeps none)");
	if (settings.recover)
		tool_usage_error("-N: not with --recover");
	if (settings.procmap && settings.version < 7 && !settings.flight)
		tool_usage_error("-N --proc-map: the maps are sent after the data, which a "
				 "version 6 file cannot take: use --file-version 7");
	if (settings.to_stdout || strcmp(settings.output, "trace.dat"))
		tool_usage_error("-N sends to the collector: no -o");
	if (!strrchr(settings.net, ':') || !strrchr(settings.net, ':')[1] ||
	    (settings.net[0] == '[' && !strstr(settings.net, "]:")))
		tool_usage_error("-N wants HOST:PORT ([ADDR]:PORT for IPv6), not '%s'", settings.net);
}

static void check_usage(const struct tool_args *a)
{
	instances();
	settings.to_stdout = !strcmp(settings.output, "-");
	if (settings.date && settings.ts_offset_set)
		tool_usage_error("--date and --ts-offset: one or the other");
	if (settings.procmap && !a->argv)
		tool_usage_error("--proc-map needs a command");
	if (settings.nr_xb && (settings.flight || settings.max_kb))
		tool_usage_error("several -B buffers: not with --flight or -m");
	if (settings.to_stdout && settings.repeat)
		tool_usage_error("--repeat writes several files: not with -o -");
	if (settings.to_stdout && isatty(STDOUT_FILENO))
		tool_usage_error("-o -: standard output is a terminal; redirect it to a file or "
				 "a pipe");
	if (settings.compression && !ftk_tracewrite_compression_ok(settings.compression))
		tool_usage_error("unknown compression '%s' (none, zstd or zlib)", settings.compression);
	if (settings.compression && strcmp(settings.compression, "none") && settings.version < 7)
		tool_usage_error("compression needs --file-version 7");
	if (settings.follow && !a->argv)
		tool_usage_error("-F needs a command");
	if ((settings.func_filter || settings.func_notrace || settings.graph_funcs) && !settings.tracer)
		tool_usage_error("-l, -n and -g need a function tracer (-p)");
	if (!*settings.output)
		tool_usage_error("empty output file name");
	if (!settings.flight && (settings.before || settings.after || settings.repeat || settings.on_event || settings.on_mark ||
			  settings.on_latency))
		tool_usage_error("--before, --after, --repeat and the --on-* triggers need --flight");
	if (settings.on_filter && !settings.on_event)
		tool_usage_error("--on-filter must come with --on-event");
	if (!!settings.on_event + !!settings.on_mark + !!settings.on_latency > 1)
		tool_usage_error("--on-event, --on-mark and --on-latency: one trigger at a time");
	if (settings.on_latency && (!strchr(settings.on_latency, '>') || strchr(settings.on_latency, '\n')))
		tool_usage_error("--on-latency wants WHAT>TIME ('wakeup>20ms'), not '%s'",
				 settings.on_latency);
	if (settings.on_event && !strchr(settings.on_event, ':'))
		tool_usage_error("--on-event wants SYSTEM:EVENT, not '%s'", settings.on_event);
	if (settings.on_mark && (!*settings.on_mark || strpbrk(settings.on_mark, "\"\n")))
		tool_usage_error("bad --on-mark pattern '%s': empty, or a quote or newline in it",
				 settings.on_mark);
	if (settings.recover && (a->argv || settings.nr_events || settings.tracer || settings.flight || settings.instance ||
			  settings.nr_xb))
		tool_usage_error("--recover FILE takes no command, events, instance or --flight");
	if (settings.recover && !*settings.recover)
		tool_usage_error("empty file name for --recover");
	/* -q also drops the summary. */
	quiet = ftk_log_level() < FTK_LOG_WARN;
	net_usage(a);
}

/* ------------------------------------------------------------ spools kept for --recover */

/*
 * Without -m the top buffer's spools are named files in FILE.spool/ (the
 * spool module): a recorder killed by SIGKILL or a power cut leaves them,
 * and --recover makes FILE of them. A normal end removes the directory.
 */
static struct ftk_spool *spool;

static void spool_cleanup(void)
{
	ftk_spool_free(spool);
	spool = NULL;
}

/* Say where recordings that died left their spools: in the output's directory. */
static void tell_recoverable(const char *outdir)
{
	char **left;
	int i;

	if (ftk_spool_left(outdir, &left))
		return;
	for (i = 0; left[i]; i++)
		tool_warn("'%s.spool' holds a recording that did not finish: "
			  "'ftrecord --recover %s' makes a trace.dat of it", left[i], left[i]);
	ftk_list_free(left);
}

/* Make FILE.spool/ with its lock held; refuse one a recording left or a recorder uses. */
static void spool_make(const char *outdir)
{
	tell_recoverable(outdir);
	if (ftk_spool_new(settings.output, &spool)) {
		tool_err("%s", ftk_spool_errmsg(spool));
		ftk_spool_free(spool);
		spool = NULL;
		tool_exit(EXIT_FAIL);
	}
	atexit(spool_cleanup);
}

/* The metadata as of the start, for --recover; after setup() so the formats are there. */
static void spool_template(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts)
{
	struct ftk_tracewrite *w;

	if (!spool)
		return;
	if (ftk_tracemeta_new(t, wopts, NULL, &tmpl_m) || ftk_tracewrite_new(tmpl_m, wopts, &w))
		tool_die("cannot write the recovery template: %s",
		      tmpl_m && ftk_tracemeta_errmsg(tmpl_m)[0] ? ftk_tracemeta_errmsg(tmpl_m) :
		      "out of memory");
	if (ftk_spool_save_template(spool, w))
		tool_die("%s", ftk_spool_errmsg(spool));
	ftk_tracewrite_free(w);
}

/* --recover FILE: FILE.spool/ into FILE. */
static int recover(void)
{
	struct ftk_tracewrite_recovered r;

	if (ftk_spool_recover(settings.recover, &r))
		tool_die("cannot recover '%s': %s", settings.recover, r.errmsg);
	if (!quiet)
		fprintf(stderr, "ftrecord: recovered '%s' from '%s.spool': %llu KiB of events "
			"from %d CPUs%s\n", settings.recover, settings.recover, (unsigned long long)r.bytes / 1024,
			r.ncpus, r.dropped ? " (a partial page at a spool's end left out)" : "");
	return 0;
}

/* ------------------------------------------------------------ -N and --listen */

/*
 * -N: a connection to the collector per buffer, as trace-cmd record -N
 * makes one per instance (the collector writes a file for each); the
 * per-CPU sockets are handed to the buffer's capture.
 */
static struct ftk_net_sender *net;		/* the top buffer's */
static struct ftk_net_sender **xnet;		/* each -B buffer's beside it */
static struct ftk_net_sender *net_next;	/* the one capture_new() takes */
static int net_cpus;
static uint64_t summary(void);

/* An IPv6 address as given before :PORT, "[::1]": without its brackets. */
static void unbracket(char *host)
{
	size_t n = strlen(host);

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host[n - 1] = '\0';
		memmove(host, host + 1, n - 1);
	}
}

/* -N's HOST and PORT, split once: an IPv6 address without its brackets. */
static char *net_host, *net_port;

static void net_parse(void)
{
	if (net_host)
		return;
	net_host = strdup(settings.net);
	if (!net_host)
		tool_die("out of memory");
	net_port = strrchr(net_host, ':');
	*net_port++ = '\0';
	unbracket(net_host);
	net_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (net_cpus < 1)
		net_cpus = 1;
	/* a collector gone is EPIPE on a send: said, exit 2 */
	signal(SIGPIPE, SIG_IGN);
}

static int net_connect(struct ftk_net_sender **s)
{
	net_parse();
	return ftk_net_sender_open(net_host, net_port, net_cpus, sysconf(_SC_PAGESIZE), s);
}

static struct ftk_net_sender *net_open(void)
{
	struct ftk_net_sender *s;
	int ret = net_connect(&s);

	if (ret)
		tool_die("cannot send to '%s': %s", settings.net, s ? ftk_net_sender_errmsg(s) :
			 strerror(-ret));
	return s;
}

/*
 * --flight -N connects at each trigger: a collector's name that does not
 * resolve is said at the start, not at the first window.
 */
static void net_check_name(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	int ret;

	net_parse();
	ret = getaddrinfo(net_host, net_port, &hints, &res);
	if (ret)
		tool_die("cannot send to '%s': cannot find '%s:%s': %s", settings.net, net_host,
			 net_port, gai_strerror(ret));
	freeaddrinfo(res);
}

/*
 * --flight -N: window @n on a connection of its own, so the collector
 * writes a file for it. The writer is the one a file's would be (save()),
 * its data the window's spools in memory, its metadata built in memory:
 * nothing is written on the box. A failure is said, naming the collector.
 */
static int net_window(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts,
		      const char *comm, pid_t pid, int n)
{
	struct ftk_net_sender *s = NULL;
	struct ftk_tracewrite *w;
	struct ftk_tracemeta *m;
	int ret;

	ret = writer_new(t, settings.net, wopts, comm, pid, &m, &w);
	if (ret)
		return ret;
	ret = net_connect(&s);
	if (!ret)	/* the whole window, then CLOSE: back when the collector has its file */
		ret = ftk_net_sender_write(s, w);
	if (ret)
		tool_err("window %d: cannot send to '%s': %s", n, settings.net,
			 s && ftk_net_sender_errmsg(s)[0] ? ftk_net_sender_errmsg(s) :
			 strerror(-ret));
	ftk_net_sender_free(s);
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	return ret;
}

static void net_capture_opts(struct ftk_capture_opts *copts)
{
	int *fds, cpu;

	/* the capture copies them; kept until the end, as small as it is */
	fds = calloc(net_cpus, sizeof(*fds));
	if (!fds)
		tool_die("out of memory");
	for (cpu = 0; cpu < net_cpus; cpu++)
		fds[cpu] = ftk_net_sender_cpu_fd(net_next, cpu);
	copts->cpu_fds = fds;
	copts->nr_cpu_fds = net_cpus;
}

/* The metadata of buffer @t as of the start (trace-cmd record -N sends it then too). */
static void net_meta_one(struct ftk_net_sender *s, struct ftk_tracefs *t,
			 const struct ftk_tracewrite_opts *wopts)
{
	FTK_OPTS(ftk_tracewrite_opts, mo);
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m;
	int fd, ret;

	mo = *wopts;
	mo.flags |= FTK_TRACEWRITE_META_ONLY;
	fd = memfd_create("ftrecord-meta", MFD_CLOEXEC);
	if (fd < 0)
		tool_die("cannot make the metadata: %s", strerror(errno));
	ret = ftk_tracemeta_new(t, &mo, NULL, &m);
	if (!ret)
		ret = ftk_tracewrite_new(m, &mo, &w);
	if (!ret)
		ret = time_opts(t, w);	/* measured at the start, as trace-cmd record does */
	if (!ret)
		ret = ftk_tracewrite_save_fd(w, fd, "the metadata");
	if (ret)
		tool_die("cannot make the metadata: %s", w && ftk_tracewrite_errmsg(w)[0] ?
			 ftk_tracewrite_errmsg(w) : m && ftk_tracemeta_errmsg(m)[0] ?
			 ftk_tracemeta_errmsg(m) : strerror(-ret));
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	if (ftk_net_sender_meta(s, fd))
		tool_die("cannot send to '%s': %s", settings.net, ftk_net_sender_errmsg(s));
	close(fd);
}

/* -B buffer @i's connection. */
static struct ftk_net_sender *net_extra(int i)
{
	if (!xnet) {
		xnet = calloc(settings.nr_xb, sizeof(*xnet));
		if (!xnet)
			tool_die("out of memory");
	}
	return xnet[i] = net_open();
}

static void net_meta(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts)
{
	int i;

	net_meta_one(net, t, wopts);
	for (i = 0; i < settings.nr_xb; i++)
		net_meta_one(xnet[i], settings.xb[i].t, wopts);
}

/*
 * The tail of buffer @t's recording on @s: the names of the tasks that
 * started during it (the metadata sent at the start lacks them) and, in
 * the top buffer (@top), the command's maps, for a collector that takes
 * them (ftrecord --listen); trace-cmd listen takes none.
 */
static int net_tail(struct ftk_net_sender *s, struct ftk_tracefs *t,
		    const struct ftk_tracewrite_opts *wopts, const struct tool_args *a, int top)
{
	struct ftk_tracewrite_opts mo = *wopts;
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m = NULL;
	const char *comm;
	int ret;

	if (wopts->version < 7)
		return 0;	/* its command lines are in the metadata's fixed place */
	/* the names as of now; the tail holds no kallsyms */
	mo.flags |= FTK_TRACEWRITE_NO_KALLSYMS;
	ret = ftk_tracemeta_new(t, &mo, NULL, &m);
	if (!ret)
		ret = ftk_tracewrite_new(m, &mo, &w);
	comm = top && a->argv ? a->argv[0] : NULL;
	if (!ret && comm && cmd.pid > 0)
		ret = ftk_tracewrite_comm(w, cmd.pid, strrchr(comm, '/') ? strrchr(comm, '/') + 1 :
					  comm);
	if (!ret && top)
		ret = maps(w);
	if (!ret)
		ret = ftk_net_sender_tail(s, w);
	if (ret == -EOPNOTSUPP) {
		if (top && settings.procmap)
			tool_warn("--proc-map: not stored: %s", ftk_net_sender_errmsg(s));
		ret = 0;
	} else if (ret) {
		tool_err("cannot send to '%s': %s", settings.net, ftk_net_sender_errmsg(s)[0] ?
			 ftk_net_sender_errmsg(s) : w ? ftk_tracewrite_errmsg(w) :
			 m && ftk_tracemeta_errmsg(m)[0] ? ftk_tracemeta_errmsg(m) : strerror(-ret));
	}
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	return ret;
}

/* After record(): the captures' sockets are closed, the tail sent; CLOSE tells the collector. */
static int net_finish(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts,
		      const struct tool_args *a, int ret)
{
	uint64_t total = summary();
	int i;

	ftk_capture_free(cap);
	cap = NULL;
	for (i = -1; i < settings.nr_xb; i++) {
		struct ftk_net_sender *s = i < 0 ? net : xnet[i];

		if (!ret && net_tail(s, i < 0 ? t : settings.xb[i].t, wopts, a, i < 0))
			ret = -EIO;
	}
	free_extra();
	for (i = -1; i < settings.nr_xb; i++) {
		struct ftk_net_sender *s = i < 0 ? net : xnet[i];

		if (!ret && ftk_net_sender_close(s)) {
			tool_err("cannot send to '%s': %s", settings.net, ftk_net_sender_errmsg(s));
			ret = -EIO;
		}
		ftk_net_sender_free(s);
	}
	net = NULL;
	free(xnet);
	xnet = NULL;
	if (ret)
		tool_err("'%s': the recording ended early; the collector keeps what it got", settings.net);
	else if (!quiet)
		fprintf(stderr, "ftrecord: sent %llu KiB of events to '%s' (%d connection%s)\n",
			(unsigned long long)total / 1024, settings.net, settings.nr_xb + 1, settings.nr_xb ? "s" : "");
	return ret;
}

static struct ftk_net_collector *collector;

static void listen_stop(int sig)
{
	(void)sig;
	ftk_net_collector_stop(collector);
}

/* One line per sender when its connection ends. */
static void listen_report(void *arg, const struct ftk_net_report *r)
{
	(void)arg;
	if (r->path && !r->err)
		fprintf(stderr, "ftrecord: %s: wrote '%s/%s' (version %d, %llu KiB of events, %d "
			"CPUs)%s%s\n", r->peer, settings.dir, r->path, r->version,
			(unsigned long long)r->bytes / 1024, r->cpus, r->text[0] ? ": " : "",
			r->text);
	else if (r->path)
		fprintf(stderr, "ftrecord: %s: wrote '%s/%s' up to a break (%llu KiB of events): "
			"%s\n", r->peer, settings.dir, r->path, (unsigned long long)r->bytes / 1024, r->text);
	else
		fprintf(stderr, "ftrecord: %s: dropped: %s\n", r->peer, r->text[0] ? r->text :
			strerror(-r->err));
}

/* --listen PORT: the collector, until SIGINT or SIGTERM. */
static int listen_main(void)
{
	FTK_OPTS(ftk_net_collector_opts, co);
	struct sigaction sa = { .sa_handler = listen_stop };
	char *addr, *colon;
	struct rlimit rl;
	int ret;

	if (!settings.dir)
		settings.dir = ".";
	co.dir = settings.dir;
	/* [ADDR:]PORT, [v6]:PORT */
	addr = strdup(settings.listen);
	if (!addr)
		tool_die("out of memory");
	colon = strrchr(addr, ':');
	if (colon) {
		*colon = '\0';
		co.port = tool_num(colon + 1, "port", 0, 65535);
		unbracket(addr);
		co.addr = addr;
	} else {
		co.port = tool_num(addr, "port", 0, 65535);
	}
	if (settings.data_ports) {
		char *dash = strchr(settings.data_ports, '-');

		if (!dash)
			tool_usage_error("--data-ports wants LOW-HIGH, not '%s'", settings.data_ports);
		*dash = '\0';
		co.data_port_min = tool_num(settings.data_ports, "data port", 1, 65535);
		co.data_port_max = tool_num(dash + 1, "data port", co.data_port_min, 65535);
	}
	co.max_clients = settings.max_clients;
	co.timeout_ms = settings.client_timeout * 1000;
	co.report = listen_report;
	/* a descriptor per CPU per sender: as many as allowed */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN);
	ret = ftk_net_collector_new(&co, &collector);
	if (ret)
		tool_die("cannot listen: %s", collector && ftk_net_collector_errmsg(collector)[0] ?
			 ftk_net_collector_errmsg(collector) : strerror(-ret));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!quiet)
		fprintf(stderr, "ftrecord: listening on port %d, writing into '%s'... Ctrl-C to "
			"end.\n", ftk_net_collector_port(collector), settings.dir);
	ret = ftk_net_collector_run(collector);
	if (ret)
		tool_err("collector: %s", ftk_net_collector_errmsg(collector));
	ftk_net_collector_free(collector);
	free(addr);
	return ret ? EXIT_FAIL : EXIT_OK;
}

/* The capture, spooling beside the output, leaving the recorder out unless --trace-self. */
static struct ftk_capture *capture_new(struct ftk_tracefs *t, int *mainpid, int top)
{
	FTK_OPTS(ftk_capture_opts, copts);
	struct ftk_capture *c;
	char *outcopy;
	const char *outdir = out_dir(&outcopy);
	int ret;

	if (settings.net) {
		net_capture_opts(&copts);
		outdir = "/";
	} else if (access(outdir, W_OK) < 0)
		tool_die("cannot write '%s': %s", settings.to_stdout ? outdir : settings.output, strerror(errno));
	copts.spool_dir = outdir;
	/* kept for --recover: the top buffer's spools, in FILE.spool/ */
	if (!settings.max_kb && top && !settings.to_stdout && !settings.net) {
		spool_make(outdir);
		copts.spool_dir = ftk_spool_dir(spool);
		copts.flags |= FTK_CAPTURE_NAMED_SPOOLS;
	}
	copts.buffer_percent = settings.bp_set ? (settings.bp ? settings.bp : -1) : 50;
	copts.poll_ms = settings.sleep_us ? (settings.sleep_us + 999) / 1000 : 0;
	copts.max_kb = settings.max_kb;
	copts.rt_priority = settings.rt;
	copts.flags |= settings.self ? FTK_CAPTURE_TRACE_SELF : 0;
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

static void set_list(struct ftk_session *s, enum ftk_ftrace_list which, char **list)
{
	if (list)
		session_check(s, ftk_session_functions(s, which, list, ftk_list_len(list)),
			      ftk_ftrace_list_file(which));
}

/* Buffer, clock, options, function lists, tracer, events: what to record. */
/*
 * Buffer, clock and options in every buffer; the tracer and its function
 * lists in the top one (@top); then the buffer's own events @ev.
 */
static void setup(struct ftk_session *s, const struct evspec *ev, int nr, int top)
{
	int i, ret;

	if (settings.buffer_kb)
		session_check(s, ftk_session_buffer(s, settings.buffer_kb), "the buffer size");
	if (settings.clock)
		session_check(s, ftk_session_clock(s, settings.clock), "the clock");
	for (i = 0; settings.ftopts && settings.ftopts[i]; i++)
		set_option(s, settings.ftopts[i]);
	if (settings.stack)
		set_option(s, "stacktrace");
	if (top) {
		set_list(s, FTK_FTRACE_FILTER, settings.func_filter);
		set_list(s, FTK_FTRACE_NOTRACE, settings.func_notrace);
		set_list(s, FTK_FTRACE_GRAPH, settings.graph_funcs);
		if (settings.tracer && ftk_session_tracer(s, settings.tracer))
			tool_die("cannot use tracer '%s': %s", settings.tracer, ftk_session_errmsg(s));
	}
	for (i = 0; i < nr; i++) {
		/* (-e all -f F: the filter was never applied; the kernel has no file for it) */
		ret = ftk_session_event(s, ev[i].spec, strcmp(ev[i].spec, "all") ? ev[i].filter : NULL);
		if (ret == -FTK_E_NOEVENT)
			tool_usage_error("no event matches '%s' (see %s/available_events)",
					 ev[i].spec, ftk_tracefs_root(ftk_session_tracefs(s)));
		if (ret) {
			tool_cmd_kill(&cmd);
			tool_die("cannot enable %s", ftk_session_errmsg(s));
		}
	}
	if (settings.children) {
		session_check(s, ftk_session_option(s, "event-fork", 1), "event-fork");
		ret = top && settings.tracer ? ftk_session_option(s, "function-fork", 1) : 0;
		session_check(s, ret == -ENOENT ? 0 : ret, "function-fork");
	}
}

/* -P and -F: only those PIDs (the command's, forked and waiting by now). */
static void set_pids(struct ftk_session *s)
{
	unsigned int flags = settings.tracer ? FTK_SESSION_PID_FUNCTION : 0;
	int i;

	for (i = 0; i < settings.nr_pids; i++)
		session_check(s, ftk_session_pid(s, settings.pids[i], flags), "the PID filter");
	if (settings.follow)
		session_check(s, ftk_session_pid(s, cmd.pid, flags), "the PID filter");
}

/*
 * Record until the command ends, -D runs out or a signal. Applications
 * write the top-level trace_marker: copy it into this instance, but only
 * while it records. The kernel stops copying at the first instance whose
 * buffer is off, so an instance with tracing off and the copy on would cut
 * the markers off from other instances.
 */
static int copy_marker_on(void)
{
	int ret;

	if (has_option("copy_trace_marker"))
		return 0;
	ret = ftk_session_copy_marker(sess, 1);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		tool_die("cannot copy trace_marker into the instance: %s", ftk_session_errmsg(sess));
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
static void notrace_each_other(void)
{
	struct ftk_session **all;
	int i;

	if (settings.self || !settings.nr_xb)
		return;
	all = calloc(settings.nr_xb + 1, sizeof(*all));
	if (!all)
		tool_die("out of memory");
	all[0] = sess;
	for (i = 0; i < settings.nr_xb; i++)
		all[i + 1] = settings.xb[i].s;
	if (ftk_session_notrace_share(all, settings.nr_xb + 1))
		tool_warn("cannot leave the other buffers' readers out: %s", ftk_session_errmsg(sess));
	free(all);
}

static int record(struct ftk_tracefs *t, const struct tool_args *a)
{
	int ret, copy_marker, i;

	ret = ftk_capture_start(cap);
	if (ret)
		tool_die("cannot start recording: %s", ftk_capture_errmsg(cap));
	for (i = 0; i < settings.nr_xb; i++)
		if (ftk_capture_start(settings.xb[i].cap))
			tool_die("cannot start recording in '%s': %s", settings.xb[i].name,
			      ftk_capture_errmsg(settings.xb[i].cap));
	notrace_each_other();
	copy_marker = copy_marker_on();
	if (!quiet && !settings.nr_events && !settings.tracer && !settings.nr_xb)
		tool_warn("no event enabled: recording trace_marker writes only");
	if (a->argv) {
		if (tool_cmd_start(&cmd)) {
			ftk_capture_free(cap);
			cap = NULL;
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
		ftk_session_copy_marker(sess, 0);
	for (i = 0; i < settings.nr_xb; i++)
		if (ftk_capture_stop(settings.xb[i].cap)) {
			tool_err("recording in '%s' failed: %s", settings.xb[i].name,
				 ftk_capture_errmsg(settings.xb[i].cap));
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

	for (i = 0; i < settings.nr_xb; i++) {
		if (!settings.xb[i].cap)
			continue;
		snprintf(who, sizeof(who), "%s: ", settings.xb[i].name);
		total += summary_of(settings.xb[i].cap, who);
	}
	return total;
}

static void print_written(const char *path, uint64_t total)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "ftrecord: wrote '%s' (version %ld%s%s, %llu KiB of events), "
		"peak RSS %ld KiB, %.3f s CPU in all\n", path, settings.version,
		settings.compression ? ", " : "", settings.compression ? settings.compression : "",
		(unsigned long long)total / 1024, ru.ru_maxrss,
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

/* ------------------------------------------------------------ the watchdog */

/*
 * A child per instance that outlives a recorder killed with SIGKILL: it
 * turns tracing off there and removes the instance; for the top buffer it
 * first saves what the ring holds into FILE.spool/ (with --flight only
 * after a trigger). The -B buffers and --on-latency's watcher have no
 * spool: theirs only stop and go. Each is told goodbye before any
 * teardown: the exit chain runs newest first.
 */
static struct ftk_watchdog *wd;		/* the top buffer's: told of the flight's triggers */

static int watchdog_stop(void *ctx)
{
	struct ftk_watchdog **w = ctx;

	ftk_watchdog_free(*w);
	*w = NULL;
	return 0;
}

static void watchdog_start(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts,
			   struct ftk_watchdog **out)
{
	FTK_OPTS(ftk_watchdog_opts, o);
	int ret;

	if (out == &wd) {
		o.spool = spool;
		o.template_opts = wopts;
		o.flags = settings.flight ? FTK_WATCHDOG_SAVE_LATER : 0;
	}
	o.flags |= settings.self ? FTK_WATCHDOG_TRACE_SELF : 0;
	ret = ftk_watchdog_start(t, &o, out);
	if (ret)
		tool_warn("no watchdog for '%s' (%s): killed, ftrecord would leave it tracing",
			  ftk_tracefs_instance(t), strerror(-ret));
	else
		tool_on_exit(watchdog_stop, out);
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

	outcopy = NULL;
	if (settings.net) {
		/* each window held in memory until it is sent: nothing on the box's disk */
		fo.capture_flags = FTK_CAPTURE_MEMORY_SPOOLS;
	} else {
		fo.spool_dir = out_dir(&outcopy);
		if (access(fo.spool_dir, W_OK) < 0)
			tool_die("cannot write '%s': %s", settings.to_stdout ? fo.spool_dir :
				 settings.output, strerror(errno));
	}
	/*
	 * FILE.spool/lock, though nothing is spooled there: one recorder a file
	 * (a window is written by rename, so a second would silently win).
	 */
	if (!settings.to_stdout && !settings.net)
		spool_make(fo.spool_dir);
	fo.before = settings.before;
	fo.after = settings.after;
	fo.buffer_kb = settings.buffer_kb ? settings.buffer_kb : settings.max_kb;
	fo.event = settings.on_event;
	fo.event_filter = settings.on_filter;
	fo.mark = settings.on_mark;
	if (settings.on_latency) {
		char name[64];

		if (ftk_instance_name("reclat", name, sizeof(name)))
			tool_die("cannot name an instance");
		/* formats libtraceevent cannot parse are of events the watcher does not read */
		tep_set_loglevel(TEP_LOG_CRITICAL);
		fo.latency = settings.on_latency;
		fo.top = fl_top;
		fl_watch_s = record_session(name);
		fo.watch = fl_watch = ftk_session_tracefs(fl_watch_s);
	}
	fo.notrace_pids = mainpid;
	fo.nr_notrace_pids = 1;
	fo.rt_priority = settings.rt;
	fo.capture_flags |= settings.self ? FTK_CAPTURE_TRACE_SELF : 0;
	if (spool) {	/* the window in FILE.spool/: the watchdog's, if killed */
		fo.spool_dir = ftk_spool_dir(spool);
		fo.capture_flags |= FTK_CAPTURE_NAMED_SPOOLS;
	}
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
	const char *base = strrchr(settings.output, '/'), *dot;
	char *s;

	base = base ? base + 1 : settings.output;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = settings.output + strlen(settings.output);
	if (asprintf(&s, "%.*s-%d%s", (int)(dot - settings.output), settings.output, n, dot) < 0)
		tool_die("out of memory");
	return s;
}

/*
 * -N: window @n to the collector. One that cannot be sent is said and
 * lost, and the recorder re-arms: a collector that was away for a moment
 * costs that window, not the next ones; the exit status is then 2.
 */
static int net_fly_window(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *wopts,
			  const char *comm, int n)
{
	uint64_t total;
	int ret;

	if (full)
		tool_warn("window %d: sending what was stored: the window is cut short", n);
	ret = net_window(t, wopts, comm, cmd.pid, n);
	total = summary();
	if (ret)
		tool_err("window %d is lost; %s", n, n < (settings.repeat ? settings.repeat : 1) ?
			 "armed again for the next" : "it was the last");
	else if (!quiet)
		fprintf(stderr, "ftrecord: sent window %d to '%s' (version %ld, %llu KiB of "
			"events)\n", n, settings.net, settings.version,
			(unsigned long long)total / 1024);
	return ret || full;
}

/*
 * Wait, write a file per trigger (--repeat: up to N), re-arm; with -N send
 * each window to the collector instead. Nonzero when a window failed.
 */
static int fly(struct ftk_tracefs *t, const struct tool_args *a,
	       const struct ftk_tracewrite_opts *wopts)
{
	int n, ret = 0, sret, cut, lost = 0, copy_marker = copy_marker_on();
	struct ftk_tracewrite_opts wo;
	const char *name;
	char *path;

	if (fl_watch) {
		/* the latency watcher follows what the recorder follows */
		set_pids(fl_watch_s);
		if (settings.children)
			session_check(fl_watch_s, ftk_session_option(fl_watch_s, "event-fork", 1),
				      "event-fork");
		/* system-wide: not the recorder's own sleeps (where the kernel can) */
		if (!settings.nr_pids && !settings.follow) {
			int r = ftk_session_pid(fl_watch_s, getpid(), FTK_SESSION_PID_NOTRACE);

			session_check(fl_watch_s, r == -ENOENT ? 0 : r, "the PID filter");
		}
	}
	if (ftk_flight_arm(fl))
		tool_die("cannot arm the flight recorder: %s", ftk_flight_errmsg(fl));
	if (a->argv && tool_cmd_start(&cmd))
		tool_exit(tool_cmd_code(&cmd));
	if (!quiet && settings.net)
		fprintf(stderr, "ftrecord: armed: sending each window to '%s' at a trigger... "
			"Ctrl-C to end.\n", settings.net);
	else if (!quiet)
		fprintf(stderr, "ftrecord: armed: writing '%s' at a trigger... Ctrl-C to end.\n",
			out_name());
	for (n = 1; n <= (settings.repeat ? settings.repeat : 1); n++) {
		if (n > 1 && ftk_flight_arm(fl))
			tool_die("cannot arm the flight recorder: %s", ftk_flight_errmsg(fl));
		ret = ftk_flight_wait(fl, flight_check, (void *)a);
		if (ret < 0)
			tool_die("flight recorder: %s", ftk_flight_errmsg(fl));
		if (!ret)
			break;
		ftk_watchdog_save(wd, 1);
		if (!quiet)
			fprintf(stderr, "ftrecord: trigger: %s\n", ftk_flight_reason(fl));
		path = settings.repeat ? numbered(n) : strdup(settings.output);
		if (!path)
			tool_die("out of memory");
		name = settings.to_stdout || settings.net ? out_name() : path;
		ret = ftk_flight_collect(fl, flight_check, (void *)a);
		cap = ftk_flight_capture(fl);
		/* A full disk: the window as far as it was stored, in what fits. */
		full = ret && cap && disk_full(ftk_capture_failed(cap));
		if (ret && !full) {
			free(path);
			tool_die("flight recorder: %s", ftk_flight_errmsg(fl));
		}
		if (full)
			tool_err("cannot write '%s': %s: recording stopped (%s)", name,
				 strerror(-ftk_capture_failed(cap)), ftk_flight_errmsg(fl));
		if (settings.net) {
			lost |= net_fly_window(t, wopts, a->argv ? a->argv[0] : NULL, n);
			ftk_watchdog_save(wd, 0);
			cap = NULL;
			free(path);
			continue;
		}
		wo = *wopts;	/* each window with kallsyms again, if it fits */
		sret = save_fitting(t, path, name, &wo, a->argv ? a->argv[0] : NULL, cmd.pid,
				    &cut);
		if (!sret && (full || cut == 2))
			tool_warn("wrote what fit into '%s': the window is cut short", name);
		else if (!sret && cut)
			tool_warn("wrote what fit into '%s': less metadata than asked for", name);
		if (!sret && cut)
			sret = -ENOSPC;	/* written, but not all: exit 2 */
		ftk_watchdog_save(wd, 0);
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
		fprintf(stderr, "ftrecord: no trigger fired: nothing %s\n",
			settings.net ? "sent" : "written");
	if (copy_marker)
		ftk_session_copy_marker(sess, 0);
	/* Every way out: the command ends, reaped, before the instance goes. */
	if (a->argv && !tool_cmd_done(&cmd)) {
		timed_out = 1;	/* ended by us: not its own status */
		tool_cmd_kill(&cmd);
	}
	ftk_flight_free(fl);
	fl = NULL;
	return ret ? ret : lost;
}

/*
 * Write the file after record() returned @ret: also after a full disk or a
 * recording taken away under us, what was stored stays readable (the newest
 * half is dropped until the file fits). Returns 0 or the first error.
 */
static int keep(struct ftk_tracefs *t, struct tool_args *a, struct ftk_tracewrite_opts *wopts,
		int ret)
{
	int sret = 0, cut = 0;
	uint64_t total;

	if (!ret || full || ret == -ECANCELED) {
		sret = save_fitting(t, settings.output, out_name(), wopts, a->argv ? a->argv[0] : NULL,
				    cmd.pid, &cut);
		if (!sret && (full || cut == 2))
			tool_warn("wrote what fit into '%s': the recording is cut short", out_name());
		else if (!sret && cut)
			tool_warn("wrote what fit into '%s': less metadata than asked for", out_name());
		if (!ret)
			ret = sret ? sret : cut ? -ENOSPC : 0;
	}
	ftk_tracemeta_free(tmpl_m);
	tmpl_m = NULL;
	total = summary();
	ftk_capture_free(cap);
	cap = NULL;
	free_extra();
	if (!sret && (!ret || full || cut || ret == -ECANCELED) && !quiet)
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
	if (settings.recover)
		tool_exit(recover());
	if (settings.listen)
		tool_exit(listen_main());
	/* -o -: before anything is opened, which could take a closed stdout's number */
	if (settings.to_stdout && fcntl(STDOUT_FILENO, F_GETFD) < 0)
		tool_die("cannot write standard output: %s", strerror(errno));
	if (settings.to_stdout)
		signal(SIGPIPE, SIG_IGN);	/* a reader gone is EPIPE: said, exit 2 */
	tool_signals();
	if (settings.net && settings.flight)
		net_check_name();	/* a connection per window, made at its trigger */
	if (!settings.instance && ftk_instance_name("rec", name, sizeof(name)))
		tool_die("cannot name an instance");
	/* --on-latency's probes and synthetic events: put back after the instances using them */
	if (settings.on_latency)
		fl_top = record_tracefs(NULL, 0);
	sess = record_session(settings.instance ? settings.instance : name);
	t = ftk_session_tracefs(sess);
	if (settings.net && !settings.flight)
		net = net_next = net_open();
	if (settings.flight)
		flight_new(t, &mainpid);
	else
		cap = capture_new(t, &mainpid, 1);
	setup(sess, settings.events, settings.nr_events, 1);
	for (i = 0; i < settings.nr_xb; i++) {
		settings.xb[i].s = record_session(settings.xb[i].name);
		settings.xb[i].t = ftk_session_tracefs(settings.xb[i].s);
		if (settings.net)
			net_next = net_extra(i);
		settings.xb[i].cap = capture_new(settings.xb[i].t, &mainpid, 0);
		setup(settings.xb[i].s, settings.xb[i].events, settings.xb[i].nr_events, 0);
	}
	/* Marks the command makes with ftmark or ftk_marker_open() land in the instance. */
	if (a.argv)
		tool_cmd_fork_flags(&cmd, a.argv, ftk_tracefs_instance(t),
				    (settings.to_stdout ? TOOL_CMD_STDOUT_TO_STDERR : 0) |
				    (settings.procmap ? TOOL_CMD_MAPS_AT_EXIT : 0));
	set_pids(sess);
	for (i = 0; i < settings.nr_xb; i++)
		set_pids(settings.xb[i].s);
	wopts.version = settings.version;
	wopts.compression = settings.compression;
	wopts.flags = settings.noksyms ? FTK_TRACEWRITE_NO_KALLSYMS : 0;
	/* the formats of the events on, as trace-cmd record stores those asked for */
	if (!settings.flight)
		wopts.flags |= FTK_TRACEWRITE_ENABLED_SYSTEMS;
	if (settings.net && !settings.flight)
		net_meta(t, &wopts);
	else if (!settings.flight)
		spool_template(t, &wopts);
	watchdog_start(t, &wopts, &wd);
	for (i = 0; i < settings.nr_xb; i++)
		watchdog_start(settings.xb[i].t, NULL, &settings.xb[i].wd);
	if (fl_watch)
		watchdog_start(fl_watch, NULL, &fl_watch_wd);
	if (settings.net && !settings.flight) {
		ret = net_finish(t, &wopts, &a, record(t, &a));
	} else if (settings.flight) {
		ret = fly(t, &a, &wopts) ? -1 : 0;
		ftk_capture_free(cap);
		cap = NULL;
	} else {
		ret = keep(t, &a, &wopts, record(t, &a));
	}
	if (ret || extra_failed)
		tool_exit(EXIT_FAIL);
	/* The command's status; 0 when a signal to ftrecord ended it, or -D did. */
	tool_exit(!a.argv || cmd.forwarded || tool_stop || timed_out ? EXIT_OK :
		  tool_cmd_code(&cmd));
}
