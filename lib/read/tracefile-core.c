// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-core: what the parts of the trace file reader share, at the
 * bottom of them (tracefile-read.c, -info, -ksyms and -live call it; it
 * calls none of them): the error text, numbers in the file's byte order,
 * buffers, clock names, printk lines libtraceevent can take, and the
 * large blocks and file mappings that sections are read into.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "tracefile-local.h"
#include "tracefile-read-local.h"

/* Keep the first, innermost reason, prefixed with the file's path. */
int tf_fail(struct ftk_tracefile *tf, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&tf->err, FTK_ERRMSG_KEEP, tf->path, err, fmt, ap);
	va_end(ap);
	return err;
}

unsigned long long tf_num(const struct ftk_tracefile *tf, const unsigned char *p, int n)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (tf->big_endian)
			v = (v << 8) | p[i];
		else
			v |= (unsigned long long)p[i] << (8 * i);
	}
	return v;
}

struct tf_buffer *new_buffer(struct ftk_tracefile *tf, const char *name, unsigned long long at)
{
	struct tf_buffer *b;

	if (tf->nr_bufs >= MAX_BUFFERS) {
		tf_fail(tf, -FTK_E_FORMAT, "more than %d buffers at offset %llu", MAX_BUFFERS, at);
		return NULL;
	}
	b = &tf->bufs[tf->nr_bufs++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->page_size = tf->page_size;
	return b->name ? b : NULL;
}

/* "[local] global counter" or "local" -> "local". */
char *clock_name(const char *s, size_t n)
{
	const char *b = memchr(s, '[', n), *e;
	size_t len;

	if (b) {
		e = memchr(b, ']', n - (b - s));
		if (e)
			return strndup(b + 1, e - b - 1);
	}
	len = strnlen(s, n);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	return strndup(s, len);
}

/*
 * Keep only the lines libtraceevent can take: tep_parse_printk_formats()
 * reads past the end of a line that has no ':', and before the start of a
 * very short format (both found by fuzzing).
 */
void keep_colon_lines(char *b)
{
	char *in = b, *out = b, *nl, *colon, *addr;
	size_t n;

	while (*in) {
		nl = strchr(in, '\n');
		n = nl ? (size_t)(nl - in) + 1 : strlen(in);
		/* its strtok(3) skips colons before the address */
		for (addr = in; addr < in + n && *addr == ':'; addr++)
			;
		colon = memchr(addr, ':', (in + n) - addr);
		/*
		 * tep_register_print_string() also reads before the start of a
		 * format shorter than three characters: keep "ADDR : \"xyz..."
		 */
		if (colon && (in + n) - (colon + 1) - (in[n - 1] == '\n') >= 5) {
			memmove(out, in, n);
			out += n;
		}
		in += n;
	}
	*out = 0;
}

void tf_zsrc_release(struct tf_zsrc *z)
{
	free(z->buf);
	if (z->map)
		munmap(z->map, z->maplen);
	*z = (struct tf_zsrc){ 0 };
}

/* ---------------------------------------------------------------- large blocks */

#define HUGE_SIZE	(2UL << 20)
/*
 * Smaller blocks come from malloc(). A v7 file's event formats (900 KB
 * when every system is stored) on 4 KiB pages were 213 page faults of a
 * small report's 565.
 */
#define BIG_MIN		(512UL << 10)
#define BLOCK_HEAD	16

/*
 * Every block starts BLOCK_HEAD bytes into what was allocated: there
 * lies the mapping's length (0: malloc'd), for tf_big_free().
 */
void *tf_map_aligned(size_t len, size_t *maplen)
{
	size_t want = (len + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1), lead, tail;
	char *m = mmap(NULL, want + HUGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (m == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)m + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1));
	lead = a - m;
	tail = HUGE_SIZE - lead;
	if (lead)
		munmap(m, lead);
	if (tail)
		munmap(a + want, tail);
#ifdef MADV_HUGEPAGE
	madvise(a, want, MADV_HUGEPAGE);	/* a hint: without it, 4 KiB pages */
#endif
	*maplen = want;
	return a;
}

/**
 * tf_big_alloc() - a block of @n bytes for a large section
 * @n: bytes wanted
 *
 * Return: the block (free with tf_big_free()), or NULL with errno set.
 */
void *tf_big_alloc(size_t n)
{
	size_t maplen = 0;
	char *m;

	if (n > SIZE_MAX - HUGE_SIZE - BLOCK_HEAD)
		return errno = ENOMEM, NULL;
	if (n + BLOCK_HEAD < BIG_MIN)
		m = malloc(n + BLOCK_HEAD);
	else
		m = tf_map_aligned(n + BLOCK_HEAD, &maplen);
	if (!m)
		return errno = ENOMEM, NULL;
	memcpy(m, &maplen, sizeof(maplen));
	return m + BLOCK_HEAD;
}

/* Release a block of tf_big_alloc(); NULL is fine. */
void tf_big_free(void *p)
{
	char *m = p ? (char *)p - BLOCK_HEAD : NULL;
	size_t maplen;

	if (!m)
		return;
	memcpy(&maplen, m, sizeof(maplen));
	if (maplen)
		munmap(m, maplen);
	else
		free(m);
}

/**
 * tf_map_file() - a private, writable mapping of a file's bytes
 * @fd: the file
 * @off: where the bytes start
 * @len: how many
 * @map: receives the mapping, for tf_ksyms_index()
 * @maplen: receives its length
 *
 * The bytes stay in the page cache: a page is copied only if written. One
 * byte past @len is mapped too (a name at the very end gets its NUL
 * there), so the file must hold it.
 *
 * Return: the bytes, or NULL with errno set.
 */
char *tf_map_file(int fd, unsigned long long off, size_t len, void **map, size_t *maplen)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long start = off & ~(unsigned long long)(pg - 1);
	size_t n = (size_t)(off - start) + len + 1;
	char *m;

	m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)start);
	if (m == MAP_FAILED)
		return NULL;
	*map = m;
	*maplen = n;
	return m + (off - start);
}

/**
 * tf_map_ro() - a read-only mapping of a file's bytes, for a large compressed block
 * @fd: the file
 * @off: where the bytes start
 * @len: how many (the file must hold them)
 * @map: receives the mapping, to munmap() with @maplen
 * @maplen: receives its length
 *
 * Return: the bytes, or NULL with errno set.
 */
const unsigned char *tf_map_ro(int fd, unsigned long long off, size_t len, void **map,
			       size_t *maplen)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long long start = off & ~(unsigned long long)(pg - 1);
	size_t n = (size_t)(off - start) + len;
	unsigned char *m;

	m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, (off_t)start);
	if (m == MAP_FAILED)
		return NULL;
	*map = m;
	*maplen = n;
	return m + (off - start);
}
