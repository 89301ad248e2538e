# SPDX-License-Identifier: GPL-2.0-or-later
# ftfunclat against perf probe -x + perf stat on the SAME run: ftfunclat's
# command is perf stat counting perf probe's entry and return uprobes on
# the same function of the workload (lat-work sleep N MS: N calls of
# lat_sleep_fn, each sleeping MS ms). The counts agree exactly and are N;
# the total is exact to the nanosecond and at least N x MS ms (nanosleep
# sleeps no less than asked: a bound, not a timing).
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
need uprobes
PERF=${PERF:-perf}
command -v "$PERF" >/dev/null 2>&1 || skip_all "perf not installed (apt-get install linux-perf)"
. "$top_srcdir/t/lib/lat-lib.sh"

tmp=$(mktemp -d /tmp/ftkit-t7120.XXXXXX)
grp=ftk7120_$$
cleanup() { "$PERF" probe -q -d "$grp:*" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
"$PERF" probe -q -x "$LAT_WORK" -a "$grp:enter=lat_sleep_fn" >/dev/null 2>&1 &&
	"$PERF" probe -q -x "$LAT_WORK" -a "$grp:ret=lat_sleep_fn%return" >/dev/null 2>&1 ||
	skip_all "perf probe -x cannot add uprobes here"

N=6 MS=3
ftfunclat -u "$LAT_WORK:lat_sleep_fn" -- "$PERF" stat -x, -o "$tmp/stat" -e "$grp:*" -- \
	"$LAT_WORK" sleep $N $MS >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftfunclat -- perf stat ... exits 0" || diag "$(cat "$tmp/err")"
enter=$(awk -F, '$3 ~ /:enter$/ { print $1 }' "$tmp/stat")
ret=$(awk -F, '$3 ~ /:ret/ { print $1 }' "$tmp/stat")
read -r avg total count < <(awk '/^avg = / { print $3, $6, $9 }' "$tmp/out")
is "$enter" $N "perf stat counts the workload's $N entries"
is "$ret" $N "and $N returns"
is "$count" "$enter" "ftfunclat's count is perf's"
is "$(awk '/ -> / { s += $5 } END { print s + 0 }' "$tmp/out")" "$enter" \
	"its histogram holds as many calls"
ok "the total has every nanosecond ($total us)" expr "$total" : '[0-9]*\.[0-9][0-9][0-9]$'
ok "the total is at least $N x $MS ms" awk -v t="$total" -v n=$N -v ms=$MS 'BEGIN { exit !(t >= n * ms * 1000) }'
ok "avg = total / count" awk -v a="$avg" -v t="$total" -v n="$count" \
	'BEGIN { d = t / n - a; exit !(n > 0 && d < 0.001 && d > -0.001) }'
done_testing
