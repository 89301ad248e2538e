// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-live: a live ring buffer read as if it were a trace file. The
 * formats come from the running system through libtracefs, the data from
 * per_cpu/cpuN/trace_pipe_raw; the tracing directory is the one
 * ftk_tracefs_find() finds, and the instance passes ftk_name_check().
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

/*
 * The event formats under @root/events, as tracefs_local_events() reads
 * them, but without the kallsyms, saved_cmdlines and printk_formats that
 * it always parses too (nothing skips its load_mappings()): kallsyms are
 * most of that time and most live tools print no kernel symbol, so they
 * are read on the first look-up (tf_live_kallsyms_later()); the other two
 * are read by ftk_tracefile_open_live(). A format that does not parse is
 * left out, as libtracefs leaves it out.
 */
static struct tep_handle *live_events(const char *root)
{
	struct tep_handle *tep = tep_alloc();
	struct dirent *s, *e;
	char path[4200], *txt;
	DIR *top, *sd;
	size_t len;
	int ret;

	if (!tep)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	ret = ftk_read_file(path, &txt, &len);
	if (ret < 0)
		goto fail;
	ret = tep_parse_header_page(tep, txt, len, sizeof(long)) ? -EINVAL : 0;
	free(txt);
	if (ret < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/events", root);
	top = opendir(path);
	if (!top) {
		ret = -errno;
		goto fail;
	}
	while ((s = readdir(top))) {
		if (s->d_name[0] == '.' || (s->d_type != DT_DIR && s->d_type != DT_UNKNOWN))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, s->d_name);
		sd = opendir(path);
		if (!sd)
			continue;
		while ((e = readdir(sd))) {
			if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, s->d_name,
				 e->d_name);
			if (ftk_read_file(path, &txt, &len) < 0)
				continue;
			tep_parse_event(tep, txt, len, s->d_name);
			free(txt);
		}
		closedir(sd);
	}
	closedir(top);
	return tep;
fail:
	tep_free(tep);
	errno = -ret;
	return NULL;
}

/**
 * ftk_tracefile_open_live() - read a live ring buffer as if it were a file
 * @tracing_dir: the tracefs mount, or NULL for $FTK_TRACEFS, else the mounted tracefs
 * @instance: the instance, or NULL for the top buffer
 * @flags: FTK_TRACEFILE_NO_PLUGINS to skip libtraceevent's print plugins
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
	int cpu, ncpu, fd;

	*tfp = NULL;
	if (root && (strlen(root) > 3000 || (instance && strlen(instance) > 255)))
		return ftk_err(-ENAMETOOLONG);
	tf = calloc(1, sizeof(*tf));
	if (!tf)
		return ftk_err(-ENOMEM);
	*tfp = tf;
	tf->fd = -1;
	tf->live = 1;
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
	tf->tep = live_events(root);
	if (!tf->tep)
		return ftk_err(tf_fail(tf, -errno ? -errno : -EIO,
				       "cannot read the event formats of %s", root));
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
	if ((txt = read_text(root, "saved_cmdlines"))) {
		tep_parse_saved_cmdlines(tf->tep, txt);
		free(txt);
	}
	if ((txt = read_text(root, "printk_formats"))) {
		keep_colon_lines(txt);
		tep_parse_printk_formats(tf->tep, txt);
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
	return 0;
}
