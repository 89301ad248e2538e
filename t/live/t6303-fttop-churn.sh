#!/bin/bash
# fttop under churn: 30000 short processes, one after another. Reading
# never stops (every frame of the churn counts events, none are lost), the
# tasks view forgets the exited ones (its rows after the churn are a few,
# not 30000), its memory stays bounded, and the getppid calls the syscalls
# view counts at the same time add up to the 30000 at least.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6303
work="$top_builddir/t/helpers/fttop-work"
N=30000
inst_before=$(instances_snap '^ftkit-top-')

"$work" forks "$N" > "$tmp/work" &
wpid=$!
pids="$wpid"
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"
fttop -b --json -d 0.5 --view tasks > "$tmp/t" 2> "$tmp/t.err" &
tpid=$!
fttop -b --json -d 0.5 -e raw_syscalls --view syscalls > "$tmp/s" 2> "$tmp/s.err" &
spid=$!
pids="$pids $tpid $spid"
for f in t s; do
	wait_for "$tmp/$f.err" 'tracing in instance' || bail_out "fttop did not start: $(cat "$tmp/$f.err")"
done
n=$(wc -l < "$tmp/t")
wait_lines "$tmp/t" $((n + 1)) || bail_out "no frames from fttop --view tasks"
start=$(wc -l < "$tmp/t")
kill -USR1 "$wpid"
wait_for "$tmp/work" '^done' || bail_out "fttop-work did not finish"
end=$(wc -l < "$tmp/t")
# the exited are forgotten after some quiet frames
wait_lines "$tmp/t" $((end + 12)) || bail_out "no frames from fttop after the churn"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$tpid/status")
kill -INT "$tpid" "$spid"
wait "$tpid"; is "$?" 0 "fttop --view tasks ends with 0"
wait "$spid"; is "$?" 0 "fttop --view syscalls ends with 0"
pids="$wpid"

ok "every frame of the churn counted events (frames $start-$end)" python3 -c '
import json, sys
frames = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):int(sys.argv[3])]
bad = [i for i, f in enumerate(frames) if f["events_delta"] == 0]
print("# %d frames, %d without events" % (len(frames), len(bad)))
sys.exit(1 if bad or not frames else 0)' "$tmp/t" "$start" "$end"
is "$(json "$tmp/t" 'f["lost"]')" 0 "no event lost"
rows=$(json "$tmp/t" 'len(f["rows"])')
alive=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
diag "tasks view after the churn: $rows rows; $alive processes alive; peak RSS ${hwm} kB"
ok "the exited processes are forgotten: $rows rows after $N processes ($alive alive)" \
	test "$rows" -lt $((N / 10))
sum=$(json "$tmp/s" 'sum(r["total"] for r in f["rows"] if r["name"] == "getppid")')
ok "the syscalls view counts the $N getppid calls at least ($sum)" test "$sum" -ge "$N"

kill -TERM "$wpid"; wait "$wpid"
pids=
is "$(instances_snap '^ftkit-top-')" "$inst_before" "fttop's instances are gone"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"
done_testing
