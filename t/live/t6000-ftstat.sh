# SPDX-License-Identifier: GPL-2.0-or-later
# ftstat counts what the kernel really does: page faults, context switches,
# tracepoint hits and CPU time of workloads whose counts are known; exit
# codes, Ctrl-C, interval rows, CSV and JSON that parse.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need perf_software

# Ask ftinfo once (each probe makes a scratch instance): has_tp/has_hw, and their reasons.
has perf_tracepoint && has_tp=1 || { has_tp=; tp_why=$why; }
has perf_hardware && has_hw=1 || { has_hw=; hw_why=$why; }

W=$top_builddir/t/helpers/ftstat-work
[ -x "$W" ] || skip_all "t/helpers/ftstat-work is not built (make check builds it)"
tmp=$(mktemp -d /tmp/ftkit-t6000.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# count EVENT CMD...: the CSV count of EVENT (first row with that name)
count() {
	local ev=$1; shift
	ftstat -x, -e "$ev" -o "$tmp/c.csv" "$@" >/dev/null 2>&1
	awk -F, -v ev="$ev" '$3 == ev { print $1; exit }' "$tmp/c.csv"
}

# csv_get FILE NAMECOL VALCOL NAME: field VALCOL of the first row whose field NAMECOL is NAME
csv_get() { awk -F, -v c="$2" -v v="$3" -v n="$4" '$c == n { print $v; exit }' "$1"; }
# num_ok X EXPR: EXPR (in awk, of x) holds, and X is not empty
num_ok() { awk -v x="$1" "BEGIN { exit !(x != \"\" && ($2)) }"; }

# between LO X HI: LO <= X <= HI, integers
between() { [ -n "$2" ] && [ "$1" -le "$2" ] && [ "$2" -le "$3" ]; }

# steal_ms: the time the hypervisor stole from all CPUs so far, in ms (/proc/stat counts
# in USER_HZ, 100 on x86: add 10 to a difference). task-clock counts it (the task is on
# its CPU meanwhile) but the scheduler's CPU time (rusage, CLOCK_PROCESS_CPUTIME_ID)
# leaves it out: on a loaded host that steals, it comes between the two.
steal_ms() { awk '$1 == "cpu" { print $9 * 10; exit }' /proc/stat; }

# --- exit codes and messages
ftstat true 2>"$tmp/out"
is "$?" 0 "ftstat true exits 0"
ok "the report names the command" grep -q "Performance counter stats for 'true':" "$tmp/out"
ok "the report has the elapsed time" grep -q "seconds time elapsed" "$tmp/out"
ftstat -e cs sh -c 'exit 3' 2>/dev/null
is "$?" 3 "the command's exit status is ftstat's"
ftstat -e cs sh -c 'kill -TERM $$' 2>/dev/null
is "$?" 143 "a command killed by SIGTERM gives 128+15"
ftstat -e cs /nonexistent/cmd 2>"$tmp/err"
is "$?" 127 "a command that cannot start gives 127"
ok "and says why" grep -q "cannot run '/nonexistent/cmd': No such file or directory" "$tmp/err"
ftstat -e no-such-event true 2>"$tmp/err"
is "$?" 1 "an unknown event is a usage error"
ok "that names the event" grep -q "no-such-event" "$tmp/err"

# --- software counts against the known workloads
n=3000
pf=$(count page-faults "$W" touch $n)
base=$(count page-faults "$W" touch 0)
diag "page-faults: touch $n: $pf, touch 0: $base"
ok "page-faults of touching $n fresh pages: $n more than touching none (+-20)" \
	between $((base + n - 20)) "$pf" $((base + n + 20))

# pingpong N: each of the N round trips must switch the parent out (the reply
# needs the child on the same CPU), and all but the last the child (the next
# byte needs the parent): at least 2N-1 switches, more when something preempts
# them. It prints the scheduler's own count for the same two processes
# (getrusage nvcsw + nivcsw): ftstat must agree with it. The kernel's count
# also has the switches before the exec and the child's last one at its exit,
# which no counter sees; ftstat's has the parent's after its getrusage.
n=1000
k=$(ftstat -x, -e context-switches -o "$tmp/c.csv" "$W" pingpong $n 2>/dev/null)
cs=$(csv_get "$tmp/c.csv" 3 1 context-switches)
diag "context-switches of $n pipe round trips: $cs, the scheduler counted $k"
ok "context-switches of $n round trips on one CPU: at least 2N-1" \
	between $((2 * n - 1)) "$cs" $((3 * n))
ok "and the scheduler's own count of the same processes agrees (+-10)" \
	between $((k - 10)) "$cs" $((k + 10))
cs_ni=$(ftstat -i -x, -e cs "$W" pingpong $n 2>&1 >/dev/null | awk -F, '$3 == "cs" { print $1 }')
diag "with -i (no children): $cs_ni"
ok "-i leaves the child's half out" between $((n - n / 10)) "$cs_ni" $((n + n / 2))

# spin MS burns MS ms of the process's CPU time as the kernel accounts it
# (CLOCK_PROCESS_CPUTIME_ID): task-clock, which also has the exec and the exit,
# is at least that. Startup and exit are not negligible everywhere (under qemu
# TCG they take tens of ms of guest CPU time), so the upper bound is the
# kernel's own accounting of the command: the user + sys time of its rusage
# (wait4), which also has the time from the fork to the exec; task-clock also
# has the steal time, which it leaves out (measured, and 2% + 2 ms of slack).
ms=300
st=$(steal_ms)
ftstat -e task-clock "$W" spin $ms 2>"$tmp/tc.txt"
st=$(($(steal_ms) - st + 10))
tc=$(awk '$3 == "task-clock" { gsub(",", "", $1); print $1; exit }' "$tmp/tc.txt")
ru=$(awk '$3 == "user" || $3 == "sys" { s += $1; n++ } END { if (n == 2) print s * 1000 }' \
	"$tmp/tc.txt")
diag "task-clock of a $ms ms busy loop: $tc msec; rusage user + sys: $ru msec; steal < $st ms"
ok "task-clock of a $ms ms busy loop: at least $ms ms, at most the rusage's user + sys" \
	awk -v t="$tc" -v m=$ms -v r="$ru" -v s="$st" \
	'BEGIN { exit !(t != "" && r != "" && t >= m && t <= r * 1.02 + 2 + s) }'

# --- tracepoints (perf_tracepoint), hit an exact number of times
if [ -n "$has_tp" ]; then
	n=40
	forks=$(count sched:sched_process_fork "$W" fork $n)
	is "$forks" $n "sched:sched_process_fork counts $n forks exactly"
	if [ -e "$(tracefs_dir)/events/syscalls/sys_enter_getppid/id" ]; then
		n=1234
		is "$(count syscalls:sys_enter_getppid "$W" getppid $n)" $n \
			"syscalls:sys_enter_getppid counts $n calls exactly"
	else
		skip "no syscalls:sys_enter_getppid (kernel without CONFIG_FTRACE_SYSCALLS)"
	fi
	ftstat -x, -e 'sched:sched_process_e*' true 2>"$tmp/g.csv"
	is "$(cut -d, -f3 "$tmp/g.csv" | tr '\n' ' ')" "sched:sched_process_exec sched:sched_process_exit " \
		"a tracepoint glob expands to the matching events, sorted"
else
	skip "tracepoint PMU: $tp_why"
	skip "tracepoint PMU: $tp_why"
	skip "tracepoint PMU: $tp_why"
fi

# --- groups and modifiers
ftstat -x, -e '{page-faults,cs}' -e page-faults:u "$W" touch 2000 2>"$tmp/grp.csv"
g=$(awk -F, '$3 == "page-faults" { print $1 }' "$tmp/grp.csv")
u=$(awk -F, '$3 == "page-faults:u" { print $1 }' "$tmp/grp.csv")
diag "grouped page-faults $g, page-faults:u $u"
ok "a group counts like a lone event (page-faults >= 2000)" between 2000 "$g" 3000
ok "page-faults:u counts user faults only (<= all)" between 2000 "$u" "$g"

# --- a group whose leader cannot be counted: the members still are
if [ -n "$has_hw" ]; then
	skip "this CPU has hardware counters: no unsupported leader to try"
else
	ftstat -x, -e '{cycles,page-faults}' "$W" touch 1000 2>"$tmp/g2.csv"
	ok "{cycles,page-faults} without a PMU: page-faults still counted" \
		num_ok "$(csv_get "$tmp/g2.csv" 3 1 page-faults)" 'x >= 1000'
fi

# --- hardware counters: a number where the CPU has them, <not supported> where not
ftstat -x, -e cycles,page-faults true 2>"$tmp/hw.csv"
is "$?" 0 "hardware events do not stop the counting"
if [ -n "$has_hw" ]; then
	ok "cycles are counted" grep -Eq '^[0-9]+,,cycles,' "$tmp/hw.csv"
else
	ok "cycles are <not supported> here ($hw_why)" grep -q '^<not supported>,,cycles,0,' "$tmp/hw.csv"
fi
ok "and page-faults are counted all the same" grep -Eq '^[0-9]+,,page-faults,' "$tmp/hw.csv"
if [ -n "$has_hw" ]; then
	skip "this CPU has hardware counters: nothing to explain"
else
	ftstat -v -o /dev/null -e cycles true 2>"$tmp/v.err"
	ok "-v says why cycles are not supported" grep -q "cycles: not supported: " "$tmp/v.err"
fi

# --- a PMU event by its sysfs name
pmu=/sys/bus/event_source/devices/msr/events/tsc
if [ -e "$pmu" ]; then
	v=$(count msr/tsc/ "$W" spin 20)
	ok "msr/tsc/ (a sysfs PMU alias) counts: $v" between 1 "$v" 999999999999999
else
	skip "no $pmu"
fi

# --- interval rows (no timing assumptions: rows are never early, and they add up)
ftstat -x, -I 100 --interval-count 3 -e task-clock,cs sleep 5 2>"$tmp/ic.csv"
is "$(grep -c ',task-clock,' "$tmp/ic.csv")" 3 "-I 100 --interval-count 3: 3 task-clock rows"
is "$(grep -c ',cs,' "$tmp/ic.csv")" 3 "and 3 cs rows, one per interval"
ok "row k is stamped at k*100 ms or later, in order" \
	awk -F, '$4 == "cs" { k++; t = $1 + 0
		if (t < k * 0.1 || t <= last) bad = 1; last = t } END { exit bad }' "$tmp/ic.csv"
if [ -n "$has_tp" ]; then
	n=60
	ftstat -x, -I 20 -e sched:sched_process_fork "$W" fork $n 2>"$tmp/i.csv"
	rows=$(grep -c ',sched:sched_process_fork,' "$tmp/i.csv")
	sum=$(awk -F, '$4 == "sched:sched_process_fork" && $2 !~ /^</ { s += $2 } END { print s + 0 }' "$tmp/i.csv")
	diag "$n forks in $rows intervals of 20 ms"
	is "$sum" $n "-I 20: the rows of $n forks add up to $n"
else
	skip "tracepoint PMU: $tp_why"
fi
ftstat -x, -I 100000 -e page-faults "$W" touch 500 2>"$tmp/i1.csv"
is "$(grep -c ',page-faults,' "$tmp/i1.csv")" 1 "a command shorter than the interval: one row, the rest"
ok "with its counts" num_ok "$(csv_get "$tmp/i1.csv" 4 2 page-faults)" 'x >= 500'

# --- CSV and JSON parse with a standard parser
# py_ok NAME SCRIPT ARGS...: python3's verdict, or a skip where there is no python3 (the VM)
py_ok() {
	local name=$1; shift
	if command -v python3 >/dev/null; then
		ok "$name" python3 -c "$@"
	else
		skip "$name: no python3 here"
	fi
}
ftstat -x, -e task-clock,cs,page-faults,cycles true 2>"$tmp/x.csv"
py_ok "CSV: 7 fields a row, numbers where counted" '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    assert len(r) == 7, r
    if not r[0].startswith("<"):
        float(r[0]); int(r[3]); float(r[4])
' "$tmp/x.csv"
ftstat --json -e task-clock,cs,page-faults,cycles "$W" touch 100 2>"$tmp/x.json"
py_ok "JSON: one object a line with perf's keys" '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(objs) == 4, objs
keys = {"counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"}
for o in objs:
    assert set(o) == keys, o
pf = [o for o in objs if o["event"] == "page-faults"][0]
assert float(pf["counter-value"]) >= 100, pf
' "$tmp/x.json"
ftstat --json -I 100 -e cs sleep 0.25 2>"$tmp/i.json"
py_ok "JSON interval rows carry the interval" '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(objs) >= 2 and all("interval" in o for o in objs), objs
' "$tmp/i.json"

# --- per-CPU rows
ncpu=$(grep -c '^processor' /proc/cpuinfo)
ftstat -x, -a -A -e cs,cpu-clock sleep 0.1 2>"$tmp/a.csv"
is "$(grep -c ',cs,' "$tmp/a.csv")" "$ncpu" "-a -A: one cs row per CPU"
ok "rows are named CPU0.." grep -q '^CPU0,' "$tmp/a.csv"
ftstat -x, -C 0 -e cpu-clock sleep 0.1 2>"$tmp/c0.csv"
ok "-C 0: one CPU's clock is at most the elapsed time (CPUs utilized <= 1)" \
	num_ok "$(csv_get "$tmp/c0.csv" 3 6 cpu-clock)" 'x > 0 && x <= 1.01'

ftstat -C 4095 -e cs true 2>"$tmp/c9.err"
is "$?" 1 "-C with a CPU that is not online is a usage error"
ok "that names the CPU" grep -q "CPU 4095 is not online" "$tmp/c9.err"

# --- -t: one thread
"$W" spin 300 &
spid=$!
ftstat -x, -t $spid -e task-clock 2>"$tmp/t.csv"
wait $spid
ok "-t counts a thread until it exits" num_ok "$(csv_get "$tmp/t.csv" 3 1 task-clock)" 'x > 0'

# --- a user perf_event_paranoid 2 keeps out of the kernel: user space is counted, as :u
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" != 2 ]; then
	skip "perf_event_paranoid is not 2"
elif ! command -v setpriv >/dev/null; then
	skip "no setpriv (util-linux) to run as nobody"
else
	setpriv --reuid=65534 --regid=65534 --clear-groups ftstat -x, -e page-faults "$W" touch 300 \
		2>"$tmp/nobody.csv"
	ok "as nobody: page-faults:u counted (>= 300)" \
		num_ok "$(csv_get "$tmp/nobody.csv" 3 1 page-faults:u)" 'x >= 300'
fi

# --- -r: means and noise
ftstat -r 3 -e page-faults "$W" touch 500 2>"$tmp/r.txt"
ok "-r 3 says 3 runs" grep -q "(3 runs):" "$tmp/r.txt"
ok "-r 3 gives the elapsed time with its noise" grep -q " +- .* seconds time elapsed" "$tmp/r.txt"

timeout 10 ftstat -r 2 -a -e cs 2>/dev/null
is "$?" 1 "-r without a command is a usage error"

# --- -o FILE
ftstat -o "$tmp/o.txt" -e cs true 2>"$tmp/o.err"
ok "-o writes the report to the file" grep -q "seconds time elapsed" "$tmp/o.txt"
ok "and nothing to stderr" test ! -s "$tmp/o.err"

# --- Ctrl-C prints the counts so far and exits cleanly
# The -o file exists once ftstat catches signals: wait for it, not for a time.
wait_file() { local i; for ((i = 0; i < 500; i++)); do [ -s "$1" ] && return; sleep 0.02; done; }
ftstat -a -e cs,cpu-clock -o "$tmp/int.txt" &
pid=$!
wait_file "$tmp/int.txt"
kill -INT $pid
wait $pid
is "$?" 0 "SIGINT ends system-wide counting with exit 0"
ok "and the counts so far are printed" grep -q "cpu-clock" "$tmp/int.txt"
ftstat -e cs -o "$tmp/int2.txt" sleep 10 &
pid=$!
wait_file "$tmp/int2.txt"
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT reaches the command, whose status (128+2) ftstat returns"
ok "with the counts so far" grep -q "seconds time elapsed" "$tmp/int2.txt"

# --- -p: a running process
# Its bound is the CPU time the kernel charged the process in all, with the
# steal and slack of the task-clock test above, not the 400 ms it asked for:
# under emulation its exit alone can take tens of ms. The charge is the
# rusage this shell reaps (bash's times before and after), which also holds
# ftstat's own few ms: bash may reap the spinner before the wait.
child_ms() { awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60000 + a[2] * 1000 } } END { printf "%d", t }' "$1"; }
st=$(steal_ms)
times >"$tmp/times0"
"$W" spin 400 &
spid=$!
ftstat -x, -p $spid -e task-clock 2>"$tmp/p.csv"
wait $spid
times >"$tmp/times1"
st=$(($(steal_ms) - st + 10))
cpu=$(($(child_ms "$tmp/times1") - $(child_ms "$tmp/times0")))
tc=$(awk -F, '$3 == "task-clock" { print int($1) }' "$tmp/p.csv")
ok "-p counts a process until it exits (task-clock $tc ms, charged $cpu ms, steal < $st ms)" \
	between 1 "$tc" $((cpu * 102 / 100 + 2 + st))

# --- -p with a command: the process is counted while the command runs
"$W" spin 3000 &
spid=$!
ftstat -x, -p $spid -e task-clock,sched:sched_process_fork "$W" fork 5 2>"$tmp/pc.csv"
is "$?" 0 "-p PID COMMAND ends with the command"
ok "the process was counted, still running" \
	num_ok "$(csv_get "$tmp/pc.csv" 3 1 task-clock)" 'x > 0'
if [ -n "$has_tp" ]; then
	is "$(awk -F, '$3 == "sched:sched_process_fork" { print $1 }' "$tmp/pc.csv")" 0 \
		"and the command itself was not (its 5 forks are not in the count)"
else
	skip "tracepoint PMU: $tp_why"
fi
kill $spid
wait $spid 2>/dev/null

done_testing
