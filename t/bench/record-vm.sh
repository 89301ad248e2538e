#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord against `trace-cmd record` in the full-kernel VM (not part of make check; prints
# measurements, no pass/fail). trace-cmd record cannot run on the locked-down host, so this
# boots t/vm's Debian kernel once (t/vm/run-in-vm.sh) and runs inside it the workloads of
# t/bench/record-bench.sh:
#   syscall   one CPU making getppid() calls, raw_syscalls:sys_enter/sys_exit on
#   marker    trace_marker writes on every CPU, sched:sched_switch and sched_wakeup on
# each under
#   no reader   events on in an instance, nobody reads (the workload's baseline time,
#               and the size of the event data in the ring buffer: per_cpu stats)
#   ftrecord    ftrecord -B INSTANCE -e ... WORK (its defaults: no compression)
#   ftrecord-z  the same with --compression zstd
#   trace-cmd   trace-cmd record -B INSTANCE -e ... WORK (its defaults: a process per
#               CPU splicing every 1 ms, file version 7 compressed with zstd)
# The workload traces only itself and its children (set_event_pid, event-fork) in every
# mode, as record-bench.sh does: trace-cmd's -F -c followed only the first process here.
# Per mode it reports: events lost (overrun + dropped in the kernel buffer statistics
# stored in the file: `trace-cmd report --stat`), the workload's time against no reader,
# bytes stored per event (the file's data sections, `trace-cmd dump --flyrecord`, over
# the events in the file: read events + entries, as trace-cmd takes its statistics
# before its last flush) against the event data in the ring buffer, and the recorder's CPU time
# (bash `times` around the recorder, which waits for everything it started, minus the
# workload's own `times`) per MB of event data it moved (events read x event size: the
# same yardstick for compressed and plain files); then the ratios ftrecord/trace-cmd
# and ftrecord-z/trace-cmd of the same run.
#
# The guest runs under qemu TCG (software emulation, both vCPUs in one host thread): it is
# 10 to 50 times slower than native and its clock and scheduling are distorted, so the
# absolute numbers mean little; only the ratios between modes of the same run do.
#
# usage: t/bench/record-vm.sh [syscall|marker]...
# (from the source or build tree; N_SYS and N_MARK scale the work (defaults 1000000 and
# 100000 per CPU), ROUNDS repeats it (3), FTK_VM_TIMEOUT bounds the VM run (900 s),
# BENCH_OUT keeps the trace files (default $top_builddir/t/bench/record-vm.out),
# BENCH_REUSE=1 reports on the files of the last run without booting)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
	if [ -x "$top_srcdir/build/tools/ftrecord" ]; then top_builddir=$top_srcdir/build
	else top_builddir=$(pwd); fi
fi
export top_srcdir top_builddir
N_SYS=${N_SYS:-1000000}
N_MARK=${N_MARK:-100000}
ROUNDS=${ROUNDS:-3}
OUT=${BENCH_OUT:-$top_builddir/t/bench/record-vm.out}
WORKLOADS=${*:-syscall marker}
die() { echo "record-vm: $*" >&2; exit 1; }
[ -x "$top_builddir/tools/ftrecord" ] || die "no $top_builddir/tools/ftrecord (build first)"
command -v trace-cmd > /dev/null || die "no trace-cmd on the host (it reads the files)"

# The load generator: an ELF program under the build tree's t/ goes into the VM's
# initramfs at the same path (t/vm/vm.sh), with the libraries it loads. Static when the
# toolchain can.
mkdir -p "$top_builddir/t/bench" || exit 1
lg=$top_builddir/t/bench/record-loadgen
cc -O2 -static -o "$lg" "$top_srcdir/t/bench/record-loadgen.c" -lpthread 2> /dev/null ||
	cc -O2 -o "$lg" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1

job=$(mktemp "${TMPDIR:-/tmp}/ftk-recvm.XXXXXX") || exit 1
trap 'rm -f "$job"' EXIT
cat > "$job" <<'JOB'
T=/sys/kernel/tracing
I=ftkit-bench
LG=/ftk/build/t/bench/record-loadgen
CPUS=$(nproc)
O=$FTK_OUT
export PATH=/ftk/build/tools:$PATH
cpu() {	# the CPU seconds of `times` output: self (line 1) and children (line 2)
	awk '{ for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } }
	     END { printf "%.3f\n", s }'
}
# The workload: its elapsed ns in $O/$2.time, its CPU seconds (the script and its
# children) in $O/$2.wcpu. It traces only itself and its children (set_event_pid,
# event-fork), in every mode: trace-cmd's -F -c did not follow the children here.
cat > /tmp/work <<EOW
#!/bin/bash
# Only the workload's events (the recorder's own syscalls would feed back).
echo 1 > $T/instances/$I/options/event-fork
echo \$\$ > $T/instances/$I/set_event_pid
case "\$1" in
syscall) taskset -c $((CPUS - 1)) $LG syscall $N_SYS > /tmp/t ;;
marker)
	for c in \$(seq 0 $((CPUS - 1))); do
		taskset -c \$c $LG marker $N_MARK $T/instances/$I/trace_marker > /tmp/m.\$c &
	done
	wait
	sort -n /tmp/m.* | tail -1 > /tmp/t ;;
esac
cp /tmp/t $O/\$2.time
times > /tmp/wt
awk '{ for (i = 1; i <= 2; i++) { split(\$i, a, /[ms]/); s += a[1] * 60 + a[2] } }
     END { printf "%.3f\n", s }' /tmp/wt > $O/\$2.wcpu
EOW
chmod +x /tmp/work
# rec MODE W ROUND RECORDER...: record the workload W; the CPU seconds of the recorder and
# everything it waited for (the workload included) in $O/MODE.W.ROUND.cpu.
rec() {
	local m=$1 w=$2 r=$3
	shift 3
	( "$@" /tmp/work $w $m.$w.$r > $O/$m.$w.$r.log 2>&1; echo $? > $O/$m.$w.$r.rc
	  times > /tmp/tt; tail -1 /tmp/tt ) | cpu > $O/$m.$w.$r.cpu
	gone
}
gone() { local i; for i in $(seq 1 50); do [ -d $T/instances/$I ] || return 0; rmdir $T/instances/$I 2>/dev/null || sleep 0.2; done; }
uname -r > $O/uname
for r in $(seq 1 $ROUNDS); do
	for w in $WORKLOADS; do
		case $w in
		syscall) EVENTS="raw_syscalls:sys_enter raw_syscalls:sys_exit" ;;
		marker) EVENTS="sched:sched_switch sched:sched_wakeup" ;;
		esac
		EV=$(for e in $EVENTS; do printf -- '-e %s ' $e; done)
		# no reader
		gone; mkdir $T/instances/$I
		for e in $EVENTS; do echo 1 > $T/instances/$I/events/${e/://}/enable; done
		/tmp/work $w none.$w.$r
		cat $T/instances/$I/per_cpu/cpu*/stats > $O/none.$w.$r.stats
		gone
		rec ftrecord $w $r ftrecord -B $I $EV -o $O/ftrecord.$w.$r.dat
		rec ftrecord-z $w $r ftrecord --compression zstd -B $I $EV -o $O/ftrecord-z.$w.$r.dat
		rec trace-cmd $w $r trace-cmd record -B $I $EV -o $O/trace-cmd.$w.$r.dat
	done
done
JOB
# The job's settings, ahead of its body (run-in-vm.sh -e quotes values with '').
{ printf 'N_SYS=%s N_MARK=%s ROUNDS=%s WORKLOADS="%s"\n' "$N_SYS" "$N_MARK" "$ROUNDS" "$WORKLOADS"
  cat "$job"; } > "$job.2" && mv "$job.2" "$job" || exit 1

if [ -n "${BENCH_REUSE:-}" ]; then
	[ -r "$OUT/uname" ] || die "no earlier run in $OUT"
	WORKLOADS=$(sed -n 's/.*WORKLOADS="\(.*\)"$/\1/p' "$OUT/settings")
	ROUNDS=$(sed -n 's/.*ROUNDS=\([0-9]*\) .*/\1/p' "$OUT/settings")
else
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
head -1 "$job" > "$OUT/settings"
echo "record-vm: booting the VM (qemu TCG), $ROUNDS round(s) of: $WORKLOADS" \
     "(N_SYS=$N_SYS, N_MARK=$N_MARK per CPU)" >&2
"$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-900}" \
	-l "$top_builddir/t/bench/record-vm.console.log" "$job" "$OUT" ||
	die "the VM run failed (console: $top_builddir/t/bench/record-vm.console.log)"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4g", a / b; else print "n/a" }'; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
# fstat FILE FIELD: a kernel buffer statistic stored in a trace file, summed over the CPUs.
fstat() {
	trace-cmd report --stat -i "$1" 2>/dev/null |
		awk -v f="$2" -F': *' '$1 == f { s += $2 } END { print s + 0 }'
}
# fdata FILE: the bytes of the per-CPU data sections of a trace file, as stored.
fdata() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk '/\[id, data offset and size\]/ { s += $3 } END { print s + 0 }'
}
kstat() { awk -v f="$2" -F': *' '$1 == f { s += $2 } END { print s + 0 }' "$1"; }

MODES="ftrecord ftrecord-z trace-cmd"
echo "VM kernel $(cat "$OUT/uname"), qemu TCG: absolute numbers are distorted, only the" \
     "ratios of one run mean anything"
echo "modes: ftrecord = ftrecord -B I; ftrecord-z = ftrecord --compression zstd -B I;" \
     "trace-cmd = trace-cmd record -B I (3.1.6 defaults: file version 7, zstd)"
for w in $WORKLOADS; do
	declare -A TM=() LOST=() TOT=() DATA=() RD=() CPU=()
	evb=0
	for r in $(seq 1 "$ROUNDS"); do
		t=$(cat "$OUT/none.$w.$r.time")
		if [ -z "${TM[none]:-}" ] || [ "$t" -lt "${TM[none]}" ]; then TM[none]=$t; fi
		evb=$(ratio "$(kstat "$OUT/none.$w.$r.stats" bytes)" "$(kstat "$OUT/none.$w.$r.stats" entries)")
		for m in $MODES; do
			f=$OUT/$m.$w.$r.dat
			[ "$(cat "$OUT/$m.$w.$r.rc")" = 0 ] || echo "record-vm: $m ($w) exited" \
				"$(cat "$OUT/$m.$w.$r.rc"): $(tail -3 "$OUT/$m.$w.$r.log")" >&2
			t=$(cat "$OUT/$m.$w.$r.time")
			if [ -z "${TM[$m]:-}" ] || [ "$t" -lt "${TM[$m]}" ]; then TM[$m]=$t; fi
			# Events in the file: read, plus the entries still in the buffer when
			# the statistics were taken (trace-cmd takes them before its last flush).
			rd=$(( $(fstat "$f" "read events") + $(fstat "$f" entries) ))
			lost=$(( $(fstat "$f" overrun) + $(fstat "$f" "dropped events") ))
			LOST[$m]=$(( ${LOST[$m]:-0} + lost ))
			TOT[$m]=$(( ${TOT[$m]:-0} + rd + lost ))
			RD[$m]=$(( ${RD[$m]:-0} + rd ))
			DATA[$m]=$(( ${DATA[$m]:-0} + $(fdata "$f") ))
			CPU[$m]=$(add "${CPU[$m]:-0}" "$(awk -v a="$(cat "$OUT/$m.$w.$r.cpu")" \
				-v b="$(cat "$OUT/$m.$w.$r.wcpu")" 'BEGIN { print a - b }')")
		done
	done
	echo
	echo "== $w workload ($([ $w = syscall ] && echo "raw_syscalls on 1 CPU" ||
		echo "trace_marker on every CPU + sched_switch/wakeup")): best time of $ROUNDS" \
		"round(s), losses, bytes and CPU summed"
	echo "event data in the ring buffer: $evb bytes/event"
	printf '%-11s %8s %8s %24s %9s %11s %9s\n' mode "time s" "vs none" lost bytes/ev \
		"rec. CPU s" "CPU ms/MB"
	printf '%-11s %8s %8s %24s %9s %11s %9s\n' "no reader" \
		"$(awk -v t="${TM[none]}" 'BEGIN { printf "%.3f", t / 1e9 }')" x1 - - - -
	declare -A BPE=() CMB=() SLOW=() LF=()
	for m in $MODES; do
		BPE[$m]=$(ratio "${DATA[$m]}" "${RD[$m]}")
		# CPU per MB of event data moved (events read x event size), the same
		# yardstick for compressed and plain files.
		CMB[$m]=$(awk -v c="${CPU[$m]}" -v n="${RD[$m]}" -v b="$evb" \
			'BEGIN { if (n * b > 0) printf "%.4g", c * 1000 / (n * b / 1e6); else print "n/a" }')
		SLOW[$m]=$(ratio "${TM[$m]}" "${TM[none]}")
		LF[$m]=$(ratio "${LOST[$m]}" "${TOT[$m]}")
		printf '%-11s %8s %8s %24s %9s %11s %9s\n' "$m" \
			"$(awk -v t="${TM[$m]}" 'BEGIN { printf "%.3f", t / 1e9 }')" "x${SLOW[$m]}" \
			"${LOST[$m]}/${TOT[$m]} (${LF[$m]})" "${BPE[$m]}" "${CPU[$m]}" "${CMB[$m]}"
	done
	for m in ftrecord ftrecord-z; do
		echo "ratios $m/trace-cmd: slowdown $(ratio "${SLOW[$m]}" "${SLOW[trace-cmd]}")," \
		     "lost $(if [ "${LOST[trace-cmd]}" -gt 0 ]; then ratio "${LF[$m]}" "${LF[trace-cmd]}"
			else echo "n/a (trace-cmd lost 0, $m ${LOST[$m]})"; fi)," \
		     "bytes/event $(ratio "${BPE[$m]}" "${BPE[trace-cmd]}")," \
		     "CPU/MB $(ratio "${CMB[$m]}" "${CMB[trace-cmd]}")"
	done
	echo "bytes stored per event / event data: $(for m in $MODES; do
		printf '%s %s  ' $m "$(ratio "${BPE[$m]}" "$evb")"; done)"
	unset TM LOST TOT DATA RD CPU BPE CMB SLOW LF
done
echo
echo "(trace files, logs and raw numbers in $OUT)"
