/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * worst: the N largest samples seen, each with a payload copied in.
 */
#ifndef FTKIT_WORST_H
#define FTKIT_WORST_H

#include <stddef.h>
#include <stdint.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_worst;

/* Keep the @nr largest values, each with @size bytes of payload copied in. */
FTK_API struct ftk_worst *ftk_worst_new(unsigned int nr, size_t size);
FTK_API void ftk_worst_free(struct ftk_worst *w);
/* Offer a sample: 1 if kept, 0 if smaller than all @nr kept. */
FTK_API int ftk_worst_add(struct ftk_worst *w, uint64_t value, const void *payload);
/* Samples kept. */
FTK_API unsigned int ftk_worst_len(const struct ftk_worst *w);
/* The @i-th largest (0 is the largest): its payload, and its value in *@value; NULL past the end. */
FTK_API const void *ftk_worst_get(const struct ftk_worst *w, unsigned int i, uint64_t *value);
FTK_API void ftk_worst_reset(struct ftk_worst *w);

#ifdef __cplusplus
}
#endif
#endif
