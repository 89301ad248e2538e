# SPDX-License-Identifier: LGPL-2.1-or-later
# Snapshots of tracefs state, to check that a tool put everything back.
#
#   tracefs_snap DIR        the control files a recorder may touch in DIR
#                           (the tracing root or an instance), one per line
#   instances_snap PATTERN  the instances whose name matches the ERE PATTERN
#   rmdir_instance NAME     remove an instance, retrying while it is busy
#   is_exit GOT WANT NAME ERRFILE   an exit status check that shows stderr
#
#   snap_is GOT WANT NAME   compare two snapshots as a TAP test
#
# Only our own instances are listed: other programs may create theirs at
# the same time on a shared machine.

tracefs_snap() {
	local d=$1 f
	for f in tracing_on buffer_percent buffer_size_kb trace_clock current_tracer \
		 set_event set_event_pid set_event_notrace_pid set_ftrace_pid tracing_cpumask \
		 set_ftrace_filter set_ftrace_notrace set_graph_function tracing_thresh \
		 saved_cmdlines_size events/enable; do
		[ -r "$d/$f" ] || continue
		printf '%s: %s\n' "$f" "$(tr '\n' ' ' 2>/dev/null < "$d/$f")"
	done
	for f in "$d"/options/*; do
		[ -r "$f" ] && printf 'options/%s: %s\n' "${f##*/}" "$(cat "$f")"
	done
}

# snap_is GOT WANT NAME: like is, but a failure shows only the lines that differ.
snap_is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		diag "$(diff <(echo "$2") <(echo "$1") | grep '^[<>]')"
	fi
}

# rmdir_instance NAME: remove an instance of ours, waiting out the moments
# another process holds it open (rmdir fails with EBUSY then).
rmdir_instance() {
	local t i
	t=$(tracefs_dir) || return 1
	for i in $(seq 1 50); do
		[ -d "$t/instances/$1" ] || return 0
		rmdir "$t/instances/$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# cannot remove instance $1" >&2
	return 1
}

# is_exit GOT WANT NAME ERRFILE: is, showing the tool's stderr on failure.
is_exit() {
	is "$1" "$2" "$3" || diag "$(cat "$4" 2>/dev/null)"
}

instances_snap() {
	local t
	t=$(tracefs_dir) || return 1
	ls "$t/instances" 2>/dev/null | grep -E "$1" | sort
}
