// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrunqlat: scheduler run-queue latency, from a task's wake-up (or its
 * preemption) to its switch-in, as a log2 histogram (bcc's runqlat),
 * per CPU or per task, and the worst wake-ups with both tasks named.
 *
 * Paired in the kernel where it has hist triggers and synthetic events
 * and only histograms are asked (-w 0; see kernel_setup()), else from the
 * live stream.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/perfstat.h>

#include "lat.h"

#define RUNNABLE_MASK	0xff	/* prev_state bits of a task that sleeps; 0x100 is "preempted" */

struct worst {
	int	cpu, wakee, waker;	/* waker 0: preempted, not woken */
	char	wakee_comm[16], waker_comm[16];
	double	at;			/* seconds since the first event */
};

struct runqlat {
	struct lat		l;
	struct ftk_hist		*hist;
	struct ftk_lattab	*tab;		/* per CPU or task, with -C/-P */
	struct ftk_lattab	*comms;		/* pid -> comm, from the events */
	struct ftk_lattab	*ours;		/* with -p or COMMAND: its tasks; NULL for all */
	struct ftk_pair		*pair;
	struct ftk_worst	*worst;
	struct tep_format_field	*w_pid, *w_comm, *s_prev_pid, *s_prev_state, *s_next_pid,
				*s_prev_comm, *s_next_comm;
	int			wakeup_id, wakeup_new_id, switch_id, fork_id, per, nworst;
	struct tep_format_field	*f_child, *f_child_comm, *f_filename;
	int			exec_id;
	uint64_t		div, wakeups, preempts, dropped;
	uint64_t		woken;		/* samples of a wake-up (the others: of a preemption) */
	const char		*uname;
	int			kernel;		/* the pairing runs in the kernel */
	int			kernel_woken;	/* kernel_read(): the hist read is of wake-ups */
	char			synth[3][160];	/* its "synthetic:NAME"s: wake-up, new task, preempted */
	struct ftk_trigger_latency_opts lo[3];	/* and how they were made */
};

/* ftk_pair data: the waker's pid, and this bit for a wake-up (not a preemption) */
#define WOKEN		(1ULL << 32)

static const char usage[] =
"usage: ftrunqlat [-CP] [-m|-u|-n] [-w N] [-p PID] [-i SECS] [-D SECS] [--json]\n"
"                 [--heatmap FILE.svg] [--stream] [-B NAME] [[--] COMMAND [ARG...]]\n"
"\n"
"How long tasks wait to run after a wake-up (or a preemption), as a log2\n"
"histogram, with the worst waits and the tasks that woke them.\n"
"\n"
"  -C, --cpu             a histogram per CPU\n"
"  -P, --task            a histogram per task (pid)\n"
"  -m, --msecs           milliseconds\n"
"  -u, --usecs           microseconds (the default; -n for nanoseconds)\n"
"  -n, --nsecs           nanoseconds\n"
"  -w, --worst N         the N worst waits (default 5, 0 for none)\n"
"  -p, --pid PID         tasks of this process only\n"
"  -i, --interval S      print and reset every S seconds\n"
LAT_HELP_D
"      --json            one JSON object (per interval)\n"
LAT_HELP_HEATMAP LAT_HELP_STREAM
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftrunqlat -D 10               # the whole system for ten seconds\n"
"  ftrunqlat -C -i 1             # per CPU, every second\n"
"  ftrunqlat -P -- make -j4      # per task of a build\n"
"  ftrunqlat --heatmap rq.svg -i 1 -D 60   # a minute, a column a second\n";

static void option(int opt, char *arg, void *ctx)
{
	struct runqlat *r = ctx;

	switch (opt) {
	case 'C': case 'P': r->per = opt; break;
	case 'w': r->nworst = tool_num(arg, "worst count", 0, 1000); break;
	}
}

static void remember(struct runqlat *r, const struct tep_record *rec, struct tep_format_field *pid,
		     struct tep_format_field *comm)
{
	int len, p = ftk_record_num(rec, pid);
	const char *c = ftk_record_str(rec, comm, &len);
	char buf[17];

	snprintf(buf, sizeof(buf), "%.*s", len, c);
	if (p)
		ftk_lattab_name(r->comms, p, buf);
}

static const char *comm_of(struct runqlat *r, int pid)
{
	struct ftk_lat_row *row = ftk_lattab_find(r->comms, pid);

	return row && row->name ? row->name : pid ? "?" : "(preempted)";
}

/*
 * The kernel's pid filter passes a sched_switch if either task is traced:
 * only the traced ones (the first tasks and their children) are counted.
 */
static int ours(struct runqlat *r, int pid)
{
	return pid && (!r->ours || ftk_lattab_find(r->ours, pid));
}

static void ours_init(struct runqlat *r)
{
	pid_t *tids = NULL;
	size_t nr = 0, i;

	if (!r->l.pid)
		return;
	r->ours = ftk_lattab_new();
	if (!r->ours)
		tool_die("out of memory");
	ftk_lattab_row(r->ours, r->l.pid);
	if (r->l.has_cmd)
		return;
	if (ftk_perf_threads(r->l.pid, 0, &tids, &nr))
		tool_die("no process %d: %s", (int)r->l.pid, strerror(errno));
	for (i = 0; i < nr; i++)
		ftk_lattab_row(r->ours, tids[i]);
	free(tids);
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct runqlat *r = ctx;
	int type = lat_type(&r->l, rec), next, prev;
	uint64_t ns, waker;
	struct worst w;

	if (type == r->fork_id) {
		if (r->ours && ours(r, ftk_record_pid(rec)))
			ftk_lattab_row(r->ours, ftk_record_num(rec, r->f_child));
		if (r->f_child_comm)
			remember(r, rec, r->f_child, r->f_child_comm);
		return 0;
	}
	if (type == r->exec_id) {
		int len;
		const char *fn = ftk_record_str(rec, r->f_filename, &len), *base = fn;
		char buf[16];

		for (; len > 0 && *fn; fn++, len--)
			if (*fn == '/')
				base = fn + 1;
		snprintf(buf, sizeof(buf), "%.*s", (int)(fn - base), base);
		ftk_lattab_name(r->comms, ftk_record_pid(rec), buf);
		return 0;
	}
	if (type == r->wakeup_id || type == r->wakeup_new_id) {
		if (!ours(r, ftk_record_num(rec, r->w_pid)))
			return 0;
		remember(r, rec, r->w_pid, r->w_comm);
		r->wakeups++;
		ftk_pair_start(r->pair, ftk_record_num(rec, r->w_pid), rec->ts,
			       WOKEN | (uint32_t)ftk_record_pid(rec));
		return 0;
	}
	if (type != r->switch_id)
		return 0;
	remember(r, rec, r->s_prev_pid, r->s_prev_comm);
	remember(r, rec, r->s_next_pid, r->s_next_comm);
	prev = ftk_record_num(rec, r->s_prev_pid);
	next = ftk_record_num(rec, r->s_next_pid);
	/* still runnable as it leaves the CPU: it waits in the queue from now */
	if (ours(r, prev) && !(ftk_record_num(rec, r->s_prev_state) & RUNNABLE_MASK)) {
		r->preempts++;
		ftk_pair_start(r->pair, prev, rec->ts, 0);
	}
	if (!ours(r, next) || ftk_pair_end(r->pair, next, rec->ts, &ns, &waker) != 1)
		return 0;
	r->woken += !!(waker & WOKEN);
	waker = (uint32_t)waker;
	ftk_hist_add(r->hist, ns);
	lat_heat(&r->l, rec->ts, ns / r->div);
	if (r->per)
		ftk_lattab_add(r->tab, r->per == 'C' ? (uint64_t)rec->cpu : (uint64_t)next,
			       ns, 0);
	if (r->per == 'P')
		ftk_lattab_name(r->tab, next, comm_of(r, next));
	if (r->worst) {
		memset(&w, 0, sizeof(w));
		w.cpu = rec->cpu;
		w.wakee = next;
		w.waker = waker;
		snprintf(w.wakee_comm, sizeof(w.wakee_comm), "%s", comm_of(r, next));
		snprintf(w.waker_comm, sizeof(w.waker_comm), "%s", comm_of(r, waker));
		w.at = lat_since_start(&r->l, rec->ts);
		ftk_worst_add(r->worst, ns, &w);
	}
	return 0;
}

static void print_worst(struct runqlat *r)
{
	const struct worst *w;
	unsigned int i;
	uint64_t ns;

	for (i = 0; (w = ftk_worst_get(r->worst, i, &ns)); i++) {
		if (r->l.opt.json) {
			printf("%s{\"latency_ns\":%llu,\"cpu\":%d,\"time\":%.6f,\"pid\":%d,\"comm\":",
			       i ? "," : "", (unsigned long long)ns, w->cpu, w->at, w->wakee);
			ftk_json_str(stdout, w->wakee_comm, sizeof(w->wakee_comm));
			printf(",\"waker_pid\":%d,\"waker_comm\":", w->waker);
			ftk_json_str(stdout, w->waker_comm, sizeof(w->waker_comm));
			putchar('}');
			continue;
		}
		if (!i)
			printf("\n%-12s %4s %-12s %-16s %7s   %-16s %7s\n", "LAT(us)", "CPU",
			       "TIME(s)", "TASK", "PID", "WOKEN BY", "PID");
		printf("%-12.1f %4d %-12.6f %-16s %7d   %-16s %7d\n", ns / 1e3, w->cpu, w->at,
		       w->wakee_comm, w->wakee, w->waker_comm, w->waker);
	}
}

static void print(void *ctx)
{
	struct runqlat *r = ctx;
	struct ftk_pair_stats ps;
	struct ftk_lat_row **rows;
	long n, i;

	if (r->l.opt.json) {
		printf("{\"unit\":\"%s\",\"wakeups\":%llu,\"preemptions\":%llu,\"latency\":",
		       r->uname, (unsigned long long)r->wakeups, (unsigned long long)r->preempts);
		ftk_hist_json(r->hist, stdout, r->uname);
		if (r->per) {
			printf(",\"%s\":", r->per == 'C' ? "cpus" : "tasks");
			ftk_lattab_json(r->tab, stdout, FTK_LATTAB_BY_KEY, 0, r->uname);
		}
		printf(",\"worst\":[");
		if (r->worst)
			print_worst(r);
		ftk_pair_stats(r->pair, &ps);
		printf("],\"pairs\":{\"replaced\":%llu,\"pending\":%llu,\"backwards\":%llu},"
		       "\"lost\":%llu}\n", (unsigned long long)ps.replaced,
		       (unsigned long long)ps.pending, (unsigned long long)ps.backwards,
		       (unsigned long long)lat_lost(&r->l));
	} else if (r->per) {
		n = ftk_lattab_rows(r->tab, FTK_LATTAB_BY_KEY, &rows);
		for (i = 0; i < n; i++) {
			if (!rows[i]->count)
				continue;
			if (r->per == 'C')
				printf("\ncpu = %llu\n", (unsigned long long)rows[i]->key);
			else
				printf("\npid = %llu %s\n", (unsigned long long)rows[i]->key,
				       rows[i]->name);
			ftk_hist_print(rows[i]->hist, stdout, r->uname);
		}
		free(rows);
	} else {
		ftk_hist_print(r->hist, stdout, r->uname);
	}
	if (!r->l.opt.json) {
		if (r->worst)
			print_worst(r);
		lat_lost_print(&r->l, stdout);
		lat_dropped_print(r->dropped, stdout);
	}
	{
		struct ftk_hist_stats st;

		ftk_hist_stats(r->hist, &st);
		lat_path(&r->l, "%llu wake-ups, %llu preemptions%s; %llu samples: %llu of a wake-up, "
			 "%llu of a preemption", (unsigned long long)r->wakeups,
			 (unsigned long long)r->preempts, r->kernel && r->ours ?
			 " (any task's, in the kernel)" : "", (unsigned long long)st.count,
			 (unsigned long long)r->woken, (unsigned long long)(st.count - r->woken));
	}
	r->woken = 0;
	ftk_hist_reset(r->hist);
	ftk_lattab_reset(r->tab);
	if (r->worst)
		ftk_worst_reset(r->worst);
	r->wakeups = r->preempts = 0;
	lat_check_out(&r->l);
}

/*
 * The kernel path: three synthetic events, from sched_wakeup,
 * sched_wakeup_new and a runnable task's sched_switch out to its
 * sched_switch in (next_pid), each carrying the wait and the pid, and a
 * hist on each keyed by the wait in the unit (linear buckets of one unit:
 * the values the stream would bucket), and by pid where only some tasks
 * count (-p, COMMAND) or each has its histogram (-P). The instance's pid
 * filter passes a sched_switch if either task is traced, so the kernel
 * also pairs others' waits: their rows are dropped here, as the stream
 * drops them, with the tasks of COMMAND known from sched_process_fork.
 */
static void kernel_setup(struct runqlat *r)
{
	static const char *const start[3][3] = {
		{ "sched:sched_wakeup", "pid", NULL },
		{ "sched:sched_wakeup_new", "pid", NULL },
		/* still runnable as it leaves the CPU (RUNNABLE_MASK), not the idle task */
		{ "sched:sched_switch", "prev_pid", "prev_pid != 0 && !(prev_state & 255)" },
	};
	static const char *const suffix[3] = { "rqw", "rqn", "rqp" };
	/* the pid's variable in each end hist: the three are on sched_switch, names must differ */
	static const char *const pid_name[3] = { "wpid", "npid", "ppid" };
	char trig[200], lat[40];
	int i;

	if (r->div > 1)
		snprintf(lat, sizeof(lat), "lat.buckets=%llu", (unsigned long long)r->div);
	else
		snprintf(lat, sizeof(lat), "lat");
	for (i = 0; i < 3; i++) {
		FTK_OPTS(ftk_trigger_latency_opts, o, .start = start[i][0],
			 .end = "sched:sched_switch", .start_keys = start[i][1],
			 .end_keys = "next_pid", .key_name = pid_name[i],
			 .start_filter = start[i][2], .size = 16384,
			 .clock = "mono");

		lat_latency(&r->l, &o, suffix[i], r->synth[i], sizeof(r->synth[i]));
		r->lo[i] = o;
		if (r->l.opt.pid || r->l.has_cmd || r->per)
			snprintf(trig, sizeof(trig), "hist:keys=%s,%s:size=32768", pid_name[i], lat);
		else
			snprintf(trig, sizeof(trig), "hist:keys=%s:size=32768", lat);
		lat_hist(&r->l, r->synth[i], trig);
	}
	r->kernel = 1;
	lat_path(&r->l, "kernel: sched_wakeup, sched_wakeup_new and runnable sched_switch out -> "
		 "sched_switch in by pid -> %s, %s and %s, a hist on each keyed by %s%s",
		 r->synth[0] + 10, r->synth[1] + 10, r->synth[2] + 10,
		 r->l.opt.pid || r->l.has_cmd || r->per ? "pid," : "", lat);
}

/* A row of a kernel hist: { [pid,] lat: ~ LOW-HIGH } hitcount; @ctx's woken set by the caller. */
static void on_kernel_row(void *ctx, const struct ftk_trigger_hist_row *h)
{
	struct runqlat *r = ctx;
	int keyed = r->l.opt.pid || r->l.has_cmd || r->per;
	uint64_t pid = keyed ? h->key[0] : 0, lat = h->key[keyed];	/* a bucket's low, in ns */
	struct ftk_lat_row *row;

	if (keyed && !ours(r, pid))
		return;
	ftk_hist_add_n(r->hist, lat, h->val[0]);
	if (r->kernel_woken)
		r->woken += h->val[0];
	if (r->per != 'P')
		return;
	row = ftk_lattab_row(r->tab, pid);
	if (!row || !ftk_lattab_hist(r->tab, row))
		tool_die("out of memory");
	row->count += h->val[0];
	ftk_hist_add_n(row->hist, lat, h->val[0]);
	if (!row->name) {
		struct ftk_lat_row *c = ftk_lattab_find(r->comms, pid);
		char comm[32];

		ftk_lattab_name(r->tab, pid, c && c->name ? c->name :
				ftk_session_comm(r->l.s, pid, comm, sizeof(comm)));
	}
}

static void kernel_read(struct runqlat *r)
{
	static const char *const keys[3] = { "wpid,lat", "npid,lat", "ppid,lat" };
	int keyed = r->l.opt.pid || r->l.has_cmd || r->per, i;
	struct ftk_trigger_hist_totals tot;

	for (i = 0; i < 3; i++) {
		r->kernel_woken = i < 2;
		lat_hist_read(&r->l, r->synth[i], "keys=", keyed ? keys[i] : "lat", "hitcount",
			      on_kernel_row, r, &tot);
		r->dropped += tot.dropped + lat_latency_dropped(&r->l, &r->lo[i]);
	}
	/* the starts' hists: every task's the kernel's pid filter let through */
	lat_hist_read(&r->l, "sched:sched_wakeup", "keys=pid", "", "", NULL, NULL, &tot);
	r->wakeups = tot.hits;
	lat_hist_read(&r->l, "sched:sched_wakeup_new", "keys=pid", "", "", NULL, NULL, &tot);
	r->wakeups += tot.hits;
	lat_hist_read(&r->l, "sched:sched_switch", "keys=prev_pid", "", "", NULL, NULL, &tot);
	r->preempts = tot.hits;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", no_argument, NULL, 'C' },	{ "task", no_argument, NULL, 'P' },
		{ "worst", required_argument, NULL, 'w' },	{ }
	};
	static const struct lat_def def = {
		.name = "ftrunqlat", .usage = usage, .opts = "CPw:", .longopts = longopts,
		.option = option, .shared = LAT_OPT_PID | LAT_OPT_INTERVAL | LAT_OPT_JSON |
		LAT_OPT_HEATMAP | LAT_OPT_STREAM | LAT_OPT_MSECS | LAT_OPT_USECS | LAT_OPT_NSECS,
	};
	struct tool_args args;
	struct runqlat r = { .l.name = "runqlat", .l.opt.unit = 'u', .nworst = 5 };
	struct tep_event *ev = NULL;
	int code, kernel;

	lat_parse(&r.l, &def, argc, argv, &args, &r);
	r.uname = lat_unit(r.l.opt.unit, &r.div);
	r.hist = ftk_hist_new();
	r.tab = ftk_lattab_new();
	r.comms = ftk_lattab_new();
	r.pair = ftk_pair_new();
	r.worst = r.nworst ? ftk_worst_new(r.nworst, sizeof(struct worst)) : NULL;
	/* latencies added in ns, bucketed in the unit: sums and means stay exact */
	if (!r.hist || !r.tab || !r.comms || !r.pair || (r.nworst && !r.worst) ||
	    ftk_hist_scale(r.hist, r.div) || ftk_lattab_scale(r.tab, r.div))
		tool_die("out of memory");
	if (r.l.opt.heatmap)
		lat_heatmap(&r.l, r.l.opt.heatmap, r.l.opt.interval);
	lat_open(&r.l, &args, r.l.opt.pid);
	ours_init(&r);
	r.fork_id = r.exec_id = r.wakeup_id = r.wakeup_new_id = r.switch_id = -1;
	kernel = lat_kernel_ok(&r.l, "sched:sched_switch", r.nworst ? "-w (the worst waits)" :
			       r.per == 'C' ? "-C" : r.l.opt.interval ? "-i" :
			       r.l.opt.heatmap ? "--heatmap" : r.l.opt.json ? "--json" : NULL);
	if (r.l.has_cmd || (kernel && r.per == 'P')) {
		lat_event(&r.l, "sched:sched_process_fork", NULL);
		ev = lat_find(&r.l, "sched", "sched_process_fork");
		r.fork_id = ev->id;
		r.f_child = lat_field(&r.l, ev, "child_pid");
	}
	/* the kernel path's -P: the names of tasks gone by the end, from their fork and exec */
	if (kernel && r.per == 'P') {
		r.f_child_comm = lat_field(&r.l, ev, "child_comm");
		lat_event(&r.l, "sched:sched_process_exec", NULL);
		ev = lat_find(&r.l, "sched", "sched_process_exec");
		r.exec_id = ev->id;
		r.f_filename = lat_field(&r.l, ev, "filename");
	}
	if (kernel) {
		kernel_setup(&r);
		code = lat_run(&r.l, on_record, &r, NULL, 0);
		kernel_read(&r);
		print(&r);
		tool_exit(code);
	}
	lat_event(&r.l, "sched:sched_wakeup", NULL);
	lat_event(&r.l, "sched:sched_wakeup_new", NULL);
	lat_event(&r.l, "sched:sched_switch", NULL);
	ev = lat_find(&r.l, "sched", "sched_wakeup");
	r.wakeup_id = ev->id;
	r.w_pid = lat_field(&r.l, ev, "pid");
	r.w_comm = lat_field(&r.l, ev, "comm");
	r.wakeup_new_id = lat_find(&r.l, "sched", "sched_wakeup_new")->id;
	ev = lat_find(&r.l, "sched", "sched_switch");
	r.switch_id = ev->id;
	r.s_prev_pid = lat_field(&r.l, ev, "prev_pid");
	r.s_prev_state = lat_field(&r.l, ev, "prev_state");
	r.s_prev_comm = lat_field(&r.l, ev, "prev_comm");
	r.s_next_pid = lat_field(&r.l, ev, "next_pid");
	r.s_next_comm = lat_field(&r.l, ev, "next_comm");
	lat_path(&r.l, "stream: sched_wakeup(_new) and runnable sched_switch out, paired with the "
		 "switch in by pid, from the live buffer");
	code = lat_run(&r.l, on_record, &r, print, r.l.opt.interval);
	print(&r);
	lat_heat_write(&r.l, "Run queue latency", r.uname);
	tool_exit(code);
}
