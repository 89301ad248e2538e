#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord's recording options do what trace-cmd record's letters do,
# checked in what trace-cmd report reads back: -m keeps the newest events,
# -F -c only the command and its children, -C the clock named in the
# file, -e on a uprobe event, -f a filter.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker events
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"

T=$(tracefs_dir)
I=ftkit-t4140-$$
G=ftkit_t4140_$$
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
	rmdir_instance "$I"
	grep -q "^p:$G/" "$T/uprobe_events" 2>/dev/null && echo "-:$G/getpid" >> "$T/uprobe_events"
}
trap cleanup EXIT
export T I
report() { trace-cmd report -i "$1" 2>/dev/null; }

# -m: about the last 64 KiB per CPU are kept, the newest markers included.
N=20000
burst() {
	local i=1
	while [ $i -le $N ]; do echo "ftk4140 m$i"; i=$((i + 1)); done > "$T/instances/$I/trace_marker"
}
export -f burst
export N
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"
# The limit is per CPU: the writer stays on one CPU, or a CPU that saw only
# the first markers would rightly keep them.
pin=
command -v taskset >/dev/null && pin="taskset -c 0"
ftrecord -q -B "$I" $nocopy -m 64 -o "$tmp/m.dat" $pin bash -c burst 2> "$tmp/err"
is_exit "$?" 0 "-m 64: ftrecord exits 0" "$tmp/err"
kept=$(report "$tmp/m.dat" | grep -c 'tracing_mark_write: ftk4140 m')
ok "-m 64: fewer markers kept ($kept of $N)" test "$kept" -gt 0 -a "$kept" -lt $N
ok "-m 64: the newest marker is kept" eval 'report "$tmp/m.dat" | grep -q "ftk4140 m$N\$"'
if [ -n "$pin" ]; then
	ok "-m 64: the oldest is not" eval '! report "$tmp/m.dat" | grep -q "ftk4140 m1\$"'
else
	skip "-m 64: no taskset to keep the writer on one CPU"
fi
size=$(stat -c %s "$tmp/m.dat")
ftrecord -q -B "$I" $nocopy -o "$tmp/nom.dat" bash -c burst
full=$(stat -c %s "$tmp/nom.dat")
ok "-m 64: the file is smaller ($size < $full bytes)" test "$size" -lt "$full"

# -F -c: the exec events of the command and its children, nobody else's.
ftrecord -q -F -c -e sched:sched_process_exec -o "$tmp/f.dat" \
	bash -c 'true; /bin/true; sleep 0.1; ls / >/dev/null' 2> "$tmp/err"
is_exit "$?" 0 "-F -c: ftrecord exits 0" "$tmp/err"
execs=$(report "$tmp/f.dat" | sed -n 's/.*sched_process_exec: *filename=\([^ ]*\) .*/\1/p' |
	xargs -n1 basename 2>/dev/null | sort | tr '\n' ' ')
is "$execs" "bash ls sleep true " "-F -c: exactly the command's execs (bash, true, sleep, ls)"

# -C: the clock is the one stored in the file.
ftrecord -q -C mono -e sched:sched_process_exec -o "$tmp/c.dat" true 2> "$tmp/err"
is_exit "$?" 0 "-C mono: ftrecord exits 0" "$tmp/err"
ok "-C mono: the file's buffer says mono" \
	eval 'trace-cmd dump --summary -i "$tmp/c.dat" 2>/dev/null | grep -q "\"mono\" clock"'

# -f: a filter on the event before it.
ftrecord -q -F -c -e sched:sched_process_exec -f 'filename ~ "*ls"' -o "$tmp/flt.dat" \
	bash -c 'true; /bin/true; ls / >/dev/null'
execs=$(report "$tmp/flt.dat" | grep -c 'sched_process_exec:')
is "$execs" 1 "-f: only the exec the filter lets through"

# No spinning: with nothing to record the readers sleep in poll() for the
# whole second; -s 100000 wakes them every 100 ms.
ftrecord -o "$tmp/idle.dat" sleep 1 2> "$tmp/err"
w=$(sed -n 's/^ftrecord: cpu[0-9]*: .* \([0-9]*\) wake-ups.*/\1/p' "$tmp/err" | awk '{ s += $1 } END { print s + 0 }')
is "$w" 0 "idle for a second: no wake-up at all"
ftrecord -s 100000 -o "$tmp/idle.dat" sleep 1 2> "$tmp/err"
w=$(sed -n 's/^ftrecord: cpu0: .* \([0-9]*\) wake-ups.*/\1/p' "$tmp/err")
ok "-s 100000: cpu0's reader woke about every 100 ms ($w in 1 s)" test "${w:-0}" -ge 5 -a "${w:-0}" -le 25

# -P: only the switches of one task (prev or next is it). The recorded
# command kills it halfway, so it runs while the recording does: a task
# that woke by itself after 1 s was done before a slow start (qemu TCG) had
# the recording going, once.
sleep 30 &
S=$!
ftrecord -q -P $S -e sched:sched_switch -o "$tmp/p.dat" sh -c "sleep 0.5; kill $S; sleep 0.5" \
	2> "$tmp/err"
is_exit "$?" 0 "-P: ftrecord exits 0" "$tmp/err"
all=$(report "$tmp/p.dat" | grep -c 'sched_switch:')
its=$(report "$tmp/p.dat" | grep 'sched_switch:' | grep -Ec "(:$S \[|sleep-$S )")
ok "-P $S: $all switches, all of them of that task" test "$all" -gt 0 -a "$all" = "$its"
wait $S 2>/dev/null

# -T: a kernel stack with each event.
ftrecord -q -T -F -e sched:sched_process_exec -o "$tmp/t.dat" true 2> "$tmp/err"
is_exit "$?" 0 "-T: ftrecord exits 0" "$tmp/err"
ok "-T: the exec comes with a kernel stack" eval 'report "$tmp/t.dat" | grep -q "kernel_stack:"'

# A uprobe event: getpid in libc, hit by the command. libc as bash loads it: /bin/true
# is busybox, linked statically, in the full-kernel VM.
libc=$(ldd "$(command -v bash)" 2>/dev/null | awk '/libc\.so/ { print $3 }')
if ! has uprobes; then
	skip "uprobes: $why"
elif [ -z "$libc" ] || ! command -v readelf >/dev/null || ! command -v nm >/dev/null; then
	skip "uprobes: needs ldd, nm and readelf to find getpid in libc"
else
	addr=$(nm -D "$libc" | awk '$3 ~ /^getpid(@|$)/ { print $1; exit }')
	off=
	a=$((16#$addr))
	# The executable LOAD segment that holds the address maps file offsets.
	while read -r type o v _ s _ flags; do
		[ "$type" = LOAD ] && [[ $flags == *E* ]] || continue
		if [ $a -ge $((v)) ] && [ $a -lt $((v + s)) ]; then
			off=$(printf '0x%x' $((a - v + o)))
		fi
	done < <(readelf -lW "$libc")
	if echo "p:$G/getpid $libc:$off" >> "$T/uprobe_events" 2>/dev/null; then
		ftrecord -q -F -e "$G:getpid" -o "$tmp/u.dat" \
			python3 -c 'import os; [os.getpid() for i in range(5)]' 2>/dev/null ||
			ftrecord -q -F -e "$G:getpid" -o "$tmp/u.dat" bash -c 'echo $BASHPID'
		n=$(report "$tmp/u.dat" | grep -c "getpid:")
		ok "uprobe $G:getpid recorded and read back ($n hits)" test "$n" -gt 0
		echo "-:$G/getpid" >> "$T/uprobe_events"
	else
		skip "uprobes: cannot place a probe at $libc:$off"
	fi
fi
done_testing
