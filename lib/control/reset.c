// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reset: tracing off every way a tool may have turned it on, back to the
 * kernel's defaults.
 *
 * Order matters: triggers go first (they hold events, other triggers and
 * synthetic events), then the tracer, events, filters and PID lists, then
 * buffers and options. Every step goes on after a failure; the first one is
 * returned.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/reset.h>
#include <ftkit/trigger.h>

#include "internal.h"
#include "tracefs-local.h"

struct reset {
	struct ftk_tracefs	*t;
	struct ftk_tracefs	*fresh;		/* scratch instance with the defaults, or NULL */
	unsigned int		flags;
	ftk_reset_fn		fn;
	void			*arg;
	int			first;		/* first failure */
};

/* The file's name as a user finds it: relative to the tracing directory. */
static void user_name(struct reset *r, const char *file, char *buf, size_t len)
{
	if (r->t->instance)
		snprintf(buf, len, "instances/%s/%s", r->t->instance, file);
	else
		snprintf(buf, len, "%s", file);
}

static void note(struct reset *r, const char *file, const char *old, const char *new_)
{
	char name[PATH_MAX];

	user_name(r, file, name, sizeof(name));
	if (r->fn)
		r->fn(r->arg, name, old, new_);
}

static void failed(struct reset *r, int ret)
{
	pr_warn("%s\n", r->t->errmsg);
	if (!r->first)
		r->first = ret;
}

/* Write @val (truncating, or appending) unless this is a dry run. */
static void change(struct reset *r, const char *file, const char *old, const char *val,
		   const char *shown, int append)
{
	int ret = 0;

	note(r, file, old, shown ? shown : val);
	if (r->flags & FTK_RESET_DRY_RUN)
		return;
	ret = append ? ftk_tracefs_append(r->t, file, val) : ftk_tracefs_write(r->t, file, val);
	if (ret)
		failed(r, ret);
}

/* Read a file's first line into @buf; -errno if it cannot be read. */
static int first_line(struct ftk_tracefs *t, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX], *s;
	int ret;

	if (ftk_tracefs_path(t, file, path, sizeof(path)))
		return -ENAMETOOLONG;
	ret = ftk_read_file(path, &s, NULL);
	if (ret)
		return ret;
	s[strcspn(s, "\n")] = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

/* Set a one-value file to @want when it reads otherwise; @choice: "a [b] c" files. */
static void set_value(struct reset *r, const char *file, const char *want, int choice)
{
	char cur[4096], *c;

	if (!want || first_line(r->t, file, cur, sizeof(cur)))
		return;
	c = choice ? ftk_tracefs_choice(cur) : strdup(cur);
	if (!c)
		return;
	if (!strcmp(file, "buffer_size_kb")) {
		long have, need, page_kb = sysconf(_SC_PAGESIZE) / 1024;
		char sub[32], *x = strstr(c, "expanded: ");

		/* "7 (expanded: 1408)": not yet allocated; 1408 is what it will be. */
		if (x)
			memmove(c, x + 10, strlen(x + 10) + 1);
		/*
		 * The top level keeps the boot default (1408 KiB) while an
		 * instance rounds it up to whole sub-buffers (1410 KiB): sizes
		 * within one sub-buffer are the same, and a plain reset must not
		 * grow (allocate) the buffer of a fresh kernel.
		 */
		if (!first_line(r->t, "buffer_subbuf_size_kb", sub, sizeof(sub)) && atol(sub) > 0)
			page_kb = atol(sub);
		have = atol(c);
		need = atol(want);
		if (labs(have - need) <= (page_kb > 0 ? page_kb : 4)) {
			free(c);
			return;
		}
		c[strspn(c, "0123456789")] = '\0';
	}
	if (strcmp(c, want))
		change(r, file, c, want, NULL, 0);
	free(c);
}

/* The same file's value in the fresh instance: the kernel's default. */
static char *fresh_value(struct reset *r, const char *file, int choice)
{
	char buf[4096];

	if (!r->fresh || first_line(r->fresh, file, buf, sizeof(buf)))
		return NULL;
	if (choice)
		return ftk_tracefs_choice(buf);
	if (!strcmp(file, "buffer_size_kb")) {
		char *x = strstr(buf, "expanded: ");

		if (x)
			memmove(buf, x + 10, strlen(x + 10) + 1);
		buf[strspn(buf, "0123456789")] = '\0';
	}
	return strdup(buf);
}

static void set_default(struct reset *r, const char *file, int choice)
{
	char *want = fresh_value(r, file, choice);

	set_value(r, file, want, choice);
	free(want);
}

/* Empty a list file (PID lists, function filters) unless it is already. */
static void clear_list(struct reset *r, const char *file)
{
	char path[PATH_MAX], *s, *p;
	int n = 0;

	if (ftk_tracefs_path(r->t, file, path, sizeof(path)) || ftk_read_file(path, &s, NULL))
		return;		/* absent, or forbidden here (function filters on lockdown) */
	for (p = s; *p; p = p[strcspn(p, "\n")] ? p + strcspn(p, "\n") + 1 : p + strlen(p))
		if (*p != '#' && *p != '\n' && strncmp(p, "no pid\n", 7) && strcmp(p, "no pid"))
			n++;
	if (n) {
		char old[32];

		snprintf(old, sizeof(old), "%d entr%s", n, n == 1 ? "y" : "ies");
		change(r, file, old, "", "(empty)", 0);
	}
	free(s);
}

static void reset_triggers(struct reset *r)
{
	struct ftk_trigger *v;
	char file[PATH_MAX], *rm;
	size_t nr, i;
	int ret;

	if (ftk_trigger_list(r->t, NULL, &v, &nr))
		return failed(r, -errno);
	ftk_trigger_sort(v, nr);
	for (i = 0; i < nr; i++) {
		if (v[i].event) {
			size_t n = strcspn(v[i].event, ":");

			snprintf(file, sizeof(file), "events/%.*s/%s/trigger", (int)n, v[i].event,
				 v[i].event + n + 1);
		} else {
			snprintf(file, sizeof(file), "set_ftrace_filter");
		}
		note(r, file, v[i].text, "(removed)");
		if (r->flags & FTK_RESET_DRY_RUN)
			continue;
		ret = ftk_trigger_remove(r->t, v[i].event, v[i].text);
		if (ret)
			failed(r, ret);
	}
	(void)rm;
	ftk_trigger_free(v, nr);
}

static void reset_events(struct reset *r)
{
	char **l, old[32];

	if (ftk_event_enabled(r->t, &l))
		return;
	if (*l) {
		snprintf(old, sizeof(old), "%zu enabled", ftk_list_len(l));
		change(r, "events/enable", old, "0", NULL, 0);
	}
	ftk_list_free(l);
	if (ftk_event_filters(r->t, &l))
		return;
	for (char **p = l; *p; p++) {
		char file[PATH_MAX], *tab = strchr(*p, '\t');
		size_t n = strcspn(*p, ":");

		*tab = '\0';
		snprintf(file, sizeof(file), "events/%.*s/%s/filter", (int)n, *p, *p + n + 1);
		change(r, file, tab + 1, "0", "none", 0);
	}
	ftk_list_free(l);
}

/*
 * Options a new instance starts with off whatever the top level has (the
 * kernel's ZEROED_TRACE_FLAGS), with their boot value at the top level.
 */
static const struct {
	const char	*name;
	const char	*top;
} zeroed[] = {
	{ "copy_trace_marker",	"1" },
	{ "event-fork",		"0" },
	{ "function-fork",	"0" },
	{ "trace_printk_dest",	"1" },
};

/*
 * The function tracers' own options (tracer flags), with the kernel's
 * defaults. Until recent kernels made them per instance (Linux 6.1, the VM
 * lane's, does not), each is one flag shared by the top level and every
 * instance: a fresh instance reads what another instance set (func_stack_trace
 * left on by `ftfunc -B NAME -s` put stack traces in every later instance's
 * function trace), so the fresh value cannot tell the default.
 */
static const struct {
	const char	*name;
	const char	*val;
} tracer_flags[] = {
	{ "func-no-repeats",		"0" },
	{ "func_stack_trace",		"0" },
	{ "funcgraph-abstime",		"0" },
	{ "funcgraph-cpu",		"1" },
	{ "funcgraph-duration",		"1" },
	{ "funcgraph-irqs",		"1" },
	{ "funcgraph-overhead",		"1" },
	{ "funcgraph-overrun",		"0" },
	{ "funcgraph-proc",		"0" },
	{ "funcgraph-retaddr",		"0" },
	{ "funcgraph-retval",		"0" },
	{ "funcgraph-retval-hex",	"0" },
	{ "funcgraph-tail",		"0" },
	{ "graph-time",			"1" },
	{ "sleep-time",			"1" },
};

static const char *tracer_flag_default(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracer_flags); i++)
		if (!strcmp(name, tracer_flags[i].name))
			return tracer_flags[i].val;
	return NULL;
}

static void reset_options(struct reset *r)
{
	char path[PATH_MAX], file[PATH_MAX];
	size_t i;
	struct dirent *d;
	DIR *dir;

	if (!r->fresh || ftk_tracefs_path(r->t, "options", path, sizeof(path)))
		return;
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "options/%s", d->d_name);
		for (i = 0; i < ARRAY_SIZE(zeroed); i++)
			if (!strcmp(d->d_name, zeroed[i].name))
				break;
		if (i < ARRAY_SIZE(zeroed) && !r->t->instance)
			set_value(r, file, zeroed[i].top, 0);
		else if (tracer_flag_default(d->d_name))
			set_value(r, file, tracer_flag_default(d->d_name), 0);
		else
			set_default(r, file, 0);
	}
	if (dir)
		closedir(dir);
}

/* Trace data left in the buffer: its entries, summed over the CPUs' stats. */
static long buffered(struct ftk_tracefs *t)
{
	char path[PATH_MAX], *s, *p;
	struct dirent *d;
	long n = 0;
	DIR *dir;

	if (ftk_tracefs_path(t, "per_cpu", path, sizeof(path)) || !(dir = opendir(path)))
		return 0;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", t->dir, d->d_name);
		if (ftk_read_file(path, &s, NULL))
			continue;
		p = strstr(s, "entries: ");
		if (p)
			n += strtol(p + 9, NULL, 10);
		free(s);
	}
	closedir(dir);
	return n;
}

/*
 * Whether the snapshot buffer is allocated: a freed one says so in the
 * first lines of the file; only those are read, not the whole buffer.
 */
static int snapshot_allocated(struct ftk_tracefs *t)
{
	char path[PATH_MAX], buf[1024];
	ssize_t n;
	int fd;

	if (ftk_tracefs_path(t, "snapshot", path, sizeof(path)))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return strstr(buf, "Snapshot is freed") == NULL;
}

static void open_fresh(struct reset *r)
{
	char name[64];

	if (ftk_instance_name("reset", name, sizeof(name)) ||
	    ftk_tracefs_open(r->t->root, name, FTK_TRACEFS_CREATE, &r->fresh)) {
		r->fresh = NULL;
		return;
	}
	if (!ftk_tracefs_exists(r->fresh, "trace_clock")) {	/* not a real tracefs */
		ftk_tracefs_restore(r->fresh);
		ftk_tracefs_close(r->fresh);
		r->fresh = NULL;
	}
}

/**
 * ftk_reset() - put a handle's tracing back to the kernel's defaults
 * @t: the handle: the top level or an instance
 * @flags: FTK_RESET_DRY_RUN to only report
 * @fn: called for each change before it is made, or NULL
 * @arg: passed to @fn
 *
 * Removes every trigger (in the kernel's order), sets the tracer to nop and
 * tracing_on to 1, turns every event off and clears every filter, the event
 * and function PID lists and the function filters, frees the snapshot,
 * clears the trace, and sets trace_clock, buffer_size_kb, buffer_percent,
 * tracing_cpumask and each option to the value a fresh instance has; at the
 * top level also tracing_thresh and max_graph_depth to 0. Files the kernel
 * lacks or forbids reading are left alone. Dynamic events and instances are
 * not touched: see ftk_reset_dynevents() and ftk_instance_remove().
 *
 * An instance a running ftkit process made for itself ("ftkit-TOOL-TAG",
 * see ftk_instance_owner()) is left alone without FTK_RESET_FORCE: -EBUSY,
 * and ftk_tracefs_errmsg() names the owner.
 *
 * Return: 0, or the first failure's negative errno (the others are still
 * tried; each is logged as a warning).
 */
FTK_API int ftk_reset(struct ftk_tracefs *t, unsigned int flags, ftk_reset_fn fn, void *arg)
{
	static const char *const lists[] = {
		"set_event_pid", "set_event_notrace_pid", "set_ftrace_pid",
		"set_ftrace_notrace_pid", "set_ftrace_filter", "set_ftrace_notrace",
		"set_graph_function", "set_graph_notrace",
	};
	struct reset r = { .t = t, .flags = flags, .fn = fn, .arg = arg };
	char entries[32], why[128];
	size_t i;
	long n;

	if (t->instance && !(flags & FTK_RESET_FORCE) && !strncmp(t->instance, "ftkit-", 6) &&
	    strrchr(t->instance, '-') > t->instance + 5 &&
	    ftk_owner_busy(strrchr(t->instance, '-') + 1, why, sizeof(why))) {
		snprintf(t->errmsg, sizeof(t->errmsg), "instances/%s: %s: left alone", t->instance,
			 why);
		return ftk_err(-EBUSY);
	}
	open_fresh(&r);
	reset_triggers(&r);
	set_value(&r, "current_tracer", "nop", 0);
	set_value(&r, "tracing_on", "1", 0);
	reset_events(&r);
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		clear_list(&r, lists[i]);
	if (!t->instance) {
		set_value(&r, "tracing_thresh", "0", 0);
		set_value(&r, "max_graph_depth", "0", 0);
	}
	if (snapshot_allocated(t) > 0)
		change(&r, "snapshot", "allocated", "0", "freed", 0);
	n = buffered(t);
	if (n > 0) {
		snprintf(entries, sizeof(entries), "%ld entries", n);
		change(&r, "trace", entries, "", "(empty)", 0);
	}
	set_default(&r, "trace_clock", 1);
	set_default(&r, "buffer_size_kb", 0);
	set_default(&r, "buffer_percent", 0);
	set_default(&r, "tracing_cpumask", 0);
	reset_options(&r);
	if (r.fresh) {
		ftk_tracefs_restore(r.fresh);
		ftk_tracefs_close(r.fresh);
	}
	return ftk_err(r.first);
}

/* "p:group/name ..." -> "group/name"; 0 when the line has no such head. */
static int dyn_name(const char *line, char *buf, size_t len)
{
	const char *p = strchr(line, ':'), *e;

	if (!p || p - line > 4)
		return -EINVAL;
	e = p + 1 + strcspn(p + 1, " \t");
	snprintf(buf, len, "%.*s", (int)(e - p - 1), p + 1);
	return strchr(buf, '/') ? 0 : -EINVAL;
}

/**
 * ftk_reset_dynevents() - remove dynamic events
 * @t: any handle (dynamic events are global)
 * @flags: FTK_RESET_ALL for every group, else only the groups whose name
 *	   starts with "ftkit" and synthetic events named "ftkit*";
 *	   FTK_RESET_DRY_RUN to only report
 * @fn: called for each removal before it is made, or NULL
 * @arg: passed to @fn
 *
 * kprobes, uprobes, eprobes and synthetic events, from dynamic_events (or
 * uprobe_events and kprobe_events on kernels without it). An event still
 * enabled or referred to by a trigger somewhere cannot go (-EBUSY): reset
 * the instances that use it first. The groups "ftkit_TAG" of a running
 * ftkit process (ftk_probe_owner_group()) are left alone without
 * FTK_RESET_FORCE, and reported as such through @fn.
 *
 * Return: 0, or the first failure's negative errno.
 */
FTK_API int ftk_reset_dynevents(struct ftk_tracefs *t, unsigned int flags, ftk_reset_fn fn,
				void *arg)
{
	static const char *const files[] = { "dynamic_events", "uprobe_events", "kprobe_events" };
	char path[PATH_MAX], name[256], cmd[300], why[128], *s, *line, *next;
	struct ftk_tracefs *top;
	struct reset r = { .flags = flags, .fn = fn, .arg = arg };
	size_t i;
	int ret;

	ret = ftk_tracefs_open(t->root, NULL, 0, &top);
	if (ret)
		return ret;
	r.t = top;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", t->root, files[i]);
		if (ftk_read_file(path, &s, NULL))
			continue;
		for (line = s; *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			if (dyn_name(line, name, sizeof(name)))
				continue;
			/* Ours: a group "ftkit*", or a synthetic event named "ftkit*". */
			if (!(flags & FTK_RESET_ALL) && strncmp(name, "ftkit", 5) &&
			    strncmp(name, "synthetic/ftkit", 15))
				continue;
			/* A running ftkit process's own probes: named with their owner, kept. */
			if (!(flags & FTK_RESET_FORCE) && !strncmp(name, "ftkit_", 6) &&
			    ftk_owner_busy(name + 6, why, sizeof(why))) {
				snprintf(cmd, sizeof(cmd), "(left alone: %s)", why);
				note(&r, files[i], name, cmd);
				continue;
			}
			snprintf(cmd, sizeof(cmd), "-:%s", name);
			change(&r, files[i], name, cmd, "(removed)", 1);
		}
		free(s);
		break;		/* dynamic_events lists them all */
	}
	t->errmsg[0] = '\0';
	if (r.first)
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", top->errmsg);
	ftk_tracefs_close(top);
	return ftk_err(r.first);
}
