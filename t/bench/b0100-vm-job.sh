#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM (t/vm/run-in-vm.sh, from t/bench/b0100-ftreport.sh): records the
# bench's shapes of trace.dat with trace-cmd on Debian's full kernel into $FTK_OUT, and
# writes $FTK_OUT/MANIFEST: one "file<TAB>command" line a file. FTK_BENCH_LOOPS: loops of
# the large workload (default 4000).
set -u
out=${FTK_OUT:?not in the VM}
T=/sys/kernel/tracing
loops=${FTK_BENCH_LOOPS:-4000}
cd /tmp || exit 2
echo "kernel $(uname -r), trace-cmd $(trace-cmd -h 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -n1)," \
	"kallsyms $(wc -c < /proc/kallsyms) bytes" > "$out/ENV"
failed=0

# rec FILE ARGS...: trace-cmd record -o FILE ARGS..., logged to the manifest.
rec() {
	local f=$1 t0 t1
	shift
	echo "== $f: trace-cmd record $*"
	t0=$(date +%s)
	if trace-cmd record -q -o "$out/$f" "$@" > /tmp/rec.log 2>&1; then
		t1=$(date +%s)
		printf '%s\ttrace-cmd record -o %s %s\t(%ss)\n' "$f" "$f" "$*" $((t1 - t0)) >> "$out/MANIFEST"
	else
		echo "FAILED: $f"; tail -5 /tmp/rec.log
		rm -f "$out/$f"
		failed=$((failed + 1))
	fi
}

# large: raw_syscalls + sched over a busy shell loop (about 250 events a loop)
rec large.dat -b 16384 -C local -e raw_syscalls -e sched -- \
	sh -c "i=0; while [ \$i -lt $loops ]; do i=\$((i+1)); ls / >/dev/null; done"
# mixed: a small file of sched, irq, raw_syscalls and syscalls events
rec mixed.dat -C local -e sched -e irq -e raw_syscalls -e 'syscalls:sys_*_read' \
	-e 'syscalls:sys_*_openat' -- sh -c 'cat /proc/version >/dev/null; ls / >/dev/null'
# function: the function tracer on the vfs_* functions
rec function.dat -C local -p function -l 'vfs_*' -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8; do cat /proc/version /etc/passwd >/dev/null; done'
# function-graph: the graph of ksys_read and what it calls, three levels deep
rec function-graph.dat -C local -p function_graph -g ksys_read --max-graph-depth 3 -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8; do dd if=/proc/version of=/dev/null bs=64 2>/dev/null; done'
# kprobe: a kprobe with fetch args (the file name do_sys_openat2 opens)
if echo 'p:ftkit/openat2 do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring' >> $T/kprobe_events; then
	rec kprobe.dat -C local -e ftkit:openat2 -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8; do cat /etc/passwd /proc/version >/dev/null; done'
	echo '-:ftkit/openat2' >> $T/kprobe_events
else
	failed=$((failed + 1))
fi
# markers: 61 trace_marker writes (ftrace:print, which prints a %ps)
rec markers.dat -C local -e sched:sched_process_exec -- \
	sh -c "for i in \$(seq 61); do echo ftkit-bench-\$i > $T/trace_marker; done"

# all: every event the kernel offers, over a workload of files, direct I/O, fork and exec
# (and sockets and mmap where python3 is)
rec all.dat -C local -b 16384 -e all -- \
	bash "${top_srcdir:-/ftk/src}/t/bench/all-events-workload.sh" /tmp 1

ls -l "$out"
exit $failed
