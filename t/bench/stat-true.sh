#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftstat against perf stat on `true`: the tools' own start-up and tear-down
# cost, with the default events. Not a test: prints times and the ratio.
#   t/bench/stat-true.sh [RUNS]        (needs root; BUILD=dir of the build tree)
set -u
runs=${1:-200}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
ftstat=$build/tools/ftstat
perf=${PERF:-perf}
[ -x "$ftstat" ] || { echo "no $ftstat: build first (or BUILD=dir)" >&2; exit 2; }
command -v "$perf" >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
# libtool's wrapper script would be timed too: run the real binary.
if [ -x "$build/tools/.libs/ftstat" ]; then
	ftstat=$build/tools/.libs/ftstat
	export LD_LIBRARY_PATH=$build/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# loop CMD...: "wall-ns cpu-ns" of $runs runs of CMD; CPU = user + sys of all it ran
loop() {
	local t0 t1 cpu TIMEFORMAT='%3U %3S'
	t0=$(date +%s%N)
	cpu=$( { time for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1; done; } 2>&1 )
	t1=$(date +%s%N)
	echo "$((t1 - t0)) $(echo "$cpu" | awk '{ printf "%.0f", ($1 + $2) * 1e9 }')"
}

T=$(type -P true)	# /bin/true: the shell's builtin would not exec
loop $T >/dev/null	# warm the page cache
# Interleave rounds of 10 runs of each, so that the machine's changing load is shared.
declare -A wall cpu
names="bare ftstat perf ftstat-e perf-e"
for n in $names; do wall[$n]=0 cpu[$n]=0; done
add() {
	local n=$1 r
	shift
	r=$(runs=10 loop "$@")
	wall[$n]=$((wall[$n] + ${r% *}))
	cpu[$n]=$((cpu[$n] + ${r#* }))
}
for ((r = 0; r < runs; r += 10)); do
	add bare $T
	add ftstat $ftstat $T
	add perf "$perf" stat $T
	add ftstat-e $ftstat -e task-clock $T
	add perf-e "$perf" stat -e task-clock $T
done
runs=$(( (runs + 9) / 10 * 10 ))

us() { awk -v n="$1" -v r="$runs" 'BEGIN { printf "%8.0f us", n / r / 1000 }'; }
echo "runs: $runs each; per run: wall-clock, and CPU (user + sys of the tool and true)"
printf "%-34s %s %s\n" "$T alone:" "$(us ${wall[bare]})" "$(us ${cpu[bare]})"
printf "%-34s %s %s\n" "ftstat true (default events):" "$(us ${wall[ftstat]})" "$(us ${cpu[ftstat]})"
printf "%-34s %s %s\n" "perf stat true (default events):" "$(us ${wall[perf]})" "$(us ${cpu[perf]})"
printf "%-34s %s %s\n" "ftstat -e task-clock true:" "$(us ${wall[ftstat-e]})" "$(us ${cpu[ftstat-e]})"
printf "%-34s %s %s\n" "perf stat -e task-clock true:" "$(us ${wall[perf-e]})" "$(us ${cpu[perf-e]})"
for k in wall cpu; do
	declare -n m=$k
	awk -v k=$k -v f=${m[ftstat]} -v p=${m[perf]} -v b=${m[bare]} -v fe=${m[ftstat-e]} -v pe=${m[perf-e]} 'BEGIN {
		printf "%s: ratio perf/ftstat, default events:  %.1fx (cost over bare true: %.1fx)\n", k, p / f, (p - b) / (f - b)
		printf "%s: ratio perf/ftstat, -e task-clock:   %.1fx (cost over bare true: %.1fx)\n", k, pe / fe, (pe - b) / (fe - b)
	}'
done
