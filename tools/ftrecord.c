// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrecord: record events into a trace.dat that trace-cmd and KernelShark
 * read, with trace-cmd record's letters for what the two share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

struct evspec {
	char	*spec;
	char	*filter;
};

static struct evspec *events;
static int nr_events;
static char **func_filter, **func_notrace, **graph_funcs, **ftopts;
static int *pids, nr_pids;
static int quiet;
static struct ftk_capture *cap;

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftrecord [-cFqTv] [-e event [-f filter]]... [-p tracer] [-l func] [-n func]\n"
"                [-g func] [-P pid] [-C clock] [-b kb] [-B instance] [-o file]\n"
"                [-s usecs] [-r prio] [-m kb] [-O option] [--file-version 6|7]\n"
"                [--compression none|zstd|zlib] [command [arg...]]\n"
"\n"
"Record tracing events into a trace.dat (trace-cmd's format), until the\n"
"command exits, or Ctrl-C or SIGTERM without a command. Works in a private\n"
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
"  -B, --instance NAME record in this instance (created if missing)\n"
"  -o, --output FILE   the file to write (default trace.dat)\n"
"  -s, --sleep USECS   wake at least this often (default: when half full)\n"
"  -r, --rt PRIO       readers' SCHED_FIFO priority (default 1; 0: normal)\n"
"  -m, --max KB        keep about the last KB KiB per CPU\n"
"  -T, --stacktrace    a kernel stack with every event\n"
"  -O, --option OPT    set options/OPT (noOPT clears it)\n"
"      --file-version N  6 or 7 (default 7)\n"
"      --compression C   none (default), zstd or zlib; version 7 only\n"
"      --buffer-percent N  wake the reader at N%% full (default 50)\n"
"      --trace-self     keep the recorder's own threads in the trace\n"
"      --no-kallsyms    leave /proc/kallsyms out of the file\n"
"  -q, --quiet         no summary\n"
"  -v, --verbose       more messages\n"
"  -V, --version       print the version\n"
"  -h, --help          this text\n"
"\n"
"examples:\n"
"  ftrecord -e sched:sched_switch -e sched:sched_wakeup make -j2\n"
"  ftrecord -e 'syscalls:sys_enter_open*' -f 'filename != 0' -o open.dat ls\n"
"  ftrecord -e sched -F -c ./server      # the server and its children only\n"
"  ftrecord --compression zstd -e irq    # until Ctrl-C\n");
}

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
	if (ftk_tracefs_set(t, file, val))
		tool_die("cannot write '%s': %s", file, ftk_tracefs_errmsg(t));
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
	char **o;

	for (o = ftopts; o && *o; o++)
		if (!strcmp(*o, name) || (!strncmp(*o, "no", 2) && !strcmp(*o + 2, name)))
			return 1;
	return 0;
}

/* The command runs in a child that waits for "go" on a pipe, so it is known
 * (and can be filtered on) before tracing starts. */
static pid_t child, child_pid;
static int go_fd = -1, exec_fd = -1;

static const char *instance_name;

static void start_child(char **argv)
{
	int go[2], ex[2], err;
	char c = 0;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0)
		tool_die("cannot make a pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		tool_die("cannot fork: %s", strerror(errno));
	if (child == 0) {
		close(go[1]);
		close(ex[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		if (c != 'g')
			_exit(127);
		/* Marks the command makes with ftmark or ftk_marker_open() land here. */
		if (instance_name)
			setenv("FTK_INSTANCE", instance_name, 1);
		execvp(argv[0], argv);
		err = errno;
		if (write(ex[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	child_pid = child;
	go_fd = go[1];
	exec_fd = ex[0];
}

static void kill_child(void);

/* After the capture started: its fds must close before the instance can go. */
#define fatal(...) do {					\
		kill_child();				\
		ftk_capture_free(cap);			\
		cap = NULL;				\
		tool_die(__VA_ARGS__);			\
	} while (0)

static void release_child(const char *cmd)
{
	char c = 'g';
	int err;

	if (write(go_fd, &c, 1) != 1)
		fatal("cannot start '%s': %s", cmd, strerror(errno));
	close(go_fd);
	go_fd = -1;
	if (read(exec_fd, &err, sizeof(err)) == sizeof(err)) {
		waitpid(child, NULL, 0);
		child = 0;
		fatal("cannot run '%s': %s", cmd, strerror(err));
	}
	close(exec_fd);
}

static void wait_child(void)
{
	int st, forwarded = 0;

	for (;;) {
		if (tool_stop) {
			/* Pass the signal on once; a second one kills. */
			kill(child, forwarded ? SIGKILL : tool_stop);
			forwarded = 1;
			tool_stop = 0;
		}
		if (waitpid(child, &st, 0) == child)
			break;
		if (errno != EINTR)
			break;
	}
	child = 0;
}

static void wait_signal(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!tool_stop)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void kill_child(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
}

/* The file, with the command's name for its pid (saved_cmdlines may lack it). */
/* A failure of the output's file system: the recording stops, what was stored is kept. */
static int disk_full(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EIO;
}

/* From a CPU thread: end the wait as Ctrl-C would; main() says why after ftk_capture_stop(). */
static void capture_failed(void *arg, int err)
{
	kill(getpid(), SIGTERM);
}

static int save(struct ftk_tracefs *t, const char *output, const struct ftk_tracewrite_opts *wopts,
		const char *cmd)
{
	struct ftk_tracewrite *w;
	char buf[128];
	int ret;

	ret = ftk_tracewrite_new(t, wopts, &w);
	if (ret) {
		tool_err("cannot write '%s': %s", output, ftk_strerror(ret, buf, sizeof(buf)));
		return ret;
	}
	ret = ftk_capture_add_to(cap, w);
	if (!ret && cmd && child_pid > 0)
		ret = ftk_tracewrite_comm(w, child_pid, strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd);
	if (!ret)
		ret = ftk_tracewrite_save(w, output);
	if (ret && disk_full(ret) && ftk_capture_failed(cap))
		;	/* said once by the caller, which tries again with less */
	else if (ret && ftk_tracewrite_errmsg(w)[0])
		tool_err("%s", ftk_tracewrite_errmsg(w));
	else if (ret)
		tool_err("cannot write '%s': %s", output, ftk_strerror(ret, buf, sizeof(buf)));
	ftk_tracewrite_free(w);
	return ret;
}

static long parse_num(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		tool_usage_error("bad %s '%s'", what, s);
	return v;
}

int main(int argc, char **argv)
{
	enum { OPT_FILE_VERSION = 256, OPT_COMPRESSION, OPT_BP, OPT_SELF, OPT_NOKSYMS };
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
		{ "instance",		required_argument,	NULL, 'B' },
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
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "verbose",		no_argument,		NULL, 'v' },
		{ "version",		no_argument,		NULL, 'V' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	FTK_OPTS(ftk_capture_opts, copts);
	FTK_OPTS(ftk_tracewrite_opts, wopts);
	const char *tracer = NULL, *clock = NULL, *instance = NULL, *output = "trace.dat";
	const char *compression = NULL;
	long buffer_kb = 0, sleep_us = 0, max_kb = 0, bp = 0, version = 7;
	int children = 0, follow = 0, stack = 0, self = 0, noksyms = 0, bp_set = 0;
	int copy_marker = 0, rt = 1;
	char name[64], *s, *outdir, *outcopy;
	struct ftk_tracefs *t;
	int opt, i, cpu, ret, mainpid, full, sret = 0;
	uint64_t dropped;
	uint64_t total = 0;

	tool_init("ftrecord");
	while ((opt = getopt_long(argc, argv, "+e:f:p:l:n:g:P:cFC:b:B:o:s:r:m:TO:qvVh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			events = realloc(events, (nr_events + 1) * sizeof(*events));
			if (!events)
				tool_die("out of memory");
			events[nr_events++] = (struct evspec){ optarg, NULL };
			break;
		case 'f':
			if (!nr_events)
				tool_usage_error("-f must follow the -e it filters");
			events[nr_events - 1].filter = optarg;
			break;
		case 'p': tracer = optarg; break;
		case 'l': add_list(&func_filter, optarg); break;
		case 'n': add_list(&func_notrace, optarg); break;
		case 'g': add_list(&graph_funcs, optarg); break;
		case 'P':
			pids = realloc(pids, (nr_pids + 1) * sizeof(int));
			if (!pids)
				tool_die("out of memory");
			pids[nr_pids++] = parse_num(optarg, "pid", 1, INT32_MAX);
			break;
		case 'c': children = 1; break;
		case 'F': follow = 1; break;
		case 'C': clock = optarg; break;
		case 'b': buffer_kb = parse_num(optarg, "buffer size", 1, 1L << 30); break;
		case 'B': instance = optarg; break;
		case 'o': output = optarg; break;
		case 's': sleep_us = parse_num(optarg, "sleep interval", 1, 1L << 40); break;
		case 'r': rt = parse_num(optarg, "real-time priority", 0, 99); break;
		case 'm': max_kb = parse_num(optarg, "max size", 1, 1L << 40); break;
		case 'T': stack = 1; break;
		case 'O': add_list(&ftopts, optarg); break;
		case OPT_FILE_VERSION:
			version = parse_num(optarg, "file version", 6, 7);
			break;
		case OPT_COMPRESSION: compression = optarg; break;
		case OPT_BP: bp = parse_num(optarg, "buffer percent", 0, 100); bp_set = 1; break;
		case OPT_SELF: self = 1; break;
		case OPT_NOKSYMS: noksyms = 1; break;
		case 'q': quiet = 1; tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'V': printf("ftrecord (ftkit) %s\n", FTK_VERSION_STRING); return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (compression && !ftk_tracewrite_compression_ok(compression))
		tool_usage_error("unknown compression '%s' (none, zstd or zlib)", compression);
	if (compression && strcmp(compression, "none") && version < 7)
		tool_usage_error("compression needs --file-version 7");
	if (follow && optind >= argc)
		tool_usage_error("-F needs a command");
	if ((func_filter || func_notrace || graph_funcs) && !tracer)
		tool_usage_error("-l, -n and -g need a function tracer (-p)");
	if (!*output)
		tool_usage_error("empty output file name");

	tool_signals();
	mainpid = getpid();
	if (!instance) {
		if (ftk_instance_name("rec", name, sizeof(name)))
			tool_die("cannot name an instance");
		instance = name;
	}
	t = tool_tracefs(instance, FTK_TRACEFS_CREATE);

	outcopy = strdup(output);
	if (!outcopy)
		tool_die("out of memory");
	outdir = dirname(outcopy);
	if (access(outdir, W_OK) < 0)
		tool_die("cannot write '%s': %s", output, strerror(errno));
	copts.spool_dir = outdir;
	copts.buffer_percent = bp_set ? (bp ? bp : -1) : 50;
	copts.poll_ms = sleep_us ? (sleep_us + 999) / 1000 : 0;
	copts.max_kb = max_kb;
	copts.rt_priority = rt;
	copts.flags = self ? FTK_CAPTURE_TRACE_SELF : 0;
	copts.on_failure = capture_failed;
	copts.notrace_pids = &mainpid;
	copts.nr_notrace_pids = 1;

	/* Tracing goes off first (journaled), then everything is set up. */
	ret = ftk_capture_new(t, &copts, &cap);
	if (ret)
		tool_die("cannot set up the capture: %s", ftk_tracefs_errmsg(t)[0] ?
			 ftk_tracefs_errmsg(t) : strerror(-ret));

	if (buffer_kb) {
		snprintf(name, sizeof(name), "%ld", buffer_kb);
		set_or_die(t, "buffer_size_kb", name);
	}
	if (clock)
		set_or_die(t, "trace_clock", clock);
	for (i = 0; ftopts && ftopts[i]; i++)
		set_option(t, ftopts[i]);
	if (stack)
		set_option(t, "stacktrace");
	if (func_filter) {
		s = join(func_filter, " ");
		set_or_die(t, "set_ftrace_filter", s);
		free(s);
	}
	if (func_notrace) {
		s = join(func_notrace, " ");
		set_or_die(t, "set_ftrace_notrace", s);
		free(s);
	}
	if (graph_funcs) {
		s = join(graph_funcs, " ");
		set_or_die(t, "set_graph_function", s);
		free(s);
	}
	if (tracer && ftk_tracefs_set(t, "current_tracer", tracer))
		tool_die("cannot use tracer '%s': %s", tracer, ftk_tracefs_errmsg(t));
	for (i = 0; i < nr_events; i++)
		if (!enable_spec(t, &events[i]))
			tool_usage_error("no event matches '%s' (see %s/available_events)",
					 events[i].spec, ftk_tracefs_root(t));
	if (children) {
		set_or_die(t, "options/event-fork", "1");
		if (tracer && ftk_tracefs_exists(t, "options/function-fork"))
			set_or_die(t, "options/function-fork", "1");
	}
	if (optind < argc) {
		instance_name = ftk_tracefs_instance(t);
		start_child(argv + optind);
	}
	if (nr_pids || follow) {
		char list[4096] = "";
		size_t n = 0;

		for (i = 0; i < nr_pids; i++)
			n += snprintf(list + n, sizeof(list) - n, "%d ", pids[i]);
		if (follow)
			snprintf(list + n, sizeof(list) - n, "%d", (int)child);
		set_or_die(t, "set_event_pid", list);
		if (tracer && ftk_tracefs_exists(t, "set_ftrace_pid"))
			set_or_die(t, "set_ftrace_pid", list);
	}

	ret = ftk_capture_start(cap);
	if (ret)
		fatal("cannot start recording: %s", ftk_capture_errmsg(cap));
	/*
	 * Applications write the top-level trace_marker: copy it into this
	 * instance, but only while it records. The kernel stops copying at
	 * the first instance whose buffer is off, so an instance with tracing
	 * off and the copy on would cut the markers off from other instances.
	 */
	if (ftk_tracefs_instance(t) && ftk_tracefs_exists(t, "options/copy_trace_marker") &&
	    !has_option("copy_trace_marker")) {
		if (ftk_tracefs_set(t, "options/copy_trace_marker", "1"))
			fatal("cannot write 'options/copy_trace_marker': %s", ftk_tracefs_errmsg(t));
		copy_marker = 1;
	}
	if (!quiet && !nr_events && !tracer)
		tool_warn("no event enabled: recording trace_marker writes only");
	if (optind < argc) {
		release_child(argv[optind]);
		wait_child();
	} else {
		if (!quiet)
			fprintf(stderr, "ftrecord: recording into '%s'... Ctrl-C to end.\n", output);
		wait_signal();
	}

	if (copy_marker)
		ftk_tracefs_write(t, "options/copy_trace_marker", "0");
	ret = ftk_capture_stop(cap);
	full = disk_full(ftk_capture_failed(cap));
	if (ret && full)
		tool_err("cannot write '%s': %s: recording stopped (%s)", output, strerror(-ret),
			 ftk_capture_errmsg(cap));
	else if (ret == -ECANCELED)	/* taken from under us: say so, keep what came before */
		tool_err("%s", ftk_capture_errmsg(cap));
	else if (ret)
		tool_err("recording failed: %s", ftk_capture_errmsg(cap));
	wopts.version = version;
	wopts.compression = compression;
	wopts.flags = noksyms ? FTK_TRACEWRITE_NO_KALLSYMS : 0;
	if (!ret || full || ret == -ECANCELED) {
		/* What was stored stays readable: drop the newest half until the file fits. */
		while (disk_full(sret = save(t, output, &wopts, optind < argc ? argv[optind] : NULL)) &&
		       full && (dropped = ftk_capture_shrink(cap)) > 0)
			tool_warn("'%s': no room for all of it; dropping the newest %llu KiB",
				  output, (unsigned long long)dropped / 1024);
		if (sret && full)
			tool_err("cannot write '%s': %s", output, strerror(-sret));
		else if (!sret && full)
			tool_warn("wrote what fit into '%s': the recording is cut short", output);
		if (!ret)
			ret = sret;
	}
	for (cpu = 0; cpu < ftk_capture_cpus(cap); cpu++) {
		struct ftk_capture_cpu ci;
		uint64_t kb;

		ftk_capture_cpu_info(cap, cpu, &ci);
		if (!ci.online)
			continue;
		total += ci.bytes;
		if (!quiet)
			fprintf(stderr, "ftrecord: cpu%d: %llu pages (%llu KiB) stored, %llu wake-ups, "
				"%.3f s CPU\n", cpu, (unsigned long long)ci.pages,
				(unsigned long long)ci.bytes / 1024,
				(unsigned long long)ci.wakeups, ci.cpu_ns / 1e9);
		if (ci.lost && !full) {
			ftk_capture_suggest_kb(cap, cpu, &kb);
			fprintf(stderr, "ftrecord: cpu%d: %llu events lost\n", cpu,
				(unsigned long long)ci.lost);
			fprintf(stderr, "ftrecord: cpu%d: %.1f MB/s stored; to lose none try -b %llu\n",
				cpu, ftk_capture_duration_ns(cap) ?
				ci.moved / 1e6 / (ftk_capture_duration_ns(cap) / 1e9) : 0.0,
				(unsigned long long)kb);
		}
	}
	ftk_capture_free(cap);
	if ((!ret || ((full || ret == -ECANCELED) && !sret)) && !quiet) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "ftrecord: wrote '%s' (version %ld%s%s, %llu KiB of events), "
			"peak RSS %ld KiB, %.3f s CPU in all\n", output, version,
			compression ? ", " : "", compression ? compression : "",
			(unsigned long long)total / 1024, ru.ru_maxrss,
			ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
	free(outcopy);
	tool_exit(ret ? EXIT_FAIL : EXIT_OK);
}
