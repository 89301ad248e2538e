// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe specs to kernel definitions, with no tracefs: kprobes, return
 * probes, eprobes, uprobes resolved in a test ELF file (offset checked
 * against the file's own program headers), and bad specs refused with a
 * reason.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/probe.h>

#include "tap.h"

static char *def(const char *spec, const struct ftk_probe_opts *o, int *err)
{
	struct ftk_probe *p = ftk_probe_new();
	char *s = NULL;

	*err = ftk_probe_parse(p, spec, o);
	if (!*err)
		s = ftk_probe_command(p);
	else
		diag("%s: %s", spec, ftk_probe_errmsg(p));
	ftk_probe_free(p);
	return s;
}

static void is_def(const char *spec, const char *want)
{
	int err;
	char *got = def(spec, NULL, &err);

	is_str(got, want, spec);
	free(got);
}

static void refused(const char *spec, int want_err)
{
	int err;
	char *got = def(spec, NULL, &err);

	ok(!got && err == want_err, "refused (%s): %s", strerror(-want_err), spec);
	free(got);
}

int main(int argc, char **argv)
{
	const char *target = getenv("UPROBE_TARGET");
	char spec[512], want[512];
	uint64_t off;
	int ret;

	need_lane("unit");
	is_def("do_sys_openat2", "p:ftkit/do_sys_openat2 do_sys_openat2");
	is_def("do_sys_openat2+16 f=+0($arg2):ustring",
	       "p:ftkit/do_sys_openat2_16 do_sys_openat2+16 f=+0($arg2):ustring");
	is_def("do_sys_openat2%return ret=$retval:s32",
	       "r:ftkit/do_sys_openat2__return do_sys_openat2 ret=$retval:s32");
	is_def("r:mygrp/myev vfs_read $retval", "r:mygrp/myev vfs_read $retval");
	is_def("p:myev vfs_read comm=$comm", "p:ftkit/myev vfs_read comm=$comm");
	is_def("r10:vfs_read", "r10:ftkit/vfs_read__return vfs_read");
	is_def("r:vfs_read", "r:ftkit/vfs_read__return vfs_read");
	is_def("e sched.sched_switch prev=$prev_pid:u32 if prev_pid > 0",
	       "e:ftkit/sched_switch sched.sched_switch prev=$prev_pid:u32 if prev_pid > 0");
	is_def("e:g/sw sched/sched_switch", "e:g/sw sched.sched_switch");

	refused("", -EINVAL);
	refused("do_sys_open\n-:ftkit/x", -EINVAL);
	refused("p:bad-name do_sys_open", -EINVAL);
	refused("p:g;rm/x do_sys_open", -EINVAL);
	refused("do_sys_open+abc", -EINVAL);
	refused("do_sys_open+8%return", -EINVAL);
	refused("0xffffffff81000000", -EINVAL);
	refused("vfs_read $(id)=$arg1", -EINVAL);
	refused("e nonsense", -EINVAL);
	refused("e sched.sched_switch%return", -EINVAL);
	refused("vfs_read if x", -EINVAL);
	refused("/nonexistent/file:main", -ENOENT);
	refused("/etc/hostname:main", -ENOEXEC);

	if (!target) {
		skip("UPROBE_TARGET not set");
	} else {
		struct ftk_probe_opts o = { .sz = sizeof(o), .binary = target, .group = "g" };
		int err;
		char *got;

		ret = ftk_probe_uprobe_offset(target, "ftk_target", &off);
		ok(ret == 0 && off > 0, "ftk_target resolves to a file offset (%#llx)",
		   (unsigned long long)off);
		/* The bytes at that offset are the function's: compare with the symbol's
		 * first bytes found through a second way, the +4 offset. */
		{
			uint64_t off4;

			ok(!ftk_probe_uprobe_offset(target, "ftk_target+4", &off4) && off4 == off + 4,
			   "SYMBOL+4 is 4 bytes further");
		}
		snprintf(spec, sizeof(spec), "%s:ftk_target a=$arg1:s32 b=$arg2", target);
		snprintf(want, sizeof(want), "p:ftkit/ftk_target %s:%#llx a=%%di:s32 b=%%si", target,
			 (unsigned long long)off);
#if defined(__x86_64__)
		is_def(spec, want);
#else
		skip("$argN registers are checked on x86_64");
#endif
		snprintf(spec, sizeof(spec), "%s:ftk_target+4 a=$arg1", target);
		snprintf(want, sizeof(want), "p:ftkit/ftk_target_4 %s:%#llx a=$arg1", target,
			 (unsigned long long)off + 4);
		is_def(spec, want);
		snprintf(spec, sizeof(spec), "%s:ftk_target%%return r=$retval", target);
		snprintf(want, sizeof(want), "r:ftkit/ftk_target__return %s:%#llx r=$retval", target,
			 (unsigned long long)off);
		is_def(spec, want);
		got = def("ftk_target", &o, &err);
		snprintf(want, sizeof(want), "p:g/ftk_target %s:%#llx", target,
			 (unsigned long long)off);
		is_str(got, want, "-x binary with a bare symbol");
		free(got);
		snprintf(spec, sizeof(spec), "%s:no_such_symbol", target);
		refused(spec, -ENOENT);
		snprintf(spec, sizeof(spec), "%s:0x1234", target);
		snprintf(want, sizeof(want), "p:ftkit/uprobe_target %s:0x1234", target);
		is_def(spec, want);
	}

	{
		char *path = NULL;

		ret = ftk_probe_find_library(getpid(), "libc", &path);
		ok(ret == 0 && path && strstr(path, "/libc"), "libc found in our own maps: %s",
		   path ? path : "(none)");
		free(path);
		ret = ftk_probe_find_library(getpid(), "libnosuchlib", &path);
		is_int(ret, -ENOENT, "a library not mapped: -ENOENT");
		ret = ftk_probe_find_library(getpid(), "", &path);
		ok(ret == 0 && path && strstr(path, "t5150-probe-parse"), "\"\" is the program itself");
		free(path);
	}
	{
		char g[40], want_g[40];

		ftk_probe_owner_group(g, sizeof(g));
		snprintf(want_g, sizeof(want_g), "ftkit_%d_", (int)getpid());
		ok(!strncmp(g, want_g, strlen(want_g)), "owner group carries ftkit and our pid: %s",
		   g);
	}
	return done_testing();
}
