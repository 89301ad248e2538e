#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord's exit codes: 0 for --help, 1 for bad usage, 2 for what the
# kernel refuses, with the kernel's reason; nothing is left behind.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || bail_out "cannot cd to $tmp"
top_before=$(tracefs_snap "$T")
pids=

ftrecord --help > out 2> err
is "$?" 0 "--help exits 0"
ok "--help prints the usage on stdout" grep -q '^usage: ftrecord' out

# Each run's pid names its private instance, which must be gone after.
run() {
	ftrecord "$@" > out 2> err &
	local pid=$!
	pids="$pids $pid"
	wait $pid
}
usage() {	# name, args...
	local name=$1; shift
	run "$@"
	is "$?" 1 "$name exits 1"
}
usage "an unknown option" --no-such-option true
usage "-f before any -e" -f 'pid == 1' true
usage "a bad --file-version" --file-version 5 true
usage "an unknown compression" --compression lz77 true
usage "compression with version 6" --file-version 6 --compression zstd true
usage "-F without a command" -F
usage "-l without a tracer" -l schedule true
usage "an event that does not exist" -e ftk_no_such_system:ftk_no_such_event true
ok "the unknown event is named" grep -q "ftk_no_such_system:ftk_no_such_event" err
usage "an unknown -O option" -O ftk_no_such_option true

run -q -o out.dat ftk-no-such-command-$$
is "$?" 127 "a command that is not found exits 127, as in a shell"
ok "... and says so" grep -q "^ftrecord: ftk-no-such-command-$$: command not found" err
echo 'echo not run' > noexec; chmod 644 noexec
run -q -o out.dat ./noexec
is "$?" 126 "a command that cannot be executed exits 126"
ok "... and says why" grep -q "^ftrecord: cannot run './noexec': Permission denied" err
rm -f noexec
run -q -o out.dat sh -c 'exit 3'
is "$?" 3 "the command's exit status is ftrecord's"
run -q -o out.dat sh -c 'kill -USR1 $$'
is "$?" 138 "a command killed by signal N: 128+N"
run -q -o out.dat sh -c 'yes | head -1'
is "$?" 0 "the command sees SIGPIPE at its default ('yes | head -1' ends)"
rm -f out.dat

# A tracer the kernel forbids: exit 2 with the reason ftinfo gives.
if has function; then
	skip "the function tracer works on this kernel"
	skip "the function tracer works on this kernel"
else
	run -p function -o out.dat sleep 0.1
	is "$?" 2 "a forbidden tracer exits 2"
	if grep -q 'Operation not permitted' err || ! grep -qw function "$T/available_tracers"; then
		ok "the reason is given: $(head -1 err)" grep -q "cannot use tracer 'function'" err
	else
		ok "the reason is given: $(head -1 err)" false
	fi
fi
ok "no file is written after a failure" test ! -e out.dat
left=
for p in $pids; do
	compgen -G "$T/instances/ftkit-rec-${p}_*" >/dev/null && left="$left ftkit-rec-$p"
done
is "$left" "" "no private instance is left behind"
snap_is "$(tracefs_snap "$T")" "$top_before" "top-level settings unchanged"
is "$(ls -A | grep -v '^out$' | grep -v '^err$')" "" "no spool or temporary file left"
done_testing
