/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pair: start and end events paired by key (a thread, a request), the
 * time between them handed back: the latency of a call, a wait, an I/O.
 *
 *	on a start event:	ftk_pair_start(p, pid, ts, 0);
 *	on an end event:	if (ftk_pair_end(p, pid, ts, &ns, NULL) == 1)
 *					ftk_hist_add(h, ns / 1000);
 */
#ifndef FTKIT_PAIR_H
#define FTKIT_PAIR_H

#include <stdint.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_pair;

struct ftk_pair_stats {
	uint64_t	starts;		/* ftk_pair_start() calls */
	uint64_t	matched;	/* ends that found their start */
	uint64_t	unmatched;	/* ends without a start (began before tracing) */
	uint64_t	replaced;	/* starts overwritten by a newer one of the same key */
	uint64_t	backwards;	/* ends stamped before their start, dropped */
	uint64_t	pending;	/* starts waiting for their end now */
};

FTK_API struct ftk_pair *ftk_pair_new(void);
FTK_API void ftk_pair_free(struct ftk_pair *p);
/*
 * Remember that @key started at @ts, with @data for the end to pick up.
 * Returns 1 if it replaced an unfinished start of @key, 0 if not, or
 * -ENOMEM.
 */
FTK_API int ftk_pair_start(struct ftk_pair *p, uint64_t key, uint64_t ts, uint64_t data);
/*
 * End @key at @ts: 1 and *@delta = @ts - start (and *@data, either may be
 * NULL) when its start was there, which is then forgotten; 0 when not.
 */
FTK_API int ftk_pair_end(struct ftk_pair *p, uint64_t key, uint64_t ts, uint64_t *delta,
			 uint64_t *data);
/*
 * Starts of one key nest (recursion: a function re-entered by its thread):
 * a stack per key up to @depth deep, an end pairs with the newest start.
 * Call before the first start. 0, or -EINVAL.
 */
FTK_API int ftk_pair_nest(struct ftk_pair *p, unsigned int depth);
/* Forget the start of @key if there is one (all of them, nested): 1 if there was. */
FTK_API int ftk_pair_drop(struct ftk_pair *p, uint64_t key);
FTK_API void ftk_pair_stats(const struct ftk_pair *p, struct ftk_pair_stats *st);

#ifdef __cplusplus
}
#endif
#endif
