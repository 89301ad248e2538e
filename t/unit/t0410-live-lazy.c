// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The live reader's formats on a fake tracefs: ftk_live_open() parses the
 * ftrace system and the events enabled in the instance, not the others;
 * the format of an event enabled later (found in set_event) or of one not
 * enabled at all (found by its id) is parsed on its first record, before
 * the record is handed over, and the tally counts system calls whose
 * formats came that late. Without FTK_TRACEFILE_LAZY every format is
 * parsed at open.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <traceevent/event-parse.h>

#include <ftkit/ftkit.h>

#include "tap.h"

static char root[] = "/tmp/ftk-lazy-XXXXXX";

/* @root/@file gets @len bytes of @text (0: a string); @mode "w" or "a". */
static void put(const char *file, const char *text, size_t len, const char *mode)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	if (!len)
		len = strlen(text);
	f = fopen(path, mode);
	if (!f || fwrite(text, 1, len, f) != len)
		bail_out("cannot write %s", path);
	fclose(f);
}

static void dir(const char *d)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, d);
	if (mkdir(path, 0755))
		bail_out("cannot make %s", path);
}

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* events/SYS/NAME with its id and a format of @fields. */
static void event(const char *sys, const char *name, int id, const char *fields,
		  const char *print)
{
	char path[PATH_MAX], text[2048];

	snprintf(path, sizeof(path), "%s/events/%s", root, sys);
	mkdir(path, 0755);	/* or there already */
	snprintf(path, sizeof(path), "events/%s/%s", sys, name);
	dir(path);
	snprintf(path, sizeof(path), "events/%s/%s/id", sys, name);
	snprintf(text, sizeof(text), "%d\n", id);
	put(path, text, 0, "w");
	snprintf(path, sizeof(path), "events/%s/%s/format", sys, name);
	snprintf(text, sizeof(text), "name: %s\nID: %d\nformat:\n" COMMON "%s\nprint fmt: %s\n",
		 name, id, fields, print);
	put(path, text, 0, "w");
}

/* One record at @p: a 4-byte header (type_len = words, delta 10), then the data. */
static size_t rec(unsigned char *p, int id, int pid, const long *vals, int nvals)
{
	unsigned int words = 2 + 2 * nvals;	/* 8 common bytes + 8 a value */

	*(unsigned int *)p = words | (10u << 5);
	*(unsigned short *)(p + 4) = id;
	p[6] = p[7] = 0;
	*(int *)(p + 8) = pid;
	memcpy(p + 12, vals, nvals * sizeof(long));
	return 4 + words * 4;
}

static const char *seen[8];
static int nseen;

static int on_rec(void *ctx, const struct tep_record *r)
{
	struct ftk_live *l = ctx;
	struct tep_handle *tep = ftk_live_tep(l);
	struct tep_event *ev = tep_find_event(tep, tep_data_type(tep, (struct tep_record *)r));
	static char names[8][64];

	if (nseen < 8) {
		snprintf(names[nseen], sizeof(names[0]), "%s:%s", ev ? ev->system : "?",
			 ev ? ev->name : "?");
		seen[nseen] = names[nseen];
		nseen++;
	}
	return 0;
}

static struct ftk_tally *tally;

static int on_tally(void *ctx, const struct tep_record *r)
{
	(void)ctx;
	ftk_tally_add(tally, r);
	return 0;
}

int main(void)
{
	static unsigned char page[4096];
	const long enter[] = { 39 }, exit_[] = { 39, 0 }, bar[] = { 7 };
	struct ftk_tally_row *rows;
	struct ftk_tracefile *tf;
	struct tep_handle *tep;
	struct ftk_live *l;
	size_t used = 0;
	long n, i;
	int ret, found;

	need_lane("unit");
	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	dir("events");
	dir("per_cpu");
	dir("per_cpu/cpu0");
	put("trace_clock", "[local] global\n", 0, "w");
	put("events/header_page",
	    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n", 0, "w");
	event("ftrace", "print", 5,
	      "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	      "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n",
	      "\"%ps: %s\", (void *)REC->ip, REC->buf");
	event("sched", "sched_switch", 300,
	      "\tfield:int prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	      "\tfield:int next_pid;\toffset:12;\tsize:4;\tsigned:1;\n",
	      "\"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid");
	event("raw_syscalls", "sys_enter", 21,
	      "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n", "\"NR %ld\", REC->id");
	event("raw_syscalls", "sys_exit", 22,
	      "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	      "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n",
	      "\"NR %ld = %ld\", REC->id, REC->ret");
	event("foo", "bar", 400, "\tfield:u64 x;\toffset:8;\tsize:8;\tsigned:0;\n",
	      "\"x=%llu\", REC->x");
	put("set_event", "sched:sched_switch\n", 0, "w");

	/* one sub-buffer: sys_enter, sys_exit and foo:bar of pid 42 */
	*(unsigned long long *)page = 1000000;
	used += rec(page + 16 + used, 21, 42, enter, 1);
	used += rec(page + 16 + used, 22, 42, exit_, 2);
	used += rec(page + 16 + used, 400, 42, bar, 1);
	*(unsigned long long *)(page + 8) = used;
	put("per_cpu/cpu0/trace_pipe_raw", (char *)page, sizeof(page), "w");

	/* without FTK_TRACEFILE_LAZY: everything at open */
	ret = ftk_tracefile_open_live(root, NULL, FTK_TRACEFILE_NO_PLUGINS, &tf);
	ok(ret == 0, "the fake tracefs opens whole: %s", tf ? ftk_tracefile_errmsg(tf) : "");
	tep = ret ? NULL : ftk_tracefile_tep(tf);
	ok(tep && tep_find_event_by_name(tep, "foo", "bar") &&
	   tep_find_event_by_name(tep, "raw_syscalls", "sys_exit"),
	   "  every format is parsed at open");
	ftk_tracefile_close(tf);

	ret = ftk_live_open(root, NULL, &l);
	ok(ret == 0, "ftk_live_open on the fake tracefs: %s", ftk_live_errmsg(l));
	if (ret)
		bail_out("cannot go on");
	tep = ftk_live_tep(l);
	ok(tep_find_event_by_name(tep, "sched", "sched_switch") != NULL,
	   "the enabled event's format is parsed at open");
	ok(tep_find_event_by_name(tep, "ftrace", "print") != NULL,
	   "the ftrace system's formats are parsed at open");
	ok(!tep_find_event_by_name(tep, "foo", "bar") &&
	   !tep_find_event_by_name(tep, "raw_syscalls", "sys_enter"),
	   "the others are not");
	tally = ftk_tally_new(tep, 1);
	if (!tally)
		bail_out("ftk_tally_new failed");
	/* raw_syscalls enabled after the open, foo:bar never */
	put("set_event", "raw_syscalls:sys_enter\nraw_syscalls:sys_exit\n", 0, "a");
	ret = ftk_live_read(l, on_rec, l, FTK_LIVE_FINAL);
	ok(ret == 0, "the records are read: %s", ftk_live_errmsg(l));
	is_int(nseen, 3, "three records");
	is_str(seen[0], "raw_syscalls:sys_enter", "an event enabled later is named on its first record");
	is_str(seen[1], "raw_syscalls:sys_exit", "  and its pair");
	is_str(seen[2], "foo:bar", "an event not enabled is named by its id");
	ftk_live_close(l);

	/* again, through the tally: the syscall pair is counted though its formats came late */
	put("set_event", "sched:sched_switch\n", 0, "w");
	ret = ftk_live_open(root, NULL, &l);
	ok(ret == 0, "ftk_live_open again");
	if (ret)
		bail_out("cannot go on");
	ftk_tally_free(tally);
	tally = ftk_tally_new(ftk_live_tep(l), 1);
	put("set_event", "raw_syscalls:sys_enter\nraw_syscalls:sys_exit\n", 0, "a");
	ok(ftk_live_read(l, on_tally, NULL, FTK_LIVE_FINAL) == 0, "read into a tally");
	ftk_tally_mark(tally, 1);
	n = ftk_tally_rows(tally, FTK_TALLY_SYSCALLS, &rows);
	for (i = 0, found = 0; i < n; i++)
		if (rows[i].id == 39 && rows[i].total == 1 && rows[i].lat_count == 1)
			found = 1;
	ok(found, "the tally counts syscall 39 once, with its latency pair");
	free(rows);
	n = ftk_tally_rows(tally, FTK_TALLY_EVENTS, &rows);
	for (i = 0, found = 0; i < n; i++)
		found += !strcmp(rows[i].name, "foo:bar") || !strcmp(rows[i].name, "raw_syscalls:sys_exit");
	is_int(found, 2, "the events view names the late events");
	free(rows);
	ftk_tally_free(tally);
	ftk_live_close(l);

	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			diag("cannot remove %s", root);
	}
	return done_testing();
}
