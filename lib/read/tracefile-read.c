// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-read: trace.dat versions 6 and 7, uncompressed or compressed
 * with zstd or zlib.
 *
 * Metadata is read with pread(2) through a bounds-checked cursor, so a
 * truncated or damaged file gives an error that names the offset instead
 * of a crash. The formats themselves are parsed by libtraceevent
 * (tep_parse_header_page, tep_parse_event, tep_parse_kallsyms,
 * tep_parse_printk_formats, tep_parse_saved_cmdlines); the container is
 * read by hand: Debian does ship libtracecmd, but it is slower, larger and
 * refuses or crashes on damaged files (doc/design.md, "Why the reader is
 * ftkit's own").
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "comm-local.h"
#include "tep-side-local.h"
#include "format-check.h"
#include "internal.h"
#include "stream-local.h"
#include "tracefile-local.h"
#include "tracefile-read-local.h"
#include <ftkit/tracefile.h>

/* A read position: in the file, or in a block loaded (and uncompressed) from it. */
struct cur {
	struct ftk_tracefile	*tf;
	const unsigned char	*mem;		/* NULL: read the file */
	unsigned long long	len;		/* mem: bytes; file: end limit */
	unsigned long long	pos;		/* mem: index; file: offset */
	unsigned long long	base;		/* mem: file offset of the block, for messages */
	const char		*what;		/* what is being read, for messages */
	unsigned char		*block;		/* mem: its malloc'd block, which a reader may take */
	int			kept;		/* mem: taken into tf->fmt_blocks, lasts till close */
};

/*
 * Note what a truncated file lost: "; "-separated parts, cut at 4 KiB.
 * The handle stays usable: what survived is read.
 */
static void __attribute__((format(printf, 2, 3))) damage_add(struct ftk_tracefile *tf,
							      const char *fmt, ...)
{
	size_t have = tf->damage ? strlen(tf->damage) : 0;
	char part[512], *d;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	if (n < 0 || have > 4096)
		return;
	d = realloc(tf->damage, have + strlen(part) + 3);
	if (!d)
		return;
	if (have)
		strcpy(d + have, "; ");
	strcpy(d + have + (have ? 2 : 0), part);
	tf->damage = d;
}

/* A sub-buffer size the kernel can produce: a power of two from 1 KiB to 1 MiB. */
static int bad_page_size(unsigned long long page)
{
	return page < MIN_PAGE || page > MAX_PAGE || (page & (page - 1));
}

static unsigned long long cur_where(const struct cur *c)
{
	return c->mem ? c->base + c->pos : c->pos;
}

static int cur_short(struct cur *c, unsigned long long want)
{
	if (c->mem)
		return tf_fail(c->tf, -FTK_E_TRUNC,
			       "%s: %llu bytes needed at offset %llu, the block ends after %llu",
			       c->what, want, cur_where(c), c->len - c->pos);
	return tf_fail(c->tf, -FTK_E_TRUNC,
		       "file is truncated: %s: %llu bytes needed at offset %llu, the file has %llu",
		       c->what, want, c->pos, c->tf->fsize);
}

/* pread() all of @n bytes at @off; 0, or a failure (tf_fail) or -FTK_E_TRUNC for short. */
static int read_all(struct cur *c, void *buf, unsigned long long n, unsigned long long off,
		    unsigned long long *got_out)
{
	unsigned long long got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(c->tf->fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return tf_fail(c->tf, -errno, "read at offset %llu: %s", off + got,
				       strerror(errno));
		if (r == 0)
			break;
		got += r;
	}
	*got_out = got;
	return 0;
}

/*
 * The file's metadata is read a field at a time: a version 6 file of
 * every system's formats took 3500 pread() calls. Small reads come from
 * a window of the file read ahead (tf->rwin).
 */
#define RWIN_SIZE	(64U << 10)

static int cur_read(struct cur *c, void *buf, unsigned long long n)
{
	struct ftk_tracefile *tf = c->tf;
	unsigned long long got = 0;
	int ret;

	if (!n)
		return 0;	/* @buf may be NULL: an empty chunk */
	if (c->mem) {
		if (n > c->len - c->pos)
			return cur_short(c, n);
		memcpy(buf, c->mem + c->pos, n);
		c->pos += n;
		return 0;
	}
	if (c->pos > tf->fsize || n > tf->fsize - c->pos)
		return cur_short(c, n);
	if (n <= RWIN_SIZE / 2) {
		if (!tf->rwin || c->pos < tf->rwin_off || c->pos + n > tf->rwin_off + tf->rwin_len) {
			if (!tf->rwin && !(tf->rwin = malloc(RWIN_SIZE)))
				return -ENOMEM;
			tf->rwin_len = 0;
			ret = read_all(c, tf->rwin, tf->fsize - c->pos < RWIN_SIZE ?
				       tf->fsize - c->pos : RWIN_SIZE, c->pos, &got);
			if (ret)
				return ret;
			tf->rwin_off = c->pos;
			tf->rwin_len = got;
			if (got < n)
				return cur_short(c, n);
		}
		memcpy(buf, tf->rwin + (c->pos - tf->rwin_off), n);
		c->pos += n;
		return 0;
	}
	ret = read_all(c, buf, n, c->pos, &got);
	if (ret)
		return ret;
	if (got < n)
		return cur_short(c, n);
	c->pos += n;
	return 0;
}

static int cur_num(struct cur *c, int n, unsigned long long *v)
{
	unsigned char b[8];
	int ret = cur_read(c, b, n);

	if (!ret)
		*v = tf_num(c->tf, b, n);
	return ret;
}

static int cur_u32(struct cur *c, unsigned int *v)
{
	unsigned long long x;
	int ret = cur_num(c, 4, &x);

	if (!ret)
		*v = (unsigned int)x;
	return ret;
}

/* A NUL-terminated string of at most 4095 bytes, malloc'd. */
static int cur_str(struct cur *c, char **out)
{
	unsigned long long start = cur_where(c);
	char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(buf); i++) {
		if (cur_read(c, &buf[i], 1))
			return -FTK_E_TRUNC;
		if (!buf[i])
			break;
	}
	if (i == sizeof(buf))
		return tf_fail(c->tf, -FTK_E_FORMAT, "%s: string at offset %llu is not terminated",
			       c->what, start);
	*out = strdup(buf);
	return *out ? 0 : -ENOMEM;
}

/* Read @n bytes into a new NUL-terminated buffer. */
static int cur_blob(struct cur *c, unsigned long long n, char **out)
{
	char *b;
	int ret;

	if (n > MAX_META)
		return tf_fail(c->tf, -FTK_E_FORMAT, "%s: size %llu at offset %llu is not believable",
			       c->what, n, cur_where(c) - 8);
	/* allocate only what the file (or the block) is seen to hold */
	if (c->mem ? n > c->len - c->pos : c->pos > c->tf->fsize || n > c->tf->fsize - c->pos)
		return cur_short(c, n);
	b = malloc(n + 1);
	if (!b)
		return -ENOMEM;
	ret = cur_read(c, b, n);
	if (ret) {
		free(b);
		return ret;
	}
	b[n] = 0;
	*out = b;
	return 0;
}

/* A v7 section's header: what section_head() reads and checks. */
struct sec_head {
	unsigned long long	flags, size;
	unsigned int		clen, ulen;	/* compressed: the block's two sizes */
};

/*
 * Read and check the header of the v7 section at @off (and, compressed,
 * of its block) against the file: @c is left at the content.
 */
static int section_head(struct ftk_tracefile *tf, struct cur *c, unsigned long long off,
			const char *what, int want_id, struct sec_head *h)
{
	unsigned long long id;
	unsigned int sid;
	int ret;

	*c = (struct cur){ .tf = tf, .pos = off, .what = what };
	*h = (struct sec_head){ 0 };
	if ((ret = cur_num(c, 2, &id)) || (ret = cur_num(c, 2, &h->flags)) ||
	    (ret = cur_u32(c, &sid)) || (ret = cur_num(c, 8, &h->size)))
		return ret;
	if (want_id >= 0 && id != (unsigned long long)want_id)
		return tf_fail(tf, -FTK_E_FORMAT,
			       "%s: section at offset %llu has id %llu, expected %d",
			       what, off, id, want_id);
	if (h->size > tf->fsize || c->pos + h->size > tf->fsize)
		return tf_fail(tf, -FTK_E_TRUNC,
			       "file is truncated: %s: section at offset %llu claims %llu bytes, the file has %llu",
			       what, off, h->size, tf->fsize);
	if (!(h->flags & TRACEFILE_SEC_COMPRESSED))
		return 0;
	if ((ret = cur_u32(c, &h->clen)) || (ret = cur_u32(c, &h->ulen)))
		return ret;
	if (h->clen + 8ULL > h->size || h->ulen > MAX_META ||
	    h->ulen > MAX_RATIO * h->clen + 65536)
		return tf_fail(tf, -FTK_E_FORMAT,
			       "%s: bad compression header at offset %llu: %u bytes into %u",
			       what, off + 16, h->clen, h->ulen);
	return 0;
}

/* The compressed block at @c (sizes in @h): mapped where large (kallsyms: 1 MB), else read. */
static int zsrc_get(struct cur *c, const struct sec_head *h, struct tf_zsrc *z)
{
	int ret;

	*z = (struct tf_zsrc){ .clen = h->clen, .ulen = h->ulen };
	/* a large block is read where it lies in the page cache (section_head() checked its end) */
	if (h->clen >= (256U << 10) &&
	    (z->at = tf_map_ro(c->tf->fd, c->pos, h->clen, &z->map, &z->maplen)))
		return 0;
	z->map = NULL;
	ret = cur_blob(c, h->clen, (char **)&z->buf);
	z->at = z->buf;
	return ret;
}

/*
 * The latency text of a v7 file (BUFFER_TEXT). trace-cmd compresses it as
 * it does CPU data (copy_file_compress): a chunk count, then each chunk's
 * compressed and uncompressed sizes and its data; uncompressed, the
 * section holds the text itself. Into *@out, malloc'd.
 */
static int text_load(struct ftk_tracefile *tf, unsigned long long off, char **out)
{
	unsigned long long id, flags, size, end, total = 0;
	unsigned int sid, n, clen, ulen, i;
	char *text = NULL, *cbuf, *nt;
	struct cur c = { .tf = tf, .pos = off, .what = "latency text" };
	int ret;

	if ((ret = cur_num(&c, 2, &id)) || (ret = cur_num(&c, 2, &flags)) ||
	    (ret = cur_u32(&c, &sid)) || (ret = cur_num(&c, 8, &size)))
		return ret;
	if (size > tf->fsize || c.pos + size > tf->fsize)
		return tf_fail(tf, -FTK_E_TRUNC,
			       "file is truncated: latency text: section at offset %llu claims %llu bytes, the file has %llu",
			       off, size, tf->fsize);
	if (!(flags & TRACEFILE_SEC_COMPRESSED))
		return cur_blob(&c, size, out);
	end = c.pos + size;
	if ((ret = cur_u32(&c, &n)))
		return ret;
	for (i = 0; i < n; i++) {
		if ((ret = cur_u32(&c, &clen)) || (ret = cur_u32(&c, &ulen)))
			break;
		if (clen > end - c.pos || ulen > MAX_RATIO * clen + 65536 ||
		    total + ulen > MAX_META) {
			ret = tf_fail(tf, -FTK_E_FORMAT,
				      "latency text: bad chunk at offset %llu: %u bytes into %u",
				      c.pos - 8, clen, ulen);
			break;
		}
		if ((ret = cur_blob(&c, clen, &cbuf)))
			break;
		nt = realloc(text, total + ulen + 1);
		if (!nt) {
			free(cbuf);
			ret = -ENOMEM;
			break;
		}
		text = nt;
		ret = tf_decompress_with(&tf->dctx, tf->comp, text + total, ulen, cbuf, clen);
		free(cbuf);
		if (ret) {
			ret = tf_fail(tf, ret, "latency text: cannot decompress the chunk at offset %llu",
				      c.pos - clen);
			break;
		}
		total += ulen;
	}
	if (!ret && !text && !(text = malloc(1)))
		ret = -ENOMEM;
	if (ret) {
		free(text);
		return ret;
	}
	text[total] = '\0';
	*out = text;
	return 0;
}

/*
 * Open the v7 section at @off: check its header and load its content
 * (uncompressed) into a memory cursor; with @out NULL, only check the
 * header.
 */
static int section_load(struct ftk_tracefile *tf, unsigned long long off, const char *what,
			int want_id, struct cur *out, unsigned char **mem)
{
	struct sec_head h;
	struct tf_zsrc zs;
	struct cur c;
	unsigned char *ubuf;
	int ret;

	if (mem)
		*mem = NULL;
	if ((ret = section_head(tf, &c, off, what, want_id, &h)) || !out)
		return ret;	/* with @out NULL: checked only, loaded on first use */
	if (!(h.flags & TRACEFILE_SEC_COMPRESSED)) {
		if (want_id == TF_OPT_KALLSYMS) {
			/* read where it is: read_kallsyms() maps it */
			*out = (struct cur){ .tf = tf, .pos = off + 16, .len = off + 16 + h.size,
					     .what = what };
			return 0;
		}
		if (h.size > MAX_META)
			return tf_fail(tf, -FTK_E_FORMAT, "%s: size %llu at offset %llu is not believable",
				       what, h.size, off + 8);
		ubuf = tf_big_alloc(h.size + 1);
		if (!ubuf)
			return -ENOMEM;
		ret = cur_read(&c, ubuf, h.size);
		if (ret) {
			tf_big_free(ubuf);
			return ret;
		}
		ubuf[h.size] = 0;
		*out = (struct cur){ .tf = tf, .mem = ubuf, .len = h.size, .base = off + 16,
				     .what = what };
		*mem = ubuf;
		return 0;
	}
	if ((ret = zsrc_get(&c, &h, &zs)))
		return ret;
	ubuf = tf_big_alloc((size_t)h.ulen + 1);
	if (ubuf)
		ret = tf_decompress_with(&tf->dctx, tf->comp, ubuf, h.ulen, zs.at, h.clen);
	tf_zsrc_release(&zs);
	if (!ubuf)
		return -ENOMEM;
	if (ret) {
		tf_big_free(ubuf);
		return tf_fail(tf, ret, "%s: cannot decompress the section at offset %llu (%s)",
			       what, off, tf->comp_name);
	}
	ubuf[h.ulen] = 0;
	*out = (struct cur){ .tf = tf, .mem = ubuf, .len = h.ulen, .base = off + 24,
			     .what = what };
	*mem = ubuf;
	return 0;
}


/* ---------------------------------------------------------------- event formats */

/*
 * libtraceevent's event parser trusts its input: some damaged print
 * formats make tep_parse_event() divide by zero or follow a NULL pointer
 * (found by fuzzing). The own check in format-check.c reads each format
 * first; a print fmt of a shape that crashes libtraceevent is left out,
 * so the event keeps its fields and prints as one libtraceevent cannot
 * parse; a format whose field lines would crash it is left out whole.
 * Returns 0 when libtraceevent took the whole format.
 */
static int parse_event_format(struct ftk_tracefile *tf, char *buf, unsigned long size,
			      const char *sys, unsigned long long at)
{
	const char *why;
	size_t keep;
	int ret;

	ret = ftk_format_check(buf, size, &keep, &why);
	if (ret < 0)
		return ret;
	if (ret == 2) {
		/* libtraceevent 1.7.1 would crash in event_read_fields(): not even the fields */
		pr_warn("%s: a %s event format before offset %llu has %s; the event is ignored\n",
			tf->path, sys, at, why);
		return 1;
	}
	if (ret)
		pr_warn("%s: a %s event format before offset %llu has %s; its print fmt is ignored\n",
			tf->path, sys, at, why);
	return tep_parse_event(tf->tep, buf, keep, sys) || ret ? 1 : 0;
}

/* ---------------------------------------------------------------- lazy loading */

/*
 * A report of a few events would spend nearly all its time parsing the
 * formats of the thousand or so events a trace-cmd file describes, and
 * the 4 MB of kallsyms it carries. With FTK_TRACEFILE_LAZY, an event's
 * format goes to libtraceevent when the first record of that event is
 * read (the streams call record_hook()), and the printk formats with the
 * first event that can print one. The ftrace system's formats too: its
 * forty or so took two thirds of the start-up of a small report; the first
 * format of the file is parsed at once, for the common fields. kallsyms
 * are read on the first address libtraceevent looks up, in any mode (see
 * ksym_resolve()).
 */

/* The "ID: N" of the format @blob (@size bytes), or -1. */
static int format_id(const char *blob, unsigned long size)
{
	const char *p = memmem(blob, size, "\nID:", 4), *end = blob + size;
	long id = 0;
	int digits = 0;

	if (!p)
		return -1;
	for (p += 4; p < end && *p == ' '; p++)
		;
	for (; p < end && *p >= '0' && *p <= '9' && id <= 65535; p++, digits++)
		id = id * 10 + (*p - '0');
	if (!digits || (p < end && *p != '\n' && *p != 0) || id > 65535)
		return -1;
	return (int)id;
}

/*
 * Keep @blob for later (lazy mode): 1 if kept (then owned when @owned),
 * 0 to parse it now.
 */
static int fmt_later(struct ftk_tracefile *tf, char *blob, unsigned long size, int owned,
		     const char *sys, unsigned long long at)
{
	struct tf_fmt *f;
	int id, k;

	if (!tf->lazy || (id = format_id(blob, size)) < 0)
		return 0;
	k = tf->nr_systems - 1;
	if (k < 0 || strcmp(tf->systems[k], sys)) {
		char **ns = realloc(tf->systems, (tf->nr_systems + 1) * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		tf->systems = ns;
		ns[tf->nr_systems] = strdup(sys);
		if (!ns[tf->nr_systems])
			return -ENOMEM;
		k = tf->nr_systems++;
	}
	if (!(tf->nr_fmts & (tf->nr_fmts - 1))) {
		f = realloc(tf->fmts, (tf->nr_fmts ? 2 * tf->nr_fmts : 64) * sizeof(*f));
		if (!f)
			return -ENOMEM;
		tf->fmts = f;
	}
	tf->fmts[tf->nr_fmts++] = (struct tf_fmt){ .blob = blob, .owned = owned, .size = size,
						   .id = id, .sys = k, .at = at };
	return 1;
}

static int read_printk(struct cur *c);

/* Read a block kept for later, once; a failure is a warning, as the records still print. */
static void later_load(struct ftk_tracefile *tf, struct tf_later *l, int id, const char *what,
		       int (*fn)(struct cur *))
{
	struct cur c = { .tf = tf, .pos = l->off, .what = what };
	unsigned char *mem = NULL;
	int ret;

	if (l->state != LATER_PENDING)
		return;
	l->state = LATER_DONE;
	if (tf->live) {
		/* ftk_tracefile_open_live() defers only kallsyms, read from /proc */
		char *text;
		size_t len;

		ret = ftk_read_file("/proc/kallsyms", &text, &len);
		ret = ret < 0 ? tf_fail(tf, ret, "cannot read /proc/kallsyms: %s", strerror(-ret)) :
		      tf_ksyms_index(tf, text, len, TF_TEXT_MALLOC, NULL, 0);
	} else {
		ret = tf->version == 7 ? section_load(tf, l->off, what, id, &c, &mem) : 0;
		c.block = mem;
		if (!ret)
			ret = fn(&c);
		tf_big_free(c.block);	/* unless taken */
	}
	if (ret) {
		pr_warn("%s\n", tf->err.text);
		ftk_errmsg_clear(&tf->err);
	}
}

/* v6: note where the block at @c is (a @width-byte size, then the text) and skip it. */
static int later_skip(struct cur *c, struct tf_later *l, int width, const char *what)
{
	unsigned long long size;
	int ret;

	c->what = what;
	l->off = c->pos;
	if ((ret = cur_num(c, width, &size)))
		return ret;
	if (size > MAX_META)
		return tf_fail(c->tf, -FTK_E_FORMAT, "%s: size %llu at offset %llu is not believable",
			       what, size, c->pos - width);
	if (c->pos > c->tf->fsize || size > c->tf->fsize - c->pos)
		return cur_short(c, size);
	c->pos += size;
	l->state = LATER_PENDING;
	return 0;
}

/* Whether printing @ev may look up a printk format: bprint, or %s of a kernel pointer. */
static int args_use_printk(const struct tep_event *ev, const struct tep_print_arg *a, int depth)
{
	const struct tep_format_field *f;

	for (; a && depth < 64; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
			f = a->field.field ? a->field.field :
			    tep_find_any_field((struct tep_event *)ev, a->field.name);
			if (f && !(f->flags & TEP_FIELD_IS_ARRAY) && f->size == tep_get_long_size(ev->tep))
				return 1;
			break;
		case TEP_PRINT_OP:
			if (args_use_printk(ev, a->op.left, depth + 1) ||
			    args_use_printk(ev, a->op.right, depth + 1))
				return 1;
			break;
		case TEP_PRINT_TYPE:
			if (args_use_printk(ev, a->typecast.item, depth + 1))
				return 1;
			break;
		case TEP_PRINT_FUNC:
			if (args_use_printk(ev, a->func.args, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int needs_printk(const struct tep_event *ev)
{
	if (ev->flags & TEP_EVENT_FL_ISBPRINT)
		return 1;
	return ev->print_fmt.format && strstr(ev->print_fmt.format, "%s") &&
	       args_use_printk(ev, ev->print_fmt.args, 0);
}

static int parse_event_format(struct ftk_tracefile *tf, char *buf, unsigned long size,
			      const char *sys, unsigned long long at);

static int read_event_formats(struct cur *c);

/*
 * Give libtraceevent the kept formats of event @id (all of them with @id
 * -1). Those of the event formats section are read first if @id is not
 * among the formats kept: a file of ftrace events alone (function,
 * function_graph, markers) never reads the 900 KB of them trace-cmd may
 * store.
 */
static void fmt_load(struct ftk_tracefile *tf, int id)
{
	struct tf_fmt *f;
	int i;

	for (i = 0; id >= 0 && i < tf->nr_fmts && tf->fmts[i].id != id; i++)
		;
	if (id < 0 || i == tf->nr_fmts)
		later_load(tf, &tf->events, TF_OPT_EVENT_FORMATS, "event formats",
			   read_event_formats);
	for (i = 0; i < tf->nr_fmts; i++) {
		f = &tf->fmts[i];
		if (!f->blob || (id >= 0 && f->id != id))
			continue;
		if (parse_event_format(tf, f->blob, f->size, tf->systems[f->sys], f->at) > 0)
			pr_debug("%s: cannot parse a %s event format before offset %llu\n",
				 tf->path, tf->systems[f->sys], f->at);
		if (f->owned)
			free(f->blob);
		f->blob = NULL;
	}
}

static int read_kallsyms(struct cur *c);

/*
 * A name in a number of @ev's print fmt ((struct page *)vmemmap_base)
 * gets its kallsyms address, as libtraceevent's test_for_symbol() gives
 * it in trace-cmd, whose tep lists every symbol: with the resolver set
 * (ksym_resolve()) its list is empty and the name would be 0. The atom
 * is rewritten as test_for_symbol() rewrites it after its look-up. Only
 * atoms evaluated as numbers are: operands of an operator other than ?:'s
 * choices, items of a cast, the values __print_symbolic() and
 * __print_flags() look up; a string chosen by ?: stays as it is.
 */
static void resolve_names(struct ftk_tracefile *tf, struct tep_print_arg *a, int num, int depth)
{
	unsigned long long addr;
	const char *c;
	char *v;

	for (; a && depth < 64; a = depth ? NULL : a->next) {
		switch (a->type) {
		case TEP_PRINT_ATOM:
			c = a->atom.atom;
			if (!num || !c || (!isalpha((unsigned char)*c) && *c != '_'))
				break;
			while (isalnum((unsigned char)*c) || *c == '_')
				c++;
			if (*c)
				break;
			if (tf->kallsyms.state == LATER_PENDING && tf->ksyms_part &&
			    !tf_ksyms_part_finish(tf))
				tf->kallsyms.state = LATER_DONE;
			later_load(tf, &tf->kallsyms, TF_OPT_KALLSYMS, "kallsyms", read_kallsyms);
			if (!tf_ksyms_addr(tf, a->atom.atom, &addr))
				break;
			v = malloc(32);
			if (!v)
				break;
			snprintf(v, 32, "%lld", (long long)addr);
			free(a->atom.atom);
			a->atom.atom = v;
			break;
		case TEP_PRINT_OP:
			if (a->op.op && !strcmp(a->op.op, "?")) {
				resolve_names(tf, a->op.left, 1, depth + 1);
				resolve_names(tf, a->op.right, num, depth + 1);
			} else if (a->op.op && !strcmp(a->op.op, ":")) {
				resolve_names(tf, a->op.left, num, depth + 1);
				resolve_names(tf, a->op.right, num, depth + 1);
			} else {
				resolve_names(tf, a->op.left, 1, depth + 1);
				resolve_names(tf, a->op.right, 1, depth + 1);
			}
			break;
		case TEP_PRINT_TYPE:
			resolve_names(tf, a->typecast.item, 1, depth + 1);
			break;
		case TEP_PRINT_FLAGS:
			resolve_names(tf, a->flags.field, 1, depth + 1);
			break;
		case TEP_PRINT_SYMBOL:
			resolve_names(tf, a->symbol.field, 1, depth + 1);
			break;
		default:
			break;
		}
	}
}

/* The streams' hook: on the first record of an event, what printing it needs. */
static void record_hook(void *ctx, const struct tep_record *rec)
{
	struct ftk_tracefile *tf = ctx;
	struct tep_event *ev;
	unsigned int id;

	if (tf->type_off + tf->type_size > rec->size)
		return;
	id = (unsigned int)tf_num(tf, (const unsigned char *)rec->data + tf->type_off,
				  tf->type_size);
	if (id > 65535 || tf->id_seen[id])
		return;
	tf->id_seen[id] = 1;
	if (tf->live)
		tf->live_ops->fmt_load(tf, id);
	else
		fmt_load(tf, id);
	ev = tep_find_event(tf->tep, id);
	if (ev && !tf->live && !(ev->flags & TEP_EVENT_FL_FAILED))
		resolve_names(tf, ev->print_fmt.args, 0, 0);
	if (ev && needs_printk(ev))
		later_load(tf, &tf->printk, TF_OPT_PRINTK, "printk formats", read_printk);
}

/*
 * After the metadata: find common_type, for record_hook(). Without an
 * event to find it in, there is nothing to be lazy about: load it all.
 */
int tf_lazy_start(struct ftk_tracefile *tf)
{
	struct tep_format_field *t = NULL;
	struct tep_event *ev;
	int i;

	/* formats are all kept for later: parse the first, for the common fields */
	if (!tep_get_event(tf->tep, 0) && tf->nr_fmts)
		fmt_load(tf, tf->fmts[0].id);
	for (i = 0; !t && (ev = tep_get_event(tf->tep, i)); i++)
		t = tep_find_common_field(ev, "common_type");
	if (t && (t->size == 1 || t->size == 2 || t->size == 4) && t->offset >= 0) {
		tf->id_seen = calloc(65536, 1);
		if (!tf->id_seen)
			return -ENOMEM;
		tf->type_off = t->offset;
		tf->type_size = t->size;
		return 0;
	}
	if (tf->live)
		tf->live_ops->parse_all(tf);
	else
		fmt_load(tf, -1);
	later_load(tf, &tf->printk, TF_OPT_PRINTK, "printk formats", read_printk);
	tf->lazy = 0;
	return 0;
}

/* ---------------------------------------------------------------- kallsyms */

/* (indexed in tracefile-ksyms.c) */

/*
 * A v7 file's zstd kallsyms section, set up to be decompressed only as far
 * as look-ups need (tracefile-ksyms.c): 0, or <0 to read it as a whole.
 */
static int kallsyms_part(struct ftk_tracefile *tf)
{
	struct sec_head h;
	struct tf_zsrc zs;
	struct cur c;

	if (tf->live || tf->version != 7 || tf->comp != TF_COMP_ZSTD ||
	    section_head(tf, &c, tf->kallsyms.off, "kallsyms", TF_OPT_KALLSYMS, &h) ||
	    !(h.flags & TRACEFILE_SEC_COMPRESSED) || zsrc_get(&c, &h, &zs))
		return -1;
	return tf_ksyms_part_open(tf, &zs);
}

/*
 * libtraceevent's function resolver: from the part of a zstd kallsyms
 * read so far where that gives libtraceevent's answer, else from the
 * index of the whole, made on the first look-up that needs it.
 */
static char *ksym_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct ftk_tracefile *tf = priv;
	char *name;

	if (tf->kallsyms.state == LATER_PENDING && !tf->ksyms_part)
		kallsyms_part(tf);
	if (tf->kallsyms.state == LATER_PENDING && tf->ksyms_part) {
		if (tf_ksyms_part_find(tf, addrp, modp, &name))
			return name;
		if (!tf_ksyms_part_finish(tf))
			tf->kallsyms.state = LATER_DONE;
		/* else damaged: read as a whole below, which says why */
	}
	later_load(tf, &tf->kallsyms, TF_OPT_KALLSYMS, "kallsyms", read_kallsyms);
	return tf_ksyms_find(tf, addrp, modp);
}

/*
 * A live buffer's kallsyms: read from /proc/kallsyms on the first address
 * looked up (ksym_resolve()), not at open: parsing its 100k or so lines
 * was most of a live tool's start-up, and most print no kernel symbol.
 */
int tf_live_kallsyms_later(struct ftk_tracefile *tf)
{
	if (tep_set_function_resolver(tf->tep, ksym_resolve, tf))
		return -ENOMEM;
	tf->kallsyms.state = LATER_PENDING;
	return 0;
}

/* ---------------------------------------------------------------- metadata blocks */

static int read_header_info(struct cur *c)
{
	struct ftk_tracefile *tf = c->tf;
	unsigned long long size;
	char name[13];
	char *blob;
	int ret;

	c->what = "header_page";
	if ((ret = cur_read(c, name, 12)))
		return ret;
	if (memcmp(name, "header_page", 12))
		return tf_fail(tf, -FTK_E_FORMAT, "no header_page at offset %llu", cur_where(c) - 12);
	if ((ret = cur_num(c, 8, &size)) || (ret = cur_blob(c, size, &blob)))
		return ret;
	if (tep_parse_header_page(tf->tep, blob, size, tf->long_size))
		ret = tf_fail(tf, -FTK_E_PARSE, "cannot parse header_page before offset %llu",
			      cur_where(c));
	free(blob);
	if (ret)
		return ret;
	c->what = "header_event";
	if ((ret = cur_read(c, name, 13)))
		return ret;
	if (memcmp(name, "header_event", 13))
		return tf_fail(tf, -FTK_E_FORMAT, "no header_event at offset %llu",
			       cur_where(c) - 13);
	if ((ret = cur_num(c, 8, &size)) || (ret = cur_blob(c, size, &blob)))
		return ret;
	free(blob);
	return 0;
}

/*
 * Take the section block @c reads from into the file's blocks, so that
 * formats kept for later can lie where they are (a v7 file of every
 * system's formats holds about 900 KB of them: copied one by one, they
 * were a third of a small report's page faults).
 */
static int keep_block(struct cur *c)
{
	struct ftk_tracefile *tf = c->tf;
	void **nb;

	if (c->kept)
		return 0;
	nb = realloc(tf->fmt_blocks, (tf->nr_fmt_blocks + 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	tf->fmt_blocks = nb;
	nb[tf->nr_fmt_blocks++] = c->block;
	c->block = NULL;
	c->kept = 1;
	return 0;
}

static int read_formats(struct cur *c, const char *system)
{
	unsigned long long size;
	unsigned int count, i;
	int ret, in_place = c->mem && (c->block || c->kept);
	char *blob;

	if ((ret = cur_u32(c, &count)))
		return ret;
	for (i = 0; i < count; i++) {
		if ((ret = cur_num(c, 8, &size)))
			return ret;
		if (!in_place) {
			if ((ret = cur_blob(c, size, &blob)))
				return ret;
		} else if (size > c->len - c->pos) {
			return cur_short(c, size);
		} else {
			blob = (char *)c->mem + c->pos;
			c->pos += size;
		}
		ret = fmt_later(c->tf, blob, size, !in_place, system, cur_where(c));
		if (ret > 0 && in_place && keep_block(c))
			ret = -ENOMEM;
		if (ret < 0) {
			if (!in_place)
				free(blob);
			return ret;
		}
		if (ret)
			continue;	/* parsed on the first record of its event */
		/* A format libtraceevent cannot parse leaves that event unknown, as in trace-cmd. */
		ret = parse_event_format(c->tf, blob, size, system, cur_where(c));
		if (ret > 0)
			pr_debug("%s: cannot parse a %s event format before offset %llu\n",
				 c->tf->path, system, cur_where(c));
		if (!in_place)
			free(blob);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int read_ftrace_events(struct cur *c)
{
	c->what = "ftrace event formats";
	return read_formats(c, "ftrace");
}

static int read_event_formats(struct cur *c)
{
	unsigned int systems, i;
	char *sys;
	int ret;

	c->what = "event formats";
	if ((ret = cur_u32(c, &systems)))
		return ret;
	for (i = 0; i < systems; i++) {
		if ((ret = cur_str(c, &sys)))
			return ret;
		ret = read_formats(c, sys);
		free(sys);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_sized_text(struct cur *c, int width, const char *what, char **out)
{
	unsigned long long size;
	int ret;

	c->what = what;
	if ((ret = cur_num(c, width, &size)))
		return ret;
	return cur_blob(c, size, out);
}

/*
 * The text stays where it is: in the section loaded (and uncompressed)
 * for it, or in the file, mapped: 4 MB neither copied nor parsed into
 * strings (see tracefile-ksyms.c).
 */
static int read_kallsyms(struct cur *c)
{
	unsigned long long size;
	size_t maplen;
	void *map;
	char *b;
	int ret;

	c->what = "kallsyms";
	if ((ret = cur_num(c, 4, &size)))
		return ret;
	if (size > MAX_META)
		return tf_fail(c->tf, -FTK_E_FORMAT, "kallsyms: size %llu at offset %llu is not believable",
			       size, cur_where(c) - 4);
	if (c->mem && c->block) {
		if (size > c->len - c->pos)
			return cur_short(c, size);
		b = (char *)c->block + c->pos;
		b[size] = 0;	/* the block has a byte past its end */
		ret = tf_ksyms_index(c->tf, b, size, TF_TEXT_BIG, c->block, 0);
		if (!ret)
			c->block = NULL;	/* taken */
		return ret;
	}
	if (c->mem)
		return -EINVAL;
	if (c->pos > c->tf->fsize || size > c->tf->fsize - c->pos)
		return cur_short(c, size);
	if (size && c->pos + size < c->tf->fsize &&
	    (b = tf_map_file(c->tf->fd, c->pos, size, &map, &maplen)))
		return tf_ksyms_index(c->tf, b, size, TF_TEXT_MAP, map, maplen);
	/* the text ends the file (no byte past it to map), or mmap failed: read it */
	c->pos -= 4;
	ret = read_sized_text(c, 4, "kallsyms", &b);
	return ret ? ret : tf_ksyms_index(c->tf, b, size, TF_TEXT_MALLOC, NULL, 0);
}

static int read_printk(struct cur *c)
{
	char *b;
	int ret = read_sized_text(c, 4, "printk formats", &b);

	if (ret)
		return ret;
	keep_colon_lines(b);
	if (*b)
		tep_parse_printk_formats(c->tf->tep, b);
	ret = ftk_printk_keep(c->tf->tep, b);	/* for the printer's bprint and bputs */
	free(b);
	return ret;
}

static int read_cmdlines(struct cur *c)
{
	char *b;
	int ret = read_sized_text(c, 8, "saved cmdlines", &b);

	if (ret)
		return ret;
	return ftk_comms_parse(c->tf->side->comms, b);
}

/* v6: "flyrecord\0", then (offset, size) per CPU, then the clock as size + text. */
static int read_v6_flyrecord(struct ftk_tracefile *tf, struct tf_buffer *b, unsigned long long off,
			     int has_magic)
{
	struct cur c = { .tf = tf, .pos = off, .what = "flyrecord cpu table" };
	unsigned long long o, s, first = ~0ULL, size;
	char magic[10];
	char *clk;
	int i, ret;

	if (has_magic) {
		if ((ret = cur_read(&c, magic, 10)))
			return ret;
		if (memcmp(magic, TRACEFILE_V6_FLYRECORD, 10))
			return tf_fail(tf, -FTK_E_FORMAT, "no flyrecord data at offset %llu", off);
	}
	if (tf->cpus < 0 || tf->cpus > MAX_CPUS)
		return tf_fail(tf, -FTK_E_FORMAT, "bad cpu count %d", tf->cpus);
	b->cpus = calloc(tf->cpus ? tf->cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	for (i = 0; i < tf->cpus; i++) {
		if ((ret = cur_num(&c, 8, &o)) || (ret = cur_num(&c, 8, &s)))
			return ret;
		/* Data cut short is reported by the stream, after what can be read. */
		if (o + s < o)
			return tf_fail(tf, -FTK_E_FORMAT, "cpu %d data at offset %llu: bad size %llu",
				       i, o, s);
		b->cpus[b->nr_cpus++] = (struct tf_cpu){ .cpu = i, .offset = o, .size = s };
		if (s && o < first)
			first = o;
	}
	/* The trace clock follows, in files of trace-cmd 2.6 and later. */
	if (cur_num(&c, 8, &size) == 0 && size && size < 4096 && c.pos + size <= first) {
		c.what = "trace clock";
		if (cur_blob(&c, size, &clk) == 0) {
			b->clock = clock_name(clk, size);
			free(clk);
		}
	}
	ftk_errmsg_clear(&tf->err);	/* a missing clock is not an error */
	return 0;
}

/* ---------------------------------------------------------------- options */

static int parse_option(struct ftk_tracefile *tf, unsigned int id, struct cur *o, int v7,
			unsigned long long at);

static int read_options(struct ftk_tracefile *tf, struct cur *c, int v7, unsigned long long *next)
{
	unsigned long long id, size, at;
	struct cur o;
	int ret;

	*next = 0;
	for (;;) {
		c->what = "options";
		at = cur_where(c);
		if ((ret = cur_num(c, 2, &id)))
			return ret;
		if (!v7 && id == TF_OPT_DONE)
			return 0;
		if ((ret = cur_num(c, 4, &size)))
			return ret;
		if (c->mem ? size > c->len - c->pos : size > tf->fsize - c->pos)
			return tf_fail(tf, -FTK_E_TRUNC,
				       "option %llu at offset %llu claims %llu bytes beyond its end",
				       id, at, size);
		if (v7 && id == TF_OPT_DONE) {
			if (size >= 8) {
				struct cur d = *c;

				return cur_num(&d, 8, next);
			}
			return 0;
		}
		o = (struct cur){ .tf = tf, .what = "option" };
		ret = cur_blob(c, size, (char **)&o.mem);
		if (ret)
			return ret;
		o.len = size;
		o.base = at + 6;
		ret = parse_option(tf, (unsigned int)id, &o, v7, at);
		free((void *)o.mem);
		if (ret)
			return ret;
	}
}

static char *opt_string(struct cur *o)
{
	return strndup((const char *)o->mem, o->len);
}

static int parse_option(struct ftk_tracefile *tf, unsigned int id, struct cur *o, int v7,
			unsigned long long at)
{
	unsigned long long off, size, sflags = 0;
	unsigned int page, ncpu, cpu, i;
	struct tf_buffer *b;
	char *name = NULL, *clk = NULL;
	struct cur sc;
	int ret = 0;

	switch (id) {
	case TF_OPT_UNAME:
		free(tf->uname);
		tf->uname = opt_string(o);
		break;
	case TF_OPT_VERSION:
		free(tf->tversion);
		tf->tversion = opt_string(o);
		break;
	case TF_OPT_TRACECLOCK:
		free(tf->top_clock);
		tf->top_clock = clock_name((const char *)o->mem, o->len);
		break;
	case TF_OPT_OFFSET:
		name = opt_string(o);
		if (name) {
			tf->ts_offset += strtoll(name, NULL, 0);
			tf->clock_offset += strtoll(name, NULL, 0);
			tf->has_offset = 1;
		}
		break;
	case TF_OPT_DATE:
		/* trace-cmd record --date: microseconds from the trace clock to the time of day */
		name = opt_string(o);
		if (name) {
			tf->date_us = strtoll(name, NULL, 0);
			tf->ts_offset += tf->date_us * 1000;
			tf->has_date = 1;
		}
		break;
	case TF_OPT_TIME_SHIFT:
		ret = tf_opt_time_shift(tf, o->mem, o->len, at);
		break;
	case TF_OPT_GUEST:
		ret = tf_opt_guest(tf, o->mem, o->len);
		break;
	case TF_OPT_PROCMAPS:
		ret = tf_opt_procmaps(tf, o->mem, o->len);
		break;
	case TF_OPT_TRACEID:
		if (o->len >= 8) {
			tf->trace_id = tf_num(tf, o->mem, 8);
			tf->has_trace_id = 1;
		}
		break;
	case TF_OPT_CPUSTAT:
		name = opt_string(o);
		if (name && *name && ftk_list_add(&tf->cpustats, name) < 0)
			ret = -ENOMEM;
		break;
	case TF_OPT_TSC2NSEC:
		/* x86-tsc stamps converted to nanoseconds, as trace-cmd record -C tsc2nsec asks */
		if (o->len >= 16) {
			tf->tsc_mult = (unsigned int)tf_num(tf, o->mem, 4);
			tf->tsc_shift = (unsigned int)tf_num(tf, o->mem + 4, 4);
			tf->tsc_offset = tf_num(tf, o->mem + 8, 8);
			tf->has_tsc = 1;
			if (tf->tsc_shift > 63)
				tf->tsc_mult = 0;
		}
		break;
	case TF_OPT_CPUCOUNT:
		if (o->len >= 4)
			tf->cpus = (int)tf_num(tf, o->mem, 4);
		break;
	case TF_OPT_BUFFER:
		o->what = "BUFFER option";
		if ((ret = cur_num(o, 8, &off)) || (ret = cur_str(o, &name)))
			break;
		if (!v7) {
			b = new_buffer(tf, name, at);
			ret = b ? read_v6_flyrecord(tf, b, off, 1) : -FTK_E_FORMAT;
			break;
		}
		if ((ret = cur_str(o, &clk)) || (ret = cur_u32(o, &page)) || (ret = cur_u32(o, &ncpu)))
			break;
		if (ncpu > MAX_CPUS || bad_page_size(page)) {
			ret = tf_fail(tf, -FTK_E_FORMAT,
				      "BUFFER option at offset %llu: %u cpus, page size %u",
				      at, ncpu, page);
			break;
		}
		b = new_buffer(tf, name, at);
		if (!b) {
			ret = -FTK_E_FORMAT;
			break;
		}
		b->sec_off = off;
		b->clock = clk;
		clk = NULL;
		b->page_size = page;
		/*
		 * The section's flags say whether its data is compressed: trace-cmd
		 * listen appends uncompressed data to a compressed sender's metadata.
		 */
		sc = (struct cur){ .tf = tf, .pos = off + 2, .what = "buffer section" };
		b->compressed = tf->comp != TF_COMP_NONE &&
				(cur_num(&sc, 2, &sflags) || (sflags & TRACEFILE_SEC_COMPRESSED));
		b->cpus = calloc(ncpu ? ncpu : 1, sizeof(*b->cpus));
		if (!b->cpus) {
			ret = -ENOMEM;
			break;
		}
		for (i = 0; i < ncpu; i++) {
			if ((ret = cur_u32(o, &cpu)) || (ret = cur_num(o, 8, &off)) ||
			    (ret = cur_num(o, 8, &size)))
				break;
			if (cpu >= MAX_CPUS || off + size < off) {
				ret = tf_fail(tf, -FTK_E_FORMAT,
					      "buffer \"%s\" cpu %u data at offset %llu: bad size %llu",
					      b->name, cpu, off, size);
				break;
			}
			b->cpus[b->nr_cpus++] = (struct tf_cpu){ .cpu = cpu, .offset = off,
								 .size = size };
		}
		break;
	default:
		break;
	}
	free(name);
	free(clk);
	return ret;
}

/* ---------------------------------------------------------------- data regions */

static int region_cmp(const void *a, const void *b)
{
	const struct tf_cpu *x = *(const struct tf_cpu * const *)a;
	const struct tf_cpu *y = *(const struct tf_cpu * const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * The CPU data regions of every buffer: an uncompressed one holds whole
 * sub-buffers, so at least one; and no two overlap, as no recorder writes
 * them so (a file whose CPUs all point at the same data would otherwise
 * be decoded, and held in memory, once per CPU).
 */
static int check_regions(struct ftk_tracefile *tf)
{
	const struct tf_cpu **r;
	unsigned long long end, prev_end = 0;
	size_t n = 0, i;
	int b, k, ret = 0;

	for (b = 0; b < tf->nr_bufs; b++)
		n += tf->bufs[b].nr_cpus;
	r = calloc(n ? n : 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	n = 0;
	for (b = 0; b < tf->nr_bufs; b++) {
		const struct tf_buffer *buf = &tf->bufs[b];

		for (k = 0; k < buf->nr_cpus; k++) {
			const struct tf_cpu *c = &buf->cpus[k];

			if (!c->size)
				continue;
			if (!buf->compressed && c->size < buf->page_size) {
				ret = tf_fail(tf, -FTK_E_FORMAT,
					      "buffer \"%s\" cpu %d: %llu bytes of data at offset %llu, less than one %u-byte sub-buffer",
					      buf->name, c->cpu, c->size, c->offset, buf->page_size);
				goto out;
			}
			r[n++] = c;
		}
	}
	qsort(r, n, sizeof(*r), region_cmp);
	for (i = 0; i < n; i++) {
		if (i && r[i]->offset < prev_end) {
			ret = tf_fail(tf, -FTK_E_FORMAT,
				      "cpu %d data at offset %llu overlaps other cpu data (ending at %llu)",
				      r[i]->cpu, r[i]->offset, prev_end);
			goto out;
		}
		end = r[i]->offset + r[i]->size;
		if (end > prev_end)
			prev_end = end;
	}
out:
	free(r);
	return ret;
}

/* ---------------------------------------------------------------- versions */

static int open_v6(struct ftk_tracefile *tf, struct cur *c)
{
	unsigned long long next;
	unsigned int cpus;
	char tag[10];
	struct tf_buffer *top;
	int ret;

	if ((ret = read_header_info(c)) || (ret = read_ftrace_events(c)) ||
	    (ret = read_event_formats(c)) ||
	    (ret = later_skip(c, &tf->kallsyms, 4, "kallsyms")) ||
	    (ret = tf->lazy ? later_skip(c, &tf->printk, 4, "printk formats") : read_printk(c)) ||
	    (ret = read_cmdlines(c)))
		return ret;
	c->what = "cpu count";
	if ((ret = cur_u32(c, &cpus)))
		return ret;
	if (cpus > MAX_CPUS)
		return tf_fail(tf, -FTK_E_FORMAT, "bad cpu count %u at offset %llu", cpus, c->pos - 4);
	tf->cpus = cpus;
	top = new_buffer(tf, "", c->pos);
	if (!top)
		return -ENOMEM;
	c->what = "section tag";
	if ((ret = cur_read(c, tag, 10)))
		return ret;
	if (!memcmp(tag, TRACEFILE_V6_OPTIONS, 10)) {
		if ((ret = read_options(tf, c, 0, &next)))
			return ret;
		c->what = "section tag";
		if ((ret = cur_read(c, tag, 10)))
			return ret;
	}
	if (!memcmp(tag, TRACEFILE_V6_LATENCY, 10)) {
		c->what = "latency text";
		return cur_blob(c, tf->fsize - c->pos, &tf->latency);
	}
	if (memcmp(tag, TRACEFILE_V6_FLYRECORD, 10))
		return tf_fail(tf, -FTK_E_FORMAT, "no flyrecord or latency data at offset %llu",
			       c->pos - 10);
	ret = read_v6_flyrecord(tf, top, c->pos, 0);
	if (!top->clock && tf->top_clock)
		top->clock = strdup(tf->top_clock);
	return ret;
}

/* The v7 metadata sections, in the order they are parsed. */
static const struct {
	int		id;
	const char	*what;
	int		(*fn)(struct cur *);
} v7_meta[] = {
	{ TF_OPT_HEADER_INFO, "header info", read_header_info },
	{ TF_OPT_FTRACE_EVENTS, "ftrace event formats", read_ftrace_events },
	{ TF_OPT_EVENT_FORMATS, "event formats", read_event_formats },
	{ TF_OPT_KALLSYMS, "kallsyms", read_kallsyms },
	{ TF_OPT_PRINTK, "printk formats", read_printk },
	{ TF_OPT_CMDLINES, "saved cmdlines", read_cmdlines },
};

/* What the options of a v7 file point at, and which options sections were read. */
struct v7_walk {
	unsigned long long	where[ARRAY_SIZE(v7_meta)];
	unsigned long long	text_off;
	unsigned long long	seen[1024];
	unsigned int		nseen;
};

static int v7_seen(const struct v7_walk *w, unsigned long long off)
{
	unsigned int i;

	for (i = 0; i < w->nseen; i++)
		if (w->seen[i] == off)
			return 1;
	return 0;
}

/* Whether the whole section at @off (header and content) is in the file. */
static int section_in_file(struct ftk_tracefile *tf, unsigned long long off)
{
	struct cur c = { .tf = tf, .pos = off, .what = "section header" };
	unsigned long long skip, size;
	int ret;

	ret = off < tf->fsize && !cur_num(&c, 8, &skip) && !cur_num(&c, 8, &size) &&
	      size <= tf->fsize - c.pos;
	ftk_errmsg_clear(&tf->err);
	return ret;
}

/* The options section at @off; *next gets the offset of the next one (0: none). */
static int read_options_section(struct ftk_tracefile *tf, unsigned long long off,
				struct v7_walk *w, unsigned long long *next)
{
	unsigned char *mem;
	struct cur s, o;
	size_t i;
	int ret;

	*next = 0;
	ret = section_load(tf, off, "options section", 0, &s, &mem);
	if (ret)
		return ret;
	if (w->nseen < ARRAY_SIZE(w->seen))
		w->seen[w->nseen++] = off;
	for (;;) {
		unsigned long long id, size, at = cur_where(&s);

		s.what = "options";
		if ((ret = cur_num(&s, 2, &id)) || (ret = cur_num(&s, 4, &size)))
			break;
		if (size > s.len - s.pos) {
			ret = tf_fail(tf, -FTK_E_FORMAT,
				      "option %llu at offset %llu claims %llu bytes beyond its section",
				      id, at, size);
			break;
		}
		if (id == TF_OPT_DONE) {
			if (size >= 8)
				ret = cur_num(&s, 8, next);
			break;
		}
		o = (struct cur){ .tf = tf, .mem = s.mem + s.pos, .len = size,
				  .base = at + 6, .what = "option" };
		s.pos += size;
		for (i = 0; i < ARRAY_SIZE(v7_meta); i++)
			if (id == (unsigned long long)v7_meta[i].id && size >= 8)
				w->where[i] = tf_num(tf, o.mem, 8);
		if (id == TF_OPT_BUFFER_TEXT && size >= 8)
			w->text_off = tf_num(tf, o.mem, 8);
		ret = parse_option(tf, (unsigned int)id, &o, 1, at);
		if (ret)
			break;
	}
	tf_big_free(mem);
	return ret;
}

static unsigned long long align_up(unsigned long long v, unsigned long long a)
{
	return (v + a - 1) / a * a;
}

static int add_region(struct tf_buffer *b, int *alloc, const struct tf_cpu *c)
{
	if (b->nr_cpus == *alloc) {
		int n = *alloc ? *alloc * 2 : 8;
		struct tf_cpu *p = realloc(b->cpus, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->cpus = p;
		*alloc = n;
	}
	b->cpus[b->nr_cpus++] = *c;
	return 0;
}

/*
 * A BUFFER section at @sec (content up to @end) that no BUFFER option
 * describes, because the option came after the cut: split it into CPU
 * regions from its content. Both writers start each CPU on a page
 * boundary. Compressed data is a chunk count and chunks per CPU, so the
 * regions are exact; uncompressed data is whole sub-buffers, and a new
 * CPU is taken to start where a sub-buffer's time stamp goes back. The
 * CPU numbers (CPUs without data leave no trace), the buffer's name and
 * its clock are guesses, and the warning says so.
 */
static int recover_buffer(struct ftk_tracefile *tf, unsigned long long sec,
			  unsigned long long flags, unsigned long long end)
{
	unsigned long long page = tf->page_size, limit = end < tf->fsize ? end : tf->fsize;
	unsigned long long pos = align_up(sec + TRACEFILE_SEC_HDR_LEN, page), q, ts, prev = 0;
	struct cur c = { .tf = tf, .what = "buffer section" };
	struct tf_cpu r = { .fd = -1 };
	struct tf_buffer *b;
	char name[64] = "";
	unsigned int count, clen, ulen, k;
	int i, alloc = 0, ret = 0, cut = 0;

	for (i = 0; i < tf->nr_bufs; i++)
		if (!tf->bufs[i].name[0])
			snprintf(name, sizeof(name), "recovered@%llu", sec);
	b = new_buffer(tf, name, sec);
	if (!b)
		return tf->nr_bufs >= MAX_BUFFERS ? -FTK_E_FORMAT : -ENOMEM;
	b->sec_off = sec;
	b->compressed = (flags & TRACEFILE_SEC_COMPRESSED) && tf->comp != TF_COMP_NONE;
	while (!ret && !cut && b->nr_cpus < MAX_CPUS && pos + (b->compressed ? 4 : page) <= limit) {
		r.cpu = b->nr_cpus;
		r.offset = pos;
		if (b->compressed) {
			c.pos = pos;
			if (cur_u32(&c, &count) || count > (limit - pos) / 8)
				break;		/* not a chunk count: the data ends */
			for (k = 0, q = pos + 4; k < count; k++, q += 8 + clen) {
				c.pos = q;
				if (q + 8 > limit || cur_u32(&c, &clen) || cur_u32(&c, &ulen) ||
				    q + 8 + clen > limit) {
					cut = 1;
					break;
				}
				if (ulen > page * MAX_CHUNK_PAGES || ulen > MAX_RATIO * clen + 65536)
					break;
			}
			if (k < count && !cut)
				break;		/* not chunks */
			r.size = q - pos - 4;
			r.cut = cut;
			ret = add_region(b, &alloc, &r);
			pos = align_up(q, page);
			continue;
		}
		/* uncompressed: whole sub-buffers up to the end; a new CPU where time goes back */
		r.size = 0;
		r.cut = 0;
		for (q = pos; q + page <= limit; q += page) {
			c.pos = q;
			if (cur_num(&c, 8, &ts))
				break;
			if (r.size && ts && ts < prev)
				break;
			if (ts)
				prev = ts;
			r.size += page;
		}
		prev = 0;
		ret = add_region(b, &alloc, &r);
		pos = q;
	}
	ftk_errmsg_clear(&tf->err);
	if (!b->cpus)
		b->cpus = calloc(1, sizeof(*b->cpus));
	if (ret || !b->cpus)
		return -ENOMEM;
	damage_add(tf, "the BUFFER option of the buffer section at offset %llu is lost: %d CPU regions were found in its data (CPU numbers, buffer name and clock are guesses)",
		   sec, b->nr_cpus);
	if (end > tf->fsize)
		damage_add(tf, "that section's last %llu bytes (from offset %llu) are lost%s",
			   end == ~0ULL ? 0 : end - tf->fsize, tf->fsize,
			   b->compressed ? "" : ", whole sub-buffers only are read");
	return 0;
}

/*
 * The sections of a v7 file after its header, one after the other, as
 * trace-cmd and ftrecord write them. With @salvage (the options were cut
 * off), metadata sections are found here instead of through options,
 * whole options sections not read yet are read, and a BUFFER section no
 * option describes is split into CPUs; otherwise the walk only looks for
 * a section cut short (the strings section, last in the file).
 */
static int walk_v7(struct ftk_tracefile *tf, unsigned long long pos, struct v7_walk *w, int salvage)
{
	struct cur c = { .tf = tf, .what = "section header" };
	unsigned long long id, flags, size, end, next;
	unsigned int sid;
	int steps, i, known, ret = 0;

	for (steps = 0; steps < 4096 && pos < tf->fsize; steps++) {
		c.pos = pos;
		if (cur_num(&c, 2, &id) || cur_num(&c, 2, &flags) || cur_u32(&c, &sid) ||
		    cur_num(&c, 8, &size)) {
			damage_add(tf, "the section header at offset %llu is cut", pos);
			break;
		}
		end = size > ~0ULL - c.pos ? ~0ULL : c.pos + size;
		if (id > TF_OPT_BUFFER_TEXT)
			break;		/* not a section: the walk ends */
		if (end > tf->fsize && !(salvage && id == TF_OPT_BUFFER))
			damage_add(tf, "the %s section at offset %llu is cut: %llu of its %llu bytes are in the file",
				   id == TF_OPT_STRINGS ? "strings" : id == TF_OPT_DONE ? "options" :
				   id == TF_OPT_BUFFER ? "buffer" : id == TF_OPT_BUFFER_TEXT ? "latency" :
				   id >= TF_OPT_HEADER_INFO ? v7_meta[id - TF_OPT_HEADER_INFO].what : "unknown",
				   pos, tf->fsize - c.pos, size);
		if (!salvage) {
			/* nothing to add */
		} else if (id >= TF_OPT_HEADER_INFO && id <= TF_OPT_CMDLINES) {
			if (!w->where[id - TF_OPT_HEADER_INFO])
				w->where[id - TF_OPT_HEADER_INFO] = pos;
		} else if (id == TF_OPT_DONE && end <= tf->fsize && !v7_seen(w, pos)) {
			ret = read_options_section(tf, pos, w, &next);
		} else if (id == TF_OPT_BUFFER) {
			for (i = 0, known = 0; i < tf->nr_bufs; i++)
				known |= tf->bufs[i].sec_off == pos;
			if (!known)
				ret = recover_buffer(tf, pos, flags, end);
		}
		if (ret)
			break;
		pos = end;
	}

	if (!ret)
		ftk_errmsg_clear(&tf->err);
	return ret;
}

static int open_v7(struct ftk_tracefile *tf, struct cur *c)
{
	struct v7_walk *w;
	unsigned long long next, hdr_end, first_opts;
	unsigned char *mem;
	struct cur s;
	char *name;
	int ret, n = 0, salvage = 0;
	size_t i;

	c->what = "compression header";
	if ((ret = cur_str(c, &tf->comp_name)) || (ret = cur_str(c, &name)))
		return ret;
	free(name);
	tf->comp = tf_comp_lookup(tf->comp_name);
	if (tf->comp < 0)
		return tf_fail(tf, -FTK_E_VERSION, "unknown compression \"%s\"", tf->comp_name);
	c->what = "options offset";
	if ((ret = cur_num(c, 8, &next)))
		return ret;
	hdr_end = c->pos;
	first_opts = next;
	tf->cpus = -1;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;

	/* Walk every options section; metadata sections are found through them. */
	while (next) {
		if (++n > 1024) {
			ret = tf_fail(tf, -FTK_E_FORMAT, "options sections loop at offset %llu", next);
			goto out;
		}
		if (!section_in_file(tf, next)) {
			/* cut off: what it held is looked for in the sections that are there */
			damage_add(tf, "the options section at offset %llu is lost, with the options after it",
				   next);
			salvage = 1;
			break;
		}
		ret = read_options_section(tf, next, w, &next);
		if (ret)
			goto out;
	}
	ret = walk_v7(tf, hdr_end, w, salvage);
	if (ret)
		goto out;
	for (i = 0; i < ARRAY_SIZE(v7_meta); i++) {
		struct tf_later *l = v7_meta[i].id == TF_OPT_KALLSYMS ? &tf->kallsyms :
				     v7_meta[i].id == TF_OPT_PRINTK && tf->lazy ? &tf->printk :
				     v7_meta[i].id == TF_OPT_EVENT_FORMATS && tf->lazy ? &tf->events :
				     NULL;

		if (!w->where[i])
			continue;
		if (l) {
			/* checked now, read on first use */
			ret = section_load(tf, w->where[i], v7_meta[i].what, v7_meta[i].id, NULL, NULL);
			if (ret)
				goto out;
			l->off = w->where[i];
			l->state = LATER_PENDING;
			continue;
		}
		ret = section_load(tf, w->where[i], v7_meta[i].what, v7_meta[i].id, &s, &mem);
		if (!ret) {
			s.block = mem;	/* a reader may take it */
			ret = v7_meta[i].fn(&s);
			mem = s.block;
		}
		tf_big_free(mem);
		if (ret)
			goto out;
	}
	if (!w->where[0]) {
		if (salvage)
			ret = tf_fail(tf, -FTK_E_TRUNC,
				      "file is truncated at offset %llu: no header info section is left (the options were at offset %llu)",
				      tf->fsize, first_opts);
		else
			ret = tf_fail(tf, -FTK_E_FORMAT, "no header info section (HEADER_INFO option)");
		goto out;
	}
	if (w->text_off) {
		ret = text_load(tf, w->text_off, &tf->latency);
		if (ret)
			goto out;
	}
	/* The top buffer comes first, as trace-cmd lists it. */
	for (i = 1; i < (size_t)tf->nr_bufs; i++) {
		if (!tf->bufs[i].name[0]) {
			struct tf_buffer t = tf->bufs[i];

			memmove(&tf->bufs[1], &tf->bufs[0], i * sizeof(t));
			tf->bufs[0] = t;
			break;
		}
	}
	if (tf->cpus < 0) {
		int b, k;

		tf->cpus = 0;
		for (b = 0; b < tf->nr_bufs; b++)
			for (k = 0; k < tf->bufs[b].nr_cpus; k++)
				if (tf->bufs[b].cpus[k].cpu >= tf->cpus)
					tf->cpus = tf->bufs[b].cpus[k].cpu + 1;
	}
out:
	free(w);
	return ret;
}

/*
 * CPU data the file ends inside of (the options said where it is and how
 * long): uncompressed data is read to its last whole sub-buffer in the
 * file, compressed data to its last whole chunk; the warning says how
 * much of which CPU is lost.
 */
static void note_cut_regions(struct ftk_tracefile *tf)
{
	unsigned long long need, have, keep, page;
	int b, k;

	for (b = 0; b < tf->nr_bufs; b++) {
		struct tf_buffer *buf = &tf->bufs[b];
		char who[300];

		page = buf->page_size;
		for (k = 0; k < buf->nr_cpus; k++) {
			struct tf_cpu *c = &buf->cpus[k];

			if (!c->size || c->cut)
				continue;
			need = c->offset + c->size + (buf->compressed ? 4 : 0);
			if (need <= tf->fsize)
				continue;
			have = c->offset < tf->fsize ? tf->fsize - c->offset : 0;
			snprintf(who, sizeof(who), "%s%s%scpu %d", buf->name[0] ? "buffer " : "",
				 buf->name, buf->name[0] ? " " : "", c->cpu);
			c->cut = 1;
			if (buf->compressed) {
				keep = have < need - c->offset ? have : need - c->offset;
				damage_add(tf, "%s lost %llu of its %llu bytes of compressed data at offset %llu",
					   who, need - c->offset - keep, need - c->offset, c->offset);
				continue;
			}
			keep = (have < c->size ? have : c->size) / page * page;
			damage_add(tf, "%s lost %llu of its %llu bytes at offset %llu (%llu of %llu sub-buffers)",
				   who, c->size - keep, c->size, c->offset,
				   (c->size - keep + page - 1) / page, (c->size + page - 1) / page);
			c->size = keep;
		}
	}
}

/*
 * A pipe or a socket given as the file: the reader seeks, so its content is
 * copied in full to an unnamed temporary file (O_TMPFILE, or a mkstemp(3)
 * name unlinked at once) that replaces tf->fd. A FIFO with no writer reads
 * as empty, and then as no trace.dat, instead of hanging.
 */
static int spool(struct ftk_tracefile *tf, struct stat *st)
{
	const char *dir = ftk_env(FTK_ENV_TMPDIR);
	char name[4096], buf[65536];
	int out, flags;
	ssize_t r, w, done;

	if (!dir || !*dir)
		dir = P_tmpdir;
	if ((size_t)snprintf(name, sizeof(name), "%s/ftkit-spool-XXXXXX", dir) >= sizeof(name))
		return tf_fail(tf, -ENAMETOOLONG, "TMPDIR is too long");

	flags = fcntl(tf->fd, F_GETFL);
	if (flags < 0 || fcntl(tf->fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return tf_fail(tf, -errno, "cannot read the pipe: %s", strerror(errno));
	out = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		out = mkostemp(name, O_CLOEXEC);
		if (out >= 0)
			unlink(name);
	}
	if (out < 0)
		return tf_fail(tf, -errno, "cannot make a spool file in %s: %s", dir,
			       strerror(errno));
	for (;;) {
		r = read(tf->fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = tf_fail(tf, -errno, "cannot read the pipe: %s", strerror(errno));
			close(out);
			return r;
		}
		if (!r)
			break;
		for (done = 0; done < r; done += w) {
			w = write(out, buf + done, r - done);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0) {
				w = tf_fail(tf, -errno, "cannot spool the pipe to %s: %s", dir,
					    strerror(errno));
				close(out);
				return w;
			}
		}
	}
	close(tf->fd);
	tf->fd = out;
	if (fstat(out, st) < 0)
		return tf_fail(tf, -errno, "spool: %s", strerror(errno));
	return 0;
}

/**
 * ftk_tracefile_open() - open and parse a trace.dat file
 * @path: the file
 * @flags: FTK_TRACEFILE_NO_PLUGINS to skip libtraceevent's print plugins
 * @tfp: receives the handle, also on failure when one could be allocated
 *
 * Reads the metadata of a version 6 or 7 file (compressed with zstd or
 * zlib or not): header page, ftrace and event formats, kallsyms, printk
 * formats, saved cmdlines and the options, into a libtraceevent handle.
 * Event data is not read here: see ftk_tracefile_merge(). A pipe or a
 * FIFO is read to its end first (into an unnamed temporary file); other
 * files that are not regular are refused.
 *
 * Return: 0, or a negative errno or FTK_E_* code with the reason, naming the
 * file and offset, in ftk_tracefile_errmsg(*tfp). Close *tfp with
 * ftk_tracefile_close() in both cases.
 */
FTK_API int ftk_tracefile_open(const char *path, unsigned int flags, struct ftk_tracefile **tfp)
{
	struct ftk_tracefile *tf;
	unsigned char head[12];
	struct stat st;
	struct cur c;
	char *ver = NULL;
	int ret;

	*tfp = NULL;
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return ftk_err(-ENOMEM);
	*tfp = tf;
	tf->fd = -1;
	tf->path = strdup(path);
	if (!tf->path)
		return ftk_err(-ENOMEM);
	/* O_NONBLOCK: opening a FIFO that has no writer must not hang */
	tf->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (tf->fd < 0 || fstat(tf->fd, &st) < 0)
		return ftk_err(tf_fail(tf, -errno, "cannot open: %s", strerror(errno)));
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		ret = spool(tf, &st);
		if (ret)
			return ftk_err(ret);
		if (!st.st_size)
			return ftk_err(tf_fail(tf, -FTK_E_TRUNC,
					       "the pipe gave no data (a FIFO with no writer?)"));
	} else if (!S_ISREG(st.st_mode)) {
		return ftk_err(tf_fail(tf, -EINVAL, "not a regular file (%s): a trace.dat file is read at random offsets",
				       S_ISDIR(st.st_mode) ? "a directory" :
				       S_ISCHR(st.st_mode) ? "a character device" :
				       S_ISBLK(st.st_mode) ? "a block device" : "not a file"));
	} else if (fcntl(tf->fd, F_SETFL, 0) < 0) {
		return ftk_err(tf_fail(tf, -errno, "cannot open: %s", strerror(errno)));
	}
	tf->fsize = st.st_size;
	c = (struct cur){ .tf = tf, .what = "file header" };
	if ((ret = cur_read(&c, head, TRACEFILE_MAGIC_LEN)))
		return ftk_err(ret);
	if (memcmp(head, TRACEFILE_MAGIC, TRACEFILE_MAGIC_LEN))
		return ftk_err(tf_fail(tf, -FTK_E_FORMAT, "not a trace.dat file (bad magic at offset 0)"));
	if ((ret = cur_str(&c, &ver)))
		return ftk_err(ret);
	tf->version = atoi(ver);
	free(ver);
	if (tf->version < 6 || tf->version > 7)
		return ftk_err(tf_fail(tf, -FTK_E_VERSION, "file version %d is not supported (6 and 7 are)",
				       tf->version));
	if ((ret = cur_read(&c, head, 2)))
		return ftk_err(ret);
	tf->big_endian = head[0];
	tf->long_size = head[1];
	if (tf->big_endian > 1 || (tf->long_size != 4 && tf->long_size != 8))
		return ftk_err(tf_fail(tf, -FTK_E_FORMAT, "bad endianness %d or long size %d at offset %llu",
				       head[0], head[1], c.pos - 2));
	if ((ret = cur_u32(&c, &tf->page_size)))
		return ftk_err(ret);
	if (bad_page_size(tf->page_size))
		return ftk_err(tf_fail(tf, -FTK_E_FORMAT, "bad page size %u at offset %llu",
				       tf->page_size, c.pos - 4));
	tf->tep = tep_alloc();
	if (!tf->tep || !(tf->side = ftk_tep_side_new(tf->tep)))
		return ftk_err(-ENOMEM);
	tep_set_file_bigendian(tf->tep, tf->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tf->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tf->tep, tf->long_size);
	tep_set_page_size(tf->tep, tf->page_size);
	if (!(flags & FTK_TRACEFILE_NO_PLUGINS))
		tf->plugins = tep_load_plugins(tf->tep);
	if (tep_set_function_resolver(tf->tep, ksym_resolve, tf))
		return ftk_err(-ENOMEM);
	tf->lazy = !!(flags & FTK_TRACEFILE_LAZY);

	if (tf->version == 6) {
		tf->comp_name = strdup("none");
		ret = open_v6(tf, &c);
	} else {
		ret = open_v7(tf, &c);
	}
	if (!ret) {
		note_cut_regions(tf);
		ret = check_regions(tf);
	}
	if (!ret && tf->lazy)
		ret = tf_lazy_start(tf);
	if (ret)
		return ftk_err(ret);
	if (tf->damage) {
		char *d;

		if (asprintf(&d, "%s: file is truncated at offset %llu: %s", tf->path, tf->fsize,
			     tf->damage) < 0)
			return ftk_err(-ENOMEM);
		free(tf->damage);
		tf->damage = d;
	}
	if (tf->cpus >= 0)
		tep_set_cpus(tf->tep, tf->cpus);
	return 0;
}

/**
 * ftk_tracefile_close() - release a trace file handle
 * @tf: the handle, or NULL
 *
 * Streams and merges made from @tf must be closed first.
 */
FTK_API void ftk_tracefile_close(struct ftk_tracefile *tf)
{
	int i;

	if (!tf)
		return;
	for (i = 0; i < tf->nr_bufs; i++) {
		int k;

		for (k = 0; tf->live && k < tf->bufs[i].nr_cpus; k++)
			if (tf->bufs[i].cpus[k].fd >= 0)
				close(tf->bufs[i].cpus[k].fd);
		free(tf->bufs[i].name);
		free(tf->bufs[i].clock);
		free(tf->bufs[i].cpus);
	}
	if (tf->plugins)
		tep_unload_plugins(tf->plugins, tf->tep);
	ftk_tep_side_free(tf->side);
	if (tf->tep)
		tep_free(tf->tep);
	if (tf->fd >= 0)
		close(tf->fd);
	for (i = 0; i < tf->nr_fmts; i++)
		if (tf->fmts[i].owned)
			free(tf->fmts[i].blob);
	free(tf->fmts);
	for (i = 0; i < tf->nr_fmt_blocks; i++)
		tf_big_free(tf->fmt_blocks[i]);
	free(tf->fmt_blocks);
	free(tf->rwin);
	for (i = 0; i < tf->nr_systems; i++)
		free(tf->systems[i]);
	free(tf->systems);
	free(tf->id_seen);
	if (tf->live_ops)
		tf->live_ops->release(tf);
	tf_info_free(tf);
	tf_ksyms_free(tf->ksyms);
	tf_ksyms_part_free(tf->ksyms_part);
	tf_decompress_end(tf->dctx);
	free(tf->zbuf);
	ftk_list_free(tf->cpustats);
	free(tf->uname);
	free(tf->tversion);
	free(tf->top_clock);
	free(tf->latency);
	free(tf->damage);
	free(tf->comp_name);
	free(tf->path);
	free(tf);
}

/**
 * ftk_tracefile_errmsg() - what went wrong, and where
 * @tf: the handle
 *
 * Return: "FILE: reason at offset N", owned by the handle; "" if nothing failed.
 */
FTK_API const char *ftk_tracefile_errmsg(const struct ftk_tracefile *tf)
{
	return tf->err.text;
}

/**
 * ftk_tracefile_damage() - what a truncated file lost
 * @tf: the handle
 *
 * A file cut short (a copy that stopped, a full disk) is opened as far
 * as it can be read: CPU data is read up to its last whole sub-buffer
 * (compressed: chunk) in the file, and a version 7 file whose options
 * were cut off is read from its sections (see trace-cmd.dat.v7(5)).
 *
 * Return: NULL if the file is whole; otherwise "FILE: file is truncated
 * at offset N: " and what was lost (which buffers and CPUs, how many
 * bytes and sub-buffers, which sections), owned by @tf.
 */
FTK_API const char *ftk_tracefile_damage(const struct ftk_tracefile *tf)
{
	return tf->damage;
}

/** ftk_tracefile_tep() - the libtraceevent handle of the file, owned by @tf. */
FTK_API struct tep_handle *ftk_tracefile_tep(const struct ftk_tracefile *tf)
{
	return tf->tep;
}

/** ftk_tracefile_path() - the path the file was opened with, owned by @tf. */
FTK_API const char *ftk_tracefile_path(const struct ftk_tracefile *tf)
{
	return tf->path;
}

/** ftk_tracefile_version() - the file format version, 6 or 7. */
FTK_API int ftk_tracefile_version(const struct ftk_tracefile *tf)
{
	return tf->version;
}

/** ftk_tracefile_compression() - "none", "zstd" or "zlib", owned by @tf. */
FTK_API const char *ftk_tracefile_compression(const struct ftk_tracefile *tf)
{
	return tf->comp_name ? tf->comp_name : "none";
}

/** ftk_tracefile_cpus() - number of CPUs of the traced machine, as the file says. */
FTK_API int ftk_tracefile_cpus(const struct ftk_tracefile *tf)
{
	return tf->cpus;
}

/** ftk_tracefile_long_size() - 4 or 8: the traced machine's long. */
FTK_API int ftk_tracefile_long_size(const struct ftk_tracefile *tf)
{
	return tf->long_size;
}

/** ftk_tracefile_big_endian() - 1 if the file is big endian. */
FTK_API int ftk_tracefile_big_endian(const struct ftk_tracefile *tf)
{
	return tf->big_endian;
}

/** ftk_tracefile_page_size() - the page size in the file header. */
FTK_API unsigned int ftk_tracefile_page_size(const struct ftk_tracefile *tf)
{
	return tf->page_size;
}

/** ftk_tracefile_uname() - the UNAME option, or NULL; owned by @tf. */
FTK_API const char *ftk_tracefile_uname(const struct ftk_tracefile *tf)
{
	return tf->uname;
}

/** ftk_tracefile_tracer_version() - the VERSION option (of the recorder), or NULL. */
FTK_API const char *ftk_tracefile_tracer_version(const struct ftk_tracefile *tf)
{
	return tf->tversion;
}

/**
 * ftk_tracefile_shift() - move the file's time stamps
 * @tf: the handle
 * @ns: added to every time stamp of the streams made from now on
 *
 * For files recorded on other machines (or guests) merged with this
 * one's: their clocks differ by an offset the user knows (ftreport
 * --offset FILE=NS). Added to the file's own OFFSET and DATE options.
 */
FTK_API void ftk_tracefile_shift(struct ftk_tracefile *tf, long long ns)
{
	tf->shift = ns;
}

/** ftk_tracefile_ts_offset() - the OFFSET option added to every time stamp, or 0. */
FTK_API long long ftk_tracefile_ts_offset(const struct ftk_tracefile *tf)
{
	return tf->ts_offset;
}

/**
 * ftk_tracefile_cpustats() - the kernel's per-CPU buffer statistics saved in the file
 * @tf: the handle
 *
 * Return: the text of each CPUSTAT option (per_cpu/cpuN/stats when the
 * recording ended; trace-cmd writes a "Buffer: NAME" entry before each
 * instance's), NULL-terminated and owned by @tf; NULL if there are none.
 */
FTK_API char **ftk_tracefile_cpustats(const struct ftk_tracefile *tf)
{
	return tf->cpustats;
}

/** ftk_tracefile_latency_text() - the text of a latency file, or NULL; owned by @tf. */
FTK_API const char *ftk_tracefile_latency_text(const struct ftk_tracefile *tf)
{
	return tf->latency;
}

/** ftk_tracefile_buffers() - number of buffers (top one and instances). */
FTK_API int ftk_tracefile_buffers(const struct ftk_tracefile *tf)
{
	return tf->nr_bufs;
}

static const struct tf_buffer *buf_at(const struct ftk_tracefile *tf, int buf)
{
	return buf >= 0 && buf < tf->nr_bufs ? &tf->bufs[buf] : NULL;
}

/** ftk_tracefile_buffer_name() - name of buffer @buf ("" for the top one), or NULL. */
FTK_API const char *ftk_tracefile_buffer_name(const struct ftk_tracefile *tf, int buf)
{
	const struct tf_buffer *b = buf_at(tf, buf);

	return b ? b->name : NULL;
}

/** ftk_tracefile_buffer_clock() - trace clock of buffer @buf ("local" if unknown). */
FTK_API const char *ftk_tracefile_buffer_clock(const struct ftk_tracefile *tf, int buf)
{
	const struct tf_buffer *b = buf_at(tf, buf);

	if (b && b->clock)
		return b->clock;
	return tf->top_clock ? tf->top_clock : "local";
}

/**
 * ftk_tracefile_buffer_in_ns() - whether a buffer's stamps are nanoseconds
 * @tf: the handle
 * @buf: buffer index
 *
 * The clocks counter and x86-tsc count cycles or events, not time;
 * trace-cmd prints their stamps as plain numbers, and so do we.
 *
 * Return: 1 for nanosecond clocks, 0 for counting ones.
 */
FTK_API int ftk_tracefile_buffer_in_ns(const struct ftk_tracefile *tf, int buf)
{
	const char *c = ftk_tracefile_buffer_clock(tf, buf);

	if (tf->tsc_mult)
		return 1;	/* converted to nanoseconds */
	return !!strcmp(c, "counter") && !!strcmp(c, "x86-tsc");
}

/** ftk_tracefile_buffer_cpus() - number of CPUs with data in buffer @buf. */
FTK_API int ftk_tracefile_buffer_cpus(const struct ftk_tracefile *tf, int buf)
{
	const struct tf_buffer *b = buf_at(tf, buf);

	return b ? b->nr_cpus : 0;
}

/** ftk_tracefile_buffer_cpu() - CPU number of the @i-th CPU of buffer @buf, or -1. */
FTK_API int ftk_tracefile_buffer_cpu(const struct ftk_tracefile *tf, int buf, int i)
{
	const struct tf_buffer *b = buf_at(tf, buf);

	return b && i >= 0 && i < b->nr_cpus ? b->cpus[i].cpu : -1;
}

/* ---------------------------------------------------------------- compressed data */

struct zsrc {
	struct ftk_tracefile	*tf;
	unsigned long long	pos;		/* next chunk header in the file */
	unsigned long long	end;
	unsigned int		chunks;		/* left to read */
	unsigned char		*ubuf;
	size_t			ucap, ulen, upos;
	unsigned long long	uoff;		/* file offset of the current chunk */
	unsigned int		max_ulen;	/* MAX_CHUNK_PAGES sub-buffers */
	int			started;
	int			cut;		/* the file ends inside: stop at the last whole chunk */
};

/* The end of a cut region's data is its end, not an error. */
static int zsrc_cut(struct zsrc *z, int err)
{
	if (!z->cut)
		return err;
	ftk_errmsg_clear(&z->tf->err);
	z->chunks = 0;
	return 0;
}

static ssize_t zsrc_read(void *ctx, void *buf, size_t size, unsigned long long *off)
{
	struct zsrc *z = ctx;
	struct ftk_tracefile *tf = z->tf;
	struct cur c = { .tf = tf, .what = "compressed cpu data" };
	unsigned int clen, ulen;
	unsigned char *cbuf;
	size_t n;
	int ret;

	if (!z->started) {
		z->started = 1;
		c.pos = z->pos;
		*off = z->pos;
		if ((ret = cur_u32(&c, &z->chunks)))
			return zsrc_cut(z, ret);
		z->pos = c.pos;
	}
	while (z->upos >= z->ulen) {
		if (!z->chunks)
			return 0;
		*off = z->pos;
		c.pos = z->pos;
		if ((ret = cur_u32(&c, &clen)) || (ret = cur_u32(&c, &ulen)))
			return zsrc_cut(z, ret);
		if (z->cut && (c.pos + clen > tf->fsize || c.pos + clen > z->end))
			return zsrc_cut(z, -FTK_E_TRUNC);
		if (ulen > z->max_ulen || ulen > MAX_RATIO * clen + 65536 || c.pos + clen > z->end)
			return -FTK_E_FORMAT;
		if (ulen > z->ucap) {
			unsigned char *p;

			/* the chunks all streams hold at once stay within a budget */
			if (tf->zmem - z->ucap + ulen > ZMEM_BUDGET)
				return -ENOMEM;
			p = realloc(z->ubuf, ulen);
			if (!p)
				return -ENOMEM;
			tf->zmem += ulen - z->ucap;
			z->ubuf = p;
			z->ucap = ulen;
		}
		/* one buffer and one zstd context for all the streams of the file */
		if (clen > tf->zbuf_cap) {
			cbuf = realloc(tf->zbuf, clen);
			if (!cbuf)
				return -ENOMEM;
			tf->zbuf = cbuf;
			tf->zbuf_cap = clen;
		}
		cbuf = tf->zbuf;
		ret = cur_read(&c, cbuf, clen);
		if (!ret)
			ret = tf_decompress_with(&tf->dctx, tf->comp, z->ubuf, ulen, cbuf, clen);
		if (ret)
			return ret;
		z->uoff = z->pos;
		z->pos = c.pos;
		z->chunks--;
		z->ulen = ulen;
		z->upos = 0;
	}
	n = z->ulen - z->upos < size ? z->ulen - z->upos : size;
	memcpy(buf, z->ubuf + z->upos, n);
	*off = z->uoff;
	z->upos += n;
	return n;
}

static void zsrc_close(void *ctx)
{
	struct zsrc *z = ctx;

	z->tf->zmem -= z->ucap;
	free(z->ubuf);
	free(z);
}

/**
 * ftk_tracefile_stream() - a stream over one CPU of one buffer
 * @tf: the handle
 * @buf: buffer index
 * @i: index among the buffer's CPUs (see ftk_tracefile_buffer_cpu())
 *
 * Return: the stream, to close with ftk_stream_close() before @tf is
 * closed; NULL with errno set on failure.
 */
FTK_API struct ftk_stream *ftk_tracefile_stream(struct ftk_tracefile *tf, int buf, int i)
{
	static const struct ftk_stream_ops zops = { .read = zsrc_read, .close = zsrc_close };
	const struct tf_buffer *b = buf_at(tf, buf);
	struct ftk_stream_fmt fmt = { .sz = sizeof(fmt) };
	const struct tf_tsync *tsync;
	struct ftk_stream *s;
	const struct tf_cpu *c;
	struct zsrc *z;

	if (!b || i < 0 || i >= b->nr_cpus)
		return ftk_err_ptr(-EINVAL);
	c = &b->cpus[i];
	fmt.subbuf_size = b->page_size;
	fmt.long_size = tep_get_header_page_size(tf->tep) == 4 ? 4 : 8;
	if (!tep_get_header_page_size(tf->tep))
		fmt.long_size = tf->long_size;
	fmt.big_endian = tf->big_endian;
	fmt.cpu = c->cpu;
	fmt.ts_offset = tf->ts_offset + tf->shift;
	fmt.ts_mult = tf->tsc_mult;
	fmt.ts_shift = tf->tsc_shift;
	fmt.name = tf->path;
	if (tf->live) {
		s = ftk_stream_open_fd(c->fd, &fmt);
		if (s && tf->lazy) {
			ftk_stream_set_hook(s, record_hook, tf);
			/* a live buffer is in this machine's byte order */
			if (tf->id_seen && tf->type_size == 2)
				ftk_stream_set_hook_seen(s, tf->id_seen, tf->type_off);
		}
		return s;
	}
	/* TIME_SHIFT corrects the top buffer only, as trace-cmd's instance handles have no host */
	tsync = b->name[0] ? NULL : tf_tsync_for(tf, c->cpu);
	if (!b->compressed) {
		s = ftk_stream_open_file(tf->fd, c->offset, c->size, &fmt);
		if (s && tf->lazy)
			ftk_stream_set_hook(s, record_hook, tf);
		if (s && tsync)
			ftk_stream_set_ts_map(s, tf_tsync_map, tsync);
		return s;
	}
	z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->tf = tf;
	z->pos = c->offset;
	z->max_ulen = b->page_size * MAX_CHUNK_PAGES;
	/* The size trace-cmd stores leaves out the 4-byte chunk count. */
	z->end = c->offset + c->size + 4;
	z->cut = c->cut;
	if (!c->size)
		z->started = 1;	/* no chunk count: an empty CPU */
	s = ftk_stream_open_ops(&zops, z, &fmt);
	if (!s) {
		free(z);
		return NULL;
	}
	if (tf->lazy)
		ftk_stream_set_hook(s, record_hook, tf);
	if (tsync)
		ftk_stream_set_ts_map(s, tf_tsync_map, tsync);
	return s;
}

/**
 * ftk_tracefile_merge_add() - add the records of chosen buffers and CPUs to a merge
 * @tf: the handle
 * @m: the merge (ftk_merge_new(), or one of another file's: files merge by time)
 * @buf_mask: bit N picks buffer N; 0 picks all
 * @cpus: CPU numbers ended by -1, or NULL for all
 * @tag_base: added to the buffer index to make each record's tag
 *
 * Streams are added by buffer, then by CPU, so that records with equal
 * stamps come in the order trace-cmd report prints them; streams of a
 * file added later come after on equal stamps. Several files go into one
 * merge with tag bases far enough apart (64 buffers a file at most), after
 * ftk_tracefile_shift() put their stamps on one time line.
 *
 * Return: 0, or a negative errno; the merge keeps the streams added.
 */
FTK_API int ftk_tracefile_merge_add(struct ftk_tracefile *tf, struct ftk_merge *m,
				    unsigned long long buf_mask, const int *cpus, int tag_base)
{
	unsigned long long bytes = 0;
	struct ftk_stream *s;
	int b, i, k, want, pass, ret;

	/* pass 0 sizes the streams' read-ahead to READAHEAD_BUDGET in all; pass 1 opens them */
	for (pass = 0; pass < 2; pass++) {
		for (b = 0; b < tf->nr_bufs; b++) {
			if (buf_mask && (b >= 64 || !(buf_mask & (1ULL << b))))
				continue;
			for (i = 0; i < tf->bufs[b].nr_cpus; i++) {
				if (!tf->live && !tf->bufs[b].cpus[i].size)
					continue;
				if (cpus) {
					want = 0;
					for (k = 0; cpus[k] >= 0; k++)
						if (cpus[k] == tf->bufs[b].cpus[i].cpu)
							want = 1;
					if (!want)
						continue;
				}
				if (!pass) {
					bytes += tf->bufs[b].page_size;
					continue;
				}
				s = ftk_tracefile_stream(tf, b, i);
				if (!s)
					return ftk_err(errno ? -errno : -ENOMEM);
				ftk_stream_set_readahead(s, bytes ? READAHEAD_BUDGET / bytes : 1);
				/* the merge owns @s, also on failure */
				ret = ftk_merge_add(m, s, tag_base + b);
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

/**
 * ftk_tracefile_merge() - the records of chosen buffers and CPUs, merged
 * @tf: the handle
 * @buf_mask: bit N picks buffer N; 0 picks all
 * @cpus: CPU numbers ended by -1, or NULL for all
 *
 * See ftk_tracefile_merge_add(). Each record's tag is its buffer index.
 *
 * Return: the merge, to free with ftk_merge_free() before @tf is closed;
 * NULL with errno set on failure.
 */
FTK_API struct ftk_merge *ftk_tracefile_merge(struct ftk_tracefile *tf,
					      unsigned long long buf_mask, const int *cpus)
{
	struct ftk_merge *m = ftk_merge_new();
	int ret;

	if (!m)
		return NULL;
	ret = ftk_tracefile_merge_add(tf, m, buf_mask, cpus, 0);
	if (ret < 0) {
		ftk_merge_free(m);
		errno = -ret;
		return NULL;
	}
	return m;
}
