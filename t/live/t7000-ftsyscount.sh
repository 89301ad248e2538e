#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftsyscount counts exactly the syscalls of a workload with a known count,
# agrees with perf stat's tracepoint counts, and puts tracefs back.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/lat-lib.sh"
. "$top_srcdir/t/lib/fttop-json.sh"	# wait_for

N=20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(tracefs_dir)
before=$(tracefs_snap "$root")

# 1: N getppid of COMMAND, from the stream; and by process
ftsyscount -v -e getppid -- "$LAT_WORK" getppid $N >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftsyscount -- COMMAND exits with COMMAND's status (0)"
is "$(awk '$1 == "getppid" { print $2 }' "$tmp/out")" $N "getppid counted exactly $N times"
ok "-v says which path made the numbers" grep -Eq '^ftsyscount: (stream|kernel|counters): ' "$tmp/err"
ok "no lost events reported" bash -c "! grep -q Lost '$tmp/out'"

ftsyscount -LP --json -e getppid -- "$LAT_WORK" getppid $N >"$tmp/json" 2>"$tmp/err"
is "$?" 0 "-LP --json exits 0"
if json_ok; then
	is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
r=d["rows"]; print(len(r), r[0]["count"], r[0]["latency"]["count"], r[0]["name"])' "$tmp/json")" \
		"1 $N $N lat-work" "--json: one process, $N calls, $N latencies, comm lat-work"
else
	skip "no python3 here to read the JSON"
fi

# 2: everything the command does, against perf stat's tracepoint counts, in
# the environment ftsyscount gives its command (t/lib/lat-lib.sh)
lat_env_of ftsyscount
ftsyscount -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/all" 2>"$tmp/err"
for sc in openat close getppid; do
	if lat_env perf stat -x, -e "syscalls:sys_exit_$sc" -o "$tmp/perf" -- \
		"$LAT_WORK" open /nonexistent/ftkit 50 2>/dev/null; then
		want=$(awk -F, '/sys_exit/ { print $1 }' "$tmp/perf")
		got=$(awk -v s=$sc '$1 == s { print $2 }' "$tmp/all")
		is "${got:-0}" "${want:-?}" "$sc: perf stat -e syscalls:sys_exit_$sc agrees"
	else
		skip "perf stat cannot count syscalls:sys_exit_$sc here"
	fi
done

# 3: -x counts failures only: the failed openat, as perf counts them with a filter
ftsyscount -x -e openat -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/x" 2>"$tmp/err"
got=$(awk '$1 == "openat" { print $2 }' "$tmp/x")
ok "-x: at least the 50 failed opens" test "${got:-0}" -ge 50
if lat_env perf stat -x, -e syscalls:sys_exit_openat --filter 'ret < 0' -o "$tmp/perf" -- \
	"$LAT_WORK" open /nonexistent/ftkit 50 2>/dev/null; then
	is "$got" "$(awk -F, '/sys_exit/ { print $1 }' "$tmp/perf")" \
		"-x: as many failed openat as perf stat --filter 'ret < 0'"
else
	skip "perf stat cannot filter syscalls:sys_exit_openat here"
fi
ftsyscount -x -e openat -- "$LAT_WORK" open /proc/self/stat 50 >"$tmp/x2" 2>"$tmp/err"
got=$(awk '$1 == "openat" { print $2 }' "$tmp/x2")
want=$(awk '$1 == "openat" { print $2 }' "$tmp/x")
is "$got" "$((want - 50))" "-x: opens that succeed are not counted"

# 4: -p PID, -D: a process running before the tool
"$LAT_WORK" sleep 1000 20 & pid=$!
ftsyscount -p $pid -e clock_nanosleep -D 1 >"$tmp/p" 2>"$tmp/err"
is "$?" 0 "-p PID -D 1 exits 0"
got=$(awk '$1 == "clock_nanosleep" { s += $2 } END { print s + 0 }' "$tmp/p")
kill $pid; wait $pid 2>/dev/null
ok "-p: the sleeping process's clock_nanosleep calls are seen ($got)" test "$got" -ge 1

# 5: errors
ftsyscount -e nosuchcall 2>"$tmp/err"
is "$?" 1 "an unknown syscall is a usage error"
ftsyscount -p 1 -- true 2>"$tmp/err"
is "$?" 1 "-p with a COMMAND is a usage error"
ftsyscount -- /nonexistent/cmd 2>"$tmp/err"
is "$?" 127 "a missing COMMAND exits 127, as a shell"

# 6: counts alone come from perf_event counters on syscalls:sys_exit_*
# (-v says so), and --stream from the records: both count exactly N getppid
# calls of a known pid (-p, a process waiting on a fifo, then exec'ing the
# loop), and give the same table for the same COMMAND
count_pid() {	# OUT ERR [ARGS...]: ftsyscount -p of a process doing N getppid
	local out=$1 err=$2 wpid tpid
	shift 2
	rm -f "$tmp/go"
	mkfifo "$tmp/go"
	sh -c 'read x <"$0"; exec "$1" getppid "$2"' "$tmp/go" "$LAT_WORK" $N & wpid=$!
	ftsyscount -v -e getppid -p $wpid "$@" >"$out" 2>"$err" & tpid=$!
	wait_for "$err" '^Tracing' || echo "no Tracing... line" >>"$err"
	echo go >"$tmp/go"
	wait $wpid
	kill -INT $tpid
	wait $tpid
}
count_pid "$tmp/cp" "$tmp/cperr"
is "$?" 0 "counter path: -p PID, ended by SIGINT, exits 0"
ok "counter path: -v names it" \
	grep -q '^ftsyscount: counters: perf_event on 1 tracepoint (syscalls:sys_exit_getppid)' "$tmp/cperr"
is "$(awk '$1 == "getppid" { print $2 }' "$tmp/cp")" $N \
	"counter path: exactly $N getppid calls of the pid"
count_pid "$tmp/sp" "$tmp/sperr" --stream
is "$?" 0 "--stream: -p PID, ended by SIGINT, exits 0"
ok "--stream: -v names the stream path" grep -q '^ftsyscount: stream: ' "$tmp/sperr"
is "$(awk '$1 == "getppid" { print $2 }' "$tmp/sp")" $N \
	"stream path: exactly $N getppid calls of the pid"
ftsyscount -v -- "$LAT_WORK" getppid $N >"$tmp/c" 2>"$tmp/cerr"
ftsyscount --stream -- "$LAT_WORK" getppid $N >"$tmp/s" 2>"$tmp/serr"
ok "counter path: every syscall's tracepoint counted" \
	grep -Eq '^ftsyscount: counters: perf_event on [0-9]{3} tracepoints \(syscalls:sys_exit_\*\), on COMMAND' \
	"$tmp/cerr"
is "$(cat "$tmp/c")" "$(cat "$tmp/s")" "COMMAND: the counter path's table is the stream path's"
ftsyscount -x -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/c" 2>"$tmp/cerr"
ftsyscount -x --stream -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/s" 2>"$tmp/serr"
is "$(cat "$tmp/c")" "$(cat "$tmp/s")" "-x: the counter path's failures are the stream path's"
ftsyscount --json -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/c" 2>"$tmp/cerr"
ftsyscount --json --stream -- "$LAT_WORK" open /nonexistent/ftkit 50 >"$tmp/s" 2>"$tmp/serr"
is "$(cat "$tmp/c")" "$(cat "$tmp/s")" "--json: the counter path's rows (counts, errors) are the stream path's"
# too few descriptors for a counter a syscall: -v says so, the stream counts
(ulimit -n 200; ftsyscount -v -- "$LAT_WORK" getppid $N) >"$tmp/c" 2>"$tmp/cerr"
ok "no counter path under ulimit -n 200, -v says why" \
	grep -q '^ftsyscount: no counter path: .* more than the open file limit' "$tmp/cerr"
is "$(awk '$1 == "getppid" { print $2 }' "$tmp/c")" $N "... and the other path counts $N getppid"
# a call whose tracepoint the kernel names otherwise (sys_exit_newuname)
ftsyscount -e uname -- uname >"$tmp/c" 2>"$tmp/cerr"
ftsyscount -e uname --stream -- uname >"$tmp/s" 2>"$tmp/serr"
is "$(awk '$1 == "uname" { print $2 }' "$tmp/c")" "$(awk '$1 == "uname" { print $2 }' "$tmp/s")" \
	"-e uname: the counter path counts it as the stream path does"
ftsyscount -L -v -e getppid -- true >/dev/null 2>"$tmp/lerr"
ok "-L: no counter path, -v says why" grep -q '^ftsyscount: no counter path: -L needs the records' \
	"$tmp/lerr"

# 7: the kernel path (a synthetic event from sys_enter to sys_exit, hists
# on it and on sys_exit) and --stream agree on N getppid calls: both count
# exactly N, by syscall and by process, and pair all N with their entry
ftsyscount -L -v -e getppid -- "$LAT_WORK" getppid $N >"$tmp/k" 2>"$tmp/kerr"
if grep -q '^ftsyscount: kernel: .*synthetic' "$tmp/kerr"; then
	ftsyscount -L -v --stream -e getppid -- "$LAT_WORK" getppid $N >"$tmp/s" 2>"$tmp/serr"
	ok "--stream: the stream path" grep -q '^ftsyscount: stream: ' "$tmp/serr"
	kc=$(awk '$1 == "getppid" { print $2 }' "$tmp/k")
	sc=$(awk '$1 == "getppid" { print $2 }' "$tmp/s")
	is "$kc" $N "kernel path: -L counts getppid exactly $N times"
	is "$sc" $N "stream path: -L counts getppid exactly $N times"
	ok "kernel path: all $N paired with their entry" \
		grep -q "^ftsyscount: $N syscalls, $N paired" "$tmp/kerr"
	ok "stream path: all $N paired with their entry" \
		grep -q "^ftsyscount: $N syscalls, $N paired" "$tmp/serr"
	kt=$(awk '$1 == "getppid" { print $3 }' "$tmp/k")
	# in microseconds with the nanoseconds after the point ("57087.130")
	ok "kernel path: a total time in getppid ($kt us)" awk -v t="${kt:-0}" 'BEGIN { exit !(t + 0 > 0) }'
	ftsyscount -LP -v -e getppid -- "$LAT_WORK" getppid $N >"$tmp/kp" 2>"$tmp/kerr"
	is "$(awk '$2 == "lat-work" { print $3 }' "$tmp/kp")" $N \
		"kernel path -LP: $N calls of the process, named lat-work"
	is "$(synth_left "$root")" 0 "no synthetic event left behind"
else
	kernel_path_skip 8 "$tmp/kerr"
fi

# The counters are let go by a child left behind (the kernel takes ~50 ms
# a tracepoint to release them): it ends, and holds nothing after.
rel_left() {	# processes named ftsyscount-rel (no pgrep in the VM lane)
	grep -lx ftsyscount-rel /proc/[0-9]*/comm 2>/dev/null | wc -l
}
for i in $(seq 1 1200); do
	[ "$(rel_left)" = 0 ] && break
	sleep 0.1
done
is "$(rel_left)" 0 "the counters' releasing child has ended"
snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(instances_snap 'ftkit-syscount-')" "" "no instance left behind"
done_testing
