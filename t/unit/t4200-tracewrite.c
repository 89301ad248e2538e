// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat writer on synthetic ring-buffer pages and a small tracefs
 * tree (t/fixtures/tracefs-mini): every version and compression is parsed
 * back here and its CPU data compared byte for byte with the pages given;
 * where trace-cmd is installed, its report must show every event. Then a
 * file with an instance's buffer beside the top one, OFFSET and PROCMAPS,
 * v7 and v6, read by ftkit's reader and trace-cmd, and the same file
 * written through a pipe by ftk_tracewrite_save_fd().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include <ftkit/ftkit.h>

#include "tap.h"

#define PAGE		4096
#define PRINT_ID	5	/* events/ftrace/print/format of the fixture */

struct cpu_pages {
	char	*data;
	size_t	len;
	int	events;
};

/* One page of print events "unit cpuC line N", 1 us apart. */
static int fill_page(char *page, int cpu, int first, int count, uint64_t ts)
{
	uint64_t commit = 0;
	char *p = page + 16;
	int i;

	memset(page, 0, PAGE);
	memcpy(page, &ts, 8);
	for (i = 0; i < count; i++) {
		char text[64];
		int tl = snprintf(text, sizeof(text), "unit cpu%d line %d\n", cpu, first + i) + 1;
		uint32_t len = (16 + tl + 3) & ~3u;
		uint32_t hdr = (len / 4) | ((i ? 1000u : 0u) << 5);
		uint16_t type = PRINT_ID;
		int32_t pid = 1;

		if (p + 4 + len > page + PAGE)
			break;
		memcpy(p, &hdr, 4);
		memcpy(p + 4, &type, 2);
		memcpy(p + 8, &pid, 4);
		/* ip (8 bytes) stays 0 */
		memcpy(p + 4 + 16, text, tl);
		p += 4 + len;
	}
	commit = p - (page + 16);
	memcpy(page + 8, &commit, 8);
	return i;
}

static void make_cpu(struct cpu_pages *c, int cpu, int pages, int per_page)
{
	int p;

	c->len = (size_t)pages * PAGE;
	c->data = malloc(c->len);
	c->events = 0;
	for (p = 0; p < pages; p++)
		c->events += fill_page(c->data + (size_t)p * PAGE, cpu, c->events, per_page,
				       1000000000ull + (uint64_t)c->events * 1000 + cpu * 500);
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	buf = malloc(st.st_size + 1);
	if (buf && read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = st.st_size;
	return buf;
}

static uint64_t rd64(const char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* Undo the chunked compression of one CPU's data; returns a malloc'd buffer. */
static char *inflate_cpu(const char *p, uint64_t size, const char *alg, size_t *out_len)
{
	uint32_t n = rd32(p), i, zs, us;
	size_t off = 4, len = 0;
	char *out = NULL;

	for (i = 0; i < n; i++) {
		if (off + 8 > size)
			return NULL;
		zs = rd32(p + off);
		us = rd32(p + off + 4);
		out = realloc(out, len + us);
		if (!strcmp(alg, "zstd")) {
			if (ZSTD_decompress(out + len, us, p + off + 8, zs) != us)
				return NULL;
		} else {
			uLongf dl = us;

			if (uncompress((Bytef *)out + len, &dl, (const Bytef *)p + off + 8, zs) != Z_OK ||
			    dl != us)
				return NULL;
		}
		len += us;
		off += 8 + zs;
	}
	*out_len = len;
	return out;
}

/*
 * Find each CPU's data in a file: v7 through the options' BUFFER entry,
 * v6 after "flyrecord". Compressed data is inflated.
 */
static int cpu_data(const char *file, size_t flen, int cpu, char **data, size_t *len,
		    char *version, char *alg)
{
	const char *p = file + 10, *end = file + flen;

	snprintf(version, 8, "%s", p);
	p += strlen(p) + 1 + 1 + 1 + 4;
	if (!strcmp(version, "6")) {
		const char *fly = memmem(file, flen, "flyrecord\0", 10);

		strcpy(alg, "none");
		if (!fly)
			return -1;
		fly += 10 + 16 * cpu;
		*len = rd64(fly + 8);
		*data = malloc(*len ? *len : 1);
		memcpy(*data, file + rd64(fly), *len);
		return 0;
	}
	snprintf(alg, 16, "%s", p);
	p += strlen(p) + 1;
	p += strlen(p) + 1;
	for (uint64_t opts = rd64(p); opts; ) {
		const char *o = file + opts + 16, *oend = o + rd64(file + opts + 8);

		if (rd16(file + opts) != 0 || oend > end)
			return -1;
		opts = 0;
		while (o < oend) {
			uint16_t id = rd16(o);
			uint32_t sz = rd32(o + 2);
			const char *d = o + 6;

			if (id == 0)
				opts = rd64(d);
			if (id == 3) {	/* BUFFER: offset, name, clock, page size, cpus, entries */
				const char *q = d + 8;
				uint32_t cpus;

				q += strlen(q) + 1;
				q += strlen(q) + 1;
				q += 4;
				cpus = rd32(q);
				q += 4;
				if ((uint32_t)cpu >= cpus)
					return -1;
				q += cpu * 20;
				*len = rd64(q + 12);
				if (strcmp(alg, "none") && *len) {
					*data = inflate_cpu(file + rd64(q + 4), *len, alg, len);
					return *data ? 0 : -1;
				}
				*data = malloc(*len ? *len : 1);
				memcpy(*data, file + rd64(q + 4), *len);
				return 0;
			}
			o = d + sz;
		}
	}
	return -1;
}

/* Lines of a command's output that contain @needle. */
static int count_lines(const char *cmd, const char *needle)
{
	char line[512];
	int n = 0;
	FILE *f = popen(cmd, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	pclose(f);
	return n;
}

/*
 * A writer over metadata read from @t now (in *@m, freed after the writer):
 * the writer itself reads nothing.
 */
static int writer_new(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *o,
		      const struct ftk_tracemeta *prev, struct ftk_tracemeta **m,
		      struct ftk_tracewrite **w)
{
	int ret = ftk_tracemeta_new(t, o, prev, m);

	*w = NULL;
	if (!ret)
		ret = ftk_tracewrite_new(*m, o, w);
	return ret;
}

/* Files @path and @other are the same but for 8 bytes in a row (the TRACEID). */
static int same_but_traceid(const char *path, const char *other)
{
	size_t la, lb, i, first = 0, diff = 0;
	char *a, *b;
	int ret;

	a = slurp(path, &la);
	b = slurp(other, &lb);
	for (i = 0; a && b && la == lb && i < la; i++)
		if (a[i] != b[i] && !diff++)
			first = i;
		else if (a[i] != b[i] && i - first >= 8)
			diff = 100;
	ret = a && b && la == lb && diff <= 8 ? 0 : -1;
	free(a);
	free(b);
	return ret;
}

/* The same file written to a pipe: it may differ from @path only in its 8 TRACEID bytes. */
static int same_through_pipe(struct ftk_tracewrite *w, const char *path, const char *piped)
{
	char cmd[4400];
	FILE *f;
	int ret;

	snprintf(cmd, sizeof(cmd), "cat > '%s'", piped);
	f = popen(cmd, "w");
	if (!f)
		return -1;
	ret = ftk_tracewrite_save_fd(w, fileno(f), "a pipe");
	if (pclose(f) || ret)
		return -1;
	return same_but_traceid(path, piped);
}

/*
 * The top buffer holds cpu0's pages, instance "inst1" cpu1's; OFFSET and
 * PROCMAPS go along; the file read back by ftkit's reader and trace-cmd.
 */
static void buffers_and_options(struct ftk_tracefs *t, int fd, struct cpu_pages *cpus,
				const char *dir, int version, int have_tc)
{
	FTK_OPTS(ftk_tracewrite_opts, o, .version = version, .flags = FTK_TRACEWRITE_NO_KALLSYMS);
	static const char maps[] =
		"55d0c3a00000-55d0c3a01000 r--p 00000000 08:01 123 /usr/bin/app\n"
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		"7ffd10000000-7ffd10021000 rw-p 00000000 00:00 0                  [stack]\n";
	char out[4200], piped[4200], cmd[9000];
	struct ftk_tracefile *tf;
	struct ftk_tracewrite *w;
	struct ftk_tracemeta *m;
	int ret;

	snprintf(out, sizeof(out), "%s/buffers-v%d.dat", dir, version);
	snprintf(piped, sizeof(piped), "%s/piped-v%d.dat", dir, version);
	if (writer_new(t, &o, NULL, &m, &w) || ftk_tracemeta_buffer(m, "inst1", t))
		bail_out("cannot make a writer");
	is_int(ftk_tracemeta_buffer(m, "inst1", t), -EINVAL,
	       "metadata: a buffer name used twice is refused");
	ftk_tracewrite_add(w, 0, fd, 0, cpus[0].len);
	is_int(ftk_tracewrite_buffer(w, "inst2"), -ENOENT,
	       "a buffer the metadata lacks is refused");
	is_int(ftk_tracewrite_buffer(w, "inst1"), 1, "second buffer is number 1");
	is_int(ftk_tracewrite_buffer(w, "inst1"), -EINVAL, "a name used twice is refused");
	ftk_tracewrite_add(w, 1, fd, cpus[0].len, cpus[1].len);
	ftk_tracewrite_cpustat(w, 1, "entries: 50\n");
	ftk_tracewrite_ts_offset(w, 5000000000LL);
	is_int(ftk_tracewrite_procmaps(w, 1234, "/usr/bin/app", maps), 0, "procmaps taken");
	is_int(ftk_tracewrite_procmaps(w, 1, "/x", "no maps here\n"), -EINVAL,
	       "procmaps without a mapping refused");
	umask(022);
	ret = ftk_tracewrite_save(w, out);
	ok(!ret, "v%d buffers: saved (%s)", version, ret ? ftk_tracewrite_errmsg(w) : "ok");
	{
		struct stat st;

		/* kallsyms and kernel addresses inside: the owner's alone, as perf.data */
		ok(!stat(out, &st) && (st.st_mode & 0777) == 0600,
		   "v%d buffers: the file is 0600 under umask 022 (%o)", version,
		   (unsigned int)(st.st_mode & 0777));
	}
	ok(!same_through_pipe(w, out, piped),
	   "v%d buffers: the file through a pipe is the same but for its TRACEID", version);
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);

	ret = ftk_tracefile_open(out, 0, &tf);
	ok(!ret, "v%d buffers: ftkit's reader opens it", version);
	if (!ret) {
		is_int(ftk_tracefile_buffers(tf), 2, "two buffers");
		is_str(ftk_tracefile_buffer_name(tf, 1), "inst1", "the second is inst1");
		ok(ftk_tracefile_ts_offset(tf) == 5000000000LL, "OFFSET read back (%lld)",
		   ftk_tracefile_ts_offset(tf));
		ftk_tracefile_close(tf);
	}
	if (!have_tc) {
		skip("v%d buffers: trace-cmd is not installed", version);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>/dev/null", out);
	is_int(count_lines(cmd, "inst1: "), cpus[1].events,
	       "trace-cmd report: inst1's events under its name");
	is_int(count_lines(cmd, "unit cpu0 line"), cpus[0].events,
	       "trace-cmd report: the top buffer's events");
	/* the first event is at 1 s; OFFSET moves it to 6 s */
	is_int(count_lines(cmd, " 6.000000: print:"), 1, "trace-cmd report: OFFSET's 5 s added");
	snprintf(cmd, sizeof(cmd), "trace-cmd report --raw-ts -i '%s' 2>/dev/null", out);
	is_int(count_lines(cmd, " 1000000000: print:"), 1,
	       "trace-cmd report --raw-ts: the stamp without OFFSET");
	snprintf(cmd, sizeof(cmd), "trace-cmd dump --options -i '%s' 2>/dev/null", out);
	is_int(count_lines(cmd, "4d2 2 /usr/bin/app"), 1, "PROCMAPS: pid, count and program");
	is_int(count_lines(cmd, "55d0c3a00000 55d0c3a01000 /usr/bin/app"), 1,
	       "PROCMAPS: the program's mapping");
	is_int(count_lines(cmd, "7ffd10000000 7ffd10021000 [stack]"), 1, "PROCMAPS: the stack");
out:
	unlink(out);
	unlink(piped);
}

static int count_report(const char *path, int *first_ok)
{
	char cmd[4400], line[512];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "trace-cmd report -i '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	*first_ok = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "unit cpu"))
			continue;
		if (n == 0)
			*first_ok = strstr(line, "unit cpu0 line 0") != NULL;
		n++;
	}
	pclose(f);
	return n;
}

/* Write @text to @dir/@name. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail_out("cannot write %s", path);
}

/* Whether the saved file @path holds @needle (its metadata is not compressed). */
static int holds(const char *path, const char *needle)
{
	size_t len;
	char *file = slurp(path, &len);
	int found = file && memmem(file, len, needle, strlen(needle)) != NULL;

	free(file);
	return found;
}

/*
 * ftk_tracemeta_new() with an earlier read (the template's) and
 * FTK_TRACEWRITE_ENABLED_SYSTEMS, on a copy of the fixture tree: a save
 * takes the template's formats while available_events and set_event say
 * nothing changed (a format file edited behind its back shows which copy
 * was stored), reads them again when an event appeared or a system was
 * switched on, and stores only the systems with an event on. Then the tree
 * is removed: the writer, which reads no tracefs file, saves the same file
 * again from its metadata.
 */
static void reuse_metadata(const char *fixture, const char *dir)
{
	FTK_OPTS(ftk_tracewrite_opts, o, .version = 7,
		 .flags = FTK_TRACEWRITE_NO_KALLSYMS | FTK_TRACEWRITE_ENABLED_SYSTEMS);
	char tfs[4200], cmd[20000], tmpl[4300], out[4300], again[4300], *fmt;
	struct ftk_tracewrite *a = NULL, *b = NULL;
	struct ftk_tracemeta *ma = NULL, *mb = NULL;
	struct ftk_tracefs *t;
	size_t len;

	snprintf(tfs, sizeof(tfs), "%s/tfs", dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && mkdir -p '%s/events/sched/sched_wakeup' "
		 "'%s/events/irq/irq_handler_entry'", fixture, tfs, tfs, tfs);
	if (system(cmd))
		bail_out("cannot copy %s", fixture);
	put(tfs, "available_events", "sched:sched_switch\nftrace:print\n");
	put(tfs, "set_event", "sched:sched_switch\n");
	if (ftk_tracefs_open(tfs, NULL, 0, &t))
		bail_out("cannot open %s", tfs);
	snprintf(tmpl, sizeof(tmpl), "%s/template", dir);
	snprintf(out, sizeof(out), "%s/reuse.dat", dir);
	snprintf(again, sizeof(again), "%s/again.dat", dir);
	ok(!writer_new(t, &o, NULL, &ma, &a) && !ftk_tracewrite_save_template(a, tmpl),
	   "reuse: template saved");
	ok(holds(tmpl, "name: sched_switch") && !holds(tmpl, "name: irq_handler_entry"),
	   "reuse: the template holds the system on (sched), no other");

	/* The format edited where available_events cannot see it: the template's copy is stored. */
	snprintf(cmd, sizeof(cmd), "%s/events/sched/sched_switch/format", tfs);
	fmt = slurp(cmd, &len);
	if (!fmt)
		bail_out("cannot read %s", cmd);
	fmt[len] = 0;
	put(tfs, "events/sched/sched_switch/format", "name: sched_switch\nID: 372\nformat:\n"
	    "\tfield:int edited;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"edited\"\n");
	writer_new(t, &o, ma, &mb, &b);
	ok(b && !ftk_tracewrite_save(b, out), "reuse: saved");
	ok(holds(out, "prev_comm") && !holds(out, "field:int edited"),
	   "reuse: nothing changed: the formats are the template's, not read again");
	ftk_tracewrite_free(b);
	ftk_tracemeta_free(mb);

	/* A new event in a system on: available_events differs, the formats are read again. */
	put(tfs, "events/sched/sched_wakeup/format", "name: sched_wakeup\nID: 373\nformat:\n"
	    "\tfield:int pid;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"pid=%d\", REC->pid\n");
	put(tfs, "available_events", "sched:sched_switch\nsched:sched_wakeup\nftrace:print\n");
	writer_new(t, &o, ma, &mb, &b);
	ok(b && !ftk_tracewrite_save(b, out), "reuse: saved after an event was added");
	ok(holds(out, "name: sched_wakeup") && holds(out, "field:int edited"),
	   "reuse: an event added: the formats are read again (the new one and the edit stored)");
	ftk_tracewrite_free(b);
	ftk_tracemeta_free(mb);

	/* Another system switched on (its event existed at the start): read again, and stored. */
	put(tfs, "events/irq/irq_handler_entry/format", "name: irq_handler_entry\nID: 374\n"
	    "format:\n\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	    "print fmt: \"irq=%d\", REC->irq\n");
	put(tfs, "available_events", "sched:sched_switch\nsched:sched_wakeup\nftrace:print\n"
	    "irq:irq_handler_entry\n");
	ftk_tracewrite_free(a);
	ftk_tracemeta_free(ma);
	a = NULL;
	ok(!writer_new(t, &o, NULL, &ma, &a) && !ftk_tracewrite_save_template(a, tmpl),
	   "reuse: a new template saved");
	put(tfs, "set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	writer_new(t, &o, ma, &mb, &b);
	ok(b && !ftk_tracewrite_save(b, out), "reuse: saved after irq was switched on");
	ok(holds(out, "name: irq_handler_entry") && holds(out, "name: sched_wakeup") &&
	   !holds(tmpl, "name: irq_handler_entry"),
	   "reuse: a system switched on since the template: its formats are stored, "
	   "the others still are");

	/* No tracefs at all now: the writer reads none, the file is the same. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tfs);
	if (system(cmd))
		bail_out("cannot remove %s", tfs);
	ok(b && !ftk_tracewrite_save(b, again) && !same_but_traceid(out, again),
	   "reuse: saved again with the tracefs tree gone: the same bytes but for the TRACEID");
	ftk_tracewrite_free(b);
	ftk_tracemeta_free(mb);
	ftk_tracewrite_free(a);
	ftk_tracemeta_free(ma);
	ftk_tracefs_close(t);
	free(fmt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s' '%s'", tfs, tmpl, out, again);
	if (system(cmd))
		diag("cannot remove %s", tfs);
}

/*
 * --recover of spools that hold more than pages: cpu0's pages, then zero
 * pages written after them, a hole to 1 GB and a page of garbage; cpu1's
 * pages alone. The file holds exactly the pages,
 * byte for byte, and not the gigabyte.
 */
static void recover_sparse(struct ftk_tracefs *t, const char *dir, const struct cpu_pages *cpus)
{
	FTK_OPTS(ftk_tracewrite_opts, o, .version = 6, .flags = FTK_TRACEWRITE_NO_KALLSYMS);
	char sdir[4300], path[9000], out[4300], version[8], alg[16], *file, *data = NULL;
	struct ftk_tracewrite_recovered r;
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m = NULL;
	static char junk[PAGE];
	size_t flen = 0, len = 0;
	struct stat st;
	int fd, cpu, ret;

	snprintf(sdir, sizeof(sdir), "%s/rec.dat.spool", dir);
	snprintf(out, sizeof(out), "%s/rec.dat", dir);
	snprintf(path, sizeof(path), "%s/template", sdir);
	if (mkdir(sdir, 0700) || writer_new(t, &o, NULL, &m, &w) ||
	    ftk_tracewrite_save_template(w, path))
		bail_out("cannot make a template in %s", sdir);
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d", sdir, cpu);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd < 0 || write(fd, cpus[cpu].data, cpus[cpu].len) != (ssize_t)cpus[cpu].len)
			bail_out("cannot write %s", path);
		if (cpu == 0) {
			int i;

			memset(junk, 0, sizeof(junk));
			for (i = 0; i < 8; i++)
				if (write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
					bail_out("cannot write %s", path);
			memset(junk, 0xff, sizeof(junk));
			if (pwrite(fd, junk, sizeof(junk), 1LL << 30) != (ssize_t)sizeof(junk))
				bail_out("cannot write %s", path);
		}
		close(fd);
	}
	ret = ftk_spool_recover(out, &r);
	ok(!ret, "recover: a sparse spool with zero and garbage pages (%s)", ret ? r.errmsg : "ok");
	is_int((int)r.bytes, (int)(cpus[0].len + cpus[1].len), "recover: the pages alone taken");
	if (stat(out, &st))
		st.st_size = -1;
	ok(st.st_size >= 0 && st.st_size < (off_t)(cpus[0].len + cpus[1].len) + (1 << 20),
	   "recover: the file is not the gigabyte (%lld bytes)", (long long)st.st_size);
	file = slurp(out, &flen);
	for (cpu = 0; cpu < 2; cpu++) {
		ok(file && !cpu_data(file, flen, cpu, &data, &len, version, alg) &&
		   len == cpus[cpu].len && !memcmp(data, cpus[cpu].data, len),
		   "recover: cpu%d's pages, byte for byte", cpu);
		free(data);
		data = NULL;
	}
	free(file);
	snprintf(path, sizeof(path), "rm -rf '%s' '%s'", sdir, out);
	if (system(path))
		diag("cannot remove %s", sdir);
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	static const struct { int version; const char *comp; } variants[] = {
		{ 7, NULL }, { 6, NULL }, { 7, "zstd" }, { 7, "zlib" },
	};
	char root[4096], dir[] = "/tmp/ftk-t4200-XXXXXX", spool[4200], out[4200];
	int have_tc = system("trace-cmd list -c >/dev/null 2>&1") == 0;
	int zlib_tc = have_tc && system("trace-cmd list -c 2>/dev/null | grep -qw zlib") == 0;
	struct cpu_pages cpus[2];
	struct ftk_tracefs *t;
	size_t v, i;
	int fd, ret;

	need_lane("unit");
	snprintf(root, sizeof(root), "%s/t/fixtures/tracefs-mini", srcdir ? srcdir : ".");
	if (ftk_tracefs_open(root, NULL, 0, &t))
		bail_out("cannot open the fixture tree %s", root);
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	/* more than one compressed chunk, and than one mapping of 100 chunks, the last short */
	make_cpu(&cpus[0], 0, 1013, 100);
	make_cpu(&cpus[1], 1, 1, 50);
	snprintf(spool, sizeof(spool), "%s/spool", dir);
	fd = open(spool, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, cpus[0].data, cpus[0].len) != (ssize_t)cpus[0].len ||
	    write(fd, cpus[1].data, cpus[1].len) != (ssize_t)cpus[1].len)
		bail_out("cannot write %s", spool);

	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		FTK_OPTS(ftk_tracewrite_opts, o, .version = variants[v].version,
			 .compression = variants[v].comp, .flags = FTK_TRACEWRITE_NO_KALLSYMS);
		const char *name = variants[v].comp ? variants[v].comp :
				   variants[v].version == 6 ? "v6" : "v7";
		char version[8], alg[16], *file;
		struct ftk_tracewrite *w;
		struct ftk_tracemeta *m;
		size_t flen;

		snprintf(out, sizeof(out), "%s/%s.dat", dir, name);
		ret = writer_new(t, &o, NULL, &m, &w);
		ok(!ret, "%s: writer made", name);
		if (ret) {
			ftk_tracemeta_free(m);
			continue;
		}
		/* cpu0 in two regions, as a capture with -m gives them */
		ftk_tracewrite_add(w, 0, fd, 0, 5 * PAGE);
		ftk_tracewrite_add(w, 0, fd, 5 * PAGE, cpus[0].len - 5 * PAGE);
		ftk_tracewrite_add(w, 1, fd, cpus[0].len, cpus[1].len);
		ftk_tracewrite_cpustat(w, 0, "entries: 0\noverrun: 0\n");
		ret = ftk_tracewrite_save(w, out);
		ok(!ret, "%s: saved (%s)", name, ret ? ftk_tracewrite_errmsg(w) : "ok");
		ftk_tracewrite_free(w);
		ftk_tracemeta_free(m);
		file = slurp(out, &flen);
		ok(file && flen > 64 && !memcmp(file, "\x17\x08\x44tracing", 10),
		   "%s: trace-cmd's magic", name);
		if (!file)
			continue;
		for (i = 0; i < 2; i++) {
			char *data = NULL;
			size_t len = 0;

			ret = cpu_data(file, flen, i, &data, &len, version, alg);
			ok(!ret && len == cpus[i].len && !memcmp(data, cpus[i].data, len),
			   "%s: cpu%zu data found through the %s and identical (%zu bytes)", name, i,
			   variants[v].version == 6 ? "flyrecord header" : "BUFFER option", len);
			free(data);
		}
		is_int(atoi(version), variants[v].version, "file version");
		is_str(alg, variants[v].comp ? variants[v].comp : "none", "compression named");
		if (!have_tc) {
			skip("%s: trace-cmd is not installed", name);
		} else if (variants[v].comp && !strcmp(variants[v].comp, "zlib") && !zlib_tc) {
			skip("%s: this trace-cmd cannot read zlib", name);
		} else {
			int first_ok = 0, n = count_report(out, &first_ok);

			ok(n == cpus[0].events + cpus[1].events && first_ok,
			   "%s: trace-cmd report shows all %d events, oldest first (%d)", name,
			   cpus[0].events + cpus[1].events, n);
		}
		free(file);
		unlink(out);
	}
	buffers_and_options(t, fd, cpus, dir, 7, have_tc);
	buffers_and_options(t, fd, cpus, dir, 6, have_tc);
	{
		/* Regions at offsets that cannot be mapped: read, the same chunks result. */
		FTK_OPTS(ftk_tracewrite_opts, o, .version = 7, .compression = "zstd",
			 .flags = FTK_TRACEWRITE_NO_KALLSYMS);
		char odd[4300], *file, *data = NULL, version[8], alg[16];
		struct ftk_tracewrite *w = NULL;
		struct ftk_tracemeta *m = NULL;
		size_t flen = 0, len = 0;
		int ofd;

		snprintf(odd, sizeof(odd), "%s/odd", dir);
		ofd = open(odd, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (ofd < 0 || write(ofd, "x", 1) != 1 ||
		    write(ofd, cpus[0].data, cpus[0].len) != (ssize_t)cpus[0].len)
			bail_out("cannot write %s", odd);
		snprintf(out, sizeof(out), "%s/odd.dat", dir);
		ret = writer_new(t, &o, NULL, &m, &w);
		if (!ret) {
			ftk_tracewrite_add(w, 0, ofd, 1, 7 * PAGE);
			ftk_tracewrite_add(w, 0, ofd, 1 + 7 * PAGE, cpus[0].len - 7 * PAGE);
			ret = ftk_tracewrite_save(w, out);
		}
		ftk_tracewrite_free(w);
		ftk_tracemeta_free(m);
		file = ret ? NULL : slurp(out, &flen);
		ok(file && !cpu_data(file, flen, 0, &data, &len, version, alg) &&
		   len == cpus[0].len && !memcmp(data, cpus[0].data, len),
		   "zstd: regions at unaligned offsets (read, not mapped) stored identical");
		free(data);
		free(file);
		close(ofd);
		unlink(odd);
		unlink(out);
	}
	reuse_metadata(root, dir);
	recover_sparse(t, dir, cpus);
	ok(ftk_tracewrite_compression_ok("zstd") && !ftk_tracewrite_compression_ok("lz4"),
	   "compression names checked");
	{
		FTK_OPTS(ftk_tracewrite_opts, o, .version = 6, .compression = "zstd");
		struct ftk_tracewrite *w;
		struct ftk_tracemeta *m;

		is_int(writer_new(t, &o, NULL, &m, &w), -EINVAL, "compression with version 6 refused");
		ftk_tracemeta_free(m);
	}
	{
		struct ftk_tracewrite *w;
		struct ftk_tracemeta *m;

		writer_new(t, NULL, NULL, &m, &w);
		snprintf(out, sizeof(out), "%s/no/such/dir/x.dat", dir);
		ret = ftk_tracewrite_save(w, out);
		ok(ret == -ENOENT && strstr(ftk_tracewrite_errmsg(w), out),
		   "a failed save names the file: %s", ftk_tracewrite_errmsg(w));
		ftk_tracewrite_free(w);
		ftk_tracemeta_free(m);
	}
	close(fd);
	unlink(spool);
	rmdir(dir);
	free(cpus[0].data);
	free(cpus[1].data);
	ftk_tracefs_close(t);
	return done_testing();
}
