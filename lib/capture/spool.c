// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spool: a recording's spool directory, FILE.spool/, and the one place
 * that knows its layout (include/ftkit/spool.h): the lock its recorder
 * holds, the template of the metadata, the per-CPU spools. The capture
 * creates the spools through ftk_spool_cpu_create(), the writer reads
 * them back through the descriptors handed to it here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/spool.h>

#include "internal.h"
#include "spool-local.h"
#include "tracefile-local.h"

#define SPOOL_SUFFIX	".spool"
#define MAX_SPOOL_CPUS	8192

struct ftk_spool {
	char			*dir;
	int			lock_fd;
	struct ftk_errmsg	err;
};

/* "@output.spool", malloc'ed; NULL with errno set. */
static char *dir_of(const char *output)
{
	char *d;

	if (!output || !*output)
		return errno = EINVAL, NULL;
	if (asprintf(&d, "%s" SPOOL_SUFFIX, output) < 0)
		return errno = ENOMEM, NULL;
	return d;
}

/* Whether a live recorder holds @dir's lock: 1 and its pid, else 0. */
static int dir_busy(const char *dir, pid_t *pid)
{
	char path[PATH_MAX], text[32] = "";
	int fd, busy;

	if (pid)
		*pid = 0;
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (read(fd, text, sizeof(text) - 1) > 0 && pid)
		*pid = (pid_t)atoi(text);
	close(fd);
	return busy;
}

/* A spool's name: "cpuN" with N a CPU number; -1 for any other name. */
static int cpu_of_name(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9')
		return -1;
	n = strtol(name + 3, &end, 10);
	return *end || n < 0 || n >= MAX_SPOOL_CPUS ? -1 : (int)n;
}

/* Remove the spools cpuN in @dir, and with @all the lock and template too; 0 or -errno. */
static int parts_remove(const char *dir, int all)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if ((!all || (strcmp(e->d_name, "template") && strcmp(e->d_name, "lock"))) &&
		    cpu_of_name(e->d_name) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	return 0;
}

/* Remove what the layout puts in @dir (lock, template, cpuN), then @dir; 0 or -errno. */
static int dir_remove(const char *dir)
{
	int ret = parts_remove(dir, 1);

	return ret ? ret : rmdir(dir) < 0 && errno != ENOENT ? -errno : 0;
}

/* Whether @dir holds a template (not through a link): a recording to recover. */
static int has_template(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/template", dir);
	return !lstat(path, &st);
}

/**
 * ftk_spool_new() - make and lock the spool directory of a recording
 * @output: the trace.dat the recording will write; its spool directory
 *	    is "@output.spool"
 * @sp: receives the handle, also on failure, for ftk_spool_errmsg()
 *
 * Creates the directory (mode 0700) and in it the lock, held with flock(2)
 * while the handle lives, holding this process's PID. An existing directory
 * is reused only when it holds no template (nothing to recover: the lock
 * a killed flight recorder left) and its lock is free.
 *
 * Return: 0, or a negative errno with the reason in ftk_spool_errmsg():
 * -EBUSY when a live recorder uses the directory, -EEXIST when a recording
 * that did not finish left it (ftk_spool_recover() first).
 */
FTK_API int ftk_spool_new(const char *output, struct ftk_spool **sp)
{
	struct ftk_spool *s = calloc(1, sizeof(*s));
	char path[PATH_MAX], text[32];
	pid_t pid;
	int ret;

	*sp = s;
	if (!s)
		return ftk_err(-ENOMEM);
	s->lock_fd = -1;
	s->dir = dir_of(output);
	if (!s->dir)
		return ftk_err(ftk_errmsg_set(&s->err, 0, NULL, -errno, "bad output name"));
	snprintf(path, sizeof(path), "%s/lock", s->dir);
	if (mkdir(s->dir, 0700) < 0) {
		ret = -errno;
		if (ret == -EEXIST && !dir_busy(s->dir, &pid) && !has_template(s->dir)) {
			/*
			 * Nothing to recover: the lock a killed flight recorder (which
			 * spools nothing here) left, or a recorder starting right now.
			 * Take the lock if it is free; else the other one has it.
			 */
			s->lock_fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
			if (s->lock_fd >= 0 && !flock(s->lock_fd, LOCK_EX | LOCK_NB) &&
			    !ftruncate(s->lock_fd, 0) && !parts_remove(s->dir, 0))
				goto locked;	/* spools with no template: no recording */
			if (s->lock_fd >= 0)
				close(s->lock_fd);
			s->lock_fd = -1;
			ret = ftk_errmsg_set(&s->err, 0, NULL, -EBUSY, "'%s' is in use: another "
					     "ftrecord is recording into '%s'", s->dir, output);
		} else if (ret != -EEXIST)
			ftk_errmsg_set(&s->err, 0, NULL, ret, "cannot create '%s': %s", s->dir,
				       strerror(-ret));
		else if (dir_busy(s->dir, &pid))
			ret = ftk_errmsg_set(&s->err, 0, NULL, -EBUSY, "'%s' is in use: ftrecord "
					     "%d is recording into '%s'", s->dir, (int)pid, output);
		else
			ftk_errmsg_set(&s->err, 0, NULL, ret, "'%s' exists: recover it first "
				       "(ftrecord --recover %s) or remove it", s->dir, output);
		free(s->dir);
		s->dir = NULL;
		return ftk_err(ret);
	}
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		ret = -errno;
		ftk_errmsg_set(&s->err, 0, NULL, ret, "cannot create '%s': %s", path,
			       strerror(-ret));
		if (s->lock_fd >= 0)
			unlink(path);
		rmdir(s->dir);
		free(s->dir);
		s->dir = NULL;
		return ftk_err(ret);
	}
locked:
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (write(s->lock_fd, text, strlen(text)) < 0)
		pr_warn("cannot write '%s': %s\n", path, strerror(errno));
	return 0;
}

/**
 * ftk_spool_free() - remove the spool directory and release its lock
 * @s: the handle, or NULL
 *
 * For a recording that ended (saved or not): the spools, the template
 * and the lock go, then the directory.
 */
FTK_API void ftk_spool_free(struct ftk_spool *s)
{
	int ret;

	if (!s)
		return;
	if (s->dir && s->lock_fd >= 0 && (ret = dir_remove(s->dir)))
		pr_warn("cannot remove '%s': %s\n", s->dir, strerror(-ret));
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->dir);
	free(s);
}

/** ftk_spool_dir() - the directory, for the capture's spool_dir; owned by @s */
FTK_API const char *ftk_spool_dir(const struct ftk_spool *s)
{
	return s->dir;
}

/** ftk_spool_errmsg() - the last failure's text; owned by @s */
FTK_API const char *ftk_spool_errmsg(const struct ftk_spool *s)
{
	return s ? s->err.text : "out of memory";
}

/**
 * ftk_spool_save_template() - store the metadata a recovery needs
 * @s: the spool
 * @w: a writer set up as the recording's, with no data added yet
 *
 * Return: 0, or a negative errno with the reason in ftk_spool_errmsg().
 */
FTK_API int ftk_spool_save_template(struct ftk_spool *s, struct ftk_tracewrite *w)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/template", s->dir);
	ret = ftk_tracewrite_save_template(w, path);
	if (ret)
		ftk_errmsg_set(&s->err, 0, NULL, ret, "cannot write the recovery template: %s",
			       ftk_tracewrite_errmsg(w));
	return ftk_err(ret);
}

/* The capture's spool of @cpu in @dir, made new, never through a link: fd or -errno. */
int ftk_spool_cpu_create(const char *dir, int cpu)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/*
 * The spool of @cpu in @dir for more pages (a watchdog saving a dead
 * recorder's ring): opened or made, never through a link, cut to whole
 * pages of @psz bytes and positioned at its end. fd or -errno.
 */
int ftk_spool_cpu_append(const char *dir, int cpu, size_t psz)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !psz ||
	    ftruncate(fd, st.st_size - st.st_size % psz) < 0 || lseek(fd, 0, SEEK_END) < 0) {
		int ret = S_ISREG(st.st_mode) && psz ? -errno : -EINVAL;

		close(fd);
		return ret;
	}
	return fd;
}

/* Whether @dir holds a recovery template. */
int ftk_spool_has_template(const char *dir)
{
	return has_template(dir);
}

void ftk_spool_cpu_remove(const char *dir, int cpu)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
	unlink(path);
}

/**
 * ftk_spool_busy() - whether a live recorder is writing @output's spools
 * @output: the trace.dat
 * @pid: receives the recorder's PID (0 if unknown), or NULL
 *
 * Return: 1 if one holds the lock, else 0.
 */
FTK_API int ftk_spool_busy(const char *output, pid_t *pid)
{
	char *dir = dir_of(output);
	int busy = dir ? dir_busy(dir, pid) : 0;

	free(dir);
	return busy;
}

/**
 * ftk_spool_left() - the recordings in @dir that did not finish
 * @dir: a directory
 * @outputs: receives a NULL-terminated list of the outputs (each
 *	     "@dir/NAME" whose "NAME.spool" holds a template and is not
 *	     locked by a live recorder), sorted; free with ftk_list_free()
 *
 * Return: 0 (an empty list when there are none), or -ENOMEM.
 */
FTK_API int ftk_spool_left(const char *dir, char ***outputs)
{
	size_t len, sl = strlen(SPOOL_SUFFIX);
	char path[PATH_MAX], tpl[PATH_MAX + 16];
	struct dirent **d;
	int n, i, ret = 0;

	*outputs = calloc(1, sizeof(**outputs));
	if (!*outputs)
		return ftk_err(-ENOMEM);
	n = scandir(dir, &d, NULL, alphasort);
	for (i = 0; i < n; i++) {
		len = strlen(d[i]->d_name);
		if (!ret && len > sl && !strcmp(d[i]->d_name + len - sl, SPOOL_SUFFIX)) {
			snprintf(path, sizeof(path), "%s/%s", dir, d[i]->d_name);
			snprintf(tpl, sizeof(tpl), "%s/template", path);
			path[strlen(path) - sl] = '\0';
			if (!access(tpl, F_OK) && !ftk_spool_busy(path, NULL))
				ret = ftk_list_add(outputs, path);
		}
		free(d[i]);
	}
	if (n >= 0)
		free(d);
	return ftk_err(ret);
}

/* Close the spools of @fds; -1 entries are none. */
static void close_fds(int *fds, int n)
{
	int i;

	for (i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

/* Open @dir's template and its spools cpu0 .. cpuN-1 (-1 where there is none). */
static int open_spools(const char *dir, int *tfd, int **fdsp, int *nfds,
		       struct ftk_tracewrite_recovered *r)
{
	int n = 0, cpu, *fds, ret;
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/template", dir);
	*tfd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (*tfd < 0)
		return tf_recover_fail(r, -errno, "cannot open '%s': %s", path, strerror(errno));
	d = opendir(dir);
	if (!d) {
		ret = tf_recover_fail(r, -errno, "cannot open '%s': %s", dir, strerror(errno));
		goto fail;
	}
	while ((e = readdir(d)))
		if ((cpu = cpu_of_name(e->d_name)) >= n)
			n = cpu + 1;
	closedir(d);
	fds = malloc((n ? n : 1) * sizeof(*fds));
	if (!fds) {
		ret = -ENOMEM;
		goto fail;
	}
	for (cpu = 0; cpu < n; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
		fds[cpu] = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fds[cpu] < 0 && errno != ENOENT) {
			ret = tf_recover_fail(r, -errno, "cannot open '%s': %s", path,
					      strerror(errno));
			close_fds(fds, cpu);
			goto fail;
		}
	}
	*fdsp = fds;
	*nfds = n;
	return 0;
fail:
	close(*tfd);
	*tfd = -1;
	return ret;
}

/**
 * ftk_spool_recover() - make a trace.dat of a recording that died
 * @output: the file the recording was writing; its spools are in
 *	    "@output.spool"
 * @r: filled in: the data recovered and, on failure, the reason
 *
 * Every whole page a spool holds goes into @output (replaced if it
 * exists), up to the first one that is not a ring buffer page (a power
 * cut can leave a spool's end unwritten). The file is version 6,
 * uncompressed, with the metadata of the recording's start. The spool
 * directory is removed once the file is written.
 *
 * Return: 0, or a negative errno with the reason in @r->errmsg: -EBUSY
 * while a live recorder still writes the spools.
 */
FTK_API int ftk_spool_recover(const char *output, struct ftk_tracewrite_recovered *r)
{
	char *dir, tpath[PATH_MAX];
	int tfd = -1, *fds = NULL, nfds = 0, ret, rm;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->sz = sizeof(*r);
	dir = dir_of(output);
	if (!dir)
		return tf_recover_fail(r, -errno, "bad output name");
	if (dir_busy(dir, &pid)) {
		ret = tf_recover_fail(r, -EBUSY, "'%s' is in use: ftrecord %d is still recording "
				      "into '%s'", dir, (int)pid, output);
		goto out;
	}
	ret = open_spools(dir, &tfd, &fds, &nfds, r);
	if (ret)
		goto out;
	snprintf(tpath, sizeof(tpath), "%s/template", dir);
	ret = tf_write_recover(tfd, tpath, fds, nfds, output, r);
	close_fds(fds, nfds);
	close(tfd);
	if (!ret && (rm = dir_remove(dir)))
		pr_warn("cannot remove '%s': %s\n", dir, strerror(-rm));
out:
	free(dir);
	return ftk_err(ret);
}
