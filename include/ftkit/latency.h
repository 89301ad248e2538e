/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * latency: what the latency tools (ftsyscount, ftrunqlat, ftfunclat, ...)
 * and fttop share, one header per subject: pairing start and end events
 * by key (pair.h), histograms and percentiles (hist.h), per-key tables
 * (lattab.h), the worst samples (worst.h), syscall names (syscall.h).
 *
 *	struct ftk_pair *p = ftk_pair_new();
 *	struct ftk_hist *h = ftk_hist_new();
 *	on a start event:	ftk_pair_start(p, pid, ts, 0);
 *	on an end event:	if (ftk_pair_end(p, pid, ts, &ns, NULL) == 1)
 *					ftk_hist_add(h, ns / 1000);
 *	at the end:		ftk_hist_print(h, stdout, "usecs");
 */
#ifndef FTKIT_LATENCY_H
#define FTKIT_LATENCY_H

#include <ftkit/common.h>
#include <ftkit/hist.h>
#include <ftkit/lattab.h>
#include <ftkit/pair.h>
#include <ftkit/syscall.h>
#include <ftkit/text.h>	/* ftk_json_str(), once declared here */
#include <ftkit/worst.h>

#endif
