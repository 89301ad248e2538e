// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftevent: list trace events and their formats; enable, disable and filter
 * them, in a private instance by default (see run.h for the two modes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/event.h>

#include "run.h"

static const char usage[] =
"usage: ftevent -l [GLOB...]\n"
"       ftevent --format EVENT...\n"
"       ftevent -s [-B NAME | -T]\n"
"       ftevent [-B NAME | -T] [-D S] [-F] [-e GLOB [-f FILTER]]... [-d GLOB]...\n"
"               [--clear-filter GLOB]... [-p PIDS] [-P PIDS] [--trace-self]\n"
"               [-- COMMAND [ARG...]]\n"
"\n"
"List, describe, enable, disable and filter trace events.\n"
"Without -B or -T, changes go to a private instance, the trace is printed\n"
"while COMMAND runs, for -D seconds or until Ctrl-C, and all is put back.\n"
"With -B or -T and neither -D nor COMMAND, the changes stay.\n"
"\n"
"  -l, --list            list the events of each GLOB (all without one)\n"
"      --format          print the fields of each EVENT with their types\n"
"  -s, --show            what is enabled, filtered and PID-limited\n"
"  -e, --enable GLOB     enable events: system:event, system, event (wildcards)\n"
"  -d, --disable GLOB    disable events\n"
"  -f, --filter FILTER   filter for the events of the last -e\n"
"      --clear-filter GLOB  clear the filter of the events of GLOB\n"
"  -p, --pid PIDS        trace events of these PIDs only (set_event_pid)\n"
"  -P, --notrace-pid PIDS  never trace events of these PIDs\n"
"  -F, --follow          trace only COMMAND and its children\n"
RUN_HELP
"\n"
"examples:\n"
"  ftevent -l 'sched:*wak*'                 # events matching a glob\n"
"  ftevent --format sched:sched_switch      # fields and types\n"
"  ftevent -e sched:sched_process_exec -- make   # trace a command\n"
"  ftevent -e sched:sched_switch -f 'prev_pid == 1' -D 5\n"
"  ftevent -B mytrace -e sched -e irq       # enable, and keep, in instance mytrace\n"
"  ftevent -B mytrace -d sched              # disable again\n";

enum { OPT_FORMAT = 256, OPT_CLEAR_FILTER };

enum act_kind { ACT_ENABLE, ACT_DISABLE, ACT_FILTER, ACT_CLEAR };

struct act {
	enum act_kind	kind;
	const char	*glob;
	const char	*arg;
};

static const char *flag_text(unsigned int flags)
{
	static char buf[64];

	buf[0] = '\0';
	if (flags & FTK_FIELD_SIGNED)
		strcat(buf, "signed ");
	if (flags & FTK_FIELD_DYNAMIC)
		strcat(buf, "dynamic ");
	else if (flags & FTK_FIELD_STRING)
		strcat(buf, "string ");
	else if (flags & FTK_FIELD_ARRAY)
		strcat(buf, "array ");
	if (buf[0])
		buf[strlen(buf) - 1] = '\0';
	return buf[0] ? buf : "-";
}

static int do_format(struct ftk_tracefs *t, char **events, int n)
{
	struct ftk_event_field *f;
	int i, ret = EXIT_OK;
	size_t nr, j;

	for (i = 0; i < n; i++) {
		if (ftk_event_fields(t, events[i], &f, &nr)) {
			tool_err("%s", ftk_tracefs_errmsg(t));
			ret = EXIT_FAIL;
			continue;
		}
		printf("%s%s\n", i ? "\n" : "", events[i]);
		printf("  %-28s %-24s %6s %4s  %s\n", "FIELD", "TYPE", "OFFSET", "SIZE", "FLAGS");
		for (j = 0; j < nr; j++)
			printf("  %-28s %-24s %6u %4u  %s%s\n", f[j].name, f[j].type, f[j].offset,
			       f[j].size, flag_text(f[j].flags),
			       f[j].flags & FTK_FIELD_COMMON ? " common" : "");
		ftk_event_fields_free(f, nr);
	}
	return ret;
}

static int do_list(struct ftk_tracefs *t, char **globs, int n)
{
	int i, ret = EXIT_OK;
	char **l, **p;

	for (i = 0; i < (n ? n : 1); i++) {
		if (ftk_event_list(t, n ? globs[i] : NULL, &l)) {
			tool_err("%s", ftk_tracefs_errmsg(t));
			return EXIT_FAIL;
		}
		if (n && !*l) {
			tool_err("no event matches '%s'", globs[i]);
			ret = EXIT_FAIL;
		}
		for (p = l; *p; p++)
			puts(*p);
		ftk_list_free(l);
	}
	return ret;
}

static void print_file(struct ftk_tracefs *t, const char *label, const char *file)
{
	char *s;

	if (ftk_tracefs_read(t, file, &s))
		return;
	s[strcspn(s, "\n")] = '\0';
	if (*s)
		printf("%s: %s\n", label, s);
	free(s);
}

static int do_show(struct ftk_tracefs *t)
{
	char **l, **p, *tab;

	if (ftk_event_enabled(t, &l)) {
		tool_err("%s", ftk_tracefs_errmsg(t));
		return EXIT_FAIL;
	}
	printf("# %s\n", ftk_tracefs_instance(t) ? ftk_tracefs_instance(t) : "top level");
	for (p = l; *p; p++)
		printf("enabled: %s\n", *p);
	ftk_list_free(l);
	if (!ftk_event_filters(t, &l)) {
		for (p = l; *p; p++) {
			tab = strchr(*p, '\t');
			*tab = '\0';
			printf("filter: %s: %s\n", *p, tab + 1);
		}
		ftk_list_free(l);
	}
	print_file(t, "set_event_pid", "set_event_pid");
	print_file(t, "set_event_notrace_pid", "set_event_notrace_pid");
	return EXIT_OK;
}

struct opts {
	struct run	r;
	int		list, format, show, nacts;
	const char	*pids, *nopids, *last_enable;
	struct act	*acts;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'l': o->list = 1; break;
	case OPT_FORMAT: o->format = 1; break;
	case 's': o->show = 1; break;
	case 'e':
		o->acts[o->nacts++] = (struct act){ ACT_ENABLE, arg, NULL };
		o->last_enable = arg;
		break;
	case 'd': o->acts[o->nacts++] = (struct act){ ACT_DISABLE, arg, NULL }; break;
	case 'f':
		if (!o->last_enable)
			tool_usage_error("-f FILTER applies to the events of an -e before it");
		o->acts[o->nacts++] = (struct act){ ACT_FILTER, o->last_enable, arg };
		break;
	case OPT_CLEAR_FILTER: o->acts[o->nacts++] = (struct act){ ACT_CLEAR, arg, NULL }; break;
	case 'p': o->pids = tool_pid_list(arg); break;
	case 'P': o->nopids = tool_pid_list(arg); break;
	case 'F': o->r.follow = 1; break;
	}
}

static const struct option longopts[] = {
	{ "list",	no_argument,		NULL, 'l' },
	{ "format",	no_argument,		NULL, OPT_FORMAT },
	{ "show",	no_argument,		NULL, 's' },
	{ "enable",	required_argument,	NULL, 'e' },
	{ "disable",	required_argument,	NULL, 'd' },
	{ "filter",	required_argument,	NULL, 'f' },
	{ "clear-filter", required_argument,	NULL, OPT_CLEAR_FILTER },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "notrace-pid", required_argument,	NULL, 'P' },
	{ "follow",	no_argument,		NULL, 'F' },
	RUN_LONGOPTS,
	{ }
};

static const struct tool_def def = {
	.name = "ftevent", .usage = usage, .opts = "lse:d:f:p:P:FT", .longopts = longopts,
	.option = option,
};

/* -l, --format, -s: read only, in the instance of -B or at the top level. */
static void __attribute__((noreturn)) do_read(struct opts *o, struct tool_args *a)
{
	struct ftk_tracefs *t;

	if (o->list + o->format + o->show > 1)
		tool_usage_error("-l, --format and -s exclude each other");
	if (o->nacts || o->pids || o->nopids || a->duration || o->r.follow)
		tool_usage_error("-l, --format and -s only read: no changes with them");
	if (o->format && !a->nrest)
		tool_usage_error("--format wants an EVENT");
	if (o->show && a->nrest)
		tool_usage_error("unexpected argument '%s'", a->rest[0]);
	t = tool_tracefs(a->instance, 0);
	if (o->show)
		tool_exit(do_show(t));
	tool_exit(o->list ? do_list(t, a->rest, a->nrest) : do_format(t, a->rest, a->nrest));
}

/* The PID lists, the COMMAND's with -F, and ftevent's own left out unless --trace-self. */
static void set_pids(struct opts *o)
{
	struct run *r = &o->r;
	char buf[4096];

	if (r->follow && ftk_session_pid(r->s, r->cmd.pid, FTK_SESSION_PID_FOLLOW))
		tool_die("%s", ftk_session_errmsg(r->s));
	if (o->pids && ftk_event_pid_set(r->t, o->pids, 0))
		tool_die_tracefs(r->t, NULL);
	if (!o->nopids)
		return;
	if (snprintf(buf, sizeof(buf), "%s %s", o->nopids, r->self) >= (int)sizeof(buf))
		tool_usage_error("PID list too long: '%s'", o->nopids);
	if (ftk_event_pid_set(r->t, buf, 1))
		tool_die_tracefs(r->t, NULL);
}

/* Filters first, then enables: an event is never enabled before what limits it is in place. */
static int apply(struct opts *o)
{
	int pass, i, ret = 0;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < o->nacts; i++) {
			struct act *a = &o->acts[i];

			if ((a->kind == ACT_ENABLE || a->kind == ACT_DISABLE) != pass)
				continue;
			if (a->kind == ACT_ENABLE || a->kind == ACT_DISABLE)
				ret = ftk_event_enable(o->r.t, a->glob, a->kind == ACT_ENABLE);
			else
				ret = ftk_event_filter_set(o->r.t, a->glob,
							   a->kind == ACT_FILTER ? a->arg : NULL);
			if (ret)
				tool_die_tracefs(o->r.t, NULL);
			run_check_stop();
		}
	}
	return o->nacts + !!o->pids + !!o->nopids;
}

int main(int argc, char **argv)
{
	struct opts o = { .acts = calloc(argc, sizeof(struct act)) };
	struct tool_args a;
	char what[64];
	int n;

	if (!o.acts)
		return EXIT_FAIL;
	run_parse(&o.r, &def, argc, argv, &a, &o);
	if (o.list || o.format || o.show)
		do_read(&o, &a);
	if (!o.nacts && !o.pids && !o.nopids)
		tool_usage_error("nothing to do: give -l, --format, -s, -e, -d or a filter");
	run_open(&o.r);
	run_fork(&o.r);
	set_pids(&o);
	n = apply(&o);
	run_check_stop();
	if (!o.r.persist && run_trace(&o.r))
		tool_exit(EXIT_FAIL);
	snprintf(what, sizeof(what), "%d change%s made", n, n == 1 ? "" : "s");
	free(o.acts);
	run_finish(&o.r, what);
}
