#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftmark: arguments and stdin lines appear in an instance's trace exactly; --raw
# writes the id and bytes to trace_marker_raw; a missing instance fails cleanly.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need trace_marker
T=$(tracefs_dir)
inst=ftkit-mark-$$
mkdir "$T/instances/$inst" || bail_out "cannot make instance $inst"
trap 'rmdir "$T/instances/$inst"' EXIT
marks() {
	grep -v '^#' "$T/instances/$inst/trace" | sed -n 's/.* tracing_mark_write: //p'
}

ftmark -B $inst "hello   world" 'with $(metachars); and "quotes"'
is "$?" 0 "ftmark exits 0"
is "$(marks)" 'hello   world with $(metachars); and "quotes"' "arguments: one mark, joined by spaces"

echo > "$T/instances/$inst/trace"
printf 'line one\nline two\n\ttabbed\n' | ftmark -B $inst
is "$(marks)" "$(printf 'line one\nline two\n\ttabbed')" "stdin: one mark per line"

echo > "$T/instances/$inst/trace"
ftmark -B $inst --raw 0x2a AB
is "$?" 0 "--raw exits 0"
ok "--raw: the id and bytes are in the trace" \
	grep -Eq '(raw_data|#) 2a buf: 41 42' "$T/instances/$inst/trace"
top_before=$(grep -vc '^#' "$T/trace")

# The marker API of an application (contrib/marker-example) into the instance
echo > "$T/instances/$inst/trace"
total=$("$top_builddir/t/helpers/marker-example" $inst)
is "$?" 0 "marker-example exits 0"
pid=$(marks | sed -n 's/^marker-example starts, pid //p')
want="marker-example starts, pid $pid"
t=0
for i in 1 2 3; do
	t=$((t + $(awk -v n=$i 'BEGIN { s = 0; for (i = 0; i < n * 1000; i++) s += i % 7; print s }')))
	want+=$'\n'"B|$pid|step $i"$'\n'"C|$pid|total|$t"$'\n'"E|$pid|step $i"
done
want+=$'\n'"alarm: signal 14"$'\n'"marker-example done: $total"
is "$(marks)" "$want" "marker API: spans, counters, a mark from a signal handler, in order"
ok "marker API: the raw record with id 7" grep -Eq '(raw_data|#) 7 buf: ' "$T/instances/$inst/trace"

# A recorder that stopped its buffer (a flight recording that ended): the
# kernel refuses marks with EBADF; they are dropped, never an error.
echo > "$T/instances/$inst/trace"
echo 0 > "$T/instances/$inst/tracing_on"
out=$(printf 'one\ntwo\n' | ftmark -B "$inst" 2>&1)
rc=$?
echo 1 > "$T/instances/$inst/tracing_on"
is "$rc:$out" "0:" "marks into a stopped buffer: exit 0, no message"
is "$(marks)" "" "... and nothing recorded"

ftmark -B ftkit-no-such-instance-$$ x 2>/dev/null
rc=$?
is "$rc" 2 "missing instance: exit 2"
ftmark -B ftkit-no-such-instance-$$ x 2>&1 | grep -q "cannot open 'instances/ftkit-no-such-instance-$$/trace_marker'"
ok "... names the file" test $? = 0
ok "... creates no instance" test ! -d "$T/instances/ftkit-no-such-instance-$$"
ftmark --raw nope x 2>/dev/null
is "$?" 1 "bad raw id: exit 1"
is "$(grep -vc '^#' "$T/trace")" "$top_before" "the top-level buffer was not written"

done_testing
