#!/bin/bash
# fttop's hist view on the kernel's hist file (-H in fttrigger's syntax), where
# the kernel has hist triggers (the VM lane: FTK_VM_TESTS='t63*'): a process
# making exactly N getppid() calls, with a hist trigger on raw_syscalls:sys_enter
# keyed by the system call, shows a getppid entry of hitcount N in the last
# frame; the kernel's own hist file (a second reader, cat) says the same while
# fttop runs; the frames carry no "computed in user space" note; the trigger
# goes with fttop's instance, and tracefs is as before.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6320
has hist_triggers || skip_all "hist triggers: $why"
work="$top_builddir/t/helpers/fttop-work"
[ -x "$work" ] || skip_all "t/helpers/fttop-work is not built (make check builds it)"
N=4321
inst="ftkit-t6320-$$"

"$work" getppid "$N" > "$tmp/work" &
wpid=$!
pids="$wpid"
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"

trig='raw_syscalls:sys_enter:hist:keys=id.syscall'
fttop -b --json -d 0.5 -P "$wpid" --view hist -e raw_syscalls:sys_enter -H "$trig" \
	-B "$inst" > "$tmp/hist" 2> "$tmp/hist.err" &
hpid=$!
pids="$pids $hpid"
wait_for "$tmp/hist.err" 'tracing in instance' || bail_out "fttop did not start: $(cat "$tmp/hist.err")"
hfile="$T/instances/$inst/events/raw_syscalls/sys_enter/hist"
ok "the trigger is in the instance's sys_enter" \
	grep -q 'hist:keys=id.syscall' "$T/instances/$inst/events/raw_syscalls/sys_enter/trigger"
kill -USR1 "$wpid"
wait_for "$tmp/work" '^done' || bail_out "fttop-work did not finish"
n=$(wc -l < "$tmp/hist")
wait_lines "$tmp/hist" $((n + 2)) || bail_out "no frames from fttop --view hist"
# the kernel's table, read apart from fttop while it runs
kernel=$(grep 'getppid' "$hfile" | sed -n 's/.*hitcount: *\([0-9]*\).*/\1/p')
kill -INT "$hpid"
wait "$hpid"
is "$?" 0 "fttop ends with 0 on SIGINT"
pids="$wpid"

ok "every frame is one JSON object" python3 -c 'import json, sys
for line in open(sys.argv[1]):
	json.loads(line)' "$tmp/hist"
row='[r for r in f["rows"] if "getppid" in r["name"]]'
is "$(json "$tmp/hist" "$row[0]['total'] if $row else 0")" "$N" \
	"hist view: the getppid entry's hitcount is the $N calls made"
is "$kernel" "$N" "the kernel's hist file says $N too"
is "$(json "$tmp/hist" "len($row)")" 1 "one getppid entry"
is "$(json "$tmp/hist" "'user space' in f.get('note', '')")" False \
	"the table is the kernel's, not computed in user space"
is "$(json "$tmp/hist" "[r['name'] for r in f['rows'] if r['total'] == 0]")" "[]" \
	"every entry has hits"

kill -TERM "$wpid"; wait "$wpid"
pids=
ok "the -B instance fttop created is gone, its trigger with it" test ! -d "$T/instances/$inst"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"
done_testing
