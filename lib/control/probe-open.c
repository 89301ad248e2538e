// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe-open: probes that name the path of every open(2) and openat(2)
 * from the call itself, for ftopensnoop and whoever pairs a path with the
 * syscalls:sys_enter_open(at) event (which has only the pointer).
 *
 * In order of preference:
 *   1. eprobes on syscalls:sys_enter_openat and sys_enter_open that fetch
 *	the user string: every open of every task, in the kernel;
 *   2. uprobes at the syscall instructions that make openat or open in the
 *	dynamic loader, libc and the executable (a static one), fetching the
 *	path from the register the syscall takes it in: a locked-down kernel
 *	has uprobes but neither eprobes nor kprobes;
 *   3. uprobes at libc's open functions where no such instruction is found.
 * An open none of them reaches (a raw syscall in a dynamically linked
 * program's own code, another libc) has no path: the caller says so,
 * rather than guess one from a descriptor that may have been reused.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ftkit/probe.h>

#include "internal.h"
#include "elf-local.h"

#define SITES_MAX	32	/* syscall instructions per file and syscall */

struct open_probes {
	struct ftk_tracefs	*t;
	const char		*group;
	int			pid;
	struct ftk_path_probe	*v;
	size_t			nr;
	char			*why;
	size_t			len;
};

static void why_add(struct open_probes *o, const char *fmt, const char *what, const char *reason)
	__attribute__((format(printf, 2, 0)));

/* Append "; WHAT: REASON" to the caller's text of what was not reached. */
static void why_add(struct open_probes *o, const char *fmt, const char *what, const char *reason)
{
	size_t n = strlen(o->why);

	if (!o->len || n + 1 >= o->len)
		return;
	snprintf(o->why + n, o->len - n, "%s", n ? "; " : "");
	n = strlen(o->why);
	snprintf(o->why + n, o->len - n, fmt, what, reason);
}

/* Make the probe of @spec as GROUP:opathN and add it to the list: 0 or a negative errno. */
static int add(struct open_probes *o, const char *spec, int nr, int at_enter, char *err,
	       size_t errlen)
{
	FTK_OPTS(ftk_probe_opts, po, .group = o->group, .pid = o->pid);
	struct ftk_path_probe *v;
	struct ftk_probe *p;
	char name[32];
	int ret;

	v = realloc(o->v, (o->nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	o->v = v;
	p = ftk_probe_new();
	if (!p)
		return -ENOMEM;
	snprintf(name, sizeof(name), "opath%zu", o->nr);
	po.name = name;
	ret = ftk_probe_parse(p, spec, &po);
	if (!ret)
		ret = ftk_probe_create(p, o->t, FTK_PROBE_JOURNAL);
	if (ret) {
		snprintf(err, errlen, "%s", ftk_probe_errmsg(p));
	} else {
		v = &o->v[o->nr++];
		memset(v, 0, sizeof(*v));
		snprintf(v->event, sizeof(v->event), "%s:%s", ftk_probe_group(p),
			 ftk_probe_name(p));
		v->nr = nr;
		v->at_enter = at_enter;
	}
	ftk_probe_free(p);
	return ret;
}

/* 1: eprobes on both sys_enter events (or openat's where open has none). */
static int eprobes(struct open_probes *o)
{
	static const struct { const char *event; int nr; } ev[] = {
		{ "syscalls.sys_enter_openat", SYS_openat },
#ifdef SYS_open
		{ "syscalls.sys_enter_open", SYS_open },
#endif
	};
	char spec[256], err[512];
	size_t i, had = o->nr;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		snprintf(spec, sizeof(spec), "e %s path=+0($filename):ustring ptr=$filename:x64",
			 ev[i].event);
		if (add(o, spec, ev[i].nr, 1, err, sizeof(err)) && !i) {
			why_add(o, "%s: %s", "eprobes", err);
			return 0;
		}
	}
	return o->nr > had;
}

/* 2: uprobes at @path's syscall instructions of openat and open. -1: no such file. */
static int sites(struct open_probes *o, const char *path)
{
	static const struct { int nr; const char *reg; } sc[] = {
		{ SYS_openat, "%si" },
#ifdef SYS_open
		{ SYS_open, "%di" },
#endif
	};
	char spec[PATH_MAX + 128], err[512];
	uint64_t off[SITES_MAX];
	struct elf_file e;
	int made = 0;
	long n, k;
	size_t i;

	if (elf_open_code(path, &e, err, sizeof(err)))
		return -1;
	for (i = 0; i < ARRAY_SIZE(sc); i++) {
		n = elf_syscall_sites(&e, sc[i].nr, off, SITES_MAX);
		for (k = 0; k < n && k < SITES_MAX; k++) {
			/* the number too: the caller drops a hit whose %ax is not it */
			snprintf(spec, sizeof(spec), "%s:%#llx path=+0(%s):string ptr=%s:x64 "
				 "nr=%%ax:s64", path, (unsigned long long)off[k], sc[i].reg,
				 sc[i].reg);
			if (add(o, spec, sc[i].nr, 0, err, sizeof(err)))
				why_add(o, "%s: %s", path, err);
			else
				made++;
		}
	}
	elf_close(&e);
	return made;
}

/* 3: uprobes at the entry of libc's open functions, the path in their argument. */
static int libc_functions(struct open_probes *o, const char *libc)
{
	static const struct { const char *sym; const char *reg; } fn[] = {
		{ "open", "%di" }, { "openat", "%si" }, { "__open_nocancel", "%di" },
	};
	char spec[PATH_MAX + 128], err[512];
	int made = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		snprintf(spec, sizeof(spec), "%s:%s path=+0(%s):string ptr=%s:x64", libc, fn[i].sym,
			 fn[i].reg, fn[i].reg);
		if (add(o, spec, -1, 0, err, sizeof(err)))
			why_add(o, "%s: %s", fn[i].sym, err);
		else
			made++;
	}
	return made;
}

/* @name found through PATH as execvp() would; 0, or -ENOENT. */
static int path_search(const char *name, char *buf, size_t len)
{
	const char *env = getenv("PATH"), *p, *end;

	if (strchr(name, '/'))
		return realpath(name, buf) && strlen(buf) < len ? 0 : -ENOENT;
	for (p = env ? env : "/usr/local/bin:/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		char try[PATH_MAX];

		end = strchrnul(p, ':');
		snprintf(try, sizeof(try), "%.*s%s%s", (int)(end - p), end > p ? p : ".",
			 "/", name);
		if (!access(try, X_OK) && realpath(try, buf))
			return 0;
	}
	return -ENOENT;
}

/* The resolved paths already scanned: each file once. */
static int seen(char (*done)[PATH_MAX], int *ndone, const char *path)
{
	int i;

	for (i = 0; i < *ndone; i++)
		if (!strcmp(done[i], path))
			return 1;
	if (*ndone < 4)
		snprintf(done[(*ndone)++], PATH_MAX, "%s", path);
	return 0;
}

/**
 * ftk_probe_open_paths() - probes that name the paths of open and openat
 * @t: the top-level tracefs handle the probes are made in (journaled:
 *     ftk_tracefs_restore() removes them)
 * @opts: the group (NULL: ftk_probe_owner_group()), the process (pid) or
 *	  the command's executable (exe, searched in PATH) whose loader, libc
 *	  and own code are probed; both unset: the tool's own loader and libc
 * @out: receives the events, an array to free() (empty, not NULL, when
 *	 none could be made)
 * @why: receives what was not reached and why ("" when all was), for -v
 * @len: the size of @why
 *
 * Each event has a "path" string and "ptr", the user pointer it was read
 * from, equal to the syscall's filename argument. An eprobe's event
 * (at_enter) follows its sys_enter event; a uprobe's comes just before
 * its syscall on the same thread, and after ftk_probe_open_paths() made
 * it at a syscall instruction (nr >= 0) it also has "nr", the number in
 * %ax, which the caller checks against @nr before trusting the path.
 *
 * Return: the number of events, or a negative errno (-ENOMEM).
 */
FTK_API long ftk_probe_open_paths(struct ftk_tracefs *t, const struct ftk_path_probe_opts *opts,
				  struct ftk_path_probe **out, char *why, size_t len)
{
	struct open_probes o = { .t = t, .why = why, .len = len };
	char group[64], exe[PATH_MAX], interp[PATH_MAX], real[PATH_MAX], done[4][PATH_MAX];
	struct ftk_path_probe_opts op = { 0 };
	char *libc = NULL;
	struct elf_file e;
	int ndone = 0, libc_sites = 0, pid;
	const char *cmd;

	*out = NULL;
	if (len)
		*why = '\0';
	if (opts)
		memcpy(&op, opts, opts->sz < sizeof(op) ? opts->sz : sizeof(op));
	cmd = op.exe;
	pid = op.pid;
	o.pid = pid;
	o.group = op.group;
	if (!o.group) {
		if (ftk_probe_owner_group(group, sizeof(group)))
			return ftk_err(-ENAMETOOLONG);
		o.group = group;
	}
	if (eprobes(&o))
		goto out;
	/* the executable: of the process, the command, or ourselves */
	if (pid > 0) {
		snprintf(real, sizeof(real), "/proc/%d/exe", pid);
		if (!realpath(real, exe))
			*exe = '\0';
	} else if (!cmd || path_search(cmd, exe, sizeof(exe))) {
		if (!realpath("/proc/self/exe", exe))
			*exe = '\0';
	}
	*interp = '\0';
	if (*exe && !elf_open(exe, &e, real, sizeof(real))) {
		if (elf_interp(&e, real, sizeof(real)) <= 0 || !realpath(real, interp))
			*interp = '\0';
		elf_close(&e);
	}
	if (*interp && !seen(done, &ndone, interp) && sites(&o, interp) <= 0)
		why_add(&o, "%s: %s", interp, "no open or openat syscall instruction found");
	if (!ftk_probe_find_library(pid > 0 ? pid : getpid(), "libc.so.6", &libc) &&
	    realpath(libc, real) && !seen(done, &ndone, real))
		libc_sites = sites(&o, real);
	if (libc && libc_sites <= 0 && !libc_functions(&o, libc))
		why_add(&o, "%s: %s", libc, "neither its syscall instructions nor its functions");
	/* a static executable makes its own syscalls; a dynamic one seldom has any */
	if (*exe && !seen(done, &ndone, exe))
		sites(&o, exe);
	free(libc);
out:
	if (!o.v && !(o.v = calloc(1, sizeof(*o.v))))
		return ftk_err(-ENOMEM);
	*out = o.v;
	return o.nr;
}
