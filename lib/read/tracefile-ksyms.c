// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-ksyms: the kallsyms of a trace file, indexed where the text
 * lies.
 *
 * libtraceevent's tep_parse_kallsyms() runs sscanf(3) over each of the
 * 100k or so lines and mallocs each name: a report printing one %ps
 * spent most of its start-up there. Here the text is read once, in
 * place: each line gives an address and the offset of the line, and a
 * name is cut out of its line (a NUL written after it) only when it is
 * first looked up. The order and the look-up are libtraceevent's own
 * (tep_register_function() for each line, then func_map_init()'s sort,
 * then __find_func()'s bsearch()), so that every name and offset printed
 * stays the same; libtraceevent calls it through
 * tep_set_function_resolver().
 *
 * The one pass over the text costs some 50 instructions a line: the usual
 * line ("ffffffff81000000 T name", 16 lower case hex digits) is read by a
 * loop without calls, the digits and the '\n' found with SSE2 (AVX2 where
 * the CPU has it); any other line as libtraceevent reads it. The kernel's
 * own symbols come sorted: their runs of equal addresses are turned on the
 * way, and only the modules' lines after them are sorted (a radix sort)
 * and merged in.
 *
 * The 4 MB of text, and the index, are large enough that faulting their
 * pages in one 4 KiB page at a time cost as much as reading them: they
 * go in blocks of their own (tf_big_alloc(), tracefile-core.c), backed by
 * huge pages where the kernel gives them, or stay in the page cache
 * (tf_map_file()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <unistd.h>

#include "internal.h"
#include "tracefile-local.h"
#include "tracefile-read-local.h"

/* ---------------------------------------------------------------- the index */

/*
 * One kept line: its address and where it is. @pos is the offset of the
 * line in the text until its name is first looked up, then the offset of
 * the name (cut by a NUL), with @state saying which.
 */
struct tf_ksym {
	unsigned long long	addr;
	unsigned int		pos;
	unsigned int		state;
};

enum { KS_LINE, KS_NAME, KS_NAME_MOD };

/* A name tf_ksyms_addr() was asked for, and its answer. */
struct tf_ksym_name {
	char			*name;
	unsigned long long	addr;
	int			found;
};

/* The most names tf_ksyms_addr() keeps the answers of (a print fmt names one or two). */
#define KSYM_NAMES	64

struct tf_ksyms {
	char			*text;
	size_t			len;
	int			how;		/* TF_TEXT_* */
	void			*map;		/* TF_TEXT_BIG: the block; _MAP: the mapping */
	size_t			maplen;
	struct tf_ksym		*syms;		/* n + 1: a 0 entry at the end */
	size_t			n;
	size_t			syms_len;	/* bytes mapped for syms */
	struct tf_ksym_name	*names;		/* tf_ksyms_addr()'s answers so far */
	size_t			nnames;
};

static void text_release(char *text, int how, void *map, size_t maplen)
{
	switch (how) {
	case TF_TEXT_MALLOC:
		free(text);
		break;
	case TF_TEXT_BIG:
		tf_big_free(map);
		break;
	case TF_TEXT_MAP:
		if (map)
			munmap(map, maplen);
		break;
	}
}

/* isspace() of the C locale */
static inline int ks_space(unsigned char ch)
{
	return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

/* The value of a hex digit, or -1. */
static inline int hexv(unsigned char ch)
{
	unsigned int d = ch - '0', l = (ch | 0x20) - 'a';

	return d < 10 ? (int)d : l < 6 ? (int)l + 10 : -1;
}

/*
 * One line, NUL-terminated at its end, as tep_parse_kallsyms() reads it:
 * 1 keep, 0 skip, -1 stop; *@fstart, *@fend the name, *@mend the end of
 * the module ("...\t[mod]": it starts at *@fend + 2, and its last
 * character is the ']'), 0 when there is none. The usual "ffffffff81000000
 * T name" and "... t name\t[module]" are read here; anything else exactly
 * as libtraceevent 1.7.1 reads it, with sscanf(3).
 */
static int ks_line(const char *p, unsigned long long *addr, int *fstart, int *fend, int *mend)
{
	int func_start, func_end = 0, mod_start = 0, mod_end = 0, n, i, h;
	unsigned long long a = 0;
	char ch;

	for (i = 0; i < 16 && (h = hexv(p[i])) >= 0; i++)
		a = a << 4 | h;
	if (i && p[i] == ' ' && p[i + 1] && !ks_space(p[i + 1]) && p[i + 2] == ' ' &&
	    p[i + 3] && !ks_space(p[i + 3])) {
		ch = p[i + 1];
		func_start = i + 3;
		for (func_end = func_start; p[func_end] && !ks_space(p[func_end]); func_end++)
			;
		if (p[func_end] == '\t' && p[func_end + 1] == '[' && p[func_end + 2] &&
		    !ks_space(p[func_end + 2])) {
			mod_start = func_end + 2;
			for (mod_end = mod_start; p[mod_end] && !ks_space(p[mod_end]); mod_end++)
				;
		} else if (p[func_end] && p[func_end] != ' ' && p[func_end] != '\t') {
			goto slow;
		}
		*addr = a;
		goto found;
	}
slow:
	func_end = mod_start = mod_end = 0;
	n = sscanf(p, "%16llx %c %n%*s%n%*1[\t][%n%*s%n",
		   addr, &ch, &func_start, &func_end, &mod_start, &mod_end);
	if (n != 2 || !func_end)
		return -1;
found:
	if (p[func_start] == '$' || ch == 'A' || ch == 'a')
		return 0;
	*fstart = func_start;
	*fend = func_end;
	*mend = mod_end;
	return 1;
}

/*
 * ks_line() of the line [@p, @p + @n) (without its '\n'), which is not
 * NUL-terminated: on a copy.
 */
static int ks_line_copy(const char *p, size_t n, unsigned long long *addr, int *fstart,
			int *fend, int *mend)
{
	char buf[512], *b = n < sizeof(buf) ? buf : malloc(n + 1);
	int r;

	if (!b)
		return -1;
	memcpy(b, p, n);
	b[n] = 0;
	r = ks_line(b, addr, fstart, fend, mend);
	if (b != buf)
		free(b);
	return r;
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/*
 * Eight hex digits at @p, eight bytes at a time: -1 if one is not a hex
 * digit, else 0 with their value in *@v. Bytes are read little-endian:
 * the first digit is the lowest byte.
 */
static inline __attribute__((unused)) int hex8(const unsigned char *p, uint32_t *v)
{
	uint64_t x, lo, digit, letter, n;

	memcpy(&x, p, 8);
	if (x & HIGHS)
		return -1;
	/* bit 7 of each byte: 0x30 <= b <= 0x39, or 0x61 <= (b | 0x20) <= 0x66 */
	lo = x | 0x20 * ONES;
	digit = ((x | HIGHS) - 0x30 * ONES) & (0xb9 * ONES - x) & HIGHS;
	letter = ((lo | HIGHS) - 0x61 * ONES) & (0xe6 * ONES - lo) & HIGHS;
	if ((digit | letter) != HIGHS)
		return -1;
	/* each byte's value: its low nibble, + 9 for a letter (bit 6) */
	n = (x & 0x0f * ONES) + ((x >> 6) & ONES) * 9;
	/* pack the nibbles, first digit most significant */
	n = ((n << 4) | (n >> 8)) & 0x00ff00ff00ff00ffULL;
	n = ((n << 8) | (n >> 16)) & 0x0000ffff0000ffffULL;
	*v = (uint32_t)((n << 16) | (n >> 32));
	return 0;
}

#ifdef __SSE2__
/* The constants of hex16_digits(), kept in registers through a loop */
struct ks_hexc {
	__m128i	c0, ca, c9, c5, c39;
};

static inline __attribute__((always_inline)) void ks_hexc_init(struct ks_hexc *k)
{
	k->c0 = _mm_set1_epi8('0');
	k->ca = _mm_set1_epi8('a');
	k->c9 = _mm_set1_epi8(9);
	k->c5 = _mm_set1_epi8(5);
	k->c39 = _mm_set1_epi8(39);
}

/*
 * Sixteen lower case hex digits at @p (the kernel's %px): -1 if one is
 * not, else 0 with their values in *@val, a byte each. Upper case goes
 * the slow way, to the same end.
 */
static inline __attribute__((always_inline)) int hex16_digits(const unsigned char *p,
							      const struct ks_hexc *k, __m128i *val)
{
	__m128i x = _mm_loadu_si128((const __m128i *)p), d, l, isd, isl;

	d = _mm_sub_epi8(x, k->c0);
	l = _mm_sub_epi8(x, k->ca);
	isd = _mm_cmpeq_epi8(_mm_min_epu8(d, k->c9), d);	/* d <= 9, unsigned */
	isl = _mm_cmpeq_epi8(_mm_min_epu8(l, k->c5), l);	/* l <= 5 */
	if (_mm_movemask_epi8(_mm_or_si128(isd, isl)) != 0xffff)
		return -1;
	*val = _mm_sub_epi8(d, _mm_andnot_si128(isd, k->c39));	/* 'a' - '0' - 39 == 10 */
	return 0;
}

/* The value of the digits of hex16_digits(), the first the most significant */
static inline __attribute__((always_inline)) unsigned long long hex16_pack(__m128i val)
{
	/* 16-bit lanes of (first digit, second digit): first * 16 + second, high byte 0 */
	__m128i t = _mm_or_si128(_mm_srli_epi16(_mm_slli_epi16(val, 12), 8),
				 _mm_srli_epi16(val, 8));

	t = _mm_packus_epi16(t, t);
	return __builtin_bswap64((unsigned long long)_mm_cvtsi128_si64(t));
}
#endif

/* Sixteen hex digits at @p: -1 if one is not a hex digit, else 0 with their value in *@v. */
static inline int hex16(const unsigned char *p, unsigned long long *v)
{
#ifdef __SSE2__
	struct ks_hexc k;
	__m128i val;

	ks_hexc_init(&k);
	if (hex16_digits(p, &k, &val))
		return -1;
	*v = hex16_pack(val);
	return 0;
#else
	uint32_t hi, lo;

	if (hex8(p, &hi) || hex8(p + 8, &lo))
		return -1;
	*v = (unsigned long long)hi << 32 | lo;
	return 0;
#endif
}

/* The first '\n' in [@p, @end), or @end. */
static inline const unsigned char *nl_find(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	int m;

	for (; end - p >= 16; p += 16) {
		m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	p = memchr(p, '\n', end - p);
	return p ? p : end;
}

/*
 * The line at *@pp, as tep_parse_kallsyms() reads it: 1 keep it (*@a its
 * address), 0 skip it, -1 stop (the end of the text, which holds no NUL,
 * or a line libtraceevent stops at). *@pp moves to the next line.
 */
static inline __attribute__((always_inline)) int ks_next(const unsigned char **pp,
							 const unsigned char *end,
							 unsigned long long *a)
{
	const unsigned char *p = *pp, *nl;
	int fs, fe, me, r;

	/*
	 * The usual line, "ffffffff81000000 T name...": 16 hex digits, a
	 * type, a name. Whatever follows the name (a module, or something
	 * odd) matters only to the name, cut on look-up. The first look for
	 * the '\n' reads the 16 bytes after the name's first.
	 */
	if (end - p >= 20 + 16 && p[16] == ' ' && p[18] == ' ' && p[17] > ' ' && p[19] > ' ' &&
	    !hex16(p, a)) {
		nl = nl_find(p + 20, end);
		*pp = nl + (nl < end);
		return p[19] != '$' && (p[17] | 0x20) != 'a';
	}
	if (p >= end)
		return -1;
	if (*p == '\n') {
		*pp = p + 1;
		return 0;
	}
	nl = nl_find(p, end);
	*pp = nl + (nl < end);
	r = ks_line_copy((const char *)p, nl - p, a, &fs, &fe, &me);
	return r;
}

/* Runs of equal addresses, turned newest first a batch at a time */
#define KS_RUNS	64

struct ks_run {
	size_t	start, end;
};

static void ks_flip(struct tf_ksym *syms, const struct ks_run *runs, int nrun)
{
	struct tf_ksym t;
	size_t a, b;
	int i;

	for (i = 0; i < nrun; i++) {
		for (a = runs[i].start, b = runs[i].end - 1; a < b; a++, b--) {
			t = syms[a];
			syms[a] = syms[b];
			syms[b] = t;
		}
	}
}

#ifdef __SSE2__
/*
 * A usual line's type, and its name's first character, that are kept (not
 * white space, not A/a, not '$'). Others (those not kept, and odd ones) go
 * the slow way.
 */
static const unsigned char ks_type_ok[256] = {
	[0x21 ... 'A' - 1] = 1, ['A' + 1 ... 'a' - 1] = 1, ['a' + 1 ... 0xff] = 1 };
static const unsigned char ks_name_ok[256] = { [0x21 ... '$' - 1] = 1, ['$' + 1 ... 0xff] = 1 };

/*
 * The usual lines, kept and in order of address after *@prevp, from *@pp
 * on: into @out on, till a line of another kind or shape, out of order,
 * or near the end. No call in the loop: the constants stay in registers
 * (@k, @nl, and the asm() that keeps the compiler from making them anew
 * in the loop). PACK is hex16_pack() or its like; NL32 gives the mask of
 * the '\n's in 32 bytes, looked for from the name's second character on.
 * Return: where @out is then; *@pp, *@prevp move on.
 */
#define KS_FAST(pp, end, text, out, prevp, k, nl, PACK, NL32)				\
({											\
	/* a text of 64 bytes or less goes the slow way (no pointer before it) */	\
	int big_ = (end) - (const unsigned char *)(text) > 64;				\
	const unsigned char *p_ = *(pp), *q_;						\
	const unsigned char *lim_ = big_ ? (end) - (20 + 32) : p_;			\
	const unsigned char *qlim_ = big_ ? (end) - (32 + 32) : p_;			\
	unsigned long long a_, prev_ = *(prevp);					\
	struct tf_ksym *o_ = (out);							\
	uint32_t w_, m_;								\
	__m128i v_;									\
											\
	__asm__("" : "+x"((k).c0), "+x"((k).ca), "+x"((k).c9), "+x"((k).c5),		\
		"+x"((k).c39), "+x"(nl));						\
	for (; p_ < lim_; p_ = q_ + (unsigned int)__builtin_ctz(m_) + 1) {		\
		/* " T n": the blanks, the type and the name's first */			\
		memcpy(&w_, p_ + 16, 4);						\
		if ((w_ & 0x00ff00ff) != 0x00200020 ||					\
		    !(ks_type_ok[p_[17]] & ks_name_ok[p_[19]]) ||			\
		    hex16_digits(p_, &(k), &v_) || (a_ = PACK(v_)) <= prev_)		\
			break;								\
		for (q_ = p_ + 20; !(m_ = NL32(q_, nl)); q_ += 32) {			\
			if (q_ > qlim_)							\
				goto out_;						\
		}									\
		/* state 0 (KS_LINE): the block is fresh */				\
		o_->addr = a_;								\
		o_->pos = (const char *)p_ - (text);					\
		o_++;									\
		prev_ = a_;								\
	}										\
out_:											\
	*(pp) = p_;									\
	*(prevp) = prev_;								\
	o_;										\
})

static inline __attribute__((always_inline)) uint32_t nl32(const unsigned char *q, __m128i nl)
{
	__m128i lo = _mm_loadu_si128((const __m128i *)q);
	__m128i hi = _mm_loadu_si128((const __m128i *)(q + 16));

	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(lo, nl)) |
	       (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(hi, nl)) << 16;
}

static struct tf_ksym *ks_fast(const unsigned char **pp, const unsigned char *end,
			       const char *text, struct tf_ksym *out, unsigned long long *prevp)
{
	__m128i nl = _mm_set1_epi8('\n');
	struct ks_hexc k;

	ks_hexc_init(&k);
	return KS_FAST(pp, end, text, out, prevp, k, nl, hex16_pack, nl32);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with AVX2 where the CPU has it (ks_scan()) */
#define KS_AVX2	__attribute__((target("avx2")))

/* hex16_pack(), a multiply-add putting each pair of digits together */
static inline __attribute__((always_inline)) KS_AVX2 unsigned long long hex16_pack_avx2(__m128i val)
{
	__m128i t = _mm_maddubs_epi16(val, _mm_set1_epi16(0x0110));

	return __builtin_bswap64((unsigned long long)_mm_cvtsi128_si64(_mm_packus_epi16(t, t)));
}

static inline __attribute__((always_inline)) KS_AVX2 uint32_t nl32_avx2(const unsigned char *q,
									 __m256i nl)
{
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
		_mm256_loadu_si256((const __m256i *)q), nl));
}

static KS_AVX2 struct tf_ksym *ks_fast_avx2(const unsigned char **pp, const unsigned char *end,
					     const char *text, struct tf_ksym *out,
					     unsigned long long *prevp)
{
	__m256i nl = _mm256_set1_epi8('\n');
	struct ks_hexc k;

	ks_hexc_init(&k);
	return KS_FAST(pp, end, text, out, prevp, k, nl, hex16_pack_avx2, nl32_avx2);
}
#endif
#endif /* __SSE2__ */

static int use_avx2 = 1;

void tf_ksyms_use_avx2(int on)
{
	use_avx2 = on;
}

/*
 * Read the lines of @text (no NUL in it) into @syms (room for all, zeroed),
 * up to the end or a line libtraceevent stops at: the count. The first
 * *@headp of them are in order of address (the kernel's own symbols, as
 * /proc/kallsyms lists them), their runs of equal addresses turned
 * newest first on the way; the rest (the modules') in the text's order.
 * *@cutp (if not NULL): whether a line libtraceevent stops at came before
 * the end.
 */
static size_t ks_scan(const char *text, size_t len, struct tf_ksym *syms, size_t *headp,
		      int *cutp)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len, *line;
	unsigned long long a, prev = 0;
	struct ks_run runs[KS_RUNS];
	size_t n = 0;
	int r, nrun = 0;
#ifdef KS_AVX2
	__typeof__(ks_fast) *fast = use_avx2 && __builtin_cpu_supports("avx2") ? ks_fast_avx2 :
									      ks_fast;
#elif defined(__SSE2__)
	__typeof__(ks_fast) *fast = ks_fast;
#endif

	for (;;) {
#ifdef __SSE2__
		n = fast(&p, end, text, syms + n, &prev) - syms;
#endif
		line = p;
		r = ks_next(&p, end, &a);
		if (r <= 0) {
			if (r < 0)
				break;
			continue;
		}
		if (a <= prev && n) {
			if (a < prev)
				break;
			if (nrun && runs[nrun - 1].end == n) {
				runs[nrun - 1].end = n + 1;
			} else {
				if (nrun == KS_RUNS) {
					ks_flip(syms, runs, nrun);
					nrun = 0;
				}
				runs[nrun++] = (struct ks_run){ n - 1, n + 1 };
			}
		}
		syms[n].addr = a;
		syms[n].pos = (const char *)line - text;
		n++;
		prev = a;
	}
	ks_flip(syms, runs, nrun);
	*headp = n;
	for (; r >= 0; line = p, r = ks_next(&p, end, &a)) {
		if (r) {
			syms[n].addr = a;
			syms[n].pos = (const char *)line - text;
			n++;
		}
	}
	if (cutp)
		*cutp = line < end;
	return n;
}

/*
 * Sort @t[0..@n) by address, among equal ones the last in the text first
 * (libtraceevent lists them newest first, then sorts stably by address):
 * a radix sort, a byte at a time over the bytes that differ, each pass
 * stable and the first reading @t from its end (so that among equal
 * addresses the last line comes first). @tmp has room for @n.
 *
 * Return: the sorted entries, in @t or in @tmp.
 */
static struct tf_ksym *ks_sort(struct tf_ksym *t, struct tf_ksym *tmp, size_t n)
{
	struct tf_ksym *src = t, *dst = tmp, *x, s;
	unsigned long long diff = 0;
	uint32_t count[256], sum, c;
	size_t i, j;
	int sh, first = 1;

	for (i = 1; i < n; i++)
		diff |= t[i].addr ^ t[0].addr;
	for (sh = 0; sh < 64; sh += 8) {
		if (!(diff >> sh & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[src[i].addr >> sh & 0xff]++;
		for (i = 0, sum = 0; i < 256; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		if (first) {
			for (i = n; i-- > 0;)
				dst[count[src[i].addr >> sh & 0xff]++] = src[i];
		} else {
			for (i = 0; i < n; i++)
				dst[count[src[i].addr >> sh & 0xff]++] = src[i];
		}
		first = 0;
		x = src;
		src = dst;
		dst = x;
	}
	if (first) {		/* all at one address */
		for (i = 0, j = n - 1; n && i < j; i++, j--) {
			s = t[i];
			t[i] = t[j];
			t[j] = s;
		}
	}
	return src;
}

void tf_ksyms_free(struct tf_ksyms *k)
{
	if (!k)
		return;
	text_release(k->text, k->how, k->map, k->maplen);
	if (k->syms)
		munmap(k->syms, k->syms_len);
	while (k->nnames)
		free(k->names[--k->nnames].name);
	free(k->names);
	free(k);
}

/**
 * tf_ksyms_index() - index a kallsyms text for ksym look-ups
 * @tf: the trace file; its former index is dropped
 * @text: the text (read up to a NUL, as libtraceevent does, or to @len)
 * @len: its length
 * @how: how @text is released: TF_TEXT_MALLOC (free(@text)), TF_TEXT_BIG
 *	(tf_big_free(@map), the block @text lies in), TF_TEXT_MAP (munmap(@map,
 *	@maplen), of tf_map_file())
 * @map: the block or the mapping
 * @maplen: the mapping's length
 *
 * /proc/kallsyms lists the kernel's own symbols by address and the
 * modules' after them: the sorted head is kept as it is (its runs of
 * equal addresses turned newest first, in the scan), the rest sorted
 * (ks_sort()), and the two merged. @text is taken over, also on failure;
 * it is written to (a NUL after each name looked up).
 *
 * Return: 0 or -ENOMEM.
 */
int tf_ksyms_index(struct ftk_tracefile *tf, char *text, size_t len, int how, void *map,
		   size_t maplen)
{
	struct tf_ksyms *k = calloc(1, sizeof(*k));
	struct tf_ksym *syms, *tmp, *s;
	size_t n, head, i, j, bytes;
	char *nul;

	if (!k || len >= UINT32_MAX) {
		free(k);
		text_release(text, how, map, maplen);
		return -ENOMEM;
	}
	k->text = text;
	k->how = how;
	k->map = map;
	k->maplen = maplen;
	nul = memchr(text, 0, len);	/* libtraceevent's text ends there */
	if (nul)
		len = nul - text;
	k->len = len;
	/* a kept line has at least "0 t x\n": room for all, touched only as filled */
	bytes = (len / 6 + 2) * sizeof(*syms);
	syms = tf_map_aligned(bytes, &k->syms_len);
	if (!syms) {
		tf_ksyms_free(k);
		return -ENOMEM;
	}
	k->syms = syms;
	n = ks_scan(text, len, syms, &head, NULL);
	if (head < n) {
		tmp = malloc((n - head) * sizeof(*tmp));
		if (!tmp) {
			tf_ksyms_free(k);
			return -ENOMEM;
		}
		/*
		 * Merged from the end, the sorted rest apart, the later line
		 * first among equal addresses. (The rest starts below the
		 * head's last: the two always interleave.)
		 */
		s = ks_sort(syms + head, tmp, n - head);
		if (s != tmp)
			s = memcpy(tmp, s, (n - head) * sizeof(*tmp));
		for (i = head, j = n - head; j;) {
			if (i && syms[i - 1].addr >= s[j - 1].addr) {
				syms[i + j - 1] = syms[i - 1];
				i--;
			} else {
				syms[i + j - 1] = s[j - 1];
				j--;
			}
		}
		free(tmp);
	}
	syms[n] = (struct tf_ksym){ 0 };
	k->n = n;
	tf_ksyms_free(tf->ksyms);
	tf->ksyms = k;
	return 0;
}

/* Cut the name (and module) of @s out of its line, on its first look-up. */
static void ks_cut(struct tf_ksyms *k, struct tf_ksym *s)
{
	char *p = k->text + s->pos, *nl;
	unsigned long long a;
	int fs, fe, me, r;

	nl = memchr(p, '\n', k->len - s->pos);
	if (!nl)
		nl = k->text + k->len;	/* a byte past the end is ours (see tf_map_file()) */
	*nl = 0;
	r = ks_line(p, &a, &fs, &fe, &me);
	if (r <= 0) {		/* cannot be: the scan kept it */
		fs = 0;
		fe = 0;
		me = 0;
	}
	p[fe] = 0;
	if (me)
		p[me - 1] = 0;
	s->pos += fs;
	s->state = me ? KS_NAME_MOD : KS_NAME;
}

/**
 * tf_ksyms_addr() - the address of a name, as libtraceevent's test_for_symbol() finds it
 * @tf: the trace file, its kallsyms indexed (tf_ksyms_index())
 * @name: a symbol's name
 * @addr: receives its address
 *
 * test_for_symbol() gives a name in a print fmt's expression
 * ((struct page *)vmemmap_base) the address of the first function of
 * that name in the tep's list, which trace-cmd fills from every kallsyms
 * line tep_parse_kallsyms() keeps (data symbols too), in address order:
 * the lowest address of a kept line of that name. A search of the text
 * (done once an event), for lines "ADDR T name" ending at a newline, a
 * tab (a module) or a NUL (a line already cut, ks_cut()). The answer is
 * kept: several events' formats name the same symbol (vmemmap_base in
 * three of kmem's, jiffies in two of timer's), and each search reads all
 * of the text (5 MB, a millisecond).
 *
 * Return: 1 if found, else 0.
 */
int tf_ksyms_addr(struct ftk_tracefile *tf, const char *name, unsigned long long *addr)
{
	struct tf_ksyms *k = tf->ksyms;
	size_t nlen = strlen(name), j;
	const char *t, *end, *m, *a;
	unsigned long long v;
	int found = 0, i, h;

	if (!k || !nlen || name[0] == '$')
		return 0;
	for (j = 0; j < k->nnames; j++) {
		if (!strcmp(k->names[j].name, name)) {
			*addr = k->names[j].addr;
			return k->names[j].found;
		}
	}
	t = k->text;
	end = t + k->len;
	for (m = t; (m = memmem(m, end - m, name, nlen)); m += nlen) {
		const char *e = m + nlen;

		if (m - t < 5 || m[-1] != ' ' || m[-3] != ' ' || m[-2] == 'A' || m[-2] == 'a' ||
		    (e < end && *e != '\n' && *e != '\t' && *e))
			continue;
		/* the address before " T ", back to the line's start */
		a = m - 3;
		for (i = 0; a > t && i < 16 && hexv(a[-1]) >= 0; i++)
			a--;
		if (!i || (a > t && a[-1] != '\n' && a[-1]))
			continue;
		for (v = 0; a < m - 3 && (h = hexv(*a)) >= 0; a++)
			v = v << 4 | h;
		if (!found || v < *addr)
			*addr = v;
		found = 1;
	}
	if (!k->names)
		k->names = calloc(KSYM_NAMES, sizeof(*k->names));
	if (k->names && k->nnames < KSYM_NAMES) {
		struct tf_ksym_name *kn = &k->names[k->nnames];

		kn->name = strdup(name);
		kn->addr = found ? *addr : 0;
		kn->found = found;
		if (kn->name)
			k->nnames++;
	}
	return found;
}

/**
 * tf_ksyms_find() - libtraceevent's __find_func() over the index
 * @tf: the trace file
 * @addrp: the address; receives the symbol's
 * @modp: receives its module, or NULL
 *
 * glibc's bsearch() with libtraceevent's func_bcmp(): an address between
 * two symbols belongs to the lower one, and one past the last symbol to
 * none.
 *
 * Return: the name, owned by @tf, or NULL.
 */
char *tf_ksyms_find(struct ftk_tracefile *tf, unsigned long long *addrp, char **modp)
{
	struct tf_ksyms *k = tf->ksyms;
	unsigned long long key = *addrp;
	struct tf_ksym *f;
	size_t l = 0, u, i;
	char *name;

	if (!k)
		return NULL;
	u = k->n;
	while (l < u) {
		i = (l + u) / 2;
		f = &k->syms[i];
		if (key == f->addr || (key > f->addr && key < f[1].addr)) {
			if (f->state == KS_LINE)
				ks_cut(k, f);
			name = k->text + f->pos;
			*addrp = f->addr;
			*modp = f->state == KS_NAME_MOD ? name + strlen(name) + 2 : NULL;
			return name;
		}
		if (key < f->addr)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
}

/* ---------------------------------------------------------------- read as far as asked */

/*
 * A v7 file's kallsyms section is one zstd block of about 4 MB, and a
 * report of a few events that prints a kernel symbol spent most of its
 * time decompressing it (40M of markers.dat's 49M instructions). The
 * symbols such reports print are mostly the kernel's own text, which
 * /proc/kallsyms lists first, by address: tracing_mark_write is a tenth
 * of the way in, vfs_read a sixth, on Debian's 6.1.
 *
 * So the block is decompressed a step at a time (tf_unzstd_step()), and
 * the sorted head indexed as it comes, until a look-up can be answered
 * from what is read. An address X is answered from there only when the
 * answer is the one libtraceevent gives from the whole text:
 *  - X is at or above _text, and a symbol of the kernel's text ('t' or
 *    'T', no module) above X has been read: every line at or below X is
 *    read, and between the symbol below X and that one lies only the
 *    kernel's image. The modules, BPF programs and trampolines listed
 *    after the head live outside the image, so none of them comes
 *    between. (The first module's line may still be in order, above the
 *    head: a line with a module ends the search.)
 *  - No other line has the address of the symbol below X (which of equal
 *    lines libtraceevent's bsearch() finds depends on the whole array).
 * Any other look-up reads the rest, and the whole text is indexed as
 * before (tf_ksyms_index()). A block damaged after the part read is found
 * only then: the names printed before it stay printed.
 */
#define PART_STEP	(32U << 10)	/* compressed input per step: about 128 KB of text */

struct tf_ksyms_part {
	struct tf_unzstd	z;
	struct tf_zsrc		src;		/* the compressed block */
	unsigned char		*block;		/* the section: a 4-byte size, then the text */
	size_t			len;		/* the text's length, once known (have_len) */
	size_t			scanned;	/* text bytes indexed: whole lines */
	struct tf_ksym		*syms;		/* the head read so far, in order of address */
	size_t			n, syms_len;
	unsigned long long	text_addr;	/* _text's */
	int			have_len, have_text, open;
	char			**names;	/* the names given out, kept to the close */
	size_t			nnames;
};

/* What reading needs, released (the names given out stay). */
static void part_drop(struct tf_ksyms_part *p)
{
	if (p->z.d)
		tf_unzstd_end(&p->z);
	tf_zsrc_release(&p->src);
	tf_big_free(p->block);
	p->block = NULL;
	if (p->syms)
		munmap(p->syms, p->syms_len);
	p->syms = NULL;
	p->open = 0;
}

void tf_ksyms_part_free(struct tf_ksyms_part *p)
{
	size_t i;

	if (!p)
		return;
	part_drop(p);
	for (i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p);
}

/**
 * tf_ksyms_part_open() - read a zstd kallsyms section only as far as look-ups need
 * @tf: the trace file
 * @src: the section's compressed block, taken over (also on failure)
 *
 * Return: 0, or <0: read the section as a whole.
 */
int tf_ksyms_part_open(struct ftk_tracefile *tf, struct tf_zsrc *src)
{
	struct tf_ksyms_part *p = calloc(1, sizeof(*p));

	if (!p) {
		tf_zsrc_release(src);
		return -1;
	}
	p->src = *src;
	*src = (struct tf_zsrc){ 0 };
	p->block = tf_big_alloc((size_t)p->src.ulen + 1);
	if (!p->block || p->src.ulen < 4 ||
	    tf_unzstd_begin(&p->z, p->block, p->src.ulen, p->src.at, p->src.clen)) {
		tf_ksyms_part_free(p);
		return -1;
	}
	p->open = 1;
	tf_ksyms_part_free(tf->ksyms_part);
	tf->ksyms_part = p;
	return 0;
}

/* _text's address, if its line is in [@from, @to) of the text @t: the head's only, by the caller. */
static void part_find_text(struct tf_ksyms_part *p, const char *t, size_t from, size_t to)
{
	const char *hit = memmem(t + from, to - from, " _text\n", 7), *line;
	unsigned long long a;
	int fs, fe, me;

	if (!hit)
		return;
	for (line = hit; line > t + from && line[-1] != '\n'; line--)
		;
	if (ks_line_copy(line, hit + 6 - line, &a, &fs, &fe, &me) == 1 && fe - fs == 5 &&
	    !memcmp(line + fs, "_text", 5) && !me) {
		p->text_addr = a;
		p->have_text = 1;
	}
}

/* One more step: decompress, and index the head's whole lines. 0, or <0 when damaged. */
static int part_more(struct ftk_tracefile *tf, struct tf_ksyms_part *p)
{
	char *t = (char *)p->block + 4, *nul;
	size_t have, end, k, head, i;
	int r, cut, last;

	r = tf_unzstd_step(&p->z, PART_STEP);
	if (r < 0)
		return r;
	if (!p->have_len && p->z.dpos >= 4) {
		unsigned long long size = tf_num(tf, p->block, 4);

		if (size > p->src.ulen - 4)
			return -FTK_E_FORMAT;	/* read_kallsyms() says so */
		p->len = size;
		p->have_len = 1;
	}
	if (!p->have_len)
		return 0;
	have = p->z.dpos - 4 < p->len ? p->z.dpos - 4 : p->len;
	last = have == p->len;
	end = have;
	/* libtraceevent's text ends at a NUL (tf_ksyms_index()) */
	nul = memchr(t + p->scanned, 0, have - p->scanned);
	if (nul) {
		end = nul - t;
		last = 1;
	} else if (!last) {
		while (end > p->scanned && t[end - 1] != '\n')
			end--;
	}
	if (end > p->scanned) {
		if (!p->syms) {
			/* room for every line the text can hold, touched only as filled */
			p->syms = tf_map_aligned((p->len / 6 + 2) * sizeof(*p->syms), &p->syms_len);
			if (!p->syms)
				return -ENOMEM;
		}
		k = ks_scan(t + p->scanned, end - p->scanned, p->syms + p->n, &head, &cut);
		for (i = p->n; i < p->n + k; i++)
			p->syms[i].pos += p->scanned;
		/* the order breaks at the first line of this step */
		if (head && p->n && p->syms[p->n].addr < p->syms[p->n - 1].addr)
			head = 0;
		if (!p->have_text)
			part_find_text(p, t, p->scanned,
				       head < k ? p->syms[p->n + head].pos : end);
		p->n += head;
		if (head < k || cut)
			last = 1;
		p->scanned = end;
	}
	if (last)
		p->open = 0;
	return 0;
}

/**
 * tf_ksyms_part_find() - look @addrp up in the part of kallsyms read so far
 * @tf: the trace file, with tf->ksyms_part open
 * @addrp: the address; receives the symbol's
 * @modp: receives NULL (the head has no modules)
 * @namep: receives the name, kept until the close
 *
 * Reads on as far as the look-up needs (see above).
 *
 * Return: 1 answered; 0 not: read the rest (tf_ksyms_part_finish()).
 */
int tf_ksyms_part_find(struct ftk_tracefile *tf, unsigned long long *addrp, char **modp,
		       char **namep)
{
	struct tf_ksyms_part *p = tf->ksyms_part;
	unsigned long long x = *addrp, a;
	const char *t = (const char *)p->block + 4, *line, *nl;
	size_t l, u, j, nx;
	char *name, **nn;
	int fs, fe, me;

	/* read until a symbol of the text above x (or the head's end) */
	for (;;) {
		for (l = 0, u = p->n; l < u;) {
			j = (l + u) / 2;
			if (p->syms[j].addr <= x)
				l = j + 1;
			else
				u = j;
		}
		nx = l;		/* the first above x */
		while (nx < p->n) {
			line = t + p->syms[nx].pos;
			nl = memchr(line, '\n', p->scanned - p->syms[nx].pos);
			if (!nl || nl - line < 20 || line[16] != ' ' || line[18] != ' ')
				return 0;	/* not the usual line: not worth reading */
			/* the kernel's text, not a module's above the image (still in order) */
			if (memchr(line + 19, '\t', nl - line - 19))
				return 0;
			if (line[17] == 't' || line[17] == 'T')
				break;
			nx++;
		}
		if (nx < p->n || !p->open)
			break;
		if (part_more(tf, p) < 0)
			return 0;
	}
	if (nx >= p->n || !p->have_text || x < p->text_addr || !l)
		return 0;
	j = l - 1;		/* the last at or below x */
	if (p->syms[j].addr < p->text_addr || (j && p->syms[j - 1].addr == p->syms[j].addr) ||
	    p->syms[j + 1].addr == p->syms[j].addr)
		return 0;
	line = t + p->syms[j].pos;
	nl = memchr(line, '\n', p->scanned - p->syms[j].pos);
	if (!nl || ks_line_copy(line, nl - line, &a, &fs, &fe, &me) != 1 || me)
		return 0;
	nn = realloc(p->names, (p->nnames + 1) * sizeof(*nn));
	if (!nn)
		return 0;
	p->names = nn;
	name = strndup(line + fs, fe - fs);
	if (!name)
		return 0;
	p->names[p->nnames++] = name;
	*addrp = p->syms[j].addr;
	*modp = NULL;
	*namep = name;
	return 1;
}

/*
 * Read the rest and index the whole text (tf_ksyms_index()), as the
 * whole section would have been. Return: 0, or <0 (damaged): read the
 * section again the usual way, which says what is wrong.
 */
int tf_ksyms_part_finish(struct ftk_tracefile *tf)
{
	struct tf_ksyms_part *p = tf->ksyms_part;
	unsigned long long size;
	unsigned char *b;
	int r;

	while ((r = tf_unzstd_step(&p->z, p->z.slen)) == 1)
		;
	size = r ? 0 : tf_num(tf, p->block, 4);
	if (r || size > p->src.ulen - 4) {
		part_drop(p);
		return -1;
	}
	b = p->block;
	p->block = NULL;
	part_drop(p);
	b[4 + size] = 0;	/* the block has a byte past its end */
	return tf_ksyms_index(tf, (char *)b + 4, size, TF_TEXT_BIG, b, 0);
}
