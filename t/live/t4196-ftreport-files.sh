#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 16.4: two files recorded at once on this host (two ftrecord runs,
# each in its own instance) merge into one time-ordered report. One
# workload, pinned to one CPU, writes N numbered markers alternately into
# the two instances' trace_marker: `ftreport -i A -i B` must print the N
# markers in the workload's order, even ones tagged with A, odd ones with
# B; trace-cmd report -i A -i B must agree; and --offset B=+1000 s must put
# all of B's markers after A's.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
IA=ftkit-t4196a-$$
IB=ftkit-t4196b-$$
tmp=$(mktemp -d)
trap 'touch "$tmp/stop"; wait; rm -rf "$tmp"; rmdir_instance "$IA"; rmdir_instance "$IB"' EXIT
N=200
mkdir "$T/instances/$IA" "$T/instances/$IB"

# each recorder's command says it runs, then waits for the workload to end
for x in a b; do
	I=$IA; [ $x = b ] && I=$IB
	ftrecord -q -B "$I" -o "$tmp/$x.dat" \
		bash -c "touch $tmp/ready-$x; while [ ! -e $tmp/stop ]; do sleep 0.05; done" \
		2> "$tmp/err-$x" &
done
for i in $(seq 200); do
	[ -e "$tmp/ready-a" ] && [ -e "$tmp/ready-b" ] && break
	sleep 0.1
done
ok "both recorders run" test -e "$tmp/ready-a" -a -e "$tmp/ready-b"
taskset -c 0 bash -c '
	i=0
	while [ $i -lt '$N' ]; do
		if [ $((i % 2)) = 0 ]; then f='"$T/instances/$IA"'/trace_marker; else f='"$T/instances/$IB"'/trace_marker; fi
		echo "ftk4195 line $i" > $f
		i=$((i + 1))
	done'
touch "$tmp/stop"
wait
ok "both files written" test -s "$tmp/a.dat" -a -s "$tmp/b.dat"

# "FILE line K" for every marker line of a merged report, in order
marks() {
	sed -n 's/^ *\([^ ]*\.dat\): .*tracing_mark_write: ftk4195 \(line [0-9]*\)$/\1 \2/p'
}
want=$(for i in $(seq 0 $((N - 1))); do
	if [ $((i % 2)) = 0 ]; then echo "a.dat line $i"; else echo "b.dat line $i"; fi
done)
cd "$tmp" || exit 1
ftreport -i a.dat -i b.dat > merged 2> err; rc=$?
is_exit "$rc" 0 "ftreport -i a.dat -i b.dat exits 0" err
is "$(marks < merged)" "$want" "the $N markers come in the workload's order, each tagged with its file"
is "$(sed -n 1,2p merged)" "a.dat: cpus=$(nproc)
b.dat: cpus=$(nproc)" "each file's cpus= line comes first, tagged"
prev=0 sorted=1
while read -r ts; do
	awk -v a="$prev" -v b="$ts" 'BEGIN { exit !(b + 0 < a + 0) }' && sorted=0
	prev=$ts
done < <(sed -n 's/^.*\] *\([0-9.]*\): .*/\1/p' merged)
is "$sorted" 1 "the merged report is in time order"

if command -v trace-cmd > /dev/null; then
	trace-cmd report -i a.dat -i b.dat > tc 2> /dev/null
	is "$(marks < tc)" "$want" "trace-cmd report -i a.dat -i b.dat prints the same order"
	is "$(grep -c . merged)" "$(grep -c . tc)" "and as many lines as ftreport"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi

ftreport -i a.dat -i b.dat --offset b.dat=1000000000000 > shifted 2> err
want2=$( (echo "$want" | grep '^a'; echo "$want" | grep '^b') )
is "$(marks < shifted)" "$want2" "--offset b.dat=1000 s: every a.dat marker, then every b.dat one"
ftreport -i a.dat -i b.dat --offset c.dat=5 > /dev/null 2> err; rc=$?
is "$rc" 1 "--offset naming no -i file is a usage error"
done_testing
