#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftfunclat, ftfunccount, ftfuncslower on a user function with a known
# count and a known sleep (uprobes: also on a locked-down kernel); kernel
# functions where kprobes are allowed, a plain exit 2 where not.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need uprobes
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/probe-lib.sh"
. "$top_srcdir/t/lib/lat-lib.sh"

N=12
MS=20
fn="$LAT_WORK:lat_sleep_fn"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(tracefs_dir)
before=$(tracefs_snap "$root")
probes_before=$(probe_state)

# 1: ftfunclat: every one of N calls, none faster than the sleep (nanosleep
# never returns early), so none in a row below the one holding MS msecs
ftfunclat -m -v "$fn" -- "$LAT_WORK" sleep $N $MS >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftfunclat exits 0"
is "$(awk '/count:/ { print $NF }' "$tmp/out")" $N "ftfunclat: count $N"
is "$(awk '$2 == "->" { s += $5 } END { print s }' "$tmp/out")" $N "ftfunclat: rows sum to $N"
is "$(awk '$2 == "->" && $3 < 16 { s += $5 } END { print s + 0 }' "$tmp/out")" 0 \
	"ftfunclat: no call below the 16 -> 31 msecs row of a ${MS} ms sleep"
ok "ftfunclat: bcc's header" grep -q '^     msecs               : count     distribution$' "$tmp/out"
ok "ftfunclat -v says uprobe pairs from the stream" grep -q '^ftfunclat: stream: uprobe' "$tmp/err"
ftfunclat -u --json "$fn" -- "$LAT_WORK" sleep 3 1 >"$tmp/json" 2>"$tmp/err"
json_ok || skip "no python3 here to read the JSON"
json_ok && is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["latency"];
print(l["count"], l["unit"], l["min"] >= 1000)' "$tmp/json")" "3 usecs True" \
	"ftfunclat --json: 3 calls in usecs, none under 1 ms"

# 2: ftfunccount: N calls of the function, and as many of libc's nanosleep
libc=$(ldd "$LAT_WORK" 2>/dev/null | awk '/libc.so/ { print $3 }')
[ -n "$libc" ] || libc=$(ls /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6 \
	/lib64/libc.so.6 /lib/libc.so.6 2>/dev/null | head -1)
ftfunccount "$fn" "$libc:clock_nanosleep" -- "$LAT_WORK" sleep $N 1 >"$tmp/count" 2>"$tmp/err"
is "$?" 0 "ftfunccount exits 0"
is "$(awk -v f="$fn" '$1 == f { print $2 }' "$tmp/count")" $N "ftfunccount: $N calls"
is "$(awk -v f="$libc:clock_nanosleep" '$1 == f { print $2 }' "$tmp/count")" $N \
	"ftfunccount: $N calls of libc's clock_nanosleep too"

# 3: ftfuncslower: all N over 10 ms (each sleeps 20), none over 1000 s
ftfuncslower "$fn" 10000 -- "$LAT_WORK" sleep $N $MS >"$tmp/slow" 2>"$tmp/err"
is "$?" 0 "ftfuncslower exits 0"
is "$(grep -c 'lat_sleep_fn$' "$tmp/slow")" $N "ftfuncslower: all $N calls over 10 ms"
is "$(awk '/lat_sleep_fn$/ { print $4 }' "$tmp/slow" | sort -u)" "$(printf '%x' $MS)" \
	"ftfuncslower: RVAL is the function's return value ($MS)"
ftfuncslower "$fn" 1000000000 -- "$LAT_WORK" sleep 3 1 >"$tmp/slow2" 2>"$tmp/err"
is "$(grep -c 'lat_sleep_fn$' "$tmp/slow2")" 0 "ftfuncslower: none over 1000 s"

# 3b: options anywhere before "--", also after the operands (issue 24, item 7)
ftfunclat "$fn" -u --json -- "$LAT_WORK" sleep 3 1 >"$tmp/json2" 2>"$tmp/err"
is "$?" 0 "ftfunclat FUNCTION -u --json -- COMMAND exits 0"
json_ok && is "$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency"]
print(l["count"], l["unit"])' "$tmp/json2")" "3 usecs" \
	"ftfunclat: -u and --json after FUNCTION are taken (3 calls in usecs)"
ftfuncslower "$fn" 10 -m -t -- "$LAT_WORK" sleep 3 $MS >"$tmp/slow3" 2>"$tmp/err"
is "$?" 0 "ftfuncslower FUNCTION MIN -m -t -- COMMAND exits 0"
ok "ftfuncslower: -m and -t after MIN are taken (TIME(s) and LAT(ms) columns)" \
	grep -q '^TIME(s) .*LAT(ms)' "$tmp/slow3"
is "$(grep -c 'lat_sleep_fn$' "$tmp/slow3")" 3 "ftfuncslower: MIN 10 is milliseconds: all 3 calls of $MS ms"
ftfunccount "$fn" --json "$libc:clock_nanosleep" -- "$LAT_WORK" sleep 3 1 >"$tmp/count2" 2>"$tmp/err"
is "$?" 0 "ftfunccount F1 --json F2 -- COMMAND exits 0"
json_ok && is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["functions"]
print(len(d), sorted(r["count"] for r in d))' "$tmp/count2")" "2 [3, 3]" \
	"ftfunccount: --json between the functions is taken, both counted"
ftfunclat "$fn" -u -D 0.5 >"$tmp/dur" 2>"$tmp/err"
is "$?" 0 "ftfunclat FUNCTION -u -D 0.5: a duration, not a command named -u"
ok "ftfunclat: -u after FUNCTION gives usecs" grep -q '^avg = .* usecs, total: ' "$tmp/dur"

# 3c: -t counts from the start of tracing, not from the first event: the
# command sleeps 1 s before its first call (issue 24, item 11)
ftfuncslower -t "$fn" 10000 -- sh -c 'sleep 1; exec "$0" sleep 3 '$MS "$LAT_WORK" \
	>"$tmp/slowt" 2>"$tmp/err"
is "$?" 0 "ftfuncslower -t exits 0"
first=$(awk '/lat_sleep_fn$/ { print $1; exit }' "$tmp/slowt")
ok "ftfuncslower -t: the first call, after a 1 s sleep, at 1 s or later (${first:-none})" \
	awk -v t="${first:-0}" 'BEGIN { exit !(t >= 1) }'

# 4: kernel functions: kprobes where allowed, a plain exit 2 where not
if has kprobes; then
	ftfunccount vfs_read -- cat /proc/self/stat >"$tmp/k" 2>"$tmp/err"
	is "$?" 0 "ftfunccount vfs_read (kprobes) exits 0"
	got=$(awk '$1 == "vfs_read" { print $2 }' "$tmp/k")
	ok "ftfunccount vfs_read: cat read at least once ($got)" test "${got:-0}" -ge 1
	ftfunclat -u vfs_read -- cat /proc/self/stat >"$tmp/k" 2>"$tmp/err"
	is "$?" 0 "ftfunclat vfs_read exits 0"
	ok "ftfunclat vfs_read: some calls" test "$(awk '/count:/ { print $NF }' "$tmp/k")" -ge 1
else
	ftfunclat vfs_read -D 1 >"$tmp/k" 2>"$tmp/err"
	is "$?" 2 "no kprobes ($why): ftfunclat vfs_read exits 2"
	ok "... saying why" grep -q "cannot trace kernel function 'vfs_read': kprobes: " "$tmp/err"
	skip "kprobe path: $why"
	skip "kprobe path: $why"
fi

# 5: recursion: N calls of a function DEPTH deep are N*DEPTH calls, each
# level paired with its own entry (a per-thread stack), so the outermost
# levels (DEPTH ms of sleeps at least) are in the histogram too
R=5 DEPTH=4
rfn="$LAT_WORK:lat_recurse_fn"
ftfunclat -u "$rfn" -- "$LAT_WORK" recurse $R $DEPTH >"$tmp/rec" 2>"$tmp/err"
is "$?" 0 "ftfunclat on a recursive function exits 0"
is "$(awk '/count:/ { print $NF }' "$tmp/rec")" $((R * DEPTH)) \
	"ftfunclat: $R calls $DEPTH deep are $((R * DEPTH)) samples"
is "$(awk '$2 == "->" && $3 < 1023 { s += $5 } END { print s + 0 }' "$tmp/rec")" 0 \
	"ftfunclat: none under 1 ms (every level sleeps 1 ms)"
ftfunclat -u --json "$rfn" -- "$LAT_WORK" recurse $R $DEPTH >"$tmp/rec.json" 2>"$tmp/err"
json_ok || skip "no python3 here to read the JSON"
json_ok && is "$(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latency"]
print(l["count"], l["max"] >= 4000)' "$tmp/rec.json")" "$((R * DEPTH)) True" \
	"ftfunclat --json: $((R * DEPTH)) samples, the outermost at least $DEPTH ms"
ftfuncslower "$rfn" $((DEPTH * 1000 - 500)) -- "$LAT_WORK" recurse $R $DEPTH >"$tmp/rslow" 2>"$tmp/err"
ok "ftfuncslower: the $R outermost calls (over $DEPTH ms) are seen" \
	test "$(grep -c 'lat_recurse_fn$' "$tmp/rslow")" -ge $R
is "$(awk '/lat_recurse_fn$/ && $4 == "'"$(printf '%x' $DEPTH)"'" { n++ } END { print n + 0 }' "$tmp/rslow")" $R \
	"ftfuncslower: $R of them return $DEPTH, the outermost level's value"

# 5b: -p PID ends when the process does (it went on until Ctrl-C): a
# workload of 10 calls of 200 ms; timeout's 124 would mean it did not end
"$LAT_WORK" sleep 10 200 &
wpid=$!
rc=0
timeout 60 ftfunclat -m -p $wpid "$fn" >"$tmp/pid.out" 2>"$tmp/pid.err" || rc=$?
wait $wpid
is "$rc" 0 "ftfunclat -p PID exits 0 once PID has ended"
ok "... saying so" grep -q "process $wpid ended" "$tmp/pid.err"
ok "... with the calls it saw, at most the 10 made" \
	test "$(awk '/count:/ { print $NF }' "$tmp/pid.out")" -le 10

# 6: usage
ftfunclat 2>/dev/null
is "$?" 1 "ftfunclat without a function: usage error"
ftfuncslower "$fn" 2>/dev/null
is "$?" 1 "ftfuncslower without MIN: usage error"
ftfunclat "$LAT_WORK:no_such_symbol" -D 1 >/dev/null 2>"$tmp/err"
is "$?" 2 "a missing symbol: exit 2"
ok "... naming it" grep -q no_such_symbol "$tmp/err"

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(probe_state)" "$probes_before" "no probe left behind"
is "$(instances_snap 'ftkit-func')" "" "no instance left behind"
done_testing
