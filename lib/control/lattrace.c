// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lattrace: the kernel's latency tracers: which this kernel has and why
 * not, their settings (journaled), the worst latency and the header of its
 * trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftrace.h>
#include <ftkit/lattrace.h>

#include "internal.h"
#include "tracefs-local.h"

static const struct ftk_lattrace_info tracers[] = {
	{ "wakeup", "CONFIG_SCHED_TRACER",
	  "wake-up to run of the highest-priority task", FTK_LATTRACE_WAKEUP, 1, 0, 0 },
	{ "wakeup_rt", "CONFIG_SCHED_TRACER",
	  "wake-up to run of real-time tasks", FTK_LATTRACE_WAKEUP, 1, 0, 0 },
	{ "wakeup_dl", "CONFIG_SCHED_TRACER",
	  "wake-up to run of deadline tasks", FTK_LATTRACE_WAKEUP, 1, 0, 0 },
	{ "irqsoff", "CONFIG_IRQSOFF_TRACER",
	  "interrupts disabled", FTK_LATTRACE_OFF, 1, 0, 0 },
	{ "preemptoff", "CONFIG_PREEMPT_TRACER",
	  "preemption disabled", FTK_LATTRACE_OFF, 1, 0, 0 },
	{ "preemptirqsoff", "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER",
	  "interrupts or preemption disabled", FTK_LATTRACE_OFF, 1, 0, 0 },
	{ "hwlat", "CONFIG_HWLAT_TRACER",
	  "latency from outside the kernel (SMIs, hypervisor)", FTK_LATTRACE_HWLAT, 0, 0, 1 },
	{ "osnoise", "CONFIG_OSNOISE_TRACER",
	  "noise a busy thread sees: NMIs, IRQs, softirqs, threads, hardware",
	  FTK_LATTRACE_OSNOISE, 0, 1, 1 },
	{ "timerlat", "CONFIG_TIMERLAT_TRACER",
	  "timer IRQ and thread wake-up latency", FTK_LATTRACE_TIMERLAT, 0, 1, 1 },
};

/**
 * ftk_lattrace_at() - the latency tracers, one by one
 * @i: 0, 1, ...
 *
 * Return: the @i-th tracer's description (static), or NULL past the last.
 */
FTK_API const struct ftk_lattrace_info *ftk_lattrace_at(size_t i)
{
	return i < ARRAY_SIZE(tracers) ? &tracers[i] : NULL;
}

/**
 * ftk_lattrace_get() - a latency tracer by name
 * @name: "wakeup_rt", "timerlat", ...
 *
 * Return: its description (static), or NULL with errno ENOENT.
 */
FTK_API const struct ftk_lattrace_info *ftk_lattrace_get(const char *name)
{
	size_t i;

	for (i = 0; name && i < ARRAY_SIZE(tracers); i++)
		if (!strcmp(tracers[i].name, name))
			return &tracers[i];
	return ftk_err_ptr(-ENOENT);
}

/**
 * ftk_lattrace_check() - whether @t can run a latency tracer, and why not
 * @t: the handle (the top level, or an instance for osnoise and timerlat)
 * @name: the tracer
 *
 * Reads available_tracers. The reason in ftk_tracefs_errmsg() names what
 * is missing: the kernel option, or that the tracer runs at the top level
 * only. Whether the kernel then lets it start (lockdown) shows when
 * ftk_lattrace_start() writes current_tracer.
 *
 * Return: 0 when listed, -ENOENT for an unknown name, -ENODEV when not
 * listed, or the read's negative errno.
 */
FTK_API int ftk_lattrace_check(struct ftk_tracefs *t, const char *name)
{
	const struct ftk_lattrace_info *li = ftk_lattrace_get(name);
	int ret;

	if (!li) {
		snprintf(t->errmsg, sizeof(t->errmsg), "'%s' is not a latency tracer", name);
		t->errdetail[0] = '\0';
		return ftk_err(-ENOENT);
	}
	ret = ftk_ftrace_has_tracer(t, name);
	if (ret < 0)
		return ret;
	if (ret)
		return 0;
	if (t->instance && !li->instances)
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "instances/%s/available_tracers: no '%s' (it runs at the top level only)",
			 t->instance, name);
	else if (t->instance)
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "instances/%s/available_tracers: no '%s' (kernel built without %s, or "
			 "older than 5.16, which runs it at the top level only)",
			 t->instance, name, li->config);
	else
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "available_tracers: no '%s' (kernel built without %s)", name, li->config);
	t->errdetail[0] = '\0';
	return ftk_err(-ENODEV);
}

/* Set a number file on @t if @v >= 0; 0 or the failure (ENOENT with the reason). */
static int number(struct ftk_tracefs *t, const char *file, long v)
{
	if (v < 0)
		return 0;
	return ftk_ftrace_value_set(t, file, (unsigned long)v);
}

/*
 * A runtime and the period it must fit in (osnoise/runtime_us and
 * period_us, hwlat_detector/width and window): the kernel refuses a
 * runtime above the period and a period below the runtime, so the order
 * that works depends on the old values; try the runtime first.
 */
static int pair(struct ftk_tracefs *t, const char *runtime, long rv, const char *period, long pv)
{
	int ret = number(t, runtime, rv);

	if (ret == -EINVAL) {
		ret = number(t, period, pv);
		return ret ? ret : number(t, runtime, rv);
	}
	return ret ? ret : number(t, period, pv);
}

/**
 * ftk_lattrace_start() - set a latency tracer going
 * @t: where the tracer runs (the top level, or an instance for osnoise
 *     and timerlat)
 * @top: the top level, where tracing_thresh and osnoise/ live (may be @t)
 * @name: the tracer
 * @opts: settings, or NULL for the kernel's as they are
 *	  (FTK_LATTRACE_OPTS_INIT leaves every one alone)
 *
 * Clears tracing_max_latency, writes the settings asked for, then
 * current_tracer, each journaled on its handle; a failure part-way puts
 * back what this call changed. function-trace off gives the event-only
 * trace (wake-up and context switch) a kernel without function tracing
 * allows.
 *
 * Return: 0; -ENODEV (not offered, reason in the handle's errmsg); or a
 * write's negative errno (-EPERM: forbidden, lockdown; -EBUSY: another
 * instance runs a tracer that excludes this one).
 */
FTK_API int ftk_lattrace_start(struct ftk_tracefs *t, struct ftk_tracefs *top, const char *name,
			       const struct ftk_lattrace_opts *opts)
{
	struct ftk_lattrace_opts o = FTK_LATTRACE_OPTS_INIT;
	struct undo *mark = ftk_tracefs_mark(t), *tmark;
	const struct ftk_lattrace_info *li;
	struct ftk_tracefs *bad = t;
	int ret;

	if (!top)
		top = t;
	tmark = ftk_tracefs_mark(top);
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	ret = ftk_lattrace_check(t, name);
	if (ret)
		return ret;
	li = ftk_lattrace_get(name);
	if (ftk_tracefs_exists(t, "tracing_max_latency")) {
		ret = ftk_tracefs_set(t, "tracing_max_latency", "0");
		if (ret)
			goto fail;
	}
	bad = top;
	ret = number(top, "tracing_thresh", o.thresh_us);
	if (!ret && o.functions >= 0 && (li->kind == FTK_LATTRACE_WAKEUP ||
					 li->kind == FTK_LATTRACE_OFF)) {
		bad = t;
		ret = ftk_ftrace_option_set(t, "function-trace", o.functions);
		bad = top;
	}
	switch (li->kind) {
	case FTK_LATTRACE_HWLAT:
		if (!ret)
			ret = pair(top, "hwlat_detector/width", o.runtime_us, "hwlat_detector/window",
				   o.period_us);
		break;
	case FTK_LATTRACE_TIMERLAT:
		if (!ret)
			ret = number(top, "osnoise/timerlat_period_us", o.period_us);
		if (!ret)
			ret = number(top, "osnoise/print_stack", o.stack_us);
		goto both;
	case FTK_LATTRACE_OSNOISE:
		if (!ret)
			ret = pair(top, "osnoise/runtime_us", o.runtime_us, "osnoise/period_us",
				   o.period_us);
both:
		if (!ret)
			ret = number(top, "osnoise/stop_tracing_us", o.stop_us);
		if (!ret)
			ret = number(top, "osnoise/stop_tracing_total_us", o.stop_total_us);
		if (!ret && o.cpus)
			ret = ftk_tracefs_set(top, "osnoise/cpus", o.cpus);
		break;
	default:
		break;
	}
	if (ret)
		goto fail;
	bad = t;
	ret = ftk_tracefs_set(t, "current_tracer", name);
	if (!ret && ftk_tracefs_exists(t, "tracing_on"))
		ret = ftk_tracefs_set(t, "tracing_on", "1");
	if (!ret)
		return 0;
fail:
	/* Keep the failure's text: the rollback below may write others. */
	{
		char msg[sizeof(t->errmsg)];

		memcpy(msg, bad->errmsg, sizeof(msg));
		ftk_tracefs_rollback(t, mark);
		if (top != t)
			ftk_tracefs_rollback(top, tmark);
		memcpy(bad->errmsg, msg, sizeof(msg));
	}
	return ftk_err(ret);
}

/**
 * ftk_lattrace_max() - the worst latency the tracer saw
 * @t: the handle it runs in
 * @usecs: tracing_max_latency, in microseconds
 *
 * Return: 0, -EINVAL if the file does not hold a number, or the read's
 * negative errno.
 */
FTK_API int ftk_lattrace_max(struct ftk_tracefs *t, uint64_t *usecs)
{
	unsigned long long v;
	char *s, *end;
	int ret;

	ret = ftk_tracefs_read(t, "tracing_max_latency", &s);
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || (*end && *end != '\n')) {
		snprintf(t->errmsg, sizeof(t->errmsg), "tracing_max_latency: not a number: '%.40s'",
			 s);
		free(s);
		return ftk_err(-EINVAL);
	}
	free(s);
	*usecs = v;
	return 0;
}

/**
 * ftk_lattrace_max_clear() - set tracing_max_latency back to 0
 * @t: the handle the tracer runs in
 *
 * With tracing_thresh set, the kernel records every latency above it and
 * writes it to tracing_max_latency, which can then repeat a value: a
 * reader that clears it after each sees every one. Not journaled
 * (ftk_lattrace_start() journaled its old value).
 *
 * Return: 0, or the write's negative errno.
 */
FTK_API int ftk_lattrace_max_clear(struct ftk_tracefs *t)
{
	return ftk_tracefs_write(t, "tracing_max_latency", "0");
}

/**
 * ftk_lattrace_stop() - stop recording in the tracer's buffer
 * @t: the handle the tracer runs in
 *
 * Turns tracing_on off, so that the kept worst case cannot change while
 * it is read. Not journaled (ftk_lattrace_start() journaled its value).
 *
 * Return: 0, or the write's negative errno.
 */
FTK_API int ftk_lattrace_stop(struct ftk_tracefs *t)
{
	return ftk_tracefs_exists(t, "tracing_on") ? ftk_tracefs_write(t, "tracing_on", "0") : 0;
}

/*
 * The header lines of a latency trace (kernel/trace/trace.c,
 * print_trace_header()):
 *	# tracer: wakeup_rt
 *	# wakeup_rt latency trace v1.1.5 on 6.1.0-56-rt-amd64
 *	# latency: 1542 us, #12/12, CPU#1 | (M:preempt_rt VP:0, KP:0, SP:0 HP:0 #P:2)
 *	#    | task: sleeper-231 (uid:0 nice:0 policy:1 rt_prio:50)
 * Hand-parsed: libtraceevent reads events, not this text.
 */
/**
 * ftk_lattrace_header() - parse the header of a latency tracer's trace
 * @text: the "trace" file's text
 * @hdr: filled in
 *
 * Return: 0, or -ENOENT (errno set) when @text has no "latency: N us" line.
 */
FTK_API int ftk_lattrace_header(const char *text, struct ftk_lattrace_hdr *hdr)
{
	const char *line, *p, *q;
	int found = 0;
	size_t n = 0;

	memset(hdr, 0, sizeof(*hdr));
	hdr->cpu = hdr->pid = hdr->prio = -1;
	for (line = text; *line == '#'; line += n + (line[n] == '\n')) {
		n = strcspn(line, "\n");

		if (!strncmp(line, "# tracer: ", 10)) {
			size_t k = n - 10 < sizeof(hdr->tracer) - 1 ? n - 10 : sizeof(hdr->tracer) - 1;

			memcpy(hdr->tracer, line + 10, k);
			hdr->tracer[k] = '\0';
		} else if (!strncmp(line, "# latency: ", 11)) {
			hdr->latency_us = strtoull(line + 11, NULL, 10);
			found = 1;
			p = memmem(line, n, "CPU#", 4);
			if (p)
				hdr->cpu = atoi(p + 4);
		} else if ((p = memmem(line, n, "| task: ", 8))) {
			p += 8;
			q = memchr(p, '(', n - (p - line));
			if (!q)
				q = line + n;
			while (q > p && q[-1] == ' ')
				q--;
			/* COMM-PID: the last '-' splits them (a comm may hold '-'). */
			for (const char *d = q; d > p; d--) {
				if (d[-1] == '-') {
					size_t k = d - 1 - p;

					if (k >= sizeof(hdr->comm))
						k = sizeof(hdr->comm) - 1;
					memcpy(hdr->comm, p, k);
					hdr->comm[k] = '\0';
					hdr->pid = atoi(d);
					break;
				}
			}
			p = memmem(line, n, "rt_prio:", 8);
			if (p)
				hdr->prio = atoi(p + 8);
		}
	}
	if (!found)
		return ftk_err(-ENOENT);
	return 0;
}
