// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The latency module against known inputs: the histogram text is what
 * bcc's own table.py (python3-bpfcc 0.26, _print_log2_hist and
 * _print_linear_hist) prints for the same counts, percentiles are
 * checked against sorted samples, pairing against hand-made sequences.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/heatmap.h>
#include <ftkit/latency.h>

#include "tap.h"

/* Printed by: _print_log2_hist(v, 'usecs', None) with samples 0,1,1,2,3,5,100. */
static const char bcc_usecs[] =
"     usecs               : count     distribution\n"
"         0 -> 1          : 3        |****************************************|\n"
"         2 -> 3          : 2        |**************************              |\n"
"         4 -> 7          : 1        |*************                           |\n"
"         8 -> 15         : 0        |                                        |\n"
"        16 -> 31         : 0        |                                        |\n"
"        32 -> 63         : 0        |                                        |\n"
"        64 -> 127        : 1        |*************                           |\n";

/* _print_log2_hist(v, 'nsecs', None), v[2] = 100, v[40] = 3: the wide layout, first rows. */
static const char bcc_wide_head[] =
"               nsecs                         : count     distribution\n"
"                   0 -> 1                    : 0        |                    |\n"
"                   2 -> 3                    : 100      |********************|\n";
static const char bcc_wide_tail[] =
"        549755813888 -> 1099511627775        : 3        |                    |\n";

/* _print_linear_hist([0, 2, 5, 1], 'msecs', None) */
static const char bcc_linear[] =
"     msecs         : count     distribution\n"
"        0          : 0        |                                        |\n"
"        1          : 2        |****************                        |\n"
"        2          : 5        |****************************************|\n"
"        3          : 1        |********                                |\n";

static char *render(struct ftk_hist *h, int how, const char *unit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (how == 0)
		ftk_hist_print(h, f, unit);
	else if (how == 1)
		ftk_hist_print_linear(h, f, unit);
	else
		ftk_hist_json(h, f, unit);
	fclose(f);
	return buf;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hist(void)
{
	static const uint64_t v[] = { 0, 1, 1, 2, 3, 5, 100 };
	struct ftk_hist *h = ftk_hist_new(), *h2 = ftk_hist_new();
	struct ftk_hist_stats st;
	char *s;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ftk_hist_add(h, v[i]);
	s = render(h, 0, "usecs");
	is_str(s, bcc_usecs, "log2 histogram text is bcc's, byte for byte");
	free(s);
	ftk_hist_stats(h, &st);
	is_int(st.count, 7, "count");
	is_int(st.sum, 112, "sum");
	is_int(st.min, 0, "min");
	is_int(st.max, 100, "max");
	is_int(ftk_hist_slot(0), 1, "slot of 0 is bcc's 1");
	is_int(ftk_hist_slot(1), 1, "slot of 1");
	is_int(ftk_hist_slot(2), 2, "slot of 2");
	is_int(ftk_hist_slot(4), 3, "slot of 4");
	is_int(ftk_hist_slot(UINT64_MAX), 64, "slot of UINT64_MAX");
	is_int(ftk_hist_slot_count(h, 2), 2, "two samples in 2 -> 3");
	is_int(ftk_hist_percentile(h, 50), 2, "median of 0,1,1,2,3,5,100 is 2");
	is_int(ftk_hist_percentile(h, 100), 100, "p100 is the max");
	is_int(ftk_hist_percentile(h, 0), 0, "p0 is the min");

	ftk_hist_add_n(h2, 2, 100);
	ftk_hist_add_n(h2, 549755813888ULL + 5, 3);
	s = render(h2, 0, "nsecs");
	ok(s && !strncmp(s, bcc_wide_head, strlen(bcc_wide_head)), "wide layout past slot 32");
	ok(s && strlen(s) > strlen(bcc_wide_tail) &&
	   !strcmp(s + strlen(s) - strlen(bcc_wide_tail), bcc_wide_tail), "wide layout's last row");
	free(s);

	ftk_hist_reset(h2);
	s = render(h2, 0, "nsecs");
	is_str(s, "", "an empty histogram prints nothing, as bcc");
	free(s);
	ok(ftk_hist_print_linear(h2, stdout, "x") < 0, "linear print without linear buckets fails");

	ftk_hist_linear(h2, 0, 1, 10);
	ftk_hist_add_n(h2, 1, 2);
	ftk_hist_add_n(h2, 2, 5);
	ftk_hist_add(h2, 3);
	s = render(h2, 1, "msecs");
	is_str(s, bcc_linear, "linear histogram text is bcc's");
	free(s);

	/* merge: the sum of both */
	ftk_hist_merge(h2, h);
	ftk_hist_stats(h2, &st);
	is_int(st.count, 15, "merge adds the counts");
	is_int(st.max, 100, "merge keeps the max");
	s = render(h, 2, "usecs");
	is_str(s, "{\"unit\":\"usecs\",\"count\":7,\"sum\":112,\"min\":0,\"max\":100,\"mean\":16.000,"
	       "\"p50\":2,\"p90\":100,\"p99\":100,\"p999\":100,\"buckets\":["
	       "{\"low\":0,\"high\":1,\"count\":3},{\"low\":2,\"high\":3,\"count\":2},"
	       "{\"low\":4,\"high\":7,\"count\":1},{\"low\":64,\"high\":127,\"count\":1}]}",
	       "JSON of the histogram");
	free(s);
	ftk_hist_free(h);
	ftk_hist_free(h2);
}

/*
 * Nanoseconds bucketed as microseconds (issue 24: 1,000 getppid calls of
 * some 300 ns each summed to 0 us): the buckets are bcc's after its
 * division, the sum, min, max and mean stay exact in nanoseconds.
 */
static void test_hist_scale(void)
{
	struct ftk_hist *h = ftk_hist_new(), *u = ftk_hist_new(), *t2;
	struct ftk_lattab *t = ftk_lattab_new();
	struct ftk_hist_stats st;
	char buf[48], *s;
	int i;

	ok(ftk_hist_scale(h, 0) == -EINVAL, "a scale of 0 is refused");
	ok(ftk_hist_scale(h, 1000) == 0, "scale 1000: nsecs in, usecs buckets");
	for (i = 0; i < 1000; i++)
		ftk_hist_add(h, 296 + (i == 0 ? 767 : 0));	/* one of 1063 ns, 999 of 296 */
	ftk_hist_add_n(h, 2500, 2);
	ftk_hist_stats(h, &st);
	is_int(st.count, 1002, "count");
	is_int(st.sum, 1063 + 999 * 296 + 5000, "the sum is exact in ns, not 999 x 0 us");
	is_int(st.min, 296, "min in ns");
	is_int(st.max, 2500, "max in ns");
	is_int(ftk_hist_slot_count(h, 1), 1000, "1000 samples in the 0 -> 1 us slot");
	is_int(ftk_hist_slot_count(h, 2), 2, "2.5 us in the 2 -> 3 us slot");
	is_int(ftk_hist_percentile(h, 50), 0, "the median in usecs, as the buckets");
	is_int(ftk_hist_percentile(h, 100), 2, "p100: the max in usecs");
	ok(ftk_hist_scale(h, 1) == -EBUSY, "the scale cannot change under samples");
	ok(ftk_hist_merge(u, h) == 0, "an empty histogram merges in a scaled one");
	ftk_hist_add(u, 4000);
	is_int(ftk_hist_slot_count(u, 3), 1, "and takes its scale: 4000 ns in 4 -> 7 us");
	t2 = ftk_hist_new();
	ftk_hist_scale(t2, 1);
	ftk_hist_add(t2, 1);
	ok(ftk_hist_merge(u, t2) == -EINVAL, "histograms of two scales do not merge");
	ftk_hist_free(t2);
	s = render(h, 2, "usecs");
	if (s)
		s[strcspn(s, "p")] = '\0';	/* up to the percentiles */
	is_str(s, "{\"unit\":\"usecs\",\"count\":1002,\"sum\":301.767,\"min\":0.296,"
	       "\"max\":2.500,\"mean\":0.301,\"", "JSON: sum, min, max and mean exact in usecs");
	free(s);
	is_str(ftk_hist_value_str(buf, sizeof(buf), 296767, 1000), "296.767", "296767 ns in us");
	is_str(ftk_hist_value_str(buf, sizeof(buf), 5, 1000000), "0.000005", "5 ns in ms");
	is_str(ftk_hist_value_str(buf, sizeof(buf), 5, 1), "5", "in ns");
	is_str(ftk_hist_value_str(buf, sizeof(buf), 5, 3), "1.666667", "any other divisor");

	ftk_lattab_scale(t, 1000);
	for (i = 0; i < 10; i++)
		ftk_lattab_add(t, 110, 300, 0);
	ftk_hist_stats(ftk_lattab_find(t, 110)->hist, &st);
	ok(st.sum == 3000 && ftk_hist_slot_count(ftk_lattab_find(t, 110)->hist, 1) == 10,
	   "a table's rows: sums in ns, buckets in us");
	ftk_lattab_free(t);
	ftk_hist_free(h);
	ftk_hist_free(u);
}

/* Percentiles of pseudo-random samples against the sorted samples: within 1/16. */
static void test_percentiles(void)
{
	static const double pcts[] = { 1, 10, 50, 90, 99, 99.9 };
	struct ftk_hist *h = ftk_hist_new();
	uint64_t *v, x = 88172645463325252ULL, want, got;
	size_t n = 100000, i, rank;
	int bad = 0;

	v = malloc(n * sizeof(*v));
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (x % 1000000) * ((x >> 40) % 7 + 1);	/* skewed */
		ftk_hist_add(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		rank = (size_t)(pcts[i] / 100.0 * n + 0.999999);
		want = v[rank - 1];
		got = ftk_hist_percentile(h, pcts[i]);
		if (got < want || got > want + want / 16 + 1) {
			diag("p%g: got %llu want %llu", pcts[i], (unsigned long long)got,
			     (unsigned long long)want);
			bad++;
		}
	}
	ok(!bad, "percentiles are within 1/16 above the true sample");
	ftk_hist_reset(h);
	for (i = 0; i < 16; i++)
		ftk_hist_add(h, i);
	is_int(ftk_hist_percentile(h, 50), 7, "exact median below 16");
	free(v);
	ftk_hist_free(h);
}

static void test_pair(void)
{
	struct ftk_pair *p = ftk_pair_new();
	struct ftk_pair_stats st;
	uint64_t d = 0, data = 0, k;
	int matched = 0, r;

	ok(ftk_pair_end(p, 7, 100, &d, NULL) == 0, "an end without a start does not pair");
	is_int(ftk_pair_start(p, 7, 100, 42), 0, "a start");
	is_int(ftk_pair_start(p, 7, 150, 43), 1, "a second start of the key replaces it");
	ok(ftk_pair_end(p, 7, 400, &d, &data) == 1 && d == 250 && data == 43,
	   "end pairs with the newest start, gives delta and data");
	ok(ftk_pair_end(p, 7, 500, &d, NULL) == 0, "the start is gone once paired");
	ftk_pair_start(p, 8, 1000, 0);
	ok(ftk_pair_end(p, 8, 999, &d, NULL) == 0, "an end before its start is dropped");
	/* many keys: growth and backward-shift deletion keep every pair */
	for (k = 0; k < 50000; k++)
		ftk_pair_start(p, k * 7919, k, k);
	for (k = 0; k < 50000; k += 2)
		ftk_pair_drop(p, k * 7919);
	for (k = 1; k < 50000; k += 2) {
		r = ftk_pair_end(p, k * 7919, k + 10, &d, &data);
		matched += r == 1 && d == 10 && data == k;
	}
	is_int(matched, 25000, "25000 of 50000 interleaved keys pair after 25000 drops");
	ftk_pair_stats(p, &st);
	is_int(st.matched, 25001, "matched");
	is_int(st.unmatched, 2, "unmatched ends");
	is_int(st.replaced, 1, "replaced starts");
	is_int(st.backwards, 1, "backwards ends");
	is_int(st.pending, 0, "nothing pending");
	ftk_pair_free(p);
}

/* Recursion: depth 5 of one thread, interleaved with another key; a depth bound. */
static void test_pair_nest(void)
{
	struct ftk_pair *p = ftk_pair_new();
	struct ftk_pair_stats st;
	uint64_t d, data, i, ok_levels = 0;

	is_int(ftk_pair_nest(p, 0), -EINVAL, "nesting depth 0 is refused");
	is_int(ftk_pair_nest(p, 4), 0, "nest up to 4 deep");
	for (i = 0; i < 4; i++) {
		is_int(ftk_pair_start(p, 1, 100 + i, i), 0, "a nested start is kept");
		ftk_pair_start(p, 2, 1000, 99);
		ftk_pair_end(p, 2, 1001, NULL, NULL);
	}
	is_int(ftk_pair_start(p, 1, 200, 9), 1, "past the depth the newest start is replaced");
	ftk_pair_stats(p, &st);
	is_int(st.pending, 4, "4 starts pending");
	/* innermost first: 200 (replaced level 3), then 102, 101, 100 */
	ok(ftk_pair_end(p, 1, 300, &d, &data) == 1 && d == 100 && data == 9, "innermost pairs first");
	for (i = 3; i-- > 0;)
		ok_levels += ftk_pair_end(p, 1, 300, &d, &data) == 1 && d == 200 - i && data == i;
	is_int(ok_levels, 3, "each outer level pairs with its own start");
	ok(ftk_pair_end(p, 1, 400, &d, NULL) == 0, "nothing left of key 1");
	ftk_pair_start(p, 3, 10, 0);
	ftk_pair_start(p, 3, 11, 0);
	is_int(ftk_pair_drop(p, 3), 1, "drop a nested key");
	ftk_pair_stats(p, &st);
	is_int(st.pending, 0, "its every level is gone");
	is_int(st.replaced, 1, "one replaced");
	is_int(st.matched, 8, "8 matched");
	is_int(ftk_pair_nest(p, 8), 0, "the depth can change while nothing is pending");
	ftk_pair_start(p, 4, 1, 0);
	is_int(ftk_pair_nest(p, 8), -EINVAL, "but not with starts pending");
	ftk_pair_free(p);
}

/* The heat map: columns double to fit, cells sum to the samples, the SVG says so. */
static void test_heatmap(void)
{
	struct ftk_heatmap *hm = ftk_heatmap_new(0, 0);
	unsigned long long sum = 0, n;
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f;
	int i;

	ok(ftk_heatmap_new(0, FTK_HEATMAP_MAX_COLS + 1) == NULL && errno == EINVAL,
	   "more columns than the limit are refused");
	/* 1000 samples over 10 s: 10 ms columns double to 80 ms (125 columns) */
	for (i = 0; i < 1000; i++)
		ftk_heatmap_add(hm, 5000000000ULL + i * 10000000ULL, i % 300);
	is_int(ftk_heatmap_col_ns(hm), 80000000, "columns doubled to 80 ms to fit 200");
	is_int(ftk_heatmap_total(hm), 1000, "1000 samples");
	f = open_memstream(&buf, &len);
	is_int(ftk_heatmap_write_svg(hm, f, "a <title> & more", "usecs"), 0, "SVG written");
	fclose(f);
	for (p = buf; (p = strstr(p, "data-count=\"")); p++)
		if (sscanf(p, "data-count=\"%llu", &n) == 1)
			sum += n;
	is_int(sum, 1000, "the cells' counts sum to the samples");
	ok(strstr(buf, "a &lt;title&gt; &amp; more") != NULL, "the title is escaped");
	ok(strstr(buf, "256 -&gt; 511 usecs: ") != NULL, "a tooltip names the range and unit");
	ok(strstr(buf, "</svg>") != NULL, "the SVG is closed");
	free(buf);
	ftk_heatmap_free(hm);

	/*
	 * Few columns and a large count (ftiolat -i 1 -D 2 on a busy disk):
	 * the legend's labels, 7.2 pixels a character in 12px monospace,
	 * end inside the picture and clear of the next swatch.
	 */
	{
		unsigned int width = 0, x, y, rx, prev_end = 0, labels = 0, bad = 0;
		char label[64];

		hm = ftk_heatmap_new(1000000000ULL, 10);
		for (i = 0; i < 1234567; i++)
			ftk_heatmap_add(hm, 1000 + (i & 1) * 1000000000ULL, 100);
		buf = NULL;
		f = open_memstream(&buf, &len);
		ftk_heatmap_write_svg(hm, f, NULL, "usecs");
		fclose(f);
		sscanf(strstr(buf, "<svg ") ?: "", "<svg version=\"1.1\" width=\"%u\"", &width);
		p = strstr(buf, "count per cell:");
		while (p && (p = strstr(p, "<rect x=\"")) &&
		       sscanf(p, "<rect x=\"%u\" y=\"%*u\" width=\"16\" height=\"16\" fill=\"%*[^\"]\" "
			      "stroke=\"#999\"/><text x=\"%u\" y=\"%u\">%63[^<]", &rx, &x, &y, label) == 4) {
			labels++;
			if (rx < prev_end || x + strlen(label) * 7.2 > width) {
				diag("legend label '%s' at %u: past %u (swatch at %u) or the width %u",
				     label, x, prev_end, rx, width);
				bad++;
			}
			prev_end = x + strlen(label) * 7.2;
			p++;
		}
		ok(labels >= 2 && !bad, "the legend's %u labels fit the %u pixels and clear each other",
		   labels, width);
		ok(strstr(buf, ">617284</text>") != NULL || strstr(buf, ">617283</text>") != NULL,
		   "the legend reaches the largest cell");
		free(buf);
		ftk_heatmap_free(hm);
	}
}

static void test_lattab(void)
{
	struct ftk_lattab *t = ftk_lattab_new();
	struct ftk_lat_row **rows;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	long n;
	int i;

	for (i = 0; i < 5; i++)
		ftk_lattab_add(t, 39, 10, 0);		/* getpid 5 times, 10 each */
	ftk_lattab_add(t, 257, 1000, 1);		/* openat once, failed, 1000 */
	for (i = 0; i < 3; i++)
		ftk_lattab_count(t, 0, 0);		/* read 3 times, no latency */
	ftk_lattab_name(t, 39, "getpid");
	ftk_lattab_name(t, 257, "open\"at");
	is_int(ftk_lattab_len(t), 3, "three keys");
	n = ftk_lattab_rows(t, FTK_LATTAB_BY_COUNT, &rows);
	ok(n == 3 && rows[0]->key == 39 && rows[1]->key == 0 && rows[2]->key == 257,
	   "by count: getpid, read, openat");
	free(rows);
	n = ftk_lattab_rows(t, FTK_LATTAB_BY_TOTAL, &rows);
	ok(n == 3 && rows[0]->key == 257 && rows[1]->key == 39 && rows[2]->key == 0,
	   "by total latency: openat, getpid, read");
	free(rows);
	n = ftk_lattab_rows(t, FTK_LATTAB_BY_KEY, &rows);
	ok(n == 3 && rows[0]->key == 0 && rows[2]->key == 257, "by key");
	free(rows);
	ok(ftk_lattab_find(t, 257)->errors == 1, "errors counted");
	ok(!ftk_lattab_find(t, 1), "find does not make rows");
	f = open_memstream(&buf, &len);
	ftk_lattab_json(t, f, FTK_LATTAB_BY_COUNT, 2, "usecs");
	fclose(f);
	ok(buf && !strncmp(buf, "[{\"key\":39,\"name\":\"getpid\",\"count\":5,\"errors\":0,"
			   "\"latency\":{\"unit\":\"usecs\",\"count\":5,", 66) &&
	   strstr(buf, "{\"key\":0,\"name\":null,\"count\":3,\"errors\":0}]") &&
	   !strstr(buf, "open"), "JSON rows, limited to 2");
	free(buf);
	ftk_lattab_reset(t);
	ok(ftk_lattab_find(t, 39)->count == 0 && !strcmp(ftk_lattab_find(t, 39)->name, "getpid"),
	   "reset zeroes counts, keeps names");
	buf = NULL;
	f = open_memstream(&buf, &len);
	ftk_lattab_json(t, f, FTK_LATTAB_BY_COUNT, 0, "usecs");
	fclose(f);
	is_str(buf, "[]", "rows without counts are left out of JSON");
	free(buf);
	ftk_lattab_free(t);
}

static void test_worst(void)
{
	static const uint64_t v[] = { 5, 9, 1, 9, 7, 3, 12 };
	struct ftk_worst *w = ftk_worst_new(3, sizeof(int));
	uint64_t val;
	const int *id;
	size_t i;
	int k;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		k = i;
		ftk_worst_add(w, v[i], &k);
	}
	is_int(ftk_worst_len(w), 3, "three kept");
	id = ftk_worst_get(w, 0, &val);
	ok(id && val == 12 && *id == 6, "largest first, with its payload");
	id = ftk_worst_get(w, 1, &val);
	ok(id && val == 9 && *id == 1, "ties keep arrival order");
	id = ftk_worst_get(w, 2, &val);
	ok(id && val == 9 && *id == 3, "third");
	ok(!ftk_worst_get(w, 3, NULL), "nothing past the end");
	ok(!ftk_worst_new(0, 4), "capacity 0 is refused");
	ftk_worst_free(w);
}

int main(void)
{
	need_lane("unit");
	test_hist();
	test_hist_scale();
	test_percentiles();
	test_pair();
	test_pair_nest();
	test_heatmap();
	test_lattab();
	test_worst();
	return done_testing();
}
