#!/bin/bash
# fttop -b against a workload of known counts: a process making exactly N
# getppid() calls shows a getppid row of N calls, N enter/exit pairs and no
# error; the tasks view names it; the events view's sched_switch total
# equals the number of the helper's switches that a
# trace of the same window (ftrecord, ftreport --stat) counted, and so
# does the sum of the hist view's hitcounts (the kernel's, or computed in
# user space where it has no hist triggers); every frame is valid JSON;
# tracefs is as before, also after SIGTERM.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6300
work="$top_builddir/t/helpers/fttop-work"
N=54321
inst="ftkit-t6100-$$"

inst_before=$(instances_snap '^ftkit-top-')

"$work" getppid "$N" > "$tmp/work" &
wpid=$!
pids="$wpid"
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"

fttop -b --json -d 0.3 -P "$wpid" --view syscalls > "$tmp/sys" 2> "$tmp/sys.err" &
spid=$!
fttop -b --json -d 0.3 -P "$wpid" --view tasks > "$tmp/tasks" 2> "$tmp/tasks.err" &
tpid=$!
fttop -b --json -d 0.3 -P "$wpid" --view events -B "$inst" > "$tmp/ev" 2> "$tmp/ev.err" &
epid=$!
fttop -b --json -d 0.3 -P "$wpid" --view hist -e sched:sched_switch \
	-H 'sched:sched_switch:hist:keys=next_comm' > "$tmp/hist" 2> "$tmp/hist.err" &
hpid=$!
ftrecord -e sched:sched_switch -P "$wpid" -o "$tmp/ref.dat" > "$tmp/rec.out" 2> "$tmp/rec.err" &
rpid=$!
pids="$pids $spid $tpid $epid $hpid $rpid"
for f in sys tasks ev hist; do
	wait_for "$tmp/$f.err" 'tracing in instance' || bail_out "fttop did not start: $(cat "$tmp/$f.err")"
done
wait_for "$tmp/rec.err" 'Ctrl-C' || bail_out "ftrecord did not start: $(cat "$tmp/rec.err")"
kill -USR1 "$wpid"
wait_for "$tmp/work" '^done' || bail_out "fttop-work did not finish"
# The helper now sleeps: the count of its switches stands still.
kill -INT "$rpid"; wait "$rpid"
is "$?" 0 "the reference trace is recorded"
hits=$(ftreport --stat "$tmp/ref.dat" | awk '$1 == "sched:sched_switch" { print $2 }')
# Two more frames of each: the buffers were drained after the work ended.
for f in sys tasks ev hist; do
	n=$(wc -l < "$tmp/$f")
	wait_lines "$tmp/$f" $((n + 2)) || bail_out "no frames from fttop --view $f"
done
kill -INT "$spid" "$tpid"
kill -TERM "$epid" "$hpid"
wait "$spid"; is "$?" 0 "fttop ends with 0 on SIGINT"
wait "$tpid"
wait "$epid"; is "$?" 0 "fttop ends with 0 on SIGTERM"
wait "$hpid"
pids="$wpid"

ok "every frame is one JSON object" python3 -c 'import json, sys
for name in sys.argv[1:]:
	for line in open(name):
		json.loads(line)' "$tmp/sys" "$tmp/tasks" "$tmp/ev" "$tmp/hist"

row='[r for r in f["rows"] if r["name"] == "getppid"]'
is "$(json "$tmp/sys" "$row[0]['total'] if $row else 0")" "$N" "syscalls view: $N getppid calls"
is "$(json "$tmp/sys" "$row[0]['errors'] if $row else -1")" 0 "syscalls view: no getppid failed"
is "$(json "$tmp/sys" "$row[0]['lat_count'] if $row else 0")" "$N" \
	"syscalls view: $N getppid enter/exit pairs"
is "$(json "$tmp/sys" "(lambda r: 0 < r['lat_avg_ns'] <= r['lat_max_ns'] and 0 < r['lat_p99_ns'] <= r['lat_max_ns'] or r)($row[0]) if $row else 0")" True \
	"syscalls view: average and p99 above 0, not above the maximum"
is "$(json "$tmp/sys" 'f["lost"]')" 0 "no event lost"

task="[r for r in f['rows'] if r['id'] == $wpid]"
is "$(json "$tmp/tasks" "$task[0]['comm'] if $task else ''")" "fttop-work" "tasks view names the task"
ok "tasks view: its events are at least 2N (getppid enter and exit)" \
	test "$(json "$tmp/tasks" "$task[0]['total'] if $task else 0")" -ge $((2 * N))

sw='[r for r in f["rows"] if r["name"] == "sched:sched_switch"]'
is "$(json "$tmp/ev" "$sw[0]['total'] if $sw else 0")" "$hits" \
	"events view: sched_switch total equals the reference trace's"
ok "the helper switched at least twice" test "${hits:-0}" -ge 2
is "$(json "$tmp/hist" 'sum(r["total"] for r in f["rows"])')" "$hits" \
	"hist view: the hitcounts add up to the reference trace's sched_switch count"
ok "hist view: an entry for the helper's name" \
	test "$(json "$tmp/hist" '[r["name"] for r in f["rows"] if "fttop-work" in r["name"]] != []')" = True

kill -TERM "$wpid"; wait "$wpid"
pids=
is "$(instances_snap '^ftkit-top-')" "$inst_before" "fttop's instances are gone"
ok "the -B instance fttop created is gone" test ! -d "$T/instances/$inst"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"

timeout 20 fttop --json < /dev/null > /dev/null 2>&1; is "$?" 1 "--json without -b is a usage error"
timeout 20 fttop -b --view nope > /dev/null 2>&1; is "$?" 1 "an unknown view is a usage error"
timeout 20 fttop -b -n 1 -d 0.2 -e nosuchsys:nosuchevent > /dev/null 2> "$tmp/err"; rc=$?
is_exit "$rc" 2 "no event that can be enabled: exit 2" "$tmp/err"
ok "  and says which" grep -q "nosuchsys:nosuchevent" "$tmp/err"
is "$(instances_snap '^ftkit-top-')" "$inst_before" "no instance left after the failure"
done_testing
