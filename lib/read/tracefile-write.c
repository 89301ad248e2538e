// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-write: write trace-cmd's trace.dat, versions 6 and 7.
 *
 * Written by hand because neither libtracefs nor libtraceevent writes the
 * file (libtracecmd does, but its writer reads the trace data back through
 * user space; doc/design.md, "Why the reader is ftkit's own"). The layout
 * follows trace-cmd.dat.v7(5) and trace-cmd.dat.v6(5):
 *
 * v7: magic, "tracing", "7", endian, long size, page size, compression
 *     name and version, offset of the first options section; then the
 *     sections HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK,
 *     CMDLINES (each may be compressed as one block), one BUFFER section
 *     with the per-CPU data (page aligned; compressed in chunks of pages),
 *     the options section (which points at all of the above) and the
 *     strings section holding the section descriptions.
 * v6: the same metadata without section headers, in a fixed order, then
 *     the CPU count, "options  ", the options, "flyrecord", the per-CPU
 *     offsets and sizes, the trace clock, and the page aligned CPU data.
 *
 * Metadata sections are built in memory (the largest is kallsyms, about
 * 5 MB; none grows with the trace), the CPU data is never held in memory.
 * What they hold comes from a struct ftk_tracemeta that the capture side
 * read (lib/capture/tracemeta.c): the writer reads no tracefs or /proc
 * file itself, only the spools it is given.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/tracewrite.h>
#include <ftkit/version.h>

#include "internal.h"
#include "tracefile-local.h"
#include "tracemeta-local.h"

/* Pages per compressed chunk of CPU data (what trace-cmd uses too). */
#define PAGES_PER_CHUNK		10

struct buf {
	char	*data;
	size_t	len;
	size_t	cap;
	int	err;
};

struct seg {
	int		fd;
	uint64_t	off;
	uint64_t	len;
};

struct wcpu {
	struct seg	*segs;
	char		*stat;
	uint64_t	total;
	uint64_t	file_off;
	uint64_t	file_size;
	int		nr_segs;
};

/* An instance's buffer stored beside the top one (ftk_tracewrite_buffer()). */
struct wbuffer {
	char		*name;
	const char	*clock_file;	/* its trace_clock contents (the metadata's) */
	const char	*clock;		/* its selected clock */
	struct wcpu	*cpus;
	uint64_t	sec_off;	/* v7: its BUFFER section; v6: its "flyrecord" */
	size_t		opt_at;		/* v6: the offset in opts of its BUFFER option's u64 */
	uint32_t	page_size;
};

struct ftk_tracewrite {
	const struct ftk_tracemeta *m;	/* what it stores besides the data; not owned */
	struct wcpu		*cpus;
	struct wcpu		*cur;		/* where _add() and _cpustat() go */
	struct wbuffer		*bufs;		/* instances after the top buffer */
	int			nr_bufs;
	struct buf		procmaps;	/* PROCMAPS: a NUL-terminated block per process */
	char			*date;		/* DATE: "0x..." microseconds */
	char			*ts_offset;	/* OFFSET: nanoseconds, decimal */
	char			*latency;	/* v6 latency text in place of CPU data */
	uint32_t		tsc_mult, tsc_shift;	/* TSC2NSEC, 0: none */
	uint64_t		tsc_offset;	/* 0, as trace-cmd record leaves it */
	char			**systems;
	char			*buffer_name;
	const char		*clock_file;	/* trace_clock contents (the metadata's) */
	const char		*clock;		/* the selected clock */
	struct buf		comms;		/* "pid comm" lines added by the caller */
	struct buf		strings;
	struct buf		opts;
	uint64_t		pos;		/* where the next write lands */
	uint64_t		table_off;	/* v6: where the CPU offsets are */
	uint32_t		page_size;
	unsigned int		flags;
	int			ncpus;
	int			version;
	int			fd;
	enum tracefile_comp	comp;
	struct tf_compressor	z;
	char			*what;		/* "cannot write 'PATH'" */
	struct ftk_errmsg	err;
};

/*
 * The reason, after "cannot write 'PATH'" while a file is being saved:
 * the first (innermost) failure is kept.
 */
#define fail(w, code, fmt, ...)							\
	ftk_errmsg_set(&(w)->err, FTK_ERRMSG_KEEP, (w)->what, (code), fmt ": %s",	\
		       ##__VA_ARGS__, strerror(-(code)))
/* A failure writing the file itself: the reason alone after "cannot write 'PATH'". */
#define fail_out(w, code)	\
	ftk_errmsg_set(&(w)->err, FTK_ERRMSG_KEEP, (w)->what, (code), "%s", strerror(-(code)))

/* ------------------------------------------------------------ buffers */

static void buf_add(struct buf *b, const void *p, size_t n)
{
	char *nd;
	size_t cap;

	if (b->err)
		return;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		nd = realloc(b->data, cap);
		if (!nd) {
			b->err = -ENOMEM;
			return;
		}
		b->data = nd;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void buf_u16(struct buf *b, uint16_t v) { buf_add(b, &v, 2); }
static void buf_u32(struct buf *b, uint32_t v) { buf_add(b, &v, 4); }
static void buf_u64(struct buf *b, uint64_t v) { buf_add(b, &v, 8); }
static void buf_str(struct buf *b, const char *s) { buf_add(b, s, strlen(s) + 1); }

static void buf_release(struct buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------ output */

static int out_write(struct ftk_tracewrite *w, const void *p, size_t n)
{
	const char *c = p;
	ssize_t r;

	while (n) {
		r = write(w->fd, c, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += r;
		n -= r;
		w->pos += r;
	}
	return 0;
}

static int out_pwrite(struct ftk_tracewrite *w, uint64_t at, const void *p, size_t n)
{
	ssize_t r = pwrite(w->fd, p, n, at);

	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EIO;
}

static int out_pad(struct ftk_tracewrite *w, uint64_t align)
{
	static const char zero[4096];
	uint64_t n = (align - w->pos % align) % align;
	int ret = 0;

	while (n && !ret) {
		size_t k = n > sizeof(zero) ? sizeof(zero) : n;

		ret = out_write(w, zero, k);
		n -= k;
	}
	return ret;
}

/* A compressed block: size compressed, size uncompressed, data. */
static int out_block(struct ftk_tracewrite *w, const void *src, size_t n, uint64_t *written)
{
	size_t cap = tf_compress_bound(w->comp, n);
	uint32_t hdr[2];
	char *dst;
	long z;
	int ret;

	dst = malloc(cap ? cap : 1);
	if (!dst)
		return -ENOMEM;
	z = tf_compress(&w->z, dst, cap, src, n);
	if (z < 0) {
		free(dst);
		return z;
	}
	hdr[0] = z;
	hdr[1] = n;
	ret = out_write(w, hdr, sizeof(hdr));
	if (!ret)
		ret = out_write(w, dst, z);
	free(dst);
	if (written)
		*written = sizeof(hdr) + z;
	return ret;
}

static uint32_t add_string(struct ftk_tracewrite *w, const char *s)
{
	uint32_t off = w->strings.len;

	buf_str(&w->strings, s);
	return off;
}

static void opt_add(struct ftk_tracewrite *w, uint16_t id, const void *p, uint32_t n)
{
	buf_u16(&w->opts, id);
	buf_u32(&w->opts, n);
	buf_add(&w->opts, p, n);
}

static void opt_u64(struct ftk_tracewrite *w, uint16_t id, uint64_t v)
{
	opt_add(w, id, &v, 8);
}

/* v7 section header; returns its offset in *@at (size patched later). */
static int sec_begin(struct ftk_tracewrite *w, uint16_t id, uint16_t flags, const char *desc,
		     uint64_t *at)
{
	struct {
		uint16_t id;
		uint16_t flags;
		uint32_t desc;
		uint64_t size;
	} __attribute__((packed)) h = { id, flags, add_string(w, desc), 0 };

	*at = w->pos;
	return out_write(w, &h, sizeof(h));
}

static int sec_end(struct ftk_tracewrite *w, uint64_t at)
{
	uint64_t size = w->pos - (at + 16);

	return out_pwrite(w, at + 8, &size, 8);
}

/*
 * One metadata section from @b: with a section header in v7 (and
 * compressed as one block when asked), the bare data in v6.
 */
static int out_section(struct ftk_tracewrite *w, uint16_t id, const char *desc, struct buf *b,
		       uint64_t *at)
{
	int ret;

	if (b->err)
		return b->err;
	*at = w->pos;
	if (w->version < 7)
		return out_write(w, b->data, b->len);
	ret = sec_begin(w, id, w->comp ? TRACEFILE_SEC_COMPRESSED : 0, desc, at);
	if (ret)
		return ret;
	if (w->comp)
		ret = out_block(w, b->data, b->len, NULL);
	else
		ret = out_write(w, b->data, b->len);
	if (!ret)
		ret = sec_end(w, *at);
	return ret;
}

/* ------------------------------------------------------------ metadata */

/* @x preceded by its size in @szbytes bytes (4 or 8); NULL: stored empty. */
static void buf_text(struct buf *b, const struct tm_text *x, int szbytes)
{
	if (szbytes == 4)
		buf_u32(b, x->len);
	else
		buf_u64(b, x->len);
	if (x->len)
		buf_add(b, x->data, x->len);
}

static void meta_headers(const struct ftk_tracemeta *m, struct buf *b)
{
	buf_add(b, "header_page", 12);
	buf_text(b, &m->header_page, 8);
	buf_add(b, "header_event", 13);
	buf_text(b, &m->header_event, 8);
}

/* The formats of one system's events: count, then (size, format) each. */
static void system_formats(struct buf *b, const struct tm_system *s)
{
	int i;

	buf_u32(b, s->nr);
	for (i = 0; i < s->nr; i++)
		buf_text(b, &s->formats[i], 8);
}

/* The ftrace system's formats; nothing at all where tracefs had none. */
static void meta_ftrace(const struct ftk_tracemeta *m, struct buf *b)
{
	int i;

	for (i = 0; i < m->nr_systems; i++)
		if (!strcmp(m->systems[i].name, "ftrace") && m->systems[i].formats)
			system_formats(b, &m->systems[i]);
}

/*
 * Whether system @sys's formats go in: all with neither flag; with
 * FTK_TRACEWRITE_SOME_SYSTEMS those named; with _ENABLED_SYSTEMS those of
 * the events on too (every one where set_event could not be read).
 */
static bool system_wanted(const struct ftk_tracewrite *w, const char *sys)
{
	bool some = w->flags & FTK_TRACEWRITE_SOME_SYSTEMS;

	if (!(w->flags & (FTK_TRACEWRITE_SOME_SYSTEMS | FTK_TRACEWRITE_ENABLED_SYSTEMS)))
		return true;
	if (ftk_list_has(w->systems, sys))
		return true;
	if (!(w->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS))
		return false;
	return (w->m->on_unknown && !some) || ftk_list_has(w->m->on, sys);
}

/* The other systems' formats, as tracefs lists them; an empty system is left out. */
static void meta_events(struct ftk_tracewrite *w, struct buf *b)
{
	const struct tm_system *s;
	uint32_t nsys = 0;
	size_t nsys_at;
	int i;

	nsys_at = b->len;
	buf_u32(b, 0);
	for (i = 0; i < w->m->nr_systems; i++) {
		s = &w->m->systems[i];
		if (!s->read || !s->nr || !strcmp(s->name, "ftrace") || !system_wanted(w, s->name))
			continue;
		buf_str(b, s->name);
		system_formats(b, s);
		nsys++;
	}
	if (!b->err)
		memcpy(b->data + nsys_at, &nsys, 4);
}

/* saved_cmdlines, after the caller's lines: the first name of a pid wins. */
static void meta_cmdlines(struct ftk_tracewrite *w, struct buf *b)
{
	const struct tm_text *x = &w->m->cmdlines;

	buf_u64(b, w->comms.len + x->len);
	if (w->comms.len)
		buf_add(b, w->comms.data, w->comms.len);
	if (x->len)
		buf_add(b, x->data, x->len);
}

struct meta_offsets {
	uint64_t	off[6];		/* HEADER_INFO .. CMDLINES */
};

static int write_metadata(struct ftk_tracewrite *w, struct meta_offsets *mo)
{
	static const char *const desc[6] = {
		"headers", "ftrace events", "events format", "kallsyms", "printk",
		"command lines",
	};
	static const struct tm_text none;
	const struct ftk_tracemeta *m = w->m;
	struct buf b = { 0 };
	int i, ret = 0;

	for (i = 0; i < 6 && !ret; i++) {
		b.len = 0;
		switch (TF_OPT_HEADER_INFO + i) {
		case TF_OPT_HEADER_INFO:
			meta_headers(m, &b);
			break;
		case TF_OPT_FTRACE_EVENTS:
			meta_ftrace(m, &b);
			break;
		case TF_OPT_EVENT_FORMATS:
			meta_events(w, &b);
			break;
		case TF_OPT_KALLSYMS:
			buf_text(&b, w->flags & FTK_TRACEWRITE_NO_KALLSYMS ? &none : &m->kallsyms, 4);
			break;
		case TF_OPT_PRINTK:
			buf_text(&b, &m->printk, 4);
			break;
		case TF_OPT_CMDLINES:
			meta_cmdlines(w, &b);
			break;
		}
		ret = out_section(w, TF_OPT_HEADER_INFO + i, desc[i], &b, &mo->off[i]);
		if (ret)
			fail_out(w, ret);
	}
	buf_release(&b);
	return ret;
}

/* ------------------------------------------------------------ CPU data */

static int copy_region(struct ftk_tracewrite *w, const struct seg *s)
{
	loff_t in = s->off;
	uint64_t left = s->len;
	char *tmp = NULL;
	ssize_t r;
	int ret = 0;

	/*
	 * In-kernel copy first: copy_file_range(2) into a file, sendfile(2)
	 * into a socket (a sender's data connection, tf_write_cpu()); plain
	 * reads and writes where the kernel can do neither.
	 */
	while (left) {
		r = copy_file_range(s->fd, &in, w->fd, NULL, left, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		left -= r;
		w->pos += r;
	}
	while (left && in == (loff_t)s->off) {
		r = sendfile(w->fd, s->fd, &in, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		left -= r;
		w->pos += r;
	}
	if (!left)
		return 0;
	tmp = malloc(1 << 16);
	if (!tmp)
		return -ENOMEM;
	while (left && !ret) {
		size_t k = left > (1 << 16) ? (1 << 16) : left;

		r = pread(s->fd, tmp, k, in);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			break;
		}
		ret = out_write(w, tmp, r);
		in += r;
		left -= r;
	}
	free(tmp);
	return ret;
}

/* Chunks mapped (or read) from a spool at once; output gathered before one write. */
#define CHUNKS_PER_READ		100
#define OUT_BATCH		(1 << 20)

/* Compressed chunks being gathered for one write. */
struct zout {
	char	*data;
	size_t	len;
	size_t	bound;		/* the largest compressed chunk */
};

/* Compress @n bytes of @src in chunks of @chunk (the last may be shorter) into @o. */
static int zout_chunks(struct ftk_tracewrite *w, struct zout *o, const char *src, size_t n,
		       size_t chunk)
{
	uint32_t hdr[2];
	size_t k;
	long z;
	int ret;

	for (; n; src += k, n -= k) {
		k = n < chunk ? n : chunk;
		z = tf_compress(&w->z, o->data + o->len + 8, o->bound, src, k);
		if (z < 0)
			return z;
		hdr[0] = z;
		hdr[1] = k;
		memcpy(o->data + o->len, hdr, 8);
		o->len += 8 + z;
		if (o->len >= OUT_BATCH) {
			ret = out_write(w, o->data, o->len);
			o->len = 0;
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* A CPU's data as one stream of chunks: what is short of a chunk waits in carry. */
struct zin {
	char	*carry;		/* one chunk */
	size_t	fill;
	size_t	chunk;
};

/* Feed @n bytes at @p: whole chunks are compressed from where they are. */
static int zin_feed(struct ftk_tracewrite *w, struct zout *o, struct zin *z, const char *p,
		    size_t n)
{
	size_t k, whole;
	int ret = 0;

	if (z->fill) {
		k = z->chunk - z->fill < n ? z->chunk - z->fill : n;
		memcpy(z->carry + z->fill, p, k);
		z->fill += k;
		p += k;
		n -= k;
		if (z->fill < z->chunk)
			return 0;
		ret = zout_chunks(w, o, z->carry, z->chunk, z->chunk);
		z->fill = 0;
	}
	whole = n / z->chunk * z->chunk;
	if (!ret && whole)
		ret = zout_chunks(w, o, p, whole, z->chunk);
	memcpy(z->carry, p + whole, n - whole);
	z->fill = n - whole;
	return ret;
}

/*
 * @len bytes of @fd at @off into @z: mapped (MAP_POPULATE: the spool's
 * pages are compressed where they are in the page cache, not copied out
 * first, which costs as much as compressing them under emulation), or
 * read into *@buf (@cap bytes, made on first use) where the file cannot be
 * mapped.
 */
static int zin_region(struct ftk_tracewrite *w, struct zout *o, struct zin *z, int fd,
		      uint64_t off, uint64_t len, char **buf, size_t cap)
{
	static long pagesz;
	struct stat st;
	bool map;
	size_t k;
	ssize_t r;
	void *m;
	int ret = 0;

	if (!pagesz)
		pagesz = sysconf(_SC_PAGESIZE);
	map = pagesz > 0 && !(off % pagesz) && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	      off + len <= (uint64_t)st.st_size;
	while (len && !ret) {
		k = len < cap ? len : cap;
		m = map ? mmap(NULL, k, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off) : MAP_FAILED;
		if (m != MAP_FAILED) {
			ret = zin_feed(w, o, z, m, k);
			munmap(m, k);
		} else {
			map = false;
			if (!*buf && !(*buf = malloc(cap)))
				return -ENOMEM;
			r = pread(fd, *buf, k, off);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return r < 0 ? -errno : -EIO;
			k = r;
			ret = zin_feed(w, o, z, *buf, k);
		}
		off += k;
		len -= k;
	}
	return ret;
}

/*
 * Compressed CPU data: chunk count, then (zsize, size, data) per chunk of
 * PAGES_PER_CHUNK pages, as trace-cmd makes them (the regions of a CPU
 * are one stream: only its last chunk is short), with the writer's one
 * compression context. The spools are mapped CHUNKS_PER_READ chunks at a
 * time and the compressed chunks gathered into about OUT_BATCH bytes per
 * write: a few syscalls per MB, and no copy of the data out of the page
 * cache.
 */
static int copy_compressed(struct ftk_tracewrite *w, struct wcpu *c, uint32_t psz)
{
	size_t chunk = (size_t)psz * PAGES_PER_CHUNK, rsize = chunk * CHUNKS_PER_READ;
	uint32_t nchunks = (c->total + chunk - 1) / chunk;
	struct zout o = { .bound = tf_compress_bound(w->comp, chunk) };
	struct zin z = { .chunk = chunk };
	uint64_t start = w->pos;
	char *buf = NULL;
	int i, ret = 0;

	z.carry = malloc(chunk);
	o.data = malloc(OUT_BATCH + 8 + o.bound);
	if (!z.carry || !o.data) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(o.data, &nchunks, 4);
	o.len = 4;
	for (i = 0; i < c->nr_segs && !ret; i++)
		ret = zin_region(w, &o, &z, c->segs[i].fd, c->segs[i].off, c->segs[i].len, &buf,
				 rsize);
	if (!ret && z.fill)
		ret = zout_chunks(w, &o, z.carry, z.fill, chunk);
	if (!ret && o.len)
		ret = out_write(w, o.data, o.len);
out:
	free(buf);
	free(z.carry);
	free(o.data);
	c->file_size = w->pos - start;
	return ret;
}

/* One buffer's CPU data (@cpus, w->ncpus of them), each CPU's page aligned. */
static int write_cpu_data(struct ftk_tracewrite *w, struct wcpu *cpus, uint32_t psz)
{
	int cpu, i, ret = 0;

	for (cpu = 0; cpu < w->ncpus && !ret; cpu++) {
		struct wcpu *c = &cpus[cpu];

		ret = out_pad(w, psz);
		if (ret)
			break;
		c->file_off = w->pos;
		if (!c->total) {
			c->file_size = 0;
			continue;
		}
		if (w->comp) {
			ret = copy_compressed(w, c, psz);
			continue;
		}
		for (i = 0; i < c->nr_segs && !ret; i++)
			ret = copy_region(w, &c->segs[i]);
		c->file_size = w->pos - c->file_off;
	}
	if (ret)
		fail_out(w, ret);
	return ret;
}

/* ------------------------------------------------------------ options */

/* A buffer's per-CPU stats, each "CPU: N" and the stats file, as trace-cmd stores them. */
static void cpustat_options(struct ftk_tracewrite *w, const struct wcpu *cpus)
{
	char text[64];
	int cpu, n;

	for (cpu = 0; cpu < w->ncpus; cpu++) {
		const char *s = cpus[cpu].stat;
		struct buf b = { 0 };

		if (!s)
			continue;
		n = snprintf(text, sizeof(text), "CPU: %d\n", cpu);
		buf_add(&b, text, n);
		buf_str(&b, s);
		if (!b.err)
			opt_add(w, TF_OPT_CPUSTAT, b.data, b.len);
		buf_release(&b);
	}
}

/*
 * The options of the whole file: per-CPU stats of every buffer (an
 * instance's after a "Buffer: NAME" line, as trace-cmd record writes
 * them), the time options, the clock, uname, version, trace id and the
 * process maps.
 */
static void common_options(struct ftk_tracewrite *w)
{
	char text[600], *pm;
	struct utsname u;
	uint64_t id;
	int n, i;

	cpustat_options(w, w->cpus);
	for (i = 0; i < w->nr_bufs; i++) {
		n = snprintf(text, sizeof(text), "\nBuffer: %s\n\n", w->bufs[i].name);
		if (n > 0 && (size_t)n < sizeof(text))
			opt_add(w, TF_OPT_CPUSTAT, text, n + 1);
		cpustat_options(w, w->bufs[i].cpus);
	}
	if (w->date)
		opt_add(w, TF_OPT_DATE, w->date, strlen(w->date) + 1);
	if (w->ts_offset)
		opt_add(w, TF_OPT_OFFSET, w->ts_offset, strlen(w->ts_offset) + 1);
	if (w->tsc_mult) {
		struct buf b = { 0 };

		/* before the clock: trace-cmd keeps stamps in nanoseconds once it has seen this */
		buf_u32(&b, w->tsc_mult);
		buf_u32(&b, w->tsc_shift);
		buf_u64(&b, w->tsc_offset);
		if (!b.err)
			opt_add(w, TF_OPT_TSC2NSEC, b.data, b.len);
		buf_release(&b);
	}
	if (w->version >= 7)
		opt_add(w, TF_OPT_TRACECLOCK, w->clock_file, strlen(w->clock_file) + 1);
	else if (!w->latency)
		/*
		 * The clock follows the CPU offsets. A latency file has none:
		 * trace-cmd report, told of a clock there, eats the first 10
		 * bytes of the text.
		 */
		opt_add(w, TF_OPT_TRACECLOCK, NULL, 0);
	if (!uname(&u)) {
		n = snprintf(text, sizeof(text), "%s %s %s %s", u.sysname, u.nodename, u.release,
			     u.machine);
		if (n > 0 && (size_t)n < sizeof(text))
			opt_add(w, TF_OPT_UNAME, text, n + 1);
	}
	n = snprintf(text, sizeof(text), "ftkit %s", FTK_VERSION_STRING);
	opt_add(w, TF_OPT_VERSION, text, n + 1);
	id = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)w;
	opt_add(w, TF_OPT_TRACEID, &id, 8);
	if (w->procmaps.err)
		w->opts.err = w->procmaps.err;
	for (pm = w->procmaps.data; pm && pm < w->procmaps.data + w->procmaps.len;
	     pm += strlen(pm) + 1)
		opt_add(w, TF_OPT_PROCMAPS, pm, strlen(pm) + 1);
}

/* ------------------------------------------------------------ files */

static int write_header(struct ftk_tracewrite *w)
{
	struct buf b = { 0 };
	char ver[32];
	int ret;

	buf_add(&b, TRACEFILE_MAGIC, TRACEFILE_MAGIC_LEN);
	snprintf(ver, sizeof(ver), "%d", w->version);
	buf_str(&b, ver);
	buf_add(&b, (char[]){ 0 }, 1);			/* little endian (the host) */
	buf_add(&b, (char[]){ sizeof(long) }, 1);	/* user space long size */
	buf_u32(&b, w->page_size);
	if (w->version >= 7) {
		buf_str(&b, tf_comp_name(w->comp));
		buf_str(&b, tf_comp_version(w->comp));
		buf_u64(&b, 0);			/* first options section, patched */
	}
	ret = b.err ? b.err : out_write(w, b.data, b.len);
	buf_release(&b);
	return ret;
}

/*
 * The clock a buffer's stamps are in: "x86-tsc" counts cycles, but with a
 * TSC2NSEC option readers turn them into nanoseconds; the file then names
 * the clock "tsc2nsec", as trace-cmd record -C tsc2nsec does.
 */
static const char *buffer_clock(const struct ftk_tracewrite *w, const char *clock)
{
	return w->tsc_mult && !strcmp(clock, "x86-tsc") ? "tsc2nsec" : clock;
}

/*
 * A v7 BUFFER option: section offset, name, clock, page size, then the
 * CPUs (id, offset, size; trace-cmd leaves out those without data, which
 * readers take either way). @b is scratch.
 */
static void buffer_option_v7(struct ftk_tracewrite *w, struct buf *b, uint64_t sec,
			     const char *name, const char *clock, uint32_t psz,
			     const struct wcpu *cpus)
{
	int cpu;

	b->len = 0;
	buf_u64(b, sec);
	buf_str(b, name);
	buf_str(b, clock);
	buf_u32(b, psz);
	buf_u32(b, w->ncpus);
	for (cpu = 0; cpu < w->ncpus; cpu++) {
		buf_u32(b, cpu);
		buf_u64(b, cpus[cpu].file_off);
		buf_u64(b, cpus[cpu].file_size);
	}
	if (!b->err)
		opt_add(w, TF_OPT_BUFFER, b->data, b->len);
}

static int save_v7(struct ftk_tracewrite *w)
{
	struct meta_offsets mo;
	uint64_t opts_ptr, fly, opts_at, strings_at;
	char desc[300];
	struct buf b = { 0 };
	int ret, i;

	ret = write_header(w);
	if (ret)
		return fail_out(w, ret);
	opts_ptr = w->pos - 8;
	ret = write_metadata(w, &mo);
	if (ret)
		return ret;

	if (w->flags & FTK_TRACEWRITE_META_ONLY) {
		fly = 0;
		goto options;
	}
	/* The BUFFER sections: header, padding, page aligned CPU data; the top one first. */
	snprintf(desc, sizeof(desc), "buffer flyrecord %s", w->buffer_name);
	ret = sec_begin(w, TF_OPT_BUFFER, w->comp ? TRACEFILE_SEC_COMPRESSED : 0, desc, &fly);
	if (!ret)
		ret = write_cpu_data(w, w->cpus, w->page_size);
	if (!ret)
		ret = sec_end(w, fly);
	for (i = 0; i < w->nr_bufs && !ret; i++) {
		struct wbuffer *x = &w->bufs[i];

		snprintf(desc, sizeof(desc), "buffer flyrecord %s", x->name);
		ret = sec_begin(w, TF_OPT_BUFFER, w->comp ? TRACEFILE_SEC_COMPRESSED : 0, desc,
				&x->sec_off);
		if (!ret)
			ret = write_cpu_data(w, x->cpus, x->page_size);
		if (!ret)
			ret = sec_end(w, x->sec_off);
	}
	if (ret)
		return fail_out(w, ret);

	/* The options: everything above is found from here. */
options:
	for (i = 0; i < 6; i++)
		opt_u64(w, TF_OPT_HEADER_INFO + i, mo.off[i]);
	common_options(w);
	opt_add(w, TF_OPT_CPUCOUNT, &w->ncpus, 4);
	if (!(w->flags & FTK_TRACEWRITE_META_ONLY))
		buffer_option_v7(w, &b, fly, w->buffer_name, buffer_clock(w, w->clock),
				 w->page_size, w->cpus);
	for (i = 0; i < w->nr_bufs && !(w->flags & FTK_TRACEWRITE_META_ONLY); i++)
		buffer_option_v7(w, &b, w->bufs[i].sec_off, w->bufs[i].name,
				 buffer_clock(w, w->bufs[i].clock), w->bufs[i].page_size,
				 w->bufs[i].cpus);
	ret = b.err;
	buf_release(&b);
	if (ret)
		return fail_out(w, ret);
	opt_u64(w, TF_OPT_DONE, 0);
	if (w->opts.err)
		return fail_out(w, w->opts.err);
	ret = sec_begin(w, TF_OPT_DONE, 0, "options", &opts_at);
	if (!ret)
		ret = out_write(w, w->opts.data, w->opts.len);
	if (!ret)
		ret = sec_end(w, opts_at);
	if (!ret)
		ret = out_pwrite(w, opts_ptr, &opts_at, 8);

	/* The strings last: they hold every description written above. */
	if (!ret)
		ret = sec_begin(w, TF_OPT_STRINGS, 0, "strings", &strings_at);
	if (!ret && w->strings.err)
		ret = w->strings.err;
	if (!ret)
		ret = out_write(w, w->strings.data, w->strings.len);
	if (!ret)
		ret = sec_end(w, strings_at);
	if (ret)
		return fail_out(w, ret);
	return 0;
}

/* The trace clock after a v6 CPU table: the trace_clock file, or "[tsc2nsec]". */
static const char *v6_clock(const struct ftk_tracewrite *w, const char *clock_file,
			    const char *clock)
{
	return w->tsc_mult && !strcmp(clock, "x86-tsc") ? "[tsc2nsec]" : clock_file;
}

/*
 * A v6 CPU table into @b, which is written at w->pos: (offset, size) per
 * CPU of the page aligned data that follows, then the clock's size and text.
 */
static void v6_table(struct ftk_tracewrite *w, struct buf *b, const struct wcpu *cpus,
		     const char *clock, uint32_t psz)
{
	uint64_t clock_len = strlen(clock), at;
	int cpu;

	at = w->pos + b->len + 16 * (uint64_t)w->ncpus + 8 + clock_len;
	for (cpu = 0; cpu < w->ncpus; cpu++) {
		at = (at + psz - 1) / psz * psz;
		buf_u64(b, at);
		buf_u64(b, cpus[cpu].total);
		at += cpus[cpu].total;
	}
	buf_u64(b, clock_len);
	buf_add(b, clock, clock_len);
}

/*
 * v6: the top buffer's "flyrecord" and data follow the options; each
 * instance has a BUFFER option (the offset of its own "flyrecord", then its
 * name) and its "flyrecord", CPU table and data after the top one's, as
 * trace-cmd record writes them. The data is never compressed, so every
 * offset is known before it is written, except the instances': patched.
 */
static int save_v6(struct ftk_tracewrite *w)
{
	struct meta_offsets mo;
	uint64_t opts_at;
	struct buf b = { 0 };
	int ret, i;

	ret = write_header(w);
	if (ret)
		return fail_out(w, ret);
	ret = write_metadata(w, &mo);
	if (ret)
		return ret;
	buf_u32(&b, w->ncpus);
	buf_add(&b, TRACEFILE_V6_OPTIONS, TRACEFILE_V6_TAG_LEN);
	common_options(w);
	for (i = 0; i < w->nr_bufs; i++) {
		struct buf o = { 0 };

		buf_u64(&o, 0);		/* patched */
		buf_str(&o, w->bufs[i].name);
		w->bufs[i].opt_at = w->opts.len + 6;
		if (!o.err)
			opt_add(w, TF_OPT_BUFFER, o.data, o.len);
		else
			w->opts.err = o.err;
		buf_release(&o);
	}
	if (w->opts.err) {
		buf_release(&b);
		return fail_out(w, w->opts.err);
	}
	opts_at = w->pos + b.len;
	buf_add(&b, w->opts.data, w->opts.len);
	buf_u16(&b, TF_OPT_DONE);
	if (w->latency) {
		/* "latency  \0" and the text to the end of the file, as trace-cmd writes it. */
		buf_add(&b, TRACEFILE_V6_LATENCY, TRACEFILE_V6_TAG_LEN);
		buf_add(&b, w->latency, strlen(w->latency));
	}
	if (w->latency || (w->flags & FTK_TRACEWRITE_META_ONLY)) {
		ret = b.err ? b.err : out_write(w, b.data, b.len);
		buf_release(&b);
		return ret ? fail_out(w, ret) : 0;
	}
	buf_add(&b, TRACEFILE_V6_FLYRECORD, TRACEFILE_V6_TAG_LEN);
	w->table_off = w->pos + b.len;
	v6_table(w, &b, w->cpus, v6_clock(w, w->clock_file, w->clock), w->page_size);
	ret = b.err ? b.err : out_write(w, b.data, b.len);
	if (!ret)
		ret = write_cpu_data(w, w->cpus, w->page_size);
	for (i = 0; i < w->nr_bufs && !ret; i++) {
		struct wbuffer *x = &w->bufs[i];

		x->sec_off = w->pos;
		ret = out_pwrite(w, opts_at + x->opt_at, &x->sec_off, 8);
		b.len = 0;
		buf_add(&b, TRACEFILE_V6_FLYRECORD, TRACEFILE_V6_TAG_LEN);
		v6_table(w, &b, x->cpus, v6_clock(w, x->clock_file, x->clock), x->page_size);
		if (!ret)
			ret = b.err ? b.err : out_write(w, b.data, b.len);
		if (!ret)
			ret = write_cpu_data(w, x->cpus, x->page_size);
	}
	buf_release(&b);
	if (ret)
		return fail_out(w, ret);
	return 0;
}

/*
 * Write @path with @body: an anonymous file published by rename (no link
 * followed, no partial file left), the reason of a failure in @w.
 */
static int save_as(struct ftk_tracewrite *w, const char *path,
		   int (*body)(struct ftk_tracewrite *w))
{
	struct ftk_file *f;
	int ret;

	ftk_errmsg_clear(&w->err);
	free(w->what);
	if (asprintf(&w->what, "cannot write '%s'", path) < 0) {
		w->what = NULL;
		return -ENOMEM;
	}
	ret = ftk_file_create(path, FTK_FILE_PRIVATE, &f);
	if (ret) {
		if (f)
			ftk_errmsg_set(&w->err, 0, NULL, ret, "%s", ftk_file_errmsg(f));
		ftk_file_close(f);
		return ret;
	}
	w->fd = ftk_file_fd(f);
	w->pos = 0;
	w->strings.len = 0;
	w->opts.len = 0;
	ret = body(w);
	w->fd = -1;
	if (!ret) {
		ret = ftk_file_publish(f);
		if (ret)
			ftk_errmsg_set(&w->err, 0, NULL, ret, "%s", ftk_file_errmsg(f));
	}
	ftk_file_close(f);
	return ret;
}

/* ------------------------------------------------------------ clocks */

/* Cycles to nanoseconds as perf_event_mmap_page's comment has it, without overflow. */
static uint64_t tsc_ns(const struct ftk_tracewrite *w, uint64_t cyc)
{
	uint64_t quot = cyc >> w->tsc_shift, rem = cyc & ((1ULL << w->tsc_shift) - 1);

	return quot * w->tsc_mult + ((rem * w->tsc_mult) >> w->tsc_shift);
}

/* ------------------------------------------------------------ API */

/**
 * ftk_tracewrite_compression_ok() - whether a compression name is supported
 * @name: "none", "zstd", "zlib" or NULL (none)
 *
 * Return: 1 if ftk_tracewrite_new() accepts it, 0 if not.
 */
FTK_API int ftk_tracewrite_compression_ok(const char *name)
{
	return !name || tf_comp_lookup(name) >= 0;
}

/**
 * ftk_tracewrite_new() - start a trace.dat writer
 * @m: what the file stores besides the CPU data (ftk_tracemeta_new(), read
 *     with the same @opts): headers, formats, kallsyms, printk formats,
 *     saved cmdlines, the top buffer's clock and page size; kept, not
 *     owned, and must stay until ftk_tracewrite_free()
 * @opts: options, or NULL for version 7 uncompressed with the top buffer
 * @out: where the writer goes
 *
 * The writer reads nothing but the data regions it is given: a file saved
 * twice from the same @m holds the same metadata.
 *
 * Return: 0 and a writer to free with ftk_tracewrite_free(), or -EINVAL
 * (bad version, compression with version 6, unknown compression) or
 * -ENOMEM.
 */
FTK_API int ftk_tracewrite_new(const struct ftk_tracemeta *m,
			       const struct ftk_tracewrite_opts *opts, struct ftk_tracewrite **out)
{
	struct ftk_tracewrite_opts o = { 0 };
	struct ftk_tracewrite *w;
	int ret;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.version)
		o.version = 7;
	if (o.version != 6 && o.version != 7)
		return ftk_err(-EINVAL);
	if (!ftk_tracewrite_compression_ok(o.compression))
		return ftk_err(-EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return ftk_err(-ENOMEM);
	w->m = m;
	w->fd = -1;
	w->version = o.version;
	w->flags = o.flags;
	w->comp = o.compression ? tf_comp_lookup(o.compression) : TF_COMP_NONE;
	if (w->comp && w->version < 7) {
		ret = -EINVAL;
		goto error;
	}
	ret = tf_compressor_init(&w->z, w->comp, o.level);
	if (ret)
		goto error;
	w->buffer_name = strdup(o.buffer_name ? o.buffer_name : "");
	if (!w->buffer_name) {
		ret = -ENOMEM;
		goto error;
	}
	w->clock_file = m->clock_file;
	w->clock = m->clock;
	w->tsc_mult = m->tsc_mult;
	w->tsc_shift = m->tsc_shift;
	w->page_size = m->page_size;
	w->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (w->ncpus < 1)
		w->ncpus = 1;
	w->cpus = calloc(w->ncpus, sizeof(*w->cpus));
	if (!w->cpus) {
		ret = -ENOMEM;
		goto error;
	}
	w->cur = w->cpus;
	*out = w;
	return 0;
error:
	ftk_tracewrite_free(w);
	return ftk_err(ret);
}

/** ftk_tracewrite_free() - free a writer (NULL is fine); the data fds are not closed */
FTK_API void ftk_tracewrite_free(struct ftk_tracewrite *w)
{
	int i, j;

	if (!w)
		return;
	for (i = 0; w->cpus && i < w->ncpus; i++) {
		free(w->cpus[i].segs);
		free(w->cpus[i].stat);
	}
	free(w->cpus);
	for (i = 0; i < w->nr_bufs; i++) {
		for (j = 0; j < w->ncpus; j++) {
			free(w->bufs[i].cpus[j].segs);
			free(w->bufs[i].cpus[j].stat);
		}
		free(w->bufs[i].cpus);
		free(w->bufs[i].name);
	}
	free(w->bufs);
	buf_release(&w->procmaps);
	free(w->date);
	free(w->latency);
	free(w->ts_offset);
	tf_compressor_release(&w->z);
	ftk_list_free(w->systems);
	free(w->buffer_name);
	free(w->what);
	buf_release(&w->strings);
	buf_release(&w->opts);
	buf_release(&w->comms);
	if (w->fd >= 0)
		close(w->fd);
	free(w);
}

/**
 * ftk_tracewrite_add() - add a region of a file to a CPU's data
 * @w: the writer
 * @cpu: the CPU
 * @fd: an open file holding ring-buffer pages (a spool); it must stay open
 *      until ftk_tracewrite_save() returns
 * @offset: where the region starts
 * @length: its size, a multiple of the page size
 *
 * Regions of a CPU are stored in the order they were added, in the top
 * buffer, or after ftk_tracewrite_buffer() in that instance's.
 *
 * Return: 0, -EINVAL (bad CPU), or -ENOMEM.
 */
FTK_API int ftk_tracewrite_add(struct ftk_tracewrite *w, int cpu, int fd, uint64_t offset,
			       uint64_t length)
{
	struct wcpu *c;
	struct seg *s;

	if (cpu < 0 || cpu >= w->ncpus)
		return ftk_err(-EINVAL);
	if (!length)
		return 0;
	c = &w->cur[cpu];
	s = realloc(c->segs, (c->nr_segs + 1) * sizeof(*s));
	if (!s)
		return ftk_err(-ENOMEM);
	c->segs = s;
	s[c->nr_segs++] = (struct seg){ fd, offset, length };
	c->total += length;
	return 0;
}

/**
 * ftk_tracewrite_cpustat() - store a CPU's per_cpu/cpuN/stats text
 * @w: the writer
 * @cpu: the CPU
 * @text: the stats file's contents (copied)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
FTK_API int ftk_tracewrite_cpustat(struct ftk_tracewrite *w, int cpu, const char *text)
{
	char *s;

	if (cpu < 0 || cpu >= w->ncpus)
		return ftk_err(-EINVAL);
	s = strdup(text);
	if (!s)
		return ftk_err(-ENOMEM);
	free(w->cur[cpu].stat);
	w->cur[cpu].stat = s;
	return 0;
}

/**
 * ftk_tracewrite_comm() - add a task name to the file's saved cmdlines
 * @w: the writer
 * @pid: the task
 * @comm: its name (as in /proc/PID/comm)
 *
 * For tasks the kernel's saved_cmdlines may miss (it only keeps the names
 * of tasks it saw switch, and only a few hundred): the recorded command,
 * say, whose pid the kernel may have saved under its name before exec.
 * A name given here wins over the kernel's for the same @pid.
 *
 * Return: 0, -EINVAL (a name with a newline) or -ENOMEM.
 */
FTK_API int ftk_tracewrite_comm(struct ftk_tracewrite *w, int pid, const char *comm)
{
	char line[64];
	int n;

	if (strchr(comm, '\n'))
		return ftk_err(-EINVAL);
	n = snprintf(line, sizeof(line), "%d %.15s\n", pid, comm);
	buf_add(&w->comms, line, n);
	return ftk_err(w->comms.err);
}

/**
 * ftk_tracewrite_system() - name an event system whose formats to store
 * @w: the writer
 * @system: the system ("sched")
 *
 * Only matters with FTK_TRACEWRITE_SOME_SYSTEMS or _ENABLED_SYSTEMS;
 * otherwise every system's formats are stored, as trace-cmd does. The
 * formats are the metadata's (ftk_tracemeta_system() reads them).
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_tracewrite_system(struct ftk_tracewrite *w, const char *system)
{
	char **s;

	for (s = w->systems; s && *s; s++)
		if (!strcmp(*s, system))
			return 0;
	return ftk_err(ftk_list_add(&w->systems, system));
}

/**
 * ftk_tracewrite_buffer() - start the data of another instance's buffer
 * @w: the writer
 * @name: the buffer's name in the file, as given to ftk_tracemeta_buffer()
 *	  of the writer's metadata (which holds its trace clock and page size)
 *
 * The file holds the top buffer (ftk_tracewrite_new()'s) and then one
 * buffer per call, each with its own BUFFER option and data, as
 * trace-cmd record -B writes them: trace-cmd report prints each event
 * after its buffer's name. The ftk_tracewrite_add() and
 * ftk_tracewrite_cpustat() calls after this one go to this buffer
 * (ftk_capture_add_to() a capture of the instance, say).
 *
 * Return: the buffer's index (1 for the first instance), or -EINVAL (an
 * empty name, one already used, a newline in it), -ENOENT (no such buffer
 * in the metadata) or -ENOMEM.
 */
FTK_API int ftk_tracewrite_buffer(struct ftk_tracewrite *w, const char *name)
{
	const struct tm_buffer *mb = NULL;
	struct wbuffer *nb, *x;
	int i;

	if (!*name || strchr(name, '\n') || !strcmp(name, w->buffer_name))
		return ftk_err(-EINVAL);
	for (i = 0; i < w->nr_bufs; i++)
		if (!strcmp(w->bufs[i].name, name))
			return ftk_err(-EINVAL);
	for (i = 0; i < w->m->nr_bufs && !mb; i++)
		if (!strcmp(w->m->bufs[i].name, name))
			mb = &w->m->bufs[i];
	if (!mb)
		return ftk_err(-ENOENT);
	nb = realloc(w->bufs, (w->nr_bufs + 1) * sizeof(*nb));
	if (!nb)
		return ftk_err(-ENOMEM);
	w->bufs = nb;
	x = &nb[w->nr_bufs];
	memset(x, 0, sizeof(*x));
	x->name = strdup(name);
	x->cpus = calloc(w->ncpus, sizeof(*x->cpus));
	if (!x->name || !x->cpus) {
		free(x->name);
		free(x->cpus);
		/* the buffer before stays the one that _add() fills */
		return ftk_err(-ENOMEM);
	}
	x->clock_file = mb->clock_file;
	x->clock = mb->clock;
	x->page_size = mb->page_size;
	/* x86-tsc in this buffer alone: the metadata read its conversion */
	if (!w->tsc_mult) {
		w->tsc_mult = w->m->tsc_mult;
		w->tsc_shift = w->m->tsc_shift;
	}
	w->cur = x->cpus;
	return ++w->nr_bufs;
}

/**
 * ftk_tracewrite_ts_offset() - store an offset readers add to every time stamp
 * @w: the writer
 * @ns: nanoseconds (may be negative)
 *
 * The OFFSET option, as trace-cmd record --ts-offset writes it: trace-cmd
 * report and ftreport add it to each stamp (a way to line a file up with
 * another box's). Replaces a DATE set before (a file has one or the other,
 * as trace-cmd allows).
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_tracewrite_ts_offset(struct ftk_tracewrite *w, long long ns)
{
	char *s;

	if (asprintf(&s, "%lld", ns) < 0)
		return ftk_err(-ENOMEM);
	free(w->ts_offset);
	w->ts_offset = s;
	free(w->date);
	w->date = NULL;
	return 0;
}

/**
 * ftk_tracewrite_date() - store the time of day of the trace clock's zero
 * @w: the writer
 * @p: one instant read on both clocks (ftk_capture_clock_pair(), which
 *     measures it in the recording's tracefs: the writer touches none)
 * @usecs: where the offset goes (microseconds from the trace clock to
 *	   CLOCK_REALTIME), or NULL
 *
 * The DATE option, as trace-cmd record --date writes it ("0x" and the
 * microseconds in hex): trace-cmd report and ftreport then print each
 * stamp as the time of day (seconds since the epoch). With x86-tsc the
 * stamp is taken through TSC2NSEC.
 *
 * Return: 0; -ENOTSUP when the clock counts events or unconverted cycles
 * (counter, x86-tsc without TSC2NSEC): no time of day to map them to.
 */
FTK_API int ftk_tracewrite_date(struct ftk_tracewrite *w, const struct ftk_clock_pair *p,
				long long *usecs)
{
	unsigned long long v = p->stamp;
	long long diff;

	ftk_errmsg_clear(&w->err);
	if (p->counts && !w->tsc_mult)
		return ftk_err(ftk_errmsg_set(&w->err, 0, NULL, -ENOTSUP, "trace clock '%s' "
					      "counts, it does not tell time: no date for it",
					      w->clock));
	/* "secs.usecs" from a nanosecond clock; cycles through TSC2NSEC */
	if (p->counts)
		v = tsc_ns(w, v) / 1000;
	diff = (long long)(p->realtime_ns / 1000 - v);
	free(w->date);
	if (asprintf(&w->date, "0x%llx", (unsigned long long)diff) < 0) {
		w->date = NULL;
		return ftk_err(-ENOMEM);
	}
	free(w->ts_offset);
	w->ts_offset = NULL;
	if (usecs)
		*usecs = diff;
	return 0;
}

/**
 * ftk_tracewrite_procmaps() - store a process's memory map
 * @w: the writer
 * @pid: the process
 * @exe: its program (the target of /proc/PID/exe)
 * @maps: the text of its /proc/PID/maps
 *
 * The PROCMAPS option, as trace-cmd record --proc-map writes it: a line
 * "PID COUNT EXE" (PID and COUNT in hex), then "START END PATH" (hex) for
 * each mapping that names a file or a region ("[heap]", "[vdso]"), so
 * that user addresses in the trace (uprobes, user stacks) can be named
 * after the process has gone. One call per process; trace-cmd keeps the
 * first word of a path that has blanks, and so does this.
 *
 * Return: 0, -EINVAL (no mapping with a path in @maps, or a newline in
 * @exe) or -ENOMEM.
 */
FTK_API int ftk_tracewrite_procmaps(struct ftk_tracewrite *w, int pid, const char *exe,
				    const char *maps)
{
	unsigned long long start, stop;
	struct buf lines = { 0 };
	char path[PATH_MAX + 1], text[PATH_MAX + 64];
	const char *l, *e;
	unsigned int n = 0;
	int k, ret;

	if (strchr(exe, '\n') || pid <= 0)
		return ftk_err(-EINVAL);
	for (l = maps; *l; l = *e ? e + 1 : e) {
		char copy[PATH_MAX + 128];
		size_t len;

		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		len = e - l < (long)sizeof(copy) - 1 ? (size_t)(e - l) : sizeof(copy) - 1;
		memcpy(copy, l, len);
		copy[len] = '\0';
		path[0] = '\0';
		if (sscanf(copy, "%llx-%llx %*s %*x %*s %*d %4096s", &start, &stop, path) != 3 ||
		    !path[0])
			continue;
		k = snprintf(text, sizeof(text), "%llx %llx %s\n", start, stop, path);
		buf_add(&lines, text, k);
		n++;
	}
	if (!n) {
		buf_release(&lines);
		return ftk_err(-EINVAL);
	}
	/* One option per process (trace-cmd reads one block from each), each ends with a NUL. */
	k = snprintf(text, sizeof(text), "%x %x %s\n", pid, n, exe);
	buf_add(&w->procmaps, text, k);
	buf_add(&w->procmaps, lines.data, lines.len);
	buf_add(&w->procmaps, "", 1);
	ret = lines.err ? lines.err : w->procmaps.err;
	buf_release(&lines);
	return ftk_err(ret);
}

/**
 * ftk_tracewrite_save() - write the file
 * @w: the writer
 * @path: the file to create (replaced if it exists)
 *
 * The metadata is the writer's struct ftk_tracemeta's, read by the capture
 * side (after the capture stopped, so that saved_cmdlines is complete);
 * nothing is read here but the data regions. The file is made with
 * ftk_file_create(): an anonymous file beside @path, synced and renamed
 * into place, so no link at @path (or anywhere) is followed and a failure
 * leaves no partial file under @path.
 *
 * Return: 0, or a negative errno with the reason in ftk_tracewrite_errmsg().
 */
FTK_API int ftk_tracewrite_save(struct ftk_tracewrite *w, const char *path)
{
	return ftk_err(save_as(w, path, w->version >= 7 && !w->latency ? save_v7 : save_v6));
}

/**
 * ftk_tracewrite_latency() - store a latency tracer's text instead of CPU data
 * @w: the writer
 * @text: the "trace" file of a latency tracer (wakeup, irqsoff, ...): its
 *	  worst case, formatted by the kernel (copied)
 *
 * The kernel keeps a latency tracer's worst case in its max buffer, which
 * it lets no one read raw while the tracer is current (snapshot_raw:
 * EBUSY) and frees when the tracer changes; so trace-cmd record stores the
 * text, in a version 6 "latency" file, and trace-cmd report prints it.
 * Such a file holds no CPU data: regions added are not written, and
 * ftk_tracewrite_save() writes version 6 whatever the options asked.
 *
 * Return: 0, -EINVAL (an empty text) or -ENOMEM.
 */
FTK_API int ftk_tracewrite_latency(struct ftk_tracewrite *w, const char *text)
{
	char *s;

	if (!text || !*text)
		return ftk_err(-EINVAL);
	s = strdup(text);
	if (!s)
		return ftk_err(-ENOMEM);
	free(w->latency);
	w->latency = s;
	return 0;
}

/* Copy the whole of @in to @out (a pipe, a socket, a terminal, a file) with plain writes. */
static int copy_out(int in, int out)
{
	char *b = malloc(1 << 16);
	off_t at = 0;
	ssize_t r, k;
	int ret = 0;

	if (!b)
		return -ENOMEM;
	for (;;) {
		r = pread(in, b, 1 << 16, at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : 0;
			break;
		}
		at += r;
		for (k = 0; k < r && !ret;) {
			ssize_t n = write(out, b + k, r - k);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				ret = -errno;
			else
				k += n;
		}
		if (ret)
			break;
	}
	free(b);
	return ret;
}

/**
 * ftk_tracewrite_save_fd() - write the file to an open descriptor
 * @w: the writer
 * @fd: where the finished file goes: standard output, a pipe, a socket
 *      (written from where it stands; not closed)
 * @name: what to call @fd in messages ("standard output")
 *
 * The file is built in a private anonymous file in $TMPDIR (or /tmp),
 * made with O_TMPFILE, or with O_EXCL under a fresh name unlinked at once
 * (no link followed), since the writer goes back to fill in sizes and
 * offsets and @fd need not be seekable; then it is copied to @fd whole.
 * So nothing reaches @fd unless the file is complete; a reader that goes
 * away midway makes this fail with -EPIPE (SIGPIPE must be ignored or
 * handled by the caller).
 *
 * Return: 0, or a negative errno with the reason in ftk_tracewrite_errmsg().
 */
FTK_API int ftk_tracewrite_save_fd(struct ftk_tracewrite *w, int fd, const char *name)
{
	const char *dir = getenv("TMPDIR");
	int tmp, ret;

	ftk_errmsg_clear(&w->err);
	free(w->what);
	if (asprintf(&w->what, "cannot write '%s'", name) < 0) {
		w->what = NULL;
		return ftk_err(-ENOMEM);
	}
	if (!dir || !*dir)
		dir = "/tmp";
	tmp = ftk_file_tmp(dir);
	if (tmp < 0) {
		ftk_errmsg_set(&w->err, 0, NULL, tmp, "cannot make a temporary file in '%s': %s",
			       dir, strerror(-tmp));
		return ftk_err(tmp);
	}
	w->fd = tmp;
	w->pos = 0;
	w->strings.len = 0;
	w->opts.len = 0;
	ret = w->version >= 7 ? save_v7(w) : save_v6(w);
	w->fd = -1;
	if (!ret) {
		ret = copy_out(tmp, fd);
		if (ret)
			fail_out(w, ret);
	}
	close(tmp);
	return ftk_err(ret);
}

/* ------------------------------------------------------------ recovery */

/*
 * A template is a v6 file with no CPU data, followed by a trailer that says
 * where its CPU table is: the file a recovery completes with the spools.
 * Readers never see it; ftk_spool_recover() writes the real file.
 */
#define TEMPLATE_MAGIC		"FTKTMPL1"
#define TEMPLATE_TRAILER	24	/* u64 table offset, u32 CPUs, u32 page size, magic */

/* A template's contents: version 6, uncompressed, no data, and the trailer. */
static int save_template(struct ftk_tracewrite *w)
{
	int version = w->version, ret;
	enum tracefile_comp comp = w->comp;
	char trailer[TEMPLATE_TRAILER];
	uint32_t n = w->ncpus;

	w->version = 6;
	w->comp = TF_COMP_NONE;
	ret = save_v6(w);
	w->version = version;
	w->comp = comp;
	if (ret)
		return ret;
	memcpy(trailer, &w->table_off, 8);
	memcpy(trailer + 8, &n, 4);
	memcpy(trailer + 12, &w->page_size, 4);
	memcpy(trailer + 16, TEMPLATE_MAGIC, 8);
	ret = out_write(w, trailer, sizeof(trailer));
	return ret ? fail_out(w, ret) : 0;
}

/**
 * ftk_tracewrite_save_template() - write what a recovery needs besides the data
 * @w: the writer, with no data added yet
 * @path: the file to create (in the spool directory)
 *
 * Writes the metadata (headers, formats, kallsyms unless
 * FTK_TRACEWRITE_NO_KALLSYMS, printk formats, cmdlines, the options) as a
 * version 6 file without data, and how to complete it: call it when the
 * recording starts, with metadata read then, so that ftk_spool_recover()
 * can make a readable file from it and the spools if the recorder dies.
 * That metadata, handed to ftk_tracemeta_new() at the end as its @prev,
 * spares reading the formats and kallsyms again while they are current.
 *
 * Return: 0, or a negative errno with the reason in ftk_tracewrite_errmsg().
 */
FTK_API int ftk_tracewrite_save_template(struct ftk_tracewrite *w, const char *path)
{
	int cpu;

	for (cpu = 0; cpu < w->ncpus; cpu++)
		if (w->cpus[cpu].total)
			return ftk_err(-EBUSY);
	return ftk_err(save_as(w, path, save_template));
}

/* Can the @psz bytes at @off of @fd be a ring buffer page with data? */
static int ring_page(int fd, uint64_t off, uint32_t psz)
{
	uint64_t commit = 0, hi, size, hdr = 8 + sizeof(long);

	if (pread(fd, &commit, sizeof(long), off + 8) != (ssize_t)sizeof(long))
		return 0;
	/*
	 * The size of the data is the low 30 bits; bits 30 and 31 are the
	 * missed-events flags, which the kernel defines as int constants, so
	 * that a 64-bit commit carrying them is sign-extended: the upper half
	 * is then all ones (seen on every page after a loss). A page without
	 * data (zeros: a hole, or an end the disk never got) is no page.
	 */
	hi = commit >> 32;
	size = commit & 0x3fffffffULL;
	return (!hi || hi == 0xffffffffULL) && size && size <= psz - hdr;
}

/* Add the page at @off to @c's segments, joining it to the last when they touch. */
static int seg_add(struct wcpu *c, int fd, uint64_t off, uint32_t psz)
{
	struct seg *s;

	c->total += psz;
	if (c->nr_segs && c->segs[c->nr_segs - 1].off + c->segs[c->nr_segs - 1].len == off) {
		c->segs[c->nr_segs - 1].len += psz;
		return 0;
	}
	if (!(c->nr_segs & (c->nr_segs - 1))) {	/* 0, 1, 2, 4, ...: grow */
		s = realloc(c->segs, (c->nr_segs ? c->nr_segs * 2 : 1) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->segs = s;
	}
	c->segs[c->nr_segs++] = (struct seg){ fd, off, psz };
	return 0;
}

/*
 * The pages of a spool that can be ring buffer pages, in @c's segments:
 * holes are skipped unread (SEEK_DATA, SEEK_HOLE: a spool made sparse,
 * "truncate -s 1G", costs nothing), and so is every page in the data that
 * is not a ring buffer page with data (zeros, garbage).
 */
static int spool_segs(struct wcpu *c, int fd, uint64_t size, uint32_t psz)
{
	off_t data = 0, hole;
	uint64_t off;
	int ret;

	while ((uint64_t)data < size) {
		data = lseek(fd, data, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : -errno;	/* ENXIO: only a hole is left */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		/* the whole pages in [data, hole): a page is at a multiple of @psz */
		for (off = ((uint64_t)data + psz - 1) / psz * psz; off + psz <= (uint64_t)hole &&
		     off + psz <= size; off += psz) {
			if (ring_page(fd, off, psz) && (ret = seg_add(c, fd, off, psz)))
				return ret;
		}
		data = hole;
	}
	return 0;
}

/* A recovery's failure: the reason in @r, the code returned. */
int tf_recover_fail(struct ftk_tracewrite_recovered *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return ftk_err(code);
}

/* Read and check the template's trailer and clock; *@clock is malloc'ed. */
static int read_template(int fd, const char *tpath, struct ftk_tracewrite_recovered *r,
			 uint64_t *table_off, uint32_t *ncpus, uint32_t *psz, char **clock,
			 uint64_t *clock_len)
{
	char trailer[TEMPLATE_TRAILER];
	struct stat st;
	uint64_t at, len;

	if (fstat(fd, &st) < 0)
		return tf_recover_fail(r, -errno, "cannot read '%s': %s", tpath, strerror(errno));
	if (st.st_size < TEMPLATE_TRAILER ||
	    pread(fd, trailer, sizeof(trailer), st.st_size - TEMPLATE_TRAILER) != TEMPLATE_TRAILER ||
	    memcmp(trailer + 16, TEMPLATE_MAGIC, 8))
		return tf_recover_fail(r, -EINVAL, "'%s' is not a recording's template (no trailer)", tpath);
	memcpy(table_off, trailer, 8);
	memcpy(ncpus, trailer + 8, 4);
	memcpy(psz, trailer + 12, 4);
	if (*ncpus < 1 || *ncpus > 8192 || *psz < 1024 || *psz > (1 << 20) || (*psz & (*psz - 1)))
		return tf_recover_fail(r, -EINVAL, "'%s': bad trailer (%u CPUs, page size %u)", tpath,
			     *ncpus, *psz);
	at = *table_off + 16ULL * *ncpus;
	if (*table_off < TRACEFILE_MAGIC_LEN || at + 8 > (uint64_t)st.st_size - TEMPLATE_TRAILER ||
	    pread(fd, &len, 8, at) != 8 || len > 4096 ||
	    at + 8 + len > (uint64_t)st.st_size - TEMPLATE_TRAILER)
		return tf_recover_fail(r, -EINVAL, "'%s': the CPU table is not where the trailer says", tpath);
	*clock = malloc(len + 1);
	if (!*clock)
		return ftk_err(-ENOMEM);
	if (pread(fd, *clock, len, at + 8) != (ssize_t)len) {
		free(*clock);
		return tf_recover_fail(r, -EIO, "cannot read '%s': short read", tpath);
	}
	*clock_len = len;
	return 0;
}

/*
 * A recording that died, made a trace.dat at @path (spool.c knows where
 * its parts lie and opens them): @tfd the template (named @tpath in
 * messages), @fds[N] the spool of CPU N or -1 (@nfds of them). Every whole
 * page a spool holds that can be a ring buffer page goes in, in order;
 * holes are skipped unread, and so are pages of zeros or garbage (a power
 * cut can leave a spool's end unwritten, a spool can be made sparse);
 * version 6, uncompressed, the metadata of the recording's start. 0, or a
 * negative errno with the reason in @r->errmsg.
 */
int tf_write_recover(int tfd, const char *tpath, const int *fds, int nfds, const char *path,
		     struct ftk_tracewrite_recovered *r)
{
	struct ftk_tracewrite w = { .fd = -1, .comp = TF_COMP_NONE };
	uint64_t table_off = 0, clock_len = 0, at;
	uint32_t ncpus = 0, psz = 0, cpu;
	struct ftk_file *f = NULL;
	struct buf b = { 0 };
	char *clock = NULL;
	struct stat st;
	int ret;

	ret = read_template(tfd, tpath, r, &table_off, &ncpus, &psz, &clock, &clock_len);
	if (ret)
		goto out;
	if ((uint32_t)nfds > ncpus) {
		ret = tf_recover_fail(r, -EINVAL, "'%s' was made for %u CPUs, the spools are of %d",
				      tpath, ncpus, nfds);
		goto out;
	}
	w.cpus = calloc(ncpus, sizeof(*w.cpus));
	if (!w.cpus) {
		ret = -ENOMEM;
		goto out;
	}
	w.ncpus = ncpus;
	w.page_size = psz;
	for (cpu = 0; cpu < (uint32_t)nfds; cpu++) {
		struct wcpu *c = &w.cpus[cpu];

		if (fds[cpu] < 0 || fstat(fds[cpu], &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		ret = spool_segs(c, fds[cpu], st.st_size, psz);
		if (ret) {
			ret = tf_recover_fail(r, ret, "cannot read the spool of CPU %u: %s", cpu,
					      strerror(-ret));
			goto out;
		}
		r->dropped += st.st_size - c->total;
		r->bytes += c->total;
	}
	r->ncpus = ncpus;
	ret = ftk_file_create(path, FTK_FILE_PRIVATE, &f);
	if (ret) {
		ret = tf_recover_fail(r, ret, "%s", f ? ftk_file_errmsg(f) : strerror(-ret));
		goto out;
	}
	w.fd = ftk_file_fd(f);
	/* The template up to its CPU table, the table of the spools, the clock, the pages. */
	ret = copy_region(&w, &(struct seg){ tfd, 0, table_off });
	at = table_off + 16ULL * ncpus + 8 + clock_len;
	for (cpu = 0; cpu < ncpus; cpu++) {
		at = (at + psz - 1) / psz * psz;
		buf_u64(&b, at);
		buf_u64(&b, w.cpus[cpu].total);
		at += w.cpus[cpu].total;
	}
	buf_u64(&b, clock_len);
	buf_add(&b, clock, clock_len);
	if (!ret)
		ret = b.err ? b.err : out_write(&w, b.data, b.len);
	if (!ret)
		ret = write_cpu_data(&w, w.cpus, w.page_size);
	w.fd = -1;
	if (!ret)
		ret = ftk_file_publish(f);
	if (ret)
		tf_recover_fail(r, ret, "cannot write '%s': %s", path, strerror(-ret));
out:
	ftk_file_close(f);
	buf_release(&b);
	for (cpu = 0; w.cpus && cpu < ncpus; cpu++)
		free(w.cpus[cpu].segs);
	free(w.cpus);
	free(w.what);
	free(clock);
	return ret;
}

/** ftk_tracewrite_errmsg() - the last failure's text; owned by the writer */
FTK_API const char *ftk_tracewrite_errmsg(const struct ftk_tracewrite *w)
{
	return w->err.text;
}

/*
 * The tail of a network recording, sent after the CPU data (ftrecord -N):
 * options as trace-cmd sends late options (id, size, data; no section
 * header, no DONE), here a CMDLINES option holding the command lines as of
 * now (the size and the text, as the CMDLINES section holds them: the
 * collector makes that section of it and points a CMDLINES option there)
 * and the PROCMAPS options. Written to @fd from its current offset.
 */
int tf_write_tail(struct ftk_tracewrite *w, int fd)
{
	struct buf b = { 0 }, out = { 0 };
	const char *pm;
	int ret;

	meta_cmdlines(w, &b);
	ret = 0;
	if (!b.err) {
		buf_u16(&out, TF_OPT_CMDLINES);
		buf_u32(&out, b.len);
		buf_add(&out, b.data, b.len);
	}
	for (pm = w->procmaps.data; pm && pm < w->procmaps.data + w->procmaps.len;
	     pm += strlen(pm) + 1) {
		buf_u16(&out, TF_OPT_PROCMAPS);
		buf_u32(&out, strlen(pm) + 1);
		buf_add(&out, pm, strlen(pm) + 1);
	}
	if (!ret)
		ret = b.err ? b.err : out.err ? out.err : w->procmaps.err;
	w->fd = fd;
	if (!ret)
		ret = out_write(w, out.data, out.len);
	w->fd = -1;
	buf_release(&b);
	buf_release(&out);
	return ret;
}

/*
 * For a sender of a whole recording (net.c, ftk_net_sender_write()): what
 * @w holds must be one buffer of whole pages, uncompressed on the wire:
 * its CPU count into *@ncpus and its page size into *@page_size; -EINVAL
 * for buffers beside the top one or a latency text in place of data.
 */
int tf_write_layout(const struct ftk_tracewrite *w, int *ncpus, uint32_t *page_size)
{
	if (w->nr_bufs || w->latency)
		return -EINVAL;
	*ncpus = w->ncpus;
	*page_size = w->page_size;
	return 0;
}

/*
 * The metadata alone, as FTK_TRACEWRITE_META_ONLY makes it whatever @w was
 * made with, into @fd: a seekable file written from offset 0 (a memfd).
 */
int tf_write_meta(struct ftk_tracewrite *w, int fd)
{
	unsigned int flags = w->flags;
	int ret;

	ftk_errmsg_clear(&w->err);
	free(w->what);
	w->what = strdup("cannot make the metadata");
	if (!w->what)
		return -ENOMEM;
	w->flags |= FTK_TRACEWRITE_META_ONLY;
	w->fd = fd;
	w->pos = 0;
	w->strings.len = 0;
	w->opts.len = 0;
	ret = w->version >= 7 ? save_v7(w) : save_v6(w);
	w->fd = -1;
	w->flags = flags;
	return ret;
}

/*
 * The top buffer's data of @cpu, as added (uncompressed: a collector
 * stores the pages as they come), written to @fd from where it stands.
 */
int tf_write_cpu(struct ftk_tracewrite *w, int cpu, int fd)
{
	struct wcpu *c;
	int i, ret = 0;

	if (cpu < 0 || cpu >= w->ncpus)
		return -EINVAL;
	c = &w->cpus[cpu];
	w->fd = fd;
	for (i = 0; i < c->nr_segs && !ret; i++)
		ret = copy_region(w, &c->segs[i]);
	w->fd = -1;
	return ret;
}
