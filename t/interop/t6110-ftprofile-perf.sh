#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprofile against perf record on the same workload (t/helpers/profile-work):
# the same top function by self samples, sample counts of the same size, and
# the known chain main;a;b;spin in both profiles' folded stacks (perf's folded
# from perf script here), with frame pointers and with DWARF unwinding.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need perf_software
command -v perf >/dev/null || skip_all "perf not installed (apt-get install linux-perf)"

W=$top_builddir/t/helpers/profile-work
NOFP=$top_builddir/t/helpers/profile-work-nofp
[ -x "$W" ] && [ -x "$NOFP" ] || skip_all "t/helpers/profile-work is not built (make check builds it)"
tmp=$(mktemp -d /tmp/ftkit-t6110.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
perf record -q -F 99 -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
	skip_all "perf record does not work here"

# perf script -> folded: comm;outermost;...;leaf COUNT (symbol offsets dropped).
fold_perf() {
	perf script -i "$1" 2>/dev/null | awk '
	/^[^ \t]/ { comm = $1; n = 0; next }
	/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[++n] = s; next }
	/^$/ { if (n) { line = comm; for (i = n; i >= 1; i--) line = line ";" f[i]; c[line]++ } n = 0 }
	END { if (n) { line = comm; for (i = n; i >= 1; i--) line = line ";" f[i]; c[line]++ }
	      for (l in c) print l, c[l] }' | sort
}
# share FOLDED LEAF CHAIN: "N PCT": weight of stacks with LEAF, % of it under CHAIN
share() {
	awk -v leaf="$2" -v chain="$3" '{
		w = $NF; s = $0; sub(/ [0-9]+$/, "", s); s = ";" s ";"
		if (index(s, ";" leaf ";")) { n += w; if (index(s, ";" chain ";")) c += w }
	} END { printf "%d %d\n", n, n ? 100 * c / n : 0 }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
# near A B: A and B within 25% of each other (sample counts at one frequency over
# the same CPU time, not a timing)
near() { [ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ $((4 * $1)) -ge $((3 * $2)) ] && [ $((4 * $2)) -ge $((3 * $1)) ]; }

for mode in fp dwarf; do
	if [ $mode = fp ]; then bin=$W; pg=-g; fg=fp; else bin=$NOFP; pg="--call-graph dwarf"; fg=dwarf; fi
	# shellcheck disable=SC2086
	perf record -q -F 99 $pg -o "$tmp/$mode.data" -- "$bin" chain 1 >/dev/null 2>&1
	fold_perf "$tmp/$mode.data" > "$tmp/perf-$mode.folded"
	ftprofile -F 99 --call-graph $fg -o "$tmp/ftk-$mode.folded" "$bin" chain 1 2>/dev/null
	ftprofile -i "$tmp/ftk-$mode.folded" -f top -n 1 -o "$tmp/ftk-$mode.top"

	ptop=$(perf report -i "$tmp/$mode.data" --stdio --no-children --sort sym 2>/dev/null |
		awk '/%/ && $2 == "[.]" { print $3; exit }')
	ftop=$(awk '!/^#/ { print $NF; exit }' "$tmp/ftk-$mode.top")
	is "$ftop" "$ptop" "$mode: the top function by self samples is perf report's ($ptop)"
	pn=$(total "$tmp/perf-$mode.folded"); fn=$(total "$tmp/ftk-$mode.folded")
	diag "$mode: perf record took $pn samples, ftprofile $fn"
	ok "$mode: sample counts within 25% of perf's ($fn against $pn)" near "$fn" "$pn"
	read -r pspin ppct < <(share "$tmp/perf-$mode.folded" spin "main;a;b;spin")
	read -r fspin fpct < <(share "$tmp/ftk-$mode.folded" spin "main;a;b;spin")
	diag "$mode: main;a;b;spin in $ppct% of perf's $pspin spin samples, $fpct% of ftprofile's $fspin"
	ok "$mode: perf sees the chain (>= 80%: the workload is what it says)" test "$ppct" -ge 80
	ok "$mode: ftprofile sees it at least as often as perf, less 5 points" \
		test "$fpct" -ge $((ppct - 5))

	# perf.data in: ftprofile -i folds perf's own file as perf script shows it
	# (kernel marks, unknown frames' object and symbol versions set aside).
	norm() { sed -e 's/_\[k\]//g' -e 's/\[unknown\] ([^)]*)/[unknown]/g' -e 's/@[@A-Za-z0-9_.]*//g' | sort; }
	ftprofile -i "$tmp/$mode.data" -o "$tmp/ftk-$mode-in.folded" 2>/dev/null
	is "$?" 0 "$mode: ftprofile -i perf.data exits 0"
	if [ $mode = dwarf ]; then
		# perf names libc's start-up by its DWARF (inlined __libc_start_main_impl),
		# ftprofile by its symbols: compare from main up.
		norm() { sed -e 's/_\[k\]//g' -e 's/\[unknown\] ([^)]*)/[unknown]/g' \
			-e 's/@[@A-Za-z0-9_.]*//g' -e 's/^\([^;]*\);.*;main;/\1;main;/' | sort; }
	fi
	norm < "$tmp/ftk-$mode-in.folded" > "$tmp/a"
	norm < "$tmp/perf-$mode.folded" > "$tmp/b"
	for f in a b; do
		awk '{ w = $NF; sub(/ [0-9]+$/, ""); c[$0] += w } END { for (l in c) print l, c[l] }' \
			"$tmp/$f" | sort > "$tmp/$f.sum"
	done
	# samples in the same stacks: per stack, the smaller of the two weights
	same=$(awk '{ w = $NF; k = $0; sub(/ [0-9]+$/, "", k) }
		NR == FNR { a[k] = w; next } (k in a) { s += a[k] < w ? a[k] : w } END { print s + 0 }' \
		"$tmp/a.sum" "$tmp/b.sum")
	diag "$mode: -i perf.data: $same of $pn samples in stacks identical to perf script's"
	[ $((100 * same)) -ge $((90 * pn)) ] || diag "$(diff "$tmp/b.sum" "$tmp/a.sum" | head -6)"
	if [ $mode = fp ]; then
		ok "$mode: -i perf.data gives perf script's folded stacks" diff -u "$tmp/b.sum" "$tmp/a.sum"
	else
		# DWARF: two unwinders; the same stacks for nearly every sample.
		ok "$mode: -i perf.data: >= 90% of samples in stacks identical to perf script's" \
			test $((100 * same)) -ge $((90 * pn))
	fi

	# -f script: each sample's frames as perf script prints them, from the
	# leaf to main (symbol versions and offsets set aside; below main perf
	# names libc's start-up by its DWARF); and folding that text gives -i's folded.
	ftprofile -i "$tmp/$mode.data" -f script -o "$tmp/ftk-$mode.script" 2>/dev/null
	is "$?" 0 "$mode: ftprofile -i perf.data -f script exits 0"
	frames_of() { awk '/^[^ \t]/ { m = 0 } /^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s)
		sub(/@.*/, "", s); if (!m) printf "%s;", s; if (s == "main") m = 1; next }
		/^$/ { print "" }' "$1"; }
	perf script -i "$tmp/$mode.data" 2>/dev/null > "$tmp/perf-$mode.script"
	frames_of "$tmp/perf-$mode.script" > "$tmp/pf"
	frames_of "$tmp/ftk-$mode.script" > "$tmp/ff"
	np=$(wc -l < "$tmp/pf"); nf=$(wc -l < "$tmp/ff")
	is "$nf" "$np" "$mode: -f script has perf script's $np samples"
	same=$(paste -d'|' "$tmp/pf" "$tmp/ff" | awk -F'|' '$1 == $2 { n++ } END { print n + 0 }')
	diag "$mode: -f script: $same of $np samples with perf script's frames; first differences:"
	diag "$(diff "$tmp/pf" "$tmp/ff" | head -4)"
	if [ $mode = fp ]; then
		# The one known difference: a PLT stub perf names NAME@plt, lib/symbols by
		# the symbol before it (see the report of issue 12).
		ok "$mode: -f script: >= 95% of samples have perf script's frames" \
			test $((100 * same)) -ge $((95 * np))
	else
		ok "$mode: -f script: >= 90% of samples have perf script's frames (two unwinders)" \
			test $((100 * same)) -ge $((90 * np))
	fi
	awk '/^[^ \t]/ { comm = $1; n = 0; next }
	/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); if ($NF ~ /^\(\[kernel/) s = s "_[k]"
		if (s == "[unknown]") s = s " " $NF; f[++n] = s; next }
	/^$/ { if (n) { line = comm; for (i = n; i >= 1; i--) line = line ";" f[i]; c[line]++ } n = 0 }
	END { for (l in c) print l, c[l] }' "$tmp/ftk-$mode.script" | norm > "$tmp/sf"
	norm < "$tmp/ftk-$mode-in.folded" > "$tmp/if"
	for f in sf if; do
		awk '{ w = $NF; sub(/ [0-9]+$/, ""); c[$0] += w } END { for (l in c) print l, c[l] }' \
			"$tmp/$f" | sort > "$tmp/$f.sum"
	done
	ok "$mode: folding -f script's text gives ftprofile's folded stacks" \
		diff -u "$tmp/if.sum" "$tmp/sf.sum"
done
done_testing
