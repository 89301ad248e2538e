// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * heatmap: latency buckets over time, drawn as a self-contained SVG (the
 * second picture libftkit draws, after lib/stacks.c's flame graph, and
 * written the same way: plain SVG from C, text escaped by ftk_xml_put()).
 *
 * The map is an array of columns, each FTK_HIST_SLOTS counts (the log2
 * slots of ftk_hist_slot()). Columns are a fixed time wide; when a
 * sample would need more than the map's column limit, the width doubles
 * and neighbouring columns are summed, so memory stays bounded by the
 * limit however long the run (4096 columns: 2 MiB at most).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/heatmap.h>
#include <ftkit/latency.h>

#include "internal.h"

#define DEFAULT_COL_NS	10000000ULL	/* 10 ms */
#define DEFAULT_COLS	200
#define CELL_H		18
#define PLOT_W		960		/* the columns share about this many pixels */
#define LEFT		190		/* room for "1048576 -> 2097151" */
#define TOP		56
#define LEGEND_N	8		/* colour swatches */
#define LABEL_W		8		/* a digit of 12px monospace, with room to spare (7.2) */

struct ftk_heatmap {
	uint64_t	(*cols)[FTK_HIST_SLOTS];
	unsigned int	ncols;		/* columns holding samples or before one */
	unsigned int	alloc;
	unsigned int	max_cols;
	uint64_t	col_ns;
	uint64_t	t0;		/* the first sample's time */
	uint64_t	total;
	int		started;
};

/**
 * ftk_heatmap_new() - an empty heat map
 * @col_ns: the width of a column in nanoseconds; 0 for 10 ms
 * @max_cols: the most columns kept (0 for 200, at most FTK_HEATMAP_MAX_COLS);
 *	past it, columns double in width
 *
 * Return: the map, to free with ftk_heatmap_free(); NULL with errno
 * ENOMEM, or EINVAL for @max_cols over the limit.
 */
FTK_API struct ftk_heatmap *ftk_heatmap_new(uint64_t col_ns, unsigned int max_cols)
{
	struct ftk_heatmap *hm;

	if (max_cols > FTK_HEATMAP_MAX_COLS)
		return ftk_err_ptr(-EINVAL);
	hm = calloc(1, sizeof(*hm));
	if (!hm)
		return ftk_err_ptr(-ENOMEM);
	hm->col_ns = col_ns ? col_ns : DEFAULT_COL_NS;
	hm->max_cols = max_cols ? max_cols : DEFAULT_COLS;
	return hm;
}

/**
 * ftk_heatmap_free() - free a heat map
 * @hm: the map, or NULL
 */
FTK_API void ftk_heatmap_free(struct ftk_heatmap *hm)
{
	if (!hm)
		return;
	free(hm->cols);
	free(hm);
}

/* Twice as wide columns: column i is the sum of the old 2i and 2i + 1. */
static void halve(struct ftk_heatmap *hm)
{
	unsigned int i, s;

	for (i = 0; i < hm->ncols; i++) {
		for (s = 0; s < FTK_HIST_SLOTS; s++) {
			uint64_t v = hm->cols[i][s];

			if (i % 2)
				hm->cols[i / 2][s] += v;
			else
				hm->cols[i / 2][s] = v;
		}
	}
	hm->ncols = (hm->ncols + 1) / 2;
	memset(hm->cols + hm->ncols, 0, (hm->alloc - hm->ncols) * sizeof(*hm->cols));
	hm->col_ns *= 2;
}

/**
 * ftk_heatmap_add() - a sample
 * @hm: the map
 * @ts_ns: its time (any clock, the same for every sample); one before the
 *	first sample's counts in the first column
 * @value: its latency, in the unit the picture names
 *
 * Return: 0, or -ENOMEM.
 */
FTK_API int ftk_heatmap_add(struct ftk_heatmap *hm, uint64_t ts_ns, uint64_t value)
{
	uint64_t (*n)[FTK_HIST_SLOTS];
	uint64_t col;
	unsigned int alloc;

	if (!hm->started) {
		hm->started = 1;
		hm->t0 = ts_ns;
	}
	for (;;) {
		col = ts_ns > hm->t0 ? (ts_ns - hm->t0) / hm->col_ns : 0;
		if (col < hm->max_cols)
			break;
		halve(hm);
	}
	if (col >= hm->alloc) {
		alloc = hm->alloc ? hm->alloc : 16;
		while (alloc <= col)
			alloc *= 2;
		if (alloc > hm->max_cols)
			alloc = hm->max_cols;
		n = realloc(hm->cols, alloc * sizeof(*n));
		if (!n)
			return ftk_err(-ENOMEM);
		memset(n + hm->alloc, 0, (alloc - hm->alloc) * sizeof(*n));
		hm->cols = n;
		hm->alloc = alloc;
	}
	if (col >= hm->ncols)
		hm->ncols = col + 1;
	hm->cols[col][ftk_hist_slot(value)]++;
	hm->total++;
	return 0;
}

/**
 * ftk_heatmap_total() - samples added
 * @hm: the map
 *
 * Return: their number, the sum of every cell.
 */
FTK_API uint64_t ftk_heatmap_total(const struct ftk_heatmap *hm)
{
	return hm->total;
}

/**
 * ftk_heatmap_col_ns() - the width of a column
 * @hm: the map
 *
 * Return: nanoseconds; it doubles each time the columns are merged.
 */
FTK_API uint64_t ftk_heatmap_col_ns(const struct ftk_heatmap *hm)
{
	return hm->col_ns;
}

/* The range of log2 slot @s, as ftk_hist_print() labels its rows. */
static void slot_range(unsigned int s, uint64_t *lo, uint64_t *hi)
{
	*lo = s <= 1 ? 0 : 1ULL << (s - 1);
	*hi = s <= 1 ? 1 : s == 64 ? UINT64_MAX : (1ULL << s) - 1;
}

/* Light yellow for one sample, through orange, to dark red for the most. */
static void colour(uint64_t count, uint64_t max, char *buf, size_t len)
{
	static const double stops[3][3] = { { 255, 237, 160 }, { 253, 141, 60 }, { 128, 0, 38 } };
	double t = max > 1 ? log((double)count) / log((double)max) : 1, u;
	int i = t < 0.5 ? 0 : 1;

	u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
	snprintf(buf, len, "rgb(%d,%d,%d)", (int)(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * u),
		 (int)(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * u),
		 (int)(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * u));
}

struct layout {
	unsigned int	lo, hi;		/* the rows drawn: slots lo..hi */
	unsigned int	cw;		/* a column's width in pixels */
	unsigned int	step;		/* from one legend swatch to the next */
	unsigned int	width, height;
	uint64_t	max;		/* the largest cell */
};

static void measure(const struct ftk_heatmap *hm, struct layout *ly)
{
	unsigned int c, s;
	uint64_t v;

	ly->lo = FTK_HIST_SLOTS;
	ly->hi = 0;
	ly->max = 0;
	for (c = 0; c < hm->ncols; c++) {
		for (s = 0; s < FTK_HIST_SLOTS; s++) {
			if (!hm->cols[c][s])
				continue;
			if (s < ly->lo)
				ly->lo = s;
			if (s > ly->hi)
				ly->hi = s;
			if (hm->cols[c][s] > ly->max)
				ly->max = hm->cols[c][s];
		}
	}
	if (ly->lo > ly->hi)
		ly->lo = ly->hi = 1;
	ly->cw = hm->ncols ? PLOT_W / hm->ncols : PLOT_W;
	if (ly->cw < 2)
		ly->cw = 2;
	if (ly->cw > 60)
		ly->cw = 60;
	ly->width = LEFT + (hm->ncols ? hm->ncols : 1) * ly->cw + 40;
	if (ly->width < LEFT + 520)
		ly->width = LEFT + 520;
	/*
	 * The legend: a swatch and its count every step, the widest count
	 * (the largest cell's, LABEL_W pixels a digit) clear of the next
	 * swatch, and the picture wide enough for the last label.
	 */
	for (s = 1, v = ly->max; v >= 10; v /= 10)
		s++;
	ly->step = 20 + s * LABEL_W + 16;
	if (ly->step < 56)
		ly->step = 56;
	if (ly->width < LEFT + 140 + (LEGEND_N - 1) * ly->step + s * LABEL_W + 10)
		ly->width = LEFT + 140 + (LEGEND_N - 1) * ly->step + s * LABEL_W + 10;
	ly->height = TOP + (ly->hi - ly->lo + 1) * CELL_H + 110;
}

static void write_cells(const struct ftk_heatmap *hm, FILE *f, const struct layout *ly,
			const char *unit)
{
	uint64_t lo, hi, n;
	unsigned int c, s;
	char fill[32];

	for (c = 0; c < hm->ncols; c++) {
		for (s = ly->lo; s <= ly->hi; s++) {
			n = hm->cols[c][s];
			if (!n)
				continue;
			slot_range(s, &lo, &hi);
			colour(n, ly->max, fill, sizeof(fill));
			fprintf(f, "<rect class=\"cell\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%d\" "
				"fill=\"%s\" data-count=\"%" PRIu64 "\"><title>%.3f - %.3f s, %" PRIu64
				" -&gt; %" PRIu64 " ", LEFT + c * ly->cw, TOP + (ly->hi - s) * CELL_H,
				ly->cw, CELL_H, fill, n, c * hm->col_ns / 1e9,
				(c + 1) * hm->col_ns / 1e9, lo, hi);
			ftk_xml_put(f, unit, strlen(unit));
			fprintf(f, ": %" PRIu64 "</title></rect>\n", n);
		}
	}
}

static void write_axes(const struct ftk_heatmap *hm, FILE *f, const struct layout *ly,
		       const char *unit)
{
	unsigned int s, c, every, bottom = TOP + (ly->hi - ly->lo + 1) * CELL_H;
	uint64_t lo, hi;

	for (s = ly->lo; s <= ly->hi; s++) {
		slot_range(s, &lo, &hi);
		fprintf(f, "<text class=\"r\" x=\"%d\" y=\"%u\">%" PRIu64 " -&gt; %" PRIu64 "</text>\n",
			LEFT - 6, TOP + (ly->hi - s) * CELL_H + CELL_H - 5, lo, hi);
	}
	fprintf(f, "<text class=\"r\" x=\"%d\" y=\"%d\">", LEFT - 6, TOP - 8);
	ftk_xml_put(f, unit, strlen(unit));
	fprintf(f, "</text>\n<rect x=\"%d\" y=\"%d\" width=\"%u\" height=\"%u\" fill=\"none\" "
		"stroke=\"#999\"/>\n", LEFT, TOP, (hm->ncols ? hm->ncols : 1) * ly->cw,
		bottom - TOP);
	/* a time label every 80 pixels or more */
	every = (80 + ly->cw - 1) / ly->cw;
	for (c = 0; c <= hm->ncols; c += every)
		fprintf(f, "<text x=\"%u\" y=\"%u\">%.3g s</text>\n", LEFT + c * ly->cw, bottom + 16,
			c * hm->col_ns / 1e9);
	fprintf(f, "<text x=\"%d\" y=\"%u\">time (columns of %.3g s)</text>\n", LEFT,
		bottom + 34, hm->col_ns / 1e9);
}

/* Swatches from one sample to the largest cell, on the same scale as the cells. */
static void write_legend(FILE *f, const struct layout *ly)
{
	unsigned int i, y = ly->height - 48;
	uint64_t v, prev = 0;
	char fill[32];

	fprintf(f, "<text x=\"%d\" y=\"%u\">count per cell:</text>\n", LEFT, y + 13);
	for (i = 0; i < LEGEND_N; i++) {
		v = (uint64_t)llround(pow((double)(ly->max ? ly->max : 1),
					  (double)i / (LEGEND_N - 1)));
		if (v <= prev && i)
			continue;
		prev = v;
		colour(v, ly->max, fill, sizeof(fill));
		fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"16\" height=\"16\" fill=\"%s\" "
			"stroke=\"#999\"/><text x=\"%u\" y=\"%u\">%" PRIu64 "</text>\n",
			LEFT + 120 + i * ly->step, y, fill, LEFT + 140 + i * ly->step, y + 13, v);
	}
}

/**
 * ftk_heatmap_write_svg() - the map as a self-contained SVG
 * @hm: the map
 * @f: where to write
 * @title: the picture's title (escaped here); NULL for "Latency heat map"
 * @unit: the rows' unit ("usecs"); NULL for "value"
 *
 * Rows are the log2 ranges that hold samples, low at the bottom; columns
 * are time from the first sample. Each cell with samples is a rect with
 * a data-count attribute and a tooltip (its times, range and count), so
 * the cells' counts sum to ftk_heatmap_total(). A legend shows the
 * colour scale (logarithmic in the count).
 *
 * Return: 0, or -EIO if writing failed.
 */
FTK_API int ftk_heatmap_write_svg(const struct ftk_heatmap *hm, FILE *f, const char *title,
				  const char *unit)
{
	struct layout ly;

	title = title ? title : "Latency heat map";
	unit = unit ? unit : "value";
	measure(hm, &ly);
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", ly.width, ly.height, ly.width, ly.height);
	fprintf(f, "<style type=\"text/css\">text{font-family:monospace;font-size:12px;fill:#000}"
		"text.r{text-anchor:end}#title{font-size:17px;text-anchor:middle}"
		"rect.cell:hover{stroke:#000;stroke-width:1}</style>\n");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fff\"/>\n", ly.width,
		ly.height);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"24\">", ly.width / 2);
	ftk_xml_put(f, title, strlen(title));
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%u\">%" PRIu64 " samples</text>\n",
		LEFT, ly.height - 12, hm->total);
	write_axes(hm, f, &ly, unit);
	write_cells(hm, f, &ly, unit);
	write_legend(f, &ly);
	fprintf(f, "</svg>\n");
	return ferror(f) ? ftk_err(-EIO) : 0;
}
