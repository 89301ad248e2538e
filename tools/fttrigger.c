// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fttrigger: event and function triggers, hist triggers and their output,
 * in a private instance by default (see run.h for the two modes).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/trigger.h>

#include "run.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: fttrigger -l [-B NAME | -T]\n"
"       fttrigger [-B NAME | -T] [-D S] [--synth DEF]... [-e EVENT TRIGGER-OPTS]...\n"
"                 [--func FUNC:CMD[:N]]... [-- COMMAND [ARG...]]\n"
"       fttrigger [-B NAME | -T] -e EVENT (-r TRIGGER | -R | -H | --pause | --cont | --clear)\n"
"       fttrigger -R [-B NAME | -T | --all]\n"
"\n"
"Add, list and remove event triggers and function triggers; print hist output.\n"
"Without -B or -T, triggers go to a private instance, the trace (and each\n"
"hist) is printed after COMMAND, -D seconds or Ctrl-C, and all is put back.\n"
"With -B or -T and neither -D nor COMMAND, the triggers stay.\n"
"\n"
"  -l, --list            list every trigger on the system, in every instance\n"
"  -e, --event EVENT     the event (system:event) the options after it act on\n"
"  -t, --trigger TRIG    add TRIG in the kernel's syntax, e.g. 'traceoff:1 if pid==1',\n"
"                        'enable_event:sched:sched_wakeup', 'hist:keys=pid:vals=len'\n"
"  -k, --keys KEYS       add a hist trigger keyed on KEYS; these shape it:\n"
"      --vals VALS         values to sum\n"
"      --sort FIELDS       sort keys (FIELD.descending allowed)\n"
"      --size N            number of buckets\n"
"      --name NAME         share the histogram under NAME\n"
"      --action ACT        onmatch(SYS.EV).trace(SYNTH,ARGS), onmax($v).save(...)\n"
"      --if FILTER         count only events passing FILTER\n"
"      --synth DEF         define synthetic event DEF ('name u64 lat; pid_t pid')\n"
"                          (top level only: synthetic events are global)\n"
"      --func F:CMD[:N]    function trigger in set_ftrace_filter\n"
"  -r, --remove TRIG     remove TRIG (as listed or as written) from EVENT\n"
"  -R, --remove-all      remove every trigger of EVENT, or of the instance, in\n"
"                        the kernel's order; with --all, of every instance\n"
"  -a, --all             with -R: the top level and every instance\n"
"  -H, --hist            print EVENT's hist output\n"
"      --pause, --cont, --clear  pause, continue or clear EVENT's hist triggers\n"
"  -D, --duration S      trace for S seconds, print, put back\n"
"  -B, --instance NAME   work in instance NAME (created if missing)\n"
"  -T, --top             work at the top level\n"
"  -q, -v, -h            quieter, more verbose, this text\n"
"\n"
"examples:\n"
"  fttrigger -e sched:sched_process_exec -t stacktrace -- make\n"
"  fttrigger -e sched:sched_switch -k next_comm --sort hitcount.descending -D 5\n"
"  fttrigger -B dbg -e block:block_rq_issue -t 'traceoff:1 if bytes > 1048576'\n"
"  fttrigger -l                             # every trigger, everywhere\n"
"  fttrigger -B dbg -R                      # remove all of dbg's triggers\n");
}

enum {
	OPT_VALS = 256, OPT_SORT, OPT_SIZE, OPT_NAME, OPT_ACTION, OPT_IF, OPT_SYNTH, OPT_FUNC,
	OPT_PAUSE, OPT_CONT, OPT_CLEAR,
};

enum act_kind { ACT_ADD, ACT_HIST, ACT_REMOVE, ACT_CLEAR_EVENT, ACT_SHOW_HIST, ACT_STATE,
		ACT_SYNTH, ACT_FUNC };

struct act {
	enum act_kind	kind;
	const char	*event;
	const char	*arg;
	/* ACT_HIST */
	const char	*vals, *sort, *size, *name, *action, *filter;
};

static int print_list(struct ftk_tracefs *t, int all)
{
	struct ftk_trigger *v;
	size_t nr, i;
	int ret;

	ret = all ? ftk_trigger_list_all(t, &v, &nr) : ftk_trigger_list(t, NULL, &v, &nr);
	if (ret) {
		tool_err("%s", ftk_tracefs_errmsg(t));
		return EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		printf("%-24s %-32s %s\n", v[i].instance ? v[i].instance : "(top)",
		       v[i].event ? v[i].event : "(function)", v[i].text);
	ftk_trigger_free(v, nr);
	return EXIT_OK;
}

static char *hist_text(const struct act *a)
{
	char *s;

	if (asprintf(&s, "hist:keys=%s%s%s%s%s%s%s%s%s%s%s%s%s", a->arg,
		     a->vals ? ":vals=" : "", a->vals ? a->vals : "",
		     a->sort ? ":sort=" : "", a->sort ? a->sort : "",
		     a->size ? ":size=" : "", a->size ? a->size : "",
		     a->name ? ":name=" : "", a->name ? a->name : "",
		     a->action ? ":" : "", a->action ? a->action : "",
		     a->filter ? " if " : "", a->filter ? a->filter : "") < 0)
		tool_die("out of memory");
	return s;
}

static int print_hist(struct ftk_tracefs *t, const char *event)
{
	char *h;

	if (ftk_trigger_hist(t, event, &h)) {
		tool_err("%s", ftk_tracefs_errmsg(t));
		return -1;
	}
	fputs(h, stdout);
	free(h);
	return 0;
}

/* Append ":pause" (or cont, clear) to each hist trigger of @event. */
static int hist_state(struct ftk_tracefs *t, const char *event, const char *state)
{
	size_t nr, i, n = 0, sl = strcspn(event, ":");
	struct ftk_trigger *v;
	char file[512], *rm, *w;
	int ret;

	snprintf(file, sizeof(file), "events/%.*s/%s/trigger", (int)sl, event,
		 event[sl] ? event + sl + 1 : "");
	ret = ftk_trigger_list(t, event, &v, &nr);
	for (i = 0; !ret && i < nr; i++) {
		if (strncmp(v[i].text, "hist", 4))
			continue;
		ret = ftk_trigger_removal(v[i].text, &rm);
		if (ret)
			break;
		/* A state change is not a trigger of its own: nothing to journal. */
		if (asprintf(&w, "%s:%s", rm + 1, state) < 0)
			ret = -ENOMEM;
		else
			ret = ftk_tracefs_append(t, file, w), free(w);
		free(rm);
		n++;
	}
	ftk_trigger_free(v, nr);
	if (!ret && !n) {
		tool_err("%s has no hist trigger to %s", event, state);
		return -1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list",	no_argument,		NULL, 'l' },
		{ "event",	required_argument,	NULL, 'e' },
		{ "trigger",	required_argument,	NULL, 't' },
		{ "keys",	required_argument,	NULL, 'k' },
		{ "vals",	required_argument,	NULL, OPT_VALS },
		{ "sort",	required_argument,	NULL, OPT_SORT },
		{ "size",	required_argument,	NULL, OPT_SIZE },
		{ "name",	required_argument,	NULL, OPT_NAME },
		{ "action",	required_argument,	NULL, OPT_ACTION },
		{ "if",		required_argument,	NULL, OPT_IF },
		{ "synth",	required_argument,	NULL, OPT_SYNTH },
		{ "func",	required_argument,	NULL, OPT_FUNC },
		{ "remove",	required_argument,	NULL, 'r' },
		{ "remove-all",	no_argument,		NULL, 'R' },
		{ "all",	no_argument,		NULL, 'a' },
		{ "hist",	no_argument,		NULL, 'H' },
		{ "pause",	no_argument,		NULL, OPT_PAUSE },
		{ "cont",	no_argument,		NULL, OPT_CONT },
		{ "clear",	no_argument,		NULL, OPT_CLEAR },
		{ "duration",	required_argument,	NULL, 'D' },
		{ "instance",	required_argument,	NULL, 'B' },
		{ "top",	no_argument,		NULL, 'T' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	int opt, list = 0, remove_all = 0, all = 0, nacts = 0, nchanges = 0, readonly = 1, i;
	const char *event = NULL;
	struct act *acts, *hist = NULL;
	struct run r = { 0 };
	char *s, what[64];
	int ret = 0;

	tool_init("fttrigger");
	acts = calloc(argc, sizeof(*acts));
	if (!acts)
		tool_die("out of memory");
#define NEED_EVENT(o) do { if (!event) tool_usage_error("%s needs an -e EVENT before it", o); } while (0)
#define NEED_HIST(o) do { if (!hist) tool_usage_error("%s shapes a hist trigger: give -k KEYS first", o); } while (0)
	while ((opt = getopt_long(argc, argv, "+le:t:k:r:RaHD:B:Tqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': list = 1; break;
		case 'e': event = optarg; hist = NULL; break;
		case 't':
			NEED_EVENT("-t");
			acts[nacts++] = (struct act){ .kind = ACT_ADD, .event = event, .arg = optarg };
			break;
		case 'k':
			NEED_EVENT("-k");
			hist = &acts[nacts++];
			*hist = (struct act){ .kind = ACT_HIST, .event = event, .arg = optarg };
			break;
		case OPT_VALS: NEED_HIST("--vals"); hist->vals = optarg; break;
		case OPT_SORT: NEED_HIST("--sort"); hist->sort = optarg; break;
		case OPT_SIZE: NEED_HIST("--size"); hist->size = optarg; break;
		case OPT_NAME: NEED_HIST("--name"); hist->name = optarg; break;
		case OPT_ACTION: NEED_HIST("--action"); hist->action = optarg; break;
		case OPT_IF: NEED_HIST("--if"); hist->filter = optarg; break;
		case OPT_SYNTH:
			acts[nacts++] = (struct act){ .kind = ACT_SYNTH, .arg = optarg };
			break;
		case OPT_FUNC:
			acts[nacts++] = (struct act){ .kind = ACT_FUNC, .arg = optarg };
			break;
		case 'r':
			NEED_EVENT("-r");
			acts[nacts++] = (struct act){ .kind = ACT_REMOVE, .event = event, .arg = optarg };
			break;
		case 'R':
			remove_all = 1;
			if (event)
				acts[nacts++] = (struct act){ .kind = ACT_CLEAR_EVENT, .event = event };
			break;
		case 'a': all = 1; break;
		case 'H':
			NEED_EVENT("-H");
			acts[nacts++] = (struct act){ .kind = ACT_SHOW_HIST, .event = event };
			break;
		case OPT_PAUSE:
		case OPT_CONT:
		case OPT_CLEAR:
			NEED_EVENT("--pause, --cont and --clear");
			acts[nacts++] = (struct act){ .kind = ACT_STATE, .event = event,
				.arg = opt == OPT_PAUSE ? "pause" : opt == OPT_CONT ? "cont" : "clear" };
			break;
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
	if (all && !remove_all)
		tool_usage_error("--all goes with -R");
	if (list) {
		if (nacts || remove_all || r.argv || r.duration)
			tool_usage_error("-l only lists");
		tool_exit(print_list(tool_tracefs(r.instance, 0), !r.instance && !r.top));
	}
	if (remove_all && !event) {
		/* Remove everything: a persistent change, the other tools' kind of undo. */
		struct ftk_tracefs *t, *h;
		char **names, **p;

		if (nacts || r.argv || r.duration)
			tool_usage_error("-R without -e removes everything: nothing else with it");
		t = tool_tracefs(r.instance, 0);
		if (!all || r.instance || r.top) {
			if (ftk_trigger_clear(t, NULL))
				tool_die_tracefs(t, NULL);
			tool_exit(EXIT_OK);
		}
		if (ftk_trigger_clear(t, NULL))
			tool_err("%s", ftk_tracefs_errmsg(t)), ret = EXIT_FAIL;
		if (ftk_instance_list(t, &names))
			tool_die_tracefs(t, NULL);
		for (p = names; *p; p++) {
			if (ftk_tracefs_open(NULL, *p, 0, &h))
				continue;
			if (ftk_trigger_clear(h, NULL))
				tool_err("%s", ftk_tracefs_errmsg(h)), ret = EXIT_FAIL;
			ftk_tracefs_close(h);
		}
		ftk_list_free(names);
		tool_exit(ret);
	}
	if (!nacts)
		tool_usage_error("nothing to do: give -l, -e EVENT with -t, -k, -r, -R or -H");
	for (i = 0; i < nacts; i++)
		if (acts[i].kind != ACT_SHOW_HIST)
			readonly = 0;
	if (readonly) {
		struct ftk_tracefs *t = tool_tracefs(r.instance, 0);

		for (i = 0; i < nacts; i++)
			if (print_hist(t, acts[i].event))
				ret = EXIT_FAIL;
		tool_exit(ret);
	}

	run_open(&r);
	run_fork(&r);
	for (i = 0; i < nacts; i++) {
		struct act *a = &acts[i];
		struct ftk_tracefs *t = r.t;

		switch (a->kind) {
		case ACT_ADD:
			ret = ftk_trigger_add(t, a->event, a->arg);
			break;
		case ACT_HIST:
			s = hist_text(a);
			ret = ftk_trigger_add(t, a->event, s);
			free(s);
			break;
		case ACT_REMOVE:
			ret = ftk_trigger_remove(t, a->event, a->arg);
			break;
		case ACT_CLEAR_EVENT:
			ret = ftk_trigger_clear(t, a->event);
			break;
		case ACT_STATE:
			ret = hist_state(t, a->event, a->arg);
			if (ret < 0 && !*ftk_tracefs_errmsg(t))
				tool_exit(EXIT_FAIL);
			break;
		case ACT_SYNTH:
			if (!r.top)
				tool_warn("synthetic events are global: '%s' goes to the top level",
					  a->arg);
			t = run_top(&r);
			ret = ftk_trigger_synth_add(t, a->arg);
			break;
		case ACT_FUNC: {
			char *func = strdup(a->arg), *cmd;

			if (!func)
				tool_die("out of memory");
			cmd = strchr(func, ':');
			if (!cmd || !cmd[1])
				tool_usage_error("--func wants FUNC:COMMAND, not '%s'", a->arg);
			*cmd++ = '\0';
			ret = ftk_trigger_func_add(t, func, cmd);
			free(func);
			break;
		}
		case ACT_SHOW_HIST:
			ret = 0;
			continue;
		}
		if (ret)
			tool_die_tracefs(t, NULL);
		nchanges++;
		run_check_stop();
	}
	if (!r.persist && run_trace(&r))
		tool_exit(EXIT_FAIL);
	/* After a run, or when asked: the histograms. */
	for (i = 0; i < nacts; i++)
		if (acts[i].kind == ACT_SHOW_HIST || (!r.persist && acts[i].kind == ACT_HIST))
			print_hist(r.t, acts[i].event);
	snprintf(what, sizeof(what), "%d change%s made", nchanges, nchanges == 1 ? "" : "s");
	free(acts);
	run_finish(&r, what);
}
