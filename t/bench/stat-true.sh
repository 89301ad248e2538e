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

# loop CMD...: nanoseconds for $runs runs of CMD
loop() {
	local t0 t1 i
	t0=$(date +%s%N)
	for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1; done
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

T=$(type -P true)	# /bin/true: the shell's builtin would not exec
loop $T >/dev/null	# warm the page cache
# Interleave rounds of 10 runs of each, so that the machine's changing load is shared.
bare=0 f=0 p=0 fe=0 pe=0
for ((r = 0; r < runs; r += 10)); do
	bare=$((bare + $(runs=10 loop $T)))
	f=$((f + $(runs=10 loop $ftstat $T)))
	p=$((p + $(runs=10 loop "$perf" stat $T)))
	fe=$((fe + $(runs=10 loop $ftstat -e task-clock $T)))
	pe=$((pe + $(runs=10 loop "$perf" stat -e task-clock $T)))
done
runs=$(( (runs + 9) / 10 * 10 ))

us() { awk -v n="$1" -v r="$runs" 'BEGIN { printf "%8.0f us", n / r / 1000 }'; }
echo "runs: $runs each"
echo "$T alone:                       $(us "$bare")"
echo "ftstat true (default events):     $(us "$f")"
echo "perf stat true (default events):  $(us "$p")"
echo "ftstat -e task-clock true:        $(us "$fe")"
echo "perf stat -e task-clock true:     $(us "$pe")"
awk -v f="$f" -v p="$p" -v b="$bare" -v fe="$fe" -v pe="$pe" 'BEGIN {
	printf "ratio perf/ftstat, default events:  %.1fx (cost over bare true: %.1fx)\n", p / f, (p - b) / (f - b)
	printf "ratio perf/ftstat, -e task-clock:   %.1fx (cost over bare true: %.1fx)\n", pe / fe, (pe - b) / (fe - b)
}'
