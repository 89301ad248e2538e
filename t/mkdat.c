// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkdat: write a synthetic trace.dat (version 6) for tests and benchmarks.
 *
 *	mkdat [-n events] [-c cpus] [-s subbuf] [-l 4|8] [-E] [-k clock]
 *	      [-m] [-x] [-t] [-S seed] [-D date] [-O offset] -o file
 *
 * Events are sched_switch, sched_wakeup, ftrace print and a test event
 * with a big payload, from a seeded generator, packed into sub-buffers the
 * way the kernel's ring buffer lays them out: 4-byte entry headers, time
 * extends for long gaps (-x makes them frequent), missed-event flags and
 * counts on some sub-buffers (-m), either endianness (-E: big) and long
 * size (-l). trace-cmd convert turns the result into version 7 files.
 * -t adds an instance buffer "ftkit-inst" with its own data; -D and -O
 * write the DATE (microseconds, "0x..." as trace-cmd record --date does)
 * and OFFSET (nanoseconds) options; -T mult,shift the TSC2NSEC option;
 * -g adds ftrace function, function_graph and kernel_stack events (8-byte
 * longs only).
 * -Z flags,count[,scaling,fraction] writes a guest's TIME_SHIFT option
 * (trace-cmd record -A): count samples per CPU around the events' times,
 * with offsets that go up and down, CPU 1's in reverse order and CPU 0's
 * with one time twice; without scaling,fraction the option is trace-cmd
 * 2.9's (scaling 1, no fraction arrays). -I id writes TRACEID, -G
 * name,id,vcpus a host's GUEST option, -P two PROCMAPS options; -R REASON
 * makes one ftrace print event (the first after half the events) the
 * flight recorder's reason mark, "ftkit flight trigger: REASON".
 * -b adds ftrace bprint (trace_printk()) and bputs (trace_puts())
 * events over a set of formats, their arguments packed as the kernel's
 * vbin_printf() packs them, and a printk formats section listing the
 * formats and strings (escaped as the kernel's printk_formats file
 * escapes them); one bprint format address and one bputs string address
 * are not in it. -B (with -b) writes, last of all, a bprint record cut
 * short; -B twice also formats libtraceevent pairs with their arguments
 * otherwise than the kernel packs them, half way. Each makes
 * libtraceevent give up on bprint from then on.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int big, lsize = 8, ncpu = 2, missed, extends, instance, graph;
static unsigned int subbuf = 4096;
static unsigned long long nevents = 1000, seed = 1;
static const char *clock_name = "local", *date_opt, *offset_opt;
static unsigned int tsc_mult, tsc_shift;
static const char *tshift_opt, *traceid_opt, *guest_opt;
static int procmaps, bprint, bprint_bad;
static const char *reason;
static FILE *out;

static unsigned long long rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void put(unsigned char *p, unsigned long long v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[big ? n - 1 - i : i] = v >> (8 * i);
}

static void wnum(unsigned long long v, int n)
{
	unsigned char b[8];

	put(b, v, n);
	fwrite(b, 1, n, out);
}

static void wblock(const char *s, int width)
{
	wnum(strlen(s), width);
	fwrite(s, 1, strlen(s), out);
}

static const char common[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";

static const char *comms[] = { "bash", "kworker/0:1", "sshd", "make", "cc1", "ls" };
static const int pids[] = { 1234, 42, 777, 4321, 4400, 5000 };

static char fmt_switch[2048], fmt_wakeup[1024], fmt_print[1024], fmt_blob[1024];
static char fmt_func[1024], fmt_gent[1024], fmt_gret[1024], fmt_stack[2048];
static char fmt_bprint[1024], fmt_bputs[1024];

/*
 * trace_printk() formats (-b): the C text and the arguments it takes, one
 * letter each: i int, l long, L long long, c char, h short, s string,
 * p pointer, w a '*' width or precision (int). Those after BP_GOOD only
 * with -B: libtraceevent pairs them with their arguments otherwise than
 * the kernel packs them and gives up.
 */
static const struct { const char *fmt, *args; } bpfmts[] = {
	{ "hello from trace_printk\\n", "" },
	{ "%s: count=%d flags=%x\\n", "sii" },
	{ "pid %d comm %s prio %u\\n", "isi" },
	{ "%lx %llu %lld %zu\\n", "lLLl" },
	{ "ip=%pS caller=%ps\\n", "pp" },
	{ "ptr %p raw %px end\\n", "pp" },
	{ "[%5d|%05u|%8.3s|%.2s|%#x|%08lx]\\n", "iissil" },
	{ "%c%c then %d\\n", "cci" },
	{ "100%% done, %d%% left\\n", "i" },
	{ "width %*d prec %.*s|\\n", "wiws" },
	{ "tab\\there \\\"quoted\\\" and \\ back\\n", "" },
	{ "neg %d %ld %lld %i\\n", "illi" },
	{ "%u %i %X %o %lu\\n", "iiiil" },
	{ "%s and %s and %s\\n", "sss" },
	{ "no newline at the end %d", "i" },
	{ "eight %d %d %d %d %d %d %d %d\\n", "iiiiiiii" },
	{ "%lld%s%llx\\n", "LsL" },
	/* -B only */
	{ "left %-5d|%d\\n", "ii" },
	{ "short %hd %hhu %d\\n", "hci" },
};
#define BP_GOOD	17
#define BP_ADDR(i)	(0xffffffff82400000ULL + 0x40 * (i))

/* trace_puts() strings (-b) */
static const char *bpstrs[] = { "trace_puts here\\n", "puts without newline", "a\\ttab" };
#define BS_ADDR(i)	(0xffffffff82500000ULL + 0x40 * (i))

/* Function graph state per CPU: the open calls. */
static unsigned long long gfunc[64][16], gcall[64][16];
static int gdepth[64];
static const unsigned long long funcs[] = {
	0xffffffff81000200ULL, 0xffffffff81000300ULL, 0xffffffff81000400ULL, 0xffffffff81000500ULL,
	0xffffffff81000100ULL, 0xffffffff90000000ULL,	/* the last one is not in kallsyms */
};

static void make_formats(void)
{
	snprintf(fmt_switch, sizeof(fmt_switch),
		 "name: sched_switch\nID: 372\nformat:\n%s"
		 "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		 "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		 "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
		 "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
		 "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
		 "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"prev_comm=%%s prev_pid=%%d prev_prio=%%d prev_state=%%s%%s ==> next_comm=%%s next_pid=%%d next_prio=%%d\", "
		 "REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
		 "__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", "
		 "{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
		 "REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n",
		 common);
	snprintf(fmt_wakeup, sizeof(fmt_wakeup),
		 "name: sched_wakeup\nID: 374\nformat:\n%s"
		 "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		 "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		 "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"comm=%%s pid=%%d prio=%%d target_cpu=%%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n",
		 common);
	snprintf(fmt_print, sizeof(fmt_print),
		 "name: print\nID: 5\nformat:\n%s"
		 "\tfield:unsigned long ip;\toffset:8;\tsize:%d;\tsigned:0;\n"
		 "\tfield:char buf[];\toffset:%d;\tsize:0;\tsigned:0;\n\n"
		 "print fmt: \"%%ps: %%s\", (void *)REC->ip, REC->buf\n",
		 common, lsize, 8 + lsize);
	snprintf(fmt_blob, sizeof(fmt_blob),
		 "name: ftkit_blob\nID: 900\nformat:\n%s"
		 "\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:u32 len;\toffset:16;\tsize:4;\tsigned:0;\n"
		 "\tfield:u8 bytes[180];\toffset:20;\tsize:180;\tsigned:0;\n\n"
		 "print fmt: \"seq=%%llu len=%%u\", REC->seq, REC->len\n",
		 common);
	snprintf(fmt_func, sizeof(fmt_func),
		 "name: function\nID: 1\nformat:\n%s"
		 "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
		 "print fmt: \" %%ps <-- %%ps\", (void *)REC->ip, (void *)REC->parent_ip\n", common);
	snprintf(fmt_gent, sizeof(fmt_gent),
		 "name: funcgraph_entry\nID: 11\nformat:\n%s"
		 "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n\n"
		 "print fmt: \"--> %%ps (%%u)\", (void *)REC->func, REC->depth\n", common);
	snprintf(fmt_gret, sizeof(fmt_gret),
		 "name: funcgraph_exit\nID: 10\nformat:\n%s"
		 "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \"<-- %%ps (%%u) (start: %%llx  end: %%llx) over: %%u\", (void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth\n",
		 common);
	snprintf(fmt_stack, sizeof(fmt_stack),
		 "name: kernel_stack\nID: 4\nformat:\n%s"
		 "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
		 "print fmt: \"\\t=> %%ps\\n\\t=> %%ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1]\n",
		 common);
	snprintf(fmt_bprint, sizeof(fmt_bprint),
		 "name: bprint\nID: 6\nformat:\n%s"
		 "\tfield:unsigned long ip;\toffset:8;\tsize:%d;\tsigned:0;\n"
		 "\tfield:const char * fmt;\toffset:%d;\tsize:%d;\tsigned:0;\n"
		 "\tfield:u32 buf[];\toffset:%d;\tsize:0;\tsigned:0;\n\n"
		 "print fmt: \"%%ps: %%s\", (void *)REC->ip, REC->fmt\n",
		 common, lsize, 8 + lsize, lsize, 8 + 2 * lsize);
	snprintf(fmt_bputs, sizeof(fmt_bputs),
		 "name: bputs\nID: 14\nformat:\n%s"
		 "\tfield:unsigned long ip;\toffset:8;\tsize:%d;\tsigned:0;\n"
		 "\tfield:const char * str;\toffset:%d;\tsize:%d;\tsigned:0;\n\n"
		 "print fmt: \"%%ps: %%s\", (void *)REC->ip, REC->str\n",
		 common, lsize, 8 + lsize, lsize);
}

/*
 * The printk formats section (-b): "0xADDR : \"TEXT\"" lines. The
 * formats above are written as C source, so their escapes are already
 * those of the kernel's printk_formats file (\n, \t, \"); one line twice,
 * as real kernels list some, and one without quotes, as the kernel never
 * writes it (libtraceevent then keeps a trailing "\n").
 */
static char *printk_text(void)
{
	static char text[8192];
	size_t n = 0, i;

	if (!bprint)
		return "";
	for (i = 0; i < sizeof(bpfmts) / sizeof(bpfmts[0]); i++)
		n += snprintf(text + n, sizeof(text) - n, "0x%llx : \"%s\"\n", BP_ADDR(i),
			      bpfmts[i].fmt);
	for (i = 0; i < sizeof(bpstrs) / sizeof(bpstrs[0]); i++)
		n += snprintf(text + n, sizeof(text) - n, "0x%llx : \"%s\"\n", BS_ADDR(i), bpstrs[i]);
	n += snprintf(text + n, sizeof(text) - n, "0x%llx : \"%s\"\n", BS_ADDR(0), bpstrs[0]);
	/* not the kernel's: no quotes, so libtraceevent keeps the "\n" */
	snprintf(text + n, sizeof(text) - n, "0x%llx : unquoted\\n\n", BS_ADDR(3));
	return text;
}

/* @v at @off of @buf aligned to @align, as vbin_printf()'s save_arg(); the new offset. */
static int save_arg(unsigned char *buf, int off, unsigned long long v, int size, int align)
{
	off = (off + align - 1) / align * align;
	put(buf + off, v, size);
	return off + size;
}

/* A string for %s: a word, sometimes empty. */
static const char *bp_words[] = { "alpha", "", "kworker/u8:2", "x", "a longer string here" };

/* A bprint or bputs event into @p; its length. @fmt: the format index, or -1 for any good one. */
static int make_bprint_event(unsigned char *p, int who, int fmt)
{
	int i = fmt >= 0 ? fmt : (int)(rnd() % (BP_GOOD + 1)), off = 0, n, size;
	unsigned char *buf = p + 8 + 2 * lsize;
	unsigned long long v;
	const char *a;

	memset(p, 0, 256);
	put(p + 4, pids[who], 4);
	put(p + 8, funcs[rnd() % 6] + rnd() % 32, lsize);
	if (fmt < 0 && rnd() % 6 == 0) {
		/* bputs: one of the strings, or an address not listed */
		n = rnd() % 5;
		put(p, 14, 2);
		put(p + 8 + lsize, n < 4 ? BS_ADDR(n) : 0xffffffff82600008ULL, lsize);
		return 8 + 2 * lsize;
	}
	put(p, 6, 2);
	if (fmt < 0 && i == BP_GOOD) {
		/* a format address the printk formats do not list */
		put(p + 8 + lsize, 0xffffffff82700010ULL, lsize);
		put(buf, rnd(), 4);
		return 8 + 2 * lsize + 4;
	}
	put(p + 8 + lsize, BP_ADDR(i), lsize);
	for (a = bpfmts[i].args; *a; a++) {
		v = rnd();
		if (rnd() % 3 == 0)
			v %= 1000;
		if (rnd() % 5 == 0)
			v = -v;
		switch (*a) {
		case 'i':
			off = save_arg(buf, off, v, 4, 4);
			break;
		case 'w':
			off = save_arg(buf, off, v % 12, 4, 4);
			break;
		case 'h':
			off = save_arg(buf, off, v, 2, 2);
			break;
		case 'c':
			off = save_arg(buf, off, 'A' + v % 26, 1, 1);
			break;
		case 'l':
		case 'p':
			if (*a == 'p' && rnd() % 3 == 0)
				v = rnd() % 4 ? funcs[rnd() % 6] + rnd() % 64 : 0;
			off = save_arg(buf, off, v, lsize, 4);
			break;
		case 'L':
			off = save_arg(buf, off, v, 8, 4);
			break;
		case 's':
			n = strlen(bp_words[v % 5]) + 1;
			memcpy(buf + off, bp_words[v % 5], n);
			off += n;
			break;
		}
	}
	size = (off + 3) / 4 * 4;
	return 8 + 2 * lsize + size;
}

/* A function, function_graph or kernel_stack event for @cpu at @ts into @p; its length. */
static int make_ftrace_event(unsigned char *p, int cpu, unsigned long long ts)
{
	int k = rnd() % 10, who = rnd() % 6, n, d;

	memset(p, 0, 256);
	put(p + 4, pids[who], 4);
	if (k < 2) {
		put(p, 1, 2);
		put(p + 8, funcs[rnd() % 6] + rnd() % 16, 8);
		put(p + 16, funcs[rnd() % 6] + rnd() % 16, 8);
		return 24;
	}
	if (k < 3) {
		put(p, 4, 2);
		n = 1 + rnd() % 8;
		put(p + 8, n, 4);
		for (d = 0; d < 8; d++)
			put(p + 16 + 8 * d, d < n ? funcs[rnd() % 6] + rnd() % 64 : ~0ULL, 8);
		return 80;
	}
	put(p + 4, pids[cpu % 6], 4);	/* one task per CPU: entry and return pair up */
	d = gdepth[cpu];
	if (d > 0 && (d >= 15 || rnd() % 2)) {
		d = --gdepth[cpu];
		put(p, 10, 2);
		put(p + 8, gfunc[cpu][d], 8);
		put(p + 16, d, 4);
		put(p + 24, gcall[cpu][d], 8);
		put(p + 32, ts, 8);
		return 40;
	}
	gfunc[cpu][d] = funcs[rnd() % 6];
	gcall[cpu][d] = ts;
	gdepth[cpu]++;
	put(p, 11, 2);
	put(p + 8, gfunc[cpu][d], 8);
	put(p + 16, d, 4);
	return 24;
}


/* One event payload into @p; returns its length. */
static int make_event(unsigned char *p, unsigned long long seq)
{
	int k = rnd() % 10, who = rnd() % 6, to = rnd() % 6, n;
	char msg[128];

	memset(p, 0, 256);
	if (k < 5) {
		put(p, 372, 2);
		p[2] = rnd() & 0x9;
		p[3] = rnd() % 3;
		put(p + 4, pids[who], 4);
		strcpy((char *)p + 8, comms[who]);
		put(p + 24, pids[who], 4);
		put(p + 28, 120, 4);
		put(p + 32, rnd() % 3, 8);
		strcpy((char *)p + 40, comms[to]);
		put(p + 56, pids[to], 4);
		put(p + 60, 120, 4);
		return 64;
	}
	if (k < 8) {
		put(p, 374, 2);
		put(p + 4, pids[who], 4);
		strcpy((char *)p + 8, comms[to]);
		put(p + 24, pids[to], 4);
		put(p + 28, 100 + rnd() % 40, 4);
		put(p + 32, rnd() % ncpu, 4);
		return 36;
	}
	if (k < 9) {
		put(p, 5, 2);
		put(p + 4, pids[who], 4);
		put(p + 8, 0xffffffff81000100ULL, lsize);
		if (reason && seq >= nevents / 2) {
			/* the flight recorder's reason mark (FTK_FLIGHT_MARK), once */
			n = snprintf(msg, sizeof(msg), "ftkit flight trigger: %s\n", reason);
			reason = NULL;
		} else {
			n = snprintf(msg, sizeof(msg), "hello %llu", seq);
		}
		memcpy(p + 8 + lsize, msg, n + 1);
		return 8 + lsize + n + 1;
	}
	put(p, 900, 2);
	put(p + 4, pids[who], 4);
	put(p + 8, seq, 8);
	put(p + 16, 180, 4);
	for (n = 0; n < 180; n++)
		p[20 + n] = rnd();
	return 200;
}

struct cpubuf {
	unsigned char	*page;
	unsigned int	used;		/* bytes after the header */
	unsigned long long last_ts;
	FILE		*spool;
	unsigned long long pages;
	unsigned long long page_seq;
};

static unsigned int hdr(void) { return 8 + lsize; }

static void flush_page(struct cpubuf *c)
{
	unsigned long long commit = c->used;

	if (!c->used)
		return;
	if (missed && c->page_seq % 7 == 3) {
		commit |= 1ULL << 31;
		if (c->page_seq % 14 == 3 && hdr() + c->used + lsize <= subbuf) {
			commit |= 1ULL << 30;
			put(c->page + hdr() + c->used, 1000 + c->page_seq, lsize);
		}
	}
	put(c->page + 8, commit, lsize);
	fwrite(c->page, 1, subbuf, c->spool);
	memset(c->page, 0, subbuf);
	c->used = 0;
	c->pages++;
	c->page_seq++;
}

static void add_event(struct cpubuf *c, unsigned long long ts, const unsigned char *data, int len)
{
	unsigned long long delta;
	unsigned int need, alen = (len + 3) & ~3U;
	unsigned char *p;

	need = 8 + alen + 8 + (missed ? lsize : 0);
	if (hdr() + c->used + need > subbuf)
		flush_page(c);
	if (!c->used) {
		put(c->page, ts, 8);
		c->last_ts = ts;
	}
	delta = ts - c->last_ts;
	p = c->page + hdr() + c->used;
	if (delta >= (1ULL << 27)) {
		/* time extend: type 30, low 27 bits in the header, the rest in array[0] */
		unsigned long long w = big ? ((30ULL << 27) | (delta & ((1 << 27) - 1)))
					   : (30 | ((delta & ((1 << 27) - 1)) << 5));
		put(p, w, 4);
		put(p + 4, delta >> 27, 4);
		p += 8;
		c->used += 8;
		delta = 0;
	}
	if (alen > 112) {
		/* type_len 0: the length (data + 4) in array[0] */
		put(p, big ? delta : (delta << 5), 4);
		put(p + 4, alen + 4, 4);
		memcpy(p + 8, data, len);
		c->used += 8 + alen;
	} else {
		put(p, big ? (((unsigned long long)alen / 4) << 27) | delta
			   : (alen / 4) | (delta << 5), 4);
		memcpy(p + 4, data, len);
		c->used += 4 + alen;
	}
	c->last_ts = ts;
}

/* TIME_SHIFT: u64 peer id, u32 flags, u32 cpus, per CPU u32 count + times, offsets, scalings; fractions. */
static void write_time_shift(void)
{
	unsigned int flags = 0, count = 0, k, cpu;
	long long scaling = 1, fraction = -1, t, o;
	unsigned long long size;

	sscanf(tshift_opt, "%u,%u,%lld,%lld", &flags, &count, &scaling, &fraction);
	if (count < 1)
		count = 1;
	size = 16 + ncpu * (4 + 24ULL * count) + (fraction >= 0 ? ncpu * 8ULL * count : 0);
	wnum(12, 2);
	wnum(size, 4);
	wnum(0xfeedf00d12345678ULL, 8);
	wnum(flags, 4);
	wnum(ncpu, 4);
	for (cpu = 0; cpu < (unsigned int)ncpu; cpu++) {
		wnum(count, 4);
		for (k = 0; k < count; k++) {
			unsigned int i = cpu == 1 ? count - 1 - k : k;

			t = 1000000000LL - 500000 + i * 1000000LL + cpu * 1234;
			if (cpu == 0 && count > 2 && i == 2)
				t = 1000000000LL - 500000 + 1000000LL;	/* the time of sample 1 again */
			wnum(t, 8);
		}
		for (k = 0; k < count; k++) {
			unsigned int i = cpu == 1 ? count - 1 - k : k;

			o = -500000000LL + (long long)(i % 2 ? 7777 : -3333) * (i + 1) + cpu * 1000;
			wnum(o, 8);
		}
		for (k = 0; k < count; k++)
			wnum(scaling, 8);
	}
	if (fraction >= 0)
		for (cpu = 0; cpu < (unsigned int)ncpu; cpu++)
			for (k = 0; k < count; k++)
				wnum(fraction, 8);
}

static void write_guest(void)
{
	unsigned long long id = 0;
	char name[64] = "guest";
	int vcpus = 1, i;

	sscanf(guest_opt, "%63[^,],%llx,%d", name, &id, &vcpus);
	wnum(13, 2);
	wnum(strlen(name) + 1 + 8 + 4 + 8 * vcpus, 4);
	fwrite(name, 1, strlen(name) + 1, out);
	wnum(id, 8);
	wnum(vcpus, 4);
	for (i = 0; i < vcpus; i++) {
		wnum(i, 4);
		wnum(3000 + i, 4);
	}
}

static void write_procmaps(void)
{
	static const char *maps[] = {
		"4d2 3 bash\n55d0c0a00000 55d0c0b00000 /usr/bin/bash\n"
		"7f0000000000 7f0000200000 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
		"7f0000400000 7f0000430000 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n",
		"10e1 2 make\n5600aa000000 5600aa100000 /usr/bin/make\n"
		"7f1000000000 7f1000200000 /usr/lib/x86_64-linux-gnu/libc.so.6\n",
	};
	int i;

	for (i = 0; i < 2; i++) {
		wnum(10, 2);
		wnum(strlen(maps[i]) + 1, 4);
		fwrite(maps[i], 1, strlen(maps[i]) + 1, out);
	}
}

static void copy_spool(struct cpubuf *c)
{
	char buf[65536];
	size_t n;

	rewind(c->spool);
	while ((n = fread(buf, 1, sizeof(buf), c->spool)) > 0)
		fwrite(buf, 1, n, out);
}

static void gen(struct cpubuf *cb, unsigned long long n, unsigned long long base)
{
	unsigned long long i, ts[64];
	unsigned char data[256];
	int cpu, len;

	for (cpu = 0; cpu < ncpu; cpu++) {
		cb[cpu].page = calloc(1, subbuf);
		cb[cpu].spool = tmpfile();
		/* CPU 1 starts late */
		ts[cpu] = base + (cpu == 1 ? 5000000 : 0);
	}
	for (i = 0; i < n; i++) {
		cpu = rnd() % ncpu;
		if (ncpu > 2 && cpu == ncpu - 1)
			cpu = 0;	/* the last CPU stays empty when there are more than 2 */
		ts[cpu] += extends && rnd() % 5 == 0 ? (1ULL << 27) + rnd() % (1ULL << 30)
						    : rnd() % 3000;
		if (i % 97 == 0 && cpu + 1 < ncpu && ts[cpu + 1] < ts[cpu] &&
		    cb[cpu + 1].used)
			ts[cpu + 1] = ts[cpu];	/* equal stamps across CPUs */
		if (graph && rnd() % 2)
			len = make_ftrace_event(data, cpu, ts[cpu]);
		else if (bprint && rnd() % 3 == 0)
			len = make_bprint_event(data, rnd() % 6,
						bprint_bad > 1 && i == n / 2 ? BP_GOOD + (int)(rnd() % 2) : -1);
		else
			len = make_event(data, i);
		add_event(&cb[cpu], ts[cpu], data, len);
	}
	if (bprint_bad) {
		/* last: the string of "%s: count=%d flags=%x" and nothing after it */
		unsigned long long last = 0;

		for (cpu = 0; cpu < ncpu; cpu++)
			last = ts[cpu] > last ? ts[cpu] : last;
		len = make_bprint_event(data, 0, 1);
		memcpy(data + 8 + 2 * lsize, "cut", 4);
		add_event(&cb[0], last + 1000, data, 8 + 2 * lsize + 4);
	}
	for (cpu = 0; cpu < ncpu; cpu++)
		flush_page(&cb[cpu]);
}

static void write_cpu_table(struct cpubuf *cb, long table_at)
{
	unsigned long long off;
	int cpu;

	off = (ftell(out) + subbuf - 1) / subbuf * subbuf;
	fseek(out, table_at, SEEK_SET);
	for (cpu = 0; cpu < ncpu; cpu++) {
		wnum(cb[cpu].pages ? off : 0, 8);
		wnum(cb[cpu].pages * subbuf, 8);
		off += cb[cpu].pages * subbuf;
	}
	fseek(out, 0, SEEK_END);
	off = (ftell(out) + subbuf - 1) / subbuf * subbuf;
	while ((unsigned long long)ftell(out) < off)
		fputc(0, out);
	for (cpu = 0; cpu < ncpu; cpu++)
		copy_spool(&cb[cpu]);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	struct cpubuf top[64] = { 0 }, inst[64] = { 0 };
	char hp[512], clk[64];
	long table_at, buf_opt_at = 0, inst_table_at;
	int c;

	while ((c = getopt(argc, argv, "n:c:s:l:Ek:mxtS:o:D:O:T:gZ:I:G:PR:bB")) != -1) {
		switch (c) {
		case 'n': nevents = strtoull(optarg, NULL, 0); break;
		case 'c': ncpu = atoi(optarg); break;
		case 's': subbuf = strtoul(optarg, NULL, 0); break;
		case 'l': lsize = atoi(optarg); break;
		case 'E': big = 1; break;
		case 'k': clock_name = optarg; break;
		case 'm': missed = 1; break;
		case 'x': extends = 1; break;
		case 't': instance = 1; break;
		case 'S': seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'o': path = optarg; break;
		case 'D': date_opt = optarg; break;
		case 'O': offset_opt = optarg; break;
		case 'g': graph = 1; break;
		case 'T': sscanf(optarg, "%u,%u", &tsc_mult, &tsc_shift); break;
		case 'Z': tshift_opt = optarg; break;
		case 'I': traceid_opt = optarg; break;
		case 'G': guest_opt = optarg; break;
		case 'P': procmaps = 1; break;
		case 'R': reason = optarg; break;
		case 'b': bprint = 1; break;
		case 'B': bprint_bad++; break;
		default:
			fprintf(stderr, "usage: mkdat [-n events] [-c cpus] [-s subbuf] [-l 4|8] [-E] [-k clock] [-m] [-x] [-t] [-S seed] [-D date] [-O offset] [-T mult,shift] [-Z flags,count[,scaling,fraction]] [-I id] [-G name,id,vcpus] [-P] [-R reason] [-b [-B]] -o file\n");
			return 1;
		}
	}
	if (!path || ncpu < 1 || ncpu > 64 || (lsize != 4 && lsize != 8) || subbuf < 256 ||
	    (graph && lsize != 8) || (bprint_bad && !bprint)) {
		fprintf(stderr, "mkdat: bad arguments\n");
		return 1;
	}
	out = fopen(path, "w+");
	if (!out) {
		perror(path);
		return 2;
	}
	make_formats();
	fwrite("\027\010\104tracing6", 1, 12, out);
	fputc(big, out);
	fputc(lsize, out);
	wnum(subbuf, 4);
	snprintf(hp, sizeof(hp),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:%d;\tsize:%u;\tsigned:0;\n",
		 lsize, 8 + lsize, subbuf - 8 - lsize);
	fwrite("header_page", 1, 12, out);
	wblock(hp, 8);
	fwrite("header_event", 1, 13, out);
	wblock("# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	       "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	       "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n", 8);
	wnum((graph ? 5 : 1) + (bprint ? 2 : 0), 4);	/* ftrace formats */
	wblock(fmt_print, 8);
	if (bprint) {
		wblock(fmt_bprint, 8);
		wblock(fmt_bputs, 8);
	}
	if (graph) {
		wblock(fmt_func, 8);
		wblock(fmt_gent, 8);
		wblock(fmt_gret, 8);
		wblock(fmt_stack, 8);
	}
	wnum(2, 4);			/* systems */
	fwrite("sched", 1, 6, out);
	wnum(2, 4);
	wblock(fmt_switch, 8);
	wblock(fmt_wakeup, 8);
	fwrite("ftkit", 1, 6, out);
	wnum(1, 4);
	wblock(fmt_blob, 8);
	wblock("ffffffff81000000 T _stext\nffffffff81000100 T do_test_thing\n"
	       "ffffffff81000200 T vfs_read\nffffffff81000300 T ksys_read\n"
	       "ffffffff81000400 T __x64_sys_read\nffffffff81000500 T rw_verify_area\n"
	       "ffffffff82000000 T _etext\n", 4);
	wblock(printk_text(), 4);	/* printk formats */
	wblock("1234 bash\n42 kworker/0:1\n777 sshd\n4321 make\n4400 cc1\n", 8);
	wnum(ncpu, 4);
	fwrite("options  ", 1, 10, out);
	snprintf(clk, sizeof(clk), "[%s] global counter", clock_name);
	wnum(4, 2);			/* TRACECLOCK */
	wnum(strlen(clk) + 1, 4);
	fwrite(clk, 1, strlen(clk) + 1, out);
	wnum(5, 2);			/* UNAME */
	wnum(strlen("Linux mkdat 6.1.0 x86_64") + 1, 4);
	fwrite("Linux mkdat 6.1.0 x86_64", 1, strlen("Linux mkdat 6.1.0 x86_64") + 1, out);
	if (date_opt) {
		wnum(1, 2);		/* DATE */
		wnum(strlen(date_opt) + 1, 4);
		fwrite(date_opt, 1, strlen(date_opt) + 1, out);
	}
	if (offset_opt) {
		wnum(7, 2);		/* OFFSET */
		wnum(strlen(offset_opt) + 1, 4);
		fwrite(offset_opt, 1, strlen(offset_opt) + 1, out);
	}
	if (tsc_mult) {
		wnum(14, 2);		/* TSC2NSEC: mult, shift, offset */
		wnum(16, 4);
		wnum(tsc_mult, 4);
		wnum(tsc_shift, 4);
		wnum(0, 8);
	}
	if (traceid_opt) {
		wnum(11, 2);		/* TRACEID */
		wnum(8, 4);
		wnum(strtoull(traceid_opt, NULL, 16), 8);
	}
	if (tshift_opt)
		write_time_shift();
	if (guest_opt)
		write_guest();
	if (procmaps)
		write_procmaps();
	if (instance) {
		wnum(3, 2);		/* BUFFER: offset patched below, name */
		wnum(8 + 11, 4);
		buf_opt_at = ftell(out);
		wnum(0, 8);
		fwrite("ftkit-inst", 1, 11, out);
	}
	wnum(0, 2);
	fwrite("flyrecord", 1, 10, out);
	table_at = ftell(out);
	for (c = 0; c < ncpu; c++) {
		wnum(0, 8);
		wnum(0, 8);
	}
	wblock(clk, 8);
	gen(top, instance ? nevents / 2 : nevents, 1000000000ULL);
	write_cpu_table(top, table_at);
	if (instance) {
		long at = ftell(out);

		fseek(out, buf_opt_at, SEEK_SET);
		wnum(at, 8);
		fseek(out, 0, SEEK_END);
		fwrite("flyrecord", 1, 10, out);
		inst_table_at = ftell(out);
		for (c = 0; c < ncpu; c++) {
			wnum(0, 8);
			wnum(0, 8);
		}
		wblock(clk, 8);
		gen(inst, nevents - nevents / 2, 1000000000ULL + 777);
		write_cpu_table(inst, inst_table_at);
	}
	if (fclose(out)) {
		perror(path);
		return 2;
	}
	return 0;
}
