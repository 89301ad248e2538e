#!/bin/bash
# Files written by ftrecord (each version and compression) print the same
# with ftreport as with trace-cmd report; the zlib file, which Debian's
# trace-cmd cannot read, prints the same events as the uncompressed one.
# A recording of every event the kernel offers (-e all, over a workload of
# files, direct I/O, sockets, mmap, fork and exec: plugins' handlers, %p,
# formats libtraceevent cannot parse), recorded fresh by ftrecord and by
# trace-cmd where this kernel lets it, prints the same in text, -N and -R,
# with under 1% of its events left to libtraceevent; the machine formats
# print the same as their slow path (FTK_PRINT_SLOW).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/report-same.sh"
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

# -e all
allrec() {	# name file command...: the -e all recording, or a skip saying why not
	local name=$1 f=$2
	shift 2
	if "$@" > "$tmp/rec.log" 2>&1 && [ -s "$f" ]; then
		return 0
	fi
	skip "$name: cannot record -e all here: $(grep -v '^$' "$tmp/rec.log" | tail -1)"
	return 1
}
work_all="$top_srcdir/t/bench/all-events-workload.sh"
wdir=/var/tmp	# the workload's direct I/O wants a disk, not a tmpfs
[ -d "$wdir" ] && [ -w "$wdir" ] || wdir=$tmp
if allrec "ftrecord" "$tmp/all.dat" ftrecord -q -F -c -B "$inst" -b 32768 -e all \
	-o "$tmp/all.dat" -- "$work_all" "$wdir" 1; then
	report_same "ftrecord -e all" "$tmp/all.dat" "$tmp"
	# every record by the compiled printer alone, none compared with libtraceevent
	FTK_PRINT_NOCHECK=1 report_same "ftrecord -e all, own text alone" "$tmp/all.dat" "$tmp"
	ftreport --stat -v "$tmp/all.dat" > "$tmp/stat" 2>/dev/null
	events=$(awk '/^events:/ { print $2 }' "$tmp/stat")
	slow=$(awk '/^slow path/ { s = 1 } s && $1 == "total" { print $2 }' "$tmp/stat")
	types=$(awk '/^per event:/ { s = 1; next } s && /^$/ { exit } s { n++ } END { print n + 0 }' \
		"$tmp/stat")
	diag "-e all: $events events of $types types, ${slow:-0} printed by libtraceevent"
	ok "ftrecord -e all: over 100 event types recorded ($types)" test "${types:-0}" -gt 100
	ok "ftrecord -e all: under 1% of the events left to libtraceevent (${slow:-0} of $events)" \
		test "$((${slow:-0} * 100))" -lt "${events:-0}"
	for o in json csv chrome; do
		for m in "" -R; do
			FTK_PRINT_SLOW=1 ftreport $m -o $o "$tmp/all.dat" > "$tmp/want" 2>/dev/null
			ftreport $m -o $o "$tmp/all.dat" > "$tmp/got" 2> "$tmp/err"
			same_file "ftrecord -e all, -o $o${m:+ $m}: the compiled text is libtraceevent's" \
				"$tmp/want" "$tmp/got" "$tmp/err"
		done
	done
	rm -f "$tmp/all.dat"
fi
if allrec "trace-cmd record" "$tmp/all-tc.dat" trace-cmd record -q -e all -o "$tmp/all-tc.dat" \
	-- "$work_all" "$wdir" 1; then
	report_same "trace-cmd record -e all" "$tmp/all-tc.dat" "$tmp"
fi
done_testing
