#!/bin/bash
# Benchmark (not run by make check): ftreport against trace-cmd report.
#  (a) the same file of N events (default 1,000,000): wall time, peak RSS,
#      and the outputs must be identical; prints the speed ratio.
#  (c) ftreport's peak RSS on a file ten times smaller and on this one.
# Usage: t/bench/b0100-ftreport.sh [events]   (from a build dir, or set
# FTREPORT and MKDAT to the binaries)
set -e
n=${1:-1000000}
here=$(pwd)
ftreport=${FTREPORT:-$here/tools/ftreport}
mkdat=${MKDAT:-$here/t/mkdat}
tmp=$(mktemp -d /tmp/ftk-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$mkdat" -n "$n" -c 2 -m -S 42 -o "$tmp/big.dat"
"$mkdat" -n $((n / 10)) -c 2 -m -S 42 -o "$tmp/small.dat"
trace-cmd convert --compression zstd -i "$tmp/big.dat" -o "$tmp/big-zstd.dat" >/dev/null 2>&1

# The machine is shared: take the best of three runs, and print CPU
# time (user + sys) beside wall time.
measure() {	# out-file cmd... -> "wall_s cpu_s rss_kb" (best wall of 3)
	local o=$1 i best=
	shift
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > "$o" 2>/dev/null
		read -r w u s m < "$tmp/time"
		if [ -z "$best" ] || awk -v a="$w" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$w $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') $m"
		fi
	done
	echo "$best"
}

for f in big.dat big-zstd.dat; do
	read -r tc_s tc_c tc_kb < <(measure "$tmp/tc.txt" trace-cmd report "$tmp/$f")
	read -r ft_s ft_c ft_kb < <(measure "$tmp/ft.txt" "$ftreport" "$tmp/$f")
	lines=$(wc -l < "$tmp/ft.txt")
	if cmp -s "$tmp/tc.txt" "$tmp/ft.txt"; then same=identical; else same=DIFFERENT; fi
	echo "(a) $f: $((lines - 1)) events, output $same"
	echo "    trace-cmd report: wall ${tc_s}s, cpu ${tc_c}s, peak RSS ${tc_kb} KB"
	echo "    ftreport:         wall ${ft_s}s, cpu ${ft_c}s, peak RSS ${ft_kb} KB"
	awk -v a="$tc_s" -v b="$ft_s" -v ac="$tc_c" -v bc="$ft_c" -v n="$lines" 'BEGIN {
		if (b <= 0) b = 0.01; if (bc <= 0) bc = 0.01
		printf "    speed ratio ftreport/trace-cmd: wall %.2fx, cpu %.2fx (%.0f vs %.0f events/s wall)\n",
		       a / b, ac / bc, n / b, n / (a > 0 ? a : 0.01) }'
done
read -r s1 c1 kb1 < <(measure /dev/null "$ftreport" "$tmp/small.dat")
read -r s2 c2 kb2 < <(measure /dev/null "$ftreport" "$tmp/big.dat")
echo "(c) ftreport peak RSS: $((n / 10)) events ${kb1} KB, $n events ${kb2} KB" \
     "(ratio $(awk -v a="$kb2" -v b="$kb1" 'BEGIN { printf "%.2f", a / b }'))"
