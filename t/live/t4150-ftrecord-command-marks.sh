#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command ftrecord runs is told which instance records it
# (FTK_INSTANCE), and the marks it makes with ftmark land in the file
# exactly once each, with or without -B, on any kernel.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
N=20

workload() {
	# Where the marks go, and that it is a live instance while we run.
	echo "$FTK_INSTANCE" > "$tmp/inst"
	[ -d "$T/instances/$FTK_INSTANCE" ] && echo yes > "$tmp/exists"
	i=0
	while [ $i -lt $N ]; do ftmark "ftk4150 mark $i"; i=$((i + 1)); done
}
export -f workload
export T N tmp

ftrecord -q -e sched:sched_switch -o "$tmp/a.dat" -- bash -c workload
is "$?" 0 "ftrecord runs the command"
inst=$(cat "$tmp/inst")
ok "the command is given its private instance: '$inst'" grep -q '^ftkit' <<< "$inst"
is "$(cat "$tmp/exists" 2>/dev/null)" yes "the instance exists while the command runs"
ok "the private instance is gone afterwards" test ! -d "$T/instances/$inst"
got=$(ftreport -i "$tmp/a.dat" | grep -c 'tracing_mark_write: ftk4150 mark')
is "$got" "$N" "every mark of the command is in the file once"
is "$(ftreport -i "$tmp/a.dat" | grep -o 'ftk4150 mark [0-9]*' | sed 's/.* //' | tr '\n' ' ')" \
	"$(seq 0 $((N - 1)) | tr '\n' ' ')" "in order"

B=ftkit-t4150-$$
ftrecord -q -B "$B" -o "$tmp/b.dat" -- bash -c workload
is "$(cat "$tmp/inst")" "$B" "with -B the command is given that instance"
is "$(ftreport -i "$tmp/b.dat" | grep -c 'ftk4150 mark')" "$N" "and its marks are recorded"
ok "an instance ftrecord created for -B is removed" test ! -d "$T/instances/$B"
done_testing
