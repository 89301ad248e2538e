#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord --flight writes one window, the same on every CPU (issue 16,
# item 1). The kernel's rings are per CPU: in overwrite mode a busy CPU's
# ring laps and keeps only its last pages while a quiet CPU keeps events
# from long before. The file must not show the quiet CPU's old events (a
# "before" that is not the same on every CPU); with --before S every CPU's
# events start at trigger - S and, in a ring big enough, cover it; with
# --after S none is later than trigger + S. Marks written by writers
# pinned to CPU 0 and CPU 1 (taskset) are the truth; the time stamps are
# read back with ftreport -t and trace-cmd report -t.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir) || skip_all "no tracefs"
command -v taskset >/dev/null || skip_all "no taskset: the writers cannot be pinned"
taskset -c 1 true 2>/dev/null || skip_all "no CPU 1 to pin a writer to"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_tc=1
command -v trace-cmd >/dev/null || have_tc=0
# Only the writers' marks: none copied in from the top level's trace_marker.
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"
export TRACEFS=$T

# evs REPORT...: "CPU NS TEXT" per event line of `REPORT -t FILE` (ftreport
# or trace-cmd report). The fraction is read as text: awks that take
# "000123" for octal must not see it as a number.
evs() {
	"$@" 2>/dev/null | awk '{
		if (!match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+:/))
			next
		s = substr($0, RSTART, RLENGTH)
		text = substr($0, RSTART + RLENGTH)
		cpu = s; sub(/^\[0*/, "", cpu); sub(/\].*/, "", cpu)
		if (cpu == "") cpu = 0
		ts = s; sub(/^\[[0-9]+\] +/, "", ts); sub(/:$/, "", ts)
		sec = ts; sub(/\..*/, "", sec)
		frac = ts; sub(/^[0-9]+\./, "", frac)
		while (length(frac) < 9) frac = frac "0"
		sub(/^0+/, "", frac); if (frac == "") frac = 0
		sub(/^0+/, "", sec); if (sec == "") sec = 0
		printf "%d %.0f %s\n", cpu, sec * 1000000000 + frac, text
	}'
}
# The reason mark's time stamp: the trigger's time.
trigger_ns() { awk '/ftkit flight trigger:/ { print $2; exit }' "$1"; }
# first_ns FILE CPU: the first event's time stamp on CPU.
first_ns() { awk -v c="$2" '$1 == c { print $2; exit }' "$1"; }
# The tick numbers of writer W in order, one a line.
ticks() { grep -oE "$2 tick [0-9]+\$" "$1" | awk '{ print $3 }'; }
# Whether numbers on stdin follow one another without a gap.
no_gap() { awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }'; }

# --- A: CPU 0's ring laps, CPU 1 wrote once long before: that mark must go
cat > "$tmp/lap.sh" <<'EOS'
#!/bin/bash
exec 3> "$TRACEFS/instances/$FTK_INSTANCE/trace_marker" || exit 9
taskset -c 1 bash -c 'echo "old cpu1" >&3' || exit 8
sleep 0.2
taskset -p -c 0 $$ > /dev/null || exit 7
for ((i = 1; i <= 5000; i++)); do echo "c0 tick $i" >&3; done
taskset -c 1 bash -c 'for ((j = 1; j <= 10; j++)); do echo "c1 tick $j"; done >&3' || exit 6
for ((i = 5001; i <= 5100; i++)); do echo "c0 tick $i" >&3; done
echo "BOOM" >&3
exit 0
EOS
chmod +x "$tmp/lap.sh"
# -b 16: four pages a CPU; 5000 ticks lap CPU 0's ring many times.
ftrecord --flight -b 16 --no-kallsyms $nocopy --on-mark 'BOOM*' -o "$tmp/a.dat" \
	"$tmp/lap.sh" 2> "$tmp/a.err"
is_exit "$?" 0 "lapped ring: ftrecord exits 0" "$tmp/a.err"
evs ftreport -t "$tmp/a.dat" > "$tmp/a.ev"
ok "lapped ring: BOOM is in the file" grep -q ' BOOM$' "$tmp/a.ev"
is "$(grep -c ' c0 tick 1$' "$tmp/a.ev")" 0 "lapped ring: CPU 0's first ticks are gone (the premise)"
is "$(grep -c 'old cpu1' "$tmp/a.ev")" 0 \
	"lapped ring: CPU 1's mark from before CPU 0's oldest event is left out"
c0=$(first_ns "$tmp/a.ev" 0)
c1=$(first_ns "$tmp/a.ev" 1)
diag "first events: cpu0 $c0, cpu1 ${c1:-none}"
ok "lapped ring: CPU 1's first event is not older than CPU 0's" \
	test -n "$c1" -a -n "$c0" -a "${c1:-0}" -ge "${c0:-1}"
is "$(ticks "$tmp/a.ev" c1 | tr '\n' ' ')" "1 2 3 4 5 6 7 8 9 10 " \
	"lapped ring: CPU 1's ten marks inside the window are all kept"
ok "lapped ring: CPU 0's ticks kept follow one another up to tick 5100" \
	sh -c "t=\$(grep -oE 'c0 tick [0-9]+\$' '$tmp/a.ev' | awk '{ print \$3 }'); \
	       [ \"\$(printf '%s\n' \"\$t\" | tail -1)\" = 5100 ] && printf '%s\n' \"\$t\" | awk 'NR > 1 && \$1 != p + 1 { b = 1 } { p = \$1 } END { exit b }'"
if [ $have_tc = 1 ]; then
	evs trace-cmd report -t -i "$tmp/a.dat" > "$tmp/a.tc"
	is "$(grep -c 'old cpu1' "$tmp/a.tc")" 0 "lapped ring: trace-cmd report has no old CPU 1 mark either"
	c1=$(first_ns "$tmp/a.tc" 1)
	c0=$(first_ns "$tmp/a.tc" 0)
	ok "lapped ring: trace-cmd report: CPU 1 starts no earlier than CPU 0" \
		test -n "$c1" -a -n "$c0" -a "${c1:-0}" -ge "${c0:-1}"
	is "$(grep -cE '(c[01] tick [0-9]+|BOOM)$' "$tmp/a.tc")" \
		"$(grep -cE '(c[01] tick [0-9]+|BOOM)$' "$tmp/a.ev")" \
		"lapped ring: trace-cmd report reads the same marks"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi

# --- A2: the same with --before longer than the ring holds: said, and cut
ftrecord --flight -b 16 --no-kallsyms $nocopy --before 30 --on-mark 'BOOM*' \
	-o "$tmp/a2.dat" "$tmp/lap.sh" 2> "$tmp/a2.err"
is_exit "$?" 0 "--before longer than the ring: ftrecord exits 0" "$tmp/a2.err"
ok "... it says the window starts later, at CPU 0's oldest event" \
	grep -q "cpu0's ring kept only the last .* s before the trigger" "$tmp/a2.err"
is "$(ftreport "$tmp/a2.dat" 2>/dev/null | grep -c 'old cpu1')" 0 \
	"... and CPU 1's old mark is left out"

# --- B: both CPUs busy, a ring that holds it all: --before 1 --after 0.3
# A writer on each CPU ticks every 10 ms or more until told to stop; 2 s
# after they start, each writes an EDGE mark; once both have, 0.2 s later,
# BOOM: the first ticks are older than the window, EDGE well inside it.
cat > "$tmp/busy.sh" <<'EOS'
#!/bin/bash
M=$TRACEFS/instances/$FTK_INSTANCE/trace_marker
stop=$(mktemp -u)
edge=$(mktemp -u)
# writer CPU: ticks; EDGE once $edge exists; ends when told to ($stop), or
# when this script is gone (ftrecord ended it): a writer left behind would
# hold the instance's trace_marker open.
writer() {
	local i edged=
	exec 3> "$M" || exit 9
	for ((i = 1; i < 100000; i++)); do
		echo "c$1 tick $i" >&3
		if [ -z "$edged" ] && [ -e "$edge" ]; then
			echo "c$1 EDGE" >&3
			touch "$edge.$1"
			edged=1
		fi
		[ -e "$stop" ] && break
		kill -0 "$parent" 2> /dev/null || break
		sleep 0.01 3>&-
	done
}
export -f writer
export M stop edge parent=$$
taskset -c 0 bash -c "writer 0" > /dev/null 2>&1 &
taskset -c 1 bash -c "writer 1" > /dev/null 2>&1 &
sleep 2
touch "$edge"
for ((i = 0; i < 1000; i++)); do
	[ -e "$edge.0" ] && [ -e "$edge.1" ] && break
	sleep 0.01
done
sleep 0.2
echo "BOOM" > "$M"
sleep 0.6
touch "$stop"
wait
rm -f "$stop" "$edge" "$edge".[01]
EOS
chmod +x "$tmp/busy.sh"
ftrecord --flight -b 1024 --no-kallsyms $nocopy --before 1 --after 0.3 --on-mark 'BOOM*' \
	-o "$tmp/b.dat" "$tmp/busy.sh" 2> "$tmp/b.err"
is_exit "$?" 0 "--before 1 --after 0.3: ftrecord exits 0" "$tmp/b.err"
ok "... no warning: the ring holds the window" sh -c "! grep -q 'kept only' '$tmp/b.err'"
evs ftreport -t "$tmp/b.dat" > "$tmp/b.ev"
t=$(trigger_ns "$tmp/b.ev")
ok "the reason mark is in the file" test -n "$t"
t=${t:-0}
boom=$(awk '/ BOOM$/ { print $2; exit }' "$tmp/b.ev")
boom=${boom:-0}
diag "BOOM at $boom ns, the trigger (the reason mark) at $t ns"
for c in 0 1; do
	f=$(first_ns "$tmp/b.ev" $c)
	diag "cpu$c: first event $f, $(awk -v c=$c -v t=$t '$1 == c { n++ } END { print n + 0 }' "$tmp/b.ev") events"
	ok "cpu$c: its first event is at or after trigger - 1 s" \
		awk -v c=$c -v t="$t" '$1 == c && $2 + 1000000000 < t { bad = 1 } END { exit bad }' "$tmp/b.ev"
	ok "cpu$c: no event is later than trigger + 0.3 s" \
		awk -v c=$c -v t="$t" '$1 == c && $2 > t + 300000000 { bad = 1 } END { exit bad }' "$tmp/b.ev"
	ok "cpu$c: the window covers --before: its EDGE mark is kept" grep -q " c$c EDGE\$" "$tmp/b.ev"
	is "$(grep -c " c$c tick 1\$" "$tmp/b.ev")" 0 "cpu$c: its first ticks, older than the window, are cut"
	ok "cpu$c: its ticks before BOOM follow one another (the window is whole)" \
		sh -c "awk -v t=$boom '\$2 < t' '$tmp/b.ev' | grep -oE 'c$c tick [0-9]+\$' | awk '{ print \$3 }' | \
		       awk 'NR > 1 && \$1 != p + 1 { b = 1 } { p = \$1 } END { exit b }'"
	ok "cpu$c: ticks after the trigger are kept (--after)" \
		awk -v c=$c -v t="$t" '$1 == c && $2 > t && / tick [0-9]+$/ { n++ } END { exit !n }' "$tmp/b.ev"
done
if [ $have_tc = 1 ]; then
	evs trace-cmd report -t -i "$tmp/b.dat" > "$tmp/b.tc"
	tt=$(trigger_ns "$tmp/b.tc")
	ok "trace-cmd report: every event within [trigger - 1 s, trigger + 0.3 s]" \
		awk -v t="${tt:-0}" '$2 + 1000000000 < t || $2 > t + 300000000 { bad = 1 } END { exit bad || !NR }' \
		"$tmp/b.tc"
	is "$(awk '{ $2 = ""; print }' "$tmp/b.tc" | grep -cE '(tick [0-9]+|EDGE|BOOM)$')" \
		"$(awk '{ $2 = ""; print }' "$tmp/b.ev" | grep -cE '(tick [0-9]+|EDGE|BOOM)$')" \
		"trace-cmd report reads the same marks"
else
	skip "trace-cmd is not installed"
	skip "trace-cmd is not installed"
fi
done_testing
