// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-live: a live ring buffer read as if it were a trace file. The
 * formats come from the running system's events/, the data from
 * per_cpu/cpuN/trace_pipe_raw; the tracing directory is the one
 * ftk_tracefs_find() finds, and the instance passes ftk_name_check().
 *
 * A kernel has a couple of thousand events, and reading and parsing all
 * their formats was most of a live tool's start-up. With FTK_TRACEFILE_LAZY only the ftrace system's
 * and the enabled events' formats are parsed at open; any other event's
 * is parsed on its first record, as a lazy trace file's are.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <tracefs/tracefs.h>

#include "comm-local.h"
#include "tep-side-local.h"
#include "internal.h"
#include "tracefile-read-local.h"

/* ---------------------------------------------------------------- live buffers */

static char *read_text(const char *dir, const char *file)
{
	char *path, *buf = NULL;
	size_t len;
	int ret;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return NULL;
	ret = ftk_read_file(path, &buf, &len);
	free(path);
	return ret < 0 ? NULL : buf;
}

/* events/header_page: the layout of a sub-buffer's header. */
static int live_header(struct ftk_tracefile *tf)
{
	char path[4200], *txt;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/events/header_page", tf->live_root);
	ret = ftk_read_file(path, &txt, &len);
	if (ret < 0)
		return ret;
	ret = tep_parse_header_page(tf->tep, txt, len, sizeof(long)) ? -EINVAL : 0;
	free(txt);
	return ret;
}

/* Parse the format of @sys:@name; 0, or a negative errno when it cannot be read or parsed. */
static int live_parse(struct ftk_tracefile *tf, const char *sys, const char *name)
{
	char path[4400], *txt;
	size_t len;
	int ret;

	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", tf->live_root, sys,
		     name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ftk_read_file(path, &txt, &len);
	if (ret < 0)
		return ret;
	ret = tep_parse_event(tf->tep, txt, len, sys) ? -EINVAL : 0;
	free(txt);
	return ret;
}

/*
 * Call @fn for each event under events/ (of system @sys only, unless
 * NULL), in directory order. Return: 0, or a negative errno when
 * events/ cannot be read.
 */
static int live_walk(struct ftk_tracefile *tf, const char *sys,
		     void (*fn)(struct ftk_tracefile *tf, const char *sys, const char *name))
{
	struct dirent *s, *e;
	char path[4200];
	DIR *top, *sd;

	snprintf(path, sizeof(path), "%s/events", tf->live_root);
	top = opendir(path);
	if (!top)
		return -errno;
	while ((s = readdir(top))) {
		if (s->d_name[0] == '.' || (s->d_type != DT_DIR && s->d_type != DT_UNKNOWN) ||
		    (sys && strcmp(s->d_name, sys)))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tf->live_root, s->d_name);
		sd = opendir(path);
		if (!sd)
			continue;
		while ((e = readdir(sd)))
			if (e->d_name[0] != '.' && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
				fn(tf, s->d_name, e->d_name);
		closedir(sd);
	}
	closedir(top);
	return 0;
}

/* A format that does not parse is left out, as libtracefs leaves it out. */
static void walk_parse(struct ftk_tracefile *tf, const char *sys, const char *name)
{
	if (!tep_find_event_by_name(tf->tep, sys, name))
		live_parse(tf, sys, name);
}

static int live_parse_all(struct ftk_tracefile *tf)
{
	return live_walk(tf, NULL, walk_parse);
}

static void live_ids_free(struct ftk_tracefile *tf)
{
	int i;

	for (i = 0; i < tf->nr_live_ids; i++) {
		free(tf->live_ids[i].sys);
		free(tf->live_ids[i].name);
	}
	free(tf->live_ids);
	tf->live_ids = NULL;
	tf->nr_live_ids = 0;
}

/* Note the id of @sys:@name (events/SYS/NAME/id) in tf->live_ids. */
static void walk_id(struct ftk_tracefile *tf, const char *sys, const char *name)
{
	char path[4400], *txt, *end;
	struct tf_live_id *n;
	size_t len;
	long id;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tf->live_root, sys, name);
	if (tf->nr_live_ids < 0 || ftk_read_file(path, &txt, &len) < 0)
		return;
	id = strtol(txt, &end, 10);
	free(txt);
	if (end == txt || id < 0 || id > 65535)
		return;
	if (!(tf->nr_live_ids & (tf->nr_live_ids - 1))) {
		n = realloc(tf->live_ids, (tf->nr_live_ids ? 2 * tf->nr_live_ids : 256) *
			    sizeof(*n));
		if (!n)
			goto nomem;
		tf->live_ids = n;
	}
	n = &tf->live_ids[tf->nr_live_ids];
	n->id = (int)id;
	n->sys = strdup(sys);
	n->name = strdup(name);
	if (!n->sys || !n->name) {
		free(n->sys);
		free(n->name);
		goto nomem;
	}
	tf->nr_live_ids++;
	return;
nomem:
	live_ids_free(tf);
	tf->nr_live_ids = -1;
}

/*
 * The formats of the events enabled in the instance now (its set_event,
 * "system:event" a line) that are not parsed yet: the ones a tool reads
 * are enabled before it opens the buffer, and the rest wait for their
 * first record (live_fmt_load()).
 */
static void live_parse_enabled(struct ftk_tracefile *tf)
{
	char *txt, *line, *save, *colon;

	txt = read_text(tf->path, "set_event");
	if (!txt)
		return;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		if (!tep_find_event_by_name(tf->tep, line, colon + 1))
			live_parse(tf, line, colon + 1);
	}
	free(txt);
}

/*
 * The format of a record's event @id, on its first record (record_hook()):
 * an event enabled since the buffer was opened is in set_event; one that
 * is not (disabled again, or made to record by a trigger) is found by its
 * id among all events, read once, on the first such miss.
 */
static int live_fmt_load(struct ftk_tracefile *tf, int id)
{
	int i;

	if (tep_find_event(tf->tep, id))
		return 0;
	live_parse_enabled(tf);
	if (tep_find_event(tf->tep, id))
		return 0;
	if (!tf->live_ids && !tf->nr_live_ids && live_walk(tf, NULL, walk_id) < 0)
		tf->nr_live_ids = -1;
	for (i = 0; i < tf->nr_live_ids; i++)
		if (tf->live_ids[i].id == id)
			return live_parse(tf, tf->live_ids[i].sys, tf->live_ids[i].name);
	return -ENOENT;
}

int tf_live_comms_reload(struct ftk_tracefile *tf)
{
	char *txt;

	if (!tf->live_root || !(txt = read_text(tf->live_root, "saved_cmdlines")))
		return -ENOENT;
	return ftk_comms_parse(tf->side->comms, txt);
}

struct tep_event *tf_live_event(struct ftk_tracefile *tf, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tf->tep, sys, name);

	if (!ev && tf->live_root && !live_parse(tf, sys, name))
		ev = tep_find_event_by_name(tf->tep, sys, name);
	return ev;
}

static void live_release(struct ftk_tracefile *tf)
{
	live_ids_free(tf);
	free(tf->live_root);
	tf->live_root = NULL;
}

static const struct tf_live_ops live_ops = {
	.fmt_load	= live_fmt_load,
	.parse_all	= live_parse_all,
	.release	= live_release,
};

/**
 * ftk_tracefile_open_live() - read a live ring buffer as if it were a file
 * @tracing_dir: the tracefs mount, or NULL for $FTK_TRACEFS, else the mounted tracefs
 * @instance: the instance, or NULL for the top buffer
 * @flags: FTK_TRACEFILE_NO_PLUGINS to skip libtraceevent's print plugins;
 *	   FTK_TRACEFILE_LAZY to parse at open only the formats of the ftrace
 *	   system and of the events enabled in the instance (its set_event),
 *	   and any other event's on its first record: look events up by name
 *	   only after enabling them
 * @tfp: receives the handle, also on failure, for ftk_tracefile_errmsg()
 *
 * Event formats, saved cmdlines, printk formats and kallsyms come from the
 * running system (kallsyms read from /proc/kallsyms on the first address
 * looked up, as most live tools print no kernel symbol); each CPU's stream reads per_cpu/cpuN/trace_pipe_raw
 * without blocking and ends when that CPU's buffer is empty. Reading
 * trace_pipe_raw CONSUMES the events, as trace-cmd extract and show -p do:
 * there is no way to read raw pages and leave them in the buffer.
 *
 * Return: 0, or a negative code with the reason in ftk_tracefile_errmsg().
 */
FTK_API int ftk_tracefile_open_live(const char *tracing_dir, const char *instance,
				    unsigned int flags, struct ftk_tracefile **tfp)
{
	const char *root = tracing_dir ? tracing_dir : ftk_tracefs_find();
	struct ftk_tracefile *tf;
	struct tf_buffer *b;
	char dir[4096], path[4200], *txt;
	long sub = sysconf(_SC_PAGESIZE);
	int cpu, ncpu, fd, ret;

	*tfp = NULL;
	if (root && (strlen(root) > 3000 || (instance && strlen(instance) > 255)))
		return ftk_err(-ENAMETOOLONG);
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return ftk_err(-ENOMEM);
	*tfp = tf;
	tf->fd = -1;
	tf->live = 1;
	tf->live_ops = &live_ops;
	tf->version = 0;
	tf->comp_name = strdup("none");
	if (!root)
		return ftk_err(tf_fail(tf, -ENOENT, "tracefs is not mounted"));
	if (instance && ftk_name_check(instance)) {
		tf->path = strdup(instance);
		return ftk_err(tf_fail(tf, -EINVAL,
				       "not an instance name: empty, '.', '..', a '/' or a control character"));
	}
	if (instance)
		snprintf(dir, sizeof(dir), "%s/instances/%s", root, instance);
	else
		snprintf(dir, sizeof(dir), "%s", root);
	tf->path = strdup(dir);
	if (!tf->path)
		return ftk_err(-ENOMEM);
	if (access(dir, R_OK) < 0)
		return ftk_err(tf_fail(tf, -errno, "cannot open: %s", strerror(errno)));
	tf->live_root = strdup(root);
	tf->tep = tep_alloc();
	if (!tf->live_root || !tf->tep || !(tf->side = ftk_tep_side_new(tf->tep)))
		return ftk_err(-ENOMEM);
	ret = live_header(tf);
	if (!ret && (flags & FTK_TRACEFILE_LAZY)) {
		/* the ftrace system's few formats: the common fields, trace_marker's print */
		ret = live_walk(tf, "ftrace", walk_parse);
		live_parse_enabled(tf);
		tf->lazy = 1;
	} else if (!ret) {
		ret = live_parse_all(tf);
	}
	if (ret < 0)
		return ftk_err(tf_fail(tf, ret, "cannot read the event formats of %s: %s", root,
				       strerror(-ret)));
	tf->long_size = tep_get_header_page_size(tf->tep);
	if (tf->long_size != 4)
		tf->long_size = 8;
	tf->big_endian = tep_is_local_bigendian(tf->tep);
	tf->page_size = sub;
	if ((txt = read_text(dir, "buffer_subbuf_size_kb"))) {
		long kb = strtol(txt, NULL, 10);

		if (kb > 0 && kb * 1024 <= (1L << 27))
			tf->page_size = kb * 1024;
		free(txt);
	}
	if (!(flags & FTK_TRACEFILE_NO_PLUGINS))
		tf->plugins = tep_load_plugins(tf->tep);
	if ((txt = read_text(root, "saved_cmdlines")) &&
	    (ret = ftk_comms_parse(tf->side->comms, txt)))
		return ftk_err(tf_fail(tf, ret, "cannot read %s/saved_cmdlines: %s", root,
				       strerror(-ret)));
	if ((txt = read_text(root, "printk_formats"))) {
		keep_colon_lines(txt);
		tep_parse_printk_formats(tf->tep, txt);
		ftk_printk_keep(tf->tep, txt);
		free(txt);
	}
	if (tf_live_kallsyms_later(tf))
		return ftk_err(-ENOMEM);
	if ((txt = read_text(dir, "trace_clock"))) {
		tf->top_clock = clock_name(txt, strlen(txt));
		free(txt);
	}
	b = new_buffer(tf, instance ? instance : "", 0);
	if (!b)
		return ftk_err(-ENOMEM);
	b->clock = tf->top_clock ? strdup(tf->top_clock) : NULL;
	b->page_size = tf->page_size;
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	b->cpus = calloc(ncpu > 0 ? ncpu : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return ftk_err(-ENOMEM);
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, cpu);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return ftk_err(tf_fail(tf, -errno, "cannot open '%s': %s", path,
					       strerror(errno)));
		}
		b->cpus[b->nr_cpus++] = (struct tf_cpu){ .cpu = cpu, .fd = fd };
	}
	tf->cpus = ncpu;
	tep_set_cpus(tf->tep, ncpu);
	if (tf->lazy && tf_lazy_start(tf))
		return ftk_err(-ENOMEM);
	return 0;
}
