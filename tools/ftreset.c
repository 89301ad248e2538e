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
"usage: ftreset [-afinq] [-B NAME]\n"
"\n"
"Put tracing back to the kernel's defaults and print each change:\n"
"triggers removed, tracer nop, tracing_on 1, events off, filters, PID lists\n"
"and function filters cleared, snapshot freed, trace cleared, clock, buffer\n"
"size and options as a fresh instance has them; ftkit's dynamic events\n"
"(groups ftkit*) removed. What a running ftkit tool owns (its instance\n"
"ftkit-TOOL-PID_NS_START, its probe group ftkit_PID_NS_START) is named with\n"
"its owner and left alone unless --force.\n"
"\n"
"  -B, --instance NAME   reset instance NAME only (with -i: and remove it)\n"
"  -i, --instances       also remove the instances ftkit tools left behind\n"
"                        (ftkit-TOOL-PID whose PID is gone); with -a, every\n"
"                        instance\n"
"  -a, --all             every dynamic event, not only ftkit's; with -i, every\n"
"                        instance\n"
"  -f, --force           also reset and remove what running ftkit tools own\n"
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
		{ "force",	no_argument,		NULL, 'f' },
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
	while ((opt = getopt_long(argc, argv, "B:ianfqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'B': instance = optarg; break;
		case 'i': instances = 1; break;
		case 'a': all = 1; break;
		case 'n': flags |= FTK_RESET_DRY_RUN; break;
		case 'f': flags |= FTK_RESET_FORCE; break;
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
		rc = ftk_reset(t, flags, report, dry);
		if (rc == -EBUSY && ftk_tracefs_errmsg(t)[0]) {
			/* A running ftkit tool's instance: neither reset nor removed. */
			tool_err("%s (--force to reset it anyway)", ftk_tracefs_errmsg(t));
			tool_exit(EXIT_FAIL);
		}
		if (rc)
			ret = EXIT_FAIL;
		if (instances && dry) {
			report(dry, "instances", instance, "(removed)");
		} else if (instances) {
			/* Said only once done: rmdir fails with EBUSY while a reader holds it. */
			tool_keep(t);
			if (ftk_instance_remove(top, instance)) {
				tool_err("%s", ftk_tracefs_errmsg(top));
				ret = EXIT_FAIL;
			} else {
				report(NULL, "instances", instance, "(removed)");
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
			/* Reset first: rmdir alone leaves what it referred to busy. */
			rc = ftk_tracefs_open(NULL, *p, 0, &h);
			if (!rc) {
				/* Refused before any change when a running ftkit tool owns it. */
				rc = ftk_reset(h, flags, NULL, NULL);
				if (rc == -EBUSY && ftk_tracefs_errmsg(h)[0]) {
					/* A running ftkit tool's: named with its owner. */
					if (!quiet)
						printf("%s\n", ftk_tracefs_errmsg(h));
					ftk_tracefs_close(h);
					continue;
				}
				ftk_tracefs_close(h);
			}
			if (dry) {
				report(dry, "instances", *p, "(removed)");
				continue;
			}
			rc = ftk_instance_remove(top, *p);
			if (rc == -EBUSY && !all) {
				/* In use: its creator runs where we cannot see it. */
				tool_warn("%s: left alone", ftk_tracefs_errmsg(top));
			} else if (rc) {
				tool_err("%s", ftk_tracefs_errmsg(top));
				ret = EXIT_FAIL;
			} else {
				report(NULL, "instances", *p, "(removed)");
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
