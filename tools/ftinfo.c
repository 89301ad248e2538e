// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftinfo: what this kernel and tracefs allow, and why not where not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static const char usage[] =
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
"  ftinfo --need kprobes function || echo \"needs a full kernel\"\n";

/* @s as JSON, null when absent. */
static void json_str(const char *s)
{
	if (!s)
		fputs("null", stdout);
	else
		ftk_json_str(stdout, s, SIZE_MAX);
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

struct opts {
	int	json, need;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	if (opt == 'j')
		o->json = 1;
	else if (opt == 'n')
		o->need = 1;
}

static const struct option longopts[] = {
	{ "json",	no_argument,	NULL, 'j' },
	{ "need",	no_argument,	NULL, 'n' },
	{ }
};

static const struct tool_def def = {
	.name = "ftinfo", .usage = usage, .opts = "jn", .longopts = longopts, .option = option,
};

/* --need: 0 if every capability named is usable; else why not, and EXIT_FAIL. */
static int need(struct ftk_caps *caps, char **names, int n)
{
	int i, ret = EXIT_OK;

	for (i = 0; i < n; i++) {
		const struct ftk_cap *c = ftk_caps_get(caps, names[i]);

		if (!c) {
			ftk_caps_free(caps);
			tool_usage_error("unknown capability '%s' (see ftinfo --json)", names[i]);
		}
		if (!c->usable) {
			printf("%s: %s\n", c->name, c->reason);
			ret = EXIT_FAIL;
		}
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct ftk_caps *caps;
	struct ftk_tracefs *t;
	int ret = EXIT_OK;
	struct tool_args a;
	char buf[128];

	tool_parse(&def, argc, argv, &a, &o);
	if (o.need && !a.nrest)
		tool_usage_error("--need wants at least one capability name");
	if (!o.need && a.nrest)
		tool_usage_error("unexpected argument '%s'", a.rest[0]);
	/* Probing changes tracefs for a moment: a signal must not cut it short. */
	tool_signals();
	t = tool_tracefs(NULL, 0);
	ret = ftk_caps_probe(t, &caps);
	if (ret)
		tool_die("cannot probe %s: %s", ftk_tracefs_root(t),
			 ftk_strerror(ret, buf, sizeof(buf)));
	if (o.need)
		ret = need(caps, a.rest, a.nrest);
	else if (o.json)
		print_json(caps);
	else
		print_table(caps);
	ftk_caps_free(caps);
	if (tool_stop)
		ret = 128 + tool_stop;
	tool_exit(ret);
}
