// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftfunc: the function and function_graph tracers, in a private instance
 * where the kernel allows it (see run.h for the two modes).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftrace.h>

#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftfunc [-g] [-B NAME | -T] [-D S] [-f GLOB]... [-n GLOB]... [-G FUNC]...\n"
"              [-N FUNC]... [-p PID]... [-P PID]... [-d DEPTH] [-t USECS] [-s]\n"
"              [-o OPTION[=0|1]]... [-- COMMAND [ARG...]]\n"
"       ftfunc --show [-B NAME | -T]\n"
"       ftfunc --stop [-B NAME | -T]\n"
"\n"
"Trace kernel functions with the function tracer, or call graphs with\n"
"function_graph. Without -B or -T it traces in a private instance (the top\n"
"level for what instances cannot do, with a note), prints the trace while\n"
"COMMAND runs, for -D seconds or until Ctrl-C, and puts everything back.\n"
"With -B or -T and neither -D nor COMMAND, tracing starts and stays on\n"
"(--stop, or ftreset, ends it). Kernels under lockdown forbid both\n"
"tracers: ftfunc says so and exits 2.\n"
"\n"
"  -g, --graph           function_graph rather than function\n"
"  -f, --filter GLOB     trace only matching functions (GLOB:mod:MODULE too)\n"
"  -n, --notrace GLOB    never trace matching functions\n"
"  -G, --graph-func FUNC graph only from FUNC down (with -g)\n"
"  -N, --graph-notrace FUNC  do not graph inside FUNC (with -g)\n"
"  -p, --pid PID         trace only PID (set_ftrace_pid)\n"
"  -P, --notrace-pid PID never trace PID\n"
"  -d, --depth N         graph at most N calls deep (max_graph_depth, top level)\n"
"  -t, --thresh USECS    show only calls slower than USECS (tracing_thresh, top level)\n"
"  -s, --stack           a stack trace at each function (func_stack_trace)\n"
"  -o, --option NAME[=V] set a trace option, e.g. funcgraph-proc, funcgraph-tail=0\n"
"      --show            print the tracer, function lists and options in force\n"
"      --stop            set the tracer back to nop\n"
"  -D, --duration S      trace for S seconds, print, put back\n"
"  -B, --instance NAME   work in instance NAME (created if missing)\n"
"  -T, --top             work at the top level\n"
"  -q, -v, -h            quieter, more verbose, this text\n"
"\n"
"examples:\n"
"  ftfunc -f 'vfs_*' -D 1                   # which vfs_ functions run\n"
"  ftfunc -g -G do_sys_openat2 -- cat /etc/hostname\n"
"  ftfunc -g -t 100 -D 5                    # calls slower than 100 us\n"
"  ftfunc -T -f 'tcp_*' -s                  # start, with stacks; ftfunc -T --stop\n");
}

enum { OPT_SHOW = 256, OPT_STOP };

struct list {
	char	**v;
	size_t	n;
};

static void add(struct list *l, const char *s)
{
	char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		tool_die("out of memory");
	l->v = nv;
	l->v[l->n++] = (char *)s;
}

static void __attribute__((noreturn)) fail(struct ftk_tracefs *t, const char *tracer)
{
	char what[96];

	if (!tracer)
		tool_die_tracefs(t, NULL);
	snprintf(what, sizeof(what), "cannot use the %s tracer", tracer);
	tool_die_tracefs(t, what);
}

static void show_file(struct ftk_tracefs *t, const char *file)
{
	char *s;

	if (!ftk_tracefs_exists(t, file))
		return;
	if (ftk_tracefs_read(t, file, &s)) {
		printf("%s: (%s)\n", file, ftk_tracefs_errmsg(t));
		return;
	}
	for (size_t n = strlen(s); n && s[n - 1] == '\n'; n--)
		s[n - 1] = '\0';
	printf("%s:%s%s\n", file, strchr(s, '\n') ? "\n" : " ", *s ? s : "(empty)");
	free(s);
}

static int do_show(struct ftk_tracefs *t)
{
	static const char *const opts[] = {
		"options/func_stack_trace", "options/function-fork", "options/funcgraph-proc",
		"options/funcgraph-abstime", "options/funcgraph-duration",
		"options/funcgraph-irqs", "options/funcgraph-tail", "options/funcgraph-cpu",
		"options/funcgraph-overhead", "options/funcgraph-overrun",
		"options/funcgraph-retval",
	};
	size_t i;

	show_file(t, "current_tracer");
	for (i = 0; i <= FTK_FTRACE_NOTRACE_PID; i++)
		show_file(t, ftk_ftrace_list_file(i));
	show_file(t, "max_graph_depth");
	show_file(t, "tracing_thresh");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		show_file(t, opts[i]);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "graph",	no_argument,		NULL, 'g' },
		{ "filter",	required_argument,	NULL, 'f' },
		{ "notrace",	required_argument,	NULL, 'n' },
		{ "graph-func",	required_argument,	NULL, 'G' },
		{ "graph-notrace", required_argument,	NULL, 'N' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "notrace-pid", required_argument,	NULL, 'P' },
		{ "depth",	required_argument,	NULL, 'd' },
		{ "thresh",	required_argument,	NULL, 't' },
		{ "stack",	no_argument,		NULL, 's' },
		{ "option",	required_argument,	NULL, 'o' },
		{ "show",	no_argument,		NULL, OPT_SHOW },
		{ "stop",	no_argument,		NULL, OPT_STOP },
		{ "duration",	required_argument,	NULL, 'D' },
		{ "instance",	required_argument,	NULL, 'B' },
		{ "top",	no_argument,		NULL, 'T' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	struct list lists[FTK_FTRACE_NOTRACE_PID + 1] = { 0 }, opts = { 0 };
	long depth = -1, thresh = -1;
	int opt, graph = 0, stack = 0, show = 0, stop = 0, ret;
	const char *tracer;
	struct run r = { 0 };
	struct ftk_tracefs *top;
	char *end, what[96];
	size_t i;

	tool_init("ftfunc");
	while ((opt = getopt_long(argc, argv, "+gf:n:G:N:p:P:d:t:so:D:B:Tqvh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'g': graph = 1; break;
		case 'f': add(&lists[FTK_FTRACE_FILTER], optarg); break;
		case 'n': add(&lists[FTK_FTRACE_NOTRACE], optarg); break;
		case 'G': add(&lists[FTK_FTRACE_GRAPH], optarg); break;
		case 'N': add(&lists[FTK_FTRACE_GRAPH_NOTRACE], optarg); break;
		case 'p':
		case 'P':
			strtol(optarg, &end, 10);
			if (*end || !*optarg)
				tool_usage_error("bad PID '%s'", optarg);
			add(&lists[opt == 'p' ? FTK_FTRACE_PID : FTK_FTRACE_NOTRACE_PID], optarg);
			break;
		case 'd':
		case 't': {
			long v = strtol(optarg, &end, 10);

			if (*end || !*optarg || v < 0)
				tool_usage_error("bad number '%s'", optarg);
			*(opt == 'd' ? &depth : &thresh) = v;
			break;
		}
		case 's': stack = 1; break;
		case 'o': add(&opts, optarg); break;
		case OPT_SHOW: show = 1; break;
		case OPT_STOP: stop = 1; break;
		case 'D': r.duration = tool_seconds(optarg); break;
		case 'B': r.instance = optarg; break;
		case 'T': r.top = 1; break;
		case 'q': tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		r.argv = argv + optind;
	if (r.top && r.instance)
		tool_usage_error("-B and -T exclude each other");
	if (!graph && (lists[FTK_FTRACE_GRAPH].n || lists[FTK_FTRACE_GRAPH_NOTRACE].n ||
		       depth >= 0))
		tool_usage_error("-G, -N and -d are for function_graph: add -g");
	if (show || stop) {
		struct ftk_tracefs *t;

		if (show && stop)
			tool_usage_error("--show and --stop exclude each other");
		if (r.argv || r.duration)
			tool_usage_error("--show and --stop take no COMMAND or -D");
		t = tool_tracefs(r.instance, 0);
		if (show)
			tool_exit(do_show(t));
		if (ftk_tracefs_write(t, "current_tracer", "nop"))
			fail(t, NULL);
		tool_exit(EXIT_OK);
	}
	tracer = graph ? "function_graph" : "function";

	run_open(&r);
	top = run_top(&r);
	if (ftk_ftrace_has_tracer(r.t, tracer) <= 0) {
		/* Instances may not run it (function_graph before Linux 6.9): try the top. */
		if (r.t == top || r.instance || ftk_ftrace_has_tracer(top, tracer) <= 0)
			fail(r.t == top || r.instance ? r.t : top, tracer);
		tool_warn("%s cannot run in an instance on this kernel: using the top level",
			  tracer);
		r.t = top;
	}
	run_fork(&r);
	for (i = 0; i <= FTK_FTRACE_NOTRACE_PID; i++) {
		if (!lists[i].n)
			continue;
		if (ftk_ftrace_list_set(r.t, i, lists[i].v, lists[i].n))
			fail(r.t, tracer);
		run_check_stop();
	}
	if (r.child > 0 && !lists[FTK_FTRACE_PID].n) {
		char pid[32], *p = pid;

		/* With a COMMAND, trace it (and what it forks) only. */
		snprintf(pid, sizeof(pid), "%d", (int)r.child);
		if (ftk_ftrace_list_set(r.t, FTK_FTRACE_PID, &p, 1) ||
		    ftk_ftrace_option_set(r.t, "function-fork", 1))
			fail(r.t, tracer);
	}
	if (depth >= 0 || thresh >= 0) {
		if (r.t != top)
			tool_warn("max_graph_depth and tracing_thresh exist at the top level only: "
				  "set there");
		if ((depth >= 0 && ftk_ftrace_value_set(top, "max_graph_depth", depth)) ||
		    (thresh >= 0 && ftk_ftrace_value_set(top, "tracing_thresh", thresh)))
			fail(top, tracer);
	}
	if (stack && ftk_ftrace_option_set(r.t, "func_stack_trace", 1))
		fail(r.t, tracer);
	for (i = 0; i < opts.n; i++) {
		char *name = strdup(opts.v[i]), *eq;
		int on = 1;

		if (!name)
			tool_die("out of memory");
		eq = strchr(name, '=');
		if (eq) {
			*eq++ = '\0';
			if (strcmp(eq, "0") && strcmp(eq, "1"))
				tool_usage_error("bad option value '%s': 0 or 1", opts.v[i]);
			on = *eq == '1';
		}
		ret = ftk_ftrace_option_set(r.t, name, on);
		free(name);
		if (ret)
			fail(r.t, tracer);
	}
	run_check_stop();
	if (ftk_ftrace_tracer_set(r.t, tracer))
		fail(r.t, tracer);
	if (!r.persist && run_trace(&r))
		tool_exit(EXIT_FAIL);
	snprintf(what, sizeof(what), "%s tracer started", tracer);
	free(opts.v);
	for (i = 0; i <= FTK_FTRACE_NOTRACE_PID; i++)
		free(lists[i].v);
	run_finish(&r, what);
}
