// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the definition parsers of lib/probe.c and
 * lib/trigger.c. The first byte picks the parser:
 *   even: a probe spec (first line, as ftprobe's argument) with a fetch
 *         argument on each further line, then the command text it becomes;
 *   odd:  a trigger (as fttrigger -e takes it): its removal text and rank.
 * Uprobe specs without a path resolve against /bin/true; nothing is written
 * to tracefs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftkit.h>

static void probe(char *text)
{
	struct ftk_probe_opts o = { .sz = sizeof(o), .binary = "/bin/true" };
	char *save, *line, *cmd;
	struct ftk_probe *p;

	p = ftk_probe_new();
	if (!p)
		return;
	line = strtok_r(text, "\n", &save);
	if (line && ftk_probe_parse(p, line, &o) == 0) {
		while ((line = strtok_r(NULL, "\n", &save)))
			ftk_probe_add_arg(p, line);
		cmd = ftk_probe_command(p);
		free(cmd);
		ftk_probe_kind(p);
		ftk_probe_group(p);
		ftk_probe_name(p);
	}
	ftk_probe_errmsg(p);
	ftk_probe_free(p);
}

static void trigger(const char *text)
{
	char *out = NULL;

	if (ftk_trigger_removal(text, &out) == 0)
		free(out);
	ftk_trigger_rank(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	ftk_set_print(NULL);
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		trigger(text);
	else
		probe(text);
	free(text);
	return 0;
}
