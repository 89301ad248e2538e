// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sample: sampling perf events and reading their mmap ring buffers.
 *
 * One event (parsed by the perf module's parser, so that every name ftstat
 * takes works here) is opened on each CPU (system wide or a CPU list) or
 * on each thread, each with its own ring: a header page and 2^n data
 * pages. The reader takes data_head with acquire order, walks whole
 * records (copying one that wraps the end of the ring into a scratch
 * buffer), and gives the space back with a release store of data_tail,
 * as tools/lib/perf/mmap.c does; libperf is not packaged for Debian 12.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include <ftkit/perf.h>
#include <ftkit/perfstat.h>
#include <ftkit/sample.h>

#include "internal.h"
#include "perf-local.h"

/*
 * x86_64: the user registers DWARF unwinding may need, as perf samples them:
 * the general ones and IP (PERF_REG_X86_AX..IP, R8..R15), not flags or segments.
 */
#define REGS_MASK	(((1ULL << (PERF_REG_X86_IP + 1)) - 1) | \
			 (((1ULL << (PERF_REG_X86_R15 + 1)) - 1) & ~((1ULL << PERF_REG_X86_R8) - 1)))

struct ring {
	int			fd;
	struct perf_event_mmap_page *page;	/* header page; data follows */
	unsigned char		*data;
	size_t			size;		/* data bytes, a power of 2 */
};

struct ftk_sampler {
	struct perf_event_attr	attr;
	struct ring		*rings;
	size_t			nr_rings;
	struct pollfd		*pfd;
	int			*online;	/* the online CPUs, when it found them */
	unsigned char		*scratch;	/* a record that wraps, made whole */
	size_t			scratch_size;
	uint64_t		lost;		/* PERF_RECORD_LOST: records the ring had no room for */
	uint64_t		lost_samples;	/* PERF_RECORD_LOST_SAMPLES */
	size_t			page_size;
	struct ftk_errmsg	err;
};

static int fail(struct ftk_sampler *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ftk_sampler *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftk_errmsg_vset(&s->err, 0, NULL, err, fmt, ap);
	va_end(ap);
	return err;
}

/* The attribute of @o's event, from the perf module's parser. */
static int make_attr(struct ftk_sampler *s, const struct ftk_sample_opts *o)
{
	struct perf_event_attr *a = &s->attr;
	const char *spec = o->event ? o->event : "cpu-clock";
	struct ftk_perf *p;
	int ret;

	ret = ftk_perf_new(NULL, OPTS_HAS(o, tracepoints) ? o->tracepoints : NULL, &p);
	if (ret)
		return fail(s, ret, "out of memory");
	ret = ftk_perf_add(p, spec);
	if (ret) {
		fail(s, ret, "%s", ftk_perf_errmsg(p));
		ftk_perf_free(p);
		return ret;
	}
	if (ftk_perf_nr_events(p) != 1) {
		ftk_perf_free(p);
		return fail(s, -EINVAL, "'%s': give one event to sample, not a list or group", spec);
	}
	*a = *ftk_perf_attr(p, 0);
	ftk_perf_free(p);

	a->size = sizeof(*a);
	if (o->period) {
		a->sample_period = o->period;
		a->freq = 0;
	} else {
		a->sample_freq = o->freq ? o->freq : 99;
		a->freq = 1;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW;
	switch (o->callchain) {
	case FTK_CALLCHAIN_NONE:
		break;
	case FTK_CALLCHAIN_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case FTK_CALLCHAIN_DWARF:
		/* The kernel part by its own walk; the user part from the copied stack. */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = REGS_MASK;
		a->sample_stack_user = o->stack_size ? o->stack_size : 8192;
		if (a->sample_stack_user % 8 || a->sample_stack_user > 65528)
			return fail(s, -EINVAL, "stack size %u: want a multiple of 8 up to 65528",
				    a->sample_stack_user);
		break;
	case FTK_CALLCHAIN_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
		break;
	default:
		return fail(s, -EINVAL, "unknown call-graph mode %u", o->callchain);
	}
	if (o->flags & FTK_SAMPLE_USER)
		a->exclude_kernel = a->exclude_hv = 1;
	a->inherit = !!(o->flags & FTK_SAMPLE_INHERIT);
	a->disabled = 1;
	a->enable_on_exec = !!(o->flags & FTK_SAMPLE_ON_EXEC);
	a->context_switch = !!(o->flags & FTK_SAMPLE_SWITCH);
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	a->sample_id_all = 1;
	a->watermark = 1;
	return 0;
}

/* Ring data pages: enough for 1/4 s of samples at 999 Hz between reads. */
static unsigned int pick_pages(const struct ftk_sample_opts *o, size_t page_size)
{
	size_t bytes;

	if (o->mmap_pages)
		return o->mmap_pages;
	bytes = o->callchain == FTK_CALLCHAIN_DWARF ? 4u << 20 : 512u << 10;
	return bytes / page_size;
}

/*
 * perf record's fallback: where the CPU has no hardware PMU (a VM, a
 * locked-down host), cycles fails with ENOENT, ENXIO or ENODEV, and the
 * hrtimer's cpu-clock samples in its place; said as a warning. 1 when
 * @s->attr was changed and the open is worth trying again.
 */
static int cycles_fallback(struct ftk_sampler *s, const struct ftk_sample_opts *o, int err)
{
	struct perf_event_attr *a = &s->attr;

	if (a->type != PERF_TYPE_HARDWARE || a->config != PERF_COUNT_HW_CPU_CYCLES ||
	    (err != ENOENT && err != ENXIO && err != ENODEV))
		return 0;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->precise_ip = 0;
	pr_warn("%s: not supported here (%s: no hardware PMU?): sampling cpu-clock instead, as perf does\n",
		o->event ? o->event : "cycles", strerror(err));
	return 1;
}

/**
 * ftk_sampler_open() - open a sampling event with a ring buffer per CPU or thread
 * @o: what to sample (FTK_OPTS(ftk_sample_opts, ...))
 * @cpus: CPU numbers, or NULL for the threads wherever they run
 * @nr_cpus: entries in @cpus
 * @tids: thread (or process, with FTK_SAMPLE_INHERIT) ids, or NULL for every task
 * @nr_tids: entries in @tids
 * @out: the sampler
 *
 * The event is opened disabled (with FTK_SAMPLE_ON_EXEC it starts at the
 * target's exec), with MMAP2, COMM, FORK and EXIT records and each record
 * stamped with its pid, tid, time and CPU. With both @cpus and @tids, each
 * thread is sampled on each CPU and gets a ring per pair.
 * FTK_CALLCHAIN_LBR fails with -EOPNOTSUPP and "not supported here" where
 * the CPU has no last branch records. Where cycles cannot be opened (no
 * hardware PMU), cpu-clock is sampled instead, with a warning, as perf
 * record does; ftk_sampler_attr() tells which.
 *
 * Return: 0, -EINVAL for bad options, or the negative errno of
 * perf_event_open(2) or mmap(2). *@out must be freed with
 * ftk_sampler_free() in every case: on failure it holds nothing open but
 * ftk_sampler_errmsg() naming the event, CPU or thread and the reason
 * (it is NULL only when even that could not be allocated).
 */
FTK_API int ftk_sampler_open(const struct ftk_sample_opts *o, const int *cpus, size_t nr_cpus,
			     const pid_t *tids, size_t nr_tids, struct ftk_sampler **out)
{
	const char *name = o->event ? o->event : "cpu-clock";
	size_t c, t, nc, nt, pages;
	struct ftk_sampler *s;
	int *online = NULL;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ftk_err(-ENOMEM);
	*out = s;
	s->page_size = sysconf(_SC_PAGESIZE);
	ret = make_attr(s, o);
	if (ret)
		return ftk_err(ret);
	pages = pick_pages(o, s->page_size);
	if (!pages || (pages & (pages - 1)))
		return ftk_err(fail(s, -EINVAL, "%zu ring pages: want a power of 2", pages));
	/* Wake a poller when a quarter of the ring is full. */
	s->attr.wakeup_watermark = pages * s->page_size / 4;
	if ((!cpus || !nr_cpus) && (!tids || !nr_tids))
		return ftk_err(fail(s, -EINVAL, "no CPU and no thread to sample"));
	/*
	 * The kernel maps no ring of an inherited event on "any CPU" (perf_mmap's
	 * EINVAL for cpu -1 with inherit): a task and its children are sampled
	 * on each online CPU instead, as perf record does.
	 */
	if ((!cpus || !nr_cpus) && s->attr.inherit) {
		ret = ftk_perf_online_cpus(&online, &nr_cpus);
		if (ret)
			return ftk_err(fail(s, ret, "/sys/devices/system/cpu/online: %s",
					    strerror(-ret)));
		cpus = online;
	}
	nc = cpus && nr_cpus ? nr_cpus : 1;
	nt = tids && nr_tids ? nr_tids : 1;
	s->online = online;
	s->rings = calloc(nc * nt, sizeof(*s->rings));
	s->pfd = calloc(nc * nt, sizeof(*s->pfd));
	s->scratch_size = 65536 + 4096;
	s->scratch = malloc(s->scratch_size);
	if (!s->rings || !s->pfd || !s->scratch)
		return ftk_err(fail(s, -ENOMEM, "out of memory"));
	for (c = 0; c < nc; c++) {
		for (t = 0; t < nt; t++) {
			int cpu = cpus && nr_cpus ? cpus[c] : -1;
			pid_t tid = tids && nr_tids ? tids[t] : -1;
			struct ring *r = &s->rings[s->nr_rings];
			void *m;
			int fd;

			fd = perf_sys_open(&s->attr, tid, cpu, -1);
			if (fd < 0 && !s->nr_rings && cycles_fallback(s, o, errno)) {
				name = "cpu-clock";
				fd = perf_sys_open(&s->attr, tid, cpu, -1);
			}
			if (fd < 0 && errno == ESRCH && nt > 1)
				continue;	/* a thread gone since it was listed */
			if (fd < 0) {
				ret = -errno;
				if (o->callchain == FTK_CALLCHAIN_LBR &&
				    (ret == -EOPNOTSUPP || ret == -ENOENT || ret == -EINVAL))
					return ftk_err(fail(s, -EOPNOTSUPP,
						"--call-graph lbr: not supported here (no last branch records on this CPU or event)"));
				if (tid >= 0 && cpu >= 0)
					fail(s, ret, "perf_event_open: %s for thread %d on CPU %d: %s",
					     name, tid, cpu, strerror(-ret));
				else if (cpu >= 0)
					fail(s, ret, "perf_event_open: %s on CPU %d: %s",
					     name, cpu, strerror(-ret));
				else
					fail(s, ret, "perf_event_open: %s for thread %d: %s",
					     name, tid, strerror(-ret));
				return ftk_err(ret);
			}
			r->fd = fd;
			r->size = pages * s->page_size;
			m = mmap(NULL, r->size + s->page_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
			if (m == MAP_FAILED) {
				ret = -errno;
				close(fd);
				r->fd = -1;
				return ftk_err(fail(s, ret,
					"mmap of a %zu KiB perf ring: %s (a smaller -m, or raise /proc/sys/kernel/perf_event_mlock_kb)",
					r->size >> 10, strerror(-ret)));
			}
			r->page = m;
			r->data = (unsigned char *)m + s->page_size;
			s->pfd[s->nr_rings].fd = fd;
			s->pfd[s->nr_rings].events = POLLIN;
			s->nr_rings++;
		}
	}
	if (!s->nr_rings)
		return ftk_err(fail(s, -ESRCH, "no thread left to sample"));
	return 0;
}

/**
 * ftk_sampler_free() - close every event and ring
 * @s: the sampler, or NULL
 */
FTK_API void ftk_sampler_free(struct ftk_sampler *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_rings; i++) {
		if (s->rings[i].page)
			munmap(s->rings[i].page, s->rings[i].size + s->page_size);
		close(s->rings[i].fd);
	}
	free(s->rings);
	free(s->online);
	free(s->pfd);
	free(s->scratch);
	free(s);
}

/**
 * ftk_sampler_errmsg() - what went wrong last
 * @s: the sampler
 *
 * Return: a text naming the event, CPU or thread and the reason, owned by
 * the sampler; "" when nothing failed.
 */
FTK_API const char *ftk_sampler_errmsg(const struct ftk_sampler *s)
{
	return s ? s->err.text : "";
}

static int ioctl_all(struct ftk_sampler *s, unsigned long req, const char *what)
{
	size_t i;

	for (i = 0; i < s->nr_rings; i++)
		if (ioctl(s->rings[i].fd, req, 0) < 0 && errno != ESRCH)
			return ftk_err(fail(s, -errno, "%s: %s", what, strerror(errno)));
	return 0;
}

/** ftk_sampler_enable() - start sampling on every ring; 0 or -errno */
FTK_API int ftk_sampler_enable(struct ftk_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
}

/** ftk_sampler_disable() - stop sampling; what the rings hold can still be read */
FTK_API int ftk_sampler_disable(struct ftk_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}

/** ftk_sampler_attr() - the attribute the event was opened with, owned by the sampler */
FTK_API const struct perf_event_attr *ftk_sampler_attr(const struct ftk_sampler *s)
{
	return &s->attr;
}

/**
 * ftk_sampler_nr_rings() - how many rings the sampler reads
 * @s: the sampler
 * @pages: where to put the data pages of each ring, or NULL
 *
 * Return: the number of rings (one per CPU, thread, or CPU and thread).
 */
FTK_API size_t ftk_sampler_nr_rings(const struct ftk_sampler *s, unsigned int *pages)
{
	if (pages)
		*pages = s->nr_rings ? s->rings[0].size / s->page_size : 0;
	return s->nr_rings;
}

/**
 * ftk_sampler_lost() - what the kernel could not write to the rings
 * @s: the sampler
 * @lost: records dropped for want of room (PERF_RECORD_LOST), or NULL
 * @lost_samples: samples dropped (PERF_RECORD_LOST_SAMPLES), or NULL
 */
FTK_API void ftk_sampler_lost(const struct ftk_sampler *s, uint64_t *lost, uint64_t *lost_samples)
{
	if (lost)
		*lost = s->lost;
	if (lost_samples)
		*lost_samples = s->lost_samples;
}

/* Bounds-checked cursor over one record. */
struct cur {
	const unsigned char	*p;
	size_t			left;
};

static int take(struct cur *c, void *dst, size_t n)
{
	if (n > c->left)
		return -1;
	if (dst)
		memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
	return 0;
}

static int take64(struct cur *c, uint64_t *v)
{
	return take(c, v, 8);
}

static int take_pair(struct cur *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	if (take(c, v, 8))
		return -1;
	*a = v[0];
	*b = v[1];
	return 0;
}

/* A NUL-terminated string padded to 8 bytes, within the record. */
static int take_str(struct cur *c, const char **s)
{
	const unsigned char *nul = memchr(c->p, 0, c->left);
	size_t n;

	if (!nul)
		return -1;
	*s = (const char *)c->p;
	n = ((size_t)(nul - c->p) + 8) & ~(size_t)7;
	if (n > c->left)
		n = c->left;
	return take(c, NULL, n);
}

/*
 * TID, TIME, [ADDR,] ID, STREAM_ID, CPU: the same order in a sample (where
 * ADDR sits between TIME and ID) and in the sample_id_all trailer of the
 * other records (without ADDR).
 */
static int take_ids(struct cur *c, uint64_t st, struct ftk_sample *o, int sample)
{
	uint32_t a, b;
	uint64_t v;

	if (st & PERF_SAMPLE_TID) {
		if (take_pair(c, &a, &b))
			return -1;
		o->pid = a;
		o->tid = b;
	}
	if ((st & PERF_SAMPLE_TIME) && take64(c, &o->time))
		return -1;
	if (sample && (st & PERF_SAMPLE_ADDR) && take64(c, &v))
		return -1;
	if ((st & PERF_SAMPLE_ID) && take64(c, &v))
		return -1;
	if ((st & PERF_SAMPLE_STREAM_ID) && take64(c, &v))
		return -1;
	if (st & PERF_SAMPLE_CPU) {
		if (take_pair(c, &a, &b))
			return -1;
		o->cpu = a;
	}
	return 0;
}

static int parse_sample(struct cur *c, const struct perf_event_attr *attr, struct ftk_sample *o)
{
	uint64_t st = attr->sample_type, v, i;

	if ((st & PERF_SAMPLE_IDENTIFIER) && take64(c, &v))
		return -1;
	if ((st & PERF_SAMPLE_IP) && take64(c, &o->ip))
		return -1;
	if (take_ids(c, st, o, 1))
		return -1;
	if ((st & PERF_SAMPLE_PERIOD) && take64(c, &o->period))
		return -1;
	if (st & PERF_SAMPLE_READ)
		return -2;	/* not asked for by this module; its layout depends on read_format */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take64(c, &o->nr_ips) || o->nr_ips > c->left / 8)
			return -1;
		o->ips = (const uint64_t *)c->p;
		take(c, NULL, o->nr_ips * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		if (take(c, &o->raw_size, 4) || o->raw_size > c->left)
			return -1;
		o->raw = c->p;
		take(c, NULL, o->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (take64(c, &v) || v > c->left / 24)
			return -1;
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			if (take64(c, NULL))
				return -1;
		take(c, NULL, v * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (take64(c, &o->regs_abi))
			return -1;
		if (o->regs_abi) {
			for (i = 0; i < 64; i++) {
				if (!(attr->sample_regs_user & (1ULL << i)))
					continue;
				if (take64(c, &v))
					return -1;
				if (i < FTK_SAMPLE_MAX_REGS) {
					o->regs[i] = v;
					o->regs_mask |= 1ULL << i;
				}
			}
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size;

		if (take64(c, &size))
			return -1;
		if (size) {
			if (size > c->left)
				return -1;
			o->stack = c->p;
			take(c, NULL, size);
			if (take64(c, &o->stack_size))
				return -1;
			if (o->stack_size > size)
				return -1;
		}
	}
	return 0;
}

/**
 * ftk_sample_parse() - decode one perf record
 * @rec: the record, starting with its struct perf_event_header
 * @size: bytes at @rec
 * @attr: the event's attribute (sample_type, sample_regs_user, sample_id_all)
 * @out: the decoded record; its pointers point into @rec
 *
 * Every length inside the record (the callchain's nr, raw size, stack
 * size, strings) is checked against the record's own size, and the
 * header's size against @size.
 *
 * Return: 0; -EBADMSG for a record that is short or whose lengths do not
 * fit; -EOPNOTSUPP for a sample with PERF_SAMPLE_READ, not decoded here.
 */
FTK_API int ftk_sample_parse(const void *rec, size_t size, const struct perf_event_attr *attr,
			     struct ftk_sample *out)
{
	const struct perf_event_header *h = rec;
	struct cur c;
	uint32_t a, b;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	if (size < sizeof(*h) || h->size < sizeof(*h) || h->size > size)
		return ftk_err(-EBADMSG);
	out->header = h;
	out->type = h->type;
	out->misc = h->misc;
	c.p = (const unsigned char *)rec + sizeof(*h);
	c.left = h->size - sizeof(*h);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		ret = parse_sample(&c, attr, out);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (take_pair(&c, &a, &b) || take64(&c, &out->addr) || take64(&c, &out->len) ||
		    take64(&c, &out->pgoff)) {
			ret = -1;
			break;
		}
		out->pid = a;
		out->tid = b;
		if (h->type == PERF_RECORD_MMAP2) {
			uint64_t gen;

			if (take_pair(&c, &out->maj, &out->min) || take64(&c, &out->ino) ||
			    take64(&c, &gen) || take_pair(&c, &out->prot, &out->flags)) {
				ret = -1;
				break;
			}
			if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
				out->maj = out->min = 0, out->ino = 0;
		} else {
			out->prot = PROT_EXEC;
		}
		ret = take_str(&c, &out->filename);
		break;
	case PERF_RECORD_COMM:
		if (take_pair(&c, &a, &b) || take_str(&c, &out->comm)) {
			ret = -1;
			break;
		}
		out->pid = a;
		out->tid = b;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t v[4];

		if (take(&c, v, sizeof(v)) || take64(&c, &out->time)) {
			ret = -1;
			break;
		}
		out->pid = v[0];
		out->ppid = v[1];
		out->tid = v[2];
		out->ptid = v[3];
		break;
	}
	case PERF_RECORD_LOST:
		if (take64(&c, NULL) || take64(&c, &out->lost))
			ret = -1;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (take64(&c, &out->lost))
			ret = -1;
		break;
	case PERF_RECORD_SWITCH:
		break;	/* no body: the task and time are in the trailer */
	default:
		return 0;	/* known by type only */
	}
	if (!ret && h->type != PERF_RECORD_SAMPLE && attr->sample_id_all) {
		uint64_t t = out->time;
		pid_t pid = out->pid, tid = out->tid;

		/* FORK/EXIT carry their pid/tid in the body: keep those. */
		ret = take_ids(&c, attr->sample_type, out, 0);
		if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT ||
		    h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
		    h->type == PERF_RECORD_COMM) {
			out->pid = pid;
			out->tid = tid;
		}
		if (!out->time)
			out->time = t;
	}
	if (ret == -2)
		return ftk_err(-EOPNOTSUPP);
	return ret ? ftk_err(-EBADMSG) : 0;
}

/* Read every whole record of one ring. */
static int drain(struct ftk_sampler *s, struct ring *r, ftk_sample_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t mask = r->size - 1;
	int ret = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask, first;
		const unsigned char *rec;
		struct ftk_sample smp;

		if (head - tail < sizeof(h))
			break;
		/* The header itself may wrap. */
		first = r->size - off;
		if (first >= sizeof(h)) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			memcpy(&h, r->data + off, first);
			memcpy((char *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail || h.size > r->size) {
			/* The ring cannot be trusted past here: drop what is in it. */
			ret = fail(s, -EBADMSG, "perf ring: bad record size %u", h.size);
			tail = head;
			break;
		}
		if (first >= h.size) {
			rec = r->data + off;
		} else {
			if (h.size > s->scratch_size)
				return fail(s, -EBADMSG, "perf ring: record of %u bytes", h.size);
			memcpy(s->scratch, r->data + off, first);
			memcpy(s->scratch + first, r->data, h.size - first);
			rec = s->scratch;
		}
		tail += h.size;
		if (ftk_sample_parse(rec, h.size, &s->attr, &smp)) {
			ret = fail(s, -EBADMSG, "perf ring: malformed record of type %u, %u bytes",
				   h.type, h.size);
			continue;
		}
		if (smp.type == PERF_RECORD_LOST)
			s->lost += smp.lost;
		else if (smp.type == PERF_RECORD_LOST_SAMPLES)
			s->lost_samples += smp.lost;
		if (fn) {
			ret = fn(&smp, ctx);
			if (ret)
				break;
		}
	}
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

/**
 * ftk_sampler_read() - wait for records, then read every ring
 * @s: the sampler
 * @timeout_ms: how long to wait for a ring to fill a quarter (poll(2)): 0
 *		not at all, -1 without limit
 * @fn: called with each record in ring order (rings one after the other),
 *	or NULL to count losses only; a non-zero return stops the read there
 *	and is returned
 * @ctx: passed to @fn
 *
 * Context: an interrupted wait (EINTR) is not an error: the rings are read.
 * Return: 0, @fn's non-zero value, or -EBADMSG when a ring held a
 * malformed record (skipped, with ftk_sampler_errmsg() saying which).
 */
FTK_API int ftk_sampler_read(struct ftk_sampler *s, int timeout_ms, ftk_sample_fn fn, void *ctx)
{
	size_t i;
	int ret = 0, r;

	if (timeout_ms && poll(s->pfd, s->nr_rings, timeout_ms) < 0 && errno != EINTR)
		return ftk_err(fail(s, -errno, "poll: %s", strerror(errno)));
	for (i = 0; i < s->nr_rings; i++) {
		r = drain(s, &s->rings[i], fn, ctx);
		if (r > 0)
			return r;
		if (r < 0 && !ret)
			ret = r;
	}
	return ftk_err(ret);
}
