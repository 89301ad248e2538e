// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Issue 16.3: a trace.dat cut short anywhere is read up to the damage.
 *
 * Each fixture (v6, v7 uncompressed, v7 zstd with an instance) is cut at
 * byte lengths from 0 to its size, in place with ftruncate(2), and
 * read through the library as ftreport reads it. At each length:
 *   - the open fails with a message naming the file and an offset, or it
 *     succeeds and ftk_tracefile_damage() says "truncated at offset LEN"
 *     (every length short of the whole file that loses records is one
 *     or the other);
 *   - no stream fails: cut data ends at its last whole sub-buffer or chunk;
 *   - every record read is one of the whole file's, in the whole file's
 *     order, and the records of each buffer and CPU are the first ones of
 *     that buffer and CPU (a prefix: nothing skipped, nothing invented).
 * The truth is the whole file's records, read by the same reader, whose
 * text t0120 checks against trace-cmd report. At every 509th length (and
 * at the last 64) the records' printed text is compared as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "tap.h"
#include <ftkit/ftkit.h>

#define KEYS	(64 * 64)	/* buffer index x cpu */

struct frec {
	int			key;
	unsigned long long	ts;
	int			size;
	unsigned char		*data;
	char			*text;
};

struct full {
	struct frec		*r;
	size_t			n;
	size_t			*bykey[KEYS];	/* indices into r, per key */
	size_t			nkey[KEYS];
};

static char *text_of(struct tep_handle *tep, const struct tep_record *rec)
{
	struct trace_seq s;
	char *t;

	trace_seq_init(&s);
	tep_print_event(tep, &s, (struct tep_record *)rec, "%s-%d [%03d] %s: %s", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	t = strdup(s.buffer);
	trace_seq_destroy(&s);
	return t;
}

static int key_of(int tag, int cpu)
{
	return tag >= 0 && tag < 64 && cpu >= 0 && cpu < 64 ? tag * 64 + cpu : -1;
}

static int read_full(const char *path, struct full *f)
{
	struct ftk_tracefile *tf;
	struct ftk_merge *m;
	const struct tep_record *r;
	int tag, k;

	memset(f, 0, sizeof(*f));
	if (ftk_tracefile_open(path, FTK_TRACEFILE_NO_PLUGINS, &tf) < 0) {
		diag("%s", tf ? ftk_tracefile_errmsg(tf) : path);
		ftk_tracefile_close(tf);
		return -1;
	}
	m = ftk_tracefile_merge(tf, 0, NULL);
	while (m && (r = ftk_merge_peek(m, &tag))) {
		struct frec *x;

		f->r = realloc(f->r, (f->n + 1) * sizeof(*f->r));
		x = &f->r[f->n];
		x->key = key_of(tag, r->cpu);
		x->ts = r->ts;
		x->size = r->size;
		x->data = malloc(r->size ? r->size : 1);
		memcpy(x->data, r->data, r->size);
		x->text = text_of(ftk_tracefile_tep(tf), r);
		if (x->key >= 0) {
			k = x->key;
			f->bykey[k] = realloc(f->bykey[k], (f->nkey[k] + 1) * sizeof(size_t));
			f->bykey[k][f->nkey[k]++] = f->n;
		}
		f->n++;
		ftk_merge_consume(m);
	}
	k = !m || ftk_merge_failed(m);
	ftk_merge_free(m);
	ftk_tracefile_close(tf);
	return k ? -1 : 0;
}

static void free_full(struct full *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->r[i].data);
		free(f->r[i].text);
	}
	for (i = 0; i < KEYS; i++)
		free(f->bykey[i]);
	free(f->r);
}

struct tally {
	long	lengths, open_failed, partial, bad_msg, stream_failed, not_prefix, bad_text;
	long	no_warning, whole_ok, max_kept, read, some_kept;
	char	first_bad[1024];
};

static void bad(struct tally *t, long len, const char *fmt, const char *what)
{
	if (!t->first_bad[0])
		snprintf(t->first_bad, sizeof(t->first_bad), "at length %ld: %s: %s", len, fmt, what);
}

/* Read the file at @path (now @len bytes long) and check it against @f. */
static void check_length(const char *path, long len, long full_len, const struct full *f,
			 struct tally *t, int with_records, int with_text)
{
	size_t next[KEYS] = { 0 }, kept = 0;
	long long last = -1;
	struct ftk_tracefile *tf;
	struct ftk_merge *m;
	const struct tep_record *r;
	char want[64];
	int tag, k, warned;

	t->lengths++;
	if (ftk_tracefile_open(path, FTK_TRACEFILE_NO_PLUGINS, &tf) < 0) {
		const char *e = tf ? ftk_tracefile_errmsg(tf) : "";

		t->open_failed++;
		if (!strstr(e, path) || !strstr(e, "offset"))
			t->bad_msg++, bad(t, len, "open error without the file or an offset", e);
		if (len == full_len)
			bad(t, len, "the whole file does not open", e);
		ftk_tracefile_close(tf);
		return;
	}
	snprintf(want, sizeof(want), "truncated at offset %ld:", len);
	warned = ftk_tracefile_damage(tf) && strstr(ftk_tracefile_damage(tf), want);
	if (len == full_len && ftk_tracefile_damage(tf))
		bad(t, len, "the whole file is called damaged", ftk_tracefile_damage(tf));
	if (len < full_len)
		t->partial++;
	if (!with_records) {
		ftk_tracefile_close(tf);
		return;
	}
	t->read++;
	m = ftk_tracefile_merge(tf, 0, NULL);
	while (m && (r = ftk_merge_peek(m, &tag))) {
		const struct frec *x;
		size_t at;

		k = key_of(tag, r->cpu);
		if (k < 0 || next[k] >= f->nkey[k]) {
			t->not_prefix++, bad(t, len, "a record the whole file does not have", "");
			break;
		}
		at = f->bykey[k][next[k]++];
		x = &f->r[at];
		if ((long long)at <= last || x->ts != r->ts || x->size != r->size ||
		    memcmp(x->data, r->data, r->size)) {
			t->not_prefix++, bad(t, len, "not the whole file's next record", x->text);
			break;
		}
		if (with_text) {
			char *txt = text_of(ftk_tracefile_tep(tf), r);

			if (strcmp(txt, x->text))
				t->bad_text++, bad(t, len, "text differs", txt);
			free(txt);
		}
		last = at;
		kept++;
		ftk_merge_consume(m);
	}
	if (!m || ftk_merge_failed(m))
		t->stream_failed++, bad(t, len, "a stream failed",
					m ? ftk_stream_errmsg(ftk_merge_failed(m)) : "no merge");
	if (len == full_len && kept == f->n)
		t->whole_ok = 1;
	/*
	 * A cut that loses nothing the reader uses (v7: exactly at the
	 * strings section, which only names the sections, and which a file
	 * need not have) cannot be seen; any other must be said.
	 */
	if (len < full_len && !warned && kept < f->n)
		t->no_warning++, bad(t, len, "no warning naming the offset",
				     ftk_tracefile_damage(tf) ? ftk_tracefile_damage(tf) : "(none)");
	if ((long)kept > t->max_kept && len < full_len)
		t->max_kept = kept;
	if (kept && kept < f->n)
		t->some_kept++;
	ftk_merge_free(m);
	ftk_tracefile_close(tf);
}

static void run(const char *dir, const char *name)
{
	char src[4096], tmp[] = "/tmp/ftk-t0125-XXXXXX";
	struct tally t = { 0 };
	struct full f;
	struct timespec a, b;
	char *buf;
	long len, n;
	int all = getenv("FTK_T0125_ALL") != NULL;
	FILE *in;
	int fd;

	snprintf(src, sizeof(src), "%s/%s", dir, name);
	in = fopen(src, "r");
	if (!in) {
		ok(0, "%s: %s", src, strerror(errno));
		return;
	}
	fseek(in, 0, SEEK_END);
	n = ftell(in);
	rewind(in);
	buf = malloc(n);
	if (fread(buf, 1, n, in) != (size_t)n)
		n = 0;
	fclose(in);
	if (read_full(src, &f) < 0 || !f.n) {
		ok(0, "%s: the whole file reads", name);
		free(buf);
		return;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || write(fd, buf, n) != n)
		bail_out("%s: %s", tmp, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (len = n; len >= 0; len--) {
		if (ftruncate(fd, len) < 0)
			bail_out("ftruncate %s: %s", tmp, strerror(errno));
		/*
		 * Every length in the first and last two pages (metadata,
		 * options, section headers, the first CPU's start), near each
		 * page boundary (where CPU regions and chunks start and end)
		 * and every 61st: about 1 in 7. FTK_T0125_ALL=1 reads every
		 * length (minutes: each open parses the metadata again).
		 */
		if (!all && len >= 8192 && len <= n - 8192 && len % 4096 >= 48 &&
		    len % 4096 <= 4048 && len % 61)
			continue;
		check_length(tmp, len, n, &f, &t, 1, len % 509 == 0 || len > n - 64);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	unlink(tmp);
	diag("%s: %ld lengths in %.1f s: %ld did not open, %ld opened cut short, records read at %ld lengths (at most %ld of %zu kept)",
	     name, t.lengths, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, t.open_failed,
	     t.partial, t.read, t.max_kept, f.n);
	if (t.first_bad[0])
		diag("first problem %s", t.first_bad);
	ok(all ? t.lengths == n + 1 : t.lengths > n / 8,
	   "%s: %ld lengths from 0 to %ld were read%s", name, t.lengths, n, all ? " (all)" : "");
	ok(t.whole_ok, "%s: the whole file gives its %zu records", name, f.n);
	ok(!t.bad_msg, "%s: every open that fails names the file and an offset (%ld do not)", name, t.bad_msg);
	ok(!t.no_warning, "%s: every file cut short that opens says where it was cut (%ld do not)", name, t.no_warning);
	ok(!t.stream_failed, "%s: no stream fails: the cut data ends at its last whole page (%ld do not)", name, t.stream_failed);
	ok(!t.not_prefix, "%s: records are the whole file's, in order, a prefix per CPU (%ld do not)", name, t.not_prefix);
	ok(!t.bad_text, "%s: their text is the whole file's (%ld do not)", name, t.bad_text);
	ok(t.some_kept > 0, "%s: %ld cut copies keep part of the records (up to %ld of %zu)", name,
	   t.some_kept, t.max_kept, f.n);
	free_full(&f);
	free(buf);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];

	tep_set_loglevel(TEP_LOG_NONE);
	ftk_set_print(NULL);
	snprintf(dir, sizeof(dir), "%s/t/fixtures", top ? top : ".");
	run(dir, "synth-v6.dat");
	run(dir, "synth-v7-none.dat");
	run(dir, "synth-v7-zstd-inst.dat");
	return done_testing();
}
