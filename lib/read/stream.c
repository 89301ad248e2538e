// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stream: per-CPU record streams over ring-buffer sub-buffers.
 *
 * Sub-buffers of the host's own layout are decoded by subbuf.c, in one
 * pass; those of the other layouts by libtraceevent's kbuffer. What is
 * written by hand here is checking a sub-buffer before a decoder sees it
 * (both trust the commit field and would read past the page of a damaged
 * file), and the sources that supply sub-buffers with bounded memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>

#include "internal.h"
#include "stream-local.h"
#include "subbuf-local.h"

#define COMMIT_MASK	((1U << 27) - 1)
#define MISSED_EVENTS	(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)

/* Sub-buffers read from a file per pread(2). */
#define FILE_CHUNK_SUBBUFS	32

enum src_kind { SRC_MEM, SRC_FD, SRC_FILE, SRC_OPS };

struct ftk_stream {
	struct kbuffer		*kbuf;		/* the decoder of the other layouts */
	struct ftk_subbuf	sb;		/* the decoder of the native layout */
	int			native;		/* sb decodes, not kbuf */
	struct ftk_stream_fmt	fmt;
	char			*name;
	enum src_kind		kind;
	/* sources */
	const unsigned char	*mem;
	unsigned long long	len;		/* MEM, FILE: bytes in the region */
	unsigned long long	pos;		/* MEM, FILE: next byte of the region */
	unsigned long long	base;		/* FILE: offset of the region in the file */
	int			fd;
	struct ftk_stream_ops	ops;
	void			*ctx;
	unsigned char		*chunk;		/* FILE: chunk_subbufs sub-buffers + slack */
	unsigned int		chunk_subbufs;	/* FILE: sub-buffers per pread(2) */
	unsigned long long	chunk_off;	/* FILE: region offset of chunk[0] */
	size_t			chunk_len;	/* FILE: valid bytes in chunk */
	unsigned char		*page;		/* one sub-buffer + slack, allocated when needed */
	/* decoding state */
	unsigned char		*cur_page;	/* the loaded sub-buffer */
	unsigned long long	cur_off;	/* its offset in the source */
	long long		page_missed;	/* missed events of the loaded sub-buffer */
	int			first_in_page;
	int			have;		/* rec is valid */
	int			done;
	int			err;
	struct tep_record	rec;		/* the peeked record */
	struct ftk_record	*free_list;
	struct ftk_stream_stats	st;
	ftk_stream_hook_fn	hook;
	void			*hook_ctx;
	const unsigned char	*hook_seen;	/* ftk_stream_set_hook_seen(), or NULL */
	int			hook_type_off;
	/* ftk_stream_set_ts_map(): fill() leaves the raw stamp, map_hook() corrects it */
	ftk_stream_ts_fn	ts_map;
	const void		*ts_map_ctx;
	ftk_stream_hook_fn	user_hook;	/* the hook of ftk_stream_set_hook() */
	void			*user_hook_ctx;
	unsigned int		map_mult, map_shift;
	long long		map_offset;
	char			errmsg[256];
};

static int stream_fail(struct ftk_stream *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int stream_fail(struct ftk_stream *s, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(s->errmsg, sizeof(s->errmsg), "%s: cpu %d: ", s->name, s->fmt.cpu);
	if (n < 0 || (size_t)n >= sizeof(s->errmsg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(s->errmsg + n, sizeof(s->errmsg) - n, fmt, ap);
	va_end(ap);
	s->err = err;
	s->done = 1;
	s->have = 0;
	return err;
}

static struct ftk_stream *stream_new(const struct ftk_stream_fmt *fmt, enum src_kind kind)
{
	struct ftk_stream *s;
	unsigned int sub;

	if (!fmt || (fmt->long_size != 4 && fmt->long_size != 8)) {
		errno = EINVAL;
		return NULL;
	}
	sub = fmt->subbuf_size ? fmt->subbuf_size : (unsigned int)sysconf(_SC_PAGESIZE);
	if (sub < 16 + (unsigned int)fmt->long_size || sub > (1U << 27)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	memcpy(&s->fmt, fmt, fmt->sz && fmt->sz < sizeof(s->fmt) ? fmt->sz : sizeof(s->fmt));
	s->fmt.sz = sizeof(s->fmt);
	s->fmt.subbuf_size = sub;
	s->name = strdup(fmt->name ? fmt->name : "stream");
	s->fmt.name = s->name;
	s->kind = kind;
	s->fd = -1;
	s->chunk_subbufs = FILE_CHUNK_SUBBUFS;
	/*
	 * The native layout is the live reader's and that of files recorded
	 * here: subbuf.c decodes it. fttop at 1M events/s spent a quarter of
	 * its time in kbuffer; with subbuf.c its CPU per event fell from
	 * 0.19-0.20 us to 0.14-0.15 us (t/bench/fttop-bench.sh), and
	 * ftreport's on a 1.3M-record file from 318 to 273 ms (task-clock,
	 * the least of 12 runs). Files of another machine (the other byte
	 * order, 4-byte longs) stay with kbuffer: only the file readers see
	 * them, once, and those 45 ms in a million records are not worth a
	 * byte-swapping twin of subbuf.c to keep equal to kbuffer
	 * (t/unit/t0105-subbuf.c checks the native one against it).
	 */
	s->native = fmt->long_size == 8 &&
		    (fmt->big_endian != 0) == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (!s->native)
		s->kbuf = kbuffer_alloc(fmt->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					fmt->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!s->name || (!s->native && !s->kbuf)) {
		ftk_stream_close(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/**
 * ftk_stream_open_mem() - stream over sub-buffers in memory
 * @buf: the sub-buffers, back to back, each @fmt->subbuf_size bytes
 * @len: bytes at @buf; a short last sub-buffer is read as if zero-padded
 * @fmt: layout of the data and the CPU it belongs to
 *
 * Return: a stream to close with ftk_stream_close(), or NULL with errno set.
 * @buf is not copied and must outlive the stream.
 */
FTK_API struct ftk_stream *ftk_stream_open_mem(const void *buf, size_t len,
					       const struct ftk_stream_fmt *fmt)
{
	struct ftk_stream *s = stream_new(fmt, SRC_MEM);

	if (!s)
		return NULL;
	s->mem = buf;
	s->len = len;
	return s;
}

/**
 * ftk_stream_open_fd() - stream over sub-buffers read from a file descriptor
 * @fd: typically per_cpu/cpuN/trace_pipe_raw; reading it consumes the kernel's buffer
 * @fmt: layout of the data and the CPU it belongs to
 *
 * Each read(2) asks for one sub-buffer. The stream ends when read returns 0,
 * or EAGAIN on a non-blocking fd. The fd stays the caller's to close.
 *
 * Return: a stream to close with ftk_stream_close(), or NULL with errno set.
 */
FTK_API struct ftk_stream *ftk_stream_open_fd(int fd, const struct ftk_stream_fmt *fmt)
{
	struct ftk_stream *s = stream_new(fmt, SRC_FD);

	if (!s)
		return NULL;
	s->fd = fd;
	return s;
}

/**
 * ftk_stream_open_file() - stream over a region of a file
 * @fd: the open file; stays the caller's
 * @offset: where the region starts
 * @len: bytes in the region
 * @fmt: layout of the data and the CPU it belongs to
 *
 * The region is read with pread(2) a few sub-buffers at a time, so memory
 * stays bounded however large the file is, and a file that is shorter than
 * the region says ends the stream with an error rather than a SIGBUS.
 *
 * Return: a stream to close with ftk_stream_close(), or NULL with errno set.
 */
FTK_API struct ftk_stream *ftk_stream_open_file(int fd, unsigned long long offset,
						unsigned long long len,
						const struct ftk_stream_fmt *fmt)
{
	struct ftk_stream *s = stream_new(fmt, SRC_FILE);

	if (!s)
		return NULL;
	s->fd = fd;
	s->base = offset;
	s->len = len;
	return s;
}

/*
 * Sub-buffers read per pread(2) by a file stream (1 to FILE_CHUNK_SUBBUFS),
 * so that many streams read at once stay within a memory budget; before
 * the first read only.
 */
void ftk_stream_set_readahead(struct ftk_stream *s, unsigned int subbufs)
{
	if (!s->chunk)
		s->chunk_subbufs = subbufs < 1 ? 1 :
				   subbufs > FILE_CHUNK_SUBBUFS ? FILE_CHUNK_SUBBUFS : subbufs;
}

/* The stream's one-sub-buffer page, allocated on first use. */
static unsigned char *stream_page(struct ftk_stream *s)
{
	if (!s->page)
		s->page = calloc(1, (size_t)s->fmt.subbuf_size + FTK_STREAM_SLACK);
	if (!s->page)
		stream_fail(s, -ENOMEM, "out of memory");
	return s->page;
}

/**
 * ftk_stream_open_ops() - stream over sub-buffers from a pull source
 * @ops: read() fills one sub-buffer, close() releases @ctx (may be NULL)
 * @ctx: passed to @ops
 * @fmt: layout of the data and the CPU it belongs to
 *
 * Return: a stream to close with ftk_stream_close(), or NULL with errno set;
 * on failure @ops->close is not called.
 */
FTK_API struct ftk_stream *ftk_stream_open_ops(const struct ftk_stream_ops *ops, void *ctx,
					       const struct ftk_stream_fmt *fmt)
{
	struct ftk_stream *s;

	if (!ops || !ops->read) {
		errno = EINVAL;
		return NULL;
	}
	s = stream_new(fmt, SRC_OPS);
	if (!s)
		return NULL;
	s->ops = *ops;
	s->ctx = ctx;
	return s;
}

/**
 * ftk_stream_close() - release a stream
 * @s: the stream, or NULL
 *
 * Every record taken with ftk_stream_next() must have been put before.
 */
FTK_API void ftk_stream_close(struct ftk_stream *s)
{
	struct ftk_record *r;

	if (!s)
		return;
	while ((r = s->free_list)) {
		s->free_list = r->next_free;
		free(r);
	}
	if (s->kind == SRC_OPS && s->ops.close)
		s->ops.close(s->ctx);
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	free(s->chunk);
	free(s->page);
	free(s->name);
	free(s);
}

/* Fetch the next raw sub-buffer into s->cur_page; 1 if one, 0 at the end, <0 on error. */
static int fetch_subbuf(struct ftk_stream *s, size_t *avail)
{
	size_t sub = s->fmt.subbuf_size;
	unsigned long long off;
	ssize_t r;

	if (s->kind != SRC_FILE && !stream_page(s))
		return s->err;
	switch (s->kind) {
	case SRC_MEM:
		if (s->pos >= s->len)
			return 0;
		*avail = s->len - s->pos < sub ? s->len - s->pos : sub;
		memset(s->page, 0, sub);
		memcpy(s->page, s->mem + s->pos, *avail);
		s->cur_page = s->page;
		s->cur_off = s->pos;
		s->pos += *avail;
		return 1;
	case SRC_FD:
		do {
			r = read(s->fd, s->page, sub);
		} while (r < 0 && errno == EINTR);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r < 0)
			return stream_fail(s, -errno, "read: %s", strerror(errno));
		if (r == 0)
			return 0;
		if ((size_t)r < sub)
			memset(s->page + r, 0, sub - r);
		*avail = r;
		s->cur_page = s->page;
		s->cur_off = s->pos;
		s->pos += r;
		return 1;
	case SRC_FILE:
		if (s->pos >= s->len)
			return 0;
		if (!s->chunk) {
			/* in proportion to the region, not to what its header declares */
			unsigned long long cap = (unsigned long long)sub * s->chunk_subbufs;

			if (cap > s->len)
				cap = s->len;
			s->chunk = malloc(cap + FTK_STREAM_SLACK);
			if (!s->chunk)
				return stream_fail(s, -ENOMEM, "out of memory");
		}
		if (s->pos < s->chunk_off || s->pos >= s->chunk_off + s->chunk_len) {
			unsigned long long want = s->len - s->pos;
			size_t got = 0;

			if (want > (unsigned long long)sub * s->chunk_subbufs)
				want = (unsigned long long)sub * s->chunk_subbufs;
			while (got < want) {
				r = pread(s->fd, s->chunk + got, want - got,
					  (off_t)(s->base + s->pos + got));
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0)
					return stream_fail(s, -errno, "read at offset %llu: %s",
							   s->base + s->pos + got, strerror(errno));
				if (r == 0)
					return stream_fail(s, -FTK_E_TRUNC,
							   "file is truncated at offset %llu (cpu data should end at %llu)",
							   s->base + s->pos + got, s->base + s->len);
				got += r;
			}
			memset(s->chunk + got, 0, FTK_STREAM_SLACK);
			s->chunk_off = s->pos;
			s->chunk_len = got;
		}
		off = s->pos - s->chunk_off;
		*avail = s->chunk_len - off < sub ? s->chunk_len - off : sub;
		if (*avail < sub) {
			if (!stream_page(s))
				return s->err;
			memset(s->page, 0, sub);
			memcpy(s->page, s->chunk + off, *avail);
			s->cur_page = s->page;
		} else {
			s->cur_page = s->chunk + off;
		}
		s->cur_off = s->base + s->pos;
		s->pos += *avail;
		return 1;
	case SRC_OPS:
		off = 0;
		r = s->ops.read(s->ctx, s->page, sub, &off);
		if (r < 0) {
			char why[128];

			return stream_fail(s, (int)r, "cannot read sub-buffer at offset %llu: %s",
					   off, ftk_strerror((int)r, why, sizeof(why)));
		}
		if (r == 0)
			return 0;
		if ((size_t)r < sub)
			memset(s->page + r, 0, sub - r);
		*avail = r;
		s->cur_page = s->page;
		s->cur_off = off;
		return 1;
	}
	return 0;
}

static unsigned long long read_long(const struct ftk_stream *s, const unsigned char *p)
{
	unsigned long long v = 0;
	int i, n = s->fmt.long_size;

	for (i = 0; i < n; i++) {
		if (s->fmt.big_endian)
			v = (v << 8) | p[i];
		else
			v |= (unsigned long long)p[i] << (8 * i);
	}
	return v;
}

/* Load sub-buffers until one has a record; 1 if one, 0 at the end, <0 on error. */
static int load_next(struct ftk_stream *s)
{
	unsigned int hdr = 8 + s->fmt.long_size;
	unsigned long long commit, flags, size;
	size_t avail = 0;
	int ret;

	for (;;) {
		ret = fetch_subbuf(s, &avail);
		if (ret <= 0)
			return ret;
		if (avail < hdr)
			return stream_fail(s, -FTK_E_TRUNC,
					   "short sub-buffer at offset %llu: %zu bytes",
					   s->cur_off, avail);
		commit = read_long(s, s->cur_page + 8);
		flags = commit & (MISSED_EVENTS | MISSED_STORED);
		size = commit & COMMIT_MASK;
		if (hdr + size + ((flags & MISSED_STORED) ? s->fmt.long_size : 0) > avail)
			return stream_fail(s, -FTK_E_FORMAT,
					   "bad sub-buffer header at offset %llu: commit %llu beyond the %zu bytes of the sub-buffer",
					   s->cur_off, size, avail);
		if (s->native)
			ftk_subbuf_load(&s->sb, s->cur_page);
		else if (kbuffer_load_subbuffer(s->kbuf, s->cur_page) < 0)
			return stream_fail(s, -FTK_E_FORMAT, "cannot load sub-buffer at offset %llu",
					   s->cur_off);
		s->st.subbufs++;
		/*
		 * Read the loss from the header ourselves: kbuffer_missed_events()
		 * says 0 when the sub-buffer starts with a time extend.
		 */
		if (!(flags & MISSED_EVENTS))
			s->page_missed = 0;
		else if (flags & MISSED_STORED)
			s->page_missed = (long long)read_long(s, s->cur_page + hdr + size);
		else
			s->page_missed = -1;
		if (s->page_missed > 0)
			s->st.missed += s->page_missed;
		else if (s->page_missed < 0)
			s->st.missed_unknown++;
		s->first_in_page = 1;
		if (size)
			return 1;
	}
}

int ftk_stream_use_kbuffer(struct ftk_stream *s)
{
	if (!s->native || s->cur_page || s->done)
		return s->native ? -EBUSY : 0;
	s->kbuf = kbuffer_alloc(KBUFFER_LSIZE_8, s->fmt.big_endian ? KBUFFER_ENDIAN_BIG :
								  KBUFFER_ENDIAN_LITTLE);
	if (!s->kbuf)
		return -ENOMEM;
	s->native = 0;
	return 0;
}

void ftk_stream_set_hook(struct ftk_stream *s, ftk_stream_hook_fn fn, void *ctx)
{
	if (s->ts_map) {
		s->user_hook = fn;
		s->user_hook_ctx = ctx;
		return;
	}
	s->hook = fn;
	s->hook_ctx = ctx;
}

void ftk_stream_set_hook_seen(struct ftk_stream *s, const unsigned char *seen, int type_off)
{
	if (s->ts_map || type_off < 0)
		return;
	s->hook_seen = seen;
	s->hook_type_off = type_off;
}

/* The stamp fill() left raw, mapped, converted and offset as fill() would have; then the hook. */
static void map_hook(void *ctx, const struct tep_record *rec)
{
	struct ftk_stream *s = ctx;
	unsigned long long ts = s->ts_map(s->ts_map_ctx, rec->ts);

	if (s->map_mult)
		ts = (unsigned long long)(((unsigned __int128)ts * s->map_mult) >> s->map_shift);
	s->rec.ts = ts + s->map_offset;
	if (s->user_hook)
		s->user_hook(s->user_hook_ctx, rec);
}

/*
 * The map runs in the per-record hook, on the stamp fill() leaves raw (its
 * ts_mult and ts_offset moved here), so that fill() is the same code for a
 * stream without a map: it pays nothing for them.
 */
void ftk_stream_set_ts_map(struct ftk_stream *s, ftk_stream_ts_fn fn, const void *ctx)
{
	if (!fn || s->ts_map)
		return;
	s->ts_map = fn;
	s->ts_map_ctx = ctx;
	s->map_mult = s->fmt.ts_mult;
	s->map_shift = s->fmt.ts_shift;
	s->map_offset = s->fmt.ts_offset;
	s->fmt.ts_mult = 0;
	s->fmt.ts_offset = 0;
	s->user_hook = s->hook;
	s->user_hook_ctx = s->hook_ctx;
	s->hook = map_hook;
	s->hook_ctx = s;
	s->hook_seen = NULL;
}

/* The next event of the loaded sub-buffer; NULL at its end, s->err set on damage. */
static unsigned char *next_event(struct ftk_stream *s, unsigned long long *ts,
				 int *size, int *rec_size, unsigned int *off)
{
	unsigned char *data;
	int ret;

	if (!s->native) {
		data = kbuffer_read_event(s->kbuf, ts);
		*size = kbuffer_event_size(s->kbuf);
		*rec_size = kbuffer_curr_size(s->kbuf);
		*off = kbuffer_curr_offset(s->kbuf);
		return data;
	}
	ret = ftk_subbuf_next_inline(&s->sb);
	if (ret < 0)
		stream_fail(s, -FTK_E_FORMAT,
			    "bad event at offset %llu: its length wraps around the sub-buffer",
			    s->cur_off + FTK_SUBBUF_HDR + s->sb.curr);
	if (ret <= 0)
		return NULL;
	*ts = s->sb.ts;
	*size = s->sb.len;
	*rec_size = s->sb.rec_len;
	*off = FTK_SUBBUF_HDR + s->sb.curr;
	return s->cur_page + FTK_SUBBUF_HDR + s->sb.index;
}

/* Make the event at @data the record handed out; 1, or <0 for a damaged page. */
static inline __attribute__((always_inline)) int take(struct ftk_stream *s, unsigned char *data,
						      unsigned long long ts, int size, int rec_size,
						      unsigned int off)
{
	if (data < s->cur_page || size < 0 ||
	    data + size > s->cur_page + s->fmt.subbuf_size)
		return stream_fail(s, -FTK_E_FORMAT,
				   "bad event at offset %llu: %d bytes past the end of the sub-buffer",
				   s->cur_off + off, size);
	/* ref_count, locked and priv stay 0 from the calloc: only ftk_stream_next()'s copies have them */
	if (s->fmt.ts_mult)
		ts = (unsigned long long)(((unsigned __int128)ts * s->fmt.ts_mult) >> s->fmt.ts_shift);
	s->rec.ts = ts + s->fmt.ts_offset;
	s->rec.offset = s->cur_off + (unsigned long long)(data - s->cur_page);
	s->rec.size = size;
	s->rec.record_size = rec_size;
	s->rec.data = data;
	/*
	 * The records after this one, read next: a live page comes in from the
	 * kernel a sub-buffer at a time, and without this the first touch of
	 * each record's header waited on memory (a sixth of fill() in fttop).
	 */
	__builtin_prefetch(data + size + 1024);
	s->rec.cpu = s->fmt.cpu;
	s->rec.missed_events = s->first_in_page ? s->page_missed : 0;
	s->first_in_page = 0;
	s->have = 1;
	if (s->hook) {
		unsigned short id;

		if (s->hook_seen && size >= s->hook_type_off + 2) {
			memcpy(&id, data + s->hook_type_off, 2);
			if (s->hook_seen[id])
				return 1;
		}
		s->hook(s->hook_ctx, &s->rec);
	}
	return 1;
}

/* Fill s->rec with the next event, or move on; 1, 0 at end, <0 error. */
static int fill(struct ftk_stream *s)
{
	unsigned long long ts = 0;
	unsigned char *data;
	int ret, size = 0, rec_size = 0;
	unsigned int off = 0;

	if (s->have)
		return 1;
	if (s->done)
		return s->err ? s->err : 0;
	for (;;) {
		if (!s->cur_page) {
			ret = load_next(s);
			if (ret <= 0) {
				s->done = 1;
				return ret;
			}
		}
		data = next_event(s, &ts, &size, &rec_size, &off);
		if (data)
			break;
		if (s->err)
			return s->err;
		s->cur_page = NULL;
	}
	return take(s, data, ts, size, rec_size, off);
}

/*
 * fill(), with its most common case inline: the next event of the
 * sub-buffer in hand is a data event of this machine's layout. Anything
 * else (a time extend, the end of the page, kbuffer's layouts) goes to
 * fill() from the same place. fill()'s frame, saved and restored on every
 * record, was a fifth of its instructions (callgrind).
 */
static inline __attribute__((always_inline)) int fill_fast(struct ftk_stream *s)
{
	if (s->have)
		return 1;
	if (!s->done && s->cur_page && s->native && ftk_subbuf_next_data(&s->sb))
		return take(s, s->cur_page + FTK_SUBBUF_HDR + s->sb.index, s->sb.ts,
			    s->sb.len, s->sb.rec_len, FTK_SUBBUF_HDR + s->sb.curr);
	return fill(s);
}

/**
 * ftk_stream_peek() - the next record, without taking it
 * @s: the stream
 *
 * The record's missed_events is the count the kernel left on its sub-buffer
 * (-1 when it flagged a loss without a count) for the first record of each
 * sub-buffer, 0 for the others.
 *
 * Return: the record, owned by the stream and valid until the next call on
 * @s; NULL at the end of the stream or on error (ftk_stream_error()).
 */
FTK_API const struct tep_record *ftk_stream_peek(struct ftk_stream *s)
{
	return fill_fast(s) > 0 ? &s->rec : NULL;
}

/**
 * ftk_stream_consume() - drop the peeked record
 * @s: the stream
 */
FTK_API void ftk_stream_consume(struct ftk_stream *s)
{
	if (!s->have && fill(s) <= 0)
		return;
	s->have = 0;
	if (!s->st.records++)
		s->st.first_ts = s->rec.ts;
	s->st.last_ts = s->rec.ts;
	if (!s->native)
		kbuffer_next_event(s->kbuf, NULL);
}

/* ftk_stream_consume() of the record just peeked, then ftk_stream_peek(), in one call. */
const struct tep_record *ftk_stream_advance(struct ftk_stream *s)
{
	ftk_stream_consume(s);
	return fill_fast(s) > 0 ? &s->rec : NULL;
}

/**
 * ftk_stream_next() - take the next record
 * @s: the stream
 *
 * Return: the record, which the caller owns until ftk_record_put(); NULL at
 * the end or on error, with errno set to ENODATA at the end.
 */
FTK_API struct tep_record *ftk_stream_next(struct ftk_stream *s)
{
	struct ftk_record *r;
	unsigned int cap = s->fmt.subbuf_size + FTK_STREAM_SLACK;
	int ret;

	ret = fill(s);
	if (ret <= 0)
		return ftk_err_ptr(ret ? ret : -ENODATA);
	r = s->free_list;
	if (r) {
		s->free_list = r->next_free;
	} else {
		r = calloc(1, sizeof(*r) + cap);
		if (!r)
			return ftk_err_ptr(-ENOMEM);
		r->cap = cap;
		r->owner = s;
	}
	r->rec = s->rec;
	memcpy(r->data, s->rec.data, s->rec.size);
	r->rec.data = r->data;
	r->rec.ref_count = 1;
	r->rec.priv = r;
	ftk_stream_consume(s);
	return &r->rec;
}

/**
 * ftk_record_put() - give back a record taken with ftk_stream_next()
 * @rec: the record, or NULL
 */
FTK_API void ftk_record_put(struct tep_record *rec)
{
	struct ftk_record *r;

	if (!rec)
		return;
	r = rec->priv;
	if (!r || &r->rec != rec || --rec->ref_count > 0)
		return;
	r->next_free = r->owner->free_list;
	r->owner->free_list = r;
}

void ftk_stream_resume(struct ftk_stream *s)
{
	if (s->kind == SRC_FD && s->done && !s->err)
		s->done = 0;
}

/**
 * ftk_stream_error() - why the stream ended early
 * @s: the stream
 *
 * Return: 0 if it did not fail, else a negative errno or FTK_E_* code.
 */
FTK_API int ftk_stream_error(const struct ftk_stream *s)
{
	return s->err;
}

/**
 * ftk_stream_errmsg() - text of the failure that ended the stream
 * @s: the stream
 *
 * Return: "NAME: cpu N: what at offset O", owned by the stream; "" if none.
 */
FTK_API const char *ftk_stream_errmsg(const struct ftk_stream *s)
{
	return s->err ? s->errmsg : "";
}

/**
 * ftk_stream_cpu() - the CPU a stream's records belong to
 * @s: the stream
 *
 * Return: the cpu given in the stream's format.
 */
FTK_API int ftk_stream_cpu(const struct ftk_stream *s)
{
	return s->fmt.cpu;
}

/**
 * ftk_stream_stats() - counters of a stream
 * @s: the stream
 * @st: filled with records consumed, sub-buffers loaded, events lost, first and last stamps
 */
FTK_API void ftk_stream_stats(const struct ftk_stream *s, struct ftk_stream_stats *st)
{
	*st = s->st;
}
