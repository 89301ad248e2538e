#!/bin/bash
# ftprofile -i and --diff as a user drives them (issue 29, items 8, 12):
# each input is read once, so a perf.data or folded stacks through a pipe
# give what the file gives, and a FIFO with no writer is a warning, not a
# hang; output that cannot be written says why (No space left on device,
# not Input/output error) and exits 2, in every format.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t6211-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pd="$fx/perf-fp.data"
printf 'sh;main;spin 30\nsh;main;wait_[k] 5\nperl;[unknown] 2\n' > "$tmp/a.folded"
printf 'sh;main;spin 10\nsh;main;wait_[k] 5\n' > "$tmp/b.folded"

# A pipe cannot be looked into and opened again: the magic was read by a
# first open and the rest by a second one.
ftprofile -i "$pd" > "$tmp/want" 2> "$tmp/err"
timeout 30 ftprofile -i /dev/stdin < <(cat "$pd") > "$tmp/got" 2> "$tmp/err"
same_file "perf.data through a pipe folds as the file does" "$tmp/want" "$tmp/got" "$tmp/err"

ftprofile -i "$tmp/a.folded" --diff "$tmp/b.folded" -f svg > "$tmp/want" 2> "$tmp/err"
timeout 30 ftprofile -i <(cat "$tmp/a.folded") --diff <(cat "$tmp/b.folded") -f svg \
	> "$tmp/got" 2> "$tmp/err"
same_file "-i PIPE --diff PIPE draws what the files do" "$tmp/want" "$tmp/got" "$tmp/err"

mkfifo "$tmp/fifo"
rc=0
timeout 30 ftprofile -i "$tmp/fifo" > "$tmp/got" 2> "$tmp/err" || rc=$?
is "$rc" 0 "-i FIFO with no writer: no hang (timeout would give 124)"
ok "and a warning says the pipe gave nothing" grep -q "gave no data" "$tmp/err"

if [ -w /dev/full ]; then
	for fmt in folded top svg script; do
		rc=0
		ftprofile -i "$pd" -f $fmt > /dev/full 2> "$tmp/err" || rc=$?
		is "$rc" 2 "-f $fmt > /dev/full exits 2"
		ok "-f $fmt > /dev/full: No space left on device, not Input/output error" \
			sh -c "grep -q 'No space left on device' '$tmp/err' && ! grep -q 'Input/output' '$tmp/err'"
	done
else
	skip "no /dev/full"
fi
done_testing
