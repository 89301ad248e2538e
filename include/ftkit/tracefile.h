/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.dat files (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)).
 *
 * Reading: ftk_tracefile_open() parses the metadata into a libtraceevent
 * handle (header page, ftrace and event formats, kallsyms, printk formats,
 * saved cmdlines, options), then ftk_tracefile_merge() gives the records
 * of the chosen buffers and CPUs merged by time stamp.
 */
#ifndef FTKIT_TRACEFILE_H
#define FTKIT_TRACEFILE_H

#include <ftkit/common.h>
#include <ftkit/merge.h>
#include <ftkit/stream.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tep_handle;
struct ftk_tracefile;

/* ---------------------------------------------------------------- reading */

enum ftk_tracefile_flags {
	FTK_TRACEFILE_NO_PLUGINS	= 1 << 0,	/* do not load libtraceevent's plugins */
	FTK_TRACEFILE_LAZY		= 1 << 1,	/* formats registered on first record */
};

/*
 * Open and parse @path. Returns 0 or a negative code; *tfp is set whenever
 * a handle could be allocated, also on failure, so that
 * ftk_tracefile_errmsg() can say what is wrong and where: close it then.
 */
FTK_API int ftk_tracefile_open(const char *path, unsigned int flags,
			       struct ftk_tracefile **tfp);
/*
 * The same over a live ring buffer (top, or @instance): per_cpu/cpuN/
 * trace_pipe_raw read without blocking. Reading CONSUMES the events.
 */
FTK_API int ftk_tracefile_open_live(const char *tracing_dir, const char *instance,
				    unsigned int flags, struct ftk_tracefile **tfp);
FTK_API void ftk_tracefile_close(struct ftk_tracefile *tf);
/* "FILE: what at offset N", owned by the handle. */
FTK_API const char *ftk_tracefile_errmsg(const struct ftk_tracefile *tf);
/* NULL if the file is whole, else "FILE: file is truncated at offset N: what was lost". */
FTK_API const char *ftk_tracefile_damage(const struct ftk_tracefile *tf);

FTK_API struct tep_handle *ftk_tracefile_tep(const struct ftk_tracefile *tf);
FTK_API const char *ftk_tracefile_path(const struct ftk_tracefile *tf);
FTK_API int ftk_tracefile_version(const struct ftk_tracefile *tf);
/* Name of the compression ("none", "zstd", "zlib"). */
FTK_API const char *ftk_tracefile_compression(const struct ftk_tracefile *tf);
FTK_API int ftk_tracefile_cpus(const struct ftk_tracefile *tf);
FTK_API int ftk_tracefile_long_size(const struct ftk_tracefile *tf);
FTK_API int ftk_tracefile_big_endian(const struct ftk_tracefile *tf);
FTK_API unsigned int ftk_tracefile_page_size(const struct ftk_tracefile *tf);
/* Options; NULL when the file has none. */
FTK_API const char *ftk_tracefile_uname(const struct ftk_tracefile *tf);
FTK_API const char *ftk_tracefile_tracer_version(const struct ftk_tracefile *tf);
FTK_API long long ftk_tracefile_ts_offset(const struct ftk_tracefile *tf);
/* DATE (microseconds, trace-cmd record --date) and OFFSET (ns) options: 1 and the value, or 0. */
FTK_API int ftk_tracefile_date(const struct ftk_tracefile *tf, long long *usecs);
FTK_API int ftk_tracefile_clock_offset(const struct ftk_tracefile *tf, long long *ns);
/* TSC2NSEC option (x86-tsc stamps to ns): 1 and its fields, or 0. */
FTK_API int ftk_tracefile_tsc2nsec(const struct ftk_tracefile *tf, unsigned int *mult,
				   unsigned int *shift, unsigned long long *offset);
/* TRACEID option (the id of this recording, which a guest's TIME_SHIFT names): 1, or 0. */
FTK_API int ftk_tracefile_trace_id(const struct ftk_tracefile *tf, unsigned long long *id);

/*
 * TIME_SHIFT (a guest's recording, trace-cmd record -A or its agent): per
 * CPU, samples of the offset (and scaling) from the guest's clock to its
 * host's, which every stamp of the top buffer is corrected by, as trace-cmd
 * report does. ftk_tracefile_time_shift() gives the host's trace id, the
 * protocol flags (FTK_TIME_SHIFT_INTERPOLATE) and the CPU count: 1, or 0 if
 * the file has none.
 */
#define FTK_TIME_SHIFT_INTERPOLATE	0x1
struct ftk_time_sample {
	long long	time;		/* guest stamp the sample was taken at */
	long long	offset;		/* guest to host, ns */
	long long	scaling;	/* stamp = (stamp * scaling) >> fraction, then + offset */
	long long	fraction;
};
FTK_API int ftk_tracefile_time_shift(const struct ftk_tracefile *tf, unsigned long long *peer_id,
				     unsigned int *flags, int *cpus);
/* The samples of guest CPU @cpu, sorted by time, owned by @tf; *n of them (NULL, 0 if none). */
FTK_API const struct ftk_time_sample *ftk_tracefile_time_shift_cpu(const struct ftk_tracefile *tf,
								   int cpu, int *n);
/*
 * GUEST options (a host's recording of its guests): the @i-th guest's name
 * (NULL past the last), its trace id, and per virtual CPU the host pid that
 * runs it (*cpu_pid[vcpu], owned by @tf).
 */
FTK_API const char *ftk_tracefile_guest(const struct ftk_tracefile *tf, int i,
					unsigned long long *trace_id, int *vcpus,
					const int **cpu_pid);
/* PROCMAPS options: the @i-th process's comm (NULL past the last), pid and mapping count. */
FTK_API const char *ftk_tracefile_procmap(const struct ftk_tracefile *tf, int i, int *pid,
					  int *nr_maps);
/* The per-CPU buffer statistics saved in the file (CPUSTAT options), or NULL. */
FTK_API char **ftk_tracefile_cpustats(const struct ftk_tracefile *tf);
/* Text of the file's latency (BUFFER_TEXT) data, or NULL for flyrecord files. */
FTK_API const char *ftk_tracefile_latency_text(const struct ftk_tracefile *tf);

/* Buffers: 0 is the top one (name ""), then the instances in file order. */
FTK_API int ftk_tracefile_buffers(const struct ftk_tracefile *tf);
FTK_API const char *ftk_tracefile_buffer_name(const struct ftk_tracefile *tf, int buf);
/* Trace clock of a buffer ("local", "counter"...). */
FTK_API const char *ftk_tracefile_buffer_clock(const struct ftk_tracefile *tf, int buf);
/* 1 if the buffer's stamps are nanoseconds (printed as seconds.usecs). */
FTK_API int ftk_tracefile_buffer_in_ns(const struct ftk_tracefile *tf, int buf);
/* CPUs with data in a buffer, and the CPU number of the i-th one. */
FTK_API int ftk_tracefile_buffer_cpus(const struct ftk_tracefile *tf, int buf);
FTK_API int ftk_tracefile_buffer_cpu(const struct ftk_tracefile *tf, int buf, int i);

/* One stream over the i-th CPU of buffer @buf; close it with ftk_stream_close(). */
FTK_API struct ftk_stream *ftk_tracefile_stream(struct ftk_tracefile *tf, int buf, int i);
/* Add @ns to every time stamp of the streams made from now on (files of other clocks). */
FTK_API void ftk_tracefile_shift(struct ftk_tracefile *tf, long long ns);
/*
 * Add the streams of the buffers in @buf_mask (all if 0) and the CPUs in
 * @cpus (ended by -1; NULL for all) to @m, tagged @tag_base + buffer index:
 * several files in one merge are merged by time.
 */
FTK_API int ftk_tracefile_merge_add(struct ftk_tracefile *tf, struct ftk_merge *m,
				    unsigned long long buf_mask, const int *cpus, int tag_base);
/*
 * Merge of the buffers whose bit is set in @buf_mask (all if 0) and the CPUs
 * in @cpus (a list ended by -1; NULL for all). Records are tagged with
 * their buffer index. Free with ftk_merge_free().
 */
FTK_API struct ftk_merge *ftk_tracefile_merge(struct ftk_tracefile *tf,
					      unsigned long long buf_mask,
					      const int *cpus);

#ifdef __cplusplus
}
#endif
#endif
