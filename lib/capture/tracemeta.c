// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracemeta: read once, on the capture side, everything a trace.dat stores
 * besides the CPU data: header_page and header_event, the ftrace and event
 * formats, kallsyms, printk formats, saved_cmdlines, each buffer's trace
 * clock and ring page size, and the TSC2NSEC conversion of x86-tsc. The
 * writer (lib/read/tracefile-write.c) takes it all from the struct
 * (tracemeta-local.h) and reads neither tracefs nor /proc itself
 * (doc/design.md, "Modules and who may use whom").
 *
 * The costly parts (some 2000 format files on a distribution kernel, and
 * 4 to 5 MB of kallsyms) are taken from an earlier read (the recording's
 * start, for its recovery template) while they are still current: a
 * system's formats while available_events reads the same, kallsyms while
 * /proc/modules names the same modules at the same addresses.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ftkit/capture.h>
#include <ftkit/event.h>
#include <ftkit/tracefs.h>

#include "internal.h"
#include "tracefs-local.h"
#include "tracemeta-local.h"

#define SOME	(FTK_TRACEWRITE_SOME_SYSTEMS | FTK_TRACEWRITE_ENABLED_SYSTEMS)

static void text_release(struct tm_text *x)
{
	free(x->data);
	x->data = NULL;
	x->len = 0;
}

static int text_copy(struct tm_text *to, const struct tm_text *from)
{
	to->len = from->len;
	to->data = malloc(from->len ? from->len : 1);
	if (!to->data)
		return -ENOMEM;
	memcpy(to->data, from->data, from->len);
	return 0;
}

/* "@root/@file" into @buf. */
static int root_path(const struct ftk_tracemeta *m, char *buf, size_t len, const char *file)
{
	int n = snprintf(buf, len, "%s/%s", ftk_tracefs_root(m->t), file);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A file every file has: its failure is the reason. */
static int read_needed(struct ftk_tracemeta *m, const char *file, struct tm_text *x)
{
	char path[PATH_MAX];
	int ret;

	ret = root_path(m, path, sizeof(path), file);
	if (!ret)
		ret = ftk_read_file(path, &x->data, &x->len);
	if (ret)
		return ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, ret, "cannot read '%s': %s",
				      path, strerror(-ret));
	return 0;
}

/* A file a file may lack: missing or unreadable, it is stored empty (x->data NULL). */
static int read_optional(struct ftk_tracemeta *m, const char *path, struct tm_text *x)
{
	int ret = ftk_read_file(path, &x->data, &x->len);

	if (ret == -ENOENT || ret == -EACCES || ret == -EPERM) {
		pr_warn("cannot read '%s': stored empty\n", path);
		x->data = NULL;
		x->len = 0;
		return 0;
	}
	if (ret)
		return ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, ret, "cannot read '%s': %s",
				      path, strerror(-ret));
	return 0;
}

static int is_dir(const struct dirent *d)
{
	return d->d_type == DT_DIR && d->d_name[0] != '.';
}

/* The formats of system @s's events, in alphasort order; a vanished system has none. */
static int read_system(struct ftk_tracemeta *m, struct tm_system *s)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent **ev = NULL;
	struct tm_text *f;
	int n, i, ret = 0;

	snprintf(dir, sizeof(dir), "%s/events/%s", ftk_tracefs_root(m->t), s->name);
	n = scandir(dir, &ev, is_dir, alphasort);
	if (n < 0 && (errno == ENOENT || errno == ENODEV)) {
		s->read = true;	/* a dynamic event group removed meanwhile */
		return 0;
	}
	if (n < 0)
		return ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, -errno, "cannot read '%s': %s",
				      dir, strerror(errno));
	s->formats = calloc(n ? n : 1, sizeof(*s->formats));
	if (!s->formats)
		ret = -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s/format", dir, ev[i]->d_name);
		f = &s->formats[s->nr];
		ret = ftk_read_file(path, &f->data, &f->len);
		if (ret == -ENOENT || ret == -ENODEV || ret == -EACCES || ret == -EPERM) {
			ret = 0;	/* not an event, or one removed meanwhile */
			continue;
		}
		if (ret)
			ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, ret, "cannot read '%s': %s",
				       path, strerror(-ret));
		else
			s->nr++;
	}
	for (i = 0; i < n; i++)
		free(ev[i]);
	free(ev);
	s->read = !ret;
	return ret;
}

/* Whether the flags ask for system @name's formats now. */
static bool wanted(const struct ftk_tracemeta *m, const char *name)
{
	if (!strcmp(name, "ftrace") || !(m->flags & SOME))
		return true;
	if (!(m->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS))
		return false;	/* only those named: ftk_tracemeta_system() */
	return (m->on_unknown && !(m->flags & FTK_TRACEWRITE_SOME_SYSTEMS)) ||
	       ftk_list_has(m->on, name);
}

/* Read every system wanted and not read yet. */
static int read_wanted(struct ftk_tracemeta *m)
{
	int i, ret = 0;

	for (i = 0; i < m->nr_systems && !ret; i++)
		if (!m->systems[i].read && wanted(m, m->systems[i].name))
			ret = read_system(m, &m->systems[i]);
	return ret;
}

/* The systems of the events on in @t's set_event into m->on; unreadable: m->on_unknown. */
static int add_on(struct ftk_tracemeta *m, struct ftk_tracefs *t)
{
	char **events, **e, *colon;
	int ret;

	if (!(m->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS))
		return 0;
	ret = ftk_event_enabled(t, &events);
	for (e = events; !ret && e && *e; e++) {
		colon = strchr(*e, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (!ftk_list_has(m->on, *e))
			ret = ftk_list_add(&m->on, *e);
	}
	ftk_list_free(events);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		pr_debug("cannot list the events on (%s): every format is stored\n", strerror(-ret));
		m->on_unknown = true;
	}
	return 0;
}

/*
 * /proc/modules reduced to what moves kallsyms: each module's name, size,
 * state and address (not its use counts). "" without modules; NULL when
 * it cannot be read.
 */
static char *modules_sig(void)
{
	char *text, *line, *next, *f[6], *out, *o, *save;
	size_t len;
	int n;

	n = ftk_read_file("/proc/modules", &text, &len);
	if (n == -ENOENT)
		return strdup("");
	if (n)
		return NULL;
	out = malloc(len + 1);
	if (!out) {
		free(text);
		return NULL;
	}
	o = out;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		/* name size uses deps state address */
		for (n = 0; n < 6 && (f[n] = strtok_r(n ? NULL : line, " ", &save)); n++)
			;
		if (n < 6)
			continue;
		o += sprintf(o, "%s %s %s %s\n", f[0], f[1], f[4], f[5]);
	}
	*o = 0;
	free(text);
	return out;
}

/* Both read, and the same. */
static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The formats @prev read, where they are still current. */
static int reuse_formats(struct ftk_tracemeta *m, const struct ftk_tracemeta *prev)
{
	struct tm_system *s;
	int i, j, k, ret = 0;

	if (!prev || !same(m->events_sig, prev->events_sig))
		return 0;
	for (i = 0; i < m->nr_systems && !ret; i++) {
		s = &m->systems[i];
		for (j = 0; j < prev->nr_systems; j++)
			if (prev->systems[j].read && !strcmp(prev->systems[j].name, s->name))
				break;
		if (j == prev->nr_systems)
			continue;
		s->formats = calloc(prev->systems[j].nr ? prev->systems[j].nr : 1,
				    sizeof(*s->formats));
		if (!s->formats)
			return -ENOMEM;
		for (k = 0; k < prev->systems[j].nr && !ret; k++, s->nr++)
			ret = text_copy(&s->formats[k], &prev->systems[j].formats[k]);
		s->read = !ret;
	}
	return ret;
}

/* kallsyms, from @prev while /proc/modules reads the same; stored empty where unreadable. */
static int read_kallsyms(struct ftk_tracemeta *m, const struct ftk_tracemeta *prev)
{
	if (m->flags & FTK_TRACEWRITE_NO_KALLSYMS)
		return 0;
	m->modules_sig = modules_sig();
	if (prev && prev->kallsyms.data && same(m->modules_sig, prev->modules_sig))
		return text_copy(&m->kallsyms, &prev->kallsyms);
	return read_optional(m, "/proc/kallsyms", &m->kallsyms);
}

/*
 * x86-tsc stamps count cycles. The kernel tells user space how to turn
 * them into nanoseconds in a perf event's mmap page (time_mult and
 * time_shift, valid when cap_user_time is set), which is where trace-cmd
 * record takes its TSC2NSEC option from. Written here rather than through
 * the perf module: one dummy software event of our own, one page, no
 * counting. Where cap_user_time is clear (a TSC the kernel does not trust,
 * as on this project's TCG guest and some hosts), there is no conversion
 * to store and the file keeps cycles, as trace-cmd's does.
 */
static void tsc2nsec(struct ftk_tracemeta *m)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	int fd;

	if (m->tsc_mult)
		return;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		pr_debug("x86-tsc: no perf event (%s): stamps stay in cycles\n", strerror(errno));
		return;
	}
	pg = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		if (pg->cap_user_time && pg->time_mult && pg->time_shift <= 32) {
			m->tsc_mult = pg->time_mult;
			m->tsc_shift = pg->time_shift;
		} else {
			pr_debug("x86-tsc: the kernel gives no cycle to nanosecond conversion "
				 "(cap_user_time is clear): stamps stay in cycles\n");
		}
		munmap(pg, psz);
	}
	close(fd);
}

/* @t's selected clock and trace_clock text; TSC2NSEC for x86-tsc. */
static int read_clock(struct ftk_tracemeta *m, struct ftk_tracefs *t, char **file, char **clock)
{
	int ret = ftk_tracefs_read(t, "trace_clock", file);

	if (ret)
		return ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, ret, "%s",
				      ftk_tracefs_errmsg(t));
	*clock = ftk_tracefs_choice(*file);
	if (!*clock)
		return -ENOMEM;
	if (!strcmp(*clock, "x86-tsc"))
		tsc2nsec(m);
	return 0;
}

/* Every system under events/, in alphasort order (the order the file stores them in). */
static int list_systems(struct ftk_tracemeta *m)
{
	struct dirent **sys = NULL;
	char dir[PATH_MAX];
	int n, i, ret = 0;

	snprintf(dir, sizeof(dir), "%s/events", ftk_tracefs_root(m->t));
	n = scandir(dir, &sys, is_dir, alphasort);
	if (n < 0)
		return ftk_errmsg_set(&m->err, FTK_ERRMSG_KEEP, NULL, -errno, "cannot read '%s': %s",
				      dir, strerror(errno));
	m->systems = calloc(n ? n : 1, sizeof(*m->systems));
	if (!m->systems)
		ret = -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		m->systems[i].name = strdup(sys[i]->d_name);
		if (!m->systems[i].name)
			ret = -ENOMEM;
		else
			m->nr_systems++;
	}
	for (i = 0; i < n; i++)
		free(sys[i]);
	free(sys);
	return ret;
}

/**
 * ftk_tracemeta_new() - read what a trace.dat stores besides the CPU data
 * @t: the tracefs handle of the top buffer recorded (its root gives the
 *     formats, printk formats and saved_cmdlines; its directory the trace
 *     clock, page size and, with FTK_TRACEWRITE_ENABLED_SYSTEMS, the
 *     events on); kept, not owned, until ftk_tracemeta_free()
 * @opts: the writer's options, for their flags (which formats, and
 *	  whether kallsyms is read); NULL for every system and kallsyms
 * @prev: an earlier read (the recording's start), or NULL: its formats of
 *	  a system and its kallsyms are taken while still current
 *	  (available_events, /proc/modules read the same); with
 *	  FTK_TRACEWRITE_ENABLED_SYSTEMS its systems on are stored too
 * @out: receives the metadata, also on failure for ftk_tracemeta_errmsg()
 *	 (NULL only when out of memory)
 *
 * The one place a trace.dat's metadata is read: header_page, header_event,
 * the ftrace system's formats and the other systems' as @opts asks,
 * kallsyms (unless FTK_TRACEWRITE_NO_KALLSYMS), printk_formats,
 * saved_cmdlines, trace_clock and the ring buffer's page size, and for
 * x86-tsc the kernel's cycle to nanosecond conversion. ftk_tracewrite_new()
 * writes from it without reading anything. Read it after the capture
 * stopped (saved_cmdlines is then complete); kallsyms, printk formats or
 * saved_cmdlines that cannot be read are stored empty, with a warning.
 *
 * Return: 0 and metadata to free with ftk_tracemeta_free(), or a negative
 * errno with the reason (which file) in ftk_tracemeta_errmsg().
 */
FTK_API int ftk_tracemeta_new(struct ftk_tracefs *t, const struct ftk_tracewrite_opts *opts,
			      const struct ftk_tracemeta *prev, struct ftk_tracemeta **out)
{
	struct ftk_tracewrite_opts o = { 0 };
	struct ftk_tracemeta *m;
	char path[PATH_MAX], **s;
	int ret;

	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	*out = m = calloc(1, sizeof(*m));
	if (!m)
		return ftk_err(-ENOMEM);
	m->t = t;
	m->flags = o.flags;
	ret = read_clock(m, t, &m->clock_file, &m->clock);
	if (ret)
		return ftk_err(ret);
	m->page_size = (uint32_t)ftk_tracefs_page_size(t);
	ret = read_needed(m, "events/header_page", &m->header_page);
	if (!ret)
		ret = read_needed(m, "events/header_event", &m->header_event);
	if (!ret)
		ret = list_systems(m);
	if (!ret)
		ret = add_on(m, t);
	if (!ret && prev && (prev->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS) &&
	    (m->flags & FTK_TRACEWRITE_ENABLED_SYSTEMS))
		for (s = prev->on; !ret && s && *s; s++)
			if (!ftk_list_has(m->on, *s))
				ret = ftk_list_add(&m->on, *s);
	if (!ret && !root_path(m, path, sizeof(path), "available_events") &&
	    ftk_read_file(path, &m->events_sig, NULL))
		m->events_sig = NULL;
	if (!ret)
		ret = reuse_formats(m, prev);
	if (!ret)
		ret = read_wanted(m);
	if (!ret)
		ret = read_kallsyms(m, prev);
	if (!ret && !(ret = root_path(m, path, sizeof(path), "printk_formats")))
		ret = read_optional(m, path, &m->printk);
	if (!ret && !(ret = root_path(m, path, sizeof(path), "saved_cmdlines")))
		ret = read_optional(m, path, &m->cmdlines);
	if (ret == -ENOMEM && !m->err.text[0])
		ftk_errmsg_set(&m->err, 0, NULL, ret, "out of memory");
	return ftk_err(ret);
}

/**
 * ftk_tracemeta_buffer() - read what another buffer of the file needs
 * @m: the metadata
 * @name: the buffer's name in the file (ftk_tracewrite_buffer()); not ""
 * @t: the instance it was recorded in (its trace clock and page size are
 *     read, and with FTK_TRACEWRITE_ENABLED_SYSTEMS the formats of the
 *     systems it has an event on)
 *
 * Return: 0, or -EINVAL (an empty name, one already used), -ENOMEM, or the
 * error reading @t's trace_clock or a format, with the reason in
 * ftk_tracemeta_errmsg().
 */
FTK_API int ftk_tracemeta_buffer(struct ftk_tracemeta *m, const char *name, struct ftk_tracefs *t)
{
	struct tm_buffer *nb, *x;
	int i, ret;

	if (!*name)
		return ftk_err(-EINVAL);
	for (i = 0; i < m->nr_bufs; i++)
		if (!strcmp(m->bufs[i].name, name))
			return ftk_err(-EINVAL);
	nb = realloc(m->bufs, (m->nr_bufs + 1) * sizeof(*nb));
	if (!nb)
		return ftk_err(-ENOMEM);
	m->bufs = nb;
	x = &nb[m->nr_bufs];
	memset(x, 0, sizeof(*x));
	x->name = strdup(name);
	ret = x->name ? read_clock(m, t, &x->clock_file, &x->clock) : -ENOMEM;
	if (ret) {
		free(x->name);
		free(x->clock_file);
		free(x->clock);
		return ftk_err(ret);
	}
	x->page_size = (uint32_t)ftk_tracefs_page_size(t);
	m->nr_bufs++;
	ret = add_on(m, t);
	if (!ret)
		ret = read_wanted(m);
	return ftk_err(ret);
}

/**
 * ftk_tracemeta_system() - read an event system's formats
 * @m: the metadata
 * @system: the system ("sched")
 *
 * For FTK_TRACEWRITE_SOME_SYSTEMS, with ftk_tracewrite_system() naming it
 * to the writer; a system tracefs does not have is left out.
 *
 * Return: 0, or a negative errno with the reason in ftk_tracemeta_errmsg().
 */
FTK_API int ftk_tracemeta_system(struct ftk_tracemeta *m, const char *system)
{
	int i;

	for (i = 0; i < m->nr_systems; i++)
		if (!strcmp(m->systems[i].name, system) && !m->systems[i].read)
			return ftk_err(read_system(m, &m->systems[i]));
	return 0;
}

/** ftk_tracemeta_errmsg() - the last failure's text ("cannot read 'PATH': why"); owned by @m */
FTK_API const char *ftk_tracemeta_errmsg(const struct ftk_tracemeta *m)
{
	return m->err.text;
}

/** ftk_tracemeta_free() - free the metadata (NULL is fine) */
FTK_API void ftk_tracemeta_free(struct ftk_tracemeta *m)
{
	int i, j;

	if (!m)
		return;
	for (i = 0; i < m->nr_systems; i++) {
		for (j = 0; j < m->systems[i].nr; j++)
			text_release(&m->systems[i].formats[j]);
		free(m->systems[i].formats);
		free(m->systems[i].name);
	}
	free(m->systems);
	for (i = 0; i < m->nr_bufs; i++) {
		free(m->bufs[i].name);
		free(m->bufs[i].clock_file);
		free(m->bufs[i].clock);
	}
	free(m->bufs);
	ftk_list_free(m->on);
	text_release(&m->header_page);
	text_release(&m->header_event);
	text_release(&m->kallsyms);
	text_release(&m->printk);
	text_release(&m->cmdlines);
	free(m->clock_file);
	free(m->clock);
	free(m->events_sig);
	free(m->modules_sig);
	free(m);
}
