/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * heatmap: latency over time as a picture. Samples go into columns of a
 * fixed time width and log2 rows (the slots of ftk_hist_slot(), so a row
 * is a row of the tools' histograms); the map is written as a
 * self-contained SVG: a cell per column and row with samples, coloured by
 * its count, a tooltip naming its time, its range and its count, and a
 * legend of the colours.
 *
 *	struct ftk_heatmap *hm = ftk_heatmap_new(0, 0);	10 ms columns, at most 200
 *	on each sample:	ftk_heatmap_add(hm, ts_ns, usecs);
 *	at the end:	ftk_heatmap_write_svg(hm, f, "Run queue latency", "usecs");
 *	ftk_heatmap_free(hm);
 */
#ifndef FTKIT_HEATMAP_H
#define FTKIT_HEATMAP_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTK_HEATMAP_MAX_COLS	4096	/* the most columns a map keeps */

struct ftk_heatmap;

/*
 * A map of columns @col_ns wide (0: 10 ms). When a sample falls past
 * @max_cols columns (0: 200; at most FTK_HEATMAP_MAX_COLS), the columns
 * double in width, neighbours merged, so a run of any length fits.
 */
FTK_API struct ftk_heatmap *ftk_heatmap_new(uint64_t col_ns, unsigned int max_cols);
FTK_API void ftk_heatmap_free(struct ftk_heatmap *hm);
/* A sample of @value (the caller's unit) at time @ts_ns; time 0 is the first sample's. */
FTK_API int ftk_heatmap_add(struct ftk_heatmap *hm, uint64_t ts_ns, uint64_t value);
/* Samples added. */
FTK_API uint64_t ftk_heatmap_total(const struct ftk_heatmap *hm);
/* The width of a column now, in nanoseconds. */
FTK_API uint64_t ftk_heatmap_col_ns(const struct ftk_heatmap *hm);
/* The SVG picture, titled @title, rows in @unit ("usecs"). 0, or -EIO. */
FTK_API int ftk_heatmap_write_svg(const struct ftk_heatmap *hm, FILE *f, const char *title,
				  const char *unit);

#ifdef __cplusplus
}
#endif
#endif
