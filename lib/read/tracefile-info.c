// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefile-info: the trace.dat options that describe a recording rather
 * than its data, and the TIME_SHIFT correction of a guest's stamps.
 *
 * TIME_SHIFT (trace-cmd record -A, or a guest's agent) holds, per guest
 * CPU, samples of (guest time, offset to the host, scaling, fraction). The
 * correction is trace-cmd 3.1's timestamp_host_sync() and
 * timestamp_correction_calc() (lib/trace-cmd/trace-input.c), so that
 * ftreport prints the stamps trace-cmd report prints: one sample adds its
 * offset; two or more scale the stamp by the earlier sample of the pair
 * around it and add an offset interpolated between the pair (or the
 * earlier one's, without FTK_TIME_SHIFT_INTERPOLATE). Its arithmetic is
 * done here in unsigned 64 bits, where trace-cmd's signed overflows would
 * wrap, and a division trace-cmd would trap on is left out.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracefile-read-local.h"

/* ---------------------------------------------------------------- TIME_SHIFT */

struct tagged {
	struct ftk_time_sample	s;
	unsigned int		idx;
};

/* By time (signed, as trace-cmd sorts), then file order: the first of equal times stays. */
static int tagged_cmp(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int tsync_sort(struct tf_tsync *t)
{
	struct tagged *tg;
	int i, j;

	if (t->n < 2)
		return 0;
	tg = malloc(t->n * sizeof(*tg));
	if (!tg)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		tg[i] = (struct tagged){ .s = t->s[i], .idx = i };
	qsort(tg, t->n, sizeof(*tg), tagged_cmp);
	for (i = 0, j = 0; i < t->n; i++)
		if (!j || tg[i].s.time != t->s[j - 1].time)
			t->s[j++] = tg[i].s;
	t->n = j;
	free(tg);
	return 0;
}

static void tsync_free(struct ftk_tracefile *tf)
{
	int i;

	for (i = 0; tf->tsync && i < tf->tsync_cpus; i++)
		free(tf->tsync[i].s);
	free(tf->tsync);
	tf->tsync = NULL;
	tf->tsync_cpus = 0;
	tf->has_tsync = 0;
}

/*
 * u64 trace id of the host's recording, u32 protocol flags, u32 CPU
 * count; per CPU: u32 count, then count times, count offsets, count
 * scalings (s64 each); then, if the option goes on (trace-cmd 2.9 wrote
 * none), per CPU count fraction bits (s64).
 */
int tf_opt_time_shift(struct ftk_tracefile *tf, const unsigned char *buf,
		      unsigned long long size, unsigned long long at)
{
	unsigned long long left, cpus, n, i;
	const unsigned char *p;
	int c, ret;

	if (size < 16)
		return 0;	/* trace-cmd leaves it out too */
	tsync_free(tf);
	tf->tsync_peer = tf_num(tf, buf, 8);
	tf->tsync_flags = (unsigned int)tf_num(tf, buf + 8, 4);
	cpus = tf_num(tf, buf + 12, 4);
	p = buf + 16;
	left = size - 16;
	if (cpus > MAX_CPUS || cpus * 4 > left)
		return tf_fail(tf, -FTK_E_FORMAT,
			       "TIME_SHIFT option at offset %llu: %llu cpus in %llu bytes",
			       at, cpus, size);
	tf->tsync = calloc(cpus ? cpus : 1, sizeof(*tf->tsync));
	if (!tf->tsync)
		return -ENOMEM;
	tf->tsync_cpus = (int)cpus;
	tf->has_tsync = 1;
	for (c = 0; c < tf->tsync_cpus; c++) {
		struct tf_tsync *t = &tf->tsync[c];

		t->flags = tf->tsync_flags;
		n = left >= 4 ? tf_num(tf, p, 4) : ~0ULL;
		if (left < 4 || n > (left - 4) / 24) {
			ret = tf_fail(tf, -FTK_E_FORMAT,
				      "TIME_SHIFT option at offset %llu: cpu %d: %llu samples beyond the option's %llu bytes",
				      at, c, left >= 4 ? n : 0, size);
			goto fail;
		}
		p += 4;
		left -= 4 + n * 24;
		t->s = calloc(n ? n : 1, sizeof(*t->s));
		if (!t->s) {
			ret = -ENOMEM;
			goto fail;
		}
		t->n = (int)n;
		for (i = 0; i < n; i++)
			t->s[i].time = (long long)tf_num(tf, p + 8 * i, 8);
		for (i = 0; i < n; i++)
			t->s[i].offset = (long long)tf_num(tf, p + 8 * (n + i), 8);
		for (i = 0; i < n; i++)
			t->s[i].scaling = (long long)tf_num(tf, p + 8 * (2 * n + i), 8);
		p += 24 * n;
	}
	if (left) {
		for (c = 0; c < tf->tsync_cpus; c++) {
			struct tf_tsync *t = &tf->tsync[c];

			if ((unsigned long long)t->n > left / 8) {
				ret = tf_fail(tf, -FTK_E_FORMAT,
					      "TIME_SHIFT option at offset %llu: cpu %d: fraction bits beyond the option's %llu bytes",
					      at, c, size);
				goto fail;
			}
			for (i = 0; i < (unsigned long long)t->n; i++)
				t->s[i].fraction = (long long)tf_num(tf, p + 8 * i, 8);
			p += 8 * (unsigned long long)t->n;
			left -= 8 * (unsigned long long)t->n;
		}
	}
	for (c = 0; c < tf->tsync_cpus; c++)
		if ((ret = tsync_sort(&tf->tsync[c])))
			goto fail;
	return 0;
fail:
	tsync_free(tf);
	return ret;
}

const struct tf_tsync *tf_tsync_for(const struct ftk_tracefile *tf, int cpu)
{
	if (!tf->has_tsync || cpu < 0 || cpu >= tf->tsync_cpus || !tf->tsync[cpu].n)
		return NULL;
	return &tf->tsync[cpu];
}

/* @ts corrected by the pair of samples @lo, @hi (trace-cmd's timestamp_correction_calc()). */
static unsigned long long correct(unsigned long long ts, unsigned int flags,
				  const struct ftk_time_sample *lo,
				  const struct ftk_time_sample *hi)
{
	unsigned long long tscor = (unsigned long long)lo->offset;

	if (flags & FTK_TIME_SHIFT_INTERPOLATE) {
		long long delta = (long long)((unsigned long long)hi->time -
					      (unsigned long long)lo->time);
		unsigned long long prod = (ts - (unsigned long long)lo->time) *
					  ((unsigned long long)hi->offset -
					   (unsigned long long)lo->offset);
		long long num = (long long)(prod + (unsigned long long)(delta / 2));

		/* times are sorted and distinct: delta is never 0 unless they wrapped */
		if (delta == -1)
			tscor += (unsigned long long)num * ~0ULL;
		else if (delta)
			tscor += (unsigned long long)(num / delta);
	}
	ts = (ts * (unsigned long long)lo->scaling) >> (lo->fraction & 63);
	return ts + tscor;
}

/* trace-cmd's timestamp_host_sync(): the samples around @ts, compared unsigned as there. */
unsigned long long tf_tsync_map(const void *ctx, unsigned long long ts)
{
	const struct tf_tsync *t = ctx;
	const struct ftk_time_sample *s = t->s;
	int n = t->n, min, max, mid;

	if (n == 1)
		return ts + (unsigned long long)s[0].offset;
	if (n == 2 || ts <= (unsigned long long)s[0].time)
		return correct(ts, t->flags, &s[0], &s[1]);
	if (ts >= (unsigned long long)s[n - 1].time)
		return correct(ts, t->flags, &s[n - 2], &s[n - 1]);
	min = 0;
	max = n - 1;
	mid = (min + max) / 2;
	while (min <= max) {
		if (ts < (unsigned long long)s[mid].time)
			max = mid - 1;
		else if (ts > (unsigned long long)s[mid].time)
			min = mid + 1;
		else
			break;
		mid = (min + max) / 2;
	}
	if (mid > n - 2)	/* only if negative times unsorted the unsigned order */
		mid = n - 2;
	return correct(ts, t->flags, &s[mid], &s[mid + 1]);
}

/* ---------------------------------------------------------------- GUEST, PROCMAPS */

/* Name, NUL; u64 trace id; u32 vCPU count; per vCPU: u32 vCPU, u32 host pid. */
int tf_opt_guest(struct ftk_tracefile *tf, const unsigned char *buf, unsigned long long size)
{
	const unsigned char *nul = memchr(buf, '\0', size);
	unsigned long long left, vcpus, i, cpu;
	struct tf_guest g = { 0 }, *ng;
	const unsigned char *p;

	if (!nul)
		return 0;
	p = nul + 1;
	left = size - (unsigned long long)(p - buf);
	if (left < 12)
		return 0;
	g.trace_id = tf_num(tf, p, 8);
	vcpus = tf_num(tf, p + 8, 4);
	p += 12;
	left -= 12;
	if (vcpus > MAX_CPUS || vcpus * 8 > left)
		return 0;
	g.vcpus = (int)vcpus;
	g.cpu_pid = calloc(vcpus ? vcpus : 1, sizeof(*g.cpu_pid));
	g.name = strdup((const char *)buf);
	ng = realloc(tf->guests, (tf->nr_guests + 1) * sizeof(*ng));
	if (!g.cpu_pid || !g.name || !ng) {
		free(g.cpu_pid);
		free(g.name);
		if (ng)
			tf->guests = ng;
		return -ENOMEM;
	}
	tf->guests = ng;
	for (i = 0; i < vcpus; i++) {
		cpu = tf_num(tf, p + 8 * i, 4);
		if (cpu >= vcpus)
			break;
		g.cpu_pid[cpu] = (int)tf_num(tf, p + 8 * i + 4, 4);
	}
	if (i < vcpus) {	/* trace-cmd leaves such a guest out */
		free(g.cpu_pid);
		free(g.name);
		return 0;
	}
	tf->guests[tf->nr_guests++] = g;
	return 0;
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * Text, NUL-terminated: "PID NR COMM\n" (hexadecimal numbers), then NR
 * lines "START END NAME". trace-cmd leaves out a process whose lines are
 * fewer than NR, and so does this.
 */
int tf_opt_procmaps(struct ftk_tracefile *tf, const unsigned char *buf, unsigned long long size)
{
	unsigned long pid, nr, lines = 0;
	const char *s, *e, *line;
	struct tf_procmap *nm;
	char *text, *end, *comm;
	size_t len;

	if (!size || buf[size - 1])
		return 0;
	text = strdup((const char *)buf);
	if (!text)
		return -ENOMEM;
	s = skip_blank(text);
	pid = strtoul(s, &end, 16);
	if (end == s || !(*end == ' ' || *end == '\t'))
		goto out;
	s = skip_blank(end);
	nr = strtoul(s, &end, 16);
	if (end == s || !(*end == ' ' || *end == '\t'))
		goto out;
	s = skip_blank(end);
	for (e = s; *e && *e != ' ' && *e != '\t' && *e != '\n'; e++)
		;
	len = e - s;
	if (!len || pid > INT_MAX || nr > INT_MAX)
		goto out;
	/* each map line holds three words */
	for (line = strchr(e, '\n'); line && lines < nr; line = strchr(line + 1, '\n')) {
		const char *w = line + 1;

		strtoull(w, &end, 16);
		if (end == w)
			break;
		w = end;
		strtoull(w, &end, 16);
		if (end == w)
			break;
		w = skip_blank(end);
		if (!*w || *w == '\n')
			break;
		lines++;
	}
	if (lines < nr)
		goto out;
	comm = strndup(s, len);
	nm = realloc(tf->procmaps, (tf->nr_procmaps + 1) * sizeof(*nm));
	if (!comm || !nm) {
		free(comm);
		if (nm)
			tf->procmaps = nm;
		free(text);
		return -ENOMEM;
	}
	tf->procmaps = nm;
	nm[tf->nr_procmaps++] = (struct tf_procmap){ .comm = comm, .pid = (int)pid,
						     .nr_maps = (int)nr };
out:
	free(text);
	return 0;
}

void tf_info_free(struct ftk_tracefile *tf)
{
	int i;

	tsync_free(tf);
	for (i = 0; i < tf->nr_guests; i++) {
		free(tf->guests[i].name);
		free(tf->guests[i].cpu_pid);
	}
	free(tf->guests);
	for (i = 0; i < tf->nr_procmaps; i++)
		free(tf->procmaps[i].comm);
	free(tf->procmaps);
}

/* ---------------------------------------------------------------- getters */

/**
 * ftk_tracefile_date() - the DATE option
 * @tf: the handle
 * @usecs: receives the microseconds from the trace clock to the time of
 *	day (trace-cmd record --date), which every stamp is shifted by
 *
 * Return: 1 if the file has the option, 0 if not.
 */
FTK_API int ftk_tracefile_date(const struct ftk_tracefile *tf, long long *usecs)
{
	if (tf->has_date && usecs)
		*usecs = tf->date_us;
	return tf->has_date;
}

/**
 * ftk_tracefile_clock_offset() - the OFFSET options
 * @tf: the handle
 * @ns: receives their sum in nanoseconds (trace-cmd record --ts-offset,
 *	ftrecord's clock offset), which every stamp is shifted by
 *
 * Return: 1 if the file has one, 0 if not.
 */
FTK_API int ftk_tracefile_clock_offset(const struct ftk_tracefile *tf, long long *ns)
{
	if (tf->has_offset && ns)
		*ns = tf->clock_offset;
	return tf->has_offset;
}

/**
 * ftk_tracefile_tsc2nsec() - the TSC2NSEC option
 * @tf: the handle
 * @mult: receives the multiplier
 * @shift: receives the shift: ns = (tsc * mult) >> shift
 * @offset: receives the TSC offset the recorder noted
 *
 * Return: 1 if the file has a valid one, 0 if not.
 */
FTK_API int ftk_tracefile_tsc2nsec(const struct ftk_tracefile *tf, unsigned int *mult,
				   unsigned int *shift, unsigned long long *offset)
{
	if (!tf->has_tsc)
		return 0;
	if (mult)
		*mult = tf->tsc_mult;
	if (shift)
		*shift = tf->tsc_shift;
	if (offset)
		*offset = tf->tsc_offset;
	return 1;
}

/**
 * ftk_tracefile_trace_id() - the TRACEID option
 * @tf: the handle
 * @id: receives the recording's id (a guest's TIME_SHIFT names its host's)
 *
 * Return: 1 if the file has one, 0 if not.
 */
FTK_API int ftk_tracefile_trace_id(const struct ftk_tracefile *tf, unsigned long long *id)
{
	if (tf->has_trace_id && id)
		*id = tf->trace_id;
	return tf->has_trace_id;
}

/**
 * ftk_tracefile_time_shift() - the TIME_SHIFT option of a guest's recording
 * @tf: the handle
 * @peer_id: receives the trace id of the host's recording
 * @flags: receives the protocol flags (FTK_TIME_SHIFT_INTERPOLATE)
 * @cpus: receives the number of guest CPUs with samples
 *
 * The top buffer's stamps are corrected by the samples as trace-cmd report
 * corrects them; instances are not (trace-cmd does not either).
 *
 * Return: 1 if the file has the option, 0 if not.
 */
FTK_API int ftk_tracefile_time_shift(const struct ftk_tracefile *tf, unsigned long long *peer_id,
				     unsigned int *flags, int *cpus)
{
	if (!tf->has_tsync)
		return 0;
	if (peer_id)
		*peer_id = tf->tsync_peer;
	if (flags)
		*flags = tf->tsync_flags;
	if (cpus)
		*cpus = tf->tsync_cpus;
	return 1;
}

/**
 * ftk_tracefile_time_shift_cpu() - the TIME_SHIFT samples of one guest CPU
 * @tf: the handle
 * @cpu: the CPU
 * @n: receives how many
 *
 * Return: the samples sorted by time (equal times once), owned by @tf;
 * NULL and *@n 0 if the CPU has none.
 */
FTK_API const struct ftk_time_sample *ftk_tracefile_time_shift_cpu(const struct ftk_tracefile *tf,
								   int cpu, int *n)
{
	const struct tf_tsync *t = tf_tsync_for(tf, cpu);

	if (n)
		*n = t ? t->n : 0;
	return t ? t->s : NULL;
}

/**
 * ftk_tracefile_guest() - a guest of a host's recording (GUEST option)
 * @tf: the handle
 * @i: 0 for the first
 * @trace_id: receives the trace id of the guest's recording
 * @vcpus: receives its virtual CPU count
 * @cpu_pid: receives the host pid running each virtual CPU, owned by @tf
 *
 * Return: the guest's name, owned by @tf; NULL past the last.
 */
FTK_API const char *ftk_tracefile_guest(const struct ftk_tracefile *tf, int i,
					unsigned long long *trace_id, int *vcpus,
					const int **cpu_pid)
{
	const struct tf_guest *g;

	if (i < 0 || i >= tf->nr_guests)
		return NULL;
	g = &tf->guests[i];
	if (trace_id)
		*trace_id = g->trace_id;
	if (vcpus)
		*vcpus = g->vcpus;
	if (cpu_pid)
		*cpu_pid = g->cpu_pid;
	return g->name;
}

/**
 * ftk_tracefile_procmap() - a traced process's memory map (PROCMAPS option)
 * @tf: the handle
 * @i: 0 for the first
 * @pid: receives its pid
 * @nr_maps: receives the number of mappings saved
 *
 * Return: the process's comm, owned by @tf; NULL past the last.
 */
FTK_API const char *ftk_tracefile_procmap(const struct ftk_tracefile *tf, int i, int *pid,
					  int *nr_maps)
{
	if (i < 0 || i >= tf->nr_procmaps)
		return NULL;
	if (pid)
		*pid = tf->procmaps[i].pid;
	if (nr_maps)
		*nr_maps = tf->procmaps[i].nr_maps;
	return tf->procmaps[i].comm;
}
