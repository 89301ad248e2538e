// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftexecsnoop: every exec with its pid, parent pid, return value and
 * arguments, also of processes that end at once, as perf-tools' and bcc's
 * execsnoop.
 *
 * syscalls:sys_enter/exit_execve give the result and only pointers to the
 * arguments, sched_process_exec the file; the name and the parent are
 * the session's (ftk_session_comm(), from fork and rename records). The arguments come from a uprobe on libc's execve (uprobes work
 * under lockdown, where kprobes do not), matched to the syscall by thread
 * and argv pointer; an exec made without libc shows the file exec'd.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat.h"

#define MAXARG	16	/* arguments fetched; more are shown as "..." */
#define SLOTS	4096	/* threads in an exec */

struct inflight {
	int		tid, matched, probed;
	uint64_t	argv_ptr, ts;
	char		args[1024];
};

struct execsnoop {
	struct lat		l;
	struct inflight		slot[SLOTS];
	int			enter_id, exit_id, exec_id, probe_id;
	struct tep_format_field	*e_argv, *x_ret, *x_file, *u_argv,
				*u_ptr[MAXARG], *u_arg[MAXARG];
	int			failed_only, own_seen;
	const char		*name;
	uint64_t		shown;
};

static const char usage[] =
"usage: ftexecsnoop [-tx] [-n NAME] [-D SECS] [--json] [-B NAME] [[--] COMMAND [ARG...]]\n"
"\n"
"Print every exec: the command name, pid, parent pid, the return value and\n"
"the arguments (the first 16), also of processes that end at once.\n"
"\n"
"  -x, --failed          failed execs only\n"
LAT_HELP_TIMESTAMP
"  -n, --name NAME       only execs whose arguments contain NAME\n"
LAT_HELP_D
LAT_HELP_JSON
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftexecsnoop -D 10             # every exec of the system for ten seconds\n"
"  ftexecsnoop -x                # failed execs\n"
"  ftexecsnoop -t -- make -j2    # what a build runs\n";

static void option(int opt, char *arg, void *ctx)
{
	struct execsnoop *e = ctx;

	switch (opt) {
	case 'x': e->failed_only = 1; break;
	case 'n': e->name = arg; break;
	}
}

static void show(struct execsnoop *e, const struct tep_record *rec, struct inflight *s, long long ret)
{
	char comm[32], ecomm[128];
	int ppid;

	if (e->name && !strstr(s->args, e->name))
		return;
	/* what the session saw: the exec's rename (before its return), a fork, /proc at the start */
	ftk_session_comm(e->l.s, s->tid, comm, sizeof(comm));
	ppid = ftk_session_ppid(e->l.s, s->tid);
	e->shown++;
	if (e->l.opt.json) {
		printf("{\"time\":%.6f,\"comm\":", lat_since_start(&e->l, rec->ts));
		ftk_json_str(stdout, comm, sizeof(comm));
		printf(",\"pid\":%d,\"ppid\":%d,\"ret\":%lld,\"args\":", s->tid, ppid, ret);
		ftk_json_str(stdout, s->args, sizeof(s->args));
		printf("}\n");
	} else {
		if (e->l.opt.stamps)
			printf("%-12.6f ", lat_since_start(&e->l, rec->ts));
		/* a newline or escape in a name or an argument must not forge a line */
		ftk_text_escape(ecomm, sizeof(ecomm), comm, sizeof(comm));
		printf("%-16s %-7d %-7d %3lld ", ecomm, s->tid, ppid, ret);
		ftk_text_str(stdout, s->args, sizeof(s->args));
		putchar('\n');
	}
	lat_check_out(&e->l);
}

static void probe_hit(struct execsnoop *e, const struct tep_record *rec, struct inflight *s, int tid)
{
	size_t n = 0;
	const char *a;
	int i, len;

	s->tid = tid;
	s->probed = 1;
	s->matched = 0;
	s->argv_ptr = ftk_record_num(rec, e->u_argv);
	s->args[0] = '\0';
	for (i = 0; i < MAXARG && ftk_record_num(rec, e->u_ptr[i]); i++) {
		a = ftk_record_str(rec, e->u_arg[i], &len);
		n += snprintf(s->args + n, sizeof(s->args) - n, "%s%.*s", i ? " " : "", len, a);
		if (n >= sizeof(s->args))
			return;
	}
	if (i == MAXARG)
		snprintf(s->args + n, sizeof(s->args) - n, " ...");
}

/*
 * The command's own execve() is the one this tool makes: its arguments are
 * the ones given.  They are used when no probe hit matched it: in full runs
 * of the live lane (never alone) the libc uprobe's hit of that one exec was
 * absent from the buffer while every later exec's was there; the cause in
 * the kernel is not known.
 */
static void own_args(struct execsnoop *e, struct inflight *s)
{
	char **argv = e->l.args->argv;
	size_t n = 0;
	int i;

	for (i = 0; argv[i] && i < MAXARG; i++) {
		n += snprintf(s->args + n, sizeof(s->args) - n, "%s%s", i ? " " : "", argv[i]);
		if (n >= sizeof(s->args))
			return;
	}
	if (argv[i])
		snprintf(s->args + n, sizeof(s->args) - n, " ...");
	lat_path(&e->l, "the command's exec: its arguments as given (no probe hit matched it)");
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct execsnoop *e = ctx;
	int type = lat_type(&e->l, rec), tid = ftk_record_pid(rec), len;
	struct inflight *s = &e->slot[(unsigned int)tid % SLOTS];
	const char *file;

	if (type == e->probe_id) {
		probe_hit(e, rec, s, tid);
	} else if (type == e->enter_id) {
		uint64_t argv = ftk_record_num(rec, e->e_argv);

		s->matched = s->tid == tid && s->probed && s->argv_ptr == argv;
		if (!s->matched)
			s->args[0] = '\0';
		s->tid = tid;
		s->probed = 0;
		s->ts = rec->ts;
	} else if (type == e->exec_id) {
		/* not through libc: at least the file exec'd */
		file = ftk_record_str(rec, e->x_file, &len);
		if (s->tid == tid && !s->matched && e->l.has_cmd && tid == e->l.pid && !e->own_seen)
			own_args(e, s);
		else if (s->tid == tid && !s->matched)
			snprintf(s->args, sizeof(s->args), "%.*s", len, file);
		if (tid == e->l.pid)
			e->own_seen = 1;
	} else if (type == e->exit_id) {
		long long ret = ftk_record_num(rec, e->x_ret);

		if (s->tid != tid || !s->ts)
			return 0;
		if (!s->args[0])
			snprintf(s->args, sizeof(s->args), "?");
		if (!e->failed_only || ret < 0)
			show(e, rec, s, ret);
		s->ts = 0;
		s->matched = 0;
	}
	return 0;
}

/* A uprobe on libc's execve with argv's pointers and strings. */
static int libc_probe(struct execsnoop *e)
{
	char *libc = NULL, spec[8192], why[512];
	size_t n;
	int i, ret;

	if (ftk_probe_find_library(getpid(), "libc.so.6", &libc)) {
		tool_warn("no libc found: the files exec'd only, no arguments");
		return -1;
	}
	n = snprintf(spec, sizeof(spec), "%s:execve argv=$arg2:x64", libc);
	for (i = 0; i < MAXARG; i++)
		n += snprintf(spec + n, sizeof(spec) - n, " p%d=+%d($arg2):x64 a%d=+0(+%d($arg2)):string",
			      i, i * 8, i, i * 8);
	free(libc);
	ret = lat_uprobe(&e->l, spec, "execve", why, sizeof(why));
	if (ret)
		tool_warn("no uprobe on libc's execve (%s): the files exec'd only", why);
	return ret;
}

static void find_all(struct execsnoop *e, int probed)
{
	char group[64], name[8];
	struct tep_event *ev;
	int i;

	ev = lat_find(&e->l, "syscalls", "sys_enter_execve");
	e->enter_id = ev->id;
	e->e_argv = lat_field(&e->l, ev, "argv");
	ev = lat_find(&e->l, "syscalls", "sys_exit_execve");
	e->exit_id = ev->id;
	e->x_ret = lat_field(&e->l, ev, "ret");
	ev = lat_find(&e->l, "sched", "sched_process_exec");
	e->exec_id = ev->id;
	e->x_file = lat_field(&e->l, ev, "filename");
	e->probe_id = -1;
	if (!probed)
		return;
	ftk_probe_owner_group(group, sizeof(group));
	ev = lat_find(&e->l, group, "execve");
	e->probe_id = ev->id;
	e->u_argv = lat_field(&e->l, ev, "argv");
	for (i = 0; i < MAXARG; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		e->u_ptr[i] = lat_field(&e->l, ev, name);
		snprintf(name, sizeof(name), "a%d", i);
		e->u_arg[i] = lat_field(&e->l, ev, name);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "failed", no_argument, NULL, 'x' },	{ "name", required_argument, NULL, 'n' },
		{ }
	};
	static const struct lat_def def = {
		.name = "ftexecsnoop", .usage = usage, .opts = "xn:", .longopts = longopts,
		.option = option, .shared = LAT_OPT_TIMESTAMP | LAT_OPT_JSON,
	};
	static struct execsnoop e = { .l.name = "execsnoop" };
	struct tool_args args;
	int code, probed;

	lat_parse(&e.l, &def, argc, argv, &args, &e);
	lat_open(&e.l, &args, 0);
	lat_event(&e.l, "syscalls:sys_enter_execve", NULL);
	lat_event(&e.l, "syscalls:sys_exit_execve", NULL);
	lat_event(&e.l, "sched:sched_process_exec", NULL);
	probed = !libc_probe(&e);
	find_all(&e, probed);
	lat_path(&e.l, "stream: syscalls:sys_enter/exit_execve paired by thread, arguments from "
		 "%s", probed ? "a libc execve uprobe matched by argv pointer" : "nowhere");
	if (!e.l.opt.json)
		printf("%s%-16s %-7s %-7s %3s %s\n", e.l.opt.stamps ? "TIME(s)      " : "", "PCOMM", "PID",
		       "PPID", "RET", "ARGS");
	code = lat_run(&e.l, on_record, &e, NULL, 0);
	if (!e.l.opt.json)
		lat_lost_print(&e.l, stdout);
	lat_check_out(&e.l);
	tool_exit(code);
}
