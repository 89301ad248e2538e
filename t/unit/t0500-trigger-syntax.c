// SPDX-License-Identifier: LGPL-2.1-or-later
/* Trigger texts: the removal the kernel wants for each form, and the order. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/trigger.h>

#include "tap.h"

static void removal(const char *in, const char *want)
{
	char *out = NULL;
	int ret = ftk_trigger_removal(in, &out);

	ok(ret == 0, "removal of '%s' succeeds", in);
	is_str(out, want, in);
	free(out);
}

/*
 * A hist file as the kernel writes it: two triggers on one event, an
 * .execname key, a bucketed key, the totals of each.
 */
static const char hist_text[] =
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=8192 [active]\n"
"#\n"
"\n"
"{ common_pid: bash            [      1234] } hitcount:          5\n"
"{ common_pid: zz lister [x]   [       999] } hitcount:         12\n"
"\n"
"Totals:\n"
"    Hits: 17\n"
"    Entries: 2\n"
"    Dropped: 3\n"
"\n"
"# event histogram\n"
"#\n"
"# trigger info: hist:keys=pid,lat.buckets=1000:vals=hitcount,lat:sort=pid:size=2048 [active]\n"
"#\n"
"\n"
"{ pid:        42, lat: ~ 1000-1999 } hitcount:          7  lat:      10500\n"
"{ pid:        43, lat: ~ 0-999     } hitcount:          1  lat:        250\n"
"\n"
"Totals:\n"
"    Hits: 8\n"
"    Entries: 2\n"
"    Dropped: 0\n";

struct seen {
	int		n;
	uint64_t	key[4][2], val[4][2];
	char		text[4][64];
};

static void on_row(void *ctx, const struct ftk_trigger_hist_row *r)
{
	struct seen *s = ctx;

	if (s->n >= 4)
		return;
	memcpy(s->key[s->n], r->key, sizeof(s->key[0]));
	memcpy(s->val[s->n], r->val, sizeof(s->val[0]));
	snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)r->len, r->text);
	s->n++;
}

static void hist_parse(void)
{
	struct ftk_trigger_hist_totals tot;
	struct seen s = { 0 };

	is_int(ftk_trigger_hist_parse(hist_text, "keys=common_pid", "common_pid", "hitcount",
				      on_row, &s, &tot), 2, "hist: the execname trigger's 2 rows");
	ok(s.key[0][0] == 1234 && s.val[0][0] == 5, "hist: an .execname key reads as its PID");
	ok(s.key[1][0] == 999 && s.val[1][0] == 12, "hist: a name with spaces and brackets too");
	is_str(s.text[1], "{ common_pid: zz lister [x]   [       999] }",
	       "hist: the row's text up to its hitcount");
	ok(tot.hits == 17 && tot.entries == 2 && tot.dropped == 3,
	   "hist: the matched trigger's totals, not the next one's");
	memset(&s, 0, sizeof(s));
	is_int(ftk_trigger_hist_parse(hist_text, "keys=pid,", "pid,lat", "hitcount,lat", on_row,
				      &s, &tot), 2, "hist: the second trigger's 2 rows");
	ok(s.key[0][0] == 42 && s.key[0][1] == 1000 && s.val[0][0] == 7 && s.val[0][1] == 10500,
	   "hist: two keys (a bucket's low end) and two values");
	ok(s.key[1][0] == 43 && s.key[1][1] == 0 && s.val[1][1] == 250, "hist: the bucket from 0");
	ok(tot.hits == 8 && tot.dropped == 0, "hist: its totals");
	memset(&s, 0, sizeof(s));
	is_int(ftk_trigger_hist_parse(hist_text, NULL, NULL, "hitcount", on_row, &s, NULL), 4,
	       "hist: every trigger's rows without a match");
	is_int(ftk_trigger_hist_parse(hist_text, "keys=nosuch", "pid", "", NULL, NULL, &tot), 0,
	       "hist: no rows of a trigger that is not there");
	is_int(ftk_trigger_hist_parse("{ pid: 1 } hitcount", NULL, "pid", "hitcount", on_row, &s,
				      NULL), 1, "hist: a cut line is read as far as it goes");
	is_int(ftk_trigger_hist_parse(NULL, NULL, NULL, NULL, NULL, NULL, NULL), -EINVAL,
	       "hist: no text is -EINVAL");
}

int main(void)
{
	struct ftk_trigger v[5] = {
		{ .text = "hist:keys=pid:ts0=common_timestamp.usecs:size=2048 [active]" },
		{ .text = "traceon:unlimited" },
		{ .text = "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:"
			  "onmatch(sched.sched_waking).trace(wakeup_lat,$lat) [active]" },
		{ .text = "stacktrace:count=2 if prev_pid == 1" },
		{ .text = "enable_hist:sched:sched_switch" },
	};
	char *out;

	need_lane("unit");
	/* As written. */
	removal("traceon", "!traceon");
	removal("traceoff:3", "!traceoff");
	removal("traceoff:3 if pid == 1", "!traceoff");
	removal("enable_event:sched:sched_wakeup", "!enable_event:sched:sched_wakeup");
	removal("enable_event:sched:sched_wakeup:2 if prev_pid==1", "!enable_event:sched:sched_wakeup");
	removal("disable_event:irq:softirq_entry:5", "!disable_event:irq:softirq_entry");
	removal("hist:keys=pid:vals=hitcount:sort=hitcount.descending",
		"!hist:keys=pid:vals=hitcount:sort=hitcount.descending");
	removal("hist:keys=pid:pause", "!hist:keys=pid");
	removal("hist:name=foo:keys=pid:clear if comm == \"x\"",
		"!hist:name=foo:keys=pid if comm == \"x\"");
	/* hist keeps its filter (the kernel strcmp()s it); the blank before "if" may be a tab. */
	removal("hist:keys=x if pid == 3", "!hist:keys=x if pid == 3");
	removal("hist:keys=x\tif\tpid == 3", "!hist:keys=x if pid == 3");
	removal("hist:keys=x:pause if comm == \"a:clear b\"", "!hist:keys=x if comm == \"a:clear b\"");
	removal("snapshot:1 if pid == 3", "!snapshot");
	removal("stacktrace if pid == 3", "!stacktrace");
	/* As the kernel lists them. */
	removal("traceon:unlimited", "!traceon");
	removal("stacktrace:count=0 if prev_pid == 1", "!stacktrace");
	removal("enable_event:sched:sched_wakeup:count=1", "!enable_event:sched:sched_wakeup");
	removal("hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 [active]",
		"!hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048");
	removal("hist:keys=pid:vals=hitcount:sort=hitcount:size=2048 if pid > 1 [paused]",
		"!hist:keys=pid:vals=hitcount:sort=hitcount:size=2048 if pid > 1");
	/* Refused. */
	ok(ftk_trigger_removal("!traceon", &out) < 0 && !out, "a removal is not removed again");
	ok(ftk_trigger_removal("  ", &out) < 0 && !out, "an empty trigger is refused");

	/* Ranks and the order ftk_trigger_clear() removes in. */
	is_int(ftk_trigger_rank(v[2].text), 0, "onmatch refers to others: first");
	is_int(ftk_trigger_rank(v[4].text), 0, "enable_hist refers to others: first");
	is_int(ftk_trigger_rank(v[1].text), 1, "traceon: second");
	is_int(ftk_trigger_rank(v[0].text), 2, "a hist defining a variable: last");
	ftk_trigger_sort(v, 5);
	ok(strstr(v[0].text, "onmatch") != NULL, "sorted: the onmatch hist first");
	is_str(v[1].text, "enable_hist:sched:sched_switch", "then enable_hist (stable)");
	is_str(v[2].text, "traceon:unlimited", "then traceon");
	ok(!strncmp(v[3].text, "stacktrace", 10), "then stacktrace (stable)");
	ok(strstr(v[4].text, "ts0=") != NULL, "the hist others use goes last");
	hist_parse();
	return done_testing();
}
