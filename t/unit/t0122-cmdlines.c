// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The comm tables (lib/comm.c) against libtraceevent's own comms:
 * - saved_cmdlines given to ftk_comms_parse() and to
 *   tep_parse_saved_cmdlines() must name every pid the same, on ordinary
 *   lines and on odd ones (blanks, tabs, carriage returns, names with
 *   spaces, a pid repeated, signs, ten digits, a line with no name or no
 *   pid, which stops libtraceevent's parse, no final newline), on random
 *   texts, and on this machine's saved_cmdlines;
 * - random runs of registrations and look-ups, pids repeated before and
 *   after the first look-up, must give the answers tep_register_comm() and
 *   tep_data_comm_from_pid() give, also once handed over with
 *   ftk_comms_to_tep().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "internal.h"
#include "tap.h"
#include "comm-local.h"
#include "tep-side-local.h"

#define MAX_PID	200000

/* Every pid in 0..MAX_PID and each pid the text names: the same comm from both. */
static void check_text(const char *what, const char *text)
{
	struct tep_handle *a = tep_alloc(), *b = tep_alloc();
	struct ftk_tep_side *side = b ? ftk_tep_side_new(b) : NULL;
	struct ftk_comms *c = side ? side->comms : NULL;
	char *copy = strdup(text);
	int pid, bad = -1, n = 0;

	if (!a || !c || !copy)
		bail_out("out of memory");
	tep_parse_saved_cmdlines(a, text);
	ftk_comms_parse(c, copy);
	for (pid = -5; pid <= MAX_PID && bad < 0; pid++) {
		const char *x = tep_data_comm_from_pid(a, pid);
		const char *y = ftk_comm(b, pid);

		if (strcmp(x, y))
			bad = pid;
		else if (strcmp(x, "<...>"))
			n++;
	}
	ok(bad < 0, "%s: every pid named the same (%d named)%s", what, n,
	   bad < 0 ? "" : " (a pid differs)");
	if (bad >= 0)
		diag("pid %d: libtraceevent '%s', ours '%s'", bad, tep_data_comm_from_pid(a, bad),
		     ftk_comm(b, bad));
	ftk_tep_side_free(side);
	tep_free(a);
	tep_free(b);
}

static const char *const texts[][2] = {
	{ "ordinary", "1 systemd\n2 kthreadd\n100 bash\n4242 ftrecord\n" },
	{ "names with spaces and tabs", "7 kworker/0:1 events\n8\tirq/9\tacpi\n9 a  b \n" },
	{ "blank lines and leading blanks", "\n\n  10 lead\n\n\t11 tab\n\n" },
	{ "carriage returns", "12 cr\r\n13\r\n14 after\n" },
	{ "a pid repeated", "20 first\n21 x\n20 second\n" },
	{ "a name glued to its pid", "30name\n31 ok\n" },
	{ "a line with no name stops the parse", "40 before\n41\n42 after\n" },
	{ "blanks after the pid only", "43 before\n44   \n45 after\n" },
	{ "a line with no pid stops it", "50 before\nfoo 51\n52 after\n" },
	{ "a sign", "60 before\n-61 neg\n+62 pos\n63 after\n" },
	{ "ten digits", "70 before\n1234567890 big\n71 after\n" },
	{ "eleven digits", "72 before\n12345678901 huge\n73 after\n" },
	{ "past a long", "74 before\n99999999999999999999 huger\n75 after\n" },
	{ "leading zeros", "0080 zeros\n000000081 more\n" },
	{ "no final newline", "90 a\n91 last" },
	{ "only blank lines", "\n\n\n" },
	{ "empty", "" },
};

/*
 * @steps random registrations (of pids 1..@pids, a few 0, names that say
 * when they came) and look-ups, the first look-up after @first steps,
 * after a saved_cmdlines text of its own: every look-up the same from
 * both; @handover: ftk_comms_to_tep() half way.
 */
static int run_ops(unsigned int *seed, int pids, int steps, int first, int handover)
{
	struct tep_handle *a = tep_alloc(), *b = tep_alloc();
	struct ftk_tep_side *side = b ? ftk_tep_side_new(b) : NULL;
	struct ftk_comms *c = side ? side->comms : NULL;
	char name[32], *text = malloc(64 * 16 + 1);
	int i, pid, bad = 0;
	size_t len = 0;

	if (!a || !c || !text)
		bail_out("out of memory");
	for (i = 0; i < 16; i++)
		len += sprintf(text + len, "%d saved%d\n", 1 + rand_r(seed) % pids, i);
	tep_parse_saved_cmdlines(a, text);
	ftk_comms_parse(c, text);
	for (i = 0; i < steps && !bad; i++) {
		pid = rand_r(seed) % 10 ? 1 + rand_r(seed) % pids : 0;
		if (handover && i == steps / 2)
			ftk_comms_to_tep(b);
		if (i >= first && rand_r(seed) % 2) {
			const char *x = tep_data_comm_from_pid(a, pid), *y = ftk_comm(b, pid);

			if (strcmp(x, y)) {
				diag("step %d: pid %d: libtraceevent '%s', ours '%s'", i, pid, x, y);
				bad = 1;
			}
			continue;
		}
		snprintf(name, sizeof(name), "reg%d", i);
		tep_register_comm(a, name, pid);
		ftk_comms_add(c, b, name, strlen(name), pid);
	}
	for (pid = 0; pid <= pids && !bad; pid++)
		if (strcmp(tep_data_comm_from_pid(a, pid), ftk_comm(b, pid))) {
			diag("at the end: pid %d: libtraceevent '%s', ours '%s'", pid,
			     tep_data_comm_from_pid(a, pid), ftk_comm(b, pid));
			bad = 1;
		}
	ftk_tep_side_free(side);
	tep_free(a);
	tep_free(b);
	return !bad;
}

int main(void)
{
	char *text = NULL, *r;
	size_t len = 0, i;
	unsigned int seed = 1;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		check_text(texts[i][0], texts[i][1]);

	/* random lines of digits, blanks, letters, signs and newlines */
	r = malloc(4097);
	if (!r)
		bail_out("out of memory");
	for (i = 0; i < 200; i++) {
		static const char alpha[] = "0123456789012345678901234567  \t\n\n\r-+ab/:";
		size_t j, n = 64 + rand_r(&seed) % 4000;

		for (j = 0; j < n; j++)
			r[j] = alpha[rand_r(&seed) % (sizeof(alpha) - 1)];
		r[n] = '\0';
		if (i < 5 || i % 40 == 0)
			check_text("random text", r);
		else {
			/* many quietly, one line for all */
			struct tep_handle *a = tep_alloc(), *b = tep_alloc();
			struct ftk_tep_side *side = b ? ftk_tep_side_new(b) : NULL;
			struct ftk_comms *c = side ? side->comms : NULL;
			char *copy = strdup(r);
			int pid;

			if (!a || !c || !copy)
				bail_out("out of memory");
			tep_parse_saved_cmdlines(a, r);
			ftk_comms_parse(c, copy);
			for (pid = 0; pid < 100000; pid++)
				if (strcmp(tep_data_comm_from_pid(a, pid), ftk_comm(b, pid)))
					break;
			if (pid < 100000) {
				ok(0, "random text %zu: pid %d differs", i, pid);
				diag("%s", r);
			}
			ftk_tep_side_free(side);
			tep_free(a);
			tep_free(b);
		}
	}
	free(r);

	{
		int good = 1, k;

		for (k = 0; k < 300 && good; k++)
			good = run_ops(&seed, 3 + k % 40, 200, k % 50, 0);
		ok(good, "registrations and look-ups: libtraceevent's answers (%d runs)", k);
		for (k = 0, good = 1; k < 100 && good; k++)
			good = run_ops(&seed, 3 + k % 40, 200, k % 150, 1);
		ok(good, "and once handed to libtraceevent (%d runs)", k);
	}

	if (ftk_read_file("/sys/kernel/tracing/saved_cmdlines", &text, &len) == 0 && len > 0)
		check_text("this machine's saved_cmdlines", text);
	else
		skip("saved_cmdlines is not readable here");
	free(text);
	return done_testing();
}
