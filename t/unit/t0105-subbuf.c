// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/subbuf.c against libtraceevent's kbuffer: every stream of every
 * trace.dat fixture, then synthetic sub-buffers of the host's layout
 * (time extends, absolute stamps with the top bits of the page stamp,
 * padding, missed events, events past the commit, damaged lengths and
 * commits, and pages of random events), read twice, once with each
 * decoder. The records, their stamps, offsets, sizes, missed counts and
 * bytes, and how each stream ends, must be the same.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tap.h"
#include <ftkit/ftkit.h>
#include "stream-local.h"

#define PAGE	4096

/* Read @a (subbuf.c) and @b (kbuffer) to their ends; 0 if the same, else say where they differ. */
static int compare(struct ftk_stream *a, struct ftk_stream *b, const char *what,
		   unsigned long long *nrec)
{
	const struct tep_record *ra, *rb;
	unsigned long long n = 0;

	for (;; n++) {
		ra = ftk_stream_peek(a);
		rb = ftk_stream_peek(b);
		if (!ra || !rb)
			break;
		if (ra->ts != rb->ts || ra->offset != rb->offset || ra->size != rb->size ||
		    ra->record_size != rb->record_size || ra->missed_events != rb->missed_events ||
		    ra->cpu != rb->cpu || memcmp(ra->data, rb->data, ra->size)) {
			diag("%s: record %llu differs: subbuf ts %llu off %llu size %d/%d missed %lld, "
			     "kbuffer ts %llu off %llu size %d/%d missed %lld", what, n,
			     ra->ts, ra->offset, ra->size, ra->record_size, (long long)ra->missed_events,
			     rb->ts, rb->offset, rb->size, rb->record_size, (long long)rb->missed_events);
			return -1;
		}
		ftk_stream_consume(a);
		ftk_stream_consume(b);
	}
	*nrec += n;
	if (ra || rb) {
		diag("%s: after %llu records only %s has more", what, n, ra ? "subbuf" : "kbuffer");
		return -1;
	}
	if (ftk_stream_error(a) != ftk_stream_error(b) ||
	    strcmp(ftk_stream_errmsg(a), ftk_stream_errmsg(b))) {
		diag("%s: the ends differ: subbuf %d \"%s\", kbuffer %d \"%s\"", what,
		     ftk_stream_error(a), ftk_stream_errmsg(a),
		     ftk_stream_error(b), ftk_stream_errmsg(b));
		return -1;
	}
	return 0;
}

static void fixture(const char *path)
{
	unsigned long long nrec = 0;
	int buf, i, bad = 0, nstreams = 0, native = 0, failed = 0;
	struct ftk_tracefile *tf = NULL;
	char what[600];

	if (ftk_tracefile_open(path, 0, &tf) < 0) {
		ok(1, "%s: does not open, nothing to decode (%s)", path,
		   tf ? ftk_tracefile_errmsg(tf) : "no handle");
		ftk_tracefile_close(tf);
		return;
	}
	for (buf = 0; buf < ftk_tracefile_buffers(tf); buf++) {
		for (i = 0; i < ftk_tracefile_buffer_cpus(tf, buf); i++) {
			struct ftk_stream *a = ftk_tracefile_stream(tf, buf, i);
			struct ftk_stream *b = ftk_tracefile_stream(tf, buf, i);

			if (!a || !b || ftk_stream_use_kbuffer(b) < 0) {
				bad++;
			} else {
				snprintf(what, sizeof(what), "%s: buffer %d cpu %d", path, buf, i);
				if (compare(a, b, what, &nrec) < 0)
					bad++;
				failed += ftk_stream_error(a) != 0;
			}
			nstreams++;
			ftk_stream_close(a);
			ftk_stream_close(b);
		}
	}
	native = ftk_tracefile_long_size(tf) == 8 &&
		 (ftk_tracefile_big_endian(tf) != 0) == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	ok(!bad, "%s: %llu records of %d streams (%s layout%s) the same with both decoders",
	   path, nrec, nstreams, native ? "native" : "other",
	   failed ? ", damaged: the same error" : "");
	ftk_tracefile_close(tf);
}

static void fixtures(const char *dir)
{
	struct dirent **ents;
	char path[512];
	int n, i;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		ok(0, "%s: %s", dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > 4 && !strcmp(ents[i]->d_name + len - 4, ".dat")) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			fixture(path);
		}
		free(ents[i]);
	}
	free(ents);
}

/* ---------------------------------------------------------------- synthetic pages */

struct pg {
	unsigned char	*p;	/* the page */
	unsigned int	used;	/* bytes of events */
};

static void w32(unsigned char *d, uint32_t v)
{
	memcpy(d, &v, 4);
}

static void w64(unsigned char *d, uint64_t v)
{
	memcpy(d, &v, 8);
}

static uint32_t hdr(unsigned int type_len, unsigned int delta)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (type_len << 27) | (delta & ((1U << 27) - 1));
#else
	return type_len | (delta << 5);
#endif
}

static unsigned char *at(struct pg *g)
{
	return g->p + 16 + g->used;
}

static void ev_small(struct pg *g, unsigned int delta, unsigned int words, unsigned char fill)
{
	w32(at(g), hdr(words, delta));
	memset(at(g) + 4, fill, words * 4);
	g->used += 4 + words * 4;
}

/* type_len 0: array[0] = @len + 4, the payload rounded up to 4 bytes */
static void ev_big(struct pg *g, unsigned int delta, unsigned int len, unsigned char fill)
{
	w32(at(g), hdr(0, delta));
	w32(at(g) + 4, len + 4);
	memset(at(g) + 8, fill, (len + 3) & ~3U);
	g->used += 8 + ((len + 3) & ~3U);
}

static void ev_two(struct pg *g, unsigned int type, unsigned int delta, uint32_t a0)
{
	w32(at(g), hdr(type, delta));
	w32(at(g) + 4, a0);
	g->used += 8;
}

static void ev_pad(struct pg *g, unsigned int delta, uint32_t len)
{
	w32(at(g), hdr(29, delta));
	w32(at(g) + 4, len);
	g->used += 4 + len;
}

/* Set the page's header: @ts, the commit (its events, or @commit if not 0) and flags. */
static void seal(struct pg *g, uint64_t ts, uint64_t commit, uint64_t flags)
{
	w64(g->p, ts);
	w64(g->p + 8, (commit ? commit : g->used) | flags);
}

static int compare_mem(const unsigned char *buf, size_t len, const char *what,
		       unsigned long long *nrec, int *err)
{
	struct ftk_stream_fmt fmt = { .sz = sizeof(fmt), .subbuf_size = PAGE, .long_size = 8,
				      .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
				      .cpu = 2, .name = "mem" };
	struct ftk_stream *a = ftk_stream_open_mem(buf, len, &fmt);
	struct ftk_stream *b = ftk_stream_open_mem(buf, len, &fmt);
	int ret = -1;

	if (a && b && ftk_stream_use_kbuffer(b) == 0) {
		ret = compare(a, b, what, nrec);
		*err = ftk_stream_error(a);
	}
	ftk_stream_close(a);
	ftk_stream_close(b);
	return ret;
}

#define MISSED		(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)

static void synthetic(void)
{
	unsigned char *buf = calloc(8, PAGE);
	unsigned long long nrec = 0;
	struct pg g;
	int err, i, ret;

	/* page 0: every entry type, an absolute stamp taking the page stamp's top bits */
	g = (struct pg){ buf, 0 };
	ev_small(&g, 5, 2, 0x11);
	ev_two(&g, 30, 123, 7);				/* time extend */
	ev_small(&g, 1, 28, 0x22);
	ev_big(&g, 9, 200, 0x33);
	ev_big(&g, 0, 13, 0x34);			/* rounded up */
	ev_pad(&g, 40, 24);				/* a discarded event: its delta counts */
	ev_small(&g, 3, 1, 0x44);
	ev_two(&g, 31, 77, 0x12345);			/* absolute stamp */
	ev_small(&g, 2, 3, 0x55);
	ev_two(&g, 31, (1U << 27) - 1, 0xffffffff);	/* the largest one */
	ev_small(&g, 0, 4, 0x66);
	seal(&g, 0xf800000000001000ULL, 0, 0);
	ev_pad(&g, 0, PAGE - 16 - g.used - 4);		/* the rest is empty */
	/* page 1: a loss without a count, starting with a time extend */
	g = (struct pg){ buf + PAGE, 0 };
	ev_two(&g, 30, 1, 1);
	ev_small(&g, 10, 2, 0x77);
	ev_small(&g, 10, 2, 0x78);
	seal(&g, 5000, 0, MISSED);
	/* page 2: a stored loss count after the commit */
	g = (struct pg){ buf + 2 * PAGE, 0 };
	ev_big(&g, 4, 300, 0x88);
	ev_small(&g, 4, 5, 0x99);
	seal(&g, 9000, 0, MISSED | MISSED_STORED);
	w64(at(&g), 4242);
	/* page 3: empty */
	g = (struct pg){ buf + 3 * PAGE, 0 };
	seal(&g, 10000, 0, 0);
	/* page 4: the commit ends inside an event; padding with odd lengths */
	g = (struct pg){ buf + 4 * PAGE, 0 };
	ev_pad(&g, 2, 5);
	ev_pad(&g, 2, 7);
	ev_small(&g, 6, 8, 0xaa);
	ev_big(&g, 6, 64, 0xbb);
	seal(&g, 11000, g.used - 20, 0);
	/* page 5: padding at the start and the end only */
	g = (struct pg){ buf + 5 * PAGE, 0 };
	ev_pad(&g, 0, 8);
	seal(&g, 12000, 0, 0);
	ret = compare_mem(buf, 6 * PAGE, "six pages", &nrec, &err);
	ok(ret == 0 && !err && nrec == 13,
	   "extends, absolute stamps, padding, losses, an empty page, the commit inside an event: "
	   "%llu records the same (%d, error %d)", nrec, ret, err);

	/* a short last page, read as if zero-padded */
	nrec = 0;
	ret = compare_mem(buf, PAGE + 200, "short page", &nrec, &err);
	ok(ret == 0 && !err && nrec == 9, "a short last sub-buffer: %llu records the same", nrec);

	/* damaged: type_len 0 with array[0] of 0 (a negative size), then a huge one */
	memset(buf, 0, 2 * PAGE);
	g = (struct pg){ buf, 0 };
	ev_small(&g, 1, 1, 0x10);
	ev_two(&g, 0, 1, 0);
	seal(&g, 100, 0, 0);
	nrec = 0;
	ok(compare_mem(buf, PAGE, "negative size", &nrec, &err) == 0 && err == -FTK_E_FORMAT &&
	   nrec == 1, "type_len 0 with array[0] 0: the same record, then the same error");
	g = (struct pg){ buf, 0 };
	ev_two(&g, 0, 1, 0x7fffffffU);
	seal(&g, 100, 0, 0);
	nrec = 0;
	ok(compare_mem(buf, PAGE, "huge size", &nrec, &err) == 0 && err == -FTK_E_FORMAT &&
	   nrec == 0, "type_len 0 with array[0] past the page: the same error");
	g = (struct pg){ buf, 0 };
	ev_two(&g, 0, 1, 0x80000003U);
	seal(&g, 100, 0, 0);
	nrec = 0;
	ok(compare_mem(buf, PAGE, "int overflow", &nrec, &err) == 0 && err == -FTK_E_FORMAT,
	   "type_len 0 whose rounding overflows an int: the same error");

	/* damaged: a commit past the page is refused before decoding */
	memset(buf, 0, PAGE);
	g = (struct pg){ buf, 0 };
	ev_small(&g, 1, 1, 0x10);
	seal(&g, 100, PAGE, 0);
	nrec = 0;
	ok(compare_mem(buf, PAGE, "commit", &nrec, &err) == 0 && err == -FTK_E_FORMAT && !nrec,
	   "a commit past the page: the same error, nothing read");
	seal(&g, 100, PAGE - 16 - 4, MISSED | MISSED_STORED);
	nrec = 0;
	ok(compare_mem(buf, PAGE, "stored count", &nrec, &err) == 0 && err == -FTK_E_FORMAT,
	   "a stored loss count past the page: the same error");

	/* padding whose length wraps the offset: kbuffer would walk back; subbuf.c stops */
	{
		struct ftk_stream_fmt fmt = { .sz = sizeof(fmt), .subbuf_size = PAGE,
					      .long_size = 8, .name = "mem",
					      .big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ };
		struct ftk_stream *s;

		memset(buf, 0, PAGE);
		g = (struct pg){ buf, 0 };
		ev_small(&g, 1, 1, 0x10);
		ev_small(&g, 1, 1, 0x10);
		w32(at(&g), hdr(29, 1));
		w32(at(&g) + 4, 0xfffffff0U);
		g.used += 8;
		seal(&g, 100, 0, 0);
		s = ftk_stream_open_mem(buf, PAGE, &fmt);
		nrec = 0;
		while (s && ftk_stream_peek(s)) {
			ftk_stream_consume(s);
			nrec++;
		}
		ok(s && nrec == 2 && ftk_stream_error(s) == -FTK_E_FORMAT,
		   "padding that wraps the offset: an error, not a loop (%s)",
		   s ? ftk_stream_errmsg(s) : "no stream");
		ftk_stream_close(s);
	}

	/* pages of random events, the commit anywhere in the page */
	srandom(105);
	nrec = 0;
	for (i = 0; i < 3000; i++) {
		unsigned int room;
		uint64_t flags = 0;
		char what[64];

		memset(buf, 0, PAGE);
		g = (struct pg){ buf, 0 };
		while ((room = PAGE - 16 - 16 - g.used) > 320) {
			unsigned int k = random() % 16, delta = random() & ((1U << 27) - 1);

			if (k < 8)
				ev_small(&g, k < 4 ? random() % 64 : delta, 1 + random() % 28,
					 (unsigned char)random());
			else if (k < 10)
				ev_big(&g, delta, random() % 300, (unsigned char)random());
			else if (k < 12)
				ev_two(&g, 30, delta, (uint32_t)random());
			else if (k < 13)
				ev_two(&g, 31, delta, (uint32_t)random());
			else if (k < 14)
				ev_pad(&g, delta, random() % 64);
			else
				ev_small(&g, 0, 1, 0);
		}
		if (random() % 4 == 0)
			flags = MISSED | (random() % 2 ? MISSED_STORED : 0);
		seal(&g, ((uint64_t)random() << 33) ^ (uint64_t)random(),
		     1 + random() % (g.used + 8 < PAGE - 16 - 8 ? g.used + 8 : g.used), flags);
		snprintf(what, sizeof(what), "random page %d", i);
		if (compare_mem(buf, PAGE, what, &nrec, &err) < 0)
			break;
	}
	ok(i == 3000, "3000 pages of random events: the same %llu records", nrec);
	free(buf);
}

int main(void)
{
	const char *src = getenv("top_srcdir");
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/t/fixtures", src ? src : ".");
	fixtures(dir);
	snprintf(dir, sizeof(dir), "%s/t/fixtures/trace-cmd-vm", src ? src : ".");
	fixtures(dir);
	synthetic();
	return done_testing();
}
