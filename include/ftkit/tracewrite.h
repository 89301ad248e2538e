/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracewrite: the trace.dat writer (trace-cmd's format, trace-cmd.dat.v7(5)
 * and trace-cmd.dat.v6(5)), so that trace-cmd report and KernelShark read
 * what ftrecord writes.
 *
 * The writer is one-shot: collect the per-CPU data as regions of files
 * (the capture's spools), then ftk_tracewrite_save() writes the file. It
 * reads no tracefs file: what it stores besides the data (header_page,
 * header_event, ftrace and event formats, kallsyms, printk formats, saved
 * cmdlines, trace_clock, page size) comes from a struct ftk_tracemeta that
 * the capture side read (ftk_tracemeta_new(), <ftkit/capture.h>), and the
 * per-CPU stats and options from the calls below. Uncompressed CPU data is
 * copied with copy_file_range(2), without passing through user space.
 *
 *	ftk_tracemeta_new(t, &opts, NULL, &m);	  after the capture stopped
 *	ftk_tracemeta_buffer(m, "foo", t2);	  each other buffer, if any
 *	ftk_tracewrite_new(m, &opts, &w);
 *	ftk_tracewrite_add(w, cpu, fd, offset, length);	  any number, in order
 *	ftk_tracewrite_cpustat(w, cpu, text);
 *	ftk_tracewrite_buffer(w, "foo");	  then _add()s of instance foo, if any
 *	ftk_tracewrite_date(w, &pair, NULL);	  options: DATE (pair: ftk_capture_clock_pair()),
 *					  or _ts_offset(), _procmaps()
 *	ftk_tracewrite_save(w, "trace.dat");	  or _save_fd(w, 1, "standard output")
 *	ftk_tracewrite_free(w);
 *	ftk_tracemeta_free(m);
 */
#ifndef FTKIT_TRACEWRITE_H
#define FTKIT_TRACEWRITE_H

#include <stdint.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_tracewrite;
/* What a file stores besides the CPU data: filled by ftk_tracemeta_new(). */
struct ftk_tracemeta;

enum ftk_tracewrite_flags {
	/* Leave /proc/kallsyms out (it is about 5 MB). */
	FTK_TRACEWRITE_NO_KALLSYMS	= 1 << 0,
	/*
	 * Only the formats of event systems named with ftk_tracewrite_system()
	 * (and read with ftk_tracemeta_system()).
	 */
	FTK_TRACEWRITE_SOME_SYSTEMS	= 1 << 1,
	/*
	 * Only the formats of event systems with an event on (set_event, soft
	 * mode of triggers included) in a buffer written, when its metadata was
	 * read, or when the earlier read it reuses was (ftk_tracemeta_new()'s
	 * @prev); and those named with ftk_tracewrite_system(). The ftrace
	 * system is always stored.
	 */
	FTK_TRACEWRITE_ENABLED_SYSTEMS	= 1 << 2,
	/*
	 * The metadata only, as trace-cmd record -N sends it to a collector
	 * that appends the CPU data (ftk_net(3)): version 6 up to the end of
	 * the options, without "flyrecord"; version 7 without BUFFER sections
	 * or options. Data added (ftk_tracewrite_add()) is ignored.
	 */
	FTK_TRACEWRITE_META_ONLY	= 1 << 3,
};

struct ftk_tracewrite_opts {
	size_t		sz;
	int		version;	/* 6 or 7; 0 means 7 */
	const char	*compression;	/* NULL or "none", "zstd", "zlib" (version 7 only) */
	const char	*buffer_name;	/* "" (the top buffer, default) or an instance name */
	unsigned int	flags;		/* enum ftk_tracewrite_flags */
	int		level;		/* compression level, 0 = library default */
};

/*
 * One instant on two clocks: the trace clock's stamp of a mark and the time
 * of day around it (ftk_capture_clock_pair()), for ftk_tracewrite_date().
 */
struct ftk_clock_pair {
	uint64_t	realtime_ns;	/* CLOCK_REALTIME, nanoseconds since the epoch */
	uint64_t	stamp;		/* the trace clock: microseconds, or a count */
	int		counts;		/* 1: @stamp counts (cycles, events), not time */
};

/* What ftk_spool_recover() did. */
struct ftk_tracewrite_recovered {
	size_t		sz;
	uint64_t	bytes;		/* CPU data recovered (whole pages) */
	uint64_t	dropped;	/* spool bytes left out: a partial or damaged end */
	int		ncpus;
	char		errmsg[512];	/* the reason of a failure */
};

FTK_API int ftk_tracewrite_new(const struct ftk_tracemeta *m,
			       const struct ftk_tracewrite_opts *opts, struct ftk_tracewrite **out);
FTK_API void ftk_tracewrite_free(struct ftk_tracewrite *w);
FTK_API int ftk_tracewrite_add(struct ftk_tracewrite *w, int cpu, int fd, uint64_t offset,
			       uint64_t length);
FTK_API int ftk_tracewrite_cpustat(struct ftk_tracewrite *w, int cpu, const char *text);
FTK_API int ftk_tracewrite_comm(struct ftk_tracewrite *w, int pid, const char *comm);
FTK_API int ftk_tracewrite_system(struct ftk_tracewrite *w, const char *system);
FTK_API int ftk_tracewrite_buffer(struct ftk_tracewrite *w, const char *name);
FTK_API int ftk_tracewrite_ts_offset(struct ftk_tracewrite *w, long long ns);
FTK_API int ftk_tracewrite_date(struct ftk_tracewrite *w, const struct ftk_clock_pair *p,
				long long *usecs);
FTK_API int ftk_tracewrite_procmaps(struct ftk_tracewrite *w, int pid, const char *exe,
				    const char *maps);
FTK_API int ftk_tracewrite_save(struct ftk_tracewrite *w, const char *path);
FTK_API int ftk_tracewrite_latency(struct ftk_tracewrite *w, const char *text);
FTK_API int ftk_tracewrite_save_fd(struct ftk_tracewrite *w, int fd, const char *name);
FTK_API const char *ftk_tracewrite_errmsg(const struct ftk_tracewrite *w);
FTK_API int ftk_tracewrite_compression_ok(const char *name);
FTK_API int ftk_tracewrite_save_template(struct ftk_tracewrite *w, const char *path);

#ifdef __cplusplus
}
#endif
#endif
