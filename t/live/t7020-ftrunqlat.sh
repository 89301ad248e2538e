#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrunqlat on a pipe ping-pong: it sees every wake-up perf stat counts
# in the same run, each wake-up or preemption gives one sample, and the
# worst waits name both tasks.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/lat-lib.sh"

N=2000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(tracefs_dir)
before=$(tracefs_snap "$root")

# perf counts, system-wide and around the whole run, the wake-ups of tasks named
# lat-work; ftrunqlat also sees the command's one wake-up before its exec (when
# it is still named ftrunqlat), so it may see one or two more, never fewer.
if perf stat -x, -a -o "$tmp/perf" \
	-e sched:sched_wakeup --filter 'comm == "lat-work"' \
	-e sched:sched_wakeup_new --filter 'comm == "lat-work"' -- \
	ftrunqlat --json -w 3 -- "$LAT_WORK" pingpong $N >"$tmp/json" 2>"$tmp/err"; then
	perf_ok=1
else
	ftrunqlat --json -w 3 -- "$LAT_WORK" pingpong $N >"$tmp/json" 2>"$tmp/err"
	perf_ok=
fi
if json_ok; then
	ok "ftrunqlat --json gives JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/json"
	read -r wakeups preempts samples replaced pending backwards lost nworst wname woken <<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pairs"]
w = d["worst"]
print(d["wakeups"], d["preemptions"], d["latency"]["count"], p["replaced"], p["pending"],
      p["backwards"], d["lost"], len(w), w[0]["comm"] if w else "-",
      sum(1 for x in w if x["waker_comm"] in ("lat-work", "(preempted)")))' "$tmp/json")"
	ok "a ping-pong of $N round trips wakes its tasks at least $N times ($wakeups)" \
		test "$wakeups" -ge $N
	is "$samples" "$((wakeups + preempts - replaced - pending - backwards))" \
		"one sample per wake-up or preemption: $samples = $wakeups + $preempts - $replaced replaced - $pending pending"
	is "$lost" 0 "no events lost"
	if [ -n "$perf_ok" ]; then
		want=$(awk -F, '/sched_wakeup/ { s += $1 } END { print s }' "$tmp/perf")
		ok "every wake-up perf stat counted is seen ($wakeups, perf $want)" \
			test "$wakeups" -ge "$want" -a "$wakeups" -le $((want + 2))
	else
		skip "perf stat cannot count sched:sched_wakeup here"
	fi
	is "$nworst" 3 "-w 3: three worst waits"
	ok "the worst waits name the tasks ($wname) and who woke them" \
		test "$woken" -ge 1
else
	for i in 1 2 3 4 5 6 7; do skip "no python3 here to read the JSON"; done
fi

# text: bcc's histogram, per task, the worst table
ftrunqlat -P -- "$LAT_WORK" pingpong 200 >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftrunqlat -P exits 0"
is "$(grep -c '^pid = [0-9]* lat-work$' "$tmp/out")" 2 "-P: one histogram per ping-pong task"
ok "bcc's header" grep -q '^     usecs               : count     distribution$' "$tmp/out"
ok "the worst table" grep -q '^LAT(us) .*WOKEN BY' "$tmp/out"
ftrunqlat -C -m -D 1 >"$tmp/cpu" 2>"$tmp/err"
is "$?" 0 "ftrunqlat -C -m -D 1 (system-wide) exits 0"
ok "-C: histograms per CPU" grep -q '^cpu = [0-9]*$' "$tmp/cpu"

# --heatmap: the cells of the same run sum to the histogram's count
ftrunqlat -w 0 --heatmap "$tmp/rq.svg" -- "$LAT_WORK" pingpong 500 >"$tmp/h" 2>"$tmp/err"
is "$?" 0 "ftrunqlat --heatmap exits 0"
heatmap_check "$tmp/rq.svg" "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/h")" ftrunqlat
ok "ftrunqlat: the histogram is not empty" test "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/h")" -ge 500
# through the one output path: a planted link is replaced, never followed
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.svg"
ftrunqlat -w 0 --heatmap "$tmp/link.svg" -- "$LAT_WORK" pingpong 10 >/dev/null 2>&1
is "$(cat "$tmp/victim")" keep "--heatmap does not write through a link"
ftrunqlat --heatmap "$tmp/no/such/dir.svg" -D 1 >/dev/null 2>"$tmp/err"
is "$?" 2 "--heatmap in a missing directory: exit 2"
ok "... naming the file" grep -q "$tmp/no/such/dir.svg" "$tmp/err"

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(instances_snap 'ftkit-runqlat-')" "" "no instance left behind"
done_testing
