// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftinfo: what this kernel and tracefs allow, and why not where not.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ftinfo [-qv] [--json] [--need CAP...]\n"
"\n"
"Probe what the running kernel's tracing allows, by trying it, and print\n"
"each feature as usable or not with the kernel's reason.\n"
"\n"
"  -j, --json        one JSON object for scripts\n"
"  -n, --need CAP... exit 0 if every CAP is usable; else print why and exit 2\n"
"  -q, --quiet       fewer messages\n"
"  -v, --verbose     more messages (repeat for debug)\n"
"  -V, --version     print the version\n"
"  -h, --help        this text\n"
"\n"
"examples:\n"
"  ftinfo                     # the table\n"
"  ftinfo --json | jq .caps.kprobes\n"
"  ftinfo --need kprobes function || echo \"needs a full kernel\"\n");
}

static void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\t')
			fputs("\\t", stdout);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_json(const struct ftk_caps *caps)
{
	size_t i, n = ftk_caps_count(caps);

	printf("{\"version\":\"%s\",\"caps\":{", FTK_VERSION_STRING);
	for (i = 0; i < n; i++) {
		const struct ftk_cap *c = ftk_caps_at(caps, i);

		printf("%s\n", i ? "," : "");
		json_str(c->name);
		printf(":{\"group\":");
		json_str(c->group);
		printf(",\"usable\":%s,\"value\":", c->usable ? "true" : "false");
		json_str(c->value);
		printf(",\"reason\":");
		json_str(c->reason);
		putchar('}');
	}
	printf("\n}}\n");
}

static void print_table(const struct ftk_caps *caps)
{
	size_t i, j, n = ftk_caps_count(caps);

	/* Groups in the order they first appear, each printed whole. */
	for (i = 0; i < n; i++) {
		const char *group = ftk_caps_at(caps, i)->group;

		for (j = 0; j < i; j++)
			if (!strcmp(ftk_caps_at(caps, j)->group, group))
				break;
		if (j < i)
			continue;
		printf("%s%s\n", i ? "\n" : "", group);
		for (j = i; j < n; j++) {
			const struct ftk_cap *c = ftk_caps_at(caps, j);

			if (strcmp(c->group, group))
				continue;
			printf("  %-20s %-3s", c->name, c->usable ? "yes" : "NO");
			if (c->value || c->reason)
				printf("  %s%s%s", c->value ? c->value : "",
				       c->value && c->reason ? "; " : "", c->reason ? c->reason : "");
			putchar('\n');
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument,	NULL, 'j' },
		{ "need",	no_argument,	NULL, 'n' },
		{ "quiet",	no_argument,	NULL, 'q' },
		{ "verbose",	no_argument,	NULL, 'v' },
		{ "version",	no_argument,	NULL, 'V' },
		{ "help",	no_argument,	NULL, 'h' },
		{ }
	};
	int opt, json = 0, need = 0, ret = EXIT_OK, i;
	struct ftk_caps *caps;
	struct ftk_tracefs *t;
	char buf[128];

	tool_init("ftinfo");
	/* Probing changes tracefs for a moment: a signal must not cut it short. */
	tool_signals();
	while ((opt = getopt_long(argc, argv, "jnqvVh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 'n': need = 1; break;
		case 'q': tool_verbose(-1); break;
		case 'v': tool_verbose(1); break;
		case 'V': printf("ftinfo (ftkit) %s\n", FTK_VERSION_STRING); return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (need && optind == argc)
		tool_usage_error("--need wants at least one capability name");
	if (!need && optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);

	t = tool_tracefs(NULL, 0);
	ret = ftk_caps_probe(t, &caps);
	if (ret)
		tool_die("cannot probe %s: %s", ftk_tracefs_root(t),
			 ftk_strerror(ret, buf, sizeof(buf)));

	if (need) {
		for (i = optind; i < argc; i++) {
			const struct ftk_cap *c = ftk_caps_get(caps, argv[i]);

			if (!c) {
				ftk_caps_free(caps);
				tool_usage_error("unknown capability '%s' (see ftinfo --json)",
						 argv[i]);
			}
			if (!c->usable) {
				printf("%s: %s\n", c->name, c->reason);
				ret = EXIT_FAIL;
			}
		}
	} else if (json) {
		print_json(caps);
	} else {
		print_table(caps);
	}
	ftk_caps_free(caps);
	if (tool_stop)
		ret = 128 + tool_stop;
	tool_exit(ret);
}
