#!/bin/bash
# ftsnap: a snapshot holds what tracing saw at the moment it was taken.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances trace_marker
. "$top_srcdir/t/lib/control.sh"

ftsnap --help >/dev/null; is $? 0 "--help exits 0"
ftsnap -f -c 0 >/dev/null 2>&1; is $? 1 "--free with -c exits 1"

scratch s snap
mkdir "$T/instances/$s"
if ! has snapshot; then
	ftsnap -B "$s" -t >/dev/null 2>"$TMPD/err"; rc=$?
	is "$rc" 2 "no snapshot in this kernel: exit 2"
	ok "... saying why" grep -q 'snapshot' "$TMPD/err"
	for i in 1 2 3 4 5; do skip "snapshot: $why"; done
	done_testing
fi

echo "ftkit-before-$$" >"$T/instances/$s/trace_marker"
ftsnap -B "$s" -t; is $? 0 "take exits 0"
echo "ftkit-after-$$" >"$T/instances/$s/trace_marker"
ftsnap -B "$s" -s >"$TMPD/snap"
ok "the snapshot holds what was traced before it" grep -q "ftkit-before-$$" "$TMPD/snap"
ok "... and nothing traced after it" sh -c "! grep -q 'ftkit-after-$$' '$TMPD/snap'"
ftsnap -B "$s" -x
is "$(ftsnap -B "$s" | grep -c "ftkit-before-$$")" 0 "clear empties it"
ftsnap -B "$s" -f
ok "free frees it" grep -q 'Snapshot is freed' "$T/instances/$s/snapshot"
done_testing
