/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lattab: a table of rows by key (a syscall, a process, a disk), each
 * with its name, count, errors and latency histogram, sorted for output.
 */
#ifndef FTKIT_LATTAB_H
#define FTKIT_LATTAB_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/hist.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_lattab;

/* One key's row; owned by the table, valid until it is freed. */
struct ftk_lat_row {
	uint64_t	key;
	char		*name;		/* NULL until named */
	uint64_t	count;		/* events */
	uint64_t	errors;		/* events marked failed */
	struct ftk_hist	*hist;		/* latencies; NULL if none was added */
};

enum ftk_lattab_sort {
	FTK_LATTAB_BY_COUNT,		/* count, descending */
	FTK_LATTAB_BY_TOTAL,		/* sum of latencies, descending */
	FTK_LATTAB_BY_MAX,		/* largest latency, descending */
	FTK_LATTAB_BY_KEY,		/* key, ascending */
};

FTK_API struct ftk_lattab *ftk_lattab_new(void);
FTK_API void ftk_lattab_free(struct ftk_lattab *t);
/* The row of @key, made (count 0) if new; NULL with errno ENOMEM. */
FTK_API struct ftk_lat_row *ftk_lattab_row(struct ftk_lattab *t, uint64_t key);
/* The row of @key, or NULL if there is none. */
FTK_API struct ftk_lat_row *ftk_lattab_find(const struct ftk_lattab *t, uint64_t key);
/* Name @key's row (a copy of @name is kept; the row is made if new). */
FTK_API int ftk_lattab_name(struct ftk_lattab *t, uint64_t key, const char *name);
/* Count one event of @key, failed or not. */
FTK_API int ftk_lattab_count(struct ftk_lattab *t, uint64_t key, int failed);
/* Count one event of @key that took @latency. */
FTK_API int ftk_lattab_add(struct ftk_lattab *t, uint64_t key, uint64_t latency, int failed);
/* Rows' histograms made from now on get ftk_hist_scale(@div). */
FTK_API int ftk_lattab_scale(struct ftk_lattab *t, uint64_t div);
/* Row @r's histogram, made (with the table's scale) if it has none; NULL with ENOMEM. */
FTK_API struct ftk_hist *ftk_lattab_hist(struct ftk_lattab *t, struct ftk_lat_row *r);
FTK_API size_t ftk_lattab_len(const struct ftk_lattab *t);
/*
 * The rows sorted @by, into *@out (an array of @return pointers to free()
 * with free(); the rows stay the table's). Ties sort by key. Returns the
 * number of rows, or a negative errno.
 */
FTK_API long ftk_lattab_rows(const struct ftk_lattab *t, enum ftk_lattab_sort by,
			     struct ftk_lat_row ***out);
/* Zero every count and histogram (interval output); names stay. */
FTK_API void ftk_lattab_reset(struct ftk_lattab *t);
/*
 * A JSON array of the rows sorted @by, at most @limit (0: all):
 * {"key":K,"name":"N","count":C,"errors":E,"latency":{ftk_hist_json()}}.
 */
FTK_API int ftk_lattab_json(const struct ftk_lattab *t, FILE *f, enum ftk_lattab_sort by,
			    size_t limit, const char *unit);

#ifdef __cplusplus
}
#endif
#endif
