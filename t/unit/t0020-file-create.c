// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Files ftkit writes follow no link and clobber nothing by surprise
 * (issue 11, item 1): a link planted where the writer used to put its
 * temporary (PATH.tmpPID) or at PATH itself must leave its target as it
 * was, and PATH must end up a regular file holding the trace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/ftkit.h>

#include "tap.h"

#define VICTIM	"precious, not a trace\n"

static char dir[] = "/tmp/ftk-t0020-XXXXXX";

static int victim_intact(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(VICTIM) && !strcmp(buf, VICTIM);
}

static void make_victim(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, VICTIM, strlen(VICTIM)) != (ssize_t)strlen(VICTIM))
		bail_out("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

static int is_regular(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Entries of the test directory, to see that nothing was left behind. */
static int entries(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	while (dp && (d = readdir(dp)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

static int save_trace(struct ftk_tracefs *t, const char *out)
{
	FTK_OPTS(ftk_tracewrite_opts, o, .flags = FTK_TRACEWRITE_NO_KALLSYMS);
	struct ftk_tracewrite *w;
	struct ftk_tracemeta *m;
	int ret;

	if (ftk_tracemeta_new(t, &o, NULL, &m) || ftk_tracewrite_new(m, &o, &w)) {
		ftk_tracemeta_free(m);
		return -1;
	}
	ret = ftk_tracewrite_save(w, out);
	if (ret)
		diag("save: %s", ftk_tracewrite_errmsg(w));
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
	return ret;
}

static int trace_readable(const char *path)
{
	struct ftk_tracefile *tf;

	if (ftk_tracefile_open(path, 0, &tf))
		return 0;
	ftk_tracefile_close(tf);
	return 1;
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	char root[4096], out[4200], tmp[4300], victim[4200], path[4200];
	struct ftk_tracefs *t;
	struct ftk_file *f;
	int ret, n;

	need_lane("unit");
	snprintf(root, sizeof(root), "%s/t/fixtures/tracefs-mini", srcdir ? srcdir : ".");
	if (ftk_tracefs_open(root, NULL, 0, &t))
		bail_out("cannot open the fixture tree %s", root);
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %s", strerror(errno));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(out, sizeof(out), "%s/o.dat", dir);
	make_victim(victim);

	/* The reproducer: a link where the old writer put PATH.tmpPID. */
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", out, (int)getpid());
	if (symlink(victim, tmp))
		bail_out("symlink: %s", strerror(errno));
	ok(!save_trace(t, out), "trace saved with a link at PATH.tmpPID");
	ok(victim_intact(victim), "the link's target is untouched");
	ok(is_regular(out), "o.dat is a regular file, not a link");
	ok(trace_readable(out), "o.dat reads back as a trace");
	unlink(tmp);
	unlink(out);

	/* A link at PATH itself is replaced, not followed. */
	if (symlink(victim, out))
		bail_out("symlink: %s", strerror(errno));
	ok(!save_trace(t, out), "trace saved over a link at PATH");
	ok(victim_intact(victim), "the link's target is untouched");
	ok(is_regular(out) && trace_readable(out), "o.dat is the trace, a regular file");
	is_int(entries(), 2, "nothing left but the victim and o.dat");

	/* An existing file is replaced whole, in one rename. */
	ok(!save_trace(t, out) && trace_readable(out), "an existing trace is replaced");
	is_int(entries(), 2, "no temporary left behind");

	/* The API itself. */
	snprintf(path, sizeof(path), "%s/new", dir);
	ret = ftk_file_create(path, 0, &f);
	ok(!ret && f && ftk_file_fd(f) >= 0, "ftk_file_create() made a file");
	if (!ret && write(ftk_file_fd(f), "abc", 3) != 3)
		diag("write: %s", strerror(errno));
	ok(access(path, F_OK) && errno == ENOENT, "nothing under the name before publishing");
	ftk_file_close(f);
	is_int(entries(), 2, "closed unpublished: nothing left");

	ret = ftk_file_create(path, 0, &f);
	if (!ret && write(ftk_file_fd(f), "abc", 3) != 3)
		diag("write: %s", strerror(errno));
	ok(!ret && !ftk_file_publish(f), "published");
	ftk_file_close(f);
	ok(is_regular(path), "the published file is there");

	ret = ftk_file_create(path, FTK_FILE_EXCL, &f);
	is_int(ret, -EEXIST, "FTK_FILE_EXCL on an existing file: -EEXIST");
	ok(f && strstr(ftk_file_errmsg(f), path), "the reason names the file: %s",
	   f ? ftk_file_errmsg(f) : "(no handle)");
	ftk_file_close(f);

	/* EXCL loses a race to a link planted after the start: still -EEXIST. */
	unlink(path);
	ret = ftk_file_create(path, FTK_FILE_EXCL, &f);
	if (symlink(victim, path))
		bail_out("symlink: %s", strerror(errno));
	n = ret ? ret : ftk_file_publish(f);
	is_int(n, -EEXIST, "a link planted before publishing: -EEXIST with FTK_FILE_EXCL");
	ftk_file_close(f);
	ok(victim_intact(victim), "the link's target is untouched");

	/* Appending does not follow a link either. */
	ret = ftk_file_create(path, FTK_FILE_APPEND, &f);
	ok(ret == -ELOOP, "FTK_FILE_APPEND through a link refused (%d)", ret);
	ftk_file_close(f);
	ok(victim_intact(victim), "the link's target is untouched");
	unlink(path);

	/* A stream appears at once, replacing a link rather than following it. */
	if (symlink(victim, path))
		bail_out("symlink: %s", strerror(errno));
	ret = ftk_file_create(path, FTK_FILE_STREAM, &f);
	ok(!ret && is_regular(path), "FTK_FILE_STREAM: a new regular file under the name at once");
	ok(!ret && write(ftk_file_fd(f), "abc", 3) == 3 && !ftk_file_publish(f), "written, synced");
	ftk_file_close(f);
	ok(victim_intact(victim), "the link's target is untouched");
	unlink(path);

	/* FTK_FILE_PRIVATE: 0600 whatever the umask; else 0666 & ~umask. */
	{
		struct stat st;
		mode_t old = umask(022);

		ret = ftk_file_create(path, FTK_FILE_PRIVATE, &f);
		ok(!ret && !ftk_file_publish(f) && !stat(path, &st) && (st.st_mode & 0777) == 0600,
		   "FTK_FILE_PRIVATE: made 0600");
		ftk_file_close(f);
		unlink(path);
		ret = ftk_file_create(path, FTK_FILE_PRIVATE | FTK_FILE_STREAM, &f);
		ok(!ret && !stat(path, &st) && (st.st_mode & 0777) == 0600,
		   "FTK_FILE_PRIVATE | FTK_FILE_STREAM: made 0600");
		ftk_file_close(f);
		unlink(path);
		ret = ftk_file_create(path, 0, &f);
		ok(!ret && !ftk_file_publish(f) && !stat(path, &st) && (st.st_mode & 0777) == 0644,
		   "without it: 0644 under umask 022");
		ftk_file_close(f);
		unlink(path);
		umask(old);
	}

	/* A device is written directly: /dev/null, and /dev/full's ENOSPC shows. */
	ret = ftk_file_create("/dev/null", 0, &f);
	ok(!ret && write(ftk_file_fd(f), "x", 1) == 1 && !ftk_file_publish(f),
	   "/dev/null written in place");
	ftk_file_close(f);
	ok(access("/dev/null", W_OK) == 0, "/dev/null is still there");
	if (access("/dev/full", W_OK) == 0) {
		ret = ftk_file_create("/dev/full", 0, &f);
		ok(!ret && write(ftk_file_fd(f), "x", 1) < 0 && errno == ENOSPC,
		   "/dev/full: No space left on device");
		ftk_file_close(f);
	} else {
		skip("no writable /dev/full");
	}

	/*
	 * A descriptor through /proc (as /dev/stdout is): written through,
	 * after what is there, and the link stays a link.
	 */
	{
		static const char *const fmt[] = { "/dev/fd/%d", "/proc/self/fd/%d" };
		char fdpath[64], got[16] = "";
		struct stat st;
		int fd, i;

		for (i = 0; i < 2; i++) {
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			ok(fd >= 0 && write(fd, "ab", 2) == 2, "a file opened as a descriptor");
			snprintf(fdpath, sizeof(fdpath), fmt[i], fd);
			ret = ftk_file_create(fdpath, 0, &f);
			ok(!ret && write(ftk_file_fd(f), "cd", 2) == 2 && !ftk_file_publish(f),
			   "%s written through: %s", fdpath, f ? ftk_file_errmsg(f) : "");
			ftk_file_close(f);
			ok(pread(fd, got, sizeof(got) - 1, 0) == 4 && !strcmp(got, "abcd"),
			   "%s: the data follow what the descriptor's file held (%s)", fdpath, got);
			ok(lstat(fdpath, &st) == 0 && S_ISLNK(st.st_mode), "%s is still a link",
			   fdpath);
			close(fd);
			unlink(path);
			memset(got, 0, sizeof(got));
		}
	}

	ftk_tracefs_close(t);
	unlink(out);
	unlink(victim);
	rmdir(dir);
	return done_testing();
}
