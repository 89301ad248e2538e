// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftfunc: the function and function_graph tracers, in a private instance
 * where the kernel allows it (see run.h for the two modes).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftrace.h>

#include "run.h"

static const char usage[] =
"usage: ftfunc [-g] [-B NAME | -T] [-D S] [-f GLOB]... [-n GLOB]... [-G FUNC]...\n"
"              [-N FUNC]... [-p PID]... [-P PID]... [-d DEPTH] [-t USECS] [-s]\n"
"              [-o OPTION[=0|1]]... [--trace-self] [-- COMMAND [ARG...]]\n"
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
RUN_HELP
"\n"
"examples:\n"
"  ftfunc -f 'vfs_*' -D 1                   # which vfs_ functions run\n"
"  ftfunc -g -G do_sys_openat2 -- cat /etc/hostname\n"
"  ftfunc -g -t 100 -D 5                    # calls slower than 100 us\n"
"  ftfunc -T -f 'tcp_*' -s                  # start, with stacks; ftfunc -T --stop\n";

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

struct opts {
	struct run	r;
	struct list	lists[FTK_FTRACE_NOTRACE_PID + 1], opts;
	long		depth, thresh;
	int		graph, stack, show, stop;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'g': o->graph = 1; break;
	case 'f': add(&o->lists[FTK_FTRACE_FILTER], arg); break;
	case 'n': add(&o->lists[FTK_FTRACE_NOTRACE], arg); break;
	case 'G': add(&o->lists[FTK_FTRACE_GRAPH], arg); break;
	case 'N': add(&o->lists[FTK_FTRACE_GRAPH_NOTRACE], arg); break;
	case 'p': tool_num(arg, "PID", 0, INT_MAX), add(&o->lists[FTK_FTRACE_PID], arg); break;
	case 'P': tool_num(arg, "PID", 0, INT_MAX), add(&o->lists[FTK_FTRACE_NOTRACE_PID], arg); break;
	case 'd': o->depth = tool_num(arg, "depth", 0, INT_MAX); break;
	case 't': o->thresh = tool_num(arg, "threshold", 0, INT_MAX); break;
	case 's': o->stack = 1; break;
	case 'o': add(&o->opts, arg); break;
	case OPT_SHOW: o->show = 1; break;
	case OPT_STOP: o->stop = 1; break;
	}
}

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
	RUN_LONGOPTS,
	{ }
};

static const struct tool_def def = {
	.name = "ftfunc", .usage = usage, .opts = "gf:n:G:N:p:P:d:t:so:T", .longopts = longopts,
	.option = option,
};

/* --show and --stop: in the instance of -B, or at the top level. */
static void __attribute__((noreturn)) show_or_stop(struct opts *o)
{
	struct ftk_tracefs *t;

	if (o->show && o->stop)
		tool_usage_error("--show and --stop exclude each other");
	if (o->r.argv || o->r.duration)
		tool_usage_error("--show and --stop take no COMMAND or -D");
	t = tool_tracefs(o->r.instance, 0);
	if (o->show)
		tool_exit(do_show(t));
	if (ftk_ftrace_tracer_stop(t))
		fail(t, NULL);
	tool_exit(EXIT_OK);
}

/* Where @tracer runs: the instance, or the top level where instances may not run it. */
static struct ftk_tracefs *tracer_home(struct run *r, const char *tracer)
{
	struct ftk_tracefs *top = run_top(r);

	if (ftk_ftrace_has_tracer(r->t, tracer) > 0)
		return r->t;
	/* Instances may not run it (function_graph before Linux 6.9): try the top. */
	if (r->t == top || r->instance || ftk_ftrace_has_tracer(top, tracer) <= 0)
		fail(r->t == top || r->instance ? r->t : top, tracer);
	tool_warn("%s cannot run in an instance on this kernel: using the top level", tracer);
	return top;
}

/* The function and PID lists: with a COMMAND, only it (and what it forks) is traced. */
static void set_lists(struct opts *o, const char *tracer)
{
	struct run *r = &o->r;
	char pid[32], *p = pid;
	size_t i;

	if (*r->self && ftk_tracefs_exists(r->t, ftk_ftrace_list_file(FTK_FTRACE_NOTRACE_PID)))
		add(&o->lists[FTK_FTRACE_NOTRACE_PID], r->self);
	for (i = 0; i <= FTK_FTRACE_NOTRACE_PID; i++) {
		if (o->lists[i].n && ftk_ftrace_list_set(r->t, i, o->lists[i].v, o->lists[i].n))
			fail(r->t, tracer);
		run_check_stop();
	}
	if (r->argv && !o->lists[FTK_FTRACE_PID].n) {
		snprintf(pid, sizeof(pid), "%d", (int)r->cmd.pid);
		if (ftk_ftrace_list_set(r->t, FTK_FTRACE_PID, &p, 1) ||
		    ftk_ftrace_option_set(r->t, "function-fork", 1))
			fail(r->t, tracer);
	}
}

/* -d, -t (top level only), -s and -o. */
static void set_options(struct opts *o, const char *tracer)
{
	struct ftk_tracefs *t = o->r.t, *top = run_top(&o->r);
	char *name, *eq;
	size_t i;
	int ret;

	if (o->depth >= 0 || o->thresh >= 0) {
		if (t != top)
			tool_warn("max_graph_depth and tracing_thresh exist at the top level only: "
				  "set there");
		if (ftk_ftrace_graph_limits(top, o->depth, o->thresh))
			fail(top, tracer);
	}
	if (o->stack && ftk_ftrace_option_set(t, "func_stack_trace", 1))
		fail(t, tracer);
	for (i = 0; i < o->opts.n; i++) {
		name = strdup(o->opts.v[i]);
		if (!name)
			tool_die("out of memory");
		eq = strchr(name, '=');
		if (eq && strcmp(eq + 1, "0") && strcmp(eq + 1, "1"))
			tool_usage_error("bad option value '%s': 0 or 1", o->opts.v[i]);
		if (eq)
			*eq++ = '\0';
		ret = ftk_ftrace_option_set(t, name, !eq || *eq == '1');
		free(name);
		if (ret)
			fail(t, tracer);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .depth = -1, .thresh = -1 };
	const char *tracer;
	struct tool_args a;
	char what[96];
	size_t i;

	run_parse(&o.r, &def, argc, argv, &a, &o);
	if (o.r.top && o.r.instance)
		tool_usage_error("-B and -T exclude each other");
	if (!o.graph && (o.lists[FTK_FTRACE_GRAPH].n || o.lists[FTK_FTRACE_GRAPH_NOTRACE].n ||
			 o.depth >= 0))
		tool_usage_error("-G, -N and -d are for function_graph: add -g");
	if (o.show || o.stop)
		show_or_stop(&o);
	tracer = o.graph ? "function_graph" : "function";

	run_open(&o.r);
	o.r.t = tracer_home(&o.r, tracer);
	run_fork(&o.r);
	set_lists(&o, tracer);
	set_options(&o, tracer);
	run_check_stop();
	if (ftk_ftrace_tracer_set(o.r.t, tracer))
		fail(o.r.t, tracer);
	if (!o.r.persist && run_trace(&o.r))
		tool_exit(EXIT_FAIL);
	snprintf(what, sizeof(what), "%s tracer started", tracer);
	free(o.opts.v);
	for (i = 0; i <= FTK_FTRACE_NOTRACE_PID; i++)
		free(o.lists[i].v);
	run_finish(&o.r, what);
}
