#!/bin/bash
# Every text input that once crashed a fuzz target (t/fuzz/run.sh) goes
# through the tool that takes it from a user, and must come back as a clean
# error (exit 1 with a reason) or a clean run, never a crash:
#   t/fixtures/fuzz-filter-*.txt   ftreport -F FILTER synth-v6.dat
#   t/fixtures/fuzz-*.dat          ftreport FILE (t0140 reads them too)
# (t/fixtures/pending/ is for a new crasher whose fix is another module's.)
. "$top_srcdir/t/tap.sh"
lane unit
dat=$top_srcdir/t/fixtures/synth-v6.dat
tmp=$(mktemp -d /tmp/ftk-t0141-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# libtraceevent 1.7.1's filter parser dereferences NULL in test_arg()
# (parse-filter.c:810, from collapse_tree()) for "COMPARISON || WORD", as
# trace-cmd report -F does: ftreport (ftk_filter_add()) refuses an unfinished
# expression, and the other shapes lib/filter-check.c lists.
n=0
for f in "$top_srcdir"/t/fixtures/fuzz-filter-*.txt; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	rc=0
	{ ftreport -F "$(cat "$f")" "$dat" > /dev/null 2> "$tmp/err"; } 2>/dev/null || rc=$?
	name="ftreport -F $(basename "$f"): exit 0, or 1 with a reason (got $rc)"
	if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ -s "$tmp/err" ]; }; then
		_tap_result 0 "$name"
	else
		_tap_result 1 "$name"
		sed 's/^/# /' "$tmp/err"
	fi
done
[ "$n" -gt 0 ] || skip "no t/fixtures/fuzz-filter-*.txt"

# Every trace.dat crasher (t0140 reads them through the library) also
# through ftreport, which prints them: among them the two formats
# lib/format-check.c keeps from libtraceevent 1.7.1 since they crashed it:
#  fuzz-print-symbolic-unknown-field: __print_symbolic(REC->X, ...) with X not a
#   field (process_entry(), event-parse.c:2547, writes through NULL);
#  fuzz-field-unclosed-bracket: a field whose '[' is never closed
#   (event_read_fields(), event-parse.c:1797, strcmp()s a NULL token).
n=0
for f in "$top_srcdir"/t/fixtures/fuzz-*.dat; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	rc=0
	{ ftreport "$f" > /dev/null 2> "$tmp/err"; } 2>/dev/null || rc=$?
	name="ftreport $(basename "$f"): exit 0, or 2 with a reason (got $rc)"
	if [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ -s "$tmp/err" ]; }; then
		_tap_result 0 "$name"
	else
		_tap_result 1 "$name"
		sed 's/^/# /' "$tmp/err"
	fi
done
[ "$n" -gt 0 ] || skip "no t/fixtures/fuzz-*.dat"
done_testing
