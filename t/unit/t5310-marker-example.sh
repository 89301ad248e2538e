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

# Set-group-ID (so AT_SECURE, as set-user-ID): FTK_TRACEFS is not the caller's
# to choose. The example built with the marker compiled in, as libtool's
# LD_LIBRARY_PATH does not reach a set-ID program; run as nobody, whom the
# real tracefs refuses, so that nothing outside $tmp is ever written.
static=$top_builddir/t/helpers/marker-static
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "set-ID check: needs root and setpriv (util-linux)"
	skip "set-ID check: needs root and setpriv (util-linux)"
else
	chmod 755 "$tmp"
	: >"$tmp/trace_marker"
	chmod 666 "$tmp/trace_marker" "$tmp/trace_marker_raw"
	cp "$static" "$tmp/plain"
	cp "$static" "$tmp/setgid"
	chgrp daemon "$tmp/setgid" && chmod 2755 "$tmp/setgid"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env FTK_TRACEFS="$tmp" "$@"; }
	as_nobody "$tmp/plain" >/dev/null 2>&1
	n=$(stat -c %s "$tmp/trace_marker")
	: >"$tmp/trace_marker"
	as_nobody "$tmp/setgid" >/dev/null 2>"$tmp/err"
	ok "a set-group-ID program ignores FTK_TRACEFS (the same program without the bit marks there: $n bytes)" \
		test "$n" -gt 0 -a "$(stat -c %s "$tmp/trace_marker")" = 0
	ok "... and runs on with marking off" grep -q "no tracing" "$tmp/err"
fi

done_testing
