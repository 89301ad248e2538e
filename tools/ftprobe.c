// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftprobe: kprobe, kretprobe, uprobe, uretprobe and eprobe events.
 *
 * Two lifetimes: "add" defines probes that stay after ftprobe exits (like
 * perf probe; remove them with -d or -D), and "trace" (-t) defines them in
 * a group owned by this process, enables them in a private instance,
 * runs a command or waits for Ctrl-C, prints the hits and removes it all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "tool.h"

enum mode { M_ADD, M_TRACE, M_DELETE, M_DELETE_GROUP, M_LIST, M_GC, M_DRY };

static const char usage[] =
"usage: ftprobe [-qv] [-g GROUP] [-x PATH] [-p PID] [-a] SPEC...\n"
"       ftprobe [-qv] [-B instance] [-x PATH] [-p PID] [-D SECONDS] -t SPEC... [-- COMMAND...]\n"
"       ftprobe [-qv] [-g GROUP] [--all] -d EVENT...\n"
"       ftprobe [-qv] [-g GROUP | --all] -D | -l | --gc\n"
"       ftprobe [-x PATH] [-p PID] -n SPEC...\n"
"\n"
"Define kprobe, kretprobe, uprobe, uretprobe and eprobe events.\n"
"SPEC is [p|r|e[:[GROUP/]NAME]] PLACE [NAME=FETCHARG[:TYPE]...] [if FILTER]:\n"
"  SYMBOL[+OFF][%return]             kprobe / kretprobe on a kernel function\n"
"  PATH:SYMBOL[+OFF][%return]        uprobe / uretprobe (symbol from the ELF file)\n"
"  PATH:0xOFFSET                     uprobe at a file offset\n"
"  e SYSTEM.EVENT                    eprobe on an existing event\n"
"FETCHARG: $argN $retval $comm %REG @SYM +OFF(FETCHARG) ...; TYPE: u8..u64\n"
"s8..s64 x8..x64 string ustring symbol (see the kernel's kprobetrace.rst).\n"
"\n"
"  -a, --add            define the probes and keep them (the default)\n"
"  -t, --trace          define, enable in a private instance, run COMMAND or wait\n"
"                       for Ctrl-C, print the hits, remove everything\n"
"  -D, --duration S     with -t and no COMMAND: stop after S seconds\n"
"  -s S                 as -D\n"
"  -d, --delete         remove the EVENTs (GROUP:NAME, GROUP/NAME or NAME)\n"
"  -D, --delete-group   without a number after it: remove every probe of GROUP\n"
"                       and those stale runs left\n"
"  -l, --list           list the probes (of GROUP with -g; default all)\n"
"      --gc             remove the probes and instances of dead ftprobe runs\n"
"  -n, --dry-run        print the definitions, write nothing\n"
"  -g, --group GROUP    group for -a, -d, -D and -l (default " FTK_PROBE_GROUP ")\n"
"      --all            -D and -d: every group, also probes ftkit did not make\n"
"  -x, --exec PATH      uprobes: the binary when SPEC gives only SYMBOL\n"
"  -p, --pid PID        uprobes: find PATH (\"libc\") in /proc/PID/maps; with -t,\n"
"                       record only that process's threads\n"
"  -B, --instance NAME  -t: the instance to trace in (default: a private one)\n"
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftprobe -t '/bin/bash:readline%return line=$retval:ustring'   # Ctrl-C to end\n"
"  ftprobe -t 'do_sys_openat2 file=+0($arg2):ustring' -- cat /etc/hostname\n"
"  ftprobe -t -p 1234 'libc:malloc size=$arg1:u64' -D 5\n"
"  ftprobe -a 'r:myret do_sys_openat2 ret=$retval:s32'; ftprobe -l; ftprobe -D\n";

static const char *kind_name(const char *line)
{
	const char *sp = strchr(line, ' ');
	int user = sp && strchr(sp + 1, '/') && strchr(sp + 1, ':');

	switch (line[0]) {
	case 'p':
		return user ? "uprobe" : "kprobe";
	case 'r':
		return user ? "uretprobe" : "kretprobe";
	case 'e':
		return "eprobe";
	}
	return "?";
}

/* "GROUP:NAME" or "GROUP/NAME" -> "GROUP/NAME" in @buf. */
static const char *event_arg(const char *s, char *buf, size_t len)
{
	char *c;

	snprintf(buf, len, "%s", s);
	c = strchr(buf, ':');
	if (c)
		*c = '/';
	return buf;
}

static int group_of(const char *gn, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(gn, group, n) && gn[n] == '/';
}

static void do_list(struct ftk_tracefs *t, const char *group)
{
	char **list, ev[200];
	int i;

	if (ftk_probe_list(t, &list))
		tool_die("cannot read %s", ftk_tracefs_errmsg(t));
	for (i = 0; list[i]; i++) {
		const char *c = strchr(list[i], ':'), *sp = strchr(list[i], ' ');

		if (!c || !sp || sp < c)
			continue;
		snprintf(ev, sizeof(ev), "%.*s", (int)(sp - c - 1), c + 1);
		if (group && !group_of(ev, group))
			continue;
		*strchr(ev, '/') = ':';
		printf("%-32s %-10s %s\n", ev, kind_name(list[i]), sp + 1);
	}
	ftk_list_free(list);
}

static void print_deleted(char **deleted)
{
	for (int i = 0; deleted && deleted[i]; i++)
		if (ftk_log_level() >= FTK_LOG_WARN)
			fprintf(stderr, "%s: removed %s\n", tool_name, deleted[i]);
}

static struct ftk_probe *parse_spec(const char *spec, const struct ftk_probe_opts *o)
{
	struct ftk_probe *p = ftk_probe_new();

	if (!p)
		tool_die("out of memory");
	if (ftk_probe_parse(p, spec, o)) {
		int e = errno;

		tool_err("bad probe '%s': %s", spec, ftk_probe_errmsg(p));
		ftk_probe_free(p);
		tool_exit(e == EINVAL ? EXIT_USAGE : EXIT_FAIL);
	}
	return p;
}

static __attribute__((noreturn)) void do_trace(struct ftk_probe_opts *o, char **specs,
						int nspecs, const char *instance, double secs,
						char **cmd)
{
	char group[64], name[96], event[200], **deleted, *trace, *line, *next;
	struct ftk_tracefs *top = NULL;
	struct ftk_session *s;
	struct ftk_probe *probes[64];
	long hits[64] = { 0 };
	struct tool_cmd c;
	int i;

	if (nspecs > (int)(sizeof(probes) / sizeof(probes[0])))
		tool_usage_error("too many probes (at most %zu)", sizeof(probes) / sizeof(probes[0]));
	if (ftk_probe_owner_group(group, sizeof(group)))
		tool_die("cannot make a group name");
	if (o->group)
		tool_usage_error("-t makes its probes in its own group (%s): drop -g", group);
	o->group = group;
	/* Check every spec before touching tracefs: no partial state on bad input. */
	for (i = 0; i < nspecs; i++)
		probes[i] = parse_spec(specs[i], o);

	tool_signals();
	if (ftk_tracefs_open(NULL, NULL, 0, &top) == 0) {
		deleted = calloc(1, sizeof(char *));
		if (deleted && ftk_probe_gc(top, &deleted) > 0)
			print_deleted(deleted);
		ftk_list_free(deleted);
	}
	ftk_tracefs_close(top);
	if (!instance) {
		snprintf(name, sizeof(name), FTK_PROBE_GROUP "-probe-%s",
			 group + strlen(FTK_PROBE_GROUP "_"));
		instance = name;
	}
	{
		/* the instance, and the probes at the top level removed after it */
		FTK_OPTS(ftk_session_opts, so, .tool = "probe", .instance = instance);

		s = tool_session(&so);
	}
	top = ftk_session_top(s);
	if (!top)
		tool_die("%s", ftk_session_errmsg(s));
	for (i = 0; i < nspecs && !tool_stop; i++)
		if (ftk_probe_create(probes[i], top, FTK_PROBE_JOURNAL))
			tool_die("%s", ftk_probe_errmsg(probes[i]));
	if (cmd) {
		/* traced from its exec on: not what ftprobe does to start it */
		tool_cmd_fork_flags(&c, cmd, instance, TOOL_CMD_EXEC_GATE);
		tool_cmd_on_exec(&c, tool_session_start, s);
	}
	for (i = 0; i < nspecs && !tool_stop; i++) {
		snprintf(event, sizeof(event), "%s:%s", ftk_probe_group(probes[i]),
			 ftk_probe_name(probes[i]));
		if (ftk_session_event(s, event, NULL))
			tool_die("cannot enable %s: %s", event, ftk_session_errmsg(s));
	}
	/* -p: only that process's threads; else all but ftprobe's own (the session's default) */
	if (o->pid > 0 && !tool_stop && ftk_session_pid(s, o->pid, 0))
		tool_die("%s", ftk_session_errmsg(s));
	if (!tool_stop && !cmd && ftk_session_start(s))
		tool_die("%s", ftk_session_errmsg(s));

	if (!tool_stop && cmd) {
		if (tool_cmd_start(&c))
			tool_exit(tool_cmd_code(&c));
		tool_cmd_wait(&c, 0);
		tool_cmd_report(&c);
	} else if (!tool_stop) {
		if (ftk_log_level() >= FTK_LOG_WARN)
			fprintf(stderr, "Tracing %d probe%s in instance %s%s... Ctrl-C to end.\n",
				nspecs, nspecs == 1 ? "" : "s", instance,
				secs > 0 ? " for a while" : "");
		tool_sleep(secs);
	}
	if (cmd)
		tool_cmd_kill(&c);	/* after a signal: it was passed on; reap it */
	/* Stop the buffer, then print what it holds. */
	if (ftk_session_stop(s))
		tool_warn("%s", ftk_session_errmsg(s));
	if (ftk_tracefs_read(ftk_session_tracefs(s), "trace", &trace))
		tool_die("cannot read %s", ftk_tracefs_errmsg(ftk_session_tracefs(s)));
	for (line = trace; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line == '#' || !*line)
			continue;
		puts(line);
		for (i = 0; i < nspecs; i++) {
			char pat[80];

			snprintf(pat, sizeof(pat), " %s: ", ftk_probe_name(probes[i]));
			if (strstr(line, pat)) {
				hits[i]++;
				break;
			}
		}
	}
	free(trace);
	if (ftk_log_level() >= FTK_LOG_WARN)
		for (i = 0; i < nspecs; i++)
			fprintf(stderr, "%s: %ld hit%s of %s\n", tool_name, hits[i],
				hits[i] == 1 ? "" : "s", ftk_probe_name(probes[i]));
	for (i = 0; i < nspecs; i++)
		ftk_probe_free(probes[i]);
	/* Ctrl-C is how a trace ends: 0 then; else the command's exit code. */
	tool_exit(!cmd || c.forwarded ? EXIT_OK : tool_stop ? 128 + tool_stop : tool_cmd_code(&c));
}

static __attribute__((noreturn)) void do_add(struct ftk_probe_opts *o, char **specs, int nspecs)
{
	struct ftk_probe *probes[64];
	struct ftk_tracefs *top;
	char ev[200];
	int i, j;

	if (nspecs > (int)(sizeof(probes) / sizeof(probes[0])))
		tool_usage_error("too many probes (at most %zu)", sizeof(probes) / sizeof(probes[0]));
	for (i = 0; i < nspecs; i++)
		probes[i] = parse_spec(specs[i], o);
	tool_signals();
	top = tool_tracefs(NULL, 0);
	for (i = 0; i < nspecs; i++) {
		if (!tool_stop && !ftk_probe_create(probes[i], top, 0))
			continue;
		/* All or nothing: take back the ones this run added. */
		tool_err("%s", tool_stop ? "interrupted" : ftk_probe_errmsg(probes[i]));
		for (j = i - 1; j >= 0; j--) {
			snprintf(ev, sizeof(ev), "%s/%s", ftk_probe_group(probes[j]),
				 ftk_probe_name(probes[j]));
			if (ftk_probe_delete(top, ev))
				tool_err("cannot remove %s: %s", ev, ftk_tracefs_errmsg(top));
		}
		tool_exit(EXIT_FAIL);
	}
	for (i = 0; i < nspecs; i++) {
		printf("%s:%s\n", ftk_probe_group(probes[i]), ftk_probe_name(probes[i]));
		ftk_probe_free(probes[i]);
	}
	if (ftk_log_level() >= FTK_LOG_WARN)
		fprintf(stderr, "%s: added %d probe%s; enable with: echo 1 > %s/events/%s/enable\n",
			tool_name, nspecs, nspecs == 1 ? "" : "s", ftk_tracefs_root(top),
			o->group ? o->group : FTK_PROBE_GROUP);
	tool_exit(EXIT_OK);
}

static __attribute__((noreturn)) void do_delete(const char *group, int all, char **events, int n)
{
	struct ftk_tracefs *top = tool_tracefs(NULL, 0);
	char ev[200], **list, gn[200];
	int i, j, ret = EXIT_OK;

	if (ftk_probe_list(top, &list))
		tool_die("cannot read %s", ftk_tracefs_errmsg(top));
	for (i = 0; i < n; i++) {
		const char *e = event_arg(events[i], ev, sizeof(ev));
		const char *g = NULL;

		/* Whose is it? Refuse groups that are not ours unless --all. */
		for (j = 0; list[j]; j++) {
			const char *c = strchr(list[j], ':'), *sp = strchr(list[j], ' ');
			const char *slash;

			if (!c || !sp || sp < c)
				continue;
			snprintf(gn, sizeof(gn), "%.*s", (int)(sp - c - 1), c + 1);
			slash = strchr(gn, '/');
			if (!slash || (strchr(e, '/') ? strcmp(gn, e) : strcmp(slash + 1, e)))
				continue;
			g = gn;
			break;
		}
		if (g && !all && !group_of(g, group) && strncmp(g, FTK_PROBE_GROUP,
								 strlen(FTK_PROBE_GROUP))) {
			tool_err("'%s' is not ftkit's (group '%.*s'): add --all to remove it anyway",
				 events[i], (int)(strchr(g, '/') - g), g);
			ret = EXIT_FAIL;
			continue;
		}
		if (ftk_probe_delete(top, e)) {
			tool_err("cannot remove '%s': %s", events[i], ftk_tracefs_errmsg(top));
			ret = EXIT_FAIL;
		}
	}
	ftk_list_free(list);
	tool_exit(ret);
}

struct opts {
	struct ftk_probe_opts	o;
	enum mode		mode;
	int			nmodes, all;
	double			secs;
	char			**argv;
};

static void set_mode(struct opts *o, enum mode m)
{
	o->mode = m;
	o->nmodes++;
}

enum { OPT_ALL = 256, OPT_GC };

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;
	char *end;

	switch (opt) {
	case 'a': set_mode(o, M_ADD); break;
	case 't': set_mode(o, M_TRACE); break;
	case 'd': set_mode(o, M_DELETE); break;
	case 'l': set_mode(o, M_LIST); break;
	case OPT_GC: set_mode(o, M_GC); break;
	case 'n': set_mode(o, M_DRY); break;
	case 's': o->secs = tool_seconds(arg); break;
	case 'D':
		/*
		 * -D is the duration in every tool, and ftprobe's documented
		 * --delete-group, which takes no argument: a number after it
		 * makes it the duration (-D5 too).
		 */
		if (arg) {
			o->secs = tool_seconds(arg);
			break;
		}
		arg = o->argv[optind];
		if (arg && (strtod(arg, &end), end != arg && !*end)) {
			o->secs = tool_seconds(arg);
			optind++;
		} else {
			set_mode(o, M_DELETE_GROUP);
		}
		break;
	case OPT_ALL: o->all = 1; break;
	case 'g': o->o.group = arg; break;
	case 'x': o->o.binary = arg; break;
	case 'p': o->o.pid = tool_pid(arg); break;
	}
}

static const struct option longopts[] = {
	{ "add",		no_argument,		NULL, 'a' },
	{ "trace",		no_argument,		NULL, 't' },
	{ "duration",		required_argument,	NULL, 's' },
	{ "delete",		no_argument,		NULL, 'd' },
	{ "delete-group",	no_argument,		NULL, 'D' },
	{ "list",		no_argument,		NULL, 'l' },
	{ "gc",			no_argument,		NULL, OPT_GC },
	{ "dry-run",		no_argument,		NULL, 'n' },
	{ "group",		required_argument,	NULL, 'g' },
	{ "all",		no_argument,		NULL, OPT_ALL },
	{ "exec",		required_argument,	NULL, 'x' },
	{ "pid",		required_argument,	NULL, 'p' },
	{ }
};

static const struct tool_def def = {
	.name = "ftprobe", .usage = usage, .opts = "ats:dD::lng:x:p:", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE, .option = option,
};

/* Everything after "--" is the command of -t (SPECs are operands too). */
static char **split_command(int *argc, char **argv)
{
	int i;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--")) {
			argv[i] = NULL;
			*argc = i;
			return argv[i + 1] ? argv + i + 1 : NULL;
		}
	}
	return NULL;
}

static void check_usage(const struct opts *o, const struct tool_args *a, char **cmd)
{
	if (o->nmodes > 1)
		tool_usage_error("give one of -a, -t, -d, -D, -l, --gc, -n");
	if (cmd && o->mode != M_TRACE)
		tool_usage_error("a COMMAND after '--' goes with -t");
	if (o->secs > 0 && (o->mode != M_TRACE || cmd))
		tool_usage_error("--duration goes with -t and no COMMAND");
	if (a->instance && o->mode != M_TRACE)
		tool_usage_error("-B goes with -t (probes are defined at the top level)");
	if (o->all && o->mode != M_DELETE && o->mode != M_DELETE_GROUP && o->mode != M_LIST)
		tool_usage_error("--all goes with -d, -D or -l");
	if (o->all && o->o.group)
		tool_usage_error("give -g GROUP or --all, not both");
	if ((o->mode == M_ADD || o->mode == M_TRACE || o->mode == M_DRY) && !a->nrest)
		tool_usage_error("no probe given");
	if (o->mode == M_DELETE && !a->nrest)
		tool_usage_error("no event to remove given");
	if (o->mode != M_ADD && o->mode != M_TRACE && o->mode != M_DRY && o->mode != M_DELETE &&
	    a->nrest)
		tool_usage_error("unexpected argument '%s'", a->rest[0]);
}

static __attribute__((noreturn)) void do_dry(struct ftk_probe_opts *o, char **specs, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ftk_probe *p = parse_spec(specs[i], o);
		char *line = ftk_probe_command(p);

		if (!line)
			tool_die("out of memory");
		puts(line);
		free(line);
		ftk_probe_free(p);
	}
	tool_exit(EXIT_OK);
}

/* --gc, and -D: the probes of GROUP (and of dead runs) removed. */
static __attribute__((noreturn)) void do_gc(const struct opts *o)
{
	struct ftk_tracefs *top = tool_tracefs(NULL, 0);
	char **deleted = calloc(1, sizeof(char *));
	int ret;

	if (!deleted)
		tool_die("out of memory");
	ret = ftk_probe_gc(top, &deleted);
	if (ret >= 0 && o->mode == M_DELETE_GROUP)
		ret = ftk_probe_delete_group(top, o->o.group, o->all ? FTK_PROBE_ALL : 0, &deleted);
	print_deleted(deleted);
	ftk_list_free(deleted);
	if (ret < 0)
		tool_die("cannot remove: %s", ftk_tracefs_errmsg(top));
	tool_exit(EXIT_OK);
}

int main(int argc, char **argv)
{
	struct opts o = { .o = { .sz = sizeof(o.o) }, .mode = M_ADD, .argv = argv };
	char **cmd = split_command(&argc, argv);
	struct tool_args a;

	tool_parse(&def, argc, argv, &a, &o);
	check_usage(&o, &a, cmd);
	switch (o.mode) {
	case M_DRY:
		do_dry(&o.o, a.rest, a.nrest);
	case M_ADD:
		do_add(&o.o, a.rest, a.nrest);
	case M_TRACE:
		do_trace(&o.o, a.rest, a.nrest, a.instance, o.secs, cmd);
	case M_DELETE:
		do_delete(o.o.group ? o.o.group : FTK_PROBE_GROUP, o.all, a.rest, a.nrest);
	case M_LIST:
		do_list(tool_tracefs(NULL, 0), o.all ? NULL : o.o.group);
		tool_exit(EXIT_OK);
	case M_DELETE_GROUP:
	case M_GC:
		do_gc(&o);
	}
	return EXIT_OK;
}
