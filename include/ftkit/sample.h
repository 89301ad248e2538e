/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sample: perf_event sampling through the mmap ring buffer.
 *
 *	FTK_OPTS(ftk_sample_opts, o, .freq = 99, .callchain = FTK_CALLCHAIN_FP);
 *	ftk_sampler_open(&o, NULL, 0, &pid, 1, &s);	one ring per CPU or thread
 *	ftk_sampler_enable(s);
 *	while (running)
 *		ftk_sampler_read(s, 100, fn, ctx);	every record, parsed, to fn()
 *	ftk_sampler_lost(s, &lost, &lost_samples);
 *	ftk_sampler_free(s);
 *
 * Records come as struct ftk_sample, whose pointers point into the ring
 * (or a copy of a record that wraps) and stay valid only during the
 * callback. ftk_sample_parse() decodes one record of a given sample_type,
 * checking every size against the record's, for readers of perf.data too.
 */
#ifndef FTKIT_SAMPLE_H
#define FTKIT_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_sampler;

enum ftk_callchain {
	FTK_CALLCHAIN_NONE,
	FTK_CALLCHAIN_FP,	/* PERF_SAMPLE_CALLCHAIN: the kernel walks frame pointers */
	FTK_CALLCHAIN_DWARF,	/* user stack and registers copied, unwound afterwards */
	FTK_CALLCHAIN_LBR,	/* last branch records (hardware); ENOTSUP where absent */
};

enum ftk_sample_flags {
	FTK_SAMPLE_INHERIT	= 1 << 0,	/* children created after the open too */
	FTK_SAMPLE_ON_EXEC	= 1 << 1,	/* start when the target calls exec */
	FTK_SAMPLE_USER		= 1 << 2,	/* user space only (exclude_kernel) */
	FTK_SAMPLE_SWITCH	= 1 << 3,	/* PERF_RECORD_SWITCH: the targets' switches in and out */
};

struct ftk_tracepoints;

struct ftk_sample_opts {
	size_t		sz;
	const char	*event;		/* perf event syntax (one event); NULL: cpu-clock */
	uint64_t	freq;		/* samples a second; 0 with no period: 99 */
	uint64_t	period;		/* one sample every PERIOD events, instead of freq */
	unsigned int	callchain;	/* enum ftk_callchain */
	uint32_t	stack_size;	/* DWARF: bytes of user stack copied; 0: 8192 */
	unsigned int	mmap_pages;	/* data pages per ring, a power of 2; 0: by mode */
	unsigned int	flags;		/* enum ftk_sample_flags */
	/*
	 * Tracepoint ids (an event "sys:ev") and, for ftk_profile_open()'s
	 * off-CPU and wakeup modes, field offsets: the perf side reads no
	 * tracefs (ftk_event_tracepoints()). NULL: no tracepoints.
	 */
	const struct ftk_tracepoints *tracepoints;
};

/* User registers a sample can carry: indexed by PERF_REG_X86_* (<asm/perf_regs.h>). */
#define FTK_SAMPLE_MAX_REGS	32

/* One record from the ring, decoded. Fields not in the record are 0 / NULL. */
struct ftk_sample {
	const struct perf_event_header *header;	/* the record as read, header first */
	uint32_t	type;		/* PERF_RECORD_* */
	uint16_t	misc;		/* PERF_RECORD_MISC_* */
	int		cpu;		/* -1 when the record carries none */
	pid_t		pid, tid;
	uint64_t	time;
	/* PERF_RECORD_SAMPLE */
	uint64_t	ip;
	uint64_t	period;
	uint64_t	nr_ips;
	const uint64_t	*ips;		/* the callchain, with PERF_CONTEXT_* markers */
	uint64_t	regs_abi;	/* PERF_SAMPLE_REGS_ABI_*, 0 when no user regs */
	uint64_t	regs_mask;	/* which of @regs the record carries */
	uint64_t	regs[FTK_SAMPLE_MAX_REGS];	/* by PERF_REG_X86_* number */
	uint64_t	stack_size;	/* bytes valid at @stack (the kernel's dyn_size) */
	const void	*stack;		/* the copy of the user stack, from regs[PERF_REG_X86_SP] */
	uint32_t	raw_size;
	const void	*raw;		/* PERF_SAMPLE_RAW: a tracepoint's fields */
	/* PERF_RECORD_MMAP2 (and MMAP) */
	uint64_t	addr, len, pgoff;
	uint32_t	maj, min, prot, flags;
	uint64_t	ino;
	const char	*filename;
	/* PERF_RECORD_COMM */
	const char	*comm;
	/* PERF_RECORD_FORK, _EXIT */
	pid_t		ppid, ptid;
	/* PERF_RECORD_LOST, _LOST_SAMPLES */
	uint64_t	lost;
};

typedef int (*ftk_sample_fn)(const struct ftk_sample *s, void *ctx);

FTK_API int ftk_sampler_open(const struct ftk_sample_opts *o, const int *cpus, size_t nr_cpus,
			     const pid_t *tids, size_t nr_tids, struct ftk_sampler **out);
FTK_API void ftk_sampler_free(struct ftk_sampler *s);
FTK_API const char *ftk_sampler_errmsg(const struct ftk_sampler *s);
FTK_API int ftk_sampler_enable(struct ftk_sampler *s);
FTK_API int ftk_sampler_disable(struct ftk_sampler *s);
FTK_API int ftk_sampler_read(struct ftk_sampler *s, int timeout_ms, ftk_sample_fn fn, void *ctx);
FTK_API void ftk_sampler_lost(const struct ftk_sampler *s, uint64_t *lost, uint64_t *lost_samples);
FTK_API const struct perf_event_attr *ftk_sampler_attr(const struct ftk_sampler *s);
FTK_API size_t ftk_sampler_nr_rings(const struct ftk_sampler *s, unsigned int *pages);
FTK_API int ftk_sample_parse(const void *rec, size_t size, const struct perf_event_attr *attr,
			     struct ftk_sample *out);

#ifdef __cplusplus
}
#endif
#endif
