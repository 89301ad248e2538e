#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord --flight -N: each window the flight recorder saves goes to the
# collector on a connection of its own, and the collector writes one file
# per window. A workload writes "w1 N" marks for N = 1..20 and "BOOM 1",
# waits until the recorder is armed again, then "w2 N" for N = 1..30 and
# "BOOM 2" (an --on-mark trigger each). Against ftrecord --listen: two
# files, one holding exactly the 20 w1 marks and BOOM 1, the other exactly
# the 30 w2 marks and BOOM 2, read the same by ftreport and trace-cmd
# report; the box's working directory is left with no file (its $TMPDIR
# does not exist).
# A window whose collector is not there is said (the address and the
# reason) and lost, the recorder goes on to the next window, which the
# collector, started by then, gets; the exit status is 2. Two SIGUSR1
# windows into trace-cmd listen when it is installed.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers events
command -v python3 > /dev/null || skip_all "python3 is not installed"

T=$(tracefs_dir) || skip_all "no tracefs"
tmp=$(mktemp -d /tmp/ftk-t4192-XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
have_tc=1
command -v trace-cmd > /dev/null || have_tc=0
export TRACEFS=$T

# a port nothing listens on: the one a collector had (the VM lane's python3
# has no socket module)
free_port() {
	local d
	d=$(mktemp -d "$tmp/fp.XXXXXX")
	start_collector "$d" "$d.log" 0
	kill "$cpid"
	wait "$cpid" 2>/dev/null
	echo "$port"
}

# ftrecord --listen on PORT (0: the kernel's choice, then in $port)
start_collector() {	# DIR LOG PORT
	mkdir -p "$1"
	ftrecord --listen "127.0.0.1:$3" -d "$1" 2> "$2" &
	cpid=$!
	pids="$pids $cpid"
	for _ in $(seq 50); do grep -q 'listening on port' "$2" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$2")
}

# work LOG [FLAG] [USR1]: the two rounds of marks into the recorder's instance,
# each ended by BOOM (or SIGUSR1 to the recorder, its parent, with USR1);
# the second once LOG says the first window is done, FLAG exists (when
# given) and the instance traces again
cat > "$tmp/work.sh" <<'EOS'
#!/bin/bash
on="$TRACEFS/instances/$FTK_INSTANCE/tracing_on"
round() {	# NAME COUNT END
	exec 3> "$TRACEFS/instances/$FTK_INSTANCE/trace_marker" || exit 9
	for ((i = 1; i <= $2; i++)); do echo "$1 $i" >&3; done
	exec 3>&-
	if [ -n "$3" ]; then kill -USR1 $PPID; else ftmark "BOOM ${1#w}" || exit 8; fi
}
round w1 20 "$3"
for i in $(seq 1 600); do
	grep -q 'sent window 1\|window 1 is lost' "$1" && { [ -z "$2" ] || [ -e "$2" ]; } &&
		[ "$(cat "$on")" = 1 ] && break
	sleep 0.1
done
round w2 30 "$3"
# the recorder ends the command after the last window
sleep 60
EOS
chmod +x "$tmp/work.sh"

# The w1/w2/BOOM marks of a file, in order, by ftreport or trace-cmd report.
# (--no-kallsyms: the print event's ip is a number, not tracing_mark_write)
marks_ft() { ftreport "$1" 2>/dev/null | grep -oE ': (w[12] [0-9]+|BOOM [12])$' | sed 's/^: //'; }
marks_tc() { trace-cmd report -i "$1" 2>/dev/null | grep -oE ': (w[12] [0-9]+|BOOM [12])$' | sed 's/^: //'; }
# what window N's file must hold: its marks, then its BOOM
want() {	# N COUNT
	seq 1 "$2" | sed "s/^/w$1 /"
	echo "BOOM $1"
}
want 1 20 > "$tmp/want1"
want 2 30 > "$tmp/want2"

# check_windows DIR WHAT READER...: two files, a window each, as wanted
check_windows() {
	local dir=$1 what=$2 f g n r
	shift 2
	is "$(ls "$dir" | grep -c '\.dat$')" 2 "$what: the collector wrote two files"
	for n in 1 2; do
		f=""
		for g in "$dir"/*.dat; do
			marks_ft "$g" | grep -q "^w$n 1\$" && f=$g
		done
		ok "$what: a file holds window $n" test -n "$f"
		for r in "$@"; do
			"marks_$r" "$f" > "$tmp/got"
			same_file "$what: window $n: $r reads the marks written before its trigger, nothing else" \
				"$tmp/want$n" "$tmp/got"
		done
		ok "$what: window $n: ftreport --stat names its trigger" \
			sh -c "ftreport --stat '$f' 2>/dev/null | grep -q '^trigger: '"
	done
}

readers=ft
[ $have_tc = 1 ] && readers="ft tc"

# --- A: two --on-mark windows into ftrecord --listen, nothing left on the box
start_collector "$tmp/c1" "$tmp/c1.log" 0
[ -n "$port" ] || bail_out "the collector did not start: $(cat "$tmp/c1.log")"
# (a $TMPDIR that does not exist: a spool or file made there would fail)
mkdir "$tmp/box"
(cd "$tmp/box" && TMPDIR="$tmp/no-tmpdir" ftrecord --flight --repeat 2 -b 64 --no-kallsyms \
	--on-mark 'BOOM*' -N "127.0.0.1:$port" "$tmp/work.sh" "$tmp/a.log" 2> "$tmp/a.log")
is_exit "$?" 0 "two windows to ftrecord --listen: ftrecord exits 0" "$tmp/a.log"
is "$(grep -c "sent window [12] to '127.0.0.1:$port'" "$tmp/a.log")" 2 \
	"the recorder says it sent each window"
for _ in $(seq 100); do [ "$(grep -c wrote "$tmp/c1.log")" -ge 2 ] && break; sleep 0.1; done
check_windows "$tmp/c1" "ftrecord --listen" $readers
is "$(find "$tmp/box" -mindepth 1 | wc -l)" 0 "the box's working directory holds no file"
ok "... and no \$TMPDIR was made" test ! -e "$tmp/no-tmpdir"

# --- B: no collector at the first window: said, lost, the next one sent
p2=$(free_port)
mkdir "$tmp/c2"
ftrecord --flight --repeat 2 -b 64 --no-kallsyms --on-mark 'BOOM*' -N "127.0.0.1:$p2" \
	"$tmp/work.sh" "$tmp/b.log" "$tmp/c2-up" 2> "$tmp/b.log" &
rec=$!
pids="$pids $rec"
for _ in $(seq 300); do grep -q 'window 1 is lost' "$tmp/b.log" && break; sleep 0.1; done
ok "a window the collector is not there for: said with its address and reason" \
	grep -q "window 1: cannot send to '127.0.0.1:$p2': .*Connection refused" "$tmp/b.log"
ok "... and that it is lost, the recorder armed again" \
	grep -q "window 1 is lost; armed again" "$tmp/b.log"
start_collector "$tmp/c2" "$tmp/c2.log" "$p2"
touch "$tmp/c2-up"
wait "$rec"
is_exit "$?" 2 "a window lost: ftrecord exits 2 at the end" "$tmp/b.log"
ok "the next window is sent" grep -q "sent window 2 to '127.0.0.1:$p2'" "$tmp/b.log"
for _ in $(seq 100); do grep -q wrote "$tmp/c2.log" && break; sleep 0.1; done
f=$(ls "$tmp"/c2/*.dat 2>/dev/null)
is "$(echo "$f" | grep -c '\.dat$')" 1 "the collector wrote one file, of the second window"
marks_ft "$f" > "$tmp/got"
same_file "the second window's file holds its 30 marks and BOOM 2, nothing else" \
	"$tmp/want2" "$tmp/got"

# tc_greets: whether a trace-cmd listen here greets a connection (in the VM
# lane's guest it accepts and closes; the host lane and t/vm/t8040 cover it)
tc_greets() {
	local pp g= i
	pp=$(free_port)
	mkdir -p "$tmp/tcp"
	trace-cmd listen -p "$pp" -d "$tmp/tcp" > "$tmp/tcp.log" 2>&1 &
	local lp=$!
	for i in $(seq 50); do
		exec 3<> "/dev/tcp/127.0.0.1/$pp" 2> /dev/null && break
		sleep 0.1
	done
	read -r -t 5 -N 8 g <&3 2> /dev/null
	exec 3>&-
	kill -INT "$lp" 2> /dev/null
	wait "$lp" 2> /dev/null
	[ "$g" = tracecmd ]
}

# --- C: two SIGUSR1 windows into trace-cmd listen
[ $have_tc = 1 ] && ! tc_greets && have_tc=2
if [ $have_tc = 2 ]; then
	skip "trace-cmd listen sends no greeting here: $(tail -1 "$tmp/tcp.log")"
elif [ $have_tc = 1 ]; then
	tport=$(free_port)
	mkdir "$tmp/c3"
	trace-cmd listen -p "$tport" -d "$tmp/c3" > "$tmp/c3.log" 2>&1 &
	tpid=$!
	pids="$pids $tpid"
	for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$tport " && break; sleep 0.1; done
	ftrecord --flight --repeat 2 -b 64 --no-kallsyms -N "127.0.0.1:$tport" \
		"$tmp/work.sh" "$tmp/c.log" "" usr1 2> "$tmp/c.log"
	is_exit "$?" 0 "two SIGUSR1 windows to trace-cmd listen: ftrecord exits 0" "$tmp/c.log"
	# trace-cmd listen completes a file two seconds after CLOSE
	last="CPU$(($(getconf _NPROCESSORS_CONF) - 1)) data recorded"
	for _ in $(seq 100); do
		[ "$(grep -c "$last" "$tmp/c3.log")" -ge 2 ] && break
		sleep 0.1
	done
	sleep 0.5
	# SIGUSR1 ends the rounds here: no BOOM mark, the reason mark instead
	grep -v BOOM "$tmp/want1" > "$tmp/want1.u"; mv "$tmp/want1.u" "$tmp/want1"
	grep -v BOOM "$tmp/want2" > "$tmp/want2.u"; mv "$tmp/want2.u" "$tmp/want2"
	check_windows "$tmp/c3" "trace-cmd listen" $readers
	kill -INT "$tpid"
	wait "$tpid" 2>/dev/null
else
	skip "trace-cmd is not installed"
fi
done_testing
