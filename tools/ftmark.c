// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftmark: write marks into the trace from the shell, through trace_marker
 * (text) or trace_marker_raw (binary, with an id).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char usage[] =
"usage: ftmark [-qv] [-B instance] [-r ID] [TEXT...]\n"
"\n"
"Write TEXT (the arguments joined by spaces) to trace_marker as one mark;\n"
"without arguments, write each line of standard input as one mark.\n"
"\n"
"  -B, --instance NAME  mark the buffer of instance NAME (it must exist)\n"
"  -r, --raw ID         write to trace_marker_raw: the 32-bit ID, then TEXT's\n"
"                       bytes; without TEXT, standard input in records of\n"
"                       up to 1020 bytes\n"
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftmark \"test 3 starts\"\n"
"  make 2>&1 | ftmark -B ftkit-build     # each output line is a mark\n"
"  printf '\\x01\\x02' | ftmark --raw 42\n";
_Static_assert(FTK_MARKER_MAX - 4 == 1020, "the usage text says 1020");

static const char *marker_file(const char *instance, int raw)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s%s%s%s", instance ? "instances/" : "",
		 instance ? instance : "", instance ? "/" : "",
		 raw ? "trace_marker_raw" : "trace_marker");
	return buf;
}

static void check(int ret, const char *instance, int raw)
{
	char err[128];

	if (ret < 0)
		tool_die("cannot write '%s': %s", marker_file(instance, raw),
			 ftk_strerror(ret, err, sizeof(err)));
}

struct opts {
	unsigned long	id;
	int		raw;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	if (opt == 'r') {
		o->id = tool_num(arg, "raw id", 0, 0xffffffffLL);
		o->raw = 1;
	}
}

static const struct option longopts[] = {
	{ "raw",	required_argument,	NULL, 'r' },
	{ }
};

static const struct tool_def def = {
	.name = "ftmark", .usage = usage, .opts = "r:", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE, .option = option,
};

static struct ftk_marker *open_marker(const char *instance, int raw)
{
	struct ftk_marker *m = ftk_marker_open(instance, raw ? FTK_MARKER_RAW : 0);
	int err = ftk_marker_error(m);
	char buf[128];

	if (ftk_marker_enabled(m) && !(raw && err))
		return m;
	tool_die("cannot open '%s': %s%s", marker_file(instance, raw && ftk_marker_enabled(m)),
		 ftk_strerror(-err, buf, sizeof(buf)),
		 err == ENOENT ? (instance ? " (no such instance?)" : " (is tracefs mounted?)") :
		 err == EACCES || err == EPERM ? " (are you root?)" : "");
}

/* The operands joined by spaces: one mark. */
static void mark_args(struct ftk_marker *m, const char *instance, int raw, unsigned long id,
		      char **args, int n)
{
	char buf[FTK_MARKER_MAX * 4];
	size_t len = 0, l;
	int i;

	for (i = 0; i < n; i++) {
		l = strlen(args[i]);
		if (len + l + 2 > sizeof(buf))
			tool_die("text too long: a mark takes up to %zu bytes", sizeof(buf) - 1);
		if (i)
			buf[len++] = ' ';
		memcpy(buf + len, args[i], l);
		len += l;
	}
	if (raw)
		check(len > FTK_MARKER_MAX - 4 ? -EMSGSIZE : ftk_mark_raw(m, id, buf, len),
		      instance, 1);
	else
		check(ftk_mark_write(m, buf, len), instance, 0);
}

/* Standard input: records of raw bytes, or one mark a line. */
static void mark_stdin(struct ftk_marker *m, const char *instance, int raw, unsigned long id)
{
	char buf[FTK_MARKER_MAX - 4], *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (raw) {
		while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
			check(ftk_mark_raw(m, id, buf, n), instance, 1);
		if (n < 0)
			tool_die("cannot read standard input: %s", strerror(errno));
		return;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		/* An empty line would be an empty write, which the kernel refuses. */
		check(n ? ftk_mark_write(m, line, n) : ftk_mark_write(m, " ", 1), instance, 0);
	}
	free(line);
	if (ferror(stdin))
		tool_die("cannot read standard input: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct ftk_marker *m;
	struct tool_args a;

	tool_parse(&def, argc, argv, &a, &o);
	m = open_marker(a.instance, o.raw);
	if (a.nrest)
		mark_args(m, a.instance, o.raw, o.id, a.rest, a.nrest);
	else
		mark_stdin(m, a.instance, o.raw, o.id);
	ftk_marker_close(m);
	tool_exit(EXIT_OK);
}
