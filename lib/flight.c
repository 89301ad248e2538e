// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * flight: the kernel's ring in overwrite mode, a trigger, then the window.
 *
 * Kernel triggers are traceoff triggers (events/SYS/EV/trigger), which
 * work under lockdown and stop the ring at the triggering event itself;
 * the recorder sees tracing_on drop to 0 on its next check; so does a
 * latency trigger checked in the kernel (lib/flight-lat.c). A request of
 * the caller (SIGUSR1) and a latency trigger checked from the stream fire
 * from user space. Either way the reason is
 * written into the instance's trace_marker: the file keeps it as an
 * ordinary mark (trace-cmd report prints it) and its time stamp, taken by
 * the kernel in the trace clock, is the trigger's time, from which the
 * --before cut is measured. The cut is by whole pages: a page is left out
 * when its last event is older than the window (kbuffer walks the pages,
 * libtraceevent's page reader).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include <ftkit/flight.h>
#include <ftkit/trigger.h>

#include "capture-local.h"
#include "flight-local.h"
#include "internal.h"

struct ftk_flight {
	struct ftk_tracefs	*t;
	struct ftk_flight_opts	o;
	struct ftk_capture	*cap;
	struct fl_lat		*lat;		/* the latency trigger, NULL without */
	char			*event, *event_filter, *mark, *spool_dir;
	int			*notrace;
	char			reason[512];
	char			kreason[512];	/* the kernel trigger's reason */
	uint64_t		t_trigger;	/* the reason mark's time stamp; 0 if not found */
	int			print_id;	/* ftrace:print's type, -1 unknown */
	int			buf_off;	/* its buf field's offset */
	pid_t			self;
	int			armed;		/* the triggers are in */
	struct ftk_errmsg	err;
};

static int fl_fail(struct ftk_flight *f, int ret)
{
	return ftk_errmsg_set(&f->err, 0, NULL, ret, "%s", ftk_tracefs_errmsg(f->t)[0] ?
			      ftk_tracefs_errmsg(f->t) : strerror(-ret));
}

static char *dup_or_null(const char *s, int *bad)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*bad = 1;
	return d;
}

/* ftrace:print's id and where its text starts, from its format file. */
static void print_format(struct ftk_flight *f)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_format_field *fl;
	struct tep_event *ev = NULL;
	char *text = NULL;

	f->print_id = -1;
	if (!tep || ftk_tracefs_read(f->t, "events/ftrace/print/format", &text) ||
	    tep_parse_format(tep, &ev, text, strlen(text), "ftrace") || !ev)
		goto out;
	fl = tep_find_field(ev, "buf");
	if (fl) {
		f->print_id = ev->id;
		f->buf_off = fl->offset;
	}
out:
	free(text);
	tep_free(tep);
}

/**
 * ftk_flight_new() - set an instance up as a flight recorder
 * @t: the instance (a private one: its ring is put in overwrite mode)
 * @opts: the window and the kernel triggers, or NULL for SIGUSR1-style
 *        requests only and the whole ring
 * @out: the recorder
 *
 * Switches tracing off, sets options/overwrite and buffer_size_kb, all
 * through @t's restore journal; the first ftk_flight_arm() adds the
 * traceoff triggers (journaled too). The mark trigger
 * leaves out the recorder's own reason marks (common_pid != getpid()).
 * A latency trigger (@opts->latency) is parsed now and set up at the first
 * arm: in the kernel, or in @opts->watch for the stream (lib/flight-lat.c).
 *
 * Return: 0, or a negative errno with the reason in ftk_tracefs_errmsg(@t)
 * (a bad latency trigger: -EINVAL, its reason logged as an error).
 */
FTK_API int ftk_flight_new(struct ftk_tracefs *t, const struct ftk_flight_opts *opts,
			   struct ftk_flight **out)
{
	struct ftk_flight *f;
	char val[64];
	int ret, bad = 0;

	*out = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return ftk_err(-ENOMEM);
	f->t = t;
	f->self = getpid();
	if (opts)
		memcpy(&f->o, opts, opts->sz < sizeof(f->o) ? opts->sz : sizeof(f->o));
	f->o.sz = sizeof(f->o);
	f->event = dup_or_null(f->o.event, &bad);
	f->event_filter = dup_or_null(f->o.event_filter, &bad);
	f->mark = dup_or_null(f->o.mark, &bad);
	f->spool_dir = dup_or_null(f->o.spool_dir, &bad);
	if (f->o.nr_notrace_pids > 0) {
		f->notrace = calloc(f->o.nr_notrace_pids, sizeof(int));
		if (f->notrace)
			memcpy(f->notrace, f->o.notrace_pids, f->o.nr_notrace_pids * sizeof(int));
		else
			bad = 1;
	}
	if (bad) {
		ret = -ENOMEM;
		goto error;
	}
	if (f->mark && (strchr(f->mark, '"') || strchr(f->mark, '\n'))) {
		pr_error("bad mark pattern '%s': no quotes or newlines\n", f->mark);
		ret = -EINVAL;
		goto error;
	}
	if (f->o.latency) {
		ret = fl_lat_new(&f->o, t, &f->lat, &f->err);
		if (ret) {
			pr_error("%s\n", f->err.text);
			goto error;
		}
	}
	if (f->o.poll_ms <= 0)
		f->o.poll_ms = 10;
	ret = ftk_tracefs_set(t, "tracing_on", "0");
	if (!ret)
		ret = ftk_tracefs_set(t, "options/overwrite", "1");
	if (!ret && f->o.buffer_kb) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)f->o.buffer_kb);
		ret = ftk_tracefs_set(t, "buffer_size_kb", val);
	}
	if (ret)
		goto error;
	print_format(f);
	*out = f;
	return 0;
error:
	ftk_flight_free(f);
	return ftk_err(ret);
}

/** ftk_flight_free() - free the recorder and its capture (NULL is fine) */
FTK_API void ftk_flight_free(struct ftk_flight *f)
{
	if (!f)
		return;
	ftk_capture_free(f->cap);
	fl_lat_free(f->lat);
	free(f->event);
	free(f->event_filter);
	free(f->mark);
	free(f->spool_dir);
	free(f->notrace);
	free(f);
}

/*
 * The traceoff triggers, at the first arm: after the caller enabled its
 * events, so that the journal saves their enable files before a trigger
 * puts them in soft mode ("0*", which cannot be written back).
 */
static int add_triggers(struct ftk_flight *f)
{
	struct ftk_tracefs *t = f->t;
	char *trig = NULL;
	int ret = 0;

	if (f->event) {
		if (f->event_filter && asprintf(&trig, "traceoff if %s", f->event_filter) < 0)
			trig = NULL, ret = -ENOMEM;
		if (!ret)
			ret = ftk_trigger_add(t, f->event, trig ? trig : "traceoff");
		snprintf(f->kreason, sizeof(f->kreason), "event %s%s%s", f->event,
			 f->event_filter ? " if " : "", f->event_filter ? f->event_filter : "");
		free(trig);
		trig = NULL;
	}
	if (!ret && f->mark) {
		if (asprintf(&trig, "traceoff if buf ~ \"%s\" && common_pid != %d", f->mark,
			     (int)f->self) < 0) {
			ret = -ENOMEM;
			return ret;
		}
		ret = ftk_trigger_add(t, "ftrace:print", trig);
		free(trig);
		snprintf(f->kreason, sizeof(f->kreason), "mark matching '%s'", f->mark);
	}
	if (!ret && f->lat) {
		ret = fl_lat_arm(f->lat, &f->err);
		if (ret)
			return ret;
		if (fl_lat_in_kernel(f->lat))
			snprintf(f->kreason, sizeof(f->kreason), "latency %s", f->o.latency);
	}
	return ret;
}

/**
 * ftk_flight_arm() - (re)start recording into the ring
 * @f: the recorder
 *
 * Frees the capture of the last trigger (its file must be written by now)
 * and switches tracing on; the first call adds the kernel triggers.
 *
 * Return: 0 or a negative errno, the reason in ftk_flight_errmsg().
 */
FTK_API int ftk_flight_arm(struct ftk_flight *f)
{
	int ret;

	ftk_capture_free(f->cap);
	f->cap = NULL;
	f->reason[0] = '\0';
	f->t_trigger = 0;
	if (!f->armed) {
		ftk_errmsg_clear(&f->err);
		ret = add_triggers(f);
		if (ret)
			return ftk_err(f->err.text[0] ? ret : fl_fail(f, ret));
		f->armed = 1;
	} else if (f->lat) {
		ret = fl_lat_arm(f->lat, &f->err);
		if (ret)
			return ftk_err(ret);
	}
	ret = ftk_tracefs_write(f->t, "tracing_on", "1");
	return ret ? ftk_err(fl_fail(f, ret)) : 0;
}

static int tracing_is_on(struct ftk_flight *f)
{
	char *v = NULL;
	int on = 1;

	if (!ftk_tracefs_read(f->t, "tracing_on", &v))
		on = v[0] != '0';
	free(v);
	return on;
}

static void nap(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal ends it early: the check sees it */
}

/* The reason as a mark in the instance: tracing must be on for it to land. */
static int write_reason(struct ftk_flight *f)
{
	char *text;
	int ret;

	if (asprintf(&text, FTK_FLIGHT_MARK "%s\n", f->reason) < 0)
		return -ENOMEM;
	ret = ftk_tracefs_write(f->t, "tracing_on", "1");
	if (!ret)
		ret = ftk_tracefs_write(f->t, "trace_marker", text);
	free(text);
	if (!ret && f->o.after <= 0)
		ret = ftk_tracefs_write(f->t, "tracing_on", "0");
	return ret;
}

/**
 * ftk_flight_wait() - wait armed until a trigger fires
 * @f: the armed recorder
 * @check: called every poll_ms: FTK_FLIGHT_STOP ends the wait, FTK_FLIGHT_FIRE
 *         triggers with its reason
 * @arg: for @check
 *
 * A kernel trigger is seen as tracing_on gone to 0; its reason is the
 * armed trigger's. The reason mark is written at once.
 *
 * Return: 1 when a trigger fired, 0 when @check stopped the wait, or a
 * negative errno (ftk_flight_errmsg()).
 */
FTK_API int ftk_flight_wait(struct ftk_flight *f, ftk_flight_check_fn check, void *arg)
{
	const char *why = NULL;
	int ret;

	for (;;) {
		if (!tracing_is_on(f)) {
			if (f->lat && fl_lat_in_kernel(f->lat) && !f->event && !f->mark)
				fl_lat_kernel_reason(f->lat, f->reason, sizeof(f->reason));
			else
				snprintf(f->reason, sizeof(f->reason), "%s",
					 f->kreason[0] ? f->kreason : "tracing switched off");
			break;
		}
		ret = f->lat ? fl_lat_poll(f->lat, f->reason, sizeof(f->reason), &f->err) : 0;
		if (ret < 0)
			return ftk_err(ret);
		if (ret) {
			/* stop the ring at once: the window ends at the slow pair */
			ftk_tracefs_write(f->t, "tracing_on", "0");
			break;
		}
		ret = check ? check(arg, &why) : FTK_FLIGHT_WAIT;
		if (ret == FTK_FLIGHT_STOP)
			return 0;
		if (ret == FTK_FLIGHT_FIRE) {
			snprintf(f->reason, sizeof(f->reason), "%s", why ? why : "request");
			break;
		}
		nap(f->o.poll_ms);
	}
	ret = write_reason(f);
	return ret ? ftk_err(fl_fail(f, ret)) : 1;
}

/* Newest reason mark of ours in @cpu's spool: its time stamp into *@ts. */
static void find_reason(struct ftk_flight *f, struct kbuffer *kb, char *page, int fd,
			uint64_t len, size_t psz, uint64_t *ts)
{
	size_t mlen = strlen(FTK_FLIGHT_MARK);
	unsigned long long t;
	uint64_t off;
	char *d;

	for (off = 0; off + psz <= len; off += psz) {
		if (pread(fd, page, psz, off) != (ssize_t)psz || kbuffer_load_subbuffer(kb, page))
			continue;
		for (d = kbuffer_read_event(kb, &t); d; d = kbuffer_next_event(kb, &t)) {
			int size = kbuffer_event_size(kb);

			if (size < f->buf_off + (int)mlen || *(uint16_t *)d != f->print_id ||
			    *(int32_t *)(d + 4) != f->self ||
			    memcmp(d + f->buf_off, FTK_FLIGHT_MARK, mlen))
				continue;
			if (t > *ts)
				*ts = t;
		}
	}
}

/* Bytes of whole pages at the start of the spool whose last event is before @cut. */
static uint64_t pages_before(struct kbuffer *kb, char *page, int fd, uint64_t len, size_t psz,
			     uint64_t cut)
{
	unsigned long long t, last;
	uint64_t off;
	char *d;

	for (off = 0; off + psz <= len; off += psz) {
		if (pread(fd, page, psz, off) != (ssize_t)psz || kbuffer_load_subbuffer(kb, page))
			break;
		last = 0;
		for (d = kbuffer_read_event(kb, &t); d; d = kbuffer_next_event(kb, &t))
			last = t;
		if (last >= cut)
			break;
	}
	return off;
}

/* Find the trigger's time and leave out the pages older than the window. */
static int cut(struct ftk_flight *f)
{
	struct kbuffer *kb;
	uint64_t len, cutoff, ts = 0;
	size_t psz = 0;
	char *page = NULL;
	int cpu, fd, ret = 0;

	kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   __BYTE_ORDER == __LITTLE_ENDIAN ? KBUFFER_ENDIAN_LITTLE :
			   KBUFFER_ENDIAN_BIG);
	if (!kb)
		return -ENOMEM;
	for (cpu = 0; cpu < ftk_capture_cpus(f->cap); cpu++) {
		if (ftk_capture_spool(f->cap, cpu, &fd, &len, &psz))
			continue;
		if (!page && !(page = malloc(psz))) {
			ret = -ENOMEM;
			goto out;
		}
		if (f->print_id >= 0)
			find_reason(f, kb, page, fd, len, psz, &ts);
	}
	f->t_trigger = ts;
	if (!ts)
		pr_warn("the trigger's mark is not in the ring: no --before cut\n");
	if (!ts || f->o.before <= 0)
		goto out;
	cutoff = (uint64_t)(f->o.before * 1e9);
	cutoff = cutoff < ts ? ts - cutoff : 0;
	for (cpu = 0; cpu < ftk_capture_cpus(f->cap); cpu++) {
		if (ftk_capture_spool(f->cap, cpu, &fd, &len, &psz))
			continue;
		ret = ftk_capture_skip(f->cap, cpu, pages_before(kb, page, fd, len, psz, cutoff));
		if (ret)
			break;
	}
out:
	free(page);
	kbuffer_free(kb);
	return ret;
}

/**
 * ftk_flight_collect() - record the window after a trigger and drain the ring
 * @f: the recorder, after ftk_flight_wait() returned 1
 * @check: called every poll_ms during the --after window; FTK_FLIGHT_STOP
 *         ends the window early
 * @arg: for @check
 *
 * A capture (tracing_on left to the recorder) moves the ring's pages into
 * spools while the after window runs, so that the window before the
 * trigger is not overwritten; then tracing goes off, the rest is drained
 * and the pages older than the before window are left out.
 * ftk_flight_capture() then gives the capture to write the file from.
 *
 * Return: 0 or a negative errno (ftk_flight_errmsg()).
 */
FTK_API int ftk_flight_collect(struct ftk_flight *f, ftk_flight_check_fn check, void *arg)
{
	FTK_OPTS(ftk_capture_opts, copts);
	struct timespec t0, now;
	const char *why;
	int ret;

	copts.spool_dir = f->spool_dir;
	copts.notrace_pids = f->notrace;
	copts.nr_notrace_pids = f->o.nr_notrace_pids;
	copts.rt_priority = f->o.rt_priority;
	copts.flags = f->o.capture_flags | FTK_CAPTURE_NO_ONOFF;
	copts.poll_ms = 100;
	ftk_capture_free(f->cap);
	f->cap = NULL;
	ret = ftk_capture_new(f->t, &copts, &f->cap);
	if (ret)
		return ftk_err(fl_fail(f, ret));
	ret = ftk_capture_start(f->cap);
	if (ret)
		return ftk_err(ftk_errmsg_set(&f->err, 0, NULL, ret, "%s",
					      ftk_capture_errmsg(f->cap)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (f->o.after > 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >= f->o.after)
			break;
		if (check && check(arg, &why) == FTK_FLIGHT_STOP)
			break;
		nap(f->o.poll_ms);
	}
	ret = ftk_tracefs_write(f->t, "tracing_on", "0");
	if (ret)
		fl_fail(f, ret);
	if (ftk_capture_stop(f->cap) && !ret)
		ret = ftk_errmsg_set(&f->err, 0, NULL, -EIO, "%s", ftk_capture_errmsg(f->cap));
	if (!ret)
		ret = cut(f);
	return ftk_err(ret);
}

/** ftk_flight_capture() - the capture of the last trigger, to write or inspect */
FTK_API struct ftk_capture *ftk_flight_capture(struct ftk_flight *f)
{
	return f->cap;
}

/** ftk_flight_reason() - why the last trigger fired ("" before one) */
FTK_API const char *ftk_flight_reason(const struct ftk_flight *f)
{
	return f->reason;
}

/** ftk_flight_errmsg() - the last failure's text; owned by the recorder */
FTK_API const char *ftk_flight_errmsg(const struct ftk_flight *f)
{
	return f->err.text;
}
