#!/bin/bash
# Network capture in trace-cmd's protocol, both ways, on loopback: three
# ftrecord -N senders at once into ftrecord --listen, then into trace-cmd
# listen; trace-cmd record -N (UDP and TCP data) into ftrecord --listen;
# -B buffers over -N, a file each.
# Each box writes markers with known numbers; every file is read by
# trace-cmd report and ftreport, which print the same, with every marker
# of its box and none of another's. The ftrecord senders record with
# --date and start a short-lived task of a name never run before
# (late-BOX) after the recording began, which writes one more mark: both
# readers print its time of day (between the clock read before and after
# the senders ran), and in the files of ftrecord --listen its name (sent
# at the end; trace-cmd listen takes only what comes at the start). A
# --proc-map over -N stores the command's map in the files of ftrecord
# --listen and says it cannot into trace-cmd listen. A collector that goes
# away ends a sender with a message and exit 2.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events instances raw_buffers
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
command -v trace-cmd > /dev/null || skip_all "trace-cmd is not installed"
command -v python3 > /dev/null || skip_all "python3 is not installed"
T=/sys/kernel/tracing
tmp=$(mktemp -d /tmp/ftk-t5030-XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
marks=300

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ftrecord --listen on a port of the kernel's choosing; its port in $port
start_collector() {	# DIR LOG
	mkdir -p "$1"
	ftrecord --listen 127.0.0.1:0 -d "$1" 2> "$2" &
	cpid=$!
	pids="$pids $cpid"
	for _ in $(seq 50); do grep -q 'listening on port' "$2" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$2")
}

# BOX N: N markers "BOX-i" from a command ftrecord -N records with --date,
# then "late BOX" from late-BOX, started after them
send_box() {	# HOSTPORT BOX
	printf '#!/bin/sh\necho "late %s" > %s/instances/"$FTK_INSTANCE"/trace_marker\n' \
		"$2" "$T" > "$tmp/late-$2"
	chmod +x "$tmp/late-$2"
	ftrecord -q -N "$1" --date -e sched:sched_process_exit -- \
		sh -c "seq 1 $marks | sed 's/^/$2-/' | ftmark; sleep 0.2; '$tmp/late-$2'" \
		> "$tmp/$2.log" 2>&1
}

# the late task's mark in each box's file: at a time of day between T0 and
# T1 in both readers; named late-BOX by both when NAMED is "named"
check_late() {	# DIR WHAT NAMED T0 T1
	local f b r line
	for f in "$1"/*.dat; do
		[ -e "$f" ] || continue
		trace-cmd report "$f" > "$tmp/tc" 2>/dev/null
		ftreport "$f" > "$tmp/ft" 2>/dev/null
		b=$(grep -o 'tracing_mark_write: [a-z0-9]*-' "$tmp/ft" | sort -u | sed 's/.*: //; s/-$//')
		is "$(grep 'tracing_mark_write: late' "$tmp/ft")" \
		   "$(grep "tracing_mark_write: late $b\$" "$tmp/ft")" \
		   "$2: $(basename "$f"): no late mark of another box"
		is "$(grep -c "tracing_mark_write: late $b\$" "$tmp/ft")" 1 \
		   "$2: $(basename "$f"): the late task's mark is there (late-$b)"
		for r in tc ft; do
			line=$(grep "tracing_mark_write: late $b\$" "$tmp/$r")
			ok "$2: $(basename "$f"): $r: its time is the time of day ($4 to $5)" \
				awk -v t0="$4" -v t1="$5" '{ t = $3 + 0; exit !(t >= t0 && t <= t1 + 1) }' <<< "$line"
			[ "$3" = named ] || continue
			ok "$2: $(basename "$f"): $r: the late task is named (late-$b)" \
				grep -q "^ *late-$b-[0-9]* " <<< "$line"
		done
	done
}

# every file in DIR: one box's markers, all of them, the same in both readers
check_files() {	# DIR WHAT BOXES...
	local dir=$1 what=$2 f b n seen=""
	shift 2
	for f in "$dir"/*.dat; do
		[ -e "$f" ] || continue
		trace-cmd report "$f" > "$tmp/tc" 2>/dev/null
		ftreport "$f" > "$tmp/ft" 2> "$tmp/fterr"
		b=$(grep -o 'tracing_mark_write: [a-z0-9]*-' "$tmp/tc" | sort -u | sed 's/.*: //; s/-$//')
		n=$(grep -c "tracing_mark_write: $b-" "$tmp/tc")
		is "$n" "$marks" "$what: $(basename "$f"): trace-cmd report finds $marks marks of one box ($b)"
		is "$(grep -c "tracing_mark_write: $b-" "$tmp/ft")" "$marks" \
			"$what: $(basename "$f"): ftreport finds them too"
		ok "$what: $(basename "$f"): the last mark is there" \
			grep -q "tracing_mark_write: $b-$marks\$" "$tmp/ft"
		same_file "$what: $(basename "$f"): ftreport prints what trace-cmd report prints" \
			"$tmp/tc" "$tmp/ft" "$tmp/fterr"
		seen="$seen $b"
	done
	is "$(echo $seen | tr ' ' '\n' | sort | tr '\n' ' ')" "$* " "$what: one file per box"
}

# 1. three ftrecord -N at once into ftrecord --listen
start_collector "$tmp/c1" "$tmp/c1.log"
[ -n "$port" ] || bail_out "the collector did not start: $(cat "$tmp/c1.log")"
t0=$(date +%s)
for b in boxa boxb boxc; do send_box "127.0.0.1:$port" "$b" & done
rcs=0
for j in $(jobs -p); do [ "$j" = "$cpid" ] && continue; wait "$j" || rcs=$?; done
t1=$(date +%s)
is "$rcs" 0 "three ftrecord -N into ftrecord --listen: every sender exits 0"
for _ in $(seq 100); do [ "$(grep -c wrote "$tmp/c1.log")" -ge 3 ] && break; sleep 0.1; done
is "$(grep -c "wrote '.*(version 7" "$tmp/c1.log")" 3 "the collector wrote three files"
check_files "$tmp/c1" "ftrecord -N -> ftrecord --listen" boxa boxb boxc
check_late "$tmp/c1" "ftrecord -N --date -> ftrecord --listen" named "$t0" "$t1"

# 2. the same into trace-cmd listen
tport=$(free_port)
mkdir "$tmp/c2"
trace-cmd listen -p "$tport" -d "$tmp/c2" > "$tmp/c2.log" 2>&1 &
tpid=$!
pids="$pids $tpid"
for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$tport " && break; sleep 0.1; done
t0=$(date +%s)
for b in boxd boxe boxf; do send_box "127.0.0.1:$tport" "$b" & done
rcs=0
for j in $(jobs -p); do [ "$j" = "$cpid" ] || [ "$j" = "$tpid" ] && continue; wait "$j" || rcs=$?; done
t1=$(date +%s)
is "$rcs" 0 "three ftrecord -N into trace-cmd listen: every sender exits 0"
# trace-cmd listen waits two seconds after CLOSE, then completes the file
for _ in $(seq 100); do
	[ "$(grep -c 'CPU1 data recorded' "$tmp/c2.log")" -ge 3 ] && break
	sleep 0.1
done
sleep 0.5
is "$(ls "$tmp/c2" | grep -c '\.dat$')" 3 "trace-cmd listen wrote three files"
check_files "$tmp/c2" "ftrecord -N -> trace-cmd listen" boxd boxe boxf
check_late "$tmp/c2" "ftrecord -N --date -> trace-cmd listen" unnamed "$t0" "$t1"
# trace-cmd listen takes nothing after the metadata: --proc-map says so
ftrecord -q -N "127.0.0.1:$tport" --proc-map -- true > "$tmp/pm2.log" 2>&1
is "$?" 0 "ftrecord -N --proc-map into trace-cmd listen"
ok "--proc-map into trace-cmd listen: the sender says the map was not stored" \
	grep -q "proc-map: not stored.*trace-cmd listen" "$tmp/pm2.log"
kill -INT "$tpid"
wait "$tpid" 2>/dev/null

# 3. trace-cmd record -N, UDP and TCP data, into ftrecord --listen. trace-cmd
# record cannot enable ftrace under lockdown (-d), and -k keeps it from
# resetting function filters it cannot write; what it leaves is put back.
on=$(cat $T/tracing_on); ft=$(cat $T/options/function-trace)
start_collector "$tmp/c3" "$tmp/c3.log"
trace-cmd record -q -d -k -p nop -N "127.0.0.1:$port" -- \
	sh -c "seq 1 $marks | sed 's/^/tcudp-/' | ftmark" > "$tmp/tr1.log" 2>&1
is "$?" 0 "trace-cmd record -N (UDP data) into ftrecord --listen"
trace-cmd record -q -d -k -p nop -t -N "127.0.0.1:$port" -- \
	sh -c "seq 1 $marks | sed 's/^/tctcp-/' | ftmark" > "$tmp/tr2.log" 2>&1
is "$?" 0 "trace-cmd record -t -N (TCP data) into ftrecord --listen"
echo "$on" > $T/tracing_on
echo "$ft" > $T/options/function-trace
for _ in $(seq 100); do [ "$(grep -c wrote "$tmp/c3.log")" -ge 2 ] && break; sleep 0.1; done
check_files "$tmp/c3" "trace-cmd record -N -> ftrecord --listen" tctcp tcudp

# 4. -B buffers: a connection each, as trace-cmd record -N makes, so a file each
rm -f "$tmp"/c3/*.dat
ftrecord -q -N "127.0.0.1:$port" -e sched:sched_process_exit -B "ftkit-t5030-$$" \
	-e sched:sched_process_fork -- sh -c 'for i in $(seq 20); do /bin/true; done' \
	> "$tmp/b.log" 2>&1
is "$?" 0 "ftrecord -N with a -B buffer beside the top one"
for _ in $(seq 100); do [ "$(ls "$tmp"/c3/*.dat 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
exits=""; forks=""
for f in "$tmp"/c3/*.dat; do
	trace-cmd report "$f" > "$tmp/tc" 2>/dev/null
	ftreport "$f" > "$tmp/ft" 2> "$tmp/fterr"
	same_file "-B over -N: $(basename "$f"): ftreport prints what trace-cmd report prints" \
		"$tmp/tc" "$tmp/ft" "$tmp/fterr"
	e=$(grep -c sched_process_exit: "$tmp/ft"); k=$(grep -c sched_process_fork: "$tmp/ft")
	[ "$e" -ge 20 ] && [ "$k" = 0 ] && exits=$f
	[ "$k" -ge 20 ] && [ "$e" = 0 ] && forks=$f
done
ok "-B over -N: one file holds the top buffer's exits (20 at least), no fork" test -n "$exits"
ok "-B over -N: the other the -B buffer's forks (20 at least), no exit" test -n "$forks"

# 4b. --proc-map over -N: the command's map at its exit, sent after the
# data; trace-cmd dump finds it under the pid the exit event names
rm -f "$tmp"/c3/*.dat
ftrecord -q -N "127.0.0.1:$port" --proc-map -F -e sched:sched_process_exit -- sleep 0.2 \
	> "$tmp/pm.log" 2>&1
is "$?" 0 "ftrecord -N --proc-map into ftrecord --listen"
for _ in $(seq 100); do ls "$tmp"/c3/*.dat > /dev/null 2>&1 && break; sleep 0.1; done
sleep 0.5
f=$(ls "$tmp"/c3/*.dat | head -1)
pid=$(trace-cmd report "$f" 2>/dev/null | sed -n 's/.*sched_process_exit: *comm=sleep pid=\([0-9]*\).*/\1/p')
trace-cmd dump --options "$f" > "$tmp/pm.dump" 2>&1
ok "--proc-map over -N: a PROCMAPS option in the file" grep -q 'Option PROCMAPS' "$tmp/pm.dump"
ok "--proc-map over -N: for the pid that exited ($pid), the program $(readlink -f "$(command -v sleep)")" \
	grep -q "^$(printf %x "${pid:-0}") [0-9a-f]* $(readlink -f "$(command -v sleep)")\$" "$tmp/pm.dump"

# 5. the collector goes away mid-recording: the sender says so, exits 2
ftrecord -N "127.0.0.1:$port" -- sh -c 'i=0; while [ $i -lt 400 ]; do
	ftmark "gone-$i"; i=$((i+1)); sleep 0.01; done' > "$tmp/gone.log" 2>&1 &
spid=$!
sleep 1
kill -9 "$cpid"
wait "$spid"; rc=$?
is "$rc" 2 "a sender whose collector died exits 2"
ok "and says why" grep -q "cannot send\|ended early" "$tmp/gone.log"
sed 's/^/# /' "$tmp/gone.log" | head -5
done_testing
