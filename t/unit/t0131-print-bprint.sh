#!/bin/bash
# trace_printk() and trace_puts() records (ftrace:bprint and ftrace:bputs)
# print as trace-cmd report prints them, on the fast path: the synthetic
# synth-v6-bprint.dat (t/mkdat -b: formats of many shapes, arguments packed
# as the kernel's vbin_printf() packs them, a format and a string address
# the printk formats do not list) against trace-cmd 3.1.6's text of it
# (.report, -N, -R, -t), the own text alone (FTK_PRINT_NOCHECK) too, and
# ftreport --stat -v must leave no record to libtraceevent. With trace-cmd
# installed, fresh files too: 4-byte longs, big endian, and a record cut
# short and formats libtraceevent gives up on (mkdat -B, -B -B), which stay
# on the slow path.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
f="$fx/synth-v6-bprint.dat"
tmp=$(mktemp -d /tmp/ftk-t0131-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cmp_text() {	# name want file [options...]
	local name=$1 want=$2 file=$3
	shift 3
	ftreport "$@" "$file" > "$tmp/got" 2> "$tmp/err"
	same_file "$name" "$want" "$tmp/got" "$tmp/err"
}

# slow FILE [options...]: how many records ftreport --stat -v left to libtraceevent
slow() {
	local file=$1
	shift
	ftreport --stat -v "$@" "$file" | awk '/^slow path/ { on = 1 } on && $1 == "total" { print $2 }'
}

for m in "" -N -R -t; do
	want="$fx/synth-v6-bprint${m:+$m}.report"
	cmp_text "synth-v6-bprint ${m:-default}: trace-cmd report's text" "$want" "$f" $m
	FTK_PRINT_NOCHECK=1 cmp_text "synth-v6-bprint ${m:-default}: the own text alone" "$want" "$f" $m
done
is "$(slow "$f")" 0 "--stat -v: no record left to libtraceevent"
is "$(slow "$f" -N)" 0 "--stat -v -N: no record left to libtraceevent"
ftreport --stat "$f" > "$tmp/stat"
is "$(awk '$1 == "ftrace:bprint" { print $2 }' "$tmp/stat")" \
	"$(grep -c ' bprint: ' "$fx/synth-v6-bprint.report")" "--stat counts the bprint records"
is "$(awk '$1 == "ftrace:bputs" { print $2 }' "$tmp/stat")" \
	"$(grep -c ' bputs: ' "$fx/synth-v6-bprint.report")" "--stat counts the bputs records"
ok "the file has a bprint of a format the printk formats do not list" \
	grep -q 'NO FORMAT FOUND at ffffffff82700010' "$fx/synth-v6-bprint.report"
ok "... and a bputs of an unlisted string" grep -q 'bputs: .*: ffffffff82600008$' \
	"$fx/synth-v6-bprint.report"

mkdat="$top_builddir/t/mkdat"
if command -v trace-cmd > /dev/null && [ -x "$mkdat" ]; then
	n=0
	for opts in "-l 4" "-E -l 4" "-c 4 -t -m -x"; do
		n=$((n + 1))
		"$mkdat" -n 2000 -S $((50 + n)) -b $opts -o "$tmp/b$n.dat"
		for m in "" -N -t; do
			trace-cmd report $m "$tmp/b$n.dat" > "$tmp/want" 2> /dev/null
			FTK_PRINT_NOCHECK=1 cmp_text "mkdat -b $opts ${m:-default}: trace-cmd report's text" \
				"$tmp/want" "$tmp/b$n.dat" $m
		done
		is "$(slow "$tmp/b$n.dat")" 0 "mkdat -b $opts: no record left to libtraceevent"
	done
	# v7 with zstd (records in decompressed chunks), and two files at once (two tables)
	trace-cmd convert --compression zstd -i "$f" -o "$tmp/z.dat" > /dev/null 2>&1
	FTK_PRINT_NOCHECK=1 cmp_text "synth-v6-bprint as v7 zstd: trace-cmd report's text" \
		"$fx/synth-v6-bprint.report" "$tmp/z.dat"
	is "$(slow "$tmp/z.dat")" 0 "synth-v6-bprint as v7 zstd: no record left to libtraceevent"
	cp "$f" "$tmp/a.dat"
	(cd "$tmp" && trace-cmd report -i a.dat -i b1.dat > want2 2> /dev/null &&
		FTK_PRINT_NOCHECK=1 ftreport -i a.dat -i b1.dat > got2 2>&1)
	ok "two files with bprint, merged: trace-cmd report -i A -i B's text" cmp -s "$tmp/want2" "$tmp/got2"
	# -F: every format read at open, not lazily
	trace-cmd report -F 'bprint,bputs' "$f" > "$tmp/want" 2> /dev/null
	FTK_PRINT_NOCHECK=1 cmp_text "synth-v6-bprint -F bprint,bputs: trace-cmd report's text" \
		"$tmp/want" "$f" -F 'bprint,bputs'
	# a record cut short: fewer arguments than its format's conversions
	"$mkdat" -n 2000 -S 59 -b -B -o "$tmp/cut.dat"
	trace-cmd report "$tmp/cut.dat" > "$tmp/want" 2> /dev/null
	FTK_PRINT_NOCHECK=1 cmp_text "mkdat -b -B (a record cut short): trace-cmd report's text" \
		"$tmp/want" "$tmp/cut.dat"
	ftreport --stat -v "$tmp/cut.dat" > "$tmp/vstat" 2> /dev/null
	ok "mkdat -b -B: the record cut short is left to libtraceevent, with the reason" \
		grep -q '^  ftrace:bprint  *1  *a bprint record with fewer arguments than its format' \
		"$tmp/vstat"
	# %-5d and %hd: libtraceevent pairs conversions and arguments otherwise
	# than the kernel packs them, runs out and gives up on bprint for good
	"$mkdat" -n 2000 -S 61 -b -B -B -o "$tmp/bad.dat"
	for m in "" -N; do
		trace-cmd report $m "$tmp/bad.dat" > "$tmp/want" 2> /dev/null
		FTK_PRINT_NOCHECK=1 cmp_text "mkdat -b -B -B ${m:-default}: trace-cmd report's text" \
			"$tmp/want" "$tmp/bad.dat" $m
	done
	ok "mkdat -b -B -B: trace-cmd gave up on bprint" grep -q 'bprint: .*FAILED TO PARSE' "$tmp/want"
	ftreport --stat -v "$tmp/bad.dat" > "$tmp/vstat" 2> /dev/null
	ok "mkdat -b -B -B: the records after are left to libtraceevent, with the reason" \
		grep -q '^  ftrace:bprint .* libtraceevent failed on an earlier bprint record' "$tmp/vstat"
else
	skip "trace-cmd or t/mkdat missing: no fresh files"
fi
done_testing
