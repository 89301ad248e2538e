/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * stacks: weighted call stacks, folded ("comm;main;a;b 42"), and what is
 * made of them: folded text (the input of every flame graph tool), a top
 * table of functions by self and total weight (as text, or as data with
 * ftk_stacks_top()), and a self-contained SVG
 * flame graph (search, zoom, tooltips; a differential one against a base
 * profile).
 *
 *	ftk_stacks_new(&st);
 *	ftk_stacks_add(st, "bash;main;spin", 1);	or ftk_stacks_read(st, file)
 *	ftk_stacks_write_svg(st, NULL, stdout, "title");
 *	ftk_stacks_free(st);
 *
 * Frame names may carry perf's annotations: NAME_[k] for the kernel,
 * NAME_[j] for JIT code; "[unknown]" frames are drawn grey.
 */
#ifndef FTKIT_STACKS_H
#define FTKIT_STACKS_H

#include <stdint.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_stacks;

/* One function of ftk_stacks_top(): plain data; the name is the table's. */
struct ftk_stacks_func {
	const char	*name;		/* as folded: NAME_[k] for the kernel, NAME_[j] JIT */
	uint64_t	self;		/* weight of the stacks it is the leaf of */
	uint64_t	total;		/* weight of the stacks it is in, once per stack */
};

enum ftk_stacks_flags {
	/*
	 * The weights are waits (off-CPU): in ftk_stacks_top() a stack's self
	 * goes to its innermost frame outside the kernel's scheduler.
	 */
	FTK_STACKS_WAITS	= 1 << 0,
};

FTK_API int ftk_stacks_new(struct ftk_stacks **out);
FTK_API void ftk_stacks_set_flags(struct ftk_stacks *st, unsigned int flags);
FTK_API void ftk_stacks_free(struct ftk_stacks *st);
FTK_API int ftk_stacks_add(struct ftk_stacks *st, const char *folded, uint64_t weight);
FTK_API int ftk_stacks_read(struct ftk_stacks *st, FILE *f, const char *name, char *err,
			    size_t errlen);
FTK_API void ftk_stacks_clear(struct ftk_stacks *st);
FTK_API uint64_t ftk_stacks_total(const struct ftk_stacks *st);
FTK_API size_t ftk_stacks_nr(const struct ftk_stacks *st);
FTK_API int ftk_stacks_write_folded(const struct ftk_stacks *st, FILE *f);
FTK_API long ftk_stacks_top(const struct ftk_stacks *st, struct ftk_stacks_func **out);
FTK_API int ftk_stacks_write_top(const struct ftk_stacks *st, FILE *f, size_t rows,
				 const char *unit);
FTK_API int ftk_stacks_write_svg(const struct ftk_stacks *st, const struct ftk_stacks *base,
				 FILE *f, const char *title, const char *unit);

#ifdef __cplusplus
}
#endif
#endif
