#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprofile against perf record on the same workload (profile-work fixed:
# main -> a -> b -> spin, a fixed amount of work), at the same frequency and
# call-graph mode. Not a test: prints, each the best of REPS runs,
#   - the workload's wall time alone, under perf record, under ftprofile
#     (the overhead on the workload);
#   - the samples each lost;
#   - the time from the end of the run to folded stacks: perf script and a
#     folding awk against what ftprofile does after the command ends;
#   - in dwarf mode, ftprofile's unwinding throughput (samples a second of
#     its CPU time).
#   t/bench/profile-bench.sh [BATCHES] [REPS] [HZ]  (root; BUILD=dir of the build tree)
set -u
batches=${1:-30000}
reps=${2:-3}
hz=${3:-999}
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$here/build}
ftp=$build/tools/ftprofile
fp=$build/t/helpers/profile-work
nofp=$build/t/helpers/profile-work-nofp
perf=${PERF:-perf}
[ -x "$ftp" ] && [ -x "$fp" ] ||
	{ echo "no $ftp or $fp: make && make check TESTS= first (or BUILD=dir)" >&2; exit 2; }
command -v "$perf" >/dev/null || { echo "no perf (apt-get install linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ftkit-profile-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
fold_perf() {
	"$perf" script -i "$1" 2>/dev/null | awk '
	/^[^ \t]/ { comm = $1; n = 0; next }
	/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[++n] = s; next }
	/^$/ { if (n) { line = comm; for (i = n; i >= 1; i--) line = line ";" f[i]; c[line]++ } n = 0 }
	END { for (l in c) print l, c[l] }'
}

for mode in fp dwarf; do
	if [ $mode = fp ]; then bin=$fp; pg=-g; else bin=$nofp; pg="--call-graph dwarf"; fi
	base= pw= fw= pp= fpost= plost= flost= fcpu= fsamples= wcpu=
	for _ in $(seq "$reps"); do
		t0=$(now); /usr/bin/time -f '%U %S' -o "$tmp/time0" "$bin" fixed "$batches"; t1=$(now)
		wcpu=$(awk '{ print $1 + $2 }' "$tmp/time0")
		base=$(min "$base" "$(echo "$t1 - $t0" | bc)")

		rm -f "$tmp/perf.data"
		t0=$(now)
		# shellcheck disable=SC2086
		"$perf" record -q -F "$hz" $pg -o "$tmp/perf.data" -- "$bin" fixed "$batches" 2>/dev/null
		t1=$(now)
		fold_perf "$tmp/perf.data" > "$tmp/perf.folded"
		t2=$(now)
		pw=$(min "$pw" "$(echo "$t1 - $t0" | bc)")
		pp=$(min "$pp" "$(echo "$t2 - $t1" | bc)")
		plost=$("$perf" report -i "$tmp/perf.data" --stdio 2>/dev/null |
			awk '/Total Lost Samples/ { print $NF; exit }')

		rm -f "$tmp/ftk.folded"
		t0=$(now)
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$ftp" -v -F "$hz" --call-graph $mode \
			-o "$tmp/ftk.folded" "$bin" fixed "$batches" 2>"$tmp/ftk.err"
		t1=$(now)
		fw=$(min "$fw" "$(echo "$t1 - $t0" | bc)")
		fpost=$(min "$fpost" "$(sed -n 's/.*read \([0-9.]*\) s after the end.*/\1/p' "$tmp/ftk.err")")
		flost=$(sed -n 's/.*, \([0-9]*\) lost.*/\1/p' "$tmp/ftk.err")
		fsamples=$(sed -n 's/^ftprofile: \([0-9]*\) samples.*/\1/p' "$tmp/ftk.err")
		# ftprofile's own CPU time: the tree's less the workload's alone
		fcpu=$(awk -v w="$wcpu" '{ print $1 + $2 - w }' "$tmp/time")
	done
	echo "== $mode, -F $hz, $batches batches, best of $reps"
	printf '  workload alone            %8.3f s\n' "$base"
	printf '  under perf record         %8.3f s  (overhead %.1f%%)\n' "$pw" \
		"$(echo "($pw - $base) * 100 / $base" | bc -l)"
	printf '  under ftprofile           %8.3f s  (overhead %.1f%%)\n' "$fw" \
		"$(echo "($fw - $base) * 100 / $base" | bc -l)"
	echo "  lost samples              perf $plost, ftprofile $flost"
	printf '  end of run to folded      perf script+fold %.3f s, ftprofile %.3f s (%.1fx)\n' \
		"$pp" "$fpost" "$(echo "$pp / ($fpost + 0.0005)" | bc -l)"
	if [ $mode = dwarf ]; then
		printf '  ftprofile samples         %s in %.2f s of its own CPU time (%.0f samples/s, unwinding included)\n' \
			"$fsamples" "$fcpu" "$(echo "$fsamples / ($fcpu + 0.001)" | bc -l)"
	fi
done
