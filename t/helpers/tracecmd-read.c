// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracecmd-read: read a trace.dat with libtracecmd (trace-cmd's own reader,
 * Debian's libtracecmd-dev) and print what it found, as a second reader
 * independent of ftkit's: the tests compare it with ftreport --stat.
 *
 *	tracecmd-read [-m] FILE
 *
 * Prints, one "key value" a line: the file version, compression, clock,
 * uname, the tracer's version, the CPU count, then for each buffer (the top
 * one first, then each instance the file holds) the records and first and
 * last time stamps of each CPU read on its own (tracecmd_read_cpu_first()
 * and tracecmd_read_data()), the records of the merged read
 * (tracecmd_read_next_data()) and how many of them went back in time, and
 * the count of each event. -m does the merged read alone (what ftreport
 * --stat does: t/bench/tracecmd-read.sh times the two). Exit 0, or 2 if
 * libtracecmd cannot open the file or a buffer's two reads disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

/*
 * Exported by libtracecmd.so.1 (3.1.6) but declared only in trace-cmd's
 * private header, which Debian does not ship.
 */
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_version(struct tracecmd_input *handle);
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_next_data(struct tracecmd_input *handle, int *rec_cpu);
void tracecmd_set_all_cpus_to_timestamp(struct tracecmd_input *handle, unsigned long long time);

#define MAX_IDS	65536

static int merged_only;

static int read_buffer(struct tracecmd_input *h, const char *name)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	unsigned long long *counts = calloc(MAX_IDS, sizeof(*counts));
	unsigned long long total = 0, merged = 0, back = 0, last_ts = 0;
	int cpus = tracecmd_cpus(h), cpu, i, bad = 0;
	struct tep_record *r;

	if (!counts)
		return 2;
	printf("buffer %s\n", *name ? name : "(top)");
	printf("cpus %d\n", cpus);
	for (cpu = 0; cpu < cpus && !merged_only; cpu++) {
		unsigned long long n = 0, first = 0, last = 0;

		for (r = tracecmd_read_cpu_first(h, cpu); r; r = tracecmd_read_data(h, cpu)) {
			if (!n)
				first = r->ts;
			last = r->ts;
			n++;
			tracecmd_free_record(r);
		}
		total += n;
		printf("cpu %d records %llu first %llu last %llu\n", cpu, n, first, last);
	}
	/* the merged read, from the start again */
	for (cpu = 0; cpu < cpus; cpu++) {
		r = tracecmd_read_cpu_first(h, cpu);
		if (r)
			tracecmd_free_record(r);
	}
	tracecmd_set_all_cpus_to_timestamp(h, 0);
	while ((r = tracecmd_read_next_data(h, &cpu))) {
		int id = tep_data_type(tep, r);

		if (id >= 0 && id < MAX_IDS)
			counts[id]++;
		if (r->ts < last_ts)
			back++;
		last_ts = r->ts;
		merged++;
		tracecmd_free_record(r);
	}
	printf("records %llu\nmerged %llu\nbackwards %llu\n", total, merged, back);
	for (i = 0; i < MAX_IDS; i++) {
		struct tep_event *ev;

		if (!counts[i])
			continue;
		ev = tep_find_event(tep, i);
		printf("event %s:%s %llu\n", ev ? ev->system : "?", ev ? ev->name : "?", counts[i]);
	}
	if (merged != total && !merged_only) {
		fprintf(stderr, "tracecmd-read: %s: %llu records read per CPU, %llu merged\n",
			*name ? name : "(top)", total, merged);
		bad = 1;
	}
	free(counts);
	return bad ? 2 : 0;
}

int main(int argc, char **argv)
{
	const char *cname = NULL, *cver = NULL, *s;
	struct tracecmd_input *h, *ih;
	int i, n, ret;

	if (argc == 3 && !strcmp(argv[1], "-m")) {
		merged_only = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: tracecmd-read [-m] FILE\n");
		return 1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/*
	 * As trace-cmd report opens: the head, then the data. tracecmd_open()
	 * does both, but on a truncated v6 file it crashes in its own error
	 * path: tracecmd_close() after a failed tracecmd_init_data() (3.1.6),
	 * so the handle is not closed then, as trace-cmd report does not.
	 */
	h = tracecmd_open_head(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "tracecmd-read: libtracecmd cannot open %s\n", argv[1]);
		return 2;
	}
	if (tracecmd_init_data(h) < 0) {
		fprintf(stderr, "tracecmd-read: libtracecmd cannot read the data of %s\n", argv[1]);
		return 2;
	}
	printf("version %lu\n", tracecmd_get_in_file_version(h));
	if (tracecmd_get_file_compress_proto(h, &cname, &cver) == 0 && cname)
		printf("compression %s\n", cname);
	else
		printf("compression none\n");
	s = tracecmd_get_trace_clock(h);
	printf("clock %s\n", s ? s : "(none)");
	s = tracecmd_get_uname(h);
	printf("uname %s\n", s ? s : "(none)");
	s = tracecmd_get_version(h);
	printf("tracer %s\n", s ? s : "(none)");
	n = tracecmd_buffer_instances(h);
	printf("instances %d\n", n);
	ret = read_buffer(h, "");
	for (i = 0; i < n; i++) {
		ih = tracecmd_buffer_instance_handle(h, i);
		if (!ih) {
			fprintf(stderr, "tracecmd-read: cannot open instance %d of %s\n", i, argv[1]);
			ret = 2;
			continue;
		}
		if (read_buffer(ih, tracecmd_buffer_instance_name(h, i)))
			ret = 2;
		tracecmd_close(ih);
	}
	tracecmd_close(h);
	return ret;
}
