#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs INSIDE the test VM (see t/vm/vm.sh): every t/live/*.sh with bash, FTK_LANES unset,
# its TAP on the console between markers that t/vm/t8000-vm-live.sh turns into host results:
#   ### FTK-VM-FTINFO-BEGIN / -END          ftinfo's table of the full kernel
#   ### FTK-VM-TEST-BEGIN NAME
#   ... the test's stdout (TAP), then its stderr as "# stderr: " lines ...
#   ### FTK-VM-TEST-END NAME rc=N secs=S
# FTK_VM_TESTS: space-separated globs of test names to run (default all);
# FTK_VM_TEST_TIMEOUT: seconds one test may take (default 300).
set -u
unset FTK_LANES
cd /tmp || exit 2
up() { cut -d' ' -f1 /proc/uptime; }

echo "### FTK-VM-FTINFO-BEGIN"
ftinfo 2>&1
echo "### FTK-VM-FTINFO-END"

# The VM is ours alone: tests may reset the top level (t2140), and compare what they
# leave with tracefs as it booted. The dump is taken after ftinfo, which leaves
# everything as it found it but for one thing nothing can undo: the first use of
# tracing expands the top-level ring buffer from its boot stub ("7 (expanded: 1408)")
# to its full size.
"$top_srcdir/t/lib/dump-tracefs.sh" > /tmp/ftk-boot.dump 2>/dev/null
export FTK_RESET_TOP=1 FTK_BOOT_DUMP=/tmp/ftk-boot.dump

# perf_event_paranoid as upstream kernels and the host have it (2: users count their own
# user space). Debian's 3 refuses every unprivileged perf_event_open, so t6000's check of
# a user's counts would skip for a setting, not for anything the kernel lacks.
echo 2 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null

for t in "$top_srcdir"/t/live/t[0-9]*.sh; do
	name=${t##*/}
	if [ -n "${FTK_VM_TESTS:-}" ]; then
		pick=
		for g in $FTK_VM_TESTS; do
			# shellcheck disable=SC2254
			case $name in $g|$g.sh) pick=1 ;; esac
		done
		[ -n "$pick" ] || continue
	fi
	dir=$(mktemp -d /tmp/live.XXXXXX)
	t0=$(up)
	echo "### FTK-VM-TEST-BEGIN $name"
	# Each test in its own process group (job control), so that a watchdog can stop the
	# test and whatever it started: TERM first, so its traps clean up, then KILL.
	set -m
	(cd "$dir" && exec bash "$t" 2> "$dir.err" < /dev/null) &
	pid=$!
	(
		sleep "${FTK_VM_TEST_TIMEOUT:-300}"
		echo "# killed: still running after ${FTK_VM_TEST_TIMEOUT:-300} s"
		kill -TERM -- -$pid
		sleep 5
		kill -KILL -- -$pid
	) 2>/dev/null &
	wd=$!
	set +m
	wait $pid
	rc=$?
	kill -- -$wd 2>/dev/null
	wait $wd 2>/dev/null
	sed 's/^/# stderr: /' "$dir.err"
	echo "### FTK-VM-TEST-END $name rc=$rc secs=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')"
	rm -rf "$dir" "$dir.err"
done
exit 0
