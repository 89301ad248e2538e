// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int planned = -1, run, failed;

void plan(int n)
{
	planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

static void vdiag(const char *fmt, va_list ap)
{
	char buf[4096], *line, *next;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		printf("# %s\n", line);
	}
	fflush(stdout);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

int ok_at(const char *file, int line, int cond, const char *fmt, ...)
{
	va_list ap;

	run++;
	if (!cond)
		failed++;
	printf("%sok %d - ", cond ? "" : "not ", run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
	return cond;
}

void skip(const char *fmt, ...)
{
	va_list ap;

	run++;
	printf("ok %d # SKIP ", run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(0);
}

void bail_out(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(255);
}

int done_testing(void)
{
	if (planned < 0)
		printf("1..%d\n", run);
	else if (planned != run)
		printf("# planned %d tests but ran %d\n", planned, run), failed++;
	fflush(stdout);
	return failed ? 1 : 0;
}

void need_lane(const char *lane)
{
	const char *lanes = getenv("FTK_LANES");
	size_t n = strlen(lane);
	const char *p;

	if (!lanes || !*lanes)
		return;
	for (p = lanes; (p = strstr(p, lane)); p += n)
		if ((p == lanes || p[-1] == ' ' || p[-1] == ',') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
			return;
	skip_all("lane '%s' not in FTK_LANES='%s'", lane, lanes);
}
