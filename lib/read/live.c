// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * live: rounds of reading a live ring buffer (the live ftk_tracefile's
 * streams and merge), with the records that may still be overtaken held
 * back until the next round, so that consumers that pair events across
 * CPUs (a wake-up on one, the switch on another) see time order.
 *
 * Records are handed out in place, from the sub-buffer each CPU's stream
 * read last: the streams and their merge live as long as the handle, and
 * a round stops at the first record stamped after its mark, which stays
 * in its stream's sub-buffer (the rest in the kernel's buffer) until the
 * next round. Nothing is copied but what read(2) copies out of the kernel.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>

#include "comm-local.h"
#include "internal.h"
#include "stream-local.h"
#include "tracefile-read-local.h"
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

struct ftk_live {
	struct ftk_tracefile	*tf;
	struct ftk_merge	*m;	/* the CPUs' streams, kept across reads */
	clockid_t		clock;
	int			ordered;
	struct ftk_live_stats	st;
	struct ftk_errmsg	err;
	int			comm_miss;	/* the last pid ftk_live_comm() read saved_cmdlines for */
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
 * Formats are read lazily (FTK_TRACEFILE_LAZY): those of the events
 * enabled in the instance now and of the ftrace system at once, any other
 * event's before its first record is handed over. Enable the events a
 * caller looks up by name (tep_find_event_by_name()) before the open,
 * or look them up with ftk_live_event(), which parses a format on demand.
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
	ret = ftk_tracefile_open_live(tracing_dir, instance,
				      FTK_TRACEFILE_NO_PLUGINS | FTK_TRACEFILE_LAZY, &l->tf);
	if (ret < 0) {
		ftk_errmsg_set(&l->err, 0, NULL, ret, "%s",
			       l->tf ? ftk_tracefile_errmsg(l->tf) : "cannot open the live buffer");
		return ftk_err(ret);
	}
	l->m = ftk_tracefile_merge(l->tf, 0, NULL);
	if (!l->m) {
		ret = -errno;
		ftk_errmsg_set(&l->err, 0, NULL, ret, "cannot read %s: %s",
			       ftk_tracefile_path(l->tf), strerror(-ret));
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
	if (!l)
		return;
	ftk_merge_free(l->m);
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
 * It holds the formats of the events enabled when the buffer was opened,
 * of the ftrace system, and of every event a record was handed over of.
 *
 * Return: the handle's libtraceevent handle, valid until ftk_live_close().
 */
FTK_API struct tep_handle *ftk_live_tep(const struct ftk_live *l)
{
	return ftk_tracefile_tep(l->tf);
}

/**
 * ftk_live_comm() - the command name of a task, as the kernel saved it
 * @l: the handle
 * @pid: the task
 *
 * The names come from the kernel's saved_cmdlines, read when the buffer was
 * opened. A task started since (a traced command, a short-lived child) is
 * not among them: for a pid not known, saved_cmdlines is read again, once
 * for each pid in a row that it is asked for, so that a task gone by the
 * time its records are read is still named.
 *
 * Return: the name, or "<...>" if the kernel did not save it; valid until
 * the next call or ftk_live_close().
 */
FTK_API const char *ftk_live_comm(struct ftk_live *l, int pid)
{
	struct tep_handle *tep = ftk_tracefile_tep(l->tf);
	const char *comm = ftk_comm(tep, pid);

	if (strcmp(comm, "<...>") || pid == l->comm_miss)
		return comm;
	l->comm_miss = pid;
	if (tf_live_comms_reload(l->tf))
		return comm;
	return ftk_comm(tep, pid);
}

/**
 * ftk_live_event() - an event of the running system, by name
 * @l: the handle
 * @sys: its system ("sched")
 * @name: its name ("sched_wakeup")
 *
 * Unlike tep_find_event_by_name() on ftk_live_tep(), it also finds an event
 * that was not enabled when the buffer was opened: its format is read from
 * tracefs now.
 *
 * Return: the event, or NULL if the system has no such event.
 */
FTK_API struct tep_event *ftk_live_event(struct ftk_live *l, const char *sys, const char *name)
{
	return tf_live_event(l->tf, sys, name);
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
	uint64_t mark = UINT64_MAX, lost = 0, unknown = 0;
	struct ftk_stream_stats ss;
	struct ftk_stream *s;
	struct timespec now;
	int ret = 0, k;

	if (l->ordered && !(flags & FTK_LIVE_FINAL)) {
		clock_gettime(l->clock, &now);
		mark = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
		mark = mark > LIVE_MARGIN_NS ? mark - LIVE_MARGIN_NS : 0;
	}
	/* the CPUs whose fds ran dry last time may have more now */
	if (ftk_merge_resume(l->m))
		return ftk_err(ftk_errmsg_set(&l->err, 0, NULL, -ENOMEM, "out of memory"));
	ret = ftk_merge_drain(l->m, mark, fn, ctx, &l->st.records);
	l->st.held = 0;
	for (k = 0; k < ftk_merge_count(l->m); k++) {
		s = ftk_merge_stream(l->m, k);
		ftk_stream_stats(s, &ss);
		lost += ss.missed;
		unknown += ss.missed_unknown;
		/* a stream that did not run dry stopped at a record for the next read */
		l->st.held += ftk_stream_peek(s) != NULL;
	}
	l->st.lost = lost;
	l->st.lost_unknown = unknown;
	if (!ret && ftk_merge_failed(l->m))
		ret = ftk_errmsg_set(&l->err, 0, NULL, -EIO, "%s",
				     ftk_stream_errmsg(ftk_merge_failed(l->m)));
	return ret < 0 ? ftk_err(ret) : ret;
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
