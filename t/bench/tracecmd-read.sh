#!/bin/bash
# Benchmark (not run by make check): ftkit's trace.dat reader against
# libtracecmd's (trace-cmd's own library, Debian's libtracecmd-dev), on the
# same files, with the installed programs (make install into a temporary
# DESTDIR). Both do one full merged read of every record and count them per
# event: ftreport -N --stat, and t/helpers/tracecmd-read -m (no plugins
# either side). Prints for each file the best wall and CPU time of three,
# peak RSS and the ratios; then what each reader does with truncated copies
# of a file and with t/fixtures/fuzz-*.dat (exit status, records, message).
#
# Usage, from a configured build directory:
#   t/bench/tracecmd-read.sh [events]     (default 2000000 for the synthetic files)
set -e
n=${1:-2000000}
build=$(pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$build/t/helpers/tracecmd-read" ] || make -s t/helpers/tracecmd-read t/mkdat
[ -x "$build/t/helpers/tracecmd-read" ] || { echo "no libtracecmd: apt-get install libtracecmd-dev" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ftk-bench-tc-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
make -s install DESTDIR="$tmp/inst" > /dev/null 2>&1
prefix=$(sed -n 's/^prefix = //p' Makefile)
export LD_LIBRARY_PATH="$tmp/inst$prefix/lib"
ftreport=$tmp/inst$prefix/bin/ftreport
ftrecord=$tmp/inst$prefix/bin/ftrecord
tcread=$build/t/helpers/tracecmd-read
mkdat=$build/t/mkdat
[ -x "$mkdat" ] || make -s t/mkdat

# The files: synthetic ones of N events (v6; v7 and v7-zstd converted by
# trace-cmd) and, when tracefs is there, a live recording by the installed
# ftrecord (v7 none and zstd).
"$mkdat" -n "$n" -c 4 -m -S 7 -o "$tmp/synth-v6.dat"
trace-cmd convert --file-version 7 --compression none -i "$tmp/synth-v6.dat" -o "$tmp/synth-v7.dat" >/dev/null 2>&1 || true
trace-cmd convert --compression zstd -i "$tmp/synth-v6.dat" -o "$tmp/synth-v7-zstd.dat" >/dev/null 2>&1 || true
if [ -w /sys/kernel/tracing/instances ] || [ -w /sys/kernel/debug/tracing/instances ]; then
	"$ftrecord" -q -b 8192 -e sched -e raw_syscalls -o "$tmp/live-v7.dat" -- \
		sh -c 'for i in $(seq 300); do cat /proc/version > /dev/null; done' 2>/dev/null || true
	"$ftrecord" -q -b 8192 -e sched -e raw_syscalls --compression zstd -o "$tmp/live-zstd.dat" -- \
		sh -c 'for i in $(seq 300); do cat /proc/version > /dev/null; done' 2>/dev/null || true
fi

measure() {	# out-file cmd... -> "wall_s cpu_s rss_kb rc" (best wall of 3)
	local o=$1 i best= rc
	shift
	for i in 1 2 3; do
		rc=0
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > "$o" 2>/dev/null || rc=$?
		read -r w u s m < <(tail -n1 "$tmp/time")
		if [ -z "$best" ] || awk -v a="$w" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$w $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') $m $rc"
		fi
	done
	echo "$best"
}

echo "== full read of every record (best of 3; ratio > 1: ftkit faster or smaller)"
printf '%-18s %10s  %-28s %-28s %s\n' file records "ftreport -N --stat" "libtracecmd (tracecmd-read -m)" ratios
for f in synth-v6 synth-v7 synth-v7-zstd live-v7 live-zstd; do
	[ -s "$tmp/$f.dat" ] || continue
	read -r fs fc fk frc < <(measure "$tmp/ft.txt" "$ftreport" -N --stat "$tmp/$f.dat")
	read -r ts tc tk trc < <(measure "$tmp/tc.txt" "$tcread" -m "$tmp/$f.dat")
	fn=$(sed -n 's/^events: *//p' "$tmp/ft.txt")
	tn=$(sed -n 's/^merged //p' "$tmp/tc.txt" | awk '{ s += $1 } END { print s + 0 }')
	[ "$fn" = "$tn" ] || echo "  $f: RECORD COUNTS DIFFER: ftreport $fn, libtracecmd $tn (exit $frc/$trc)"
	printf '%-18s %10s  %-28s %-28s %s\n' "$f" "$fn" \
		"${fs}s cpu ${fc}s ${fk}KB" "${ts}s cpu ${tc}s ${tk}KB" \
		"$(awk -v a="$fs" -v b="$ts" -v c="$fc" -v d="$tc" -v e="$fk" -v g="$tk" 'BEGIN {
			if (a <= 0) a = 0.01; if (c <= 0) c = 0.01
			printf "wall %.2fx cpu %.2fx rss %.2fx", b / a, d / c, g / e }')"
done

# What each makes of a damaged file: exit status (128+N: killed by signal N),
# records read, and the first line of its message.
damaged() {	# label file
	local out rc n
	rc=0; "$ftreport" -N --stat "$2" > "$tmp/o" 2> "$tmp/e" || rc=$?
	n=$(sed -n 's/^events: *//p' "$tmp/o")
	printf '  %-28s ftreport    exit %-3s records %-8s %s\n' "$1" "$rc" "${n:--}" "$(head -c 90 "$tmp/e" | head -n1)"
	rc=0; { "$tcread" -m "$2" > "$tmp/o" 2> "$tmp/e"; } 2>/dev/null || rc=$?
	n=$(sed -n 's/^merged //p' "$tmp/o" | awk '{ s += $1 } END { if (NR) print s }')
	printf '  %-28s libtracecmd exit %-3s records %-8s %s\n' "" "$rc" "${n:--}" "$(head -c 90 "$tmp/e" | head -n1)"
}

echo "== truncated copies of synth-v7-zstd.dat and synth-v6.dat"
for f in synth-v6 synth-v7-zstd; do
	[ -s "$tmp/$f.dat" ] || continue
	size=$(stat -c %s "$tmp/$f.dat")
	for pct in 1 30 60 99; do
		head -c $((size * pct / 100)) "$tmp/$f.dat" > "$tmp/cut.dat"
		damaged "$f at $pct%" "$tmp/cut.dat"
	done
done
echo "== t/fixtures/fuzz-*.dat"
for f in "$src"/t/fixtures/fuzz-*.dat; do
	damaged "$(basename "$f")" "$f"
done
