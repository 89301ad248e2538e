#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The event formats and kallsyms read once (issue 15, item 6): ftrecord writes
# its recovery template at the start and its file takes the template's event
# formats and kallsyms (ftk_tracewrite_reuse()) rather than read tracefs and
# /proc again, but only while they are current. Checked against trace-cmd dump:
#  - a file so made holds the same formats and kallsyms as one read afresh
#    (-o -: no template, every section read at the save), zstd and not;
#  - an event of another system switched on while ftrecord records is in the
#    file's formats: the template is stale, and the formats are read again.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers trace_marker events
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"

T=$(tracefs_dir)
I=ftkit-t4168-$$
tmp=$(mktemp -d)
cleanup() {
	rm -rf "$tmp"
	rm_instance "$T/instances/$I"
}
trap cleanup EXIT
# dump FILE WHAT: one metadata section as trace-cmd dump prints it.
dump() { trace-cmd dump "--$2" -i "$1" 2>/dev/null; }
# same WHAT A B NAME: the section is the same in both files, and not empty.
same() {
	dump "$2" "$1" > "$tmp/a"
	dump "$3" "$1" > "$tmp/b"
	if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
		_tap_result 0 "$4"
	else
		_tap_result 1 "$4"
		diag "$(wc -l < "$tmp/a") vs $(wc -l < "$tmp/b") lines; $(diff "$tmp/a" "$tmp/b" | head -4)"
	fi
}

for z in none zstd; do
	ftrecord -q --compression $z -B "$I" -e sched:sched_switch -o "$tmp/kept.$z.dat" \
		true 2> "$tmp/err"
	is_exit "$?" 0 "$z: ftrecord -o FILE exits 0" "$tmp/err"
	ftrecord -q --compression $z -B "$I" -e sched:sched_switch -o - true \
		> "$tmp/fresh.$z.dat" 2> "$tmp/err"
	is_exit "$?" 0 "$z: ftrecord -o - exits 0" "$tmp/err"
	same events "$tmp/kept.$z.dat" "$tmp/fresh.$z.dat" \
		"$z: the event formats taken from the template are those read afresh"
	same systems "$tmp/kept.$z.dat" "$tmp/fresh.$z.dat" \
		"$z: so are the event systems"
	same kallsyms "$tmp/kept.$z.dat" "$tmp/fresh.$z.dat" \
		"$z: so is kallsyms"
done
# As trace-cmd record stores those asked for: the formats of the one system on.
ok "only the system with events on is stored (sched)" \
	eval "[ \"\$(dump '$tmp/kept.zstd.dat' systems | awk '/\\[system, events\\]/ { print \$1 }')\" = sched ]"

# An event of another system switched on while recording (the command does it:
# ftrecord says the events were changed under it, exits 2 and keeps the file):
# the template lacks its system, so the formats are read again at the save, and
# trace-cmd report names its events.
if [ -d "$T/events/signal/signal_generate" ]; then
	ftrecord -q --compression zstd -B "$I" -e sched:sched_switch -o "$tmp/new.dat" \
		bash -c "trap : USR1; echo 1 > '$T/instances/$I/events/signal/signal_generate/enable'
			 kill -USR1 \$\$; kill -USR1 \$\$" 2> "$tmp/err"
	is_exit "$?" 2 "signal_generate switched on while recording: ftrecord exits 2" "$tmp/err"
	ok "it says the events were changed" grep -q "changed by another program" "$tmp/err"
	ok "the signal system is in the file" eval "dump '$tmp/new.dat' systems | grep -qw 'signal'"
	ok "it was not in the template's (stored only what was on at the start)" \
		eval "! dump '$tmp/kept.zstd.dat' systems | grep -qw 'signal'"
	n=$(trace-cmd report -i "$tmp/new.dat" 2>/dev/null | grep -c 'signal_generate:.*sig=10')
	ok "trace-cmd report names its events ($n with sig=10, want 2 or more)" test "$n" -ge 2
else
	for i in 1 2 3 4 5; do skip "no signal:signal_generate event"; done
fi
ok "instance $I is gone" test ! -d "$T/instances/$I"
done_testing
