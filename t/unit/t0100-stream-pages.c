// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-CPU streams over synthetic sub-buffers built here: every entry
 * type, missed-events flags, time extends across sub-buffers, absolute
 * stamps, sub-buffer sizes other than 4096, 4-byte longs, big endian,
 * damaged headers.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tap.h"
#include <ftkit/stream.h>

struct pg {
	unsigned char	*buf;
	unsigned int	size, lsize, used;
	int		big;
};

static void put(const struct pg *p, unsigned char *d, unsigned long long v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		d[p->big ? n - 1 - i : i] = v >> (8 * i);
}

static unsigned char *cur(struct pg *p)
{
	return p->buf + 8 + p->lsize + p->used;
}

static void hdr(struct pg *p, unsigned char *d, unsigned int type_len, unsigned int delta)
{
	put(p, d, p->big ? ((unsigned long long)type_len << 27) | delta : type_len | (delta << 5), 4);
}

/* A data entry of @len bytes (a multiple of 4) whose first 8 bytes are @tag. */
static void data_ev(struct pg *p, unsigned int delta, unsigned int len, unsigned long long tag)
{
	unsigned char *d = cur(p);

	if (len > 112) {
		hdr(p, d, 0, delta);
		put(p, d + 4, len + 4, 4);
		memset(d + 8, 0xab, len);
		put(p, d + 8, tag, 8);
		p->used += 8 + len;
	} else {
		hdr(p, d, len / 4, delta);
		memset(d + 4, 0xcd, len);
		put(p, d + 4, tag, 8);
		p->used += 4 + len;
	}
}

static void extend_ev(struct pg *p, unsigned long long delta)
{
	unsigned char *d = cur(p);

	hdr(p, d, 30, delta & ((1U << 27) - 1));
	put(p, d + 4, delta >> 27, 4);
	p->used += 8;
}

static void stamp_ev(struct pg *p, unsigned long long abs)
{
	unsigned char *d = cur(p);

	hdr(p, d, 31, abs & ((1U << 27) - 1));
	put(p, d + 4, abs >> 27, 4);
	p->used += 8;
}

static void pad_ev(struct pg *p, unsigned int len)
{
	unsigned char *d = cur(p);

	hdr(p, d, 29, 0);
	put(p, d + 4, len, 4);
	p->used += len;
}

static void page_begin(struct pg *p, unsigned char *buf, unsigned long long ts)
{
	p->buf = buf;
	p->used = 0;
	memset(buf, 0, p->size);
	put(p, buf, ts, 8);
}

static void page_end(struct pg *p, int missed_flag, long long stored)
{
	unsigned long long commit = p->used;

	if (missed_flag)
		commit |= 1ULL << 31;
	if (stored >= 0) {
		commit |= 1ULL << 30;
		put(p, cur(p), stored, p->lsize);
	}
	put(p, p->buf + 8, commit, p->lsize);
}

static unsigned long long tag_of(const struct pg *p, const struct tep_record *r)
{
	const unsigned char *d = r->data;
	unsigned long long v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (unsigned long long)d[p->big ? 7 - i : i] << (8 * (p->big ? i : i));
	if (p->big) {
		v = 0;
		for (i = 0; i < 8; i++)
			v = (v << 8) | d[i];
	}
	return v;
}

static void run(unsigned int size, int lsize, int big)
{
	struct ftk_stream_fmt fmt = { .sz = sizeof(fmt), .subbuf_size = size, .long_size = lsize,
				      .big_endian = big, .cpu = 3, .name = "mem" };
	struct pg p = { .size = size, .lsize = lsize, .big = big };
	unsigned char *mem = calloc(4, size);
	const struct tep_record *r;
	struct tep_record *owned;
	struct ftk_stream_stats st;
	struct ftk_stream *s;
	unsigned long long base = 1000000;
	char name[128];

	snprintf(name, sizeof(name), "[subbuf %u, long %d, %s]", size, lsize, big ? "BE" : "LE");
	/* page 0: small, big (type_len 0), extend, absolute stamp, padding */
	page_begin(&p, mem, base);
	data_ev(&p, 0, 16, 1);
	data_ev(&p, 10, 160, 2);
	extend_ev(&p, 1ULL << 30);
	data_ev(&p, 5, 8, 3);
	stamp_ev(&p, 5000000000ULL);
	data_ev(&p, 7, 12, 4);
	pad_ev(&p, 16);
	page_end(&p, 0, -1);
	/* page 1: lost events flagged without a count; stamps continue */
	page_begin(&p, mem + size, 5000000100ULL);
	data_ev(&p, 0, 8, 5);
	data_ev(&p, 100, 8, 6);
	page_end(&p, 1, -1);
	/* page 2: empty (commit 0) */
	page_begin(&p, mem + 2 * size, 5000000300ULL);
	page_end(&p, 0, -1);
	/* page 3: lost events with a stored count; an extend across the boundary */
	page_begin(&p, mem + 3 * size, 5000000300ULL);
	extend_ev(&p, 3ULL << 27);
	data_ev(&p, 1, 20, 7);
	page_end(&p, 1, 1234);

	s = ftk_stream_open_mem(mem, 4 * size, &fmt);
	ok(s != NULL, "%s open", name);
	r = ftk_stream_peek(s);
	ok(r && r->ts == base && r->size == 16 && tag_of(&p, r) == 1 && r->cpu == 3,
	   "%s small entry", name);
	ok(ftk_stream_peek(s) == r, "%s peek does not move", name);
	ftk_stream_consume(s);
	r = ftk_stream_peek(s);
	ok(r && r->ts == base + 10 && r->size == 160 && tag_of(&p, r) == 2,
	   "%s type_len 0 entry (length in array[0])", name);
	owned = ftk_stream_next(s);
	r = ftk_stream_peek(s);
	ok(r && r->ts == base + 10 + (1ULL << 30) + 5 && tag_of(&p, r) == 3,
	   "%s time extend adds to the delta", name);
	ok(owned && owned->size == 160 && tag_of(&p, owned) == 2, "%s taken record stays valid", name);
	ftk_record_put(owned);
	ftk_stream_consume(s);
	r = ftk_stream_peek(s);
	ok(r && r->ts == 5000000000ULL + 7 && tag_of(&p, r) == 4, "%s absolute time stamp", name);
	ok(r && r->missed_events == 0, "%s no loss on the first sub-buffer", name);
	ftk_stream_consume(s);
	r = ftk_stream_peek(s);
	ok(r && tag_of(&p, r) == 5 && r->ts == 5000000100ULL, "%s padding skipped, next sub-buffer",
	   name);
	ok(r && r->missed_events == -1, "%s loss flagged without a count gives -1", name);
	ftk_stream_consume(s);
	r = ftk_stream_peek(s);
	ok(r && tag_of(&p, r) == 6 && r->missed_events == 0, "%s loss only on the first record",
	   name);
	ftk_stream_consume(s);
	r = ftk_stream_peek(s);
	ok(r && tag_of(&p, r) == 7 && r->ts == 5000000300ULL + (3ULL << 27) + 1,
	   "%s empty sub-buffer skipped; extend at a sub-buffer start", name);
	ok(r && r->missed_events == 1234, "%s stored loss count", name);
	ftk_stream_consume(s);
	ok(ftk_stream_peek(s) == NULL && ftk_stream_error(s) == 0, "%s clean end", name);
	ftk_stream_stats(s, &st);
	is_int(st.records, 7, "records counted");
	is_int(st.missed, 1234, "lost events counted");
	is_int(st.missed_unknown, 1, "uncounted losses counted");
	ftk_stream_close(s);

	/* A damaged header on the second sub-buffer: the first is still read. */
	put(&p, mem + size + 8, size * 2, lsize);
	s = ftk_stream_open_mem(mem, 4 * size, &fmt);
	{
		int n = 0;

		while (ftk_stream_peek(s)) {
			ftk_stream_consume(s);
			n++;
		}
		is_int(n, 4, "records before the damage are read");
	}
	snprintf(name, sizeof(name), "offset %u", size);
	ok(ftk_stream_error(s) < 0 && strstr(ftk_stream_errmsg(s), name) &&
	   strstr(ftk_stream_errmsg(s), "mem: cpu 3"),
	   "damage reported with its offset: %s", ftk_stream_errmsg(s));
	ftk_stream_close(s);
	free(mem);
}

int main(void)
{
	struct ftk_stream_fmt bad = { .sz = sizeof(bad), .subbuf_size = 4096, .long_size = 5 };
	unsigned char junk[100] = { 0 };

	run(4096, 8, 0);
	run(8192, 8, 0);
	run(1024, 4, 0);
	run(4096, 4, 1);
	run(2048, 8, 1);
	ok(ftk_stream_open_mem(junk, sizeof(junk), &bad) == NULL, "bad long size refused");
	return done_testing();
}
