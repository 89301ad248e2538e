/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Histogram internals shared by latency.c and tally.c: a sample is added
 * on the hot path of fttop and the latency tools (a million a second),
 * inline rather than through a call into latency.c.
 */
#ifndef FTKIT_LATENCY_LOCAL_H
#define FTKIT_LATENCY_LOCAL_H

#include <errno.h>
#include <stdint.h>

#include <ftkit/latency.h>

/*
 * Fine slots for percentiles: values below 16 exactly, then sixteen
 * linear sub-slots in each power of two (the four bits after the leading
 * one), so that a percentile is within 1/16 of the true sample.
 */
#define FINE_EXACT	16
#define FINE_SLOTS	(FINE_EXACT + 60 * 16)

/*
 * The log2 slots are sums of fine slots (slot_count()): kept apart, they
 * were one more counter to add to per sample, on the hot path of fttop
 * and the latency tools.
 */
struct ftk_hist {
	uint64_t	fine[FINE_SLOTS];
	uint64_t	count;
	uint64_t	sum;
	uint64_t	min;
	uint64_t	max;
	uint64_t	lin_base;
	uint64_t	lin_step;
	uint64_t	div;		/* buckets of value / div (ftk_hist_scale()); 1 */
	uint64_t	*lin;
	unsigned int	lin_nr;
};

static inline unsigned int bitlen(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

static inline unsigned int fine_index(uint64_t v)
{
	unsigned int s;

	if (v < FINE_EXACT)
		return v;
	s = bitlen(v);
	return FINE_EXACT + (s - 5) * 16 + ((v >> (s - 5)) & 15);
}

/*
 * ftk_hist_add_n() of one sample, without the product's overflow check:
 * count, sum, min and max of the value as given, the slots of its
 * bucketed value (value / div).
 */
static inline void hist_add1(struct ftk_hist *h, uint64_t value)
{
	uint64_t b;

	if (!h->count || value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	h->count++;
	h->sum = value > UINT64_MAX - h->sum ? UINT64_MAX : h->sum + value;
	b = h->div > 1 ? value / h->div : value;
	h->fine[fine_index(b)]++;
	if (h->lin) {
		uint64_t i = b < h->lin_base ? 0 : (b - h->lin_base) / h->lin_step;

		h->lin[i >= h->lin_nr ? h->lin_nr - 1 : i]++;
	}
}

/* ftk_lattab_add() on a row the caller looked up (ftk_lattab_row()) and kept. */
static inline int ftk_lat_row_add(struct ftk_lat_row *r, unsigned long long latency, int failed)
{
	if (!r->hist && !(r->hist = ftk_hist_new()))
		return -ENOMEM;
	r->count++;
	if (failed)
		r->errors++;
	hist_add1(r->hist, latency);
	return 0;
}

#endif
