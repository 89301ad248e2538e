#!/bin/bash
# Issue 16.4 and 16.1: a guest's TIME_SHIFT, several files in every output
# format, and what --stat says about a file's options.
# - synth-v6-tshift.dat holds a guest's TIME_SHIFT option (interpolated,
#   scaling 3 >> 1, CPU 1's samples in reverse order, one time twice):
#   ftreport prints trace-cmd report's text of it, byte for byte, with and
#   without -t, for v6 and its zstd v7 conversion (t/fixtures/README.synth);
# - merged with synth-v6-host.dat (its host: TRACEID, GUEST, DATE, OFFSET),
#   the text equals trace-cmd report -i HOST -i GUEST;
# - the same merge in JSON, CSV and chrome: every event once, tagged with
#   its file, in time order, as many of each file as the text has;
# - --stat shows the options mkdat wrote (known values), one section a file,
#   and a flight recorder's trigger in its own file's section;
# - damaged TIME_SHIFT sizes are refused with the offset named (exit 2),
#   a damaged GUEST is left out; no crash either way; a CPUCOUNT of 2^31
#   does not stop -F.
. "$top_srcdir/t/tap.sh"
lane unit
fx="$top_srcdir/t/fixtures"
tmp=$(mktemp -d /tmp/ftk-t0157-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

g="$fx/synth-v6-tshift.dat"
ftreport "$g" > "$tmp/v6" 2> "$tmp/err"; rc=$?
is "$rc" 0 "a TIME_SHIFT file exits 0 ($(head -c 200 "$tmp/err"))"
ok "TIME_SHIFT v6: text equals trace-cmd report's" cmp -s "$tmp/v6" "$fx/synth-v6-tshift.report"
ftreport -t "$g" > "$tmp/v6t"
ok "TIME_SHIFT v6 -t: full stamps equal trace-cmd report -t's" \
	cmp -s "$tmp/v6t" "$fx/synth-v6-tshift-t.report"
ftreport "$fx/synth-v7-tshift.dat" > "$tmp/v7"
ok "TIME_SHIFT v7 zstd: text equals trace-cmd report's" cmp -s "$tmp/v7" "$fx/synth-v6-tshift.report"
ftreport -t "$fx/synth-v7-tshift.dat" > "$tmp/v7t"
ok "TIME_SHIFT v7 zstd -t: equal" cmp -s "$tmp/v7t" "$fx/synth-v6-tshift-t.report"
# the raw stamps start at 1.000000000 s: the samples put them 0.5 s back after scaling by 1.5
ok "the stamps are the host's (1.5 x raw - 0.5 s), not the guest's own" \
	grep -q '^ *kworker/0:1-42 *\[000\] *1.000009581: sched_wakeup' "$tmp/v6t"

(cd "$fx" && ftreport -i synth-v6-host.dat -i synth-v6-tshift.dat) > "$tmp/multi" 2> "$tmp/err"; rc=$?
is "$rc" 0 "host and guest merged: exits 0"
ok "host and guest merged: equals trace-cmd report -i HOST -i GUEST" \
	cmp -s "$tmp/multi" "$fx/synth-guest-host.report"
# events of each file (mkdat -n 800 and -n 1200), from its own text
nh=$(ftreport "$fx/synth-v6-host.dat" | grep -c ' \[00[0-9]\] ')
ng=$(grep -c ' \[00[0-9]\] ' "$fx/synth-v6-tshift.report")
ok "the two files' events interleave in time ($(awk '{ print $1 }' "$tmp/multi" | uniq | wc -l) runs)" \
	test "$(awk '{ print $1 }' "$tmp/multi" | uniq | wc -l)" -gt 20

for fmt in json csv chrome; do
	(cd "$fx" && ftreport -o $fmt -i synth-v6-host.dat -i synth-v6-tshift.dat) > "$tmp/m.$fmt" \
		2> "$tmp/err"; rc=$?
	is "$rc" 0 "-o $fmt with two files exits 0 ($(head -c 200 "$tmp/err"))"
done
if command -v python3 > /dev/null; then
	is "$(python3 - "$tmp/m.json" <<'EOF'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1])]
n = collections.Counter(r["file"] for r in recs)
ts = [r["ts"] for r in recs]
print(n["synth-v6-host.dat"], n["synth-v6-tshift.dat"], ts == sorted(ts))
EOF
)" "$nh $ng True" "json: each record names its file, as many as the text, in time order"
	is "$(python3 - "$tmp/m.csv" <<'EOF'
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
n = collections.Counter(r[0] for r in rows[1:])
print(rows[0][0], n["synth-v6-host.dat"], n["synth-v6-tshift.dat"],
      [int(r[1]) for r in rows[1:]] == sorted(int(r[1]) for r in rows[1:]))
EOF
)" "file $nh $ng True" "csv: one header, a file column, every event, in time order"
	is "$(python3 - "$tmp/m.chrome" <<'EOF'
import json, sys, collections
d = json.load(open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in d if e["name"] == "process_name"}
n = collections.Counter(procs.get(e["pid"]) for e in d if e["ph"] == "i")
named = {(e["pid"], e["tid"]) for e in d if e["name"] == "thread_name"}
used = {(e["pid"], e["tid"]) for e in d if e["ph"] == "i"}
print(n["synth-v6-host.dat"], n["synth-v6-tshift.dat"], named == used)
EOF
)" "$nh $ng True" "chrome: valid JSON, a process per file, every thread named"
else
	skip "python3 not installed: JSON not parsed"
	skip "python3 not installed: CSV not parsed"
	skip "python3 not installed: JSON not parsed"
fi

(cd "$fx" && ftreport --stat synth-v6-tshift.dat synth-v6-host.dat) > "$tmp/stat" 2> "$tmp/err"; rc=$?
is "$rc" 0 "--stat A B exits 0"
is "$(grep -c '^file: ' "$tmp/stat")" 2 "--stat A B: a section a file"
is "$(awk '/^events:/ { s = s $2 " " } END { print s }' "$tmp/stat")" "$ng $nh " \
	"--stat A B: each section counts its file's events"
ok "--stat: the guest's host (TIME_SHIFT peer id)" \
	grep -q '^guest of:  host trace id 0xfeedf00d12345678' "$tmp/stat"
# 5 samples on each of 2 CPUs, CPU 0's third at the time of its second: 9
ok "--stat: the TIME_SHIFT samples" \
	grep -q '^timeshift: 2 cpus, 9 samples, offsets -500016665 to -499967892 ns, interpolated' "$tmp/stat"
ok "--stat: PROCMAPS pids, comms and mappings" \
	grep -q '^procmaps:  pid 1234 bash, 3 mappings' "$tmp/stat"
ok "--stat: the second PROCMAPS (hex pid 10e1)" grep -q '^procmaps:  pid 4321 make, 2 mappings' "$tmp/stat"
ok "--stat: TRACEID" grep -q '^trace id:  0x1a2b3c4d$' "$tmp/stat"
ok "--stat: the host's GUEST option" \
	grep -q '^guest:     guest1 trace id 0x1a2b3c4d, 2 vcpus (vcpu 0:pid 3000, 1:pid 3001)' "$tmp/stat"
ok "--stat: DATE" grep -q '^date:      +1000 us' "$tmp/stat"
ok "--stat: OFFSET" grep -q '^offset:    +1000 ns' "$tmp/stat"
ok "--stat: uname and CPU count" \
	test "$(grep -c -e '^uname:     Linux mkdat' -e '^cpus:      2$' "$tmp/stat")" = 4
(cd "$fx" && ftreport --stat -i synth-v6-tshift.dat -i synth-v6-host.dat) > "$tmp/stat-i"
ok "--stat -i A -i B: the same sections" cmp -s "$tmp/stat" "$tmp/stat-i"
ftreport --stat "$tmp/none.dat" "$fx/synth-v6-host.dat" > "$tmp/stat2" 2> "$tmp/err"; rc=$?
is "$rc" 2 "--stat with an unreadable file: exits 2"
ok "  names it" grep -q 'none.dat' "$tmp/err"
ok "  and still prints the other" grep -q '^file: .*synth-v6-host.dat' "$tmp/stat2"

# The flight recorder's reason mark, in the second of three files only:
# its section alone says it, with the mark's time (from the text).
mkdat="$top_builddir/t/mkdat"
if [ -x "$mkdat" ]; then
	"$mkdat" -n 500 -S 5 -R 'mark matching BOOM' -o "$tmp/flight.dat"
	at=$(ftreport -t "$tmp/flight.dat" | sed -n 's/^.* \([0-9]*\.[0-9]*\): print: .*ftkit flight trigger: mark matching BOOM$/\1/p')
	ftreport --stat "$fx/synth-v6.dat" "$tmp/flight.dat" "$fx/synth-v6-host.dat" > "$tmp/fstat"
	is "$(awk '/^file:/ { f = $2 } /^trigger:/ { print f ": " $0 }' "$tmp/fstat")" \
		"$tmp/flight.dat: trigger:   mark matching BOOM at $at" \
		"--stat A B C: the flight trigger in its own file's section only, at the mark's time"
else
	skip "t/mkdat not built"
fi

# A CPUCOUNT option of 2^31 (t/fixtures/fuzz-cpucount-huge.dat, the v7
# guest file with that one field changed) made -F run out of memory.
ftreport -F sched_switch "$fx/fuzz-cpucount-huge.dat" > "$tmp/cc" 2> "$tmp/err"; rc=$?
is "$rc" 0 "CPUCOUNT 2^31 with -F: exits 0 ($(head -c 100 "$tmp/err"))"
ok "  and keeps the sched_switch events of the whole file" \
	cmp -s <(grep ' sched_switch: ' "$tmp/cc") <(grep ' sched_switch: ' "$fx/synth-v6-tshift.report")

# Damaged options: the peer id 0xfeedf00d12345678 is where TIME_SHIFT's body starts.
poke() {	# file out marker-hex offset-from-marker value-hex-le
	python3 - "$@" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.find(bytes.fromhex(sys.argv[3])) + int(sys.argv[4])
v = bytes.fromhex(sys.argv[5])
d[at:at + len(v)] = v
open(sys.argv[2], 'wb').write(d)
EOF
}
if command -v python3 > /dev/null; then
	poke "$g" "$tmp/cpus.dat" 785634120df0edfe 12 ffffff7f
	ftreport "$tmp/cpus.dat" > /dev/null 2> "$tmp/err"; rc=$?
	is "$rc" 2 "TIME_SHIFT claiming 2^31 CPUs: exits 2"
	ok "  saying why and where ($(head -c 200 "$tmp/err"))" \
		grep -q 'TIME_SHIFT option at offset [0-9]*: 2147483647 cpus in' "$tmp/err"
	poke "$g" "$tmp/count.dat" 785634120df0edfe 16 00000010
	ftreport "$tmp/count.dat" > /dev/null 2> "$tmp/err"; rc=$?
	is "$rc" 2 "TIME_SHIFT claiming 2^28 samples: exits 2"
	ok "  saying why ($(head -c 200 "$tmp/err"))" grep -q 'cpu 0: 268435456 samples beyond' "$tmp/err"
	poke "$g" "$tmp/count1.dat" 785634120df0edfe 16 ffffffff
	ftreport --stat "$tmp/count1.dat" > /dev/null 2> "$tmp/err"; rc=$?
	is "$rc" 2 "TIME_SHIFT with a count of -1: exits 2, no crash"
	poke "$fx/synth-v6-host.dat" "$tmp/guest.dat" 67756573743100 15 ffffff7f
	ftreport --stat "$tmp/guest.dat" > "$tmp/gstat" 2> "$tmp/err"; rc=$?
	is "$rc" 0 "a GUEST option claiming 2^31 vcpus: left out, exit 0"
	is "$(grep -c '^guest:' "$tmp/gstat")" 0 "  and not shown"
else
	for i in 1 2 3 4 5 6 7 8; do skip "python3 not installed"; done
fi
done_testing
