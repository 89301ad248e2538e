# SPDX-License-Identifier: GPL-2.0-or-later
# ftsyscount against strace -c -f on the SAME run: ftsyscount's command is
# strace running the workload, so both see the same calls. The counts
# agree exactly (and are the workload's known count); the time is exact
# to the nanosecond (issue 24: 1,000 getppid calls summed to 1 us) and
# lies inside strace -w's, whose interval of each call (from its entry
# stop to its exit stop) holds the kernel's sys_enter to sys_exit.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
command -v strace >/dev/null 2>&1 || skip_all "no strace (contrib/install-deps.sh --test installs it)"
. "$top_srcdir/t/lib/lat-lib.sh"
json_ok || skip_all "no python3 to read the JSON"

tmp=$(mktemp -d /tmp/ftkit-t7100.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
N=1000

# strace_col FILE SYSCALL COLUMN: seconds, calls or errors of SYSCALL in strace -c's table
strace_col() {
	awk -v sc="$2" -v col="$3" '$NF == sc {
		if (col == "seconds") print $2; else if (col == "calls") print $4
		else print (NF == 6 ? $5 : 0)
		exit }' "$1"
}

# -L --json: counts, names, an exact sum
ftsyscount -L --json -e getppid -- strace -f -qq -c -w -o "$tmp/s1" -e trace=getppid \
	"$LAT_WORK" getppid $N >"$tmp/j" 2>"$tmp/err"
is "$?" 0 "ftsyscount -L --json -- strace ... exits 0" || diag "$(cat "$tmp/err")"
sc=$(strace_col "$tmp/s1" getppid calls)
is "$sc" $N "strace counts the workload's $N getppid calls"
read -r count name sum min mean < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
l = r["latency"]
print(r["count"], r["name"], repr(l["sum"]), repr(l["min"]), repr(l["mean"]))' "$tmp/j")
is "$count" "$sc" "--json: the count is strace's"
is "$name" getppid "--json: the row is named"
ok "--json: min > 0 (no call is rounded down to 0 us)" awk -v m="$min" 'BEGIN { exit !(m > 0) }'
ok "--json: sum >= count x min, in exact ns ($sum us)" \
	awk -v s="$sum" -v m="$min" -v n="$count" 'BEGIN { exit !(s * 1000 + 0.5 >= n * m * 1000) }'
ok "--json: mean = sum / count" \
	awk -v s="$sum" -v m="$mean" -v n="$count" 'BEGIN { d = s / n - m; exit !(d < 0.001 && d > -0.001) }'
secs=$(strace_col "$tmp/s1" getppid seconds)
ok "--json: the sum ($sum us) lies within strace -w's ($secs s)" \
	awk -v s="$sum" -v t="$secs" 'BEGIN { exit !(s <= t * 1e6 + 1) }'

# -L text: COUNT, TOTAL(us) with every nanosecond, MEAN
ftsyscount -L -e getppid -- strace -f -qq -c -w -o "$tmp/s2" -e trace=getppid \
	"$LAT_WORK" getppid $N >"$tmp/t" 2>"$tmp/err"
read -r tc total tmean < <(awk '$1 == "getppid" { print $2, $3, $4 }' "$tmp/t")
is "$tc" "$(strace_col "$tmp/s2" getppid calls)" "-L: COUNT is strace's"
ok "-L: TOTAL(us) has the nanoseconds ($total)" expr "$total" : '[0-9]*\.[0-9][0-9][0-9]$'
ok "-L: TOTAL > 0 and within strace -w's" \
	awk -v s="$total" -v t="$(strace_col "$tmp/s2" getppid seconds)" 'BEGIN { exit !(s > 0 && s <= t * 1e6 + 1) }'
ok "-L: MEAN = TOTAL / COUNT" \
	awk -v s="$total" -v m="$tmean" -v n="$tc" 'BEGIN { d = s / n - m; exit !(d < 0.001 && d > -0.001) }'

# failed calls: -x on a missing file, errors as strace counts them; by
# process (-P), since strace's own failed opens count too: the workload's
# is the row with the most
ftsyscount --json -P -x -e openat -- strace -f -qq -c -o "$tmp/s3" -e trace=openat \
	"$LAT_WORK" open "$tmp/missing" $N >"$tmp/x" 2>"$tmp/err"
fx=$(python3 -c 'import json,sys; print(max(r["errors"] for r in json.load(open(sys.argv[1]))["rows"]))' "$tmp/x")
serr=$(strace_col "$tmp/s3" openat errors)
is "$fx" "$serr" "-x: failed openat calls, as strace counts them ($serr)"
ok "and at least the workload's $N" test "${fx:-0}" -ge $N

# every syscall's row is named, on the counter path and with -L
ftsyscount --json -- "$LAT_WORK" getppid 5 >"$tmp/all" 2>"$tmp/err"
is "$(python3 -c 'import json,sys; print(sorted(r["name"] for r in json.load(open(sys.argv[1]))["rows"] if r["name"] is None))' "$tmp/all")" \
	"[]" "--json: every syscall row is named"
ftsyscount -L --json -- "$LAT_WORK" getppid 5 >"$tmp/all" 2>"$tmp/err"
is "$(python3 -c 'import json,sys; print(sorted(r["name"] for r in json.load(open(sys.argv[1]))["rows"] if r["name"] is None))' "$tmp/all")" \
	"[]" "-L --json: every syscall row is named"
done_testing
