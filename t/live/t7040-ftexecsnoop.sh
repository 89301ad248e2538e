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
	"all $N execs, in order, with comm, parent pid, result 0 and exact arguments"
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

ftexecsnoop -n child -- "$LAT_WORK" exec 3 >"$tmp/n" 2>"$tmp/err"
is "$(awk 'NR > 1' "$tmp/n" | wc -l)" 3 "-n child: the three children only"

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
