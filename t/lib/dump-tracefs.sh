#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dump-tracefs.sh DIR: every control file of a tracing directory (the top
# level or one instance) as "file: content" lines, for before/after diffs.
# Left out: buffers and what changes on its own (trace, pipes, markers,
# per_cpu, stats, error_log, saved_*, available_*), instances/ (others
# share this machine), dynamic events (other tools' probes), and, per
# event, all but enable, filter and trigger.
dir=${1:?usage: dump-tracefs.sh DIR}
cd "$dir" || exit 2
for f in *; do
	[ -f "$f" ] || continue
	case $f in
	trace|trace_pipe|trace_marker|trace_marker_raw|error_log|README|free_buffer) continue ;;
	saved_*|available_*|printk_formats|enabled_functions|touched_functions) continue ;;
	dyn_ftrace_total_info|dynamic_events|kprobe_events|uprobe_events|*_profile) continue ;;
	snapshot|buffer_total_size_kb) continue ;;
	esac
	# Write-only or forbidden files read as errors: keep the error in the dump.
	printf '%s: %s\n' "$f" "$(cat "$f" 2>&1 | tr '\n' '|')"
done
[ -d options ] && grep -H '' options/* 2>/dev/null
# One grep for ~2000 events: enable (0/1), filter and trigger of each.
# (find rather than grep --include: busybox grep lacks it.)
find events \( -name enable -o -name filter -o -name trigger \) -type f 2>/dev/null |
	xargs grep -H '' 2>/dev/null | grep -v -e ':none$' -e ':0$' -e ':#' | sort
exit 0
