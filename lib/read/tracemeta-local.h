/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracemeta: what a trace.dat stores besides the CPU data, as plain data.
 *
 * The capture side fills it (lib/capture/tracemeta.c, ftk_tracemeta_new():
 * the one place that reads tracefs and /proc for a file); the writer
 * (lib/read/tracefile-write.c) lays it out and reads nothing itself. A
 * text is a file's contents as read, not NUL-terminated; data NULL means
 * not read (left out, or stored empty where the file says so).
 */
#ifndef FTK_TRACEMETA_LOCAL_H
#define FTK_TRACEMETA_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

struct ftk_tracefs;

struct tm_text {
	char	*data;
	size_t	len;
};

/* One directory under events/: its events' format files, in alphasort order. */
struct tm_system {
	char		*name;
	struct tm_text	*formats;	/* the readable ones only */
	int		nr;
	bool		read;		/* formats read (else not asked for) */
};

/* A buffer besides the top one (ftk_tracemeta_buffer()). */
struct tm_buffer {
	char		*name;
	char		*clock_file;	/* its trace_clock contents */
	char		*clock;		/* its selected clock */
	uint32_t	page_size;
};

struct ftk_tracemeta {
	struct tm_text		header_page;
	struct tm_text		header_event;
	struct tm_system	*systems;	/* every system under events/, "ftrace" among them */
	int			nr_systems;
	char			**on;		/* systems with an event on, in some buffer */
	bool			on_unknown;	/* set_event unreadable: store every system */
	struct tm_text		kallsyms;	/* NULL: left out (stored as 0 bytes) */
	struct tm_text		printk;		/* NULL: unreadable, stored empty */
	struct tm_text		cmdlines;	/* NULL: unreadable, stored empty */
	char			*clock_file;	/* the top buffer's trace_clock contents */
	char			*clock;		/* its selected clock */
	struct tm_buffer	*bufs;
	int			nr_bufs;
	uint32_t		page_size;	/* the ring buffer's page (sub-buffer) */
	uint32_t		tsc_mult;	/* x86-tsc cycles to ns; 0: none */
	uint32_t		tsc_shift;
	unsigned int		flags;		/* enum ftk_tracewrite_flags it was read for */
	/* capture side only: what a later read compares to reuse the costly parts */
	char			*events_sig;	/* available_events before the formats */
	char			*modules_sig;	/* /proc/modules before kallsyms */
	struct ftk_tracefs	*t;		/* the top buffer's; kept, not owned */
	struct ftk_errmsg	err;
};

#endif
