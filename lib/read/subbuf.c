// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * subbuf: ring-buffer sub-buffers of the host's own layout, decoded in one
 * pass over each event header.
 *
 * libtraceevent's kbuffer reads a record's header again for every question
 * asked of it (kbuffer_read_event(), _event_size(), _curr_size(), then
 * _next_event()), through function pointers that may swap bytes. For the
 * live reader's layout that was a quarter of fttop's time at 1M events/s.
 * Here each header is read once, in place.
 *
 * The results are kbuffer's (libtraceevent 1.7.1 up to 1.8.4 decode alike),
 * also on damaged pages, which t/unit/t0105-subbuf.c checks record by
 * record:
 *   type_len 0       length in array[0], counting array[0]; the payload,
 *                    rounded up to 4 bytes, follows array[0]
 *   type_len 1..28   4 * type_len bytes of payload after the header
 *   type_len 29      padding: array[0] bytes after the header, the delta
 *                    counts (kbuffer adds it, so the stamps do too)
 *   type_len 30      time extend: + (array[0] << 27) + time_delta
 *   type_len 31      absolute stamp: (array[0] << 27) + time_delta, which
 *                    has no top 5 bits: they are taken from the current time
 */
#include <stdint.h>
#include <string.h>

#include "subbuf-local.h"

#define COMMIT_MASK	((1U << 27) - 1)
#define DELTA_BITS	27
#define TS_MSB		(0xf8ULL << 56)

enum {
	TYPE_DATA_MAX	= 28,
	TYPE_PADDING	= 29,
	TYPE_EXTEND	= 30,
	TYPE_STAMP	= 31,
};

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The header's fields: type_len is in the low bits of a little-endian word, the high of a big. */
#define HDR_TYPE(h)	FTK_SUBBUF_TYPE(h)
#define HDR_DELTA(h)	FTK_SUBBUF_DELTA(h)

void ftk_subbuf_load(struct ftk_subbuf *sb, const void *page)
{
	const unsigned char *p = page;
	uint64_t ts, commit;

	memcpy(&ts, p, 8);
	memcpy(&commit, p + 8, 8);
	sb->data = p + FTK_SUBBUF_HDR;
	sb->size = (unsigned int)commit & COMMIT_MASK;
	sb->next = 0;
	sb->curr = 0;
	sb->index = 0;
	sb->len = 0;
	sb->rec_len = 0;
	sb->ts = ts;
}

int ftk_subbuf_next(struct ftk_subbuf *sb)
{
	unsigned long long ts = sb->ts;
	unsigned int curr = sb->next, next, type, a0;
	uint32_t h;

	for (;;) {
		if (curr >= sb->size) {
			sb->curr = curr;
			sb->ts = ts;
			return 0;
		}
		h = rd32(sb->data + curr);
		type = HDR_TYPE(h);
		if (type && type <= TYPE_DATA_MAX)
			return ftk_subbuf_take(sb, curr, type, ts + HDR_DELTA(h));
		a0 = rd32(sb->data + curr + 4);
		switch (type) {
		case 0:
			/* kbuffer's int arithmetic, wrapping as it does */
			sb->ts = ts + HDR_DELTA(h);
			sb->curr = curr;
			sb->index = curr + 8;
			sb->len = (int)((a0 - 4 + 3) & ~3U);
			sb->next = sb->index + (unsigned int)sb->len;
			sb->rec_len = (int)(sb->next - curr);
			return 1;
		case TYPE_PADDING:
			ts += HDR_DELTA(h);
			next = curr + 4 + a0;
			break;
		case TYPE_EXTEND:
			ts += ((unsigned long long)a0 << DELTA_BITS) + HDR_DELTA(h);
			next = curr + 8;
			break;
		default:	/* TYPE_STAMP */
			ts = (((unsigned long long)a0 << DELTA_BITS) + HDR_DELTA(h)) | (ts & TS_MSB);
			next = curr + 8;
			break;
		}
		if (next <= curr) {
			sb->curr = curr;
			sb->ts = ts;
			return -1;
		}
		curr = next;
		sb->next = next;
	}
}
