#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ftinfo leaves tracefs exactly as it found it: after a run, after --json,
# and when SIGINT or SIGTERM arrive while it probes.
. "$top_srcdir/t/tap.sh"
lane live
need_root
T=$(tracefs_dir) || skip_all "no tracefs"
dump=$top_srcdir/t/lib/dump-tracefs.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Other instances and dynamic events belong to other users of this machine
# (ftinfo runs of other tests, other tools' probes): leave them out, and check
# instead that the scratch instance of each ftinfo run here is gone.
snap() {
	bash "$dump" "$T" | grep -v -e '^instances' -e '^uprobe_events: ' -e '^kprobe_events: ' \
		-e '^dynamic_events: ' -e '^synthetic_events: '
}
runs=
ftinfo_bg() {	# ftinfo ARGS... in the background; $pid
	ftinfo "$@" > /dev/null 2>&1 &
	pid=$!
	runs="$runs $pid"
}
snap > "$tmp/before"
ok "the dump covers the control files" grep -q '^current_tracer: ' "$tmp/before"

unchanged() {	# name
	snap > "$tmp/after"
	if diff -u "$tmp/before" "$tmp/after" > "$tmp/diff"; then
		ok "$1: tracefs unchanged" true
	else
		ok "$1: tracefs unchanged" false
		diag "$(cat "$tmp/diff")"
	fi
}

ftinfo_bg; wait $pid
ok "ftinfo exits 0" test $? = 0
unchanged "after ftinfo"
ftinfo_bg --json; wait $pid
unchanged "after ftinfo --json"

for sig in INT TERM; do
	for delay in 0.02 0.1 0.2; do
		ftinfo_bg
		sleep $delay
		kill -$sig $pid 2>/dev/null
		wait $pid
		unchanged "after SIG$sig at ${delay}s"
	done
done
left=
for p in $runs; do
	[ -d "$T/instances/ftkit-caps-$p" ] && left="$left ftkit-caps-$p"
done
is "$left" "" "no scratch instance of these runs left"
done_testing
