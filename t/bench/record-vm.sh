#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord against `trace-cmd record` in the full-kernel VM (not part of make check; prints
# measurements, no pass/fail). trace-cmd record cannot run on the locked-down host, so this
# boots t/vm's Debian kernel once (t/vm/run-in-vm.sh) and runs inside it the workloads of
# t/bench/record-bench.sh:
#   syscall   one CPU making getppid() calls, raw_syscalls:sys_enter/sys_exit on
#   marker    trace_marker writes on every CPU, sched:sched_switch and sched_wakeup on
# each under
#   no reader  events on in an instance, nobody reads (the workload's baseline time,
#              and the size of the event data in the ring buffer)
#   ftrecord   ftrecord -F -c -B INSTANCE -e ... WORK     (its default settings)
#   trace-cmd  trace-cmd record -F -c -B INSTANCE -e ... WORK  (its default settings:
#              a process per CPU splicing every 1 ms)
# and reports, per mode: events lost (overrun + dropped, from the kernel buffer statistics
# stored in the file, `trace-cmd report --stat`), the workload's slowdown against no reader,
# bytes of trace data stored per event against the event data in the ring buffer (data
# sections of the file, `trace-cmd dump --flyrecord`, over the events read), and the
# recorder's CPU time per MB stored (bash `times` around the recorder, minus the workload's
# own CPU time); then the ratios ftrecord/trace-cmd measured in the same run.
#
# The guest runs under qemu TCG (software emulation, both vCPUs in one host thread): it is
# 10 to 50 times slower than native and its clock and scheduling are distorted, so the
# absolute numbers mean little; only the ratios between modes of the same run do.
#
# usage: t/bench/record-vm.sh [syscall|marker]...
# (from the source or build tree; N_SYS and N_MARK scale the work (defaults 200000 and
# 20000 per CPU), ROUNDS repeats it (1), FTK_VM_TIMEOUT bounds the VM run (900 s),
# BENCH_OUT keeps the trace files (default $top_builddir/t/bench/record-vm.out))
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
	if [ -x "$top_srcdir/build/tools/ftrecord" ]; then top_builddir=$top_srcdir/build
	else top_builddir=$(pwd); fi
fi
export top_srcdir top_builddir
N_SYS=${N_SYS:-200000}
N_MARK=${N_MARK:-20000}
ROUNDS=${ROUNDS:-1}
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
# children) in $O/$2.wcpu. In no-reader mode it filters on its own pid like -F -c.
cat > /tmp/work <<EOW
#!/bin/bash
if [ "\$3" = filter ]; then
	echo 1 > $T/instances/$I/options/event-fork
	echo \$\$ > $T/instances/$I/set_event_pid
fi
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
		/tmp/work $w none.$w.$r filter
		cat $T/instances/$I/per_cpu/cpu*/stats > $O/none.$w.$r.stats
		gone
		# ftrecord
		( ftrecord -F -c -B $I $EV -o $O/ftrecord.$w.$r.dat /tmp/work $w ftrecord.$w.$r \
			> $O/ftrecord.$w.$r.log 2>&1; echo $? > $O/ftrecord.$w.$r.rc; times > /tmp/tt; tail -1 /tmp/tt ) |
			cpu > $O/ftrecord.$w.$r.cpu
		gone
		# trace-cmd record
		( trace-cmd record -F -c -B $I $EV -o $O/trace-cmd.$w.$r.dat /tmp/work $w trace-cmd.$w.$r \
			> $O/trace-cmd.$w.$r.log 2>&1; echo $? > $O/trace-cmd.$w.$r.rc; times > /tmp/tt; tail -1 /tmp/tt ) |
			cpu > $O/trace-cmd.$w.$r.cpu
		gone
	done
done
JOB
# The job's settings, ahead of its body (run-in-vm.sh -e quotes values with '').
{ printf 'N_SYS=%s N_MARK=%s ROUNDS=%s WORKLOADS="%s"\n' "$N_SYS" "$N_MARK" "$ROUNDS" "$WORKLOADS"
  cat "$job"; } > "$job.2" && mv "$job.2" "$job" || exit 1

rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
echo "record-vm: booting the VM (qemu TCG), $ROUNDS round(s) of: $WORKLOADS" \
     "(N_SYS=$N_SYS, N_MARK=$N_MARK per CPU)" >&2
"$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-900}" \
	-l "$top_builddir/t/bench/record-vm.console.log" "$job" "$OUT" ||
	die "the VM run failed (console: $top_builddir/t/bench/record-vm.console.log)"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4g", a / b; else print "n/a" }'; }
# stat FILE FIELD: a kernel buffer statistic of a trace file, summed over the CPUs.
fstat() {
	trace-cmd report --stat -i "$1" 2>/dev/null |
		awk -v f="$2" -F': *' '$1 == f { s += $2 } END { print s + 0 }'
}
# The bytes of the per-CPU data sections of a trace file.
fdata() {
	trace-cmd dump --flyrecord -i "$1" 2>/dev/null |
		awk '/\[id, data offset and size\]/ { s += $3 } END { print s + 0 }'
}
kstat() { awk -v f="$2" -F': *' '$1 == f { s += $2 } END { print s + 0 }' "$1"; }

echo "VM kernel $(cat "$OUT/uname"); qemu TCG: only the ratios of one run mean anything"
for w in $WORKLOADS; do
	declare -A T=() LOST=() TOT=() BPE=() CPUMB=() MB=()
	evb=
	for r in $(seq 1 "$ROUNDS"); do
		T[none]=$(( ${T[none]:-0} + $(cat "$OUT/none.$w.$r.time") ))
		evb=$(ratio "$(kstat "$OUT/none.$w.$r.stats" bytes)" "$(kstat "$OUT/none.$w.$r.stats" entries)")
		for m in ftrecord trace-cmd; do
			f=$OUT/$m.$w.$r.dat
			[ "$(cat "$OUT/$m.$w.$r.rc")" = 0 ] || echo "record-vm: $m ($w) exited" \
				"$(cat "$OUT/$m.$w.$r.rc"): $(tail -3 "$OUT/$m.$w.$r.log")" >&2
			T[$m]=$(( ${T[$m]:-0} + $(cat "$OUT/$m.$w.$r.time") ))
			rd=$(fstat "$f" "read events")
			lost=$(( $(fstat "$f" overrun) + $(fstat "$f" "dropped events") ))
			LOST[$m]=$(( ${LOST[$m]:-0} + lost ))
			TOT[$m]=$(( ${TOT[$m]:-0} + rd + lost ))
			data=$(fdata "$f")
			BPE[$m]=$(ratio "$data" "$rd")
			MB[$m]=$(awk -v d="$data" -v m="${MB[$m]:-0}" 'BEGIN { print m + d / 1e6 }')
			rc=$(awk -v a="$(cat "$OUT/$m.$w.$r.cpu")" -v b="$(cat "$OUT/$m.$w.$r.wcpu")" \
				'BEGIN { print a - b }')
			CPUMB[$m]=$(awk -v c="$rc" -v s="${CPUMB[$m]:-0}" 'BEGIN { print s + c }')
		done
	done
	echo "== $w workload ($([ $w = syscall ] && echo "raw_syscalls, 1 CPU" ||
		echo "trace_marker on every CPU + sched_switch/wakeup")), $ROUNDS round(s)," \
		"times and losses summed"
	echo "event data in the ring buffer: $evb bytes/event"
	printf '%-10s %9s %8s %24s %9s %9s %10s\n' mode "time s" "vs none" lost bytes/ev "data MB" \
		"CPU ms/MB"
	for m in none ftrecord trace-cmd; do
		if [ $m = none ]; then
			printf '%-10s %9s %8s %24s %9s %9s %10s\n' "no reader" \
				"$(awk -v t="${T[none]}" 'BEGIN { printf "%.3f", t / 1e9 }')" x1 - - - -
			continue
		fi
		cpums=$(awk -v c="${CPUMB[$m]}" -v mb="${MB[$m]}" \
			'BEGIN { if (mb > 0) printf "%.4g", c * 1000 / mb; else print "n/a" }')
		CPUMB[$m]=$cpums
		printf '%-10s %9s %8s %24s %9s %9s %10s\n' "$m" \
			"$(awk -v t="${T[$m]}" 'BEGIN { printf "%.3f", t / 1e9 }')" \
			"x$(ratio "${T[$m]}" "${T[none]}")" \
			"${LOST[$m]}/${TOT[$m]} ($(ratio "${LOST[$m]}" "${TOT[$m]}"))" \
			"${BPE[$m]}" "${MB[$m]}" "$cpums (CPU $(awk -v c="$(cat "$OUT/$m.$w.$ROUNDS.cpu")" \
				-v b="$(cat "$OUT/$m.$w.$ROUNDS.wcpu")" 'BEGIN { printf "%.2f s", c - b }'))"
	done
	fl=$(ratio "${LOST[ftrecord]}" "${TOT[ftrecord]}")
	tl=$(ratio "${LOST[trace-cmd]}" "${TOT[trace-cmd]}")
	echo "ratios ftrecord/trace-cmd: slowdown $(ratio "${T[ftrecord]}" "${T[trace-cmd]}")," \
	     "lost fraction $([ "${LOST[trace-cmd]}" -gt 0 ] && ratio "$fl" "$tl" ||
		echo "n/a (trace-cmd lost 0, ftrecord ${LOST[ftrecord]})")," \
	     "bytes/event $(ratio "${BPE[ftrecord]}" "${BPE[trace-cmd]}")," \
	     "CPU/MB $(ratio "${CPUMB[ftrecord]}" "${CPUMB[trace-cmd]}")"
	echo "bytes/event over event data: ftrecord $(ratio "${BPE[ftrecord]}" "$evb")," \
	     "trace-cmd $(ratio "${BPE[trace-cmd]}" "$evb")"
	echo
	unset T LOST TOT BPE CPUMB MB
done
echo "(trace files, logs and raw numbers in $OUT)"
