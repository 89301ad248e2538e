// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * caps: probe what the running kernel allows by trying it.
 *
 * Whatever can be tried in an instance is tried in a scratch instance
 * ("ftkit-caps-PID") that is removed afterwards; what only exists at the
 * top level (tracers an instance lacks, dynamic events, the stack tracer)
 * is tried there and put back through the handle's restore journal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <ftkit/caps.h>
#include <ftkit/instance.h>
#include <ftkit/lattrace.h>

#include "internal.h"
#include "tracefs-local.h"

struct cap_entry {
	struct ftk_cap	pub;
	char		*value;
	char		*reason;
};

struct ftk_caps {
	struct cap_entry	*v;
	size_t			n;
	/* Probe state. */
	struct ftk_tracefs	*top;
	struct ftk_tracefs	*scratch;
	char			group[64];	/* for dynamic events: ftkit_caps_PID */
	char			event[128];	/* an event to try things on: "sched/sched_switch" */
	int			nomem;
};

static void add(struct ftk_caps *c, const char *group, const char *name, int usable,
		const char *value, const char *reasonfmt, ...)
	__attribute__((format(printf, 6, 7)));

static void add(struct ftk_caps *c, const char *group, const char *name, int usable,
		const char *value, const char *reasonfmt, ...)
{
	struct cap_entry *e, *nv;
	va_list ap;

	nv = realloc(c->v, (c->n + 1) * sizeof(*nv));
	if (!nv) {
		c->nomem = 1;
		return;
	}
	c->v = nv;
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->value = ftk_strdup(value);
	if (!usable && reasonfmt) {
		va_start(ap, reasonfmt);
		if (vasprintf(&e->reason, reasonfmt, ap) < 0)
			e->reason = NULL;
		va_end(ap);
	}
	if (!usable && !e->reason)
		e->reason = strdup("not available");
	e->pub.name = name;
	e->pub.group = group;
	e->pub.usable = usable;
}

/* Fill in the public pointers once the array stops moving. */
static void finish(struct ftk_caps *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		c->v[i].pub.value = c->v[i].value;
		c->v[i].pub.reason = c->v[i].reason;
	}
}

static char *read_str(struct ftk_tracefs *t, const char *file)
{
	char *s;

	if (ftk_tracefs_read(t, file, &s))
		return NULL;
	return ftk_strstrip(s);
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; p && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '[') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == ']'))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ tracefs basics */

static void probe_cpus(struct ftk_caps *c)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%ld online, %ld configured", sysconf(_SC_NPROCESSORS_ONLN),
		 sysconf(_SC_NPROCESSORS_CONF));
	add(c, "system", "cpus", 1, buf, NULL);
}

static void probe_kernel(struct ftk_caps *c)
{
	struct utsname u;
	char buf[256];

	if (uname(&u) == 0) {
		snprintf(buf, sizeof(buf), "%s %s", u.release, u.machine);
		add(c, "system", "kernel", 1, buf, NULL);
	}
}

static void probe_lockdown(struct ftk_caps *c, const char *eperm_seen)
{
	char *s = NULL, *mode;

	if (ftk_read_file("/sys/kernel/security/lockdown", &s, NULL) == 0) {
		mode = ftk_tracefs_choice(s);
		if (mode && !strcmp(mode, "none"))
			add(c, "system", "lockdown", 1, "none", NULL);
		else
			add(c, "system", "lockdown", 0, mode ? mode : "?",
			    "/sys/kernel/security/lockdown says %s", mode ? mode : "?");
		free(mode);
		free(s);
		return;
	}
	if (eperm_seen)
		add(c, "system", "lockdown", 0, "unknown",
		    "/sys/kernel/security/lockdown is absent, but %s failed with EPERM as root",
		    eperm_seen);
	else
		add(c, "system", "lockdown", 1, "none seen",
		    NULL);
}

static void probe_clock(struct ftk_caps *c)
{
	char *s = read_str(c->top, "trace_clock"), *cur;

	if (!s) {
		add(c, "tracefs", "trace_clock", 0, NULL, "%s", ftk_tracefs_errmsg(c->top));
		return;
	}
	cur = ftk_tracefs_choice(s);
	add(c, "tracefs", "trace_clock", 1, cur, NULL);
	free(cur);
	/* The list without brackets. */
	for (cur = s; *cur; cur++)
		if (*cur == '[' || *cur == ']')
			memmove(cur, cur + 1, strlen(cur));
	add(c, "tracefs", "trace_clocks", 1, s, NULL);
	free(s);
}

static void probe_buffers(struct ftk_caps *c)
{
	char *s, buf[64];

	s = read_str(c->top, "buffer_size_kb");
	if (s) {
		snprintf(buf, sizeof(buf), "%s KiB per CPU", s);
		add(c, "tracefs", "buffer_size", 1, buf, NULL);
		free(s);
	} else {
		add(c, "tracefs", "buffer_size", 0, NULL, "%s", ftk_tracefs_errmsg(c->top));
	}
	s = read_str(c->top, "buffer_subbuf_size_kb");
	if (s) {
		snprintf(buf, sizeof(buf), "%s KiB", s);
		add(c, "tracefs", "subbuf_size", 1, buf, NULL);
		free(s);
	} else {
		snprintf(buf, sizeof(buf), "%ld KiB (page size)", sysconf(_SC_PAGESIZE) / 1024);
		add(c, "tracefs", "subbuf_size", 0, buf,
		    "buffer_subbuf_size_kb is absent (kernel before 6.8): sub-buffers are pages");
	}
}

/* Try a write in @t, and optionally an undo write; record the result. */
static int try_write(struct ftk_caps *c, struct ftk_tracefs *t, const char *group,
		     const char *name, const char *file, const char *val, const char *undo,
		     int append)
{
	int ret;

	ret = append ? ftk_tracefs_append(t, file, val) : ftk_tracefs_write(t, file, val);
	if (ret) {
		add(c, group, name, 0, NULL, "%s", ftk_tracefs_errmsg(t));
		return ret;
	}
	if (undo)
		append ? ftk_tracefs_append(t, file, undo) : ftk_tracefs_write(t, file, undo);
	add(c, group, name, 1, NULL, NULL);
	return 0;
}

static void probe_instances(struct ftk_caps *c)
{
	char name[64];
	int ret;

	ret = ftk_instance_name("caps", name, sizeof(name));
	if (!ret)
		ret = ftk_tracefs_open(c->top->root, name, FTK_TRACEFS_CREATE, &c->scratch);
	if (ret) {
		char path[PATH_MAX], why[128];

		snprintf(path, sizeof(path), "instances/%s", name);
		add(c, "tracefs", "instances", 0, NULL, "%s: mkdir: %s", path,
		    ftk_strerror(ret, why, sizeof(why)));
		c->scratch = NULL;
		return;
	}
	add(c, "tracefs", "instances", 1, NULL, NULL);
}

/* The handle to try instance-able things in: the scratch instance, else the top. */
static struct ftk_tracefs *work(struct ftk_caps *c)
{
	return c->scratch ? c->scratch : c->top;
}

static void probe_events(struct ftk_caps *c)
{
	struct ftk_tracefs *t = work(c);
	char *list, *line, file[256];
	size_t n = 0;

	list = read_str(c->top, "available_events");
	if (!list) {
		add(c, "events", "events", 0, NULL, "%s", ftk_tracefs_errmsg(c->top));
		return;
	}
	for (line = list; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		n++;
	if (strstr(list, "sched:sched_switch\n") || !strncmp(list, "sched:sched_switch", 18))
		strcpy(c->event, "sched/sched_switch");
	else if (n) {
		size_t len = strcspn(list, "\n");

		snprintf(c->event, sizeof(c->event), "%.*s", (int)len, list);
		*strchr(c->event, ':') = '/';
	}
	free(list);
	if (!c->event[0]) {
		add(c, "events", "events", 0, "0", "available_events is empty");
		return;
	}
	snprintf(file, sizeof(file), "events/%s/enable", c->event);
	if (try_write(c, t, "events", "events", file, "1", "0", 0) == 0) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%zu", n);
		free(c->v[c->n - 1].value);
		c->v[c->n - 1].value = strdup(buf);
	}
	snprintf(file, sizeof(file), "events/%s/filter", c->event);
	try_write(c, t, "events", "filters", file, "common_pid != 0", "0", 0);
	/*
	 * A trigger soft-enables its event, so it fires while it is set: try
	 * traceon, which changes nothing where tracing is on. (A traceoff here
	 * would turn the buffer off, and the marker probe after it would fail
	 * with EBADF.)
	 */
	snprintf(file, sizeof(file), "events/%s/trigger", c->event);
	try_write(c, t, "events", "triggers", file, "traceon", "!traceon", 1);
	if (ftk_tracefs_exists(c->top, "set_event_notrace_pid"))
		add(c, "events", "notrace_pid", 1, NULL, NULL);
	else
		add(c, "events", "notrace_pid", 0, NULL,
		    "set_event_notrace_pid is absent (kernel before 5.8)");
}

/* Whether tracefs's README documents @what: it lists the features built in. */
static int readme_has(struct ftk_caps *c, const char *what)
{
	char *s = read_str(c->top, "README");
	int ret = s && strstr(s, what);

	free(s);
	return ret;
}

static void probe_hist(struct ftk_caps *c)
{
	char file[256];

	if (!c->event[0]) {
		add(c, "events", "hist_triggers", 0, NULL, "no event to try it on");
		return;
	}
	snprintf(file, sizeof(file), "events/%s/trigger", c->event);
	if (try_write(c, work(c), "events", "hist_triggers", file, "hist:keys=common_pid",
		      "!hist:keys=common_pid", 1) == -EINVAL && !readme_has(c, "hist:")) {
		struct cap_entry *e = &c->v[c->n - 1];
		char *r;

		if (asprintf(&r, "%s (kernel built without CONFIG_HIST_TRIGGERS)", e->reason) > 0) {
			free(e->reason);
			e->reason = r;
		}
	}
}

static void probe_markers(struct ftk_caps *c)
{
	struct ftk_tracefs *t = work(c);
	char path[PATH_MAX], raw[16];
	uint32_t id = 0x66746b;		/* "ftk" */
	int ret, tries;

	/*
	 * EBADF means the ring buffer refused the reservation because its
	 * recording is off for a moment (a resize or reset by someone else).
	 */
	for (tries = 0; tries < 3; tries++) {
		ret = ftk_tracefs_write(t, "trace_marker", "ftkit caps probe\n");
		if (ret != -EBADF)
			break;
		usleep(10000);
	}
	if (ret)
		add(c, "markers", "trace_marker", 0, NULL, "%s", t->errmsg);
	else
		add(c, "markers", "trace_marker", 1, NULL, NULL);
	memcpy(raw, &id, 4);
	memcpy(raw + 4, "probe", 5);
	ftk_tracefs_path(t, "trace_marker_raw", path, sizeof(path));
	ret = ftk_write_file(path, 0, raw, 9);
	if (ret)
		add(c, "markers", "trace_marker_raw", 0, NULL, "%s",
		    (ftk_tracefs_fail(t, "trace_marker_raw", "write", ret), t->errmsg));
	else
		add(c, "markers", "trace_marker_raw", 1, NULL, NULL);
}

static void probe_raw(struct ftk_caps *c)
{
	struct ftk_tracefs *t = work(c);
	char path[PATH_MAX], page[64];
	ssize_t r;
	int fd;

	ftk_tracefs_path(t, "per_cpu/cpu0/trace_pipe_raw", path, sizeof(path));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ftk_tracefs_fail(t, path, "open", -errno);
		add(c, "tracefs", "raw_buffers", 0, NULL, "%s", t->errmsg);
		return;
	}
	/* An empty buffer answers EAGAIN; the read itself is what lockdown would refuse. */
	r = read(fd, page, sizeof(page));
	if (r < 0 && errno != EAGAIN && errno != EINVAL) {
		ftk_tracefs_fail(t, path, "read", -errno);
		add(c, "tracefs", "raw_buffers", 0, NULL, "%s", t->errmsg);
	} else {
		add(c, "tracefs", "raw_buffers", 1, NULL, NULL);
	}
	close(fd);
}

static void probe_snapshot(struct ftk_caps *c)
{
	struct ftk_tracefs *t = work(c);

	if (!ftk_tracefs_exists(t, "snapshot")) {
		add(c, "tracers", "snapshot", 0, NULL,
		    "snapshot is absent (kernel built without CONFIG_TRACER_SNAPSHOT)");
		return;
	}
	/* 1 allocates and takes a snapshot, 0 frees it again. */
	try_write(c, t, "tracers", "snapshot", "snapshot", "1", "0", 0);
}

/*
 * Setting a function tracer makes ftrace patch every traceable function: that
 * takes seconds under emulation (15 s for function_graph in the test VM, and
 * every `ftinfo --need` probes). While probing, filter on one function when
 * no filter is set: the write to current_tracer answers the same. Returns 1
 * when it narrowed the filter, which the caller then clears again.
 */
static int narrow_filter(struct ftk_tracefs *t, const char *file)
{
	char *cur = read_str(t, file);
	int narrowed = 0;

	if (cur && strstr(cur, "all functions enabled"))
		narrowed = !ftk_tracefs_write(t, file, "schedule");
	free(cur);
	return narrowed;
}

/*
 * Set a tracer and put nop back. In the scratch instance if it offers the
 * tracer; else at the top level, only when nop is set there, since
 * changing tracers resets the top-level buffer's tracer state.
 */
static int probe_tracer(struct ftk_caps *c, const char *tracer, char **eperm)
{
	struct ftk_tracefs *t = c->top;
	char *avail, *cur = NULL;
	int ret, narrowed;

	avail = c->scratch ? read_str(c->scratch, "available_tracers") : NULL;
	if (avail && has_word(avail, tracer)) {
		t = c->scratch;
	} else {
		free(avail);
		avail = read_str(c->top, "available_tracers");
		if (!avail || !has_word(avail, tracer)) {
			add(c, "tracers", tracer, 0, NULL,
			    "not in available_tracers (kernel built without it)");
			free(avail);
			return -ENOENT;
		}
		cur = read_str(c->top, "current_tracer");
		if (cur && strcmp(cur, "nop") && strcmp(cur, tracer)) {
			add(c, "tracers", tracer, 1, "listed",
			    NULL);
			free(cur);
			free(avail);
			return 0;
		}
	}
	free(avail);
	if (cur && !strcmp(cur, tracer)) {
		add(c, "tracers", tracer, 1, "in use", NULL);
		free(cur);
		return 0;
	}
	free(cur);
	narrowed = narrow_filter(t, "set_ftrace_filter");
	ret = try_write(c, t, "tracers", tracer, "current_tracer", tracer, "nop", 0);
	if (narrowed)
		ftk_tracefs_write(t, "set_ftrace_filter", "");
	if (ret == -EPERM && !*eperm)
		*eperm = strdup("current_tracer");
	return ret;
}

static void probe_function(struct ftk_caps *c, char **eperm)
{
	char path[] = "available_filter_functions";
	char full[PATH_MAX], byte;
	int fd, ret = 0;

	probe_tracer(c, "function", eperm);
	probe_tracer(c, "function_graph", eperm);

	ftk_tracefs_path(c->top, path, full, sizeof(full));
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &byte, 1) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret) {
		ftk_tracefs_fail(c->top, path, fd < 0 ? "open" : "read", ret);
		add(c, "tracers", "filter_functions", 0, NULL, "%s", c->top->errmsg);
		if (ret == -EPERM && !*eperm)
			*eperm = strdup(path);
	} else {
		add(c, "tracers", "filter_functions", 1, NULL, NULL);
	}
}

static void probe_stack_tracer(struct ftk_caps *c, char **eperm)
{
	const char *knob = "/proc/sys/kernel/stack_tracer_enabled";
	char *cur = NULL;
	int ret, narrowed;

	if (ftk_read_file(knob, &cur, NULL)) {
		add(c, "tracers", "stack_tracer", 0, NULL,
		    "%s is absent (kernel built without CONFIG_STACK_TRACER)", knob);
		return;
	}
	ftk_strstrip(cur);
	if (!strcmp(cur, "1")) {
		add(c, "tracers", "stack_tracer", 1, "on", NULL);
		free(cur);
		return;
	}
	free(cur);
	/* The stack tracer hooks functions through ftrace too: narrow its own filter. */
	narrowed = narrow_filter(c->top, "stack_trace_filter");
	ret = ftk_write_file(knob, O_TRUNC, "1", 1);
	if (!ret)
		ftk_write_file(knob, O_TRUNC, "0", 1);
	if (narrowed)
		ftk_tracefs_write(c->top, "stack_trace_filter", "");
	if (ret) {
		char why[128];

		add(c, "tracers", "stack_tracer", 0, NULL, "%s: write: %s", knob,
		    ftk_strerror(ret, why, sizeof(why)));
		if (ret == -EPERM && !*eperm)
			*eperm = strdup(knob);
		return;
	}
	add(c, "tracers", "stack_tracer", 1, NULL, NULL);
}

/* ------------------------------------------------------------ latency tracers */

/*
 * The kernel's latency tracers. A listed wake-up or irqs-off tracer is
 * tried at the top level (only when nop is set there) with function-trace
 * off, so that no function is patched; hwlat, osnoise and timerlat are not
 * started, since they would spin on every CPU, only listed.
 */
static void probe_lattracers(struct ftk_caps *c, char **eperm)
{
	const struct ftk_lattrace_info *li;
	char *avail = read_str(c->top, "available_tracers");
	char *cur = read_str(c->top, "current_tracer");
	char *fopt = read_str(c->top, "options/function-trace");
	size_t i;
	int ret;

	for (i = 0; (li = ftk_lattrace_at(i)); i++) {
		if (!avail || !has_word(avail, li->name)) {
			add(c, "latency", li->name, 0, NULL,
			    "not in available_tracers (kernel built without %s)", li->config);
			continue;
		}
		if (li->per_cpu || !cur || strcmp(cur, "nop")) {
			add(c, "latency", li->name, 1, li->per_cpu ? "listed" : "listed, not tried",
			    NULL);
			continue;
		}
		if (fopt && !strcmp(fopt, "1"))
			ftk_tracefs_write(c->top, "options/function-trace", "0");
		ret = try_write(c, c->top, "latency", li->name, "current_tracer", li->name, "nop",
				0);
		if (ret == -EPERM && !*eperm)
			*eperm = strdup("current_tracer");
	}
	if (fopt && !strcmp(fopt, "1"))
		ftk_tracefs_write(c->top, "options/function-trace", "1");
	free(fopt);
	free(cur);
	free(avail);
}

/* ------------------------------------------------------------ dynamic events */

/* A file offset inside an executable for a uprobe that is never enabled. */
static int self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n < 0)
		return -errno;
	path[n] = '\0';
	return 0;
}

/* Add a dynamic event and delete it again; @file is kprobe_events or uprobe_events. */
static void try_dynevent(struct ftk_caps *c, const char *name, const char *file,
			 const char *def, const char *event, char **eperm)
{
	char undo[256];

	if (!ftk_tracefs_exists(c->top, file)) {
		if (!ftk_tracefs_exists(c->top, "dynamic_events")) {
			add(c, "probes", name, 0, NULL,
			    "neither %s nor dynamic_events exists (kernel built without them)", file);
			return;
		}
		/* The kernel may offer only dynamic_events; its answer decides. */
		if (ftk_tracefs_append(c->top, "dynamic_events", def)) {
			add(c, "probes", name, 0, NULL, "%s is absent and %s%s", file,
			    ftk_tracefs_errmsg(c->top),
			    errno == EINVAL ? " (kernel built without them)" : "");
			return;
		}
		file = "dynamic_events";
	} else if (ftk_tracefs_append(c->top, file, def)) {
		add(c, "probes", name, 0, NULL, "%s", ftk_tracefs_errmsg(c->top));
		if (errno == EPERM && !*eperm)
			*eperm = strdup(file);
		return;
	}
	snprintf(undo, sizeof(undo), "-:%s/%s", c->group, event);
	if (ftk_tracefs_append(c->top, file, undo))
		pr_warn("cannot remove probe %s/%s: %s\n", c->group, event,
			ftk_tracefs_errmsg(c->top));
	add(c, "probes", name, 1, NULL, NULL);
}

static void probe_dynamic(struct ftk_caps *c, char **eperm)
{
	char def[PATH_MAX + 128], exe[PATH_MAX];

	snprintf(c->group, sizeof(c->group), "ftkit_caps_%d", (int)getpid());

	snprintf(def, sizeof(def), "p:%s/kp vfs_read", c->group);
	try_dynevent(c, "kprobes", "kprobe_events", def, "kp", eperm);

	if (self_exe(exe, sizeof(exe)) == 0) {
		snprintf(def, sizeof(def), "p:%s/up %s:0x%x", c->group, exe, 0x1000);
		try_dynevent(c, "uprobes", "uprobe_events", def, "up", eperm);
	} else {
		add(c, "probes", "uprobes", 0, NULL, "/proc/self/exe: readlink failed");
	}

	if (c->event[0]) {
		snprintf(def, sizeof(def), "e:%s/ep %.*s.%s", c->group,
			 (int)strcspn(c->event, "/"), c->event, strchr(c->event, '/') + 1);
		if (ftk_tracefs_exists(c->top, "dynamic_events"))
			try_dynevent(c, "eprobes", "dynamic_events", def, "ep", eperm);
		else
			add(c, "probes", "eprobes", 0, NULL,
			    "dynamic_events is absent (kernel before 5.15)");
	}

	if (!ftk_tracefs_exists(c->top, "synthetic_events")) {
		add(c, "probes", "synthetic_events", 0, NULL,
		    "synthetic_events is absent (kernel built without CONFIG_SYNTH_EVENTS)");
	} else {
		char undo[96];

		snprintf(def, sizeof(def), "%s_synth u64 v", c->group);
		snprintf(undo, sizeof(undo), "!%s_synth", c->group);
		try_write(c, c->top, "probes", "synthetic_events", "synthetic_events", def,
			  undo, 1);
	}
}

/* ------------------------------------------------------------ perf */

static long perf_open(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int pmu_type(const char *pmu)
{
	char path[128], *s;
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (ftk_read_file(path, &s, NULL))
		return -1;
	type = atoi(s);
	free(s);
	return type;
}

static const char *perf_why(int err, char *buf, size_t len)
{
	char e[96];

	ftk_strerror(err, e, sizeof(e));
	if (err == ENOENT || err == EOPNOTSUPP)
		snprintf(buf, len, "perf_event_open: %s: not supported by this CPU or hypervisor",
			 e);
	else if (err == EACCES || err == EPERM)
		snprintf(buf, len, "perf_event_open: %s: perf_event_paranoid or lockdown", e);
	else
		snprintf(buf, len, "perf_event_open: %s", e);
	return buf;
}

static void try_perf(struct ftk_caps *c, const char *name, struct perf_event_attr *attr)
{
	char why[160];
	long fd = perf_open(attr);

	if (fd < 0) {
		add(c, "perf", name, 0, NULL, "%s", perf_why(errno, why, sizeof(why)));
		return;
	}
	close(fd);
	add(c, "perf", name, 1, NULL, NULL);
}

static void probe_perf(struct ftk_caps *c)
{
	struct perf_event_attr attr;
	char *s, exe[PATH_MAX], file[256];
	int type;

	if (ftk_read_file("/proc/sys/kernel/perf_event_paranoid", &s, NULL) == 0) {
		add(c, "perf", "perf_event_paranoid", 1, ftk_strstrip(s), NULL);
		free(s);
	} else {
		add(c, "perf", "perf_event_paranoid", 0, NULL,
		    "/proc/sys/kernel/perf_event_paranoid is absent (no perf events)");
		return;
	}

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	try_perf(c, "perf_software", &attr);

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	try_perf(c, "perf_hardware", &attr);

	if (c->event[0]) {
		snprintf(file, sizeof(file), "events/%s/id", c->event);
		if (ftk_tracefs_read(c->top, file, &s) == 0) {
			memset(&attr, 0, sizeof(attr));
			attr.type = PERF_TYPE_TRACEPOINT;
			attr.config = strtoull(s, NULL, 10);
			free(s);
			try_perf(c, "perf_tracepoint", &attr);
		}
	}

	type = pmu_type("uprobe");
	if (type < 0) {
		add(c, "perf", "perf_uprobe", 0, NULL, "no uprobe PMU in /sys/bus/event_source");
	} else if (self_exe(exe, sizeof(exe)) == 0) {
		memset(&attr, 0, sizeof(attr));
		attr.type = type;
		attr.config1 = (uintptr_t)exe;
		attr.config2 = 0x1000;
		try_perf(c, "perf_uprobe", &attr);
	}

	type = pmu_type("kprobe");
	if (type < 0) {
		add(c, "perf", "perf_kprobe", 0, NULL, "no kprobe PMU in /sys/bus/event_source");
	} else {
		memset(&attr, 0, sizeof(attr));
		attr.type = type;
		attr.config1 = (uintptr_t)"vfs_read";
		try_perf(c, "perf_kprobe", &attr);
	}
}

/**
 * ftk_caps_probe() - find out what this kernel allows
 * @t: a handle on the top level of tracefs
 * @out: where the report goes
 *
 * Tries each feature and puts back everything it changed: a scratch
 * instance is created and removed, probes and synthetic events are
 * deleted, tracers set back to nop, the stack tracer turned off again.
 *
 * Return: 0 and a report that must be freed with ftk_caps_free(), or
 * -ENOMEM. A feature that fails is an entry with a reason, not an error.
 */
FTK_API int ftk_caps_probe(struct ftk_tracefs *t, struct ftk_caps **out)
{
	struct ftk_caps *c;
	char *eperm = NULL, *cur;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ftk_err(-ENOMEM);
	if (ftk_tracefs_open(t->root, NULL, 0, &c->top)) {
		free(c);
		return ftk_err(-errno);
	}

	probe_kernel(c);
	probe_cpus(c);
	add(c, "tracefs", "tracefs", 1, t->root, NULL);
	cur = read_str(c->top, "current_tracer");
	add(c, "tracefs", "current_tracer", cur != NULL, cur, "%s", c->top->errmsg);
	free(cur);
	probe_clock(c);
	probe_buffers(c);
	probe_instances(c);
	probe_raw(c);
	probe_events(c);
	probe_hist(c);
	probe_markers(c);
	probe_snapshot(c);
	probe_function(c, &eperm);
	probe_stack_tracer(c, &eperm);
	probe_lattracers(c, &eperm);
	probe_dynamic(c, &eperm);
	probe_perf(c);
	probe_lockdown(c, eperm);
	free(eperm);

	if (c->scratch) {
		if (ftk_tracefs_restore(c->scratch))
			pr_warn("cannot remove scratch instance: %s\n",
				ftk_tracefs_errmsg(c->scratch));
		ftk_tracefs_close(c->scratch);
		c->scratch = NULL;
	}
	ftk_tracefs_close(c->top);
	c->top = NULL;
	if (c->nomem) {
		ftk_caps_free(c);
		return ftk_err(-ENOMEM);
	}
	finish(c);
	*out = c;
	return 0;
}

/** ftk_caps_free() - free a report; NULL is fine */
FTK_API void ftk_caps_free(struct ftk_caps *caps)
{
	size_t i;

	if (!caps)
		return;
	for (i = 0; i < caps->n; i++) {
		free(caps->v[i].value);
		free(caps->v[i].reason);
	}
	free(caps->v);
	free(caps);
}

/** ftk_caps_count() - number of entries in a report */
FTK_API size_t ftk_caps_count(const struct ftk_caps *caps)
{
	return caps->n;
}

/**
 * ftk_caps_at() - the entry at @i, in probing order
 * Return: the entry, owned by the report; NULL with errno ERANGE past the end.
 */
FTK_API const struct ftk_cap *ftk_caps_at(const struct ftk_caps *caps, size_t i)
{
	if (i >= caps->n)
		return ftk_err_ptr(-ERANGE);
	return &caps->v[i].pub;
}

/**
 * ftk_caps_get() - the entry of a name ("kprobes", "function", ...)
 * Return: the entry, owned by the report; NULL with errno ENOENT if unknown.
 */
FTK_API const struct ftk_cap *ftk_caps_get(const struct ftk_caps *caps, const char *name)
{
	size_t i;

	for (i = 0; i < caps->n; i++)
		if (!strcmp(caps->v[i].pub.name, name))
			return &caps->v[i].pub;
	return ftk_err_ptr(-ENOENT);
}
