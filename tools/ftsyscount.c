// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftsyscount: syscalls counted by syscall or by process, with their
 * latency (-L), as perf-tools' syscount and bcc's syscount.
 *
 * In the kernel where it has hist triggers and synthetic events: a hist
 * on raw_syscalls:sys_exit keyed by id or pid counts, and with -L a
 * synthetic event from sys_enter to sys_exit of a thread, with a hist on
 * it, sums the time; read at the end. With --stream, -i, or without them,
 * sys_enter and sys_exit are paired by thread from the live stream.
 *
 * Counts alone (no -L, -P, -i) come first from perf_event counters on the
 * syscalls:sys_exit_* tracepoints, one a syscall on each CPU (or thread):
 * the kernel adds them up, no record is made, no instance either.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ftkit/perfstat.h>

#include "lat.h"

struct syscount {
	struct lat		l;
	struct ftk_lattab	*tab;
	struct ftk_pair		*pair;
	struct tep_format_field	*f_id, *f_ret;
	int			exit_id, enter_id;
	int			by_proc, latency, failures, top, syscall;
	uint64_t		div, paired, dropped;
	char			synth[160];	/* the kernel path's "synthetic:NAME" with -L */
	struct ftk_trigger_latency_opts lo;	/* and how it was made */
	char			comm[32];
	const char		*uname;
};

static const char usage[] =
"usage: ftsyscount [-LPx] [-p PID] [-e SYSCALL] [-t TOP] [-i SECS] [-m|-u|-n] [-D SECS]\n"
"                  [--json] [--stream] [-B NAME] [[--] COMMAND [ARG...]]\n"
"\n"
"Count syscalls by syscall (or by process with -P), with their latency\n"
"(-L), system-wide, of one process (-p) or of COMMAND and its children.\n"
"\n"
"  -L, --latency         also the total and mean time in each syscall\n"
"  -P, --process         by process (pid) instead of by syscall\n"
"  -x, --failures        failed syscalls only (return value < 0)\n"
"  -p, --pid PID         this process only (its threads)\n"
"  -e, --syscall NAME    this syscall only\n"
"  -t, --top N           the N largest rows (default all)\n"
"  -i, --interval S      print and reset every S seconds\n"
"  -m, --msecs           latency in milliseconds\n"
"  -u, --usecs           latency in microseconds (the default)\n"
"  -n, --nsecs           latency in nanoseconds\n"
"  -d SECS               as -D (perf-tools' letter)\n"
"      --json            one JSON object (per interval)\n"
LAT_HELP_STREAM
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"examples:\n"
"  ftsyscount -D 5              # every syscall for five seconds\n"
"  ftsyscount -LP -p 1234       # per thread of 1234, with time spent\n"
"  ftsyscount -L -- make -j2    # the syscalls of a build\n"
"  ftsyscount -x -e openat      # failed openat calls\n";

static void option(int opt, char *arg, void *ctx)
{
	struct syscount *s = ctx;

	switch (opt) {
	case 'L': s->latency = 1; break;
	case 'P': s->by_proc = 1; break;
	case 'x': s->failures = 1; break;
	case 'e':
		s->syscall = ftk_syscall_nr(arg);
		if (s->syscall < 0)
			tool_usage_error("unknown syscall '%s'", arg);
		break;
	case 't': s->top = tool_num(arg, "top", 1, 1 << 20); break;
	}
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct syscount *s = ctx;
	int type = lat_type(&s->l, rec), tid = ftk_record_pid(rec);
	long long id = ftk_record_num(rec, s->f_id), ret;
	uint64_t ns, key;
	char comm[32];

	if (type == s->enter_id) {
		ftk_pair_start(s->pair, tid, rec->ts, id);
		return 0;
	}
	if (type != s->exit_id)
		return 0;
	ret = ftk_record_num(rec, s->f_ret);
	key = s->by_proc ? (uint64_t)tid : (uint64_t)id;
	if (s->by_proc && !ftk_lattab_find(s->tab, key))
		ftk_lattab_name(s->tab, key, ftk_session_comm(s->l.s, tid, comm, sizeof(comm)));
	if (s->failures && ret >= 0) {
		ftk_pair_drop(s->pair, tid);
		return 0;
	}
	if (s->latency && ftk_pair_end(s->pair, tid, rec->ts, &ns, NULL) == 1) {
		ftk_lattab_add(s->tab, key, ns, ret < 0);
		s->paired++;
	}
	else
		ftk_lattab_count(s->tab, key, ret < 0);
	return 0;
}

/* The in-kernel counts: "{ id: 39 } hitcount: 5" rows of the count hist on sys_exit. */
static void on_count(void *ctx, const struct ftk_trigger_hist_row *h)
{
	struct syscount *s = ctx;
	struct ftk_lat_row *row;

	if (s->by_proc)
		ftk_lattab_name(s->tab, h->key[0], ftk_session_comm(s->l.s, h->key[0], s->comm,
								  sizeof(s->comm)));
	row = ftk_lattab_row(s->tab, h->key[0]);
	if (!row)
		tool_die("out of memory");
	row->count = h->val[0];
	row->errors = s->failures ? h->val[0] : 0;
}

/*
 * The in-kernel latencies: "{ id: 39 } hitcount: 5 lat: 12345" rows of
 * the hist on the synthetic event, the sum in nanoseconds. The row gets
 * that many samples whose sum in nanoseconds is the kernel's (their
 * spread is not known: the mean for each).
 */
static void on_latency(void *ctx, const struct ftk_trigger_hist_row *h)
{
	struct syscount *s = ctx;
	struct ftk_lat_row *row = ftk_lattab_row(s->tab, h->key[0]);
	uint64_t sum = h->val[1], q, r;

	if (!row || !ftk_lattab_hist(s->tab, row))
		tool_die("out of memory");
	if (!h->val[0])
		return;
	q = sum / h->val[0];
	r = sum % h->val[0];
	ftk_hist_add_n(row->hist, q, h->val[0] - r);
	ftk_hist_add_n(row->hist, q + 1, r);
	s->paired += h->val[0];
}

/*
 * The kernel path: a count hist on sys_exit keyed by syscall or pid (it
 * soft-enables the event: nothing goes to the buffer); with -L also a
 * synthetic event from sys_enter to sys_exit of the same thread, carrying
 * the syscall, and a hist on it summing the latency per key.
 */
static void kernel_setup(struct syscount *s, const char *filter, const char *enter_filter)
{
	FTK_OPTS(ftk_trigger_latency_opts, o, .start = "raw_syscalls:sys_enter",
		 .end = "raw_syscalls:sys_exit", .start_keys = "common_pid",
		 .end_keys = "common_pid", .key_name = "pid", .end_fields = "id,ret",
		 .start_filter = *enter_filter ? enter_filter : NULL,
		 .end_filter = *filter ? filter : NULL, .size = 16384,
		 .clock = "mono");
	char trig[256];

	snprintf(trig, sizeof(trig), "hist:keys=%s:size=8192%s%s",
		 s->by_proc ? "common_pid.execname" : "id", *filter ? " if " : "", filter);
	lat_hist(&s->l, "raw_syscalls:sys_exit", trig);
	if (!s->latency) {
		lat_path(&s->l, "kernel: hist trigger on raw_syscalls:sys_exit, keys=%s",
			 s->by_proc ? "common_pid" : "id");
		return;
	}
	lat_latency(&s->l, &o, "sys", s->synth, sizeof(s->synth));
	s->lo = o;
	snprintf(trig, sizeof(trig), "hist:keys=%s:vals=hitcount,lat:size=8192",
		 s->by_proc ? "pid" : "id");
	lat_hist(&s->l, s->synth, trig);
	lat_path(&s->l, "kernel: hist trigger on raw_syscalls:sys_exit, keys=%s; sys_enter -> "
		 "sys_exit by common_pid -> %s, a hist on it summing lat by %s",
		 s->by_proc ? "common_pid" : "id", s->synth, s->by_proc ? "pid" : "id");
}

static void kernel_read(struct syscount *s)
{
	struct ftk_trigger_hist_totals tot;
	uint64_t dropped;

	lat_hist_read(&s->l, "raw_syscalls:sys_exit", s->by_proc ?
		      "keys=common_pid.execname:vals=hitcount:sort" : "keys=id:vals=hitcount:sort",
		      s->by_proc ? "common_pid" : "id", "hitcount", on_count, s, &tot);
	dropped = tot.dropped;
	if (s->latency) {
		lat_hist_read(&s->l, s->synth, "keys=", s->by_proc ? "pid" : "id",
			      "hitcount,lat", on_latency, s, &tot);
		dropped += tot.dropped + lat_latency_dropped(&s->l, &s->lo);
	}
	s->dropped = dropped;
}

/* Rows keyed by syscall number get its name (JSON's "name"), unless they have one. */
static void name_syscalls(struct syscount *s)
{
	struct ftk_lat_row **rows;
	long n, i;

	if (s->by_proc)
		return;
	n = ftk_lattab_rows(s->tab, FTK_LATTAB_BY_KEY, &rows);
	for (i = 0; i < n; i++)
		if (!rows[i]->name && ftk_syscall_name(rows[i]->key))
			ftk_lattab_name(s->tab, rows[i]->key, ftk_syscall_name(rows[i]->key));
	if (n >= 0)
		free(rows);
}

/* -P: each process by the name it had last (an exec, a rename since its first call). */
static void name_procs(struct syscount *s)
{
	struct ftk_lat_row **rows = NULL;
	char name[64];
	long n, i;

	n = ftk_lattab_rows(s->tab, FTK_LATTAB_BY_KEY, &rows);
	for (i = 0; i < n; i++)
		ftk_lattab_name(s->tab, rows[i]->key,
				ftk_session_comm(s->l.s, rows[i]->key, name, sizeof(name)));
	free(rows);
}

static void print(void *ctx)
{
	struct syscount *s = ctx;
	struct ftk_lat_row **rows;
	unsigned long long total;
	char name[64], sum[48];
	long n, i;

	if (s->by_proc)
		name_procs(s);
	if (s->l.opt.json) {
		name_syscalls(s);
		printf("{\"by\":\"%s\",\"unit\":\"%s\",\"rows\":", s->by_proc ? "process" : "syscall",
		       s->uname);
		ftk_lattab_json(s->tab, stdout, FTK_LATTAB_BY_COUNT, s->top, s->uname);
		printf(",\"lost\":%llu}\n", (unsigned long long)(lat_lost(&s->l) + s->dropped));
		goto out;
	}
	n = ftk_lattab_rows(s->tab, s->latency ? FTK_LATTAB_BY_TOTAL : FTK_LATTAB_BY_COUNT, &rows);
	for (i = 0, total = 0; i < n; i++)
		total += rows[i]->count;
	lat_path(&s->l, "%llu syscalls%s, %llu paired with their entry", (unsigned long long)total,
		 s->failures ? " (failed)" : "", (unsigned long long)s->paired);
	s->paired = 0;
	printf(s->by_proc ? "%-7s %-16s %10s" : "%-24s %10s", s->by_proc ? "PID" : "SYSCALL",
	       s->by_proc ? "COMM" : "COUNT", "COUNT");
	if (s->latency)
		printf(" %14s %12s", s->div == 1 ? "TOTAL(ns)" : s->div == 1000 ? "TOTAL(us)" :
		       "TOTAL(ms)", "MEAN");
	putchar('\n');
	for (i = 0; i < n && (!s->top || i < s->top); i++) {
		struct ftk_hist_stats st = { 0 };

		if (!rows[i]->count)
			continue;
		if (s->by_proc) {
			printf("%-7llu %-16s %10llu", (unsigned long long)rows[i]->key,
			       rows[i]->name ? rows[i]->name : "?",
			       (unsigned long long)rows[i]->count);
		} else {
			const char *nm = ftk_syscall_name(rows[i]->key);

			if (!nm)
				nm = rows[i]->name;	/* the counter path's tracepoint name */

			if (!nm)
				snprintf(name, sizeof(name), "[%llu]", (unsigned long long)rows[i]->key);
			printf("%-24s %10llu", nm ? nm : name, (unsigned long long)rows[i]->count);
		}
		if (s->latency && rows[i]->hist) {
			ftk_hist_stats(rows[i]->hist, &st);
			/* exact to the nanosecond, as bcc's syscount -L prints its sum */
			printf(" %14s %12.*f", ftk_hist_value_str(sum, sizeof(sum), st.sum, s->div),
			       s->div == 1 ? 1 : s->div == 1000 ? 3 : 6,
			       st.count ? (double)st.sum / st.count / s->div : 0.0);
		}
		putchar('\n');
	}
	free(rows);
	lat_lost_print(&s->l, stdout);
	lat_dropped_print(s->dropped, stdout);
out:
	ftk_lattab_reset(s->tab);
	lat_check_out(&s->l);
}

/* Keys of the counter path's tracepoints that the syscall table does not name. */
#define SC_KEY_UNNAMED	(1u << 20)

/*
 * The syscall number of tracepoint "syscalls:sys_exit_NAME": NAME in the
 * table, or as the kernel names some native calls (newuname, sendfile64);
 * -1 if the table has none of them.
 */
static long tp_syscall(const char *ev, const char **name)
{
	const char *n = strstr(ev, "sys_exit_");
	char buf[64];
	size_t len;
	long nr;

	*name = ev;
	if (!n)
		return -1;
	*name = n += strlen("sys_exit_");
	if ((nr = ftk_syscall_nr(n)) >= 0)
		return nr;
	if (!strncmp(n, "new", 3) && (nr = ftk_syscall_nr(n + 3)) >= 0)
		return nr;
	len = snprintf(buf, sizeof(buf), "%s", n);
	if (len > 2 && len < sizeof(buf) && !strcmp(buf + len - 2, "64")) {
		buf[len - 2] = '\0';
		return ftk_syscall_nr(buf);
	}
	return -1;
}

/* Room for @need more descriptors: the soft limit raised to the hard one if it helps. */
static int fds_ok(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need + 64) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 64 ?
			      need + 64 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need + 64;
}

/*
 * Let the counters go without waiting: the last close of each tracepoint's
 * perf events waits in the kernel for RCU to let go of it
 * (tracepoint_synchronize_unregister(), one at a time under event_mutex):
 * some 50 ms each, 15-20 s for every syscall's. A child left behind
 * ("ftsyscount-rel", in its own session, stdio on /dev/null) holds them
 * and closes them once the tool has closed its own copies, which is then
 * quick; without a child, they are closed here.
 */
static void release(struct ftk_perf *p)
{
	int go[2], fd;
	char c;

	fflush(stdout);
	fflush(stderr);
	if (pipe2(go, O_CLOEXEC)) {
		ftk_perf_free(p);
		return;
	}
	switch (fork()) {
	case -1:
		close(go[0]);
		close(go[1]);
		ftk_perf_free(p);
		return;
	case 0:
		close(go[1]);
		setsid();
		prctl(PR_SET_NAME, "ftsyscount-rel");
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		/* EOF once the tool's copies are closed: these are the last */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		ftk_perf_free(p);
		_exit(0);
	}
	close(go[0]);
	ftk_perf_free(p);	/* the child holds them too: no release here */
	close(go[1]);
}

/* Nothing counted this way: -v says why, the other paths take over. */
static int no_counters(struct syscount *s, struct ftk_perf *p, const char *why)
{
	lat_path(&s->l, "no counter path: %s", why);
	if (s->l.has_cmd) {
		tool_cmd_abandon(&s->l.cmd);
		s->l.has_cmd = 0;
	}
	release(p);
	return 0;
}

/*
 * The counter path: a perf_event counter on each syscalls:sys_exit_*
 * tracepoint (the one of -e), per CPU system-wide (the tool's own calls
 * filtered out), per thread of -p, or on COMMAND inherited by its
 * children; -x filters on ret < 0 in the kernel (--json counts those
 * too, for each row's errors, on a second set). The sums become the
 * table print() shows, as the stream path's count of raw_syscalls:sys_exit
 * would. Returns 0 without doing anything when the counters cannot be
 * had here; otherwise counts, prints and exits.
 */
static int counters(struct syscount *s, struct tool_args *a)
{
	unsigned int flags = FTK_PERF_DISABLED;
	struct ftk_perf *p = NULL;
	char spec[96], filter[112] = "", efilter[112], why[320];
	size_t nr, ncpus = 0, ntids = 0, i, open = 0, nev;
	int *cpus = NULL, code = 0, ret;
	pid_t *tids = NULL;
	const char *name;

	if (s->l.stream || s->latency || s->by_proc || s->l.opt.interval) {
		if (!s->l.stream && s->l.opt.interval && !s->latency && !s->by_proc)
			lat_path(&s->l, "no counter path: -i takes the other paths");
		else if (!s->l.stream)
			lat_path(&s->l, "no counter path: %s needs the records",
				 s->latency ? "-L" : "-P");
		return 0;
	}
	if (ftk_perf_new(NULL, tool_tracepoints(), &p))
		return no_counters(s, p, "out of memory");
	if (s->syscall < 0) {
		snprintf(spec, sizeof(spec), "syscalls:sys_exit_*");
		ret = ftk_perf_add(p, spec);
	} else {
		/* the kernel's name of the call, as tp_syscall() reads them */
		static const char *const forms[][2] = { { "", "" }, { "new", "" }, { "", "64" } };

		for (i = 0, ret = -1; ret && i < sizeof(forms) / sizeof(forms[0]); i++) {
			snprintf(spec, sizeof(spec), "syscalls:sys_exit_%s%s%s", forms[i][0],
				 ftk_syscall_name(s->syscall), forms[i][1]);
			ret = ftk_perf_add(p, spec);
		}
	}
	nev = ftk_perf_nr_events(p);
	/* --json has each row's failures: the same counters again, on ret < 0 */
	if (!ret && s->l.opt.json && !s->failures)
		ret = ftk_perf_add(p, spec);
	if (ret) {
		snprintf(why, sizeof(why), "%s", ftk_perf_errmsg(p));
		return no_counters(s, p, why);
	}
	tool_signals();
	signal(SIGPIPE, SIG_IGN);
	if (a->argv) {
		tool_cmd_fork(&s->l.cmd, a->argv, NULL);
		s->l.has_cmd = 1;
		tids = &s->l.cmd.pid;
		ntids = 1;
		/* counted from its exec on, as perf stat does: not the runner's own work */
		flags = FTK_PERF_INHERIT | FTK_PERF_ON_EXEC;
	} else if (s->l.opt.pid) {
		if (ftk_perf_threads(s->l.opt.pid, 0, &tids, &ntids))
			tool_die("no process %d: %s", (int)s->l.opt.pid, strerror(errno));
	} else {
		if (ftk_perf_online_cpus(&cpus, &ncpus))
			return no_counters(s, p, "cannot read the online CPUs");
		snprintf(filter, sizeof(filter), "common_pid != %d", (int)getpid());
	}
	snprintf(efilter, sizeof(efilter), "%.64s%sret < 0", filter, *filter ? " && " : "");
	if (s->failures)
		snprintf(filter, sizeof(filter), "%s", efilter);
	nr = ftk_perf_nr_events(p) * (ncpus ? ncpus : 1) * (ntids ? ntids : 1);
	if (!fds_ok(nr)) {
		snprintf(why, sizeof(why), "%zu counters, more than the open file limit", nr);
		goto none;
	}
	if (ftk_perf_open(p, cpus, ncpus, tids, ntids, flags)) {
		snprintf(why, sizeof(why), "%s", ftk_perf_errmsg(p));
		goto none;
	}
	for (i = 0; i < ftk_perf_nr_events(p); i++) {
		const char *f = i < nev ? filter : efilter;

		if (ftk_perf_status(p, i))
			continue;
		if (*f && ftk_perf_set_filter(p, i, f)) {
			snprintf(why, sizeof(why), "%s", ftk_perf_errmsg(p));
			goto none;
		}
		open += i < nev;
	}
	if (!open) {
		snprintf(why, sizeof(why), "the kernel counts none of %s", spec);
		goto none;
	}
	lat_path(&s->l, "counters: perf_event on %zu tracepoint%s (%s), %s%s%s", open,
		 open == 1 ? "" : "s", spec,
		 s->l.has_cmd ? "on COMMAND, inherited by its children" :
		 s->l.opt.pid ? "on each thread of -p" : "on each CPU", *filter ? ", filter " : "",
		 filter);
	if (!s->l.has_cmd && ftk_perf_enable(p))
		tool_die("%s", ftk_perf_errmsg(p));
	if (s->l.has_cmd && tool_cmd_start(&s->l.cmd))
		tool_exit(tool_cmd_code(&s->l.cmd));
	if (s->l.has_cmd) {
		if (!tool_cmd_wait(&s->l.cmd, a->duration))
			tool_cmd_kill(&s->l.cmd);
		code = tool_cmd_code(&s->l.cmd);
	} else {
		double end = a->duration ? tool_now() + a->duration : 0;

		if (ftk_log_level() >= FTK_LOG_WARN)
			fprintf(stderr, "Tracing... Ctrl-C to end.\n");
		while (!tool_stop && (!end || tool_now() < end))
			tool_sleep(end && end - tool_now() < 0.5 ? end - tool_now() : 0.5);
	}
	if (ftk_perf_disable(p) || ftk_perf_read(p))
		tool_die("%s", ftk_perf_errmsg(p));
	for (i = 0; i < ftk_perf_nr_events(p); i++) {
		struct ftk_counts c;
		struct ftk_lat_row *row;
		long key;

		if (ftk_perf_status(p, i) || ftk_perf_counts(p, i, -1, &c) || !c.val)
			continue;
		key = tp_syscall(ftk_perf_name(p, i), &name);
		if (key < 0) {
			key = SC_KEY_UNNAMED + i % nev;
			ftk_lattab_name(s->tab, key, name);
		}
		row = ftk_lattab_row(s->tab, key);
		if (!row)
			tool_die("out of memory");
		if (i >= nev)
			row->errors += c.val;
		else
			row->count += c.val;
		if (s->failures)
			row->errors = row->count;
	}
	release(p);	/* before print(), which may die on a closed pipe */
	print(s);
	tool_exit(code);
none:
	free(cpus);
	if (s->l.opt.pid)
		free(tids);
	return no_counters(s, p, why);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "latency", no_argument, NULL, 'L' },	{ "process", no_argument, NULL, 'P' },
		{ "failures", no_argument, NULL, 'x' },	{ "syscall", required_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 't' },	{ }
	};
	static const struct lat_def def = {
		.name = "ftsyscount", .usage = usage, .opts = "LPxe:t:", .longopts = longopts,
		.option = option, .shared = LAT_OPT_PID | LAT_OPT_INTERVAL | LAT_OPT_JSON |
		LAT_OPT_STREAM | LAT_OPT_MSECS | LAT_OPT_USECS | LAT_OPT_NSECS,
	};
	struct tool_args args;
	struct syscount s = { .l.name = "syscount", .syscall = -1, .l.opt.unit = 'u' };
	char filter[128] = "", enter_filter[64] = "";
	int code, kernel;

	lat_parse(&s.l, &def, argc, argv, &args, &s);
	s.uname = lat_unit(s.l.opt.unit, &s.div);
	s.tab = ftk_lattab_new();
	s.pair = ftk_pair_new();
	/* latencies added in ns, bucketed in the unit: sums and means stay exact */
	if (!s.tab || !s.pair || ftk_lattab_scale(s.tab, s.div))
		tool_die("out of memory");
	if (s.l.opt.pid && args.argv)
		tool_usage_error("-p and a COMMAND do not go together");
	s.l.verbose = ftk_log_level() >= FTK_LOG_INFO;
	counters(&s, &args);
	lat_open(&s.l, &args, s.l.opt.pid);
	if (s.syscall >= 0)
		snprintf(filter, sizeof(filter), "id == %d", s.syscall);
	snprintf(enter_filter, sizeof(enter_filter), "%s", filter);
	if (s.failures)
		snprintf(filter + strlen(filter), sizeof(filter) - strlen(filter), "%sret < 0",
			 *filter ? " && " : "");
	kernel = lat_kernel_ok(&s.l, "raw_syscalls:sys_exit", s.l.opt.interval ? "-i" : NULL);
	if (kernel) {
		kernel_setup(&s, filter, enter_filter);
	} else {
		if (s.latency)
			lat_event(&s.l, "raw_syscalls:sys_enter", *enter_filter ? enter_filter : NULL);
		lat_event(&s.l, "raw_syscalls:sys_exit", *filter ? filter : NULL);
		lat_path(&s.l, "stream: raw_syscalls sys_%s paired by thread from the live buffer",
			 s.latency ? "enter/sys_exit" : "exit");
	}
	lat_tep(&s.l);
	s.exit_id = lat_find(&s.l, "raw_syscalls", "sys_exit")->id;
	s.enter_id = s.latency ? lat_find(&s.l, "raw_syscalls", "sys_enter")->id : -1;
	s.f_id = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "id");
	s.f_ret = lat_field(&s.l, lat_find(&s.l, "raw_syscalls", "sys_exit"), "ret");
	code = lat_run(&s.l, on_record, &s, print, s.l.opt.interval);
	if (kernel)
		kernel_read(&s);
	print(&s);
	ftk_lattab_free(s.tab);
	ftk_pair_free(s.pair);
	tool_exit(code);
}
