// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat reader on the fixtures of t/fixtures (see its README):
 * versions 6 and 7, zstd, big endian with 4-byte longs, 8 KiB sub-buffers,
 * instances. The printed text must equal what trace-cmd report printed
 * for each file (the .report files). Then damaged copies: truncated data
 * (read up to the cut, ftk_tracefile_damage() says where), truncated metadata, a bad magic, a damaged page header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "tap.h"
#include <ftkit/ftkit.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

/* Print @path as ftreport does into a memory buffer; returns the stream error or 0. */
static int report(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
	struct ftk_tracefile *tf;
	struct ftk_printer *p;
	const struct tep_record *r;
	struct ftk_merge *m;
	FILE *out = open_memstream(text, len);
	int ret, b, tag;

	err[0] = 0;
	ret = ftk_tracefile_open(path, 0, &tf);
	if (ret < 0) {
		snprintf(err, errlen, "%s", tf ? ftk_tracefile_errmsg(tf) : "no memory");
		ftk_tracefile_close(tf);
		fclose(out);
		return ret;
	}
	m = ftk_tracefile_merge(tf, 0, NULL);
	p = ftk_printer_new(out, ftk_tracefile_tep(tf), FTK_PRINT_TEXT, 0);
	for (b = 0; b < ftk_tracefile_buffers(tf); b++)
		ftk_printer_add_buffer(p, ftk_tracefile_buffer_name(tf, b),
				       ftk_tracefile_buffer_in_ns(tf, b));
	ftk_printer_begin(p, ftk_tracefile_cpus(tf));
	ftk_printer_ftrace_overrides(p, m);
	while ((r = ftk_merge_next(m, &tag))) {
		ftk_printer_print(p, r, tag);
		ftk_record_put((struct tep_record *)r);
	}
	ftk_printer_end(p);
	ret = 0;
	/* a file cut short is read up to the damage, which the handle describes */
	if (ftk_tracefile_damage(tf)) {
		ret = -1;
		snprintf(err, errlen, "%s", ftk_tracefile_damage(tf));
	}
	if (ftk_merge_failed(m)) {
		ret = ftk_stream_error(ftk_merge_failed(m));
		snprintf(err, errlen, "%s", ftk_stream_errmsg(ftk_merge_failed(m)));
	}
	ftk_printer_free(p);
	ftk_merge_free(m);
	ftk_tracefile_close(tf);
	fclose(out);
	return ret;
}

static void check_fixture(const char *dir, const char *name, int version, const char *comp,
			  int bufs)
{
	char path[4096], want_path[4096], err[512];
	char *text = NULL, *want;
	size_t len = 0, wlen = 0;
	struct ftk_tracefile *tf;
	int ret;

	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	snprintf(want_path, sizeof(want_path), "%s/%s.report", dir, name);
	ret = ftk_tracefile_open(path, 0, &tf);
	ok(ret == 0, "%s: opens (%s)", name, tf ? ftk_tracefile_errmsg(tf) : "");
	if (ret == 0) {
		is_int(ftk_tracefile_version(tf), version, "version");
		is_str(ftk_tracefile_compression(tf), comp, "compression");
		is_int(ftk_tracefile_buffers(tf), bufs, "buffers");
	}
	ftk_tracefile_close(tf);
	want = slurp(want_path, &wlen);
	ret = report(path, &text, &len, err, sizeof(err));
	ok(ret == 0 && want && len == wlen && !memcmp(text, want, len),
	   "%s: text equals trace-cmd report's, byte for byte (%zu/%zu bytes) %s", name, len,
	   wlen, err);
	free(text);
	free(want);
}

static int copy_part(const char *from, const char *to, long len, long poke_at,
		     const void *poke, size_t poke_len)
{
	size_t n;
	char *buf = slurp(from, &n);
	FILE *f;

	if (!buf)
		return -1;
	if (len < 0 || (size_t)len > n)
		len = n;
	if (poke && poke_at + poke_len <= (size_t)len)
		memcpy(buf + poke_at, poke, poke_len);
	f = fopen(to, "w");
	fwrite(buf, 1, len, f);
	fclose(f);
	free(buf);
	return 0;
}

/* The option getters on the guest and host fixtures (values from t/fixtures/README.synth). */
static void check_options(const char *dir)
{
	const struct ftk_time_sample *ts;
	unsigned long long id = 0;
	unsigned int flags = 0;
	const int *cpu_pid = NULL;
	struct ftk_tracefile *tf;
	char path[4200];
	int cpus = 0, n = 0, i, sorted, vcpus = 0, pid = 0, maps = 0;
	long long v = 0;
	const char *name;

	snprintf(path, sizeof(path), "%s/synth-v6-tshift.dat", dir);
	if (ftk_tracefile_open(path, 0, &tf) < 0) {
		ok(0, "synth-v6-tshift: opens");
		ftk_tracefile_close(tf);
		return;
	}
	i = ftk_tracefile_time_shift(tf, &id, &flags, &cpus);
	ok(i == 1 && id == 0xfeedf00d12345678ULL && flags == FTK_TIME_SHIFT_INTERPOLATE && cpus == 2,
	   "TIME_SHIFT: peer 0x%llx, flags %u, %d cpus", id, flags, cpus);
	ts = ftk_tracefile_time_shift_cpu(tf, 0, &n);
	ok(ts && n == 4 && ts[1].time == 1000500000LL && ts[1].offset == -499984446LL &&
	   ts[0].scaling == 3 && ts[0].fraction == 1,
	   "cpu 0: the time given twice kept once, its first sample (n %d)", n);
	ts = ftk_tracefile_time_shift_cpu(tf, 1, &n);
	for (i = 1, sorted = ts != NULL; ts && i < n; i++)
		sorted &= ts[i - 1].time < ts[i].time;
	ok(n == 5 && sorted, "cpu 1: the reversed samples sorted by time (n %d)", n);
	ok(!ftk_tracefile_time_shift_cpu(tf, 2, &n) && n == 0, "cpu 2: none");
	i = ftk_tracefile_trace_id(tf, &id);
	ok(i == 1 && id == 0x1a2b3c4d, "TRACEID 0x%llx", id);
	name = ftk_tracefile_procmap(tf, 1, &pid, &maps);
	ok(name && !strcmp(name, "make") && pid == 4321 && maps == 2 &&
	   !ftk_tracefile_procmap(tf, 2, NULL, NULL), "PROCMAPS: the second is make, pid 4321, 2 maps");
	ok(!ftk_tracefile_date(tf, NULL) && !ftk_tracefile_guest(tf, 0, NULL, NULL, NULL),
	   "no DATE, no GUEST");
	ftk_tracefile_close(tf);

	snprintf(path, sizeof(path), "%s/synth-v6-host.dat", dir);
	if (ftk_tracefile_open(path, 0, &tf) < 0) {
		ok(0, "synth-v6-host: opens");
		ftk_tracefile_close(tf);
		return;
	}
	name = ftk_tracefile_guest(tf, 0, &id, &vcpus, &cpu_pid);
	ok(name && !strcmp(name, "guest1") && id == 0x1a2b3c4d && vcpus == 2 && cpu_pid &&
	   cpu_pid[0] == 3000 && cpu_pid[1] == 3001, "GUEST: guest1, its trace id, vcpu pids");
	i = ftk_tracefile_date(tf, &v);
	ok(i == 1 && v == 1000, "DATE %lld us", v);
	i = ftk_tracefile_clock_offset(tf, &v);
	ok(i == 1 && v == 1000, "OFFSET %lld ns", v);
	ok(ftk_tracefile_ts_offset(tf) == 1001000, "DATE and OFFSET shift stamps by 1001000 ns");
	ok(!ftk_tracefile_time_shift(tf, NULL, NULL, NULL) && !ftk_tracefile_tsc2nsec(tf, NULL, NULL, NULL),
	   "no TIME_SHIFT, no TSC2NSEC");
	ftk_tracefile_close(tf);
}

int main(void)
{
	const char *src = getenv("top_srcdir");
	char dir[4096], tmp[] = "/tmp/ftk-t0120-XXXXXX", path[4200], err[512], *text, *want;
	size_t len, wlen, full;
	struct ftk_tracefile *tf;
	int ret, fd;

	snprintf(dir, sizeof(dir), "%s/t/fixtures", src ? src : ".");
	check_fixture(dir, "synth-v6", 6, "none", 1);
	check_fixture(dir, "synth-v6-be4", 6, "none", 1);
	check_fixture(dir, "synth-v6-8k", 6, "none", 1);
	check_fixture(dir, "synth-v6-inst", 6, "none", 2);
	check_fixture(dir, "synth-v7-none", 7, "none", 1);
	check_fixture(dir, "synth-v6-opts", 6, "none", 1);
	check_fixture(dir, "synth-v6-graph", 6, "none", 1);
	check_fixture(dir, "synth-v7-zstd-inst", 7, "zstd", 2);
	check_fixture(dir, "synth-v7-zlib", 7, "zlib", 1);
	check_fixture(dir, "synth-v6-tshift", 6, "none", 1);
	check_options(dir);

	fd = mkstemp(tmp);
	close(fd);
	snprintf(path, sizeof(path), "%s/synth-v6.dat", dir);
	want = slurp(path, &full);

	/* Truncated in the event data: the records before the cut are printed. */
	copy_part(path, tmp, full - 20000, 0, NULL, 0);
	text = NULL;
	ret = report(tmp, &text, &len, err, sizeof(err));
	ok(ret < 0 && strstr(err, "truncated") && strstr(err, "offset") && strstr(err, tmp),
	   "truncated data: error names the file and offset: %s", err);
	ok(text && strstr(text, "cpus=2\n") && strchr(text, '\n') &&
	   strlen(text) > 1000, "truncated data: what came before is printed (%zu bytes)", len);
	free(text);

	/* Truncated in the metadata. */
	copy_part(path, tmp, 700, 0, NULL, 0);
	ret = ftk_tracefile_open(tmp, 0, &tf);
	ok(ret < 0 && strstr(ftk_tracefile_errmsg(tf), "truncated") &&
	   strstr(ftk_tracefile_errmsg(tf), "offset"),
	   "truncated metadata: %s", ftk_tracefile_errmsg(tf));
	ftk_tracefile_close(tf);

	/* Not a trace.dat. */
	copy_part(path, tmp, -1, 0, "XX", 2);
	ret = ftk_tracefile_open(tmp, 0, &tf);
	ok(ret < 0 && strstr(ftk_tracefile_errmsg(tf), "bad magic at offset 0"),
	   "bad magic: %s", ftk_tracefile_errmsg(tf));
	ftk_tracefile_close(tf);

	/* A page header whose commit runs past the page: error, and no crash. */
	{
		static const unsigned char bad_commit[8] = { 0xff, 0xff, 0, 0, 0, 0, 0, 0 };
		char ofs[64];

		/* data starts page-aligned after the metadata: find the first page of cpu 0 */
		ret = ftk_tracefile_open(path, 0, &tf);
		ftk_tracefile_close(tf);
		copy_part(path, tmp, -1, 8192 + 4096 + 8, bad_commit, 8);
		text = NULL;
		ret = report(tmp, &text, &len, err, sizeof(err));
		snprintf(ofs, sizeof(ofs), "offset ");
		ok(ret < 0 && strstr(err, "bad sub-buffer header") && strstr(err, ofs),
		   "damaged page header: %s", err);
		free(text);
	}

	/* A missing file. */
	ret = ftk_tracefile_open("/nonexistent/trace.dat", 0, &tf);
	ok(ret == -ENOENT && strstr(ftk_tracefile_errmsg(tf), "/nonexistent/trace.dat"),
	   "missing file: %s", ftk_tracefile_errmsg(tf));
	ftk_tracefile_close(tf);

	/* Issue 11.10: a path longer than the error buffer is cut, never overrun. */
	{
		char longp[1200];

		memset(longp, 'a', sizeof(longp) - 1);
		longp[0] = '/';
		longp[sizeof(longp) - 1] = 0;
		ret = ftk_tracefile_open(longp, 0, &tf);
		ok(ret < 0 && tf && strlen(ftk_tracefile_errmsg(tf)) < 512 &&
		   !strncmp(ftk_tracefile_errmsg(tf), "/aaaa", 5),
		   "a %zu-character path: the message is cut at the buffer (%zu bytes)",
		   strlen(longp), tf ? strlen(ftk_tracefile_errmsg(tf)) : 0);
		ftk_tracefile_close(tf);
	}

	unlink(tmp);
	free(want);
	(void)wlen;
	return done_testing();
}
