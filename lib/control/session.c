// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session: one trace from start to end in a private instance (session.h).
 *
 * The verbs follow libtracefs's tracefs_instance_* and tracefs_filter_pid_*
 * (create, set the buffer and clock, filter PIDs, tracing on and off,
 * destroy), on ftkit's journaled handles: libtracefs keeps no record of
 * what it changed, and a session must put back everything on any exit.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/session.h>
#include <ftkit/stream.h>
#include <ftkit/watchdog.h>

#include "internal.h"
#include "tracefs-local.h"

/* Buckets of the task table (a chained hash by PID). */
#define TASK_SLOTS	1024

/* What the session learned of a task from its records. */
struct task {
	struct task	*next;
	pid_t		pid;
	pid_t		ppid;		/* 0 until a fork record says */
	char		comm[16];	/* "" until a record names it */
};

/* An event the session enables for itself; its records are the tool's only if it asked too. */
struct own_event {
	const char	*sys, *name;
	int		id;		/* -1 until the formats are read */
	int		tool;		/* the tool enabled it as well */
};

enum { OWN_FORK, OWN_RENAME, OWN_NR };

struct ftk_session {
	struct ftk_session_opts		o;
	struct ftk_tracefs		*t;		/* the instance */
	struct ftk_tracefs		*top;		/* the top level, opened on first use */
	struct ftk_live			*live;
	struct ftk_watchdog		*wd;		/* removes the instance if the caller is killed */
	char				**events;	/* what the tool enabled, "sys:name" */
	struct task			**tasks;	/* FTK_SESSION_COMMS */
	struct own_event		own[OWN_NR];
	struct tep_format_field		*f_parent, *f_child, *f_child_comm;
	struct tep_format_field		*f_rn_pid, *f_rn_comm;
	unsigned long long		start_ticks;	/* clock ticks after boot at the start */
	int				pid_filter;	/* a PID filter was set */
	int				started;
	int				copy_marker;	/* ftk_session_copy_marker() turned it on */
	ftk_live_fn			fn;		/* ftk_session_read()'s, while it reads */
	void				*ctx;
	struct ftk_errmsg		err;
	char				instance[160];
};

static struct task *from_proc(struct ftk_session *s, pid_t pid);

static int fail(struct ftk_session *s, int ret, const char *what)
{
	return ftk_errmsg_set(&s->err, 0, NULL, ret, "%s: %s", what,
			      s->t ? ftk_tracefs_errmsg(s->t) : strerror(-ret));
}

/* A failure whose text (of the instance's handle) names the file already. */
static int tfail(struct ftk_session *s, int ret)
{
	return ret ? ftk_errmsg_set(&s->err, 0, NULL, ret, "%s", ftk_tracefs_errmsg(s->t)) : 0;
}

static int set(struct ftk_session *s, const char *file, const char *val)
{
	return tfail(s, ftk_tracefs_set(s->t, file, val));
}

/* Remove what runs that are gone left behind, and say so (ftk_instance_reap()). */
static void reap(struct ftk_session *s)
{
	char **removed = NULL, **p;
	struct ftk_tracefs *top = ftk_session_top(s);

	if (!top)
		return;
	if (ftk_instance_reap(top, &removed))
		pr_warn("cannot remove what a dead run left: %s\n", ftk_tracefs_errmsg(top));
	for (p = removed; p && *p; p++)
		pr_warn("removed '%s', left behind by a run that is gone\n", *p);
	ftk_list_free(removed);
}

static unsigned long long now_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	if (clock_gettime(CLOCK_BOOTTIME, &ts) || hz <= 0)
		return 0;
	return (unsigned long long)ts.tv_sec * hz + (unsigned long long)ts.tv_nsec * hz / 1000000000;
}

/**
 * ftk_session_new() - make the instance of a tracing session
 * @opts: FTK_OPTS(ftk_session_opts, ...), or NULL for the defaults
 * @out: receives the session, also on failure (for ftk_session_errmsg());
 *	 free it with ftk_session_free()
 *
 * Instances and probes that runs now gone left behind are removed first
 * (ftk_instance_reap(), each said as a warning). Then the instance is made,
 * "ftkit-TOOL-OWNER" (ftk_instance_name()) unless @opts->instance names one,
 * with tracing off, the clock @opts->clock if not NULL ("mono": the live
 * reader keeps time order with it) and @opts->buffer_kb per CPU if not 0.
 *
 * Return: 0, or a negative errno with the reason in ftk_session_errmsg():
 * -ENODEV without tracefs, -ENOMEM.
 */
FTK_API int ftk_session_new(const struct ftk_session_opts *opts, struct ftk_session **out)
{
	struct ftk_session *s = calloc(1, sizeof(*s));
	const char *name;
	char kb[32];
	int ret;

	*out = s;
	if (!s)
		return ftk_err(-ENOMEM);
	if (opts)
		memcpy(&s->o, opts, opts->sz < sizeof(s->o) ? opts->sz : sizeof(s->o));
	s->o.sz = sizeof(s->o);
	s->own[OWN_FORK] = (struct own_event){ "sched", "sched_process_fork", -1, 0 };
	s->own[OWN_RENAME] = (struct own_event){ "task", "task_rename", -1, 0 };
	name = s->o.instance;
	if (s->o.flags & FTK_SESSION_TOP) {
		name = NULL;
	} else if (!name) {
		ret = ftk_instance_name(s->o.tool ? s->o.tool : "session", s->instance,
					sizeof(s->instance));
		if (ret)
			return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, ret,
						      "cannot name an instance: %s",
						      strerror(-ret)));
		name = s->instance;
	}
	reap(s);
	/*
	 * The top level (for probes) was opened before the instance: its
	 * journal is replayed after the instance's, once nothing enables them.
	 */
	ret = ftk_tracefs_open(s->o.root, name, name ? FTK_TRACEFS_CREATE : 0, &s->t);
	if (ret) {
		ftk_errmsg_set(&s->err, 0, NULL, ret, "cannot open tracefs%s%s: %s",
			       name ? " instance " : "", name ? name : "",
			       s->t ? ftk_tracefs_errmsg(s->t) : strerror(-ret));
		ftk_tracefs_close(s->t);
		s->t = NULL;
		return ftk_err(ret);
	}
	if (name != s->instance)
		snprintf(s->instance, sizeof(s->instance), "%s", name ? name : "");
	/* (a fake tree for tests may lack it: nothing to turn off then) */
	ret = ftk_tracefs_exists(s->t, "tracing_on") ? set(s, "tracing_on", "0") : 0;
	if (!ret && s->o.clock)
		ret = set(s, "trace_clock", s->o.clock);
	if (!ret && s->o.buffer_kb) {
		snprintf(kb, sizeof(kb), "%u", s->o.buffer_kb);
		ret = set(s, "buffer_size_kb", kb);
	}
	if (!ret && s->o.wake_percent && ftk_tracefs_exists(s->t, "buffer_percent")) {
		snprintf(kb, sizeof(kb), "%u", s->o.wake_percent);
		ret = set(s, "buffer_percent", kb);
	}
	if (!ret && (s->o.flags & FTK_SESSION_COMMS)) {
		s->tasks = calloc(TASK_SLOTS, sizeof(*s->tasks));
		if (!s->tasks)
			ret = ftk_errmsg_set(&s->err, 0, NULL, -ENOMEM, "out of memory");
	}
	return ftk_err(ret);
}

/**
 * ftk_session_free() - end a session and take down what it set up
 * @s: the session, or NULL
 *
 * In this order: the live reader is closed (the kernel keeps an instance
 * whose buffer files are open), tracing is turned off, every file the
 * session changed is put back newest first, the instance it made is
 * removed, and then the probes made at the top level. A step that fails
 * is logged (ftk_set_print()) and the teardown carries on.
 */
FTK_API void ftk_session_free(struct ftk_session *s)
{
	size_t i;

	if (!s)
		return;
	ftk_watchdog_free(s->wd);	/* goodbye before the teardown: it must not race it */
	ftk_live_close(s->live);
	if (s->t) {
		if (ftk_tracefs_restore(s->t))
			pr_error("cannot put back %s\n", ftk_tracefs_errmsg(s->t));
		ftk_tracefs_close(s->t);
	}
	if (s->top && s->top != s->t) {
		if (ftk_tracefs_restore(s->top))
			pr_error("cannot put back %s\n", ftk_tracefs_errmsg(s->top));
		ftk_tracefs_close(s->top);
	}
	for (i = 0; s->tasks && i < TASK_SLOTS; i++) {
		while (s->tasks[i]) {
			struct task *n = s->tasks[i]->next;

			free(s->tasks[i]);
			s->tasks[i] = n;
		}
	}
	free(s->tasks);
	ftk_list_free(s->events);
	free(s);
}

/** ftk_session_errmsg() - the last failure's text; owned by @s, never NULL */
FTK_API const char *ftk_session_errmsg(const struct ftk_session *s)
{
	if (!s)
		return "out of memory";
	return s->err.text[0] ? s->err.text : "no error";
}

/** ftk_session_instance() - the instance's name ("" at the top level); owned by @s */
FTK_API const char *ftk_session_instance(const struct ftk_session *s)
{
	return s->instance;
}

/**
 * ftk_session_tracefs() - the instance's handle, for what the session has no verb for
 * @s: the session
 *
 * Triggers and other changes made through it are journaled there and put
 * back by ftk_session_free(). Return: owned by @s, valid until it is freed.
 */
FTK_API struct ftk_tracefs *ftk_session_tracefs(struct ftk_session *s)
{
	return s->t;
}

/**
 * ftk_session_top() - the top level's handle, for probes (dynamic events are global)
 * @s: the session
 *
 * Opened on the first call. What is made through it with its journal
 * (FTK_PROBE_JOURNAL) is removed by ftk_session_free() after the instance.
 *
 * Return: owned by @s; NULL (errno set, the reason in ftk_session_errmsg())
 * when tracefs cannot be opened.
 */
FTK_API struct ftk_tracefs *ftk_session_top(struct ftk_session *s)
{
	int ret;

	if (s->top)
		return s->top;
	if ((s->o.flags & FTK_SESSION_TOP) && s->t)
		return s->top = s->t;
	ret = ftk_tracefs_open(s->o.root, NULL, 0, &s->top);
	if (ret) {
		ftk_errmsg_set(&s->err, 0, NULL, ret, "cannot open tracefs: %s",
			       s->top ? ftk_tracefs_errmsg(s->top) : strerror(-ret));
		ftk_tracefs_close(s->top);
		s->top = NULL;
		return ftk_err_ptr(ret);
	}
	return s->top;
}

/*
 * The systems a glob without an event part names ("sched", "sched*"), as
 * the instance's events/ holds them; an empty list when none.
 */
static int systems(struct ftk_session *s, const char *glob, char ***out)
{
	char **all = NULL, **e, **l = NULL, sys[256];
	size_t n;
	int ret;

	*out = NULL;
	ret = ftk_event_list(s->t, NULL, &all);
	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		ret = -ENOMEM;
	/* sorted "sys:ev": a system's events lie together */
	for (e = all; !ret && *e; e++) {
		n = strcspn(*e, ":");
		if (n >= sizeof(sys))
			continue;
		memcpy(sys, *e, n);
		sys[n] = '\0';
		if (fnmatch(glob, sys, 0) || ftk_name_check(sys))
			continue;
		if (l[0] && !strcmp(l[ftk_list_len(l) - 1], sys))
			continue;
		ret = ftk_list_add(&l, sys);
	}
	ftk_list_free(all);
	if (ret) {
		ftk_list_free(l);
		return ret;
	}
	*out = l;
	return 0;
}

/*
 * Whole systems through their own files, as trace-cmd record does: the
 * kernel gives a system's filter to each of its events that has the
 * fields it names, and fails only when none has.
 */
static int enable_systems(struct ftk_session *s, char **sys, const char *filter)
{
	struct undo *mark = ftk_tracefs_mark(s->t);
	char file[512];
	int ret = 0;

	for (; !ret && *sys; sys++) {
		if (filter) {
			snprintf(file, sizeof(file), "events/%s/filter", *sys);
			ret = ftk_tracefs_set(s->t, file, filter);
		}
		if (!ret) {
			snprintf(file, sizeof(file), "events/%s/enable", *sys);
			ret = ftk_tracefs_set(s->t, file, "1");
		}
	}
	if (ret)
		ftk_tracefs_rollback(s->t, mark);
	return ret;
}

/**
 * ftk_session_event() - enable an event in the session, with a filter
 * @s: the session
 * @event: "system:event" (a glob selects several, as ftk_event_enable());
 *	   a system, or a glob of systems ("sched", "sched*"), through the
 *	   system's own enable and filter files; a word that names no system,
 *	   the events of that name in any system; "all" for every event
 * @filter: the filter for it, or NULL for none (none with "all": the
 *	    kernel has no file for it)
 *
 * A system's filter goes to each of its events that has the fields it
 * names (the kernel's rule for events/SYSTEM/filter).
 *
 * Return: 0, -FTK_E_NOEVENT when nothing matches (-ENOENT: the kernel has
 * no such event), -EINVAL for a filter with "all", another negative errno
 * with the kernel's reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_event(struct ftk_session *s, const char *event, const char *filter)
{
	char **sys = NULL;
	int ret = 0, all = !strcmp(event, "all");
	size_t i;

	if (all && filter)
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -EINVAL,
					      "a filter is for events or systems, not 'all'"));
	if (all) {
		ret = set(s, "events/enable", "1");
		if (ret)
			return ftk_err(ret);
	} else if (!strpbrk(event, ":/")) {
		ret = systems(s, event, &sys);
		if (ret)
			return ftk_err(fail(s, ret, event));
	}
	if (sys && *sys) {
		ret = enable_systems(s, sys, filter);
		ftk_list_free(sys);
		if (ret)
			return ftk_err(fail(s, ret, event));
	} else if (!all) {
		ftk_list_free(sys);
		if (filter && (ret = ftk_event_filter_set(s->t, event, filter)))
			return ftk_err(fail(s, ret, event));
		ret = ftk_event_enable(s->t, event, 1);
		if (ret == -ENOENT)
			return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, ret,
						      "this kernel has no event %s", event));
		if (ret)
			return ftk_err(fail(s, ret, event));
	}
	for (i = 0; i < OWN_NR; i++) {
		char name[128];

		snprintf(name, sizeof(name), "%s:%s", s->own[i].sys, s->own[i].name);
		if (all || ftk_event_match(event, name) > 0)
			s->own[i].tool = 1;
	}
	ret = ftk_list_add(&s->events, event);
	return ftk_err(ret ? ftk_errmsg_set(&s->err, 0, NULL, ret, "out of memory") : 0);
}

/* Add @list to a PID file, emptied at the teardown (as tracefs_filter_pid_*() with reset). */
static int pid_add(struct ftk_session *s, const char *file, const char *list)
{
	int ret;

	if (!ftk_tracefs_exists(s->t, file)) {
		snprintf(s->t->errmsg, sizeof(s->t->errmsg), "%s is absent (kernel too old)", file);
		s->t->errdetail[0] = '\0';
		return -ENOENT;
	}
	ret = ftk_tracefs_undo(s->t, file, "", 0);
	if (!ret)
		ret = ftk_tracefs_append(s->t, file, list);
	return ret;
}

/**
 * ftk_session_pid() - trace only a process (and its children), or all but it
 * @s: the session
 * @pid: the process: every thread it has now goes into the list
 * @flags: FTK_SESSION_PID_FOLLOW for the tasks it forks from now on
 *	   (options/event-fork), FTK_SESSION_PID_NOTRACE to trace every task
 *	   but its threads, FTK_SESSION_PID_FUNCTION for the function tracers
 *	   too (set_ftrace_pid, with FOLLOW options/function-fork; left out
 *	   where the kernel has no such file)
 *
 * Calls add to the lists (as tracefs_filter_pid_events() without reset).
 * Without any call, ftk_session_start() keeps the calling process's own
 * threads out (set_event_notrace_pid where the kernel has it): a tool
 * reading the buffer makes events too.
 *
 * Return: 0, -ESRCH when there is no such process, -ENOENT when the kernel
 * lacks the list (older kernels have no set_event_notrace_pid), another negative
 * errno with the reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_pid(struct ftk_session *s, pid_t pid, unsigned int flags)
{
	int notrace = !!(flags & FTK_SESSION_PID_NOTRACE), ret;
	const char *ffile = notrace ? "set_ftrace_notrace_pid" : "set_ftrace_pid";
	size_t nr = 0, i, len = 0;
	pid_t *tids = NULL;
	char *list = NULL;
	FILE *f;

	ret = ftk_proc_threads(pid, &tids, &nr);
	if (ret) {
		free(tids);
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, ret, "no process %d: %s",
					      (int)pid, strerror(-ret)));
	}
	f = open_memstream(&list, &len);
	if (!f) {
		free(tids);
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -ENOMEM, "out of memory"));
	}
	for (i = 0; i < nr; i++) {
		fprintf(f, "%s%d", i ? " " : "", (int)tids[i]);
		/* what /proc says of them now, at the start */
		if (s->tasks && !notrace)
			from_proc(s, tids[i]);
	}
	fclose(f);
	free(tids);
	ret = pid_add(s, notrace ? "set_event_notrace_pid" : "set_event_pid", list);
	if (!ret && (flags & FTK_SESSION_PID_FUNCTION) && ftk_tracefs_exists(s->t, ffile))
		ret = pid_add(s, ffile, list);
	free(list);
	if (ret)
		return ftk_err(fail(s, ret, "pid filter"));
	if (flags & FTK_SESSION_PID_FOLLOW) {
		ret = set(s, "options/event-fork", "1");
		if (!ret && (flags & FTK_SESSION_PID_FUNCTION) &&
		    ftk_tracefs_exists(s->t, "options/function-fork"))
			ret = set(s, "options/function-fork", "1");
		if (ret)
			return ftk_err(ret);
	}
	s->pid_filter = 1;
	return 0;
}

/* A PID list as the kernel prints it (a PID a line) as one line it takes back; returns @text. */
static char *one_line(char *text)
{
	char *p;

	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return text;
}

/**
 * ftk_session_notrace_share() - keep every session's own tasks out of all of them
 * @s: the sessions
 * @nr: how many
 *
 * Each session's set_event_notrace_pid gets what every other one's holds
 * (the readers a capture keeps out of its own instance, say), so that
 * buffers recorded at once do not record each other's readers. Each list
 * is put back as it was by ftk_session_free(). Kernels without
 * set_event_notrace_pid: nothing to do.
 *
 * Return: 0, or the first failure's negative errno with the reason (naming
 * the instance) in the first session's ftk_session_errmsg(); the other
 * sessions still get the list.
 */
FTK_API int ftk_session_notrace_share(struct ftk_session *const *s, size_t nr)
{
	static const char file[] = "set_event_notrace_pid";
	char *all = NULL, *text;
	int ret = 0, r;
	size_t len = 0, i;
	FILE *m;

	if (!nr || !ftk_tracefs_exists(s[0]->t, file))
		return 0;
	m = open_memstream(&all, &len);
	if (!m)
		return ftk_err(ftk_errmsg_set(&s[0]->err, 0, NULL, -ENOMEM, "out of memory"));
	for (i = 0; i < nr; i++) {
		if (ftk_tracefs_read(s[i]->t, file, &text))
			continue;
		fprintf(m, "%s ", one_line(text));
		free(text);
	}
	if (fclose(m))
		return ftk_err(ftk_errmsg_set(&s[0]->err, 0, NULL, -ENOMEM, "out of memory"));
	for (i = 0; i < nr; i++) {
		/* appended, not rewritten: the list is never empty while a capture runs */
		r = ftk_tracefs_read(s[i]->t, file, &text);
		if (!r) {
			one_line(text);
			r = ftk_tracefs_append(s[i]->t, file, all);
			if (!r)
				r = ftk_tracefs_undo(s[i]->t, file, text, 0);
			free(text);
		}
		if (r && !ret)
			ret = ftk_errmsg_set(&s[0]->err, 0, NULL, r, "%s: %s",
					     s[i]->instance[0] ? s[i]->instance : "top level",
					     ftk_tracefs_errmsg(s[i]->t));
	}
	free(all);
	return ftk_err(ret);
}

/**
 * ftk_session_buffer() - set the size of the session's buffer
 * @s: the session
 * @kb: KiB per CPU (buffer_size_kb)
 *
 * Return: 0, or a negative errno with the reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_buffer(struct ftk_session *s, unsigned int kb)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", kb);
	return ftk_err(set(s, "buffer_size_kb", buf));
}

/**
 * ftk_session_subbuf() - set the size of the buffer's sub-buffers
 * @s: the session
 * @kb: KiB (buffer_subbuf_size_kb; a power of two pages)
 *
 * Larger sub-buffers bring more with each read(2) of trace_pipe_raw.
 *
 * Return: 0, -ENOENT on kernels before 6.8 (the file is absent: sub-buffers
 * are pages), or a negative errno with the reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_subbuf(struct ftk_session *s, unsigned int kb)
{
	char buf[32];

	if (!ftk_tracefs_exists(s->t, "buffer_subbuf_size_kb"))
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -ENOENT,
					      "buffer_subbuf_size_kb is absent (kernel before 6.8)"));
	snprintf(buf, sizeof(buf), "%u", kb);
	return ftk_err(set(s, "buffer_subbuf_size_kb", buf));
}

/**
 * ftk_session_clock() - set the session's trace clock
 * @s: the session
 * @clock: a name of trace_clock ("local", "global", "mono", "boot", ...)
 *
 * Return: 0, or a negative errno (-EINVAL: no such clock) with the reason
 * in ftk_session_errmsg().
 */
FTK_API int ftk_session_clock(struct ftk_session *s, const char *clock)
{
	return ftk_err(set(s, "trace_clock", clock));
}

/**
 * ftk_session_option() - turn a trace option of the session on or off
 * @s: the session
 * @option: a name in options/ ("stacktrace", "event-fork", ...); "noNAME"
 *	    for NAME with @on inverted, as trace_options takes it, where no
 *	    option is called "noNAME" itself
 * @on: 1 or 0
 *
 * Return: 0, -ENOENT when the kernel has no such option here (the reason
 * in ftk_session_errmsg()), or the write's negative errno.
 */
FTK_API int ftk_session_option(struct ftk_session *s, const char *option, int on)
{
	char file[300];

	snprintf(file, sizeof(file), "options/%s", option);
	if (!strncmp(option, "no", 2) && option[2] && !ftk_tracefs_exists(s->t, file)) {
		option += 2;
		on = !on;
	}
	return ftk_err(tfail(s, ftk_ftrace_option_set(s->t, option, on)));
}

/**
 * ftk_session_cpus() - trace only some CPUs (tracing_cpumask)
 * @s: the session
 * @cpus: CPU numbers
 * @nr: how many (at least one)
 *
 * Return: 0, -ERANGE for a CPU below 0 or past 65535, -EINVAL for none,
 * or the write's negative errno (-EINVAL: no such CPU here) with the
 * reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_cpus(struct ftk_session *s, const int *cpus, size_t nr)
{
	enum { WORDS = 2048 };	/* 65536 CPUs, 32 a word */
	unsigned int *words;
	size_t i, nw = 1, off = 0;
	char *mask;
	int ret;

	if (!nr)
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -EINVAL, "no CPU given"));
	for (i = 0; i < nr; i++)
		if (cpus[i] < 0 || cpus[i] >= WORDS * 32)
			return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -ERANGE,
						      "CPU %d out of range", cpus[i]));
	words = calloc(WORDS, sizeof(*words));
	mask = malloc(WORDS * 9 + 1);
	if (!words || !mask) {
		free(words);
		free(mask);
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -ENOMEM, "out of memory"));
	}
	for (i = 0; i < nr; i++) {
		words[cpus[i] / 32] |= 1u << (cpus[i] % 32);
		if ((size_t)cpus[i] / 32 + 1 > nw)
			nw = cpus[i] / 32 + 1;
	}
	/* as the kernel prints it: 32-bit hex words, the highest first, comma between */
	for (i = nw; i-- > 0;)
		off += snprintf(mask + off, WORDS * 9 + 1 - off, i == nw - 1 ? "%x" : ",%08x",
				words[i]);
	ret = set(s, "tracing_cpumask", mask);
	free(words);
	free(mask);
	return ftk_err(ret);
}

/**
 * ftk_session_copy_marker() - copy the top level's marks into the instance
 * @s: the session, in an instance
 * @on: 1 to copy (options/copy_trace_marker), 0 to stop
 *
 * Applications write the top level's trace_marker. The kernel stops
 * copying at the first instance whose buffer is off, so turn it on while
 * the session records only, and off before tracing stops: an instance
 * with tracing off and the copy on cuts the marks off from the instances
 * after it. Off does nothing unless this session turned it on; the old
 * setting is put back by ftk_session_free() in any case.
 *
 * Return: 0, -ENOENT at the top level or where the kernel lacks the option,
 * or the write's negative errno with the reason in
 * ftk_session_errmsg().
 */
FTK_API int ftk_session_copy_marker(struct ftk_session *s, int on)
{
	static const char file[] = "options/copy_trace_marker";
	int ret;

	if (!on) {
		if (!s->copy_marker)
			return 0;
		s->copy_marker = 0;
		return ftk_err(tfail(s, ftk_tracefs_write(s->t, file, "0")));
	}
	if (!s->instance[0] || !ftk_tracefs_exists(s->t, file))
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -ENOENT,
					      "no copy_trace_marker option here"));
	ret = set(s, file, "1");
	if (!ret)
		s->copy_marker = 1;
	return ftk_err(ret);
}

/**
 * ftk_session_tracer() - run a tracer in the session (current_tracer)
 * @s: the session
 * @tracer: "function", "function_graph", ... ("nop": none)
 *
 * Return: 0, -ENODEV when the instance does not offer it, or the write's
 * negative errno (-EPERM: kernel lockdown), with the reason in
 * ftk_session_errmsg().
 */
FTK_API int ftk_session_tracer(struct ftk_session *s, const char *tracer)
{
	return ftk_err(tfail(s, ftk_ftrace_tracer_set(s->t, tracer)));
}

/**
 * ftk_session_functions() - set a function tracer's list in the session
 * @s: the session
 * @which: FTK_FTRACE_FILTER, _NOTRACE, _GRAPH, ... (ftk_ftrace_list_set())
 * @items: function globs, or PIDs for the PID lists
 * @nr: how many; 0 clears the list
 *
 * Return: 0, or a negative errno (-ENOENT: no such list here, -EINVAL: no
 * function matches, -EPERM: lockdown) with the reason in
 * ftk_session_errmsg().
 */
FTK_API int ftk_session_functions(struct ftk_session *s, enum ftk_ftrace_list which,
				  char *const *items, size_t nr)
{
	return ftk_err(tfail(s, ftk_ftrace_list_set(s->t, which, items, nr)));
}

/* FTK_SESSION_COMMS: the fork and rename events of the traced tasks, for their names. */
static int comm_events(struct ftk_session *s)
{
	size_t i;
	int ret;

	for (i = 0; i < OWN_NR; i++) {
		char name[128];

		if (s->own[i].tool)
			continue;
		snprintf(name, sizeof(name), "%s:%s", s->own[i].sys, s->own[i].name);
		ret = ftk_event_enable(s->t, name, 1);
		if (ret == -ENOENT || ret == -FTK_E_NOEVENT)
			continue;	/* names then come from /proc at the start only */
		if (ret)
			return fail(s, ret, name);
	}
	return 0;
}

/**
 * ftk_session_start() - turn tracing on in the session's instance
 * @s: the session
 *
 * For a command the session follows, call it at the command's exec (the
 * command stopped just before its execve(), with its PID in the filter):
 * then what the tool did to start it is not charged to it. Without a PID
 * filter, the caller's own threads are kept out first.
 *
 * Return: 0, or a negative errno with the reason in ftk_session_errmsg().
 */
FTK_API int ftk_session_start(struct ftk_session *s)
{
	int ret;

	if (s->tasks && !s->started && (ret = comm_events(s)))
		return ftk_err(ret);
	if (!s->pid_filter && !(s->o.flags & FTK_SESSION_SELF) && !s->started &&
	    ftk_tracefs_exists(s->t, "set_event_notrace_pid")) {
		ret = ftk_session_pid(s, getpid(), FTK_SESSION_PID_NOTRACE);
		if (ret)
			return ret;
		s->pid_filter = 0;
	}
	/*
	 * Before tracing goes on (the watchdog is then in no trace), and only
	 * for an instance made here: one named by the caller may be another
	 * run's. Without it (no pidfd, no fork) the session still works; a
	 * later run's reaper is then the only one to clean up after a SIGKILL.
	 */
	if (!s->started && !s->wd && !(s->o.flags & (FTK_SESSION_NO_WATCHDOG | FTK_SESSION_TOP)) &&
	    !s->o.instance && ftk_watchdog_start(s->t, NULL, &s->wd))
		pr_warn("no watchdog: if killed, instance '%s' stays until a later run removes it\n",
			s->instance);
	s->start_ticks = now_ticks();
	ret = ftk_tracefs_exists(s->t, "tracing_on") ? ftk_tracefs_write(s->t, "tracing_on", "1") : 0;
	if (ret)
		return ftk_err(fail(s, ret, "tracing_on"));
	s->started = 1;
	return 0;
}

/** ftk_session_stop() - turn tracing off (what is in the buffer stays readable); 0 or -errno */
FTK_API int ftk_session_stop(struct ftk_session *s)
{
	int ret = ftk_tracefs_exists(s->t, "tracing_on") ? ftk_tracefs_write(s->t, "tracing_on", "0")
						       : 0;

	return ftk_err(ret ? fail(s, ret, "tracing_on") : 0);
}

static void own_fields(struct ftk_session *s)
{
	struct tep_event *ev;

	ev = ftk_live_event(s->live, s->own[OWN_FORK].sys, s->own[OWN_FORK].name);
	if (ev) {
		s->own[OWN_FORK].id = ev->id;
		s->f_parent = tep_find_field(ev, "parent_pid");
		s->f_child = tep_find_field(ev, "child_pid");
		s->f_child_comm = tep_find_field(ev, "child_comm");
	}
	ev = ftk_live_event(s->live, s->own[OWN_RENAME].sys, s->own[OWN_RENAME].name);
	if (ev) {
		s->own[OWN_RENAME].id = ev->id;
		s->f_rn_pid = tep_find_field(ev, "pid");
		s->f_rn_comm = tep_find_field(ev, "newcomm");
	}
}

/**
 * ftk_session_live() - the live reader of the session's buffer
 * @s: the session
 *
 * Opened on the first call (enable the events first: their formats are
 * read then). Closed by ftk_session_free().
 *
 * Return: owned by @s; NULL (errno set, the reason in ftk_session_errmsg())
 * when the buffer cannot be opened.
 */
FTK_API struct ftk_live *ftk_session_live(struct ftk_session *s)
{
	int ret;

	if (s->live)
		return s->live;
	ret = ftk_live_open(s->o.root, s->instance[0] ? s->instance : NULL, &s->live);
	if (ret) {
		ftk_errmsg_set(&s->err, 0, NULL, ret, "%s", ftk_live_errmsg(s->live));
		ftk_live_close(s->live);
		s->live = NULL;
		return ftk_err_ptr(ret);
	}
	if (s->tasks)
		own_fields(s);
	return s->live;
}

static struct task *task_get(struct ftk_session *s, pid_t pid)
{
	struct task **slot = &s->tasks[(unsigned int)pid % TASK_SLOTS], *t;

	for (t = *slot; t; t = t->next)
		if (t->pid == pid)
			return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->next = *slot;
	*slot = t;
	return t;
}

static void task_name(struct task *t, const char *name, int len)
{
	if (len < 0)
		len = 0;
	snprintf(t->comm, sizeof(t->comm), "%.*s", len, name);
}

/* Learn from a fork or rename record; 1 if it is one the tool did not ask for. */
static int learn(struct ftk_session *s, const struct tep_record *rec)
{
	int type = tep_data_type(ftk_live_tep(s->live), (struct tep_record *)rec), len;
	const char *name;
	struct task *t;

	if (type == s->own[OWN_FORK].id && s->f_child && s->f_parent) {
		t = task_get(s, (pid_t)ftk_record_num(rec, s->f_child));
		if (!t)
			return 0;
		t->ppid = (pid_t)ftk_record_num(rec, s->f_parent);
		name = s->f_child_comm ? ftk_record_str(rec, s->f_child_comm, &len) : "";
		task_name(t, name, len);
		return !s->own[OWN_FORK].tool;
	}
	if (type == s->own[OWN_RENAME].id && s->f_rn_pid && s->f_rn_comm) {
		t = task_get(s, (pid_t)ftk_record_num(rec, s->f_rn_pid));
		if (t) {
			name = ftk_record_str(rec, s->f_rn_comm, &len);
			task_name(t, name, len);
		}
		return !s->own[OWN_RENAME].tool;
	}
	return 0;
}

static int pass(void *ctx, const struct tep_record *rec)
{
	struct ftk_session *s = ctx;

	if (learn(s, rec))
		return 0;
	return s->fn(s->ctx, rec);
}

/**
 * ftk_session_read() - read the live buffer, in time order
 * @s: the session
 * @fn: called for each record of the events the caller enabled
 * @ctx: its first argument
 * @flags: FTK_LIVE_FINAL to hand over everything (ftk_live_read())
 *
 * With FTK_SESSION_COMMS the fork and rename records update the task
 * table first (and reach @fn only if the caller enabled those events too).
 *
 * Return: 0, @fn's non-zero return, or a negative errno with the reason in
 * ftk_session_errmsg().
 */
FTK_API int ftk_session_read(struct ftk_session *s, ftk_live_fn fn, void *ctx, unsigned int flags)
{
	int ret;

	if (!ftk_session_live(s))
		return -errno;
	s->fn = fn;
	s->ctx = ctx;
	ret = ftk_live_read(s->live, s->tasks ? pass : fn, s->tasks ? (void *)s : ctx, flags);
	if (ret < 0)
		ftk_errmsg_set(&s->err, 0, NULL, ret, "%s", ftk_live_errmsg(s->live));
	return ftk_err(ret);
}

/* /proc's word on @pid, if the task holding it now already ran when tracing started. */
static struct task *from_proc(struct ftk_session *s, pid_t pid)
{
	char comm[64];
	pid_t ppid = 0;
	unsigned long long start = ftk_proc_stat(pid, comm, sizeof(comm), &ppid);
	struct task *t;

	if (!start || (s->started && start > s->start_ticks))
		return NULL;	/* gone, or a later task with the PID: its fork was not seen */
	t = task_get(s, pid);
	if (t) {
		task_name(t, comm, (int)strlen(comm));
		t->ppid = ppid;
	}
	return t;
}

/**
 * ftk_session_comm() - the name of a task, from what the session saw
 * @s: the session, made with FTK_SESSION_COMMS
 * @pid: the task
 * @buf: receives the name
 * @len: its size
 *
 * The name the task had last in the records read so far (its fork, its
 * exec, a prctl(PR_SET_NAME)), else /proc's when the task holding @pid
 * there ran before tracing started, else "?". Never the kernel's
 * saved_cmdlines: its entry may be an earlier task's that had the PID.
 *
 * Return: @buf.
 */
FTK_API const char *ftk_session_comm(struct ftk_session *s, pid_t pid, char *buf, size_t len)
{
	struct task *t = NULL;

	if (s->tasks) {
		for (t = s->tasks[(unsigned int)pid % TASK_SLOTS]; t; t = t->next)
			if (t->pid == pid)
				break;
		if (!t || !t->comm[0])
			t = from_proc(s, pid);
	}
	snprintf(buf, len, "%s", t && t->comm[0] ? t->comm : "?");
	return buf;
}

/**
 * ftk_session_ppid() - the parent of a task, from what the session saw
 * @s: the session, made with FTK_SESSION_COMMS
 * @pid: the task
 *
 * From its fork record, else /proc's as ftk_session_comm() reads it.
 *
 * Return: the parent's PID, or 0 when unknown.
 */
FTK_API pid_t ftk_session_ppid(struct ftk_session *s, pid_t pid)
{
	struct task *t = NULL;

	if (!s->tasks)
		return 0;
	for (t = s->tasks[(unsigned int)pid % TASK_SLOTS]; t; t = t->next)
		if (t->pid == pid)
			break;
	if (!t || !t->ppid)
		t = from_proc(s, pid);
	return t ? t->ppid : 0;
}
