// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clock-pair: one instant read on the trace clock and on CLOCK_REALTIME,
 * for a recording's DATE (ftk_tracewrite_date()). Measured as trace-cmd
 * record --date does: marks written to trace_marker between two readings
 * of CLOCK_REALTIME, in a short-lived instance of our own with the
 * recording's trace clock (so that the recording's buffer gets no marks),
 * the pair whose two readings lie closest kept. On the capture side: the
 * writer stores what it is given and touches no tracefs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ftkit/capture.h>
#include <ftkit/instance.h>

#include "internal.h"
#include "tracefs-local.h"

#define DATE_TRIES	20

/* The stamp of a line of the trace file: "secs.usecs:" in microseconds, or "count:" as is. */
static int line_stamp(const char *line, const char *end, unsigned long long *v, int *in_us)
{
	const char *p = line, *tok, *q;

	while (p < end) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		tok = p;
		while (p < end && !isspace((unsigned char)*p))
			p++;
		if (p - tok < 2 || p[-1] != ':' || !isdigit((unsigned char)*tok))
			continue;
		for (q = tok; q < p - 1 && (isdigit((unsigned char)*q) || *q == '.'); q++)
			;
		if (q != p - 1)
			continue;
		q = memchr(tok, '.', p - tok);
		*in_us = !!q;
		*v = strtoull(tok, NULL, 10);
		if (q)
			*v = *v * 1000000 + strtoull(q + 1, NULL, 10);
		return 0;
	}
	return -ENOENT;
}

/* The marks' stamps in @text (instance "trace" output) against @mid/@win: the closest pair. */
static int best_pair(const char *text, const unsigned long long *mid,
		     const unsigned long long *win, struct ftk_clock_pair *p)
{
	unsigned long long best = ~0ULL, v;
	const char *line, *end, *hit;
	int i, in_us, found = 0;

	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		hit = memmem(line, end - line, "ftkit-date ", 11);
		if (!hit || line_stamp(line, hit, &v, &in_us))
			continue;
		i = atoi(hit + 11);
		if (i < 0 || i >= DATE_TRIES || win[i] >= best)
			continue;
		best = win[i];
		p->realtime_ns = mid[i];
		p->stamp = v;
		p->counts = !in_us;
		found = 1;
	}
	return found ? 0 : -EIO;
}

/**
 * ftk_capture_clock_pair() - one instant on the trace clock and the time of day
 * @t: the recording's tracefs handle: its trace clock is the one read
 * @p: filled in: CLOCK_REALTIME and the trace clock's stamp of one mark
 *
 * Makes a short-lived instance of its own with @t's trace clock, writes
 * marks into it between readings of CLOCK_REALTIME, reads them back and
 * keeps the closest pair; the instance is removed before it returns.
 *
 * Return: 0, or a negative errno with the reason in ftk_tracefs_errmsg(@t).
 */
FTK_API int ftk_capture_clock_pair(struct ftk_tracefs *t, struct ftk_clock_pair *p)
{
	unsigned long long mid[DATE_TRIES], win[DATE_TRIES];
	char name[64], path[PATH_MAX], mark[32], *text = NULL, *clock = NULL, *clk;
	struct ftk_tracefs *d = NULL;
	struct timespec t0, t1;
	int fd = -1, i, n, ret;

	memset(p, 0, sizeof(*p));
	ret = ftk_tracefs_read(t, "trace_clock", &clock);
	if (ret)
		return ftk_err(ret);
	clk = ftk_tracefs_choice(clock);
	ret = ftk_instance_name("date", name, sizeof(name));
	if (!ret)
		ret = ftk_tracefs_open(ftk_tracefs_root(t), name, FTK_TRACEFS_CREATE, &d);
	if (ret) {
		snprintf(t->errmsg, sizeof(t->errmsg), "cannot make instance '%s': %s", name,
			 strerror(-ret));
		goto out;
	}
	ret = ftk_tracefs_write(d, "trace_clock", clk ? clk : "local");
	if (!ret)
		ret = ftk_tracefs_write(d, "tracing_on", "1");
	if (!ret)
		ret = ftk_tracefs_path(d, "trace_marker", path, sizeof(path));
	if (ret) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", ftk_tracefs_errmsg(d));
		goto out;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(t->errmsg, sizeof(t->errmsg), "cannot open 'trace_marker': %s",
			 strerror(-ret));
		goto out;
	}
	for (i = 0; i < DATE_TRIES; i++) {
		n = snprintf(mark, sizeof(mark), "ftkit-date %d\n", i);
		clock_gettime(CLOCK_REALTIME, &t0);
		if (write(fd, mark, n) != n) {
			win[i] = ~0ULL;
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &t1);
		win[i] = (t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec;
		mid[i] = t0.tv_sec * 1000000000ULL + t0.tv_nsec + win[i] / 2;
	}
	ftk_tracefs_write(d, "tracing_on", "0");
	ret = ftk_tracefs_read(d, "trace", &text);
	if (ret) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", ftk_tracefs_errmsg(d));
		goto out;
	}
	ret = best_pair(text, mid, win, p);
	if (ret)
		snprintf(t->errmsg, sizeof(t->errmsg), "no mark came back through instance '%s'",
			 name);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(clk);
	free(clock);
	if (d) {
		ftk_tracefs_restore(d);
		ftk_tracefs_close(d);
	}
	return ftk_err(ret);
}
