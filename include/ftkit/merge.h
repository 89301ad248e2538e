/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Merging per-CPU streams by time stamp.
 *
 * A min-heap over the streams' next records: O(log N) per record, ties go
 * to the stream added first (add them by ascending CPU), streams that are
 * empty or start late are fine.
 *
 *	m = ftk_merge_new();
 *	ftk_merge_add(m, s0); ftk_merge_add(m, s1);
 *	while ((rec = ftk_merge_peek(m, &idx))) {	// earliest, not taken
 *		print(rec);
 *		ftk_merge_consume(m);			// or rec = ftk_merge_next(m)
 *	}
 */
#ifndef FTKIT_MERGE_H
#define FTKIT_MERGE_H

#include <ftkit/common.h>
#include <ftkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_merge;

FTK_API struct ftk_merge *ftk_merge_new(void);
/* Free the merge and close every stream added to it; NULL is fine. */
FTK_API void ftk_merge_free(struct ftk_merge *m);
/* Add @s (the merge now owns it); @tag is returned by peek for records of @s. */
FTK_API int ftk_merge_add(struct ftk_merge *m, struct ftk_stream *s, int tag);
/* Earliest record of all streams, not taken; *tag (if not NULL) gets its stream's tag. */
FTK_API const struct tep_record *ftk_merge_peek(struct ftk_merge *m, int *tag);
/* Drop the record ftk_merge_peek() returned. */
FTK_API void ftk_merge_consume(struct ftk_merge *m);
/* Take the earliest record; the caller owns it until ftk_record_put(). */
FTK_API struct tep_record *ftk_merge_next(struct ftk_merge *m, int *tag);
/* The first stream that failed, or NULL: see ftk_stream_errmsg(). */
FTK_API struct ftk_stream *ftk_merge_failed(const struct ftk_merge *m);
/* Number of streams and the i-th one (in the order added). */
FTK_API int ftk_merge_count(const struct ftk_merge *m);
FTK_API struct ftk_stream *ftk_merge_stream(const struct ftk_merge *m, int i);
FTK_API int ftk_merge_tag(const struct ftk_merge *m, int i);

#ifdef __cplusplus
}
#endif
#endif
