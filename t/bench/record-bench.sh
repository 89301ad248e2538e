#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord under load (not part of make check; prints measurements, no pass/fail).
#
# Workloads: (syscall) one CPU making getppid() calls as fast as it can with
# raw_syscalls enabled; (marker) trace_marker writes on every CPU plus
# sched_switch and sched_wakeup. Each is run
#   untraced    events off (syscall workload only)
#   no reader   events on, nobody reads the buffer
#   ftrecord    ftrecord -B instance (poll + buffer_percent + splice, real-time
#               readers), and once with -r 0 (normally scheduled readers)
#   poll 1ms    a reader that read(2)s trace_pipe_raw every millisecond,
#               the way a fixed-interval recorder does (trace-cmd record
#               sleeps 1 ms between reads by default; it cannot run on this
#               locked-down host, so this stands in for it here)
# and reports events lost, the slowdown of the workload against no reader,
# bytes stored per event against the event data in the ring buffer, and
# the recorder's CPU time per MB stored ("rdr": the reader threads alone;
# "CPU": all of ftrecord, writing the file included), and ftrecord's peak
# RSS. Modes are interleaved round by round so they share the machine's
# mood; the time shown is the best of the rounds.
#
# usage: t/bench/record-bench.sh [syscall|marker]...
# (root; N_SYS and N_MARK scale the work, ROUNDS repeats it (3), FTRECORD_OPTS
# adds ftrecord options)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
FTRECORD=${FTRECORD:-$top_builddir/tools/ftrecord}
N_SYS=${N_SYS:-1000000}
N_MARK=${N_MARK:-200000}
ROUNDS=${ROUNDS:-3}
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

# Results per mode: the shortest time over the rounds (the run least
# disturbed by the rest of a shared machine), losses summed over the rounds.
declare -A TMIN LOST TOTAL BPE CPUMB CAPMB RSS MBS
note() {	# mode time lost total bytes/event cpu/MB capture-cpu/MB rss MB
	if [ -z "${TMIN[$1]:-}" ] || [ "$2" -lt "${TMIN[$1]}" ]; then TMIN[$1]=$2; fi
	LOST[$1]=$(( ${LOST[$1]:-0} + $3 ))
	TOTAL[$1]=$(( ${TOTAL[$1]:-0} + $4 ))
	BPE[$1]=$5 CPUMB[$1]=$6 CAPMB[$1]=$7 RSS[$1]=$8 MBS[$1]=$9
}

# ftrecord MODE [OPTIONS]: one recording of the workload $w.
run_ftrecord() {
	local mode=$1 rd lost stored cpu capcpu t mb
	shift
	fresh
	"$FTRECORD" -B $I -O nocopy_trace_marker ${FTRECORD_OPTS:-} "$@" \
		$(for e in $EVENTS; do echo "-e $e"; done) -o "$tmp/rec.dat" "$tmp/work" $w \
		> "$tmp/rec.out" 2> "$tmp/rec.err"
	t=$(cat "$tmp/rec.out")
	rd=$(stat_sum "read events")
	lost=$(sed -n 's/^ftrecord: cpu[0-9]*: \([0-9]*\) events lost$/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s + 0 }')
	stored=$(sed -n 's/^ftrecord: cpu[0-9]*: \([0-9]*\) pages.*/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s * 4096 }')
	cpu=$(sed -n 's/.* \([0-9.]*\) s CPU in all$/\1/p' "$tmp/rec.err")
	capcpu=$(sed -n 's/^ftrecord: cpu[0-9]*: .* \([0-9.]*\) s CPU$/\1/p' "$tmp/rec.err" | awk '{ s += $1 } END { print s + 0 }')
	mb=$(awk -v s=$stored 'BEGIN { print s / 1e6 }')
	note "$mode" "$t" "$lost" $((rd + lost)) "$(ratio $stored $rd)" "$(ratio $cpu $mb)" \
		"$(ratio $capcpu $mb)" "$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$tmp/rec.err")" "$mb"
}

run_poll() {
	local pp t stored cpu rd lost mb
	fresh; events_on
	"$tmp/loadgen" poll $T/instances/$I "$tmp/poll" 1 > "$tmp/poll.out" &
	pp=$!
	sleep 0.2
	t=$("$tmp/work" $w)
	echo 0 > $T/instances/$I/tracing_on
	kill -INT $pp; wait $pp
	read -r stored cpu < "$tmp/poll.out"
	rd=$(stat_sum "read events")
	lost=$(( $(stat_sum overrun) + $(stat_sum "dropped events") ))
	mb=$(awk -v s=$stored 'BEGIN { print s / 1e6 }')
	note "poll 1ms" "$t" "$lost" $((rd + lost)) "$(ratio $stored $rd)" "$(ratio $cpu $mb)" \
		"$(ratio $cpu $mb)" - "$mb"
}

secs() { awk -v t="$1" 'BEGIN { printf "%.3f", t / 1e9 }'; }

bench() {
	w=$1
	local r m ev_bytes=0 t
	TMIN=() LOST=() TOTAL=() BPE=() CPUMB=() CAPMB=() RSS=() MBS=()
	case $w in
	syscall) EVENTS="raw_syscalls:sys_enter raw_syscalls:sys_exit" ;;
	marker) EVENTS="sched:sched_switch sched:sched_wakeup" ;;
	esac
	echo "== $w workload ($EVENTS$([ $w = marker ] && echo " + trace_marker on $CPUS CPUs"))," \
	     "best of $ROUNDS rounds, losses summed"
	for r in $(seq 1 $ROUNDS); do
		if [ $w = syscall ]; then
			fresh
			note untraced "$("$tmp/work" $w)" 0 0 - - - - -
		fi
		fresh; events_on
		t=$("$tmp/work" $w)
		ev_bytes=$(ratio "$(stat_sum bytes)" "$(stat_sum entries)")
		note "no reader" "$t" 0 0 - - - - -
		run_ftrecord ftrecord
		run_ftrecord "ftrecord -r0" -r 0
		run_poll
	done
	echo "event data in the ring buffer: $ev_bytes bytes/event"
	printf '%-13s %8s %8s %22s %10s %10s %10s %9s\n' mode time "vs none" "lost" "bytes/ev" \
		"CPU ms/MB" "rdr ms/MB" "RSS KiB"
	for m in untraced "no reader" ftrecord "ftrecord -r0" "poll 1ms"; do
		[ -n "${TMIN[$m]:-}" ] || continue
		printf '%-13s %8s %8s %22s %10s %10s %10s %9s\n' "$m" "$(secs ${TMIN[$m]})" \
			"x$(ratio ${TMIN[$m]} ${TMIN["no reader"]})" \
			"${LOST[$m]}/${TOTAL[$m]} ($(ratio ${LOST[$m]} ${TOTAL[$m]}))" "${BPE[$m]}" \
			"$(awk -v c="${CPUMB[$m]}" 'BEGIN { if (c == "-") print "-"; else printf "%.3g", c * 1000 }')" \
			"$(awk -v c="${CAPMB[$m]}" 'BEGIN { if (c == "-") print "-"; else printf "%.3g", c * 1000 }')" \
			"${RSS[$m]}"
	done
	echo "ratios: ftrecord/no-reader time $(ratio ${TMIN[ftrecord]} ${TMIN["no reader"]})," \
	     "poll/no-reader time $(ratio ${TMIN["poll 1ms"]} ${TMIN["no reader"]})," \
	     "ftrecord bytes/event / event data $(ratio ${BPE[ftrecord]} $ev_bytes)," \
	     "poll bytes/event / event data $(ratio ${BPE["poll 1ms"]} $ev_bytes)," \
	     "ftrecord reader CPU/MB / poll CPU/MB $(ratio ${CAPMB[ftrecord]} ${CAPMB["poll 1ms"]})," \
	     "ftrecord total CPU/MB / poll CPU/MB $(ratio ${CPUMB[ftrecord]} ${CPUMB["poll 1ms"]})"
	echo
}

for w in "${@:-syscall marker}"; do
	for x in $w; do bench $x; done
done
