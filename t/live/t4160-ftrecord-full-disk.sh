#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A full disk stops the recording at once (issue 11, item 6): with the
# output on a small tmpfs that markers fill, ftrecord ends by itself,
# says which file could not be written and why (No space left on device,
# not trace_pipe_raw), exits 2, and the file it leaves reads back with the
# oldest markers in order.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
I=ftkit-t4160-$$
tmp=$(mktemp -d)
mnt="$tmp/mnt"
mkdir "$mnt"
mount -t tmpfs -o size=6m none "$mnt" 2>/dev/null || skip_all "cannot mount a tmpfs"
writer=
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	[ -n "$rec" ] && kill -9 "$rec" 2>/dev/null
	wait 2>/dev/null
	umount "$mnt"
	rm -rf "$tmp"
	rm_instance "$T/instances/$I"
}
trap cleanup EXIT
mkdir "$T/instances/$I"
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"

ftrecord -B "$I" --no-kallsyms $nocopy -o "$mnt/o.dat" 2> "$tmp/err" &
rec=$!
for i in $(seq 1 100); do
	grep -q 'Ctrl-C to end' "$tmp/err" && break
	sleep 0.1
done
# Numbered 1000-byte markers, one write each, until the recorder is gone.
# On one CPU: the save drops the newest half of each CPU's data, so markers
# spread over CPUs would keep two different windows (a known limit of
# ftk_capture_shrink(), which does not yet cut every CPU at one time stamp).
pin=; command -v taskset >/dev/null && pin="taskset -c 0"
$pin bash -c '
	n=0
	while kill -0 $0 2>/dev/null; do
		printf "ftk4160 %08d %0990d\n" $n 0
		n=$((n + 1))
	done > "$1"
' $rec "$T/instances/$I/trace_marker" 2>/dev/null &
writer=$!
# A guard against a hang, not a measure: ftrecord must end by itself.
for i in $(seq 1 600); do
	kill -0 $rec 2>/dev/null || break
	sleep 0.1
done
if kill -0 $rec 2>/dev/null; then
	ok "ftrecord stops by itself when the disk is full" false
	kill -INT $rec
	wait $rec
	rec=
else
	ok "ftrecord stops by itself when the disk is full" true
	wait $rec; rc=$?
	rec=
	is "$rc" 2 "exit status 2"
fi
kill $writer 2>/dev/null; wait $writer 2>/dev/null; writer=
sed 's/^/# /' "$tmp/err"
ok "the message names the output file and the reason" \
	grep -q "cannot write '$mnt/o.dat': No space left on device" "$tmp/err"
ok "no blame on trace_pipe_raw, no buffer advice" \
	sh -c "! grep -q -e trace_pipe_raw -e 'try -b' '$tmp/err'"
ok "a file is left" test -s "$mnt/o.dat"
ftreport "$mnt/o.dat" > "$tmp/report" 2> "$tmp/rerr"; rc=$?
is "$rc" 0 "ftreport reads it"
got=$(grep -o 'ftk4160 [0-9]*' "$tmp/report" | awk '{print $2 + 0}')
n=$(printf '%s\n' "$got" | grep -c .)
ok "it holds markers ($n)" test "$n" -gt 0
# The oldest are kept: 0, 1, 2 ... with no gap; where the kernel's ring lost
# the first ones before the reader got to them (seen under TCG), the file
# says so and the rest still follow without a gap.
first=$(printf '%s\n' "$got" | head -1)
want=$(seq "$first" $((first + n - 1)))
# KNOWN BUG (open in issue 11): under TCG (the VM lane) the markers kept on a
# full disk come out of order and with gaps that no missed-events count
# reports: the kernel's ring is still written while the full disk stops the
# readers, and what the final drain and the shrink keep is not one window.
# Shown here, asserted on the host only, where it does not happen.
gaps=$(printf '%s\n' "$got" | awk 'NR > 1 && $1 != prev + 1 { g++ } { prev = $1 } END { print g + 0 }')
back=$(printf '%s\n' "$got" | awk 'NR > 1 && $1 < prev { b++ } { prev = $1 } END { print b + 0 }')
diag "markers kept: $n, first $first, gaps $gaps, steps back $back"
if [ -z "${FTK_BOOT_DUMP:-}" ]; then
	ok "the markers kept are in order" test "$back" = 0
	ok "the markers kept follow without a gap" test "$got" = "$want"
else
	skip "KNOWN BUG, issue 11: order and gaps of what a full disk keeps under TCG"
fi
lost=$(ftreport --stat "$mnt/o.dat" 2>/dev/null | awk '$1 == "lost:" { print $2 }')
ok "they start at the first one written, or the file counts lost events (first $first, lost ${lost:-0})" \
	test "$first" = 0 -o "${lost:-0}" -gt 0
done_testing
