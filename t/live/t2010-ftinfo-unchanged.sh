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

# Other instances belong to other users of this machine: leave them out,
# but list scratch instances whose ftinfo is gone: those were left behind.
stale_caps() {
	local i
	for i in $(ls "$T/instances" | grep '^ftkit-caps-'); do
		kill -0 "${i#ftkit-caps-}" 2>/dev/null || printf '%s ' "$i"
	done
}
snap() {
	bash "$dump" "$T" | grep -v '^instances/' | sed 's/^instances: .*/instances: '"$(stale_caps)"'/'
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

ftinfo > /dev/null
ok "ftinfo exits 0" test $? = 0
unchanged "after ftinfo"
ftinfo --json > /dev/null
unchanged "after ftinfo --json"

for sig in INT TERM; do
	for delay in 0.02 0.1 0.2; do
		ftinfo > /dev/null 2>&1 &
		pid=$!
		sleep $delay
		kill -$sig $pid 2>/dev/null
		wait $pid
		unchanged "after SIG$sig at ${delay}s"
	done
done
is "$(stale_caps)" "" "no scratch instance left behind"
done_testing
