#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A process named with hostile bytes (an escape sequence, a newline, a byte
# that is not UTF-8, U+FFFE): fttop -b --json stays JSON that python3 reads,
# naming the task as python3 decodes its name, and fttop -b prints the name
# with strace's escapes, no raw control byte reaching the terminal.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6302

# 10 bytes, so the comm (15 at most) and fttop's column (16) hold all of it
name=$(printf 'x\033[2J\n\377\357\277\276')
cp "$top_builddir/t/helpers/fttop-work" "$tmp/$name"
"$tmp/$name" getppid 5000 > "$tmp/work" &
wpid=$!
pids=$wpid
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"
is "$(od -An -tx1 "/proc/$wpid/comm" | tr -d ' \n')" "781b5b324a0affefbfbe0a" \
	"the workload's comm is the hostile name"

fttop -b --json -d 0.3 -P "$wpid" --view tasks > "$tmp/json" 2> "$tmp/json.err" &
jpid=$!
fttop -b -d 0.3 -P "$wpid" --view tasks > "$tmp/text" 2> "$tmp/text.err" &
tpid=$!
pids="$pids $jpid $tpid"
for f in json text; do
	wait_for "$tmp/$f.err" 'tracing in instance' || bail_out "fttop did not start: $(cat "$tmp/$f.err")"
done
kill -USR1 "$wpid"
wait_for "$tmp/work" '^done' || bail_out "fttop-work did not finish"
n=$(wc -l < "$tmp/json")
wait_lines "$tmp/json" $((n + 2)) || bail_out "no frames from fttop --json"
sleep 0.7
kill -INT "$jpid" "$tpid"
wait "$jpid"; is "$?" 0 "fttop --json ends with 0"
wait "$tpid"; is "$?" 0 "fttop -b ends with 0"
pids=$wpid

ok "every frame is JSON and the task is named as python3 decodes its comm" python3 -c '
import json, sys
want = open("/proc/%s/comm" % sys.argv[2], "rb").read()[:-1].decode("utf-8", "replace")
want = want.replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")
seen = 0
for line in open(sys.argv[1], "rb"):
	line.decode("utf-8", "strict")
	f = json.loads(line)
	seen += any(r.get("comm", r.get("name")) == want for r in f["rows"])
sys.exit(0 if seen else 1)' "$tmp/json" "$wpid"

# strace shows the same bytes its way; fttop must show them so
strace -qq -e trace=write -s 100 -o "$tmp/strace" printf %s "$name" > /dev/null 2>&1
esc=$(sed -n 's/^write(1, "\(.*\)", [0-9]*) *= [0-9]*$/\1/p' "$tmp/strace")
# cut to the 16 columns of COMM between two escapes
esc=$(python3 -c 'import re, sys
out = ""
for t in re.findall(r"\\(?:[0-7]{1,3}|.)|.", sys.argv[1]):
	if len(out + t) > 16:
		break
	out += t
print(out)' "$esc")
if [ -n "$esc" ]; then
	ok "fttop -b names the task with strace's escapes ($esc)" grep -qF -- " $esc " "$tmp/text"
else
	skip "strace did not run here"
fi
ok "no control byte but newline, no byte past ASCII in fttop -b's text" \
	bash -c "! LC_ALL=C grep -q \$'[\\x01-\\x09\\x0b-\\x1f\\x7f-\\xff]' '$tmp/text'"
snap_is "$(tracefs_snap "$T")" "$snap_before" "tracefs as before"
done_testing
