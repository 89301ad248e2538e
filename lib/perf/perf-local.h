/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The perf module's structures, shared by perf.c and perf-parse.c; never installed. */
#ifndef FTKIT_PERF_LOCAL_H
#define FTKIT_PERF_LOCAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ftkit/perf.h>

#include "internal.h"

struct perf_ev {
	struct perf_event_attr	attr;
	char			*name;		/* as the user wrote it: perf prints that */
	char			*unit;		/* from sysfs PMU/events/NAME.unit, or NULL */
	double			scale;		/* from PMU/events/NAME.scale, else 1 */
	struct ftk_counts	*counts;	/* [nr_cpus * nr_tids] after ftk_perf_read() */
	uint64_t		*ids;		/* kernel ids, to sort out a group read */
	int			*fds;		/* [nr_cpus * nr_tids], -1 where not open */
	int			leader;		/* index of the group leader; itself if one */
	int			status;		/* 0, or -errno of the failed open */
};

struct ftk_perf {
	struct perf_ev		*ev;
	size_t			nr_ev;
	int			*cpus;		/* NULL: any CPU (-1) */
	pid_t			*tids;		/* NULL: every task (-1) */
	size_t			nr_cpus;
	size_t			nr_tids;
	char			*sysfs;		/* the PMU directory: .../event_source/devices */
	struct ftk_tracepoints	tp;		/* the caller's; .ids NULL: none */
	int			opened;
	struct ftk_errmsg	err;
};

/* Whether an options struct the caller sized with .sz holds @field. */
#define OPTS_HAS(o, field)	((o)->sz >= offsetof(typeof(*(o)), field) + sizeof((o)->field))

/* Set the handle's error text (through ftk_errmsg_vset()); returns @err. */
int perf_fail(struct ftk_perf *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* perf_event_open(2) with FD_CLOEXEC; the fd, or -1 with errno set. */
int perf_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);
/* Append an event (copying @attr and @name); @leader < 0 makes it its own leader. */
int perf_ev_add(struct ftk_perf *p, const struct perf_event_attr *attr, const char *name,
		int leader);

#endif
