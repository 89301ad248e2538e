// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftsnap: take, show, clear and free the snapshot buffer.
 *
 * Unlike the other control tools, ftsnap acts on a buffer that is already
 * tracing: the top level by default, or the instance of -B. Taking a
 * snapshot is the change the user wants to keep; --free gives the memory
 * back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/snapshot.h>

#include "tool.h"

static const char usage[] =
"usage: ftsnap [-B NAME] [-c CPU] [-t] [-s] [-x] [-f]\n"
"\n"
"Take a snapshot of a trace buffer (swap the live buffer into the\n"
"snapshot buffer, allocating it the first time), print it, clear it or\n"
"free it. Actions run in the order take, show, clear, free; with none,\n"
"show. Needs a kernel with CONFIG_TRACER_SNAPSHOT.\n"
"\n"
"  -t, --take            take a snapshot now\n"
"  -s, --show            print the snapshot\n"
"  -x, --clear           empty the snapshot, keep it allocated\n"
"  -f, --free            free the snapshot buffer\n"
"  -c, --cpu CPU         one CPU's buffer only (not with --free)\n"
"  -B, --instance NAME   the buffer of instance NAME (default: top level)\n"
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftsnap -t                 # snapshot the top-level trace\n"
"  ftsnap -ts -c 1           # snapshot CPU 1 and print it\n"
"  ftsnap -B mytrace -f      # free instance mytrace's snapshot\n";

struct opts {
	int	take, show, clear, freeit, cpu;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 't': o->take = 1; break;
	case 's': o->show = 1; break;
	case 'x': o->clear = 1; break;
	case 'f': o->freeit = 1; break;
	case 'c': o->cpu = tool_num(arg, "CPU", 0, 1 << 20); break;
	}
}

static const struct option longopts[] = {
	{ "take",	no_argument,		NULL, 't' },
	{ "show",	no_argument,		NULL, 's' },
	{ "clear",	no_argument,		NULL, 'x' },
	{ "free",	no_argument,		NULL, 'f' },
	{ "cpu",	required_argument,	NULL, 'c' },
	{ }
};

static const struct tool_def def = {
	.name = "ftsnap", .usage = usage, .opts = "tsxfc:", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE, .option = option,
};

int main(int argc, char **argv)
{
	struct opts o = { .cpu = -1 };
	struct ftk_tracefs *t;
	struct tool_args a;
	char *s;

	tool_parse(&def, argc, argv, &a, &o);
	if (a.nrest)
		tool_usage_error("unexpected argument '%s'", a.rest[0]);
	if (o.freeit && o.cpu >= 0)
		tool_usage_error("--free frees every CPU's snapshot: no -c with it");
	if (!o.take && !o.show && !o.clear && !o.freeit)
		o.show = 1;
	t = tool_tracefs(a.instance, 0);
	if (o.take && ftk_snapshot_take(t, o.cpu))
		tool_die_tracefs(t, NULL);
	if (o.show) {
		if (ftk_snapshot_read(t, o.cpu, &s))
			tool_die_tracefs(t, NULL);
		fputs(s, stdout);
		free(s);
	}
	if (o.clear && ftk_snapshot_clear(t, o.cpu))
		tool_die_tracefs(t, NULL);
	if (o.freeit && ftk_snapshot_free(t))
		tool_die_tracefs(t, NULL);
	tool_exit(EXIT_OK);
}
