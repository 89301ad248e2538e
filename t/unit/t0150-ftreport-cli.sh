#!/bin/bash
# ftreport as a user runs it on the fixtures: exit codes, messages, --cpu,
# -F, --stat, and the JSON, CSV and Chrome outputs checked against the
# text output of the same file.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0150-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ftreport --help > "$tmp/help"; rc=$?
is "$rc" 0 "--help exits 0"
ok "--help prints the usage on stdout" grep -q '^usage: ftreport' "$tmp/help"
ftreport --bogus > /dev/null 2>&1; rc=$?
is "$rc" 1 "a bad option exits 1"
ftreport -i "$tmp/none.dat" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "a missing file exits 2"
ok "the message names the file" grep -q "none.dat" "$tmp/err"

f="$fx/synth-v7-zstd-inst.dat"
ftreport "$f" > "$tmp/all"
ok "default text equals trace-cmd report's" cmp -s "$tmp/all" "$fx/synth-v7-zstd-inst.report"
events=$(grep -c '^ *[a-z-]*: *.*\[[0-9][0-9][0-9]\]\|\[[0-9][0-9][0-9]\] ' "$tmp/all")
ftreport --output "$tmp/out" "$f"
ok "--output writes the file" cmp -s "$tmp/all" "$tmp/out"

ftreport --cpu 1 "$f" > "$tmp/cpu1"
want=$(grep -c ' \[001\] ' "$tmp/all")
got=$(grep -c ' \[001\] ' "$tmp/cpu1")
is "$got" "$want" "--cpu 1 keeps every CPU 1 event"
is "$(grep -c ' \[00[023]\] ' "$tmp/cpu1")" 0 "--cpu 1 drops the others"

ftreport -F sched_switch "$f" > "$tmp/sw"
is "$(grep -c ' sched_switch: ' "$tmp/sw")" "$(grep -c ' sched_switch: ' "$tmp/all")" \
	"-F sched_switch keeps every sched_switch"
is "$(grep -vc -e ' sched_switch: ' -e '^cpus=' -e 'EVENTS DROPPED' "$tmp/sw")" 0 \
	"-F sched_switch drops the others"
ftreport -F 'sched_switch:(prev_pid>1' "$f" > /dev/null 2>&1; rc=$?
is "$rc" 1 "a bad filter is a usage error"
ftreport -F 'sched_switch: prev_pid == 0 || nosuch' "$f" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 1 "an unfinished filter is a usage error"
ok "the message says why" grep -q "bad filter.*an unfinished expression" "$tmp/err"
ftreport -F 'sched_switch: prev_pid == 0 || prev_pid == 1' "$f" > /dev/null 2>&1; rc=$?
is "$rc" 0 "the same shape with fields is taken"

# A filter is parsed once per event it names (as trace-cmd report -F does),
# and a word that is not a field of an event is false for that event:
# sched_wakeup has no prev_pid, so a system filter on it keeps only switches.
f6="$fx/synth-v6.dat"
ftreport "$f6" > "$tmp/all6"
ftreport -F 'sched: prev_pid == 1234' "$f6" > "$tmp/sys" 2> "$tmp/err"; rc=$?
is "$rc" 0 "a system filter on a field only some of its events have is taken"
want=$(grep -c ' sched_switch: *[^ ]*:1234 \[' "$tmp/all6")
is "$(grep -c ' sched_switch: *[^ ]*:1234 \[' "$tmp/sys")" "$want" \
	"it keeps every sched_switch from pid 1234 ($want)"
is "$(grep -vc -e ' sched_switch: *[^ ]*:1234 \[' -e '^cpus=' "$tmp/sys")" 0 "and nothing else"
ftreport -F 'sched_switch: nosuch == 1 || prev_pid == 1234' "$f6" > "$tmp/nf" 2>&1; rc=$?
is "$rc" 0 "a comparison on a word that is no field is taken (false)"
is "$(grep -c ' sched_switch: ' "$tmp/nf")" "$want" "and the other side decides"

# Shapes that crash libtraceevent 1.7.1's filter parser are refused with a
# reason before they reach it (lib/filter-check.c). trace-cmd report -F dies
# on each (SIGSEGV, SIGFPE, glibc's double-free abort), except the shifts
# (undefined behaviour), "!!A || B" and "A && x % 7 != 0" (uses after free
# that only ASan sees).
while IFS=';' read -r expr why; do
	ftreport -F "sched_switch: $expr" "$f6" > /dev/null 2> "$tmp/err"; rc=$?
	is "$rc" 1 "-F 'sched_switch: $expr' is refused"
	ok "  because of $why" grep -q "bad filter.*$why" "$tmp/err"
done <<'SHAPES'
prev_pid == 1234 || next_pid;an unfinished expression
prev_pid ==;an unfinished expression
prev_pid == 1 ||;an unfinished expression
prev_pid == 1 || || next_pid == 2;an unfinished expression
!prev_pid ==;an unfinished expression
prev_state &;an unfinished expression
(prev_pid == 1 ||;an unfinished expression
prev_comm == "bash;an unfinished expression
prev_pid == 1 || !;free a node twice
(prev_pid == 1) (prev_pid == 2);free a node twice
prev_pid == 1 || next_pid == 2 prev_prio == 3;free a node twice
!!prev_pid == 1 || next_pid == 2;free a node twice
prev_pid == 1 && prev_pid % 7 != 0;free a node twice
prev_state / prev_state;'/' or '%'
prev_state % 0;'/' or '%'
prev_state >> next_pid;'<<' or '>>'
prev_state << 64;'<<' or '>>'
prev_comm == "a,b";a ',' after the ':'
prev_pid != "1234";a string compared with a field that is not a string
CPU == "1";a string compared with a field that is not a string
SHAPES
deep=$(printf '(%.0s' $(seq 40))prev_pid==1$(printf ')%.0s' $(seq 40))
ftreport -F "sched_switch: $deep" "$f6" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 1 "40 nested parentheses are refused"
ok "  as nested too deep" grep -q "nested too deep" "$tmp/err"
deep=$(printf '(%.0s' $(seq 20))prev_pid==1234$(printf ')%.0s' $(seq 20))
ftreport -F "sched_switch: $deep" "$f6" > "$tmp/deep" 2>&1; rc=$?
is "$rc" 0 "20 nested parentheses are taken"
is "$(grep -c ' sched_switch: ' "$tmp/deep")" "$want" "and keep what the plain filter keeps"

total=$(grep -c ' \[00[0-9]\] ' "$tmp/all")
ftreport --stat "$f" > "$tmp/stat"
is "$(awk '/^events:/ { print $2 }' "$tmp/stat")" "$total" "--stat counts every event"
is "$(awk '/^per event:/ { on = 1; next } on && NF == 2 { s += $2 } END { print s }' "$tmp/stat")" \
	"$total" "--stat per-event counts add up"
is "$(awk '/^  cpu/ { s += $3 } END { print s }' "$tmp/stat")" "$total" \
	"--stat per-CPU counts add up"

v="$fx/trace-cmd-vm/v7-zstd-sched-2cpu.dat"
if [ -e "$v" ]; then
	ftreport --stat "$v" > "$tmp/vstat"
	ok "--stat shows the kernel's buffer stats saved in the file" grep -q '^  CPU: 1 entries:' "$tmp/vstat"
	is "$(awk '/^events:/ { print $2 }' "$tmp/vstat")" "$(grep -c ' \[00[0-9]\] ' "$fx/trace-cmd-vm/v7-zstd-sched-2cpu.report.txt")" \
		"--stat counts a trace-cmd recording's events"
else
	skip "no trace-cmd-vm fixtures"
	skip "no trace-cmd-vm fixtures"
fi

ftreport -o csv "$f" > "$tmp/csv"
is "$(($(wc -l < "$tmp/csv") - 1))" "$total" "csv: one line per event"
ftreport -o json "$f" > "$tmp/json"
is "$(wc -l < "$tmp/json")" "$total" "json: one line per event"
ftreport -o chrome "$f" > "$tmp/chrome"
if command -v python3 > /dev/null; then
	ok "json lines parse" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/json"
	is "$(python3 -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "i"))' "$tmp/chrome")" \
		"$total" "chrome: valid JSON with every event"
	is "$(python3 -c 'import json,sys; print(sorted(set(str(e["tid"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "M")) == sorted(set(str(e["tid"]) for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "i")))' "$tmp/chrome")" \
		"True" "chrome: every thread is named"
	is "$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["event"] == "sched_switch"))' "$tmp/json")" \
		"$(grep -c ' sched_switch: ' "$tmp/all")" "json: the same events as the text"
else
	skip "python3 not installed: JSON not parsed"
	skip "python3 not installed: JSON not parsed"
	skip "python3 not installed: JSON not parsed"
	skip "python3 not installed: JSON not parsed"
fi

# ftrace:print's buf (a flexible char buf[], size 0 in the format) in the
# JSON and CSV fields: the marker's text, as trace-cmd report prints it
m="$fx/trace-cmd-vm/marker"
if command -v python3 > /dev/null && [ -f "$m.dat" ]; then
	want=$(sed -n 's/.* print: *tracing_mark_write: //p' "$m.report.txt")
	ftreport -o json "$m.dat" > "$tmp/mj"
	is "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["event"] == "print": print(r["fields"]["buf"].rstrip("\n"))' "$tmp/mj")" "$want" \
		"json: ftrace:print's buf is the marker's text, as in trace-cmd report"
	ftreport -o csv "$m.dat" > "$tmp/mc"
	is "$(python3 -c 'import csv,json,sys
for r in csv.reader(open(sys.argv[1])):
    if len(r) > 8 and r[7] == "print": print(json.loads(r[9])["buf"].rstrip("\n"))' "$tmp/mc")" "$want" \
		"csv: ftrace:print's buf is the marker's text, as in trace-cmd report"
else
	skip "python3 or the marker fixture missing"
	skip "python3 or the marker fixture missing"
fi

g="$fx/synth-v6-graph.dat"
is "$(ftreport -o json "$g" | grep -c '"event":"funcgraph_')" "$(ftreport -N "$g" | grep -c ' funcgraph_')" \
	"json: every function_graph record (no leaf merging)"
if command -v python3 > /dev/null; then
	ftreport -o chrome "$g" > "$tmp/gchrome"
	is "$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["traceEvents"]
depth = {}
bad = 0
for e in d:
    if e["ph"] == "B": depth[e["tid"]] = depth.get(e["tid"], 0) + 1
    if e["ph"] == "E": depth[e["tid"]] = depth.get(e["tid"], 0) - 1
print(sum(1 for e in d if e["ph"] == "B") > 0 and all(v >= 0 for v in depth.values()))' "$tmp/gchrome")" \
		"True" "chrome: function_graph entries and returns as B/E slices"
	# as the trace event format pairs them (and speedscope, which keys a
	# frame by name and args): each E closes the innermost open B of its
	# thread with the same name and the same args; trace-cmd's report of
	# the fixture (its .report) says how many entries there are
	is "$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["traceEvents"]
open_, bad, ends = {}, 0, 0
for e in d:
    k = (e["pid"], e["tid"])
    if e["ph"] == "B": open_.setdefault(k, []).append(e)
    if e["ph"] == "E":
        ends += 1
        b = open_.get(k, [None]).pop() if open_.get(k) else None
        bad += b is None or b["name"] != e["name"] or b.get("args") != e.get("args")
print(sum(1 for e in d if e["ph"] == "B"), ends > 0 and bad == 0)' "$tmp/gchrome")" \
		"$(grep -c ' funcgraph_entry: ' "$fx/synth-v6-graph.report") True" \
		"chrome: every E has its B's name and args"
else
	skip "python3 not installed: JSON not parsed"
fi

# Several files (issue 16.4): merged by time, each line tagged with its file,
# byte for byte as trace-cmd report -i A -i B prints them (t/fixtures/README.synth).
(cd "$fx" && ftreport -i synth-v6.dat -i synth-v6-opts.dat) > "$tmp/multi" 2> "$tmp/err"; rc=$?
is "$rc" 0 "-i A -i B exits 0"
ok "-i A -i B equals trace-cmd report -i A -i B, byte for byte" cmp -s "$tmp/multi" "$fx/synth-multi.report"
(cd "$fx" && ftreport -i synth-v6.dat -i synth-v6-opts.dat --offset synth-v6-opts.dat=1000000000000) \
	> "$tmp/multi-off" 2> "$tmp/err"
last_v6=$(grep -n '^ *synth-v6.dat: .*\]' "$tmp/multi-off" | tail -1 | cut -d: -f1)
first_opts=$(grep -n '^synth-v6-opts.dat: .*\]' "$tmp/multi-off" | head -1 | cut -d: -f1)
ok "--offset FILE=1000 s moves that file's events after the other's ($last_v6 < $first_opts)" \
	test "$last_v6" -lt "$first_opts"
ftreport -i "$fx/synth-v6.dat" -i "$fx/synth-v6.dat" --offset nosuch.dat=5 > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 1 "--offset naming no input file is a usage error"
ftreport -i "$fx/synth-v6.dat" -i "$fx/synth-v6-opts.dat" --stat > "$tmp/stat2" 2> "$tmp/err"; rc=$?
is "$rc" 0 "--stat with several files exits 0 (t0157 checks the sections)"
is "$(grep -c '^file: ' "$tmp/stat2")" 2 "  with a section a file"
ftreport -i "$fx/synth-v6.dat" -i "$fx/synth-v6.dat" --live > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 1 "--live with files is a usage error"

# Damage: cut the file inside the event data.
size=$(stat -c %s "$fx/synth-v6.dat")
head -c $((size - 30000)) "$fx/synth-v6.dat" > "$tmp/cut.dat"
ftreport "$tmp/cut.dat" > "$tmp/cut" 2> "$tmp/err"; rc=$?
is "$rc" 2 "a truncated file exits 2"
ok "the warning names the file, the offset and the CPU that lost data" \
	grep -q "warning: .*cut.dat: file is truncated at offset $((size - 30000)): cpu [0-9] lost [0-9]* of its" "$tmp/err"
ok "the events before the damage are printed" \
	test "$(grep -c ' \[00[0-9]\] ' "$tmp/cut")" -gt 100
n=$(grep -c ' \[00[0-9]\] ' "$tmp/cut")
# (comms may differ: the lost CPU's events no longer register them)
ok "and they are the file's first events" \
	cmp -s <(grep ' \[000\] ' "$tmp/cut" | sed 's/^.*\[000\]//') \
	       <(grep ' \[000\] ' "$fx/synth-v6.report" | head -n "$(grep -c ' \[000\] ' "$tmp/cut")" | sed 's/^.*\[000\]//')
done_testing
