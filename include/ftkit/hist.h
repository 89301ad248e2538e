/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hist: histograms of latencies as bcc keeps them, with percentiles.
 *
 * Values are plain integers in whatever unit the caller picked (nsecs,
 * usecs, msecs): a histogram buckets the values it is given, as bcc does
 * after its division, so that "usecs" rows are powers of two of usecs.
 * A histogram keeps bcc's log2 slots (slot 0 is never used, slot 1 holds
 * 0 and 1, slot N >= 2 holds [2^(N-1), 2^N - 1]), sixteen linear
 * sub-slots in each for percentiles within 1/16 of the value, count, sum,
 * min and max, and optionally linear buckets of a chosen width.
 */
#ifndef FTKIT_HIST_H
#define FTKIT_HIST_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/*
 * Add values in a unit @div times finer than the buckets (nsecs bucketed
 * as usecs: 1000): slots, linear buckets and percentiles are of
 * value / @div, count, sum, min and max stay exact. Before any sample.
 */
FTK_API int ftk_hist_scale(struct ftk_hist *h, uint64_t div);
/* @value / @div as a decimal that loses no digit ("296.767"), into @buf; returns @buf. */
FTK_API char *ftk_hist_value_str(char *buf, size_t len, uint64_t value, uint64_t div);
/* Forget every sample; the linear layout stays. */
FTK_API void ftk_hist_reset(struct ftk_hist *h);
/* In the unit the values were added in, whatever the scale. */
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

#ifdef __cplusplus
}
#endif
#endif
