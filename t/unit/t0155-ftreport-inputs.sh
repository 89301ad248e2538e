#!/bin/bash
# Issue 11.7 and 11.3: inputs that are not regular files, and instance
# names that are not names.
# - a FIFO with no writer: ftreport neither hangs in open(2) nor says
#   "truncated"; it exits 2 saying the pipe gave no data (a timeout of 20 s
#   only turns a hang into a failure; no result depends on timing);
# - a pipe: read in full (spooled), the text equals trace-cmd report's;
# - a directory or a device: refused, naming what it is;
# - --live -B .. and -B ../..: refused by the library's one name check
#   (they opened the top-level buffer and /sys/kernel), on a copied tracefs
#   tree ($FTK_TRACEFS), so no kernel is touched.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0155-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

mkfifo "$tmp/fifo"
timeout 20 ftreport -i "$tmp/fifo" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "a FIFO with no writer: exits 2, no hang"
ok "a FIFO with no writer: says so ($(cat "$tmp/err"))" grep -q "no data" "$tmp/err"

timeout 20 ftreport -i /dev/stdin < "$fx/synth-v6.dat" > "$tmp/redir"
ok "a regular file as stdin: read as before" cmp -s "$tmp/redir" "$fx/synth-v6.report"
cat "$fx/synth-v7-zstd-inst.dat" | timeout 20 ftreport -i /dev/stdin > "$tmp/pipe" 2> "$tmp/err"
rc=$?
is "$rc" 0 "a pipe: exits 0 ($(head -c 200 "$tmp/err"))"
ok "a pipe: read in full, the text equals trace-cmd report's" \
	cmp -s "$tmp/pipe" "$fx/synth-v7-zstd-inst.report"
(cat "$fx/synth-v6.dat" > "$tmp/fifo" &)
timeout 20 ftreport -i "$tmp/fifo" > "$tmp/fifo.out" 2> "$tmp/err"
# The writer may not have opened the FIFO yet when ftreport reads it: then
# it reads no data, and says so; either way it neither hangs nor crashes.
if cmp -s "$tmp/fifo.out" "$fx/synth-v6.report"; then
	ok "a FIFO with a writer: read in full" true
else
	ok "a FIFO whose writer came late: a clear message" grep -q "no data" "$tmp/err"
fi
exec 3<> "$tmp/fifo"	# unblock a writer still waiting, if any
exec 3>&-

ftreport -i "$tmp" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "a directory: exits 2"
ok "a directory: says a regular file is needed" grep -q "not a regular file (a directory)" "$tmp/err"
ftreport -i /dev/zero > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "a character device: exits 2"
ok "a character device: says so" grep -q "character device" "$tmp/err"

# Files of different trace clocks merged: said (issue 29, item 12); of
# one clock, or a guest whose stamps are put on its host's: not.
vmx="$fx/trace-cmd-vm"
ftreport -i "$vmx/clock-counter.dat" -i "$vmx/clock-global.dat" > /dev/null 2> "$tmp/err"
ok "counter and global clocks merged: a warning naming both" \
	grep -q "on the counter clock and .* on the global clock" "$tmp/err"
ftreport -i "$fx/synth-v6.dat" -i "$fx/synth-v6-8k.dat" > /dev/null 2> "$tmp/err"
ok "two local-clock files: no clock warning" sh -c "! grep -q 'clock' '$tmp/err'"
ftreport -i "$fx/synth-v6.dat" -i "$vmx/clock-counter.dat" -i "$fx/synth-v6-tshift.dat" \
	> /dev/null 2> "$tmp/err"
is "$(grep -c 'clock and' "$tmp/err")" 1 "a guest (TIME_SHIFT) is on its host's clock: one warning, for the counter file"

# One file of two damaged (a sub-buffer header overwritten): it is read up
# to its damage, the other in full, as when merged with an intact copy.
cp "$fx/synth-v6.dat" "$tmp/good.dat"
cp "$fx/synth-v6.dat" "$tmp/bad.dat"
cp "$fx/synth-v6.dat" "$tmp/ok.dat"
printf '\377\377\377\377\377\377\377\177\377\377\377\377' |
	dd of="$tmp/bad.dat" bs=1 seek=8192 conv=notrunc 2>/dev/null
(cd "$tmp" && ftreport -i ok.dat -i good.dat > "$tmp/want" 2>/dev/null)
(cd "$tmp" && ftreport -i bad.dat -i good.dat > "$tmp/two" 2> "$tmp/err"); rc=$?
is "$rc" 2 "one damaged file of two: exits 2"
ok "... saying where" grep -q "bad.dat: cpu 0: bad sub-buffer header at offset 8192" "$tmp/err"
grep '^good.dat: ' "$tmp/want" > "$tmp/want-good"
grep '^good.dat: ' "$tmp/two" > "$tmp/two-good"
same_file "the undamaged file's lines are all there" "$tmp/want-good" "$tmp/two-good"
ok "... and the damaged one's up to the damage" \
	test "$(grep -c '^ bad.dat: ' "$tmp/two")" -gt 100

export FTK_TRACEFS="$fx/tracefs-mini"
for name in .. ../.. . "a/b" ""; do
	ftreport --live -B "$name" > "$tmp/out" 2> "$tmp/err"; rc=$?
	# The tools refuse it as a usage error, before the library's own check
	# (ftk_name_check(), tested in t0010) is reached.
	is "$rc" 1 "--live -B '$name': a usage error"
	ok "--live -B '$name': refused as a name ($(head -c 160 "$tmp/err"))" \
		grep -q "bad instance name" "$tmp/err"
	is "$(wc -c < "$tmp/out")" 0 "--live -B '$name': nothing read"
done
done_testing
