// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftopensnoop: every open(2) and openat(2) with its task, flags, result
 * and path, as perf-tools' and bcc's opensnoop.
 *
 * The syscall events give the flags and the result but only a pointer to
 * the path: the path comes from uprobes on libc's open functions (which
 * work on a locked-down kernel, where kprobes do not), matched to the
 * syscall by thread and pointer. An open not made through libc (a static
 * binary, a raw syscall) shows the path of the descriptor it returned,
 * read from /proc while the task lives, or "?".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lat.h"

#define SLOTS	1024	/* opens in flight, by thread */

struct inflight {
	int		tid, dfd, have_path;
	long long	flags;
	uint64_t	ptr, ts;
	char		path[256];
};

struct os {
	struct lat		l;
	struct inflight		slot[SLOTS];
	int			enter_id[2], exit_id[2], probe_id[3];
	struct tep_format_field	*e_ptr[2], *e_flags[2], *e_dfd, *x_ret[2], *u_ptr[3], *u_path[3];
	int			failed_only, nprobes;
	const char		*name;
	uint64_t		first_ts, shown, opens, pathless;
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
	struct os *o = ctx;

	switch (opt) {
	case 'x': o->failed_only = 1; break;
	case 'n': o->name = arg; break;
	}
}

static const struct { const char *sym; int arg; } libc_fn[3] = {
	{ "open", 1 }, { "openat", 2 }, { "__open_nocancel", 1 },
};

static struct inflight *slot_of(struct os *o, int tid)
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

static void show(struct os *o, const struct tep_record *rec, struct inflight *s, long long ret)
{
	char comm[32], flags[160], fdpath[64], path[4096];
	ssize_t n;

	lat_comm(&o->l, s->tid, comm, sizeof(comm));
	if (o->name && !strstr(comm, o->name))
		return;
	if (s->have_path) {
		snprintf(path, sizeof(path), "%s", s->path);
	} else {
		/* not through libc: the path of the descriptor, while it is open */
		snprintf(fdpath, sizeof(fdpath), "/proc/%d/fd/%lld", s->tid, ret);
		n = ret >= 0 ? readlink(fdpath, path, sizeof(path) - 1) : -1;
		snprintf(path + (n > 0 ? n : 0), sizeof(path) - (n > 0 ? n : 0), "%s",
			 n > 0 ? "" : "?");
		o->pathless++;
	}
	flags_text(s->flags, flags, sizeof(flags));
	o->shown++;
	if (o->l.opt.json) {
		printf("{\"time\":%.6f,\"pid\":%d,\"comm\":", (rec->ts - o->first_ts) / 1e9, s->tid);
		ftk_json_str(stdout, comm, sizeof(comm));
		printf(",\"fd\":%lld,\"errno\":%lld,\"flags\":%lld,\"path\":", ret < 0 ? -1 : ret,
		       ret < 0 ? -ret : 0, s->flags);
		ftk_json_str(stdout, path, sizeof(path));
		printf("}\n");
	} else {
		if (o->l.opt.stamps)
			printf("%-12.6f ", (rec->ts - o->first_ts) / 1e9);
		printf("%-7d %-16s %4lld %3lld %-24s %s\n", s->tid, comm, ret < 0 ? -1 : ret,
		       ret < 0 ? -ret : 0, flags, path);
	}
	lat_check_out(&o->l);
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct os *o = ctx;
	int type = tep_data_type(o->l.tep, (struct tep_record *)rec), tid = lat_pid(rec), i, len;
	struct inflight *s = slot_of(o, tid);
	const char *p;

	if (!o->first_ts)
		o->first_ts = rec->ts;
	for (i = 0; i < o->nprobes; i++) {
		if (type != o->probe_id[i])
			continue;
		/* libc was asked to open a path: keep it for the syscall that follows */
		s->tid = tid;
		s->ptr = lat_num(rec, o->u_ptr[i]);
		p = lat_str(rec, o->u_path[i], &len);
		snprintf(s->path, sizeof(s->path), "%.*s", len, p);
		s->have_path = -1;	/* a path, not yet matched to a syscall */
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if (type == o->enter_id[i]) {
			uint64_t ptr = lat_num(rec, o->e_ptr[i]);

			s->have_path = s->tid == tid && s->have_path == -1 && s->ptr == ptr;
			s->tid = tid;
			s->ptr = ptr;
			s->flags = lat_num(rec, o->e_flags[i]);
			s->ts = rec->ts;
			return 0;
		}
		if (type == o->exit_id[i]) {
			long long ret = lat_num(rec, o->x_ret[i]);

			if (s->tid != tid || !s->ts)
				return 0;	/* its entry came before tracing began */
			o->opens++;
			if (!o->failed_only || ret < 0)
				show(o, rec, s, ret);
			s->ts = 0;
			s->have_path = 0;
			return 0;
		}
	}
	return 0;
}

/* Uprobes on libc's open functions, with the path and its pointer: made before the formats are read. */
static void libc_probes(struct os *o, int made[3])
{
	char *libc = NULL, spec[4096], name[32], why[512];
	size_t i;

	if (ftk_probe_find_library(o->l.opt.pid > 0 ? o->l.opt.pid : getpid(), "libc.so.6", &libc)) {
		tool_warn("no libc found: paths from /proc only");
		return;
	}
	for (i = 0; i < 3; i++) {
		snprintf(spec, sizeof(spec), "%s:%s ptr=$arg%d:x64 path=+0($arg%d):string", libc,
			 libc_fn[i].sym, libc_fn[i].arg, libc_fn[i].arg);
		snprintf(name, sizeof(name), "open%zu", i);
		made[i] = !lat_uprobe(&o->l, spec, name, why, sizeof(why));
		if (!made[i])
			tool_warn("no uprobe on %s (%s): its paths from /proc only", libc_fn[i].sym,
				  why);
	}
	free(libc);
}

static void libc_probes_find(struct os *o, const int made[3])
{
	char name[32], group[64];
	struct tep_event *ev;
	int i;

	ftk_probe_owner_group(group, sizeof(group));
	for (i = 0; i < 3; i++) {
		if (!made[i])
			continue;
		snprintf(name, sizeof(name), "open%d", i);
		ev = lat_find(&o->l, group, name);
		o->probe_id[o->nprobes] = ev->id;
		o->u_ptr[o->nprobes] = lat_field(&o->l, ev, "ptr");
		o->u_path[o->nprobes++] = lat_field(&o->l, ev, "path");
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
	static struct os o = { .l.name = "opensnoop" };
	struct tep_event *ev;
	char event[64];
	int code, i, made[3] = { 0 };

	lat_parse(&o.l, &def, argc, argv, &args, &o);
	lat_open(&o.l, &args, o.l.opt.pid);
	for (i = 0; i < 2; i++) {
		snprintf(event, sizeof(event), "syscalls:sys_enter_%s", sc[i]);
		lat_event(&o.l, event, NULL);
		snprintf(event, sizeof(event), "syscalls:sys_exit_%s", sc[i]);
		lat_event(&o.l, event, NULL);
	}
	libc_probes(&o, made);
	libc_probes_find(&o, made);
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
		 "libc uprobes matched by pointer", o.nprobes);
	if (!o.l.opt.json)
		printf("%s%-7s %-16s %4s %3s %-24s %s\n", o.l.opt.stamps ? "TIME(s)      " : "", "PID",
		       "COMM", "FD", "ERR", "FLAGS", "PATH");
	code = lat_run(&o.l, on_record, &o, NULL, 0);
	if (!o.l.opt.json)
		lat_lost_print(&o.l, stdout);
	lat_path(&o.l, "%llu opens, %llu shown, %llu without a libc path",
		 (unsigned long long)o.opens, (unsigned long long)o.shown,
		 (unsigned long long)o.pathless);
	lat_check_out(&o.l);
	lat_exit(&o.l, code);
}
