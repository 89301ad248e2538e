// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for folded stacks (ftprofile -i FOLDED): read the input,
 * the first half as a base and the whole as the profile, and write it
 * folded, as a top table, a flame graph and a differential flame graph.
 * Build and run with t/fuzz/run.sh folded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ftkit/ftkit.h>

static struct ftk_stacks *load(const uint8_t *data, size_t size)
{
	struct ftk_stacks *st;
	char err[256];
	FILE *f;

	if (!size || ftk_stacks_new(&st))
		return NULL;
	f = fmemopen((void *)data, size, "r");
	if (!f || ftk_stacks_read(st, f, "fuzz", err, sizeof(err))) {
		if (f)
			fclose(f);
		ftk_stacks_free(st);
		return NULL;
	}
	fclose(f);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct ftk_stacks *st, *base;

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		ftk_set_print(NULL);
	}
	if (!size)
		return 0;
	st = load(data, size);
	base = load(data, size / 2);
	if (st) {
		ftk_stacks_write_folded(st, devnull);
		ftk_stacks_write_top(st, devnull, 0, "samples");
		ftk_stacks_write_svg(st, NULL, devnull, "fuzz", "samples");
		if (base)
			ftk_stacks_write_svg(st, base, devnull, "fuzz", "samples");
	}
	ftk_stacks_free(st);
	ftk_stacks_free(base);
	return 0;
}
