#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tools that run a COMMAND run it as a shell would: its exit status
# (or 128+N for signal N) is the tool's, a command that is not found gives
# "TOOL: X: command not found" and 127, and the command starts with SIGPIPE
# at its default ("yes | head -1" ends yes by SIGPIPE, not by EPIPE).
# The tools that print leave their own threads out of what they print
# (--trace-self keeps them), while the command's events are all there.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || bail_out "cannot cd to $tmp"
top_before=$(tracefs_snap "$T")

# The same three commands for each tool: TOOL ARGS... [--]
runs_like_a_shell() {
	local tool=$1; shift
	"$@" bash -c 'exit 3' >/dev/null 2>err
	is "$?" 3 "$tool: the command's exit status is the tool's"
	"$@" bash -c 'kill -USR1 $$' >/dev/null 2>err
	is "$?" 138 "$tool: a command killed by SIGUSR1 gives 128+10"
	"$@" bash -c 'yes | head -1 >/dev/null; exit ${PIPESTATUS[0]}' >/dev/null 2>err
	is "$?" 141 "$tool: the command has SIGPIPE at its default (yes ends by it)"
	"$@" ftk-no-such-command-$$ >/dev/null 2>err
	is "$?" 127 "$tool: a command that is not found exits 127"
	is "$(grep -v warning err | head -1)" "$tool: ftk-no-such-command-$$: command not found" \
		"$tool: ... saying so as a shell does"
}
runs_like_a_shell ftevent ftevent -e sched:sched_process_exec --
runs_like_a_shell fttrigger fttrigger -e sched:sched_process_exec -t stacktrace --
runs_like_a_shell ftrecord ftrecord -q -o "$tmp/out.dat"
bash=$(command -v bash)
if has uprobes && ftprobe -n "$bash:readline" >/dev/null 2>&1; then
	runs_like_a_shell ftprobe ftprobe -q -t "$bash:readline" --
else
	for i in 1 2 3 4 5; do skip "ftprobe: no uprobes here: $why"; done
fi

# Its own lines: those whose task column is the tool's PID ("comm-PID [cpu]").
own_lines() {	# FILE PID
	grep -c -- "-$2 *\[[0-9]*\]" "$1"
}
workload='/bin/true; /bin/true; /bin/true; :'

# ftevent: raw_syscalls:sys_enter sees every read and poll of the tool itself.
ftevent -e raw_syscalls:sys_enter -e sched:sched_process_exec -- sh -c "$workload" \
	>ev.out 2>ev.err &
pid=$!
wait $pid
is "$?" 0 "ftevent with raw_syscalls: exits 0"
is "$(own_lines ev.out $pid)" 0 "ftevent: none of the printed lines is ftevent's own"
is "$(grep -c 'sched_process_exec: filename=/bin/true' ev.out)" 3 \
	"ftevent: the command's 3 execs of /bin/true are all there"
ftevent --trace-self -e raw_syscalls:sys_enter -- sh -c "$workload" >self.out 2>&1 &
pid=$!
wait $pid
n=$(own_lines self.out $pid)
ok "ftevent --trace-self: its own lines are there ($n)" test "$n" -gt 0

# fttrigger: the first exec turns on raw_syscalls:sys_enter, then the same.
fttrigger -e sched:sched_process_exec -t 'enable_event:raw_syscalls:sys_enter' \
	-- sh -c "$workload" >tr.out 2>tr.err &
pid=$!
wait $pid
is "$?" 0 "fttrigger with enable_event: exits 0"
n=$(grep -c 'sys_enter' tr.out)
ok "fttrigger: the trigger fired ($n sys_enter lines)" test "$n" -gt 0
is "$(own_lines tr.out $pid)" 0 "fttrigger: none of the printed lines is fttrigger's own"
fttrigger --trace-self -e sched:sched_process_exec -t 'enable_event:raw_syscalls:sys_enter' \
	-- sh -c "$workload" >self.out 2>&1 &
pid=$!
wait $pid
n=$(own_lines self.out $pid)
ok "fttrigger --trace-self: its own lines are there ($n)" test "$n" -gt 0

snap_is "$(tracefs_snap "$T")" "$top_before" "top-level settings unchanged"
done_testing
