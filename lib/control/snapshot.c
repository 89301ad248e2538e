// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * snapshot: the snapshot buffer. The file takes "0" (free), "1" (allocate
 * if needed and swap with the live buffer) and "2" (clear); reading it
 * prints the snapshot like the trace file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ftkit/snapshot.h>

#include "internal.h"
#include "tracefs-local.h"

static int file_of(struct ftk_tracefs *t, int cpu, char *buf, size_t len)
{
	if (cpu < -1)
		return -EINVAL;
	if (!ftk_tracefs_exists(t, "snapshot")) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "snapshot is absent (kernel built without CONFIG_TRACER_SNAPSHOT)");
		t->errdetail[0] = '\0';
		return -ENOENT;
	}
	if (cpu < 0) {
		snprintf(buf, len, "snapshot");
		return 0;
	}
	snprintf(buf, len, "per_cpu/cpu%d/snapshot", cpu);
	if (!ftk_tracefs_exists(t, buf)) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s is absent (no CPU %d)", buf, cpu);
		t->errdetail[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

static int put(struct ftk_tracefs *t, int cpu, const char *val)
{
	char file[64];
	int ret;

	ret = file_of(t, cpu, file, sizeof(file));
	if (!ret)
		ret = ftk_tracefs_write(t, file, val);
	return ftk_err(ret);
}

/**
 * ftk_snapshot_take() - swap the live buffer into the snapshot buffer
 * @t: the handle
 * @cpu: a CPU, or -1 for all
 *
 * Allocates the snapshot buffer (as large as the live one) if needed. Not
 * journaled: the snapshot is meant to stay until ftk_snapshot_free().
 *
 * Return: 0, -ENOENT when the kernel has no snapshot (reason in
 * ftk_tracefs_errmsg()), -EINVAL when this kernel cannot swap one CPU, or
 * the write's negative errno (-EBUSY while a latency tracer uses it).
 */
FTK_API int ftk_snapshot_take(struct ftk_tracefs *t, int cpu)
{
	return put(t, cpu, "1");
}

/**
 * ftk_snapshot_clear() - empty the snapshot buffer, keep it allocated
 * @t: the handle
 * @cpu: a CPU, or -1 for all
 *
 * Return: as ftk_snapshot_take().
 */
FTK_API int ftk_snapshot_clear(struct ftk_tracefs *t, int cpu)
{
	return put(t, cpu, "2");
}

/**
 * ftk_snapshot_free() - free the snapshot buffer
 * @t: the handle
 *
 * Return: as ftk_snapshot_take().
 */
FTK_API int ftk_snapshot_free(struct ftk_tracefs *t)
{
	return put(t, -1, "0");
}

/**
 * ftk_snapshot_read() - the snapshot as text
 * @t: the handle
 * @cpu: a CPU, or -1 for all
 * @out: where the malloc'd text goes
 *
 * Return: 0, -ENOENT, or a read error.
 */
FTK_API int ftk_snapshot_read(struct ftk_tracefs *t, int cpu, char **out)
{
	char file[64];
	int ret;

	*out = NULL;
	ret = file_of(t, cpu, file, sizeof(file));
	if (ret)
		return ftk_err(ret);
	return ftk_tracefs_read(t, file, out);
}

/**
 * ftk_snapshot_allocated() - whether the snapshot buffer is allocated
 * @t: the handle
 *
 * Return: 1 or 0, or a negative errno (-ENOENT without snapshots).
 */
FTK_API int ftk_snapshot_allocated(struct ftk_tracefs *t)
{
	char file[64], path[4096], buf[1024];
	ssize_t n;
	int ret, fd;

	ret = file_of(t, -1, file, sizeof(file));
	if (!ret)
		ret = ftk_tracefs_path(t, file, path, sizeof(path));
	if (ret)
		return ftk_err(ret);
	/* A freed snapshot says so in its first lines: read those, not the buffer. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ftk_err(ftk_tracefs_fail(t, file, "open", -errno));
	n = read(fd, buf, sizeof(buf) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ftk_err(ftk_tracefs_fail(t, file, "read", ret));
	buf[n] = '\0';
	return strstr(buf, "Snapshot is freed") == NULL;
}
