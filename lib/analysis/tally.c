// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tally: live totals and rates of a record stream by event, task, CPU and
 * system call (see include/ftkit/tally.h).
 *
 * Everything is counted from the binary records: the event id, the common
 * pid and a few numeric fields read through libtraceevent's field
 * descriptions, which are looked up once. No record is formatted as text.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <ftkit/latency.h>
#include <ftkit/tally.h>

#include "comm-local.h"
#include "internal.h"
#include "latency-local.h"

#define MAX_EVENT_ID	65536	/* event ids are small; larger ones are counted as unknown */
#define MAX_SYSCALL	4096
/*
 * Per-process latency rows kept at most: a histogram is about 8 KB, and a
 * busy machine (a parallel build) makes new processes all the time. The
 * calls of a process and syscall without a row once this many exist count
 * in that syscall's row of other processes (OTHER_PID), so that the sums
 * by syscall stay whole.
 */
#define PLAT_MAX	4096
#define OTHER_PID	0xffffffffULL
#define COMM_LEN	16
/*
 * A task with no record for this many intervals is asked after (kill(2)
 * with signal 0) and forgotten when it is gone, so that a machine that
 * starts processes all the time does not fill the table with the dead.
 */
#define TASK_AGE	5
#define TASKS_MIN	256

/* A counter with its value at the last mark and its last interval's growth. */
struct ctr {
	uint64_t	now;
	uint64_t	mark;
	uint64_t	delta;
};

static inline void ctr_mark(struct ctr *c)
{
	c->delta = c->now - c->mark;
	c->mark = c->now;
}

struct task {
	int		pid;		/* 0 is the idle task; a free slot has used == 0 */
	int		used;
	char		comm[COMM_LEN];	/* from sched_switch, or the first look-up */
	unsigned int	idle;		/* intervals in a row without a record */
	struct ctr	events;
	struct ctr	run_ns;
	/* its sys_enter waiting for a sys_exit, as ftk_pair would keep it by pid */
	int		pend;
	uint64_t	pend_ts;
	uint64_t	pend_nr;
	/* its last syscall's row of the per-process latency table (rows live as long as it) */
	uint64_t	plat_nr;
	struct ftk_lat_row *plat_row;
};

struct cpu {
	struct ctr	events;
	struct ctr	lost;
	struct ctr	idle_ns;
	uint64_t	since;		/* stamp of the last switch (or mark) */
	int		cur_pid;	/* -1 until the first sched_switch */
};

struct sysc {
	struct ctr	calls;		/* sys_enter */
	struct ctr	errors;		/* sys_exit with ret < 0 */
};

#define HIST_MAX_FIELDS	8
#define HIST_MAX_ENTRIES	65536	/* as the kernel's default size=2048, but roomier */

/* One entry of a user-space hist: its key text, hitcount and value sums. */
struct hent {
	char		*key;
	struct ctr	hits;
	uint64_t	vals[HIST_MAX_FIELDS];
};

/* A hist trigger computed from the stream, for kernels without hist triggers. */
struct uhist {
	int			id;
	int			nkeys, nvals;
	struct tep_format_field	*keys[HIST_MAX_FIELDS];
	int			key_pid;	/* the key is common_pid */
	struct tep_format_field	*vals[HIST_MAX_FIELDS];
	struct hent		*tab;		/* open addressing by key text */
	size_t			size, used;
	uint64_t		dropped;	/* hits not kept: the table was full */
};

/*
 * A numeric field read on every record: its offset and size copied out of
 * libtraceevent's description (checked once, when it is looked up), so
 * that reading it is one bounds check and one load.
 */
struct fld {
	struct tep_format_field	*f;	/* NULL: not known (yet) */
	int			off, size;
};

struct ftk_tally {
	struct tep_handle	*tep;
	struct uhist		*hist;
	struct ctr		*events;	/* by event id */
	unsigned int		nr_events;
	struct ctr		unknown;	/* records of no known event */
	struct task		*tasks;		/* open addressing by pid */
	size_t			nr_tasks;
	size_t			tasks_size;	/* a power of two */
	struct cpu		*cpus;
	int			nr_cpus;
	struct sysc		*sys;		/* by syscall number */
	struct ftk_pair		*pending;	/* sys_enter by pid, waiting for sys_exit */
	/*
	 * Latency by pid << 32 | syscall number. That by syscall number is
	 * their sum, made when the rows are read: a second histogram per
	 * call was an eighth of fttop's time at 1M events/s.
	 */
	struct ftk_lattab	*plat;
	struct task		*last;		/* the task of the last look-up; NULL after a rehash */
	struct ctr		total;
	struct ctr		lost;
	double			seconds;
	double			elapsed;
	unsigned int		intervals;
	uint64_t		max_ts;		/* the latest stamp seen on any CPU */
	uint64_t		mark_ts;	/* max_ts at the last mark */
	uint64_t		span_ns;	/* trace time the last interval covered */
	int			switch_id;
	int			enter_id;
	int			exit_id;
	int			native;		/* records in this machine's byte order */
	int			type_off, pid_off;	/* common_type (2 bytes), common_pid (4) */
	int			hdr_len;	/* the bytes a record needs for both */
	struct tep_format_field	*prev_comm, *next_comm;
	struct fld		prev_pid, next_pid, enter_nr, exit_nr, exit_ret;
	struct ftk_errmsg	err;
};

static struct tep_format_field *field(struct tep_handle *tep, const char *sys, const char *ev,
				      const char *name, int *id)
{
	struct tep_event *e = tep_find_event_by_name(tep, sys, ev);

	if (!e)
		return NULL;
	*id = e->id;
	return tep_find_field(e, name);
}

/* field() into a struct fld; 1 if found with a sane place and size. */
static int fld_find(struct fld *x, struct tep_handle *tep, const char *sys, const char *ev,
		    const char *name, int *id)
{
	struct tep_format_field *f = field(tep, sys, ev, name, id);

	if (!f || f->offset < 0 || f->size < 1 || f->size > 8 || f->offset > 65536) {
		x->f = NULL;
		return 0;
	}
	x->f = f;
	x->off = f->offset;
	x->size = f->size;
	return 1;
}

/*
 * The events counted beyond their number: sched_switch, sys_enter and
 * sys_exit. Looked up when the tally is made and again on the first
 * record of each event id, as a live buffer's formats may be read on
 * their first record (ftk_live_open()) and events enabled later.
 */
static void learn(struct ftk_tally *t)
{
	struct tep_handle *tep = t->tep;
	struct tep_format_field *ty, *pid;
	struct tep_event *e;
	int id = -1;

	/* the common fields, read in place by ftk_tally_add() where they have the usual sizes */
	if (t->type_off < 0 && (e = tep_get_event(tep, 0))) {
		ty = tep_find_common_field(e, "common_type");
		pid = tep_find_common_field(e, "common_pid");
		if (t->native && ty && pid && ty->size == 2 && pid->size == 4 && ty->offset >= 0 &&
		    pid->offset >= 0) {
			t->type_off = ty->offset;
			t->pid_off = pid->offset;
			t->hdr_len = ty->offset + 2 > pid->offset + 4 ? ty->offset + 2 : pid->offset + 4;
		}
	}
	if (t->switch_id < 0) {
		int ok = fld_find(&t->prev_pid, tep, "sched", "sched_switch", "prev_pid", &id) &
			 fld_find(&t->next_pid, tep, "sched", "sched_switch", "next_pid", &id);

		t->prev_comm = field(tep, "sched", "sched_switch", "prev_comm", &id);
		t->next_comm = field(tep, "sched", "sched_switch", "next_comm", &id);
		if (ok)
			t->switch_id = id;
	}
	if (t->enter_id < 0) {
		id = -1;
		if (fld_find(&t->enter_nr, tep, "raw_syscalls", "sys_enter", "id", &id))
			t->enter_id = id;
	}
	if (t->exit_id < 0) {
		id = -1;
		if (fld_find(&t->exit_nr, tep, "raw_syscalls", "sys_exit", "id", &id) &
		    fld_find(&t->exit_ret, tep, "raw_syscalls", "sys_exit", "ret", &id))
			t->exit_id = id;
	}
}

/**
 * ftk_tally_new() - an empty tally over records described by @tep
 * @tep: the event formats of the records (ftk_tracefile_tep())
 * @nr_cpus: the number of CPUs (rows of the CPUs view); records of higher
 *	     CPUs are counted in the totals only
 *
 * Return: the tally, to free with ftk_tally_free(); NULL with errno set.
 */
FTK_API struct ftk_tally *ftk_tally_new(struct tep_handle *tep, int nr_cpus)
{
	struct ftk_tally *t;
	int i;

	if (!tep || nr_cpus < 1 || nr_cpus > 65536)
		return ftk_err_ptr(-EINVAL);
	t = calloc(1, sizeof(*t));
	if (!t)
		return ftk_err_ptr(-ENOMEM);
	t->tep = tep;
	t->nr_cpus = nr_cpus;
	t->tasks_size = TASKS_MIN;
	t->cpus = calloc(nr_cpus, sizeof(*t->cpus));
	t->tasks = calloc(t->tasks_size, sizeof(*t->tasks));
	t->sys = calloc(MAX_SYSCALL, sizeof(*t->sys));
	t->pending = ftk_pair_new();
	t->plat = ftk_lattab_new();
	if (!t->cpus || !t->tasks || !t->sys || !t->pending || !t->plat) {
		ftk_tally_free(t);
		return ftk_err_ptr(-ENOMEM);
	}
	for (i = 0; i < nr_cpus; i++)
		t->cpus[i].cur_pid = -1;
	t->switch_id = t->enter_id = t->exit_id = -1;
	t->type_off = t->pid_off = -1;
	t->native = !tep_is_file_bigendian(tep) == !tep_is_local_bigendian(tep);
	learn(t);
	return t;
}

static void uhist_free(struct uhist *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; h->tab && i < h->size; i++)
		free(h->tab[i].key);
	free(h->tab);
	free(h);
}

/**
 * ftk_tally_free() - free a tally
 * @t: the tally, or NULL
 */
FTK_API void ftk_tally_free(struct ftk_tally *t)
{
	if (!t)
		return;
	free(t->events);
	free(t->tasks);
	free(t->cpus);
	free(t->sys);
	ftk_pair_free(t->pending);
	ftk_lattab_free(t->plat);
	uhist_free(t->hist);
	free(t);
}

static struct task *task_slot(struct task *tab, size_t size, int pid)
{
	size_t i = ((unsigned int)pid * 2654435761u) & (size - 1);

	while (tab[i].used && tab[i].pid != pid)
		i = (i + 1) & (size - 1);
	return &tab[i];
}

/* task_get() past its first try */
static struct task *task_get_slow(struct ftk_tally *t, int pid)
{
	struct task *k = task_slot(t->tasks, t->tasks_size, pid);

	if (k->used)
		return t->last = k;
	if ((t->nr_tasks + 1) * 2 > t->tasks_size) {
		size_t size = t->tasks_size * 2, i;
		struct task *tab = calloc(size, sizeof(*tab));

		if (!tab)
			return NULL;
		for (i = 0; i < t->tasks_size; i++)
			if (t->tasks[i].used)
				*task_slot(tab, size, t->tasks[i].pid) = t->tasks[i];
		free(t->tasks);
		t->tasks = tab;
		t->tasks_size = size;
		k = task_slot(tab, size, pid);
	}
	k->used = 1;
	k->pid = pid;
	t->nr_tasks++;
	return t->last = k;
}

/* The row of @pid, made if new; NULL when out of memory (the record is then not counted). */
static inline struct task *task_get(struct ftk_tally *t, int pid)
{
	struct task *k = t->last;

	/* records come in runs of one task's: inline, without the slow path's frame */
	if (k && k->pid == pid)
		return k;
	return task_get_slow(t, pid);
}

static void set_comm(struct task *k, const struct tep_record *rec, struct tep_format_field *f)
{
	const char *s = (const char *)rec->data + f->offset;
	size_t n = f->size < COMM_LEN - 1 ? (size_t)f->size : COMM_LEN - 1;

	if (f->offset < 0 || f->size < 0 || f->offset + f->size > rec->size)
		return;
	memcpy(k->comm, s, n);
	k->comm[n] = '\0';
}

/*
 * A numeric field of @rec, looked up with fld_find(). Records of this
 * machine's byte order (a live buffer's always are) are read here:
 * tep_read_number_field() was a tenth of fttop's time at 1M events/s
 * (perf record -e cpu-clock).
 */
static inline __attribute__((always_inline)) uint64_t numc(const struct ftk_tally *t,
							   const struct tep_record *rec,
							   const struct fld *x)
{
	const unsigned char *p = (const unsigned char *)rec->data + x->off;
	unsigned long long v = 0;
	uint32_t v32;
	uint16_t v16;

	if (x->off + x->size > rec->size)
		return 0;
	if (t->native) {
		switch (x->size) {
		case 8: memcpy(&v, p, 8); return v;
		case 4: memcpy(&v32, p, 4); return v32;
		case 2: memcpy(&v16, p, 2); return v16;
		case 1: return *p;
		}
	}
	tep_read_number_field(x->f, rec->data, &v);
	return v;
}

/* numc() of a field described by libtraceevent alone (the user-space hist's). */
static inline uint64_t num(const struct ftk_tally *t, const struct tep_record *rec,
			   struct tep_format_field *f)
{
	const struct fld x = { f, f->offset, f->size };

	return f->offset < 0 || f->size < 0 ? 0 : numc(t, rec, &x);
}

/* Charge the time since the last switch on @c to whoever ran there until @ts. */
static void charge(struct ftk_tally *t, struct cpu *c, uint64_t ts)
{
	struct task *k;
	uint64_t d;

	if (c->cur_pid < 0 || ts <= c->since)
		return;
	d = ts - c->since;
	c->since = ts;
	if (c->cur_pid == 0) {
		c->idle_ns.now += d;
		return;
	}
	k = task_get(t, c->cur_pid);
	if (k)
		k->run_ns.now += d;
}

static void on_switch(struct ftk_tally *t, struct cpu *c, const struct tep_record *rec)
{
	int prev = (int)numc(t, rec, &t->prev_pid), next = (int)numc(t, rec, &t->next_pid);
	struct task *k;

	if (c->cur_pid < 0) {
		c->since = rec->ts;
		c->cur_pid = prev;
	}
	charge(t, c, rec->ts);
	c->cur_pid = next;
	c->since = rec->ts;
	if (prev && t->prev_comm && (k = task_get(t, prev)))
		set_comm(k, rec, t->prev_comm);
	if (next && t->next_comm && (k = task_get(t, next)))
		set_comm(k, rec, t->next_comm);
}

/* ---------------------------------------------------------------- user-space hist */

/* @list's next comma-separated name into @buf, without a ".modifier"; NULL at the end. */
static const char *next_name(const char *list, char *buf, size_t len, int *hex)
{
	size_t n = strcspn(list, ",");
	const char *dot;

	if (!*list)
		return NULL;
	snprintf(buf, len, "%.*s", (int)n, list);
	dot = strchr(buf, '.');
	*hex = dot && !strcmp(dot, ".hex");
	if (dot)
		buf[dot - buf] = '\0';
	return list[n] ? list + n + 1 : list + n;
}

static int hist_fields(struct ftk_tally *t, struct tep_event *ev, const char *list,
		       struct tep_format_field **out, int *nr, int keys)
{
	char name[128];
	int hex;

	while ((list = next_name(list, name, sizeof(name), &hex))) {
		struct tep_format_field *f;

		if (*nr == HIST_MAX_FIELDS)
			return ftk_errmsg_set(&t->err, 0, NULL, -E2BIG, "more than %d fields",
					      HIST_MAX_FIELDS);
		if (keys && !strcmp(name, "common_pid")) {
			t->hist->key_pid = 1;
			continue;
		}
		if (!strcmp(name, "hitcount"))
			continue;
		f = tep_find_any_field(ev, name);
		if (!f)
			return ftk_errmsg_set(&t->err, 0, NULL, -EINVAL, "%s:%s has no field '%s'",
					      ev->system, ev->name, name);
		out[(*nr)++] = f;
	}
	return 0;
}

/**
 * ftk_tally_hist() - count like a hist trigger, in user space
 * @t: the tally
 * @event: "system:event"
 * @trigger: "hist:keys=K[,K...][:vals=V[,V...]]..." as the kernel takes it;
 *	     other attributes (sort, size, name, a filter) are ignored
 *
 * For kernels built without hist triggers: from now on, each record of
 * @event is counted under the text of its key fields, and its value
 * fields are summed, as the kernel's hist file shows them. Key modifiers
 * other than .hex are ignored. The FTK_TALLY_HIST view gives the entries.
 *
 * Return: 0, or a negative errno with the reason in ftk_tally_errmsg()
 * (-ENOENT for an unknown event, -EINVAL for a field it does not have).
 */
FTK_API int ftk_tally_hist(struct ftk_tally *t, const char *event, const char *trigger)
{
	const char *keys, *vals, *colon = strchr(event, ':');
	char sys[128], kbuf[512] = "", vbuf[512] = "";
	struct tep_event *ev;
	int ret;

	if (!colon || colon - event >= (long)sizeof(sys) || strncmp(trigger, "hist:", 5))
		return ftk_err(ftk_errmsg_set(&t->err, 0, NULL, -EINVAL,
					      "want system:event and hist:keys=...: '%s' '%s'",
					      event, trigger));
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - event), event);
	ev = tep_find_event_by_name(t->tep, sys, colon + 1);
	if (!ev)
		return ftk_err(ftk_errmsg_set(&t->err, 0, NULL, -ENOENT, "no event '%s'", event));
	keys = strstr(trigger, ":keys=") ? strstr(trigger, ":keys=") + 6 :
	       strstr(trigger, ":key=") ? strstr(trigger, ":key=") + 5 : NULL;
	vals = strstr(trigger, ":vals=") ? strstr(trigger, ":vals=") + 6 :
	       strstr(trigger, ":values=") ? strstr(trigger, ":values=") + 8 : NULL;
	if (!keys)
		return ftk_err(ftk_errmsg_set(&t->err, 0, NULL, -EINVAL, "no keys in '%s'",
					      trigger));
	snprintf(kbuf, sizeof(kbuf), "%.*s", (int)strcspn(keys, ": "), keys);
	if (vals)
		snprintf(vbuf, sizeof(vbuf), "%.*s", (int)strcspn(vals, ": "), vals);
	uhist_free(t->hist);
	t->hist = calloc(1, sizeof(*t->hist));
	if (!t->hist)
		return ftk_err(-ENOMEM);
	t->hist->id = ev->id;
	t->hist->size = 1024;
	t->hist->tab = calloc(t->hist->size, sizeof(*t->hist->tab));
	if (!t->hist->tab)
		ret = -ENOMEM;
	else if (!(ret = hist_fields(t, ev, kbuf, t->hist->keys, &t->hist->nkeys, 1)))
		ret = hist_fields(t, ev, vbuf, t->hist->vals, &t->hist->nvals, 0);
	if (ret) {
		uhist_free(t->hist);
		t->hist = NULL;
	}
	return ftk_err(ret);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct hent *hent_slot(struct hent *tab, size_t size, const char *key)
{
	size_t i = hash_str(key) & (size - 1);

	while (tab[i].key && strcmp(tab[i].key, key))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static void hist_add(struct ftk_tally *t, const struct tep_record *rec)
{
	struct uhist *h = t->hist;
	char key[512];
	size_t off = 0;
	struct hent *e;
	int i;

	if (h->key_pid)
		off += snprintf(key, sizeof(key), "common_pid: %d",
				tep_data_pid(t->tep, (struct tep_record *)rec));
	for (i = 0; i < h->nkeys && off < sizeof(key); i++) {
		struct tep_format_field *f = h->keys[i];

		off += snprintf(key + off, sizeof(key) - off, "%s%s: ", off ? ", " : "", f->name);
		if (off >= sizeof(key))
			break;
		if (f->flags & TEP_FIELD_IS_STRING && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    f->offset >= 0 && f->size >= 0 && f->offset + f->size <= rec->size)
			off += snprintf(key + off, sizeof(key) - off, "%.*s", f->size,
					(const char *)rec->data + f->offset);
		else if (f->flags & TEP_FIELD_IS_SIGNED)
			off += snprintf(key + off, sizeof(key) - off, "%lld",
					f->size == 4 ? (long long)(int32_t)num(t, rec, f) :
					(long long)num(t, rec, f));
		else
			off += snprintf(key + off, sizeof(key) - off, "%llu",
					(unsigned long long)num(t, rec, f));
	}
	e = hent_slot(h->tab, h->size, key);
	if (!e->key) {
		if (h->used + 1 > HIST_MAX_ENTRIES) {
			h->dropped++;
			return;
		}
		if ((h->used + 1) * 2 > h->size) {
			size_t size = h->size * 2, j;
			struct hent *tab = calloc(size, sizeof(*tab));

			if (!tab) {
				h->dropped++;
				return;
			}
			for (j = 0; j < h->size; j++)
				if (h->tab[j].key)
					*hent_slot(tab, size, h->tab[j].key) = h->tab[j];
			free(h->tab);
			h->tab = tab;
			h->size = size;
			e = hent_slot(tab, size, key);
		}
		e->key = strdup(key);
		if (!e->key) {
			h->dropped++;
			return;
		}
		h->used++;
	}
	e->hits.now++;
	for (i = 0; i < h->nvals; i++)
		e->vals[i] += num(t, rec, h->vals[i]);
}

/* A paired call's latency, by process (and so by syscall); its row looked up once. */
static void add_lat(struct ftk_tally *t, struct task *k, int pid, uint64_t nr, uint64_t lat,
		    int failed)
{
	struct ftk_lat_row *r;

	if (k && k->plat_row && k->plat_nr == nr) {
		r = k->plat_row;
	} else {
		uint64_t key = (uint64_t)(uint32_t)pid << 32 | nr;

		if (ftk_lattab_len(t->plat) >= PLAT_MAX && !ftk_lattab_find(t->plat, key))
			key = OTHER_PID << 32 | nr;
		r = ftk_lattab_row(t->plat, key);
		if (!r)
			return;
		if (k) {
			k->plat_row = r;
			k->plat_nr = nr;
		}
	}
	ftk_lat_row_add(r, lat, failed);
}

/**
 * ftk_tally_add() - count one record
 * @t: the tally
 * @rec: the record; rec->cpu says its CPU, rec->ts its stamp
 *
 * Counts it by event, by task (common_pid) and by CPU; a sched_switch
 * moves the CPU time accounting on, raw_syscalls events count system calls.
 * Records of one CPU must come in time order.
 */
FTK_API void ftk_tally_add(struct ftk_tally *t, const struct tep_record *rec)
{
	struct tep_record *r = (struct tep_record *)rec;
	struct cpu *c = NULL;
	struct task *k;
	int id, pid;

	t->total.now++;
	if (rec->cpu >= 0 && rec->cpu < t->nr_cpus) {
		c = &t->cpus[rec->cpu];
		c->events.now++;
	}
	/* the first record of a sub-buffer carries the kernel's count of what it dropped */
	if (rec->missed_events > 0) {
		t->lost.now += rec->missed_events;
		if (c)
			c->lost.now += rec->missed_events;
	}
	if (rec->ts > t->max_ts)
		t->max_ts = rec->ts;
	if (t->type_off >= 0 && (int)rec->size >= t->hdr_len) {
		uint16_t ty;
		int32_t p;

		memcpy(&ty, (const char *)rec->data + t->type_off, 2);
		memcpy(&p, (const char *)rec->data + t->pid_off, 4);
		id = ty;
		pid = p;
	} else {
		id = tep_data_type(t->tep, r);
		pid = tep_data_pid(t->tep, r);
	}
	if (id < 0 || id >= MAX_EVENT_ID) {
		t->unknown.now++;
		return;
	}
	if ((unsigned int)id >= t->nr_events) {
		unsigned int n = id + 64 < MAX_EVENT_ID ? id + 64 : MAX_EVENT_ID;
		struct ctr *ev = realloc(t->events, n * sizeof(*ev));

		if (!ev) {
			t->unknown.now++;
			return;
		}
		memset(ev + t->nr_events, 0, (n - t->nr_events) * sizeof(*ev));
		t->events = ev;
		t->nr_events = n;
	}
	if (!t->events[id].now &&
	    (t->switch_id < 0 || t->enter_id < 0 || t->exit_id < 0 || t->type_off < 0))
		learn(t);
	t->events[id].now++;
	k = pid >= 0 ? task_get(t, pid) : NULL;
	if (k)
		k->events.now++;
	if (t->hist && id == t->hist->id)
		hist_add(t, rec);
	if (id == t->switch_id && c) {
		on_switch(t, c, rec);
	} else if (id == t->enter_id) {
		uint64_t nr = numc(t, rec, &t->enter_nr);

		if (nr < MAX_SYSCALL) {
			t->sys[nr].calls.now++;
			if (k) {
				k->pend = 1;
				k->pend_ts = rec->ts;
				k->pend_nr = nr;
			} else {
				ftk_pair_start(t->pending, (uint32_t)pid, rec->ts, nr);
			}
		}
	} else if (id == t->exit_id) {
		uint64_t nr = numc(t, rec, &t->exit_nr), lat, enr;
		int64_t ret = (int64_t)numc(t, rec, &t->exit_ret);
		int paired;

		if (t->exit_ret.size == 4)
			ret = (int32_t)ret;
		if (nr < MAX_SYSCALL && ret < 0)
			t->sys[nr].errors.now++;
		/* an exit pairs with its task's last enter of the same call */
		if (k) {
			paired = k->pend && rec->ts >= k->pend_ts;
			lat = rec->ts - k->pend_ts;
			enr = k->pend_nr;
			k->pend = 0;
		} else {
			paired = ftk_pair_end(t->pending, (uint32_t)pid, rec->ts, &lat, &enr) == 1;
		}
		if (paired && enr == nr)
			add_lat(t, k, pid, nr, lat, ret < 0);
	}
}

/* Is @pid running on a CPU, as far as the switches told? */
static int on_cpu(const struct ftk_tally *t, int pid)
{
	int c;

	for (c = 0; c < t->nr_cpus; c++)
		if (t->cpus[c].cur_pid == pid)
			return 1;
	return 0;
}

/*
 * Forget the tasks that have exited: quiet for TASK_AGE intervals (asked
 * again every TASK_AGE intervals after), not on a CPU, and gone (ESRCH).
 * The table is built again without them, and smaller when it can be.
 */
static void tasks_age(struct ftk_tally *t)
{
	size_t i, dead = 0, size, live;
	struct task *tab, *k;

	for (i = 0; i < t->tasks_size; i++) {
		k = &t->tasks[i];
		if (!k->used || k->pid <= 0 || !k->idle || k->idle % TASK_AGE || on_cpu(t, k->pid))
			continue;
		if (kill(k->pid, 0) && errno == ESRCH) {
			k->used = -1;	/* to go */
			dead++;
		}
	}
	if (!dead)
		return;
	live = t->nr_tasks - dead;
	for (size = TASKS_MIN; size < (live + 1) * 4; size *= 2)
		;
	tab = calloc(size, sizeof(*tab));
	if (!tab) {
		/* keep them all, to be tried again */
		for (i = 0; i < t->tasks_size; i++)
			if (t->tasks[i].used < 0)
				t->tasks[i].used = 1;
		return;
	}
	for (i = 0; i < t->tasks_size; i++)
		if (t->tasks[i].used > 0)
			*task_slot(tab, size, t->tasks[i].pid) = t->tasks[i];
	free(t->tasks);
	t->tasks = tab;
	t->tasks_size = size;
	t->nr_tasks = live;
	t->last = NULL;
}

/**
 * ftk_tally_mark() - close an interval
 * @t: the tally
 * @seconds: how long the interval lasted (rates are per second of it)
 *
 * The time of the task running on each CPU is charged up to the latest
 * stamp seen, then every counter's growth since the last mark becomes its
 * delta, read by ftk_tally_rows() and ftk_tally_sum() until the next mark.
 * A task without records for several intervals that no longer exists
 * (kill(2) says ESRCH) is forgotten: its row leaves the tasks view.
 */
FTK_API void ftk_tally_mark(struct ftk_tally *t, double seconds)
{
	size_t i;
	int c;

	for (c = 0; c < t->nr_cpus; c++) {
		charge(t, &t->cpus[c], t->max_ts);
		ctr_mark(&t->cpus[c].events);
		ctr_mark(&t->cpus[c].lost);
		ctr_mark(&t->cpus[c].idle_ns);
	}
	for (i = 0; i < t->nr_events; i++)
		ctr_mark(&t->events[i]);
	for (i = 0; i < t->tasks_size; i++) {
		struct task *k = &t->tasks[i];

		if (!k->used)
			continue;
		ctr_mark(&k->events);
		ctr_mark(&k->run_ns);
		k->idle = k->events.delta || k->run_ns.delta ? 0 : k->idle + 1;
	}
	tasks_age(t);
	for (i = 0; i < MAX_SYSCALL; i++) {
		ctr_mark(&t->sys[i].calls);
		ctr_mark(&t->sys[i].errors);
	}
	for (i = 0; t->hist && i < t->hist->size; i++)
		if (t->hist->tab[i].key)
			ctr_mark(&t->hist->tab[i].hits);
	ctr_mark(&t->unknown);
	ctr_mark(&t->total);
	ctr_mark(&t->lost);
	t->span_ns = t->mark_ts ? t->max_ts - t->mark_ts : 0;
	t->mark_ts = t->max_ts;
	t->seconds = seconds > 0 ? seconds : 0;
	t->elapsed += t->seconds;
	t->intervals++;
}

static double rate(const struct ftk_tally *t, uint64_t delta)
{
	return t->seconds > 0 ? delta / t->seconds : 0;
}

/* The interval in trace time, for shares; the wall-clock one if no record spans it. */
static double span(const struct ftk_tally *t)
{
	return t->span_ns ? (double)t->span_ns : t->seconds * 1e9;
}

/*
 * The name of @k: kept from its last sched_switch, else looked up once
 * (saved_cmdlines, then /proc while it lives) and kept, so that a frame
 * does not read a file per task. A task without a name is asked again
 * only in an interval it had records in: the dead are not asked again.
 */
static void comm_of(const struct ftk_tally *t, struct task *k, char *buf, size_t len)
{
	const char *c;
	char path[64], *s = NULL;
	size_t n;

	if (k->comm[0]) {
		snprintf(buf, len, "%s", k->comm);
		return;
	}
	snprintf(buf, len, "<...>");
	if (k->pid == 0) {
		snprintf(k->comm, sizeof(k->comm), "<idle>");
	} else if (t->intervals && !k->events.delta) {
		return;
	} else if ((c = ftk_comm(t->tep, k->pid)) && strcmp(c, "<...>")) {
		snprintf(k->comm, sizeof(k->comm), "%s", c);
	} else {
		/* A task that has not been switched yet: ask /proc while it lives. */
		snprintf(path, sizeof(path), "/proc/%d/comm", k->pid);
		if (ftk_read_file(path, &s, &n) == 0 && n)
			snprintf(k->comm, sizeof(k->comm), "%s", ftk_strstrip(s));
		free(s);
	}
	if (k->comm[0])
		snprintf(buf, len, "%s", k->comm);
}

/* Count, mean, maximum and 99th percentile of a latency row, if there is one. */
static void lat_fields(struct ftk_tally_row *r, const struct ftk_hist *h)
{
	struct ftk_hist_stats st;

	if (!h)
		return;
	ftk_hist_stats(h, &st);
	r->lat_count = st.count;
	r->lat_avg_ns = st.count ? st.sum / st.count : 0;
	r->lat_max_ns = st.max;
	r->lat_p99_ns = ftk_hist_percentile(h, 99);
	/* the percentile is a bucket's bound: never above the largest seen */
	if (r->lat_p99_ns > r->lat_max_ns)
		r->lat_p99_ns = r->lat_max_ns;
}

static void hists_free(struct ftk_hist **h)
{
	size_t i;

	for (i = 0; h && i < MAX_SYSCALL; i++)
		ftk_hist_free(h[i]);
	free(h);
}

/* The latencies by syscall number: the sum of every process's of that number. */
static struct ftk_hist **lat_by_syscall(const struct ftk_tally *t)
{
	struct ftk_hist **h = calloc(MAX_SYSCALL, sizeof(*h));
	struct ftk_lat_row **prow = NULL;
	long nl, i;

	if (!h || (nl = ftk_lattab_rows(t->plat, FTK_LATTAB_BY_KEY, &prow)) < 0) {
		free(h);
		return NULL;
	}
	for (i = 0; i < nl; i++) {
		uint64_t nr = prow[i]->key & 0xffffffff;

		if (nr >= MAX_SYSCALL || !prow[i]->hist)
			continue;
		if ((!h[nr] && !(h[nr] = ftk_hist_new())) || ftk_hist_merge(h[nr], prow[i]->hist)) {
			free(prow);
			hists_free(h);
			return NULL;
		}
	}
	free(prow);
	return h;
}

/* The row of event @i (the unknown ones at t->nr_events); 0 if it had no record. */
static int row_event(const struct ftk_tally *t, size_t i, struct ftk_tally_row *r)
{
	const struct ctr *e = i < t->nr_events ? &t->events[i] : &t->unknown;
	struct tep_event *ev;

	if (!e->now)
		return 0;
	r->id = i < t->nr_events ? (int64_t)i : -1;
	ev = r->id >= 0 ? tep_find_event(t->tep, (int)i) : NULL;
	if (ev)
		snprintf(r->name, sizeof(r->name), "%s:%s", ev->system, ev->name);
	else
		snprintf(r->name, sizeof(r->name), "unknown");
	r->total = e->now;
	r->delta = e->delta;
	return 1;
}

/* The row of task slot @i; 0 if the slot is free. */
static int row_task(const struct ftk_tally *t, size_t i, struct ftk_tally_row *r)
{
	struct task *k = &t->tasks[i];

	if (!k->used)
		return 0;
	r->id = k->pid;
	comm_of(t, k, r->comm, sizeof(r->comm));
	snprintf(r->name, sizeof(r->name), "%s", r->comm);
	r->total = k->events.now;
	r->delta = k->events.delta;
	r->time_ns = k->run_ns.now;
	r->time_delta_ns = k->run_ns.delta;
	if (t->switch_id >= 0 && t->intervals)
		r->share = k->run_ns.delta / span(t);
	return 1;
}

/* The row of CPU @i (every CPU has one). */
static int row_cpu(const struct ftk_tally *t, size_t i, struct ftk_tally_row *r)
{
	const struct cpu *c = &t->cpus[i];

	r->id = i;
	snprintf(r->name, sizeof(r->name), "cpu%zu", i);
	r->total = c->events.now;
	r->delta = c->events.delta;
	r->lost = c->lost.now;
	r->lost_delta = c->lost.delta;
	r->time_ns = c->idle_ns.now;
	r->time_delta_ns = c->idle_ns.delta;
	if (c->cur_pid >= 0 && t->intervals) {
		r->share = c->idle_ns.delta / span(t);
		if (r->share > 1)
			r->share = 1;
	}
	return 1;
}

/* A system call's name in @r->name: the table's, else syscall_NR. */
static void row_syscall_name(struct ftk_tally_row *r, unsigned long long nr)
{
	const char *name = ftk_syscall_name(nr);

	if (name)
		snprintf(r->name, sizeof(r->name), "%s", name);
	else
		snprintf(r->name, sizeof(r->name), "syscall_%llu", nr);
}

/* The row of system call @i, its latencies from @h; 0 if it was not called. */
static int row_syscall(const struct ftk_tally *t, size_t i, const struct ftk_hist *h,
		       struct ftk_tally_row *r)
{
	const struct sysc *s = &t->sys[i];

	if (!s->calls.now && !s->errors.now)
		return 0;
	r->id = i;
	row_syscall_name(r, i);
	r->total = s->calls.now;
	r->delta = s->calls.delta;
	r->errors = s->errors.now;
	lat_fields(r, h);
	return 1;
}

/* The row of a (process, system call) latency row. */
static int row_syscall_pid(const struct ftk_tally *t, const struct ftk_lat_row *l,
			   struct ftk_tally_row *r)
{
	struct task *k;

	r->pid = (int)(l->key >> 32);	/* -1: other processes */
	r->id = r->pid;
	row_syscall_name(r, l->key & 0xffffffff);
	k = r->pid >= 0 ? task_slot(t->tasks, t->tasks_size, r->pid) : NULL;
	if (k && k->used)
		comm_of(t, k, r->comm, sizeof(r->comm));
	else if (!k)
		snprintf(r->comm, sizeof(r->comm), "<others>");
	r->errors = l->errors;
	lat_fields(r, l->hist);
	r->total = r->lat_count;
	return 1;
}

/* The row of hist entry @i, numbered @n; 0 if the entry is free. */
static int row_hist(const struct ftk_tally *t, size_t i, size_t n, struct ftk_tally_row *r)
{
	const struct hent *e = &t->hist->tab[i];
	size_t off;
	int v;

	if (!e->key)
		return 0;
	r->id = n;
	off = snprintf(r->name, sizeof(r->name), "{ %s }", e->key);
	for (v = 0; v < t->hist->nvals && off < sizeof(r->name); v++)
		off += snprintf(r->name + off, sizeof(r->name) - off, " %s: %llu",
				t->hist->vals[v]->name, (unsigned long long)e->vals[v]);
	r->total = e->hits.now;
	r->delta = e->hits.delta;
	return 1;
}

/**
 * ftk_tally_rows() - the rows of a view
 * @t: the tally
 * @view: which rows
 * @out: where the array goes
 *
 * Rows with no record since the start are left out (for CPUs: every CPU
 * is listed). Deltas, rates and shares are those of the last
 * ftk_tally_mark(). System call latencies are in nanoseconds, from each
 * task's sys_enter paired with its next sys_exit of the same number; the
 * 99th percentile is within 1/16 of the value (ftk_hist_percentile()).
 *
 * Return: the number of rows, and in *@out an array to free with free();
 * or a negative errno.
 */
FTK_API long ftk_tally_rows(const struct ftk_tally *t, enum ftk_tally_view view,
			    struct ftk_tally_row **out)
{
	struct ftk_lat_row **prow = NULL;
	struct ftk_hist **bynr = NULL;
	struct ftk_tally_row *rows, *r;
	size_t cap, iter = 0, n = 0, i;
	int filled;
	long nl;

	switch (view) {
	case FTK_TALLY_EVENTS: cap = t->nr_events + 1; break;
	case FTK_TALLY_TASKS: cap = t->nr_tasks; iter = t->tasks_size; break;	/* the slots */
	case FTK_TALLY_CPUS: cap = t->nr_cpus; break;
	case FTK_TALLY_SYSCALLS:
		bynr = lat_by_syscall(t);
		if (!bynr)
			return ftk_err(-ENOMEM);
		cap = MAX_SYSCALL;
		break;
	case FTK_TALLY_SYSCALLS_PID:
		nl = ftk_lattab_rows(t->plat, FTK_LATTAB_BY_KEY, &prow);
		if (nl < 0)
			return ftk_err((int)nl);
		cap = nl;
		break;
	case FTK_TALLY_HIST: cap = t->hist ? t->hist->size : 0; break;
	default: return ftk_err(-EINVAL);
	}
	*out = rows = calloc(cap ? cap : 1, sizeof(*rows));
	if (!rows) {
		free(prow);
		hists_free(bynr);
		return ftk_err(-ENOMEM);
	}
	if (!iter)
		iter = cap;
	for (i = 0; i < iter && n < cap; i++) {
		r = &rows[n];
		r->pid = -1;
		r->share = -1;
		switch (view) {
		case FTK_TALLY_EVENTS: filled = row_event(t, i, r); break;
		case FTK_TALLY_TASKS: filled = row_task(t, i, r); break;
		case FTK_TALLY_CPUS: filled = row_cpu(t, i, r); break;
		case FTK_TALLY_SYSCALLS: filled = row_syscall(t, i, bynr[i], r); break;
		case FTK_TALLY_SYSCALLS_PID: filled = row_syscall_pid(t, prow[i], r); break;
		case FTK_TALLY_HIST: filled = row_hist(t, i, n, r); break;
		default: filled = 0; break;
		}
		if (!filled)
			continue;
		r->rate = rate(t, r->delta);
		n++;
	}
	free(prow);
	hists_free(bynr);
	return n;
}

/**
 * ftk_tally_sum() - the totals of the last interval
 * @t: the tally
 * @sum: filled in
 */
FTK_API void ftk_tally_sum(const struct ftk_tally *t, struct ftk_tally_sum *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->total = t->total.now;
	sum->delta = t->total.delta;
	sum->rate = rate(t, t->total.delta);
	sum->lost = t->lost.now;
	sum->lost_delta = t->lost.delta;
	sum->seconds = t->seconds;
	sum->elapsed = t->elapsed;
	sum->nr_cpus = t->nr_cpus;
	sum->intervals = t->intervals;
}

/**
 * ftk_tally_reset() - forget every count
 * @t: the tally
 *
 * Counters, times and intervals go back to zero; the names of tasks seen
 * and what runs on each CPU stay, so that accounting goes on.
 */
FTK_API void ftk_tally_reset(struct ftk_tally *t)
{
	size_t i;
	int c;

	memset(t->events, 0, t->nr_events * sizeof(*t->events));
	memset(t->sys, 0, MAX_SYSCALL * sizeof(*t->sys));
	ftk_lattab_reset(t->plat);
	for (i = 0; i < t->tasks_size; i++) {
		memset(&t->tasks[i].events, 0, sizeof(t->tasks[i].events));
		memset(&t->tasks[i].run_ns, 0, sizeof(t->tasks[i].run_ns));
	}
	for (c = 0; c < t->nr_cpus; c++) {
		memset(&t->cpus[c].events, 0, sizeof(struct ctr));
		memset(&t->cpus[c].lost, 0, sizeof(struct ctr));
		memset(&t->cpus[c].idle_ns, 0, sizeof(struct ctr));
	}
	for (i = 0; t->hist && i < t->hist->size; i++) {
		memset(&t->hist->tab[i].hits, 0, sizeof(t->hist->tab[i].hits));
		memset(t->hist->tab[i].vals, 0, sizeof(t->hist->tab[i].vals));
	}
	memset(&t->unknown, 0, sizeof(t->unknown));
	memset(&t->total, 0, sizeof(t->total));
	memset(&t->lost, 0, sizeof(t->lost));
	t->seconds = t->elapsed = 0;
	t->intervals = 0;
	t->mark_ts = t->max_ts;
}

/**
 * ftk_tally_errmsg() - the last failure of ftk_tally_hist()
 * @t: the tally
 *
 * Return: the text, owned by @t; "" if none.
 */
FTK_API const char *ftk_tally_errmsg(const struct ftk_tally *t)
{
	return t->err.text;
}

