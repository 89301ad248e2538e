// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf: perf_event groups for counting.
 *
 * Each event has one fd per (CPU, thread) slot, slot = cpu_idx * nr_tids +
 * tid_idx. Members are opened with their leader's fd of the same slot, and
 * a group is read in one read() of the leader with PERF_FORMAT_GROUP | ID:
 * the ids sort the values back to the members. libperf would do this job,
 * but Debian 12 does not package it, so it is written here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "perf-local.h"

#define READ_FORMAT	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
			 PERF_FORMAT_ID | PERF_FORMAT_GROUP)

int perf_fail(struct ftk_perf *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&p->err, 0, NULL, err, fmt, ap);
	va_end(ap);
	return err;
}

int perf_ev_add(struct ftk_perf *p, const struct perf_event_attr *attr, const char *name,
		int leader)
{
	struct perf_ev *nv, *e;

	nv = realloc(p->ev, (p->nr_ev + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->ev = nv;
	e = &nv[p->nr_ev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	e->leader = leader < 0 ? (int)p->nr_ev : leader;
	e->scale = 1;
	p->nr_ev++;
	return 0;
}

/**
 * ftk_perf_new() - a new, empty event list
 * @sysfs: the PMU directory (/sys/bus/event_source/devices), or NULL for
 *	   $FTK_PMU_DIR or that default; tests pass a fake tree
 * @tp: where tracepoint ids come from (ftk_event_tracepoints() fills it
 *	from the control side; copied, its @arg must outlive the handle), or
 *	NULL for none: the perf side reads no tracefs, and a tracepoint added
 *	then is refused
 * @out: the handle
 *
 * Return: 0 or -ENOMEM. *@out must be freed with ftk_perf_free().
 */
FTK_API int ftk_perf_new(const char *sysfs, const struct ftk_tracepoints *tp,
			 struct ftk_perf **out)
{
	struct ftk_perf *p;

	*out = NULL;
	if (!sysfs)
		sysfs = ftk_env(FTK_ENV_PMU_DIR);
	if (!sysfs)
		sysfs = "/sys/bus/event_source/devices";
	p = calloc(1, sizeof(*p));
	if (!p)
		return ftk_err(-ENOMEM);
	p->sysfs = strdup(sysfs);
	if (tp)
		p->tp = *tp;
	if (!p->sysfs) {
		ftk_perf_free(p);
		return ftk_err(-ENOMEM);
	}
	*out = p;
	return 0;
}

/**
 * ftk_perf_close() - close every counter, keeping the event list
 * @p: the handle, or NULL
 *
 * The handle can be opened again (with other targets) afterwards.
 */
FTK_API void ftk_perf_close(struct ftk_perf *p)
{
	size_t i, s, nr;

	if (!p)
		return;
	nr = p->nr_cpus * p->nr_tids;
	for (i = 0; i < p->nr_ev; i++) {
		struct perf_ev *e = &p->ev[i];

		for (s = 0; e->fds && s < nr; s++)
			if (e->fds[s] >= 0)
				close(e->fds[s]);
		free(e->fds);
		free(e->ids);
		free(e->counts);
		e->fds = NULL;
		e->ids = NULL;
		e->counts = NULL;
		e->status = 0;
	}
	free(p->cpus);
	free(p->tids);
	p->cpus = NULL;
	p->tids = NULL;
	p->nr_cpus = p->nr_tids = 0;
	p->opened = 0;
}

/**
 * ftk_perf_free() - close the counters and free the handle
 * @p: the handle, or NULL
 */
FTK_API void ftk_perf_free(struct ftk_perf *p)
{
	size_t i;

	if (!p)
		return;
	ftk_perf_close(p);
	for (i = 0; i < p->nr_ev; i++) {
		free(p->ev[i].name);
		free(p->ev[i].unit);
	}
	free(p->ev);
	free(p->sysfs);
	free(p);
}

/**
 * ftk_perf_errmsg() - what went wrong last
 * @p: the handle
 *
 * Return: a text that names the event or file and the reason, owned by the
 * handle and valid until its next failing call; "" when nothing failed.
 */
FTK_API const char *ftk_perf_errmsg(const struct ftk_perf *p)
{
	return p->err.text;
}

/**
 * ftk_perf_add_attr() - add an event given as an attribute
 * @p: the handle, not opened yet
 * @attr: the attribute; read_format, disabled, inherit and enable_on_exec are
 *	  set by ftk_perf_open()
 * @name: the name to print
 * @leader: index of an earlier event leading the group to join, or -1
 *
 * Return: 0, -EINVAL for a bad @leader, -EBUSY once opened, or -ENOMEM.
 */
FTK_API int ftk_perf_add_attr(struct ftk_perf *p, const struct perf_event_attr *attr,
			      const char *name, int leader)
{
	if (p->opened)
		return ftk_err(-EBUSY);
	if (leader >= (int)p->nr_ev || (leader >= 0 && p->ev[leader].leader != leader))
		return ftk_err(-EINVAL);
	return ftk_err(perf_ev_add(p, attr, name, leader));
}

/** ftk_perf_nr_events() - the number of events in the list */
FTK_API size_t ftk_perf_nr_events(const struct ftk_perf *p)
{
	return p->nr_ev;
}

/** ftk_perf_name() - an event's name as written, owned by the handle; NULL if out of range */
FTK_API const char *ftk_perf_name(const struct ftk_perf *p, size_t ev)
{
	return ev < p->nr_ev ? p->ev[ev].name : NULL;
}

/** ftk_perf_attr() - an event's attribute, owned by the handle; NULL if out of range */
FTK_API const struct perf_event_attr *ftk_perf_attr(const struct ftk_perf *p, size_t ev)
{
	return ev < p->nr_ev ? &p->ev[ev].attr : NULL;
}

/**
 * ftk_perf_unit() - the unit and scale of an event's count
 * @p: the handle
 * @ev: the event's index
 * @scale: where to put the factor to multiply the count by (1 when none), or NULL
 *
 * PMUs describe some of their events in sysfs (PMU/events/NAME.unit and
 * .scale: power/energy-pkg/ counts in units of 2^-32 Joules); perf prints
 * the count times the scale, with the unit.
 *
 * Return: the unit, owned by the handle, or NULL when the event has none.
 */
FTK_API const char *ftk_perf_unit(const struct ftk_perf *p, size_t ev, double *scale)
{
	if (scale)
		*scale = ev < p->nr_ev ? p->ev[ev].scale : 1;
	return ev < p->nr_ev ? p->ev[ev].unit : NULL;
}

/** ftk_perf_leader() - the index of an event's group leader (itself for a leader), or -EINVAL */
FTK_API int ftk_perf_leader(const struct ftk_perf *p, size_t ev)
{
	return ev < p->nr_ev ? p->ev[ev].leader : ftk_err(-EINVAL);
}

/* The errors perf stat takes for "this kernel or CPU cannot count this event". */
static int not_supported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL ||
	       err == ENOSYS || err == ENXIO;
}

int perf_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/**
 * ftk_perf_open() - open every event on every CPU and thread given
 * @p: the handle with its events
 * @cpus: CPU numbers, or NULL to count the threads wherever they run
 * @nr_cpus: entries in @cpus
 * @tids: thread ids, or NULL to count every task on @cpus (system wide)
 * @nr_tids: entries in @tids
 * @flags: FTK_PERF_INHERIT, FTK_PERF_ON_EXEC, FTK_PERF_DISABLED
 *
 * An event the kernel refuses as not supported (ENOENT, EOPNOTSUPP, ENODEV,
 * EINVAL, ENOSYS, ENXIO: no hardware counters, an unknown raw code) is left
 * out with that code as its ftk_perf_status(); when it leads a group, the
 * first member leads the rest instead (ftk_perf_leader() says so after the
 * open). A group perf_event_paranoid forbids
 * to count in the kernel (EACCES, EPERM) is counted in user space only, its
 * leader renamed "NAME:u" as perf does. Any other refusal (EACCES, EMFILE,
 * ESRCH, ...) fails the whole open.
 *
 * Return: 0, -EINVAL when both @cpus and @tids are NULL, or the negative
 * errno of perf_event_open(2) with ftk_perf_errmsg() naming the event, CPU
 * and thread. On failure nothing stays open.
 */
FTK_API int ftk_perf_open(struct ftk_perf *p, const int *cpus, size_t nr_cpus,
			  const pid_t *tids, size_t nr_tids, unsigned int flags)
{
	size_t i, c, t, nr, slot;
	int ret, fd;

	if (p->opened)
		return ftk_err(perf_fail(p, -EBUSY, "the events are open already"));
	if ((!cpus || !nr_cpus) && (!tids || !nr_tids))
		return ftk_err(perf_fail(p, -EINVAL, "no CPU and no thread to count"));
	p->nr_cpus = cpus && nr_cpus ? nr_cpus : 1;
	p->nr_tids = tids && nr_tids ? nr_tids : 1;
	if (cpus && nr_cpus) {
		p->cpus = malloc(nr_cpus * sizeof(*cpus));
		if (!p->cpus)
			goto nomem;
		memcpy(p->cpus, cpus, nr_cpus * sizeof(*cpus));
	}
	if (tids && nr_tids) {
		p->tids = malloc(nr_tids * sizeof(*tids));
		if (!p->tids)
			goto nomem;
		memcpy(p->tids, tids, nr_tids * sizeof(*tids));
	}
	p->opened = 1;
	nr = p->nr_cpus * p->nr_tids;
	for (i = 0; i < p->nr_ev; i++) {
		struct perf_ev *e = &p->ev[i];

		e->fds = malloc(nr * sizeof(*e->fds));
		e->ids = calloc(nr, sizeof(*e->ids));
		e->counts = calloc(nr, sizeof(*e->counts));
		if (!e->fds || !e->ids || !e->counts)
			goto nomem;
		for (slot = 0; slot < nr; slot++)
			e->fds[slot] = -1;
		e->status = 0;
		e->attr.read_format = READ_FORMAT;
		e->attr.inherit = !!(flags & FTK_PERF_INHERIT);
		if (e->leader == (int)i) {
			e->attr.disabled = !!(flags & (FTK_PERF_DISABLED | FTK_PERF_ON_EXEC));
			e->attr.enable_on_exec = !!(flags & FTK_PERF_ON_EXEC);
		} else {
			e->attr.disabled = 0;
			e->attr.enable_on_exec = 0;
		}
	}
	for (i = 0; i < p->nr_ev; i++) {
		struct perf_ev *e = &p->ev[i], *l = &p->ev[e->leader];

		if (l != e && l->status) {
			e->status = -ECANCELED;
			continue;
		}
		for (c = 0; c < p->nr_cpus; c++) {
			for (t = 0; t < p->nr_tids; t++) {
				slot = c * p->nr_tids + t;
				/* A thread gone before its leader's open: nothing to join. */
				if (l != e && l->fds[slot] < 0)
					continue;
				fd = perf_sys_open(&e->attr, p->tids ? p->tids[t] : -1,
						   p->cpus ? p->cpus[c] : -1,
						   l == e ? -1 : l->fds[slot]);
				/* One of several threads exited since it was listed: count the rest. */
				if (fd < 0 && errno == ESRCH && p->nr_tids > 1)
					continue;
				if (fd < 0)
					goto failed;
				e->fds[slot] = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &e->ids[slot]) < 0) {
					ret = perf_fail(p, -errno, "perf_event_open: %s: PERF_EVENT_IOC_ID: %s",
							e->name, strerror(errno));
					goto error;
				}
			}
		}
		continue;
failed:
		ret = -errno;
		if ((ret == -EACCES || ret == -EPERM) && !e->attr.exclude_kernel &&
		    e->attr.type != PERF_TYPE_TRACEPOINT && l == e && !c && !t) {
			/*
			 * perf_event_paranoid forbids the kernel side to this user: count
			 * user space only and say so in the name, as perf does (cycles:u).
			 */
			char *n;

			if (asprintf(&n, "%s:u", e->name) < 0)
				goto nomem;
			free(e->name);
			e->name = n;
			e->attr.exclude_kernel = e->attr.exclude_hv = 1;
			for (size_t m = i + 1; m < p->nr_ev && p->ev[m].leader == (int)i; m++)
				p->ev[m].attr.exclude_kernel = p->ev[m].attr.exclude_hv = 1;
			i--;
			continue;
		}
		if (not_supported(-ret)) {
			size_t m, lead = 0;

			/* Leave it out everywhere, and say why. */
			for (slot = 0; slot < nr; slot++) {
				if (e->fds[slot] >= 0)
					close(e->fds[slot]);
				e->fds[slot] = -1;
			}
			e->status = ret;
			if (l != e)
				continue;
			/*
			 * A leader the kernel cannot count (cycles in a VM) would take
			 * its group down: the first member leads the others instead.
			 */
			for (m = i + 1; m < p->nr_ev && p->ev[m].leader == (int)i; m++) {
				if (!lead) {
					lead = m;
					p->ev[m].attr.disabled = e->attr.disabled;
					p->ev[m].attr.enable_on_exec = e->attr.enable_on_exec;
				}
				p->ev[m].leader = lead;
			}
			continue;
		}
		if (p->cpus && p->tids)
			perf_fail(p, ret, "perf_event_open: %s on CPU %d, thread %d: %s", e->name,
				  p->cpus[c], p->tids[t], strerror(-ret));
		else if (p->cpus)
			perf_fail(p, ret, "perf_event_open: %s on CPU %d: %s", e->name, p->cpus[c],
				  strerror(-ret));
		else
			perf_fail(p, ret, "perf_event_open: %s for thread %d: %s", e->name,
				  p->tids[t], strerror(-ret));
		goto error;
	}
	return 0;
nomem:
	ret = perf_fail(p, -ENOMEM, "out of memory");
error:
	ftk_perf_close(p);
	return ftk_err(ret);
}

/**
 * ftk_perf_status() - whether an event is being counted
 * @p: the handle, opened
 * @ev: the event's index
 *
 * Return: 0 when it is open; the negative errno with which the kernel
 * refused it (-ENOENT, -EOPNOTSUPP, ...: perf's "<not supported>");
 * -ECANCELED when its group leader was refused and it could not be counted
 * on its own (perf's "<not counted>");
 * -EINVAL for a bad index.
 */
FTK_API int ftk_perf_status(const struct ftk_perf *p, size_t ev)
{
	if (ev >= p->nr_ev)
		return -EINVAL;
	return p->ev[ev].status;
}

static int ioctl_all(struct ftk_perf *p, unsigned long req, const char *what)
{
	size_t i, s, nr = p->nr_cpus * p->nr_tids;

	for (i = 0; i < p->nr_ev; i++) {
		struct perf_ev *e = &p->ev[i];

		if (e->leader != (int)i || e->status)
			continue;
		for (s = 0; s < nr; s++)
			if (e->fds[s] >= 0 && ioctl(e->fds[s], req, PERF_IOC_FLAG_GROUP) < 0)
				return ftk_err(perf_fail(p, -errno, "%s %s: %s", what, e->name,
							 strerror(errno)));
	}
	return 0;
}

/**
 * ftk_perf_set_filter() - a tracepoint filter on one event, on every slot
 * @p: the handle, opened
 * @ev: the event's index (a tracepoint)
 * @filter: in tracefs' filter syntax over the event's fields ("ret < 0")
 *
 * As perf's --filter: the kernel counts only the records it passes.
 *
 * Return: 0; -EINVAL for a bad index or an event not open; or the negative
 * errno of PERF_EVENT_IOC_SET_FILTER (a filter the kernel does not take),
 * with ftk_perf_errmsg().
 */
FTK_API int ftk_perf_set_filter(struct ftk_perf *p, size_t ev, const char *filter)
{
	size_t s, nr = p->nr_cpus * p->nr_tids;
	struct perf_ev *e;

	if (ev >= p->nr_ev || !p->opened || p->ev[ev].status)
		return ftk_err(perf_fail(p, -EINVAL, "no such open event"));
	e = &p->ev[ev];
	for (s = 0; s < nr; s++)
		if (e->fds[s] >= 0 && ioctl(e->fds[s], PERF_EVENT_IOC_SET_FILTER, filter) < 0)
			return ftk_err(perf_fail(p, -errno, "%s: filter '%s': %s", e->name, filter,
						 strerror(errno)));
	return 0;
}

/** ftk_perf_enable() - start every group counting; 0 or -errno */
FTK_API int ftk_perf_enable(struct ftk_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_ENABLE, "enable");
}

/** ftk_perf_disable() - stop every group; the counts stay readable; 0 or -errno */
FTK_API int ftk_perf_disable(struct ftk_perf *p)
{
	return ioctl_all(p, PERF_EVENT_IOC_DISABLE, "disable");
}

/**
 * ftk_perf_read() - read every group's counts into the handle
 * @p: the handle, opened
 *
 * One read() per group leader and slot; the values land where
 * ftk_perf_counts() finds them. Counters of exited tasks stay readable.
 *
 * Return: 0 or the negative errno of a failed read, with ftk_perf_errmsg().
 */
FTK_API int ftk_perf_read(struct ftk_perf *p)
{
	size_t i, j, k, s, nr = p->nr_cpus * p->nr_tids, max = 1;
	uint64_t *buf;
	ssize_t n;
	int ret = 0;

	for (i = 0; i < p->nr_ev; i++) {
		size_t members = 0;

		for (j = i; j < p->nr_ev && p->ev[j].leader == (int)i; j++)
			members++;
		if (members > max)
			max = members;
	}
	buf = malloc((3 + 2 * max) * sizeof(*buf));
	if (!buf)
		return ftk_err(-ENOMEM);
	for (i = 0; i < p->nr_ev; i++) {
		struct perf_ev *e = &p->ev[i];

		if (e->leader != (int)i || e->status)
			continue;
		for (s = 0; s < nr; s++) {
			if (e->fds[s] < 0)
				continue;
			n = read(e->fds[s], buf, (3 + 2 * max) * sizeof(*buf));
			if (n < 0) {
				ret = perf_fail(p, -errno, "read %s: %s", e->name, strerror(errno));
				goto out;
			}
			if (n < (ssize_t)(3 * sizeof(*buf)) ||
			    (size_t)n < (3 + 2 * buf[0]) * sizeof(*buf)) {
				ret = perf_fail(p, -EIO, "read %s: short read of %zd bytes", e->name, n);
				goto out;
			}
			/* { nr, time_enabled, time_running, { value, id } [nr] } */
			for (k = 0; k < buf[0]; k++) {
				uint64_t val = buf[3 + 2 * k], id = buf[4 + 2 * k];

				for (j = i; j < p->nr_ev && p->ev[j].leader == (int)i; j++) {
					if (!p->ev[j].status && p->ev[j].ids[s] == id) {
						p->ev[j].counts[s].val = val;
						p->ev[j].counts[s].ena = buf[1];
						p->ev[j].counts[s].run = buf[2];
						break;
					}
				}
			}
		}
	}
out:
	free(buf);
	return ftk_err(ret);
}

/** ftk_perf_nr_cpus() - the number of CPU slots (1 when counting per thread on any CPU) */
FTK_API size_t ftk_perf_nr_cpus(const struct ftk_perf *p)
{
	return p->nr_cpus;
}

/** ftk_perf_cpu() - the CPU number of a slot, or -1 for "any CPU" */
FTK_API int ftk_perf_cpu(const struct ftk_perf *p, size_t idx)
{
	return p->cpus && idx < p->nr_cpus ? p->cpus[idx] : -1;
}

/**
 * ftk_perf_counts() - an event's counts as of the last ftk_perf_read()
 * @p: the handle
 * @ev: the event's index
 * @cpu_idx: a CPU slot (0 .. ftk_perf_nr_cpus() - 1), or -1 for all
 * @c: where to put the value, time enabled and time running, each summed
 *     over the threads (and CPUs) asked for; unscaled
 *
 * Return: 0, -EINVAL for a bad index, or the event's ftk_perf_status() (with
 * @c zeroed) when it is not counted.
 */
FTK_API int ftk_perf_counts(const struct ftk_perf *p, size_t ev, int cpu_idx,
			    struct ftk_counts *c)
{
	size_t s, from, to;
	const struct perf_ev *e;

	memset(c, 0, sizeof(*c));
	if (ev >= p->nr_ev || cpu_idx >= (int)p->nr_cpus || !p->opened)
		return ftk_err(-EINVAL);
	e = &p->ev[ev];
	if (e->status)
		return e->status;
	from = cpu_idx < 0 ? 0 : cpu_idx * p->nr_tids;
	to = cpu_idx < 0 ? p->nr_cpus * p->nr_tids : from + p->nr_tids;
	for (s = from; s < to; s++) {
		c->val += e->counts[s].val;
		c->ena += e->counts[s].ena;
		c->run += e->counts[s].run;
	}
	return 0;
}

/**
 * ftk_counts_scaled() - a count scaled for multiplexing
 * @c: the counts
 *
 * Return: val * ena / run, the estimate perf prints when an event ran only
 * part of the time it was enabled; val when it ran all the time; 0 when it
 * never ran.
 */
FTK_API double ftk_counts_scaled(const struct ftk_counts *c)
{
	if (!c->run)
		return 0;
	if (c->run >= c->ena)
		return c->val;
	return (double)c->val * c->ena / c->run;
}

/**
 * ftk_perf_cpu_list() - parse a CPU list as in sysfs: "0-3,8,10-11"
 * @list: the text
 * @cpus: a malloc'd array of the CPUs, in order, to free()
 * @nr: its length
 *
 * Return: 0, -EINVAL for bad syntax or an empty list, -ENOMEM.
 */
FTK_API int ftk_perf_cpu_list(const char *list, int **cpus, size_t *nr)
{
	unsigned long lo, hi, c;
	const char *s = list;
	int *v = NULL, *nv;
	size_t n = 0;
	char *end;

	*cpus = NULL;
	*nr = 0;
	while (*s) {
		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = hi = strtoul(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				goto bad;
			hi = strtoul(s + 1, &end, 10);
			s = end;
		}
		if (hi < lo || hi > 65535)
			goto bad;
		for (c = lo; c <= hi; c++) {
			nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv) {
				free(v);
				return ftk_err(-ENOMEM);
			}
			v = nv;
			v[n++] = c;
		}
		if (*s == ',' && s[1])
			s++;
		else if (*s && *s != '\n')
			goto bad;
		else if (*s)
			break;
	}
	if (!n)
		goto bad;
	*cpus = v;
	*nr = n;
	return 0;
bad:
	free(v);
	return ftk_err(-EINVAL);
}
