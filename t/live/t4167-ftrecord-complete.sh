#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Complete files (issue 16, item 2), each read back by trace-cmd report and
# ftreport: --date (the stamps become the time of day), --ts-offset, TSC2NSEC
# where the clock is x86-tsc and the kernel gives the conversion, --proc-map
# (the command's maps at its exit, against what it printed of its own),
# several -B buffers (each instance's events under its name), and -o - (the
# file through a pipe, as good as one written to disk; a closed stdout or a
# reader gone exits 2 and tracefs is put back).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker events
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"

T=$(tracefs_dir)
I=ftkit-t4167-$$
J=ftkit-t4167b-$$
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
	rmdir_instance "$I"
	rmdir_instance "$J"
}
trap cleanup EXIT
report() { trace-cmd report "$@" 2>/dev/null; }
# same_report FILE NAME: ftreport prints what trace-cmd report prints.
same_report() {
	report "$1" > "$tmp/want"
	ftreport "$1" > "$tmp/got" 2> "$tmp/ferr"
	if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
		_tap_result 0 "$2: ftreport prints what trace-cmd report prints"
	else
		_tap_result 1 "$2: ftreport prints what trace-cmd report prints"
		diag "$(diff "$tmp/want" "$tmp/got" | head -5; head -3 "$tmp/ferr")"
	fi
}
# A workload with a known count: three execs (bash, true, true), two forks and
# three exits ('exit 0' last, so that bash does not exec the last true itself).
work=(bash -c '/bin/true; /bin/true; exit 0')

for v in 7 6; do
	# --date: DATE holds microseconds from the trace clock to the time of day, and
	# the stamps read back are seconds since the epoch, those of the recording.
	t0=$(date +%s)
	ftrecord -q --file-version $v --date -F -c -e sched:sched_process_exec \
		-o "$tmp/date$v.dat" "${work[@]}" 2> "$tmp/err"
	is_exit "$?" 0 "v$v --date: ftrecord exits 0" "$tmp/err"
	t1=$(date +%s)
	ok "v$v --date: a DATE option in 0x microseconds" \
		eval 'trace-cmd dump --options -i "$tmp/date$v.dat" 2>/dev/null | grep -A1 "DATE" | grep -q "0x[0-9a-f]"'
	stamp=$(report "$tmp/date$v.dat" | sed -n 's/.* \([0-9]*\)\.[0-9]*: *sched_process_exec:.*/\1/p' | head -1)
	ok "v$v --date: trace-cmd report's stamp $stamp is the recording's time of day ($t0..$t1)" \
		test "${stamp:-0}" -ge $((t0 - 1)) -a "${stamp:-0}" -le $((t1 + 1))
	raw=$(report --nodate "$tmp/date$v.dat" | sed -n 's/.* \([0-9]*\)\.[0-9]*: *sched_process_exec:.*/\1/p' | head -1)
	ok "v$v --date: --nodate gives the trace clock back ($raw s)" test "${raw:-0}" -lt $((t0 - 1000))
	same_report "$tmp/date$v.dat" "v$v --date"

	# --ts-offset: every stamp moves by exactly the offset (trace-cmd's --raw-ts: without it).
	ftrecord -q --file-version $v --ts-offset 5000000000000 -F -c -e sched:sched_process_exec \
		-o "$tmp/off$v.dat" "${work[@]}" 2> "$tmp/err"
	is_exit "$?" 0 "v$v --ts-offset: ftrecord exits 0" "$tmp/err"
	# seconds.usecs with the offset; --raw-ts: the clock's nanoseconds as they are,
	# right after "[CPU]" when they are wide
	a=$(report "$tmp/off$v.dat" | sed -n 's/.* \([0-9]*\.[0-9]*\): *sched_process_exec:.*/\1/p' | tr -d . | head -1)
	b=$(report --raw-ts "$tmp/off$v.dat" | sed -n 's/.*\] *\([0-9]*\): *sched_process_exec:.*/\1/p' | head -1)
	# trace-cmd prints microseconds rounded to the nearest
	is "$(( ${a:-0} - (${b:-0} + 500) / 1000 ))" 5000000000 "v$v --ts-offset 5000 s: trace-cmd report adds 5000 s (in usecs)"
	same_report "$tmp/off$v.dat" "v$v --ts-offset"
done

# A clock that counts has no time of day: said, and the file is written without DATE.
ftrecord --date -C counter -F -e sched:sched_process_exec -o "$tmp/cnt.dat" true 2> "$tmp/err"
is_exit "$?" 0 "--date -C counter: ftrecord exits 0" "$tmp/err"
ok "--date -C counter: it says why there is no date" grep -q "counter.*does not tell time" "$tmp/err"
ok "--date -C counter: no DATE option" \
	eval '! trace-cmd dump --options -i "$tmp/cnt.dat" 2>/dev/null | grep -q "Option DATE"'

# -B twice: the top buffer's execs, and 'I's exits under its name; v6, v7, v7 zstd.
for v in "--file-version 6" "--file-version 7" "--compression zstd"; do
	f=$tmp/multi.dat
	ftrecord -q $v -F -c -e sched:sched_process_exec -B "$I" -e sched:sched_process_exit \
		-B "$J" -e sched:sched_process_fork -o "$f" "${work[@]}" 2> "$tmp/err"
	is_exit "$?" 0 "$v, two -B: ftrecord exits 0" "$tmp/err"
	report "$f" > "$tmp/r"
	is "$(grep -c 'sched_process_exec:' "$tmp/r")" 3 "$v: the 3 execs are there"
	is "$(grep -c "^ *\($I\|$J\): .*sched_process_exec:" "$tmp/r")" 0 "$v: all in the top buffer"
	is "$(grep -c "^ *$I: .*sched_process_exit:" "$tmp/r")" 3 "$v: buffer $I has the 3 exits"
	is "$(grep -c "^ *$J: .*sched_process_fork:" "$tmp/r")" 2 "$v: buffer $J has the 2 forks"
	is "$(grep -c 'sched_process_exit:' "$tmp/r")" 3 "$v: no exit anywhere else"
	if [ "$v" = "--compression zstd" ]; then
		ok "$v: ftreport reads it" eval 'ftreport "$f" 2>/dev/null | grep -c "$I: .*sched_process_exit:" | grep -qx 3'
	else
		same_report "$f" "$v, two -B"
	fi
	ok "$v: instances $I and $J are gone" test ! -d "$T/instances/$I" -a ! -d "$T/instances/$J"
done

# One -B with all the events after it: that instance is the file's top buffer, as before.
ftrecord -q -B "$I" -F -e sched:sched_process_exec -o "$tmp/one.dat" "${work[@]}" 2> "$tmp/err"
is_exit "$?" 0 "one -B: ftrecord exits 0" "$tmp/err"
report "$tmp/one.dat" > "$tmp/r"
is "$(grep -c 'sched_process_exec:' "$tmp/r")" 1 "one -B: bash's exec is there"
is "$(grep -c "^ *$I: " "$tmp/r")" 0 "one -B: in the top buffer, with no buffer name"

# -o -: the file goes through a pipe; the command's own output goes to stderr, not into it.
ftrecord -q -F -c -e sched:sched_process_exec -o - bash -c 'echo ftk4167-out; /bin/true; /bin/true; exit 0' \
	2> "$tmp/err" | cat > "$tmp/pipe.dat"
is_exit "${PIPESTATUS[0]}" 0 "-o - into a pipe: ftrecord exits 0" "$tmp/err"
ok "-o -: the command's output went to stderr" grep -q ftk4167-out "$tmp/err"
ftrecord -q -F -c -e sched:sched_process_exec -o "$tmp/file.dat" bash -c 'echo ftk4167-out; /bin/true; /bin/true; exit 0' \
	> /dev/null 2>&1
execs() { report "$1" | sed -n 's/.*sched_process_exec: *filename=\([^ ]*\) .*/\1/p' | tr '\n' ' '; }
is "$(execs "$tmp/pipe.dat")" "$(execs "$tmp/file.dat")" "-o -: the same events as a file recorded the same way ($(execs "$tmp/file.dat"))"
same_report "$tmp/pipe.dat" "-o -"
# the layout alike; the sizes of what two recordings hold (data, cmdlines) aside
norm() { trace-cmd dump --summary -i "$1" 2>/dev/null | grep -v 'meta data in file' | sed 's/[0-9]* bytes/N bytes/g'; }
is "$(norm "$tmp/pipe.dat")" "$(norm "$tmp/file.dat")" "-o -: trace-cmd dump --summary alike, sizes aside"
ftrecord -q --file-version 6 -e sched:sched_process_exec -o - true 2>/dev/null > "$tmp/pipe6.dat"
ok "-o - --file-version 6 into a file: a version 6 file" \
	eval 'trace-cmd dump --summary -i "$tmp/pipe6.dat" 2>/dev/null | grep -q "6.*\[Version\]"'
ok "... trace-cmd report reads it" eval 'report "$tmp/pipe6.dat" | grep -q sched_process_exec:'

# A closed stdout and a reader that goes away: exit 2, a message, tracefs as it was.
snap0=$(tracefs_snap "$T")
ftrecord -B "$J" -e sched:sched_process_exec -o - true 2> "$tmp/err" >&-
is_exit "$?" 2 "-o - with stdout closed: exit 2" "$tmp/err"
ok "... saying so" grep -q "standard output" "$tmp/err"
ftrecord -B "$I" -e sched -o - sh -c 'i=0; while [ $i -lt 200 ]; do /bin/true; i=$((i + 1)); done' \
	2> "$tmp/err" | head -c 100 > /dev/null
is_exit "${PIPESTATUS[0]}" 2 "-o - to a reader that went away: exit 2" "$tmp/err"
ok "... saying why" grep -q "Broken pipe" "$tmp/err"
snap_is "$(tracefs_snap "$T")" "$snap0" "tracefs is as it was"
ok "instances $I and $J are gone" test ! -d "$T/instances/$I" -a ! -d "$T/instances/$J"

# --proc-map: the maps of the command at its exit are those it printed of itself.
ftrecord -q --proc-map -e sched:sched_process_exit -o "$tmp/maps.dat" cat /proc/self/maps \
	> "$tmp/printed" 2> "$tmp/err"
is_exit "$?" 0 "--proc-map: ftrecord exits 0" "$tmp/err"
trace-cmd dump --options -i "$tmp/maps.dat" > "$tmp/opts" 2>/dev/null
# "START-END PERMS OFFSET DEV INODE PATH" as "START END PATH", hex without leading zeros
awk '{ split($1, r, "-"); if (NF >= 6) printf "%s %s %s\n", r[1], r[2], $6 }' "$tmp/printed" |
	sed 's/^0*\([0-9a-f]\)/\1/; s/ 0*\([0-9a-f]\)/ \1/' > "$tmp/want"
# the option's text: "PID COUNT EXE", then a line per mapping
awk '/Option PROCMAPS/ { on = 1; next } /\[Option / { on = 0 } on && NF' "$tmp/opts" > "$tmp/pm"
head=$(head -1 "$tmp/pm")
sed 1d "$tmp/pm" > "$tmp/stored"
cat_path=$(readlink -f "$(command -v cat)")
ok "--proc-map: PROCMAPS names cat's program ($head)" eval 'grep -Fq " $cat_path" <<< "$head"'
ok "--proc-map: it maps $cat_path as cat's own maps showed" \
	eval 'grep -F " $cat_path" "$tmp/want" | head -1 | grep -Fxqf - "$tmp/stored"'
is "$(grep -c . "$tmp/stored")" "$(grep -c . "$tmp/want")" "--proc-map: as many mappings with a path as cat printed"
ok "--proc-map: every one of them the same" cmp -s "$tmp/stored" "$tmp/want"
same_report "$tmp/maps.dat" "--proc-map"

# TSC2NSEC: with -C x86-tsc, stored where the kernel gives the conversion, and left
# out (cycles stay cycles) where cap_user_time is clear, as on this project's machines.
if ! grep -qw x86-tsc "$T/trace_clock"; then
	skip "x86-tsc: not a clock of this kernel"
elif ! caps=$("$top_builddir/t/helpers/tsc-caps" 2>&1); then
	skip "x86-tsc: $caps"
else
	ftrecord -q -C x86-tsc -F -e sched:sched_process_exec -o "$tmp/tsc.dat" true 2> "$tmp/err"
	is_exit "$?" 0 "-C x86-tsc: ftrecord exits 0" "$tmp/err"
	trace-cmd dump --options -i "$tmp/tsc.dat" > "$tmp/opts" 2>/dev/null
	if [ "$caps" = none ]; then
		ok "x86-tsc, cap_user_time clear: no TSC2NSEC" eval '! grep -q TSC2NSEC "$tmp/opts"'
		ok "x86-tsc: the buffer's clock stays x86-tsc" \
			eval 'trace-cmd dump --summary -i "$tmp/tsc.dat" 2>/dev/null | grep -q "\"x86-tsc\" clock"'
	else
		set -- $caps
		ok "x86-tsc, cap_user_time: TSC2NSEC holds mult $2 shift $3" \
			eval 'grep -A1 TSC2NSEC "$tmp/opts" | grep -q "^$2 $3 0 \[multiplier"'
		ok "x86-tsc: the buffer's clock is tsc2nsec" \
			eval 'trace-cmd dump --summary -i "$tmp/tsc.dat" 2>/dev/null | grep -q "\"tsc2nsec\" clock"'
	fi
	same_report "$tmp/tsc.dat" "-C x86-tsc"
fi
done_testing
