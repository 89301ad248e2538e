// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tracefs handle on a fake tracing directory: paths, instances, error
 * texts and the restore journal.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

#include "internal.h"
#include "tap.h"

static char root[] = "/tmp/ftk-fake-XXXXXX";

static void put(const char *file, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	f = fopen(path, "w");
	if (!f)
		bail_out("cannot create %s", path);
	fputs(text, f);
	fclose(f);
}

static char *get(struct ftk_tracefs *t, const char *file)
{
	static char buf[4096];
	char *s;

	if (ftk_tracefs_read(t, file, &s))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	return buf;
}

int main(void)
{
	struct ftk_tracefs *t, *in;
	char path[PATH_MAX];
	int ret;

	need_lane("unit");
	if (!mkdtemp(root))
		bail_out("mkdtemp failed");
	snprintf(path, sizeof(path), "%s/instances", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events", root);
	mkdir(path, 0755);
	put("trace_clock", "[local] global counter\n");
	put("current_tracer", "nop\n");
	put("set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	put("buffer_size_kb", "1408 (expanded: 8)\n");
	put("events/filter", "none\n");
	put("error_log", "");

	ret = ftk_tracefs_open(root, NULL, 0, &t);
	ok(ret == 0 && t, "open a fake root");
	is_str(ftk_tracefs_root(t), root, "root is what was given");
	ok(ftk_tracefs_instance(t) == NULL, "top level has no instance name");
	ok(ftk_tracefs_exists(t, "trace_clock"), "exists: a file that is there");
	ok(!ftk_tracefs_exists(t, "kprobe_events"), "exists: a file that is not");

	setenv("FTK_TRACEFS", root, 1);
	ret = ftk_tracefs_open(NULL, NULL, 0, &in);
	ok(ret == 0 && !strcmp(ftk_tracefs_root(in), root), "FTK_TRACEFS names the root");
	ftk_tracefs_close(in);

	ret = ftk_tracefs_read(t, "nonexistent", &(char *){ NULL });
	is_int(ret, -ENOENT, "reading a missing file fails with ENOENT");
	is_str(ftk_tracefs_errmsg(t), "nonexistent: read: No such file or directory",
	       "the error names the file, the operation and the reason");

	/* The journal puts back each kind of file as it takes its value. */
	ok(ftk_tracefs_set(t, "trace_clock", "global") == 0, "set trace_clock");
	ok(ftk_tracefs_set(t, "current_tracer", "function") == 0, "set current_tracer");
	ok(ftk_tracefs_set(t, "set_event", "") == 0, "clear set_event");
	ok(ftk_tracefs_set(t, "buffer_size_kb", "4096") == 0, "set buffer_size_kb");
	ok(ftk_tracefs_set(t, "events/filter", "pid == 1") == 0, "set a filter");
	ok(ftk_tracefs_undo(t, "events/trigger", "!traceoff", FTK_UNDO_APPEND) == 0,
	   "journal an arbitrary undo");
	put("events/trigger", "traceoff\n");
	is_str(get(t, "current_tracer"), "function", "the new value is written");
	ok(ftk_tracefs_restore(t) == 0, "restore replays the journal");
	is_str(get(t, "trace_clock"), "local", "trace_clock gets its bracketed choice back");
	is_str(get(t, "current_tracer"), "nop", "current_tracer gets its value back");
	is_str(get(t, "set_event"), "sched:sched_switch\nirq:irq_handler_entry\n",
	       "set_event is refilled line by line");
	is_str(get(t, "buffer_size_kb"), "1408", "buffer_size_kb gets its number back");
	is_str(get(t, "events/filter"), "0", "a filter of none is cleared with 0");
	is_str(get(t, "events/trigger"), "traceoff\n!traceoff", "undo text appended");
	ok(ftk_tracefs_restore(t) == 0, "a second restore has nothing to do");

	/* Instances: created on request, removed by restore only if we made them. */
	ret = ftk_tracefs_open(root, "nosuch", 0, &in);
	is_int(ret, -ENOENT, "a missing instance is ENOENT without CREATE");
	ret = ftk_tracefs_open(root, "a/b", FTK_TRACEFS_CREATE, &in);
	is_int(ret, -EINVAL, "an instance name with a slash is refused");
	{
		/* One name check on every path: the handle, and the live reader. */
		static const char *const bad[] = { "..", "../..", ".", "", "x\ny" };
		struct ftk_tracefile *tf;
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ok(ftk_tracefs_open(root, bad[i], FTK_TRACEFS_CREATE, &in) == -EINVAL,
			   "instance name '%s' refused by ftk_tracefs_open", bad[i]);
			tf = NULL;
			ok(ftk_tracefile_open_live(root, bad[i], 0, &tf) < 0,
			   "instance name '%s' refused by the live reader", bad[i]);
			ftk_tracefile_close(tf);
		}
	}
	ret = ftk_tracefs_open(root, "ftkit-test", FTK_TRACEFS_CREATE, &in);
	ok(ret == 0, "create an instance");
	snprintf(path, sizeof(path), "%s/instances/ftkit-test", root);
	ok(access(path, F_OK) == 0, "the instance directory exists");
	is_str(ftk_tracefs_dir(in), path, "the handle's dir is the instance's");
	ret = ftk_tracefs_write(in, "missing/file", "1");
	ok(ret == -ENOENT && strstr(ftk_tracefs_errmsg(in), "instances/ftkit-test/missing/file"),
	   "errors in an instance name the instance path: %s", ftk_tracefs_errmsg(in));
	ok(ftk_tracefs_restore(in) == 0 && access(path, F_OK) != 0,
	   "restore removes the instance it created");
	ftk_tracefs_close(in);

	ftk_tracefs_close(t);
	ftk_tracefs_close(NULL);
	ret = ftk_tracefs_open("/nonexistent/tracing", NULL, 0, &t);
	is_int(ret, -ENODEV, "a root that is not there is ENODEV");

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		diag("cannot remove %s", root);
	return done_testing();
}
