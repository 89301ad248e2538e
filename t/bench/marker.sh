#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Cost of one mark, in ns: the marker API against a plain write(2) to trace_marker
# and against `echo` into the file (bash builtin, one open per mark) and `ftmark`.
# Runs in a private instance; needs root. Usage: t/bench/marker.sh [N] (run from a
# build directory, or set top_builddir).
set -e
: "${top_builddir:=$PWD}"
N=${1:-200000}
T=/sys/kernel/tracing
inst=ftkit-bench-$$
make -s -C "$top_builddir" t/bench/marker-bench tools/ftmark >/dev/null
mkdir "$T/instances/$inst"
trap 'rmdir "$T/instances/$inst"' EXIT

declare -A ns
while read -r name val; do ns[$name]=$val; done < <(
	LD_LIBRARY_PATH=$top_builddir/lib/.libs "$top_builddir/t/bench/.libs/marker-bench" $inst $N 2>/dev/null ||
	"$top_builddir/t/bench/marker-bench" $inst $N)

E=$((N / 20))
t0=$(date +%s%N)
for ((i = 0; i < E; i++)); do echo "bench mark $i" > "$T/instances/$inst/trace_marker"; done
t1=$(date +%s%N)
ns[echo]=$(( (t1 - t0) / E ))
F=$((N / 400 + 1))
# The real binary, not libtool's wrapper script of the build tree.
ftmark=$top_builddir/tools/.libs/ftmark
[ -x "$ftmark" ] || ftmark=$top_builddir/tools/ftmark
export LD_LIBRARY_PATH=$top_builddir/lib/.libs
t0=$(date +%s%N)
for ((i = 0; i < F; i++)); do "$ftmark" -B $inst "bench mark $i"; done
t1=$(date +%s%N)
ns[ftmark]=$(( (t1 - t0) / F ))

printf '%-22s %10s %12s %10s\n' "way to mark" "ns/mark" "vs write(2)" "vs echo"
for k in write ftk_mark_write ftk_mark snprintf+write ftk_mark_disabled echo ftmark; do
	awk -v k="$k" -v v="${ns[$k]}" -v w="${ns[write]}" -v e="${ns[echo]}" \
		'BEGIN { printf "%-22s %10.1f %11.2fx %9.3fx\n", k, v, v / w, v / e }'
done
echo "(N=$N marks per C loop, $E echos, $F ftmark runs; instance $inst)"
