// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trigger: add, list and remove event and function triggers; hist output.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/trigger.h>

#include "internal.h"
#include "tracefs-local.h"

/* Commands that take SYSTEM:EVENT before their count. */
static int nr_args(const char *cmd, size_t len)
{
	static const char *const two[] = {
		"enable_event", "disable_event", "enable_hist", "disable_hist",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(two); i++)
		if (strlen(two[i]) == len && !strncmp(cmd, two[i], len))
			return 2;
	return 0;
}

static int is_count(const char *tok, size_t len)
{
	size_t i = 0;

	if (len == 9 && !strncmp(tok, "unlimited", 9))
		return 1;
	if (len > 6 && !strncmp(tok, "count=", 6))
		i = 6;
	if (i == len)
		return 0;
	for (; i < len; i++)
		if (tok[i] < '0' || tok[i] > '9')
			return 0;
	return 1;
}

/*
 * Drop " [active]"/" [paused]" and the filter. The kernel splits a trigger
 * from its filter at the first blank, then wants "if" and one blank: what
 * follows is the filter text it keeps (and lists as " if TEXT"). With
 * @filter, that text is returned there (malloc'd; NULL when there is none).
 */
static char *bare(const char *trigger, char **filter)
{
	char *s = strdup(trigger), *p;
	size_t n;

	if (filter)
		*filter = NULL;
	if (!s)
		return NULL;
	s[strcspn(s, "\n")] = '\0';
	ftk_strstrip(s);
	n = strlen(s);
	if (n > 9 && (!strcmp(s + n - 9, " [active]") || !strcmp(s + n - 9, " [paused]")))
		s[n - 9] = '\0';
	ftk_strstrip(s);
	p = s + strcspn(s, " \t");
	if (*p) {
		if (filter && !strncmp(p + 1, "if", 2) && (p[3] == ' ' || p[3] == '\t') && p[4]) {
			*filter = strdup(p + 4);
			if (!*filter) {
				free(s);
				return NULL;
			}
		}
		*p = '\0';
	}
	return s;
}

/**
 * ftk_trigger_removal() - the text that removes a trigger
 * @trigger: the trigger as written or as the kernel lists it
 * @out: where the malloc'd "!..." text goes
 *
 * The count and hist's state words are dropped, and the filter of every
 * trigger but hist: the kernel matches a removal on the command (and the
 * event, for enable_event and the like) and ignores its filter, and wants a
 * counted trigger removed without its count. A hist trigger is matched on
 * keys, values, sort, name and its filter text too (strcmp), so
 * "hist:keys=x if pid == 3" is removed only by "!hist:keys=x if pid == 3".
 *
 * Return: 0, -EINVAL for an empty trigger or one already starting with '!',
 * or -ENOMEM.
 */
FTK_API int ftk_trigger_removal(const char *trigger, char **out)
{
	char *s, *p, *tok, *end, *filter = NULL;
	size_t clen;
	int args, ret;

	*out = NULL;
	if (!trigger || trigger[0] == '!')
		return ftk_err(-EINVAL);
	s = bare(trigger, &filter);
	if (!s)
		return ftk_err(-ENOMEM);
	if (!*s) {
		free(filter);
		free(s);
		return ftk_err(-EINVAL);
	}
	if (!strncmp(s, "hist", 4) && (s[4] == ':' || !s[4])) {
		/* Drop :pause, :cont, :continue and :clear wherever they are. */
		for (p = s; (p = strchr(p, ':'));) {
			end = p + 1 + strcspn(p + 1, ":");
			clen = end - p - 1;
			if ((clen == 5 && !strncmp(p + 1, "pause", 5)) ||
			    (clen == 4 && !strncmp(p + 1, "cont", 4)) ||
			    (clen == 8 && !strncmp(p + 1, "continue", 8)) ||
			    (clen == 5 && !strncmp(p + 1, "clear", 5)))
				memmove(p, end, strlen(end) + 1);
			else
				p = end;
		}
	} else {
		free(filter);
		filter = NULL;
		clen = strcspn(s, ":");
		args = nr_args(s, clen);
		/* Walk past the command and its arguments; what follows is a count. */
		for (p = s + clen; *p == ':' && args > 0; args--)
			p += 1 + strcspn(p + 1, ":");
		if (*p == ':') {
			tok = p + 1;
			if (is_count(tok, strcspn(tok, ":")))
				*p = '\0';
		}
	}
	if (filter)
		ret = asprintf(out, "!%s if %s", s, filter);
	else
		ret = asprintf(out, "!%s", s);
	free(filter);
	free(s);
	if (ret < 0) {
		*out = NULL;
		return ftk_err(-ENOMEM);
	}
	return 0;
}

/**
 * ftk_trigger_rank() - when a trigger must go when clearing
 * @trigger: the trigger text
 *
 * Triggers that refer to others go first: hist triggers with actions
 * (onmatch, onmax, onchange) or variable references ($var), and
 * enable_hist/disable_hist; then the plain triggers; then hist triggers,
 * which may define variables or names the first group used.
 *
 * Return: 0, 1 or 2: the removal pass.
 */
FTK_API int ftk_trigger_rank(const char *trigger)
{
	if (strstr(trigger, "onmatch(") || strstr(trigger, "onmax(") ||
	    strstr(trigger, "onchange(") || strchr(trigger, '$') ||
	    !strncmp(trigger, "enable_hist", 11) || !strncmp(trigger, "disable_hist", 12))
		return 0;
	if (!strncmp(trigger, "hist", 4))
		return 2;
	return 1;
}

/**
 * ftk_trigger_sort() - put triggers in the order the kernel removes them
 * @v: the triggers
 * @nr: how many
 *
 * Stable: within a rank (see ftk_trigger_rank()) the order is kept.
 */
FTK_API void ftk_trigger_sort(struct ftk_trigger *v, size_t nr)
{
	struct ftk_trigger tmp;
	size_t i, j;

	for (i = 1; i < nr; i++) {
		tmp = v[i];
		for (j = i; j > 0 && ftk_trigger_rank(v[j - 1].text) > ftk_trigger_rank(tmp.text);
		     j--)
			v[j] = v[j - 1];
		v[j] = tmp;
	}
}

/* events/SYS/EV/FILE of "sys:ev"; -FTK_E_NOEVENT if the handle lacks it. */
static int event_file(struct ftk_tracefs *t, const char *event, const char *file, char *buf,
		      size_t len)
{
	size_t n = strcspn(event, ":/");

	if (!event[n] || strpbrk(event, "*?[") || strstr(event, "..") ||
	    strchr(event + n + 1, '/') || strchr(event + n + 1, ':') || !n || !event[n + 1])
		goto bad;
	snprintf(buf, len, "events/%.*s/%s/%s", (int)n, event, event + n + 1, file);
	if (ftk_tracefs_exists(t, buf))
		return 0;
bad:
	snprintf(t->errmsg, sizeof(t->errmsg), "unknown event '%s' (see available_events)",
		 event);
	t->errdetail[0] = '\0';
	return -FTK_E_NOEVENT;
}

/*
 * The kernel says only "Invalid argument" for a trigger command it was built
 * without; say which one, and why, from what tracefs lacks.
 */
static void explain_missing(struct ftk_tracefs *t, const char *event, const char *trigger)
{
	char file[512], path[PATH_MAX];
	size_t n = strcspn(trigger, ": ");

	if (n == 4 && !strncmp(trigger, "hist", 4) &&
	    event_file(t, event, "hist", file, sizeof(file)) == -FTK_E_NOEVENT) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "%.300s: the kernel has no hist triggers (built without "
			 "CONFIG_HIST_TRIGGERS: there is no hist file)", file);
		return;
	}
	snprintf(path, sizeof(path), "%s/snapshot", t->root);
	snprintf(file, sizeof(file), "%s", event);
	if (n == 8 && !strncmp(trigger, "snapshot", 8) && access(path, F_OK))
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "%.300s: the kernel has no snapshot trigger (built without "
			 "CONFIG_TRACER_SNAPSHOT)", file);
}

/**
 * ftk_trigger_add() - add a trigger to an event
 * @t: the handle
 * @event: "system:event" (no wildcards)
 * @trigger: the trigger in the kernel's syntax (see trigger.h)
 *
 * Its removal is journaled, so ftk_tracefs_restore() takes it away again.
 *
 * Return: 0, -FTK_E_NOEVENT, -EINVAL for a bad trigger (the kernel's
 * reason in ftk_tracefs_errmsg(), its caret in ftk_tracefs_errdetail()),
 * or another write error (-ENODEV: the kernel lacks that trigger command).
 */
FTK_API int ftk_trigger_add(struct ftk_tracefs *t, const char *event, const char *trigger)
{
	char file[512], *undo;
	int ret;

	if (!trigger || !*trigger || trigger[0] == '!' || strchr(trigger, '\n')) {
		snprintf(t->errmsg, sizeof(t->errmsg), "bad trigger '%s'", trigger ? trigger : "");
		return ftk_err(-EINVAL);
	}
	ret = event_file(t, event, "trigger", file, sizeof(file));
	if (ret)
		return ftk_err(ret);
	ret = ftk_trigger_removal(trigger, &undo);
	if (ret)
		return ret;
	ret = ftk_tracefs_append(t, file, trigger);
	if (!ret)
		ret = ftk_tracefs_undo(t, file, undo, FTK_UNDO_APPEND);
	else if (ret == -EINVAL || ret == -ENOENT)
		explain_missing(t, event, trigger);
	free(undo);
	return ftk_err(ret);
}

/**
 * ftk_trigger_remove() - remove one trigger from an event
 * @t: the handle
 * @event: "system:event", or NULL for a function trigger ("func:command")
 * @trigger: the trigger as written or as listed
 *
 * Not journaled: removing is a change meant to stay.
 *
 * Return: 0, -FTK_E_NOEVENT, or the kernel's refusal (-ENOENT: no such
 * trigger; -EBUSY: another trigger still refers to it).
 */
FTK_API int ftk_trigger_remove(struct ftk_tracefs *t, const char *event, const char *trigger)
{
	char file[512], *undo, *b;
	int ret;

	if (!event) {
		/* "func:cmd[:args][:count=N|unlimited]": a counted one is removed with ":0". */
		b = bare(trigger, NULL);
		if (!b)
			return ftk_err(-ENOMEM);
		ret = ftk_trigger_removal(b + strcspn(b, ":") + (b[strcspn(b, ":")] ? 1 : 0),
					  &undo);
		if (!ret) {
			size_t fl = strcspn(b, ":");
			int counted = strcmp(undo + 1, b + fl + 1) != 0;
			char *w;

			if (asprintf(&w, "!%.*s:%s%s", (int)fl, b, undo + 1, counted ? ":0" : "") <
			    0)
				ret = -ENOMEM;
			else
				ret = ftk_tracefs_append(t, "set_ftrace_filter", w), free(w);
			free(undo);
		}
		free(b);
		return ftk_err(ret);
	}
	ret = event_file(t, event, "trigger", file, sizeof(file));
	if (ret)
		return ftk_err(ret);
	ret = ftk_trigger_removal(trigger, &undo);
	if (ret) {
		snprintf(t->errmsg, sizeof(t->errmsg), "bad trigger to remove '%.200s': give it as "
			 "listed or as written, without '!'", trigger);
		return ftk_err(ret);
	}
	ret = ftk_tracefs_append(t, file, undo);
	free(undo);
	return ftk_err(ret);
}

static int add_entry(struct ftk_trigger **v, size_t *nr, const char *instance,
		     const char *event, const char *text)
{
	struct ftk_trigger *nv = realloc(*v, (*nr + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*nr].instance = ftk_strdup(instance);
	nv[*nr].event = ftk_strdup(event);
	nv[*nr].text = strdup(text);
	(*nr)++;
	if ((instance && !nv[*nr - 1].instance) || (event && !nv[*nr - 1].event) ||
	    !nv[*nr - 1].text)
		return -ENOMEM;
	return 0;
}

/* Append the handle's triggers (of events matching @glob) to @v. */
static int list_into(struct ftk_tracefs *t, const char *glob, struct ftk_trigger **v,
		     size_t *nr)
{
	char file[512], path[PATH_MAX], **events, **e, *text, *line, *next;
	int ret;

	ret = ftk_event_list(t, glob, &events);
	if (ret)
		return ret;
	for (e = events; !ret && *e; e++) {
		if (event_file(t, *e, "trigger", file, sizeof(file)))
			continue;
		if (ftk_tracefs_path(t, file, path, sizeof(path)) ||
		    ftk_read_file(path, &text, NULL))
			continue;
		for (line = text; !ret && line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (*line && *line != '#')
				ret = add_entry(v, nr, t->instance, *e, line);
		}
		free(text);
	}
	ftk_list_free(events);
	/* Function triggers are the set_ftrace_filter lines with a command. */
	if (!ret && !glob && !ftk_tracefs_path(t, "set_ftrace_filter", path, sizeof(path)) &&
	    !ftk_read_file(path, &text, NULL)) {
		for (line = text; !ret && line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (*line && *line != '#' && strchr(line, ':'))
				ret = add_entry(v, nr, t->instance, NULL, line);
		}
		free(text);
	}
	return ret;
}

/**
 * ftk_trigger_list() - the triggers of a handle's events
 * @t: the handle
 * @glob: events to look at (see event.h), or NULL for all of them and the
 *	  function triggers
 * @out: where the array goes
 * @nr: where its length goes
 *
 * Return: 0 and an array to free with ftk_trigger_free(), or a negative
 * errno.
 */
FTK_API int ftk_trigger_list(struct ftk_tracefs *t, const char *glob, struct ftk_trigger **out,
			     size_t *nr)
{
	int ret;

	*out = NULL;
	*nr = 0;
	ret = list_into(t, glob, out, nr);
	if (ret) {
		ftk_trigger_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return ftk_err(ret);
}

/**
 * ftk_trigger_list_all() - every trigger on the system
 * @t: any handle on the tracing directory
 * @out: where the array goes: the top level's, then each instance's
 * @nr: where its length goes
 *
 * Return: as ftk_trigger_list().
 */
FTK_API int ftk_trigger_list_all(struct ftk_tracefs *t, struct ftk_trigger **out, size_t *nr)
{
	struct ftk_tracefs *h;
	char **names, **p;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = ftk_instance_list(t, &names);
	if (ret)
		return ret;
	for (p = NULL; !ret; p = p ? p + 1 : names) {
		if (p && !*p)
			break;
		if (ftk_tracefs_open(t->root, p ? *p : NULL, 0, &h))
			continue;	/* removed meanwhile */
		ret = list_into(h, NULL, out, nr);
		ftk_tracefs_close(h);
	}
	ftk_list_free(names);
	if (ret) {
		ftk_trigger_free(*out, *nr);
		*out = NULL;
		*nr = 0;
	}
	return ftk_err(ret);
}

/**
 * ftk_trigger_clear() - remove every trigger of a handle's events
 * @t: the handle
 * @glob: events to clear (see event.h), or NULL for all events and the
 *	  function triggers
 *
 * Removes in the kernel's order (ftk_trigger_sort()). Not journaled. A
 * failure does not stop the others.
 *
 * Return: 0, or the first failure (its text in ftk_tracefs_errmsg()).
 */
FTK_API int ftk_trigger_clear(struct ftk_tracefs *t, const char *glob)
{
	struct ftk_trigger *v;
	int ret, first = 0;
	size_t nr, i;

	ret = ftk_trigger_list(t, glob, &v, &nr);
	if (ret)
		return ret;
	ftk_trigger_sort(v, nr);
	for (i = 0; i < nr; i++) {
		ret = ftk_trigger_remove(t, v[i].event, v[i].text);
		if (ret && !first)
			first = ret;
	}
	ftk_trigger_free(v, nr);
	return ftk_err(first);
}

/**
 * ftk_trigger_free() - free an array of triggers
 * @v: the array, or NULL
 * @nr: its length
 */
FTK_API void ftk_trigger_free(struct ftk_trigger *v, size_t nr)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < nr; i++) {
		free(v[i].instance);
		free(v[i].event);
		free(v[i].text);
	}
	free(v);
}

/**
 * ftk_trigger_hist_state() - pause, continue or clear an event's hist triggers
 * @t: the handle
 * @event: "system:event"
 * @state: "pause", "cont" or "clear"
 *
 * Appends ":@state" to each hist trigger of @event, as the kernel's
 * documentation says. A state is not a trigger of its own: nothing is
 * journaled (a paused trigger is removed with the trigger).
 *
 * Return: the number of hist triggers changed (0: none), or a negative
 * errno with the reason in ftk_tracefs_errmsg().
 */
FTK_API int ftk_trigger_hist_state(struct ftk_tracefs *t, const char *event, const char *state)
{
	struct ftk_trigger *v = NULL;
	char file[512], *rm, *w;
	size_t nr = 0, i;
	int ret, n = 0;

	if (strcmp(state, "pause") && strcmp(state, "cont") && strcmp(state, "clear"))
		return ftk_err(-EINVAL);
	ret = event_file(t, event, "trigger", file, sizeof(file));
	if (!ret)
		ret = ftk_trigger_list(t, event, &v, &nr);
	for (i = 0; !ret && i < nr; i++) {
		if (strncmp(v[i].text, "hist", 4))
			continue;
		ret = ftk_trigger_removal(v[i].text, &rm);
		if (ret)
			break;
		if (asprintf(&w, "%s:%s", rm + 1, state) < 0)
			ret = -ENOMEM;
		else
			ret = ftk_tracefs_append(t, file, w), free(w);
		free(rm);
		n++;
	}
	ftk_trigger_free(v, nr);
	return ret ? ftk_err(ret) : n;
}

/**
 * ftk_trigger_latency_ok() - whether in-kernel latency pairing can run here
 * @t: the instance the hist trigger would go in
 * @top: the top level (synthetic_events lives there)
 * @event: "system:event" the trigger would be on
 * @why: receives the reason when it cannot
 * @len: its size
 *
 * Return: 1 when @event has a hist file and the kernel has synthetic
 * events, else 0 with the missing file named in @why.
 */
FTK_API int ftk_trigger_latency_ok(struct ftk_tracefs *t, struct ftk_tracefs *top,
				   const char *event, char *why, size_t len)
{
	char file[512];

	if (event_file(t, event, "hist", file, sizeof(file)) || !ftk_tracefs_exists(t, file)) {
		snprintf(why, len, "no hist triggers here (%s is absent)", file);
		return 0;
	}
	if (!ftk_tracefs_exists(top, "synthetic_events")) {
		snprintf(why, len, "no synthetic events here (synthetic_events is absent)");
		return 0;
	}
	return 1;
}

/**
 * ftk_trigger_hist() - the output of an event's hist triggers
 * @t: the handle
 * @event: "system:event"
 * @out: where the malloc'd text goes
 *
 * Return: 0, -FTK_E_NOEVENT, -ENOENT when the kernel has no hist triggers
 * (reason in ftk_tracefs_errmsg()), or a read error.
 */
FTK_API int ftk_trigger_hist(struct ftk_tracefs *t, const char *event, char **out)
{
	char file[512];
	int ret;

	*out = NULL;
	ret = event_file(t, event, "trigger", file, sizeof(file));
	if (ret)
		return ftk_err(ret);
	event_file(t, event, "hist", file, sizeof(file));
	if (!ftk_tracefs_exists(t, file)) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "%.400s is absent (kernel built without CONFIG_HIST_TRIGGERS)", file);
		t->errdetail[0] = '\0';
		return ftk_err(-ENOENT);
	}
	return ftk_tracefs_read(t, file, out);
}

/**
 * ftk_trigger_func_add() - add a function trigger
 * @t: the handle
 * @func: a function name or glob ("do_sys_open*")
 * @command: "traceon[:N]", "traceoff[:N]", "stacktrace[:N]", "snapshot[:N]",
 *	     "enable_event:SYS:EV[:N]", "disable_event:SYS:EV[:N]", "dump", "cpudump"
 *
 * Written to set_ftrace_filter as "func:command"; its removal is journaled.
 *
 * Return: 0, or the write's negative errno (-EPERM where the kernel forbids
 * function tracing).
 */
FTK_API int ftk_trigger_func_add(struct ftk_tracefs *t, const char *func, const char *command)
{
	char *w = NULL, *undo = NULL;
	int ret;

	if (!*func || !*command || strpbrk(func, ": \n!") || strchr(command, '\n')) {
		snprintf(t->errmsg, sizeof(t->errmsg), "bad function trigger '%.200s:%.200s'",
			 func, command);
		t->errdetail[0] = '\0';
		return ftk_err(-EINVAL);
	}
	ret = ftk_trigger_removal(command, &undo);
	if (ret)
		return ret;
	if (asprintf(&w, "%s:%s", func, command) < 0) {
		free(undo);
		return ftk_err(-ENOMEM);
	}
	ret = ftk_tracefs_append(t, "set_ftrace_filter", w);
	free(w);
	if (!ret) {
		/* A counted one goes with ":0". */
		if (asprintf(&w, "!%s:%s%s", func, undo + 1,
			     strcmp(undo + 1, command) ? ":0" : "") < 0)
			ret = -ENOMEM;
		else
			ret = ftk_tracefs_undo(t, "set_ftrace_filter", w, FTK_UNDO_APPEND);
		free(w);
	}
	free(undo);
	return ftk_err(ret);
}

/**
 * ftk_trigger_synth_add() - define a synthetic event
 * @t: any handle (synthetic events are global: they live at the top level)
 * @definition: "NAME TYPE FIELD; TYPE FIELD..." as synthetic_events takes it
 *
 * Its removal ("!NAME") is journaled.
 *
 * Return: 0, -ENOENT when the kernel has no synthetic events, or the
 * write's negative errno with the kernel's reason.
 */
FTK_API int ftk_trigger_synth_add(struct ftk_tracefs *t, const char *definition)
{
	char path[PATH_MAX], *undo;
	size_t n;
	int ret;

	n = strcspn(definition, " \t");
	if (!n || strchr(definition, '\n') || definition[0] == '!')
		return ftk_err(-EINVAL);
	snprintf(path, sizeof(path), "%s/synthetic_events", t->root);
	if (access(path, F_OK)) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "synthetic_events is absent (kernel built without CONFIG_SYNTH_EVENTS)");
		t->errdetail[0] = '\0';
		return ftk_err(-ENOENT);
	}
	if (asprintf(&undo, "!%.*s", (int)n, definition) < 0)
		return ftk_err(-ENOMEM);
	ret = ftk_tracefs_append(t, path, definition);
	if (!ret)
		ret = ftk_tracefs_undo(t, path, undo, FTK_UNDO_APPEND);
	free(undo);
	return ftk_err(ret);
}

/* "sys:event" into @sys and @ev; -EINVAL if it is not that shape. */
static int split_event(const char *event, char *sys, char *ev, size_t len)
{
	size_t n = event ? strcspn(event, ":") : 0;

	if (!n || !event[n] || !event[n + 1] || n >= len || strlen(event + n + 1) >= len)
		return -EINVAL;
	snprintf(sys, len, "%.*s", (int)n, event);
	snprintf(ev, len, "%s", event + n + 1);
	return 0;
}

/* The i-th of a comma list (into @buf), or NULL past its end. */
static const char *nth(const char *list, int i, char *buf, size_t len)
{
	const char *p = list;
	size_t n;

	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NULL;
	n = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return buf;
}

/* libtracefs's text of the synthetic event and its two hists, built from @o. */
static int latency_texts(struct ftk_tracefs *t, const struct ftk_trigger_latency_opts *o,
			 char **def, char **start, char **end)
{
	char ssys[128], sev[128], esys[128], eev[128], k1[128], k2[128];
	const char *systems[3] = { ssys, esys, NULL };
	char *a_start = NULL, *a_end = NULL, **out[3], *q, size[64] = "";
	struct tracefs_synth *synth = NULL;
	struct tep_handle *tep;
	struct trace_seq seq;
	const char *a, *b;
	int i, ret = -EINVAL;

	*def = *start = *end = NULL;
	if (split_event(o->start, ssys, sev, sizeof(ssys)) ||
	    split_event(o->end, esys, eev, sizeof(esys)) ||
	    !nth(o->start_keys, 0, k1, sizeof(k1)) || !nth(o->end_keys, 0, k2, sizeof(k2)))
		goto bad;
	tep = tracefs_local_events_system(t->root, systems);
	if (!tep) {
		snprintf(t->errmsg, sizeof(t->errmsg), "cannot read the formats of %s and %s",
			 o->start, o->end);
		return -errno ? -errno : -ENOENT;
	}
	synth = tracefs_synth_alloc(tep, o->name, ssys, sev, esys, eev, k1, k2, o->key_name);
	for (i = 1; synth && (a = nth(o->start_keys, i, k1, sizeof(k1))); i++) {
		b = nth(o->end_keys, i, k2, sizeof(k2));
		if (!b || tracefs_synth_add_match_field(synth, a, b, NULL))
			goto fail;
	}
	if (!synth || tracefs_synth_add_compare_field(synth, TRACEFS_TIMESTAMP, TRACEFS_TIMESTAMP,
						      TRACEFS_SYNTH_DELTA_END, "lat"))
		goto fail;
	for (i = 0; o->end_fields && (a = nth(o->end_fields, i, k1, sizeof(k1))); i++)
		if (tracefs_synth_add_end_field(synth, a, NULL))
			goto fail;
	/*
	 * tracefs_synth_show_*() answer only after tracefs_synth_create();
	 * tracefs_synth_echo_cmd() gives the same three texts, one "echo
	 * 'TEXT' >> FILE" line each: the event, the start's hist, the end's.
	 */
	trace_seq_init(&seq);
	if (tracefs_synth_echo_cmd(&seq, synth)) {
		trace_seq_destroy(&seq);
		goto fail;
	}
	trace_seq_terminate(&seq);
	out[0] = def;
	out[1] = &a_start;
	out[2] = &a_end;
	for (i = 0, a = seq.buffer; i < 3 && a; i++) {
		b = strstr(a, "\n");
		if (strncmp(a, "echo '", 6) || !(q = strstr(a, "' >> ")) || (b && q > b))
			break;
		*out[i] = strndup(a + 6, q - a - 6);
		if (!*out[i])
			break;
		a = b ? b + 1 : NULL;
	}
	trace_seq_destroy(&seq);
	if (i < 3) {
		free(a_start);
		free(a_end);
		errno = EPROTO;
		goto fail;
	}
	/* "s:[synthetic/]NAME FIELDS;" is dynamic_events' form: synthetic_events takes "NAME FIELDS" */
	q = *def;
	if (!strncmp(q, "s:", 2))
		q += 2;
	if (!strncmp(q, "synthetic/", 10))
		q += 10;
	memmove(*def, q, strlen(q) + 1);
	for (q = *def + strlen(*def); q > *def && (q[-1] == ';' || q[-1] == ' '); q--)
		q[-1] = '\0';
	if (o->size)
		snprintf(size, sizeof(size), ":size=%u", o->size);
	/* a hist with common_timestamp sets the instance's trace_clock to its own ("global") */
	if (o->clock && strlen(o->clock) < 16 && !strpbrk(o->clock, ": "))
		snprintf(size + strlen(size), sizeof(size) - strlen(size), ":clock=%s", o->clock);
	if (asprintf(start, "%s%s%s%s", a_start, size, o->start_filter ? " if " : "",
		     o->start_filter ? o->start_filter : "") < 0)
		*start = NULL;
	else if (asprintf(end, "%s%s%s%s", a_end, size, o->end_filter ? " if " : "",
			  o->end_filter ? o->end_filter : "") < 0)
		*end = NULL;
	free(a_start);
	free(a_end);
	if (!*start || !*end) {
		ret = -ENOMEM;
		goto out;
	}
	ret = 0;
	goto out;
fail:
	snprintf(t->errmsg, sizeof(t->errmsg), "libtracefs cannot make synthetic event %s from "
		 "%s and %s: %s", o->name, o->start, o->end, strerror(errno ? errno : EINVAL));
	ret = -(errno ? errno : EINVAL);
out:
	tracefs_synth_free(synth);
	tep_free(tep);
	if (ret) {
		free(*def);
		free(*start);
		*def = *start = *end = NULL;
	}
	return ret;
bad:
	snprintf(t->errmsg, sizeof(t->errmsg), "bad latency event: start '%s' (%s), end '%s' (%s)",
		 o->start ? o->start : "", o->start_keys ? o->start_keys : "",
		 o->end ? o->end : "", o->end_keys ? o->end_keys : "");
	return ret;
}

/**
 * ftk_trigger_latency_add() - a synthetic latency event between two events
 * @t: the handle whose events get the hist triggers (an instance, so that
 *     its pid filter holds)
 * @opts: the events, their keys, the fields carried and filters
 *
 * libtracefs's tracefs_synth describes the synthetic event @opts->name
 * (its u64 "lat", END's time stamp minus START's in nanoseconds, the
 * first key as @opts->key_name if given, and @opts->end_fields) and the
 * two hists: one on START keeps its time stamp per key in a variable, one
 * on END matches the key (onmatch) and makes the event. Both keep an
 * entry for every key they ever saw (the kernel frees none): @opts->size
 * sets how many, and what does not fit is counted in their Dropped. They are added
 * through ftk_trigger_synth_add() and ftk_trigger_add(), journaled in @t,
 * so ftk_tracefs_restore() removes them newest first: the END's hist,
 * the START's, then the event. A hist on the event itself (added after)
 * goes before them.
 *
 * Return: 0, -EINVAL for bad options, -ENOENT when the kernel has no
 * synthetic events or hist triggers, or the kernel's refusal (reason in
 * ftk_tracefs_errmsg()).
 */
FTK_API int ftk_trigger_latency_add(struct ftk_tracefs *t,
				    const struct ftk_trigger_latency_opts *opts)
{
	char *def, *start, *end;
	int ret;

	if (!opts || opts->sz < sizeof(*opts) || !opts->name || !*opts->name)
		return ftk_err(-EINVAL);
	ret = latency_texts(t, opts, &def, &start, &end);
	if (ret)
		return ftk_err(ret);
	ret = ftk_trigger_synth_add(t, def);
	if (!ret)
		ret = ftk_trigger_add(t, opts->start, start);
	if (!ret)
		ret = ftk_trigger_add(t, opts->end, end);
	free(def);
	free(start);
	free(end);
	return ftk_err(ret);
}

/*
 * The number after "NAME:" in @s..@end (a word of its own), a bucket's
 * "~ LOW-HIGH" low end too; NAME is the first @n bytes of @list ("pid,lat").
 * An .execname or .syscall key, "NAME [ PID]", reads as the number.
 */
static uint64_t hist_field(const char *s, const char *end, const char *list, size_t n)
{
	char name[64];
	const char *p;

	snprintf(name, sizeof(name), "%.*s", (int)n, list);
	n = strlen(name);
	if (!n)
		return 0;
	for (p = s; p < end && (p = memmem(p, end - p, name, n)); p += n) {
		if (p[n] != ':' || (p > s && p[-1] != ' ' && p[-1] != '{' && p[-1] != ','))
			continue;
		p += n + 1;
		while (*p == ' ' || *p == '~')
			p++;
		if (*p >= '0' && *p <= '9')
			return strtoull(p, NULL, 10);
		/* "NAME [ PID]": the first "[ digits]", a name may hold brackets */
		while (p < end && (p = memchr(p, '[', end - p))) {
			const char *d = ++p;

			while (d < end && *d == ' ')
				d++;
			if (d < end && *d >= '0' && *d <= '9' &&
			    d + strspn(d, "0123456789") < end && d[strspn(d, "0123456789")] == ']')
				return strtoull(d, NULL, 10);
		}
		return 0;
	}
	return 0;
}

/* Each of the comma-separated names of @list read from @s..@end into @out. */
static void hist_fields(const char *s, const char *end, const char *list, uint64_t *out)
{
	const char *k;
	size_t n;
	int i;

	for (i = 0, k = list ? list : ""; *k && i < FTK_TRIGGER_HIST_MAX; i++, k += n + (k[n] == ',')) {
		n = strcspn(k, ",");
		out[i] = hist_field(s, end, k, n);
	}
}

/**
 * ftk_trigger_hist_parse() - read back the text of a hist file
 * @text: the whole text, as ftk_trigger_hist() gives it
 * @match: only the trigger whose "# trigger info:" line holds this text
 *	   ("keys=pid"), or NULL for every trigger of the file
 * @keys: the keys to read from each row, comma-separated ("pid,lat"): a
 *	  number, a bucket's low end, the PID of an .execname key
 * @vals: the values to read, comma-separated ("hitcount,lat")
 * @fn: called with each row, in the file's order; NULL for the totals only
 * @ctx: its first argument
 * @tot: receives the totals (of the last trigger matched), or NULL
 *
 * The kernel's hist file has no machine-readable form; this is the one
 * reader of its text in ftkit (the latency tools, fttop).
 *
 * Return: the number of rows, or -EINVAL without @text.
 */
FTK_API int ftk_trigger_hist_parse(const char *text, const char *match, const char *keys,
				   const char *vals, ftk_trigger_hist_fn fn, void *ctx,
				   struct ftk_trigger_hist_totals *tot)
{
	const char *line, *next, *brace, *h;
	struct ftk_trigger_hist_row row;
	int in = !match, rows = 0;
	size_t len;

	if (tot)
		memset(tot, 0, sizeof(*tot));
	if (!text)
		return ftk_err(-EINVAL);
	for (line = text; *line; line = next) {
		len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		if (!strncmp(line, "# trigger info:", 15)) {
			in = !match || memmem(line, len, match, strlen(match)) != NULL;
			continue;
		}
		if (!in)
			continue;
		if (tot && (sscanf(line, " Hits: %" SCNu64, &tot->hits) == 1 ||
			    sscanf(line, " Entries: %" SCNu64, &tot->entries) == 1 ||
			    sscanf(line, " Dropped: %" SCNu64, &tot->dropped) == 1))
			continue;
		brace = memchr(line, '}', len);
		if (line[0] != '{' || !brace)
			continue;
		memset(&row, 0, sizeof(row));
		hist_fields(line, brace, keys, row.key);
		hist_fields(brace, line + len, vals, row.val);
		row.text = line;
		h = memmem(brace, line + len - brace, "hitcount:", 9);
		if (!h)
			h = line + len;
		while (h > line && h[-1] == ' ')
			h--;
		row.len = h - line;
		rows++;
		if (fn)
			fn(ctx, &row);
	}
	return rows;
}
