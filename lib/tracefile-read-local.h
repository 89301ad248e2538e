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
	unsigned long		size;
	int			id;
	int			sys;		/* index in ftk_tracefile.systems */
	unsigned long long	at;		/* file offset after it, for messages */
};

/* A metadata block read on first use: kallsyms, printk formats. */
struct tf_later {
	unsigned long long	off;		/* v7: its section; v6: its size field */
	int			state;		/* LATER_NONE, LATER_PENDING, LATER_DONE */
};

enum { LATER_NONE, LATER_PENDING, LATER_DONE };


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
	int			live;
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
	struct tf_ksyms		*ksyms;		/* the kallsyms index, or NULL */
	void			*dctx;		/* zstd context the data streams share */
	unsigned char		*zbuf;		/* and their compressed-chunk buffer */
	size_t			zbuf_cap;
	char			*damage;	/* what a truncated file lost, or NULL */
	struct ftk_errmsg	err;
};

int tf_fail(struct ftk_tracefile *tf, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Live: kallsyms read from /proc on the first look-up, not now. */
int tf_live_kallsyms_later(struct ftk_tracefile *tf);
/* tracefile-ksyms.c: blocks for large sections, freed with tf_big_free() (NULL is fine) */
void *tf_big_alloc(size_t n);
void tf_big_free(void *p);
char *tf_map_file(int fd, unsigned long long off, size_t len, void **map, size_t *maplen);
const unsigned char *tf_map_ro(int fd, unsigned long long off, size_t len, void **map,
			       size_t *maplen);
/* How the text given to tf_ksyms_index() is released. */
enum { TF_TEXT_MALLOC, TF_TEXT_BIG, TF_TEXT_MAP };
int tf_ksyms_index(struct ftk_tracefile *tf, char *text, size_t len, int how, void *map,
		   size_t maplen);
char *tf_ksyms_find(struct ftk_tracefile *tf, unsigned long long *addrp, char **modp);
void tf_ksyms_free(struct tf_ksyms *k);
/* Keep only the printk format lines libtraceevent can take. */
void keep_colon_lines(char *b);
/* "[local] global counter" or "local" -> "local", malloc'd. */
char *clock_name(const char *s, size_t n);
/* The next buffer of @tf, named @name; NULL when too many or out of memory. */
struct tf_buffer *new_buffer(struct ftk_tracefile *tf, const char *name, unsigned long long at);

#endif
