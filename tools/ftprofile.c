// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftprofile: a sampling profiler with whole stacks, on perf_event.
 *
 * Everything but the options lives in libftkit: lib/profile.c (samples to
 * folded stacks), lib/symbols.c, lib/unwind.c, lib/stacks.c (outputs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

#include "cmd.h"
#include "tool.h"

static const char usage[] =
"usage: ftprofile [-ag] [-F HZ | -c PERIOD] [-e EVENT] [--call-graph MODE] [-p PID | -t TID]\n"
"                 [-C CPUS] [-m PAGES] [-f FORMAT] [-o FILE] [-D S] [--off-cpu [--wakeup]] [COMMAND...]\n"
"       ftprofile -i FOLDED|perf.data [--diff BASE] [--off-cpu] [-f FORMAT] [-o FILE]\n"
"Sample call stacks of a command, processes, threads or CPUs; write folded\n"
"stacks, a top table or an SVG flame graph.\n"
"  -F, --freq HZ         samples a second (default 99)\n"
"  -c, --count PERIOD    a sample every PERIOD events instead\n"
"  -e, --event EVENT     what to sample (perf's syntax; default cpu-clock)\n"
"  -g                    --call-graph fp\n"
"      --call-graph MODE fp (default), dwarf[,SIZE] (copied user stacks, for\n"
"                        code without frame pointers), lbr, or none\n"
"  -p, --pid PID[,PID]   these processes (all their threads)\n"
"  -t, --tid TID[,TID]   these threads\n"
"  -a, --all-cpus        every task on every CPU\n"
"  -C, --cpu LIST        every task on these CPUs (\"0-3,6\")\n"
"  -m, --mmap-pages N    ring data pages per CPU or thread (a power of 2)\n"
"      --off-cpu         where tasks wait: sched_switch stacks weighed in\n"
"                        microseconds until the task runs again (-f top: each\n"
"                        wait ranked by what waited, not __schedule; also -i)\n"
"      --wakeup          with --off-cpu: each wait's waker stack above it,\n"
"                        folded as BLOCKED;--;WAKER (sched_waking)\n"
"      --pid-root        \"comm-PID\" as the root frame, not \"comm\"\n"
"      --no-demangle     keep C++ and Rust names mangled\n"
"  -f, --format F        folded (default), script (as perf script), top, or svg\n"
"  -o, --output FILE     write there (replaced whole; - for standard output);\n"
"                        with a COMMAND the default is ftprofile.FORMAT\n"
"  -n, --rows N          rows of the top table (default 25; 0: all)\n"
"      --title TEXT      the flame graph's title\n"
"  -i, --input FILE      draw from a folded file, or a perf.data file of\n"
"                        perf record -g or --call-graph dwarf, instead of sampling\n"
"      --diff BASE       with -i: a differential flame graph against BASE\n"
TOOL_HELP_DURATION
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftprofile -f svg -o make.svg make -j2        flame graph of a build\n"
"  ftprofile ./a.out                             its stacks into ftprofile.folded\n"
"  ftprofile --call-graph dwarf ./a.out          whole stacks without frame pointers\n"
"  ftprofile -a -F 999 -D 10 -f top              the whole machine, 10 s, top functions\n"
"  ftprofile -p 1234 --off-cpu -D 5 > wait.folded   where process 1234 waits\n"
"  ftprofile --off-cpu --wakeup -f svg -o wake.svg ./server   who wakes whom\n"
"  ftprofile -i new.folded --diff old.folded -f svg -o diff.svg\n"
"  ftprofile -i perf.data -f svg -o perf.svg     a flame graph of a perf recording\n";

enum { OPT_CALL_GRAPH = 256, OPT_OFF_CPU, OPT_PID_ROOT, OPT_NO_DEMANGLE, OPT_TITLE, OPT_DIFF,
       OPT_WAKEUP };

static const struct option longopts[] = {
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "event", required_argument, NULL, 'e' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wakeup", no_argument, NULL, OPT_WAKEUP },
	{ "pid-root", no_argument, NULL, OPT_PID_ROOT },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "rows", required_argument, NULL, 'n' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "input", required_argument, NULL, 'i' },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ }
};

static struct {
	struct ftk_sample_opts	so;
	unsigned int		flags;
	int			*cpus;
	size_t			nr_cpus;
	pid_t			*tids;
	size_t			nr_tids;
	const char		*format, *output, *title, *input, *diff;
	size_t			rows;
} settings = { .so = { .sz = sizeof(struct ftk_sample_opts), .callchain = FTK_CALLCHAIN_FP },
	  .format = "folded", .rows = 25 };

static void add_ids(const char *list, unsigned int flags)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = ftk_perf_threads(tool_num(tok, flags ? "thread id" : "process id", 1, 1 << 22),
				       flags, &settings.tids, &settings.nr_tids);
		if (ret)
			tool_usage_error("cannot profile %s %s: %s", flags ? "thread" : "process", tok,
					 ret == -ESRCH ? "no such task" : strerror(-ret));
	}
	free(copy);
}

static void option(int opt, char *arg, void *ctx)
{
	char *comma;

	switch (opt) {
	case 'F': settings.so.freq = tool_num(arg, "frequency", 1, 1000000); break;
	case 'c': settings.so.period = tool_num(arg, "period", 1, 1LL << 62); break;
	case 'e': settings.so.event = arg; break;
	case 'g': settings.so.callchain = FTK_CALLCHAIN_FP; break;
	case OPT_CALL_GRAPH:
		comma = strchr(arg, ',');
		if (comma && !strncmp(arg, "dwarf,", 6))
			settings.so.stack_size = tool_num(comma + 1, "stack size", 8, 65528);
		if (!strcmp(arg, "fp"))
			settings.so.callchain = FTK_CALLCHAIN_FP;
		else if (!strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6))
			settings.so.callchain = FTK_CALLCHAIN_DWARF;
		else if (!strcmp(arg, "lbr"))
			settings.so.callchain = FTK_CALLCHAIN_LBR;
		else if (!strcmp(arg, "none"))
			settings.so.callchain = FTK_CALLCHAIN_NONE;
		else
			tool_usage_error("bad call-graph mode '%s': want fp, dwarf[,SIZE], lbr or none", arg);
		break;
	case 'p': add_ids(arg, 0); settings.so.flags |= FTK_SAMPLE_INHERIT; break;
	case 't': add_ids(arg, FTK_PERF_STAT_THREAD); break;
	case 'a': if (ftk_perf_online_cpus(&settings.cpus, &settings.nr_cpus))
			  tool_die("cannot read '/sys/devices/system/cpu/online': %s", strerror(errno));
		  break;
	case 'C': tool_cpus(arg, &settings.cpus, &settings.nr_cpus); break;
	case 'm': settings.so.mmap_pages = tool_num(arg, "ring pages", 1, 1 << 20);
		  if (settings.so.mmap_pages & (settings.so.mmap_pages - 1))
			  tool_usage_error("bad ring pages '%s': want a power of 2", arg);
		  break;
	case OPT_OFF_CPU: settings.flags |= FTK_PROFILE_OFF_CPU; break;
	case OPT_WAKEUP: settings.flags |= FTK_PROFILE_WAKEUP; break;
	case OPT_PID_ROOT: settings.flags |= FTK_PROFILE_PID; break;
	case OPT_NO_DEMANGLE: settings.flags |= FTK_PROFILE_NO_DEMANGLE; break;
	case 'f': if (strcmp(arg, "folded") && strcmp(arg, "script") && strcmp(arg, "top") &&
		      strcmp(arg, "svg"))
			  tool_usage_error("bad format '%s': want folded, script, top or svg", arg);
		  settings.format = arg;
		  break;
	case 'o': settings.output = arg; break;
	case 'n': settings.rows = tool_num(arg, "rows", 0, 1 << 30); break;
	case OPT_TITLE: settings.title = arg; break;
	case 'i': settings.input = arg; break;
	case OPT_DIFF: settings.diff = arg; break;
	}
}

static const struct tool_def def = {
	.name = "ftprofile", .usage = usage, .opts = "F:c:e:gp:t:aC:m:f:o:n:i:",
	.longopts = longopts, .common = TOOL_OPT_DURATION | TOOL_OPT_COMMAND, .option = option,
};

static void report(struct ftk_profile *p, double ended);

/*
 * The output, made before any work starts (tool_output(): a bad path fails
 * at once, a regular file is replaced whole at the end, "-" is standard
 * output). With a command and no -o, a file named after the format, as
 * perf record writes perf.data: the command's own output goes to standard
 * output and must not mix with the stacks.
 */
static FILE *out;
static const char *default_out;

static void open_out(int has_cmd)
{
	static char name[32];

	if (!settings.output && has_cmd) {
		snprintf(name, sizeof(name), "ftprofile.%s", settings.format);
		default_out = name;
	}
	out = tool_output(settings.output ? settings.output : default_out, 0, stdout);
}

/* -f script: the output, written sample by sample as they are read. */
static FILE *script_open(void)
{
	return !strcmp(settings.format, "script") ? out : NULL;
}

/*
 * The whole input, read once: a FIFO or pipe (-i <(...)) cannot be looked
 * into and opened again. Opened without blocking, so that a FIFO with no
 * writer reads as empty instead of hanging open().
 */
static char *read_input(const char *path, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = NULL, *nb;
	struct stat st;
	ssize_t r;
	int fd, fl;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		tool_die("cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || (fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		tool_die("cannot read '%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		tool_die("cannot read '%s': %s", path, strerror(EISDIR));
	for (;;) {
		if (!buf || cap - n < 2) {
			nb = realloc(buf, buf ? cap *= 2 : cap);
			if (!nb)
				tool_die("cannot read '%s': %s", path, strerror(ENOMEM));
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			tool_die("cannot read '%s': %s", path, strerror(errno));
		if (!r)
			break;
		n += r;
	}
	close(fd);
	if (!n && !S_ISREG(st.st_mode))
		tool_warn("'%s': the pipe gave no data (a FIFO with no writer?)", path);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A folded file, or a perf.data file (by its magic) folded as if sampled now. */
static struct ftk_stacks *read_folded(const char *path)
{
	struct ftk_profile *p;
	struct ftk_stacks *st;
	char err[512];
	size_t len;
	char *data = read_input(path, &len);
	FILE *f;

	if (len >= 8 && !memcmp(data, "PERFILE2", 8)) {
		if (ftk_profile_load_mem(data, len, path, settings.flags, script_open(), &p))
			tool_die("%s", p ? ftk_profile_errmsg(p) : "out of memory");
		free(data);
		report(p, tool_now());
		return ftk_profile_stacks(p);	/* the profile lives until exit */
	}
	if (!strcmp(settings.format, "script"))
		tool_die("'%s': -f script needs samples: a perf.data file, not folded stacks", path);
	if (ftk_stacks_new(&st))
		tool_die("out of memory");
	/* --off-cpu with -i: the folded weights are waits (for -f top) */
	if (settings.flags & FTK_PROFILE_OFF_CPU)
		ftk_stacks_set_flags(st, FTK_STACKS_WAITS);
	f = len ? fmemopen(data, len, "r") : NULL;
	if ((len && !f) || (f && ftk_stacks_read(st, f, path, err, sizeof(err))))
		tool_die("%s", errno == ENOMEM || !f ? "out of memory" : err);
	if (f)
		fclose(f);
	free(data);
	return st;
}

/* The stacks in the format asked, to the output opened by open_out(). */
static int write_out(struct ftk_stacks *st, struct ftk_stacks *base, const char *unit)
{
	FILE *f = out;
	int ret;

	if (!strcmp(settings.format, "script"))
		ret = 0;	/* written sample by sample */
	else if (!strcmp(settings.format, "top"))
		ret = ftk_stacks_write_top(st, f, settings.rows, unit);
	else if (!strcmp(settings.format, "svg"))
		ret = ftk_stacks_write_svg(st, base, f, settings.title ? settings.title :
					   settings.flags & FTK_PROFILE_OFF_CPU ? "Off-CPU Time" :
					   "Flame Graph", unit);
	else
		ret = ftk_stacks_write_folded(st, f);
	if (ret)
		tool_output_error(-ret);
	if (tool_output_close(f, 0))
		return EXIT_FAIL;
	if (default_out && ftk_log_level() >= FTK_LOG_WARN)
		fprintf(stderr, "ftprofile: wrote %zu stacks to '%s' (-o FILE to choose, -o - for standard output)\n",
			ftk_stacks_nr(st), default_out);
	return EXIT_OK;
}

/*
 * Fork the command if there is one, and open the profile on the targets
 * (off-CPU too: their switches out are sampled, their switches back in
 * come as the event's PERF_RECORD_SWITCH records).
 */
static struct ftk_profile *open_profile(struct tool_cmd *c, char **argv)
{
	struct ftk_profile *p = NULL;
	int ret;

	if (argv) {
		tool_cmd_fork(c, argv, NULL);
		settings.tids = &c->pid;
		settings.nr_tids = 1;
		settings.so.flags |= FTK_SAMPLE_INHERIT | FTK_SAMPLE_ON_EXEC;
	}
	settings.so.tracepoints = tool_tracepoints();
	ret = ftk_profile_open(&settings.so, settings.flags, settings.cpus, settings.nr_cpus, settings.tids, settings.nr_tids,
			       &p);
	if (!ret && !(settings.so.flags & FTK_SAMPLE_ON_EXEC))
		ret = ftk_profile_enable(p);
	if (ret) {
		if (argv)
			tool_cmd_abandon(c);
		tool_die("%s", p && *ftk_profile_errmsg(p) ? ftk_profile_errmsg(p) : strerror(-ret));
	}
	return p;
}

static void report(struct ftk_profile *p, double ended)
{
	struct ftk_profile_stats s;
	const char *note = ftk_symbols_kernel_note(ftk_profile_symbols(p));

	ftk_profile_stats(p, &s);
	if (s.lost || s.lost_samples)
		tool_warn("%llu records and %llu samples lost: the rings (%u pages each) filled up; try -m %u",
			  (unsigned long long)s.lost, (unsigned long long)s.lost_samples,
			  s.mmap_pages, s.mmap_pages * 4);
	if (note && !(settings.so.flags & FTK_SAMPLE_USER))
		tool_warn("%s", note);
	if (ftk_log_level() >= FTK_LOG_INFO)
		fprintf(stderr, "ftprofile: %llu samples, %zu stacks, %zu rings, %llu lost%s; "
			"the rest read %.3f s after the end\n",
			(unsigned long long)s.samples, ftk_stacks_nr(ftk_profile_stacks(p)),
			s.nr_rings, (unsigned long long)(s.lost + s.lost_samples),
			settings.so.callchain == FTK_CALLCHAIN_DWARF ? ", DWARF-unwound" : "",
			tool_now() - ended);
}

int main(int argc, char **argv)
{
	struct ftk_stacks *base = NULL;
	struct tool_cmd c = { .pid = 0 };
	struct ftk_profile *p;
	struct tool_args a;
	int code = EXIT_OK;
	double end;

	tool_parse(&def, argc, argv, &a, NULL);
	if ((settings.flags & FTK_PROFILE_WAKEUP) && !(settings.flags & FTK_PROFILE_OFF_CPU))
		tool_usage_error("--wakeup goes with --off-cpu");
	if (settings.diff && !settings.input)
		tool_usage_error("--diff needs -i");
	if (settings.input) {
		if (a.argv || settings.tids || settings.cpus)
			tool_usage_error("-i draws a folded file: no command, -p, -t, -a or -C");
		open_out(0);
		if (settings.diff)
			base = read_folded(settings.diff);
		tool_exit(write_out(read_folded(settings.input), base, "samples"));
	}
	if (a.argv && (settings.tids || settings.cpus))
		tool_usage_error("give a command or -p/-t/-a/-C, not both");
	if (!a.argv && !settings.tids && !settings.cpus)
		tool_usage_error("nothing to profile: give a command, -p, -t, -a or -C");
	if (settings.tids && settings.cpus)
		tool_usage_error("-p/-t and -a/-C exclude each other");
	open_out(a.argv != NULL);
	tool_signals();
	p = open_profile(&c, a.argv);
	ftk_profile_script(p, script_open());
	end = a.duration ? tool_now() + a.duration : 0;
	if (a.argv) {
		if (tool_cmd_start(&c))
			tool_exit(tool_cmd_code(&c));
		while (!tool_cmd_wait(&c, 0.1) && (!end || tool_now() < end))
			ftk_profile_read(p, 0);
		if (!tool_cmd_done(&c))
			tool_cmd_kill(&c);	/* -D ran out first */
		code = tool_cmd_code(&c);
		tool_cmd_report(&c);
	} else {
		if (ftk_log_level() >= FTK_LOG_WARN)
			fprintf(stderr, "Profiling... Ctrl-C to end.\n");
		while (!tool_stop && (!end || tool_now() < end) &&
		       (!settings.tids || ftk_perf_alive(settings.tids, settings.nr_tids)))
			ftk_profile_read(p, 100);
	}
	end = tool_now();
	if (ftk_profile_stop(p) == -ENOMEM)
		tool_die("%s", ftk_profile_errmsg(p));
	report(p, end);
	if (write_out(ftk_profile_stacks(p), NULL, settings.flags & FTK_PROFILE_OFF_CPU ? "us" :
		      "samples"))
		code = EXIT_FAIL;
	ftk_profile_free(p);
	tool_exit(code);
}
