// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profiler's pieces that need no kernel: perf records decoded with
 * every length checked (good records, then each cut short or lying about
 * a length), folded stacks summed, read and written back, the top table's
 * self and total against sums done here, the flame graph's frame widths,
 * demangling against names c++filt gives, and naming this test's own
 * functions from its /proc/self/maps.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/sample.h>
#include <ftkit/stacks.h>
#include <ftkit/symbols.h>

#include "tap.h"

static unsigned char rec[4096];

/* Build a record: header then @n u64 words. */
static size_t mk(uint32_t type, const uint64_t *w, size_t n)
{
	struct perf_event_header h = { type, 0, (uint16_t)(sizeof(h) + n * 8) };

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), w, n * 8);
	return h.size;
}

static void set_size(uint16_t size)
{
	memcpy(rec + 6, &size, 2);
}

static void test_parse(void)
{
	struct perf_event_attr attr = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		.sample_id_all = 1,
	};
	/* ip, pid|tid, time, cpu, period, nr, 3 ips */
	uint64_t w[] = { 0x401000, 42 | (43ULL << 32), 1000, 1, 10101010, 3,
			 PERF_CONTEXT_USER, 0x401000, 0x401234 };
	struct ftk_sample s;
	size_t size, cut;
	int bad = 0;

	size = mk(PERF_RECORD_SAMPLE, w, 9);
	ok(!ftk_sample_parse(rec, size, &attr, &s), "a sample parses");
	ok(s.ip == 0x401000 && s.pid == 42 && s.tid == 43 && s.time == 1000 && s.cpu == 1 &&
	   s.period == 10101010, "its ip, pid, tid, time, cpu and period");
	ok(s.nr_ips == 3 && s.ips[2] == 0x401234, "its callchain");
	for (cut = 8; cut < size; cut += 8) {
		mk(PERF_RECORD_SAMPLE, w, 9);
		set_size(cut);
		if (ftk_sample_parse(rec, cut, &attr, &s) != -EBADMSG)
			bad++;
	}
	ok(!bad, "a sample cut short anywhere is -EBADMSG");
	w[5] = 1ULL << 40;	/* nr far past the record */
	size = mk(PERF_RECORD_SAMPLE, w, 9);
	ok(ftk_sample_parse(rec, size, &attr, &s) == -EBADMSG, "a callchain nr past the record");
	w[5] = 3;
	size = mk(PERF_RECORD_SAMPLE, w, 9);
	ok(ftk_sample_parse(rec, size - 1, &attr, &s) == -EBADMSG,
	   "a header size larger than the buffer");

	/* MMAP2: pid|tid, addr, len, pgoff, maj|min, ino, gen, prot|flags, "/bin/x\0\0", id */
	{
		uint64_t m[] = { 7 | (8ULL << 32), 0x400000, 0x1000, 0, 8 | (1ULL << 32), 1234, 0,
				 5 | (2ULL << 32), 0, 7 | (8ULL << 32), 2000, 1 };

		memcpy(&m[8], "/bin/x\0", 8);
		size = mk(PERF_RECORD_MMAP2, m, 12);
		ok(!ftk_sample_parse(rec, size, &attr, &s) && s.addr == 0x400000 &&
		   s.len == 0x1000 && s.ino == 1234 && s.maj == 8 && s.min == 1 && s.prot == 5 &&
		   !strcmp(s.filename, "/bin/x") && s.time == 2000 && s.pid == 7,
		   "an MMAP2 record with its sample_id trailer");
		memcpy(&m[8], "/bin/xyz", 8);	/* no NUL in the record */
		size = mk(PERF_RECORD_MMAP2, m, 9);
		ok(ftk_sample_parse(rec, size, &attr, &s) == -EBADMSG,
		   "an MMAP2 file name without its NUL");
	}
	{
		uint64_t l[] = { 99, 17, 5 | (5ULL << 32), 3000, 0 };

		size = mk(PERF_RECORD_LOST, l, 5);
		ok(!ftk_sample_parse(rec, size, &attr, &s) && s.lost == 17, "a LOST record");
		size = mk(PERF_RECORD_LOST_SAMPLES, l + 1, 4);
		ok(!ftk_sample_parse(rec, size, &attr, &s) && s.lost == 17,
		   "a LOST_SAMPLES record");
		size = mk(PERF_RECORD_LOST, l, 1);
		ok(ftk_sample_parse(rec, size, &attr, &s) == -EBADMSG, "a LOST record cut short");
	}
	{
		/* DWARF mode: regs (abi, bp, sp, ip), stack size 16, 16 bytes, dyn_size 8 */
		struct perf_event_attr a2 = {
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
				       PERF_SAMPLE_STACK_USER,
			.sample_regs_user = (1ULL << 6) | (1ULL << 7) | (1ULL << 8),
		};
		uint64_t d[] = { 0x401000, 2, 0x7ff0, 0x7fe0, 0x401000, 16, 11, 22, 8 };

		size = mk(PERF_RECORD_SAMPLE, d, 9);
		ok(!ftk_sample_parse(rec, size, &a2, &s) && s.regs[7] == 0x7fe0 &&
		   s.regs[8] == 0x401000 && s.stack_size == 8 &&
		   ((const uint64_t *)s.stack)[1] == 22, "user registers and stack");
		d[8] = 17;	/* dyn_size above the copied size */
		size = mk(PERF_RECORD_SAMPLE, d, 9);
		ok(ftk_sample_parse(rec, size, &a2, &s) == -EBADMSG, "a dyn_size above the size");
		d[8] = 8;
		d[5] = 1000;	/* stack size past the record */
		size = mk(PERF_RECORD_SAMPLE, d, 9);
		ok(ftk_sample_parse(rec, size, &a2, &s) == -EBADMSG, "a stack size past the record");
	}
}

static void test_stacks(void)
{
	struct ftk_stacks *st, *back;
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f;

	if (ftk_stacks_new(&st))
		bail_out("ftk_stacks_new");
	ftk_stacks_add(st, "app;main;a;spin", 60);
	ftk_stacks_add(st, "app;main;b;spin", 30);
	ftk_stacks_add(st, "app;main;a;spin", 5);
	ftk_stacks_add(st, "app;main", 5);
	ok(ftk_stacks_total(st) == 100 && ftk_stacks_nr(st) == 3, "weights sum by stack");
	ok(ftk_stacks_add(st, "", 1) == -EINVAL, "an empty stack is refused");

	f = open_memstream(&buf, &len);
	ftk_stacks_write_folded(st, f);
	fclose(f);
	ok(!strcmp(buf, "app;main 5\napp;main;a;spin 65\napp;main;b;spin 30\n"),
	   "folded output, sorted");
	f = fmemopen(buf, len, "r");
	ftk_stacks_new(&back);
	ok(!ftk_stacks_read(back, f, "mem", err, sizeof(err)) && ftk_stacks_total(back) == 100 &&
	   ftk_stacks_nr(back) == 3, "folded text reads back");
	fclose(f);
	ftk_stacks_free(back);
	free(buf);

	f = fmemopen("a;b 3\nno weight here\n", 21, "r");
	ftk_stacks_new(&back);
	ok(ftk_stacks_read(back, f, "in.folded", err, sizeof(err)) == -EINVAL &&
	   strstr(err, "in.folded:2"), "a malformed line is named by file and line: %s", err);
	fclose(f);
	ftk_stacks_free(back);

	/*
	 * Off-CPU: every leaf is the scheduler's; FTK_STACKS_WAITS gives self to
	 * what waited (the first frame above schedule and the tracepoint).
	 */
	{
		struct ftk_stacks_func *tab = NULL;
		long n, i;

		ftk_stacks_new(&back);
		ftk_stacks_add(back, "app;main;do_nanosleep_[k];schedule_[k];__schedule_[k];"
			       "__traceiter_sched_switch_[k]", 900);
		ftk_stacks_add(back, "app;main;read;folio_wait_bit_common_[k];io_schedule_[k];"
			       "schedule_[k];__schedule_[k];__traceiter_sched_switch_[k]", 90);
		ftk_stacks_add(back, "app;main;spin", 10);
		n = ftk_stacks_top(back, &tab);
		ok(n > 0 && !strcmp(tab[0].name, "__traceiter_sched_switch_[k]") && tab[0].self == 990,
		   "on-CPU rules: self in the leaf, __traceiter_sched_switch_[k] (%s)",
		   n > 0 ? tab[0].name : "none");
		free(tab);
		ftk_stacks_set_flags(back, FTK_STACKS_WAITS);
		n = ftk_stacks_top(back, &tab);
		ok(n > 2 && !strcmp(tab[0].name, "do_nanosleep_[k]") && tab[0].self == 900 &&
		   !strcmp(tab[1].name, "folio_wait_bit_common_[k]") && tab[1].self == 90 &&
		   !strcmp(tab[2].name, "spin") && tab[2].self == 10,
		   "FTK_STACKS_WAITS: self in do_nanosleep 900, folio_wait_bit_common 90, spin 10");
		for (i = 0; i < n && strcmp(tab[i].name, "__schedule_[k]"); i++)
			;
		ok(i < n && tab[i].self == 0 && tab[i].total == 990,
		   "FTK_STACKS_WAITS: __schedule keeps its total, 990, and no self");
		free(tab);
		ftk_stacks_free(back);
	}

	/* A program's own line mixed into the stacks is no count of samples (2^53 at most). */
	{
		static const char *const bad[] = {
			"a;b 3\ndone 13803471505900157720\n",
			"a;b 9007199254740992\na;c 1\n",	/* the sum passes 2^53 */
			"a;b 3\nx 99999999999999999999999\n",	/* past 2^64 */
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
			ftk_stacks_new(&back);
			ok(ftk_stacks_read(back, f, "in.folded", err, sizeof(err)) == -EINVAL &&
			   strstr(err, "in.folded:2: not a folded stack"),
			   "a weight past 2^53 is refused, naming line 2: %s", err);
			fclose(f);
			ftk_stacks_free(back);
		}
		f = fmemopen("a;b 9007199254740991\na;c 1\n", 26, "r");
		ftk_stacks_new(&back);
		ok(!ftk_stacks_read(back, f, "in.folded", err, sizeof(err)) &&
		   ftk_stacks_total(back) == 9007199254740992ULL, "weights up to 2^53 are read");
		fclose(f);
		ftk_stacks_free(back);
	}

	buf = NULL;
	f = open_memstream(&buf, &len);
	ftk_stacks_write_top(st, f, 0, "samples");
	fclose(f);
	/* spin: self 95, total 95; main: self 5, total 100; a: total 65; b: total 30 */
	ok(strstr(buf, "95.00%    95.00%            95  spin\n") &&
	   strstr(buf, " 5.00%   100.00%             5  main\n") &&
	   strstr(buf, " 0.00%    65.00%             0  a\n"), "top: self and total");
	if (!strstr(buf, "spin"))
		diag("%s", buf);
	free(buf);

	{
		struct ftk_stacks_func *v;
		long n = ftk_stacks_top(st, &v), i, a = -1;

		ok(n > 0 && !strcmp(v[0].name, "spin") && v[0].self == 95 && v[0].total == 95,
		   "ftk_stacks_top: spin first, self 95, total 95");
		for (i = 0; i < n; i++)
			if (!strcmp(v[i].name, "a"))
				a = i;
		ok(a > 0 && v[a].self == 0 && v[a].total == 65, "ftk_stacks_top: a, self 0, total 65");
		free(v);
	}

	buf = NULL;
	f = open_memstream(&buf, &len);
	ftk_stacks_write_svg(st, NULL, f, "t<&>", "samples");
	fclose(f);
	/* 1180 px for 100 samples: spin under a is 65 wide, at 10 + 0 */
	ok(strstr(buf, "data-n=\"spin\"><title>spin (65 samples, 65.00%)</title><rect x=\"10.00\"") &&
	   strstr(buf, "width=\"767.00\""), "svg: a frame as wide as its weight");
	ok(strstr(buf, "t&lt;&amp;&gt;") != NULL, "svg: the title escaped");
	free(buf);
	ftk_stacks_clear(st);
	ok(ftk_stacks_total(st) == 0 && ftk_stacks_nr(st) == 0, "clear: no stack left");
	ftk_stacks_add(st, "x;y", 2);
	ftk_stacks_add(st, "x;y", 3);
	ok(ftk_stacks_total(st) == 5 && ftk_stacks_nr(st) == 1, "clear: stacks sum again after it");
	ftk_stacks_free(st);
}

__attribute__((noinline)) int t6201_known_function(int x)
{
	return x * 3 + 1;
}

static void test_symbols(void)
{
	struct ftk_symbols *s;
	struct ftk_frame f;
	char *d;
	int ret;

	d = ftk_symbols_demangle("_ZN3foo3barEi");
	ok(d && !strcmp(d, "foo::bar(int)"), "demangle C++: %s", d ? d : "(null)");
	free(d);
	d = ftk_symbols_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	ok(d && !strcmp(d, "core::fmt::write"), "demangle Rust legacy: %s", d ? d : "(null)");
	free(d);
	d = ftk_symbols_demangle("_RNvCs1234_7mycrate3foo");
	ok(d && strstr(d, "mycrate") && strstr(d, "foo"), "demangle Rust v0: %s", d ? d : "(null)");
	free(d);
	ok(!ftk_symbols_demangle("main"), "a plain name is not demangled");

	if (ftk_symbols_new(FTK_SYMBOLS_NO_KERNEL, &s))
		bail_out("ftk_symbols_new");
	ok(!ftk_symbols_load_pid(s, getpid()), "own /proc/self/maps");
	ret = ftk_symbols_resolve(s, getpid(), (uintptr_t)&t6201_known_function + 1, &f);
	ok(!ret && !strcmp(f.name, "t6201_known_function") && f.offset == 1 &&
	   f.kind == FTK_FRAME_USER, "own function named: %s+%llu", f.name,
	   (unsigned long long)f.offset);
	ok(ftk_symbols_resolve(s, getpid(), 16, &f) == 1 && !strcmp(f.name, "[unknown]") &&
	   !strcmp(f.object, "[unmapped]"), "an unmapped address is [unknown] [unmapped]");
	ok(ftk_symbols_load_pid(s, 999999999) == -ENOENT && strstr(ftk_symbols_errmsg(s), "maps"),
	   "a missing process: -ENOENT, %s", ftk_symbols_errmsg(s));
	ftk_symbols_free(s);
}

int main(void)
{
	need_lane("unit");
	test_parse();
	test_stacks();
	test_symbols();
	return done_testing();
}
