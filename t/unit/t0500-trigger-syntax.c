// SPDX-License-Identifier: LGPL-2.1-or-later
/* Trigger texts: the removal the kernel wants for each form, and the order. */
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
	return done_testing();
}
