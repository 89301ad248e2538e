// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftprofile: a sampling profiler with whole stacks, on perf_event.
 *
 * Everything but the options lives in libftkit: lib/profile.c (samples to
 * folded stacks), lib/symbols.c, lib/unwind.c, lib/stacks.c (outputs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

#include "cmd.h"
#include "tool.h"

static const char usage[] =
"usage: ftprofile [-ag] [-F HZ | -c PERIOD] [-e EVENT] [--call-graph MODE] [-p PID | -t TID]\n"
"                 [-C CPUS] [-m PAGES] [-f FORMAT] [-o FILE] [-D S] [--off-cpu [--wakeup]] [COMMAND...]\n"
"       ftprofile -i FOLDED|perf.data [--diff BASE] [-f FORMAT] [-o FILE]\n"
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
"                        microseconds until the task runs again\n"
"      --wakeup          with --off-cpu: each wait's waker stack above it,\n"
"                        folded as BLOCKED;--;WAKER (sched_waking)\n"
"      --pid-root        \"comm-PID\" as the root frame, not \"comm\"\n"
"      --no-demangle     keep C++ and Rust names mangled\n"
"  -f, --format F        folded (default), script (as perf script), top, or svg\n"
"  -o, --output FILE     write there (a new file) instead of standard output\n"
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
} cfg = { .so = { .sz = sizeof(struct ftk_sample_opts), .callchain = FTK_CALLCHAIN_FP },
	  .format = "folded", .rows = 25 };

static void add_ids(const char *list, unsigned int flags)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = ftk_perf_threads(tool_num(tok, flags ? "thread id" : "process id", 1, 1 << 22),
				       flags, &cfg.tids, &cfg.nr_tids);
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
	case 'F': cfg.so.freq = tool_num(arg, "frequency", 1, 1000000); break;
	case 'c': cfg.so.period = tool_num(arg, "period", 1, 1LL << 62); break;
	case 'e': cfg.so.event = arg; break;
	case 'g': cfg.so.callchain = FTK_CALLCHAIN_FP; break;
	case OPT_CALL_GRAPH:
		comma = strchr(arg, ',');
		if (comma && !strncmp(arg, "dwarf,", 6))
			cfg.so.stack_size = tool_num(comma + 1, "stack size", 8, 65528);
		if (!strcmp(arg, "fp"))
			cfg.so.callchain = FTK_CALLCHAIN_FP;
		else if (!strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6))
			cfg.so.callchain = FTK_CALLCHAIN_DWARF;
		else if (!strcmp(arg, "lbr"))
			cfg.so.callchain = FTK_CALLCHAIN_LBR;
		else if (!strcmp(arg, "none"))
			cfg.so.callchain = FTK_CALLCHAIN_NONE;
		else
			tool_usage_error("bad call-graph mode '%s': want fp, dwarf[,SIZE], lbr or none", arg);
		break;
	case 'p': add_ids(arg, 0); cfg.so.flags |= FTK_SAMPLE_INHERIT; break;
	case 't': add_ids(arg, FTK_PERF_STAT_THREAD); break;
	case 'a': if (ftk_perf_online_cpus(&cfg.cpus, &cfg.nr_cpus))
			  tool_die("cannot read '/sys/devices/system/cpu/online': %s", strerror(errno));
		  break;
	case 'C': tool_cpus(arg, &cfg.cpus, &cfg.nr_cpus); break;
	case 'm': cfg.so.mmap_pages = tool_num(arg, "ring pages", 1, 1 << 20);
		  if (cfg.so.mmap_pages & (cfg.so.mmap_pages - 1))
			  tool_usage_error("bad ring pages '%s': want a power of 2", arg);
		  break;
	case OPT_OFF_CPU: cfg.flags |= FTK_PROFILE_OFF_CPU; break;
	case OPT_WAKEUP: cfg.flags |= FTK_PROFILE_WAKEUP; break;
	case OPT_PID_ROOT: cfg.flags |= FTK_PROFILE_PID; break;
	case OPT_NO_DEMANGLE: cfg.flags |= FTK_PROFILE_NO_DEMANGLE; break;
	case 'f': if (strcmp(arg, "folded") && strcmp(arg, "script") && strcmp(arg, "top") &&
		      strcmp(arg, "svg"))
			  tool_usage_error("bad format '%s': want folded, script, top or svg", arg);
		  cfg.format = arg;
		  break;
	case 'o': cfg.output = arg; break;
	case 'n': cfg.rows = tool_num(arg, "rows", 0, 1 << 30); break;
	case OPT_TITLE: cfg.title = arg; break;
	case 'i': cfg.input = arg; break;
	case OPT_DIFF: cfg.diff = arg; break;
	}
}

static const struct tool_def def = {
	.name = "ftprofile", .usage = usage, .opts = "F:c:e:gp:t:aC:m:f:o:n:i:",
	.longopts = longopts, .common = TOOL_OPT_DURATION | TOOL_OPT_COMMAND, .option = option,
};

static void report(struct ftk_profile *p, double ended);

/* -f script: the output, opened before the samples are read, written as they are. */
static FILE *script_out;

static FILE *script_open(void)
{
	if (!strcmp(cfg.format, "script") && !script_out)
		script_out = tool_output(cfg.output, FTK_FILE_EXCL, stdout);
	return script_out;
}

/* A folded file, or a perf.data file (by its magic) folded as if sampled now. */
static struct ftk_stacks *read_folded(const char *path)
{
	struct ftk_profile *p;
	struct ftk_stacks *st;
	char err[512], magic[8] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		tool_die("cannot open '%s': %s", path, strerror(errno));
	if (fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, "PERFILE2", 8)) {
		fclose(f);
		if (ftk_profile_load_script(path, cfg.flags, script_open(), &p))
			tool_die("%s", p ? ftk_profile_errmsg(p) : "out of memory");
		report(p, tool_now());
		return ftk_profile_stacks(p);	/* the profile lives until exit */
	}
	if (!strcmp(cfg.format, "script"))
		tool_die("'%s': -f script needs samples: a perf.data file, not folded stacks", path);
	rewind(f);
	if (ftk_stacks_new(&st) || ftk_stacks_read(st, f, path, err, sizeof(err)))
		tool_die("%s", errno == ENOMEM ? "out of memory" : err);
	fclose(f);
	return st;
}

/* The output: standard output, or a new file (tool_output(): no link followed). */
static int write_out(struct ftk_stacks *st, struct ftk_stacks *base, const char *unit)
{
	FILE *f = script_out ? script_out : tool_output(cfg.output, FTK_FILE_EXCL, stdout);
	int ret;

	if (script_out)
		ret = 0;	/* written sample by sample */
	else if (!strcmp(cfg.format, "top"))
		ret = ftk_stacks_write_top(st, f, cfg.rows, unit);
	else if (!strcmp(cfg.format, "svg"))
		ret = ftk_stacks_write_svg(st, base, f, cfg.title ? cfg.title :
					   cfg.flags & FTK_PROFILE_OFF_CPU ? "Off-CPU Time" :
					   "Flame Graph", unit);
	else
		ret = ftk_stacks_write_folded(st, f);
	if (ret)
		tool_output_error(-ret);
	return tool_output_close(f, 0) ? EXIT_FAIL : EXIT_OK;
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
		cfg.tids = &c->pid;
		cfg.nr_tids = 1;
		cfg.so.flags |= FTK_SAMPLE_INHERIT | FTK_SAMPLE_ON_EXEC;
	}
	ret = ftk_profile_open(&cfg.so, cfg.flags, cfg.cpus, cfg.nr_cpus, cfg.tids, cfg.nr_tids,
			       &p);
	if (!ret && !(cfg.so.flags & FTK_SAMPLE_ON_EXEC))
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
	if (note && !(cfg.so.flags & FTK_SAMPLE_USER))
		tool_warn("%s", note);
	if (ftk_log_level() >= FTK_LOG_INFO)
		fprintf(stderr, "ftprofile: %llu samples, %zu stacks, %zu rings, %llu lost%s; "
			"the rest read %.3f s after the end\n",
			(unsigned long long)s.samples, ftk_stacks_nr(ftk_profile_stacks(p)),
			s.nr_rings, (unsigned long long)(s.lost + s.lost_samples),
			cfg.so.callchain == FTK_CALLCHAIN_DWARF ? ", DWARF-unwound" : "",
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
	if ((cfg.flags & FTK_PROFILE_WAKEUP) && !(cfg.flags & FTK_PROFILE_OFF_CPU))
		tool_usage_error("--wakeup goes with --off-cpu");
	if (cfg.diff && !cfg.input)
		tool_usage_error("--diff needs -i");
	if (cfg.input) {
		if (a.argv || cfg.tids || cfg.cpus)
			tool_usage_error("-i draws a folded file: no command, -p, -t, -a or -C");
		if (cfg.diff)
			base = read_folded(cfg.diff);
		tool_exit(write_out(read_folded(cfg.input), base, "samples"));
	}
	if (a.argv && (cfg.tids || cfg.cpus))
		tool_usage_error("give a command or -p/-t/-a/-C, not both");
	if (!a.argv && !cfg.tids && !cfg.cpus)
		tool_usage_error("nothing to profile: give a command, -p, -t, -a or -C");
	if (cfg.tids && cfg.cpus)
		tool_usage_error("-p/-t and -a/-C exclude each other");
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
		       (!cfg.tids || ftk_perf_alive(cfg.tids, cfg.nr_tids)))
			ftk_profile_read(p, 100);
	}
	end = tool_now();
	if (ftk_profile_stop(p) == -ENOMEM)
		tool_die("%s", ftk_profile_errmsg(p));
	report(p, end);
	if (write_out(ftk_profile_stacks(p), NULL, cfg.flags & FTK_PROFILE_OFF_CPU ? "us" :
		      "samples"))
		code = EXIT_FAIL;
	ftk_profile_free(p);
	tool_exit(code);
}
