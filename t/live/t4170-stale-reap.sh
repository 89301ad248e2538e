#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stale state is cleaned by the next run (issue 11, item 5): after kill -9
# of ftrecord and of its watchdog (alone, the watchdog cleans up: t4198)
# its instance stays, still recording; the next tool that creates an
# instance removes it and says so. Owners are told by PID,
# PID namespace and start time: a reused PID is stale, another
# namespace's owner and a live owner are left alone.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers
. "$top_srcdir/t/lib/recorder.sh"

T=$(tracefs_dir)
tmp=$(mktemp -d)
ns=$(stat -L -c %i /proc/self/ns/pid)
sleep 300 & other=$!
starttime() { awk '{ sub(/.*\) /, ""); print $20 }' /proc/$1/stat; }
reused="ftkit-t4170-${other}_${ns}_$(( $(starttime $other) + 1 ))"
alive="ftkit-t4170-${other}_${ns}_$(starttime $other)"
foreign="ftkit-t4170-${other}_$((ns + 1))_1"
cleanup() {
	kill $other 2>/dev/null
	for i in "$reused" "$alive" "$foreign"; do
		[ -d "$T/instances/$i" ] && rm_instance "$T/instances/$i"
	done
	rec_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

rec_start "$tmp/a.dat" "$tmp/err" -e sched:sched_switch
wd=$(rec_watchdog $rec)
ok "ftrecord has a watchdog ($wd)" test -n "$wd"
kill -9 $wd
kill -9 $rec
wait $rec 2>/dev/null
inst=$(rec_instance $rec)
ok "kill -9 leaves ftrecord's instance ($inst)" test -n "$inst"
is "$(cat "$T/instances/$inst/tracing_on" 2>/dev/null)" 1 "... still recording"
mkdir "$T/instances/$reused" "$T/instances/$alive" "$T/instances/$foreign"

ftrecord -e sched:sched_switch -o "$tmp/b.dat" -- true 2> "$tmp/err2"; rc=$?
sed 's/^/# /' "$tmp/err2"
is "$rc" 0 "the next ftrecord runs"
ok "it removed the dead run's instance" test ! -e "$T/instances/$inst"
ok "... and said so" grep -q "removed '$inst'" "$tmp/err2"
ok "an instance of a reused PID (start time differs) is removed" \
	test ! -e "$T/instances/$reused"
ok "... and said so" grep -q "removed '$reused'" "$tmp/err2"
ok "the live owner's instance stays" test -d "$T/instances/$alive"
ok "another PID namespace's instance stays" test -d "$T/instances/$foreign"
done_testing
