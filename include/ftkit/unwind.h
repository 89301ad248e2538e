/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unwind: whole user stacks from a sample's copy of the user stack and
 * registers (FTK_CALLCHAIN_DWARF), with libunwind's remote API over the
 * objects' .eh_frame, for code built without frame pointers.
 *
 *	ftk_unwind_new(syms, &u);
 *	n = ftk_unwind_user(u, &sample, ips, 128);	ips[0] is the sample's IP
 *	ftk_unwind_free(u);
 *
 * The process's mappings come from the symbols index @syms, which must
 * know the sample's process (its MMAP2 records or /proc/PID/maps).
 */
#ifndef FTKIT_UNWIND_H
#define FTKIT_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include <ftkit/common.h>
#include <ftkit/sample.h>
#include <ftkit/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_unwind;

FTK_API int ftk_unwind_new(struct ftk_symbols *syms, struct ftk_unwind **out);
FTK_API void ftk_unwind_free(struct ftk_unwind *u);
FTK_API int ftk_unwind_user(struct ftk_unwind *u, const struct ftk_sample *smp, uint64_t *ips,
			    size_t max);

#ifdef __cplusplus
}
#endif
#endif
