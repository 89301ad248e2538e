#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftexecsnoop sees all of 200 short-lived execs with their exact arguments,
# parent and result, and failed execs with -x.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events
need uprobes
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/probe-lib.sh"
. "$top_srcdir/t/lib/lat-lib.sh"
# microseconds of the wall clock, from bash itself (the VM's date has no %N);
# bounds from it are orders of events, never thresholds of speed
now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }

N=200
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(tracefs_dir)
before=$(tracefs_snap "$root")
probes_before=$(probe_state)

# lat-work exec N exits non-zero unless every child exited with its status I % 7
ftexecsnoop -v -- "$LAT_WORK" exec $N >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftexecsnoop -- COMMAND exits 0 (every child exited with its own status)"
parent=$(awk '$5 ~ /lat-work$/ && $6 == "exec" { print $2 }' "$tmp/out")
want=$(for ((i = 0; i < N; i++)); do echo "lat-work $parent 0 lat-work child $i x-$i"; done)
is "$(awk '$6 == "child" { print $1, $3, $4, $5, $6, $7, $8 }' "$tmp/out")" "$want" \
	"all $N execs, in order, with comm, parent pid, result 0 and exact arguments" ||
	diag "the command's own exec: $(awk '$3 != "" && NR == 2' "$tmp/out")"
is "$(awk '$6 == "child" { print $2 }' "$tmp/out" | sort -u | wc -l)" $N "$N distinct pids"
ok "-v says where the arguments come from" grep -q '^ftexecsnoop: stream: .*uprobe' "$tmp/err"

# bash, not sh: the arguments come from a uprobe on libc's execve, and the
# VM's sh is a static busybox that calls the syscall itself.
ftexecsnoop --json -x -- bash -c '/nonexistent/ftkit-x a1 a2; exit 0' >"$tmp/x" 2>"$tmp/err"
json_ok || skip "no python3 here to read the JSON"
json_ok && is "$(python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
print(sum(1 for x in r if x["args"] == "/nonexistent/ftkit-x a1 a2" and x["ret"] == -2),
      sum(1 for x in r if x["ret"] >= 0))' "$tmp/x")" "1 0" \
	"-x --json: the failed exec with ENOENT and its arguments, no successful one"

# An argument with a newline, an escape sequence and a byte past ASCII: shown
# with strace's escapes, on its own line, no line forged from it.
arg=$(printf 'x\nroot 1 0 0 /sbin/fake\033[2J\377')
ftexecsnoop -- bash -c 'exec /bin/true "$1"' sh "$arg" >"$tmp/h" 2>"$tmp/err"
strace -qq -e trace=write -s 300 -o "$tmp/strace" printf %s "$arg" >/dev/null 2>&1
esc=$(sed -n 's/^write(1, "\(.*\)", [0-9]*) *= [0-9]*$/\1/p' "$tmp/strace")
if [ -n "$esc" ]; then
	is "$(grep -cF -- " /bin/true $esc" "$tmp/h")" 1 "a hostile argument with strace's escapes ($esc)"
else
	skip "strace did not run here"
fi
is "$(grep -c '^root 1 0 0' "$tmp/h")" 0 "no line forged by a newline in an argument"
ok "no control byte but newline in the text" \
	bash -c "! LC_ALL=C grep -q \$'[\\x01-\\x09\\x0b-\\x1f\\x7f-\\xff]' '$tmp/h'"

ftexecsnoop -n child -- "$LAT_WORK" exec 3 >"$tmp/n" 2>"$tmp/err"
is "$(awk 'NR > 1' "$tmp/n" | wc -l)" 3 "-n child: the three children only"

# -t counts from the start of tracing, as every latency tool's -t: with a
# command, from just before its exec, so its own exec is a moment after
# zero (not zero: the first event is not the zero), and an exec after a
# half-second sleep half a second on; no later than the test's own clock
# says the run took. The --json time key has the same zero.
t0=$(now_us)
ftexecsnoop -t -- bash -c 'sleep 0.5; exec /bin/true ftkit-t-mark' >"$tmp/t" 2>"$tmp/err"
is "$?" 0 "ftexecsnoop -t -- COMMAND exits 0" || sed 's/^/# /' "$tmp/err"
took=$(($(now_us) - t0))
first=$(awk 'NR == 2 { print $1 }' "$tmp/t")
mark=$(awk '$2 == "true" && $NF == "ftkit-t-mark" { print $1 }' "$tmp/t")
ok "-t: the command's own exec (the first line) after zero, within the run ($first s, the run took $took us)" \
	awk -v t="$first" -v w="$took" 'BEGIN { exit !(t >= 0 && t * 1e6 < w) }'
ok "-t: the exec after 'sleep 0.5' at least 0.5 s on, within the run ($mark s, the run took $took us)" \
	awk -v t="$mark" -v w="$took" 'BEGIN { exit !(t >= 0.5 && t * 1e6 < w) }'
ftexecsnoop --json -- bash -c 'sleep 0.5; exec /bin/true ftkit-t-mark' >"$tmp/tj" 2>"$tmp/err"
json_ok && is "$(python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
m=[x["time"] for x in r if x["args"] == "/bin/true ftkit-t-mark"]
print(0 <= r[0]["time"], len(m) == 1 and 0.5 <= m[0])' "$tmp/tj")" "True True" \
	"--json: the time key from the start of tracing too"
json_ok || skip "no python3 here to read the JSON"
# System-wide: from the start, which is before the tool says "Tracing...":
# an exec half a second after that line is at least 0.5 s on, and no more
# than the test's clock says passed since the tool was started. Between the
# two, no exec of the test's own (bash's builtins, read -t on a fifo for
# the pauses): on a quiet box the mark is the first event, which was the
# zero, so 0.000000.
mkfifo "$tmp/pause"
exec 9<>"$tmp/pause"
t0=$(now_us)
ftexecsnoop -t -n ftkit-t-wide -D 10 >"$tmp/w" 2>"$tmp/werr" &
tool=$!
for ((i = 0; i < 600; i++)); do
	while IFS= read -r l; do [[ $l == Tracing* ]] && break 2; done <"$tmp/werr"
	read -t 0.1 -u 9
done
read -t 0.5 -u 9
/bin/true ftkit-t-wide
took=$(($(now_us) - t0))
kill -INT "$tool"
wait "$tool"
is "$?" 0 "ftexecsnoop -t system-wide, ended by SIGINT, exits 0" || sed 's/^/# /' "$tmp/werr"
exec 9<&-
mark=$(awk '$2 == "true" && $NF == "ftkit-t-wide" { print $1 }' "$tmp/w")
ok "-t system-wide: an exec 0.5 s after 'Tracing...' at least 0.5 s on ($mark s, $took us since the tool's start)" \
	awk -v t="$mark" -v w="$took" 'BEGIN { exit !(t >= 0.5 && t * 1e6 < w) }'

# perf-tools' and bcc's execsnoop need kprobes or BPF
if has kprobes; then
	skip "no comparison with execsnoop-perf in this test yet (kprobes are there)"
else
	skip "execsnoop-perf and execsnoop-bpfcc need kprobes/BPF: $why"
fi

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(probe_state)" "$probes_before" "no probe left behind"
is "$(instances_snap 'ftkit-execsnoop-')" "" "no instance left behind"
done_testing
