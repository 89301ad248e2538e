// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftopensnoop: every open(2) and openat(2) with its task, flags, result
 * and path, as perf-tools' and bcc's opensnoop.
 *
 * The syscall events give the flags and the result but only a pointer to
 * the path: the path comes from probes on the call itself (eprobes on the
 * syscall events, or uprobes at the syscall instructions of the loader,
 * libc and the executable: ftk_probe_open_paths()), matched to the
 * syscall by thread and pointer. An open none of them reaches is shown
 * with the path "[unknown]" (null in JSON): never a path read from /proc
 * for a descriptor that may have been closed and reused since.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat.h"

#define SLOTS	1024	/* opens in flight, by thread */
#define PROBES	64	/* path probes (ftk_probe_open_paths()) */

struct inflight {
	int		tid, probe_tid, have_probe;
	long long	flags;
	uint64_t	ptr, ts, probe_ptr;
	char		path[256];	/* the probe's, for the syscall with its pointer */
};

struct opensnoop {
	struct lat		l;
	struct inflight		slot[SLOTS];
	int			enter_id[2], exit_id[2], probe_id[PROBES], probe_nr[PROBES];
	struct tep_format_field	*e_ptr[2], *e_flags[2], *x_ret[2], *u_ptr[PROBES],
				*u_path[PROBES], *u_nr[PROBES];
	int			failed_only, nprobes;
	const char		*name;
	uint64_t		shown, opens, pathless;
};

static const char usage[] =
"usage: ftopensnoop [-tx] [-n NAME] [-p PID] [-D SECS] [--json] [-B NAME]\n"
"                   [[--] COMMAND [ARG...]]\n"
"\n"
"Print every open and openat: the task, the flags, the result (a file\n"
"descriptor, or the errno) and the path.\n"
"\n"
"  -x, --failed          failed opens only\n"
LAT_HELP_TIMESTAMP
"  -n, --name NAME       only tasks whose command name contains NAME\n"
LAT_HELP_PID
LAT_HELP_D
LAT_HELP_JSON
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftopensnoop -x -D 10          # failed opens of the system for ten seconds\n"
"  ftopensnoop -p 1234           # the opens of process 1234\n"
"  ftopensnoop -t -- make -j2    # the opens of a build\n";

static void option(int opt, char *arg, void *ctx)
{
	struct opensnoop *o = ctx;

	switch (opt) {
	case 'x': o->failed_only = 1; break;
	case 'n': o->name = arg; break;
	}
}

static struct inflight *slot_of(struct opensnoop *o, int tid)
{
	return &o->slot[(unsigned int)tid % SLOTS];
}

static void flags_text(long long f, char *buf, size_t len)
{
	static const struct { int bit; const char *name; } names[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_NONBLOCK, "O_NONBLOCK" },
		{ O_DIRECTORY, "O_DIRECTORY" }, { O_NOFOLLOW, "O_NOFOLLOW" },
		{ O_CLOEXEC, "O_CLOEXEC" }, { O_DIRECT, "O_DIRECT" }, { O_PATH, "O_PATH" },
	};
	size_t i, n;

	n = snprintf(buf, len, "%s", (f & O_ACCMODE) == O_RDONLY ? "O_RDONLY" :
		     (f & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDWR");
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if ((f & names[i].bit) == names[i].bit)
			n += snprintf(buf + n, len - n, "|%s", names[i].name);
}

/* The open of slot @s ended with @ret; @have_path: a probe named its path. */
static void show(struct opensnoop *o, const struct tep_record *rec, struct inflight *s, long long ret,
		 int have_path)
{
	char comm[32], ecomm[128], flags[160];

	ftk_session_comm(o->l.s, s->tid, comm, sizeof(comm));
	if (o->name && !strstr(comm, o->name))
		return;
	o->pathless += !have_path;
	flags_text(s->flags, flags, sizeof(flags));
	o->shown++;
	if (o->l.opt.json) {
		printf("{\"time\":%.6f,\"pid\":%d,\"comm\":", lat_since_start(&o->l, rec->ts), s->tid);
		ftk_json_str(stdout, comm, sizeof(comm));
		printf(",\"fd\":%lld,\"errno\":%lld,\"flags\":%lld,\"path\":", ret < 0 ? -1 : ret,
		       ret < 0 ? -ret : 0, s->flags);
		if (have_path)
			ftk_json_str(stdout, s->path, sizeof(s->path));
		else
			fputs("null", stdout);
		printf("}\n");
	} else {
		if (o->l.opt.stamps)
			printf("%-12.6f ", lat_since_start(&o->l, rec->ts));
		/* a newline or escape in a name or a path must not forge a line */
		ftk_text_escape(ecomm, sizeof(ecomm), comm, sizeof(comm));
		printf("%-7d %-16s %4lld %3lld %-24s ", s->tid, ecomm, ret < 0 ? -1 : ret,
		       ret < 0 ? -ret : 0, flags);
		if (have_path)
			ftk_text_str(stdout, s->path, sizeof(s->path));
		else
			fputs("[unknown]", stdout);
		putchar('\n');
	}
	lat_check_out(&o->l);
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct opensnoop *o = ctx;
	int type = lat_type(&o->l, rec), tid = ftk_record_pid(rec), i, len;
	struct inflight *s = slot_of(o, tid);
	const char *p;

	for (i = 0; i < o->nprobes; i++) {
		if (type != o->probe_id[i])
			continue;
		/* at a syscall instruction: only if it is the syscall the probe was made for */
		if (o->u_nr[i] && ftk_record_num(rec, o->u_nr[i]) != o->probe_nr[i])
			return 0;
		/*
		 * The path of this thread's open: a uprobe's comes just before
		 * its sys_enter, an eprobe's just after; the exit pairs it
		 * with the syscall whose pointer it has.
		 */
		s->probe_tid = tid;
		s->probe_ptr = ftk_record_num(rec, o->u_ptr[i]);
		p = ftk_record_str(rec, o->u_path[i], &len);
		snprintf(s->path, sizeof(s->path), "%.*s", len, p);
		s->have_probe = 1;
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if (type == o->enter_id[i]) {
			s->tid = tid;
			s->ptr = ftk_record_num(rec, o->e_ptr[i]);
			s->flags = ftk_record_num(rec, o->e_flags[i]);
			s->ts = rec->ts;
			return 0;
		}
		if (type == o->exit_id[i]) {
			long long ret = ftk_record_num(rec, o->x_ret[i]);
			int have = s->have_probe && s->probe_tid == tid && s->probe_ptr == s->ptr;

			if (s->tid != tid || !s->ts)
				return 0;	/* its entry came before tracing began */
			o->opens++;
			if (!o->failed_only || ret < 0)
				show(o, rec, s, ret, have);
			s->ts = 0;
			s->have_probe = 0;
			return 0;
		}
	}
	return 0;
}

/*
 * The probes that name the paths (ftk_probe_open_paths()), enabled in the
 * instance: made before the formats are read.
 */
static void path_probes(struct opensnoop *o, struct ftk_path_probe **pp, char **argv)
{
	FTK_OPTS(ftk_path_probe_opts, po, .pid = o->l.opt.pid, .exe = argv ? argv[0] : NULL);
	char why[2048];
	long n, i;

	n = ftk_probe_open_paths(o->l.top, &po, pp, why, sizeof(why));
	if (n < 0)
		tool_die("out of memory");
	if (n > PROBES)
		n = PROBES;
	if (*why)
		lat_path(&o->l, "paths not reached: %s", why);
	if (!n)
		tool_warn("no probe names the paths here: they show as [unknown]");
	for (i = 0; i < n; i++)
		lat_event(&o->l, (*pp)[i].event, NULL);
	o->nprobes = n;
}

static void path_probes_find(struct opensnoop *o, const struct ftk_path_probe *pp)
{
	char sys[128], *name;
	struct tep_event *ev;
	int i;

	for (i = 0; i < o->nprobes; i++) {
		snprintf(sys, sizeof(sys), "%s", pp[i].event);
		name = strchr(sys, ':');
		if (!name)
			tool_die("bad probe event '%s'", pp[i].event);
		*name++ = '\0';
		ev = lat_find(&o->l, sys, name);
		o->probe_id[i] = ev->id;
		o->probe_nr[i] = pp[i].nr;
		o->u_ptr[i] = lat_field(&o->l, ev, "ptr");
		o->u_path[i] = lat_field(&o->l, ev, "path");
		o->u_nr[i] = pp[i].nr >= 0 && !pp[i].at_enter ? lat_field(&o->l, ev, "nr") : NULL;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "failed", no_argument, NULL, 'x' },	{ "name", required_argument, NULL, 'n' },
		{ }
	};
	static const struct lat_def def = {
		.name = "ftopensnoop", .usage = usage, .opts = "xn:", .longopts = longopts,
		.option = option, .shared = LAT_OPT_TIMESTAMP | LAT_OPT_PID | LAT_OPT_JSON,
	};
	static const char *const sc[2] = { "openat", "open" };
	struct tool_args args;
	static struct opensnoop o = { .l.name = "opensnoop" };
	struct ftk_path_probe *pp;
	struct tep_event *ev;
	char event[64];
	int code, i;

	lat_parse(&o.l, &def, argc, argv, &args, &o);
	lat_open(&o.l, &args, o.l.opt.pid);
	for (i = 0; i < 2; i++) {
		snprintf(event, sizeof(event), "syscalls:sys_enter_%s", sc[i]);
		lat_event(&o.l, event, NULL);
		snprintf(event, sizeof(event), "syscalls:sys_exit_%s", sc[i]);
		lat_event(&o.l, event, NULL);
	}
	path_probes(&o, &pp, args.argv);
	path_probes_find(&o, pp);
	for (i = 0; i < 2; i++) {
		snprintf(event, sizeof(event), "sys_enter_%s", sc[i]);
		ev = lat_find(&o.l, "syscalls", event);
		o.enter_id[i] = ev->id;
		o.e_ptr[i] = lat_field(&o.l, ev, "filename");
		o.e_flags[i] = lat_field(&o.l, ev, "flags");
		snprintf(event, sizeof(event), "sys_exit_%s", sc[i]);
		ev = lat_find(&o.l, "syscalls", event);
		o.exit_id[i] = ev->id;
		o.x_ret[i] = lat_field(&o.l, ev, "ret");
	}
	lat_path(&o.l, "stream: syscalls:sys_enter/exit_open(at) paired by thread, paths from %d "
		 "%s matched by pointer", o.nprobes, o.nprobes && pp[0].at_enter ?
		 "eprobes on sys_enter" : "uprobes at the loader's, libc's and the program's opens");
	free(pp);
	if (!o.l.opt.json)
		printf("%s%-7s %-16s %4s %3s %-24s %s\n", o.l.opt.stamps ? "TIME(s)      " : "", "PID",
		       "COMM", "FD", "ERR", "FLAGS", "PATH");
	code = lat_run(&o.l, on_record, &o, NULL, 0);
	if (!o.l.opt.json)
		lat_lost_print(&o.l, stdout);
	lat_path(&o.l, "%llu opens, %llu shown, %llu without a path (shown [unknown])",
		 (unsigned long long)o.opens, (unsigned long long)o.shown,
		 (unsigned long long)o.pathless);
	lat_check_out(&o.l);
	tool_exit(code);
}
