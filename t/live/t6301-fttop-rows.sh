#!/bin/bash
# fttop's memory stays bounded on a machine that makes processes all the
# time: 5000 processes making one getppid() call each give at most 4096
# rows of a task and a syscall in the psyscalls view, the rest in a row of
# other processes (pid -1), and the getppid calls in its rows, that one
# included, still add up to the 5000 (and to at least as many as the
# syscalls view counts for the same window, within the other tasks' few).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6301
work="$top_builddir/t/helpers/fttop-work"
N=5000
inst_before=$(instances_snap '^ftkit-top-')

"$work" forks "$N" > "$tmp/work" &
wpid=$!
pids="$wpid"
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"
fttop -b --json -d 0.5 -e raw_syscalls --view psyscalls > "$tmp/p" 2> "$tmp/p.err" &
ppid=$!
pids="$pids $ppid"
wait_for "$tmp/p.err" 'tracing in instance' || bail_out "fttop did not start: $(cat "$tmp/p.err")"
kill -USR1 "$wpid"
wait_for "$tmp/work" '^done' || bail_out "fttop-work did not finish"
n=$(wc -l < "$tmp/p")
wait_lines "$tmp/p" $((n + 2)) || bail_out "no frames from fttop --view psyscalls"
kill -INT "$ppid"; wait "$ppid"
is "$?" 0 "fttop ends with 0 on SIGINT"
pids="$wpid"

rows='[r for r in f["rows"] if r["name"] == "getppid"]'
tasks=$(json "$tmp/p" 'len([r for r in f["rows"] if r["pid"] >= 0])')
diag "psyscalls: $tasks rows of a task, $(json "$tmp/p" 'len(f["rows"])') in all"
ok "psyscalls: at most 4096 rows of a task and a syscall ($tasks)" test "$tasks" -le 4096
is "$(json "$tmp/p" "len([r for r in $rows if r['pid'] == -1 and r['comm'] == '<others>'])")" 1 \
	"psyscalls: one getppid row of other processes, named <others>"
sum=$(json "$tmp/p" "sum(r['lat_count'] for r in $rows)")
ok "psyscalls: the getppid pairs of its rows add up to the $N calls at least ($sum)" \
	test "$sum" -ge "$N"
is "$(json "$tmp/p" 'f["lost"]')" 0 "no event lost"

kill -TERM "$wpid"; wait "$wpid"
pids=
is "$(instances_snap '^ftkit-top-')" "$inst_before" "fttop's instance is gone"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"
done_testing
