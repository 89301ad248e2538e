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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

enum mode { M_ADD, M_TRACE, M_DELETE, M_DELETE_GROUP, M_LIST, M_GC, M_DRY };

static void usage(FILE *f)
{
	fputs(
"usage: ftprobe [-qv] [-g GROUP] [-x PATH] [-p PID] [-a] SPEC...\n"
"       ftprobe [-qv] [-B instance] [-x PATH] [-p PID] [-s SECONDS] -t SPEC... [-- COMMAND...]\n"
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
"  -s, --duration S     with -t and no COMMAND: stop after S seconds\n"
"  -d, --delete         remove the EVENTs (GROUP:NAME, GROUP/NAME or NAME)\n"
"  -D, --delete-group   remove every probe of GROUP and those stale runs left\n"
"  -l, --list           list the probes (of GROUP with -g; default all)\n"
"      --gc             remove the probes and instances of dead ftprobe runs\n"
"  -n, --dry-run        print the definitions, write nothing\n"
"  -g, --group GROUP    group for -a, -d, -D and -l (default " FTK_PROBE_GROUP ")\n"
"      --all            -D and -d: every group, also probes ftkit did not make\n"
"  -x, --exec PATH      uprobes: the binary when SPEC gives only SYMBOL\n"
"  -p, --pid PID        uprobes: find PATH (\"libc\") in /proc/PID/maps; with -t,\n"
"                       record only that process's threads\n"
"  -B, --instance NAME  -t: the instance to trace in (default: a private one)\n"
"  -q, --quiet          fewer messages\n"
"  -v, --verbose        more messages\n"
"  -h, --help           this text\n"
"\n"
"examples:\n"
"  ftprobe -t '/bin/bash:readline%return line=$retval:ustring'   # Ctrl-C to end\n"
"  ftprobe -t 'do_sys_openat2 file=+0($arg2):ustring' -- cat /etc/hostname\n"
"  ftprobe -t -p 1234 'libc:malloc size=$arg1:u64' -s 5\n"
"  ftprobe -a 'r:myret do_sys_openat2 ret=$retval:s32'; ftprobe -l; ftprobe -D\n",
	      f);
}

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

static void sleep_until_stop(double secs)
{
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (!tool_stop) {
		if (secs > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > end.tv_sec ||
			    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
				break;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL);
		} else {
			pause();
		}
	}
}

static int run_command(char **cmd)
{
	int status, forwarded = 0;
	pid_t pid, w;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		tool_die("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool_name, cmd[0], strerror(errno));
		_exit(127);
	}
	for (;;) {
		w = waitpid(pid, &status, 0);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			tool_die("cannot wait for '%s': %s", cmd[0], strerror(errno));
		/* Ctrl-C reaches the command too; SIGTERM to us is passed on. */
		if (tool_stop && !forwarded) {
			kill(pid, tool_stop == SIGINT ? SIGINT : SIGTERM);
			forwarded = 1;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		tool_warn("'%s' exited with status %d", cmd[0], WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && !tool_stop)
		tool_warn("'%s' was killed by signal %d", cmd[0], WTERMSIG(status));
	return 0;
}

static __attribute__((noreturn)) void do_trace(struct ftk_probe_opts *o, char **specs,
						int nspecs, const char *instance, double secs,
						char **cmd)
{
	struct ftk_tracefs *top, *inst;
	char group[64], name[96], file[200], **deleted, *trace, *line, *next;
	struct ftk_probe *probes[64];
	long hits[64] = { 0 };
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
	top = tool_tracefs(NULL, 0);
	deleted = calloc(1, sizeof(char *));
	if (deleted && ftk_probe_gc(top, &deleted) > 0)
		print_deleted(deleted);
	ftk_list_free(deleted);

	for (i = 0; i < nspecs && !tool_stop; i++)
		if (ftk_probe_create(probes[i], top, FTK_PROBE_JOURNAL))
			tool_die("%s", ftk_probe_errmsg(probes[i]));
	if (!instance) {
		snprintf(name, sizeof(name), FTK_PROBE_GROUP "-probe-%s",
			 group + strlen(FTK_PROBE_GROUP "_"));
		instance = name;
	}
	inst = tool_tracefs(instance, FTK_TRACEFS_CREATE);
	/*
	 * Leave ftprobe's own doings out (its writes to tracefs would hit a kprobe on
	 * open): set before anything is enabled.
	 */
	if (o->pid <= 0 && !tool_stop && ftk_tracefs_exists(inst, "set_event_notrace_pid")) {
		char self[16];

		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (ftk_tracefs_set(inst, "set_event_notrace_pid", self))
			tool_warn("%s", ftk_tracefs_errmsg(inst));
	}
	for (i = 0; i < nspecs && !tool_stop; i++) {
		snprintf(file, sizeof(file), "events/%s/%s/enable", ftk_probe_group(probes[i]),
			 ftk_probe_name(probes[i]));
		if (ftk_tracefs_set(inst, file, "1"))
			tool_die("cannot enable %s:%s: %s", ftk_probe_group(probes[i]),
				 ftk_probe_name(probes[i]), ftk_tracefs_errmsg(inst));
	}
	/* -p: only that process's threads (set_event_pid takes thread ids). */
	if (o->pid > 0 && !tool_stop) {
		pid_t *tids = NULL;
		size_t nr = 0, k, len = 0;
		char *pids;
		int err = ftk_perf_threads(o->pid, 0, &tids, &nr);

		if (err)
			tool_die("cannot read '/proc/%d/task': %s", o->pid, strerror(-err));
		/* Every thread, however many: 11 bytes each at most ("2147483647 "). */
		pids = malloc(nr * 12 + 1);
		if (!pids)
			tool_die("out of memory");
		pids[0] = '\0';
		for (k = 0; k < nr; k++)
			len += sprintf(pids + len, "%d ", (int)tids[k]);
		free(tids);
		if (ftk_tracefs_set(inst, "set_event_pid", pids))
			tool_die("%s", ftk_tracefs_errmsg(inst));
		free(pids);
	}
	if (!tool_stop && ftk_tracefs_set(inst, "tracing_on", "1"))
		tool_die("%s", ftk_tracefs_errmsg(inst));

	if (!tool_stop) {
		if (cmd && cmd[0]) {
			if (run_command(cmd))
				tool_die("cannot run '%s'", cmd[0]);
		} else {
			if (ftk_log_level() >= FTK_LOG_WARN)
				fprintf(stderr, "Tracing %d probe%s in instance %s%s... Ctrl-C to end.\n",
					nspecs, nspecs == 1 ? "" : "s", instance,
					secs > 0 ? " for a while" : "");
			sleep_until_stop(secs);
		}
	}
	/* Stop the buffer, then print what it holds. */
	if (ftk_tracefs_set(inst, "tracing_on", "0"))
		tool_warn("%s", ftk_tracefs_errmsg(inst));
	if (ftk_tracefs_read(inst, "trace", &trace))
		tool_die("cannot read %s", ftk_tracefs_errmsg(inst));
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
	tool_exit(EXIT_OK);
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

int main(int argc, char **argv)
{
	enum { OPT_ALL = 256, OPT_GC };
	static const struct option opts[] = {
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
		{ "instance",		required_argument,	NULL, 'B' },
		{ "quiet",		no_argument,		NULL, 'q' },
		{ "verbose",		no_argument,		NULL, 'v' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ftk_probe_opts o = { .sz = sizeof(o) };
	const char *instance = NULL;
	char **cmd = NULL, *end, **deleted;
	int c, i, all = 0, nmodes = 0, ret;
	enum mode mode = M_ADD;
	double secs = 0;
	long pid;

	tool_init("ftprobe");
	/* Everything after "--" is the command of -t. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			cmd = argv + i + 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	}
	while ((c = getopt_long(argc, argv, "ats:dDlng:x:p:B:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			mode = M_ADD, nmodes++;
			break;
		case 't':
			mode = M_TRACE, nmodes++;
			break;
		case 'd':
			mode = M_DELETE, nmodes++;
			break;
		case 'D':
			mode = M_DELETE_GROUP, nmodes++;
			break;
		case 'l':
			mode = M_LIST, nmodes++;
			break;
		case OPT_GC:
			mode = M_GC, nmodes++;
			break;
		case 'n':
			mode = M_DRY, nmodes++;
			break;
		case 's':
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || *end || secs <= 0 || secs > 1e6)
				tool_usage_error("bad duration '%s'", optarg);
			break;
		case 'g':
			o.group = optarg;
			break;
		case OPT_ALL:
			all = 1;
			break;
		case 'x':
			o.binary = optarg;
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > 0x3fffffff)
				tool_usage_error("bad pid '%s'", optarg);
			o.pid = (int)pid;
			break;
		case 'B':
			instance = optarg;
			break;
		case 'q':
			tool_verbose(-1);
			break;
		case 'v':
			tool_verbose(1);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (nmodes > 1)
		tool_usage_error("give one of -a, -t, -d, -D, -l, --gc, -n");
	if (cmd && mode != M_TRACE)
		tool_usage_error("a COMMAND after '--' goes with -t");
	if (secs > 0 && (mode != M_TRACE || cmd))
		tool_usage_error("--duration goes with -t and no COMMAND");
	if (instance && mode != M_TRACE)
		tool_usage_error("-B goes with -t (probes are defined at the top level)");
	if (instance && (!*instance || strchr(instance, '/')))
		tool_usage_error("bad instance name '%s'", instance);
	if (all && mode != M_DELETE && mode != M_DELETE_GROUP && mode != M_LIST)
		tool_usage_error("--all goes with -d, -D or -l");
	if (all && o.group)
		tool_usage_error("give -g GROUP or --all, not both");

	switch (mode) {
	case M_ADD:
	case M_TRACE:
	case M_DRY:
		if (optind == argc)
			tool_usage_error("no probe given");
		break;
	case M_DELETE:
		if (optind == argc)
			tool_usage_error("no event to remove given");
		break;
	default:
		if (optind != argc)
			tool_usage_error("unexpected argument '%s'", argv[optind]);
	}

	switch (mode) {
	case M_DRY:
		for (i = optind; i < argc; i++) {
			struct ftk_probe *p = parse_spec(argv[i], &o);
			char *def = ftk_probe_command(p);

			if (!def)
				tool_die("out of memory");
			puts(def);
			free(def);
			ftk_probe_free(p);
		}
		tool_exit(EXIT_OK);
	case M_ADD:
		do_add(&o, argv + optind, argc - optind);
	case M_TRACE:
		do_trace(&o, argv + optind, argc - optind, instance, secs, cmd);
	case M_DELETE:
		do_delete(o.group ? o.group : FTK_PROBE_GROUP, all, argv + optind, argc - optind);
	case M_LIST:
		do_list(tool_tracefs(NULL, 0), all ? NULL : o.group);
		tool_exit(EXIT_OK);
	case M_DELETE_GROUP:
	case M_GC: {
		struct ftk_tracefs *top = tool_tracefs(NULL, 0);

		deleted = calloc(1, sizeof(char *));
		if (!deleted)
			tool_die("out of memory");
		ret = ftk_probe_gc(top, &deleted);
		if (ret >= 0 && mode == M_DELETE_GROUP)
			ret = ftk_probe_delete_group(top, o.group, all ? FTK_PROBE_ALL : 0,
						     &deleted);
		print_deleted(deleted);
		ftk_list_free(deleted);
		if (ret < 0)
			tool_die("cannot remove: %s", ftk_tracefs_errmsg(top));
		tool_exit(EXIT_OK);
	}
	}
	return EXIT_OK;
}
