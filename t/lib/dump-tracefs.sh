#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# dump-tracefs.sh [DIR]: print every control file a tool may change, one
# "path: contents" line each, so two dumps can be compared with diff.
#
# It covers the top level and every instance: tracer, tracing_on, clocks,
# buffer sizes, options, pids, set_event, function filters, dynamic events,
# the instance list, and every event's enable, filter and trigger. It leaves
# out what changes by itself (buffers, stats, error_log, saved_cmdlines).
d=${1:-/sys/kernel/tracing}
cd "$d" || exit 2

dump_dir() {	# prefix
	local p=$1 f
	for f in current_tracer tracing_on trace_clock buffer_size_kb buffer_percent \
		 buffer_subbuf_size_kb tracing_cpumask tracing_max_latency tracing_thresh \
		 max_graph_depth set_event set_event_pid set_event_notrace_pid \
		 set_ftrace_pid set_ftrace_notrace_pid set_graph_function set_graph_notrace \
		 set_ftrace_notrace trace_options timestamp_mode; do
		[ -r "$p$f" ] || continue
		printf '%s: %s\n' "$p$f" "$({ tr '\n' '|' < "$p$f"; } 2>/dev/null)"
	done
	# set_ftrace_filter may be huge and unreadable under lockdown: count and hash it.
	if [ -r "${p}set_ftrace_filter" ]; then
		printf '%s: %s\n' "${p}set_ftrace_filter" \
			"$({ md5sum < "${p}set_ftrace_filter"; } 2>/dev/null | cut -c1-32)"
	fi
	[ -d "${p}options" ] && grep -H . "${p}"options/* 2>/dev/null
	# Event files: only those not at their boot value, so the dump stays small.
	grep -H -v '^0$' "${p}"events/enable "${p}"events/*/enable "${p}"events/*/*/enable 2>/dev/null
	grep -H -v '^none$' "${p}"events/*/*/filter 2>/dev/null
	grep -H -v '^#' "${p}"events/*/*/trigger 2>/dev/null
	grep -H . "${p}"per_cpu/cpu*/buffer_size_kb 2>/dev/null
}

dump_dir ""
for f in kprobe_events uprobe_events dynamic_events synthetic_events; do
	[ -r "$f" ] && printf '%s: %s\n' "$f" "$(sort "$f" | tr '\n' '|')"
done
for f in /proc/sys/kernel/ftrace_enabled /proc/sys/kernel/stack_tracer_enabled \
	 /proc/sys/kernel/ftrace_dump_on_oops /proc/sys/kernel/traceoff_on_warning; do
	[ -r "$f" ] && printf '%s: %s\n' "$f" "$(cat "$f")"
done
printf 'instances: %s\n' "$(ls instances 2>/dev/null | tr '\n' ' ')"
for i in instances/*/; do
	[ -d "$i" ] && dump_dir "$i"
done
exit 0
