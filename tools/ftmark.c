// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftmark: write marks into the trace from the shell, through trace_marker
 * (text) or trace_marker_raw (binary, with an id).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftmark [-qv] [-B instance] [-r ID] [TEXT...]\n"
"\n"
"Write TEXT (the arguments joined by spaces) to trace_marker as one mark;\n"
"without arguments, write each line of standard input as one mark.\n"
"\n"
"  -B, --instance NAME  mark the buffer of instance NAME (it must exist)\n"
"  -r, --raw ID         write to trace_marker_raw: the 32-bit ID, then TEXT's\n"
"                       bytes; without TEXT, standard input in records of\n"
"                       up to %d bytes\n"
"  -q, --quiet          fewer messages\n"
"  -v, --verbose        more messages\n"
"  -h, --help           this text\n"
"\n"
"examples:\n"
"  ftmark \"test 3 starts\"\n"
"  make 2>&1 | ftmark -B ftkit-build     # each output line is a mark\n"
"  printf '\\x01\\x02' | ftmark --raw 42\n", FTK_MARKER_MAX - 4);
}

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance",	required_argument,	NULL, 'B' },
		{ "raw",	required_argument,	NULL, 'r' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *instance = NULL;
	unsigned long id = 0;
	struct ftk_marker *m;
	int c, raw = 0, i;
	char err[128], *end;

	tool_init("ftmark");
	while ((c = getopt_long(argc, argv, "B:r:qvh", opts, NULL)) != -1) {
		switch (c) {
		case 'B':
			instance = optarg;
			break;
		case 'r':
			errno = 0;
			id = strtoul(optarg, &end, 0);
			if (errno || *end || !*optarg || id > 0xffffffffUL)
				tool_usage_error("bad raw id '%s': give a number up to 2^32-1",
						 optarg);
			raw = 1;
			break;
		case 'q':
			tool_verbose(-1);
			break;
		case 'v':
			tool_verbose(1);
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (instance && (!*instance || strchr(instance, '/')))
		tool_usage_error("bad instance name '%s'", instance);

	m = ftk_marker_open(instance, raw ? FTK_MARKER_RAW : 0);
	if (!ftk_marker_enabled(m) || (raw && ftk_marker_error(m)))
		tool_die("cannot open '%s': %s%s", marker_file(instance, raw && ftk_marker_enabled(m)),
			 ftk_strerror(-ftk_marker_error(m), err, sizeof(err)),
			 ftk_marker_error(m) == ENOENT ?
			 (instance ? " (no such instance?)" : " (is tracefs mounted?)") :
			 ftk_marker_error(m) == EACCES || ftk_marker_error(m) == EPERM ?
			 " (are you root?)" : "");

	if (optind < argc) {
		char buf[FTK_MARKER_MAX * 4];
		size_t len = 0;

		for (i = optind; i < argc; i++) {
			size_t n = strlen(argv[i]);

			if (len + n + 2 > sizeof(buf))
				tool_die("text too long: a mark takes up to %zu bytes",
					 sizeof(buf) - 1);
			if (i > optind)
				buf[len++] = ' ';
			memcpy(buf + len, argv[i], n);
			len += n;
		}
		if (raw)
			check(len > FTK_MARKER_MAX - 4 ? -EMSGSIZE :
			      ftk_mark_raw(m, id, buf, len), instance, 1);
		else
			check(ftk_mark_write(m, buf, len), instance, 0);
	} else if (raw) {
		char buf[FTK_MARKER_MAX - 4];
		ssize_t n;

		while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
			check(ftk_mark_raw(m, id, buf, n), instance, 1);
		if (n < 0)
			tool_die("cannot read standard input: %s", strerror(errno));
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		while ((n = getline(&line, &cap, stdin)) > 0) {
			if (line[n - 1] == '\n')
				n--;
			/* An empty line would be an empty write, which the kernel refuses. */
			check(n ? ftk_mark_write(m, line, n) : ftk_mark_write(m, " ", 1),
			      instance, 0);
		}
		free(line);
		if (ferror(stdin))
			tool_die("cannot read standard input: %s", strerror(errno));
	}
	ftk_marker_close(m);
	tool_exit(EXIT_OK);
}
