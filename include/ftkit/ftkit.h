/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libftkit: everything, for programs that do not care to pick headers. */
#ifndef FTKIT_FTKIT_H
#define FTKIT_FTKIT_H

#include <ftkit/version.h>
#include <ftkit/common.h>
#include <ftkit/tracefs.h>
#include <ftkit/caps.h>
#include <ftkit/capture.h>
#include <ftkit/event.h>
#include <ftkit/flight.h>
#include <ftkit/ftrace.h>
#include <ftkit/heatmap.h>
#include <ftkit/instance.h>
#include <ftkit/lattrace.h>
#include <ftkit/latency.h>
#include <ftkit/live.h>
#include <ftkit/marker.h>
#include <ftkit/merge.h>
#include <ftkit/net.h>
#include <ftkit/perf.h>
#include <ftkit/perfstat.h>
#include <ftkit/print.h>
#include <ftkit/probe.h>
#include <ftkit/profile.h>
#include <ftkit/reset.h>
#include <ftkit/sample.h>
#include <ftkit/session.h>
#include <ftkit/snapshot.h>
#include <ftkit/spool.h>
#include <ftkit/stacks.h>
#include <ftkit/stream.h>
#include <ftkit/symbols.h>
#include <ftkit/tally.h>
#include <ftkit/text.h>
#include <ftkit/tracefile.h>
#include <ftkit/tracewrite.h>
#include <ftkit/trigger.h>
#include <ftkit/unwind.h>
#include <ftkit/watchdog.h>

#endif
