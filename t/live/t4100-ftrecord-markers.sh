#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord -> trace-cmd report: a file of N trace_marker lines holds exactly
# those N lines, in order, in every file version and compression that the
# installed trace-cmd reads; and the instance is left as it was found.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
I=ftkit-t4100-$$
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rmdir_instance "$I"' EXIT
N=300

# A workload that writes N numbered markers into the instance.
markers() {
	local i=0
	while [ $i -lt $N ]; do
		echo "ftk4100 line $i" > "$T/instances/$I/trace_marker"
		i=$((i + 1))
	done
}
export -f markers
export T I N

# The lines trace-cmd report prints for the markers, as "line K".
report_lines() {
	trace-cmd report -i "$1" 2>/dev/null | sed -n 's/.*tracing_mark_write: ftk4100 \(line [0-9]*\)$/\1/p'
}
want=$(seq 0 $((N - 1)) | sed 's/^/line /')

have_tc=1
command -v trace-cmd >/dev/null || have_tc=0
zlib_ok=0
[ $have_tc = 1 ] && trace-cmd list -c 2>/dev/null | grep -qw zlib && zlib_ok=1

# The instance exists before, with settings of its own, and must read the same after.
mkdir "$T/instances/$I"
echo 30 > "$T/instances/$I/buffer_percent"
before=$(tracefs_snap "$T/instances/$I")
top_before=$(tracefs_snap "$T")

for variant in "v7:" "v6:--file-version 6" "zstd:--compression zstd" "zlib:--compression zlib"; do
	name=${variant%%:*}
	args=${variant#*:}
	out="$tmp/$name.dat"
	ftrecord -q -B "$I" $args -o "$out" bash -c markers 2> "$tmp/err"
	is_exit "$?" 0 "$name: ftrecord exits 0" "$tmp/err"
	ok "$name: file written" test -s "$out"
	if [ $have_tc = 0 ]; then
		skip "$name: trace-cmd is not installed"
	elif [ $name = zlib ] && [ $zlib_ok = 0 ]; then
		skip "$name: this trace-cmd cannot read zlib files (trace-cmd list -c)"
	else
		is "$(report_lines "$out")" "$want" "$name: trace-cmd report shows the $N markers in order"
	fi
	snap_is "$(tracefs_snap "$T/instances/$I")" "$before" "$name: instance settings put back"
done

# The header says what it is.
if [ $have_tc = 1 ]; then
	v=$(trace-cmd dump --summary -i "$tmp/v6.dat" 2>/dev/null | awk '/\[Version\]/ {print $1}')
	is "$v" 6 "--file-version 6 writes version 6"
	v=$(trace-cmd dump --summary -i "$tmp/zstd.dat" 2>/dev/null | awk '/\[Compression algorithm\]/ {print $1}')
	is "$v" zstd "--compression zstd is recorded in the header"
	validates() { trace-cmd dump -v -i "$1" >/dev/null 2>&1; }
	ok "trace-cmd dump -v validates the v7 file" validates "$tmp/v7.dat"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi

snap_is "$(tracefs_snap "$T")" "$top_before" "top-level settings unchanged"
ok "the instance ftrecord was given is still there" test -d "$T/instances/$I"
is "$(ls "$tmp" | grep -v '\.dat$' | grep -v '^err$')" "" "no spool or temporary file left next to the output"
done_testing
