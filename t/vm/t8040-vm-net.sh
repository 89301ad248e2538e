#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Network capture from the full-kernel VM to the host, through qemu's user network (the
# guest reaches the host's loopback at 10.0.2.2): trace-cmd record -N in the guest into
# ftrecord --listen on the host, and ftrecord -N in the guest into trace-cmd listen on the
# host; then ftrecord -N --date in the guest into ftrecord --listen, with a task started
# after the recording began (late-vm, a name never run before) that writes one mark. Each
# sender's command writes 100 marks with known numbers; on the host, trace-cmd report and
# ftreport print the same for every file, with every mark, and the files say they were
# recorded on the guest's kernel. In the last, both readers name late-vm (its name comes
# after the data) and print its mark's time of day.
. "$top_srcdir/t/tap.sh"
lane vm
why=$(. "$top_srcdir/t/vm/vm.sh" && vm_need) || skip_all "$why"
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
command -v python3 > /dev/null || skip_all "python3 is not installed"

out=$top_builddir/t/vm/t8040-out
log=$top_builddir/t/vm/t8040-vm-net.console.log
rm -rf "$out" && mkdir -p "$out/c1" "$out/c2" "$out/c3" || bail_out "cannot make $out"
job=$(mktemp) || bail_out "mktemp"
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -f "$job"' EXIT

# ftrecord --listen on a port of the kernel's choosing, trace-cmd listen on a free one
collector() {	# N: ftrecord --listen writing into $out/cN; its port in $port
	ftrecord --listen 127.0.0.1:0 -d "$out/c$1" 2> "$out/c$1.log" &
	pids="$pids $!"
	for _ in $(seq 50); do grep -q 'listening on port' "$out/c$1.log" && break; sleep 0.1; done
	port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$out/c$1.log")
	[ -n "$port" ] || bail_out "ftrecord --listen did not start: $(cat "$out/c$1.log")"
}
collector 1; p1=$port
collector 3; p3=$port
p2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
trace-cmd listen -p "$p2" -d "$out/c2" > "$out/c2.log" 2>&1 &
tpid=$!
pids="$pids $tpid"
for _ in $(seq 50); do ss -ltn 2>/dev/null | grep -q ":$p2 " && break; sleep 0.1; done

# trace-cmd record -N sends its data over UDP unless -t: through qemu's
# user network on a loaded host datagrams were lost (a file of 0 marks, the
# collector having stored 3 KiB): TCP here, UDP on the host (t5030).
cat > "$job" <<'JOB'
uname -r > "$FTK_OUT/uname"
trace-cmd record -q -t -N "10.0.2.2:$FTK_P1" -e sched:sched_process_exit -- \
	sh -c 'for i in $(seq 1 100); do echo "tcvm-$i" > /sys/kernel/tracing/trace_marker; done' \
	> "$FTK_OUT/tc.log" 2>&1
echo "$?" > "$FTK_OUT/tc.rc"
ftrecord -q -N "10.0.2.2:$FTK_P2" -e sched:sched_process_exit -- \
	sh -c 'seq 1 100 | sed "s/^/ftvm-/" | ftmark' > "$FTK_OUT/ft.log" 2>&1
echo "$?" > "$FTK_OUT/ft.rc"
printf '#!/bin/sh\necho "late vm" > /sys/kernel/tracing/instances/"$FTK_INSTANCE"/trace_marker\n' \
	> /tmp/late-vm
chmod +x /tmp/late-vm
date +%s > "$FTK_OUT/t0"
ftrecord -q -N "10.0.2.2:$FTK_P3" --date -e sched:sched_process_exit -- \
	sh -c 'seq 1 100 | sed "s/^/ffvm-/" | ftmark; sleep 0.2; /tmp/late-vm; sleep 0.3' > "$FTK_OUT/ff.log" 2>&1
echo "$?" > "$FTK_OUT/ff.rc"
date +%s > "$FTK_OUT/t1"
JOB
err=$(FTK_VM_NET=1 "$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-600}" -l "$log" \
	-e "FTK_P1=$p1" -e "FTK_P2=$p2" -e "FTK_P3=$p3" "$job" "$out" 2>&1)
rc=$?
diag "$err"
is "$rc" 0 "the senders ran in the VM"
is "$(cat "$out/tc.rc" 2>/dev/null)" 0 "trace-cmd record -N in the VM into ftrecord --listen on the host"
sed 's/^/# /' "$out/tc.log" 2>/dev/null | head -5
is "$(cat "$out/ft.rc" 2>/dev/null)" 0 "ftrecord -N in the VM into trace-cmd listen on the host"
sed 's/^/# /' "$out/ft.log" 2>/dev/null | head -5
is "$(cat "$out/ff.rc" 2>/dev/null)" 0 "ftrecord -N --date in the VM into ftrecord --listen on the host"
sed 's/^/# /' "$out/ff.log" 2>/dev/null | head -5
kernel=$(cat "$out/uname" 2>/dev/null)
# trace-cmd listen completes a file two seconds after the sender's CLOSE
for _ in $(seq 100); do ls "$out"/c2/*.dat > /dev/null 2>&1 && break; sleep 0.1; done
sleep 3
kill -INT "$tpid"

check() {	# DIR WHAT MARK
	local f n
	n=$(ls "$1"/*.dat 2>/dev/null | wc -l)
	is "$n" 1 "$2: one file"
	f=$(ls "$1"/*.dat 2>/dev/null | head -1)
	[ -n "$f" ] || return
	trace-cmd report "$f" > "$out/tc.txt" 2>/dev/null
	ftreport "$f" > "$out/ft.txt" 2> "$out/ft.err"
	is "$(grep -c "tracing_mark_write: $3-[0-9]*\$" "$out/tc.txt")" 100 \
		"$2: trace-cmd report finds the 100 marks"
	ok "$2: the last one too" grep -q "tracing_mark_write: $3-100\$" "$out/tc.txt"
	same_file "$2: ftreport prints what trace-cmd report prints" \
		"$out/tc.txt" "$out/ft.txt" "$out/ft.err"
	ok "$2: recorded on the guest's kernel ($kernel, the host runs $(uname -r))" \
		sh -c "test -n '$kernel' -a '$kernel' != '$(uname -r)' &&
		       trace-cmd dump --options '$f' 2>/dev/null | grep -q 'Linux .* $kernel '"
}
check "$out/c1" "trace-cmd record -N (VM) -> ftrecord --listen (host)" tcvm
check "$out/c2" "ftrecord -N (VM) -> trace-cmd listen (host)" ftvm
what="ftrecord -N --date (VM) -> ftrecord --listen (host)"
check "$out/c3" "$what" ffvm
# the guest's clock (qemu's RTC, set from the host's) at the start and the end of the run
t0=$(cat "$out/t0" 2>/dev/null); t1=$(cat "$out/t1" 2>/dev/null)
for r in tc ft; do
	line=$(grep "tracing_mark_write: late vm\$" "$out/$r.txt")
	ok "$what: $r: the late task is named (late-vm)" grep -q '^ *late-vm-[0-9]* ' <<< "$line"
	ok "$what: $r: its mark's time is the time of day ($t0 to $t1)" \
		awk -v t0="${t0:-x}" -v t1="${t1:-x}" '{ t = $3 + 0; exit !(t >= t0 && t <= t1 + 1) }' <<< "$line"
done
done_testing
