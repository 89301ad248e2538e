#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Under a tiny buffer, with the recorder held up, markers are lost;
# ftrecord reports the loss per CPU ("cpuN: M events lost") with a
# buffer size to try, and what the file holds plus what was lost is
# exactly what was written.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
I=ftkit-t4130-$$
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rmdir_instance "$I"' EXIT
N=20000

burst() {
	local i=0
	while [ $i -lt $N ]; do
		echo "ftk4130 $i"
		i=$((i + 1))
	done > "$T/instances/$I/trace_marker"
}
export -f burst
export T I N

# Only this workload writes the instance's buffer: markers copied from the
# top level by other programs would blur the count.
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"

# Loss on purpose: the recorder is stopped (SIGSTOP) while the markers
# overflow its 8 KiB buffers, then goes on and is ended with SIGINT.
mkdir "$T/instances/$I"
ftrecord -B "$I" -b 8 $nocopy -o "$tmp/lost.dat" 2> "$tmp/err" &
pid=$!
for i in $(seq 1 100); do
	grep -q 'Ctrl-C to end' "$tmp/err" && break
	sleep 0.1
done
kill -STOP $pid
N=3000
burst
kill -CONT $pid
sleep 0.2
kill -INT $pid
wait $pid
is_exit "$?" 0 "ftrecord exits 0" "$tmp/err"
lost=$(sed -n 's/^ftrecord: cpu[0-9]*: \([0-9]*\) events lost$/\1/p' "$tmp/err" |
	awk '{ s += $1 } END { print s + 0 }')
ok "events lost are reported per CPU ($lost)" test "$lost" -gt 0
ok "a buffer size to try is suggested" grep -q 'to lose none try -b [0-9]' "$tmp/err"
if command -v trace-cmd >/dev/null; then
	kept=$(trace-cmd report -i "$tmp/lost.dat" 2>/dev/null | grep -c 'tracing_mark_write: ftk4130 ')
	is "$((kept + lost))" "$N" "markers in the file ($kept) + lost ($lost) = markers written"
	dropped=$(trace-cmd report -i "$tmp/lost.dat" 2>/dev/null |
		sed -n 's/^CPU:[0-9]* \[\([0-9]*\) EVENTS DROPPED\]$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	is "$dropped" "$lost" "the pages carry the same count as missed-events marks"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi
rmdir_instance "$I"

# With a big enough buffer and the default wake-ups nothing is lost.
N=20000
ftrecord -B "$I" -b 4096 $nocopy -o "$tmp/ok.dat" bash -c burst 2> "$tmp/err"
is_exit "$?" 0 "ftrecord exits 0 with a 4 MiB buffer" "$tmp/err"
ok "no loss reported with a 4 MiB buffer" test -z "$(grep 'events lost' "$tmp/err")"
if command -v trace-cmd >/dev/null; then
	kept=$(trace-cmd report -i "$tmp/ok.dat" 2>/dev/null | grep -c 'tracing_mark_write: ftk4130 ')
	is "$kept" "$N" "all $N markers are in the file"
else
	skip "trace-cmd is not installed"
fi
done_testing
