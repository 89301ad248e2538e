// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftevent: list trace events and their formats; enable, disable and filter
 * them, in a private instance by default (see run.h for the two modes).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/event.h>

#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftevent -l [GLOB...]\n"
"       ftevent --format EVENT...\n"
"       ftevent -s [-B NAME | -T]\n"
"       ftevent [-B NAME | -T] [-D S] [-F] [-e GLOB [-f FILTER]]... [-d GLOB]...\n"
"               [--clear-filter GLOB]... [-p PIDS] [-P PIDS] [-- COMMAND [ARG...]]\n"
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
"  -D, --duration S      trace for S seconds, print, put back\n"
"  -B, --instance NAME   work in instance NAME (created if missing)\n"
"  -T, --top             work at the top level\n"
"  -q, --quiet           fewer messages\n"
"  -v, --verbose         more messages\n"
"  -h, --help            this text\n"
"\n"
"examples:\n"
"  ftevent -l 'sched:*wak*'                 # events matching a glob\n"
"  ftevent --format sched:sched_switch      # fields and types\n"
"  ftevent -e sched:sched_process_exec -- make   # trace a command\n"
"  ftevent -e sched:sched_switch -f 'prev_pid == 1' -D 5\n"
"  ftevent -B mytrace -e sched -e irq       # enable, and keep, in instance mytrace\n"
"  ftevent -B mytrace -d sched              # disable again\n");
}

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

int main(int argc, char **argv)
{
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
		{ "duration",	required_argument,	NULL, 'D' },
		{ "instance",	required_argument,	NULL, 'B' },
		{ "top",	no_argument,		NULL, 'T' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	const char *pids = NULL, *nopids = NULL, *last_enable = NULL;
	int opt, list = 0, format = 0, show = 0, nacts = 0, i, pass, ret = 0;
	struct run r = { 0 };
	struct act *acts;
	char what[64];

	tool_init("ftevent");
	acts = calloc(argc, sizeof(*acts));
	if (!acts)
		tool_die("out of memory");
	while ((opt = getopt_long(argc, argv, "+lse:d:f:p:P:FD:B:Tqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': list = 1; break;
		case OPT_FORMAT: format = 1; break;
		case 's': show = 1; break;
		case 'e':
			acts[nacts++] = (struct act){ ACT_ENABLE, optarg, NULL };
			last_enable = optarg;
			break;
		case 'd': acts[nacts++] = (struct act){ ACT_DISABLE, optarg, NULL }; break;
		case 'f':
			if (!last_enable)
				tool_usage_error("-f FILTER applies to the events of an -e before it");
			acts[nacts++] = (struct act){ ACT_FILTER, last_enable, optarg };
			break;
		case OPT_CLEAR_FILTER:
			acts[nacts++] = (struct act){ ACT_CLEAR, optarg, NULL };
			break;
		case 'p': pids = optarg; break;
		case 'P': nopids = optarg; break;
		case 'F': r.follow = 1; break;
		case 'D': r.duration = tool_seconds(optarg); break;
		case 'B': r.instance = optarg; break;
		case 'T': r.top = 1; break;
		case 'q': tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (list + format + show > 1)
		tool_usage_error("-l, --format and -s exclude each other");
	if ((list || format || show) && (nacts || pids || nopids || r.duration || r.follow))
		tool_usage_error("-l, --format and -s only read: no changes with them");
	if (list || format) {
		struct ftk_tracefs *t = tool_tracefs(r.instance, 0);

		if (format && optind == argc)
			tool_usage_error("--format wants an EVENT");
		ret = list ? do_list(t, argv + optind, argc - optind) :
			     do_format(t, argv + optind, argc - optind);
		tool_exit(ret);
	}
	if (show) {
		if (optind < argc)
			tool_usage_error("unexpected argument '%s'", argv[optind]);
		tool_exit(do_show(tool_tracefs(r.instance, 0)));
	}
	if (optind < argc)
		r.argv = argv + optind;
	if (!nacts && !pids && !nopids)
		tool_usage_error("nothing to do: give -l, --format, -s, -e, -d or a filter");

	run_open(&r);
	run_fork(&r);
	/*
	 * PIDs first, then filters, then enables: an event is never enabled
	 * before what limits it is in place.
	 */
	if (r.follow) {
		char pid[32];

		snprintf(pid, sizeof(pid), "%d", (int)r.child);
		if (ftk_tracefs_set(r.t, "options/event-fork", "1") ||
		    ftk_event_pid_set(r.t, pid, 0))
			tool_die_tracefs(r.t, NULL);
	}
	if ((pids && ftk_event_pid_set(r.t, pids, 0)) ||
	    (nopids && ftk_event_pid_set(r.t, nopids, 1)))
		tool_die_tracefs(r.t, NULL);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nacts; i++) {
			struct act *a = &acts[i];
			int enabling = a->kind == ACT_ENABLE || a->kind == ACT_DISABLE;

			if (enabling != pass)
				continue;
			switch (a->kind) {
			case ACT_ENABLE:
			case ACT_DISABLE:
				ret = ftk_event_enable(r.t, a->glob, a->kind == ACT_ENABLE);
				break;
			case ACT_FILTER:
				ret = ftk_event_filter_set(r.t, a->glob, a->arg);
				break;
			case ACT_CLEAR:
				ret = ftk_event_filter_set(r.t, a->glob, NULL);
				break;
			}
			if (ret)
				tool_die_tracefs(r.t, NULL);
			run_check_stop();
		}
	}
	run_check_stop();
	if (!r.persist && run_trace(&r))
		tool_exit(EXIT_FAIL);
	snprintf(what, sizeof(what), "%d change%s made", nacts + !!pids + !!nopids,
		 nacts + !!pids + !!nopids == 1 ? "" : "s");
	free(acts);
	run_finish(&r, what);
}
