// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control modules (event, trigger, instance, reset, session) on a fake tracefs
 * tree made of plain files: what they write, what they journal and restore.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/reset.h>
#include <ftkit/session.h>
#include <ftkit/trigger.h>

#include "tap.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		bail_out("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char buf[4096];
	char path[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static const char switch_format[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static void tree(void)
{
	put("available_events", "sched:sched_switch\nsched:sched_waking\nirq:irq_handler_entry\n");
	put("events/sched/sched_switch/enable", "0\n");
	put("events/sched/sched_switch/filter", "none\n");
	put("events/sched/sched_switch/trigger", "# Available triggers:\n# traceon traceoff\n");
	put("events/sched/sched_switch/format", switch_format);
	put("events/sched/sched_waking/enable", "1\n");
	put("events/sched/sched_waking/filter", "none\n");
	put("events/sched/sched_waking/trigger", "");
	put("events/irq/irq_handler_entry/enable", "0\n");
	put("events/irq/irq_handler_entry/filter", "irq == 3\n");
	put("events/irq/irq_handler_entry/trigger", "");
	put("events/enable", "X\n");
	put("set_event", "");
	put("set_event_pid", "");
	put("current_tracer", "nop\n");
	put("tracing_on", "1\n");
}

static void test_match(void)
{
	ok(ftk_event_match("sched", "sched:sched_switch"), "a bare word matches its system");
	ok(ftk_event_match("sched_switch", "sched:sched_switch"), "... or an event of that name");
	ok(ftk_event_match("sched:*wak*", "sched:sched_waking"), "wildcards in the event part");
	ok(ftk_event_match("s*/sched_switch", "sched:sched_switch"), "system/event with wildcards");
	ok(!ftk_event_match("irq", "sched:sched_switch"), "another system does not match");
	ok(!ftk_event_match("sched:a:b", "sched:sched_switch"), "a third part never matches");
}

static void test_events(struct ftk_tracefs *t)
{
	struct ftk_event_field *f;
	char **l, *s;
	size_t nr;
	int ret;

	ret = ftk_event_list(t, "sched", &l);
	ok(ret == 0 && ftk_list_len(l) == 2, "list 'sched': 2 events");
	if (!ret) {
		is_str(l[0], "sched:sched_switch", "sorted: sched_switch first");
		ftk_list_free(l);
	}
	ret = ftk_event_enable(t, "nosuch:event", 1);
	is_int(ret, -FTK_E_NOEVENT, "enabling an unknown event: FTK_E_NOEVENT");
	ok(strstr(ftk_tracefs_errmsg(t), "unknown event 'nosuch:event'") != NULL,
	   "... and the text names it");

	ret = ftk_event_enable(t, "sched", 1);
	is_int(ret, 0, "enable 'sched'");
	is_str(get("events/sched/sched_switch/enable"), "1", "sched_switch enable file written");
	is_str(get("events/sched/sched_waking/enable"), "1\n", "an event already on is left alone");
	ret = ftk_event_filter_set(t, "sched:sched_switch", "prev_pid == 1");
	is_int(ret, 0, "set a filter");
	is_str(get("events/sched/sched_switch/filter"), "prev_pid == 1", "filter file written");
	ret = ftk_event_filter_get(t, "irq:irq_handler_entry", &s);
	ok(ret == 0 && s && !strcmp(s, "irq == 3"), "read back a filter");
	free(s);
	ret = ftk_event_filters(t, &l);
	ok(ret == 0 && ftk_list_len(l) == 2, "two events have filters");
	ftk_list_free(l);
	ret = ftk_event_pid_set(t, "12,34", 0);
	is_int(ret, 0, "set PIDs");
	is_str(get("set_event_pid"), "12 34", "commas become spaces");
	is_int(ftk_event_pid_set(t, "12;rm", 0), -EINVAL, "a bad PID list is refused");

	ftk_tracefs_restore(t);
	is_str(get("events/sched/sched_switch/enable"), "0", "restore disables sched_switch");
	is_str(get("events/sched/sched_switch/filter"), "0", "restore clears the filter (as '0')");

	ret = ftk_event_fields(t, "sched:sched_switch", &f, &nr);
	is_int(ret, 0, "fields of sched_switch parse");
	if (!ret) {
		is_int(nr, 7, "4 common fields and 3 of its own");
		is_str(f[5].name, "prev_pid", "prev_pid");
		is_str(f[5].type, "pid_t", "... is a pid_t");
		ok(f[5].flags & FTK_FIELD_SIGNED, "... signed");
		ok(f[0].flags & FTK_FIELD_COMMON, "common_type is common");
		ok(f[4].flags & FTK_FIELD_ARRAY, "prev_comm is an array");
		ok(f[6].flags & FTK_FIELD_DYNAMIC, "name is __data_loc");
		ftk_event_fields_free(f, nr);
	}
	is_int(ftk_event_fields(t, "sched:nosuch", &f, &nr), -FTK_E_NOEVENT, "fields of an unknown event");
}

static void test_triggers(struct ftk_tracefs *t)
{
	struct ftk_trigger *v;
	size_t nr;
	int ret;

	put("events/sched/sched_waking/trigger",
	    "hist:keys=pid:ts0=common_timestamp.usecs:size=2048 [active]\n"
	    "hist:keys=prio:vals=hitcount:sort=hitcount:size=2048 if pid == 3 [paused]\n");
	put("events/sched/sched_switch/trigger",
	    "hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
	    ".trace(lat,$lat) [active]\ntraceon:count=2 if prev_pid == 1\n");
	ret = ftk_trigger_list(t, NULL, &v, &nr);
	ok(ret == 0 && nr == 4, "four triggers listed (comment lines skipped)");
	if (!ret) {
		ftk_trigger_sort(v, nr);
		ok(strstr(v[0].text, "onmatch") != NULL, "the referring hist sorts first");
		ok(strstr(v[2].text, "ts0=") != NULL, "the referred-to hist last");
		ftk_trigger_free(v, nr);
	}
	ret = ftk_trigger_clear(t, NULL);
	is_int(ret, 0, "clear all");
	ok(strstr(get("events/sched/sched_switch/trigger"),
		  "\n!hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
		  ".trace(lat,$lat)!traceon") != NULL,
	   "sched_switch got the hist removal, then traceon's (no count, no filter)");
	ok(strstr(get("events/sched/sched_waking/trigger"),
		  "!hist:keys=pid:ts0=common_timestamp.usecs:size=2048") != NULL,
	   "sched_waking got its hist removal");
	ok(strstr(get("events/sched/sched_waking/trigger"),
		  "!hist:keys=prio:vals=hitcount:sort=hitcount:size=2048 if pid == 3") != NULL,
	   "the filtered hist's removal keeps the filter (the kernel compares it)");

	put("events/irq/irq_handler_entry/trigger", "");
	ret = ftk_trigger_add(t, "irq:irq_handler_entry", "stacktrace:3 if irq == 1");
	is_int(ret, 0, "add a trigger");
	ftk_tracefs_restore(t);
	is_str(get("events/irq/irq_handler_entry/trigger"), "stacktrace:3 if irq == 1!stacktrace",
	       "restore appends its removal");
	is_int(ftk_trigger_add(t, "irq:*", "traceon"), -FTK_E_NOEVENT, "no wildcards in add");
	is_int(ftk_trigger_add(t, "../../x:y", "traceon"), -FTK_E_NOEVENT, "no paths in add");
	is_int(ftk_trigger_add(t, "irq:irq_handler_entry", "traceon\ntraceoff"), -EINVAL,
	       "no newline in a trigger");
}

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* ftk_trigger_latency_add(): tracefs_synth's three texts, journaled, undone newest first. */
static void test_latency(struct ftk_tracefs *t)
{
	FTK_OPTS(ftk_trigger_latency_opts, o, .name = "ftkit_t_sys",
		 .start = "raw_syscalls:sys_enter", .end = "raw_syscalls:sys_exit",
		 .start_keys = "common_pid", .end_keys = "common_pid", .key_name = "pid",
		 .end_fields = "id", .end_filter = "ret < 0");
	FTK_OPTS(ftk_trigger_latency_opts, bad, .name = "x", .start = "raw_syscalls",
		 .end = "raw_syscalls:sys_exit", .start_keys = "common_pid",
		 .end_keys = "common_pid");
	const char *enter, *exit_, *synth;
	char *p;

	put("events/raw_syscalls/sys_enter/format", "name: sys_enter\nID: 21\nformat:\n"
	    COMMON_FIELDS "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	    "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"
	    "print fmt: \"NR %ld\", REC->id\n");
	put("events/raw_syscalls/sys_exit/format", "name: sys_exit\nID: 20\nformat:\n"
	    COMMON_FIELDS "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	    "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	    "print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n");
	put("events/header_page", "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n");
	put("events/raw_syscalls/enable", "0");	/* libtracefs takes a system by it */
	put("events/raw_syscalls/sys_enter/trigger", "");
	put("events/raw_syscalls/sys_exit/trigger", "");
	put("synthetic_events", "");
	is_int(ftk_trigger_latency_add(t, &bad), -EINVAL, "a start without its event: -EINVAL");
	if (!is_int(ftk_trigger_latency_add(t, &o), 0, "a latency synthetic event made"))
		diag("%s", ftk_tracefs_errmsg(t));
	synth = get("synthetic_events");
	ok(!strncmp(synth, "ftkit_t_sys ", 12) && strstr(synth, "u64 lat") &&
	   strstr(synth, " pid;") && strstr(synth, " id") && synth[strlen(synth) - 1] == 'd',
	   "synthetic_events: NAME with lat, pid and id (%s)", synth);
	enter = get("events/raw_syscalls/sys_enter/trigger");
	ok(!strncmp(enter, "hist:keys=common_pid:", 21) && strstr(enter, "=common_timestamp") &&
	   !strstr(enter, " if "), "sys_enter: a hist keeping the time stamp per pid (%s)", enter);
	exit_ = get("events/raw_syscalls/sys_exit/trigger");
	/* .trace(NAME,...) where the kernel's README shows it, else the older .NAME(...) */
	ok(!strncmp(exit_, "hist:keys=common_pid:", 21) &&
	   (strstr(exit_, "onmatch(raw_syscalls.sys_enter).trace(ftkit_t_sys,") ||
	    strstr(exit_, "onmatch(raw_syscalls.sys_enter).ftkit_t_sys(")) &&
	   (p = strstr(exit_, " if ret < 0")) && !p[11],
	   "sys_exit: onmatch() makes the event, with the filter (%s)", exit_);
	ftk_tracefs_restore(t);
	ok(strstr(get("events/raw_syscalls/sys_exit/trigger"), "!hist:keys=common_pid:") &&
	   strstr(get("events/raw_syscalls/sys_exit/trigger"), " if ret < 0"),
	   "restore removes the end's hist, filter and all");
	ok(strstr(get("events/raw_syscalls/sys_enter/trigger"), "!hist:keys=common_pid:") != NULL,
	   "restore removes the start's hist");
	ok(strstr(get("synthetic_events"), "!ftkit_t_sys") != NULL,
	   "restore removes the synthetic event");
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

static void test_instances(struct ftk_tracefs *t)
{
	char name[96], path[512], mine[96], dead[64], **gone, *text, *p;
	unsigned long long start = 0;
	struct stat ns;
	pid_t pid;
	int ret, i;

	/* The owner tag: PID, PID namespace inode, start time (field 22 of /proc/self/stat). */
	if (stat("/proc/self/ns/pid", &ns))
		ns.st_ino = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
	text = slurp(path);
	p = text ? strrchr(text, ')') : NULL;
	for (i = 3; p && i <= 22; i++)
		if ((p = strchr(p + 1, ' ')) && i == 22)
			start = strtoull(p + 1, NULL, 10);
	free(text);
	ret = ftk_instance_name("ftevent", name, sizeof(name));
	snprintf(mine, sizeof(mine), "ftkit-ftevent-%d_%lu_%llu", (int)getpid(),
		 (unsigned long)ns.st_ino, start);
	ok(ret == 0 && !strcmp(name, mine), "instance name: ftkit, the tool, PID_NS_START (%s)",
	   name);
	snprintf(name, sizeof(name), "ftkit-ftevent-%d_%lu_%llu", (int)getpid(),
		 (unsigned long)ns.st_ino, start + 1);
	is_int(ftk_instance_owner(name, NULL), FTK_INSTANCE_STALE,
	       "our PID with another start time: a reused PID, stale");
	snprintf(name, sizeof(name), "ftkit-ftevent-%d_%lu_%llu", (int)getpid(),
		 (unsigned long)ns.st_ino + 1, start + 1);
	is_int(ftk_instance_owner(name, NULL), FTK_INSTANCE_LIVE,
	       "another PID namespace's: cannot tell, live");
	is_int(ftk_instance_name("a b", name, sizeof(name)), -EINVAL, "a tool name with a space");
	is_int(ftk_instance_owner(mine, &pid), FTK_INSTANCE_LIVE, "ours, while we run");
	is_int(pid, getpid(), "... with our PID");
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	snprintf(dead, sizeof(dead), "ftkit-rec-%d", (int)pid);
	is_int(ftk_instance_owner(dead, NULL), FTK_INSTANCE_STALE, "a dead creator's: stale");
	is_int(ftk_instance_owner("mytrace", NULL), FTK_INSTANCE_OTHER, "a person's name: other");
	is_int(ftk_instance_owner("ftkit-x-12ab", NULL), FTK_INSTANCE_OTHER, "no PID: other");
	snprintf(name, sizeof(name), "%s_1", dead);
	is_int(ftk_instance_owner(name, NULL), FTK_INSTANCE_LIVE,
	       "a dead PID of another PID namespace: cannot tell, live");

	snprintf(path, sizeof(path), "%s/instances", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/instances/%s", root, dead);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/instances/%s", root, mine);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/instances/mytrace", root);
	mkdir(path, 0755);
	ret = ftk_instance_reap(t, &gone);
	ok(ret == 0 && ftk_list_len(gone) == 1 && !strcmp(gone[0], dead),
	   "reap removes only the stale one");
	ftk_list_free(gone);
	snprintf(path, sizeof(path), "%s/instances/%s", root, mine);
	ok(access(path, F_OK) == 0, "ours stays");
	rmdir(path);
	snprintf(path, sizeof(path), "%s/instances/mytrace", root);
	ok(access(path, F_OK) == 0, "the person's stays");
	rmdir(path);
}

static int changes;

static void count(void *arg, const char *file, const char *old, const char *new_)
{
	changes++;
	diag("%s: %s -> %s", file, old, new_);
}

static void test_reset(struct ftk_tracefs *t)
{
	int ret;

	put("current_tracer", "function\n");
	put("tracing_on", "0\n");
	put("set_event", "sched:sched_switch\n");
	put("set_event_pid", "1\n2\n");
	put("events/sched/sched_switch/trigger", "traceoff:unlimited\n");
	put("events/sched/sched_waking/trigger", "");
	put("events/irq/irq_handler_entry/trigger", "");
	put("events/sched/sched_switch/filter", "none\n");
	put("events/irq/irq_handler_entry/filter", "irq == 3\n");
	changes = 0;
	ret = ftk_reset(t, FTK_RESET_DRY_RUN, count, NULL);
	ok(ret == 0 && changes == 6, "a dry run reports 6 changes (%d)", changes);
	is_str(get("current_tracer"), "function\n", "... and changes nothing");
	changes = 0;
	ret = ftk_reset(t, 0, count, NULL);
	ok(ret == 0 && changes == 6, "reset makes them");
	is_str(get("current_tracer"), "nop", "tracer nop");
	is_str(get("tracing_on"), "1", "tracing on");
	is_str(get("events/enable"), "0", "events off");
	is_str(get("set_event_pid"), "", "PID list cleared");
	is_str(get("events/irq/irq_handler_entry/filter"), "0", "filter cleared");
	ok(strstr(get("events/sched/sched_switch/trigger"), "!traceoff") != NULL, "trigger removed");
}

/* An instance of the fake tree, as the kernel makes one, with @notrace in set_event_notrace_pid. */
static void fake_instance(const char *name, const char *notrace)
{
	static const char *const files[][2] = {
		{ "tracing_on", "1\n" }, { "buffer_size_kb", "1408 (expanded: 1408)\n" },
		{ "buffer_subbuf_size_kb", "4\n" }, { "trace_clock", "[local] global mono\n" },
		{ "options/stacktrace", "0\n" }, { "options/event-fork", "0\n" },
		{ "options/function-fork", "0\n" }, { "options/copy_trace_marker", "0\n" },
		{ "tracing_cpumask", "ff\n" }, { "available_tracers", "function nop\n" },
		{ "current_tracer", "nop\n" }, { "set_ftrace_filter", "" },
		{ "set_event_pid", "" }, { "set_ftrace_pid", "" }, { "events/enable", "0\n" },
		{ "events/sched/enable", "0\n" }, { "events/sched/filter", "none\n" },
		{ "events/sched/sched_switch/enable", "0\n" },
		{ "events/sched/sched_switch/filter", "none\n" },
		{ "events/sched/sched_waking/enable", "0\n" },
		{ "events/sched/sched_waking/filter", "none\n" },
		{ "events/irq/irq_handler_entry/enable", "0\n" },
		{ "events/irq/irq_handler_entry/filter", "none\n" },
	};
	char rel[256];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "instances/%s/%s", name, files[i][0]);
		put(rel, files[i][1]);
	}
	snprintf(rel, sizeof(rel), "instances/%s/set_event_notrace_pid", name);
	put(rel, notrace);
}

/* The session's verbs: what each writes, and that ftk_session_free() puts all of it back. */
static void test_session(void)
{
	FTK_OPTS(ftk_session_opts, o, .root = root, .instance = "t0510a");
	FTK_OPTS(ftk_session_opts, o2, .root = root, .instance = "t0510b");
	static const int cpus[] = { 1, 35 }, far[] = { 70000 };
	char *funcs[] = { "vfs_read", "vfs_write" }, want[32];
	struct ftk_session *s, *s2, *both[2];
	int ret;

	fake_instance("t0510a", "11\n");
	fake_instance("t0510b", "22\n");
	ret = ftk_session_new(&o, &s);
	is_int(ret, 0, "session in an existing instance");
	if (ret) {
		diag("%s", ftk_session_errmsg(s));
		ftk_session_free(s);
		return;
	}
	ret = ftk_session_new(&o2, &s2);
	is_int(ret, 0, "a second one beside it");
#define A(f) get("instances/t0510a/" f)
	is_str(A("tracing_on"), "0", "tracing off in it");
	is_int(ftk_session_buffer(s, 2048), 0, "buffer: 2048 KiB");
	is_str(A("buffer_size_kb"), "2048", "... buffer_size_kb");
	is_int(ftk_session_subbuf(s, 64), 0, "sub-buffers: 64 KiB");
	is_str(A("buffer_subbuf_size_kb"), "64", "... buffer_subbuf_size_kb");
	is_int(ftk_session_clock(s, "mono"), 0, "clock mono");
	is_str(A("trace_clock"), "mono", "... trace_clock");
	is_int(ftk_session_option(s, "stacktrace", 1), 0, "option stacktrace");
	is_str(A("options/stacktrace"), "1", "... options/stacktrace 1");
	is_int(ftk_session_option(s, "nostacktrace", 1), 0, "option nostacktrace");
	is_str(A("options/stacktrace"), "0", "... clears it");
	is_int(ftk_session_option(s, "nosuch", 1), -ENOENT, "an option the kernel lacks: ENOENT");
	is_int(ftk_session_cpus(s, cpus, 2), 0, "CPUs 1 and 35");
	is_str(A("tracing_cpumask"), "8,00000002", "... the mask in 32-bit words, as the kernel's");
	is_int(ftk_session_cpus(s, far, 1), -ERANGE, "CPU 70000: ERANGE");
	is_int(ftk_session_copy_marker(s, 1), 0, "copy the top level's marks");
	is_str(A("options/copy_trace_marker"), "1", "... options/copy_trace_marker 1");
	is_int(ftk_session_copy_marker(s, 0), 0, "stop copying");
	is_str(A("options/copy_trace_marker"), "0", "... 0");
	is_int(ftk_session_tracer(s, "function"), 0, "tracer function");
	is_str(A("current_tracer"), "function", "... current_tracer");
	is_int(ftk_session_tracer(s, "hwlat"), -ENODEV, "a tracer the instance lacks: ENODEV");
	is_int(ftk_session_functions(s, FTK_FTRACE_FILTER, funcs, 2), 0, "function filter");
	is_str(A("set_ftrace_filter"), "vfs_read\nvfs_write\n", "... one function a line");
	is_int(ftk_session_pid(s, getpid(), FTK_SESSION_PID_FUNCTION | FTK_SESSION_PID_FOLLOW), 0,
	       "PID filter, function tracers too, following forks");
	snprintf(want, sizeof(want), "%d", (int)getpid());
	is_str(A("set_event_pid"), want, "... set_event_pid");
	is_str(A("set_ftrace_pid"), want, "... set_ftrace_pid");
	is_str(A("options/event-fork"), "1", "... event-fork");
	is_str(A("options/function-fork"), "1", "... function-fork");
	is_int(ftk_session_event(s, "sched", "prev_pid > 0"), 0, "a whole system, with a filter");
	is_str(A("events/sched/enable"), "1", "... through its own enable file");
	is_str(A("events/sched/filter"), "prev_pid > 0", "... and its own filter file");
	is_str(A("events/sched/sched_switch/enable"), "0\n", "... not each event's");
	is_int(ftk_session_event(s, "irq_handler_entry", NULL), 0, "a word that names an event");
	is_str(A("events/irq/irq_handler_entry/enable"), "1", "... enables that event");
	is_int(ftk_session_event(s, "nosuch", NULL), -FTK_E_NOEVENT, "no match: FTK_E_NOEVENT");
	is_int(ftk_session_event(s, "all", "x > 1"), -EINVAL, "'all' takes no filter");
	is_int(ftk_session_event(s, "all", NULL), 0, "all");
	is_str(A("events/enable"), "1", "... events/enable");
	both[0] = s;
	both[1] = s2;
	is_int(ftk_session_notrace_share(both, 2), 0, "share the PIDs kept out");
	ok(strstr(A("set_event_notrace_pid"), "22") != NULL, "the first keeps the second's out");
	ok(strstr(get("instances/t0510b/set_event_notrace_pid"), "11") != NULL, "... and back");
	ftk_session_free(s2);
	ftk_session_free(s);
	is_str(A("tracing_on"), "1", "freed: tracing_on back");
	is_str(A("buffer_size_kb"), "1408", "... buffer_size_kb");
	is_str(A("buffer_subbuf_size_kb"), "4", "... buffer_subbuf_size_kb");
	is_str(A("trace_clock"), "local", "... trace_clock");
	is_str(A("options/stacktrace"), "0", "... stacktrace");
	is_str(A("tracing_cpumask"), "ff", "... tracing_cpumask");
	is_str(A("options/copy_trace_marker"), "0", "... copy_trace_marker");
	is_str(A("current_tracer"), "nop", "... current_tracer");
	is_str(A("set_ftrace_filter"), "", "... set_ftrace_filter");
	is_str(A("set_event_pid"), "", "... set_event_pid");
	is_str(A("set_ftrace_pid"), "", "... set_ftrace_pid");
	is_str(A("options/event-fork"), "0", "... event-fork");
	is_str(A("options/function-fork"), "0", "... function-fork");
	is_str(A("events/sched/enable"), "0", "... the system's enable");
	is_str(A("events/sched/filter"), "0", "... its filter (as '0')");
	is_str(A("events/irq/irq_handler_entry/enable"), "0", "... the event's enable");
	is_str(A("events/enable"), "0", "... events/enable");
	ok(atoi(A("set_event_notrace_pid")) == 11 && !strstr(A("set_event_notrace_pid"), "22"),
	   "... set_event_notrace_pid (%s)", A("set_event_notrace_pid"));
	ok(!strstr(get("instances/t0510b/set_event_notrace_pid"), "11"),
	   "... the other's too (%s)", get("instances/t0510b/set_event_notrace_pid"));
#undef A
}

int main(void)
{
	struct ftk_tracefs *t;
	char cmd[128];

	need_lane("unit");
	snprintf(root, sizeof(root), "/tmp/ftkit-fake-XXXXXX");
	if (!mkdtemp(root))
		bail_out("mkdtemp");
	tree();
	if (ftk_tracefs_open(root, NULL, 0, &t))
		bail_out("cannot open the fake tree");
	test_match();
	test_events(t);
	test_triggers(t);
	test_latency(t);
	test_instances(t);
	test_reset(t);
	test_session();
	ftk_tracefs_close(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		diag("cannot remove %s", root);
	return done_testing();
}
