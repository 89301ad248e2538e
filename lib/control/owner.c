// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owner: the tag that says which process made a thing in tracefs (an
 * instance's name, a probe's group), and whether that process still
 * lives. Below instance.c and probe.c, which both tag what they make and
 * reap what dead runs left.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/instance.h>

#include "internal.h"

/* Our PID namespace's inode: 0 when /proc does not tell. */
static unsigned long pidns_id(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long)st.st_ino;
}

int ftk_owner_tag(char *buf, size_t len)
{
	pid_t pid = getpid();
	int n = snprintf(buf, len, "%d_%lu_%llu", (int)pid, pidns_id(),
			 ftk_proc_stat(pid, NULL, 0, NULL));

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ftk_owner_state(const char *tag, pid_t *pidp)
{
	unsigned long long start = 0;
	unsigned long ns = 0;
	const char *p = tag;
	char *end;
	long pid;

	if (!isdigit((unsigned char)*p))
		return FTK_INSTANCE_OTHER;
	pid = strtol(p, &end, 10);
	p = end;
	if (*p == '_') {
		if (!isdigit((unsigned char)p[1]))
			return FTK_INSTANCE_OTHER;
		ns = strtoul(p + 1, &end, 10);
		p = end;
		if (*p == '_') {
			if (!isdigit((unsigned char)p[1]))
				return FTK_INSTANCE_OTHER;
			start = strtoull(p + 1, &end, 10);
			p = end;
		}
	}
	if ((*p && *p != '/') || pid <= 0 || pid > INT_MAX)
		return FTK_INSTANCE_OTHER;
	if (pidp)
		*pidp = pid;
	/* Another PID namespace (a container sharing this tracefs): its PIDs are not ours. */
	if (ns && ns != pidns_id())
		return FTK_INSTANCE_LIVE;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return FTK_INSTANCE_STALE;
	/* The PID was given again to a process started later: the owner is gone. */
	if (start) {
		unsigned long long now = ftk_proc_stat(pid, NULL, 0, NULL);

		if (now && now != start)
			return FTK_INSTANCE_STALE;
	}
	return FTK_INSTANCE_LIVE;
}

int ftk_owner_busy(const char *tag, char *why, size_t len)
{
	char path[64], *comm = NULL;
	pid_t pid = 0;

	if (ftk_owner_state(tag, &pid) != FTK_INSTANCE_LIVE || pid == getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!ftk_read_file(path, &comm, NULL))
		ftk_strstrip(comm);
	snprintf(why, len, "in use by PID %d%s%s%s", (int)pid, comm ? " (" : "", comm ? comm : "",
		 comm ? ")" : " (in another PID namespace)");
	free(comm);
	return 1;
}
