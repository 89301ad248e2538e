#!/bin/bash
# Benchmark (not run by make check): ftreport against trace-cmd report on a
# set of shapes of file, in one run. For each: CPU time (user + sys: the
# machine may be shared, so not wall time; the least of 5 runs, 20 for files
# under 4 MB, whose few milliseconds the machine's noise moves most) of both, the ratio,
# ftreport's events/s on one core, its wall time (start-up is what small
# files measure), the peak RSS of both, and whether the text is identical
# (it must be).
#
# Shapes, recorded by trace-cmd inside the full-kernel test VM (t/vm,
# t/bench/b0100-vm-job.sh says how; the host's kernel may forbid the
# function tracer and kprobes):
#   large    raw_syscalls + sched over a busy shell loop, v7 zstd
#   large-v6, large-v7none   the same converted by trace-cmd convert
#   mixed    a small file of sched, irq, raw_syscalls and syscalls events
#   function, function-graph, kprobe   the function tracer on vfs_*, the
#            graph of ksys_read, a kprobe with fetch args
#   markers  61 trace_marker writes (ftrace:print, which prints a %ps)
#   all-vm   every event the kernel offers (-e all) over
#            t/bench/all-events-workload.sh: files, direct I/O, fork, exec
#            (sockets and mmap where the VM has python3)
#   all-host the same recorded on this host (trace-cmd record, or ftrecord
#            where the kernel refuses it): about 400k events of 370 types,
#            the mix no other shape has (plugins' handlers, %p, formats
#            libtraceevent cannot parse)
# Each shape is measured twice: the text, and the raw fields (-R).
# Without the VM lane (t/vm/vm.sh's vm_need says what it lacks), large,
# mixed and markers are recorded on the host (trace-cmd record; ftrecord
# where the kernel refuses trace-cmd), and function and function-graph
# come from t/fixtures/trace-cmd-vm.
#
# Usage: t/bench/b0100-ftreport.sh [loops]   (loops of the large workload:
# default 12000 in the VM, about 1.3M events; 2500 on the host, about 1M).
# FTK_BENCH_DATA=DIR keeps the recordings in DIR and reuses them in later
# runs (recording in the VM takes a few minutes); without it they live in
# a temporary directory. Run it on installed binaries, not libtool's
# wrapper scripts:
#   make install DESTDIR=/tmp/inst
#   LD_LIBRARY_PATH=/tmp/inst/usr/local/lib FTREPORT=/tmp/inst/usr/local/bin/ftreport \
#   FTRECORD=/tmp/inst/usr/local/bin/ftrecord FTK_BENCH_DATA=/var/tmp/b0100 \
#   t/bench/b0100-ftreport.sh
# Recording on the host needs root and tracefs.
set -e
here=$(cd "$(dirname "$0")/../.." && pwd)
ftreport=${FTREPORT:-$(pwd)/tools/ftreport}
ftrecord=${FTRECORD:-$(pwd)/tools/ftrecord}
vm=$here/t/fixtures/trace-cmd-vm
tmp=$(mktemp -d /tmp/ftk-bench-XXXXXX)
data=${FTK_BENCH_DATA:-$tmp}
inst=ftkbench$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$data"
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
	if trace-cmd record -q -o "$data/$name.dat" "${ev[@]}" -- sh -c "$w" \
		>/dev/null 2>"$tmp/rec.err" && [ -s "$data/$name.dat" ]; then
		echo "  $name: recorded by trace-cmd record"
	elif "$ftrecord" -q -F -c -B "$inst" -b 32768 -o "$data/$name.dat" "${ev[@]}" -- sh -c "$w" \
		>/dev/null 2>>"$tmp/rec.err"; then
		echo "  $name: recorded by ftrecord (trace-cmd record: $(head -1 "$tmp/rec.err"))"
	else
		echo "  $name: cannot record: $(tail -1 "$tmp/rec.err")"
		rm -f "$data/$name.dat"
	fi
}

# convert: the large file as v6 and as uncompressed v7, once
convert() {
	[ -f "$data/large.dat" ] || return 0
	[ -s "$data/large-v6.dat" ] ||
		trace-cmd convert --file-version 6 -i "$data/large.dat" -o "$data/large-v6.dat" >/dev/null 2>&1 || true
	[ -s "$data/large-v7none.dat" ] ||
		trace-cmd convert --compression none -i "$data/large.dat" -o "$data/large-v7none.dat" >/dev/null 2>&1 || true
}

if [ -s "$data/vm/MANIFEST" ]; then
	echo "recordings: $data/vm (made in the VM: $(cat "$data/vm/ENV" 2>/dev/null))"
elif why=$(. "$here/t/vm/vm.sh" && vm_need); then
	echo "recording in the VM (into $data/vm; a few minutes) ..."
	mkdir -p "$data/vm"
	"$here/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-2400}" -l "$data/vm-console.log" \
		-e FTK_BENCH_LOOPS="${1:-12000}" "$here/t/bench/b0100-vm-job.sh" "$data/vm" ||
		echo "  the VM run failed (rc $?; $data/vm-console.log): the shapes it did record are used"
else
	echo "no VM lane ($why): recording on the host"
fi
if [ -s "$data/vm/MANIFEST" ]; then
	sed 's/^/  /' "$data/vm/MANIFEST"
	for f in large mixed function function-graph kprobe markers; do
		if [ -s "$data/vm/$f.dat" ]; then ln -sf "vm/$f.dat" "$data/$f.dat"; fi
	done
	if [ -s "$data/vm/all.dat" ]; then ln -sf vm/all.dat "$data/all-vm.dat"; fi
elif [ ! -s "$data/large.dat" ]; then
	loops=${1:-2500}
	echo "recording (into $data):"
	if [ "$(id -u)" = 0 ] && [ -d $tracefs/events ]; then
		record large raw_syscalls sched -- \
			"i=0; while [ \$i -lt $loops ]; do i=\$((i+1)); ls / >/dev/null; done"
		record mixed sched irq raw_syscalls 'syscalls:sys_*_read' 'syscalls:sys_*_openat' -- \
			"cat /proc/version >/dev/null; ls / >/dev/null"
		# trace_marker of the instance ftrecord records in (of the top one for trace-cmd)
		record markers sched:sched_process_exec -- \
			"m=$tracefs/instances/$inst/trace_marker; [ -e \$m ] || m=$tracefs/trace_marker; for i in \$(seq 61); do echo ftkit-bench-\$i > \$m; done"
	else
		echo "  (not root or no tracefs: only the trace-cmd-vm shapes)"
	fi
	cp "$vm/function.dat" "$vm/function-graph.dat" "$vm/kprobe.dat" "$data/" 2>/dev/null || true
fi
if [ ! -s "$data/all-host.dat" ] && [ "$(id -u)" = 0 ] && [ -d $tracefs/events ]; then
	echo "recording all-host (into $data):"
	record all-host all -- "$here/t/bench/all-events-workload.sh" "$tmp" 1
fi
convert

# measure OUT WALL CMD...: "cpu_s wall_ms rss_kb": CPU time (perf's
# task-clock, user + sys; /usr/bin/time's 10 ms ticks without perf) and, if
# WALL is 1, the wall time, each the least of $runs runs (the run least
# disturbed by whatever else the machine runs), and the peak RSS of one
# more run.
measure() {
	local o=$1 w=$2 i best= wall= c t0 t1
	shift 2
	for i in $(seq "$runs"); do
		if perf stat -x, -e task-clock -o "$tmp/perf" "$@" > /dev/null 2>&1; then
			c=$(awk -F, '/task-clock/ { printf "%.5f", $1 / 1000 }' "$tmp/perf")
		else
			/usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2>&1
			read -r u s < "$tmp/time"
			c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
		fi
		if [ -z "$best" ] || awk -v a="$c" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$c
		fi
		[ "$w" = 1 ] || continue
		t0=$(date +%s%N)
		"$@" > /dev/null 2>&1
		t1=$(date +%s%N)
		if [ -z "$wall" ] || [ $((t1 - t0)) -lt "$wall" ]; then wall=$((t1 - t0)); fi
	done
	/usr/bin/time -f "%M" -o "$tmp/time" "$@" > "$o" 2>/dev/null
	echo "$best $(awk -v w="${wall:-0}" 'BEGIN { printf "%.2f", w / 1e6 }') $(cat "$tmp/time")"
}

printf '\n%-14s %8s %6s %7s %7s %6s %11s %8s %8s %8s %-9s %7s %7s %6s %s\n' shape events \
	format tc_cpu ft_cpu ratio "ft ev/s" ft_wall tc_rss ft_rss text tcR_cpu ftR_cpu R_rat R_text
for shape in large large-v6 large-v7none mixed markers function function-graph kprobe \
	all-vm all-host; do
	f="$data/$shape.dat"
	[ -s "$f" ] || { printf '%-14s (not available)\n' "$shape"; continue; }
	runs=5
	[ "$(stat -c %s "$f")" -lt 4194304 ] && runs=20
	read -r tc_c tc_w tc_kb < <(measure "$tmp/tc.txt" 0 trace-cmd report "$f")
	read -r ft_c ft_w ft_kb < <(measure "$tmp/ft.txt" 1 "$ftreport" "$f")
	events=$(( $(wc -l < "$tmp/ft.txt") - 1 ))
	fmt=$("$ftreport" --stat "$f" 2>/dev/null | sed -n 's/^version: *//p' | tr -d ' ()')
	if cmp -s "$tmp/tc.txt" "$tmp/ft.txt"; then same=identical; else same=DIFFERENT; fi
	# the raw fields: trace-cmd report -R against ftreport -R, in the same run
	read -r tr_c _ _ < <(measure "$tmp/tc.txt" 0 trace-cmd report -R "$f")
	read -r fr_c _ _ < <(measure "$tmp/ft.txt" 0 "$ftreport" -R "$f")
	if cmp -s "$tmp/tc.txt" "$tmp/ft.txt"; then rsame=identical; else rsame=DIFFERENT; fi
	awk -v s="$shape" -v n="$events" -v fm="$fmt" -v a="$tc_c" -v b="$ft_c" -v w="$ft_w" \
	    -v ak="$tc_kb" -v bk="$ft_kb" -v t="$same" -v ra="$tr_c" -v rb="$fr_c" \
	    -v rt="$rsame" 'BEGIN {
		if (b <= 0) b = 0.0001
		if (rb <= 0) rb = 0.0001
		printf "%-14s %8d %6s %7.4f %7.4f %5.1fx %11.0f %6.1fms %8d %8d %-9s %7.4f %7.4f %5.1fx %s\n",
		       s, n, fm, a, b, a / b, n / b, w, ak, bk, t, ra, rb, ra / rb, rt }'
done
echo
echo "tc_cpu, ft_cpu: CPU seconds (user + sys; perf stat task-clock, least of 5; of 20 for files under 4 MB) of"
echo "trace-cmd report and ftreport; ratio: tc_cpu / ft_cpu; ft ev/s: ftreport's"
echo "lines over its CPU time (one core); ft_wall: ftreport's shortest wall time of the same runs;"
echo "tc_rss, ft_rss: peak RSS in KB; tcR_cpu, ftR_cpu, R_rat, R_text: the same for -R (raw fields)."
echo "all-host and all-vm: every event of the kernel (-e all); ftreport --stat -v FILE lists the"
echo "events libtraceevent still prints."
