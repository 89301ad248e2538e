// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * flight: the latency trigger. A start event and an end event of the same
 * key (sched_wakeup then sched_switch of the woken task; sys_enter then
 * sys_exit of a thread; a user function's uprobe then uretprobe of a
 * thread) are paired, and the first pair further apart than the threshold
 * fires the recorder.
 *
 * In the kernel where it has synthetic events and hist triggers: the
 * start event's hist keeps its time per key, the end event's onmatch()
 * makes a synthetic event with the latency, and a traceoff trigger on it
 * ("if lat > THRESHOLD") stops the flight ring at that very event; a hist
 * on it keeps the task and the latency for the reason.
 *
 * From the stream otherwise: a small second instance (the caller's) holds
 * only the start and end events; every check reads it through ftk_live
 * and pairs with ftk_pair (lib/latency.c), and the first pair over the
 * threshold stops the flight ring from user space, a poll period late.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <ftkit/event.h>
#include <ftkit/latency.h>
#include <ftkit/live.h>
#include <ftkit/probe.h>
#include <ftkit/trigger.h>

#include "flight-local.h"

enum { LAT_WAKEUP, LAT_SYSCALL, LAT_FUNC };

/* a u64 latency at or above this is a negative one wrapped (kernel_setup()) */
#define LAT_NEGATIVE	(UINT64_C(1) << 63)

struct fl_lat {
	int			kind;
	char			*what;		/* the spec's left side, as given */
	long			sysnr;		/* LAT_SYSCALL: its number, -1 for any */
	uint64_t		thr;		/* ns */
	char			thr_text[32];
	unsigned int		flags;
	struct ftk_tracefs	*t, *top, *watch;
	int			kernel, set;
	char			start[2][160];	/* "sys:event"; start[1] may be "" */
	char			end[160];
	char			synth[64];	/* the kernel path's synthetic event */
	/* the stream path */
	struct ftk_live		*live;
	struct ftk_pair		*pair;
	int			id_start[2], id_end;
	struct tep_format_field	*f_key, *f_next, *f_prev, *f_comm, *f_id;
	char			*why;
	size_t			why_len;
	int			fired;
};

static struct tep_event *find(struct tep_handle *tep, const char *sysev);
static int followed(struct fl_lat *w, int pid);
static int field(struct fl_lat *w, struct tep_event *ev, const char *name,
		 struct tep_format_field **f, struct ftk_errmsg *err);

/* "20ms", "100us", "1.5s", "500000ns" into ns; -1 if bad. */
static int64_t parse_ns(const char *s)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0 || v > 1e6)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].u))
			return (int64_t)(v * units[i].mul);
	return -1;
}

/**
 * fl_lat_new() - parse the latency trigger of @opts
 *
 * WHAT>TIME: "wakeup", "syscall", "syscall:NAME" or "BINARY:FUNCTION";
 * TIME a number with ns, us, ms or s.
 */
int fl_lat_new(const struct ftk_flight_opts *opts, struct ftk_tracefs *t, struct fl_lat **out,
	       struct ftk_errmsg *err)
{
	const char *spec = opts->latency, *gt = strrchr(spec, '>');
	struct fl_lat *w;
	int64_t ns;

	*out = NULL;
	if (!gt || gt == spec)
		return ftk_errmsg_set(err, 0, NULL, -EINVAL,
				      "bad latency trigger '%s': WHAT>TIME, as 'wakeup>20ms'", spec);
	ns = parse_ns(gt + 1);
	if (ns <= 0)
		return ftk_errmsg_set(err, 0, NULL, -EINVAL, "bad latency threshold '%s' in '%s': "
				      "a number with ns, us, ms or s", gt + 1, spec);
	if (!opts->top || (!opts->watch && (opts->flags & FTK_FLIGHT_LAT_STREAM)))
		return ftk_errmsg_set(err, 0, NULL, -EINVAL,
				      "a latency trigger needs the top level and a watch instance");
	w = calloc(1, sizeof(*w));
	if (!w || !(w->what = strndup(spec, gt - spec)) || !(w->pair = ftk_pair_new())) {
		fl_lat_free(w);
		return -ENOMEM;
	}
	w->thr = ns;
	snprintf(w->thr_text, sizeof(w->thr_text), "%s", gt + 1);
	w->t = t;
	w->top = opts->top;
	w->watch = opts->watch;
	w->flags = opts->flags;
	w->sysnr = -1;
	if (!strcmp(w->what, "wakeup")) {
		w->kind = LAT_WAKEUP;
	} else if (!strcmp(w->what, "syscall") || !strncmp(w->what, "syscall:", 8)) {
		w->kind = LAT_SYSCALL;
		if (w->what[7] && (w->sysnr = ftk_syscall_nr(w->what + 8)) < 0) {
			ftk_errmsg_set(err, 0, NULL, -EINVAL, "bad latency trigger '%s': "
				       "no syscall '%s' here", spec, w->what + 8);
			fl_lat_free(w);
			return -EINVAL;
		}
	} else if (strchr(w->what, ':') && w->what[0] != ':') {
		w->kind = LAT_FUNC;
	} else {
		ftk_errmsg_set(err, 0, NULL, -EINVAL, "bad latency trigger '%s': wakeup, "
			       "syscall[:NAME] or BINARY:FUNCTION before the '>'", spec);
		fl_lat_free(w);
		return -EINVAL;
	}
	*out = w;
	return 0;
}

void fl_lat_free(struct fl_lat *w)
{
	if (!w)
		return;
	ftk_live_close(w->live);
	ftk_pair_free(w->pair);
	free(w->what);
	free(w);
}

int fl_lat_in_kernel(const struct fl_lat *w)
{
	return w->kernel;
}

/* The uprobe and uretprobe of LAT_FUNC at the top level, journaled there. */
static int make_probes(struct fl_lat *w, struct ftk_errmsg *err)
{
	char group[64], spec[4096];
	int i, ret = 0;

	ftk_probe_owner_group(group, sizeof(group));
	for (i = 0; i < 2 && !ret; i++) {
		FTK_OPTS(ftk_probe_opts, po, .group = group, .name = i ? "flight_ret" : "flight");
		struct ftk_probe *p = ftk_probe_new();

		if (!p)
			return -ENOMEM;
		snprintf(spec, sizeof(spec), "%s%s", w->what, i ? "%return" : "");
		ret = ftk_probe_parse(p, spec, &po);
		if (!ret)
			ret = ftk_probe_create(p, w->top, FTK_PROBE_JOURNAL);
		if (ret)
			ftk_errmsg_set(err, 0, NULL, ret, "cannot trace '%s': %s", w->what,
				       ftk_probe_errmsg(p));
		else if (i)
			snprintf(w->end, sizeof(w->end), "%s:%s", group, ftk_probe_name(p));
		else
			snprintf(w->start[0], sizeof(w->start[0]), "%s:%s", group,
				 ftk_probe_name(p));
		ftk_probe_free(p);
	}
	return ret;
}

/* The start and end events of the kind, the probes made. */
static int events(struct fl_lat *w, struct ftk_errmsg *err)
{
	switch (w->kind) {
	case LAT_WAKEUP:
		snprintf(w->start[0], sizeof(w->start[0]), "sched:sched_wakeup");
		snprintf(w->start[1], sizeof(w->start[1]), "sched:sched_wakeup_new");
		snprintf(w->end, sizeof(w->end), "sched:sched_switch");
		return 0;
	case LAT_SYSCALL:
		snprintf(w->start[0], sizeof(w->start[0]), "raw_syscalls:sys_enter");
		snprintf(w->end, sizeof(w->end), "raw_syscalls:sys_exit");
		return 0;
	}
	return make_probes(w, err);
}

static int tfail(struct ftk_errmsg *err, struct ftk_tracefs *t, const char *what, int ret)
{
	return ftk_errmsg_set(err, 0, NULL, ret, "%s: %s", what, ftk_tracefs_errmsg(t)[0] ?
			      ftk_tracefs_errmsg(t) : strerror(-ret));
}

/* --------------------------------------------------------------- the kernel's path */

/* The start event's key field and the end event's, and the end's filter. */
static void keys(const struct fl_lat *w, const char **k_start, const char **k_end)
{
	*k_start = w->kind == LAT_WAKEUP ? "pid" : "common_pid";
	*k_end = w->kind == LAT_WAKEUP ? "next_pid" : "common_pid";
}

/*
 * synthetic NAME(lat, pid); on the start: ts0 per key; on the end:
 * onmatch() makes NAME; on NAME: traceoff and a hist of the crossings.
 */
static int kernel_setup(struct fl_lat *w, struct ftk_errmsg *err)
{
	const char *ks, *ke;
	char def[256], trig[512], sys[160], ev[160];
	struct tep_event *sev;
	int ret;

	keys(w, &ks, &ke);
	/* one onmatch() a hist: sched_wakeup_new stays with the stream path */
	w->start[1][0] = '\0';
	/*
	 * No filter on any hist trigger: the kernel removes a hist trigger
	 * only by its whole text, filter included, and a hist left behind
	 * holds the instance and the synthetic event (EBUSY, seen in the
	 * VM). So one syscall is its own syscalls:sys_enter_NAME pair.
	 */
	if (w->sysnr >= 0) {
		const char *name = w->what + 8;
		char path[200];

		snprintf(path, sizeof(path), "events/syscalls/sys_enter_%s", name);
		if (!ftk_tracefs_exists(w->t, path))
			return ftk_errmsg_set(err, 0, NULL, -ENOENT, "no syscalls:sys_enter_%s", name);
		snprintf(w->start[0], sizeof(w->start[0]), "syscalls:sys_enter_%s", name);
		snprintf(w->end, sizeof(w->end), "syscalls:sys_exit_%s", name);
	}
	snprintf(w->synth, sizeof(w->synth), "ftkit_flight_%d", (int)getpid());
	/* the type of the key passed in: the kernel wants the same */
	snprintf(def, sizeof(def), "%s u64 lat; %s pid", w->synth,
		 w->kind == LAT_WAKEUP ? "pid_t" : "int");
	ret = ftk_trigger_synth_add(w->top, def);
	if (ret)
		return tfail(err, w->top, "synthetic event", ret);
	/*
	 * clock=mono: a hist with timestamps sets the instance's clock, to
	 * "global" unless told; under qemu TCG a wake-up stamped so on one
	 * CPU came out 150 ms after its switch-in on the other, and the wrapped
	 * u64 latency fired the trigger on an ordinary wake-up (the VM lane).
	 * Even with it, CI's VM once made one of -118 ms (a switch-in
	 * stamped before its wake-up). The kernel will not pass a u64
	 * variable to an s64 field, so the filters below bound lat to the
	 * positive half: a negative latency never crosses.
	 */
	snprintf(trig, sizeof(trig), "hist:keys=%s:ftkit_ts0=common_timestamp:clock=mono", ks);
	ret = ftk_trigger_add(w->t, w->start[0], trig);
	if (ret)
		return tfail(err, w->t, w->start[0], ret);
	snprintf(sys, sizeof(sys), "%s", w->start[0]);
	*strchr(sys, ':') = '.';
	snprintf(trig, sizeof(trig), "hist:keys=%s:ftkit_lat=common_timestamp-$ftkit_ts0:clock=mono:"
		 "onmatch(%s).trace(%s,$ftkit_lat,%s)", ke, sys, w->synth, ke);
	ret = ftk_trigger_add(w->t, w->end, trig);
	if (ret)
		return tfail(err, w->t, w->end, ret);
	snprintf(ev, sizeof(ev), "synthetic:%s", w->synth);
	snprintf(trig, sizeof(trig), "traceoff if lat > %" PRIu64 " && lat < %" PRIu64,
		 w->thr, LAT_NEGATIVE);
	ret = ftk_trigger_add(w->t, ev, trig);
	if (!ret)
		ret = ftk_event_enable(w->t, ev, 1);
	if (ret)
		return tfail(err, w->t, ev, ret);
	/* the crossings also into the watch instance, for the reason's task and latency */
	if (w->watch) {
		snprintf(trig, sizeof(trig), "lat > %" PRIu64 " && lat < %" PRIu64, w->thr,
			 LAT_NEGATIVE);
		ret = ftk_event_filter_set(w->watch, ev, trig);
		if (!ret)
			ret = ftk_event_enable(w->watch, ev, 1);
		if (ret)
			return tfail(err, w->watch, ev, ret);
		ret = ftk_live_open(ftk_tracefs_root(w->watch), ftk_tracefs_instance(w->watch),
				    &w->live);
		if (ret)
			return ftk_errmsg_set(err, 0, NULL, ret, "%s", ftk_live_errmsg(w->live));
		sev = find(ftk_live_tep(w->live), ev);
		if (!sev || field(w, sev, "lat", &w->f_key, err) ||
		    field(w, sev, "pid", &w->f_next, err))
			return -ENOENT;
		w->id_end = sev->id;
		ret = ftk_tracefs_write(w->watch, "tracing_on", "1");
		if (ret)
			return tfail(err, w->watch, "tracing_on", ret);
	}
	pr_info("flight: latency trigger in the kernel: %s -> %s, onmatch() makes %s, "
		"traceoff if lat > %" PRIu64 " ns\n", w->start[0], w->end, ev, w->thr);
	return 0;
}

/* Undo a half-made kernel path before the stream path is tried. */
static void kernel_undo(struct fl_lat *w)
{
	struct ftk_trigger *v = NULL;
	char ev[160];
	/* the synthetic event's users first, then the event */
	const char *list[] = { ev, w->end, w->start[0], w->start[1] };
	size_t nr = 0, i;
	int k;

	snprintf(ev, sizeof(ev), "synthetic:%s", w->synth);
	ftk_live_close(w->live);
	w->live = NULL;
	w->f_key = w->f_next = NULL;
	if (w->watch)
		ftk_event_enable(w->watch, ev, 0);
	ftk_event_enable(w->t, ev, 0);
	for (k = 0; k < 4; k++) {
		if (!list[k][0] || ftk_trigger_list(w->t, list[k], &v, &nr))
			continue;
		for (i = 0; i < nr; i++)
			if (strstr(v[i].text, "ftkit_") || strstr(v[i].text, "lat >"))
				ftk_trigger_remove(w->t, list[k], v[i].text);
		ftk_trigger_free(v, nr);
	}
	snprintf(ev, sizeof(ev), "!%s", w->synth);
	ftk_tracefs_append(w->top, "synthetic_events", ev);
	if (w->kind != LAT_FUNC)
		events(w, NULL);	/* the stream's events again */
}

/* --------------------------------------------------------------- the stream's path */

static int field(struct fl_lat *w, struct tep_event *ev, const char *name,
		 struct tep_format_field **f, struct ftk_errmsg *err)
{
	*f = ev ? tep_find_any_field(ev, name) : NULL;
	if (!*f)
		return ftk_errmsg_set(err, 0, NULL, -ENOENT, "event %s has no field '%s'",
				      ev ? ev->name : "?", name);
	(void)w;
	return 0;
}

static struct tep_event *find(struct tep_handle *tep, const char *sysev)
{
	char sys[160], *c;

	snprintf(sys, sizeof(sys), "%s", sysev);
	c = strchr(sys, ':');
	if (!c)
		return NULL;
	*c = '\0';
	return tep_find_event_by_name(tep, sys, c + 1);
}

static int stream_setup(struct fl_lat *w, struct ftk_errmsg *err)
{
	const char *ks, *ke;
	struct tep_event *ev;
	struct tep_handle *tep;
	char filt[64];
	int i, ret;

	if (!w->watch)
		return ftk_errmsg_set(err, 0, NULL, -EINVAL,
				      "the kernel cannot check the latency, and there is no watch instance");
	keys(w, &ks, &ke);
	ret = ftk_tracefs_set(w->watch, "tracing_on", "0");
	/* a clock ftk_live reads too, for the time order of two CPUs' records */
	if (!ret)
		ret = ftk_tracefs_set(w->watch, "trace_clock", "mono");
	if (!ret)
		ret = ftk_tracefs_set(w->watch, "buffer_size_kb", "256");
	if (ret)
		return tfail(err, w->watch, "watch instance", ret);
	snprintf(filt, sizeof(filt), "id == %ld", w->sysnr);
	for (i = 0; i < 2; i++) {
		if (!w->start[i][0])
			continue;
		if (w->sysnr >= 0)
			ret = ftk_event_filter_set(w->watch, w->start[i], filt);
		if (!ret)
			ret = ftk_event_enable(w->watch, w->start[i], 1);
		if (ret == -ENOENT && i)
			ret = 0, w->start[i][0] = '\0';
		if (ret)
			return tfail(err, w->watch, w->start[i], ret);
	}
	if (w->sysnr >= 0)
		ret = ftk_event_filter_set(w->watch, w->end, filt);
	if (!ret)
		ret = ftk_event_enable(w->watch, w->end, 1);
	if (ret)
		return tfail(err, w->watch, w->end, ret);
	ret = ftk_live_open(ftk_tracefs_root(w->watch), ftk_tracefs_instance(w->watch), &w->live);
	if (ret)
		return ftk_errmsg_set(err, 0, NULL, ret, "%s", ftk_live_errmsg(w->live));
	tep = ftk_live_tep(w->live);
	w->id_start[1] = -1;
	for (i = 0; i < 2; i++) {
		if (!w->start[i][0])
			continue;
		ev = find(tep, w->start[i]);
		if (!ev)
			return ftk_errmsg_set(err, 0, NULL, -ENOENT, "no format for %s", w->start[i]);
		w->id_start[i] = ev->id;
		if (field(w, ev, ks, &w->f_key, err))
			return -ENOENT;
	}
	ev = find(tep, w->end);
	if (!ev)
		return ftk_errmsg_set(err, 0, NULL, -ENOENT, "no format for %s", w->end);
	w->id_end = ev->id;
	if (field(w, ev, ke, &w->f_next, err))
		return -ENOENT;
	if (w->kind == LAT_WAKEUP &&
	    (field(w, ev, "prev_pid", &w->f_prev, err) || field(w, ev, "next_comm", &w->f_comm, err)))
		return -ENOENT;
	if (w->kind == LAT_SYSCALL && field(w, ev, "id", &w->f_id, err))
		return -ENOENT;
	ret = ftk_tracefs_write(w->watch, "tracing_on", "1");
	if (ret)
		return tfail(err, w->watch, "tracing_on", ret);
	pr_info("flight: latency trigger from the stream: %s%s%s -> %s in instance %s, "
		"paired by %s in user space, over %" PRIu64 " ns stops the ring\n", w->start[0],
		w->start[1][0] ? " " : "", w->start[1], w->end, ftk_tracefs_instance(w->watch), ke,
		w->thr);
	return 0;
}

static uint64_t num(const struct tep_record *rec, struct tep_format_field *f)
{
	unsigned long long v = 0;

	if (f->offset + f->size <= rec->size)
		tep_read_number_field(f, rec->data, &v);
	return f->flags & TEP_FIELD_IS_SIGNED && f->size == 4 ? (uint64_t)(int32_t)v : v;
}

/* The command name: the record's own (sched_switch) or /proc's. */
static void comm_of(struct fl_lat *w, const struct tep_record *rec, int pid, char *buf, size_t len)
{
	char path[64];
	int fd, n = -1;

	if (w->f_comm && w->f_comm->offset + w->f_comm->size <= rec->size) {
		snprintf(buf, len, "%.*s", w->f_comm->size, (char *)rec->data + w->f_comm->offset);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n - (buf[n - 1] == '\n') : 0] = '\0';
	if (!buf[0])
		snprintf(buf, len, "?");
}

/*
 * Is @pid one the watch instance follows? Its set_event_pid (kept up to
 * date by the kernel with event-fork) lets a wake-up in when either task
 * is followed; the latency counts only for a followed woken task. Read at
 * a crossing only, which is rare.
 */
static int followed(struct fl_lat *w, int pid)
{
	char *list = NULL, *p, *end;
	int yes = 1;
	long v;

	if (ftk_tracefs_read(w->watch, "set_event_pid", &list))
		return 1;
	for (p = list; *p; p = end) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		yes = 0;	/* a list: only what it holds */
		if (v == pid) {
			yes = 1;
			break;
		}
	}
	free(list);
	return yes;
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct fl_lat *w = ctx;
	int type = tep_data_type(ftk_live_tep(w->live), (struct tep_record *)rec);
	uint64_t d, data = 0, key;
	char comm[64], what[96];

	if (type == w->id_start[0] || type == w->id_start[1]) {
		ftk_pair_start(w->pair, num(rec, w->f_key), rec->ts, 0);
		return 0;
	}
	if (type != w->id_end)
		return 0;
	/* a task woken while it still ran: its next switch-in is no wake-up */
	if (w->f_prev)
		ftk_pair_drop(w->pair, num(rec, w->f_prev));
	key = num(rec, w->f_next);
	if (ftk_pair_end(w->pair, key, rec->ts, &d, &data) != 1 || d <= w->thr ||
	    !followed(w, (int)key))
		return 0;
	comm_of(w, rec, (int)key, comm, sizeof(comm));
	if (w->kind == LAT_SYSCALL) {
		const char *name = ftk_syscall_name((long)num(rec, w->f_id));

		snprintf(what, sizeof(what), "syscall %s", name ? name : "?");
	} else {
		snprintf(what, sizeof(what), "%s", w->what);
	}
	snprintf(w->why, w->why_len, "%s latency %.3f ms > %s: pid %d (%s)", what, d / 1e6,
		 w->thr_text, (int)key, comm);
	w->fired = 1;
	return 1;
}

static int discard(void *ctx, const struct tep_record *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

/* The kernel path's crossing, as the watch instance got it: the first one. */
static int on_synth(void *ctx, const struct tep_record *rec)
{
	struct fl_lat *w = ctx;
	uint64_t lat;
	char comm[64];
	int pid;

	if (tep_data_type(ftk_live_tep(w->live), (struct tep_record *)rec) != w->id_end)
		return 0;
	lat = num(rec, w->f_key);
	pid = (int)num(rec, w->f_next);
	comm_of(w, rec, pid, comm, sizeof(comm));
	snprintf(w->why, w->why_len, "%s latency %.3f ms > %s: pid %d (%s)", w->what, lat / 1e6,
		 w->thr_text, pid, comm);
	w->fired = 1;
	return 1;
}

void fl_lat_kernel_reason(struct fl_lat *w, char *why, size_t len)
{
	w->why = why;
	w->why_len = len;
	w->fired = 0;
	if (w->live)
		ftk_live_read(w->live, on_synth, w, FTK_LIVE_FINAL);
	if (!w->fired)
		snprintf(why, len, "%s latency over %s", w->what, w->thr_text);
}

int fl_lat_poll(struct fl_lat *w, char *why, size_t len, struct ftk_errmsg *err)
{
	int ret;

	if (w->kernel || !w->live)
		return 0;
	w->why = why;
	w->why_len = len;
	w->fired = 0;
	ret = ftk_live_read(w->live, on_record, w, 0);
	if (ret < 0)
		return ftk_errmsg_set(err, 0, NULL, ret, "%s", ftk_live_errmsg(w->live));
	return w->fired;
}

int fl_lat_arm(struct fl_lat *w, struct ftk_errmsg *err)
{
	int ret;

	if (w->set) {
		/* what came since the last trigger is no part of the next */
		if (w->live) {
			ftk_live_read(w->live, discard, NULL, FTK_LIVE_FINAL);
			ftk_pair_free(w->pair);
			w->pair = ftk_pair_new();
			if (!w->pair)
				return -ENOMEM;
		}
		return 0;
	}
	ret = events(w, err);
	if (ret)
		return ret;
	w->set = 1;
	/*
	 * The kernel's trigger cannot tell a followed woken task from another
	 * (set_event_pid lets a wake-up in when either task is followed): with
	 * a task filter on the watch instance, the stream's path, which can.
	 */
	if (!(w->flags & FTK_FLIGHT_LAT_STREAM) && w->watch && !followed(w, -1))
		pr_info("flight: a task filter: the latency from the stream, which checks the task\n");
	else if (!(w->flags & FTK_FLIGHT_LAT_STREAM) &&
		 ftk_tracefs_exists(w->top, "synthetic_events")) {
		ret = kernel_setup(w, err);
		if (!ret) {
			w->kernel = 1;
			return 0;
		}
		pr_info("flight: no latency trigger in the kernel (%s): from the stream\n",
			err->text);
		kernel_undo(w);
		ftk_errmsg_clear(err);
	}
	return stream_setup(w, err);
}
