// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf's event syntax into perf_event_attr, against a fake PMU tree and a
 * fake tracefs built in a temporary directory: no kernel needed. The
 * tracepoint ids reach the perf side through the control side's look-up
 * (ftk_event_tracepoints()) or a table of the caller's; it reads no
 * tracefs itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/event.h>
#include <ftkit/perf.h>

#include "tap.h"

static char root[64], pmus[128], tfs[128];
static struct ftk_tracepoints tp;

static void put(const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		bail_out("cannot write %s", path);
}

static struct ftk_perf *parse(const char *spec, int *ret)
{
	struct ftk_perf *p;

	if (ftk_perf_new(pmus, &tp, &p))
		bail_out("ftk_perf_new failed");
	*ret = ftk_perf_add(p, spec);
	return p;
}

/* One event: its type, config and name. */
static void one(const char *spec, uint32_t type, uint64_t config, const char *name)
{
	struct ftk_perf *p;
	const struct perf_event_attr *a;
	int ret;

	p = parse(spec, &ret);
	a = ftk_perf_attr(p, 0);
	ok(!ret && ftk_perf_nr_events(p) == 1 && a->type == type && a->config == config &&
	   !strcmp(ftk_perf_name(p, 0), name),
	   "'%s' is type %u config %#llx named '%s'", spec, type, (unsigned long long)config, name);
	if (ret || !a)
		diag("ret %d: %s", ret, ftk_perf_errmsg(p));
	else if (a->type != type || a->config != config)
		diag("got type %u config %#llx name '%s'", a->type,
		     (unsigned long long)a->config, ftk_perf_name(p, 0));
	ftk_perf_free(p);
}

static void bad(const char *spec, int want, const char *text)
{
	struct ftk_perf *p;
	int ret;

	p = parse(spec, &ret);
	ok(ret == want && strstr(ftk_perf_errmsg(p), text),
	   "'%s' is refused (%d) with a message naming '%s'", spec, want, text);
	if (ret != want || !strstr(ftk_perf_errmsg(p), text))
		diag("ret %d: '%s'", ret, ftk_perf_errmsg(p));
	ftk_perf_free(p);
}

static void mods(void)
{
	const struct perf_event_attr *a;
	struct ftk_perf *p;
	int ret;

	p = parse("task-clock:u,cycles:k,cycles:ppp,cycles:G,cycles:H,cs:uk,cs:D", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 7, "seven events with modifiers");
	a = ftk_perf_attr(p, 0);
	ok(a && !a->exclude_user && a->exclude_kernel && a->exclude_hv, ":u excludes kernel and hv");
	a = ftk_perf_attr(p, 1);
	ok(a && a->exclude_user && !a->exclude_kernel && a->exclude_hv, ":k excludes user and hv");
	a = ftk_perf_attr(p, 2);
	ok(a && a->precise_ip == 3 && !a->exclude_user && !a->exclude_kernel, ":ppp is precise_ip 3");
	a = ftk_perf_attr(p, 3);
	ok(a && a->exclude_host && !a->exclude_guest, ":G counts the guest only");
	a = ftk_perf_attr(p, 4);
	ok(a && !a->exclude_host && a->exclude_guest, ":H counts the host only");
	a = ftk_perf_attr(p, 5);
	ok(a && !a->exclude_user && !a->exclude_kernel && a->exclude_hv, ":uk excludes hv only");
	a = ftk_perf_attr(p, 6);
	ok(a && a->pinned, ":D pins");
	is_str(ftk_perf_name(p, 0), "task-clock:u", "names keep their modifiers");
	ftk_perf_free(p);
}

static void groups(void)
{
	const struct perf_event_attr *a;
	struct ftk_perf *p;
	int ret;

	p = parse("cs,{page-faults,cpu-clock},cycles", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 4, "a list with a group has 4 events");
	ok(ftk_perf_leader(p, 0) == 0 && ftk_perf_leader(p, 1) == 1 &&
	   ftk_perf_leader(p, 2) == 1 && ftk_perf_leader(p, 3) == 3,
	   "leaders: 0, 1, 1, 3");
	ftk_perf_free(p);

	p = parse("{cs,cycles}:u", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 2, "a group with modifiers");
	is_str(ftk_perf_name(p, 1), "cycles:u", "the group's modifiers go to each member's name");
	a = ftk_perf_attr(p, 1);
	ok(a && a->exclude_kernel && !a->exclude_user, "and to each member's attribute");
	ftk_perf_free(p);

	p = parse("{sched:sched_wak*,cs}", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 3 && ftk_perf_leader(p, 1) == 0 &&
	   ftk_perf_leader(p, 2) == 0, "a tracepoint glob inside braces stays in the group");
	ftk_perf_free(p);

	p = parse("sched:sched_wak*", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 2, "a tracepoint glob matches two events");
	is_str(ftk_perf_name(p, 0), "sched:sched_wakeup", "sorted: sched_wakeup first");
	is_str(ftk_perf_name(p, 1), "sched:sched_waking", "then sched_waking");
	ok(ftk_perf_attr(p, 1) && ftk_perf_attr(p, 1)->config == 319, "with its id from tracefs");
	ok(ftk_perf_leader(p, 0) == 0 && ftk_perf_leader(p, 1) == 1,
	   "outside braces each match leads its own group");
	ftk_perf_free(p);

	p = parse("*:irq_handler_entry", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 1 && ftk_perf_attr(p, 0)->config == 100,
	   "a glob on the system matches");
	ftk_perf_free(p);
}

/* A caller's own table: "my:tp" is 4242, whatever tracefs holds. */
static int my_ids(void *arg, const char *sys, const char *ev, ftk_tracepoint_fn fn, void *ctx)
{
	(*(int *)arg)++;
	return !strcmp(sys, "my") && !strcmp(ev, "tp") ? fn(ctx, sys, ev, 4242) : 0;
}

/* The perf side takes tracepoint ids only from what it is handed. */
static void handed_in(void)
{
	struct ftk_tracepoints mine = { .ids = my_ids };
	struct ftk_perf *p;
	int calls = 0, ret;

	mine.arg = &calls;
	if (ftk_perf_new(pmus, NULL, &p))
		bail_out("ftk_perf_new failed");
	ret = ftk_perf_add(p, "sched:sched_switch");
	ok(ret == -FTK_E_NOEVENT && strstr(ftk_perf_errmsg(p), "no tracepoints were handed in"),
	   "no look-up handed in: a tracepoint is refused, tracefs not read (%s)",
	   ftk_perf_errmsg(p));
	ok(!ftk_perf_add(p, "cs") && ftk_perf_nr_events(p) == 1, "other events still parse");
	ftk_perf_free(p);

	if (ftk_perf_new(pmus, &mine, &p))
		bail_out("ftk_perf_new failed");
	ret = ftk_perf_add(p, "my:tp:u");
	ok(!ret && ftk_perf_nr_events(p) == 1 && ftk_perf_attr(p, 0)->type == PERF_TYPE_TRACEPOINT &&
	   ftk_perf_attr(p, 0)->config == 4242 && ftk_perf_attr(p, 0)->exclude_kernel &&
	   !strcmp(ftk_perf_name(p, 0), "my:tp:u"),
	   "a caller's table gives the id (4242), the modifiers applied");
	ret = ftk_perf_add(p, "sched:sched_switch");
	ok(ret == -FTK_E_NOEVENT && calls == 2,
	   "what the table lacks is unknown, though the fake tracefs has it (%d look-ups)", calls);
	ftk_perf_free(p);
}

static void pmu_terms(void)
{
	const struct perf_event_attr *a;
	struct ftk_perf *p;
	int ret;

	one("fakepmu/event=0x3c,umask=0x1/", 42, 0x13c, "fakepmu/event=0x3c,umask=0x1/");
	one("fakepmu/ev1/", 42, 0x13c, "fakepmu/ev1/");
	one("fakepmu/event=0x3c,edge,cmask=2/", 42, 0x3c | 1 << 18 | 2 << 24,
	    "fakepmu/event=0x3c,edge,cmask=2/");
	one("fakepmu/split=0x7/", 42, 0x3ULL << 32 | 1ULL << 40, "fakepmu/split=0x7/");
	one("fakepmu/config=0x1234,name=mine/", 42, 0x1234, "mine");
	one("ev1", 42, 0x13c, "ev1");
	{
		double sc = 0;
		const char *u;

		p = parse("fakepmu/energy/,cs", &ret);
		u = ftk_perf_unit(p, 0, &sc);
		ok(!ret && u && !strcmp(u, "Joules") && sc > 2.32e-10 && sc < 2.33e-10,
		   "an alias's sysfs .unit and .scale: Joules, 2^-32");
		u = ftk_perf_unit(p, 1, &sc);
		ok(!u && sc == 1, "an event without them: no unit, scale 1");
		ftk_perf_free(p);
	}
	p = parse("ev1:u,fakepmu/ev1/k", &ret);
	ok(!ret && ftk_perf_nr_events(p) == 2 && ftk_perf_attr(p, 0)->exclude_kernel &&
	   ftk_perf_attr(p, 1)->exclude_user && !strcmp(ftk_perf_name(p, 0), "ev1:u"),
	   "a bare PMU alias takes modifiers, and so does pmu/ev/ without ':'");
	ftk_perf_free(p);
	p = parse("fakepmu/event=1,ldlat=3/:u", &ret);
	a = ftk_perf_attr(p, 0);
	ok(!ret && a && a->config1 == 3 && a->config == 1 && a->exclude_kernel,
	   "config1 terms and modifiers after the PMU");
	ftk_perf_free(p);
	bad("fakepmu/event=0x1ff/", -FTK_E_PARSE, "too big");
	bad("fakepmu/nosuch/", -FTK_E_NOEVENT, "nosuch");
	bad("nopmu/event=1/", -FTK_E_NOEVENT, "nopmu");
	bad("fakepmu/event=zz/", -FTK_E_PARSE, "zz");
	bad("fakepmu/event=1", -FTK_E_PARSE, "fakepmu");
}

static void cpu_lists(void)
{
	size_t nr;
	int *cpus, ret;

	ret = ftk_perf_cpu_list("0-3,6", &cpus, &nr);
	ok(!ret && nr == 5 && cpus[0] == 0 && cpus[3] == 3 && cpus[4] == 6, "'0-3,6' is 0 1 2 3 6");
	free(cpus);
	ret = ftk_perf_cpu_list("0-1\n", &cpus, &nr);
	ok(!ret && nr == 2, "sysfs's 'online' with its newline");
	free(cpus);
	ok(ftk_perf_cpu_list("3-1", &cpus, &nr) == -EINVAL, "'3-1' is refused");
	ok(ftk_perf_cpu_list("a", &cpus, &nr) == -EINVAL, "'a' is refused");
	ok(ftk_perf_cpu_list("", &cpus, &nr) == -EINVAL, "'' is refused");
}

static void scaling(void)
{
	struct ftk_counts c = { .val = 100, .ena = 200, .run = 100 };

	ok(ftk_counts_scaled(&c) == 200, "ran half the time: counts doubled");
	c.run = 200;
	ok(ftk_counts_scaled(&c) == 100, "ran all the time: as is");
	c.run = 0;
	ok(ftk_counts_scaled(&c) == 0, "never ran: 0");
	c = (struct ftk_counts){ .val = 30, .ena = 300, .run = 100 };
	ok(ftk_counts_scaled(&c) == 90, "ran a third: tripled");
}

int main(void)
{
	struct ftk_perf *p;
	int ret;

	need_lane("unit");
	strcpy(root, "/tmp/ftkit-t6001.XXXXXX");
	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	snprintf(pmus, sizeof(pmus), "%s/devices", root);
	snprintf(tfs, sizeof(tfs), "%s/tracing", root);
	put("devices/fakepmu/type", "42\n");
	put("devices/fakepmu/format/event", "config:0-7\n");
	put("devices/fakepmu/format/umask", "config:8-15\n");
	put("devices/fakepmu/format/edge", "config:18\n");
	put("devices/fakepmu/format/cmask", "config:24-31\n");
	put("devices/fakepmu/format/split", "config:32-33,40\n");
	put("devices/fakepmu/format/ldlat", "config1:0-15\n");
	put("devices/fakepmu/events/ev1", "event=0x3c,umask=0x01\n");
	put("devices/fakepmu/events/energy", "event=0x2\n");
	put("devices/fakepmu/events/energy.unit", "Joules\n");
	put("devices/fakepmu/events/energy.scale", "2.3283064365386962890625e-10\n");
	put("tracing/events/sched/sched_switch/id", "316\n");
	put("tracing/events/sched/sched_wakeup/id", "318\n");
	put("tracing/events/sched/sched_waking/id", "319\n");
	put("tracing/events/irq/irq_handler_entry/id", "100\n");
	ftk_event_tracepoints(tfs, &tp);

	one("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles");
	one("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles");
	one("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions");
	one("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches");
	one("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses");
	one("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	    "cache-references");
	one("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses");
	one("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	one("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	one("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs");
	one("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	    "context-switches");
	one("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations");
	one("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults");
	one("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults");
	one("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults");
	one("alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	    "alignment-faults");
	one("emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
	    "emulation-faults");
	one("L1-dcache-loads", PERF_TYPE_HW_CACHE, 0x00000, "L1-dcache-loads");
	one("L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, "L1-dcache-load-misses");
	one("L1-icache-loads", PERF_TYPE_HW_CACHE, 0x00001, "L1-icache-loads");
	one("LLC-loads", PERF_TYPE_HW_CACHE, 0x00002, "LLC-loads");
	one("LLC-load-misses", PERF_TYPE_HW_CACHE, 0x10002, "LLC-load-misses");
	one("dTLB-store-misses", PERF_TYPE_HW_CACHE, 0x10103, "dTLB-store-misses");
	one("iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004, "iTLB-load-misses");
	one("L1-dcache-prefetch-misses", PERF_TYPE_HW_CACHE, 0x10200,
	    "L1-dcache-prefetch-misses");
	one("branch-load-misses", PERF_TYPE_HW_CACHE, 0x10005, "branch-load-misses");
	one("LLC-misses", PERF_TYPE_HW_CACHE, 0x10002, "LLC-misses");
	one("r003c", PERF_TYPE_RAW, 0x3c, "r003c");
	one("r1a2b:u", PERF_TYPE_RAW, 0x1a2b, "r1a2b:u");
	one("sched:sched_switch", PERF_TYPE_TRACEPOINT, 316, "sched:sched_switch");
	one("sched:sched_switch:k", PERF_TYPE_TRACEPOINT, 316, "sched:sched_switch:k");
	mods();
	groups();
	handed_in();
	pmu_terms();

	bad("bogus", -FTK_E_NOEVENT, "bogus");
	bad("L1-dcache-bogus", -FTK_E_NOEVENT, "L1-dcache-bogus");
	bad("sched:nope", -FTK_E_NOEVENT, "sched:nope");
	bad("nosys:*", -FTK_E_NOEVENT, "nosys");
	bad("{cs", -FTK_E_PARSE, "missing '}'");
	bad("cs}", -FTK_E_PARSE, "unbalanced");
	bad("{cs,{cycles}}", -FTK_E_PARSE, "nest");
	bad("", -FTK_E_PARSE, "empty");
	bad("cs,,cycles", -FTK_E_PARSE, "empty");
	bad("a:b:c:d", -FTK_E_PARSE, "too many");
	bad("sched:sched_switch:x", -FTK_E_PARSE, "bad modifier");

	cpu_lists();
	scaling();

	p = parse("cs", &ret);
	ok(ftk_perf_open(p, NULL, 0, NULL, 0, 0) == -EINVAL, "opening with no CPU and no thread: EINVAL");
	ok(ftk_perf_counts(p, 0, -1, &(struct ftk_counts){ 0 }) == -EINVAL,
	   "counts of an unopened handle: EINVAL");
	ftk_perf_free(p);
	ftk_perf_free(NULL);

	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			diag("cannot remove %s", root);
	}
	return done_testing();
}
