/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace file reader's handle and what its parts share:
 *   tracefile-read.c  trace.dat versions 6 and 7: metadata, options, data streams
 *   tracefile-live.c  a live ring buffer read as if it were a file
 *   tracefile-ksyms.c kallsyms indexed in place; blocks for large sections
 */
#ifndef FTKIT_TRACEFILE_READ_LOCAL_H
#define FTKIT_TRACEFILE_READ_LOCAL_H

#include <ftkit/tracefile.h>

#include "internal.h"

/*
 * Sanity limits for sizes read from the file. Memory stays in proportion
 * to what the file holds, whatever its headers declare: a block is
 * allocated only once the file is seen to hold it, a compressed one
 * expands at most MAX_RATIO times (text and trace pages compress 3 to 10
 * times), a data chunk holds at most MAX_CHUNK_PAGES sub-buffers
 * (trace-cmd and ftrecord write 10), and CPU data regions may not
 * overlap, so each byte of the file is decoded once.
 */
#define MAX_META	(512ULL << 20)	/* one metadata block */
#define MAX_RATIO	64ULL		/* of a compressed block: uncompressed / compressed */
#define MAX_CHUNK_PAGES	64		/* sub-buffers in one compressed data chunk */
#define MAX_CPUS	8192
#define READAHEAD_BUDGET (32U << 20)	/* file streams of one merge read ahead this much in all */
#define ZMEM_BUDGET	(256ULL << 20)	/* uncompressed chunks held by the streams of one file */
#define MAX_BUFFERS	64
/* Sub-buffer sizes a kernel can produce: a page (4 KiB to 64 KiB) up to buffer_subbuf_size_kb's 1 MiB. */
#define MIN_PAGE	1024U
#define MAX_PAGE	(1U << 20)

struct tf_cpu {
	int			cpu;
	int			fd;		/* live: trace_pipe_raw */
	unsigned long long	offset;
	unsigned long long	size;
	int			cut;		/* the file ends inside this region */
};

struct tf_buffer {
	char			*name;
	char			*clock;
	unsigned int		page_size;
	int			nr_cpus;
	int			compressed;
	unsigned long long	sec_off;	/* v7: its BUFFER section */
	struct tf_cpu		*cpus;
};

/* An event format read from the file, not given to libtraceevent yet (lazy loading). */
struct tf_fmt {
	char			*blob;		/* NULL once parsed */
	int			owned;		/* malloc'd; else in a block of fmt_blocks */
	unsigned long		size;
	int			id;
	int			sys;		/* index in ftk_tracefile.systems */
	unsigned long long	at;		/* file offset after it, for messages */
};

/* Live: an event of tracefs and its id, for a record whose format is not parsed yet. */
struct tf_live_id {
	int			id;
	char			*sys;
	char			*name;
};

/* A metadata block read on first use: kallsyms, printk formats. */
struct tf_later {
	unsigned long long	off;		/* v7: its section; v6: its size field */
	int			state;		/* LATER_NONE, LATER_PENDING, LATER_DONE */
};

enum { LATER_NONE, LATER_PENDING, LATER_DONE };


/* TIME_SHIFT: one guest CPU's samples, sorted by time, equal times dropped. */
struct tf_tsync {
	unsigned int		flags;		/* the option's protocol flags */
	int			n;
	struct ftk_time_sample	*s;
};

struct tf_guest {
	char			*name;
	unsigned long long	trace_id;
	int			vcpus;
	int			*cpu_pid;
};

struct tf_procmap {
	char			*comm;
	int			pid;
	int			nr_maps;
};

struct ftk_tracefile {
	char			*path;
	int			fd;
	unsigned long long	fsize;
	int			version;
	int			big_endian;
	int			long_size;
	unsigned int		page_size;
	int			comp;
	char			*comp_name;
	int			cpus;
	struct tep_handle	*tep;
	struct tep_plugin_list	*plugins;
	char			*uname;
	char			*tversion;
	char			*top_clock;
	char			*latency;
	long long		ts_offset;
	long long		shift;		/* ftk_tracefile_shift() */
	char			**cpustats;	/* CPUSTAT options, in file order */
	unsigned int		tsc_mult;	/* TSC2NSEC option */
	unsigned int		tsc_shift;
	unsigned long long	tsc_offset;
	int			has_tsc, has_date, has_offset, has_trace_id;
	long long		date_us;	/* DATE option */
	long long		clock_offset;	/* OFFSET options, summed */
	unsigned long long	trace_id;	/* TRACEID option */
	/* TIME_SHIFT option: the top buffer's stamps mapped to the host's clock */
	int			has_tsync;
	unsigned long long	tsync_peer;
	unsigned int		tsync_flags;
	int			tsync_cpus;
	struct tf_tsync		*tsync;
	struct tf_guest		*guests;	/* GUEST options */
	int			nr_guests;
	struct tf_procmap	*procmaps;	/* PROCMAPS options */
	int			nr_procmaps;
	int			live;
	const struct tf_live_ops *live_ops;	/* live: set by tracefile-live.c */
	unsigned long long	zmem;		/* bytes of the zsrc chunk buffers */
	int			nr_bufs;
	struct tf_buffer	bufs[MAX_BUFFERS];
	/* FTK_TRACEFILE_LAZY: formats and symbols registered on first use */
	int			lazy;
	struct tf_fmt		*fmts;
	int			nr_fmts;
	char			**systems;
	int			nr_systems;
	unsigned char		*id_seen;	/* per event id: its first record was seen */
	int			type_off, type_size;	/* common_type in a record */
	struct tf_later		kallsyms, printk;
	struct tf_later		events;		/* v7, lazy: the event formats section */
	unsigned char		*rwin;		/* file bytes read ahead for metadata (cur_read()) */
	unsigned long long	rwin_off, rwin_len;
	void			**fmt_blocks;	/* v7 format sections the kept formats lie in */
	int			nr_fmt_blocks;
	/* live and lazy: formats read from tracefs on first use (tracefile-live.c) */
	char			*live_root;	/* the tracefs mount */
	struct tf_live_id	*live_ids;	/* every event's id, read on the first miss */
	int			nr_live_ids;	/* -1: the scan failed */
	struct tf_ksyms		*ksyms;		/* the kallsyms index, or NULL */
	struct tf_ksyms_part	*ksyms_part;	/* v7 zstd: kallsyms read as far as asked */
	struct ftk_tep_side	*side;		/* comms, printk text: bound to tep (tep-side.c) */
	void			*dctx;		/* zstd context the data streams share */
	unsigned char		*zbuf;		/* and their compressed-chunk buffer */
	size_t			zbuf_cap;
	char			*damage;	/* what a truncated file lost, or NULL */
	struct ftk_errmsg	err;
};

int tf_fail(struct ftk_tracefile *tf, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A number of @n bytes at @p in the file's byte order. */
unsigned long long tf_num(const struct ftk_tracefile *tf, const unsigned char *p, int n);
/*
 * tracefile-info.c: the options that describe a recording rather than its
 * data (TIME_SHIFT, GUEST, PROCMAPS), from the option's @size bytes at
 * @buf, found at file offset @at. A bad TIME_SHIFT fails the file (its
 * stamps cannot be put right), as in trace-cmd; a bad GUEST or PROCMAPS
 * is left out. 0 or a negative code.
 */
int tf_opt_time_shift(struct ftk_tracefile *tf, const unsigned char *buf,
		      unsigned long long size, unsigned long long at);
int tf_opt_guest(struct ftk_tracefile *tf, const unsigned char *buf, unsigned long long size);
int tf_opt_procmaps(struct ftk_tracefile *tf, const unsigned char *buf, unsigned long long size);
void tf_info_free(struct ftk_tracefile *tf);
/* The TIME_SHIFT correction of CPU @cpu's stamps (ctx for tf_tsync_map()), or NULL if none. */
const struct tf_tsync *tf_tsync_for(const struct ftk_tracefile *tf, int cpu);
unsigned long long tf_tsync_map(const void *ctx, unsigned long long ts);
/* Live: kallsyms read from /proc on the first look-up, not now. */
int tf_live_kallsyms_later(struct ftk_tracefile *tf);
/* tracefile-ksyms.c: blocks for large sections, freed with tf_big_free() (NULL is fine) */
void *tf_big_alloc(size_t n);
/* An anonymous mapping of @len bytes on huge-page boundaries (a hint), its length in @maplen. */
void *tf_map_aligned(size_t len, size_t *maplen);
void tf_big_free(void *p);
char *tf_map_file(int fd, unsigned long long off, size_t len, void **map, size_t *maplen);
const unsigned char *tf_map_ro(int fd, unsigned long long off, size_t len, void **map,
			       size_t *maplen);
/* How the text given to tf_ksyms_index() is released. */
enum { TF_TEXT_MALLOC, TF_TEXT_BIG, TF_TEXT_MAP };
int tf_ksyms_index(struct ftk_tracefile *tf, char *text, size_t len, int how, void *map,
		   size_t maplen);
char *tf_ksyms_find(struct ftk_tracefile *tf, unsigned long long *addrp, char **modp);
int tf_ksyms_addr(struct ftk_tracefile *tf, const char *name, unsigned long long *addr);
void tf_ksyms_free(struct tf_ksyms *k);
/* A v7 section's compressed block, as read: mapped where large, else in @buf. */
struct tf_zsrc {
	const unsigned char	*at;		/* the bytes */
	unsigned int		clen, ulen;	/* their size, and decompressed */
	unsigned char		*buf;		/* read: free()'d by tf_zsrc_release() */
	void			*map;		/* mapped: munmap()'d */
	size_t			maplen;
};
void tf_zsrc_release(struct tf_zsrc *z);
/* A zstd kallsyms section read only as far as look-ups need (tf_ksyms_part_*()). */
struct tf_ksyms_part;
int tf_ksyms_part_open(struct ftk_tracefile *tf, struct tf_zsrc *src);
int tf_ksyms_part_find(struct ftk_tracefile *tf, unsigned long long *addrp, char **modp,
		       char **namep);
int tf_ksyms_part_finish(struct ftk_tracefile *tf);
void tf_ksyms_part_free(struct tf_ksyms_part *p);
/* 0: tf_ksyms_index() without AVX2 even where the CPU has it (tests); 1: with (the default) */
void tf_ksyms_use_avx2(int on);
/* Live and lazy: after the first formats, what record_hook() needs; 0 or -ENOMEM. */
int tf_lazy_start(struct ftk_tracefile *tf);
/*
 * What the reader asks of a live source, through tf->live_ops so that the
 * file reader does not call tracefile-live.c by name (which calls it):
 * fmt_load parses the format of event @id unless it is known (0 if it is
 * now); parse_all parses every format under events/ (the whole, not
 * lazy); release frees what fmt_load kept.
 */
struct tf_live_ops {
	int	(*fmt_load)(struct ftk_tracefile *tf, int id);
	int	(*parse_all)(struct ftk_tracefile *tf);
	void	(*release)(struct ftk_tracefile *tf);
};
/* Live: the kernel's saved_cmdlines read again, the pids not known yet added; 0 or <0. */
int tf_live_comms_reload(struct ftk_tracefile *tf);
/* Live: the event @sys:@name, its format parsed now if it was not; NULL if there is none. */
struct tep_event *tf_live_event(struct ftk_tracefile *tf, const char *sys, const char *name);
/* Keep only the printk format lines libtraceevent can take. */
void keep_colon_lines(char *b);
/* "[local] global counter" or "local" -> "local", malloc'd. */
char *clock_name(const char *s, size_t n);
/* The next buffer of @tf, named @name; NULL when too many or out of memory. */
struct tf_buffer *new_buffer(struct ftk_tracefile *tf, const char *name, unsigned long long at);

#endif
