// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * event: list, describe, enable and filter trace events.
 *
 * Formats are parsed with libtraceevent (tep_parse_format), the same parser
 * that decodes records later, so what --format shows is what printing uses.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/event.h>
#include <ftkit/perf.h>

#include "internal.h"
#include "tracefs-local.h"

/* Split "sys:ev", "sys/ev" or "word" into @sys and @ev (NULL for a bare word). */
static int split(const char *glob, char *sys, size_t slen, const char **ev)
{
	size_t n = strcspn(glob, ":/");

	if (n >= slen)
		return -ENAMETOOLONG;
	memcpy(sys, glob, n);
	sys[n] = '\0';
	*ev = glob[n] ? glob + n + 1 : NULL;
	if (*ev && strpbrk(*ev, ":/"))
		return -EINVAL;
	return 0;
}

/**
 * ftk_event_match() - whether an event name is selected by a glob
 * @glob: "system:event", "system/event" (fnmatch wildcards allowed in
 *	  both parts) or a bare word (a system, or an event in any system)
 * @event: "system:event"
 *
 * Return: 1 when it matches, 0 when not.
 */
FTK_API int ftk_event_match(const char *glob, const char *event)
{
	char gsys[256], esys[256];
	const char *gev, *eev;

	if (split(glob, gsys, sizeof(gsys), &gev) || split(event, esys, sizeof(esys), &eev) ||
	    !eev)
		return 0;
	if (!gev)
		return !fnmatch(gsys, esys, 0) || !fnmatch(gsys, eev, 0);
	return !fnmatch(gsys, esys, 0) && !fnmatch(gev, eev, 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int no_event(struct ftk_tracefs *t, const char *glob)
{
	snprintf(t->errmsg, sizeof(t->errmsg), "unknown event '%s' (see available_events)", glob);
	t->errdetail[0] = '\0';
	return -FTK_E_NOEVENT;
}

/* Matches of @glob that the handle has: "sys:ev" names, sorted. */
static int list(struct ftk_tracefs *t, const char *glob, char ***out)
{
	char path[512], *text, *line, *next, **l;
	int ret;

	*out = NULL;
	if (glob && !*glob)
		return -EINVAL;
	/* available_events lives at the top level only; instances share it. */
	snprintf(path, sizeof(path), "%s/available_events", t->root);
	ret = ftk_read_file(path, &text, NULL);
	if (ret)
		return ftk_tracefs_fail(t, path, "read", ret);
	l = calloc(1, sizeof(*l));
	if (!l) {
		free(text);
		return -ENOMEM;
	}
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line || (glob && !ftk_event_match(glob, line)))
			continue;
		ret = ftk_list_add(&l, line);
		if (ret)
			break;
	}
	free(text);
	if (ret) {
		ftk_list_free(l);
		return ret;
	}
	qsort(l, ftk_list_len(l), sizeof(*l), cmp_str);
	*out = l;
	return 0;
}

/**
 * ftk_event_list() - the events a glob selects
 * @t: the handle
 * @glob: a selection (see event.h), or NULL for every event
 * @out: where the sorted list of "system:event" names goes
 *
 * Return: 0 and a list to free with ftk_list_free() (empty when nothing
 * matches), or a negative errno with the reason in ftk_tracefs_errmsg().
 */
FTK_API int ftk_event_list(struct ftk_tracefs *t, const char *glob, char ***out)
{
	return ftk_err(list(t, glob, out));
}

/* events/SYS/EV/FILE for "sys:ev". */
static void event_file(const char *event, const char *file, char *buf, size_t len)
{
	size_t n = strcspn(event, ":/");

	snprintf(buf, len, "events/%.*s/%s/%s", (int)n, event, event[n] ? event + n + 1 : "",
		 file);
}

/* Selected events, or -FTK_E_NOEVENT with the glob named in the error text. */
static int select_events(struct ftk_tracefs *t, const char *glob, char ***out)
{
	int ret = list(t, glob, out);

	if (!ret && !**out) {
		ftk_list_free(*out);
		*out = NULL;
		return no_event(t, glob);
	}
	return ret;
}

/*
 * Write @val with @set into file @name of each event @glob selects, all or
 * nothing: a refusal undoes every change of this call.
 */
static int set_each(struct ftk_tracefs *t, const char *glob, const char *name, const char *val,
		    int (*set)(struct ftk_tracefs *t, const char *file, const char *val))
{
	struct undo *mark = ftk_tracefs_mark(t);
	char file[512], **events, **e;
	int ret;

	ret = select_events(t, glob, &events);
	if (ret)
		return ret;
	for (e = events; *e; e++) {
		event_file(*e, name, file, sizeof(file));
		ret = set(t, file, val);
		if (ret)
			break;
	}
	ftk_list_free(events);
	if (ret)
		ftk_tracefs_rollback(t, mark);
	return ret;
}

/* ftk_tracefs_set() for an enable file, left alone when it is in state @val already. */
static int set_enable(struct ftk_tracefs *t, const char *file, const char *val)
{
	char *old;
	int ret;

	ret = ftk_tracefs_read(t, file, &old);
	if (ret)
		return ret;
	/* "0*" and "1*": soft-disabled by an enable_event trigger. */
	if (old[0] == val[0]) {
		free(old);
		return 0;
	}
	old[1] = '\0';
	ret = ftk_tracefs_write(t, file, val);
	if (!ret)
		ret = ftk_tracefs_undo(t, file, old, 0);
	free(old);
	return ret;
}

/**
 * ftk_event_enable() - enable or disable the events of a glob
 * @t: the handle
 * @glob: a selection (see event.h)
 * @on: 1 to enable, 0 to disable
 *
 * Each selected event's enable file is written, its old state journaled.
 * Events already in the wanted state are left alone.
 *
 * Return: 0; -FTK_E_NOEVENT when nothing matches; or the negative errno of
 * the write the kernel refused, with every change of this call undone.
 */
FTK_API int ftk_event_enable(struct ftk_tracefs *t, const char *glob, int on)
{
	return ftk_err(set_each(t, glob, "enable", on ? "1" : "0", set_enable));
}

/**
 * ftk_event_enabled() - the events enabled in the handle
 * @t: the handle
 * @out: where the list of "system:event" names goes (from set_event)
 *
 * Return: 0 and a list to free with ftk_list_free(), or a negative errno.
 */
FTK_API int ftk_event_enabled(struct ftk_tracefs *t, char ***out)
{
	char *text, *line, *next, **l;
	int ret;

	*out = NULL;
	ret = ftk_tracefs_read(t, "set_event", &text);
	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	for (line = text; l && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line && ftk_list_add(&l, line)) {
			ftk_list_free(l);
			l = NULL;
		}
	}
	free(text);
	if (!l)
		return ftk_err(-ENOMEM);
	*out = l;
	return 0;
}

static int add_field(struct ftk_event_field *f, struct tep_format_field *tf, unsigned int extra)
{
	f->name = strdup(tf->name);
	f->type = strdup(tf->type);
	f->offset = tf->offset;
	f->size = tf->size;
	f->flags = extra;
	if (tf->flags & TEP_FIELD_IS_SIGNED)
		f->flags |= FTK_FIELD_SIGNED;
	if (tf->flags & TEP_FIELD_IS_ARRAY)
		f->flags |= FTK_FIELD_ARRAY;
	if (tf->flags & TEP_FIELD_IS_STRING)
		f->flags |= FTK_FIELD_STRING;
	if (tf->flags & TEP_FIELD_IS_DYNAMIC)
		f->flags |= FTK_FIELD_DYNAMIC;
	return f->name && f->type ? 0 : -ENOMEM;
}

/**
 * ftk_event_fields() - the fields of an event, from its format file
 * @t: the handle
 * @event: "system:event" (no wildcards)
 * @out: where the array goes: common fields first, then the event's own
 * @nr: where its length goes
 *
 * Return: 0 and an array to free with ftk_event_fields_free(), or
 * -FTK_E_NOEVENT, -FTK_E_PARSE, or a read error.
 */
FTK_API int ftk_event_fields(struct ftk_tracefs *t, const char *event,
			     struct ftk_event_field **out, size_t *nr)
{
	struct tep_format_field **common = NULL, **own = NULL, **f;
	struct ftk_event_field *v = NULL;
	struct tep_handle *tep = NULL;
	struct tep_event *ev = NULL;
	char file[512], sys[256], *text = NULL;
	const char *name;
	size_t n = 0, cap;
	int ret;

	*out = NULL;
	*nr = 0;
	if (split(event, sys, sizeof(sys), &name) || !name || strpbrk(event, "*?[") ||
	    !*sys || !*name)
		return ftk_err(no_event(t, event));
	event_file(event, "format", file, sizeof(file));
	if (!ftk_tracefs_exists(t, file))
		return ftk_err(no_event(t, event));
	ret = ftk_tracefs_read(t, file, &text);
	if (ret)
		return ret;
	tep = tep_alloc();
	if (!tep) {
		ret = -ENOMEM;
		goto out;
	}
	if (tep_parse_format(tep, &ev, text, strlen(text), sys) || !ev) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%.400s: cannot parse the format", file);
		ret = -FTK_E_PARSE;
		goto out;
	}
	common = tep_event_common_fields(ev);
	own = tep_event_fields(ev);
	if (!common || !own) {
		ret = -ENOMEM;
		goto out;
	}
	cap = ev->format.nr_common + ev->format.nr_fields;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	for (f = common; *f && n < cap && !ret; f++)
		ret = add_field(&v[n++], *f, FTK_FIELD_COMMON);
	for (f = own; *f && n < cap && !ret; f++)
		ret = add_field(&v[n++], *f, 0);
	if (ret)
		goto out;
	*out = v;
	*nr = n;
	v = NULL;
out:
	if (v)
		ftk_event_fields_free(v, n);
	free(common);
	free(own);
	tep_free(tep);
	free(text);
	return ftk_err(ret);
}

/**
 * ftk_event_fields_free() - free what ftk_event_fields() returned
 * @fields: the array, or NULL
 * @nr: its length
 */
FTK_API void ftk_event_fields_free(struct ftk_event_field *fields, size_t nr)
{
	size_t i;

	if (!fields)
		return;
	for (i = 0; i < nr; i++) {
		free(fields[i].name);
		free(fields[i].type);
	}
	free(fields);
}

/**
 * ftk_event_filter_set() - set or clear the filter of the events of a glob
 * @t: the handle
 * @glob: a selection (see event.h)
 * @filter: the filter ("prev_pid == 1 && comm ~ \"bash\""), or NULL or "0"
 *	    to clear it
 *
 * Every selected event gets the filter, its old one journaled. The kernel
 * parses it: a bad filter fails with -EINVAL and ftk_tracefs_errmsg() ends
 * with the kernel's reason, ftk_tracefs_errdetail() holds its caret line.
 *
 * Return: 0, -FTK_E_NOEVENT when nothing matches, or the first refusal,
 * with every change of this call undone.
 */
FTK_API int ftk_event_filter_set(struct ftk_tracefs *t, const char *glob, const char *filter)
{
	if (!filter || !*filter)
		filter = "0";
	if (strchr(filter, '\n')) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "bad filter for '%.200s': one line only (it has a newline)", glob);
		return ftk_err(-EINVAL);
	}
	return ftk_err(set_each(t, glob, "filter", filter, ftk_tracefs_set));
}

/**
 * ftk_event_filter_get() - the filter of one event
 * @t: the handle
 * @event: "system:event"
 * @out: where the malloc'd filter text goes; NULL when it has none
 *
 * Return: 0, -FTK_E_NOEVENT, or a read error.
 */
FTK_API int ftk_event_filter_get(struct ftk_tracefs *t, const char *event, char **out)
{
	char file[512], *text;
	int ret;

	*out = NULL;
	event_file(event, "filter", file, sizeof(file));
	if (!ftk_tracefs_exists(t, file))
		return ftk_err(no_event(t, event));
	ret = ftk_tracefs_read(t, file, &text);
	if (ret)
		return ret;
	ftk_strstrip(text);
	if (!strcmp(text, "none") || !*text) {
		free(text);
		return 0;
	}
	*out = text;
	return 0;
}

/**
 * ftk_event_filters() - every event of the handle that has a filter
 * @t: the handle
 * @out: where the list goes: "system:event\tfilter" lines, sorted
 *
 * Return: 0 and a list to free with ftk_list_free(), or a negative errno.
 */
FTK_API int ftk_event_filters(struct ftk_tracefs *t, char ***out)
{
	char **events, **e, **l, *f, *line;
	int ret;

	*out = NULL;
	ret = list(t, NULL, &events);
	if (ret)
		return ftk_err(ret);
	l = calloc(1, sizeof(*l));
	if (!l)
		ret = -ENOMEM;
	for (e = events; !ret && *e; e++) {
		if (ftk_event_filter_get(t, *e, &f) || !f)
			continue;
		if (asprintf(&line, "%s\t%s", *e, f) < 0) {
			ret = -ENOMEM;
		} else {
			ret = ftk_list_add(&l, line);
			free(line);
		}
		free(f);
	}
	ftk_list_free(events);
	if (ret) {
		ftk_list_free(l);
		return ftk_err(ret);
	}
	*out = l;
	return 0;
}

/**
 * ftk_event_pid_set() - trace events only of some PIDs, or not of them
 * @t: the handle
 * @pids: PIDs separated by spaces or commas; "" clears the list
 * @notrace: 0 for set_event_pid, 1 for set_event_notrace_pid
 *
 * Return: 0, -EINVAL for a bad PID, or the write's negative errno; the old
 * list is journaled.
 */
FTK_API int ftk_event_pid_set(struct ftk_tracefs *t, const char *pids, int notrace)
{
	const char *file = notrace ? "set_event_notrace_pid" : "set_event_pid";
	char *v, *p;
	int ret;

	v = strdup(pids);
	if (!v)
		return ftk_err(-ENOMEM);
	for (p = v; *p; p++) {
		if (*p == ',')
			*p = ' ';
		else if (*p != ' ' && (*p < '0' || *p > '9'))
			break;
	}
	if (*p) {
		snprintf(t->errmsg, sizeof(t->errmsg), "bad PID list '%s'", pids);
		free(v);
		return ftk_err(-EINVAL);
	}
	ret = ftk_tracefs_set(t, file, v);
	free(v);
	return ftk_err(ret);
}

static int tp_dir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static bool tp_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The entries of @dir matching @glob (all of it when no glob): sorted names, or -errno. */
static int tp_names(const char *dir, const char *glob, struct dirent ***out)
{
	struct dirent **d = NULL;
	int n;

	if (!tp_is_glob(glob)) {
		*out = NULL;
		return 1;
	}
	n = scandir(dir, &d, tp_dir_filter, alphasort);
	if (n < 0)
		return -errno;
	*out = d;
	return n;
}

static void tp_names_free(struct dirent **d, int n)
{
	int i;

	for (i = 0; d && i < n; i++)
		free(d[i]);
	free(d);
}

/* struct ftk_tracepoints' ids(): events/SYS/EV/id of each match, in sorted order. */
static int tp_ids(void *arg, const char *sys, const char *ev, ftk_tracepoint_fn fn, void *ctx)
{
	struct dirent **sd = NULL, **ed = NULL;
	char dir[4096], sdir[4096 + 256], file[1024], *text, *end;
	int nsys, nev, i, j, ret;
	struct ftk_tracefs *t;
	unsigned long long id;

	ret = ftk_tracefs_open(arg, NULL, 0, &t);
	if (ret)
		return ret;
	ret = ftk_tracefs_path(t, "events", dir, sizeof(dir));
	nsys = ret ? ret : tp_names(dir, sys, &sd);
	if (nsys < 0)
		ret = nsys;
	for (i = 0; !ret && i < nsys; i++) {
		const char *s = sd ? sd[i]->d_name : sys;

		if (sd && fnmatch(sys, s, 0))
			continue;
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, s);
		nev = tp_names(sdir, ev, &ed);
		for (j = 0; !ret && j < nev; j++) {
			const char *e = ed ? ed[j]->d_name : ev;

			if (ed && fnmatch(ev, e, 0))
				continue;
			snprintf(file, sizeof(file), "events/%s/%s/id", s, e);
			if (ftk_tracefs_read(t, file, &text))
				continue;
			errno = 0;
			id = strtoull(text, &end, 10);
			free(text);
			if (!errno)
				ret = fn(ctx, s, e, id);
		}
		tp_names_free(ed, nev);
		ed = NULL;
	}
	tp_names_free(sd, nsys);
	ftk_tracefs_close(t);
	return ret;
}

/* struct ftk_tracepoints' field(): @field's offset, from SYS:EV's format. */
static int tp_field(void *arg, const char *sys, const char *ev, const char *field, uint32_t *off)
{
	struct ftk_event_field *f = NULL;
	struct ftk_tracefs *t;
	char name[512];
	size_t nr = 0, i;
	int ret;

	ret = ftk_tracefs_open(arg, NULL, 0, &t);
	if (ret)
		return ret;
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	ret = ftk_event_fields(t, name, &f, &nr);
	for (i = 0; !ret && i < nr && strcmp(f[i].name, field); i++)
		;
	if (!ret && i == nr)
		ret = -ENOENT;
	if (!ret)
		*off = f[i].offset;
	ftk_event_fields_free(f, nr);
	ftk_tracefs_close(t);
	return ret;
}

/**
 * ftk_event_tracepoints() - hand tracepoints to the perf side
 * @root: the tracing directory, or NULL to find it (as ftk_tracefs_open());
 *	  kept, not copied: it must outlive @tp's use
 * @tp: filled: its look-ups read tracefs when called (events/SYS/EV/id,
 *	and a field's offset from events/SYS/EV/format), not now
 *
 * The perf side (ftk_perf_new(), struct ftk_sample_opts' tracepoints,
 * ftk_profile_open()) reads no tracefs itself: a tool fills this from the
 * control side and hands it in. Where tracefs cannot be found, a look-up
 * fails with the reason (-ENOENT, -ENODEV), and only then.
 */
FTK_API void ftk_event_tracepoints(const char *root, struct ftk_tracepoints *tp)
{
	tp->ids = tp_ids;
	tp->field = tp_field;
	tp->arg = (void *)root;
}
