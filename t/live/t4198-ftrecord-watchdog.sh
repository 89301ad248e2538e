#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The recorder's watchdog (issue 29, item 11): after kill -9 of ftrecord,
# its watchdog child turns tracing off in the instance, appends what the
# ring still holds to FILE.spool/ and removes the instance it made, within
# a second or two; `ftrecord --recover` then gives every marker written
# before the kill (the truth: the numbered markers the test wrote, counted
# and checked for gaps). With --flight it saves the window of a trigger
# fired just before the kill, and nothing without a trigger. A recorder
# that ends normally leaves no watchdog behind.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers trace_marker
. "$top_srcdir/t/lib/recorder.sh"

T=$(tracefs_dir)
tmp=$(mktemp -d)
rec=
U=t4198-$$
cleanup() {
	[ -n "$rec" ] && kill -9 "$rec" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
	[ -d "$T/instances/$U" ] && rm_instance "$T/instances/$U"
}
trap cleanup EXIT
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"
pin=; command -v taskset >/dev/null && pin="taskset -c 0"

# wait_for FILE TEXT: until ftrecord says TEXT on its stderr.
wait_for() {
	for i in $(seq 1 100); do
		grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}
# gone_within S TEST...: TEST true within S seconds; the time taken into $took.
gone_within() {
	local s=$1 t0 i
	shift
	took=; t0=${EPOCHREALTIME/./}
	for i in $(seq 1 $((s * 20))); do
		"$@" && { took=$(((${EPOCHREALTIME/./} - t0) / 1000)); return 0; }
		sleep 0.05
	done
	return 1
}
# marks INSTANCE FROM TO TAG: numbered 200-byte markers, from CPU 0.
marks() {
	$pin bash -c 'for ((n = $2; n < $3; n++)); do printf "%s %08d %0180d\n" "$4" $n 0; done > "$1"' \
		x "$T/instances/$1/trace_marker" "$2" "$3" "$4"
}
# The marker numbers of TAG in FILE's report, in order, without leading zeros.
got() { ftreport "$1" 2>/dev/null | grep -o "$2 [0-9]*" | sed "s/^$2 0*//; s/^\$/0/"; }

# --- A: ftrecord in its own instance, killed: instance gone, all marks recovered.
# -b 4096: the 400 KB of markers stay under buffer_percent (50), so the
# capture has spliced none of them: all come from the watchdog's drain.
W=2000
ftrecord --no-kallsyms $nocopy -b 4096 -o "$tmp/a.dat" 2> "$tmp/a.err" &
rec=$!
wait_for "$tmp/a.err" 'Ctrl-C to end' || bail_out "ftrecord did not start: $(cat "$tmp/a.err")"
I=$(rec_instance $rec)
ok "ftrecord runs in its own instance ($I)" test -n "$I"
wd=$(rec_watchdog $rec)
ok "it has a watchdog child ($wd)" test -n "$wd"
if [ -e "$T/instances/$I/set_event_notrace_pid" ]; then
	ok "the watchdog is kept out of the trace (set_event_notrace_pid)" \
		grep -qx "$wd" "$T/instances/$I/set_event_notrace_pid"
else
	skip "no set_event_notrace_pid"
fi
marks "$I" 0 $W ftk4198a
sleep 0.5	# the capture idle: nothing between the ring and the spools
kill -9 $rec; wait $rec 2>/dev/null; rec=
ok "the instance is removed within 2 s" gone_within 2 test ! -d "$T/instances/$I"
diag "removed $took ms after the kill"
ok "the watchdog has exited" gone_within 2 rec_ended "$wd"
ok "its spools wait for --recover" test -f "$tmp/a.dat.spool/template"
ftrecord --recover "$tmp/a.dat" 2> "$tmp/a.rerr"; rc=$?
sed 's/^/# /' "$tmp/a.rerr"
is "$rc" 0 "ftrecord --recover exits 0"
g=$(got "$tmp/a.dat" ftk4198a)
n=$(printf '%s\n' "$g" | grep -c .)
is "$n" "$W" "the recovered file holds all $W markers written before the kill"
ok "... in order, without a gap" test "$g" = "$(seq 0 $((W - 1)))"

# --- B: -B an instance of the user's: tracing off, the instance left
mkdir "$T/instances/$U"
ftrecord -B "$U" --no-kallsyms $nocopy -o "$tmp/b.dat" 2> "$tmp/b.err" &
rec=$!
wait_for "$tmp/b.err" 'Ctrl-C to end' || bail_out "ftrecord -B did not start: $(cat "$tmp/b.err")"
is "$(cat "$T/instances/$U/tracing_on")" 1 "-B $U: tracing is on while it records"
marks "$U" 0 300 ftk4198b
sleep 0.3
kill -9 $rec; wait $rec 2>/dev/null; rec=
ok "-B $U: tracing is off within 2 s" gone_within 2 grep -qx 0 "$T/instances/$U/tracing_on"
diag "off $took ms after the kill"
sleep 0.3
ok "-B $U: the user's instance is left in place" test -d "$T/instances/$U"
ftrecord --recover "$tmp/b.dat" 2> "$tmp/b.rerr"; rc=$?
is "$rc" 0 "-B $U: ftrecord --recover exits 0"
is "$(got "$tmp/b.dat" ftk4198b | grep -c .)" 300 "-B $U: all 300 markers recovered"

# --- C: --flight, killed 20 ms after a trigger (most of the window still in
# the ring: the watchdog drains it) and 150 ms after (the recorder has
# drained it into c.dat.spool/ already): the window is saved either way
flight_kill() {
	local d=$1 c=$tmp/c$1
	ftrecord --flight -b 2048 --after 10 --no-kallsyms $nocopy -o "$c.dat" 2> "$c.err" &
	rec=$!
	wait_for "$c.err" 'armed' || bail_out "ftrecord --flight did not start: $(cat "$c.err")"
	I=$(rec_instance $rec)
	marks "$I" 0 1000 ftk4198c
	kill -USR1 $rec
	for i in $(seq 1 400); do
		grep -q 'trigger: SIGUSR1' "$c.err" && break
		sleep 0.005
	done
	sleep "$d"
	kill -9 $rec; wait $rec 2>/dev/null; rec=
	ok "--flight, killed $d s after a trigger: the instance is removed within 2 s" \
		gone_within 2 test ! -d "$T/instances/$I"
	diag "removed $took ms after the kill"
	ok "... the window waits in its spool directory" gone_within 2 test -f "$c.dat.spool/template"
	ftrecord --recover "$c.dat" 2> "$c.rerr"; rc=$?
	sed 's/^/# /' "$c.rerr"
	is "$rc" 0 "... ftrecord --recover exits 0"
	g=$(got "$c.dat" ftk4198c)
	is "$(printf '%s\n' "$g" | grep -c .)" 1000 "... all 1000 markers before the trigger are in it"
	ok "... without a gap" test "$g" = "$(seq 0 999)"
	ok "... with the trigger's mark" bash -c "ftreport '$c.dat' | grep -q 'ftkit flight trigger: SIGUSR1'"
}
flight_kill 0.02
flight_kill 0.15

# --- D: --flight killed with no trigger: instance gone, nothing to recover
ftrecord --flight --no-kallsyms $nocopy -o "$tmp/d.dat" 2> "$tmp/d.err" &
rec=$!
wait_for "$tmp/d.err" 'armed' || bail_out "ftrecord --flight did not start: $(cat "$tmp/d.err")"
I=$(rec_instance $rec)
marks "$I" 0 10 ftk4198d
kill -9 $rec; wait $rec 2>/dev/null; rec=
ok "--flight, no trigger: the instance is removed within 2 s" gone_within 2 test ! -d "$T/instances/$I"
ok "... and no recording is left to recover" test ! -e "$tmp/d.dat.spool/template"
ftrecord --flight --no-kallsyms -o "$tmp/d.dat" -D 0.2 2> "$tmp/d2.err"; rc=$?
is "$rc" 0 "... and the next --flight into d.dat runs"

# --- E: a normal end: the watchdog goes with the recorder, touching nothing
ftrecord --no-kallsyms $nocopy -o "$tmp/e.dat" -D 1 2> "$tmp/e.err" &
rec=$!
wait_for "$tmp/e.err" 'Ctrl-C to end' || bail_out "ftrecord did not start: $(cat "$tmp/e.err")"
wd=$(rec_watchdog $rec)
wait $rec; rc=$?; rec=
is "$rc" 0 "a normal run exits 0"
ok "... its watchdog ($wd) waited for: gone, not a zombie" test -n "$wd" -a ! -e "/proc/$wd"
ok "... no spool directory left" test ! -e "$tmp/e.dat.spool"
ok "... the file written" test -s "$tmp/e.dat"
ok "... and nothing said of a watchdog" bash -c "! grep -q watchdog '$tmp/e.err'"
# --- F: every other instance a run makes has a watchdog too, which only
# turns tracing off and removes it: ftrecord's -B buffers, --on-latency's
# watcher, and the instance of every tool on a session (ftk_session_start()).
# inst_of PID: the instances named for run PID (ftkit-TOOL-PID_NS_START).
inst_of() { (cd "$T/instances" && ls -d ftkit-*-"${1}"_* 2>/dev/null); }
# killed_clean WHAT PID N: after kill -9 of PID, which made N instances,
# tracing, each is gone within 2 s.
killed_clean() {
	local what=$1 pid=$2 n=$3 insts i on=0
	for i in $(seq 1 100); do
		insts=$(inst_of "$pid"; [ -n "${4:-}" ] && [ -d "$T/instances/$4" ] && echo "$4")
		[ "$(echo "$insts" | grep -c .)" -ge "$n" ] && break
		sleep 0.1
	done
	is "$(echo "$insts" | grep -c .)" "$n" "$what: $n instance(s) made ($(echo $insts))"
	sleep 0.3
	for i in $insts; do
		[ "$(cat "$T/instances/$i/tracing_on" 2>/dev/null)" = 1 ] && on=$((on + 1))
	done
	is "$on" "$n" "$what: tracing on in each before the kill"
	kill -9 "$pid"; wait "$pid" 2>/dev/null
	ok "$what: every instance removed within 2 s of kill -9" \
		gone_within 2 bash -c "for i in $(echo $insts); do test ! -d '$T/instances/'\$i || exit 1; done"
	diag "removed $took ms after the kill"
	for i in $insts; do [ -d "$T/instances/$i" ] && rm_instance "$T/instances/$i"; done
}
F=t4198f-$$
ftrecord --no-kallsyms $nocopy -e sched:sched_switch -B "$F" -e sched:sched_wakeup \
	-o "$tmp/f.dat" 2> "$tmp/f.err" &
rec=$!
killed_clean "ftrecord -B $F" $rec 2 "$F"; rec=
ftrecord --flight --no-kallsyms $nocopy -e sched:sched_switch -e sched:sched_wakeup \
	--on-latency 'wakeup>500ms' -o "$tmp/g.dat" 2> "$tmp/g.err" &
rec=$!
killed_clean "ftrecord --flight --on-latency" $rec 2; rec=
ftrunqlat -D 60 > /dev/null 2>&1 &
killed_clean ftrunqlat $! 1
ftopensnoop -D 60 > /dev/null 2>&1 &
killed_clean "ftopensnoop (its probes are reaped by the next run)" $! 1
fttop -b -d 1 -n 100 > /dev/null 2>&1 &
killed_clean fttop $! 1
ftevent -e sched:sched_switch -D 60 > /dev/null 2>&1 &
killed_clean "ftevent (run mode)" $! 1
done_testing
