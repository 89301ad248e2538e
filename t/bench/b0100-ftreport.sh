#!/bin/bash
# Benchmark (not run by make check): ftreport against trace-cmd report on a
# set of shapes of file, in one run. For each: CPU time (user + sys: the
# machine may be shared, so not wall time) of both, the ratio,
# ftreport's events/s on one core, the peak RSS of both, and whether the
# text is identical (it must be).
#
# Shapes:
#   large    raw_syscalls + sched over a busy shell loop, recorded here at
#            bench time (trace-cmd record; ftrecord where the kernel refuses
#            trace-cmd, as a locked-down one does), v7 zstd
#   large-v6, large-v7none   the same converted by trace-cmd convert
#   mixed    a small file of sched, irq, raw_syscalls and syscalls events
#   markers  61 trace_marker writes (ftrace:print, which prints a %ps)
#   function, function-graph   t/fixtures/trace-cmd-vm (recorded by trace-cmd
#            in the VM lane: the host kernel has no function tracer)
# Nothing recorded is kept: it all lives in a temporary directory.
#
# Usage: t/bench/b0100-ftreport.sh [loops]   (loops of the large workload,
# default 2500, about 1M events). Run it on installed binaries, not
# libtool's wrapper scripts:
#   make install DESTDIR=/tmp/inst
#   LD_LIBRARY_PATH=/tmp/inst/usr/local/lib FTREPORT=/tmp/inst/usr/local/bin/ftreport \
#   FTRECORD=/tmp/inst/usr/local/bin/ftrecord t/bench/b0100-ftreport.sh
# Recording needs root and tracefs (the trace-cmd-vm shapes do not).
set -e
loops=${1:-2500}
here=$(cd "$(dirname "$0")/../.." && pwd)
ftreport=${FTREPORT:-$(pwd)/tools/ftreport}
ftrecord=${FTRECORD:-$(pwd)/tools/ftrecord}
vm=$here/t/fixtures/trace-cmd-vm
tmp=$(mktemp -d /tmp/ftk-bench-XXXXXX)
inst=ftkbench$$
trap 'rm -rf "$tmp"' EXIT
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed"; exit 1; }
head -c 2 "$ftreport" | grep -q '#!' &&
	echo "note: $ftreport is a script (libtool's wrapper?): its start-up is measured too"

tracefs=/sys/kernel/tracing
[ -d $tracefs/events ] || tracefs=/sys/kernel/debug/tracing

# record NAME EVENTS... -- COMMAND: trace-cmd record, or ftrecord where it fails
record() {
	local name=$1
	shift
	local ev=() w
	while [ "$1" != -- ]; do ev+=(-e "$1"); shift; done
	shift
	w="$*"
	if trace-cmd record -q -o "$tmp/$name.dat" "${ev[@]}" -- sh -c "$w" \
		>/dev/null 2>"$tmp/rec.err" && [ -s "$tmp/$name.dat" ]; then
		echo "  $name: recorded by trace-cmd record"
	elif "$ftrecord" -q -F -c -B "$inst" -b 32768 -o "$tmp/$name.dat" "${ev[@]}" -- sh -c "$w" \
		>/dev/null 2>>"$tmp/rec.err"; then
		echo "  $name: recorded by ftrecord (trace-cmd record: $(head -1 "$tmp/rec.err"))"
	else
		echo "  $name: cannot record: $(tail -1 "$tmp/rec.err")"
		rm -f "$tmp/$name.dat"
	fi
}

echo "recording (into $tmp, removed at the end):"
if [ "$(id -u)" = 0 ] && [ -d $tracefs/events ]; then
	record large raw_syscalls sched -- \
		"i=0; while [ \$i -lt $loops ]; do i=\$((i+1)); ls / >/dev/null; done"
	if [ -f "$tmp/large.dat" ]; then
		trace-cmd convert --file-version 6 -i "$tmp/large.dat" -o "$tmp/large-v6.dat" >/dev/null 2>&1 || true
		trace-cmd convert --compression none -i "$tmp/large.dat" -o "$tmp/large-v7none.dat" >/dev/null 2>&1 || true
		trace-cmd convert --compression zstd -i "$tmp/large.dat" -o "$tmp/large-v7zstd.dat" >/dev/null 2>&1 || true
	fi
	record mixed sched irq raw_syscalls 'syscalls:sys_*_read' 'syscalls:sys_*_openat' -- \
		"cat /proc/version >/dev/null; ls / >/dev/null"
	# trace_marker of the instance ftrecord records in (of the top one for trace-cmd)
	record markers sched:sched_process_exec -- \
		"m=$tracefs/instances/$inst/trace_marker; [ -e \$m ] || m=$tracefs/trace_marker; for i in \$(seq 61); do echo ftkit-bench-\$i > \$m; done"
else
	echo "  (not root or no tracefs: only the trace-cmd-vm shapes)"
fi
cp "$vm/function.dat" "$vm/function-graph.dat" "$tmp/" 2>/dev/null || true

# measure OUT CMD...: "cpu_s rss_kb": CPU time (perf's task-clock, user +
# sys, mean of 5 runs; /usr/bin/time's 10 ms ticks, best of 3, without perf)
# and the peak RSS of one more run.
measure() {
	local o=$1 i best= c
	shift
	if perf stat -x, -e task-clock -r 5 -o "$tmp/perf" "$@" > /dev/null 2>&1; then
		best=$(awk -F, '/task-clock/ { printf "%.4f", $1 / 1000 }' "$tmp/perf")
	else
		for i in 1 2 3; do
			/usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2>&1
			read -r u s < "$tmp/time"
			c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
			if [ -z "$best" ] || awk -v a="$c" -v b="$best" 'BEGIN { exit !(a < b) }'; then
				best=$c
			fi
		done
	fi
	/usr/bin/time -f "%M" -o "$tmp/time" "$@" > "$o" 2>/dev/null
	echo "$best $(cat "$tmp/time")"
}

printf '\n%-16s %9s %6s %6s %6s %6s %12s %9s %9s %s\n' shape events format \
	tc_cpu ft_cpu ratio "ft events/s" tc_rss_KB ft_rss_KB text
for shape in large large-v6 large-v7none large-v7zstd mixed markers function function-graph; do
	f="$tmp/$shape.dat"
	[ -s "$f" ] || { printf '%-16s (not available)\n' "$shape"; continue; }
	read -r tc_c tc_kb < <(measure "$tmp/tc.txt" trace-cmd report "$f")
	read -r ft_c ft_kb < <(measure "$tmp/ft.txt" "$ftreport" "$f")
	events=$(( $(wc -l < "$tmp/ft.txt") - 1 ))
	fmt=$("$ftreport" --stat "$f" 2>/dev/null | sed -n 's/^version: *//p' | tr -d ' ()')
	if cmp -s "$tmp/tc.txt" "$tmp/ft.txt"; then same=identical; else same=DIFFERENT; fi
	awk -v s="$shape" -v n="$events" -v fm="$fmt" -v a="$tc_c" -v b="$ft_c" -v ak="$tc_kb" \
	    -v bk="$ft_kb" -v t="$same" 'BEGIN {
		if (b <= 0) b = 0.0001
		printf "%-16s %9d %6s %6.4f %6.4f %5.1fx %12.0f %9d %9d %s\n",
		       s, n, fm, a, b, a / b, n / b, ak, bk, t }'
done
echo
echo "tc_cpu, ft_cpu: CPU seconds (user + sys; perf stat task-clock, mean of 5) of"
echo "trace-cmd report and ftreport;"
echo "ratio: tc_cpu / ft_cpu; events/s: ftreport's lines over its CPU time (one core)."
