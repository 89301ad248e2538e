/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* flight: the latency trigger (lib/flight-lat.c), for lib/flight.c only. */
#ifndef FTKIT_FLIGHT_LOCAL_H
#define FTKIT_FLIGHT_LOCAL_H

#include <stddef.h>

#include <ftkit/flight.h>

#include "internal.h"

struct fl_lat;

/* Parse @opts->latency; nothing is set up yet. 0 or -EINVAL with the reason in @err. */
int fl_lat_new(const struct ftk_flight_opts *opts, struct ftk_tracefs *t, struct fl_lat **out,
	       struct ftk_errmsg *err);
void fl_lat_free(struct fl_lat *w);
/* At each arm: the first sets the probes, events and triggers up; later ones forget the past. */
int fl_lat_arm(struct fl_lat *w, struct ftk_errmsg *err);
/* The stream path's check: 1 and the reason in @why when the threshold was passed. */
int fl_lat_poll(struct fl_lat *w, char *why, size_t len, struct ftk_errmsg *err);
/* The kernel path's reason after its traceoff fired, into @why. */
void fl_lat_kernel_reason(struct fl_lat *w, char *why, size_t len);
/* 1 when the threshold is checked in the kernel (a traceoff trigger). */
int fl_lat_in_kernel(const struct fl_lat *w);

#endif
