#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord without a command records until SIGINT or SIGTERM, then writes a
# file trace-cmd reads and leaves tracefs as it found it: its private
# instance gone, the top level untouched. Markers written to the top-level
# trace_marker reach the private instance where the kernel can copy them.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers events

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_tc=1
command -v trace-cmd >/dev/null || have_tc=0

top_before=$(tracefs_snap "$T")

# Wait until ftrecord says it records (its message comes after tracing is on).
wait_recording() {
	local i
	for i in $(seq 1 100); do
		grep -q 'Ctrl-C to end' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ftrecord's private instance: ftkit-rec-PID_NS_START (an owner tag).
has_instance() { compgen -G "$T/instances/ftkit-rec-${1}_*" >/dev/null; }
no_instance() { ! has_instance "$1"; }

for sig in INT TERM; do
	out="$tmp/$sig.dat"
	ftrecord -e sched:sched_switch -e sched:sched_wakeup -o "$out" 2> "$tmp/$sig.err" &
	pid=$!
	ok "SIG$sig: ftrecord starts recording" wait_recording "$tmp/$sig.err"
	ok "SIG$sig: its private instance exists while it records" \
		has_instance $pid
	# Something to record, on the top-level marker and in the scheduler.
	echo "ftk4110 $sig marker" > "$T/trace_marker"
	sleep 0.2
	kill -$sig $pid
	wait $pid
	is_exit "$?" 0 "SIG$sig: ftrecord exits 0" "$tmp/$sig.err"
	ok "SIG$sig: the private instance is removed" no_instance $pid
	snap_is "$(tracefs_snap "$T")" "$top_before" "SIG$sig: top-level settings unchanged"
	if [ $have_tc = 1 ]; then
		n=$(trace-cmd report -i "$out" 2>/dev/null | grep -c 'sched_switch:')
		ok "SIG$sig: trace-cmd report reads sched_switch events ($n)" test "$n" -gt 0
		if [ -e "$T/options/copy_trace_marker" ]; then
			n=$(trace-cmd report -i "$out" 2>/dev/null | grep -c "ftk4110 $sig marker")
			is "$n" 1 "SIG$sig: the top-level marker was copied into the recording"
		else
			skip "SIG$sig: no options/copy_trace_marker in this kernel"
		fi
	else
		skip "trace-cmd is not installed"
		skip "trace-cmd is not installed"
	fi
done

# The same with a command that is still running: the signal goes to it too.
out="$tmp/cmd.dat"
ftrecord -q -e sched:sched_switch -o "$out" sleep 30 2> "$tmp/cmd.err" &
pid=$!
for i in $(seq 1 100); do
	has_instance $pid && pgrep -P $pid -x sleep >/dev/null && break
	sleep 0.1
done
sleep 0.3
start=$SECONDS
kill -TERM $pid
wait $pid
is_exit "$?" 0 "SIGTERM with a command: ftrecord exits 0" "$tmp/cmd.err"
ok "SIGTERM with a command: the command was stopped too" test $((SECONDS - start)) -lt 20
ok "SIGTERM with a command: file written" test -s "$out"
ok "SIGTERM with a command: the private instance is removed" \
	no_instance $pid

# The recorder's own system calls stay out of the trace (set_event_notrace_pid):
# woken on every event, its splice and ppoll calls would otherwise feed back.
# Its threads are read from /proc while it runs (other ftrecords may run too).
# The command writes a marker to the private instance ($FTK_INSTANCE) so that
# an event wakes the reader threads: nothing else may call splice or ppoll (the
# VM), and a top-level marker reaches the instance only with copy_trace_marker
# (not in 6.1), so without it the readers would sleep until the end unrecorded.
self_calls() {	# extra ftrecord options; prints the count of its own calls traced
	local pid i tids=
	ftrecord -q "$@" --buffer-percent 0 -e syscalls:sys_enter_splice \
		-e syscalls:sys_enter_ppoll -o "$tmp/self.dat" \
		sh -c "sleep 1; echo ftk4110 > $T/instances/\$FTK_INSTANCE/trace_marker; sleep 0.3" 2>/dev/null &
	pid=$!
	# The reader threads are there once recording started.
	for i in $(seq 1 100); do
		[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -gt 1 ] && break
		sleep 0.05
	done
	tids=$(ls /proc/$pid/task 2>/dev/null | tr '\n' '|')
	wait $pid
	trace-cmd report -i "$tmp/self.dat" 2>/dev/null |
		grep -Ec -- "-(${tids%|}) +\[[0-9]+\].*sys_enter_(splice|ppoll)"
}
if [ $have_tc = 1 ] && [ -d "$T/events/syscalls/sys_enter_splice" ] && has notrace_pid; then
	is "$(self_calls)" 0 "no splice or ppoll call of the recorder is recorded"
	n=$(self_calls --trace-self)
	ok "with --trace-self they are ($n)" test "$n" -gt 0
else
	skip "needs trace-cmd, syscalls:sys_enter_splice and set_event_notrace_pid"
	skip "needs trace-cmd, syscalls:sys_enter_splice and set_event_notrace_pid"
fi

is "$(tracefs_snap "$T")" "$top_before" "top-level settings unchanged at the end"
done_testing
