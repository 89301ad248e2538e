// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * compress: the compression of trace.dat version 7, zstd and zlib, for
 * the reader and the writer alike (tracefile-local.h).
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>
/* ZSTD_d_stableOutBuffer: an experimental parameter of zstd's (refused at run time where unknown) */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "internal.h"
#include "tracefile-local.h"

static const char *const comp_names[] = {
	[TF_COMP_NONE]	= "none",
	[TF_COMP_ZSTD]	= "zstd",
	[TF_COMP_ZLIB]	= "zlib",
};

int tf_comp_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(comp_names); i++)
		if (!strcmp(name, comp_names[i]))
			return i;
	return -1;
}

const char *tf_comp_name(enum tracefile_comp comp)
{
	return comp < ARRAY_SIZE(comp_names) ? comp_names[comp] : "none";
}

const char *tf_comp_version(enum tracefile_comp comp)
{
	switch (comp) {
	case TF_COMP_ZSTD:
		return ZSTD_versionString();
	case TF_COMP_ZLIB:
		return zlibVersion();
	default:
		return "";
	}
}

int tf_compressor_init(struct tf_compressor *z, enum tracefile_comp comp, int level)
{
	memset(z, 0, sizeof(*z));
	z->comp = comp;
	z->level = level;
	if (comp == TF_COMP_ZSTD) {
		z->zctx = ZSTD_createCCtx();
		if (!z->zctx)
			return -ENOMEM;
		if (!level)
			z->level = ZSTD_CLEVEL_DEFAULT;
	} else if (comp == TF_COMP_ZLIB && !level) {
		z->level = Z_DEFAULT_COMPRESSION;
	}
	return 0;
}

void tf_compressor_release(struct tf_compressor *z)
{
	if (z->comp == TF_COMP_ZSTD)
		ZSTD_freeCCtx(z->zctx);
	z->zctx = NULL;
}

size_t tf_compress_bound(enum tracefile_comp comp, size_t n)
{
	switch (comp) {
	case TF_COMP_ZSTD:
		return ZSTD_compressBound(n);
	case TF_COMP_ZLIB:
		return compressBound(n);
	default:
		return n;
	}
}

long tf_compress(struct tf_compressor *z, void *dst, size_t cap, const void *src, size_t n)
{
	uLongf dl = cap;
	size_t r;

	switch (z->comp) {
	case TF_COMP_ZSTD:
		r = ZSTD_compressCCtx(z->zctx, dst, cap, src, n, z->level);
		return ZSTD_isError(r) ? -EIO : (long)r;
	case TF_COMP_ZLIB:
		if (compress2(dst, &dl, src, n, z->level) != Z_OK)
			return -EIO;
		return dl;
	default:
		if (n > cap)
			return -EIO;
		memcpy(dst, src, n);
		return n;
	}
}

int tf_decompress(enum tracefile_comp comp, void *dst, size_t dlen, const void *src,
		  size_t slen)
{
	uLongf out = dlen;
	size_t r;

	switch (comp) {
	case TF_COMP_ZSTD:
		r = ZSTD_decompress(dst, dlen, src, slen);
		return ZSTD_isError(r) || r != dlen ? -FTK_E_FORMAT : 0;
	case TF_COMP_ZLIB:
		return uncompress(dst, &out, src, slen) != Z_OK || out != dlen ? -FTK_E_FORMAT : 0;
	default:
		return -FTK_E_FORMAT;
	}
}

/*
 * tf_decompress() with a zstd context kept in *@ctx between calls (made on
 * first use; free it with tf_decompress_end()): a data chunk is a few
 * pages, and ZSTD_decompress() would set up a context of its own for each.
 */
int tf_decompress_with(void **ctx, enum tracefile_comp comp, void *dst, size_t dlen,
		       const void *src, size_t slen)
{
	size_t r;

	if (comp != TF_COMP_ZSTD)
		return tf_decompress(comp, dst, dlen, src, slen);
	if (!*ctx && !(*ctx = ZSTD_createDCtx()))
		return -ENOMEM;
	r = ZSTD_decompressDCtx(*ctx, dst, dlen, src, slen);
	return ZSTD_isError(r) || r != dlen ? -FTK_E_FORMAT : 0;
}

void tf_decompress_end(void *ctx)
{
	ZSTD_freeDCtx(ctx);
}

/*
 * A zstd block decompressed a step at a time, straight into its final
 * buffer (ZSTD_d_stableOutBuffer: no copy through zstd's window), so that
 * a reader can stop where it has what it needs (tracefile-ksyms.c). As
 * fast as ZSTD_decompressDCtx() in one call: 4.82-5.20 ms against
 * 4.80-4.91 ms for a 5.4 MB kallsyms, in 16 KB steps.
 */
int tf_unzstd_begin(struct tf_unzstd *z, void *dst, size_t dlen, const void *src, size_t slen)
{
	*z = (struct tf_unzstd){ .dst = dst, .dlen = dlen, .src = src, .slen = slen, .last = 1 };
	z->d = ZSTD_createDCtx();
	if (!z->d)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_DCtx_setParameter(z->d, ZSTD_d_stableOutBuffer, 1))) {
		ZSTD_freeDCtx(z->d);
		z->d = NULL;
		return -ENOTSUP;
	}
	return 0;
}

/* Up to @max_in more bytes of input: 1 while there is more, 0 when all is out, <0 on error. */
int tf_unzstd_step(struct tf_unzstd *z, size_t max_in)
{
	ZSTD_outBuffer out = { z->dst, z->dlen, z->dpos };
	ZSTD_inBuffer in = { z->src, z->slen - z->spos > max_in ? z->spos + max_in : z->slen,
			     z->spos };

	if (!z->failed && z->spos < z->slen) {
		z->last = ZSTD_decompressStream(z->d, &out, &in);
		/* an error, or no progress (it would loop): damaged */
		z->failed = ZSTD_isError(z->last) || (in.pos == z->spos && out.pos == z->dpos);
		z->dpos = out.pos;
		z->spos = in.pos;
	}
	if (z->failed)
		return -FTK_E_FORMAT;
	if (z->spos < z->slen)
		return 1;
	/* all input taken: the last frame must have ended, and filled the buffer exactly */
	z->failed = z->last || z->dpos != z->dlen;
	return z->failed ? -FTK_E_FORMAT : 0;
}

void tf_unzstd_end(struct tf_unzstd *z)
{
	ZSTD_freeDCtx(z->d);
	z->d = NULL;
}
