/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stream internals shared with merge.c and tracefile-read.c. */
#ifndef FTKIT_STREAM_LOCAL_H
#define FTKIT_STREAM_LOCAL_H

#include <stdint.h>

#include <traceevent/event-parse.h>

#include <ftkit/stream.h>

struct ftk_merge;

/*
 * Bytes of valid memory kept after every sub-buffer handed to kbuffer and
 * after every record's data: kbuffer reads entry headers without bounds
 * and libtraceevent reads fields at the offsets the format gives, so a
 * damaged page or a short record must never make them read past the end
 * of an allocation.
 */
#define FTK_STREAM_SLACK	4096

/* A record handed out by ftk_stream_next(): owned by the caller until put. */
struct ftk_record {
	struct tep_record	rec;		/* first: the public view */
	struct ftk_stream	*owner;
	struct ftk_record	*next_free;
	unsigned int		cap;
	unsigned char		data[] __attribute__((aligned(8)));
};

/*
 * Sub-buffers a file stream reads per pread(2), 1 to 32 (the default);
 * call before the first read. The merge of a trace file lowers it when it
 * opens many streams, to keep their buffers within a budget.
 */
void ftk_stream_set_readahead(struct ftk_stream *s, unsigned int subbufs);

/* Drop the record just peeked and peek the next (NULL at the end or on error). */
const struct tep_record *ftk_stream_advance(struct ftk_stream *s);

/*
 * A stream over a live fd that ended because the fd had nothing more for
 * now (EAGAIN, or a read of 0) reads again at its next peek; a stream that
 * failed stays ended. The merge's ftk_merge_resume() does this for all.
 */
void ftk_stream_resume(struct ftk_stream *s);

/*
 * Resume every stream of @m (ftk_stream_resume()) and take those that have
 * a record again back into its order, for a reader that drains live fds
 * round after round without closing them: the record each stream stopped
 * at stays where it is, not copied. 0 or -ENOMEM.
 */
int ftk_merge_resume(struct ftk_merge *m);

/*
 * Call @fn(@ctx, record) for each record of @m stamped at @mark or before,
 * in order, consuming it; the record is valid during the call. Stops at a
 * non-zero return of @fn (that record consumed), which it returns; else 0.
 * After ftk_merge_resume() (before it, nothing is handed over). @count is
 * increased by the records handed over.
 */
typedef int (*ftk_merge_fn)(void *ctx, const struct tep_record *rec);
int ftk_merge_drain(struct ftk_merge *m, unsigned long long mark, ftk_merge_fn fn, void *ctx,
		    uint64_t *count);

/*
 * Decode with libtraceevent's kbuffer also where subbuf.c would (the host's
 * own layout), for t/unit/t0105-subbuf.c, which compares the two; before
 * the first read. 0, -EBUSY after it, or -ENOMEM.
 */
int ftk_stream_use_kbuffer(struct ftk_stream *s);

/*
 * Call @fn(@ctx, record) for every record before it is handed out (peeked
 * or taken): the trace file registers an event's format with
 * libtraceevent there, on the first record of that event.
 */
typedef void (*ftk_stream_hook_fn)(void *ctx, const struct tep_record *rec);
void ftk_stream_set_hook(struct ftk_stream *s, ftk_stream_hook_fn fn, void *ctx);
/*
 * Skip the hook for records whose event id (the 2-byte field at @type_off,
 * in this machine's byte order) is marked in @seen[65536]: the hook has
 * nothing to do for them, and is not called per record then. Not with a
 * time stamp map (whose hook must run for every record).
 */
void ftk_stream_set_hook_seen(struct ftk_stream *s, const unsigned char *seen, int type_off);

/*
 * Map every raw time stamp through @fn(@ctx, stamp) before the fmt's
 * ts_mult/ts_shift and ts_offset are applied: a guest file's TIME_SHIFT
 * samples put its stamps on the host's clock. Call before the first read.
 * It runs in the per-record hook, so that a stream without a map pays
 * nothing for it. Once set, it stays.
 */
typedef unsigned long long (*ftk_stream_ts_fn)(const void *ctx, unsigned long long ts);
void ftk_stream_set_ts_map(struct ftk_stream *s, ftk_stream_ts_fn fn, const void *ctx);

#endif
