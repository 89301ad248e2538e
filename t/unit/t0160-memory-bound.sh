#!/bin/bash
# Issue 11.2: ftreport's memory is bounded by what a file holds, not by
# what its headers declare. Damaged files made from the synthetic fixtures
# by t/mkbad.py (huge page sizes, thousands of CPUs on the same data,
# chunks and sections claiming huge sizes, an options section naming
# itself; v6 and v7, compressed and not) are each read by ftreport under
# /usr/bin/time: the peak resident set (ru_maxrss of the child) must stay
# below LIMIT, the exit status is 2 and the message names the file.
# The same bound holds for the good fixtures (which must still print).
# A memory bound, not a timing one. On main before the fix the first
# v7 case reached 1.06 GB.
. "$top_srcdir/t/tap.sh"
lane unit
command -v python3 > /dev/null || skip_all "python3 is needed to craft the files"
[ -x /usr/bin/time ] || skip_all "/usr/bin/time (Debian package time) is needed"
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0160-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
LIMIT=65536	# KiB

# peak FILE: ftreport's peak RSS in KiB in $kb, its exit status in $rc
peak() {
	/usr/bin/time -f '%M' -o "$tmp/rss" ftreport -i "$1" > /dev/null 2> "$tmp/err"
	rc=$?
	kb=$(tail -1 "$tmp/rss")
}

crafted() {	# name kind args... in
	local name=$1
	shift
	if ! python3 "$top_srcdir/t/mkbad.py" "$@" "$tmp/$name.dat" 2> "$tmp/mkbad.err"; then
		ok "$name: crafted" false
		return
	fi
	peak "$tmp/$name.dat"
	ok "$name: peak RSS ${kb} KiB < $LIMIT KiB" test "${kb:-999999999}" -lt $LIMIT
	is "$rc" 2 "$name: exits 2"
	ok "$name: the message names the file ($(head -c 160 "$tmp/err"))" \
		grep -q "$name.dat" "$tmp/err"
}

crafted v6-page-2e27 v6-page 0x8000000 "$fx/synth-v6.dat"
crafted v6-page-odd v6-page 12288 "$fx/synth-v6.dat"
crafted v6-8192cpus v6-cpus 8192 "$fx/synth-v6.dat"
crafted v7-page-2e27-8cpus v7-buffer 0x8000000 8 "$fx/synth-v7-none.dat"
crafted v7-page-1m-8cpus v7-buffer 0x100000 8 "$fx/synth-v7-none.dat"
crafted v7-4096cpus v7-buffer 4096 4096 "$fx/synth-v7-none.dat"
crafted v7-zlib-page-1m v7-buffer 0x100000 8 "$fx/synth-v7-zlib.dat"
crafted v7-zlib-4096cpus v7-buffer 4096 4096 "$fx/synth-v7-zlib.dat"
crafted v7-zlib-chunk-256m v7-chunk 0x10000000 "$fx/synth-v7-zlib.dat"
crafted v7-optloop v7-optloop "$fx/synth-v7-none.dat"
crafted v7-zlib-optloop v7-optloop "$fx/synth-v7-zlib.dat"
crafted v7-section-64g v7-bigsec 0x1000000000 "$fx/synth-v7-none.dat"
crafted v7-zlib-section-64g v7-bigsec 0x1000000000 "$fx/synth-v7-zlib.dat"

for f in synth-v6 synth-v7-none synth-v7-zlib synth-v7-zstd-inst; do
	peak "$fx/$f.dat"
	ok "$f (good): peak RSS ${kb} KiB < $LIMIT KiB, exit $rc" \
		test "${kb:-999999999}" -lt $LIMIT -a "$rc" = 0
done
done_testing
