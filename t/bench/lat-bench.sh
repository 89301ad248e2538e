#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the latency tools cost the traced workload, against the anchors
# people would reach for otherwise, in one run:
#   ftsyscount      vs perf-tools' syscount -c (perf stat over syscalls:sys_enter_*)
#                   on a getppid loop and a pipe ping-pong
#   ftrunqlat       vs perf sched record + perf sched latency, on the same two
# ftsyscount (counts alone) counts with perf_event counters on every
# syscalls:sys_exit_* tracepoint, in the kernel, as syscount -c does; its
# --stream row is the user-space path. ftsyscount -L and ftrunqlat -w 0 take
# the kernel path where the kernel has hist triggers and synthetic events;
# their --stream rows are the user-space path. ftsyscount leaves the
# counters' release (an RCU wait in the kernel per tracepoint) to a child
# left behind: the next run starts once it has ended, not counted.
# For each: the workload's wall and CPU time under the tool against bare
# (the slowdown), the tool's own CPU time (everything the run used minus the
# workload's own), and lost events as each tool reports them. Rounds are
# interleaved so that the machine's changing load is shared; the figures are
# means over the rounds. The machine may be shared: trust CPU time over wall.
# Installed binaries: `make install DESTDIR=` of a build tree (never
# libtool's wrapper scripts). Not a test.
#   t/bench/lat-bench.sh [ROUNDS]   (root; default 3)
#   BUILD=dir: the build tree to install from (default ./build)
#   N=getppid calls (default 2000000), M=ping-pong round trips (default 100000)
set -u
rounds=${1:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
N=${N:-2000000}
M=${M:-100000}
[ "$(id -u)" = 0 ] || { echo "needs root (tracefs, perf tracepoints)" >&2; exit 2; }
command -v perf >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
syscount=$(command -v syscount-perf || command -v syscount) ||
	{ echo "no perf-tools syscount (apt-get install perf-tools-unstable)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$build/t/helpers/lat-work
[ -x "$work" ] || (cd "$build" && make t/helpers/lat-work >/dev/null) ||
	{ echo "cannot build $work" >&2; exit 2; }

tmp=$(mktemp -d /tmp/ftkit-lat-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "installing $build into $tmp/inst (make install DESTDIR=) ..." >&2
make -C "$build" install DESTDIR="$tmp/inst" >"$tmp/install.log" 2>&1 ||
	{ tail -20 "$tmp/install.log" >&2; exit 2; }
bin=$(dirname "$(find "$tmp/inst" -path '*/bin/ftsyscount' | head -1)")
lib=$(dirname "$(find "$tmp/inst" -name 'libftkit.so' | head -1)")
for t in ftsyscount ftrunqlat; do
	head -c 2 "$bin/$t" | grep -q '#!' && { echo "$bin/$t is a script" >&2; exit 2; }
done
export LD_LIBRARY_PATH=$lib

# The workload, timed by itself (wall, user + sys) into $tmp/w: a script, so
# that tools which split their COMMAND on blanks (syscount) run it whole.
cat >"$tmp/timed" <<EOS
#!/bin/sh
exec /usr/bin/time -f '%e %U %S' -o "$tmp/w" "$work" "\$@"
EOS
chmod +x "$tmp/timed"
workload() {
	"$tmp/timed" "$@"
}
# run KEY TOOLCMD...: one measured run; TOOLCMD runs the workload ($W...) itself.
# Adds: workload wall, workload CPU, whole CPU (tool + workload + helpers), lost.
declare -A s_ww s_wc s_tc s_lost s_n
run() {
	local key=$1 t0 all ww wc lost TIMEFORMAT='%3U %3S'
	shift
	rm -f "$tmp/w"
	all=$( { time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1 | tail -1)
	[ -s "$tmp/w" ] || { echo "$key: the workload did not run: $(head -3 "$tmp/err")" >&2; return; }
	read -r ww u s <"$tmp/w"
	wc=$(echo "$u $s" | awk '{ print $1 + $2 }')
	lost=$(cat "$tmp/out" "$tmp/err" | awk '
		/^Lost [0-9]+ events/ { l += $2 }
		/^Dropped [0-9]+ samples/ { l += $2 }
		/"lost":[0-9]+/ { match($0, /"lost":[0-9]+/); l += substr($0, RSTART + 7, RLENGTH - 7) }
		/lost [0-9]+ chunks/ { for (i = 1; i < NF; i++) if ($i == "lost") l += $(i + 1) }
		/LOST [0-9]+ events/ { for (i = 1; i < NF; i++) if ($i == "LOST") l += $(i + 1) }
		END { print l + 0 }')
	s_ww[$key]=$(echo "${s_ww[$key]:-0} $ww" | awk '{ print $1 + $2 }')
	s_wc[$key]=$(echo "${s_wc[$key]:-0} $wc" | awk '{ print $1 + $2 }')
	s_tc[$key]=$(echo "${s_tc[$key]:-0} $all $wc" | awk '{ print $1 + $2 + $3 - $4 }')
	s_lost[$key]=$(( ${s_lost[$key]:-0} + lost ))
	s_n[$key]=$(( ${s_n[$key]:-0} + 1 ))
	# ftsyscount's counters released behind it: not on the next run's time
	while pgrep -x ftsyscount-rel >/dev/null; do sleep 0.2; done
}

sched_perf() {	# perf sched record, then perf sched latency: both are the anchor's cost
	perf sched record -q -o "$tmp/sched.data" -- "$tmp/timed" "$@" && perf sched latency -i "$tmp/sched.data" 2>&1 | tail -5
}

for ((r = 1; r <= rounds; r++)); do
	echo "round $r of $rounds ..." >&2
	for wl in "getppid $N" "pingpong $M"; do
		set -- $wl
		k=$1
		run "$k bare" workload "$@"
		run "$k ftsyscount" "$bin/ftsyscount" -- "$tmp/timed" "$@"
		run "$k ftsyscount --stream" "$bin/ftsyscount" --stream -- "$tmp/timed" "$@"
		run "$k ftsyscount -L" "$bin/ftsyscount" -L -- "$tmp/timed" "$@"
		run "$k ftsyscount -L --stream" "$bin/ftsyscount" -L --stream -- "$tmp/timed" "$@"
		run "$k syscount -c" "$syscount" -c "$tmp/timed" "$@"
		run "$k ftrunqlat" "$bin/ftrunqlat" -w 0 -- "$tmp/timed" "$@"
		run "$k ftrunqlat --stream" "$bin/ftrunqlat" -w 0 --stream -- "$tmp/timed" "$@"
		run "$k perf sched" sched_perf "$@"
	done
done

echo "# lat-bench: $rounds rounds, getppid N=$N, pingpong M=$M round trips; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# means per run; tool CPU = user+sys of the whole run minus the workload's own"
printf '%-32s %10s %10s %9s %9s %10s %8s\n' CASE "WALL(s)" "WORK-CPU" SLOWDOWN CPU-X "TOOL-CPU" LOST
for wl in getppid pingpong; do
	for t in bare ftsyscount "ftsyscount --stream" "ftsyscount -L" "ftsyscount -L --stream" "syscount -c" ftrunqlat \
		"ftrunqlat --stream" "perf sched"; do
		k="$wl $t"
		b="$wl bare"
		[ -n "${s_n[$k]:-}" ] || { printf '%-32s %s\n' "$k" "(did not run: see above)"; continue; }
		echo "${s_ww[$k]} ${s_wc[$k]} ${s_tc[$k]} ${s_n[$k]} ${s_ww[$b]} ${s_wc[$b]} ${s_lost[$k]}" |
		awk -v k="$k" '{ n = $4; printf "%-32s %10.3f %10.3f %8.2fx %8.2fx %10.3f %8d\n",
			k, $1 / n, $2 / n, ($5 ? $1 / $5 : 0), ($6 ? $2 / $6 : 0),
			(k ~ / bare$/ ? 0 : $3 / n), $7 / n }'
	done
done
