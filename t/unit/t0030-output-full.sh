#!/bin/bash
# Output that cannot be written says why (issue 11, item 6): ftreport into
# /dev/full reports "No space left on device", not "Input/output error",
# with the text printer and with --stat, and exits 2; --output through a
# planted link leaves the link's target alone (item 1).
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0030-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
f="$fx/synth-v7-zstd-inst.dat"

if [ -w /dev/full ]; then
	for mode in text --stat json; do
		args=()
		case $mode in
		--stat) args=(--stat) ;;
		json) args=(-o json) ;;
		esac
		ftreport "${args[@]}" "$f" > /dev/full 2> "$tmp/err"; rc=$?
		is "$rc" 2 "$mode > /dev/full exits 2"
		ok "$mode > /dev/full: No space left on device" \
			grep -q "No space left on device" "$tmp/err"
		ok "$mode > /dev/full: not Input/output error" \
			sh -c "! grep -q 'Input/output error' '$tmp/err'"
	done
	ftreport --output /dev/full "$f" 2> "$tmp/err"; rc=$?
	is "$rc" 2 "--output /dev/full exits 2"
	ok "--output /dev/full names the file and says why" \
		grep -q "'/dev/full': No space left on device" "$tmp/err"
else
	skip "no writable /dev/full"
fi

echo precious > "$tmp/victim"
ln -s "$tmp/victim" "$tmp/out.txt"
ftreport --output "$tmp/out.txt" "$f"; rc=$?
is "$rc" 0 "--output over a link exits 0"
ok "the link's target is untouched" grep -qx precious "$tmp/victim"
ok "out.txt is a regular file now" test -f "$tmp/out.txt" -a ! -L "$tmp/out.txt"
ok "out.txt holds the report" cmp -s "$tmp/out.txt" "$fx/synth-v7-zstd-inst.report"
done_testing
