#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fttop's own CPU time under load (not part of make check; prints
# measurements, no pass/fail).
#
# One CPU makes getppid() calls at RATE a second (t/bench/record-loadgen.c
# "rate"; with raw_syscalls on, two events a call: RATE 500000 is about 1M
# events/s where the CPU keeps up), while one reader at a time follows the
# same events of that process (a filter on common_pid: set_event_pid takes
# effect for a running task only when it is next switched in) in its own
# instance:
#   fttop       the installed fttop, -b --json -d 1 (a frame a second)
#   trace_pipe  cat of the instance's trace_pipe (the kernel formats the
#               text) into /dev/null
#   trace-cmd   trace-cmd stream -b 8192 -B INSTANCE, where it runs (not on
#               a locked-down kernel: it cannot enable ftrace there;
#               t/bench/fttop-vm.sh runs this bench in the VM), for three
#               times as long (its start under qemu takes seconds)
# and reports each reader's CPU time (user + system, of the child, from
# getrusage through the shell's `times`), the share of one core, the events
# it saw and the events the kernel lost, and the ratios against fttop.
# fttop is also measured in its steady state: its /proc/PID/stat between
# the first and the last frame, without the start (making the instance,
# reading the enabled events' formats) and the end.
#
# The machine these run on is shared: CPU time is what is reported, and
# the rate the load generator reached is printed beside it (a busy machine
# makes fewer calls than asked).
#
# fttop is the installed one: the build is installed with DESTDIR into a
# prefix under a temporary directory (FTTOP=path skips that).
#
# usage: t/bench/fttop-bench.sh
# (root; RATE calls a second (500000), SECS seconds per reader (10), ROUNDS (1),
# LOADGEN a built t/bench/record-loadgen.c)
# t/bench/fttop-vm.sh runs it in the full-kernel VM, where trace-cmd stream runs.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
RATE=${RATE:-500000}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-1}
[ "$(id -u)" = 0 ] || { echo "fttop-bench: needs root" >&2; exit 1; }
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
I=ftkit-bench-top-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftk-topbench.XXXXXX")
lg=
cleanup() {
	[ -n "$lg" ] && kill "$lg" 2>/dev/null
	rmdir $T/instances/$I 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -n "${LOADGEN:-}" ]; then	# built already (t/bench/fttop-vm.sh: the VM has no compiler)
	cp "$LOADGEN" "$tmp/loadgen" || exit 1
else
	cc -O2 -o "$tmp/loadgen" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1
fi

if [ -z "${FTTOP:-}" ]; then
	make -C "$top_builddir" install DESTDIR="$tmp/inst" > "$tmp/install.log" 2>&1 ||
		{ cat "$tmp/install.log" >&2; echo "fttop-bench: make install failed" >&2; exit 1; }
	FTTOP=$(find "$tmp/inst" -path '*/bin/fttop' | head -1)
	lib=$(dirname "$(find "$tmp/inst" -name 'libftkit.so*' | head -1)")
	export LD_LIBRARY_PATH=$lib
fi
[ -x "$FTTOP" ] || { echo "fttop-bench: no fttop at '$FTTOP'" >&2; exit 1; }
CPUS=$(nproc)
HZ=$(getconf CLK_TCK 2> /dev/null || echo 100)	# USER_HZ: 100 where there is no getconf (the VM)

# the CPU seconds of a command (user + system of the child), its output to $tmp/out
cpu_of() {
	local t
	t=$( ( "$@" > "$tmp/out" 2> "$tmp/err"; times ) | tail -1)
	echo "$t" | awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
			   printf "%.3f\n", s }'
}
# utime + stime of PID in seconds
stat_cpu() {
	awk -v hz="$HZ" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' "/proc/$1/stat" \
		2> /dev/null
}
stat_sum() {	# field of the instance's per-CPU stats, summed
	cat $T/instances/$I/per_cpu/cpu*/stats 2> /dev/null |
		awk -v f="$1" -F': *' '$1 == f { s += $2 } END { print s + 0 }'
}
gone() {	# the bench's instance removed
	local i

	for i in $(seq 1 50); do
		[ -d $T/instances/$I ] || return 0
		rmdir $T/instances/$I 2> /dev/null || sleep 0.1
	done
}
fresh() {
	gone
	mkdir $T/instances/$I || { echo "fttop-bench: cannot make an instance" >&2; exit 1; }
	echo 8192 > $T/instances/$I/buffer_size_kb
}
load_start() {	# the load generator on the last CPU, until load_end
	taskset -c $((CPUS - 1)) "$tmp/loadgen" rate "$RATE" 3600 > "$tmp/lg.out" &
	lg=$!
	sleep 0.5
}
load_end() {	# $1 gets "calls seconds"
	kill -TERM "$lg"
	wait "$lg"
	lg=
	printf -v "$1" '%s' "$(cat "$tmp/lg.out")"
}
per_ev() {	# microseconds of CPU per event
	awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.3f", c * 1e6 / n; else print "n/a" }'
}
pct() { awk -v c="$1" -v s="$2" 'BEGIN { printf "%.2f", 100 * c / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }

frame_events() {	# events since the start at frame $1 of fttop's output
	sed -n "${1}p" "$tmp/top.json" | sed -n 's/.*"events":\([0-9]*\).*/\1/p'
}
run_fttop() {
	local pid c1 c2 n frames=$SECS

	load_start
	"$FTTOP" -b --json -d 1 -n $frames -e raw_syscalls -f "common_pid == $lg" -B "$I" > "$tmp/top.json" \
		2> "$tmp/top.err" &
	pid=$!
	# steady state: from the first frame to the last but one
	c1= c2=
	while kill -0 $pid 2> /dev/null; do
		n=$(wc -l < "$tmp/top.json")
		[ -z "$c1" ] && [ "$n" -ge 1 ] && { c1=$(stat_cpu $pid); n1=$n; t1=$(date +%s.%N); }
		[ -n "$c1" ] && [ "$n" -ge $((frames - 1)) ] && [ -z "$c2" ] &&
			{ c2=$(stat_cpu $pid); n2=$n; t2=$(date +%s.%N); }
		sleep 0.05
	done
	wait $pid
	top_rc=$?
	# the whole run, measured apart with getrusage (the loop above is the shell's)
	top_steady=$(awk -v a="${c1:-0}" -v b="${c2:-0}" 'BEGIN { printf "%.3f", b - a }')
	top_steady_s=$(awk -v a="${t1:-0}" -v b="${t2:-0}" 'BEGIN { printf "%.3f", b - a }')
	load_end top_lg
	top_ev=$(tail -1 "$tmp/top.json" | sed -n 's/.*"events":\([0-9]*\).*/\1/p')
	top_lost=$(tail -1 "$tmp/top.json" | sed -n 's/.*"lost":\([0-9]*\).*/\1/p')
	top_el=$(tail -1 "$tmp/top.json" | sed -n 's/.*"elapsed":\([0-9.]*\).*/\1/p')
	top_steady_ev=$(( $(frame_events "$n2") - $(frame_events "$n1") ))
}

# The whole run's CPU of fttop: the same command under cpu_of.
run_fttop_rusage() {
	load_start
	top_cpu=$(cpu_of "$FTTOP" -b --json -d 1 -n $SECS -e raw_syscalls -f "common_pid == $lg" -B "$I")
	load_end dummy
}

run_pipe() {
	load_start
	fresh
	echo "common_pid == $lg" > $T/instances/$I/events/raw_syscalls/filter
	echo 1 > $T/instances/$I/events/raw_syscalls/enable
	pipe_cpu=$(cpu_of timeout -k 30 -s INT $SECS cat $T/instances/$I/trace_pipe)
	echo 0 > $T/instances/$I/tracing_on
	pipe_ev=$(stat_sum "read events")
	pipe_lost=$(stat_sum overrun)
	load_end pipe_lg
	rmdir $T/instances/$I 2> /dev/null
}

run_tracecmd() {
	tc_cpu= tc_why=
	if ! command -v trace-cmd > /dev/null; then
		tc_why="trace-cmd is not installed"
		return
	fi
	# Three times as long: under qemu TCG trace-cmd takes seconds to start
	# (it reads every event format). Ended with SIGTERM: trace-cmd stream
	# (3.1) kept running 20 s after a SIGINT in the VM. Its events are the
	# lines it printed (block-buffered: the last few KB are lost), its
	# losses the instance's overruns (it leaves the instance behind on
	# SIGTERM: removed below).
	load_start
	gone
	tc_cpu=$(cpu_of timeout -s TERM $((3 * SECS)) trace-cmd stream -b 8192 -B "$I" -e raw_syscalls \
		-f "common_pid == $lg")
	echo 0 > $T/instances/$I/tracing_on 2> /dev/null
	tc_ev=$(grep -c "sys_e" "$tmp/out")
	tc_lost=$(stat_sum overrun)
	load_end tc_lg
	if [ "${tc_ev:-0}" -eq 0 ]; then
		tc_why="trace-cmd stream printed nothing: $(grep -v '^$' "$tmp/err" | head -2 | tr '\n' ' ')"
		tc_cpu=
	fi
	gone
}

echo "fttop-bench: $FTTOP; load: getppid at $RATE calls/s on CPU $((CPUS - 1)) of $CPUS;" \
	"$SECS s per reader; load average $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine:" \
	"CPU time is what counts)"
for r in $(seq 1 "$ROUNDS"); do
	echo "round $r: fttop ..." >&2
	run_fttop
	run_fttop_rusage
	echo "round $r: trace_pipe ..." >&2
	run_pipe
	echo "round $r: trace-cmd stream ..." >&2
	run_tracecmd
	ev_s() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "n/a" }'; }
	echo "round $r:"
	f="  %-11s %7s %7s %10s %9s %9s %8s  %s\n"
	printf "$f" reader "CPU s" "%core" events "events/s" lost "us/event" "load made (calls s)"
	printf "$f" fttop "$top_cpu" "$(pct "$top_cpu" "$SECS")" "${top_ev:-?}" \
		"$(ev_s "${top_ev:-0}" "${top_el:-0}")" "${top_lost:-?}" \
		"$(per_ev "$top_cpu" "${top_ev:-0}")" "$top_lg"
	printf "$f" "  steady" "$top_steady" "$(pct "$top_steady" "$top_steady_s")" "$top_steady_ev" \
		"$(ev_s "$top_steady_ev" "$top_steady_s")" "" "$(per_ev "$top_steady" "$top_steady_ev")" \
		"frames $n1 to $n2, $top_steady_s s"
	printf "$f" trace_pipe "$pipe_cpu" "$(pct "$pipe_cpu" "$SECS")" "$pipe_ev" \
		"$(ev_s "$pipe_ev" "$SECS")" "$pipe_lost" "$(per_ev "$pipe_cpu" "$pipe_ev")" "$pipe_lg"
	if [ -n "$tc_cpu" ]; then
		printf "$f" trace-cmd "$tc_cpu" "$(pct "$tc_cpu" $((3 * SECS)))" "$tc_ev" \
			"$(ev_s "$tc_ev" $((3 * SECS)))" "$tc_lost" "$(per_ev "$tc_cpu" "$tc_ev")" "$tc_lg"
	else
		echo "  trace-cmd   n/a: $tc_why"
	fi
	# CPU for the same events: per event, as the rates the load reached differ
	echo "  CPU per event against fttop's steady state: trace_pipe" \
	     "$(ratio "$(per_ev "$pipe_cpu" "$pipe_ev")" "$(per_ev "$top_steady" "$top_steady_ev")")" \
	     "${tc_cpu:+ trace-cmd $(ratio "$(per_ev "$tc_cpu" "$tc_ev")" "$(per_ev "$top_steady" "$top_steady_ev")")}"
	# trace-cmd ran three times as long: shares of a core, not seconds
	echo "  share of a core against fttop's whole run: trace_pipe $(ratio "$pipe_cpu" "$top_cpu")" \
	     "${tc_cpu:+ trace-cmd $(ratio "$(pct "$tc_cpu" $((3 * SECS)))" "$(pct "$top_cpu" "$SECS")")}"
	[ "$top_rc" = 0 ] || echo "  fttop exited $top_rc: $(head -2 "$tmp/top.err")"
done
