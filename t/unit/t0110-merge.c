// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Merging streams: order by stamp, ties to the stream added first (the
 * lower CPU), empty and late-starting CPUs, peek/consume and next/put,
 * and the drain in runs (ftk_merge_drain()) against the same order.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tap.h"
#include <ftkit/merge.h>
#include "stream-local.h"

#define SUB 4096

/* One sub-buffer per CPU with records at the given absolute stamps (< 2^27 apart). */
static unsigned char *page(const unsigned long long *ts, int n, int cpu)
{
	unsigned char *b = calloc(1, SUB);
	unsigned int used = 0, i;
	unsigned long long last = n ? ts[0] : 0;

	memcpy(b, &last, 8);
	for (i = 0; i < (unsigned int)n; i++) {
		unsigned int delta = ts[i] - last, w = 2 | (delta << 5);
		unsigned char *d = b + 16 + used;

		memcpy(d, &w, 4);
		d[4] = cpu;
		d[5] = i;
		used += 12;
		last = ts[i];
	}
	memcpy(b + 8, &(unsigned long long){ used }, 8);
	return b;
}

struct seen {
	int	n, good, stop_at;
	const int *cpu, *idx;
};

static int check(void *ctx, const struct tep_record *r)
{
	struct seen *s = ctx;
	const unsigned char *d = r->data;

	if (s->n >= 10 || d[0] != s->cpu[s->n] || d[1] != s->idx[s->n]) {
		diag("drain record %d: cpu %d idx %d ts %llu", s->n, d[0], d[1], r->ts);
		s->good = 0;
	}
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

static struct ftk_merge *merge_of(unsigned char **p)
{
	struct ftk_merge *m = ftk_merge_new();
	int i;

	for (i = 0; i < 4; i++) {
		struct ftk_stream_fmt f = { .sz = sizeof(f), .subbuf_size = SUB, .long_size = 8,
					    .cpu = i, .name = "mem" };

		ftk_merge_add(m, ftk_stream_open_mem(p[i], SUB, &f), i);
	}
	return m;
}

int main(void)
{
	static const unsigned long long c0[] = { 100, 200, 300, 300, 500 };
	static const unsigned long long c2[] = { 200, 300, 400 };
	static const unsigned long long c3[] = { 1000, 1001 };
	static const int want_cpu[] = { 0, 0, 2, 0, 0, 2, 2, 0, 3, 3 };
	static const int want_idx[] = { 0, 1, 0, 2, 3, 1, 2, 4, 0, 1 };
	unsigned char *p[4];
	struct ftk_merge *m = ftk_merge_new();
	const struct tep_record *r;
	struct tep_record *taken;
	int i, n = 0, good = 1, tag;

	p[0] = page(c0, 5, 0);
	p[1] = page(NULL, 0, 1);	/* empty CPU */
	p[2] = page(c2, 3, 2);
	p[3] = page(c3, 2, 3);		/* late CPU */
	for (i = 0; i < 4; i++) {
		struct ftk_stream_fmt f = { .sz = sizeof(f), .subbuf_size = SUB, .long_size = 8,
					    .cpu = i, .name = "mem" };

		ok(ftk_merge_add(m, ftk_stream_open_mem(p[i], SUB, &f), i * 10) == 0,
		   "add cpu %d", i);
	}
	ok(ftk_merge_count(m) == 4, "four streams");
	r = ftk_merge_peek(m, &tag);
	ok(r && r->ts == 100 && tag == 0, "first record is the earliest");
	ok(ftk_merge_peek(m, NULL) == r, "peek again: same record");
	taken = ftk_merge_next(m, &tag);
	ok(taken && taken->ts == 100 && ((unsigned char *)taken->data)[0] == 0,
	   "next takes it");
	n = 1;
	while ((r = ftk_merge_peek(m, &tag))) {
		const unsigned char *d = r->data;

		if (n < 10 && (d[0] != want_cpu[n] || d[1] != want_idx[n] || tag != want_cpu[n] * 10)) {
			diag("record %d: cpu %d idx %d ts %llu", n, d[0], d[1], r->ts);
			good = 0;
		}
		n++;
		ftk_merge_consume(m);
	}
	ok(good, "order by stamp, ties to the lower CPU, late CPU last");
	is_int(n, 10, "every record once; the empty CPU gives none");
	ok(((unsigned char *)taken->data)[0] == 0 && taken->ts == 100,
	   "a taken record survives the merge moving on");
	ftk_record_put(taken);
	ok(ftk_merge_failed(m) == NULL, "no stream failed");
	ftk_merge_free(m);

	/* the same order, drained in runs: up to a mark, stopped by the callback, the rest */
	{
		static const int all_cpu[] = { 0, 0, 2, 0, 0, 2, 2, 0, 3, 3 };
		static const int all_idx[] = { 0, 1, 0, 2, 3, 1, 2, 4, 0, 1 };
		struct seen sn = { .good = 1, .cpu = all_cpu, .idx = all_idx };
		uint64_t count = 0;

		m = merge_of(p);
		ok(ftk_merge_resume(m) == 0, "drain: resume primes the merge");
		ok(ftk_merge_drain(m, 300, check, &sn, &count) == 0 && sn.n == 6 && count == 6,
		   "drain up to 300: the six records stamped 300 or before");
		r = ftk_merge_peek(m, NULL);
		ok(r && r->ts == 400 && ((const unsigned char *)r->data)[0] == 2,
		   "drain: the first record after the mark waits in its stream");
		sn.stop_at = 8;
		ok(ftk_merge_drain(m, UINT64_MAX, check, &sn, &count) == 7 && sn.n == 8,
		   "drain: the callback's non-zero return stops it and is returned");
		ok(ftk_merge_drain(m, UINT64_MAX, check, &sn, &count) == 0 && sn.n == 10 &&
		   count == 10, "drain: the rest, each record once");
		ok(sn.good, "drain: the order of peek and consume");
		ok(ftk_merge_peek(m, NULL) == NULL, "drain: nothing left");
		ftk_merge_free(m);
	}

	m = ftk_merge_new();
	ok(ftk_merge_peek(m, NULL) == NULL, "an empty merge gives nothing");
	ftk_merge_free(m);
	for (i = 0; i < 4; i++)
		free(p[i]);
	return done_testing();
}
