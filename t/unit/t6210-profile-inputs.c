// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The profiler's inputs as an attacker writes them (issue 29): folded
 * stacks too deep for a recursion, C++ names that demangle to hundreds of
 * megabytes, JIT perf maps that are not the process's, objects that shrink
 * under their mapping, perf.data files with nothing in them or through a
 * FIFO, and what the fuzzers found (t/fixtures/fuzz-{perf,elf,folded,
 * perfmap}-*). Each case's truth is counted here from the input built.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <ftkit/ftkit.h>

#include "elf-local.h"
#include "tap.h"

static char dir[] = "/tmp/ftk-t6210-XXXXXX";

/* Occurrences of @needle in the file @path. */
static size_t count_in(const char *path, const char *needle)
{
	size_t n = 0, len = 0, cap = 0;
	char *text = NULL, *p;
	FILE *f = fopen(path, "r");
	ssize_t r;

	if (!f)
		return 0;
	while ((r = getdelim(&text, &cap, '\0', f)) > 0)
		len += r;
	fclose(f);
	for (p = text; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(text);
	(void)len;
	return n;
}

/*
 * A stack a million frames deep, under one 10^8 times heavier: the deep
 * one's frames are too narrow to draw (0.1 pixel), but the tree is built,
 * sorted, measured and freed to its bottom. A recursion of 8 bytes a frame
 * would pass the 8 MB stack; the picture is as tall as the deep stack.
 */
static void test_deep_svg(void)
{
	const size_t depth = 1000000;
	struct ftk_stacks *st;
	char path[64], *line, *p;
	size_t i, frames;
	FILE *f;
	int ret;

	if (ftk_stacks_new(&st))
		bail_out("ftk_stacks_new");
	line = malloc(depth * 3 + 64);
	if (!line)
		bail_out("out of memory");
	for (i = 0, p = line; i < depth; i++)
		p += sprintf(p, "%sf%zu", i ? ";" : "", i % 7);
	ok(!ftk_stacks_add(st, line, 1) && !ftk_stacks_add(st, "a;b", 100000000),
	   "a stack %zu frames deep is taken", depth);
	snprintf(path, sizeof(path), "%s/deep.svg", dir);
	f = fopen(path, "w");
	if (!f)
		bail_out("cannot create '%s'", path);
	ret = ftk_stacks_write_svg(st, st, f, "deep", "samples");
	fclose(f);
	ok(ret == 0, "its differential flame graph is written (%d)", ret);
	frames = count_in(path, "<g class=\"f\"");
	ok(frames == 3, "with the frames wide enough drawn: all, a, b (%zu)", frames);
	snprintf(line, depth * 3, "height=\"%zu\"", 50 + (depth + 1) * 16 + 34);
	ok(count_in(path, line) == 2, "and as tall as %zu frames (the picture and its background)",
	   depth + 1);
	free(line);
	ftk_stacks_free(st);
}

/* 60k processes under "all": each its own child, each drawn once. */
static void test_wide_svg(void)
{
	const size_t wide = 60000;
	struct ftk_stacks *st;
	char path[64], name[64];
	size_t i, frames;
	FILE *f;
	int ret;

	if (ftk_stacks_new(&st))
		bail_out("ftk_stacks_new");
	for (i = 0; i < wide; i++) {
		snprintf(name, sizeof(name), "p%zu;main;work", i);
		if (ftk_stacks_add(st, name, 1))
			bail_out("ftk_stacks_add");
	}
	snprintf(path, sizeof(path), "%s/wide.svg", dir);
	f = fopen(path, "w");
	if (!f)
		bail_out("cannot create '%s'", path);
	ret = ftk_stacks_write_svg(st, NULL, f, "wide", "samples");
	fclose(f);
	frames = count_in(path, "<g class=\"f\"");
	/* 1160 pixels for 60k samples: each stack is 0.019 pixel, under the 0.1 drawn */
	ok(ret == 0 && frames == 1, "%zu one-sample processes: only \"all\" is wide enough (%zu)",
	   wide, frames);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "p%zu;main;work", i);
		ftk_stacks_add(st, name, 6000);
	}
	f = fopen(path, "w");
	ret = ftk_stacks_write_svg(st, NULL, f, "wide", "samples");
	fclose(f);
	frames = count_in(path, "<g class=\"f\"");
	ok(ret == 0 && frames == 1 + 10 * 3, "ten of them made wide are drawn, 3 frames each (%zu)",
	   frames);
	ftk_stacks_free(st);
}


/* ---------------------------------------------------------- demangling */

/* The mangled name of bomb(T<k>), T0 = P<int,int>, T<i+1> = P<T<i>,T<i>>, as g++ writes it. */
static void bomb_name(char *buf, int k)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	int i;

	strcpy(buf, "_Z4bomb1P");
	for (i = 0; i < k; i++)
		strcat(buf, "IS_");
	strcat(buf, "IiiE");
	for (i = 0; i < k; i++)
		sprintf(buf + strlen(buf), "S%c_E", digits[i]);
}

/* T<k> spelled out, as c++filt prints it. */
static char *bomb_type(int k)
{
	char *in, *out;

	if (!k)
		return strdup("P<int, int>");
	in = bomb_type(k - 1);
	if (asprintf(&out, "P<%s, %s%s>", in, in, in[strlen(in) - 1] == '>' ? " " : "") < 0)
		bail_out("out of memory");
	free(in);
	return out;
}

static void test_demangle_bomb(void)
{
	char name[256], *want, *got, *ref = NULL, cmd[300];
	size_t cap = 0;
	FILE *f;

	bomb_name(name, 4);
	got = ftk_symbols_demangle(name);
	want = bomb_type(4);
	ok(got && !strncmp(got, "bomb(", 5) && !strncmp(got + 5, want, strlen(want)),
	   "a short chain of back-references demangles in full: %.60s...", got ? got : "NULL");
	snprintf(cmd, sizeof(cmd), "c++filt '%s' 2>/dev/null", name);
	f = popen(cmd, "r");
	if (f && getline(&ref, &cap, f) > 0) {
		ref[strcspn(ref, "\n")] = '\0';
		ok(got && !strcmp(got, ref), "as c++filt has it");
	} else {
		skip("no c++filt to compare with");
	}
	if (f)
		pclose(f);
	free(ref);
	free(got);
	free(want);
	/* 23 references: 2^23 copies of P<int, int>, 167 MB unbounded */
	bomb_name(name, 23);
	errno = 0;
	got = ftk_symbols_demangle(name);
	ok(!got && errno == E2BIG, "a %zu-byte name that demangles to 167 MB is left mangled (E2BIG): %s",
	   strlen(name), got ? "demangled" : strerror(errno));
	free(got);
}

/* ---------------------------------------------------------- perf maps */

static int jit_named(struct ftk_symbols *s, pid_t pid, uint64_t addr, const char *want)
{
	struct ftk_frame f;

	return !ftk_symbols_resolve(s, pid, addr, &f) && f.kind == FTK_FRAME_JIT &&
	       !strcmp(f.name, want);
}

/*
 * A perf map of a perf.data file's process (this machine's /tmp): read
 * when it is ours or root's; not when another user owns it, nor through a
 * link (to a file only root reads), as perf refuses them.
 */
static void test_perf_map_trust(void)
{
	pid_t pid = 0x7ff00000 + getpid() % 0xfffff;
	char map[64], secret[80];
	struct ftk_symbols *s;
	FILE *f;

	snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	unlink(map);
	f = fopen(map, "w");
	if (!f)
		bail_out("cannot create '%s'", map);
	fprintf(f, "7f0000001000 40 Interpreter\n7f0000001040 100 LFoo;bar\n");
	fclose(f);
	if (ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s))
		bail_out("ftk_symbols_new");
	ok(jit_named(s, pid, 0x7f0000001050, "LFoo;bar"), "a perf map of our own is read");
	ftk_symbols_free(s);
	if (geteuid()) {
		skip("not root: cannot give a perf map to another user");
	} else {
		if (chown(map, 65534, 65534))
			bail_out("chown: %s", strerror(errno));
		ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s);
		ok(!jit_named(s, pid, 0x7f0000001050, "LFoo;bar"),
		   "one owned by another user (65534) is not");
		ftk_symbols_free(s);
	}
	unlink(map);
	f = fopen(secret, "w");
	if (!f)
		bail_out("cannot create '%s'", secret);
	fprintf(f, "7f0000001000 40 root_only_secret\n");
	fclose(f);
	chmod(secret, 0600);
	if (symlink(secret, map))
		bail_out("symlink: %s", strerror(errno));
	ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s);
	ok(!jit_named(s, pid, 0x7f0000001010, "root_only_secret"),
	   "a link to another file is not followed");
	ftk_symbols_free(s);
	unlink(map);
	if (mkfifo(map, 0600))
		bail_out("mkfifo: %s", strerror(errno));
	ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s);
	alarm(20);	/* a hang fails the test */
	ok(!jit_named(s, pid, 0x7f0000001010, "x"), "a FIFO in its place is not opened");
	alarm(0);
	ftk_symbols_free(s);
	unlink(map);
}

/* ---------------------------------------------------------- objects */

int t6210_known_function(int x);
int t6210_known_function(int x)
{
	return x * 3 + 1;
}

/*
 * Our own executable, copied and named as a made-up process's: its
 * function is named; then the copy is cut to nothing (as its owner may do
 * to any object of a profiled process) and the name is read again. A
 * mapped object raised SIGBUS there.
 */
static void test_object_shrinks(void)
{
	char copy[80], line[512], cmd[400], exe[256];
	unsigned long long lo, hi, off;
	struct ftk_symbols *s;
	struct ftk_frame f;
	uintptr_t fn = (uintptr_t)t6210_known_function;
	pid_t pid = 0x7ff00000 + getpid() % 0xfffff;
	char *before = NULL;
	int found = 0;
	ssize_t n;
	FILE *m;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		bail_out("readlink /proc/self/exe");
	exe[n] = '\0';
	snprintf(copy, sizeof(copy), "%s/exe-copy", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", exe, copy);
	if (system(cmd))
		bail_out("%s failed", cmd);
	if (ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s))
		bail_out("ftk_symbols_new");
	m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof(line), m)) {
		char perms[8];
		int k = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &lo, &hi, perms, &off, &k) < 4 ||
		    !k || !strchr(perms, 'x') || fn < lo || fn >= hi)
			continue;
		ftk_symbols_mmap(s, pid, lo, hi - lo, off, copy, 0, 0, 0);
		found = 1;
	}
	if (m)
		fclose(m);
	if (!found)
		bail_out("no mapping of our own code");
	found = ftk_symbols_resolve(s, pid, fn + 1, &f);
	ok(!found && !strcmp(f.name, "t6210_known_function"), "a function of the object is named: %s",
	   f.name);
	before = strdup(f.name);
	if (truncate(copy, 0))
		bail_out("truncate: %s", strerror(errno));
	found = ftk_symbols_resolve(s, pid, fn + 1, &f);
	ok(!found && !strcmp(f.name, before), "and again once the object is cut to nothing, no SIGBUS: %s",
	   f.name);
	free(before);
	ftk_symbols_free(s);
	unlink(copy);
}

/* ---------------------------------------------------------- perf.data */

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN)

static unsigned char pdata[1 << 16];
static size_t plen;

static void put(const void *p, size_t n)
{
	if (plen + n > sizeof(pdata))
		bail_out("perf.data too large");
	memcpy(pdata + plen, p, n);
	plen += n;
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

/* A perf.data of one cpu-clock event; the records are added after it. */
static void perf_begin(void)
{
	struct perf_event_attr a = { 0 };
	uint64_t ids[2] = { 0, 0 };	/* perf_file_attr's ids section: none */

	plen = 0;
	put("PERFILE2", 8);
	put64(104);				/* header size */
	put64(sizeof(a) + 16);			/* attr_size */
	put64(104), put64(sizeof(a) + 16);	/* attrs */
	put64(104 + sizeof(a) + 16), put64(0);	/* data: size set by perf_end() */
	put64(0), put64(0);			/* event_types */
	put64(0), put64(0), put64(0), put64(0);	/* features */
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = SAMPLE_TYPE;
	a.sample_id_all = 1;
	put(&a, sizeof(a));
	put(ids, sizeof(ids));
}

static void perf_end(void)
{
	uint64_t size = plen - (104 + sizeof(struct perf_event_attr) + 16);

	memcpy(pdata + 48, &size, 8);
}

static void perf_sample(pid_t pid, uint64_t time, const uint64_t *ips, size_t n)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(8 + 8 + 8 + 8 + 8 + n * 8) };
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid };

	put(&h, sizeof(h));
	put64(ips[0]);
	put(ids, 8);
	put64(time);
	put64(n);
	put(ips, n * 8);
}

static char *write_perf(const char *name)
{
	static char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(pdata, 1, plen, f) != plen || fclose(f))
		bail_out("cannot write '%s'", path);
	return path;
}

static char *folded_of(struct ftk_profile *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ftk_stacks_write_folded(ftk_profile_stacks(p), f);
	fclose(f);
	return text;
}

static void test_perf_data(void)
{
	uint64_t ips[3] = { PERF_CONTEXT_USER, 0x1000, 0x2000 };
	struct ftk_profile *p;
	char *path, *text, fifo[96], *want;
	pid_t child;
	int ret, status, hold, sync[2];

	/* No record at all: nothing to sort (qsort(NULL, 0) was UB) */
	perf_begin();
	perf_end();
	path = write_perf("empty.data");
	ret = ftk_profile_load(path, 0, &p);
	ok(ret == 0 && ftk_stacks_nr(ftk_profile_stacks(p)) == 0,
	   "a perf.data of no records loads, empty (%d %s)", ret, ftk_profile_errmsg(p));
	ftk_profile_free(p);

	/*
	 * A sample of pid 1 with no COMM record: the recording's pid 1, not
	 * this machine's, so named ":1" as perf does, never from /proc/1.
	 */
	perf_begin();
	perf_sample(1, 1000, ips, 3);
	perf_sample(1, 2000, ips, 3);
	perf_end();
	path = write_perf("pid1.data");
	ret = ftk_profile_load(path, 0, &p);
	text = ret ? NULL : folded_of(p);
	/* the leaf by its address, its caller by its return address less 1 */
	want = ":1;[unknown] ([unmapped]+0x1fff);[unknown] ([unmapped]+0x1000) 2\n";
	ok(text && !strcmp(text, want), "a task with no COMM record is named by its tid, not from /proc: %s",
	   text ? text : ftk_profile_errmsg(p));
	ftk_profile_free(p);

	/* The same file through a FIFO, read once. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600))
		bail_out("mkfifo: %s", strerror(errno));
	/*
	 * The writer is there first, as when perf record -o FIFO waits for its
	 * reader: a reader of ours lets its open() through, and it says so.
	 */
	hold = open(fifo, O_RDONLY | O_NONBLOCK);
	if (hold < 0 || pipe(sync))
		bail_out("cannot open '%s': %s", fifo, strerror(errno));
	child = fork();
	if (child == 0) {
		int fd = open(fifo, O_WRONLY);

		close(sync[0]);
		close(sync[1]);		/* opened: the parent's read() ends */
		_exit(fd < 0 || write(fd, pdata, plen) != (ssize_t)plen);
	}
	close(sync[1]);
	if (read(sync[0], &status, 1) < 0)
		bail_out("sync: %s", strerror(errno));
	close(sync[0]);
	alarm(20);	/* a hang fails the test */
	ret = ftk_profile_load(fifo, 0, &p);
	free(text);
	text = ret ? NULL : folded_of(p);
	ok(text && !strcmp(text, want), "the same through a FIFO: %s", text ? text : ftk_profile_errmsg(p));
	ftk_profile_free(p);
	waitpid(child, &status, 0);
	close(hold);
	/* A FIFO no one writes: empty, not a hang in open() */
	ret = ftk_profile_load(fifo, 0, &p);
	ok(ret == -EBADMSG, "a FIFO with no writer is no perf.data, at once (%d: %s)", ret,
	   ftk_profile_errmsg(p));
	alarm(0);
	ftk_profile_free(p);
	free(text);
}

/* What the fuzzers found, each refused with a reason or read, never a crash. */
static void test_fuzz_fixtures(void)
{
	const char *src = getenv("top_srcdir");
	char pat[512];
	struct ftk_profile *p;
	glob_t g;
	size_t i;
	int ret;

	snprintf(pat, sizeof(pat), "%s/t/fixtures/fuzz-perf-*.data", src ? src : ".");
	if (glob(pat, 0, NULL, &g)) {
		skip("no t/fixtures/fuzz-perf-*.data under %s", src ? src : ".");
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;

		ret = ftk_profile_load(g.gl_pathv[i], 0, &p);
		ok(ret == 0 || *ftk_profile_errmsg(p), "%s: %s", base,
		   ret ? ftk_profile_errmsg(p) : "read");
		if (!strcmp(base, "fuzz-perf-misaligned.data"))
			ok(ret == -EBADMSG && strstr(ftk_profile_errmsg(p), "aligned"),
			   "a record whose size is no multiple of 8 is refused");
		ftk_profile_free(p);
	}
	globfree(&g);
	snprintf(pat, sizeof(pat), "%s/t/fixtures/fuzz-elf-*.elf", src ? src : ".");
	if (glob(pat, 0, NULL, &g)) {
		skip("no t/fixtures/fuzz-elf-*.elf under %s", src ? src : ".");
		return;
	}
	for (i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		pid_t pid = 0x7ff00000 + getpid() % 0xfffff;
		struct ftk_symbols *s;
		struct ftk_frame f;
		char err[256] = "";
		uint64_t off = 0;
		int k;

		if (ftk_symbols_new(FTK_SYMBOLS_NO_PROC | FTK_SYMBOLS_NO_KERNEL, &s))
			bail_out("ftk_symbols_new");
		ftk_symbols_mmap(s, pid, 0x400000, 1 << 24, 0, g.gl_pathv[i], 0, 0, 0);
		for (k = 0; k < 64; k++)
			ftk_symbols_resolve(s, pid, 0x400000 + k * 4096, &f);
		ftk_symbols_free(s);
		ret = ftk_elf_uprobe_offset(g.gl_pathv[i], "main", 0, &off, NULL, err, sizeof(err));
		ok(ret == 0 || (ret < 0 && *err), "%s: named and looked into: %s", base,
		   ret ? err : "read");
	}
	globfree(&g);
}

int main(void)
{
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	test_deep_svg();
	test_wide_svg();
	test_demangle_bomb();
	test_perf_map_trust();
	test_object_shrinks();
	test_perf_data();
	test_fuzz_fixtures();
	if (!getenv("FTK_TEST_KEEP")) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			diag("could not remove %s", dir);
	}
	return done_testing();
}
