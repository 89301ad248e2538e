// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kallsyms index of the trace file reader (lib/tracefile-ksyms.c)
 * against libtraceevent's own: the same text given to
 * tep_parse_kallsyms() and to tf_ksyms_index() must name every address
 * the same, and give the same symbol address: on odd lines (types that
 * are skipped, '$' names, short addresses, blanks, modules, odd white
 * space, a line that stops the parse, duplicates, an unsorted tail, no
 * final newline, a NUL), on generated ones of a kernel's size (runs of
 * equal addresses, odd lines amid the usual ones, long names, modules in
 * no order, sharing addresses with each other and with the kernel) and
 * on this machine's /proc/kallsyms. Then the same texts read from a zstd
 * block only as far as look-ups need (tf_ksyms_part_*()): every answer,
 * from the part read or from the whole, libtraceevent's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <zstd.h>

#include "internal.h"
#include "tap.h"
#include "tracefile-read-local.h"

static const char odd[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000010 t $x.1\n"
	"ffffffff81000020 T dup_a\n"
	"ffffffff81000020 t dup_b\n"
	"ffffffff81000020 W dup_c\n"
	"ffffffff81000040 a abs_sym\n"
	"\n"
	"ffffffff81000050 T name_cr\r\n"
	"ffffffff81000060 T  two_spaces\n"
	"81000070 T short_addr\n"
	"ffffffff81000080 T trailing_space \n"
	"ffffffff81000090 T name\ttab_no_bracket\n"
	"FFFFFFFF810000A0 T upper_hex\n"
	"ffffffff810000b0 Tx glued_type\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0000800 t mod_low\t[other]\n"
	"ffffffffc0000800 t mod_low2\t[other]\n"
	"ffffffff81000100 T tail_unsorted\n"
	"ffffffffc0002000 t weird\t[mod x]\n"
	"ffffffffc0002100 t empty_mod\t[]\n"
	"ffffffffc0003000 t notmod mod2\n"
	"ffffffffc0004000 T last_no_newline";

/* The first module's line is above the kernel's: in order, but not the kernel's */
static const char mod_above[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T a_fn\n"
	"ffffffff81000200 T b_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffffc0002000 t mod_hi\t[m]\n"
	"ffffffffc0003000 T mod_hi2\t[m]\n"
	"ffffffffc0001000 t mod_lo\t[m]\n";

static const char stops[] =
	"ffffffff81000000 T first\n"
	"ffffffff81000100 T second\n"
	"this is not a kallsyms line\n"
	"ffffffff81000200 T after_the_stop\n";

/* A text that ends at a NUL in its middle, as libtraceevent reads it */
static const char nul[] =
	"ffffffff81000000 T before_nul\n"
	"ffffffff81000100 T cut_at_the\0nul\n"
	"ffffffff81000200 T after_nul\n";

static unsigned long long rnd_state = 0x9e3779b97f4a7c15ULL;

static unsigned long long rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct text {
	char	*buf;
	size_t	len, size;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->size - t->len)
			break;
		t->size = t->size * 2 + 4096;
		t->buf = realloc(t->buf, t->size);
		if (!t->buf)
			bail_out("out of memory");
	}
	t->len += n;
}

/* A line of the usual shape, its name 1 to 99 characters, at times one not kept, or a module's */
static void put_sym(struct text *t, unsigned long long addr, const char *mod)
{
	static const char types[] = "TtTtDdBbRrWVAa";
	char name[100];
	size_t i, n = 1 + rnd() % (rnd() % 4 ? 40 : 99);

	for (i = 0; i < n; i++)
		name[i] = "abcdefghijklmnopqrstuvwxyz_0123456789"[rnd() % 37];
	name[n] = 0;
	if (rnd() % 50 == 0)
		name[0] = '$';
	put(t, "%016llx %c %s%s%s%s\n", addr, types[rnd() % (sizeof(types) - 1)], name,
	    mod ? "\t[" : "", mod ? mod : "", mod ? "]" : "");
}

/*
 * A kallsyms the size of a small kernel's: a head in order of address,
 * with runs of equal addresses (one long) and, in its middle, lines not of
 * the usual shape; then a module's line above the rest and @ntail more in
 * no order, from @base to @base + @span (all at @base if @span is 0), and
 * with @mix some at the head's own addresses or between them.
 */
static void gen_text(struct text *t, int nhead, int ntail, unsigned long long base,
		     unsigned long long span, int mix, int with_text)
{
	/* not of the usual shape, read the slow way */
	static const char *const odd_lines[] = {
		"%016llX T upper_case_%d\n",
		"%016llx t\ttab_before_%d\n",
		"\n%016llx T blank_before_%d\n",
		"%016llx T  two_blanks_%d\n",
		"%016llx T carriage_%d\r\n",
		"%016llx T tab_after_%d\tx\n",
	};
	unsigned long long a = 0xffffffff81000000ULL, *head = calloc(nhead + 300, sizeof(*head)), m;
	int i, n = 0, kind = 0;

	if (!head)
		bail_out("out of memory");
	t->len = 0;
	put(t, "0000000000000000 A fixed_percpu_data\n");
	if (with_text)
		put(t, "%016llx T _text\n", a);
	for (i = 0; i < nhead; i++) {
		if (i == nhead / 3) {
			for (; i < nhead / 3 + 300; i++) {	/* a long run */
				put_sym(t, a, NULL);
				head[n++] = a;
			}
		}
		if (i % 997 == 0)
			put(t, odd_lines[kind++ % ARRAY_SIZE(odd_lines)], a, i);
		put_sym(t, a, NULL);
		head[n++] = a;
		a += rnd() % 3 ? rnd() % 64 : 0;
	}
	if (ntail)	/* above the rest: all after it are the tail, sorted */
		put_sym(t, base + span + 0x1000, "mod_a");
	for (i = 0; i < ntail; i++) {
		m = base + (span ? rnd() % span : 0);
		if (mix && rnd() % 4 == 0)	/* a head's address, or one between */
			m = head[rnd() % n] + rnd() % 2;
		put_sym(t, m, rnd() % 2 ? "mod_a" : "mod_b");
	}
	free(head);
}

/* Compare the two on @key; 1 if the same. */
static int same(struct tep_handle *tep, struct ftk_tracefile *tf, unsigned long long key)
{
	const char *want = tep_find_function(tep, key);
	unsigned long long want_addr = want ? tep_find_function_address(tep, key) : 0;
	unsigned long long addr = key;
	char *mod = NULL, *got = tf_ksyms_find(tf, &addr, &mod);

	if (!want || !got) {
		if (!want && !got)
			return 1;
		diag("key %llx: libtraceevent %s, the index %s", key, want ? want : "(none)",
		     got ? got : "(none)");
		return 0;
	}
	if (strcmp(want, got) || want_addr != addr) {
		diag("key %llx: libtraceevent %s at %llx, the index %s at %llx", key, want,
		     want_addr, got, addr);
		return 0;
	}
	return 1;
}

/* Index @text (@len bytes) both ways and compare on every address in it, +-1, and a few more. */
static void check_text(const char *what, const char *text, size_t len, int step)
{
	struct ftk_tracefile tf = { 0 };
	struct tep_handle *tep = tep_alloc();
	char *copy = malloc(len + 1), *line;
	unsigned long long keys[] = { 0, 1, ~0ULL, 0xffffffff80000000ULL, 0xffffffffc0005000ULL };
	unsigned long long a;
	size_t i, nkeys = 0, bad = 0;

	if (!tep || !copy)
		bail_out("out of memory");
	memcpy(copy, text, len);
	copy[len] = 0;
	tep_parse_kallsyms(tep, text);	/* -1 after a line that stops it, with what came before */
	ok(tf_ksyms_index(&tf, copy, len, TF_TEXT_MALLOC, NULL, 0) == 0, "%s: indexed", what);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++, nkeys++)
		bad += !same(tep, &tf, keys[i]);
	for (line = (char *)text, i = 0; line && *line; i++) {
		if (i % step == 0 && sscanf(line, "%llx", &a) == 1) {
			bad += !same(tep, &tf, a);
			bad += !same(tep, &tf, a + 1);
			bad += !same(tep, &tf, a - 1);
			nkeys += 3;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	ok(!bad, "%s: the same name and address as libtraceevent for %zu addresses", what, nkeys);
	tf_ksyms_free(tf.ksyms);
	tep_free(tep);
}

/* Generated kallsyms of each kind, @how (", SSE2") said in the names of the tests. */
static void check_generated(const char *how)
{
	/* the modules' addresses differ in 0 to 4 bytes: 0 to 4 passes of the sort */
	static const struct {
		unsigned long long	base, span;
		int			mix;
	} tails[] = {
		{ 0xffffffffc0000000ULL, 0, 0 },
		{ 0xffffffffc0000000ULL, 0x100, 0 },
		{ 0xffffffffc0000000ULL, 0x10000, 0 },
		{ 0xffffffff81100000ULL, 0x10000, 1 },
		{ 0xffffffffc0000000ULL, 0x1000000, 1 },
	};
	struct text t = { 0 };
	char what[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		gen_text(&t, 6000, 800, tails[i].base, tails[i].span, tails[i].mix, 0);
		snprintf(what, sizeof(what), "generated, modules from %llx over %#llx%s%s",
			 tails[i].base, tails[i].span, tails[i].mix ? " and the kernel's" : "",
			 how);
		check_text(what, t.buf, t.len, 1);
	}
	gen_text(&t, 3000, 0, 0, 0, 0, 0);
	snprintf(what, sizeof(what), "generated, no modules%s", how);
	check_text(what, t.buf, t.len, 1);
	free(t.buf);
}

/*
 * @text in a zstd block (after its 4-byte size, as in a v7 file), read as
 * far as look-ups need: @runs fresh reads, each of @nkeys keys in random
 * order (exact addresses of lines, +-1, and any address from _text on),
 * answered as the reader's ksym_resolve() does: from the part read, or
 * else from the whole. Each answer against libtraceevent's over the text.
 */
static void check_part(const char *what, const char *text, size_t len, int runs, int nkeys)
{
	struct tep_handle *tep = tep_alloc();
	size_t blen = len + 4, cap = ZSTD_compressBound(blen), clen, nlines = 0;
	unsigned char *block = malloc(blen), *z = malloc(cap);
	unsigned long long *addrs = malloc((len / 6 + 2) * sizeof(*addrs)), lo = ~0ULL, hi = 0;
	long parted = 0, whole = 0, bad = 0;
	const char *line;
	char *copy;
	int r, k;

	if (!tep || !block || !z || !addrs || (copy = malloc(len + 1)) == NULL)
		bail_out("out of memory");
	memcpy(copy, text, len);
	copy[len] = 0;
	tep_parse_kallsyms(tep, copy);
	free(copy);
	block[0] = len;
	block[1] = len >> 8;
	block[2] = len >> 16;
	block[3] = len >> 24;
	memcpy(block + 4, text, len);
	clen = ZSTD_compress(z, cap, block, blen, 3);
	if (ZSTD_isError(clen))
		bail_out("zstd: %s", ZSTD_getErrorName(clen));
	for (line = text; line && line < text + len; line = memchr(line, '\n', text + len - line),
	     line = line ? line + 1 : NULL) {
		unsigned long long a;

		if (sscanf(line, "%llx", &a) == 1 && a >= 0xffffffff80000000ULL) {
			addrs[nlines++] = a;
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	if (!nlines)
		bail_out("%s: no addresses", what);
	for (r = 0; r < runs; r++) {
		struct ftk_tracefile tf = { 0 };
		struct tf_zsrc src = { .clen = clen, .ulen = blen, .buf = malloc(clen) };

		if (!src.buf)
			bail_out("out of memory");
		src.at = memcpy(src.buf, z, clen);
		if (tf_ksyms_part_open(&tf, &src))
			bail_out("%s: cannot open the block", what);
		for (k = 0; k < nkeys; k++) {
			unsigned long long key = addrs[rnd() % nlines], addr;
			const char *want;
			char *got = NULL, *mod = NULL;

			switch (rnd() % 5) {
			case 0: key++; break;
			case 1: key--; break;
			case 2: key = lo + rnd() % (hi - lo + 1); break;
			case 3: {	/* between two lines, in the text's order */
				size_t i = rnd() % nlines;

				if (i + 1 < nlines && addrs[i + 1] > key)
					key += rnd() % (addrs[i + 1] - key);
				break;
			}
			}
			addr = key;
			if (tf.ksyms_part && !tf.ksyms && tf_ksyms_part_find(&tf, &addr, &mod, &got)) {
				parted++;
			} else {
				if (!tf.ksyms && tf_ksyms_part_finish(&tf))
					bail_out("%s: cannot read the block to its end", what);
				got = tf_ksyms_find(&tf, &addr, &mod);
				whole++;
			}
			want = tep_find_function(tep, key);
			if (!want != !got || (want && (strcmp(want, got) ||
					   tep_find_function_address(tep, key) != addr))) {
				if (bad++ < 5)
					diag("%s: key %llx: libtraceevent %s, read %s (%s)", what, key,
					     want ? want : "(none)", got ? got : "(none)",
					     tf.ksyms ? "whole" : "part");
			}
		}
		tf_ksyms_free(tf.ksyms);
		tf_ksyms_part_free(tf.ksyms_part);
	}
	ok(!bad, "%s, read as far as asked: libtraceevent's answers (%ld from the part read, %ld from the whole)",
	   what, parted, whole);
	tep_free(tep);
	free(block);
	free(z);
	free(addrs);
}

static void check_mod(struct ftk_tracefile *tf, unsigned long long key, const char *name,
		      const char *mod)
{
	unsigned long long addr = key;
	char *m = NULL, *got = tf_ksyms_find(tf, &addr, &m);

	ok(got && !strcmp(got, name) && (mod ? m && !strcmp(m, mod) : !m),
	   "%llx is %s [%s] (got %s [%s])", key, name, mod ? mod : "no module",
	   got ? got : "nothing", m ? m : "no module");
}

int main(void)
{
	struct ftk_tracefile tf = { 0 };
	char *text = NULL;
	size_t len = 0;
	int simd;

	check_text("odd lines", odd, strlen(odd), 1);
	check_text("a line that stops the parse", stops, strlen(stops), 1);
	if (tf_ksyms_index(&tf, strdup(stops), strlen(stops), TF_TEXT_MALLOC, NULL, 0))
		bail_out("cannot index");
	{
		unsigned long long a = 0xffffffff81000200ULL;
		char *m, *name = tf_ksyms_find(&tf, &a, &m);

		/* had after_the_stop been read, its own address would name it */
		ok(!name, "a line after the stop is not read (%s)", name ? name : "nothing");
	}
	tf_ksyms_free(tf.ksyms);
	tf.ksyms = NULL;

	/* modules, as libtraceevent's func_map keeps them (it does not print them) */
	if (tf_ksyms_index(&tf, strdup(odd), strlen(odd), TF_TEXT_MALLOC, NULL, 0))
		bail_out("cannot index");
	check_mod(&tf, 0xffffffffc0001004ULL, "mod_fn", "mymod");
	check_mod(&tf, 0xffffffffc0000800ULL, "mod_low2", "other");	/* newest first */
	check_mod(&tf, 0xffffffffc0000900ULL, "mod_low", "other");	/* the last of the run */
	/* the module is what follows "\t[" up to a space, less its last character (the ']') */
	check_mod(&tf, 0xffffffffc0002000ULL, "weird", "mo");
	check_mod(&tf, 0xffffffffc0002100ULL, "empty_mod", "");
	check_mod(&tf, 0xffffffffc0003000ULL, "notmod", NULL);
	check_mod(&tf, 0xffffffff81000051ULL, "name_cr", NULL);
	check_mod(&tf, 0xffffffff81000050ULL, "name_cr", NULL);	/* cut once, found again */
	tf_ksyms_free(tf.ksyms);
	tf.ksyms = NULL;

	check_text("a NUL in the middle", nul, sizeof(nul) - 1, 1);
	text = malloc(sizeof(nul));
	if (!text || tf_ksyms_index(&tf, memcpy(text, nul, sizeof(nul)), sizeof(nul) - 1,
				    TF_TEXT_MALLOC, NULL, 0))
		bail_out("cannot index");
	text = NULL;
	{
		unsigned long long a = 0xffffffff81000100ULL;
		char *m, *name = tf_ksyms_find(&tf, &a, &m);

		ok(name && !strcmp(name, "cut_at_the"), "the text ends at a NUL (%s)",
		   name ? name : "nothing");
	}
	tf_ksyms_free(tf.ksyms);
	tf.ksyms = NULL;

	/* with AVX2 where the CPU has it, and with SSE2 only */
	for (simd = 0; simd < 2; simd++) {
		tf_ksyms_use_avx2(!simd);
		check_generated(simd ? ", SSE2" : "");
		if (ftk_read_file("/proc/kallsyms", &text, &len) == 0 && len > 0)
			check_text(simd ? "/proc/kallsyms, SSE2" : "/proc/kallsyms", text, len, 7);
		else
			skip("/proc/kallsyms is not readable");
		free(text);
		text = NULL;
	}
	tf_ksyms_use_avx2(1);

	/*
	 * Read as far as asked. A module inside the kernel's image would be
	 * missed by an answer from the head (tracefile-ksyms.c says why that
	 * cannot be): the generated modules lie above it.
	 */
	{
		struct text t = { 0 };

		gen_text(&t, 6000, 800, 0xffffffffc0000000ULL, 0x10000, 0, 1);
		check_part("generated, with _text", t.buf, t.len, 40, 60);
		gen_text(&t, 6000, 800, 0xffffffffc0000000ULL, 0x10000, 0, 0);
		check_part("generated, no _text", t.buf, t.len, 5, 20);
		free(t.buf);
		check_part("odd lines", odd, strlen(odd), 5, 20);
		check_part("a module's line above the kernel's", mod_above, strlen(mod_above), 40, 20);
		check_part("a line that stops the parse", stops, strlen(stops), 5, 20);
		if (ftk_read_file("/proc/kallsyms", &text, &len) == 0 && len > 0)
			check_part("/proc/kallsyms", text, len, 20, 40);
		else
			skip("/proc/kallsyms is not readable");
		free(text);
	}
	return done_testing();
}
