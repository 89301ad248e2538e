# SPDX-License-Identifier: GPL-2.0-or-later
# ftrunqlat against perf sched timehist on the SAME run: ftrunqlat's command
# is perf sched record running the workload (lat-work stall N AT MS: N
# wake-ups of a child, wake-up AT held off MS ms; the child reports its
# context switches from getrusage). For the child, ftrunqlat -P's samples
# are perf's sch-delay rows and the child's own count of switches, and the
# one wait held off MS ms is in the same log2 bucket in both. (Each
# recording stamps the same events with its own clock read, a few hundred
# ns apart: a short wait near a bucket's edge may fall either side, so
# the short waits are compared by count, the held-off one by bucket.)
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
need perf_software
PERF=${PERF:-perf}
command -v "$PERF" >/dev/null 2>&1 || skip_all "perf not installed (apt-get install linux-perf)"
. "$top_srcdir/t/lib/lat-lib.sh"

tmp=$(mktemp -d /tmp/ftkit-t7130.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$PERF" sched record -q -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
	skip_all "perf sched record does not work here"

N=20 AT=10 MS=30
ftrunqlat -P -- "$PERF" sched record -q -o "$tmp/sched.data" -- "$LAT_WORK" stall $N $AT $MS \
	>"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftrunqlat -P -- perf sched record ... exits 0" || diag "$(cat "$tmp/err")"
victim=$(awk '/^victim / { print $2 }' "$tmp/out")
switches=$(awk '/^switches / { print $2 }' "$tmp/out")
ok "the workload names its child ($victim, $switches switches)" test -n "$victim" -a -n "$switches"

# ftrunqlat's rows of the child: "LOW COUNT"
awk -v v="$victim" '/^pid = / { show = ($3 == v) } show && / -> / && $5 > 0 { print $1, $5 }' \
	"$tmp/out" >"$tmp/ft"
# perf's: each sch delay (ms, to the us) in the same log2 buckets of usecs
"$PERF" sched timehist -i "$tmp/sched.data" 2>/dev/null | awk -v v="$victim" '
	$3 ~ ("\\[" v "\\]$") || $3 ~ ("\\[" v "/") {
		us = int($5 * 1000 + 0.5); b = 0
		if (us >= 2) { b = 1; while (b * 2 <= us) b *= 2 }
		c[b]++ }
	END { for (k in c) print k, c[k] }' | sort -n >"$tmp/perf"
ftn=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/ft")
pn=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/perf")
is "$ftn" "$pn" "the child's run-queue waits: ftrunqlat's are perf sched timehist's"
is "$ftn" "$switches" "and the child's own count of its switches"
held=$((MS * 1000 / 2))
is "$(awk -v h=$held '$1 >= h' "$tmp/ft")" "$(awk -v h=$held '$1 >= h' "$tmp/perf")" \
	"the wait held off $MS ms: in the same bucket, once"
is "$(awk -v h=$held '$1 >= h { s += $2 } END { print s + 0 }' "$tmp/ft")" 1 \
	"one wait held off (wake-up $AT)"
done_testing
