# SPDX-License-Identifier: GPL-2.0-or-later
# ftstat against perf stat (Debian's linux-perf) on the same deterministic
# workloads: the counts agree, and the CSV and JSON have perf's shape.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need perf_software
PERF=${PERF:-perf}
"$PERF" stat -e cs true >/dev/null 2>&1 || skip_all "no working '$PERF stat' (install linux-perf)"

W=$top_builddir/t/helpers/ftstat-work
[ -x "$W" ] || skip_all "t/helpers/ftstat-work is not built (make check builds it)"
tmp=$(mktemp -d /tmp/ftkit-t6100.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# csv TOOL EVENT CMD...: the count of EVENT in TOOL's -x, output
csv() {
	local tool=$1 ev=$2; shift 2
	if [ "$tool" = perf ]; then
		"$PERF" stat -x, -e "$ev" -o "$tmp/p.csv" "$@" >/dev/null 2>&1
	else
		ftstat -x, -e "$ev" -o "$tmp/p.csv" "$@" >/dev/null 2>&1
	fi
	awk -F, -v ev="$ev" '$3 == ev { print $1; exit }' "$tmp/p.csv"
}

# close A B TOL: |A - B| <= TOL
close() { [ -n "$1" ] && [ -n "$2" ] && [ $(( $1 > $2 ? $1 - $2 : $2 - $1 )) -le "$3" ]; }

n=4000
f=$(csv ftstat page-faults "$W" touch $n)
p=$(csv perf page-faults "$W" touch $n)
diag "page-faults of touching $n pages: ftstat $f, perf $p"
ok "page-faults agree with perf within 10" close "$f" "$p" 10
ok "and both see the $n pages" test "$f" -ge $n -a "$p" -ge $n

n=1000
f=$(csv ftstat context-switches "$W" pingpong $n)
p=$(csv perf context-switches "$W" pingpong $n)
diag "context-switches of $n round trips: ftstat $f, perf $p"
ok "context-switches agree with perf within 5%" close "$f" "$p" $((2 * n / 20))

if has perf_tracepoint; then
	n=30
	f=$(csv ftstat sched:sched_process_fork "$W" fork $n)
	p=$(csv perf sched:sched_process_fork "$W" fork $n)
	is "$f" "$p" "sched:sched_process_fork of $n forks: ftstat and perf agree ($p)"
	if [ -e "$(tracefs_dir)/events/syscalls/sys_enter_getppid/id" ]; then
		n=777
		f=$(csv ftstat syscalls:sys_enter_getppid "$W" getppid $n)
		p=$(csv perf syscalls:sys_enter_getppid "$W" getppid $n)
		is "$f" "$p" "syscalls:sys_enter_getppid of $n calls: ftstat and perf agree ($p)"
	else
		skip "no syscalls:sys_enter_getppid here"
	fi
else
	skip "tracepoint PMU: $why"
	skip "tracepoint PMU: $why"
fi

ms=300
f=$(csv ftstat task-clock "$W" spin $ms)
p=$(csv perf task-clock "$W" spin $ms)
diag "task-clock of a $ms ms busy loop: ftstat $f, perf $p"
ok "task-clock agrees with perf within 5%" \
	awk -v a="$f" -v b="$p" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b <= 0.05) }'

# The same default events, in the same order, each supported or not alike.
ftstat -x, true 2>"$tmp/f.csv"
"$PERF" stat -x, true 2>"$tmp/p.csv"
is "$(cut -d, -f3 "$tmp/f.csv" | tr '\n' ' ')" "$(cut -d, -f3 "$tmp/p.csv" | tr '\n' ' ')" \
	"default events: the same as perf's"
is "$(cut -d, -f1,2 "$tmp/f.csv" | sed 's/^[0-9.]*,/N,/' | tr '\n' ' ')" \
	"$(cut -d, -f1,2 "$tmp/p.csv" | sed 's/^[0-9.]*,/N,/' | tr '\n' ' ')" \
	"default events: counted or <not supported> alike, with the same units"
is "$(awk -F, '{ print NF }' "$tmp/f.csv" | tr '\n' ' ')" "$(awk -F, '{ print NF }' "$tmp/p.csv" | tr '\n' ' ')" \
	"CSV rows have perf's fields"
# The rate's prefix depends on the count (0 cs: /sec, 1 cs: K/sec): compare without it.
is "$(cut -d, -f7 "$tmp/f.csv" | sed 's/^[KMG]//' | tr '\n' ' ')" \
	"$(cut -d, -f7 "$tmp/p.csv" | sed 's/^[KMG]//' | tr '\n' ' ')" "and perf's metric units"

for d in -d -dd -ddd; do
	ftstat -x, $d true 2>"$tmp/f.csv"
	"$PERF" stat -x, $d true 2>"$tmp/p.csv"
	is "$(cut -d, -f2,3 "$tmp/f.csv" | tr '\n' ' ')" "$(cut -d, -f2,3 "$tmp/p.csv" | tr '\n' ' ')" \
		"$d: perf's events"
done
ftstat -x, -I 100 -a -A -e cs sleep 0.15 2>"$tmp/f.csv"
"$PERF" stat -x, -I 100 -a -A -e cs sleep 0.15 2>"$tmp/p.csv"
is "$(awk -F, '{ print NF }' "$tmp/f.csv" | sort -u)" "$(awk -F, '{ print NF }' "$tmp/p.csv" | sort -u)" \
	"-x, -I -a -A: perf's fields"
is "$(cut -d, -f2 "$tmp/f.csv" | sort -u | tr '\n' ' ')" "$(cut -d, -f2 "$tmp/p.csv" | sort -u | tr '\n' ' ')" \
	"and perf's CPU names"

ftstat --json -e task-clock,cs,cycles true 2>"$tmp/f.json"
"$PERF" stat --json -e task-clock,cs,cycles true 2>"$tmp/p.json"
ok "JSON: the same keys and events as perf's" python3 -c '
import json, sys
def load(p):
    return [json.loads(l) for l in open(p) if l.strip()]
f, p = load(sys.argv[1]), load(sys.argv[2])
assert [o["event"] for o in f] == [o["event"] for o in p], (f, p)
for a, b in zip(f, p):
    assert set(a) == set(b), (a, b)
    assert a["unit"] == b["unit"], (a, b)
    assert a["counter-value"].startswith("<") == b["counter-value"].startswith("<"), (a, b)
' "$tmp/f.json" "$tmp/p.json"

# The plain layout: each row as wide as perf's, numbers aside.
ftstat -e task-clock,cs,cycles true 2>"$tmp/f.txt"
"$PERF" stat -e task-clock,cs,cycles true 2>"$tmp/p.txt"
shape() { sed -E 's/[0-9][0-9.,]*/N/g; s#[KMG]/sec#/sec#; s/ +/ /g' "$1"; }
is "$(shape "$tmp/f.txt")" "$(shape "$tmp/p.txt")" "the plain report has perf's layout"
lens() { grep -E 'task-clock|cs|cycles' "$1" | awk '{ print length($0) }' | tr '\n' ' '; }
is "$(lens "$tmp/f.txt")" "$(lens "$tmp/p.txt")" "with perf's column widths"

done_testing
