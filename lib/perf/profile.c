// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * profile: samples -> symbols -> stacks.
 *
 * Each read copies the rings' records into one round buffer, sorts them
 * by time (a stable sort: the rings' own order breaks ties) and then uses
 * them: MMAP2, COMM and FORK feed the symbols index, samples become
 * folded stacks. Naming happens while the process is still known, so that
 * a command that has exited by the end is named as well as one that runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/perfstat.h>
#include <ftkit/profile.h>
#include <ftkit/unwind.h>

#include "internal.h"
#include "perf-local.h"

#define MAX_FRAMES	256
#define COMM_BUCKETS	1024
#define KERNEL_START	0xffff800000000000ULL

struct comm {
	struct comm	*next;
	pid_t		tid;
	char		name[24];
};

/* A task gone off the CPU, waiting to run again (off-CPU mode). */
struct pending {
	struct pending	*next;
	pid_t		tid;
	uint64_t	time;
	char		*stack;
	char		*waker;		/* the stack that woke it (FTK_PROFILE_WAKEUP), or NULL */
	char		*script;	/* the switch's perf-script text, less its period */
	long		head;		/* where its header line ends */
};

/* A process whose stacks are kept, and the ones it forks (ftk_profile_follow()). */
struct follow {
	struct follow	*next;
	pid_t		pid;
};

struct rec_ref {
	uint64_t	time;
	size_t		off;
	size_t		seq;
	int		waking;		/* from the sched_waking sampler (--wakeup) */
};

struct ftk_profile {
	struct ftk_sampler	*smp;		/* NULL for a profile loaded from perf.data */
	struct ftk_sampler	*wsmp;		/* sched_waking on every CPU (FTK_PROFILE_WAKEUP) */
	int			*online;	/* its CPUs */
	size_t			nr_online;
	uint32_t		waking_pid_off;	/* sched_waking's pid in the raw data */
	int			collecting_waking;
	struct perf_event_attr	attr;		/* the sampled event's */
	struct ftk_symbols	*syms;
	struct ftk_unwind	*uw;
	struct ftk_stacks	*stacks;
	unsigned int		flags;
	unsigned int		callchain;
	/* the round: copies of the records read, and their order */
	unsigned char		*buf;
	size_t			len, cap;
	struct rec_ref		*refs;
	size_t			nr_refs, cap_refs;
	struct comm		*comms[COMM_BUCKETS];
	struct pending		*pending[COMM_BUCKETS];
	struct follow		*follow[COMM_BUCKETS];
	int			following;	/* keep only followed processes' stacks */
	int			stopping;	/* the last read: use every record */
	int			task_switch;	/* off-CPU per task: PERF_RECORD_SWITCH ends waits */
	uint64_t		until;		/* records up to this time can be used */
	uint32_t		next_pid_off;	/* sched_switch's next_pid in the raw data */
	FILE			*script;	/* perf-script text of each sample, or NULL */
	char			event[64];	/* the event's name, for the script */
	char			*line;		/* the stack being folded */
	size_t			line_cap;
	struct ftk_profile_stats st;
	struct ftk_errmsg	err;
};

static int fail(struct ftk_profile *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ftk_profile *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&p->err, 0, NULL, err, fmt, ap);
	va_end(ap);
	return err;
}

static struct comm *comm_get(struct ftk_profile *p, pid_t tid, int create)
{
	struct comm **b = &p->comms[(unsigned int)tid % COMM_BUCKETS], *c;

	for (c = *b; c; c = c->next)
		if (c->tid == tid)
			return c;
	if (!create)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->tid = tid;
	c->next = *b;
	*b = c;
	return c;
}

static void comm_set(struct ftk_profile *p, pid_t tid, const char *name)
{
	struct comm *c = comm_get(p, tid, 1);

	if (c)
		snprintf(c->name, sizeof(c->name), "%s", name);
}

/*
 * The task's name: from COMM records, else /proc (while sampling: a loaded
 * profile's tasks are another time's, maybe another machine's), else ":TID"
 * as perf shows it.
 */
static const char *comm_of(struct ftk_profile *p, pid_t pid, pid_t tid)
{
	struct comm *c = comm_get(p, tid, 0);
	char path[64], *text = NULL;
	size_t len;

	if (c)
		return c->name;
	c = comm_get(p, tid, 1);
	if (!c)
		return "[unknown]";
	if (!tid) {
		snprintf(c->name, sizeof(c->name), "swapper");
		return c->name;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	if (p->smp && !ftk_read_file(path, &text, &len) && len) {
		text[strcspn(text, "\n")] = '\0';
		snprintf(c->name, sizeof(c->name), "%s", text);
	} else {
		snprintf(c->name, sizeof(c->name), ":%d", tid);
	}
	free(text);
	return c->name;
}

/*
 * Append @s to the line, with the characters a folded frame cannot hold
 * replaced (';' separates frames); @sep adds the separator first.
 */
static int put_sep(struct ftk_profile *p, size_t *at, const char *s, int sep)
{
	size_t n = strlen(s), i;

	if (*at + n + 3 > p->line_cap) {
		size_t cap = (*at + n + 3) * 2;
		char *l = realloc(p->line, cap);

		if (!l)
			return -ENOMEM;
		p->line = l;
		p->line_cap = cap;
	}
	if (sep)
		p->line[(*at)++] = ';';
	for (i = 0; i < n; i++) {
		char c = s[i];

		p->line[(*at)++] = c == ';' ? ':' : (unsigned char)c < 0x20 ? '?' : c;
	}
	p->line[*at] = '\0';
	return 0;
}

static int put(struct ftk_profile *p, size_t *at, const char *s)
{
	return put_sep(p, at, s, 0);
}

static int put_frame(struct ftk_profile *p, size_t *at, pid_t pid, uint64_t addr)
{
	int sep = *at > 0;
	struct ftk_frame f;
	char buf[512];
	const char *obj, *sl;

	ftk_symbols_resolve(p->syms, pid, addr, &f);
	switch (f.kind) {
	case FTK_FRAME_KERNEL:
		snprintf(buf, sizeof(buf), "%s_[k]", f.name);
		break;
	case FTK_FRAME_JIT:
		snprintf(buf, sizeof(buf), "%s_[j]", f.name);
		break;
	case FTK_FRAME_USER:
		snprintf(buf, sizeof(buf), "%s", f.name);
		break;
	default:
		obj = f.object;
		sl = strrchr(obj, '/');
		snprintf(buf, sizeof(buf), "[unknown] (%.255s+0x%" PRIx64 ")", sl ? sl + 1 : obj,
			 f.offset);
	}
	return put_sep(p, at, buf, sep);
}

/* The sample's frames, leaf first, into @ips; kernel ones flagged in @kern. */
static size_t frames(struct ftk_profile *p, const struct ftk_sample *s, uint64_t *ips,
		     unsigned char *ret_addr)
{
	uint64_t ctx = 0;
	size_t n = 0, i, first_in_ctx = 1;
	int astray = 0;

	/* No callchain: the IP alone (in DWARF mode, the unwinder gives it). */
	if (!s->nr_ips && !(p->callchain == FTK_CALLCHAIN_DWARF && s->regs_abi)) {
		ips[n] = s->ip;
		ret_addr[n++] = 0;
	}
	for (i = 0; i < s->nr_ips && n < MAX_FRAMES; i++) {
		uint64_t ip = s->ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			ctx = ip;
			first_in_ctx = 1;
			astray = 0;
			continue;
		}
		/*
		 * A user frame at a kernel address is not a return address: the
		 * kernel's frame-pointer walk read a slot of code built without
		 * frame pointers, and the frames it read after it are no better.
		 * Named by address it would pass for a kernel frame.
		 */
		if (ctx == PERF_CONTEXT_USER && ip >= KERNEL_START)
			astray = 1;
		if (astray || (p->callchain == FTK_CALLCHAIN_DWARF && ctx == PERF_CONTEXT_USER) ||
		    !ip)
			continue;	/* a zero ends a frame-pointer walk that went astray */
		ips[n] = ip;
		ret_addr[n++] = !first_in_ctx;
		first_in_ctx = 0;
	}
	if (p->callchain == FTK_CALLCHAIN_DWARF && s->regs_abi && n < MAX_FRAMES) {
		int k = ftk_unwind_user(p->uw, s, ips + n, MAX_FRAMES - n);

		if (k > 0) {
			p->st.unwound++;
			if (k == 1)
				p->st.unwind_short++;
			for (i = 0; i < (size_t)k; i++)
				ret_addr[n + i] = i > 0;
			n += k;
		}
	}
	return n;
}

/* Fold the sample's stack into p->line: "comm;root;...;leaf". */
static int fold(struct ftk_profile *p, const struct ftk_sample *s)
{
	uint64_t ips[MAX_FRAMES];
	unsigned char ret_addr[MAX_FRAMES];
	size_t n, at = 0, i;
	int ret = 0;

	n = frames(p, s, ips, ret_addr);
	if (!(p->flags & FTK_PROFILE_NO_COMM)) {
		char buf[64];

		if (p->flags & FTK_PROFILE_PID)
			snprintf(buf, sizeof(buf), "%s-%d", comm_of(p, s->pid, s->tid), s->pid);
		else
			snprintf(buf, sizeof(buf), "%s", comm_of(p, s->pid, s->tid));
		ret = put(p, &at, buf);
	}
	for (i = n; i-- > 0 && !ret;)
		ret = put_frame(p, &at, s->pid, ips[i] - ret_addr[i]);
	if (!ret && !at)
		ret = put(p, &at, "[unknown]");
	return ret;
}

/*
 * The sample as perf script prints a -g recording: "comm pid/tid [cpu]
 * secs.usecs: period event:", then one line a frame, leaf first, "\tADDR
 * SYM+0xOFF (OBJECT)", and a blank line; without the period (off-CPU: the
 * wait is known only when it ends) when @head is not NULL, which then
 * says where the header ends.
 */
static char *script_text(struct ftk_profile *p, const struct ftk_sample *s, long *head)
{
	uint64_t ips[MAX_FRAMES];
	unsigned char ret_addr[MAX_FRAMES];
	size_t n, i, len = 0;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	n = frames(p, s, ips, ret_addr);
	fprintf(f, "%s %d/%d [%03d] %" PRIu64 ".%06" PRIu64 ": ", comm_of(p, s->pid, s->tid),
		s->pid, s->tid, s->cpu < 0 ? 0 : s->cpu, s->time / 1000000000,
		s->time % 1000000000 / 1000);
	if (head)
		*head = ftell(f);
	else
		fprintf(f, "%" PRIu64 " %s:\n", s->period ? s->period : 1, p->event);
	for (i = 0; i < n; i++) {
		struct ftk_frame fr;

		ftk_symbols_resolve(p->syms, s->pid, ips[i] - ret_addr[i], &fr);
		if (fr.kind == FTK_FRAME_UNKNOWN)
			fprintf(f, "\t%16" PRIx64 " [unknown] (%s)\n", ips[i], fr.object);
		else
			fprintf(f, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", ips[i], fr.name,
				fr.offset + ret_addr[i], fr.object);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int script_write(struct ftk_profile *p, const struct ftk_sample *s)
{
	char *text = script_text(p, s, NULL);

	if (!text)
		return -ENOMEM;
	fprintf(p->script, "%s\n", text);
	free(text);
	return 0;
}

static int followed(struct ftk_profile *p, pid_t pid)
{
	struct follow *f;

	if (!p->following)
		return 1;
	for (f = p->follow[(unsigned int)pid % COMM_BUCKETS]; f; f = f->next)
		if (f->pid == pid)
			return 1;
	return 0;
}

static int follow_add(struct ftk_profile *p, pid_t pid)
{
	struct follow *f;

	if (p->following && followed(p, pid))
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->pid = pid;
	f->next = p->follow[(unsigned int)pid % COMM_BUCKETS];
	p->follow[(unsigned int)pid % COMM_BUCKETS] = f;
	p->following = 1;
	return 0;
}

static struct pending *pending_take(struct ftk_profile *p, pid_t tid)
{
	struct pending **pp = &p->pending[(unsigned int)tid % COMM_BUCKETS], *x;

	for (; (x = *pp); pp = &x->next) {
		if (x->tid == tid) {
			*pp = x->next;
			return x;
		}
	}
	return NULL;
}

static void pending_free(struct pending *x)
{
	if (x) {
		free(x->waker);
		free(x->script);
		free(x->stack);
		free(x);
	}
}

/* Off-CPU: @tid runs again at @time, which ends its wait (if one is pending). */
static int off_cpu_end(struct ftk_profile *p, pid_t tid, uint64_t time)
{
	struct pending *x = pending_take(p, tid);
	int ret = 0;

	if (!x)
		return 0;
	if (time > x->time) {
		if (x->waker) {	/* "blocked;--;waker", as offwaketime's folded output */
			size_t n = strlen(x->stack) + strlen(x->waker) + 5;

			if (n > p->line_cap) {
				char *l = realloc(p->line, n);

				if (!l)
					return -ENOMEM;
				p->line = l;
				p->line_cap = n;
			}
			snprintf(p->line, n, "%s;--;%s", x->stack, x->waker);
		}
		if (!ret)
			ret = ftk_stacks_add(p->stacks, x->waker ? p->line : x->stack,
					     (time - x->time) / 1000);
		if (x->script)	/* the period: microseconds off the CPU */
			fprintf(p->script, "%.*s%" PRIu64 " %s:\n%s\n", (int)x->head, x->script,
				(time - x->time) / 1000, p->event, x->script + x->head);
	}
	pending_free(x);
	if (!ret)
		p->st.samples++;
	return ret;
}

/*
 * Off-CPU: a sched_switch sample starts a wait of the task switched out.
 * Sampled per task (p->task_switch), the task's own PERF_RECORD_SWITCH in
 * ends it; sampled per CPU, the switch's next_pid does.
 */
static int off_cpu(struct ftk_profile *p, const struct ftk_sample *s)
{
	struct pending *x;
	int32_t next;
	int ret;

	if (!p->task_switch) {
		if (s->raw_size < p->next_pid_off + 4)
			return 0;
		memcpy(&next, (const char *)s->raw + p->next_pid_off, 4);
		ret = off_cpu_end(p, next, s->time);
		if (ret)
			return ret;
	}
	if (!s->tid || !followed(p, s->pid))
		return 0;	/* the idle task's waits are idle time */
	ret = fold(p, s);
	if (ret)
		return ret;
	pending_free(pending_take(p, s->tid));
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->tid = s->tid;
	x->time = s->time;
	if (p->script && !(x->script = script_text(p, s, &x->head))) {
		free(x);
		return -ENOMEM;
	}
	x->stack = strdup(p->line);
	if (!x->stack) {
		pending_free(x);
		return -ENOMEM;
	}
	x->next = p->pending[(unsigned int)s->tid % COMM_BUCKETS];
	p->pending[(unsigned int)s->tid % COMM_BUCKETS] = x;
	return 0;
}

/* --wakeup: a sched_waking sample of a task waiting gives it its waker's stack. */
static int waking(struct ftk_profile *p, const struct ftk_sample *s)
{
	struct pending *x;
	int32_t pid;
	int ret;

	if (s->raw_size < p->waking_pid_off + 4)
		return 0;
	memcpy(&pid, (const char *)s->raw + p->waking_pid_off, 4);
	for (x = p->pending[(unsigned int)pid % COMM_BUCKETS]; x && x->tid != pid; x = x->next)
		;
	if (!x || s->time < x->time)
		return 0;
	ret = fold(p, s);
	if (ret)
		return ret;
	free(x->waker);
	x->waker = strdup(p->line);
	return x->waker ? 0 : -ENOMEM;
}

static int use(struct ftk_profile *p, const struct ftk_sample *s)
{
	struct comm *c;
	int ret;

	switch (s->type) {
	case PERF_RECORD_SAMPLE:
		if (p->flags & FTK_PROFILE_OFF_CPU)
			return off_cpu(p, s);
		if (!followed(p, s->pid))
			return 0;
		ret = fold(p, s);
		if (!ret)
			ret = ftk_stacks_add(p->stacks, p->line, 1);
		if (!ret && p->script)
			ret = script_write(p, s);
		if (!ret)
			p->st.samples++;
		return ret;
	case PERF_RECORD_SWITCH:
		if (p->task_switch && !(s->misc & PERF_RECORD_MISC_SWITCH_OUT))
			return off_cpu_end(p, s->tid, s->time);
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!(s->prot & PROT_EXEC) || s->pid == -1)
			return 0;
		return ftk_symbols_mmap(p->syms, s->pid, s->addr, s->len, s->pgoff, s->filename,
					s->maj, s->min, s->ino) == -ENOMEM ? -ENOMEM : 0;
	case PERF_RECORD_COMM:
		if (s->misc & PERF_RECORD_MISC_COMM_EXEC)
			ftk_symbols_exec(p->syms, s->pid);
		comm_set(p, s->tid, s->comm);
		return 0;
	case PERF_RECORD_FORK:
		if (p->following && s->pid != s->ppid && followed(p, s->ppid) && follow_add(p, s->pid))
			return -ENOMEM;
		c = comm_get(p, s->ptid, 0);
		if (c)
			comm_set(p, s->tid, c->name);
		return ftk_symbols_fork(p->syms, s->ppid, s->pid) == -ENOMEM ? -ENOMEM : 0;
	default:
		return 0;
	}
}

/* Copy each record of a read into the round. */
static int collect(const struct ftk_sample *s, void *ctx)
{
	struct ftk_profile *p = ctx;
	size_t size = s->header->size;

	if (p->len + size > p->cap) {
		size_t cap = (p->len + size) * 2;
		unsigned char *b = realloc(p->buf, cap);

		if (!b)
			return -ENOMEM;
		p->buf = b;
		p->cap = cap;
	}
	if (p->nr_refs == p->cap_refs) {
		size_t cap = p->cap_refs ? p->cap_refs * 2 : 4096;
		struct rec_ref *r = realloc(p->refs, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		p->refs = r;
		p->cap_refs = cap;
	}
	memcpy(p->buf + p->len, s->header, size);
	p->refs[p->nr_refs] = (struct rec_ref){ s->time, p->len, p->nr_refs,
						p->collecting_waking };
	p->nr_refs++;
	p->len += size;
	return 0;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int use_until(struct ftk_profile *p, const unsigned char *base, uint64_t until,
		     size_t *used);

/* Sort the round's records (at @base + refs' offsets) by time, and use them. */
static int use_round(struct ftk_profile *p, const unsigned char *base)
{
	return use_until(p, base, ~0ULL, NULL);
}

/*
 * Use the sorted records up to time @until; *@used (if not NULL) says how
 * many. The rings are read one after the other, so a record of one ring can
 * arrive a read later than a later record of another: records newer than
 * the newest of the previous read wait for the next one (perf's
 * FINISHED_ROUND rule), so that a switch out comes before the switch back
 * in and an MMAP2 before the samples it names.
 */
static int use_until(struct ftk_profile *p, const unsigned char *base, uint64_t until,
		     size_t *used)
{
	size_t i;
	int ret = 0;

	if (p->nr_refs)		/* refs is NULL until a record came */
		qsort(p->refs, p->nr_refs, sizeof(*p->refs), ref_cmp);
	for (i = 0; i < p->nr_refs && !ret && p->refs[i].time <= until; i++) {
		const struct perf_event_header *h = (const void *)(base + p->refs[i].off);
		struct ftk_sample s;

		if (ftk_sample_parse(h, h->size, &p->attr, &s)) {
			p->st.malformed++;
			continue;
		}
		ret = p->refs[i].waking ? (s.type == PERF_RECORD_SAMPLE ? waking(p, &s) : 0) :
		      use(p, &s);
	}
	if (used)
		*used = i;
	return ret;
}

/* Keep the records after the first @used for the next read, at the buffer's start. */
static int carry_over(struct ftk_profile *p, size_t used)
{
	unsigned char *nb;
	size_t i, len = 0;

	if (used == p->nr_refs) {
		p->len = p->nr_refs = 0;
		return 0;
	}
	for (i = used; i < p->nr_refs; i++)
		len += ((const struct perf_event_header *)(p->buf + p->refs[i].off))->size;
	nb = malloc(len ? len : 1);
	if (!nb)
		return -ENOMEM;
	len = 0;
	for (i = used; i < p->nr_refs; i++) {
		size_t size = ((const struct perf_event_header *)(p->buf + p->refs[i].off))->size;

		memcpy(nb + len, p->buf + p->refs[i].off, size);
		p->refs[i - used] = (struct rec_ref){ p->refs[i].time, len, i - used,
						      p->refs[i].waking };
		len += size;
	}
	free(p->buf);
	p->buf = nb;
	p->cap = len ? len : 1;
	p->len = len;
	p->nr_refs -= used;
	return 0;
}

/*
 * The offset of @field in sys:ev's raw data, from the caller's look-up
 * (struct ftk_sample_opts' tracepoints): the perf side reads no tracefs.
 */
static int find_field(struct ftk_profile *p, const struct ftk_sample_opts *o, const char *sys,
		      const char *ev, const char *field, uint32_t *off)
{
	const struct ftk_tracepoints *tp = OPTS_HAS(o, tracepoints) ? o->tracepoints : NULL;
	int ret;

	if (!tp || !tp->field)
		return fail(p, -ENOENT, "%s:%s: no tracepoints were handed in for its %s field "
			    "(ftk_event_tracepoints())", sys, ev, field);
	ret = tp->field(tp->arg, sys, ev, field, off);
	if (ret)
		return fail(p, ret, "%s:%s: no offset of its %s field: %s", sys, ev, field,
			    ret == -ENOENT ? "no such event or field (is tracefs mounted?)" :
			    strerror(-ret));
	return 0;
}

/* --wakeup: sched:sched_waking, sampled as the switches are, on every CPU (wakers are anywhere). */
static int open_waking(struct ftk_profile *p, const struct ftk_sample_opts *o)
{
	struct ftk_sample_opts wo = *o;
	int ret;

	ret = find_field(p, o, "sched", "sched_waking", "pid", &p->waking_pid_off);
	if (ret)
		return ret;
	ret = ftk_perf_online_cpus(&p->online, &p->nr_online);
	if (ret)
		return fail(p, ret, "/sys/devices/system/cpu/online: %s", strerror(-ret));
	wo.event = "sched:sched_waking";
	wo.flags &= ~(FTK_SAMPLE_INHERIT | FTK_SAMPLE_ON_EXEC | FTK_SAMPLE_SWITCH);
	ret = ftk_sampler_open(&wo, p->online, p->nr_online, NULL, 0, &p->wsmp);
	if (!ret)
		ret = ftk_sampler_enable(p->wsmp);
	if (ret)
		return fail(p, ret, "sched:sched_waking (--wakeup): %s",
			    p->wsmp ? ftk_sampler_errmsg(p->wsmp) : strerror(-ret));
	return 0;
}

/**
 * ftk_profile_open() - open a sampling profile
 * @o: the sampling options (event, frequency or period, call-graph mode,
 *     ring size, flags) as for ftk_sampler_open()
 * @flags: FTK_PROFILE_NO_COMM, FTK_PROFILE_PID, FTK_PROFILE_OFF_CPU,
 *	   FTK_PROFILE_NO_DEMANGLE, FTK_PROFILE_WAKEUP (with OFF_CPU: each
 *	   wait "BLOCKED;--;WAKER", the waker from sched:sched_waking sampled
 *	   on every CPU)
 * @cpus: CPUs, or NULL
 * @nr_cpus: entries in @cpus
 * @tids: threads or processes, or NULL for every task on @cpus
 * @nr_tids: entries in @tids
 * @out: the profile
 *
 * With FTK_PROFILE_OFF_CPU the event is sched:sched_switch, every switch
 * sampled (period 1) with its callchain, which weighs the time until the
 * task runs again. Opened on @tids, the event sees only their switches
 * out, and their switches back in come as PERF_RECORD_SWITCH records of
 * the same event: nothing of other tasks fills the rings. Opened on @cpus
 * alone, it sees every task's switches, and the switch's next_pid (its
 * offset from @o's tracepoints, as the tracepoint ids: the perf side reads
 * no tracefs) ends a wait; ftk_profile_follow() then picks the processes
 * wanted.
 *
 * Return: 0 or a negative errno. *@out must be freed with
 * ftk_profile_free() in every case; on failure ftk_profile_errmsg() says why.
 */
FTK_API int ftk_profile_open(const struct ftk_sample_opts *o, unsigned int flags, const int *cpus,
			     size_t nr_cpus, const pid_t *tids, size_t nr_tids,
			     struct ftk_profile **out)
{
	struct ftk_sample_opts so = *o;
	struct ftk_profile *p;
	int ret;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return ftk_err(-ENOMEM);
	*out = p;
	p->flags = flags;
	p->callchain = o->callchain;
	if (ftk_stacks_new(&p->stacks) ||
	    ftk_symbols_new(flags & FTK_PROFILE_NO_DEMANGLE ? FTK_SYMBOLS_NO_DEMANGLE : 0,
			    &p->syms) ||
	    ftk_unwind_new(p->syms, &p->uw))
		return ftk_err(fail(p, -ENOMEM, "out of memory"));
	if (flags & FTK_PROFILE_OFF_CPU) {
		/* -f top: a wait's self goes to what waited, not to __schedule */
		ftk_stacks_set_flags(p->stacks, FTK_STACKS_WAITS);
		/*
		 * Per task, not every switch of the machine: a busy machine's
		 * switches (8 KiB of stack each in DWARF mode) filled the rings,
		 * and each switch lost dropped a wait.
		 */
		p->task_switch = tids && nr_tids;
		if (p->task_switch) {
			so.flags |= FTK_SAMPLE_SWITCH;
		} else {
			ret = find_field(p, o, "sched", "sched_switch", "next_pid",
					 &p->next_pid_off);
			if (ret)
				return ftk_err(ret);
		}
		so.event = "sched:sched_switch";
		so.period = 1;
		so.freq = 0;
	}
	snprintf(p->event, sizeof(p->event), "%s", so.event ? so.event : "cpu-clock");
	ret = ftk_sampler_open(&so, cpus, nr_cpus, tids, nr_tids, &p->smp);
	if (ret) {
		fail(p, ret, "%s", p->smp ? ftk_sampler_errmsg(p->smp) : strerror(-ret));
		return ftk_err(ret);
	}
	if ((flags & FTK_PROFILE_WAKEUP) && (flags & FTK_PROFILE_OFF_CPU)) {
		ret = open_waking(p, &so);
		if (ret)
			return ftk_err(ret);
	}
	p->st.nr_rings = ftk_sampler_nr_rings(p->smp, &p->st.mmap_pages);
	p->attr = *ftk_sampler_attr(p->smp);
	return 0;
}

/* perf.data's header (tools/perf/util/header.h): what this reader needs of it. */
struct perf_file_section {
	uint64_t	offset, size;
};

struct perf_file_header {
	uint64_t			magic;
	uint64_t			size;
	uint64_t			attr_size;
	struct perf_file_section	attrs;
	struct perf_file_section	data;
	struct perf_file_section	event_types;
	uint64_t			features[4];
};

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_USER_TYPES	64			/* PERF_RECORD_USER_TYPE_START */

static int in_map(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* Every record of the data section, checked, its time noted; then used in time order. */
static int load_records(struct ftk_profile *p, const unsigned char *map, size_t size,
			const struct perf_file_section *data, const char *path)
{
	uint64_t off = data->offset, end = data->offset + data->size;
	struct ftk_sample s;

	while (off < end) {
		struct perf_event_header h;

		if (end - off < sizeof(h))
			return fail(p, -EBADMSG, "%s: a record header cut short at %" PRIu64, path, off);
		memcpy(&h, map + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > end - off)
			return fail(p, -EBADMSG, "%s: bad record size %u at offset %" PRIu64, path,
				    h.size, off);
		/* The kernel pads records to 8 bytes; a sample's callchain is read in place. */
		if (off % 8 || h.size % 8)
			return fail(p, -EBADMSG, "%s: a record not 8-byte aligned (size %u) at offset %"
				    PRIu64, path, h.size, off);
		if (h.type < PERF_USER_TYPES) {
			if (ftk_sample_parse(map + off, h.size, &p->attr, &s)) {
				p->st.malformed++;
			} else {
				if (p->nr_refs == p->cap_refs) {
					size_t cap = p->cap_refs ? p->cap_refs * 2 : 4096;
					struct rec_ref *r = realloc(p->refs, cap * sizeof(*r));

					if (!r)
						return fail(p, -ENOMEM, "out of memory");
					p->refs = r;
					p->cap_refs = cap;
				}
				p->refs[p->nr_refs] = (struct rec_ref){ s.time, off, p->nr_refs, 0 };
				p->nr_refs++;
				if (s.type == PERF_RECORD_LOST)
					p->st.lost += s.lost;
				else if (s.type == PERF_RECORD_LOST_SAMPLES)
					p->st.lost_samples += s.lost;
			}
		}
		off += h.size;
	}
	if (use_round(p, map))
		return fail(p, -ENOMEM, "out of memory");
	return 0;
}

/**
 * ftk_profile_load() - a profile from a perf.data file
 * @path: the file, as perf record writes it (not its pipe format)
 * @flags: as for ftk_profile_open(); FTK_PROFILE_OFF_CPU is not taken
 * @out: the profile, whose stacks ftk_profile_stacks() gives
 *
 * Reads the first event's attribute (every event of the file must have its
 * sample layout) and the data section's records, puts them in time order
 * and folds the samples as ftk_profile_read() does: frame-pointer
 * callchains, or DWARF samples (user registers and stack) unwound here.
 * Objects are read from the paths of the MMAP records, as perf report does;
 * nothing is read of /proc, whose processes are not the file's.
 *
 * Return: 0; -ENOENT and the like for the file; -EBADMSG for a file that is
 * not perf.data, is cut short or has bad sizes; -EOPNOTSUPP for the pipe
 * format or events of different sample layouts. *@out must be freed with
 * ftk_profile_free() in every case; ftk_profile_errmsg() says why.
 */
FTK_API int ftk_profile_load(const char *path, unsigned int flags, struct ftk_profile **out)
{
	return ftk_profile_load_script(path, flags, NULL, out);
}

/* The sampled event's name as perf names the usual ones, for the script. */
static void event_name(struct ftk_profile *p)
{
	const struct perf_event_attr *a = &p->attr;
	const char *n = a->type == PERF_TYPE_HARDWARE && a->config == PERF_COUNT_HW_CPU_CYCLES ? "cycles" :
			a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CPU_CLOCK ? "cpu-clock" :
			a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_TASK_CLOCK ? "task-clock" :
			a->type == PERF_TYPE_TRACEPOINT ? "tracepoint" : "event";

	snprintf(p->event, sizeof(p->event), "%s", n);
}

static int load_buf(unsigned char *map, size_t size, const char *path, unsigned int flags,
		    FILE *script, struct ftk_profile **out);

/**
 * ftk_profile_load_script() - a profile from a perf.data file, and its samples as perf script text
 * @path: as for ftk_profile_load(); a FIFO or a pipe is read to its end
 * @flags: as for ftk_profile_load()
 * @script: where each sample is written as perf script prints it (see
 *	    ftk_profile_script()), or NULL
 * @out: as for ftk_profile_load()
 *
 * The file is read into memory (as large as the file), not mapped: a file
 * cut short while it is read is a short file, not a SIGBUS.
 *
 * Return: as ftk_profile_load().
 */
FTK_API int ftk_profile_load_script(const char *path, unsigned int flags, FILE *script,
				    struct ftk_profile **out)
{
	char *data = NULL;
	size_t size = 0;
	struct stat st;
	int fd, ret;

	*out = NULL;
	/* O_NONBLOCK: a FIFO with no writer must not hang open(); it reads as empty. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
	} else if (S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(fd);
		ret = -EBADMSG;
	} else {
		ret = ftk_read_fd(fd, &data, &size);
		close(fd);
	}
	if (!ret)
		return ftk_err(load_buf((unsigned char *)data, size, path, flags, script, out));
	load_buf(NULL, 0, path, flags, script, out);	/* only the profile, for the message */
	if (*out)
		fail(*out, ret, ret == -EBADMSG ? "'%s' is not a perf.data file" :
		     "cannot open '%s': %s", path, strerror(-ret));
	return ftk_err(ret);
}

/**
 * ftk_profile_load_mem() - a profile from a perf.data file's content in memory
 * @data: the file's bytes (any alignment), not kept
 * @size: their number
 * @name: the file's name, for messages
 * @flags: as for ftk_profile_load()
 * @script: as for ftk_profile_load_script()
 * @out: as for ftk_profile_load()
 *
 * For a caller that read the file already (standard input, a pipe it
 * looked into): what ftk_profile_load_script() does with the file.
 * Memory: a copy of @data, and the records' index (32 bytes a record).
 *
 * Return: as ftk_profile_load().
 */
FTK_API int ftk_profile_load_mem(const void *data, size_t size, const char *name,
				 unsigned int flags, FILE *script, struct ftk_profile **out)
{
	/* A copy of our own, 8-byte aligned: records are read in place. */
	unsigned char *map = data ? malloc(size ? size : 1) : NULL;

	if (map)
		memcpy(map, data, size);
	return ftk_err(load_buf(map, size, name ? name : "perf.data", flags, script, out));
}

/*
 * The perf.data content at @map (malloc'd, taken and freed here; NULL: no
 * content, only the profile made for the message).
 */
static int load_buf(unsigned char *map, size_t size, const char *path, unsigned int flags,
		    FILE *script, struct ftk_profile **out)
{
	struct perf_file_header h;
	struct ftk_profile *p;
	uint64_t attr_len, i;
	int ret = 0;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(map);
		return -ENOMEM;
	}
	*out = p;
	p->flags = flags & ~FTK_PROFILE_OFF_CPU;
	p->script = script;
	if (ftk_stacks_new(&p->stacks) ||
	    ftk_symbols_new(FTK_SYMBOLS_NO_PROC | (flags & FTK_PROFILE_NO_DEMANGLE ?
						   FTK_SYMBOLS_NO_DEMANGLE : 0), &p->syms) ||
	    ftk_unwind_new(p->syms, &p->uw)) {
		free(map);
		return fail(p, -ENOMEM, "out of memory");
	}
	if (!map)
		return fail(p, -ENOMEM, "out of memory");
	if (size < sizeof(h)) {
		free(map);
		return fail(p, -EBADMSG, "'%s' is not a perf.data file", path);
	}
	memcpy(&h, map, sizeof(h));
	if (h.magic != PERF_MAGIC2)
		ret = fail(p, -EBADMSG, "'%s' is not a perf.data file (no PERFILE2 magic)", path);
	else if (h.size != sizeof(h))
		ret = fail(p, -EOPNOTSUPP, "'%s': perf's pipe format, or a header of %" PRIu64
			   " bytes, is not read here", path, h.size);
	else if (h.attr_size < 16 + PERF_ATTR_SIZE_VER0 || !h.attrs.size ||
		 h.attrs.size % h.attr_size || !in_map(size, h.attrs.offset, h.attrs.size) ||
		 !in_map(size, h.data.offset, h.data.size))
		ret = fail(p, -EBADMSG, "'%s': the header's sections do not fit the file", path);
	if (ret)
		goto out;
	/* perf_file_attr: the attribute (attr_size - 16 bytes), then its ids' section. */
	attr_len = h.attr_size - 16;
	for (i = 0; i < h.attrs.size / h.attr_size; i++) {
		struct perf_event_attr a = { 0 };

		memcpy(&a, map + h.attrs.offset + i * h.attr_size,
		       attr_len < sizeof(a) ? attr_len : sizeof(a));
		if (!i) {
			p->attr = a;
		} else if (a.sample_type != p->attr.sample_type ||
			   a.sample_regs_user != p->attr.sample_regs_user) {
			ret = fail(p, -EOPNOTSUPP, "'%s': events with different sample layouts are not read here",
				   path);
			goto out;
		}
	}
	if (p->attr.sample_type & PERF_SAMPLE_READ) {
		ret = fail(p, -EOPNOTSUPP, "'%s': samples with PERF_SAMPLE_READ are not read here",
			   path);
		goto out;
	}
	event_name(p);
	p->callchain = p->attr.sample_type & PERF_SAMPLE_STACK_USER ? FTK_CALLCHAIN_DWARF :
		       p->attr.sample_type & PERF_SAMPLE_CALLCHAIN ? FTK_CALLCHAIN_FP :
		       FTK_CALLCHAIN_NONE;
	ret = load_records(p, map, size, &h.data, path);
out:
	free(map);
	return ret;
}

/** ftk_profile_free() - close the sampler and free everything; NULL is fine */
FTK_API void ftk_profile_free(struct ftk_profile *p)
{
	struct comm *c, *cn;
	struct pending *x, *xn;
	struct follow *f, *fn;
	size_t i;

	if (!p)
		return;
	ftk_sampler_free(p->smp);
	ftk_sampler_free(p->wsmp);
	free(p->online);
	ftk_unwind_free(p->uw);
	ftk_symbols_free(p->syms);
	ftk_stacks_free(p->stacks);
	for (i = 0; i < COMM_BUCKETS; i++) {
		for (c = p->comms[i]; c; c = cn) {
			cn = c->next;
			free(c);
		}
		for (x = p->pending[i]; x; x = xn) {
			xn = x->next;
			pending_free(x);
		}
		for (f = p->follow[i]; f; f = fn) {
			fn = f->next;
			free(f);
		}
	}
	free(p->buf);
	free(p->refs);
	free(p->line);
	free(p);
}

/**
 * ftk_profile_follow() - keep only the stacks of a process and its descendants
 * @p: the profile
 * @pid: a process; those it forks from now on (FORK records) are added
 *
 * Without a call, every sample counts. With CPU-wide sampling (off-CPU
 * time needs it), this picks a command or -p processes out of the rest.
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_profile_follow(struct ftk_profile *p, pid_t pid)
{
	return ftk_err(follow_add(p, pid));
}

/**
 * ftk_profile_script() - write each sample as perf script prints a -g recording
 * @p: the profile, before its first read
 * @f: the stream, or NULL for none
 *
 * Each sample taken into the stacks is also written to @f as "comm
 * pid/tid [cpu] secs.usecs: period event:", one line a frame, leaf first
 * ("\tADDR SYM+0xOFF (OBJECT)", or "[unknown] (OBJECT)"), and a blank
 * line: what stackcollapse-perf.pl and speedscope read. In off-CPU mode a
 * wait is written when it ends, stamped with its start, its period the
 * microseconds off the CPU.
 */
FTK_API void ftk_profile_script(struct ftk_profile *p, FILE *f)
{
	p->script = f;
}

/** ftk_profile_errmsg() - the last failure's text, owned by @p; "" if none */
FTK_API const char *ftk_profile_errmsg(const struct ftk_profile *p)
{
	return p ? p->err.text : "";
}

/** ftk_profile_enable() - start sampling (unless it starts at the target's exec); 0 or -errno */
FTK_API int ftk_profile_enable(struct ftk_profile *p)
{
	int ret = p->smp ? ftk_sampler_enable(p->smp) : -EINVAL;

	if (ret)
		fail(p, ret, "%s", p->smp ? ftk_sampler_errmsg(p->smp) : "a loaded profile samples nothing");
	return ftk_err(ret);
}

/**
 * ftk_profile_read() - wait for samples, then take every ring's records into the profile
 * @p: the profile
 * @timeout_ms: how long to wait for a ring to fill a quarter (0: not at all)
 *
 * Return: 0, -ENOMEM, or -EBADMSG when a ring held a malformed record (it
 * is skipped and counted in the stats; reading goes on).
 */
FTK_API int ftk_profile_read(struct ftk_profile *p, int timeout_ms)
{
	int ret, r2 = 0;

	if (!p->smp)
		return 0;
	size_t used, i;
	uint64_t newest = 0;

	ret = ftk_sampler_read(p->smp, timeout_ms, collect, p);
	if (p->wsmp && (!ret || ret == -EBADMSG)) {
		int r = 0;

		p->collecting_waking = 1;
		r = ftk_sampler_read(p->wsmp, 0, collect, p);
		p->collecting_waking = 0;
		if (r && r != -EBADMSG)
			return ftk_err(fail(p, r, "%s", r == -ENOMEM ? "out of memory" :
					    ftk_sampler_errmsg(p->wsmp)));
	}
	if (ret == -EBADMSG)
		p->st.malformed++;
	else if (ret)
		return ftk_err(fail(p, ret, "%s", ret == -ENOMEM ? "out of memory" :
				    ftk_sampler_errmsg(p->smp)));
	for (i = 0; i < p->nr_refs; i++)
		if (p->refs[i].time > newest)
			newest = p->refs[i].time;
	/* Stopped: everything is in, use it all. */
	r2 = use_until(p, p->buf, p->stopping ? ~0ULL : p->until, &used);
	if (!r2)
		r2 = carry_over(p, used);
	if (newest > p->until)
		p->until = newest;
	ftk_sampler_lost(p->smp, &p->st.lost, &p->st.lost_samples);
	if (p->wsmp) {	/* lost wakings: waits without their waker */
		uint64_t l, ls;

		ftk_sampler_lost(p->wsmp, &l, &ls);
		p->st.lost += l;
		p->st.lost_samples += ls;
	}
	if (r2)
		return ftk_err(fail(p, r2, "out of memory"));
	return ftk_err(ret);
}

/**
 * ftk_profile_stop() - stop sampling and take what the rings still hold
 * @p: the profile
 *
 * Return: 0 or as ftk_profile_read().
 */
FTK_API int ftk_profile_stop(struct ftk_profile *p)
{
	if (!p->smp)
		return 0;
	ftk_sampler_disable(p->smp);
	if (p->wsmp)
		ftk_sampler_disable(p->wsmp);
	p->stopping = 1;
	return ftk_profile_read(p, 0);
}

/** ftk_profile_stats() - samples taken, lost, unwound; see struct ftk_profile_stats */
FTK_API void ftk_profile_stats(const struct ftk_profile *p, struct ftk_profile_stats *st)
{
	*st = p->st;
}

/** ftk_profile_stacks() - the folded stacks so far, owned by the profile */
FTK_API struct ftk_stacks *ftk_profile_stacks(struct ftk_profile *p)
{
	return p->stacks;
}

/** ftk_profile_symbols() - the profile's symbol index (for ftk_symbols_kernel_note()) */
FTK_API struct ftk_symbols *ftk_profile_symbols(struct ftk_profile *p)
{
	return p->syms;
}
