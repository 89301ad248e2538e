#!/bin/bash
# Files written by ftrecord (each version and compression) print the same
# with ftreport as with trace-cmd report; the zlib file, which Debian's
# trace-cmd cannot read, prints the same events as the uncompressed one.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events instances raw_buffers
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
command -v trace-cmd > /dev/null || skip_all "trace-cmd is not installed"
tmp=$(mktemp -d /tmp/ftk-t5010-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inst="ftkit-t5010-$$"
work='for i in 1 2 3 4 5; do cat /proc/version > /dev/null; done'

for v in "--file-version 7" "--file-version 6" "--compression zstd" "--compression none" \
	 "--compression zlib"; do
	f="$tmp/r.dat"
	rm -f "$f"
	if ! ftrecord -q -B "$inst" -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_process_exec $v -o "$f" -- sh -c "$work" > "$tmp/rec.log" 2>&1; then
		_tap_result 1 "ftrecord $v"
		sed 's/^/# /' "$tmp/rec.log"
		continue
	fi
	ftreport "$f" > "$tmp/got" 2> "$tmp/err"; rc=$?
	if [ "$v" = "--compression zlib" ]; then
		is "$rc" 0 "ftreport reads ftrecord $v"
		ok "ftrecord $v: events printed" grep -q 'sched_process_exec' "$tmp/got"
		continue
	fi
	trace-cmd report "$f" > "$tmp/want" 2>/dev/null
	if cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" ]; then
		_tap_result 0 "ftrecord $v: ftreport prints what trace-cmd report prints"
	else
		_tap_result 1 "ftrecord $v: ftreport prints what trace-cmd report prints"
		diff "$tmp/want" "$tmp/got" | head -5 | sed 's/^/# /'
	fi
done
done_testing
