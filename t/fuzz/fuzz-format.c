// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the print-format compiler (lib/print.c): the input is
 * one event format (the text of events/SYSTEM/EVENT/format) and the payloads
 * of a few records of it. The target wraps them in a small, otherwise valid
 * version-6 trace.dat (one CPU, one sub-buffer) and sends that through the
 * library as a user's file would go: the reader takes the format, the printer
 * compiles its print fmt and prints every record, in the output format that
 * the input's last byte picks (text, JSON, CSV, Chrome, raw text).
 *
 * Input: FORMAT '\0' then records, each a length byte and that many bytes.
 * The seeds (t/fuzz/run.sh) are the host's own event formats. Run with
 * FTK_FUZZ_SAVE=FILE and one input, it writes the trace.dat it would read
 * to FILE instead: that is what a crasher's fixture keeps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include <ftkit/ftkit.h>

#define SUBBUF	4096

struct out {
	unsigned char	*buf;
	size_t		len, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 4096;
		o->buf = realloc(o->buf, o->cap);
		if (!o->buf)
			abort();
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void num(struct out *o, uint64_t v, int n)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < n; i++)
		b[i] = v >> (8 * i);
	put(o, b, n);
}

static void block(struct out *o, const char *s, size_t len, int width)
{
	num(o, len, width);
	put(o, s, len);
}

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

/* The sub-buffer: records of up to 255 bytes, each with a 4-byte header. */
static size_t fill_page(unsigned char *page, const uint8_t *d, size_t n)
{
	size_t used = 16, len, alen;
	uint64_t commit;

	memset(page, 0, SUBBUF);
	page[0] = 0x40;			/* first stamp 64 */
	while (n) {
		len = d[0];
		if (len > n - 1)
			len = n - 1;
		alen = (len + 3) & ~(size_t)3;
		if (!alen || used + 4 + alen > SUBBUF)
			break;
		/* type_len alen/4 (<= 64 fits 5 bits only up to 28: use type 0 beyond) */
		if (alen <= 112) {
			uint32_t h = (uint32_t)(alen / 4) | (100u << 5);

			memcpy(page + used, &h, 4);
			memcpy(page + used + 4, d + 1, len);
			used += 4 + alen;
		} else {
			uint32_t h = 100u << 5, l = (uint32_t)alen + 4;

			if (used + 8 + alen > SUBBUF)
				break;
			memcpy(page + used, &h, 4);
			memcpy(page + used + 4, &l, 4);
			memcpy(page + used + 8, d + 1, len);
			used += 8 + alen;
		}
		d += 1 + len;
		n -= 1 + len;
	}
	commit = used - 16;
	memcpy(page + 8, &commit, 8);
	return used - 16;
}

static int read_all(const char *path, FILE *out, int format, unsigned int flags)
{
	struct ftk_tracefile *tf;
	struct ftk_printer *p = NULL;
	struct ftk_merge *m = NULL;
	struct tep_record *r;
	int tag, n = 0;

	if (ftk_tracefile_open(path, FTK_TRACEFILE_NO_PLUGINS, &tf) == 0) {
		m = ftk_tracefile_merge(tf, 0, NULL);
		p = ftk_printer_new(out, ftk_tracefile_tep(tf), format, flags);
		if (p)
			ftk_printer_add_buffer(p, "", 1);
		if (p && m)
			ftk_printer_ftrace_overrides(p, m);
		if (p)
			ftk_printer_begin(p, 1);
		while (m && p && (r = ftk_merge_next(m, &tag)) && n++ < 1000) {
			ftk_printer_print(p, r, tag);
			ftk_record_put(r);
		}
		if (p)
			ftk_printer_end(p);
		ftk_printer_free(p);
		ftk_merge_free(m);
	}
	ftk_tracefile_close(tf);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	static unsigned char page[SUBBUF];
	char path[] = "/tmp/ftk-fuzz-fmt-XXXXXX";
	const uint8_t *nul = memchr(data, 0, size);
	struct out o = { 0 };
	size_t flen, table, off;
	int fd, f;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		tep_set_loglevel(TEP_LOG_NONE);
		ftk_set_print(NULL);
	}
	flen = nul ? (size_t)(nul - data) : size;
	put(&o, "\027\010\104tracing6", 12);
	num(&o, 0, 1);			/* little endian */
	num(&o, 8, 1);			/* long size */
	num(&o, SUBBUF, 4);
	put(&o, "header_page", 12);
	block(&o, header_page, sizeof(header_page) - 1, 8);
	put(&o, "header_event", 13);
	block(&o, header_event, sizeof(header_event) - 1, 8);
	num(&o, 0, 4);			/* ftrace formats */
	num(&o, 1, 4);			/* one system */
	put(&o, "fuzz", 5);
	num(&o, 1, 4);			/* one event */
	block(&o, (const char *)data, flen, 8);
	block(&o, "", 0, 4);		/* kallsyms */
	block(&o, "", 0, 4);		/* printk formats */
	block(&o, "1 init\n", 7, 8);	/* saved cmdlines */
	num(&o, 1, 4);			/* CPUs */
	put(&o, "options  ", 10);
	num(&o, 4, 2);			/* TRACECLOCK */
	num(&o, 18, 4);
	put(&o, "[local] global\0\0\0", 18);
	num(&o, 0, 2);
	put(&o, "flyrecord", 10);
	table = o.len;
	num(&o, 0, 8);
	num(&o, 0, 8);
	block(&o, "[local] global", 14, 8);
	off = (o.len + SUBBUF - 1) / SUBBUF * SUBBUF;
	while (o.len < off)
		num(&o, 0, 1);
	fill_page(page, nul ? nul + 1 : data + size, nul ? size - flen - 1 : 0);
	put(&o, page, SUBBUF);
	memcpy(o.buf + table, &off, 8);
	off = SUBBUF;
	memcpy(o.buf + table + 8, &off, 8);

	fd = mkstemp(path);
	if (fd < 0 || write(fd, o.buf, o.len) != (ssize_t)o.len) {
		if (fd >= 0)
			close(fd);
		unlink(path);
		free(o.buf);
		return 0;
	}
	close(fd);
	free(o.buf);
	/* FTK_FUZZ_SAVE=FILE: keep the trace.dat made of the input (for a fixture) */
	if (getenv("FTK_FUZZ_SAVE") && rename(path, getenv("FTK_FUZZ_SAVE")) == 0)
		return 0;
	/* one output format an input (the last byte picks it): 5x the speed of all */
	f = size ? data[size - 1] % 5 : 0;
	read_all(path, devnull, f == 4 ? FTK_PRINT_TEXT : f, f == 4 ? FTK_PRINT_RAW | FTK_PRINT_NSEC : 0);
	unlink(path);
	return 0;
}
