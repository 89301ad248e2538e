// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * instance: the names ftkit gives its instances, and removing them.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/instance.h>
#include <ftkit/probe.h>

#include "internal.h"
#include "tracefs-local.h"

/**
 * ftk_instance_name() - the name for an instance this process creates
 * @tool: the tool or program name ("ftevent"); letters, digits, '_' only
 * @buf: where the name goes: "ftkit-TOOL-PID_NS_START"
 * @len: size of @buf (64 is enough)
 *
 * The owner tag PID_NS_START is this process's PID, the inode of its PID
 * namespace and its start time (clock ticks after boot, field 22 of
 * /proc/PID/stat), so that another run can tell a live owner from a dead
 * one even after its PID was reused, and a container's from the host's.
 *
 * Return: 0, -EINVAL for a bad @tool, or -ENAMETOOLONG.
 */
FTK_API int ftk_instance_name(const char *tool, char *buf, size_t len)
{
	const char *p;
	char tag[64];
	int n;

	if (!tool || !*tool)
		return ftk_err(-EINVAL);
	for (p = tool; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return ftk_err(-EINVAL);
	if (ftk_owner_tag(tag, sizeof(tag)))
		return ftk_err(-ENAMETOOLONG);
	n = snprintf(buf, len, "ftkit-%s-%s", tool, tag);
	if (n < 0 || (size_t)n >= len)
		return ftk_err(-ENAMETOOLONG);
	return 0;
}

/**
 * ftk_instance_owner() - whose an instance is, from its name
 * @name: the instance name
 * @pid: where the creator's PID goes, or NULL
 *
 * A name "ftkit-WORD-TAG" is ftkit's, TAG being "PID", "PID_NS" or
 * "PID_NS_START" (see ftk_instance_name()). Its creator is gone (stale)
 * when kill(PID, 0) fails with ESRCH, or when START is given and the
 * process now holding PID started at another time. NS other than our PID
 * namespace counts as live: its PIDs cannot be checked from here. Without
 * NS, a creator in another PID namespace sharing this tracefs looks gone.
 *
 * Return: FTK_INSTANCE_OTHER, FTK_INSTANCE_LIVE or FTK_INSTANCE_STALE.
 */
FTK_API enum ftk_instance_owner ftk_instance_owner(const char *name, pid_t *pid)
{
	const char *dash;

	if (strncmp(name, "ftkit-", 6))
		return FTK_INSTANCE_OTHER;
	dash = strrchr(name, '-');
	if (dash == name + 5 || strchr(dash, '/'))
		return FTK_INSTANCE_OTHER;
	return ftk_owner_state(dash + 1, pid);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * ftk_instance_list() - the names of every instance
 * @t: a handle on the tracing directory (its root is used)
 * @out: where the sorted NULL-terminated list goes
 *
 * Return: 0 and a list to free with ftk_list_free() (empty when there are
 * none, or when the kernel has no instances), or a negative errno.
 */
FTK_API int ftk_instance_list(struct ftk_tracefs *t, char ***out)
{
	char path[PATH_MAX], **list = NULL;
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/instances", t->root);
	dir = opendir(path);
	if (!dir && errno != ENOENT)
		return ftk_err(ftk_tracefs_fail(t, path, "open", -errno));
	list = calloc(1, sizeof(*list));
	if (!list) {
		ret = -ENOMEM;
		goto out;
	}
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		ret = ftk_list_add(&list, d->d_name);
		if (ret)
			goto out;
	}
	qsort(list, ftk_list_len(list), sizeof(*list), cmp_str);
	*out = list;
	list = NULL;
out:
	if (dir)
		closedir(dir);
	ftk_list_free(list);
	return ftk_err(ret);
}

/**
 * ftk_instance_remove() - remove an instance
 * @t: a handle on the tracing directory
 * @name: the instance
 *
 * The kernel turns off what the instance had enabled as it goes.
 *
 * Return: 0, or the negative errno of rmdir(2) (-EBUSY while a reader has
 * one of its files open) with the reason in ftk_tracefs_errmsg().
 */
FTK_API int ftk_instance_remove(struct ftk_tracefs *t, const char *name)
{
	char path[PATH_MAX];

	if (ftk_name_check(name))
		return ftk_err(-EINVAL);
	snprintf(path, sizeof(path), "%s/instances/%s", t->root, name);
	if (ftk_rmdir(path) < 0)
		return ftk_err(ftk_tracefs_fail(t, path, "rmdir", -errno));
	return 0;
}

/**
 * ftk_instance_reap() - remove what dead ftkit runs left behind
 * @t: a handle on the tracing directory
 * @removed: where the list of removed names goes, or NULL
 *
 * Removes every instance named "ftkit-WORD-TAG" whose creator is gone
 * (see ftk_instance_owner()), then the probes of the owner-tagged groups
 * whose creator is gone (ftk_probe_gc(), listed as "GROUP/NAME"); nothing
 * else is touched. Every tool calls this before it creates an instance
 * (tools/tool.c's tool_tracefs()), so that a run killed with SIGKILL leaves
 * nothing recording for long.
 *
 * Return: 0 and the list (free with ftk_list_free()), or the first
 * failure's negative errno; the others are still tried.
 */
FTK_API int ftk_instance_reap(struct ftk_tracefs *t, char ***removed)
{
	char **all, **done = NULL, **p;
	int ret, first = 0;

	if (removed)
		*removed = NULL;
	ret = ftk_instance_list(t, &all);
	if (ret)
		return ret;
	done = calloc(1, sizeof(*done));
	if (!done) {
		ftk_list_free(all);
		return ftk_err(-ENOMEM);
	}
	for (p = all; *p; p++) {
		if (ftk_instance_owner(*p, NULL) != FTK_INSTANCE_STALE)
			continue;
		ret = ftk_instance_remove(t, *p);
		if (ret) {
			if (!first)
				first = ret;
			continue;
		}
		if (ftk_list_add(&done, *p) && !first)
			first = -ENOMEM;
	}
	ftk_list_free(all);
	ret = ftk_probe_gc(t, &done);
	if (ret < 0 && ret != -ENOENT && !first)
		first = ret;
	if (removed)
		*removed = done;
	else
		ftk_list_free(done);
	return ftk_err(first);
}
