/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* capture's internals that lib/flight.c uses to cut the ring to a window. */
#ifndef FTK_CAPTURE_LOCAL_H
#define FTK_CAPTURE_LOCAL_H

#include <stddef.h>
#include <stdint.h>

struct ftk_capture;

int ftk_capture_spool(const struct ftk_capture *c, int cpu, int *fd, uint64_t *len,
		      size_t *page_size);
int ftk_capture_range(struct ftk_capture *c, int cpu, uint64_t from, uint64_t to);

#endif
