// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftlat: the kernel's latency tracers (wakeup, wakeup_rt, wakeup_dl,
 * irqsoff, preemptoff, preemptirqsoff, hwlat, osnoise, timerlat), and
 * rtla's top, histogram and auto-analysis views of osnoise and timerlat.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>

#include <ftkit/capture.h>
#include <ftkit/event.h>
#include <ftkit/instance.h>
#include <ftkit/lattrace.h>
#include <ftkit/live.h>
#include <ftkit/tracewrite.h>

#include "cmd.h"
#include "tool.h"

static const char usage[] =
"usage: ftlat TRACER [-t USECS] [-e] [-r] [-o FILE] [-D S] [-- COMMAND [ARG...]]\n"
"       ftlat {timerlat|osnoise} [--top | --hist] [-a USECS] [-c CPUS] [-P USECS]\n"
"             [-R USECS] [-i S] [-b USECS] [-E N] [-B NAME] [-D S]\n"
"             [-- COMMAND [ARG...]]\n"
"       ftlat hwlat [-t USECS] [-P USECS] [-R USECS] [-D S] [-- COMMAND [ARG...]]\n"
"       ftlat --list\n"
"\n"
"Run one of the kernel's latency tracers while COMMAND runs, for -D seconds\n"
"or until Ctrl-C, and print what it found; everything it changed is put\n"
"back. wakeup, wakeup_rt and wakeup_dl time the wake-up of the highest-\n"
"priority, real-time or deadline task to its run; irqsoff, preemptoff and\n"
"preemptirqsoff the time interrupts or preemption stay off: ftlat prints the\n"
"worst latency and the trace the kernel kept of it. hwlat, osnoise and\n"
"timerlat report per CPU. These tracers run at the top level (osnoise and\n"
"timerlat in a private instance where the kernel allows it); --list says\n"
"which this kernel has, and why not.\n"
"\n"
"  -t, --thresh USECS    keep every latency above USECS, not only new maxima\n"
"                        (tracing_thresh; hwlat: its detection threshold)\n"
"  -e, --events-only     no function entries in the trace (function-trace off;\n"
"                        the default where the kernel forbids function tracing)\n"
"  -r, --repeat          print each new maximum (or, with -t, each latency\n"
"                        above USECS) as it happens, not only the worst at the end\n"
"  -o, --output FILE     store the worst case's trace in FILE, a trace.dat that\n"
"                        trace-cmd report reads (rewritten at each new one with -r)\n"
"      --top             timerlat, osnoise: a per-CPU table (the default)\n"
"      --hist            timerlat, osnoise: per-CPU histograms\n"
"  -a, --auto USECS      timerlat, osnoise: stop at the first sample above USECS\n"
"                        and say what made it late (IRQs, softirqs, threads)\n"
"  -c, --cpus LIST       timerlat, osnoise: only these CPUs (osnoise/cpus)\n"
"  -P, --period USECS    timerlat, osnoise: the period; hwlat: its window\n"
"  -R, --runtime USECS   osnoise: the runtime in each period; hwlat: its width\n"
"  -i, --interval S      --top: print the table every S seconds too\n"
"  -b, --bucket USECS    --hist: bucket width (1)\n"
"  -E, --entries N       --hist: number of buckets (256)\n"
"      --list            the latency tracers, whether this kernel has each, why not\n"
TOOL_HELP_DURATION
TOOL_HELP_INSTANCE
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftlat wakeup_rt -e -D 10                  # worst RT wake-up latency, its trace\n"
"  ftlat wakeup_rt -t 500 -r -o max.dat -- ./rt-app   # each wake-up over 500 us\n"
"  ftlat irqsoff -D 5                        # longest interrupts-off section\n"
"  ftlat timerlat -D 10                      # per-CPU IRQ and thread latency\n"
"  ftlat timerlat --hist -D 60               # histograms, as rtla timerlat hist\n"
"  ftlat timerlat -a 100                     # stop above 100 us and say why\n"
"  ftlat osnoise -D 10                       # noise per CPU and by source\n";

enum { OPT_TOP = 256, OPT_HIST, OPT_LIST };
enum { MODE_TOP, MODE_HIST };
enum { SRC_NMI, SRC_IRQ, SRC_SIRQ, SRC_THREAD, NR_SRC };
static double duration;
static const char *const src_name[NR_SRC] = { "nmi", "irq", "softirq", "thread" };

struct opts {
	const char			*tracer;
	const struct ftk_lattrace_info	*li;
	const char			*out;
	const char			*cpus;
	long				thresh, period, runtime, autous, bucket, entries;
	double				interval;
	int				events_only, repeat, mode, list;
};

/* A noise event (osnoise:*_noise) seen on a CPU since its last timerlat IRQ sample. */
struct noise {
	int		src;
	int		pid;		/* thread noise */
	uint64_t	start, dur;	/* ns */
	char		name[48];	/* IRQ description, thread comm */
};

struct lstat {
	uint64_t	n, cur, min, max, sum;
};

struct cpu {
	struct lstat	irq, thr;		/* timerlat, ns */
	uint64_t	*hirq, *hthr;		/* --hist buckets */
	uint64_t	hirq_over, hthr_over;
	/* osnoise, from its per-period entries (us) */
	uint64_t	periods, runtime, noise, max_noise, max_single;
	uint64_t	count[5];		/* hw, nmi, irq, softirq, thread */
	uint64_t	src_ns[NR_SRC];		/* from the osnoise events */
	struct lstat	sample;			/* osnoise:sample_threshold, ns */
	/* hwlat (us) */
	uint64_t	hw_n, hw_inner, hw_outer, hw_nmi;
	/* auto-analysis */
	uint64_t	irq_lat;		/* the last timerlat IRQ sample, ns */
	unsigned int	irq_seq;
	struct noise	*ev;
	size_t		nev, cap;
	int		seen;
};

struct run {
	struct opts		*o;
	struct ftk_tracefs	*t, *top;
	struct ftk_live		*live;
	struct tep_handle	*tep;
	struct cpu		*cpu;
	int			ncpu;
	int			id_timerlat, id_osnoise, id_hwlat, id_stack;	/* -1: none */
	int			id_src[NR_SRC], id_sample;
	int			hit;		/* -a: the CPU that crossed it, + 1 */
	int			stack_done;	/* its stack (timerlat's print_stack) printed */
	double			start;
	struct tool_cmd		cmd;
	int			has_cmd;
};

static void option(int opt, char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 't': o->thresh = tool_num(arg, "threshold", 0, INT_MAX); break;
	case 'e': o->events_only = 1; break;
	case 'r': o->repeat = 1; break;
	case 'o': o->out = arg; break;
	case OPT_TOP: o->mode = MODE_TOP; break;
	case OPT_HIST: o->mode = MODE_HIST; break;
	case OPT_LIST: o->list = 1; break;
	case 'a': o->autous = tool_num(arg, "threshold", 1, INT_MAX); break;
	case 'c': o->cpus = arg; break;
	case 'P': o->period = tool_num(arg, "period", 1, INT_MAX); break;
	case 'R': o->runtime = tool_num(arg, "runtime", 1, INT_MAX); break;
	case 'i': o->interval = tool_seconds(arg); break;
	case 'b': o->bucket = tool_num(arg, "bucket width", 1, 1000000); break;
	case 'E': o->entries = tool_num(arg, "bucket count", 1, 100000); break;
	}
}

static const struct option longopts[] = {
	{ "thresh",	required_argument,	NULL, 't' },
	{ "events-only", no_argument,		NULL, 'e' },
	{ "repeat",	no_argument,		NULL, 'r' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "top",	no_argument,		NULL, OPT_TOP },
	{ "hist",	no_argument,		NULL, OPT_HIST },
	{ "list",	no_argument,		NULL, OPT_LIST },
	{ "auto",	required_argument,	NULL, 'a' },
	{ "cpus",	required_argument,	NULL, 'c' },
	{ "period",	required_argument,	NULL, 'P' },
	{ "runtime",	required_argument,	NULL, 'R' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "bucket",	required_argument,	NULL, 'b' },
	{ "entries",	required_argument,	NULL, 'E' },
	{ }
};

static const struct tool_def def = {
	.name = "ftlat", .usage = usage, .opts = "t:ero:a:c:P:R:i:b:E:", .longopts = longopts,
	.common = TOOL_OPT_INSTANCE | TOOL_OPT_DURATION | TOOL_OPT_COMMAND, .option = option,
};

/* --list: each tracer, whether the top level lists it, and why not. */
static int do_list(void)
{
	struct ftk_tracefs *top = tool_tracefs(NULL, 0);
	const struct ftk_lattrace_info *li;
	size_t i;

	printf("%-15s %-5s %s\n", "TRACER", "HAVE", "WHAT / WHY NOT");
	for (i = 0; (li = ftk_lattrace_at(i)); i++) {
		int ret = ftk_lattrace_check(top, li->name);

		if (ret && ret != -ENODEV)
			tool_die_tracefs(top, NULL);
		printf("%-15s %-5s %s\n", li->name, ret ? "no" : "yes",
		       ret ? ftk_tracefs_errmsg(top) : li->what);
	}
	return EXIT_OK;
}

/* ------------------------------------------------------------ the worst case */

/* Store the worst case's text as a latency trace.dat (see ftk_tracewrite_latency()). */
static void save_dat(struct run *r, const char *text)
{
	/* The text is formatted already: no kallsyms, no event formats but ftrace's. */
	FTK_OPTS(ftk_tracewrite_opts, wo, .version = 6,
		 .flags = FTK_TRACEWRITE_NO_KALLSYMS | FTK_TRACEWRITE_SOME_SYSTEMS);
	struct ftk_tracewrite *w = NULL;
	struct ftk_tracemeta *m;
	int ret;

	ret = ftk_tracemeta_new(r->top, &wo, NULL, &m);
	if (!ret)
		ret = ftk_tracewrite_new(m, &wo, &w);
	if (ret)
		tool_die("cannot write '%s': %s", r->o->out, m && ftk_tracemeta_errmsg(m)[0] ?
			 ftk_tracemeta_errmsg(m) : strerror(-ret));
	ret = ftk_tracewrite_latency(w, text);
	if (!ret)
		ret = ftk_tracewrite_save(w, r->o->out);
	if (ret)
		tool_die("%s", ret == -ENOMEM ? "out of memory" : ftk_tracewrite_errmsg(w));
	ftk_tracewrite_free(w);
	ftk_tracemeta_free(m);
}

/*
 * Print the trace the kernel kept of the worst case. With @at >= 0 (-r,
 * while it runs) only when its header shows the latency read from
 * tracing_max_latency: the kernel writes the number, then swaps the
 * trace in, and a read between the two would pair the new number with
 * the old trace (or none yet). Returns 1 if printed.
 */
static int show_worst(struct run *r, uint64_t max_us, double at)
{
	struct ftk_lattrace_hdr h;
	char *text;

	if (ftk_tracefs_read(r->t, "trace", &text))
		tool_die_tracefs(r->t, NULL);
	if (at >= 0 && (ftk_lattrace_header(text, &h) || h.latency_us != max_us)) {
		free(text);
		return 0;
	}
	if (ftk_lattrace_header(text, &h))
		h.latency_us = max_us;
	printf("%s: %s %" PRIu64 " us", r->o->tracer, r->o->repeat || r->o->thresh > 0 ? "latency" : "worst latency",
	       h.latency_us);
	if (at >= 0)
		printf(" at %.3f s", at);
	if (h.cpu >= 0)
		printf(" on CPU %d", h.cpu);
	if (h.pid >= 0) {
		printf(", task %s-%d", h.comm, h.pid);
		if (h.prio >= 0)
			printf(" (rt_prio %d)", h.prio);
	}
	printf("\n%s", text);
	if (*text && text[strlen(text) - 1] != '\n')
		putchar('\n');
	if (r->o->out)
		save_dat(r, text);
	free(text);
	if (fflush(stdout))
		tool_die("cannot write standard output: %s", strerror(errno));
	return 1;
}

/* Wait for COMMAND, -D or a signal; with -r, print each new worst case as it comes. */
static void wait_worst(struct run *r)
{
	uint64_t last = 0, cur;

	while (!tool_stop) {
		double now = tool_now();

		if (r->has_cmd && tool_cmd_done(&r->cmd))
			break;
		if (duration > 0 && now - r->start >= duration)
			break;
		/*
		 * Polled: the kernel notifies tracing_max_latency's changes
		 * (fsnotify) only where built with CONFIG_FSNOTIFY and not
		 * for every tracer; 20 reads a second cost nothing here.
		 */
		if (r->o->repeat) {
			if (ftk_lattrace_max(r->t, &cur))
				tool_die_tracefs(r->t, NULL);
			/*
			 * With -t the kernel keeps each latency above it (not
			 * only maxima): clear the file after each, so that two
			 * equal ones are both seen.
			 */
			if (cur && (r->o->thresh > 0 || cur > last) &&
			    show_worst(r, cur, now - r->start)) {
				last = cur;
				if (r->o->thresh > 0 && ftk_lattrace_max_clear(r->t))
					tool_die_tracefs(r->t, NULL);
			}
		}
		tool_sleep(0.05);
	}
	/* What came between the last poll and the end (COMMAND's last wake-up). */
	if (r->o->repeat) {
		if (ftk_lattrace_max(r->t, &cur))
			tool_die_tracefs(r->t, NULL);
		if (cur && (r->o->thresh > 0 || cur > last))
			show_worst(r, cur, tool_now() - r->start);
	}
}

/* ------------------------------------------------------------ per-CPU tracers */

static struct cpu *cpu_of(struct run *r, int cpu)
{
	struct cpu *c;

	if (cpu < 0 || cpu > 8191)
		return NULL;
	if (cpu >= r->ncpu) {
		c = realloc(r->cpu, (cpu + 1) * sizeof(*c));
		if (!c)
			tool_die("out of memory");
		memset(c + r->ncpu, 0, (cpu + 1 - r->ncpu) * sizeof(*c));
		r->cpu = c;
		r->ncpu = cpu + 1;
	}
	c = &r->cpu[cpu];
	if (!c->seen && r->o->mode == MODE_HIST) {
		c->hirq = calloc(r->o->entries, sizeof(uint64_t));
		c->hthr = calloc(r->o->entries, sizeof(uint64_t));
		if (!c->hirq || !c->hthr)
			tool_die("out of memory");
	}
	c->seen = 1;
	return c;
}

static uint64_t num(struct run *r, const struct tep_record *rec, const char *field)
{
	struct tep_event *ev = tep_find_event_by_record(r->tep, (struct tep_record *)rec);
	unsigned long long v = 0;

	if (ev)
		tep_get_any_field_val(NULL, ev, field, (struct tep_record *)rec, &v, 0);
	return v;
}

static void str(struct run *r, const struct tep_record *rec, const char *field, char *buf,
		size_t len)
{
	struct tep_event *ev = tep_find_event_by_record(r->tep, (struct tep_record *)rec);
	const char *p = NULL;
	int n = 0;

	if (ev)
		p = tep_get_field_raw(NULL, ev, field, (struct tep_record *)rec, &n, 0);
	if (!p || n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	if ((size_t)n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
}

static void lstat_add(struct lstat *s, uint64_t v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->cur = v;
	s->sum += v;
	s->n++;
}

static void hist_add(struct run *r, uint64_t *h, uint64_t *over, uint64_t ns)
{
	uint64_t b = ns / 1000 / r->o->bucket;

	if (!h)
		return;
	if (b >= (uint64_t)r->o->entries)
		(*over)++;
	else
		h[b]++;
}

static void noise_add(struct cpu *c, int src, int pid, uint64_t start, uint64_t dur,
		      const char *name)
{
	struct noise *nv;

	c->src_ns[src] += dur;
	if (c->nev == c->cap) {
		if (c->cap >= 4096) {	/* bounded: keep the latest */
			memmove(c->ev, c->ev + 1, (c->nev - 1) * sizeof(*c->ev));
			c->nev--;
		} else {
			nv = realloc(c->ev, (c->cap ? 2 * c->cap : 64) * sizeof(*nv));
			if (!nv)
				tool_die("out of memory");
			c->ev = nv;
			c->cap = c->cap ? 2 * c->cap : 64;
		}
	}
	nv = &c->ev[c->nev++];
	nv->src = src;
	nv->pid = pid;
	nv->start = start;
	nv->dur = dur;
	snprintf(nv->name, sizeof(nv->name), "%s", name);
}

static int by_dur(const void *a, const void *b)
{
	const struct noise *x = a, *y = b;

	return x->dur < y->dur ? 1 : x->dur > y->dur ? -1 : 0;
}

/* -a: what made this sample late, from the noise since the timer IRQ. */
static void analyse(struct run *r, int cpu, struct cpu *c, const char *ctx, uint64_t lat_ns,
		    uint64_t since)
{
	uint64_t by_src[NR_SRC] = { 0 };
	struct noise worst = { 0 };
	int have = 0;
	size_t i;

	printf("## CPU %d hit the threshold: %s %.1f us (above %ld us)\n", cpu, ctx,
	       lat_ns / 1000.0, r->o->autous);
	if (r->id_timerlat >= 0)
		printf("  IRQ latency: %.1f us (the timer IRQ ran this late%s)\n",
		       c->irq_lat / 1000.0,
		       !strcmp(ctx, "IRQ latency") ? ": interrupts or preemption were off" : "");
	/* osnoise: only the noise inside the sample (events of earlier, quiet samples too) */
	for (i = 0; i < c->nev; )
		if (c->ev[i].start < since)
			memmove(&c->ev[i], &c->ev[i + 1], (--c->nev - i) * sizeof(*c->ev));
		else
			i++;
	if (!c->nev)
		printf("  no IRQ, softirq, NMI or thread ran in between: %s\n",
		       !strcmp(ctx, "IRQ latency") ? "the IRQ itself was late (interrupts off, or the "
			"hardware)" : r->id_timerlat >= 0 ? "the delay was in the IRQ's wake-up of "
			"the thread" : "hardware noise (SMIs, a hypervisor)");
	else
		printf("  then, before the %s, the longest first:\n", r->id_timerlat >= 0 ?
		       "timerlat thread ran" : "osnoise thread went on");
	for (i = 0; i < c->nev; i++) {
		by_src[c->ev[i].src] += c->ev[i].dur;
		if (c->ev[i].src == SRC_THREAD && (!have || c->ev[i].dur > worst.dur)) {
			worst = c->ev[i];
			have = 1;
		}
	}
	qsort(c->ev, c->nev, sizeof(*c->ev), by_dur);
	for (i = 0; i < c->nev && i < 20; i++) {
		const struct noise *n = &c->ev[i];

		if (n->src == SRC_THREAD)
			printf("    %-8s %s-%d %.1f us\n", src_name[n->src], n->name, n->pid,
			       n->dur / 1000.0);
		else
			printf("    %-8s %s %.1f us\n", src_name[n->src], n->name, n->dur / 1000.0);
	}
	if (c->nev > 20)
		printf("    ... and %zu shorter\n", c->nev - 20);
	for (i = 0; i < NR_SRC; i++)
		if (by_src[i])
			printf("  %s interference: %.1f us\n", src_name[i], by_src[i] / 1000.0);
	if (have)
		printf("  blocking thread: %s-%d, %.1f us\n", worst.name, worst.pid,
		       worst.dur / 1000.0);
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct run *r = ctx;
	int type = tep_data_type(r->tep, (struct tep_record *)rec);
	struct cpu *c = cpu_of(r, rec->cpu);
	char name[48];
	uint64_t v;
	int s;

	if (!c)
		return 0;
	if (r->hit) {
		/* timerlat wrote the stack saved at the timer IRQ after the thread's sample */
		if (type == r->id_stack && rec->cpu == r->hit - 1 && !r->stack_done) {
			struct trace_seq seq;

			trace_seq_init(&seq);
			tep_print_event(r->tep, &seq, (struct tep_record *)rec, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&seq);
			printf("  stack at the timer IRQ (what ran then):%s%s\n",
			       *seq.buffer == '\n' ? "" : "\n", seq.buffer);
			trace_seq_destroy(&seq);
			r->stack_done = 1;
			return 1;
		}
		return 0;
	}
	if (type == r->id_timerlat) {
		int thread = num(r, rec, "context") != 0;

		v = num(r, rec, "timer_latency");
		if (!thread) {
			lstat_add(&c->irq, v);
			hist_add(r, c->hirq, &c->hirq_over, v);
			c->irq_lat = v;
			c->irq_seq = num(r, rec, "seqnum");
			c->nev = 0;
		} else {
			lstat_add(&c->thr, v);
			hist_add(r, c->hthr, &c->hthr_over, v);
		}
		if (r->o->autous && v > (uint64_t)r->o->autous * 1000) {
			analyse(r, rec->cpu, c, thread ? "thread latency" : "IRQ latency", v, 0);
			r->hit = rec->cpu + 1;
			return 1;
		}
		if (thread)
			c->nev = 0;
		return 0;
	}
	if (type == r->id_osnoise) {
		c->periods++;
		c->runtime += num(r, rec, "runtime");
		v = num(r, rec, "noise");
		c->noise += v;
		if (v > c->max_noise)
			c->max_noise = v;
		v = num(r, rec, "max_sample");
		if (v > c->max_single)
			c->max_single = v;
		c->count[0] += num(r, rec, "hw_count");
		c->count[1] += num(r, rec, "nmi_count");
		c->count[2] += num(r, rec, "irq_count");
		c->count[3] += num(r, rec, "softirq_count");
		c->count[4] += num(r, rec, "thread_count");
		return 0;
	}
	if (type == r->id_hwlat) {
		c->hw_n++;
		v = num(r, rec, "duration");
		if (v > c->hw_inner)
			c->hw_inner = v;
		v = num(r, rec, "outer_duration");
		if (v > c->hw_outer)
			c->hw_outer = v;
		c->hw_nmi += num(r, rec, "nmi_count");
		return 0;
	}
	if (type == r->id_sample) {
		v = num(r, rec, "duration");
		lstat_add(&c->sample, v);
		hist_add(r, c->hthr, &c->hthr_over, v);
		if (r->o->autous && v > (uint64_t)r->o->autous * 1000) {
			analyse(r, rec->cpu, c, "noise sample", v, num(r, rec, "start"));
			r->hit = rec->cpu + 1;
			return 1;
		}
		c->nev = 0;
		return 0;
	}
	for (s = 0; s < NR_SRC; s++) {
		if (type != r->id_src[s])
			continue;
		if (s == SRC_IRQ)
			str(r, rec, "desc", name, sizeof(name));
		else if (s == SRC_THREAD)
			str(r, rec, "comm", name, sizeof(name));
		else if (s == SRC_SIRQ)
			snprintf(name, sizeof(name), "vector %" PRIu64, num(r, rec, "vector"));
		else
			snprintf(name, sizeof(name), "nmi");
		if (s == SRC_IRQ)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), ":%" PRIu64,
				 num(r, rec, "vector"));
		noise_add(c, s, s == SRC_THREAD ? (int)num(r, rec, "pid") : -1,
			  num(r, rec, "start"), num(r, rec, "duration"), name);
		return 0;
	}
	return 0;
}

static uint64_t avg(const struct lstat *s)
{
	return s->n ? s->sum / s->n : 0;
}

static void print_top(struct run *r)
{
	double secs = tool_now() - r->start;
	int i, s;

	if (secs <= 0)
		secs = 1;
	if (r->id_timerlat >= 0) {
		printf("%3s %8s | %8s %8s %8s %8s | %8s %8s %8s %8s   (us)\n", "CPU", "COUNT",
		       "IRQ_CUR", "IRQ_MIN", "IRQ_AVG", "IRQ_MAX", "THR_CUR", "THR_MIN", "THR_AVG",
		       "THR_MAX");
		for (i = 0; i < r->ncpu; i++) {
			struct cpu *c = &r->cpu[i];

			if (!c->irq.n && !c->thr.n)
				continue;
			printf("%3d %8" PRIu64 " | %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
			       " | %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", i, c->irq.n,
			       c->irq.cur / 1000, c->irq.min / 1000, avg(&c->irq) / 1000,
			       c->irq.max / 1000, c->thr.cur / 1000, c->thr.min / 1000,
			       avg(&c->thr) / 1000, c->thr.max / 1000);
		}
	} else if (r->id_osnoise >= 0) {
		printf("%3s %7s %11s %9s %9s %9s %10s %6s %6s %7s %7s %7s | %8s %8s %8s %8s\n",
		       "CPU", "PERIODS", "RUNTIME_US", "NOISE_US", "%AVAIL", "MAX_NOISE",
		       "MAX_SINGLE", "HW", "NMI", "IRQ", "SIRQ", "THREAD", "NMI/S", "IRQ/S",
		       "SIRQ/S", "THREAD/S");
		for (i = 0; i < r->ncpu; i++) {
			struct cpu *c = &r->cpu[i];

			if (!c->periods)
				continue;
			printf("%3d %7" PRIu64 " %11" PRIu64 " %9" PRIu64 " %9.5f %9" PRIu64
			       " %10" PRIu64, i, c->periods, c->runtime, c->noise,
			       c->runtime ? 100.0 - 100.0 * c->noise / c->runtime : 0.0,
			       c->max_noise, c->max_single);
			for (s = 0; s < 5; s++)
				printf(" %*" PRIu64, s < 2 ? 6 : 7, c->count[s]);
			printf(" |");
			/* noise per second by source, us/s, from the osnoise events */
			for (s = 0; s < NR_SRC; s++)
				printf(" %8.1f", c->src_ns[s] / 1000.0 / secs);
			printf("\n");
		}
	} else {
		printf("%3s %8s %10s %10s %6s   (us)\n", "CPU", "SAMPLES", "MAX_INNER", "MAX_OUTER",
		       "NMI");
		for (i = 0; i < r->ncpu; i++) {
			struct cpu *c = &r->cpu[i];

			if (!c->hw_n)
				continue;
			printf("%3d %8" PRIu64 " %10" PRIu64 " %10" PRIu64 " %6" PRIu64 "\n", i,
			       c->hw_n, c->hw_inner, c->hw_outer, c->hw_nmi);
		}
	}
}

/* rtla's histogram layout: a row per bucket, a column per CPU and context. */
static void print_hist(struct run *r)
{
	int tl = r->id_timerlat >= 0, i;
	long b;

	printf("# %s histogram, buckets of %ld us\n%-6s", r->o->tracer, r->o->bucket, "Index");
	for (i = 0; i < r->ncpu; i++) {
		if (!r->cpu[i].seen)
			continue;
		if (tl)
			printf("  IRQ-%03d", i);
		printf("  %s-%03d", tl ? "Thr" : "Noi", i);
	}
	printf("\n");
	for (b = 0; b < r->o->entries; b++) {
		int any = 0;

		for (i = 0; i < r->ncpu; i++)
			if (r->cpu[i].seen && (r->cpu[i].hthr[b] || (tl && r->cpu[i].hirq[b])))
				any = 1;
		if (!any)
			continue;
		printf("%-6ld", b * r->o->bucket);
		for (i = 0; i < r->ncpu; i++) {
			if (!r->cpu[i].seen)
				continue;
			if (tl)
				printf(" %8" PRIu64, r->cpu[i].hirq[b]);
			printf(" %8" PRIu64, r->cpu[i].hthr[b]);
		}
		printf("\n");
	}
#define ROW(label, expr_irq, expr_thr) do {					\
		printf("%-6s", label);						\
		for (i = 0; i < r->ncpu; i++) {					\
			struct cpu *c = &r->cpu[i];				\
			if (!c->seen)						\
				continue;					\
			if (tl)							\
				printf(" %8" PRIu64, (uint64_t)(expr_irq));	\
			printf(" %8" PRIu64, (uint64_t)(expr_thr));		\
		}								\
		printf("\n");							\
	} while (0)
	ROW("over:", c->hirq_over, c->hthr_over);
	ROW("count:", c->irq.n, tl ? c->thr.n : c->sample.n);
	ROW("min:", c->irq.min / 1000, (tl ? c->thr.min : c->sample.min) / 1000);
	ROW("avg:", avg(&c->irq) / 1000, avg(tl ? &c->thr : &c->sample) / 1000);
	ROW("max:", c->irq.max / 1000, (tl ? c->thr.max : c->sample.max) / 1000);
#undef ROW
}

static int event_id(struct run *r, const char *sys, const char *name)
{
	struct tep_event *ev = ftk_live_event(r->live, sys, name);

	return ev ? ev->id : -1;
}

static const char *const srcev[NR_SRC] = {
	"osnoise:nmi_noise", "osnoise:irq_noise", "osnoise:softirq_noise", "osnoise:thread_noise",
};

/*
 * The osnoise events, in the instance, before the tracer starts: with -a
 * the kernel may stop tracing at its first sample.
 */
static void enable_events(struct run *r)
{
	const struct ftk_lattrace_info *li = r->o->li;
	int s, ret;

	if (li->kind == FTK_LATTRACE_HWLAT)
		return;
	for (s = 0; s < NR_SRC; s++) {
		ret = ftk_event_enable(r->t, srcev[s], 1);
		if (ret == -FTK_E_NOEVENT && s == 0)
			return;		/* a kernel without the osnoise events */
		if (ret)
			tool_die_tracefs(r->t, srcev[s]);
	}
	if (li->kind == FTK_LATTRACE_OSNOISE &&
	    ftk_event_enable(r->t, "osnoise:sample_threshold", 1))
		tool_die_tracefs(r->t, "osnoise:sample_threshold");
}

static void run_per_cpu(struct run *r)
{
	const struct ftk_lattrace_info *li = r->o->li;
	double next;
	int s, ret;

	ret = ftk_live_open(ftk_tracefs_root(r->t), ftk_tracefs_instance(r->t), &r->live);
	if (ret)
		tool_die("cannot read the trace: %s", strerror(-ret));
	r->tep = ftk_live_tep(r->live);
	r->id_timerlat = li->kind == FTK_LATTRACE_TIMERLAT ? event_id(r, "ftrace", "timerlat") : -1;
	r->id_osnoise = li->kind == FTK_LATTRACE_OSNOISE ? event_id(r, "ftrace", "osnoise") : -1;
	r->id_hwlat = li->kind == FTK_LATTRACE_HWLAT ? event_id(r, "ftrace", "hwlat") : -1;
	r->id_sample = li->kind == FTK_LATTRACE_OSNOISE ? event_id(r, "osnoise", "sample_threshold")
							 : -1;
	for (s = 0; s < NR_SRC; s++)
		r->id_src[s] = li->kind == FTK_LATTRACE_HWLAT ? -1 :
			       event_id(r, "osnoise", strchr(srcev[s], ':') + 1);
	r->id_stack = li->kind == FTK_LATTRACE_TIMERLAT && r->o->autous ?
		      event_id(r, "ftrace", "kernel_stack") : -1;
	if (r->id_timerlat < 0 && r->id_osnoise < 0 && r->id_hwlat < 0)
		tool_die("this kernel has no format for the %s tracer's entries "
			 "(events/ftrace/%s/format)", li->name, li->name);
	next = r->start + r->o->interval;
	for (;;) {
		double now;

		ret = ftk_live_read(r->live, on_record, r, 0);
		if (ret < 0)
			tool_die("cannot read the trace: %s", ftk_live_errmsg(r->live));
		if (r->hit || tool_stop || (r->has_cmd && tool_cmd_done(&r->cmd)))
			break;
		now = tool_now();
		if (duration > 0 && now - r->start >= duration)
			break;
		if (r->o->interval > 0 && now >= next && r->o->mode == MODE_TOP) {
			print_top(r);
			printf("\n");
			fflush(stdout);
			next += r->o->interval;
		}
		tool_sleep(0.1);
	}
	/* After a hit, the rest: the stack timerlat saved follows its sample. */
	ftk_live_read(r->live, on_record, r, FTK_LIVE_FINAL);
	if (r->o->autous && !r->hit)
		printf("## no sample above %ld us\n", r->o->autous);
	if (r->o->mode == MODE_HIST)
		print_hist(r);
	else
		print_top(r);
	ftk_live_close(r->live);
}

/* ------------------------------------------------------------ main */

static void __attribute__((noreturn)) fail(struct ftk_tracefs *t, const char *tracer)
{
	char what[96];

	snprintf(what, sizeof(what), "cannot use the %s tracer", tracer);
	tool_die_tracefs(t, what);
}

/* Where the tracer runs: -B's or a private instance for osnoise and timerlat, else the top. */
static struct ftk_tracefs *home(struct run *r, const char *instance)
{
	const struct ftk_lattrace_info *li = r->o->li;
	char name[128];
	struct ftk_tracefs *t;

	r->top = tool_tracefs(NULL, 0);
	if (!li->instances) {
		if (instance)
			tool_usage_error("%s runs at the top level only: no -B", li->name);
		if (ftk_lattrace_check(r->top, li->name))
			fail(r->top, li->name);
		return r->top;
	}
	if (!instance) {
		if (ftk_instance_name("ftlat", name, sizeof(name)) < 0)
			tool_die("cannot name an instance: %s", strerror(errno));
		instance = name;
	}
	t = tool_tracefs(instance, FTK_TRACEFS_CREATE);
	if (!ftk_lattrace_check(t, li->name))
		return t;
	if (ftk_lattrace_check(r->top, li->name))
		fail(r->top, li->name);
	tool_warn("%s cannot run in an instance on this kernel: using the top level", li->name);
	return r->top;
}

static void start(struct run *r)
{
	struct ftk_lattrace_opts lo = FTK_LATTRACE_OPTS_INIT;
	struct opts *o = r->o;
	int ret;

	lo.thresh_us = o->thresh;
	/* Without -t, new maxima only (a tracing_thresh left set would change that). */
	if (lo.thresh_us < 0 && !o->li->per_cpu)
		lo.thresh_us = 0;
	lo.functions = !o->events_only;
	lo.period_us = o->period;
	lo.runtime_us = o->runtime;
	lo.cpus = o->cpus;
	if (o->autous && o->li->kind == FTK_LATTRACE_TIMERLAT) {
		/* The kernel stops tracing there too, and keeps the thread's stack. */
		lo.stop_us = o->autous;
		lo.stop_total_us = o->autous;
		lo.stack_us = o->autous;
	} else if (o->autous) {
		lo.stop_us = o->autous;
	}
	ret = ftk_lattrace_start(r->t, r->top, o->tracer, &lo);
	if (ret == -EPERM && lo.functions == 1) {
		/* Function tracing forbidden (lockdown): the events-only trace. */
		tool_warn("function tracing is forbidden here (%s): tracing events only",
			  ftk_tracefs_errmsg(r->t));
		lo.functions = 0;
		ret = ftk_lattrace_start(r->t, r->top, o->tracer, &lo);
	}
	if (ret)
		fail(r->t, o->tracer);
}

int main(int argc, char **argv)
{
	struct opts o = { .thresh = -1, .period = -1, .runtime = -1, .bucket = 1,
			  .entries = 256 };
	struct run r = { .o = &o, .id_timerlat = -1, .id_osnoise = -1, .id_hwlat = -1,
			 .id_stack = -1 };
	struct tool_args a;
	uint64_t max;

	/* TRACER comes first, before the options (COMMAND ends them). */
	if (argc > 1 && argv[1][0] != '-') {
		o.tracer = argv[1];
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	tool_parse(&def, argc, argv, &a, &o);
	duration = a.duration;
	if (o.list)
		tool_exit(do_list());
	if (!o.tracer)
		tool_usage_error("which tracer? (ftlat --list names them)");
	o.li = ftk_lattrace_get(o.tracer);
	if (!o.li)
		tool_usage_error("'%s' is not a latency tracer (ftlat --list names them)", o.tracer);
	if (!o.li->per_cpu && (o.mode || o.autous || o.cpus || o.period >= 0 || o.runtime >= 0))
		tool_usage_error("--hist, -a, -c, -P and -R are for hwlat, osnoise and timerlat");
	if (o.li->per_cpu && (o.repeat || o.out))
		tool_usage_error("-r and -o are for the tracers that keep a worst case's trace");
	if (o.li->kind == FTK_LATTRACE_HWLAT && (o.mode || o.autous || o.cpus))
		tool_usage_error("--hist, -a and -c are for osnoise and timerlat");
	if (o.li->kind == FTK_LATTRACE_TIMERLAT && o.runtime >= 0)
		tool_usage_error("-R is for osnoise and hwlat");
	if (o.interval && o.mode == MODE_HIST)
		tool_usage_error("-i goes with --top");

	tool_signals();
	r.t = home(&r, a.instance);
	if (a.argv)
		tool_cmd_fork(&r.cmd, a.argv, ftk_tracefs_instance(r.t));
	r.has_cmd = !!a.argv;
	if (o.li->per_cpu)
		enable_events(&r);
	start(&r);
	if (r.has_cmd && tool_cmd_start(&r.cmd))
		tool_exit(tool_cmd_code(&r.cmd));
	if (ftk_log_level() >= FTK_LOG_WARN && !r.has_cmd)
		fprintf(stderr, "Tracing %s... Ctrl-C to end.\n", o.tracer);
	r.start = tool_now();
	if (o.li->per_cpu) {
		run_per_cpu(&r);
	} else {
		wait_worst(&r);
		/* Stop it before reading: the kept trace cannot change under us. */
		if (ftk_lattrace_stop(r.t))
			tool_die_tracefs(r.t, NULL);
		if (ftk_lattrace_max(r.t, &max))
			tool_die_tracefs(r.t, NULL);
		if (!o.repeat && max)
			show_worst(&r, max, -1);
		else if (!max)
			printf("%s: no latency recorded%s\n", o.tracer,
			       o.thresh > 0 ? " above the threshold" : "");
	}
	if (r.has_cmd && !tool_cmd_done(&r.cmd))
		tool_cmd_kill(&r.cmd);
	if (fflush(stdout))
		tool_die("cannot write standard output: %s", strerror(errno));
	tool_exit(r.has_cmd ? tool_cmd_code(&r.cmd) : EXIT_OK);
}
