// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftreset: put tracefs back as the kernel booted it, and say what changed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/instance.h>
#include <ftkit/reset.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftreset [-ainq] [-B NAME]\n"
"\n"
"Put tracing back to the kernel's defaults and print each change:\n"
"triggers removed, tracer nop, tracing_on 1, events off, filters, PID lists\n"
"and function filters cleared, snapshot freed, trace cleared, clock, buffer\n"
"size and options as a fresh instance has them; ftkit's dynamic events\n"
"(groups ftkit*) removed.\n"
"\n"
"  -B, --instance NAME   reset instance NAME only (with -i: and remove it)\n"
"  -i, --instances       also remove the instances ftkit tools left behind\n"
"                        (ftkit-TOOL-PID whose PID is gone); with -a, every\n"
"                        instance\n"
"  -a, --all             every dynamic event, not only ftkit's; with -i, every\n"
"                        instance\n"
"  -n, --dry-run         print what would change, change nothing\n"
"  -q, --quiet           print nothing but errors\n"
"  -v, --verbose         more messages\n"
"  -h, --help            this text\n"
"\n"
"examples:\n"
"  ftreset -n                   # what is not at its default?\n"
"  ftreset                      # reset the top level\n"
"  ftreset -B mytrace -i        # reset instance mytrace, then remove it\n"
"  ftreset -ia                  # everything, every instance, every probe\n");
}

static int quiet, changes;

static void report(void *arg, const char *file, const char *old, const char *new_)
{
	changes++;
	if (!quiet)
		printf("%s%s: %s -> %s\n", arg ? "would change " : "", file, old, new_);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "instance",	required_argument,	NULL, 'B' },
		{ "instances",	no_argument,		NULL, 'i' },
		{ "all",	no_argument,		NULL, 'a' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	int opt, all = 0, instances = 0, ret = EXIT_OK, rc;
	unsigned int flags = 0;
	const char *instance = NULL;
	struct ftk_tracefs *t, *top, *h;
	char **names, **p;
	void *dry;

	tool_init("ftreset");
	while ((opt = getopt_long(argc, argv, "B:ianqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'B': instance = optarg; break;
		case 'i': instances = 1; break;
		case 'a': all = 1; break;
		case 'n': flags |= FTK_RESET_DRY_RUN; break;
		case 'q': quiet = 1; tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (all)
		flags |= FTK_RESET_ALL;
	dry = flags & FTK_RESET_DRY_RUN ? &flags : NULL;
	/* Nothing is journaled here: a reset is meant to stay. A signal stops
	 * it between steps, which leaves each file either reset or as it was. */
	tool_signals();
	top = tool_tracefs(NULL, 0);

	if (instance) {
		t = tool_tracefs(instance, 0);
		if (ftk_reset(t, flags, report, dry))
			ret = EXIT_FAIL;
		if (instances) {
			report(dry, "instances", instance, "(removed)");
			if (!dry && ftk_instance_remove(top, instance)) {
				tool_err("%s", ftk_tracefs_errmsg(top));
				ret = EXIT_FAIL;
			}
		}
		if (!quiet && !changes)
			printf("nothing to reset\n");
		tool_exit(ret);
	}

	if (ftk_reset(top, flags, report, dry))
		ret = EXIT_FAIL;
	if (tool_stop)
		tool_exit(128 + tool_stop);
	if (ftk_instance_list(top, &names))
		tool_die("%s", ftk_tracefs_errmsg(top));
	for (p = names; *p && !tool_stop; p++) {
		enum ftk_instance_owner own = ftk_instance_owner(*p, NULL);

		if (instances && (all || own == FTK_INSTANCE_STALE)) {
			report(dry, "instances", *p, "(removed)");
			if (dry)
				continue;
			/* Reset first: rmdir alone leaves what it referred to busy. */
			if (!ftk_tracefs_open(NULL, *p, 0, &h)) {
				ftk_reset(h, flags, NULL, NULL);
				ftk_tracefs_close(h);
			}
			rc = ftk_instance_remove(top, *p);
			if (rc == -EBUSY && !all) {
				/* In use: its creator runs where we cannot see it. */
				tool_warn("%s: left alone", ftk_tracefs_errmsg(top));
			} else if (rc) {
				tool_err("%s", ftk_tracefs_errmsg(top));
				ret = EXIT_FAIL;
			}
		}
	}
	ftk_list_free(names);
	if (ftk_reset_dynevents(top, flags, report, dry)) {
		tool_err("%s", ftk_tracefs_errmsg(top));
		ret = EXIT_FAIL;
	}
	if (!quiet && !changes)
		printf("nothing to reset\n");
	tool_exit(tool_stop ? 128 + tool_stop : ret);
}
