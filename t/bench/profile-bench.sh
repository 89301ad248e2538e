#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprofile against perf record on the same workloads, at the same frequency
# and call-graph mode (fp, dwarf), in the same run. Not a test: prints, each
# the best of REPS runs, in CPU time (the machine may be shared: wall time
# would measure the neighbours):
#   - the workload's own user+sys CPU alone, under perf record, under
#     ftprofile (the overhead on the workload), and each profiler's own CPU;
#   - the samples each lost;
#   - from the end of the run to folded stacks: perf script piped to a
#     folding awk, against what ftprofile does after the command ends;
#   - dwarf: unwinding throughput, samples per CPU second, of ftprofile -i
#     and of perf script on the same perf.data file.
# Two shapes: "one" (profile-work fixed: main -> a -> b -> spin in one
# process) and "fork" (a shell that runs two of them at once: fork, exec
# and children followed).
# The binaries timed are installed ones (make install DESTDIR=... into a
# prefix), never libtool wrappers.
#   t/bench/profile-bench.sh [BATCHES] [REPS] [HZ]  (root; BUILD=dir of the build tree)
set -u
batches=${1:-30000}
reps=${2:-3}
hz=${3:-999}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
fp=$build/t/helpers/profile-work
nofp=$build/t/helpers/profile-work-nofp
perf=${PERF:-perf}
[ -x "$fp" ] && [ -x "$nofp" ] ||
	{ echo "no $fp: make && make check TESTS= first (or BUILD=dir)" >&2; exit 2; }
command -v "$perf" >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ftkit-profile-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Installed, not the build tree's wrappers.
prefix=/opt/ftkit-bench
make -s -C "$build" install DESTDIR="$tmp/inst" prefix="$prefix" >/dev/null 2>&1 ||
	{ echo "make install DESTDIR=$tmp/inst failed" >&2; exit 2; }
ftp=$tmp/inst$prefix/bin/ftprofile
export LD_LIBRARY_PATH=$tmp/inst$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
file "$ftp" | grep -q ELF || { echo "$ftp is not an ELF binary" >&2; exit 2; }

now() { date +%s.%N; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
cpu() { awk '{ print $1 + $2 }' "$1"; }
fold_perf() {
	"$perf" script -i "$1" 2>/dev/null | awk '
	/^[^ \t]/ { comm = $1; n = 0; next }
	/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[++n] = s; next }
	/^$/ { if (n) { line = comm; for (i = n; i >= 1; i--) line = line ";" f[i]; c[line]++ } n = 0 }
	END { for (l in c) print l, c[l] }'
}
# T FILE COMMAND...: the command's user+sys CPU (its children's too) into FILE
T='/usr/bin/time -f "%U %S" -o'
tm() { local out=$1; shift; /usr/bin/time -f '%U %S' -o "$out" "$@"; }

for mode in fp dwarf; do
	if [ $mode = fp ]; then bin=$fp; pg=-g; else bin=$nofp; pg="--call-graph dwarf"; fi
	for shape in one fork; do
		if [ $shape = one ]; then
			work="$bin fixed $batches"
		else
			work="/bin/sh -c '$bin fixed $((batches / 2)) & $bin fixed $((batches / 2)); wait'"
		fi
		base= pw= fw= pself= fself= pp= ppc= fpost= plost= flost=
		for _ in $(seq "$reps"); do
			eval "$T $tmp/w0 $work"
			base=$(min "$base" "$(cpu "$tmp/w0")")

			rm -f "$tmp/perf.data"
			# shellcheck disable=SC2086
			eval "$T $tmp/pall $perf record -q -F $hz $pg -o $tmp/perf.data -- $T $tmp/pw $work" \
				2>/dev/null
			t1=$(now)
			tm "$tmp/pscript" bash -c "$(declare -f fold_perf); perf=$perf; fold_perf $tmp/perf.data" \
				> "$tmp/perf.folded"
			t2=$(now)
			pw=$(min "$pw" "$(cpu "$tmp/pw")")
			pself=$(min "$pself" "$(awk -v w="$(cpu "$tmp/pw")" '{ print $1 + $2 - w }' "$tmp/pall")")
			pp=$(min "$pp" "$(echo "$t2 - $t1" | bc)")
			ppc=$(min "$ppc" "$(cpu "$tmp/pscript")")
			plost=$("$perf" report -i "$tmp/perf.data" --stdio 2>/dev/null |
				awk '/Total Lost Samples/ { print $NF; exit }')
			cp "$tmp/perf.data" "$tmp/$mode.data"

			rm -f "$tmp/ftk.folded"
			eval "$T $tmp/fall $ftp -v -F $hz --call-graph $mode -o $tmp/ftk.folded \
				-- $T $tmp/fw $work" 2>"$tmp/ftk.err"
			fw=$(min "$fw" "$(cpu "$tmp/fw")")
			fself=$(min "$fself" "$(awk -v w="$(cpu "$tmp/fw")" '{ print $1 + $2 - w }' "$tmp/fall")")
			fpost=$(min "$fpost" "$(sed -n 's/.*read \([0-9.]*\) s after the end.*/\1/p' "$tmp/ftk.err")")
			flost=$(sed -n 's/.*, \([0-9]*\) lost.*/\1/p' "$tmp/ftk.err")
		done
		echo "== $mode, $shape, -F $hz, $batches batches, best of $reps (CPU seconds, user+sys)"
		printf '  workload alone            %8.3f\n' "$base"
		printf '  under perf record         %8.3f  (overhead %+.1f%%; perf itself %.3f)\n' "$pw" \
			"$(echo "($pw - $base) * 100 / $base" | bc -l)" "$pself"
		printf '  under ftprofile           %8.3f  (overhead %+.1f%%; ftprofile itself %.3f)\n' "$fw" \
			"$(echo "($fw - $base) * 100 / $base" | bc -l)" "$fself"
		printf '  overhead ratio            ftprofile/perf %.2f (workload CPU), %.2f (profiler CPU)\n' \
			"$(echo "($fw - $base + 0.0005) / ($pw - $base + 0.0005)" | bc -l)" \
			"$(echo "($fself + 0.0005) / ($pself + 0.0005)" | bc -l)"
		echo "  lost samples              perf ${plost:-0}, ftprofile ${flost:-?}"
		printf '  end of run to folded      perf script+fold %.3f s (%.3f CPU s), ftprofile %.3f s (%.1fx)\n' \
			"$pp" "$ppc" "$fpost" "$(echo "$pp / ($fpost + 0.0005)" | bc -l)"
	done
	if [ $mode = dwarf ]; then
		tm "$tmp/fi" "$ftp" -v -i "$tmp/dwarf.data" -o "$tmp/fi.folded" 2>"$tmp/fi.err"
		fn=$(sed -n 's/^ftprofile: \([0-9]*\) samples.*/\1/p' "$tmp/fi.err")
		tm "$tmp/pi" "$perf" script -i "$tmp/dwarf.data" >/dev/null 2>&1
		printf '  dwarf unwinding           ftprofile -i %s samples in %.2f CPU s (%.0f/s); perf script %.2f CPU s (%.0f/s; %.1fx)\n' \
			"$fn" "$(cpu "$tmp/fi")" "$(echo "$fn / ($(cpu "$tmp/fi") + 0.001)" | bc -l)" \
			"$(cpu "$tmp/pi")" "$(echo "$fn / ($(cpu "$tmp/pi") + 0.001)" | bc -l)" \
			"$(echo "($(cpu "$tmp/pi") + 0.001) / ($(cpu "$tmp/fi") + 0.001)" | bc -l)"
	fi
done
