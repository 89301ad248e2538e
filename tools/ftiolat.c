// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftiolat: block I/O latency, from a request's issue to the driver
 * (block:block_rq_issue) to its completion (block:block_rq_complete),
 * paired by device and sector, as a log2 histogram (bcc's biolatency),
 * per disk and per operation (the rwbs flags) if asked.
 *
 * Paired in the kernel where it has hist triggers and synthetic events
 * (see kernel_setup()), else from the live stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lat.h"

#define SECTOR_BITS	44	/* of the pairing key: 8 PiB of 512-byte sectors */
#define MAX_FLAGS	64	/* distinct rwbs strings kept; more share "other" */

struct iolat {
	struct lat		l;
	struct ftk_hist		*hist;
	struct ftk_lattab	*tab;		/* per disk and/or flags, with --disks / -F */
	struct ftk_pair		*pair;
	struct tep_format_field	*i_dev, *i_sector, *c_dev, *c_sector, *c_rwbs;
	int			issue_id, complete_id, disks, flags, stamps;
	unsigned int		only_dev;	/* --disk: its dev_t as the kernel writes it, or 0 */
	const char		*only_name;
	char			rwbs[MAX_FLAGS][10];
	unsigned int		nrwbs;
	uint64_t		div, issues, dropped;
	const char		*uname;
	char			synth[160];	/* the kernel path's "synthetic:NAME" */
	struct ftk_trigger_latency_opts lo;	/* and how it was made */
};

static const char usage[] =
"usage: ftiolat [-Fk] [--disk NAME] [-m|-u|-n] [-T] [-i SECS] [-D SECS] [--json]\n"
"               [--heatmap FILE.svg] [--stream] [-B NAME] [[--] COMMAND [ARG...]]\n"
"\n"
"Block I/O latency, from a request's issue to the device to its completion,\n"
"as a log2 histogram, per disk and per operation if asked (bcc's biolatency).\n"
"\n"
"  -k, --disks           a histogram per disk (bcc's -D; -D is the duration here)\n"
"  -F, --flags           a histogram per operation and flags (R, W, WS, FWS...)\n"
"      --disk NAME       this disk only (sda, nvme0n1, loop3, or MAJ:MIN)\n"
"  -m, --msecs           milliseconds\n"
"  -u, --usecs           microseconds (the default)\n"
"  -n, --nsecs           nanoseconds\n"
"  -T, --timestamp       a time stamp before each interval's output\n"
"  -i, --interval S      print and reset every S seconds\n"
LAT_HELP_D LAT_HELP_JSON LAT_HELP_HEATMAP LAT_HELP_STREAM
TOOL_HELP_DURATION TOOL_HELP_INSTANCE TOOL_HELP_COMMON
"\n"
"A COMMAND is run and traced to its end; every task's I/O is counted meanwhile\n"
"(completions run in no task's name).\n"
"\n"
"examples:\n"
"  ftiolat -D 10                 # every disk, ten seconds\n"
"  ftiolat -k -F -i 1            # per disk and operation, every second\n"
"  ftiolat -m --disk sda -- fio job.fio\n"
"  ftiolat --heatmap io.svg -i 1 -D 30   # a column a second\n";

/* A disk's dev_t as block events write it (the kernel's MAJOR << 20 | MINOR). */
static unsigned int kdev(unsigned int maj, unsigned int min)
{
	return maj << 20 | min;
}

/* The dev_t of disk NAME (or "MAJ:MIN"), from /sys/class/block/NAME/dev. */
static unsigned int disk_dev(const char *name)
{
	unsigned int maj, min;
	char path[300], buf[32];
	FILE *f;

	if (sscanf(name, "%u:%u", &maj, &min) == 2)
		return kdev(maj, min);
	if (strchr(name, '/') || name[0] == '.' || !name[0] || strlen(name) > 200)
		tool_usage_error("--disk: '%s' is not a disk name", name);
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &maj, &min) != 2)
		tool_die("--disk: no disk '%s' (%s)", name, path);
	fclose(f);
	return kdev(maj, min);
}

/* The name of disk @dev ("sda"), from /sys/dev/block/MAJ:MIN/uevent; else "MAJ:MIN". */
static void disk_name(unsigned int dev, char *buf, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(buf, len, "%u:%u", dev >> 20, dev & 0xfffff);
	snprintf(path, sizeof(path), "/sys/dev/block/%s/uevent", buf);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%.*s", (int)len - 1, line + 8);
		}
	fclose(f);
}

static void option(int opt, char *arg, void *ctx)
{
	struct iolat *io = ctx;

	switch (opt) {
	case 'k': io->disks = 1; break;
	case 'F': io->flags = 1; break;
	case 'K': io->only_name = arg; break;
	case 'T': io->stamps = 1; break;
	}
}

/* The index of an rwbs string (the operation and its flags), interned. */
static unsigned int flags_index(struct iolat *io, const char *s, int len)
{
	unsigned int i;

	for (i = 0; i < io->nrwbs; i++)
		if (!strncmp(io->rwbs[i], s, len) && !io->rwbs[i][len])
			return i;
	if (io->nrwbs == MAX_FLAGS)
		return MAX_FLAGS - 1;
	snprintf(io->rwbs[io->nrwbs], sizeof(io->rwbs[0]), "%.*s", len, s);
	return io->nrwbs++;
}

static uint64_t req_key(unsigned int dev, uint64_t sector)
{
	return (uint64_t)dev << SECTOR_BITS | (sector & ((1ULL << SECTOR_BITS) - 1));
}

static int on_record(void *ctx, const struct tep_record *rec)
{
	struct iolat *io = ctx;
	int len, type = lat_type(&io->l, rec);
	unsigned int dev;
	const char *rwbs;
	uint64_t ns, key;

	if (type == io->issue_id) {
		dev = ftk_record_num(rec, io->i_dev);
		if (io->only_dev && dev != io->only_dev)
			return 0;
		io->issues++;
		ftk_pair_start(io->pair, req_key(dev, ftk_record_num(rec, io->i_sector)), rec->ts, 0);
		return 0;
	}
	if (type != io->complete_id)
		return 0;
	dev = ftk_record_num(rec, io->c_dev);
	if (io->only_dev && dev != io->only_dev)
		return 0;
	if (ftk_pair_end(io->pair, req_key(dev, ftk_record_num(rec, io->c_sector)), rec->ts, &ns, NULL) != 1)
		return 0;
	ftk_hist_add(io->hist, ns);
	lat_heat(&io->l, rec->ts, ns / io->div);
	if (!io->disks && !io->flags)
		return 0;
	rwbs = ftk_record_str(rec, io->c_rwbs, &len);
	/* the row: the disk in the high half, the flags' index + 1 in the low one */
	key = (io->disks ? (uint64_t)dev << 32 : 0) | (io->flags ? flags_index(io, rwbs, len) + 1 : 0);
	ftk_lattab_add(io->tab, key, ns, 0);
	return 0;
}

/* "disk = sda, flags = R" or either half, for the row of @key. */
static void row_title(struct iolat *io, uint64_t key, char *buf, size_t len)
{
	char disk[64];

	disk_name(key >> 32, disk, sizeof(disk));
	if (io->disks && io->flags)
		snprintf(buf, len, "disk = %s, flags = %s", disk, io->rwbs[(key & 0xffff) - 1]);
	else if (io->disks)
		snprintf(buf, len, "disk = %s", disk);
	else
		snprintf(buf, len, "flags = %s", io->rwbs[(key & 0xffff) - 1]);
}

static void print_json(struct iolat *io, struct ftk_lat_row **rows, long n)
{
	struct ftk_pair_stats ps;
	char disk[64];
	long i;

	printf("{\"unit\":\"%s\",\"issued\":%llu,\"latency\":", io->uname,
	       (unsigned long long)io->issues);
	ftk_hist_json(io->hist, stdout, io->uname);
	printf(",\"rows\":[");
	for (i = 0; i < n; i++) {
		printf("%s{", i ? "," : "");
		if (io->disks) {
			disk_name(rows[i]->key >> 32, disk, sizeof(disk));
			printf("\"disk\":");
			ftk_json_str(stdout, disk, sizeof(disk));
			printf("%s", io->flags ? "," : "");
		}
		if (io->flags) {
			printf("\"flags\":");
			ftk_json_str(stdout, io->rwbs[(rows[i]->key & 0xffff) - 1], sizeof(io->rwbs[0]));
		}
		printf(",\"latency\":");
		ftk_hist_json(rows[i]->hist, stdout, io->uname);
		putchar('}');
	}
	ftk_pair_stats(io->pair, &ps);
	printf("],\"pairs\":{\"unmatched\":%llu,\"replaced\":%llu,\"pending\":%llu},\"lost\":%llu}\n",
	       (unsigned long long)ps.unmatched, (unsigned long long)ps.replaced,
	       (unsigned long long)ps.pending, (unsigned long long)lat_lost(&io->l));
}

static void print(void *ctx)
{
	struct iolat *io = ctx;
	struct ftk_lat_row **rows = NULL;
	struct ftk_hist_stats st;
	char title[128];
	long n = 0, i;
	time_t now;

	if (io->disks || io->flags)
		n = ftk_lattab_rows(io->tab, FTK_LATTAB_BY_KEY, &rows);
	if (n < 0)
		tool_die("out of memory");
	if (io->stamps && !io->l.opt.json) {
		now = time(NULL);
		strftime(title, sizeof(title), "%H:%M:%S", localtime(&now));
		printf("%-8s\n", title);
	}
	if (io->l.opt.json) {
		print_json(io, rows, n);
	} else if (io->disks || io->flags) {
		for (i = 0; i < n; i++) {
			if (!rows[i]->count)
				continue;
			row_title(io, rows[i]->key, title, sizeof(title));
			printf("\n%s\n", title);
			ftk_hist_print(rows[i]->hist, stdout, io->uname);
		}
	} else {
		ftk_hist_print(io->hist, stdout, io->uname);
	}
	free(rows);
	if (!io->l.opt.json) {
		lat_lost_print(&io->l, stdout);
		lat_dropped_print(io->dropped, stdout);
	}
	ftk_hist_stats(io->hist, &st);
	lat_path(&io->l, "%llu issued, %llu completed and paired", (unsigned long long)io->issues,
		 (unsigned long long)st.count);
	ftk_hist_reset(io->hist);
	ftk_lattab_reset(io->tab);
	io->issues = 0;
	lat_check_out(&io->l);
}

/*
 * A row of the kernel's hist on the synthetic event: { [dev,] lat: ~ LOW-HIGH }
 * hitcount, LOW in ns: the bucket is the stream's; the sum, the buckets' lows.
 */
static void on_kernel_row(void *ctx, const struct ftk_trigger_hist_row *h)
{
	struct iolat *io = ctx;
	uint64_t lat = h->key[io->disks];

	ftk_hist_add_n(io->hist, lat, h->val[0]);
	if (io->disks) {
		struct ftk_lat_row *row = ftk_lattab_row(io->tab, h->key[0] << 32);

		if (!row || !ftk_lattab_hist(io->tab, row))
			tool_die("out of memory");
		row->count += h->val[0];
		ftk_hist_add_n(row->hist, lat, h->val[0]);
	}
}

/*
 * The kernel path: a synthetic event from block_rq_issue to
 * block_rq_complete of the same device and sector, carrying the latency
 * (and the device with -k), and a hist on it keyed by the latency in the
 * unit (linear buckets of one unit: the values the stream would bucket).
 */
static void kernel_setup(struct iolat *io, const char *filter)
{
	FTK_OPTS(ftk_trigger_latency_opts, o, .start = "block:block_rq_issue",
		 .end = "block:block_rq_complete", .start_keys = "dev,sector",
		 .end_keys = "dev,sector", .key_name = io->disks ? "dev" : NULL,
		 .start_filter = *filter ? filter : NULL, .end_filter = *filter ? filter : NULL,
		 /* an entry for every dev,sector ever issued: the kernel frees none */
		 .size = 65536,
		 .clock = "mono");
	char trig[160], lat[40];

	lat_latency(&io->l, &o, "io", io->synth, sizeof(io->synth));
	io->lo = o;
	if (io->div > 1)
		snprintf(lat, sizeof(lat), "lat.buckets=%llu", (unsigned long long)io->div);
	else
		snprintf(lat, sizeof(lat), "lat");
	snprintf(trig, sizeof(trig), "hist:keys=%s%s:size=32768", io->disks ? "dev," : "", lat);
	lat_hist(&io->l, io->synth, trig);
	lat_path(&io->l, "kernel: block_rq_issue -> block_rq_complete by dev,sector -> %s, a "
		 "hist on it keyed by %s%s", io->synth, io->disks ? "dev," : "", lat);
}

static void kernel_read(struct iolat *io)
{
	struct ftk_trigger_hist_totals tot;

	lat_hist_read(&io->l, "block:block_rq_issue", "keys=dev,sector", "", "", NULL, NULL,
		      &tot);
	io->issues = tot.hits;
	lat_hist_read(&io->l, io->synth, "keys=", io->disks ? "dev,lat" : "lat", "hitcount",
		      on_kernel_row, io, &tot);
	io->dropped = tot.dropped + lat_latency_dropped(&io->l, &io->lo);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "disks", no_argument, NULL, 'k' },	{ "flags", no_argument, NULL, 'F' },
		{ "disk", required_argument, NULL, 'K' },
		{ "timestamp", no_argument, NULL, 'T' },	{ }
	};
	static const struct lat_def def = {
		.name = "ftiolat", .usage = usage, .opts = "kFT", .longopts = longopts,
		.option = option, .shared = LAT_OPT_INTERVAL | LAT_OPT_JSON | LAT_OPT_HEATMAP |
		LAT_OPT_STREAM | LAT_OPT_MSECS | LAT_OPT_USECS | LAT_OPT_NSECS,
	};
	struct tool_args args;
	struct iolat io = { .l.name = "iolat", .l.all_tasks = 1, .l.opt.unit = 'u' };
	struct tep_event *ev;
	char filter[32];
	int code, kernel;

	lat_parse(&io.l, &def, argc, argv, &args, &io);
	io.uname = lat_unit(io.l.opt.unit, &io.div);
	if (io.only_name)
		io.only_dev = disk_dev(io.only_name);
	io.hist = ftk_hist_new();
	io.tab = ftk_lattab_new();
	io.pair = ftk_pair_new();
	/* latencies added in ns, bucketed in the unit: sums and means stay exact */
	if (!io.hist || !io.tab || !io.pair || ftk_hist_scale(io.hist, io.div) ||
	    ftk_lattab_scale(io.tab, io.div))
		tool_die("out of memory");
	if (io.l.opt.heatmap)
		lat_heatmap(&io.l, io.l.opt.heatmap, io.l.opt.interval);
	lat_open(&io.l, &args, 0);
	if (io.only_dev)
		snprintf(filter, sizeof(filter), "dev == %u", io.only_dev);
	kernel = lat_kernel_ok(&io.l, "block:block_rq_complete", io.flags ? "-F" :
			       io.l.opt.interval ? "-i" : io.l.opt.heatmap ? "--heatmap" :
			       io.l.opt.json ? "--json" : NULL);
	if (kernel) {
		kernel_setup(&io, io.only_dev ? filter : "");
		lat_tep(&io.l);
		code = lat_run(&io.l, NULL, NULL, NULL, 0);
		kernel_read(&io);
		print(&io);
		tool_exit(code);
	}
	lat_event(&io.l, "block:block_rq_issue", io.only_dev ? filter : NULL);
	lat_event(&io.l, "block:block_rq_complete", io.only_dev ? filter : NULL);
	ev = lat_find(&io.l, "block", "block_rq_issue");
	io.issue_id = ev->id;
	io.i_dev = lat_field(&io.l, ev, "dev");
	io.i_sector = lat_field(&io.l, ev, "sector");
	ev = lat_find(&io.l, "block", "block_rq_complete");
	io.complete_id = ev->id;
	io.c_dev = lat_field(&io.l, ev, "dev");
	io.c_sector = lat_field(&io.l, ev, "sector");
	io.c_rwbs = lat_field(&io.l, ev, "rwbs");
	lat_path(&io.l, "stream: block_rq_issue paired with block_rq_complete by device and "
		 "sector, from the live buffer");
	code = lat_run(&io.l, on_record, &io, print, io.l.opt.interval);
	print(&io);
	lat_heat_write(&io.l, "Block I/O latency", io.uname);
	tool_exit(code);
}
