#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A VM whose /init never exits (FTK_VM_HANG=1) must fail in bounded time: run-in-vm.sh kills
# qemu at its wall-clock limit, exits 2, says why and prints the last 50 console lines, and
# leaves no qemu behind.  FTK_VM_HANG_TIMEOUT: the limit used here (default 75 s).
. "$top_srcdir/t/tap.sh"
lane vm
why=$(. "$top_srcdir/t/vm/vm.sh" && vm_need) || skip_all "$why"

limit=${FTK_VM_HANG_TIMEOUT:-75}
log=$top_builddir/t/vm/t8010-vm-hang.console.log
mkdir -p "${log%/*}"
job=$(mktemp) || bail_out "mktemp"
trap 'rm -f "$job"' EXIT
echo 'echo "### this job must never run"' > "$job"

t0=$(date +%s)
err=$(FTK_VM_HANG=1 "$top_srcdir/t/vm/run-in-vm.sh" -t "$limit" -l "$log" "$job" 2>&1)
rc=$?
took=$(($(date +%s) - t0))
diag "$err"
is "$rc" 2 "a hanging VM fails with exit status 2"
ok "it says it timed out after $limit s" grep -q "timed out after $limit s" <<< "$err"
tail=$(sed -n '/the last 50 console lines/,$p' <<< "$err" | grep '^  | ')
n=$(grep -c . <<< "$tail")
ok "it prints the console tail ($n lines, at most 50)" test "$n" -ge 1 -a "$n" -le 50
ok "the tail shows /init hanging on purpose" grep -q 'FTK-VM-HANG' <<< "$tail"
ok "the job never ran" sh -c "! grep -q 'this job must never run' '$log'"
# The bound is the feature under test: the limit, plus building the initramfs and killing.
ok "it returned in bounded time ($took s for a $limit s limit)" test "$took" -le $((limit + 120))
pid=$(sed -n 's/.*qemu pid \([0-9]*\).*/\1/p' <<< "$err" | head -n1)
ok "run-in-vm.sh named its qemu's pid" test -n "$pid"
ok "no qemu is left behind (pid ${pid:-?})" sh -c "! grep -qs qemu /proc/${pid:-0}/cmdline"
done_testing
