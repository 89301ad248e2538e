// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spool module (lib/capture/spool.c): a recording's FILE.spool/ is
 * made new and locked, a second recorder is refused while the first
 * lives, what a dead recorder left is listed and refused until it is
 * recovered, the directory goes at the end, and a recovery follows no
 * link and names the part that is wrong. The recovery of real spools is
 * t/live/t4165-ftrecord-recover.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

#include "tap.h"

static char dir[] = "/tmp/ftk-t0165-XXXXXX";

static int exists(const char *fmt, const char *a)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), fmt, a);
	return lstat(path, &st) == 0;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		bail_out("cannot write '%s': %s", path, strerror(errno));
	close(fd);
}

int main(void)
{
	struct ftk_tracewrite_recovered r;
	struct ftk_spool *s, *s2;
	char out[256], path[512], **left;
	struct stat st;
	pid_t pid = 0;
	int ret;

	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	snprintf(out, sizeof(out), "%s/trace.dat", dir);

	ret = ftk_spool_new(out, &s);
	is_int(ret, 0, "ftk_spool_new() makes trace.dat.spool");
	ok(!strcmp(ftk_spool_dir(s), strcat(strcpy(path, out), ".spool")), "named after the output");
	ok(!stat(path, &st) && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	   "a directory of mode 0700");
	ok(exists("%s.spool/lock", out), "holding the lock");
	ok(ftk_spool_busy(out, &pid) == 1 && pid == getpid(), "busy, with this process's PID");

	ret = ftk_spool_new(out, &s2);
	is_int(ret, -EBUSY, "a second recorder into the same output is refused");
	ok(strstr(ftk_spool_errmsg(s2), "is in use"), "... saying it is in use: %s",
	   ftk_spool_errmsg(s2));
	ftk_spool_free(s2);
	ok(exists("%s.spool/lock", out), "... and the first one's lock stays");

	ret = ftk_spool_left(dir, &left);
	ok(!ret && left && !left[0], "a live recording is not listed as left behind");
	ftk_list_free(left);

	/* A recorder that died: its directory stays, with a template, unlocked. */
	snprintf(path, sizeof(path), "%s/dead.dat.spool", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/dead.dat.spool/template", dir);
	put(path, "not a template");
	snprintf(path, sizeof(path), "%s/dead.dat.spool/lock", dir);
	put(path, "999999\n");
	ret = ftk_spool_left(dir, &left);
	snprintf(path, sizeof(path), "%s/dead.dat", dir);
	ok(!ret && left && left[0] && !strcmp(left[0], path) && !left[1],
	   "the dead one is listed: %s", left && left[0] ? left[0] : "(none)");
	ftk_list_free(left);
	ok(!ftk_spool_busy(path, NULL), "and not busy");
	ret = ftk_spool_new(path, &s2);
	is_int(ret, -EEXIST, "a new recording into it is refused");
	ok(strstr(ftk_spool_errmsg(s2), "recover it first"), "... until it is recovered: %s",
	   ftk_spool_errmsg(s2));
	ftk_spool_free(s2);

	ret = ftk_spool_recover(path, &r);
	is_int(ret, -EINVAL, "a damaged template is refused");
	ok(strstr(r.errmsg, "dead.dat.spool/template"), "... naming it: %s", r.errmsg);
	ok(exists("%s.spool/template", path), "... and the spools are left as they were");

	/* A template that is a link is not followed. */
	snprintf(path, sizeof(path), "%s/dead.dat.spool/template", dir);
	unlink(path);
	if (symlink("/etc/passwd", path))
		bail_out("symlink: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/dead.dat", dir);
	ret = ftk_spool_recover(path, &r);
	is_int(ret, -ELOOP, "a template that is a link is not followed");
	ok(!exists("%s", path), "... and no output is made");

	snprintf(path, sizeof(path), "%s/none.dat", dir);
	ret = ftk_spool_recover(path, &r);
	is_int(ret, -ENOENT, "nothing to recover: ENOENT");
	ok(strstr(r.errmsg, "none.dat.spool/template"), "... naming what is missing: %s",
	   r.errmsg);

	ftk_spool_free(s);
	ok(!exists("%s.spool", out), "ftk_spool_free() removes the directory");
	ok(!ftk_spool_busy(out, NULL), "... and the lock with it");

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		diag("cannot remove %s", dir);
	return done_testing();
}
