#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A kernel panic in the VM fails the run clearly and at once: the job crashes the kernel
# (sysrq c), panic=-1 reboots, qemu -no-reboot exits, and run-in-vm.sh exits 2 naming the
# panic, with the console tail, long before its wall-clock limit.
. "$top_srcdir/t/tap.sh"
lane vm
why=$(. "$top_srcdir/t/vm/vm.sh" && vm_need) || skip_all "$why"

limit=${FTK_VM_TIMEOUT:-300}
log=$top_builddir/t/vm/t8011-vm-panic.console.log
mkdir -p "${log%/*}"
job=$(mktemp) || bail_out "mktemp"
trap 'rm -f "$job"' EXIT
cat > "$job" <<'JOB'
echo "### about to crash the kernel"
echo 1 > /proc/sys/kernel/sysrq
echo c > /proc/sysrq-trigger
echo "### still alive after sysrq c"
JOB

err=$("$top_srcdir/t/vm/run-in-vm.sh" -t "$limit" -l "$log" "$job" 2>&1)
rc=$?
diag "$err"
is "$rc" 2 "a kernel panic fails the run with exit status 2"
ok "it names the kernel panic" grep -q 'FAILED: kernel panic' <<< "$err"
ok "not as a timeout" bash -c '! grep -q "timed out" <<< "$1"' _ "$err"
ok "it quotes the kernel's panic message" \
	grep -q 'kernel panic: .*Kernel panic - not syncing: sysrq triggered crash' <<< "$err"
n=$(grep -c '^  | ' <<< "$err")
ok "it prints the console tail ($n lines, at most 50)" test "$n" -ge 1 -a "$n" -le 50
ok "the job did not go on" sh -c "! grep -q 'still alive after sysrq' '$log'"
done_testing
