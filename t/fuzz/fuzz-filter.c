// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the event filter parser that ftreport -F uses:
 * ftk_filter_add() (lib/filter-check.c), which refuses the shapes that
 * crash libtraceevent and hands the rest to tep_filter_add_filter_str().
 * So what this finds is a crash the check lets through (build with
 * FTK_FUZZ_TEP_SRC, or the fuzzer is blind inside libtraceevent). The
 * input is one or more filters, a line each. Each is compiled against the
 * events of a real file (t/fixtures/synth-v6.dat, read once through the
 * library), turned back into text and matched against that file's
 * records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/ftkit.h>

#define NREC	256

static struct ftk_tracefile *tf;
static struct tep_handle *tep;
static struct tep_record *recs[NREC];
static int nrec;

static void setup(void)
{
	const char *file = getenv("FTK_FUZZ_FILTER_FILE");
	struct ftk_merge *m;
	struct tep_record *r;
	int tag;

	tep_set_loglevel(TEP_LOG_NONE);
	ftk_set_print(NULL);
	if (!file)
		file = FTK_FUZZ_TOP "/t/fixtures/synth-v6.dat";
	if (ftk_tracefile_open(file, FTK_TRACEFILE_NO_PLUGINS, &tf)) {
		fprintf(stderr, "fuzz-filter: cannot read %s\n", file);
		abort();
	}
	tep = ftk_tracefile_tep(tf);
	m = ftk_tracefile_merge(tf, 0, NULL);
	while (m && nrec < NREC && (r = ftk_merge_next(m, &tag)))
		recs[nrec++] = r;	/* kept for the whole run */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_event_filter *filter;
	char *text, *line, *save, *s;
	int i, id;

	if (!tep)
		setup();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	filter = tep_filter_alloc(tep);
	for (line = strtok_r(text, "\n", &save); filter && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char err[256];

		ftk_filter_add(filter, line, err, sizeof(err));
	}
	for (i = 0; filter && i < nrec; i++)
		tep_filter_match(filter, recs[i]);
	for (i = 0; filter && i < tep_get_events_count(tep); i++) {
		id = tep_get_event(tep, i)->id;
		s = tep_filter_make_string(filter, id);
		free(s);
	}
	tep_filter_free(filter);
	free(text);
	return 0;
}
