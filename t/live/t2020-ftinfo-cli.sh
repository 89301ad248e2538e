#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ftinfo's interface: help, usage errors, exit codes, JSON, --need.
. "$top_srcdir/t/tap.sh"
lane live
need_root

out=$(ftinfo --help); rc=$?
is "$rc" 0 "--help exits 0"
ok "--help prints the synopsis to stdout" grep -q '^usage: ftinfo' <<< "$out"
err=$(ftinfo --bogus 2>&1 >/dev/null); rc=$?
is "$rc" 1 "an unknown option exits 1"
ok "an unknown option prints the usage to stderr" grep -q 'usage: ftinfo' <<< "$err"
ftinfo extra >/dev/null 2>&1; is "$?" 1 "a stray argument exits 1"
err=$(ftinfo --need no_such_cap 2>&1); rc=$?
is "$rc" 1 "--need of an unknown capability exits 1"
ok "and names it" grep -q "no_such_cap" <<< "$err"

err=$(FTK_TRACEFS=/nonexistent/tracing ftinfo 2>&1); rc=$?
is "$rc" 2 "no tracefs exits 2"
ok "and says so" grep -q 'ftinfo: cannot find tracefs' <<< "$err"

table=$(ftinfo); json=$(ftinfo --json)
names=$(grep -o '^"[a-z_0-9]*":{' <<< "$json" | tr -d '":{')
ok "the JSON lists capabilities" test -n "$names"
missing=
for n in $names; do grep -q "^  $n " <<< "$table" || missing="$missing $n"; done
is "$missing" "" "the table shows every capability of the JSON"
if command -v python3 >/dev/null; then
	ok "the JSON parses" python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["caps"]' \
		<<< "$json"
else
	skip "python3 not installed: JSON not parsed"
fi

# --need agrees with the table: silent 0 for usable, "name: reason" and 2 otherwise.
for n in $names; do
	line=$(grep "^  $n " <<< "$table")
	out=$(ftinfo --need "$n"); rc=$?
	case "$line" in
	*" yes"*) is "$rc:$out" "0:" "--need $n agrees with the table (usable)" ;;
	*) ok "--need $n agrees with the table (not usable)" \
		test "$rc" = 2 -a "${out%%:*}" = "$n" ;;
	esac
done
done_testing
