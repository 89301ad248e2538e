// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latency: pairing start and end events by key, log2 and linear
 * histograms with percentiles, per-key tables, the worst samples, and
 * their rendering as bcc prints them and as JSON.
 *
 * Written by hand: libtracefs and libtraceevent read events but keep no
 * aggregates, and the kernel's hist triggers (used by the tools where they
 * exist) hand back text that still has to be bucketed, ranked and printed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/latency.h>

#include "internal.h"
#include "latency-local.h"

/* ---------------------------------------------------------------- histograms */
/* (struct ftk_hist and the one-sample add: latency-local.h) */

/**
 * ftk_hist_slot() - the log2 slot of a value
 * @value: the value
 *
 * As bcc's bpf_log2l(): 1 for 0 and 1, N for [2^(N-1), 2^N - 1].
 *
 * Return: the slot, 1 to 64.
 */
FTK_API unsigned int ftk_hist_slot(uint64_t value)
{
	return value < 2 ? 1 : bitlen(value);
}

/* The samples of log2 slot @slot (ftk_hist_slot()): the fine slots it spans. */
static uint64_t slot_count(const struct ftk_hist *h, unsigned int slot)
{
	unsigned int lo, hi, i;
	uint64_t n = 0;

	if (slot < 1 || slot >= FTK_HIST_SLOTS)
		return 0;
	if (slot <= 4) {	/* below FINE_EXACT: 0-1, 2-3, 4-7, 8-15 */
		lo = slot == 1 ? 0 : 1u << (slot - 1);
		hi = 1u << slot;
	} else {
		lo = FINE_EXACT + (slot - 5) * 16;
		hi = lo + 16;
	}
	for (i = lo; i < hi; i++)
		n += h->fine[i];
	return n;
}


/* Largest value of fine slot @i. */
static uint64_t fine_high(unsigned int i)
{
	unsigned int s, sub;

	if (i < FINE_EXACT)
		return i;
	s = (i - FINE_EXACT) / 16 + 5;
	sub = (i - FINE_EXACT) % 16;
	if (s == 64 && sub == 15)
		return UINT64_MAX;
	return ((uint64_t)(16 + sub + 1) << (s - 5)) - 1;
}

/**
 * ftk_hist_new() - an empty histogram
 *
 * Return: the histogram, to free with ftk_hist_free(); NULL with errno
 * ENOMEM.
 */
FTK_API struct ftk_hist *ftk_hist_new(void)
{
	struct ftk_hist *h = calloc(1, sizeof(*h));

	if (!h)
		return ftk_err_ptr(-ENOMEM);
	return h;
}

/**
 * ftk_hist_free() - free a histogram
 * @h: the histogram, or NULL
 */
FTK_API void ftk_hist_free(struct ftk_hist *h)
{
	if (!h)
		return;
	free(h->lin);
	free(h);
}

/**
 * ftk_hist_linear() - also keep linear buckets
 * @h: the histogram
 * @base: the low value of the first bucket
 * @step: the width of each bucket, 1 or more
 * @nr: the number of buckets, 1 to 1048576
 *
 * Values below @base go in the first bucket, values past the last in the
 * last. Samples added before are not in the linear buckets: call it first.
 *
 * Return: 0, -EINVAL for a bad layout, -ENOMEM.
 */
FTK_API int ftk_hist_linear(struct ftk_hist *h, uint64_t base, uint64_t step, unsigned int nr)
{
	uint64_t *lin;

	if (!h || !step || !nr || nr > (1U << 20))
		return ftk_err(-EINVAL);
	lin = calloc(nr, sizeof(*lin));
	if (!lin)
		return ftk_err(-ENOMEM);
	free(h->lin);
	h->lin = lin;
	h->lin_nr = nr;
	h->lin_base = base;
	h->lin_step = step;
	return 0;
}

/**
 * ftk_hist_scale() - bucket values in a coarser unit than they are added
 * @h: the histogram, with no samples yet
 * @div: the divisor, 1 or more: 1000 to add nanoseconds and bucket
 *	 microseconds
 *
 * The log2 slots, the linear buckets and the percentiles are of the
 * value divided by @div (rounded down, as bcc buckets after its
 * division), while count, sum, min and max stay exact in the unit the
 * values were added in: a mean of 0.3 us stays 300 ns instead of the 0
 * of a sum of values each rounded down to whole microseconds.
 *
 * Return: 0, -EINVAL for a @div of 0, -EBUSY if @h has samples.
 */
FTK_API int ftk_hist_scale(struct ftk_hist *h, uint64_t div)
{
	if (!h || !div)
		return ftk_err(-EINVAL);
	if (h->count)
		return ftk_err(-EBUSY);
	h->div = div;
	return 0;
}

/* The divisor of @h's buckets (ftk_hist_scale()): 1 unless scaled. */
static uint64_t hist_div(const struct ftk_hist *h)
{
	return h->div > 1 ? h->div : 1;
}

/* The decimal digits of a power of ten @div (1000: 3); -1 for other numbers. */
static int pow10_digits(uint64_t div)
{
	int d = 0;

	for (; div > 1 && div % 10 == 0; div /= 10)
		d++;
	return div == 1 ? d : -1;
}

/**
 * ftk_hist_value_str() - a value in a unit @div times coarser, exactly
 * @buf: where to
 * @len: its size
 * @value: the value (nanoseconds)
 * @div: the unit's size in @value's unit (1000 for microseconds)
 *
 * @value / @div with as many decimals as a power of ten @div has zeros,
 * so no digit is lost ("296.767" for 296767 and 1000); six decimals for
 * another @div; no decimals for a @div of 0 or 1.
 *
 * Return: @buf.
 */
FTK_API char *ftk_hist_value_str(char *buf, size_t len, uint64_t value, uint64_t div)
{
	int d = pow10_digits(div);

	if (div <= 1)
		snprintf(buf, len, "%llu", (unsigned long long)value);
	else if (d > 0 && d < 20)	/* a u64 has 19 zeros at most: the bound for the compiler */
		snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(value / div), d & 31,
			 (unsigned long long)(value % div));
	else
		snprintf(buf, len, "%.6f", (double)value / (double)div);
	return buf;
}

/**
 * ftk_hist_add_n() - add samples of one value
 * @h: the histogram
 * @value: the value, in the caller's unit
 * @n: how many samples of it
 */
FTK_API void ftk_hist_add_n(struct ftk_hist *h, uint64_t value, uint64_t n)
{
	unsigned __int128 add = (unsigned __int128)value * n;
	uint64_t b = value / hist_div(h);

	if (!n)
		return;
	if (!h->count || value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	h->count += n;
	h->sum = add > UINT64_MAX - h->sum ? UINT64_MAX : h->sum + (uint64_t)add;
	h->fine[fine_index(b)] += n;
	if (h->lin) {
		uint64_t i = b < h->lin_base ? 0 : (b - h->lin_base) / h->lin_step;

		h->lin[i >= h->lin_nr ? h->lin_nr - 1 : i] += n;
	}
}

/**
 * ftk_hist_add() - add one sample
 * @h: the histogram
 * @value: the value, in the caller's unit
 */
FTK_API void ftk_hist_add(struct ftk_hist *h, uint64_t value)
{
	hist_add1(h, value);
}

/**
 * ftk_hist_merge() - add every sample of one histogram to another
 * @dst: the histogram added to
 * @src: the histogram added
 *
 * The linear buckets are added when both have the same layout, and left
 * alone otherwise. An empty @dst takes @src's scale (ftk_hist_scale()).
 *
 * Return: 0, or -EINVAL for a NULL histogram or two of different scales.
 */
FTK_API int ftk_hist_merge(struct ftk_hist *dst, const struct ftk_hist *src)
{
	unsigned int i;

	if (!dst || !src || (dst->count && src->count && hist_div(dst) != hist_div(src)))
		return ftk_err(-EINVAL);
	if (!dst->count)
		dst->div = src->div;
	if (!src->count)
		return 0;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum = src->sum > UINT64_MAX - dst->sum ? UINT64_MAX : dst->sum + src->sum;
	for (i = 0; i < FINE_SLOTS; i++)
		dst->fine[i] += src->fine[i];
	if (dst->lin && src->lin && dst->lin_nr == src->lin_nr &&
	    dst->lin_base == src->lin_base && dst->lin_step == src->lin_step)
		for (i = 0; i < dst->lin_nr; i++)
			dst->lin[i] += src->lin[i];
	return 0;
}

/**
 * ftk_hist_reset() - forget every sample
 * @h: the histogram; its linear layout stays
 */
FTK_API void ftk_hist_reset(struct ftk_hist *h)
{
	memset(h->fine, 0, sizeof(h->fine));
	h->count = h->sum = h->min = h->max = 0;
	if (h->lin)
		memset(h->lin, 0, h->lin_nr * sizeof(*h->lin));
}

/**
 * ftk_hist_stats() - count, sum, min and max
 * @h: the histogram
 * @st: filled in, in the unit the values were added in (exact, whatever
 *	ftk_hist_scale() said)
 */
FTK_API void ftk_hist_stats(const struct ftk_hist *h, struct ftk_hist_stats *st)
{
	st->count = h->count;
	st->sum = h->sum;
	st->min = h->min;
	st->max = h->max;
}

/**
 * ftk_hist_slot_count() - samples in one log2 slot
 * @h: the histogram
 * @slot: 1 to 64 (see ftk_hist_slot())
 *
 * Return: the count, 0 for a slot out of range.
 */
FTK_API uint64_t ftk_hist_slot_count(const struct ftk_hist *h, unsigned int slot)
{
	return slot_count(h, slot);
}

/**
 * ftk_hist_percentile() - a percentile
 * @h: the histogram
 * @pct: 0 to 100 (clamped); 50 for the median
 *
 * The sample of rank ceil(@pct / 100 * count) is found in its fine slot,
 * whose largest value is returned, clamped to the histogram's min and
 * max: exact below 16 and for the extremes, within 1/16 above. In the
 * unit of the buckets (ftk_hist_scale()).
 *
 * Return: the value, 0 for an empty histogram.
 */
FTK_API uint64_t ftk_hist_percentile(const struct ftk_hist *h, double pct)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (pct <= 0)
		return h->min / hist_div(h);
	if (pct >= 100)
		return h->max / hist_div(h);
	rank = (uint64_t)(pct / 100.0 * (double)h->count);
	if ((double)rank < pct / 100.0 * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	for (i = 0; i < FINE_SLOTS; i++) {
		seen += h->fine[i];
		if (seen >= rank)
			break;
	}
	v = i < FINE_SLOTS ? fine_high(i) : h->max / hist_div(h);
	if (v > h->max / hist_div(h))
		v = h->max / hist_div(h);
	if (v < h->min / hist_div(h))
		v = h->min / hist_div(h);
	return v;
}

/* bcc's _stars(): @width * @val / @max stars, a '+' at the end for values over @max. */
static void put_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	char text[64];
	int i = 0;

	while (i < width && i < (int)sizeof(text) - 1 &&
	       (double)i <= (double)width * (double)val / (double)max - 1)
		text[i++] = '*';
	if (val > max && i)
		text[i - 1] = '+';
	text[i] = '\0';
	fprintf(f, "|%-*s|\n", width, text);
}

/**
 * ftk_hist_print() - the histogram as bcc's print_log2_hist() prints it
 * @h: the histogram
 * @f: where to
 * @unit: the label of the first column ("usecs")
 *
 * A header "     usecs               : count     distribution", then a row
 * "low -> high : count |****|" for every slot from the first up to the
 * last one with samples, with forty stars for the largest count (twenty
 * and wider columns past slot 32). Nothing is printed for an empty one.
 *
 * Return: 0, or -EIO if writing failed.
 */
FTK_API int ftk_hist_print(const struct ftk_hist *h, FILE *f, const char *unit)
{
	uint64_t vmax = 0, low, high, c;
	int i, imax = -1, stars = 40, wide;

	for (i = 0; i < FTK_HIST_SLOTS; i++) {
		c = slot_count(h, i);
		if (c)
			imax = i;
		if (c > vmax)
			vmax = c;
	}
	if (imax <= 0)
		return 0;
	wide = imax > 32;
	if (wide) {
		stars = 20;
		fprintf(f, "               %-29s : count     distribution\n", unit);
	} else {
		fprintf(f, "     %-19s : count     distribution\n", unit);
	}
	for (i = 1; i <= imax; i++) {
		/* bcc's rows: slot 1 is "0 -> 1", slot N is 2^(N-1) -> 2^N - 1 */
		low = i == 1 ? 0 : 1ULL << (i - 1);
		high = i == 64 ? UINT64_MAX : (1ULL << i) - 1;
		c = slot_count(h, i);
		if (wide)
			fprintf(f, "%20llu -> %-20llu : %-8llu ", (unsigned long long)low,
				(unsigned long long)high, (unsigned long long)c);
		else
			fprintf(f, "%10llu -> %-10llu : %-8llu ", (unsigned long long)low,
				(unsigned long long)high, (unsigned long long)c);
		put_stars(f, c, vmax, stars);
	}
	return ferror(f) ? ftk_err(-EIO) : 0;
}

/**
 * ftk_hist_print_linear() - the linear buckets as bcc's print_linear_hist()
 * @h: the histogram, with linear buckets (ftk_hist_linear())
 * @f: where to
 * @unit: the label of the first column
 *
 * A header, then "        low        : count    |****|" for each bucket up
 * to the last one with samples; low is the bucket's smallest value.
 *
 * Return: 0, -EINVAL without linear buckets, -EIO if writing failed.
 */
FTK_API int ftk_hist_print_linear(const struct ftk_hist *h, FILE *f, const char *unit)
{
	uint64_t vmax = 0;
	int i, imax = -1;

	if (!h->lin)
		return ftk_err(-EINVAL);
	for (i = 0; i < (int)h->lin_nr; i++) {
		if (h->lin[i])
			imax = i;
		if (h->lin[i] > vmax)
			vmax = h->lin[i];
	}
	if (imax < 0)
		return 0;
	fprintf(f, "     %-13s : count     distribution\n", unit);
	for (i = 0; i <= imax; i++) {
		fprintf(f, "        %-10llu : %-8llu ",
			(unsigned long long)(h->lin_base + (uint64_t)i * h->lin_step),
			(unsigned long long)h->lin[i]);
		put_stars(f, h->lin[i], vmax, 40);
	}
	return ferror(f) ? ftk_err(-EIO) : 0;
}

/**
 * ftk_hist_json() - the histogram as one JSON object
 * @h: the histogram
 * @f: where to
 * @unit: the unit of its values
 *
 * {"unit":"usecs","count":N,"sum":S,"min":A,"max":B,"mean":M,"p50":..,
 * "p90":..,"p99":..,"p999":..,"buckets":[{"low":L,"high":H,"count":C},..]}
 * with the log2 slots that hold samples, and "linear":[{"low":L,"count":C},..]
 * when the histogram has linear buckets. No newline after it. Everything
 * is in @unit; after ftk_hist_scale(), sum, min and max are exact
 * decimals of it (ftk_hist_value_str(): "sum":296.767 for 296,767 ns in
 * usecs) and the mean has as many decimals.
 *
 * Return: 0, or -EIO if writing failed.
 */
FTK_API int ftk_hist_json(const struct ftk_hist *h, FILE *f, const char *unit)
{
	uint64_t low, high, div = hist_div(h);
	int i, first = 1, d = pow10_digits(div);
	char sum[48], min[48], max[48];

	fputs("{\"unit\":", f);
	ftk_json_str(f, unit ? unit : "", SIZE_MAX);
	fprintf(f, ",\"count\":%llu,\"sum\":%s,\"min\":%s,\"max\":%s,\"mean\":%.*f",
		(unsigned long long)h->count, ftk_hist_value_str(sum, sizeof(sum), h->sum, div),
		ftk_hist_value_str(min, sizeof(min), h->min, div),
		ftk_hist_value_str(max, sizeof(max), h->max, div), d > 3 ? d : 3,
		h->count ? (double)h->sum / (double)h->count / (double)div : 0.0);
	fprintf(f, ",\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,\"p999\":%llu,\"buckets\":[",
		(unsigned long long)ftk_hist_percentile(h, 50),
		(unsigned long long)ftk_hist_percentile(h, 90),
		(unsigned long long)ftk_hist_percentile(h, 99),
		(unsigned long long)ftk_hist_percentile(h, 99.9));
	for (i = 1; i < FTK_HIST_SLOTS; i++) {
		uint64_t c = slot_count(h, i);

		if (!c)
			continue;
		low = i == 1 ? 0 : 1ULL << (i - 1);
		high = i == 64 ? UINT64_MAX : (1ULL << i) - 1;
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,\"count\":%llu}", first ? "" : ",",
			(unsigned long long)low, (unsigned long long)high, (unsigned long long)c);
		first = 0;
	}
	fputc(']', f);
	if (h->lin) {
		fputs(",\"linear\":[", f);
		for (i = 0, first = 1; i < (int)h->lin_nr; i++) {
			if (!h->lin[i])
				continue;
			fprintf(f, "%s{\"low\":%llu,\"count\":%llu}", first ? "" : ",",
				(unsigned long long)(h->lin_base + (uint64_t)i * h->lin_step),
				(unsigned long long)h->lin[i]);
			first = 0;
		}
		fputc(']', f);
	}
	fputc('}', f);
	return ferror(f) ? ftk_err(-EIO) : 0;
}

/* ---------------------------------------------------------------- a map of u64 keys */

/*
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones), two u64 of value per key; grows at 1/2 full.
 */
struct u64map {
	uint64_t	*keys;
	uint64_t	(*vals)[2];
	unsigned char	*used;
	size_t		cap;	/* a power of two, or 0 */
	size_t		len;
};

static size_t map_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k & (cap - 1);
}

static void map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* The slot of @k, or -1. */
static long map_find(const struct u64map *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return -1;
	for (i = map_hash(k, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k)
			return i;
	return -1;
}

static int map_grow(struct u64map *m)
{
	struct u64map n = { 0 };
	size_t i, j;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = malloc(n.cap * sizeof(*n.keys));
	n.vals = malloc(n.cap * sizeof(*n.vals));
	n.used = calloc(n.cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		map_release(&n);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		for (j = map_hash(m->keys[i], n.cap); n.used[j]; j = (j + 1) & (n.cap - 1))
			;
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		memcpy(n.vals[j], m->vals[i], sizeof(n.vals[j]));
	}
	n.len = m->len;
	map_release(m);
	*m = n;
	return 0;
}

/* The slot of @k, made if new (*@made = 1); -ENOMEM. */
static long map_get(struct u64map *m, uint64_t k, int *made)
{
	long at = map_find(m, k);
	size_t i;

	*made = 0;
	if (at >= 0)
		return at;
	if ((m->len + 1) * 2 > m->cap && map_grow(m) < 0)
		return -ENOMEM;
	for (i = map_hash(k, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		;
	m->used[i] = 1;
	m->keys[i] = k;
	m->vals[i][0] = m->vals[i][1] = 0;
	m->len++;
	*made = 1;
	return i;
}

static void map_delete(struct u64map *m, size_t i)
{
	size_t j = i, home;

	m->used[i] = 0;
	m->len--;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->used[j])
			return;
		home = map_hash(m->keys[j], m->cap);
		/* Move j back to the hole at i unless its home lies cyclically in (i, j]. */
		if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->keys[i] = m->keys[j];
		memcpy(m->vals[i], m->vals[j], sizeof(m->vals[i]));
		m->used[i] = 1;
		m->used[j] = 0;
		i = j;
	}
}

/* ---------------------------------------------------------------- pairing */

/* One start of a nested pairing: a stack per key, linked through @below. */
struct pair_frame {
	uint64_t	ts;
	uint64_t	data;
	size_t		below;		/* the frame under it + 1; 0 at the bottom */
};

struct ftk_pair {
	struct u64map		map;	/* key -> { start ts, data }; nested: { top + 1, depth } */
	struct ftk_pair_stats	st;
	unsigned int		nest;	/* 0: one start a key; else the deepest stack kept */
	struct pair_frame	*frames;
	size_t			nframes;	/* used or on the free list */
	size_t			alloc;
	size_t			free;	/* free list's head + 1, through "below" */
	size_t			live;	/* frames in use */
};

/**
 * ftk_pair_new() - an empty start/end pairing
 *
 * Return: the handle, to free with ftk_pair_free(); NULL with errno ENOMEM.
 */
FTK_API struct ftk_pair *ftk_pair_new(void)
{
	struct ftk_pair *p = calloc(1, sizeof(*p));

	if (!p)
		return ftk_err_ptr(-ENOMEM);
	return p;
}

/**
 * ftk_pair_free() - free a pairing
 * @p: the handle, or NULL
 */
FTK_API void ftk_pair_free(struct ftk_pair *p)
{
	if (!p)
		return;
	map_release(&p->map);
	free(p->frames);
	free(p);
}

/**
 * ftk_pair_nest() - let starts of one key nest
 * @p: the handle, with no start pending
 * @depth: the deepest nesting kept per key (1 to 65536)
 *
 * Recursion: a function entered again by the same thread before it
 * returned. Each key then keeps a stack of starts; ftk_pair_start()
 * pushes and ftk_pair_end() pairs with the newest start (the innermost
 * call), so every level of a recursion is one sample. Past @depth the
 * newest start is replaced (counted in "replaced"), which bounds the
 * memory when ends are missing (a longjmp, a lost event).
 *
 * Return: 0, or -EINVAL (@depth out of range, or starts pending).
 */
FTK_API int ftk_pair_nest(struct ftk_pair *p, unsigned int depth)
{
	if (!depth || depth > 65536 || p->map.len)
		return ftk_err(-EINVAL);
	p->nest = depth;
	return 0;
}

/* A free frame's index + 1; 0 when out of memory. */
static size_t frame_get(struct ftk_pair *p)
{
	struct pair_frame *n;
	size_t f = p->free;

	if (f) {
		p->free = p->frames[f - 1].below;
	} else {
		if (p->nframes == p->alloc) {
			n = realloc(p->frames, (p->alloc ? p->alloc * 2 : 64) * sizeof(*n));
			if (!n)
				return 0;
			p->frames = n;
			p->alloc = p->alloc ? p->alloc * 2 : 64;
		}
		f = ++p->nframes;
	}
	p->live++;
	return f;
}

static void frame_put(struct ftk_pair *p, size_t f)
{
	p->frames[f - 1].below = p->free;
	p->free = f;
	p->live--;
}

/* A nested start: push onto @key's stack (slot @i of the map). */
static int nest_start(struct ftk_pair *p, long i, uint64_t ts, uint64_t data)
{
	size_t top = p->map.vals[i][0], f;

	if (top && p->map.vals[i][1] >= p->nest) {
		p->st.replaced++;
		p->frames[top - 1].ts = ts;
		p->frames[top - 1].data = data;
		return 1;
	}
	f = frame_get(p);
	if (!f) {
		if (!top)
			map_delete(&p->map, i);
		return ftk_err(-ENOMEM);
	}
	p->frames[f - 1] = (struct pair_frame){ .ts = ts, .data = data, .below = top };
	p->map.vals[i][0] = f;
	p->map.vals[i][1]++;
	return 0;
}

/* Pop @key's newest start (slot @i) into *@ts, *@data; the key goes with its last start. */
static void nest_pop(struct ftk_pair *p, long i, uint64_t *ts, uint64_t *data)
{
	size_t top = p->map.vals[i][0];

	*ts = p->frames[top - 1].ts;
	*data = p->frames[top - 1].data;
	p->map.vals[i][0] = p->frames[top - 1].below;
	frame_put(p, top);
	if (!--p->map.vals[i][1])
		map_delete(&p->map, i);
}

/**
 * ftk_pair_start() - a start event
 * @p: the handle
 * @key: what pairs it with its end (a pid, a request address...)
 * @ts: its time stamp
 * @data: a value the end gets back (a syscall number, the waker's pid...)
 *
 * After ftk_pair_nest(), the start is pushed on @key's stack instead.
 *
 * Return: 1 if an unfinished start of @key was replaced (counted in
 * "replaced"), 0 if not, -ENOMEM.
 */
FTK_API int ftk_pair_start(struct ftk_pair *p, uint64_t key, uint64_t ts, uint64_t data)
{
	int made;
	long i = map_get(&p->map, key, &made);

	if (i < 0)
		return ftk_err(i);
	p->st.starts++;
	if (p->nest)
		return nest_start(p, i, ts, data);
	if (!made)
		p->st.replaced++;
	p->map.vals[i][0] = ts;
	p->map.vals[i][1] = data;
	return !made;
}

/**
 * ftk_pair_end() - an end event
 * @p: the handle
 * @key: the key its start was given
 * @ts: its time stamp
 * @delta: receives @ts minus the start's stamp; may be NULL
 * @data: receives the start's data; may be NULL
 *
 * The start is forgotten either way. An end stamped before its start
 * (clocks of two CPUs) is counted in "backwards" and not paired.
 *
 * Return: 1 if paired, 0 if @key had no start.
 */
FTK_API int ftk_pair_end(struct ftk_pair *p, uint64_t key, uint64_t ts, uint64_t *delta,
			 uint64_t *data)
{
	long i = map_find(&p->map, key);
	uint64_t start, d;

	if (i < 0) {
		p->st.unmatched++;
		return 0;
	}
	if (p->nest) {
		nest_pop(p, i, &start, &d);
	} else {
		start = p->map.vals[i][0];
		d = p->map.vals[i][1];
		map_delete(&p->map, i);
	}
	if (ts < start) {
		p->st.backwards++;
		return 0;
	}
	p->st.matched++;
	if (delta)
		*delta = ts - start;
	if (data)
		*data = d;
	return 1;
}

/**
 * ftk_pair_drop() - forget a start
 * @p: the handle
 * @key: its key
 *
 * For starts that will never end (a task that exited); nested ones all go.
 *
 * Return: 1 if @key had a start, 0 if not.
 */
FTK_API int ftk_pair_drop(struct ftk_pair *p, uint64_t key)
{
	long i = map_find(&p->map, key);
	size_t f, below;

	if (i < 0)
		return 0;
	for (f = p->nest ? p->map.vals[i][0] : 0; f; f = below) {
		below = p->frames[f - 1].below;
		frame_put(p, f);
	}
	map_delete(&p->map, i);
	return 1;
}

/**
 * ftk_pair_stats() - what the pairing saw
 * @p: the handle
 * @st: filled in; "pending" is the starts still waiting
 */
FTK_API void ftk_pair_stats(const struct ftk_pair *p, struct ftk_pair_stats *st)
{
	*st = p->st;
	st->pending = p->nest ? p->live : p->map.len;
}

/* ---------------------------------------------------------------- per-key tables */

struct ftk_lattab {
	struct u64map		map;	/* key -> row index */
	struct ftk_lat_row	**rows;
	size_t			nr;
	size_t			alloc;
	uint64_t		div;	/* ftk_hist_scale() of each row's histogram */
};

/**
 * ftk_lattab_new() - an empty per-key table
 *
 * Return: the table, to free with ftk_lattab_free(); NULL with errno ENOMEM.
 */
FTK_API struct ftk_lattab *ftk_lattab_new(void)
{
	struct ftk_lattab *t = calloc(1, sizeof(*t));

	if (!t)
		return ftk_err_ptr(-ENOMEM);
	return t;
}

/**
 * ftk_lattab_free() - free a table and its rows
 * @t: the table, or NULL
 */
FTK_API void ftk_lattab_free(struct ftk_lattab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr; i++) {
		free(t->rows[i]->name);
		ftk_hist_free(t->rows[i]->hist);
		free(t->rows[i]);
	}
	free(t->rows);
	map_release(&t->map);
	free(t);
}

/**
 * ftk_lattab_find() - the row of a key
 * @t: the table
 * @key: the key
 *
 * Return: the row (the table's), or NULL if @key has none.
 */
FTK_API struct ftk_lat_row *ftk_lattab_find(const struct ftk_lattab *t, uint64_t key)
{
	long i = map_find(&t->map, key);

	return i < 0 ? NULL : t->rows[t->map.vals[i][0]];
}

/**
 * ftk_lattab_row() - the row of a key, made if new
 * @t: the table
 * @key: the key
 *
 * Return: the row (the table's, valid until ftk_lattab_free()); NULL
 * with errno ENOMEM.
 */
FTK_API struct ftk_lat_row *ftk_lattab_row(struct ftk_lattab *t, uint64_t key)
{
	struct ftk_lat_row *r;
	int made;
	long i;

	i = map_find(&t->map, key);
	if (i >= 0)
		return t->rows[t->map.vals[i][0]];
	if (t->nr == t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 64;
		struct ftk_lat_row **rows = realloc(t->rows, n * sizeof(*rows));

		if (!rows)
			return ftk_err_ptr(-ENOMEM);
		t->rows = rows;
		t->alloc = n;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return ftk_err_ptr(-ENOMEM);
	i = map_get(&t->map, key, &made);
	if (i < 0) {
		free(r);
		return ftk_err_ptr(-ENOMEM);
	}
	r->key = key;
	t->map.vals[i][0] = t->nr;
	t->rows[t->nr++] = r;
	return r;
}

/**
 * ftk_lattab_name() - name a key
 * @t: the table
 * @key: the key (its row is made if new)
 * @name: the name; a copy is kept, replacing an older one
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_lattab_name(struct ftk_lattab *t, uint64_t key, const char *name)
{
	struct ftk_lat_row *r = ftk_lattab_row(t, key);
	char *s;

	if (!r)
		return ftk_err(-ENOMEM);
	if (r->name && name && !strcmp(r->name, name))
		return 0;
	s = name ? strdup(name) : NULL;
	if (name && !s)
		return ftk_err(-ENOMEM);
	free(r->name);
	r->name = s;
	return 0;
}

/**
 * ftk_lattab_count() - count an event without a latency
 * @t: the table
 * @key: its key
 * @failed: non-zero to count it in "errors" too
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_lattab_count(struct ftk_lattab *t, uint64_t key, int failed)
{
	struct ftk_lat_row *r = ftk_lattab_row(t, key);

	if (!r)
		return ftk_err(-ENOMEM);
	r->count++;
	if (failed)
		r->errors++;
	return 0;
}

/**
 * ftk_lattab_add() - count an event that took a time
 * @t: the table
 * @key: its key
 * @latency: how long it took, in the table's unit
 * @failed: non-zero to count it in "errors" too
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_lattab_add(struct ftk_lattab *t, uint64_t key, uint64_t latency, int failed)
{
	struct ftk_lat_row *r = ftk_lattab_row(t, key);

	if (!r || (!r->hist && !ftk_lattab_hist(t, r)))
		return ftk_err(-ENOMEM);
	return ftk_lat_row_add(r, latency, failed);
}

/**
 * ftk_lattab_scale() - the scale of the rows' histograms
 * @t: the table
 * @div: ftk_hist_scale()'s divisor for each row's histogram made from now
 *	 on (1000: latencies added in nsecs, bucketed in usecs)
 *
 * Return: 0, or -EINVAL for a @div of 0.
 */
FTK_API int ftk_lattab_scale(struct ftk_lattab *t, uint64_t div)
{
	if (!t || !div)
		return ftk_err(-EINVAL);
	t->div = div;
	return 0;
}

/**
 * ftk_lattab_hist() - a row's histogram, made if it has none
 * @t: the table
 * @r: one of its rows
 *
 * For callers that add to a row's histogram themselves (a kernel hist's
 * buckets): it has the table's scale (ftk_lattab_scale()).
 *
 * Return: the histogram (the row's), or NULL with errno ENOMEM.
 */
FTK_API struct ftk_hist *ftk_lattab_hist(struct ftk_lattab *t, struct ftk_lat_row *r)
{
	if (r->hist)
		return r->hist;
	r->hist = ftk_hist_new();
	if (r->hist && t->div > 1)
		ftk_hist_scale(r->hist, t->div);
	return r->hist;
}


/**
 * ftk_lattab_len() - the number of rows
 * @t: the table
 *
 * Return: the number of keys seen.
 */
FTK_API size_t ftk_lattab_len(const struct ftk_lattab *t)
{
	return t->nr;
}

static enum ftk_lattab_sort sort_by;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct ftk_lat_row *a = *(const struct ftk_lat_row * const *)pa;
	const struct ftk_lat_row *b = *(const struct ftk_lat_row * const *)pb;
	int c = 0;

	switch (sort_by) {
	case FTK_LATTAB_BY_COUNT:
		c = cmp_u64_desc(a->count, b->count);
		break;
	case FTK_LATTAB_BY_TOTAL:
		c = cmp_u64_desc(a->hist ? a->hist->sum : 0, b->hist ? b->hist->sum : 0);
		break;
	case FTK_LATTAB_BY_MAX:
		c = cmp_u64_desc(a->hist ? a->hist->max : 0, b->hist ? b->hist->max : 0);
		break;
	case FTK_LATTAB_BY_KEY:
		break;
	}
	if (c)
		return c;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* qsort_r is a GNU extension: a merge sort with the order passed along keeps this portable. */
static void rows_sort(struct ftk_lat_row **v, struct ftk_lat_row **tmp, size_t n,
		      enum ftk_lattab_sort by)
{
	size_t i, j, k, mid = n / 2;

	if (n < 2)
		return;
	rows_sort(v, tmp, mid, by);
	rows_sort(v + mid, tmp, n - mid, by);
	sort_by = by;
	for (i = 0, j = mid, k = 0; i < mid || j < n;)
		tmp[k++] = (j >= n || (i < mid && row_cmp(&v[i], &v[j]) <= 0)) ? v[i++] : v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/**
 * ftk_lattab_rows() - the rows, sorted
 * @t: the table
 * @by: the order (ties by ascending key)
 * @out: receives an array of row pointers, to free with free(); the rows
 *	 stay the table's. An empty table gives an empty array, not NULL.
 *
 * Context: not thread-safe with other sorts running at the same time.
 *
 * Return: the number of rows, or -ENOMEM.
 */
FTK_API long ftk_lattab_rows(const struct ftk_lattab *t, enum ftk_lattab_sort by,
			     struct ftk_lat_row ***out)
{
	struct ftk_lat_row **v = malloc((t->nr + 1) * sizeof(*v));
	struct ftk_lat_row **tmp = malloc((t->nr + 1) * sizeof(*tmp));

	*out = NULL;
	if (!v || !tmp) {
		free(v);
		free(tmp);
		return ftk_err(-ENOMEM);
	}
	memcpy(v, t->rows, t->nr * sizeof(*v));
	rows_sort(v, tmp, t->nr, by);
	free(tmp);
	*out = v;
	return t->nr;
}

/**
 * ftk_lattab_reset() - zero every count
 * @t: the table; rows and names stay, for the next interval
 */
FTK_API void ftk_lattab_reset(struct ftk_lattab *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		t->rows[i]->count = t->rows[i]->errors = 0;
		if (t->rows[i]->hist)
			ftk_hist_reset(t->rows[i]->hist);
	}
}

/**
 * ftk_lattab_json() - the table as a JSON array
 * @t: the table
 * @f: where to
 * @by: the order of the rows
 * @limit: at most this many rows (0: all)
 * @unit: the unit of the latencies
 *
 * Rows with a count of 0 are left out. Each is {"key":K,"name":"N",
 * "count":C,"errors":E} with "latency":{ftk_hist_json()} when it has
 * latencies; "name" is null for unnamed rows. No newline after it.
 *
 * Return: 0, -ENOMEM, or -EIO if writing failed.
 */
FTK_API int ftk_lattab_json(const struct ftk_lattab *t, FILE *f, enum ftk_lattab_sort by,
			    size_t limit, const char *unit)
{
	struct ftk_lat_row **rows;
	long n = ftk_lattab_rows(t, by, &rows);
	size_t shown = 0;
	long i;

	if (n < 0)
		return n;
	fputc('[', f);
	for (i = 0; i < n && (!limit || shown < limit); i++) {
		if (!rows[i]->count)
			continue;
		fprintf(f, "%s{\"key\":%llu,\"name\":", shown ? "," : "",
			(unsigned long long)rows[i]->key);
		if (rows[i]->name)
			ftk_json_str(f, rows[i]->name, SIZE_MAX);
		else
			fputs("null", f);
		fprintf(f, ",\"count\":%llu,\"errors\":%llu", (unsigned long long)rows[i]->count,
			(unsigned long long)rows[i]->errors);
		if (rows[i]->hist) {
			fputs(",\"latency\":", f);
			ftk_hist_json(rows[i]->hist, f, unit);
		}
		fputc('}', f);
		shown++;
	}
	fputc(']', f);
	free(rows);
	return ferror(f) ? ftk_err(-EIO) : 0;
}

/* ---------------------------------------------------------------- the worst samples */

struct ftk_worst {
	unsigned int	nr;	/* capacity */
	unsigned int	len;
	size_t		size;	/* payload bytes */
	uint64_t	*val;	/* descending */
	unsigned char	*data;	/* nr * size */
};

/**
 * ftk_worst_new() - keep the largest samples
 * @nr: how many, 1 to 65536
 * @size: bytes of payload copied with each (0 for none), at most 64 KiB
 *
 * Return: the handle, to free with ftk_worst_free(); NULL with errno
 * EINVAL or ENOMEM.
 */
FTK_API struct ftk_worst *ftk_worst_new(unsigned int nr, size_t size)
{
	struct ftk_worst *w;

	if (!nr || nr > 65536 || size > 65536)
		return ftk_err_ptr(-EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return ftk_err_ptr(-ENOMEM);
	w->nr = nr;
	w->size = size;
	w->val = calloc(nr, sizeof(*w->val));
	w->data = calloc(nr, size ? size : 1);
	if (!w->val || !w->data) {
		ftk_worst_free(w);
		return ftk_err_ptr(-ENOMEM);
	}
	return w;
}

/**
 * ftk_worst_free() - free the handle
 * @w: the handle, or NULL
 */
FTK_API void ftk_worst_free(struct ftk_worst *w)
{
	if (!w)
		return;
	free(w->val);
	free(w->data);
	free(w);
}

/**
 * ftk_worst_add() - offer a sample
 * @w: the handle
 * @value: its value
 * @payload: the handle's payload size in bytes to copy (NULL: zeros)
 *
 * Equal values keep the order they came in.
 *
 * Return: 1 if it is among the largest kept, 0 if not.
 */
FTK_API int ftk_worst_add(struct ftk_worst *w, uint64_t value, const void *payload)
{
	unsigned int i;

	if (w->len == w->nr && value <= w->val[w->nr - 1])
		return 0;
	if (w->len < w->nr)
		w->len++;
	for (i = w->len - 1; i > 0 && w->val[i - 1] < value; i--) {
		w->val[i] = w->val[i - 1];
		memcpy(w->data + i * w->size, w->data + (i - 1) * w->size, w->size);
	}
	w->val[i] = value;
	if (payload)
		memcpy(w->data + i * w->size, payload, w->size);
	else
		memset(w->data + i * w->size, 0, w->size);
	return 1;
}

/**
 * ftk_worst_len() - samples kept
 * @w: the handle
 *
 * Return: the number kept, at most the capacity.
 */
FTK_API unsigned int ftk_worst_len(const struct ftk_worst *w)
{
	return w->len;
}

/**
 * ftk_worst_get() - one of the samples kept
 * @w: the handle
 * @i: 0 for the largest
 * @value: receives its value; may be NULL
 *
 * Return: its payload (the handle's, valid until the next add or reset),
 * or NULL past the end.
 */
FTK_API const void *ftk_worst_get(const struct ftk_worst *w, unsigned int i, uint64_t *value)
{
	if (i >= w->len)
		return NULL;
	if (value)
		*value = w->val[i];
	return w->data + i * w->size;
}

/**
 * ftk_worst_reset() - forget every sample
 * @w: the handle
 */
FTK_API void ftk_worst_reset(struct ftk_worst *w)
{
	w->len = 0;
}

/* ---------------------------------------------------------------- syscall names */

/*
 * The table is made at build time from <sys/syscall.h>'s __NR_ macros
 * (Makefile.am: lib/syscall-names.h), so it is the native ABI the tools
 * were built for, as the raw_syscalls events report it.
 */
static const char *const syscall_names[] = {
#include "syscall-names.h"
};

/**
 * ftk_syscall_name() - the name of a syscall number
 * @nr: the number, as raw_syscalls:sys_enter's id
 *
 * Return: the name without prefix ("openat"; static storage), or NULL
 * if the number is unknown.
 */
FTK_API const char *ftk_syscall_name(long nr)
{
	if (nr < 0 || nr >= (long)ARRAY_SIZE(syscall_names))
		return NULL;
	return syscall_names[nr];
}

/**
 * ftk_syscall_nr() - the number of a syscall name
 * @name: the name ("getppid")
 *
 * Return: the number, or -ENOENT.
 */
FTK_API long ftk_syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(syscall_names); i++)
		if (syscall_names[i] && !strcmp(syscall_names[i], name))
			return i;
	return ftk_err(-ENOENT);
}
