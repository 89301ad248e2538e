#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What ftstat and perf stat each add to a command, on several shapes: the
# tools' own start-up, counting and tear-down. Builds ftkit out of tree,
# installs it into a temporary prefix and times the INSTALLED ftstat (never
# libtool's wrapper script, no LD_LIBRARY_PATH) against perf stat in the same
# run, interleaved in rounds so that the machine's changing load is shared.
# Not a test: prints times per run and the ratios perf stat / ftstat, whole
# and above the cost of the bare command.
#   t/bench/stat-true.sh [RUNS]     (root; RUNS per shape, default 100)
#   PREFIX=dir: time the ftstat installed there, do not build
#   PERF=path: the perf to compare with
set -u
runs=${1:-100}
here=$(cd "$(dirname "$0")/../.." && pwd)
perf=${PERF:-perf}
command -v "$perf" >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (system-wide counting, tracepoints)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/ftkit-stat-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=${PREFIX:-}
if [ -z "$prefix" ]; then
	prefix=$tmp/inst
	echo "building into $prefix (make -j2 install; the log is $tmp/build.log) ..." >&2
	if [ ! -x "$here/configure" ]; then
		(cd "$here" && autoreconf -fi) >"$tmp/build.log" 2>&1 ||
			{ cat "$tmp/build.log" >&2; exit 2; }
	fi
	mkdir "$tmp/build"
	(cd "$tmp/build" && "$here/configure" --prefix="$prefix" && make -j2 && make install) \
		>>"$tmp/build.log" 2>&1 || { tail -30 "$tmp/build.log" >&2; exit 2; }
fi
ftstat=$prefix/bin/ftstat
[ -x "$ftstat" ] || { echo "no $ftstat" >&2; exit 2; }
head -c 2 "$ftstat" | grep -q '#!' && { echo "$ftstat is a script, not the binary" >&2; exit 2; }

# loop N CMD...: "wall-ns cpu-ns" of N runs of CMD; CPU = user + sys of all it ran
loop() {
	local n=$1 t0 t1 cpu TIMEFORMAT='%3U %3S'
	shift
	t0=$(date +%s%N)
	cpu=$( { time for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1; done; } 2>&1 )
	t1=$(date +%s%N)
	echo "$((t1 - t0)) $(echo "$cpu" | awk '{ printf "%.0f", ($1 + $2) * 1e9 }')"
}

declare -A wall cpu
# add KEY N CMD...: add N runs of CMD to KEY's sums
add() {
	local k=$1 n=$2 r
	shift 2
	r=$(loop "$n" "$@")
	wall[$k]=$(( ${wall[$k]:-0} + ${r% *} ))
	cpu[$k]=$(( ${cpu[$k]:-0} + ${r#* } ))
}

# shape NAME RUNS "OPTIONS" CMD...: bare CMD, ftstat OPTIONS CMD, perf stat OPTIONS CMD
shape() {
	local name=$1 n=$2 opts=$3 r
	shift 3
	local -a o
	read -ra o <<<"$opts"
	loop 2 "$@" >/dev/null		# warm the page cache
	loop 2 "$ftstat" "${o[@]}" "$@" >/dev/null
	loop 2 "$perf" stat "${o[@]}" "$@" >/dev/null
	for ((r = 0; r < n; r += 10)); do
		add "$name/bare" 10 "$@"
		add "$name/ftstat" 10 "$ftstat" "${o[@]}" "$@"
		add "$name/perf" 10 "$perf" stat "${o[@]}" "$@"
	done
	n=$(( (n + 9) / 10 * 10 ))
	awk -v name="$name" -v n="$n" \
	    -v bw="${wall[$name/bare]}" -v fw="${wall[$name/ftstat]}" -v pw="${wall[$name/perf]}" \
	    -v bc="${cpu[$name/bare]}" -v fc="${cpu[$name/ftstat]}" -v pc="${cpu[$name/perf]}" '
	function ms(x) { return x / n / 1e6 }
	function over(p, f, b) { return f - b > 0 ? sprintf("%5.1fx", (p - b) / (f - b)) : "    -" }
	BEGIN {
		printf "%-22s wall %7.2f %7.2f %7.2f  %5.1fx %s   cpu %6.2f %6.2f %6.2f  %5.1fx %s\n",
			name, ms(bw), ms(fw), ms(pw), pw / fw, over(pw, fw, bw),
			ms(bc), ms(fc), ms(pc), pc / fc, over(pc, fc, bc)
	}'
}

T=$(type -P true)	# /bin/true: the shell's builtin would not exec
echo "ftstat: $ftstat ($(ldd "$ftstat" 2>/dev/null | grep -c '=>') shared libraries)"
echo "perf:   $(command -v "$perf") ($(ldd "$(command -v "$perf")" 2>/dev/null | grep -c '=>') shared libraries)"
echo "ms per run (wall-clock; CPU = user + sys of the tool and the command): bare ftstat perf,"
echo "then perf/ftstat, whole and above the bare command"
printf "%-22s      %7s %7s %7s  %6s %6s   %10s %6s %6s  %6s %6s\n" shape bare ftstat perf ratio over \
	bare ftstat perf ratio over
shape "true -e task-clock" "$runs" "-e task-clock" "$T"
shape "true" "$runs" "" "$T"
shape "ls /usr/bin" "$runs" "-e task-clock,page-faults" ls /usr/bin
shape "true, 6 events" "$runs" \
	"-e task-clock,cs,page-faults,cpu-migrations,sched:sched_switch,syscalls:sys_enter_read" "$T"
short=$(( runs / 4 > 10 ? runs / 4 : 10 ))
shape "-a, 0.1 s" "$short" "-a -e cs,cpu-clock" sleep 0.1
shape "-I 20, 0.1 s" "$short" "-I 20 -e task-clock,cs" sleep 0.1
