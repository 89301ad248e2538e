#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh Debian 12 machine, as root: install the build and test
# dependencies, build with -Werror, run every test lane (unit, live on this
# kernel, the full-kernel VM, interop against trace-cmd and perf), then
# make distcheck with the unit lane. Exits non-zero if anything failed.
#   FTK_LANES="unit live"  contrib/test.sh     run only those lanes
set -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contrib/install-deps.sh" --test || exit 2
"$top/contrib/build.sh" --enable-werror || exit 2
cd "$top/build" || exit 2

# Live tests share one kernel: run them one at a time.
make check
rc=$?
log=test-suite.log
if [ -f "$log" ]; then
	# Print every failure's log, so CI output says what broke.
	grep -l -E '^(not ok|Bail out!)' t/*/*.log 2>/dev/null | while read -r f; do
		echo "==== $f"; grep -E -B2 -A12 '^(not ok|Bail out!)' "$f"
	done
fi
if [ "${FTK_DISTCHECK:-1}" = 1 ]; then
	FTK_LANES=unit make distcheck >distcheck.log 2>&1
	drc=$?
	tail -5 distcheck.log
	[ $drc = 0 ] || { echo "make distcheck failed: see build/distcheck.log"; tail -40 distcheck.log; rc=1; }
fi
pass=$(cat t/*/*.trs 2>/dev/null | grep -c '^:test-result: PASS')
fail=$(cat t/*/*.trs 2>/dev/null | grep -c -E '^:test-result: (FAIL|ERROR|XPASS)')
skip=$(cat t/*/*.trs 2>/dev/null | grep -c '^:test-result: SKIP')
echo "ftkit: $pass passed, $fail failed, $skip skipped"
exit $rc
