#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord under load (not part of make check; prints measurements, no pass/fail).
#
# Workloads: (syscall) one CPU making getppid() calls as fast as it can with
# raw_syscalls enabled; (marker) trace_marker writes on every CPU plus
# sched_switch and sched_wakeup. Each is run
#   untraced    events off (syscall workload only)
#   no reader   events on, nobody reads the buffer
#   ftrecord    ftrecord -B instance (poll + buffer_percent + splice), run
#               twice, and once with -r 10 (SCHED_FIFO readers)
#   poll 1ms    a reader that read(2)s trace_pipe_raw every millisecond,
#               the way a fixed-interval recorder does (trace-cmd record
#               sleeps 1 ms between reads by default; it cannot run on this
#               locked-down host, so this stands in for it here)
# and reports events lost, the slowdown of the workload against no reader,
# bytes stored per event against the event data in the ring buffer, and
# the recorder's CPU time per MB stored.
#
# usage: t/bench/record-bench.sh [syscall|marker]...
# (root; N_SYS and N_MARK scale the work, FTRECORD_OPTS adds ftrecord options)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
FTRECORD=${FTRECORD:-$top_builddir/tools/ftrecord}
N_SYS=${N_SYS:-1000000}
N_MARK=${N_MARK:-200000}
[ "$(id -u)" = 0 ] || { echo "record-bench: needs root" >&2; exit 1; }
[ -x "$FTRECORD" ] || { echo "record-bench: no $FTRECORD (build first)" >&2; exit 1; }
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
I=ftkit-bench-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftk-bench.XXXXXX")
trap 'rmdir $T/instances/$I 2>/dev/null; rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/loadgen" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1
CPUS=$(nproc)

fresh() {	# a new instance: zeroed stats
	local i
	for i in $(seq 1 50); do
		[ -d $T/instances/$I ] || break
		rmdir $T/instances/$I 2>/dev/null || sleep 0.1
	done
	mkdir $T/instances/$I || { echo "record-bench: cannot make a fresh instance" >&2; exit 1; }
}
stat_sum() {	# field: summed over the CPUs of the instance
	cat $T/instances/$I/per_cpu/cpu*/stats | awk -v f="$1" -F': *' '$1 == f { s += $2 } END { print s + 0 }'
}
events_on() {
	local e
	for e in $EVENTS; do echo 1 > "$T/instances/$I/events/${e/://}/enable"; done
}

# The workload: prints its elapsed nanoseconds (the slowest CPU for markers).
# Only the workload's own events are traced (set_event_pid and its children).
cat > "$tmp/work" <<EOW
#!/bin/bash
echo 1 > $T/instances/$I/options/event-fork
echo \$\$ > $T/instances/$I/set_event_pid
case "\$1" in
syscall) taskset -c $((CPUS - 1)) "$tmp/loadgen" syscall $N_SYS ;;
marker)
	for c in \$(seq 0 $((CPUS - 1))); do
		taskset -c \$c "$tmp/loadgen" marker $N_MARK $T/instances/$I/trace_marker > "$tmp/m.\$c" &
	done
	wait
	sort -n "$tmp"/m.* | tail -1 ;;
esac
EOW
chmod +x "$tmp/work"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4g", a / b; else print "n/a" }'; }

# ftrecord LABEL [OPTIONS]: one recording of the workload $w; sets R_* for the ratios.
run_ftrecord() {
	local label=$1 rd lost stored cpu capcpu t2 mb
	shift
	fresh
	"$FTRECORD" -B $I -O nocopy_trace_marker ${FTRECORD_OPTS:-} "$@" \
		$(for e in $EVENTS; do echo "-e $e"; done) -o "$tmp/rec.dat" "$tmp/work" $w \
		> "$tmp/rec.out" 2> "$tmp/rec.err"
	t2=$(cat "$tmp/rec.out")
	rd=$(stat_sum "read events")
	lost=$(sed -n 's/^ftrecord: cpu[0-9]*: \([0-9]*\) events lost$/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s + 0 }')
	stored=$(sed -n 's/^ftrecord: cpu[0-9]*: \([0-9]*\) pages.*/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s * 4096 }')
	cpu=$(sed -n 's/.* \([0-9.]*\) s CPU in all$/\1/p' "$tmp/rec.err")
	capcpu=$(sed -n 's/^ftrecord: cpu[0-9]*: .* \([0-9.]*\) s CPU$/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s + 0 }')
	mb=$(awk -v s=$stored 'BEGIN { print s / 1e6 }')
	printf '%-10s %8.3f s   lost %d of %d (%s)  %s bytes/event stored  %s CPU s/MB  (slowdown x%s vs no reader)\n' \
		"$label" "$(awk -v t=$t2 'BEGIN { print t / 1e9 }')" "$lost" $((rd + lost)) \
		"$(ratio $lost $((rd + lost)))" "$(ratio $stored $rd)" "$(ratio $cpu $mb)" "$(ratio $t2 $t1)"
	printf '%-10s capture threads %s CPU s/MB; writing the file included %s CPU s/MB; %s MB stored, peak RSS %s KiB\n' "" \
		"$(ratio $capcpu $mb)" "$(ratio $cpu $mb)" "$mb" \
		"$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$tmp/rec.err")"
	R_CAPCPU=$(ratio $capcpu $mb) R_CPU=$(ratio $cpu $mb) R_BPE=$(ratio $stored $rd) R_T=$t2
}

bench() {
	w=$1
	local t0=0 t3 ev_bytes rd lost stored cpu
	case $w in
	syscall) EVENTS="raw_syscalls:sys_enter raw_syscalls:sys_exit" ;;
	marker) EVENTS="sched:sched_switch sched:sched_wakeup" ;;
	esac
	echo "== $w workload ($EVENTS$([ $w = marker ] && echo " + trace_marker on $CPUS CPUs"))"

	if [ $w = syscall ]; then
		fresh
		t0=$("$tmp/work" $w)
		printf '%-10s %8.3f s\n' untraced "$(awk -v t=$t0 'BEGIN { print t / 1e9 }')"
	fi

	fresh; events_on
	t1=$("$tmp/work" $w)
	ev_bytes=$(ratio "$(stat_sum bytes)" "$(stat_sum entries)")
	printf '%-10s %8.3f s   event data %s bytes/event in the ring buffer\n' "no reader" \
		"$(awk -v t=$t1 'BEGIN { print t / 1e9 }')" "$ev_bytes"

	run_ftrecord ftrecord
	run_ftrecord "ftrecord -r" -r 10
	R_T_RT=$R_T
	run_ftrecord ftrecord

	fresh; events_on
	"$tmp/loadgen" poll $T/instances/$I "$tmp/poll" 1 > "$tmp/poll.out" &
	local pp=$!
	sleep 0.2
	t3=$("$tmp/work" $w)
	echo 0 > $T/instances/$I/tracing_on
	kill -INT $pp; wait $pp
	read -r stored cpu < "$tmp/poll.out"
	rd=$(stat_sum "read events")
	lost=$(( $(stat_sum overrun) + $(stat_sum "dropped events") ))
	printf '%-10s %8.3f s   lost %d of %d (%s)  %s bytes/event stored  %s CPU s/MB  (slowdown x%s vs no reader)\n' \
		"poll 1ms" "$(awk -v t=$t3 'BEGIN { print t / 1e9 }')" "$lost" $((rd + lost)) \
		"$(ratio $lost $((rd + lost)))" "$(ratio $stored $rd)" \
		"$(ratio $cpu "$(awk -v s=$stored 'BEGIN { print s / 1e6 }')")" "$(ratio $t3 $t1)"
	echo "ratios: ftrecord/no-reader time $(ratio $R_T $t1), ftrecord -r/no-reader time $(ratio $R_T_RT $t1), poll/no-reader time $(ratio $t3 $t1)," \
	     "ftrecord bytes/event / event data $(ratio $R_BPE $ev_bytes)," \
	     "poll bytes/event / event data $(ratio "$(ratio $stored $rd)" $ev_bytes)," \
	     "ftrecord capture CPU/MB / poll CPU/MB $(ratio $R_CAPCPU "$(ratio $cpu "$(awk -v s=$stored 'BEGIN { print s / 1e6 }')")")," \
	     "ftrecord total CPU/MB / poll CPU/MB $(ratio $R_CPU "$(ratio $cpu "$(awk -v s=$stored 'BEGIN { print s / 1e6 }')")")"
	[ $w = syscall ] && echo "ratios: untraced -> no reader x$(ratio $t1 $t0), untraced -> ftrecord x$(ratio $R_T $t0)"
	echo
}

for w in "${@:-syscall marker}"; do
	for x in $w; do bench $x; done
done
