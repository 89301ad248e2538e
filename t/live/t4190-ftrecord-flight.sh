#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord --flight: the kernel's ring in overwrite mode, written out only
# when a trigger fires. A workload writes marks "tick N" for N = 1, 2, ...
# into the recorder's instance and a mark "BOOM" after a known tick; the
# file must hold the ticks just before BOOM, BOOM itself and no ticks from
# long before (the ring is bounded), and, with --after, ticks after it.
# Checked by count and order with ftreport and trace-cmd report, never by
# durations. Every way out leaves no instance behind.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/recorder.sh"
lane live
need_root
need instances raw_buffers events

T=$(tracefs_dir) || skip_all "no tracefs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_tc=1
command -v trace-cmd >/dev/null || have_tc=0

# work FIRST LAST BOOMAT [PACE]: ticks into the instance; BOOM (through
# ftmark) after tick BOOMAT; PACE seconds between the ticks after BOOM.
cat > "$tmp/work.sh" <<'EOS'
#!/bin/bash
exec 3> "$TRACEFS/instances/$FTK_INSTANCE/trace_marker" || exit 9
for ((i = $1; i <= $2; i++)); do
	echo "tick $i" >&3
	if [ "$i" = "$3" ]; then
		ftmark "BOOM at $i" || exit 8
		done=1
	fi
	[ -n "${done:-}" ] && sleep "${4:-0.01}" 3>&-
done
exit 0
EOS
chmod +x "$tmp/work.sh"
export TRACEFS=$T

# The tick and BOOM lines of a file, in order, as "tick N" / "BOOM at N".
marks_ftreport() { ftreport "$1" 2>/dev/null | grep -oE '(tick [0-9]+|BOOM at [0-9]+)$'; }
marks_tc() { trace-cmd report -i "$1" 2>/dev/null | grep -oE '(tick [0-9]+|BOOM at [0-9]+)$'; }
ticks_after_boom() { awk '/^BOOM/ { b = 1; next } b && /^tick/ { n++ } END { print n + 0 }'; }
tick_before_boom() { awk '/^BOOM/ { print last; exit } /^tick/ { last = $0 }'; }
# A run's instance: ftkit-rec-PID_NS_START (the owner tag of lib/instance.c).
instance_of() { ls -d "$T/instances/ftkit-rec-$1"_* 2>/dev/null | head -1; }
no_instance() { ! ls "$T/instances" | grep -q "^ftkit-rec-$1_"; }
wait_armed() {
	local i
	for i in $(seq 1 300); do
		grep -q 'armed:' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# --- A: the mark trigger, the ring bounded by -b, nothing after the trigger
ftrecord --flight -b 8 --no-kallsyms --on-mark 'BOOM*' -o "$tmp/a.dat" \
	"$tmp/work.sh" 1 3000 2500 2> "$tmp/a.err" &
apid=$!
wait $apid
is_exit "$?" 0 "mark trigger: ftrecord exits 0" "$tmp/a.err"
marks_ftreport "$tmp/a.dat" > "$tmp/a.marks"
is "$(grep -c '^BOOM' "$tmp/a.marks")" 1 "mark trigger: BOOM is in the file once"
is "$(tick_before_boom < "$tmp/a.marks")" "tick 2500" \
	"mark trigger: the last tick before BOOM is tick 2500"
is "$(grep -cx 'tick 1' "$tmp/a.marks")" 0 "mark trigger: tick 1 is long gone from the bounded ring"
n=$(grep -c '^tick' "$tmp/a.marks")
ok "mark trigger: some ticks before BOOM, fewer than written ($n)" test "$n" -gt 0 -a "$n" -lt 2500
ftreport --stat "$tmp/a.dat" > "$tmp/a.stat" 2>&1
ok "mark trigger: ftreport --stat names the trigger" grep -q "^trigger: *mark matching 'BOOM\*'" "$tmp/a.stat"
if [ $have_tc = 1 ]; then
	marks_tc "$tmp/a.dat" > "$tmp/a.tc"
	ok "mark trigger: trace-cmd report reads the same ticks and BOOM" cmp -s "$tmp/a.marks" "$tmp/a.tc"
	is "$(trace-cmd report -i "$tmp/a.dat" 2>/dev/null | grep -c 'ftkit flight trigger: mark matching')" 1 \
		"mark trigger: trace-cmd report shows the reason mark"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi
ok "mark trigger: the instance is removed" no_instance $apid

# --- B: --after goes on recording past the trigger
ftrecord --flight -b 8 --no-kallsyms --after 2 --on-mark 'BOOM*' -o "$tmp/b.dat" \
	"$tmp/work.sh" 1 3000 2500 0.01 2> "$tmp/b.err"
is_exit "$?" 0 "--after: ftrecord exits 0" "$tmp/b.err"
marks_ftreport "$tmp/b.dat" > "$tmp/b.marks"
is "$(grep -c '^BOOM' "$tmp/b.marks")" 1 "--after: BOOM is in the file once"
is "$(tick_before_boom < "$tmp/b.marks")" "tick 2500" "--after: the last tick before BOOM is tick 2500"
n=$(ticks_after_boom < "$tmp/b.marks")
ok "--after: ticks after BOOM are in the file ($n)" test "$n" -gt 0

# --- C: --repeat 2 writes two files, each with its own BOOM
cat > "$tmp/work2.sh" <<EOS
#!/bin/bash
"$tmp/work.sh" 1 1000 1000 0 || exit 1
# Re-armed once the first file is written and tracing is on again.
for i in \$(seq 1 600); do
	[ -e "$tmp/c-1.dat" ] && [ "\$(cat "$T/instances/\$FTK_INSTANCE/tracing_on")" = 1 ] && break
	sleep 0.1
done
"$tmp/work.sh" 2001 3000 3000 0
EOS
chmod +x "$tmp/work2.sh"
ftrecord --flight -b 8 --no-kallsyms --repeat 2 --on-mark 'BOOM*' -o "$tmp/c.dat" \
	"$tmp/work2.sh" 2> "$tmp/c.err"
is_exit "$?" 0 "--repeat 2: ftrecord exits 0" "$tmp/c.err"
ok "--repeat 2: c-1.dat and c-2.dat written, no c.dat" \
	test -s "$tmp/c-1.dat" -a -s "$tmp/c-2.dat" -a ! -e "$tmp/c.dat"
is "$(marks_ftreport "$tmp/c-1.dat" | grep '^BOOM' | tr '\n' ' ')" "BOOM at 1000 " \
	"--repeat 2: the first file holds the first BOOM only"
is "$(marks_ftreport "$tmp/c-2.dat" | grep '^BOOM' | tr '\n' ' ')" "BOOM at 3000 " \
	"--repeat 2: the second file holds the second BOOM only"
is "$(marks_ftreport "$tmp/c-2.dat" | grep -c '^tick [0-9]\{1,3\}$')" 0 \
	"--repeat 2: the second file has no tick of the first round"
for n in 1 2; do
	ftreport --stat "$tmp/c-$n.dat" > "$tmp/c-$n.stat" 2>&1
	ok "--repeat 2: ftreport --stat names c-$n.dat's trigger" \
		grep -q "^trigger: *mark matching 'BOOM\*' at [0-9]" "$tmp/c-$n.stat"
	if [ $have_tc = 1 ]; then
		is "$(trace-cmd report -i "$tmp/c-$n.dat" 2>/dev/null | \
		      grep -c "ftkit flight trigger: mark matching 'BOOM\*'")" 1 \
			"--repeat 2: trace-cmd report shows c-$n.dat's reason mark once"
	else
		skip "trace-cmd is not installed"
	fi
done

# --- D: SIGUSR1, no command
ftrecord --flight -b 64 --no-kallsyms -o "$tmp/d.dat" 2> "$tmp/d.err" &
pid=$!
if wait_armed "$tmp/d.err"; then
	for i in $(seq 1 50); do echo "usr1 tick $i"; done > "$(instance_of $pid)/trace_marker"
	kill -USR1 $pid
fi
wait $pid
is_exit "$?" 0 "SIGUSR1: ftrecord exits 0" "$tmp/d.err"
is "$(ftreport "$tmp/d.dat" 2>/dev/null | grep -c 'usr1 tick')" 50 "SIGUSR1: the 50 marks before it are in the file"
ok "SIGUSR1: ftreport --stat names it" sh -c "ftreport --stat '$tmp/d.dat' | grep -q '^trigger: *SIGUSR1 at'"
ok "SIGUSR1: the instance is removed" no_instance $pid

# --- D2: a second recorder given the same -o is refused while the first is armed
ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -o "$tmp/same.dat" 2> "$tmp/s1.err" &
pid=$!
if wait_armed "$tmp/s1.err"; then
	ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -D 1 -o "$tmp/same.dat" \
		2> "$tmp/s2.err"
	is_exit "$?" 2 "same -o: the second flight recorder exits 2" "$tmp/s2.err"
	ok "... saying the first records into it" \
		grep -q "same.dat.spool' is in use: ftrecord $pid is recording into" "$tmp/s2.err"
else
	skip "the first flight recorder did not arm"
	skip "the first flight recorder did not arm"
fi
kill -TERM $pid
wait $pid
is_exit "$?" 0 "same -o: the first ends with 0" "$tmp/s1.err"
ok "... and leaves no lock behind" test ! -e "$tmp/same.dat.spool"
# a lock a killed flight recorder left holds nothing: the next one takes it
ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -o "$tmp/same.dat" 2> "$tmp/s3.err" &
pid=$!
wait_armed "$tmp/s3.err"
kill -9 $pid
wait $pid 2>/dev/null
ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -D 0.5 -o "$tmp/same.dat" \
	2> "$tmp/s4.err"
is_exit "$?" 0 "after kill -9 of a flight recorder the next one with its -o runs" "$tmp/s4.err"

# --- E: an event matching a filter, in the kernel (traceoff), fires once
ftrecord --flight -b 64 --no-kallsyms -e sched:sched_process_exec \
	--on-event sched:sched_process_exec --on-filter 'filename ~ "*/true"' -o "$tmp/e.dat" \
	sh -c 'sleep 0.2; /bin/true; /bin/true; sleep 0.5; /bin/true; sleep 1' 2> "$tmp/e.err"
is_exit "$?" 0 "event trigger: ftrecord exits 0" "$tmp/e.err"
is "$(ftreport "$tmp/e.dat" 2>/dev/null | grep 'sched_process_exec' | grep -c '/true ')" 1 \
	"event trigger: exactly one exec of true is recorded, the trigger's"
ok "event trigger: ftreport --stat names it" \
	sh -c "ftreport --stat '$tmp/e.dat' | grep -q '^trigger: *event sched:sched_process_exec if filename'"

# --- F: SIGTERM while armed: no file, no instance
ftrecord --flight -b 64 --on-mark 'never*' -o "$tmp/f.dat" 2> "$tmp/f.err" &
pid=$!
ok "SIGTERM: ftrecord arms" wait_armed "$tmp/f.err"
ok "SIGTERM: its instance exists while armed" test -d "$(instance_of $pid)"
kill -TERM $pid
wait $pid
is_exit "$?" 0 "SIGTERM while armed: ftrecord exits 0" "$tmp/f.err"
ok "SIGTERM while armed: nothing written" test ! -e "$tmp/f.dat"
ok "SIGTERM while armed: the instance is removed" no_instance $pid

# --- G: --before cuts the ring by time (whole pages): a pause splits the ticks
cat > "$tmp/work3.sh" <<'EOS'
#!/bin/bash
exec 3> "$TRACEFS/instances/$FTK_INSTANCE/trace_marker" || exit 9
for ((i = 1; i <= 3000; i++)); do echo "tick $i" >&3; done
sleep 4 3>&-
for ((i = 5001; i <= 5100; i++)); do echo "tick $i" >&3; done
echo "BOOM at 5100" >&3
exec 3>&-
sleep 5
EOS
chmod +x "$tmp/work3.sh"
ftrecord --flight -b 1024 --no-kallsyms --before 1 --on-mark 'BOOM*' -o "$tmp/g.dat" \
	"$tmp/work3.sh" 2> "$tmp/g.err"
is_exit "$?" 0 "--before: ftrecord exits 0" "$tmp/g.err"
marks_ftreport "$tmp/g.dat" > "$tmp/g.marks"
is "$(grep -c '^tick 5[01]' "$tmp/g.marks")" 100 "--before: the 100 ticks just before BOOM are kept"
is "$(grep -cx 'tick 1' "$tmp/g.marks")" 0 "--before: tick 1, from before the pause, is cut"
n=$(grep -c '^tick [0-9]\{1,4\}$' "$tmp/g.marks")
ok "--before: at most a page of old ticks per CPU survive ($n)" test "$n" -lt 1000

# --- I: the command ends, and is reaped, before the instance is removed,
# whichever way the recorder ends: a trigger, SIGINT, SIGTERM, -D, the
# command's own end. The command notes on its SIGTERM or SIGINT whether
# the instance is still there.
rec_victim "$tmp/victim.sh"
gone_pid() { ! kill -0 "$(cat "$1")" 2>/dev/null; }
for how in trigger INT TERM D; do
	v="$tmp/v-$how"
	case $how in
	trigger) ftrecord --flight -b 64 --no-kallsyms --on-mark 'BOOM*' -o "$v.dat" \
			"$tmp/victim.sh" "$v" BOOM 2> "$v.err" ;;
	D) ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -D 1 -o "$v.dat" \
			"$tmp/victim.sh" "$v" 2> "$v.err" ;;
	*) ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -o "$v.dat" \
			"$tmp/victim.sh" "$v" 2> "$v.err" &
	   pid=$!
	   wait_armed "$v.err" && for i in $(seq 1 50); do [ -s "$v.pid" ] && break; sleep 0.1; done
	   kill -$how $pid
	   wait $pid ;;
	esac
	is_exit "$?" 0 "command, ended by $how: ftrecord exits 0" "$v.err"
	is "$(cat "$v.seen" 2>/dev/null)" present \
		"command, ended by $how: it is stopped while the instance is still there"
	ok "command, ended by $how: it is gone (reaped) when ftrecord exits" gone_pid "$v.pid"
	if [ $how = trigger ]; then
		ok "command, ended by $how: the file is written" test -s "$v.dat"
	else
		ok "command, ended by $how: nothing written" test ! -e "$v.dat"
	fi
done
# The command's own end: the recorder ends with it, its status passed on.
ftrecord --flight -b 64 --no-kallsyms --on-mark 'never*' -o "$tmp/v-exit.dat" \
	sh -c 'sleep 0.3; exit 3' 2> "$tmp/v-exit.err"
is_exit "$?" 3 "command that exits 3: ftrecord exits 3" "$tmp/v-exit.err"
ok "... and writes nothing" test ! -e "$tmp/v-exit.dat"

# --- H: errors say why, exit 1 (usage) or 2 (the kernel refuses), leave nothing
ftrecord --before 1 -o "$tmp/h.dat" true 2> "$tmp/h1.err"
is_exit "$?" 1 "--before without --flight is a usage error" "$tmp/h1.err"
ftrecord --flight --on-event nosys:noev -o "$tmp/h.dat" true 2> "$tmp/h2.err"
is_exit "$?" 2 "an unknown --on-event exits 2" "$tmp/h2.err"
ok "... naming the event" grep -q "nosys:noev" "$tmp/h2.err"
ftrecord --flight --on-event sched:sched_switch --on-filter 'bogus ==' -o "$tmp/h.dat" true \
	2> "$tmp/h3.err"
is_exit "$?" 2 "a bad --on-filter exits 2" "$tmp/h3.err"
ok "... with the kernel's reason" grep -q "trigger" "$tmp/h3.err"
ftrecord --flight -D 0.5 -o "$tmp/h.dat" 2> "$tmp/h4.err"
is_exit "$?" 0 "-D ends an armed recorder with no trigger: exit 0" "$tmp/h4.err"
ok "... and nothing written" test ! -e "$tmp/h.dat"

done_testing
