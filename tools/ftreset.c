// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftreset: put tracefs back as the kernel booted it, and say what changed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/instance.h>
#include <ftkit/reset.h>

#include "tool.h"

static const char usage[] =
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
"  -v, --verbose         more messages (again for more)\n"
"  -V, --version         the version of ftkit\n"
"  -h, --help            this text\n"
"\n"
"examples:\n"
"  ftreset -n                   # what is not at its default?\n"
"  ftreset                      # reset the top level\n"
"  ftreset -B mytrace -i        # reset instance mytrace, then remove it\n"
"  ftreset -ia                  # everything, every instance, every probe\n";

static int quiet, changes;

static void report(void *arg, const char *file, const char *old, const char *new_)
{
	changes++;
	if (!quiet)
		printf("%s%s: %s -> %s\n", arg ? "would change " : "", file, old, new_);
}

struct opts {
	unsigned int	flags;
	int		instances;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'i': o->instances = 1; break;
	case 'a': o->flags |= FTK_RESET_ALL; break;
	case 'n': o->flags |= FTK_RESET_DRY_RUN; break;
	case 'f': o->flags |= FTK_RESET_FORCE; break;
	}
}

static const struct option longopts[] = {
	{ "instances",	no_argument,		NULL, 'i' },
	{ "all",	no_argument,		NULL, 'a' },
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "force",	no_argument,		NULL, 'f' },
	{ }
};

static const struct tool_def def = {
	.name = "ftreset", .usage = usage, .opts = "ianf", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE, .option = option,
};

/* -B NAME: reset that instance, and with -i remove it. */
static void __attribute__((noreturn)) reset_instance(struct ftk_tracefs *top, const char *instance,
						     const struct opts *o, void *dry)
{
	struct ftk_tracefs *t = tool_tracefs(instance, 0);
	int ret = EXIT_OK, rc;

	rc = ftk_reset(t, o->flags, report, dry);
	if (rc == -EBUSY && ftk_tracefs_errmsg(t)[0]) {
		/* A running ftkit tool's instance: neither reset nor removed. */
		tool_err("%s (--force to reset it anyway)", ftk_tracefs_errmsg(t));
		tool_exit(EXIT_FAIL);
	}
	if (rc)
		ret = EXIT_FAIL;
	if (o->instances && dry) {
		report(dry, "instances", instance, "(removed)");
	} else if (o->instances) {
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

/* -i: the instances ftkit tools left behind (with -a, every one); 0 or EXIT_FAIL. */
static int remove_instances(struct ftk_tracefs *top, const struct opts *o, void *dry)
{
	int all = o->flags & FTK_RESET_ALL, ret = EXIT_OK, rc;
	struct ftk_tracefs *h;
	char **names, **p;

	if (ftk_instance_list(top, &names))
		tool_die("%s", ftk_tracefs_errmsg(top));
	for (p = names; *p && !tool_stop; p++) {
		if (!all && ftk_instance_owner(*p, NULL) != FTK_INSTANCE_STALE)
			continue;
		/* Reset first: rmdir alone leaves what it referred to busy. */
		if (!ftk_tracefs_open(NULL, *p, 0, &h)) {
			/* Refused before any change when a running ftkit tool owns it. */
			rc = ftk_reset(h, o->flags, NULL, NULL);
			if (rc == -EBUSY && ftk_tracefs_errmsg(h)[0]) {
				/* Named with its owner, left alone. */
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
	ftk_list_free(names);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct ftk_tracefs *top;
	int ret = EXIT_OK;
	struct tool_args a;
	void *dry;

	tool_parse(&def, argc, argv, &a, &o);
	if (a.nrest)
		tool_usage_error("unexpected argument '%s'", a.rest[0]);
	quiet = ftk_log_level() < FTK_LOG_WARN;
	dry = o.flags & FTK_RESET_DRY_RUN ? &o.flags : NULL;
	/* Nothing is journaled here: a reset is meant to stay. A signal stops
	 * it between steps, which leaves each file either reset or as it was. */
	tool_signals();
	top = tool_tracefs(NULL, 0);
	if (a.instance)
		reset_instance(top, a.instance, &o, dry);
	if (ftk_reset(top, o.flags, report, dry))
		ret = EXIT_FAIL;
	if (tool_stop)
		tool_exit(128 + tool_stop);
	if (o.instances && remove_instances(top, &o, dry))
		ret = EXIT_FAIL;
	if (ftk_reset_dynevents(top, o.flags, report, dry)) {
		tool_err("%s", ftk_tracefs_errmsg(top));
		ret = EXIT_FAIL;
	}
	if (!quiet && !changes)
		printf("nothing to reset\n");
	tool_exit(tool_stop ? 128 + tool_stop : ret);
}
