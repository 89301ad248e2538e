#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A trace file written inside the full-kernel VM is read on the host: trace-cmd records the
# function tracer (forbidden on a locked-down host) and a sched event in the VM, the file
# comes out through the output disk (run-in-vm.sh OUTDIR), and the host's trace-cmd reads it.
# A recording of every event of that kernel (-e all, t/bench/all-events-workload.sh) prints
# the same with ftreport as with trace-cmd report, in text, -N and -R: its kallsyms has the
# data symbols a print fmt names (mm_page_alloc's vmemmap_base), which this host's lacks.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/report-same.sh"
lane vm
why=$(. "$top_srcdir/t/vm/vm.sh" && vm_need) || skip_all "$why"

out=$top_builddir/t/vm/t8020-out
log=$top_builddir/t/vm/t8020-vm-trace-file.console.log
rm -rf "$out" && mkdir -p "$out" || bail_out "cannot make $out"
job=$(mktemp) || bail_out "mktemp"
trap 'rm -f "$job"' EXIT
cat > "$job" <<'JOB'
uname -r > "$FTK_OUT/uname"
trace-cmd record -q -o "$FTK_OUT/trace.dat" -p function -l vfs_read \
	-e sched:sched_process_exec -- dd if=/proc/version of=/dev/null bs=16
trace-cmd record -q -o "$FTK_OUT/all.dat" -C local -b 16384 -e all -- \
	bash "${top_srcdir:-/ftk/src}/t/bench/all-events-workload.sh" /tmp 1
JOB
err=$("$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-300}" -l "$log" "$job" "$out" 2>&1)
rc=$?
diag "$err"
is "$rc" 0 "trace-cmd record ran in the VM"
ok "trace.dat came out of the VM" test -s "$out/trace.dat"
kernel=$(cat "$out/uname" 2>/dev/null)
ok "the VM ran another kernel ($kernel) than the host ($(uname -r))" \
	test -n "$kernel" -a "$kernel" != "$(uname -r)"
report=$(trace-cmd report -i "$out/trace.dat" 2>&1)
is "$?" 0 "the host's trace-cmd reads it"
ok "the file says it was recorded on $kernel" \
	sh -c "trace-cmd dump --options -i '$out/trace.dat' 2>/dev/null | grep -q 'Linux .* $kernel '"
ok "it holds function entries of dd calling vfs_read" \
	grep -qE '^ *dd-[0-9]+ +\[[0-9]+\] .*function: +vfs_read' <<< "$report"
ok "and dd's sched_process_exec" grep -qE '^ *dd-[0-9]+ .*sched_process_exec:' <<< "$report"
if [ -s "$out/all.dat" ]; then
	report_same "-e all in the VM" "$out/all.dat" "$out"
	ok "-e all in the VM: over 100 event types" \
		test "$(awk '{ print $4 }' "$out/want" | sort -u | wc -l)" -gt 100
else
	skip "trace-cmd record -e all left no file in the VM"
fi
done_testing
