#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One box to a collector over loopback (not part of make check; prints
# measurements, no pass/fail): trace_marker writes on every CPU at full
# speed, recorded by
#   ftrecord -N     into ftrecord --listen (TCP data, spliced)
#   trace-cmd -t    trace-cmd record -t -N into trace-cmd listen (TCP data)
#   trace-cmd udp   trace-cmd record -N into trace-cmd listen (UDP data)
# and reports the marks sent, those in the collector's file, the loss, the
# CPU time of the recorder on the box (user+system, its children included)
# and of the collector, and the workload's time. Modes are interleaved
# round by round; losses and CPU are summed over the rounds.
#
# usage: t/bench/net-bench.sh   (root; FTRECORD, FTREPORT: the installed binaries
#        to time (default: the build tree's); N_MARK per CPU (200000), ROUNDS (3),
#        BUFFER_KB per CPU for both recorders (4096))
#
# trace-cmd record runs with -d (it cannot enable ftrace under lockdown) and
# -k (it would die resetting set_ftrace_filter); tracing_on and
# options/function-trace, which it leaves off, are put back.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
FTRECORD=${FTRECORD:-$top_builddir/tools/ftrecord}
FTREPORT=${FTREPORT:-$top_builddir/tools/ftreport}
N_MARK=${N_MARK:-200000}
ROUNDS=${ROUNDS:-3}
BUFFER_KB=${BUFFER_KB:-4096}
[ "$(id -u)" = 0 ] || { echo "net-bench: needs root" >&2; exit 1; }
[ -x "$FTRECORD" ] || { echo "net-bench: no $FTRECORD (build first)" >&2; exit 1; }
command -v trace-cmd > /dev/null || { echo "net-bench: no trace-cmd" >&2; exit 1; }
T=/sys/kernel/tracing
I=ftkit-netbench-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftk-netbench.XXXXXX")
on0=$(cat $T/tracing_on); ft0=$(cat $T/options/function-trace); bk0=$(cat $T/buffer_size_kb)
cpids=
cleanup() {
	for p in $cpids; do kill -INT "$p" 2>/dev/null; done
	wait 2>/dev/null
	echo "$on0" > $T/tracing_on; echo "$ft0" > $T/options/function-trace
	echo "$bk0" > $T/buffer_size_kb
	rmdir $T/instances/$I 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -O2 -o "$tmp/loadgen" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1
CPUS=$(nproc)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# collectors: CPU time read from /proc at the end
mkdir "$tmp/ft" "$tmp/tc"
"$FTRECORD" -q --listen 127.0.0.1:0 -d "$tmp/ft" 2> "$tmp/ft.log" &
ftl=$!
sleep 0.5
ftport=$(ss -ltnp | awk -v p="pid=$ftl," '$0 ~ p { sub(/.*:/, "", $4); print $4; exit }')
tcport=$(port)
trace-cmd listen -p "$tcport" -d "$tmp/tc" > "$tmp/tc.log" 2>&1 &
tcl=$!
cpids="$ftl $tcl"
sleep 0.5
cpu_of() { awk '{ print ($14 + $15 + $16 + $17) / '"$(getconf CLK_TCK)"' }' "/proc/$1/stat"; }

# the workload: N_MARK marks per CPU into FILE; its slowest CPU's seconds
work() {
	local c
	for c in $(seq 0 $((CPUS - 1))); do
		taskset -c "$c" "$tmp/loadgen" marker "$N_MARK" "$1" > "$tmp/m.$c" &
	done
	wait $(jobs -p | grep -v -w -e "$ftl" -e "$tcl") 2>/dev/null
	sort -n "$tmp"/m.* | tail -1 | awk '{ printf "%.3f", $1 / 1e9 }'
}

# wait until the recorder says it records (the workload's first marks count)
started() {	# TEXT
	local i
	for i in $(seq 200); do grep -q "$1" "$tmp/rec.log" && return 0; sleep 0.05; done
	echo "net-bench: the recorder did not start: $(cat "$tmp/rec.log")" >&2
}

# one recording; prints "marks-in-file box-cpu-seconds work-seconds"
run() {	# MODE
	local dir n w rp i
	case $1 in
	ftrecord)
		dir=$tmp/ft
		/usr/bin/time -o "$tmp/time" -f '%U %S' "$FTRECORD" -b "$BUFFER_KB" -B "$I" \
			-N "127.0.0.1:$ftport" > "$tmp/rec.log" 2>&1 &
		rp=$!
		started 'Ctrl-C to end'
		w=$(work "$T/instances/$I/trace_marker")
		kill -INT "$(pgrep -P "$rp")"
		wait "$rp" ;;
	trace-cmd*)
		dir=$tmp/tc
		echo 0 > $T/tracing_on	# trace-cmd switches it on when it records
		/usr/bin/time -o "$tmp/time" -f '%U %S' stdbuf -oL trace-cmd record -d -k -p nop \
			-b "$BUFFER_KB" $([ "$1" = trace-cmd-tcp ] && echo -t) \
			-N "127.0.0.1:$tcport" > "$tmp/rec.log" 2>&1 &
		rp=$!
		started 'Hit Ctrl^C'
		# it says so just before it switches tracing on
		for i in $(seq 100); do [ "$(cat $T/tracing_on)" = 1 ] && break; sleep 0.02; done
		w=$(work "$T/trace_marker")
		kill -INT "$(pgrep -P "$rp")"
		wait "$rp"
		echo "$on0" > $T/tracing_on; echo "$ft0" > $T/options/function-trace ;;
	esac
	# the collector completes its file (trace-cmd listen waits 2 s)
	sleep 3
	n=0
	for f in "$dir"/*.dat; do
		[ -e "$f" ] || continue
		n=$((n + $("$FTREPORT" "$f" 2>/dev/null | grep -c 'tracing_mark_write: xxxxxxxxxxxx')))
		rm -f "$f"
	done
	echo "$n $(awk '{ print $1 + $2 }' "$tmp/time") $w"
}

declare -A got cpu wk
modes="ftrecord trace-cmd-tcp trace-cmd-udp"
for m in $modes; do got[$m]=0; cpu[$m]=0; wk[$m]=999; done
for r in $(seq "$ROUNDS"); do
	for m in $modes; do
		read -r n c w < <(run "$m")
		got[$m]=$((got[$m] + n))
		cpu[$m]=$(awk -v a="${cpu[$m]}" -v b="$c" 'BEGIN { print a + b }')
		wk[$m]=$(awk -v a="${wk[$m]}" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
		echo "round $r $m: $n marks, box CPU $c s, work $w s" >&2
	done
done
sent=$((N_MARK * CPUS * ROUNDS))
echo "collectors' CPU: ftrecord --listen $(cpu_of "$ftl") s, trace-cmd listen $(cpu_of "$tcl") s"
printf '%-14s %10s %10s %8s %10s %8s\n' mode sent received lost% "box CPU s" "work s"
for m in $modes; do
	printf '%-14s %10d %10d %8.3f %10.2f %8s\n' "$m" "$sent" "${got[$m]}" \
		"$(awk -v s="$sent" -v g="${got[$m]}" 'BEGIN { print 100 * (s - g) / s }')" \
		"${cpu[$m]}" "${wk[$m]}"
done
