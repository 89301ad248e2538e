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

# time CMD...: one run, in ns
time_ns() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

min() { [ -z "$1" ] || [ "$2" -lt "$1" ] && echo "$2" || echo "$1"; }

ms() { awk -v n="$1" 'BEGIN { printf "%8.1f ms", n / 1e6 }'; }
echo "getppid x $calls, best of $reps runs, the three interleaved (the machine's load varies)"
for ev in "" "-e raw_syscalls:sys_enter,raw_syscalls:sys_exit"; do
	b= p= f=
	for ((i = 0; i < reps; i++)); do
		b=$(min "$b" "$(time_ns "$work" syscalls "$calls")")
		p=$(min "$p" "$(time_ns "$perf" stat $ev "$work" syscalls "$calls")")
		f=$(min "$f" "$(time_ns $ftstat $ev "$work" syscalls "$calls")")
	done
	echo "events: ${ev:-(default)}"
	echo "  alone:                           $(ms "$b")"
	echo "  perf stat:                       $(ms "$p")"
	echo "  ftstat:                          $(ms "$f")"
	awk -v f="$f" -v p="$p" -v b="$b" 'BEGIN {
		fo = f - b; po = p - b
		printf "  overhead: perf %.1f ms (%.1f%%), ftstat %.1f ms (%.1f%%); ftstat/perf time %.3f\n",
			po / 1e6, 100 * po / b, fo / 1e6, 100 * fo / b, f / p
	}'
done
