/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * latency: what the latency tools (ftsyscount, ftrunqlat, ftfunclat, ...)
 * and fttop share: pairing start and end events by key, histograms,
 * percentiles, per-key tables, the worst samples, and their rendering.
 *
 * Values are plain integers in whatever unit the caller picked (nsecs,
 * usecs, msecs): a histogram buckets the values it is given, as bcc does
 * after its division, so that "usecs" rows are powers of two of usecs.
 *
 *	struct ftk_pair *p = ftk_pair_new();
 *	struct ftk_hist *h = ftk_hist_new();
 *	on a start event:	ftk_pair_start(p, pid, ts, 0);
 *	on an end event:	if (ftk_pair_end(p, pid, ts, &ns, NULL) == 1)
 *					ftk_hist_add(h, ns / 1000);
 *	at the end:		ftk_hist_print(h, stdout, "usecs");
 *
 * A histogram keeps bcc's log2 slots (slot 0 is never used, slot 1 holds
 * 0 and 1, slot N >= 2 holds [2^(N-1), 2^N - 1]), sixteen linear
 * sub-slots in each for percentiles within 1/16 of the value, count, sum,
 * min and max, and optionally linear buckets of a chosen width.
 */
#ifndef FTKIT_LATENCY_H
#define FTKIT_LATENCY_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- histograms */

#define FTK_HIST_SLOTS	65	/* log2 slots: 0 (unused) to 64 */

struct ftk_hist;

struct ftk_hist_stats {
	uint64_t	count;
	uint64_t	sum;		/* saturates at UINT64_MAX */
	uint64_t	min;		/* 0 when count is 0 */
	uint64_t	max;
};

FTK_API struct ftk_hist *ftk_hist_new(void);
FTK_API void ftk_hist_free(struct ftk_hist *h);
/* Also keep @nr linear buckets of width @step from @base (values outside are clamped). */
FTK_API int ftk_hist_linear(struct ftk_hist *h, uint64_t base, uint64_t step, unsigned int nr);
FTK_API void ftk_hist_add(struct ftk_hist *h, uint64_t value);
/* @n samples of @value (a kernel hist trigger's hitcount). */
FTK_API void ftk_hist_add_n(struct ftk_hist *h, uint64_t value, uint64_t n);
/* Add every sample of @src to @dst (the linear buckets only if both have the same). */
FTK_API int ftk_hist_merge(struct ftk_hist *dst, const struct ftk_hist *src);
/* Forget every sample; the linear layout stays. */
FTK_API void ftk_hist_reset(struct ftk_hist *h);
FTK_API void ftk_hist_stats(const struct ftk_hist *h, struct ftk_hist_stats *st);
/* The log2 slot of a value (1..64), as bcc's bpf_log2l(). */
FTK_API unsigned int ftk_hist_slot(uint64_t value);
/* Samples in log2 slot @slot; 0 out of range. */
FTK_API uint64_t ftk_hist_slot_count(const struct ftk_hist *h, unsigned int slot);
/* The value under which @pct percent of the samples lie (0 <= pct <= 100); 0 if empty. */
FTK_API uint64_t ftk_hist_percentile(const struct ftk_hist *h, double pct);

/* bcc's print_log2_hist(): a header naming @unit, then "low -> high : count |***|". */
FTK_API int ftk_hist_print(const struct ftk_hist *h, FILE *f, const char *unit);
/* bcc's print_linear_hist() over the linear buckets (-EINVAL without any). */
FTK_API int ftk_hist_print_linear(const struct ftk_hist *h, FILE *f, const char *unit);
/* One JSON object: unit, count, sum, min, max, mean, p50/p90/p99/p999, buckets. */
FTK_API int ftk_hist_json(const struct ftk_hist *h, FILE *f, const char *unit);

/* ---------------------------------------------------------------- pairing */

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

/* ---------------------------------------------------------------- per-key tables */

struct ftk_lattab;

/* One key's row; owned by the table, valid until it is freed. */
struct ftk_lat_row {
	uint64_t	key;
	char		*name;		/* NULL until named */
	uint64_t	count;		/* events */
	uint64_t	errors;		/* events marked failed */
	struct ftk_hist	*hist;		/* latencies; NULL if none was added */
};

enum ftk_lattab_sort {
	FTK_LATTAB_BY_COUNT,		/* count, descending */
	FTK_LATTAB_BY_TOTAL,		/* sum of latencies, descending */
	FTK_LATTAB_BY_MAX,		/* largest latency, descending */
	FTK_LATTAB_BY_KEY,		/* key, ascending */
};

FTK_API struct ftk_lattab *ftk_lattab_new(void);
FTK_API void ftk_lattab_free(struct ftk_lattab *t);
/* The row of @key, made (count 0) if new; NULL with errno ENOMEM. */
FTK_API struct ftk_lat_row *ftk_lattab_row(struct ftk_lattab *t, uint64_t key);
/* The row of @key, or NULL if there is none. */
FTK_API struct ftk_lat_row *ftk_lattab_find(const struct ftk_lattab *t, uint64_t key);
/* Name @key's row (a copy of @name is kept; the row is made if new). */
FTK_API int ftk_lattab_name(struct ftk_lattab *t, uint64_t key, const char *name);
/* Count one event of @key, failed or not. */
FTK_API int ftk_lattab_count(struct ftk_lattab *t, uint64_t key, int failed);
/* Count one event of @key that took @latency. */
FTK_API int ftk_lattab_add(struct ftk_lattab *t, uint64_t key, uint64_t latency, int failed);
FTK_API size_t ftk_lattab_len(const struct ftk_lattab *t);
/*
 * The rows sorted @by, into *@out (an array of @return pointers to free()
 * with free(); the rows stay the table's). Ties sort by key. Returns the
 * number of rows, or a negative errno.
 */
FTK_API long ftk_lattab_rows(const struct ftk_lattab *t, enum ftk_lattab_sort by,
			     struct ftk_lat_row ***out);
/* Zero every count and histogram (interval output); names stay. */
FTK_API void ftk_lattab_reset(struct ftk_lattab *t);
/*
 * A JSON array of the rows sorted @by, at most @limit (0: all):
 * {"key":K,"name":"N","count":C,"errors":E,"latency":{ftk_hist_json()}}.
 */
FTK_API int ftk_lattab_json(const struct ftk_lattab *t, FILE *f, enum ftk_lattab_sort by,
			    size_t limit, const char *unit);

/* ---------------------------------------------------------------- the worst samples */

struct ftk_worst;

/* Keep the @nr largest values, each with @size bytes of payload copied in. */
FTK_API struct ftk_worst *ftk_worst_new(unsigned int nr, size_t size);
FTK_API void ftk_worst_free(struct ftk_worst *w);
/* Offer a sample: 1 if kept, 0 if smaller than all @nr kept. */
FTK_API int ftk_worst_add(struct ftk_worst *w, uint64_t value, const void *payload);
/* Samples kept. */
FTK_API unsigned int ftk_worst_len(const struct ftk_worst *w);
/* The @i-th largest (0 is the largest): its payload, and its value in *@value; NULL past the end. */
FTK_API const void *ftk_worst_get(const struct ftk_worst *w, unsigned int i, uint64_t *value);
FTK_API void ftk_worst_reset(struct ftk_worst *w);

/* ---------------------------------------------------------------- syscall names */

/* The name of syscall @nr of this machine's native ABI ("openat"), or NULL if unknown. */
FTK_API const char *ftk_syscall_name(long nr);
/* The number of syscall @name, or -ENOENT. */
FTK_API long ftk_syscall_nr(const char *name);

/* ---------------------------------------------------------------- JSON text */

/* @s (at most @len bytes, or up to its NUL) as a JSON string, quotes included. */
FTK_API void ftk_json_str(FILE *f, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
