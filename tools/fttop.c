// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fttop: a live view of what the kernel is doing, from the binary record
 * stream of a private instance: events, tasks, CPUs, system calls and hist
 * triggers, and the CPUs' hottest functions from perf sampling (the
 * profile module), on an ncurses screen or as plain-text or JSON frames (-b).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include <traceevent/event-parse.h>

#include "cmd.h"
#include "tool.h"
#include <ftkit/perfstat.h>
#include <ftkit/profile.h>
#include <ftkit/tally.h>
#include <ftkit/text.h>

enum view { V_EVENTS, V_TASKS, V_CPUS, V_SYSCALLS, V_PSYSCALLS, V_HIST, V_PROFILE, NR_VIEWS };
static const char *const view_names[NR_VIEWS] = {
	"events", "tasks", "cpus", "syscalls", "psyscalls", "hist", "profile",
};
static const char *const view_titles[NR_VIEWS] = {
	"1 events", "2 tasks", "3 cpus", "4 syscalls", "4 syscalls by task", "5 hist", "6 profile",
};

enum fld { F_NAME, F_ID, F_COMM, F_RATE, F_TOTAL, F_SHARE, F_TIME, F_LOST, F_LOSTD, F_ERR,
	   F_LCOUNT, F_LAVG, F_LMAX, F_LP99, F_DELTA, F_TSHARE };

struct col {
	const char	*title;
	enum fld	fld;
	int		width;		/* negative: left-aligned */
};

#define NCOL 8
static const struct col view_cols[NR_VIEWS][NCOL] = {
	[V_EVENTS] = { { "EVENT", F_NAME, -40 }, { "EV/s", F_RATE, 12 }, { "TOTAL", F_TOTAL, 14 } },
	[V_TASKS] = { { "PID", F_ID, 8 }, { "COMM", F_COMM, -16 }, { "CPU%", F_SHARE, 7 },
		      { "CPU-TIME", F_TIME, 10 }, { "EV/s", F_RATE, 11 },
		      { "EVENTS", F_TOTAL, 12 } },
	[V_CPUS] = { { "CPU", F_ID, 5 }, { "EV/s", F_RATE, 12 }, { "EVENTS", F_TOTAL, 14 },
		     { "IDLE%", F_SHARE, 7 }, { "LOST/i", F_LOSTD, 9 }, { "LOST", F_LOST, 11 } },
	[V_SYSCALLS] = { { "SYSCALL", F_NAME, -22 }, { "CALLS/s", F_RATE, 11 },
			 { "CALLS", F_TOTAL, 12 }, { "ERRORS", F_ERR, 9 },
			 { "PAIRS", F_LCOUNT, 12 }, { "AVG-us", F_LAVG, 10 },
			 { "MAX-us", F_LMAX, 10 }, { "P99-us", F_LP99, 10 } },
	[V_PSYSCALLS] = { { "PID", F_ID, 8 }, { "COMM", F_COMM, -16 }, { "SYSCALL", F_NAME, -20 },
			  { "PAIRS", F_LCOUNT, 10 }, { "ERRORS", F_ERR, 8 },
			  { "AVG-us", F_LAVG, 10 }, { "MAX-us", F_LMAX, 10 },
			  { "P99-us", F_LP99, 10 } },
	[V_HIST] = { { "HITCOUNT", F_TOTAL, 12 }, { "HITS/s", F_RATE, 10 },
		     { "ENTRY", F_NAME, -60 } },
	/*
	 * Profile rows: delta = samples the function is the leaf of in the
	 * last interval, total = samples it is in; comm = kernel, user or jit.
	 */
	[V_PROFILE] = { { "SELF%", F_SHARE, 7 }, { "TOTAL%", F_TSHARE, 7 },
			{ "SAMPLES", F_DELTA, 9 }, { "WHERE", F_COMM, -6 },
			{ "FUNCTION", F_NAME, -60 } },
};
/* The column each view sorts by at the start. */
static const int view_sort[NR_VIEWS] = { 1, 2, 0, 1, 3, 0, 0 };

struct evspec {
	const char	*spec;
	const char	*filter;
};

struct top {
	struct evspec		*ev;
	int			nev;
	int			pid;
	int			*cpus;		/* ended by -1, or NULL */
	double			interval;
	long			buffer_kb;	/* per CPU */
	int			batch;
	long			frames;		/* -n; 0: until stopped */
	int			json;
	enum view		view;
	int			sort[NR_VIEWS];
	int			reverse[NR_VIEWS];	/* r: each view its own order */
	char			filter[64];
	const char		*sort_arg;	/* --sort */
	const char		*hist;		/* -H EVENT:hist:... */
	char			*hist_event;
	const char		*hist_trigger;
	int			hist_user;	/* computed from the stream */
	char			status[256];	/* of the whole run: events, the kernel's refusals */
	char			view_note[256];	/* of the view shown: made anew for each frame */
	const char		*instance;
	/* the profile view: sampling starts when first shown (or with --profile-hz) */
	long			prof_hz;
	int			prof_on;	/* 1 sampling, -1 forbidden or failed */
	struct ftk_profile	*prof;
	struct ftk_tally_row	*prof_rows;	/* of the last interval */
	long			prof_nrows;
	uint64_t		prof_samples;	/* samples of the last interval */
	char			prof_note[160];	/* why sampling is off, or what it lacks */
	struct ftk_session	*s;
	struct ftk_tracefs	*t;		/* the session's instance */
	struct ftk_live		*live;		/* the session's */
	struct ftk_tally	*tally;
	/* the screen */
	int			curses;
	int			color;
	int			paused;
	int			help;
	long			scroll;
	long			nrows;		/* rows of the last frame */
};

static struct top top = { .interval = 1, .pid = -1, .view = V_EVENTS, .buffer_kb = 8192,
			  .prof_hz = 99 };

static void screen_end(void);

/*
 * On the exit chain, before the session (which closes the live reader,
 * puts tracefs back and removes the instance): the screen and the sampler.
 * A failure while the screen is up ends it before saying why (screen_end()
 * then tool_die()), or the message would go with the terminal's alternate
 * screen.
 */
static int top_close(void *ctx)
{
	struct top *o = ctx;

	screen_end();
	ftk_profile_free(o->prof);
	o->prof = NULL;
	return 0;
}

static void option(int opt, char *arg, void *ctx)
{
	struct top *o = ctx;
	int v;

	switch (opt) {
	case 'e':
		o->ev = realloc(o->ev, (o->nev + 1) * sizeof(*o->ev));
		if (!o->ev)
			tool_die("out of memory");
		o->ev[o->nev++] = (struct evspec){ arg, NULL };
		break;
	case 'f':
		if (!o->nev)
			tool_usage_error("-f must follow the -e it filters");
		o->ev[o->nev - 1].filter = arg;
		break;
	case 'P': o->pid = tool_pid(arg); break;
	case 'C': {
		size_t nr;
		int *c;

		tool_cpus(arg, &c, &nr);
		o->cpus = realloc(c, (nr + 1) * sizeof(int));
		if (!o->cpus)
			tool_die("out of memory");
		o->cpus[nr] = -1;
		break;
	}
	case 'd': o->interval = tool_seconds(arg); break;
	case 'k': o->buffer_kb = tool_num(arg, "buffer size", 4, 1L << 22); break;
	case 'b': o->batch = 1; break;
	case 'n': o->frames = tool_num(arg, "frame count", 1, 1000000000); break;
	case 'j': o->json = 1; break;
	case 'H': o->hist = arg; break;
	case 'p':
		o->prof_hz = tool_num(arg, "sampling frequency", 1, 100000);
		o->prof_on = 2;	/* sample from the start */
		break;
	case 'w':
		for (v = 0; v < NR_VIEWS; v++)
			if (!strcmp(arg, view_names[v]))
				break;
		if (v == NR_VIEWS)
			tool_usage_error("unknown view '%s' (events, tasks, cpus, syscalls, psyscalls, hist, profile)",
					 arg);
		o->view = v;
		break;
	case 's': o->sort_arg = arg; break;
	}
}

/* ---------------------------------------------------------------- rows */

/* Samples of the profile's last interval, the base of its shares. */
static uint64_t prof_samples;

static double fld_val(const struct ftk_tally_row *r, enum fld f)
{
	switch (f) {
	case F_ID: return r->id;
	case F_RATE: return r->rate;
	case F_TOTAL: return r->total;
	case F_SHARE: return r->share;
	case F_TIME: return r->time_ns;
	case F_LOST: return r->lost;
	case F_LOSTD: return r->lost_delta;
	case F_ERR: return r->errors;
	case F_LCOUNT: return r->lat_count;
	case F_LAVG: return r->lat_avg_ns;
	case F_LMAX: return r->lat_max_ns;
	case F_LP99: return r->lat_p99_ns;
	case F_DELTA: return r->delta;
	case F_TSHARE: return prof_samples ? (double)r->total / prof_samples : 0;
	default: return 0;
	}
}

static void fld_fmt(char *buf, size_t len, const struct ftk_tally_row *r, enum fld f)
{
	switch (f) {
	/* names are the traced system's: no byte of them reaches the terminal raw */
	case F_NAME: ftk_text_escape(buf, len, r->name, SIZE_MAX); break;
	case F_COMM: ftk_text_escape(buf, len, r->comm, SIZE_MAX); break;
	case F_ID: snprintf(buf, len, "%lld", (long long)r->id); break;
	case F_RATE: snprintf(buf, len, "%.1f", r->rate); break;
	case F_SHARE: case F_TSHARE:
		if (fld_val(r, f) < 0)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.1f", fld_val(r, f) * 100);
		break;
	case F_TIME: snprintf(buf, len, "%.3f", r->time_ns / 1e9); break;
	case F_LAVG: case F_LMAX: case F_LP99:
		if (!r->lat_count)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.1f", fld_val(r, f) / 1e3);
		break;
	default: snprintf(buf, len, "%llu", (unsigned long long)fld_val(r, f)); break;
	}
}

static const struct col *sort_col;
static int sort_rev;

static int cmp_rows(const void *a, const void *b)
{
	const struct ftk_tally_row *x = a, *y = b;
	int asc = sort_col->fld == F_ID || sort_col->fld == F_NAME || sort_col->fld == F_COMM;
	double dx, dy;
	int c;

	if (sort_col->fld == F_NAME)
		c = strcmp(x->name, y->name);
	else if (sort_col->fld == F_COMM)
		c = strcmp(x->comm, y->comm);
	else {
		dx = fld_val(x, sort_col->fld);
		dy = fld_val(y, sort_col->fld);
		c = dx < dy ? -1 : dx > dy;
	}
	if (!asc)
		c = -c;
	if (!c)
		c = x->id < y->id ? -1 : x->id > y->id;
	return sort_rev ? -c : c;
}

static int row_matches(const struct ftk_tally_row *r, const char *filter)
{
	char id[24];

	if (!*filter)
		return 1;
	snprintf(id, sizeof(id), "%lld", (long long)r->id);
	return strstr(r->name, filter) || strstr(r->comm, filter) || !strcmp(id, filter);
}

struct hist_rows {
	struct ftk_tally_row	*rows;
	long			n, cap;
};

/* One entry of the kernel's hist file: a row, its hitcount the total. */
static void hist_row(void *ctx, const struct ftk_trigger_hist_row *h)
{
	struct hist_rows *hr = ctx;
	struct ftk_tally_row *r;

	if (hr->n == hr->cap) {
		long cap = hr->cap ? hr->cap * 2 : 64;

		r = realloc(hr->rows, cap * sizeof(*r));
		if (!r)
			return;
		hr->rows = r;
		hr->cap = cap;
	}
	r = &hr->rows[hr->n];
	memset(r, 0, sizeof(*r));
	r->id = hr->n++;
	r->total = h->val[0];
	snprintf(r->name, sizeof(r->name), "%.*s", (int)h->len, h->text);
}

/* The rows of the -H hist trigger (ftk_trigger_hist_parse()). */
static long hist_rows(struct top *o, struct ftk_tally_row **out)
{
	struct hist_rows hr = { 0 };
	char *text;

	*out = NULL;
	if (ftk_trigger_hist(o->t, o->hist_event, &text)) {
		snprintf(o->view_note, sizeof(o->view_note), "hist: %s", ftk_tracefs_errmsg(o->t));
		return 0;
	}
	ftk_trigger_hist_parse(text, NULL, NULL, "hitcount", hist_row, &hr, NULL);
	free(text);
	*out = hr.rows;
	return hr.n;
}

/* ---------------------------------------------------------------- the profile */

/*
 * Start sampling: every CPU of -C (or all), or the -P process and the
 * children it makes. A kernel that forbids it gets a note; the rest goes on.
 */
static void prof_start(struct top *o)
{
	FTK_OPTS(ftk_sample_opts, so, .freq = o->prof_hz, .callchain = FTK_CALLCHAIN_FP,
		 .tracepoints = tool_tracepoints());
	int *online = NULL, *cpus = o->cpus;
	size_t nr = 0;
	pid_t pid = o->pid;
	const char *note;
	int ret = 0;

	if (o->prof_on == 1 || o->prof_on < 0)
		return;
	for (; cpus && cpus[nr] >= 0; nr++)
		;
	if (pid > 0) {
		so.flags = FTK_SAMPLE_INHERIT;
		ret = ftk_profile_open(&so, 0, cpus, nr, &pid, 1, &o->prof);
	} else {
		if (!cpus && !(ret = ftk_perf_online_cpus(&online, &nr)))
			cpus = online;
		if (!ret)
			ret = ftk_profile_open(&so, 0, cpus, nr, NULL, 0, &o->prof);
	}
	free(online);
	if (!ret)
		ret = ftk_profile_enable(o->prof);
	if (ret) {
		snprintf(o->prof_note, sizeof(o->prof_note), "profile: %s",
			 o->prof && *ftk_profile_errmsg(o->prof) ? ftk_profile_errmsg(o->prof) :
			 strerror(-ret));
		ftk_profile_free(o->prof);
		o->prof = NULL;
		o->prof_on = -1;	/* the note is the profile view's (prof_rows()) */
		return;
	}
	o->prof_on = 1;
	note = ftk_symbols_kernel_note(ftk_profile_symbols(o->prof));
	if (note && *note)
		snprintf(o->prof_note, sizeof(o->prof_note), "profile: %s", note);
}

static void prof_read(struct top *o)
{
	int ret;

	if (o->prof_on != 1)
		return;
	ret = ftk_profile_read(o->prof, 0);
	if (ret == -ENOMEM) {
		screen_end();
		tool_die("profile: %s", ftk_profile_errmsg(o->prof));
	}
	if (ret && ret != -EBADMSG)
		snprintf(o->prof_note, sizeof(o->prof_note), "profile: %s",
			 ftk_profile_errmsg(o->prof));
}

/* The functions of the interval that ends (@seconds long) as rows; a new interval begins. */
static void prof_mark(struct top *o, double seconds)
{
	struct ftk_stacks *st;
	struct ftk_stacks_func *f;
	long n, i;

	if (o->prof_on != 1)
		return;
	st = ftk_profile_stacks(o->prof);
	n = ftk_stacks_top(st, &f);
	free(o->prof_rows);
	o->prof_rows = n < 0 ? NULL : calloc(n ? n : 1, sizeof(*o->prof_rows));
	if (!o->prof_rows) {
		screen_end();
		tool_die("out of memory");
	}
	o->prof_nrows = n;
	o->prof_samples = ftk_stacks_total(st);
	for (i = 0; i < n; i++) {
		struct ftk_tally_row *r = &o->prof_rows[i];
		size_t len = strlen(f[i].name);
		const char *where = strstr(f[i].name, "[kernel") ? "kernel" : "user";

		if (len > 4 && !strcmp(f[i].name + len - 4, "_[k]"))
			where = "kernel";
		else if (len > 4 && !strcmp(f[i].name + len - 4, "_[j]"))
			where = "jit";
		if (strcmp(where, "user") && f[i].name[len - 1] == ']')
			len -= 4;
		r->id = i + 1;
		r->pid = -1;
		snprintf(r->name, sizeof(r->name), "%.*s", (int)len, f[i].name);
		snprintf(r->comm, sizeof(r->comm), "%s", where);
		r->delta = f[i].self;
		r->total = f[i].total;
		r->rate = seconds > 0 ? f[i].self / seconds : 0;
		r->share = o->prof_samples ? (double)f[i].self / o->prof_samples : 0;
	}
	free(f);
	ftk_stacks_clear(st);
}

/* The profile's rows, a copy to filter and sort. */
static long prof_rows(struct top *o, struct ftk_tally_row **out)
{
	*out = NULL;
	prof_samples = o->prof_samples;
	if (o->prof_on < 0 || o->prof_note[0])
		snprintf(o->view_note, sizeof(o->view_note), "%s", o->prof_note);
	if (!o->prof_nrows)
		return 0;
	*out = malloc(o->prof_nrows * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, o->prof_rows, o->prof_nrows * sizeof(**out));
	return o->prof_nrows;
}

/* The rows of the current view, filtered and sorted. */
static long frame_rows(struct top *o, struct ftk_tally_row **out)
{
	static const enum ftk_tally_view tv[NR_VIEWS] = {
		FTK_TALLY_EVENTS, FTK_TALLY_TASKS, FTK_TALLY_CPUS, FTK_TALLY_SYSCALLS,
		FTK_TALLY_SYSCALLS_PID, 0, 0,
	};
	struct ftk_tally_row *rows;
	long n, i, k = 0;

	o->view_note[0] = '\0';
	if (o->view == V_HIST) {
		if (!o->hist) {
			snprintf(o->view_note, sizeof(o->view_note),
				 "hist: no trigger (give -H EVENT:hist:keys=...)");
			*out = NULL;
			return 0;
		}
		n = o->hist_user ? ftk_tally_rows(o->tally, FTK_TALLY_HIST, &rows) :
		    hist_rows(o, &rows);
	} else if (o->view == V_PROFILE) {
		n = prof_rows(o, &rows);
	} else {
		n = ftk_tally_rows(o->tally, tv[o->view], &rows);
	}
	if (n < 0) {
		screen_end();
		tool_die("out of memory");
	}
	for (i = 0; i < n; i++)
		if (row_matches(&rows[i], o->filter))
			rows[k++] = rows[i];
	sort_col = &view_cols[o->view][o->sort[o->view]];
	sort_rev = o->reverse[o->view];
	qsort(rows, k, sizeof(*rows), cmp_rows);
	*out = rows;
	return k;
}

/* ---------------------------------------------------------------- text and JSON frames */

static void header_text(struct top *o, char *buf, size_t len)
{
	struct ftk_tally_sum s;
	char tbuf[32];
	time_t now = time(NULL);

	ftk_tally_sum(o->tally, &s);
	strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&now));
	snprintf(buf, len, "fttop %s  %.0f ev/s  events %llu  lost %llu  cpus %d  instance %s%s",
		 tbuf, s.rate, (unsigned long long)s.total, (unsigned long long)s.lost, s.nr_cpus,
		 o->instance, o->paused ? "  [paused]" : "");
}

static void row_text(const struct top *o, const struct ftk_tally_row *r, char *buf, size_t len)
{
	const struct col *c = view_cols[o->view];
	size_t off = 0;
	char cell[128];
	int i, prec;

	buf[0] = '\0';
	for (i = 0; i < NCOL && c[i].title && off < len; i++) {
		prec = abs(c[i].width) > 40 ? 64 : abs(c[i].width);
		/* cut to the column here: an escaped name is cut between escapes */
		if (r)
			fld_fmt(cell, (size_t)prec + 1 < sizeof(cell) ? (size_t)prec + 1 : sizeof(cell),
				r, c[i].fld);
		off += snprintf(buf + off, len - off, "%s%*.*s", i ? " " : "", c[i].width, prec,
				r ? cell : c[i].title);
	}
}

/* The status line: the view's own note (set by frame_rows()), else the run's status. */
static const char *note(const struct top *o)
{
	return o->view_note[0] ? o->view_note : o->status;
}

static void print_text(struct top *o, struct ftk_tally_row *rows, long n)
{
	char buf[512];
	long i;

	header_text(o, buf, sizeof(buf));
	printf("%s\nview %s\n", buf, view_names[o->view]);
	if (note(o)[0])
		printf("note: %s\n", note(o));
	row_text(o, NULL, buf, sizeof(buf));
	printf("%s\n", buf);
	for (i = 0; i < n; i++) {
		row_text(o, &rows[i], buf, sizeof(buf));
		printf("%s\n", buf);
	}
	printf("\n");
}

static void print_json(struct top *o, struct ftk_tally_row *rows, long n)
{
	struct ftk_tally_sum s;
	long i;

	ftk_tally_sum(o->tally, &s);
	printf("{\"time\":%ld,\"view\":\"%s\",\"interval\":%.6f,\"elapsed\":%.6f,"
	       "\"events_per_s\":%.3f,\"events\":%llu,\"events_delta\":%llu,\"lost\":%llu,"
	       "\"cpus\":%d,\"instance\":", (long)time(NULL), view_names[o->view], s.seconds,
	       s.elapsed, s.rate, (unsigned long long)s.total, (unsigned long long)s.delta,
	       (unsigned long long)s.lost, s.nr_cpus);
	ftk_json_str(stdout, o->instance, SIZE_MAX);
	if (o->view == V_PROFILE && o->prof_on == 1) {
		struct ftk_profile_stats ps;

		ftk_profile_stats(o->prof, &ps);
		printf(",\"samples\":%llu,\"samples_lost\":%llu,\"profile_hz\":%ld",
		       (unsigned long long)o->prof_samples,
		       (unsigned long long)(ps.lost + ps.lost_samples), o->prof_hz);
	}
	if (note(o)[0]) {
		printf(",\"note\":");
		ftk_json_str(stdout, note(o), SIZE_MAX);
	}
	printf(",\"rows\":[");
	for (i = 0; i < n; i++) {
		const struct ftk_tally_row *r = &rows[i];

		printf("%s{\"id\":%lld,\"name\":", i ? "," : "", (long long)r->id);
		ftk_json_str(stdout, r->name, SIZE_MAX);
		if (r->comm[0]) {
			printf(",\"comm\":");
			ftk_json_str(stdout, r->comm, SIZE_MAX);
		}
		if (r->pid >= 0 || o->view == V_PSYSCALLS)	/* -1: the row of other tasks */
			printf(",\"pid\":%d", r->pid);
		printf(",\"total\":%llu,\"delta\":%llu,\"rate\":%.3f",
		       (unsigned long long)r->total, (unsigned long long)r->delta, r->rate);
		if (o->view == V_TASKS || o->view == V_CPUS)
			printf(",\"time_ns\":%llu,\"time_delta_ns\":%llu,\"share\":%.6f",
			       (unsigned long long)r->time_ns,
			       (unsigned long long)r->time_delta_ns, r->share);
		if (o->view == V_CPUS)
			printf(",\"lost\":%llu,\"lost_delta\":%llu", (unsigned long long)r->lost,
			       (unsigned long long)r->lost_delta);
		if (o->view == V_SYSCALLS || o->view == V_PSYSCALLS)
			printf(",\"errors\":%llu,\"lat_count\":%llu,\"lat_avg_ns\":%llu,"
			       "\"lat_max_ns\":%llu,\"lat_p99_ns\":%llu",
			       (unsigned long long)r->errors, (unsigned long long)r->lat_count,
			       (unsigned long long)r->lat_avg_ns, (unsigned long long)r->lat_max_ns,
			       (unsigned long long)r->lat_p99_ns);
		if (o->view == V_PROFILE)
			printf(",\"self\":%llu,\"self_share\":%.6f,\"total_share\":%.6f",
			       (unsigned long long)r->delta, r->share, fld_val(r, F_TSHARE));
		printf("}");
	}
	printf("]}\n");
}

/* ---------------------------------------------------------------- tracing */

/* Enable @glob (or disable it); a kernel that forbids one says so in the status line. */
static int events_enable(struct top *o, const char *glob, const char *filter, int on)
{
	int ret = ftk_event_enable(o->t, glob, on);

	if (ret == -FTK_E_NOEVENT) {
		snprintf(o->status, sizeof(o->status), "no event matches '%s'", glob);
		return ret;
	}
	if (ret) {
		snprintf(o->status, sizeof(o->status), "%s: %s", glob, ftk_tracefs_errmsg(o->t));
		return ret;
	}
	if (filter && on && ftk_event_filter_set(o->t, glob, filter))
		tool_die("bad filter '%s' for '%s': %s", filter, glob, ftk_tracefs_errmsg(o->t));
	return 0;
}

static void start_tracing(struct top *o, struct tool_args *a)
{
	static struct evspec defaults[] = { { "sched", NULL }, { "irq", NULL },
					    { "raw_syscalls", NULL } };
	FTK_OPTS(ftk_session_opts, so, .tool = "top", .instance = a->instance);
	const char *h;
	char *text;
	int i, ok = 0, ret;

	o->s = tool_session(&so);
	o->t = ftk_session_tracefs(o->s);
	o->instance = ftk_session_instance(o->s);
	/* after the session on the exit chain: the screen ends before it goes */
	tool_on_exit(top_close, o);
	if (!o->nev) {
		o->ev = defaults;
		o->nev = 3;
	}
	for (i = 0; i < o->nev; i++)
		ok += !events_enable(o, o->ev[i].spec, o->ev[i].filter, 1);
	if (!ok)
		tool_die("no event could be enabled: %s", o->status);
	/* what runs where: the tasks' CPU time and the CPUs' idle share */
	if (ftk_event_enable(o->t, "sched:sched_switch", 1))
		snprintf(o->status, sizeof(o->status), "sched_switch: %s: no CPU time",
			 ftk_tracefs_errmsg(o->t));
	/* else fttop's own reads (not what the user wants to see) are left out at the start */
	if (o->pid > 0 && ftk_session_pid(o->s, o->pid, 0))
		tool_die("cannot set the event pid list: %s", ftk_session_errmsg(o->s));
	if (o->hist) {
		h = strstr(o->hist, ":hist");

		if (!h)
			tool_usage_error("-H wants EVENT:hist:keys=...: '%s'", o->hist);
		o->hist_event = strndup(o->hist, h - o->hist);
		o->hist_trigger = h + 1;
		if (!o->hist_event)
			tool_die("out of memory");
		/* the event's hist file is there: the kernel has hist triggers */
		if (!ftk_trigger_hist(o->t, o->hist_event, &text)) {
			free(text);
			ret = ftk_trigger_add(o->t, o->hist_event, o->hist_trigger);
		} else {
			/* no hist triggers here: the same keys, counted from the stream */
			o->hist_user = 1;
			snprintf(o->status, sizeof(o->status),
				 "hist: computed in user space (this kernel has no hist triggers)");
			if (ftk_event_enable(o->t, o->hist_event, 1))
				tool_die("cannot enable %s: %s", o->hist_event,
					 ftk_tracefs_errmsg(o->t));
			ret = 0;
		}
		if (ret)
			tool_die("cannot add '%s' to %s: %s", o->hist_trigger, o->hist_event,
				 ftk_tracefs_errmsg(o->t));
	}
	/* -C in the kernel too: the other CPUs record nothing */
	for (i = 0; o->cpus && o->cpus[i] >= 0; i++)
		;
	ret = o->cpus ? ftk_session_cpus(o->s, o->cpus, i) : 0;
	if (ret == -ERANGE)
		tool_usage_error("%s", ftk_session_errmsg(o->s));
	if (ret)
		tool_die("cannot trace only the CPUs of -C: %s", ftk_session_errmsg(o->s));
	/*
	 * Sub-buffers of 64 KiB where the kernel sizes them (6.8 and later):
	 * each read(2) then brings sixteen times what a page does; at 1M
	 * events/s, a quarter of fttop's CPU time went with 4 KiB pages.
	 * Only where the buffer holds 16 of them at least; put back on exit
	 * (the session), and left as it was where the write fails.
	 */
	if (o->buffer_kb >= 16 * 64)
		(void)ftk_session_subbuf(o->s, 64);	/* else as it was */
	/*
	 * Room for the time between two reads: at 1M events/s the kernel's
	 * default of about 1.4 MB per CPU fills in a few tens of ms.
	 */
	if (ftk_session_buffer(o->s, o->buffer_kb))
		tool_die("cannot set the buffer size: %s", ftk_session_errmsg(o->s));
	/* a clock fttop can read too: records come in time order across reads */
	if (ftk_session_clock(o->s, "mono"))
		tool_die("cannot set the clock: %s", ftk_session_errmsg(o->s));
	o->live = ftk_session_live(o->s);
	if (!o->live)
		tool_die("%s", ftk_session_errmsg(o->s));
	o->tally = ftk_tally_new(ftk_live_tep(o->live), sysconf(_SC_NPROCESSORS_CONF));
	if (!o->tally)
		tool_die("out of memory");
	if (o->hist_user && ftk_tally_hist(o->tally, o->hist_event, o->hist_trigger)) {
		tool_err("-H %s: %s", o->hist, ftk_tally_errmsg(o->tally));
		tool_exit(EXIT_USAGE);
	}
	if (ftk_session_start(o->s))
		tool_die("%s", ftk_session_errmsg(o->s));
	if (o->prof_on == 2 || o->view == V_PROFILE)
		prof_start(o);
	if (o->batch)
		fprintf(stderr, "fttop: tracing in instance %s; Ctrl-C to end\n", o->instance);
}

static int add(void *ctx, const struct tep_record *rec)
{
	struct top *o = ctx;
	int i;

	if (o->cpus) {
		for (i = 0; o->cpus[i] >= 0 && o->cpus[i] != rec->cpu; i++)
			;
		if (o->cpus[i] < 0)
			return 0;
	}
	ftk_tally_add(o->tally, rec);
	return 0;
}

static void drain(struct top *o)
{
	if (ftk_live_read(o->live, add, o, 0) < 0) {
		screen_end();
		tool_die("%s", ftk_live_errmsg(o->live));
	}
	prof_read(o);
}

/* ---------------------------------------------------------------- the screen */

enum { C_HEAD = 1, C_COLS, C_SEL, C_NOTE };

static void screen_end(void)
{
	if (top.curses) {
		curs_set(1);
		endwin();
		top.curses = 0;
	}
}

/*
 * Home and End as terminals send them, where the terminfo entry does not
 * name them: tmux sends \e[1~ and \e[4~ whatever TERM says, and
 * xterm-256color's entry knows only \eOH and \eOF; rxvt sends \e[7~ and
 * \e[8~. Unbound, a sequence would arrive as keys: \e [ 1 ~ is view 1.
 * Sequences the entry binds already keep their meaning.
 */
static void screen_keys(void)
{
	static const struct {
		const char	*seq;
		int		key;
	} seqs[] = {
		{ "\033[1~", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[7~", KEY_HOME },
		{ "\033[8~", KEY_END }, { "\033[H", KEY_HOME }, { "\033[F", KEY_END },
		{ "\033OH", KEY_HOME }, { "\033OF", KEY_END },
		/* arrows and pages in both cursor-key modes, for entries that name one */
		{ "\033[A", KEY_UP }, { "\033[B", KEY_DOWN }, { "\033OA", KEY_UP },
		{ "\033OB", KEY_DOWN }, { "\033[5~", KEY_PPAGE }, { "\033[6~", KEY_NPAGE },
	};
	size_t i;

	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		if (!key_defined(seqs[i].seq))
			define_key(seqs[i].seq, seqs[i].key);
}

static void screen_start(struct top *o)
{
	if (!newterm(NULL, stdout, stdin))
		tool_die("cannot use the terminal '%s'", getenv("TERM") ? getenv("TERM") : "");
	o->curses = 1;
	atexit(screen_end);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	screen_keys();
	/* Escape cancels a prompt: wait 25 ms, not a second, for the rest of a key's sequence */
	set_escdelay(25);
	nodelay(stdscr, TRUE);
	curs_set(0);
	o->color = has_colors() && !getenv("NO_COLOR");
	if (o->color) {
		start_color();
		use_default_colors();
		init_pair(C_HEAD, COLOR_CYAN, -1);
		init_pair(C_COLS, COLOR_BLACK, COLOR_GREEN);
		init_pair(C_SEL, COLOR_BLACK, COLOR_CYAN);
		init_pair(C_NOTE, COLOR_YELLOW, -1);
	}
}

static void attr(struct top *o, int pair, int on)
{
	int a = o->color ? COLOR_PAIR(pair) : (pair == C_COLS ? A_REVERSE : A_BOLD);

	if (on)
		attron(a);
	else
		attroff(a);
}

static const char help_text[] =
"fttop keys\n"
"\n"
"  1 2 3 4 5 6    views: events, tasks, cpus, syscalls (4 again: by task), hist,\n"
"                 profile (sampling starts when it is first shown)\n"
"  s, F6, > <     sort by the next (previous) column;  r  reverse the order\n"
"  /              filter rows by text (empty: all)\n"
"  e              add events by glob ('-glob' removes them)\n"
"  p, space       pause / go on\n"
"  + -            refresh interval up / down\n"
"  arrows PgUp PgDn Home End   scroll\n"
"  c              clear the counts\n"
"  h ?            this help (any key leaves it)\n"
"  q              quit\n";

static void draw(struct top *o, struct ftk_tally_row *rows, long n)
{
	char buf[512];
	int y = 0, v, x, h, w;
	long i, vis;

	getmaxyx(stdscr, h, w);
	/* four lines above the rows: the header, the views, the status and the titles */
	vis = h > 4 ? h - 4 : 0;
	if (o->scroll > n - vis)
		o->scroll = n - vis;
	if (o->scroll < 0)
		o->scroll = 0;
	erase();
	header_text(o, buf, sizeof(buf));
	attr(o, C_HEAD, 1);
	mvaddnstr(y++, 0, buf, w);
	attr(o, C_HEAD, 0);
	move(y, 0);
	for (v = 0, x = 0; v < NR_VIEWS; v++) {
		if (v == V_PSYSCALLS)
			continue;
		if (v == (int)o->view || (v == V_SYSCALLS && o->view == V_PSYSCALLS))
			attron(A_REVERSE);
		snprintf(buf, sizeof(buf), " %s ", view_titles[v == V_SYSCALLS ? o->view == V_PSYSCALLS
							    ? V_PSYSCALLS : v : v]);
		mvaddnstr(y, x, buf, w - x > 0 ? w - x : 0);
		x += strlen(buf);
		attroff(A_REVERSE);
	}
	snprintf(buf, sizeof(buf), "  refresh %.1fs  sort %s%s%s%s  rows %ld-%ld/%ld", o->interval,
		 view_cols[o->view][o->sort[o->view]].title, o->reverse[o->view] ? " (rev)" : "",
		 o->filter[0] ? "  filter " : "", o->filter, n && vis ? o->scroll + 1 : 0,
		 o->scroll + (vis < n - o->scroll ? vis : n - o->scroll), n);
	if (x < w)
		mvaddnstr(y, x, buf, w - x);
	y++;
	attr(o, C_NOTE, 1);
	/* the help is no view: the run's status only */
	mvaddnstr(y++, 0, o->help ? o->status : note(o), w);
	attr(o, C_NOTE, 0);
	if (o->help) {
		mvaddnstr(y, 0, help_text, -1);
		refresh();
		return;
	}
	row_text(o, NULL, buf, sizeof(buf));
	attr(o, C_COLS, 1);
	mvaddnstr(y, 0, buf, w);
	for (x = strlen(buf); x < w; x++)
		addch(' ');
	attr(o, C_COLS, 0);
	y++;
	for (i = o->scroll; i < n && y < h; i++, y++) {
		row_text(o, &rows[i], buf, sizeof(buf));
		mvaddnstr(y, 0, buf, w);
	}
	refresh();
}

/*
 * A line typed at the bottom of the screen; 0 when given (Enter), -1 when
 * cancelled (Escape, or a signal). The buffers are drained while the user
 * types: a blocking getnstr() would let them overflow.
 */
static int prompt(struct top *o, const char *what, char *buf, size_t len)
{
	size_t n = 0;
	int ch;

	buf[0] = '\0';
	curs_set(1);
	for (;;) {
		mvprintw(LINES - 1, 0, "%s%s", what, buf);
		clrtoeol();
		refresh();
		drain(o);
		if (tool_stop) {
			ch = 27;
		} else {
			timeout(100);
			ch = getch();
			nodelay(stdscr, TRUE);
		}
		if (ch == ERR)
			continue;
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == 27)
			break;
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
			buf[--n] = '\0';
		else if (ch >= ' ' && ch < 127 && n + 1 < len) {
			buf[n++] = ch;
			buf[n] = '\0';
		}
	}
	curs_set(0);
	return ch == 27 ? -1 : 0;
}

static void key_events(struct top *o)
{
	char glob[128];
	int on = 1;

	if (prompt(o, "events (glob, -glob removes): ", glob, sizeof(glob)) || !glob[0])
		return;
	if (glob[0] == '-')
		on = 0;
	if (!events_enable(o, glob + !on, NULL, on))
		snprintf(o->status, sizeof(o->status), "%s %s", on ? "enabled" : "disabled",
			 glob + !on);
}

/* One key: 1 if the frame should be drawn again now. */
static int key(struct top *o, int ch, int page)
{
	int nc;

	if (o->help && ch != ERR && ch != KEY_RESIZE) {
		o->help = 0;
		return 1;
	}
	for (nc = 0; nc < NCOL && view_cols[o->view][nc].title; nc++)
		;
	switch (ch) {
	case 'q': case 'Q': tool_stop = -1; return 0;
	case 'h': case '?': case KEY_F(1): o->help = 1; return 1;
	case '1': case '2': case '3': case '5':
		o->view = ch == '5' ? V_HIST : (enum view)(ch - '1');
		o->scroll = 0;
		return 1;
	case '6':
		o->view = V_PROFILE;
		o->scroll = 0;
		prof_start(o);
		return 1;
	case '4':
		o->view = o->view == V_SYSCALLS ? V_PSYSCALLS : V_SYSCALLS;
		o->scroll = 0;
		return 1;
	case 's': case KEY_F(6): case '>':
		o->sort[o->view] = (o->sort[o->view] + 1) % nc;
		return 1;
	case '<':
		o->sort[o->view] = (o->sort[o->view] + nc - 1) % nc;
		return 1;
	case 'r': o->reverse[o->view] = !o->reverse[o->view]; return 1;
	case '/':
		if (prompt(o, "filter: ", o->filter, sizeof(o->filter)))
			o->filter[0] = '\0';
		o->scroll = 0;
		return 1;
	case 'e': key_events(o); return 1;
	case 'p': case ' ':
		o->paused = !o->paused;
		return 1;
	case '+': case '=':
		o->interval = o->interval < 1 ? o->interval + 0.1 : o->interval + 1;
		return 1;
	case '-':
		o->interval = o->interval > 1 ? o->interval - 1 : o->interval > 0.15 ?
			      o->interval - 0.1 : o->interval;
		return 1;
	case 'c':
		ftk_tally_reset(o->tally);
		if (o->prof_on == 1)
			ftk_stacks_clear(ftk_profile_stacks(o->prof));
		o->prof_nrows = 0;
		return 1;
	case KEY_UP: o->scroll--; return 1;
	case KEY_DOWN: o->scroll++; return 1;
	case KEY_PPAGE: o->scroll -= page; return 1;
	case KEY_NPAGE: o->scroll += page; return 1;
	/*
	 * Home and End: what ncurses makes of them depends on the terminfo
	 * entry (and screen_keys()): \e[1~ and \e[4~ are khome and kend to
	 * TERM=screen or tmux but kfnd and kslt (Find, Select) to some xterm
	 * entries; a keypad sends ka1 and kc1.
	 */
	case KEY_HOME: case KEY_FIND: case KEY_A1: o->scroll = 0; return 1;
	case KEY_END: case KEY_SELECT: case KEY_C1: case KEY_LL: o->scroll = 1L << 30; return 1;
	case KEY_RESIZE: return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the loop */

/*
 * Wait up to @s seconds for the terminal, draining the buffers every 50 ms
 * so that they do not fill, and at least once. 1 when a key can be read.
 */
static int wait_frame(struct top *o, double s)
{
	double end = tool_now() + s, left;
	struct pollfd p = { .fd = 0, .events = POLLIN };
	int r;

	/* a frame that took longer than the interval must not starve the reading */
	if (s <= 0)
		drain(o);
	while (!tool_stop && (left = end - tool_now()) > 0) {
		r = poll(&p, o->curses, (int)((left < 0.05 ? left : 0.05) * 1000) + 1);
		drain(o);
		if (r > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			tool_stop = SIGHUP;	/* the terminal is gone */
			return 0;
		}
		/* a key; or a signal, SIGWINCH among them: getch() gives KEY_RESIZE now */
		if (r > 0 || (r < 0 && errno == EINTR && o->curses && !tool_stop))
			return 1;
	}
	return 0;
}

static void run(struct top *o)
{
	struct ftk_tally_row *rows = NULL;
	double last = tool_now(), now;
	long frame = 0, n = 0;
	int ch, redraw;

	while (!tool_stop) {
		if (wait_frame(o, last + o->interval - tool_now())) {
			redraw = 0;
			while ((ch = getch()) != ERR)
				redraw |= key(o, ch, LINES - 5);
			if (redraw && !tool_stop) {
				free(rows);
				n = frame_rows(o, &rows);
				draw(o, rows, n);
			}
			continue;
		}
		if (tool_stop)
			break;
		now = tool_now();
		if (o->paused) {
			last = now;
			continue;
		}
		ftk_tally_mark(o->tally, now - last);
		prof_mark(o, now - last);
		last = now;
		free(rows);
		n = frame_rows(o, &rows);
		if (o->curses)
			draw(o, rows, n);
		else if (o->json)
			print_json(o, rows, n);
		else
			print_text(o, rows, n);
		if (!o->curses && fflush(stdout))
			tool_die("cannot write the output: %s", strerror(errno));
		if (o->frames && ++frame >= o->frames)
			break;
	}
	free(rows);
}

static const char usage[] =
"usage: fttop [-b [-n N] [--json]] [-d S] [-e event [-f filter]]... [-P pid] [-C cpus]\n"
"             [-H EVENT:hist:keys=K[:vals=V]] [--profile-hz HZ] [--view V] [--sort COL]\n"
"             [--buffer-kb KB] [-B instance]\n"
"\n"
"A live view of what the kernel is doing, read from the binary ring buffer of a\n"
"private instance (removed again on exit): events, tasks, CPUs, system calls\n"
"and hist triggers; and the CPUs' hottest functions, sampled with perf.\n"
"Keys as in top: h for help, q to quit.\n"
"\n"
"  -e, --event EV        system:event, system or event, globs work; repeatable\n"
"                        (default: sched, irq and raw_syscalls)\n"
"  -f, --filter F        filter for the -e before it ('prev_pid != 0')\n"
"  -P, --pid PID         only events of PID\n"
"  -C, --cpus LIST       only these CPUs (0,2-3)\n"
"  -d, --delay S         refresh every S seconds (default 1)\n"
"  -b, --batch           print frames as plain text, no screen (as top -b)\n"
"  -n, --frames N        stop after N frames\n"
"      --json            with -b: one JSON object per frame\n"
"      --view V          events, tasks, cpus, syscalls, psyscalls, hist or profile\n"
"      --sort COL        the column to sort by (its title: TOTAL, CPU%, ...)\n"
"  -H, --hist EV:TRIG    a hist trigger on EV in fttrigger's syntax, shown in view 5\n"
"      --profile-hz HZ   view 6 samples HZ times a second per CPU (default 99),\n"
"                        from the start (else from when the view is first shown)\n"
"      --buffer-kb KB    per-CPU ring buffer size (default 8192)\n"
TOOL_HELP_INSTANCE
TOOL_HELP_COMMON
"\n"
"examples:\n"
"  fttop                                  # the screen: 1-6 switch views\n"
"  fttop -b -n 3 --view syscalls -P 1234  # three frames of one process's syscalls\n"
"  fttop -b -n 1 -d 5 --json --view tasks # who ran, as JSON, over 5 seconds\n"
"  fttop -b -n 2 --view profile -P 1234   # where process 1234 spends its CPU\n"
"  fttop -e sched:sched_switch -H 'sched:sched_switch:hist:keys=next_comm'\n";

static void check_args(struct top *o, struct tool_args *a)
{
	const struct col *c = view_cols[o->view];
	const char *term = getenv("TERM");
	int v;

	if (a->nrest)
		tool_usage_error("unexpected argument '%s'", a->rest[0]);
	if (o->json && !o->batch)
		tool_usage_error("--json needs -b");
	if (o->view == V_HIST && !o->hist)
		tool_usage_error("the hist view needs -H");
	for (v = 0; v < NR_VIEWS; v++)
		o->sort[v] = view_sort[v];
	if (o->sort_arg) {
		for (v = 0; v < NCOL && c[v].title; v++)
			if (!strcasecmp(o->sort_arg, c[v].title))
				break;
		if (v == NCOL || !c[v].title)
			tool_usage_error("view %s has no column '%s'", view_names[o->view],
					 o->sort_arg);
		o->sort[o->view] = v;
	}
	/* A terminal that cannot place the cursor gets frames of text. */
	if (!o->batch && (!isatty(1) || !term || !strcmp(term, "dumb")))
		o->batch = 1;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_VIEW, OPT_SORT, OPT_PROFILE };
	static const struct option longopts[] = {
		{ "event",	required_argument,	NULL, 'e' },
		{ "filter",	required_argument,	NULL, 'f' },
		{ "pid",	required_argument,	NULL, 'P' },
		{ "cpus",	required_argument,	NULL, 'C' },
		{ "delay",	required_argument,	NULL, 'd' },
		{ "batch",	no_argument,		NULL, 'b' },
		{ "frames",	required_argument,	NULL, 'n' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "view",	required_argument,	NULL, 'w' },
		{ "sort",	required_argument,	NULL, 's' },
		{ "hist",	required_argument,	NULL, 'H' },
		{ "profile-hz",	required_argument,	NULL, 'p' },
		{ "buffer-kb",	required_argument,	NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct tool_def def = {
		.name = "fttop", .usage = usage, .opts = "e:f:P:C:d:bn:H:", .longopts = longopts,
		.common = TOOL_OPT_INSTANCE, .option = option,
	};
	struct tool_args a;

	tool_parse(&def, argc, argv, &a, &top);
	check_args(&top, &a);
	tool_signals();
	/* a closed pipe ends the frames through a failed write, restoring tracefs */
	signal(SIGPIPE, SIG_IGN);
	/* formats libtraceevent cannot parse leave their events unnamed, quietly */
	tep_set_loglevel(TEP_LOG_CRITICAL);
	start_tracing(&top, &a);
	if (!top.batch)
		screen_start(&top);
	run(&top);
	screen_end();
	ftk_tally_free(top.tally);
	free(top.prof_rows);
	tool_exit(EXIT_OK);
}
