#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contrib/marker-example, linked with libftkit-marker alone: its marks against a
# fake tracefs, and the same result without any tracefs.
. "$top_srcdir/t/tap.sh"
lane unit

ex=$top_builddir/t/helpers/marker-example
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/trace_marker"
: >"$tmp/trace_marker_raw"

ok "links libftkit-marker and no libftkit" bash -c \
	"ldd '$top_builddir/t/helpers/.libs/marker-example' 2>/dev/null | grep -q libftkit-marker ||
	 ldd '$ex' | grep -q libftkit-marker"
ok "libftkit-marker needs only libc" bash -c \
	"! objdump -p '$top_builddir/lib/.libs/libftkit-marker.so' | grep NEEDED | grep -v libc.so"

out=$(FTK_TRACEFS=$tmp "$ex")
is "$?" 0 "runs with a fake tracefs"
pid=$(sed -n 's/^marker-example starts, pid \([0-9]*\).*/\1/p' "$tmp/trace_marker")
ok "first mark names its pid" test -n "$pid"
want="marker-example starts, pid $pid"
t=0
for i in 1 2 3; do
	want+="B|$pid|step $i"
	t=$((t + $(awk -v n=$i 'BEGIN { s = 0; for (i = 0; i < n * 1000; i++) s += i % 7; print s }')))
	want+="C|$pid|total|$t"
	want+="E|$pid|step $i"
done
want+="alarm: signal 14marker-example done: $t"
is "$(cat "$tmp/trace_marker")" "$want" "the marks, byte for byte"
is "$out" "$t" "prints the total"
is "$(od -An -tu4 -N4 "$tmp/trace_marker_raw" | tr -d ' ')" 7 "raw mark with id 7"
is "$(stat -c %s "$tmp/trace_marker_raw")" 12 "raw mark: 4 bytes of id, 8 of payload"

out2=$(FTK_TRACEFS=/nonexistent "$ex" 2>"$tmp/err")
is "$?" 0 "runs without tracing"
is "$out2" "$t" "... with the same result"
ok "... and says tracing is off" grep -q "no tracing" "$tmp/err"

done_testing
