// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * merge: min-heap over streams keyed by (time stamp, order added).
 *
 * The heap holds the streams that still have a record; each key is cached
 * so a sift compares integers, not records.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "stream-local.h"
#include <ftkit/merge.h>

struct merge_in {
	struct ftk_stream	*s;
	unsigned long long	ts;	/* cached key of the stream's next record */
	const struct tep_record	*rec;	/* that record (the stream's, while in the heap) */
	int			idx;	/* order added: the tie-break */
	int			tag;
};

struct ftk_merge {
	struct merge_in		*all;	/* every stream, in order added */
	struct merge_in		**heap;	/* streams with a record */
	int			nr;
	int			alloc;
	int			nheap;
	int			primed;
	struct ftk_stream	*failed;
};

/**
 * ftk_merge_new() - an empty merge
 *
 * Return: the merge, to free with ftk_merge_free(), or NULL with errno set.
 */
FTK_API struct ftk_merge *ftk_merge_new(void)
{
	return calloc(1, sizeof(struct ftk_merge));
}

/**
 * ftk_merge_free() - free a merge and the streams in it
 * @m: the merge, or NULL
 */
FTK_API void ftk_merge_free(struct ftk_merge *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++)
		ftk_stream_close(m->all[i].s);
	free(m->all);
	free(m->heap);
	free(m);
}

/**
 * ftk_merge_add() - add a stream
 * @m: the merge
 * @s: the stream; the merge owns it from now on, also on failure
 * @tag: a value of the caller's returned with the stream's records (CPU, buffer...)
 *
 * Streams must be added before the first peek. On equal time stamps the
 * stream added first wins, so adding by ascending CPU gives ties to the
 * lower CPU.
 *
 * Return: 0, -EINVAL if reading started already, or -ENOMEM.
 */
FTK_API int ftk_merge_add(struct ftk_merge *m, struct ftk_stream *s, int tag)
{
	if (!s)
		return ftk_err(-EINVAL);
	if (m->primed) {
		ftk_stream_close(s);
		return ftk_err(-EINVAL);
	}
	if (m->nr == m->alloc) {
		int n = m->alloc ? m->alloc * 2 : 8;
		struct merge_in *a = realloc(m->all, n * sizeof(*a));

		if (!a) {
			ftk_stream_close(s);
			return ftk_err(-ENOMEM);
		}
		m->all = a;
		m->alloc = n;
	}
	m->all[m->nr].s = s;
	m->all[m->nr].idx = m->nr;
	m->all[m->nr].tag = tag;
	m->nr++;
	return 0;
}

static inline int before(const struct merge_in *a, const struct merge_in *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->idx < b->idx);
}

static void sift_down(struct ftk_merge *m, int i)
{
	struct merge_in **h = m->heap, *x = h[i];
	int n = m->nheap;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(h[c + 1], h[c]))
			c++;
		if (!before(h[c], x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* Re-key the top stream after it moved; drop it from the heap when it ends. */
static void refresh_top(struct ftk_merge *m)
{
	struct merge_in *top = m->heap[0];
	const struct tep_record *r = ftk_stream_peek(top->s);

	if (r) {
		top->ts = r->ts;
		top->rec = r;
	} else {
		if (ftk_stream_error(top->s) && !m->failed)
			m->failed = top->s;
		m->heap[0] = m->heap[--m->nheap];
	}
	/* one or two CPUs with records are the usual case of a filtered live read */
	if (m->nheap == 2) {
		if (before(m->heap[1], m->heap[0])) {
			top = m->heap[0];
			m->heap[0] = m->heap[1];
			m->heap[1] = top;
		}
	} else if (m->nheap > 2) {
		sift_down(m, 0);
	}
}

/* The heap of the streams that have a record now. */
static void build(struct ftk_merge *m)
{
	const struct tep_record *r;
	int i;

	m->nheap = 0;
	for (i = 0; i < m->nr; i++) {
		r = ftk_stream_peek(m->all[i].s);
		if (!r) {
			if (ftk_stream_error(m->all[i].s) && !m->failed)
				m->failed = m->all[i].s;
			continue;
		}
		m->all[i].ts = r->ts;
		m->all[i].rec = r;
		m->heap[m->nheap++] = &m->all[i];
	}
	for (i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
}

static int prime(struct ftk_merge *m)
{
	m->primed = 1;
	m->heap = calloc(m->nr ? m->nr : 1, sizeof(*m->heap));
	if (!m->heap)
		return -ENOMEM;
	build(m);
	return 0;
}

int ftk_merge_resume(struct ftk_merge *m)
{
	int i;

	for (i = 0; i < m->nr; i++)
		ftk_stream_resume(m->all[i].s);
	if (!m->primed)
		return prime(m);
	build(m);
	return 0;
}

/**
 * ftk_merge_peek() - the earliest record of all streams, not taken
 * @m: the merge
 * @tag: if not NULL, receives the tag its stream was added with
 *
 * Return: the record, owned by its stream and valid until the next call on
 * @m; NULL when every stream is finished (check ftk_merge_failed()).
 */
FTK_API const struct tep_record *ftk_merge_peek(struct ftk_merge *m, int *tag)
{
	if (!m->primed && prime(m) < 0)
		return ftk_err_ptr(-ENOMEM);
	if (!m->nheap)
		return NULL;
	if (tag)
		*tag = m->heap[0]->tag;
	return m->heap[0]->rec;
}

/**
 * ftk_merge_consume() - drop the record ftk_merge_peek() returned
 * @m: the merge
 */
FTK_API void ftk_merge_consume(struct ftk_merge *m)
{
	if (!m->primed && prime(m) < 0)
		return;
	if (!m->nheap)
		return;
	ftk_stream_consume(m->heap[0]->s);
	refresh_top(m);
}

/*
 * Hand @fn every record up to @mark in order, as ftk_merge_peek() and
 * ftk_merge_consume() would, but in runs: while the first stream's next
 * record still comes before the second stream's, it is read on without
 * touching the heap. A filtered live buffer has its records on one or two
 * CPUs in long runs; with a peek and a consume per record, the merge was
 * a fifth of fttop's time at 1M events/s (perf record -e cpu-clock).
 */
int ftk_merge_drain(struct ftk_merge *m, unsigned long long mark, ftk_merge_fn fn, void *ctx,
		    uint64_t *count)
{
	const struct merge_in *next;
	const struct tep_record *r;
	struct merge_in *top;
	uint64_t n = 0;
	int ret = 0;

	if (!m->primed)		/* ftk_merge_resume() primes it */
		return 0;
	while (!ret && m->nheap && m->heap[0]->ts <= mark) {
		top = m->heap[0];
		next = NULL;
		if (m->nheap > 1)
			next = m->nheap > 2 && before(m->heap[2], m->heap[1]) ? m->heap[2] : m->heap[1];
		r = top->rec;
		for (;;) {
			n++;
			ret = fn(ctx, r);
			r = ftk_stream_advance(top->s);
			if (ret || !r || r->ts > mark)
				break;
			if (next && (r->ts > next->ts || (r->ts == next->ts && next->idx < top->idx)))
				break;
		}
		refresh_top(m);
	}
	*count += n;
	return ret;
}

/**
 * ftk_merge_next() - take the earliest record
 * @m: the merge
 * @tag: if not NULL, receives the tag of its stream
 *
 * Return: the record, owned by the caller until ftk_record_put(); NULL when
 * every stream is finished.
 */
FTK_API struct tep_record *ftk_merge_next(struct ftk_merge *m, int *tag)
{
	struct tep_record *r;

	if (!ftk_merge_peek(m, tag))
		return NULL;
	r = ftk_stream_next(m->heap[0]->s);
	if (r)
		refresh_top(m);
	return r;
}

/**
 * ftk_merge_failed() - the first stream that ended on an error
 * @m: the merge
 *
 * Return: the stream (owned by the merge) or NULL if none failed so far.
 */
FTK_API struct ftk_stream *ftk_merge_failed(const struct ftk_merge *m)
{
	return m->failed;
}

/**
 * ftk_merge_count() - number of streams added
 * @m: the merge
 *
 * Return: the count.
 */
FTK_API int ftk_merge_count(const struct ftk_merge *m)
{
	return m->nr;
}

/**
 * ftk_merge_stream() - a stream of the merge
 * @m: the merge
 * @i: index in the order added
 *
 * Return: the stream, owned by the merge, or NULL if @i is out of range.
 */
FTK_API struct ftk_stream *ftk_merge_stream(const struct ftk_merge *m, int i)
{
	return i >= 0 && i < m->nr ? m->all[i].s : NULL;
}

/**
 * ftk_merge_tag() - the tag a stream was added with
 * @m: the merge
 * @i: index in the order added
 *
 * Return: the tag, or -1 if @i is out of range.
 */
FTK_API int ftk_merge_tag(const struct ftk_merge *m, int i)
{
	return i >= 0 && i < m->nr ? m->all[i].tag : -1;
}
