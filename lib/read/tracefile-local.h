/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace.dat format (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): the one
 * definition the reader (tracefile-read.c) and the writer
 * (tracefile-write.c) share, and the compression layer both use
 * (compress.c).
 */
#ifndef FTKIT_TRACEFILE_LOCAL_H
#define FTKIT_TRACEFILE_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#define TRACEFILE_MAGIC		"\027\010\104tracing"	/* 10 bytes */
#define TRACEFILE_MAGIC_LEN	10

/* v6 tags before the options, the latency text and the CPU data: 10 bytes with the NUL. */
#define TRACEFILE_V6_OPTIONS	"options  "
#define TRACEFILE_V6_FLYRECORD	"flyrecord"
#define TRACEFILE_V6_LATENCY	"latency  "
#define TRACEFILE_V6_TAG_LEN	10

/*
 * v7 section header: u16 id, u16 flags, u32 offset of its description in
 * the strings section, u64 size of what follows.
 */
#define TRACEFILE_SEC_HDR_LEN		16
#define TRACEFILE_SEC_COMPRESSED	(1 << 0)	/* the content is one compressed block */

/* Option (and v7 section) ids. */
enum tracefile_option {
	TF_OPT_DONE		= 0,
	TF_OPT_DATE		= 1,
	TF_OPT_CPUSTAT		= 2,
	TF_OPT_BUFFER		= 3,
	TF_OPT_TRACECLOCK	= 4,
	TF_OPT_UNAME		= 5,
	TF_OPT_HOOK		= 6,
	TF_OPT_OFFSET		= 7,
	TF_OPT_CPUCOUNT		= 8,
	TF_OPT_VERSION		= 9,
	TF_OPT_PROCMAPS		= 10,
	TF_OPT_TRACEID		= 11,
	TF_OPT_TIME_SHIFT	= 12,
	TF_OPT_GUEST		= 13,
	TF_OPT_TSC2NSEC		= 14,
	TF_OPT_STRINGS		= 15,
	TF_OPT_HEADER_INFO	= 16,
	TF_OPT_FTRACE_EVENTS	= 17,
	TF_OPT_EVENT_FORMATS	= 18,
	TF_OPT_KALLSYMS		= 19,
	TF_OPT_PRINTK		= 20,
	TF_OPT_CMDLINES		= 21,
	TF_OPT_BUFFER_TEXT	= 22,
};

/*
 * Compression (v7). The header names the algorithm; a compressed block is
 * u32 compressed size, u32 uncompressed size, then the data: a whole
 * metadata section is one block, CPU data is a u32 count of blocks, then
 * the blocks.
 */
enum tracefile_comp {
	TF_COMP_NONE,
	TF_COMP_ZSTD,
	TF_COMP_ZLIB,
};

#define TRACEFILE_BLOCK_HDR_LEN	8

/* The id of a compression name ("none", "zstd", "zlib"), or -1. */
int tf_comp_lookup(const char *name);
/* The name the header stores, and the library version written beside it. */
const char *tf_comp_name(enum tracefile_comp comp);
const char *tf_comp_version(enum tracefile_comp comp);

/*
 * A compressor keeps its library context between blocks (zstd's
 * ZSTD_CCtx: allocating one per block costs more than compressing a
 * small one). One per thread.
 */
struct tf_compressor {
	void			*zctx;
	enum tracefile_comp	comp;
	int			level;
};

/* @level 0: the algorithm's default. Returns 0 or -ENOMEM. */
int tf_compressor_init(struct tf_compressor *z, enum tracefile_comp comp, int level);
void tf_compressor_release(struct tf_compressor *z);
/* The largest compressed size of @n bytes. */
size_t tf_compress_bound(enum tracefile_comp comp, size_t n);
/* Compress @n bytes of @src into @dst (@cap bytes); the size, or -EIO. */
long tf_compress(struct tf_compressor *z, void *dst, size_t cap, const void *src, size_t n);
/*
 * Decompress @slen bytes of @src into exactly @dlen bytes at @dst; 0, or
 * -FTK_E_FORMAT when the data is damaged or does not give @dlen bytes.
 */
int tf_decompress(enum tracefile_comp comp, void *dst, size_t dlen, const void *src,
		  size_t slen);
/* The same, with one zstd context reused in *ctx; tf_decompress_end() frees it. */
int tf_decompress_with(void **ctx, enum tracefile_comp comp, void *dst, size_t dlen,
		       const void *src, size_t slen);
void tf_decompress_end(void *ctx);
/* A zstd block decompressed a step at a time into its final buffer (tf_unzstd_*()). */
struct tf_unzstd {
	void			*d;		/* the ZSTD_DCtx */
	const unsigned char	*src;
	unsigned char		*dst;
	size_t			slen, spos, dlen, dpos;
	size_t			last;		/* zstd's last answer: 0 at a frame's end */
	int			failed;
};
/* -ENOTSUP where libzstd cannot write straight into @dst */
int tf_unzstd_begin(struct tf_unzstd *z, void *dst, size_t dlen, const void *src, size_t slen);
int tf_unzstd_step(struct tf_unzstd *z, size_t max_in);
void tf_unzstd_end(struct tf_unzstd *z);

/* The tail of a network recording (tracefile-write.c), for net.c: see there. */
struct ftk_tracewrite;
int tf_write_tail(struct ftk_tracewrite *w, int fd);
/* A whole recording sent over the network (tracefile-write.c), for net.c: see there. */
int tf_write_layout(const struct ftk_tracewrite *w, int *ncpus, uint32_t *page_size);
int tf_write_meta(struct ftk_tracewrite *w, int fd);
int tf_write_cpu(struct ftk_tracewrite *w, int cpu, int fd);

/*
 * The writer's half of a recovery (tracefile-write.c), for spool.c, which
 * opens the parts: see there. Its failure's reason goes into @r.
 */
struct ftk_tracewrite_recovered;
int tf_write_recover(int tfd, const char *tpath, const int *fds, int nfds, const char *path,
		     struct ftk_tracewrite_recovered *r);
int tf_recover_fail(struct ftk_tracewrite_recovered *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
