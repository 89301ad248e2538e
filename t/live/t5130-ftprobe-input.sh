#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprobe's inputs (issue 11, items 7 and 10): -p PID puts every thread of a
# process with 1000 threads into set_event_pid, not only the first 4 KB of
# the list; -n FIFO:main does not hang in open() and says that an ELF file
# is needed.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need uprobes instances
. "$top_srcdir/t/lib/probe-lib.sh"

tmp=$(mktemp -d)
many= ; pr=
cleanup() {
	[ -n "$pr" ] && kill "$pr" 2>/dev/null
	[ -n "$many" ] && kill "$many" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# -n on a FIFO with no writer: a clear error, at once (a timeout guards the hang).
mkfifo "$tmp/fifo"
timeout 10 ftprobe -n "$tmp/fifo:main" 2> "$tmp/err"; rc=$?
ok "ftprobe -n FIFO:main does not hang (rc $rc)" test $rc -ne 124
is "$rc" 2 "... exits 2"
ok "... and says a regular file is needed" grep -q "not a regular file" "$tmp/err"

# A process with 1000 threads (python3's threading: the VM's minimal python has none).
if python3 -c 'import threading' 2>/dev/null; then
	python3 -c '
import threading, time, sys
ev = threading.Event()
for i in range(999):
    threading.Thread(target=ev.wait, daemon=True).start()
print("ready", flush=True)
time.sleep(300)
' > "$tmp/ready" &
	many=$!
	for i in $(seq 1 100); do
		grep -q ready "$tmp/ready" && break
		sleep 0.1
	done
	want=$(ls /proc/$many/task | wc -l)
	ok "the workload has 1000 threads ($want)" test "$want" -ge 1000
	ftprobe -t "$TARGET:ftk_target" -p $many > /dev/null 2> "$tmp/perr" &
	pr=$!
	inst=
	for i in $(seq 1 100); do
		inst=$(cd "$T/instances" && ls -d "ftkit-probe-${pr}_"* 2>/dev/null)
		[ -n "$inst" ] && [ -n "$(cat "$T/instances/$inst/set_event_pid" 2>/dev/null)" ] && break
		sleep 0.1
	done
	got=$(tr ' ' '\n' < "$T/instances/$inst/set_event_pid" | grep -c '[0-9]')
	missing=$(ls /proc/$many/task | while read t; do
		tr ' ' '\n' < "$T/instances/$inst/set_event_pid" | grep -qx "$t" || echo $t
	done | wc -l)
	is "$got" "$want" "set_event_pid holds every thread"
	is "$missing" 0 "... each of them"
	kill -INT $pr; wait $pr; pr=
else
	skip "ftprobe -p with 1000 threads: python3 has no threading module here"
fi
done_testing
