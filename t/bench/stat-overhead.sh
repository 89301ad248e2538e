#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Counting overhead on a syscall-heavy loop (getppid N times): the loop's
# time alone, under perf stat and under ftstat, with the default events and
# with a tracepoint that fires on every system call. Not a test: prints
# overheads and their ratio (the best of REPS runs each).
#   t/bench/stat-overhead.sh [CALLS] [REPS]   (needs root; BUILD=dir of the build tree)
set -u
calls=${1:-3000000}
reps=${2:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
ftstat=$build/tools/ftstat
work=$build/t/helpers/ftstat-work
perf=${PERF:-perf}
[ -x "$ftstat" ] && [ -x "$work" ] ||
	{ echo "no $ftstat or $work: make && make check TESTS= first (or BUILD=dir)" >&2; exit 2; }
command -v "$perf" >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
if [ -x "$build/tools/.libs/ftstat" ]; then
	ftstat=$build/tools/.libs/ftstat
	export LD_LIBRARY_PATH=$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# time CMD...: one run: "wall-ns cpu-ns", the CPU time being user + system of the
# whole tree (the tool and the loop), which the other jobs on the machine disturb less.
time_ns() {
	local t0 t1 cpu TIMEFORMAT='%3U %3S'
	t0=$(date +%s%N)
	cpu=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	t1=$(date +%s%N)
	echo "$((t1 - t0)) $(echo "$cpu" | awk '{ printf "%.0f", ($1 + $2) * 1e9 }')"
}

# min A "WALL CPU": the smaller of each
min() {
	[ -z "$1" ] && { echo "$2"; return; }
	echo "$1 $2" | awk '{ printf "%s %s\n", ($3 < $1 ? $3 : $1), ($4 < $2 ? $4 : $2) }'
}

ms() { awk -v n="$1" 'BEGIN { printf "%8.1f ms", n / 1e6 }'; }
echo "getppid x $calls, best of $reps runs, the three interleaved (the machine's load varies)"
echo "wall-clock time, and CPU time (user + sys of the tool and the loop)"
for ev in "" "-e raw_syscalls:sys_enter,raw_syscalls:sys_exit"; do
	b= p= f=
	for ((i = 0; i < reps; i++)); do
		b=$(min "$b" "$(time_ns "$work" syscalls "$calls")")
		p=$(min "$p" "$(time_ns "$perf" stat $ev "$work" syscalls "$calls")")
		f=$(min "$f" "$(time_ns $ftstat $ev "$work" syscalls "$calls")")
	done
	echo "events: ${ev:-(default)}"
	for k in 1 2; do
		bk=$(echo $b | cut -d' ' -f$k) pk=$(echo $p | cut -d' ' -f$k) fk=$(echo $f | cut -d' ' -f$k)
		[ $k = 1 ] && what=wall || what=cpu
		printf "  %-4s alone %s, perf stat %s, ftstat %s\n" $what "$(ms "$bk")" "$(ms "$pk")" "$(ms "$fk")"
		awk -v f="$fk" -v p="$pk" -v b="$bk" -v w=$what 'BEGIN {
			fo = f - b; po = p - b
			printf "  %-4s overhead: perf %.1f ms (%.1f%%), ftstat %.1f ms (%.1f%%); ftstat/perf time %.3f\n",
				w, po / 1e6, 100 * po / b, fo / 1e6, 100 * fo / b, f / p
		}'
	done
done
