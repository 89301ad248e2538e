// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fttrigger: event and function triggers, hist triggers and their output,
 * in a private instance by default (see run.h for the two modes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/trigger.h>

#include "run.h"

static const char usage[] =
"usage: fttrigger -l [-B NAME | -T]\n"
"       fttrigger [-B NAME | -T] [-D S] [--synth DEF]... [-e EVENT TRIGGER-OPTS]...\n"
"                 [--func FUNC:CMD[:N]]... [--trace-self] [-- COMMAND [ARG...]]\n"
"       fttrigger [-B NAME | -T] -e EVENT (-r TRIGGER | -R | -H | --pause | --cont | --clear)\n"
"       fttrigger -R [-B NAME | -T | --all]\n"
"TRIGGER-OPTS: -t TRIGGER | -k KEYS [--vals VALS] [--sort FIELDS] [--size N]\n"
"              [--name NAME] [--action ACT]... [--if FILTER]\n"
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
RUN_HELP
"\n"
"examples:\n"
"  fttrigger -e sched:sched_process_exec -t stacktrace -- make\n"
"  fttrigger -e sched:sched_switch -k next_comm --sort hitcount.descending -D 5\n"
"  fttrigger -B dbg -e block:block_rq_issue -t 'traceoff:1 if bytes > 1048576'\n"
"  fttrigger -l                             # every trigger, everywhere\n"
"  fttrigger -B dbg -R                      # remove all of dbg's triggers\n";

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

/* ":pause" (or cont, clear) on each hist trigger of @event. */
static int hist_state(struct ftk_tracefs *t, const char *event, const char *state)
{
	int n = ftk_trigger_hist_state(t, event, state);

	if (n == 0) {
		tool_err("%s has no hist trigger to %s", event, state);
		return -1;
	}
	return n < 0 ? n : 0;
}

struct opts {
	struct run	r;
	int		list, remove_all, all, nacts;
	const char	*event;
	struct act	*acts, *hist;
};

static struct act *add(struct opts *o, enum act_kind kind, const char *need, const char *arg)
{
	if (need && !o->event)
		tool_usage_error("%s needs an -e EVENT before it", need);
	o->acts[o->nacts] = (struct act){ .kind = kind, .event = o->event, .arg = arg };
	return &o->acts[o->nacts++];
}

/* The options that shape the hist trigger of the last -k. */
static const char **hist_field(struct opts *o, int opt)
{
	static const char *const names[] = { "--vals", "--sort", "--size", "--name", "--action",
					     "--if" };

	if (!o->hist)
		tool_usage_error("%s shapes a hist trigger: give -k KEYS first", names[opt - OPT_VALS]);
	switch (opt) {
	case OPT_VALS: return &o->hist->vals;
	case OPT_SORT: return &o->hist->sort;
	case OPT_SIZE: return &o->hist->size;
	case OPT_NAME: return &o->hist->name;
	case OPT_ACTION: return &o->hist->action;
	}
	return &o->hist->filter;
}

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'l': o->list = 1; break;
	case 'e': o->event = arg; o->hist = NULL; break;
	case 't': add(o, ACT_ADD, "-t", arg); break;
	case 'k': o->hist = add(o, ACT_HIST, "-k", arg); break;
	case OPT_VALS: case OPT_SORT: case OPT_SIZE: case OPT_NAME: case OPT_ACTION: case OPT_IF:
		*hist_field(o, opt) = arg;
		break;
	case OPT_SYNTH: add(o, ACT_SYNTH, NULL, arg); break;
	case OPT_FUNC: add(o, ACT_FUNC, NULL, arg); break;
	case 'r': add(o, ACT_REMOVE, "-r", arg); break;
	case 'R':
		o->remove_all = 1;
		if (o->event)
			add(o, ACT_CLEAR_EVENT, NULL, NULL);
		break;
	case 'a': o->all = 1; break;
	case 'H': add(o, ACT_SHOW_HIST, "-H", NULL); break;
	case OPT_PAUSE: add(o, ACT_STATE, "--pause", "pause"); break;
	case OPT_CONT: add(o, ACT_STATE, "--cont", "cont"); break;
	case OPT_CLEAR: add(o, ACT_STATE, "--clear", "clear"); break;
	}
}

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
	RUN_LONGOPTS,
	{ }
};

static const struct tool_def def = {
	.name = "fttrigger", .usage = usage, .opts = "le:t:k:r:RaHT", .longopts = longopts,
	.option = option,
};

/* -R without -e: remove everything, a persistent change (the other tools' kind of undo). */
static void __attribute__((noreturn)) remove_everything(struct opts *o)
{
	struct ftk_tracefs *t, *h;
	char **names, **p;
	int ret = EXIT_OK;

	if (o->nacts || o->r.argv || o->r.duration)
		tool_usage_error("-R without -e removes everything: nothing else with it");
	t = tool_tracefs(o->r.instance, 0);
	if (!o->all || o->r.instance || o->r.top) {
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

/* Only -H: print the histograms, change nothing. */
static void show_hists(struct opts *o)
{
	struct ftk_tracefs *t;
	int i, ret = EXIT_OK;

	for (i = 0; i < o->nacts; i++)
		if (o->acts[i].kind != ACT_SHOW_HIST)
			return;
	t = tool_tracefs(o->r.instance, 0);
	for (i = 0; i < o->nacts; i++)
		if (print_hist(t, o->acts[i].event))
			ret = EXIT_FAIL;
	tool_exit(ret);
}

/* Make one change (1; 0 for -H); dies, putting everything back, if the kernel refuses it. */
static int apply(struct run *r, struct act *a)
{
	struct ftk_tracefs *t = r->t;
	char *s, *cmd;
	int ret = 0;

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
		if (hist_state(t, a->event, a->arg) < 0 && !*ftk_tracefs_errmsg(t))
			tool_exit(EXIT_FAIL);	/* said why already */
		break;
	case ACT_SYNTH:
		if (!r->top)
			tool_warn("synthetic events are global: '%s' goes to the top level", a->arg);
		t = run_top(r);
		ret = ftk_trigger_synth_add(t, a->arg);
		break;
	case ACT_FUNC:
		s = strdup(a->arg);
		if (!s)
			tool_die("out of memory");
		cmd = strchr(s, ':');
		if (!cmd || !cmd[1])
			tool_usage_error("--func wants FUNC:COMMAND, not '%s'", a->arg);
		*cmd++ = '\0';
		ret = ftk_trigger_func_add(t, s, cmd);
		free(s);
		break;
	case ACT_SHOW_HIST:
		return 0;
	}
	if (ret)
		tool_die_tracefs(t, NULL);
	run_check_stop();
	return 1;
}

int main(int argc, char **argv)
{
	struct opts o = { .acts = calloc(argc, sizeof(struct act)) };
	struct tool_args a;
	char what[64];
	int i, n = 0;

	if (!o.acts)
		return EXIT_FAIL;
	run_parse(&o.r, &def, argc, argv, &a, &o);
	if (o.r.top && o.r.instance)
		tool_usage_error("-B and -T exclude each other");
	if (o.all && !o.remove_all)
		tool_usage_error("--all goes with -R");
	if (o.list) {
		if (o.nacts || o.remove_all || o.r.argv || o.r.duration)
			tool_usage_error("-l only lists");
		tool_exit(print_list(tool_tracefs(o.r.instance, 0), !o.r.instance && !o.r.top));
	}
	if (o.remove_all && !o.event)
		remove_everything(&o);
	if (!o.nacts)
		tool_usage_error("nothing to do: give -l, -e EVENT with -t, -k, -r, -R or -H");
	show_hists(&o);

	run_open(&o.r);
	run_fork(&o.r);
	for (i = 0; i < o.nacts; i++)
		n += apply(&o.r, &o.acts[i]);
	if (!o.r.persist && run_trace(&o.r))
		tool_exit(EXIT_FAIL);
	/* After a run, or when asked: the histograms. */
	for (i = 0; i < o.nacts; i++)
		if (o.acts[i].kind == ACT_SHOW_HIST || (!o.r.persist && o.acts[i].kind == ACT_HIST))
			print_hist(o.r.t, o.acts[i].event);
	snprintf(what, sizeof(what), "%d change%s made", n, n == 1 ? "" : "s");
	free(o.acts);
	run_finish(&o.r, what);
}
