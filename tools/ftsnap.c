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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/snapshot.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
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
"  -q, -v, -h            quieter, more verbose, this text\n"
"\n"
"examples:\n"
"  ftsnap -t                 # snapshot the top-level trace\n"
"  ftsnap -ts -c 1           # snapshot CPU 1 and print it\n"
"  ftsnap -B mytrace -f      # free instance mytrace's snapshot\n");
}

static void fail(struct ftk_tracefs *t)
{
	tool_err("%s", ftk_tracefs_errmsg(t));
	tool_exit(EXIT_FAIL);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "take",	no_argument,		NULL, 't' },
		{ "show",	no_argument,		NULL, 's' },
		{ "clear",	no_argument,		NULL, 'x' },
		{ "free",	no_argument,		NULL, 'f' },
		{ "cpu",	required_argument,	NULL, 'c' },
		{ "instance",	required_argument,	NULL, 'B' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	int opt, take = 0, show = 0, clear = 0, freeit = 0, cpu = -1;
	const char *instance = NULL;
	struct ftk_tracefs *t;
	char *end, *s;
	long v;

	tool_init("ftsnap");
	while ((opt = getopt_long(argc, argv, "tsxfc:B:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 't': take = 1; break;
		case 's': show = 1; break;
		case 'x': clear = 1; break;
		case 'f': freeit = 1; break;
		case 'c':
			v = strtol(optarg, &end, 10);
			if (*end || !*optarg || v < 0 || v > 1 << 20)
				tool_usage_error("bad CPU '%s'", optarg);
			cpu = v;
			break;
		case 'B': instance = optarg; break;
		case 'q': tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (freeit && cpu >= 0)
		tool_usage_error("--free frees every CPU's snapshot: no -c with it");
	if (!take && !show && !clear && !freeit)
		show = 1;
	t = tool_tracefs(instance, 0);
	if (take && ftk_snapshot_take(t, cpu))
		fail(t);
	if (show) {
		if (ftk_snapshot_read(t, cpu, &s))
			fail(t);
		fputs(s, stdout);
		free(s);
	}
	if (clear && ftk_snapshot_clear(t, cpu))
		fail(t);
	if (freeit && ftk_snapshot_free(t))
		fail(t);
	tool_exit(EXIT_OK);
}
