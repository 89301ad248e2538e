// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live: rounds of draining a live ring buffer (the live ftk_tracefile's
 * streams and merge), with the records of a round that may still be
 * overtaken held back until the next, so that consumers that pair events
 * across CPUs (a wake-up on one, the switch on another) see time order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include <ftkit/live.h>
#include <ftkit/merge.h>
#include <ftkit/stream.h>
#include <ftkit/tracefile.h>

/*
 * A record stamped just before a drain begins may still be being
 * committed (reserve and commit happen with preemption off, a few
 * microseconds apart): hold this much more back.
 */
#define LIVE_MARGIN_NS	2000000ULL

struct held {
	struct tep_record	rec;
	uint64_t		seq;	/* arrival order, for stable ties */
};

struct ftk_live {
	struct ftk_tracefile	*tf;
	clockid_t		clock;
	int			ordered;
	struct held		**held;	/* sorted by (ts, seq) */
	size_t			nr_held;
	size_t			alloc;
	uint64_t		seq;
	struct ftk_live_stats	st;
	struct ftk_errmsg	err;
};

/**
 * ftk_live_open() - read a live ring buffer in time order
 * @tracing_dir: the tracefs mount, or NULL to find it
 * @instance: the instance, or NULL for the top buffer
 * @out: receives the handle, also on failure (for ftk_live_errmsg());
 *	 close it with ftk_live_close()
 *
 * The instance's trace_clock is read now: with "mono", "mono_raw" or
 * "boot" the records are handed over in time order across rounds.
 *
 * Return: 0, or a negative errno with the reason in ftk_live_errmsg().
 */
FTK_API int ftk_live_open(const char *tracing_dir, const char *instance, struct ftk_live **out)
{
	struct ftk_live *l = calloc(1, sizeof(*l));
	const char *clock;
	int ret;

	*out = l;
	if (!l)
		return ftk_err(-ENOMEM);
	ret = ftk_tracefile_open_live(tracing_dir, instance, FTK_TRACEFILE_NO_PLUGINS, &l->tf);
	if (ret < 0) {
		ftk_errmsg_set(&l->err, 0, NULL, ret, "%s",
			       l->tf ? ftk_tracefile_errmsg(l->tf) : "cannot open the live buffer");
		return ftk_err(ret);
	}
	clock = ftk_tracefile_buffer_clock(l->tf, 0);
	l->ordered = 1;
	if (clock && !strcmp(clock, "mono"))
		l->clock = CLOCK_MONOTONIC;
	else if (clock && !strcmp(clock, "mono_raw"))
		l->clock = CLOCK_MONOTONIC_RAW;
	else if (clock && !strcmp(clock, "boot"))
		l->clock = CLOCK_BOOTTIME;
	else
		l->ordered = 0;
	l->st.ordered = l->ordered;
	return 0;
}

/**
 * ftk_live_close() - close the reader
 * @l: the handle, or NULL
 *
 * Records still held are dropped: read with FTK_LIVE_FINAL first.
 */
FTK_API void ftk_live_close(struct ftk_live *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nr_held; i++)
		free(l->held[i]);
	free(l->held);
	ftk_tracefile_close(l->tf);
	free(l);
}

/**
 * ftk_live_errmsg() - why the last call failed
 * @l: the handle
 *
 * Return: the text, owned by the handle; "" if nothing failed.
 */
FTK_API const char *ftk_live_errmsg(const struct ftk_live *l)
{
	return l ? l->err.text : "out of memory";
}

/**
 * ftk_live_tep() - the event formats of the running system
 * @l: the handle
 *
 * Return: the handle's libtraceevent handle, valid until ftk_live_close().
 */
FTK_API struct tep_handle *ftk_live_tep(const struct ftk_live *l)
{
	return ftk_tracefile_tep(l->tf);
}

static int held_before(const struct held *a, const struct held *b)
{
	return a->rec.ts < b->rec.ts || (a->rec.ts == b->rec.ts && a->seq < b->seq);
}

/* Copy @rec in; the round's records come in time order, so mostly an append. */
static int hold(struct ftk_live *l, const struct tep_record *rec)
{
	struct held *h;
	size_t i;

	if (rec->size < 0)
		return -EINVAL;
	if (l->nr_held == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 1024;
		struct held **v = realloc(l->held, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->held = v;
		l->alloc = n;
	}
	h = malloc(sizeof(*h) + rec->size);
	if (!h)
		return -ENOMEM;
	memset(&h->rec, 0, sizeof(h->rec));
	h->rec.ts = rec->ts;
	h->rec.cpu = rec->cpu;
	h->rec.size = rec->size;
	h->rec.missed_events = rec->missed_events;
	h->rec.data = h + 1;
	memcpy(h + 1, rec->data, rec->size);
	h->seq = l->seq++;
	/* insertion from the end: records held from the last round may be later */
	for (i = l->nr_held; i > 0 && held_before(h, l->held[i - 1]); i--)
		l->held[i] = l->held[i - 1];
	l->held[i] = h;
	l->nr_held++;
	return 0;
}

/**
 * ftk_live_read() - drain the buffer and hand over what is ready
 * @l: the handle
 * @fn: called with each record in time order; the record is valid during
 *	the call only. A non-zero return stops the hand-over (the record
 *	is consumed) and is returned.
 * @ctx: passed to @fn
 * @flags: FTK_LIVE_FINAL to hand over every record, none held back
 *
 * Records are consumed from the ring buffer (trace_pipe_raw), as
 * trace-cmd does; lost events are added to ftk_live_stats().
 *
 * Return: 0, @fn's non-zero return, or a negative errno with the reason
 * in ftk_live_errmsg().
 */
FTK_API int ftk_live_read(struct ftk_live *l, ftk_live_fn fn, void *ctx, unsigned int flags)
{
	uint64_t mark = UINT64_MAX;
	const struct tep_record *rec;
	struct ftk_stream_stats ss;
	struct ftk_merge *m;
	struct timespec now;
	size_t i, done;
	int ret = 0, k;

	if (l->ordered && !(flags & FTK_LIVE_FINAL)) {
		clock_gettime(l->clock, &now);
		mark = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
		mark = mark > LIVE_MARGIN_NS ? mark - LIVE_MARGIN_NS : 0;
	}
	m = ftk_tracefile_merge(l->tf, 0, NULL);
	if (!m)
		return ftk_err(ftk_errmsg_set(&l->err, 0, NULL, -errno, "cannot read %s: %s",
					      ftk_tracefile_path(l->tf), strerror(errno)));
	while ((rec = ftk_merge_peek(m, NULL))) {
		ret = hold(l, rec);
		if (ret < 0)
			break;
		ftk_merge_consume(m);
	}
	for (k = 0; k < ftk_merge_count(m); k++) {
		ftk_stream_stats(ftk_merge_stream(m, k), &ss);
		l->st.lost += ss.missed;
		l->st.lost_unknown += ss.missed_unknown;
	}
	if (ret == 0 && ftk_merge_failed(m))
		ret = ftk_errmsg_set(&l->err, 0, NULL, -EIO, "%s",
				     ftk_stream_errmsg(ftk_merge_failed(m)));
	else if (ret < 0)
		ftk_errmsg_set(&l->err, 0, NULL, ret, "%s: %s", ftk_tracefile_path(l->tf),
			       strerror(-ret));
	ftk_merge_free(m);
	if (ret < 0)
		return ftk_err(ret);
	for (done = 0; done < l->nr_held && l->held[done]->rec.ts <= mark; done++) {
		l->st.records++;
		ret = fn(ctx, &l->held[done]->rec);
		if (ret) {
			done++;
			break;
		}
	}
	for (i = 0; i < done; i++)
		free(l->held[i]);
	memmove(l->held, l->held + done, (l->nr_held - done) * sizeof(*l->held));
	l->nr_held -= done;
	l->st.held = l->nr_held;
	return ret;
}

/**
 * ftk_live_stats() - what the reader saw
 * @l: the handle
 * @st: filled in
 */
FTK_API void ftk_live_stats(const struct ftk_live *l, struct ftk_live_stats *st)
{
	*st = l->st;
}
