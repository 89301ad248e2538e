#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What ftinfo calls usable can be used, and what it calls forbidden fails,
# with the reason it gave. Each feature is tried here by hand, with plain
# shell writes to tracefs, in an instance of our own.
. "$top_srcdir/t/tap.sh"
lane live
need_root
T=$(tracefs_dir) || skip_all "no tracefs"
ftinfo >/dev/null || bail_out "ftinfo fails"

I=$T/instances/ftkit-t2000-$$
mkdir "$I" || bail_out "cannot create instance $I"
cleanup() {
	echo 0 > "$I/tracing_on" 2>/dev/null
	echo > "$I/set_event" 2>/dev/null
	[ -n "${probe_file:-}" ] && echo "-:ftkit_t2000_$$/p" >> "$T/$probe_file" 2>/dev/null
	rm_instance "$I"
}
trap cleanup EXIT

# check CAP NAME CMD...: CMD does what CAP promises. When ftinfo says CAP is
# not usable, CMD must fail, and with the reason ftinfo gave when that
# reason is an errno text.
check() {
	local cap=$1 name=$2 err
	shift 2
	if has "$cap"; then
		ok "$cap usable: $name" "$@"
		return
	fi
	err=$("$@" 2>&1) && { ok "$cap unusable ($why), yet $name worked" false; return; }
	ok "$cap unusable: $name fails" true
	local e
	for e in "Operation not permitted" "Invalid argument" "No such device" \
		 "Permission denied" "No such file or directory"; do
		case "$why" in *"$e"*)
			case "$err" in *"$e"*) ok "$cap: the kernel's reason matches ftinfo's ($e)" true ;;
			*) ok "$cap: reason '$why' but the write said '$err'" false ;;
			esac
			return ;;
		esac
	done
}

try_events() {
	echo sched:sched_switch > "$I/set_event" || return 1
	sleep 0.2
	echo > "$I/set_event"
	grep -q 'sched_switch:' "$I/trace"
}

try_marker() {
	echo "ftkit-t2000-mark-$$" > "$I/trace_marker" || return 1
	grep -q "ftkit-t2000-mark-$$" "$I/trace"
}

try_marker_raw() {
	# A 4-byte id, then the payload; the trace shows "# ID buf: HEX".
	printf '\x01\x00\x00\x00hello' > "$I/trace_marker_raw" || return 1
	grep -q '# 1 buf: 68 65 6c 6c 6f' "$I/trace"
}

try_filter() {
	echo 'prev_pid == 999999999' > "$I/events/sched/sched_switch/filter" || return 1
	echo > "$I/trace"
	echo 1 > "$I/events/sched/sched_switch/enable"
	sleep 0.2
	echo 0 > "$I/events/sched/sched_switch/enable"
	echo 0 > "$I/events/sched/sched_switch/filter"
	! grep -q 'sched_switch:' "$I/trace"
}

try_trigger() {
	local f=$I/events/sched/sched_switch/trigger
	echo 1 > "$I/tracing_on"
	echo 'traceoff:1' > "$f" || return 1
	echo 1 > "$I/events/sched/sched_switch/enable"
	sleep 0.2
	echo 0 > "$I/events/sched/sched_switch/enable"
	echo '!traceoff:1' > "$f"
	[ "$(cat "$I/tracing_on")" = 0 ] || return 1
	echo 1 > "$I/tracing_on"
}

try_hist() {
	local f=$I/events/sched/sched_switch/trigger
	echo 'hist:keys=common_pid' >> "$f" || return 1
	sleep 0.2
	grep -q 'Totals' "$I/events/sched/sched_switch/hist"
	local r=$?
	echo '!hist:keys=common_pid' >> "$f"
	return $r
}

try_tracer() {	# tracer: set it in our instance if offered there, else at the top
	local dir=$I
	grep -qw "$1" "$I/available_tracers" || dir=$T
	[ "$dir" = "$T" ] && [ "$(cat "$T/current_tracer")" != nop ] && return 0
	echo "$1" > "$dir/current_tracer" || return 1
	sleep 0.1
	echo nop > "$dir/current_tracer"
}

try_filter_functions() {
	head -c1 "$T/available_filter_functions" >/dev/null
}

try_probe() {	# kind file definition
	probe_file=$2
	local f=$T/$2
	[ -e "$f" ] || f=$T/dynamic_events
	echo "$3" >> "$f" || return 1
	grep -q "ftkit_t2000_$$/p" "$f"
	local r=$?
	echo "-:ftkit_t2000_$$/p" >> "$f"
	return $r
}

try_snapshot() {
	[ -e "$I/snapshot" ] || { echo "snapshot: No such file or directory" >&2; return 1; }
	echo 1 > "$I/snapshot" || return 1
	echo 0 > "$I/snapshot"
}

try_raw() {
	echo > "$I/trace"
	taskset -c 0 sh -c "echo ftkit-raw > '$I/trace_marker'" 2>/dev/null ||
		echo ftkit-raw > "$I/trace_marker"
	local n=0 c
	for c in "$I"/per_cpu/cpu*; do
		n=$((n + $(timeout 5 dd if="$c/trace_pipe_raw" bs=4096 count=1 iflag=nonblock \
			2>/dev/null | wc -c)))
	done
	[ "$n" -ge 4096 ]
}

check instances "an instance exists" test -d "$I"
check events "sched_switch recorded in an instance" try_events
check trace_marker "a mark reads back from the trace" try_marker
check trace_marker_raw "a raw mark shows in the trace" try_marker_raw
check filters "a filter that matches nothing records nothing" try_filter
check triggers "a traceoff trigger turns tracing off" try_trigger
check hist_triggers "a hist trigger counts" try_hist
check raw_buffers "trace_pipe_raw gives a page" try_raw
check snapshot "take and free a snapshot" try_snapshot
check function "set the function tracer" try_tracer function
check function_graph "set the function_graph tracer" try_tracer function_graph
check filter_functions "read available_filter_functions" try_filter_functions
check kprobes "add and delete a kprobe" try_probe k kprobe_events \
	"p:ftkit_t2000_$$/p vfs_read"
exe=$(command -v bash)
check uprobes "add and delete a uprobe" try_probe u uprobe_events \
	"p:ftkit_t2000_$$/p $exe:0x1000"
check eprobes "add and delete an eprobe" try_probe e dynamic_events \
	"e:ftkit_t2000_$$/p sched.sched_switch"

done_testing
