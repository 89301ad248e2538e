#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The flight recorder's cost (not part of make check; prints measurements,
# no pass/fail).
#
# Workload: one CPU making getppid() calls as fast as it can
# (t/bench/record-loadgen.c), with raw_syscalls:sys_enter and sys_exit
# traced for the workload only (set_event_pid; -F for ftrecord). Modes:
#   untraced     events off
#   no reader    a private instance in overwrite mode, events on, nobody
#                reads: the kernel's own cost, the goal's baseline
#   flight       ftrecord --flight, armed (a kernel trigger on a mark that
#                never comes): the goal is within 10% of "no reader"
#   flight+lat   ftrecord --flight --on-latency 'syscall:getppid>1s' from
#                the stream (a second instance's reader pairs every call:
#                the price of the latency trigger on the hottest syscall)
#   full         ftrecord -o: everything to disk
# For each: the workload's CPU time and elapsed time (the round of least
# CPU time of ROUNDS, interleaved round by round), the recorder's CPU time,
# and the bytes it wrote to disk. Then the time from a trigger (a mark written into the armed
# recorder's instance, its ring full of raw_syscalls events) to the file
# complete on disk and the recorder gone.
#
# The installed binaries are used: `make install DESTDIR=...` into a
# temporary directory (or PREFIX_DIR=an existing installation's prefix).
# The machine may be shared: trust the CPU-time columns over wall time.
#
# usage: t/bench/flight-bench.sh   (root; N_SYS scales the work, ROUNDS (3),
#                                   BUF_KB the per-CPU ring (4096))
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
N_SYS=${N_SYS:-2000000}
ROUNDS=${ROUNDS:-3}
BUF_KB=${BUF_KB:-4096}
[ "$(id -u)" = 0 ] || { echo "flight-bench: needs root" >&2; exit 1; }
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
I=ftkit-bench-$$
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftk-fbench.XXXXXX")
trap 'rmdir $T/instances/$I 2>/dev/null; rm -rf "$tmp"' EXIT
if [ -z "${PREFIX_DIR:-}" ]; then
	make -C "$top_builddir" install DESTDIR="$tmp/inst" > "$tmp/install.log" 2>&1 ||
		{ echo "flight-bench: make install failed (see below)" >&2; tail "$tmp/install.log" >&2; exit 1; }
	PREFIX_DIR=$(dirname "$(find "$tmp/inst" -name ftrecord -type f -path '*/bin/*' | head -1)")/..
fi
FTRECORD=$PREFIX_DIR/bin/ftrecord
export LD_LIBRARY_PATH=$PREFIX_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$FTRECORD" ] || { echo "flight-bench: no $FTRECORD" >&2; exit 1; }
cc -O2 -o "$tmp/loadgen" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1
CPU=$(( $(nproc) - 1 ))
EV="raw_syscalls:sys_enter raw_syscalls:sys_exit"

# The workload: "ELAPSED_NS CPU_S" on stdout; traced only where $1 says.
cat > "$tmp/work" <<EOW
#!/bin/bash
if [ -n "\${1:-}" ]; then
	echo 1 > $T/instances/\$1/options/event-fork
	echo \$\$ > $T/instances/\$1/set_event_pid
fi
/usr/bin/time -f '%U %S' -o "$tmp/work.time" taskset -c $CPU "$tmp/loadgen" syscall $N_SYS > "$tmp/work.ns"
echo "\$(cat "$tmp/work.ns") \$(awk '{ print \$1 + \$2 }' "$tmp/work.time")"
EOW
chmod +x "$tmp/work"

fresh() {
	local i
	for i in $(seq 1 50); do
		[ -d $T/instances/$I ] || break
		rmdir $T/instances/$I 2>/dev/null || sleep 0.1
	done
	mkdir $T/instances/$I || { echo "flight-bench: cannot make an instance" >&2; exit 1; }
}
declare -A BEST CPUW CPUR DISK
# Per mode, the round with the least workload CPU time (the least disturbed):
# its elapsed time, the recorder's CPU time and the bytes it wrote.
note() {	# mode elapsed_ns work_cpu rec_cpu disk_bytes
	if [ -z "${CPUW[$1]:-}" ] || awk -v a="$3" -v b="${CPUW[$1]}" 'BEGIN { exit !(a < b) }'; then
		BEST[$1]=$2 CPUW[$1]=$3 CPUR[$1]=$4 DISK[$1]=$5
	fi
}
# ftrecord MODE OPTIONS...: the workload under ftrecord; its CPU time from time(1).
rec() {
	local mode=$1 out
	shift
	rm -rf "$tmp/out"; mkdir "$tmp/out"
	/usr/bin/time -f '%U %S' -o "$tmp/rec.time" "$FTRECORD" -q -F -c --no-kallsyms -b $BUF_KB \
		$(for e in $EV; do echo "-e $e"; done) "$@" -o "$tmp/out/rec.dat" "$tmp/work" \
		> "$tmp/rec.out" 2> "$tmp/rec.err"
	read -r ns wcpu < "$tmp/rec.out"
	[ -n "${ns:-}" ] || { echo "flight-bench: $mode failed:" >&2; cat "$tmp/rec.err" >&2; exit 1; }
	note "$mode" "$ns" "$wcpu" "$(awk '{ print $1 + $2 }' "$tmp/rec.time")" \
		"$(du -sb "$tmp/out" | awk '{ print $1 - 4096 }')"
}

for r in $(seq 1 "$ROUNDS"); do
	fresh
	read -r ns wcpu < <("$tmp/work")
	note untraced "$ns" "$wcpu" 0 0
	fresh
	echo $BUF_KB > $T/instances/$I/buffer_size_kb
	echo 1 > $T/instances/$I/options/overwrite
	for e in $EV; do echo 1 > "$T/instances/$I/events/${e/://}/enable"; done
	read -r ns wcpu < <("$tmp/work" $I)
	note "no reader" "$ns" "$wcpu" 0 0
	rmdir $T/instances/$I
	rec flight --flight --on-mark 'never*'
	rec flight+lat --flight --on-latency 'syscall:getppid>1s'
	rec full
done

printf "getppid x %d on CPU %d, best of %d rounds; %s\n" "$N_SYS" "$CPU" "$ROUNDS" "$FTRECORD"
printf "%-10s %10s %10s %12s %10s %12s\n" mode "work CPU s" "vs none" "elapsed ms" "rec CPU s" "disk bytes"
for m in untraced "no reader" flight flight+lat full; do
	printf "%-10s %10.3f %10s %12.1f %10.3f %12d\n" "$m" "${CPUW[$m]}" \
		"$(awk -v a="${CPUW[$m]}" -v b="${CPUW["no reader"]}" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')" \
		"$(awk -v n="${BEST[$m]}" 'BEGIN { print n / 1e6 }')" "${CPUR[$m]}" "${DISK[$m]}"
done
echo "(vs none: the workload's CPU time against 'no reader'; rec CPU: all of ftrecord, start-up included)"

# Trigger to file: the recorder armed on all of the machine's syscalls with
# a full ring; a mark fires it; the time until the file is written and
# ftrecord has exited (best of the rounds).
best=""
for r in $(seq 1 "$ROUNDS"); do
	rm -f "$tmp/t.dat"
	"$FTRECORD" -b $BUF_KB --no-kallsyms --flight -e raw_syscalls --on-mark 'BOOM*' -o "$tmp/t.dat" \
		2> "$tmp/t.err" &
	pid=$!
	for i in $(seq 1 300); do grep -q armed: "$tmp/t.err" && break; sleep 0.1; done
	taskset -c $CPU "$tmp/loadgen" syscall $N_SYS > /dev/null	# fill the ring
	inst=$(ls -d $T/instances/ftkit-rec-${pid}_* | head -1)
	t0=$(date +%s%N)
	echo "BOOM" > "$inst/trace_marker"
	wait $pid
	t1=$(date +%s%N)
	ms=$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
	kib=$(sed -n 's/.*, \([0-9]*\) KiB of events.*/\1/p' "$tmp/t.err")
	cpu=$(sed -n 's/.* \([0-9.]*\) s CPU in all$/\1/p' "$tmp/t.err")
	echo "trigger to file, round $r: $ms ms wall for $kib KiB of events ($(stat -c %s "$tmp/t.dat") bytes on disk), ftrecord $cpu s CPU in all"
done
