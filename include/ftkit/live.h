/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * live: a live ring buffer read while it is written, in time order
 * across CPUs, for tools that aggregate as events come (the latency
 * tools, fttop).
 *
 * Each ftk_live_read() reads every CPU's trace_pipe_raw (the streams and
 * merge of a live ftk_tracefile, kept open across reads) and hands the
 * records stamped before the read began to the callback, in time order and
 * in place (not copied); later ones wait for the next read, in the kernel's
 * buffer or the sub-buffer their stream read last, because a CPU read
 * later in the round may still be writing earlier stamps. This needs a trace clock the reader can read
 * too ("mono", "mono_raw" or "boot": set the instance's trace_clock
 * first); with another clock each round is handed over whole. Enable the
 * events first, too: only the enabled events' formats are read at open,
 * the others' on their first record.
 *
 *	ftk_live_open(NULL, "ftkit-x-123", &l);
 *	while (!stop) {
 *		ftk_live_read(l, fn, ctx, 0);	// fn(ctx, rec) in time order
 *		sleep a little;
 *	}
 *	ftk_live_read(l, fn, ctx, FTK_LIVE_FINAL);	// the rest
 *	ftk_live_close(l);
 */
#ifndef FTKIT_LIVE_H
#define FTKIT_LIVE_H

#include <stdint.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tep_event;
struct tep_handle;
struct tep_record;
struct ftk_live;

enum ftk_live_flags {
	FTK_LIVE_FINAL	= 1 << 0,	/* hand over everything, hold nothing back */
};

/* Called for each record; a non-zero return stops the read and is returned by it. */
typedef int (*ftk_live_fn)(void *ctx, const struct tep_record *rec);

struct ftk_live_stats {
	uint64_t	records;	/* records handed over */
	uint64_t	lost;		/* events the kernel reported lost (overwritten) */
	uint64_t	lost_unknown;	/* sub-buffers flagged lost without a count */
	uint64_t	held;		/* CPUs whose next record waits for the next read */
	int		ordered;	/* 1 if the clock allows holding back (time order kept) */
};

FTK_API int ftk_live_open(const char *tracing_dir, const char *instance, struct ftk_live **out);
FTK_API void ftk_live_close(struct ftk_live *l);
FTK_API const char *ftk_live_errmsg(const struct ftk_live *l);
FTK_API struct tep_handle *ftk_live_tep(const struct ftk_live *l);
FTK_API const char *ftk_live_comm(struct ftk_live *l, int pid);
FTK_API struct tep_event *ftk_live_event(struct ftk_live *l, const char *sys, const char *name);
/* Drain, and hand what is ready to @fn in time order: 0, @fn's non-zero, or a negative errno. */
FTK_API int ftk_live_read(struct ftk_live *l, ftk_live_fn fn, void *ctx, unsigned int flags);
FTK_API void ftk_live_stats(const struct ftk_live *l, struct ftk_live_stats *st);

#ifdef __cplusplus
}
#endif
#endif
