/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-CPU record streams over ring-buffer sub-buffers ("pages").
 *
 * A stream takes its sub-buffers from a live trace_pipe_raw fd, from a
 * region of a file or from memory, and decodes them with libtraceevent's
 * kbuffer: data entries, padding, time extends, absolute time stamps and
 * the missed-events flags of each sub-buffer.
 *
 * Reading protocol:
 *	while ((rec = ftk_stream_peek(s))) {	// earliest record, not taken
 *		use(rec);			// valid until the next call on s
 *		ftk_stream_consume(s);		// drop it and move on
 *	}
 *	if (ftk_stream_error(s)) puts(ftk_stream_errmsg(s));
 * or take records with ftk_stream_next(), which the caller owns until
 * ftk_record_put().
 */
#ifndef FTKIT_STREAM_H
#define FTKIT_STREAM_H

#include <stddef.h>
#include <sys/types.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tep_record;
struct ftk_stream;

/* How the sub-buffers of a stream are laid out. */
struct ftk_stream_fmt {
	size_t		sz;		/* sizeof(struct ftk_stream_fmt) */
	unsigned int	subbuf_size;	/* bytes per sub-buffer (page size by default) */
	int		long_size;	/* 4 or 8: size of the commit field (kernel long) */
	int		big_endian;	/* 1 if the data is big endian */
	int		cpu;		/* the CPU the records belong to */
	long long	ts_offset;	/* added to every time stamp */
	const char	*name;		/* for error messages: file name or path */
	unsigned int	ts_mult;	/* if not 0: stamp = (stamp * ts_mult) >> ts_shift, */
	unsigned int	ts_shift;	/* before ts_offset (TSC to nanoseconds) */
};

/*
 * Pull source of sub-buffers, for sources that are neither fds, nor
 * plain file regions nor memory (compressed files). read() fills @buf
 * with one sub-buffer of at most @size bytes and returns the bytes read,
 * 0 at the end, or a negative errno; @off receives the source offset
 * for messages. close() may be NULL.
 */
struct ftk_stream_ops {
	ssize_t	(*read)(void *ctx, void *buf, size_t size, unsigned long long *off);
	void	(*close)(void *ctx);
};

/* Stream over sub-buffers read(2) from @fd (trace_pipe_raw); the fd stays the caller's. */
FTK_API struct ftk_stream *ftk_stream_open_fd(int fd, const struct ftk_stream_fmt *fmt);
/* Stream over @len bytes at @offset of file @fd (pread, bounded memory); fd stays the caller's. */
FTK_API struct ftk_stream *ftk_stream_open_file(int fd, unsigned long long offset,
						unsigned long long len,
						const struct ftk_stream_fmt *fmt);
/* Stream over @len bytes of memory at @buf, which must stay valid while the stream lives. */
FTK_API struct ftk_stream *ftk_stream_open_mem(const void *buf, size_t len,
					       const struct ftk_stream_fmt *fmt);
/* Stream over a pull source; @ops->close(@ctx) is called by ftk_stream_close(). */
FTK_API struct ftk_stream *ftk_stream_open_ops(const struct ftk_stream_ops *ops, void *ctx,
					       const struct ftk_stream_fmt *fmt);
FTK_API void ftk_stream_close(struct ftk_stream *s);

/* The next record without taking it; NULL at the end or on error (see ftk_stream_error()). */
FTK_API const struct tep_record *ftk_stream_peek(struct ftk_stream *s);
/* Drop the record ftk_stream_peek() returned. */
FTK_API void ftk_stream_consume(struct ftk_stream *s);
/* Take the next record: the caller owns it until ftk_record_put(). */
FTK_API struct tep_record *ftk_stream_next(struct ftk_stream *s);
/* Give back a record from ftk_stream_next() or ftk_merge_next(); NULL is fine. */
FTK_API void ftk_record_put(struct tep_record *rec);

/*
 * Fields of a record, read within its bounds (a record cut short, or a
 * __data_loc pointing past its end, reads as 0 or ""), for callers that
 * look up a tep_format_field once and read it from every record.
 */
struct tep_format_field;
/* A number field, signed ones sign-extended; 0 when out of the record. */
FTK_API long long ftk_record_num(const struct tep_record *rec, const struct tep_format_field *f);
/* A string field (fixed array or __data_loc), its length in *@len; "" when out of the record. */
FTK_API const char *ftk_record_str(const struct tep_record *rec, const struct tep_format_field *f,
				   int *len);
/* common_pid of a record; -1 when it is too short to hold one. */
FTK_API int ftk_record_pid(const struct tep_record *rec);

/* 0, or the negative code of the failure that ended the stream. */
FTK_API int ftk_stream_error(const struct ftk_stream *s);
/* Text of that failure, naming the source, CPU and offset; "" if none. */
FTK_API const char *ftk_stream_errmsg(const struct ftk_stream *s);
FTK_API int ftk_stream_cpu(const struct ftk_stream *s);

/* Counters of what the stream saw so far. */
struct ftk_stream_stats {
	unsigned long long	records;	/* data records returned */
	unsigned long long	subbufs;	/* sub-buffers loaded */
	unsigned long long	missed;		/* events the kernel reported lost */
	unsigned long long	missed_unknown;	/* sub-buffers flagged lost without a count */
	unsigned long long	first_ts;	/* time stamp of the first record */
	unsigned long long	last_ts;	/* time stamp of the last record */
};
FTK_API void ftk_stream_stats(const struct ftk_stream *s, struct ftk_stream_stats *st);

#ifdef __cplusplus
}
#endif
#endif
