/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * subbuf: a single-pass decoder for ring-buffer sub-buffers of the host's
 * own layout (its endianness, 8-byte longs: a 16-byte sub-buffer header).
 */
#ifndef FTKIT_SUBBUF_LOCAL_H
#define FTKIT_SUBBUF_LOCAL_H

#include <stdint.h>
#include <string.h>

/* The bytes before the first event: the u64 stamp and the 8-byte commit. */
#define FTK_SUBBUF_HDR	16

/*
 * Where the decoder is in one sub-buffer. After ftk_subbuf_next() returned
 * 1, @curr, @index, @len and @ts describe the event it found, with the
 * meanings libtraceevent's kbuffer gives them (kbuffer_curr_offset() less
 * the header, the payload's offset, kbuffer_event_size() and the stamp).
 */
struct ftk_subbuf {
	const unsigned char	*data;	/* the first event header */
	unsigned int		size;	/* bytes of events: the commit's low 27 bits */
	unsigned int		next;	/* offset from @data of the next header to read */
	unsigned int		curr;	/* the event found: its header, from @data */
	unsigned int		index;	/* its payload, from @data */
	int			len;	/* its payload bytes: may be < 0 on a damaged page */
	int			rec_len;	/* header and payload (kbuffer_curr_size()) */
	unsigned long long	ts;	/* its stamp */
};

/*
 * Start on @page; the caller has checked that the commit lies within it,
 * and keeps 8 readable bytes after the commit (the stream's slack).
 */
void ftk_subbuf_load(struct ftk_subbuf *sb, const void *page);

/*
 * Find the next data event, stepping over time extends, absolute stamps
 * and padding: 1 if found, 0 at the end of the commit, -1 where an event's
 * length would wrap the offset around (kbuffer would walk back over the
 * page, or forever).
 */
int ftk_subbuf_next(struct ftk_subbuf *sb);

/* An event header's type (a data event's length in words, 1 to 28) and time delta. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FTK_SUBBUF_TYPE(h)	((h) >> 27)
#define FTK_SUBBUF_DELTA(h)	((h) & ((1U << 27) - 1))
#else
#define FTK_SUBBUF_TYPE(h)	((h) & 31)
#define FTK_SUBBUF_DELTA(h)	((h) >> 5)
#endif

/* The data event of @type words at @curr, stamped @ts, is the one found. */
static inline int ftk_subbuf_take(struct ftk_subbuf *sb, unsigned int curr, unsigned int type,
				  unsigned long long ts)
{
	sb->ts = ts;
	sb->curr = curr;
	sb->index = curr + 4;
	sb->len = (int)(type * 4);
	sb->next = curr + 4 + type * 4;
	sb->rec_len = sb->len + 4;
	return 1;
}

/*
 * The usual event, inline: a small data event right at @next (its header's
 * type, the low 5 bits on a little-endian host, is its length in words, 1
 * to 28). 1 with it found; 0, nothing changed, for anything else (the end,
 * time extends, padding), which ftk_subbuf_next() deals with.
 */
static inline int ftk_subbuf_next_data(struct ftk_subbuf *sb)
{
	unsigned int curr = sb->next, type;
	uint32_t h;

	if (curr >= sb->size)
		return 0;
	memcpy(&h, sb->data + curr, sizeof(h));
	type = FTK_SUBBUF_TYPE(h);
	if (!type || type > 28)
		return 0;
	return ftk_subbuf_take(sb, curr, type, sb->ts + FTK_SUBBUF_DELTA(h));
}

/* ftk_subbuf_next(), with the usual event inline. */
static inline int ftk_subbuf_next_inline(struct ftk_subbuf *sb)
{
	return ftk_subbuf_next_data(sb) ? 1 : ftk_subbuf_next(sb);
}

#endif
