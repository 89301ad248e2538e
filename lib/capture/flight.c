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
 * window is measured. The window is cut at one time stamp on every CPU,
 * the events outside it taken out of the edge pages (see cut(); kbuffer,
 * libtraceevent's page reader, walks the pages).
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

/* A ring page's header: its time stamp, then commit (data size and the missed-events flags). */
#define PAGE_HDR	(8 + sizeof(long))
#define MISSED_EVENTS	(1UL << 31)	/* the kernel lost events before this page */
#define MISSED_STORED	(1UL << 30)	/* ... and stored their count after the data */
#define COMMIT_MASK	((1UL << 30) - 1)	/* the data size */

static unsigned long page_commit(const char *page)
{
	unsigned long commit;

	memcpy(&commit, page + 8, sizeof(commit));
	return commit;
}

/*
 * One pass over @cpu's spool: the newest reason mark of ours (its time
 * stamp into *@ts), and the time from which the spool is whole, into
 * *@whole: the first event of the newest page before @trigger (any page
 * when the trigger is not known yet) that carries the missed-events flag.
 * The kernel sets it on the first page read after its overwriting ring
 * lapped the reader: the CPU's events before that page are gone. 0 when
 * the CPU lost nothing since the recorder was armed. The last event's
 * time stamp goes into *@last (0 without events).
 */
static void scan_spool(struct ftk_flight *f, struct kbuffer *kb, char *page, int fd,
		       uint64_t len, size_t psz, uint64_t trigger, uint64_t *ts, uint64_t *whole,
		       uint64_t *last)
{
	size_t mlen = strlen(FTK_FLIGHT_MARK);
	unsigned long long t;
	uint64_t off;
	int first;
	char *d;

	for (off = 0; off + psz <= len; off += psz) {
		if (pread(fd, page, psz, off) != (ssize_t)psz || kbuffer_load_subbuffer(kb, page))
			continue;
		first = 1;
		for (d = kbuffer_read_event(kb, &t); d; d = kbuffer_next_event(kb, &t)) {
			int size = kbuffer_event_size(kb);

			if (first && (page_commit(page) & MISSED_EVENTS) && (!trigger || t <= trigger))
				*whole = t;
			first = 0;
			*last = t;
			if (!ts || f->print_id < 0 || size < f->buf_off + (int)mlen ||
			    *(uint16_t *)d != f->print_id || *(int32_t *)(d + 4) != f->self ||
			    memcmp(d + f->buf_off, FTK_FLIGHT_MARK, mlen))
				continue;
			if (t > *ts)
				*ts = t;
		}
	}
}

enum { PAGE_BEFORE, PAGE_IN, PAGE_AFTER, PAGE_EMPTY };

/*
 * Keep only the events of @page in [@start, @end]. The events before
 * @start go by moving the rest to the front: the page's time stamp
 * becomes the first kept event's and that event's delta 0, so the
 * records after it (deltas, time extends, absolute stamps) stay as they
 * are; the events after @end go by lowering commit, as the kernel's own
 * short pages are. With @clear, the missed-events flags go: the loss
 * they tell of is before the window. Says which of PAGE_* the page was;
 * *@dirty is set when it was changed.
 */
static int trim_page(struct kbuffer *kb, char *page, size_t psz, uint64_t start, uint64_t end,
		     int clear, int *dirty)
{
	const uint32_t delta_mask = __BYTE_ORDER == __LITTLE_ENDIAN ? ~0x1fu : 0x07ffffffu;
	unsigned long commit = page_commit(page), flags, size, missed = 0;
	unsigned long long t, t_a = 0;
	long a = -1, b = -1;
	uint32_t h;
	int any = 0;
	void *d;

	*dirty = 0;
	if ((commit & COMMIT_MASK) > psz - PAGE_HDR)	/* not a page the kernel wrote */
		return PAGE_IN;
	if (kbuffer_load_subbuffer(kb, page))
		return PAGE_EMPTY;
	for (d = kbuffer_read_event(kb, &t); d; d = kbuffer_next_event(kb, &t)) {
		any = 1;
		if (t < start)
			continue;
		if (t > end) {
			b = kbuffer_curr_index(kb);
			break;
		}
		if (a < 0) {
			a = kbuffer_curr_index(kb);
			t_a = t;
		}
	}
	if (!any)
		return PAGE_EMPTY;
	if (a < 0)
		return b < 0 ? PAGE_BEFORE : PAGE_AFTER;
	/* The kernel's flags are int constants: on 64 bits the upper half may be all ones. */
	flags = commit & (MISSED_EVENTS | MISSED_STORED);
	size = commit & COMMIT_MASK;
	if (b < 0)
		b = size;
	if (a == 0 && (unsigned long)b == size && !(clear && flags))
		return PAGE_IN;
	if ((flags & MISSED_STORED) && PAGE_HDR + size + sizeof(long) <= psz)
		memcpy(&missed, page + PAGE_HDR + size, sizeof(missed));
	if (clear)
		flags = 0;
	memmove(page + PAGE_HDR, page + PAGE_HDR + a, b - a);
	memset(page + PAGE_HDR + (b - a), 0, psz - PAGE_HDR - (b - a));
	if (a > 0) {
		uint64_t ts = t_a;

		memcpy(page, &ts, sizeof(ts));
		memcpy(&h, page + PAGE_HDR, sizeof(h));
		h &= ~delta_mask;	/* type_len stays, the delta goes */
		memcpy(page + PAGE_HDR, &h, sizeof(h));
	}
	if ((flags & MISSED_STORED) && PAGE_HDR + (b - a) + sizeof(long) <= psz)
		memcpy(page + PAGE_HDR + (b - a), &missed, sizeof(missed));
	else
		flags &= ~MISSED_STORED;
	commit = (unsigned long)(b - a) | flags;
	memcpy(page + 8, &commit, sizeof(commit));
	*dirty = 1;
	return PAGE_IN;
}

/* Cut @cpu's spool to [@start, @end]: pages out, the two edge pages trimmed. */
static int cut_spool(struct ftk_flight *f, struct kbuffer *kb, char *page, int cpu, int fd,
		     uint64_t len, size_t psz, uint64_t start, uint64_t end)
{
	uint64_t off, from = 0, to = 0;
	int kept = 0, dirty, r;

	for (off = 0; off + psz <= len; off += psz) {
		unsigned long long first;

		if (pread(fd, page, psz, off) != (ssize_t)psz)
			return errno ? -errno : -EIO;
		if (kbuffer_load_subbuffer(kb, page) || !kbuffer_read_event(kb, &first))
			first = start;
		r = trim_page(kb, page, psz, start, end, !kept && first <= start, &dirty);
		if (r == PAGE_AFTER)
			break;
		if (r == PAGE_BEFORE || (r == PAGE_EMPTY && !kept))
			continue;
		if (dirty && pwrite(fd, page, psz, off) != (ssize_t)psz)
			return errno ? -errno : -EIO;
		if (!kept)
			from = off;
		kept = 1;
		to = off + psz;
	}
	return ftk_capture_range(f->cap, cpu, from, to);
}

/*
 * The window: from @before before the trigger to @after after it, and
 * never before the time from which every CPU's spool is whole. The
 * kernel's rings are per CPU and overwrite whole pages: a busy CPU's ring
 * laps and keeps only its last seconds while a quiet one keeps events
 * from long before. Cut at the page, a quiet CPU would show events from
 * a time when the busy one's were already gone; cut at one time stamp,
 * the file holds everything that happened on every CPU in its window.
 */
static int cut(struct ftk_flight *f)
{
	uint64_t len, ts = 0, whole = 0, start = 0, end = UINT64_MAX, w, last;
	struct ftk_capture_cpu ci;
	int ncpus = ftk_capture_cpus(f->cap), cpu, fd, lapped = -1, short_cpu = -1, ret = 0;
	uint64_t limit = UINT64_MAX;
	struct kbuffer *kb;
	size_t psz = 0;
	char *page = NULL;

	kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   __BYTE_ORDER == __LITTLE_ENDIAN ? KBUFFER_ENDIAN_LITTLE :
			   KBUFFER_ENDIAN_BIG);
	if (!kb)
		return -ENOMEM;
	/* The trigger's time first: the losses that count are those before it. */
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (ftk_capture_spool(f->cap, cpu, &fd, &len, &psz))
			continue;
		if (!page && !(page = malloc(psz))) {
			ret = -ENOMEM;
			goto out;
		}
		w = last = 0;
		scan_spool(f, kb, page, fd, len, psz, 0, &ts, &w, &last);
	}
	f->t_trigger = ts;
	if (!page)
		goto out;
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (ftk_capture_spool(f->cap, cpu, &fd, &len, &psz))
			continue;
		w = last = 0;
		scan_spool(f, kb, page, fd, len, psz, ts, NULL, &w, &last);
		if (w > whole) {
			whole = w;
			lapped = cpu;
		}
		/*
		 * A full disk stopped the drain: a CPU that left events unstored
		 * is whole only up to its last stored event, and so is the window.
		 * One that stored none left a few (its reader had not woken yet),
		 * at times no one knows: they are missing, it says so.
		 */
		if (!ftk_capture_failed(f->cap) || ftk_capture_cpu_info(f->cap, cpu, &ci) ||
		    !ci.unstored)
			continue;
		if (!last)
			pr_warn("cpu%d: its %llu events are not stored (the disk is full)\n", cpu,
				(unsigned long long)ci.unstored);
		else if (last < limit) {
			limit = last;
			short_cpu = cpu;
		}
	}
	if (!ts && ftk_capture_failed(f->cap))
		pr_warn("the trigger's mark was not stored (the disk is full): the window is what "
			"was stored\n");
	else if (!ts)
		pr_warn("the trigger's mark is not in the ring: the window is all the ring holds\n");
	if (ts && f->o.before > 0) {
		w = (uint64_t)(f->o.before * 1e9);
		start = w < ts ? ts - w : 0;
	}
	if (ts)
		end = ts + (uint64_t)(f->o.after > 0 ? f->o.after * 1e9 : 0);
	if (limit < end) {
		pr_warn("cpu%d's events after %.6f s are not stored (the disk is full): the window "
			"ends there on every CPU\n", short_cpu, limit / 1e9);
		end = limit;
	}
	if (whole > start) {
		if (ts && f->o.before > 0)
			pr_warn("cpu%d's ring kept only the last %.3f s before the trigger: the window "
				"starts there on every CPU (a larger -b keeps more)\n", lapped,
				whole < ts ? (ts - whole) / 1e9 : 0.0);
		else
			pr_info("cpu%d's ring lapped: the window starts at its oldest event on "
				"every CPU\n", lapped);
		start = whole;
	}
	for (cpu = 0; cpu < ncpus && !ret; cpu++) {
		if (ftk_capture_spool(f->cap, cpu, &fd, &len, &psz))
			continue;
		ret = cut_spool(f, kb, page, cpu, fd, len, psz, start, end);
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
 * and every CPU's events are cut to one window: from @before before the
 * trigger (or the oldest time every CPU's ring still holds, if later) to
 * @after after it.
 * ftk_flight_capture() then gives the capture to write the file from.
 *
 * When the spools' file system fills up (-ENOSPC, -EDQUOT), the drain
 * stops at once and what was stored is still cut to a window, which ends
 * where the first CPU that could not store all its events stopped: the
 * capture can be saved (ftk_capture_shrink() makes it smaller), and the
 * error is returned.
 *
 * Return: 0 or a negative errno (ftk_flight_errmsg()).
 */
FTK_API int ftk_flight_collect(struct ftk_flight *f, ftk_flight_check_fn check, void *arg)
{
	FTK_OPTS(ftk_capture_opts, copts);
	struct timespec t0, now;
	const char *why;
	int ret, full = 0;

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
		if (ftk_capture_failed(f->cap))
			break;
		nap(f->o.poll_ms);
	}
	ret = ftk_tracefs_write(f->t, "tracing_on", "0");
	if (ret)
		fl_fail(f, ret);
	if (ftk_capture_stop(f->cap) && !ret) {
		int failed = ftk_capture_failed(f->cap);

		/* A full disk: what was stored is cut to a window all the same. */
		full = failed == -ENOSPC || failed == -EDQUOT;
		ret = ftk_errmsg_set(&f->err, 0, NULL, full ? failed : -EIO, "%s",
				     ftk_capture_errmsg(f->cap));
	}
	if (!ret || full) {
		int cret = cut(f);

		if (cret && !ret)
			ret = cret;
	}
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
