#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Never destroy what another run owns (issue 11, item 4): ftreset -B on a
# running ftrecord's instance, with -i, leaves it alone, names the owner,
# prints no "(removed)" and exits 2; with --force it resets it, and the
# recorder, whose events were turned off under it, says so and exits 2,
# still writing what it recorded before.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers

. "$top_srcdir/t/lib/recorder.sh"

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rec_cleanup; rm -rf "$tmp"' EXIT

rec_start "$tmp/a.dat" "$tmp/err" -e sched:sched_switch
inst=$(rec_instance $rec)
ok "ftrecord records in its instance ($inst)" test -n "$inst"

ftreset -B "$inst" -i > "$tmp/out" 2> "$tmp/rerr"; rc=$?
sed 's/^/# /' "$tmp/out" "$tmp/rerr"
is "$rc" 2 "ftreset -B <running ftrecord's instance> -i exits 2"
ok "it names the owner" grep -q "in use by PID $rec (ftrecord)" "$tmp/rerr"
ok "it prints no (removed)" sh -c "! grep -q removed '$tmp/out'"
ok "the instance is still there" test -d "$T/instances/$inst"
ok "its event is still on" grep -q '^sched:sched_switch$' "$T/instances/$inst/set_event"
is "$(cat "$T/instances/$inst/tracing_on")" 1 "it still records"

ftreset -n -i -a > "$tmp/out" 2>&1
ok "ftreset -n -ia names it as left alone" grep -q "$inst: in use by PID $rec" "$tmp/out"

ftreset -B "$inst" --force > "$tmp/out" 2>&1; rc=$?
is "$rc" 0 "ftreset -B --force resets it"
is "$(cat "$T/instances/$inst/set_event")" "" "... its events are off"
kill -INT $rec
wait $rec; rc=$?
sed 's/^/# /' "$tmp/err"
is "$rc" 2 "the recorder whose events were turned off under it exits 2"
ok "... and says so" grep -q "events were disabled by another program" "$tmp/err"
ok "... and still writes what it had" test -s "$tmp/a.dat"
ftreport --stat "$tmp/a.dat" > /dev/null 2>&1
is "$?" 0 "ftreport reads it"
done_testing
