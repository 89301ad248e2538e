#!/bin/bash
# Issue 16.3 through the command line: ftreport on copies of the v6 and v7
# fixtures cut short prints what survived, warns on stderr with the offset
# and what was lost, and exits 2. What it prints is checked against the
# whole file's report (trace-cmd report's text, see t/fixtures): for each
# CPU, its lines are the first lines of that CPU, and all of them come in
# the whole report's order. t0125 does the same through the library at
# most byte lengths.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0126-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# prefix_check CUT_REPORT FULL_REPORT: "ok" when every line of CUT is in FULL
# in the same order, and each CPU's lines are the first of that CPU in FULL
# (of that buffer, for lines marked T| or I|).
prefix_check() {
	awk 'function cpu(l) { return (l ~ /^[TI]\|/ ? substr(l, 1, 1) : "") \
				      (match(l, / \[[0-9][0-9][0-9]\] /) ? substr(l, RSTART, RLENGTH) : "-") }
	     NR == FNR { full[++n] = $0; next }
	     { while (i < n && full[++i] != $0) ;
	       if (full[i] != $0) { print "not in order: " $0; bad = 1; exit }
	       c = cpu($0); k[c]++; seen = 0
	       for (j = 1; j <= i; j++) if (cpu(full[j]) == c) seen++
	       if (seen != k[c]) { print "not a prefix of cpu" c ": " $0; bad = 1; exit } }
	     END { if (!bad) print "ok" }' "$2" "$1"
}

cut() {	# cut FIXTURE LENGTH
	head -c "$2" "$fx/$1" > "$tmp/cut.dat"
	ftreport "$tmp/cut.dat" > "$tmp/out" 2> "$tmp/err"
	echo $?
}

# v6, cut inside CPU 1's data (CPU 0 is whole: 57344 bytes at 4096; CPU 1 follows)
rc=$(cut synth-v6.dat 90000)
is "$rc" 2 "v6 cut in cpu 1's data: exit 2"
ok "v6: the warning names the offset and cpu 1's loss in bytes and sub-buffers" \
	grep -q "warning: $tmp/cut.dat: file is truncated at offset 90000: cpu 1 lost 32768 of its 57344 bytes at offset 61440 (8 of 14 sub-buffers)" "$tmp/err"
is "$(prefix_check "$tmp/out" "$fx/synth-v6.report")" ok "v6: the lines are the whole report's, a prefix per CPU"
n0=$(grep -c ' \[000\] ' "$tmp/out"); n1=$(grep -c ' \[001\] ' "$tmp/out")
is "$n0" "$(grep -c ' \[000\] ' "$fx/synth-v6.report")" "v6: every cpu 0 line is printed ($n0)"
ok "v6: cpu 1's lines before the cut are printed ($n1)" test "$n1" -gt 100

# v6 cut in the metadata: nothing to print, a reason, exit 2
rc=$(cut synth-v6.dat 2000)
is "$rc" 2 "v6 cut in the metadata: exit 2"
ok "v6 metadata: the error names the file and the offset" grep -q "cut.dat: file is truncated: .* at offset [0-9]*, the file has 2000" "$tmp/err"
is "$(wc -c < "$tmp/out")" 0 "v6 metadata: nothing printed"

# v7 uncompressed cut in the data: its BUFFER option (written after the data) is lost
rc=$(cut synth-v7-none.dat 80000)
is "$rc" 2 "v7 cut in the data: exit 2"
ok "v7: the warning says the options after the cut are lost and the CPUs were found from the data" \
	grep -q "truncated at offset 80000: the options section at offset 118784 is lost.*BUFFER option of the buffer section at offset 3976 is lost: 2 CPU regions were found" "$tmp/err"
is "$(prefix_check "$tmp/out" "$fx/synth-v7-none.report")" ok "v7: the lines are the whole report's, a prefix per CPU"
ok "v7: lines of both CPUs are printed" test "$(grep -c ' \[001\] ' "$tmp/out")" -gt 100 -a "$(grep -c ' \[000\] ' "$tmp/out")" -gt 100

# v7 cut in the strings section that ends it: every event, and still a warning
size=$(stat -c %s "$fx/synth-v7-none.dat")
rc=$(cut synth-v7-none.dat $((size - 20)))
is "$rc" 2 "v7 cut in its last section: exit 2"
ok "v7 strings: the warning names the strings section" grep -q "the strings section at offset [0-9]* is cut" "$tmp/err"
ok "v7 strings: the whole report is printed" cmp -s "$tmp/out" "$fx/synth-v7-none.report"

# v7 zstd with an instance, cut in the instance's compressed data
rc=$(cut synth-v7-zstd-inst.dat 52000)
is "$rc" 2 "v7 zstd cut in the instance's data: exit 2"
ok "v7 zstd: the warning names the recovered buffer section and the bytes lost" \
	grep -q "BUFFER option of the buffer section at offset 34325 is lost: 2 CPU regions.*last [0-9]* bytes (from offset 52000) are lost" "$tmp/err"
# the recovered instance has no name: T| for the top buffer, I| for the instance
# (a record after lost events is two lines, the first with the buffer: join them)
sed '/EVENTS DROPPED\]$/{N;s/\n */ /};/^ *[a-z-]*: /{s/^ *[a-z-]*: */I|/;b};s/^ */T|/' \
	"$fx/synth-v7-zstd-inst.report" > "$tmp/full-nobuf"
sed '/EVENTS DROPPED\]$/{N;s/\n */ /};/^ *[a-z@0-9-]*: /{s/^ *[a-z@0-9-]*: */I|/;b};s/^ */T|/' \
	"$tmp/out" > "$tmp/out-nobuf"
is "$(prefix_check "$tmp/out-nobuf" "$tmp/full-nobuf")" ok "v7 zstd: the lines are the whole report's, a prefix per CPU"
done_testing
