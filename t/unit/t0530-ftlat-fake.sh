#!/bin/bash
# ftlat against a fake tracefs tree of plain files (FTK_TRACEFS). This host
# and the RT kernel of the VM lane lack irqsoff, preemptoff and
# preemptirqsoff, so what ftlat writes for them, how it reads the worst case
# (tracing_max_latency and the trace in latency format, as
# Documentation/trace/ftrace.rst shows them) and that it puts everything back
# are checked here. COMMAND plays the kernel's part: it writes the worst
# latency and its trace into the fake files. The real tracers are tested in
# the VM lane (t/vm/t8030-vm-lattrace.sh).
. "$top_srcdir/t/tap.sh"
lane unit

W=$(mktemp -d /tmp/ftkit-lat-XXXXXX)
F=$W/tracing
mkdir "$F"
trap 'rm -rf "$W"' EXIT
export FTK_TRACEFS=$F
mk() { mkdir -p "$(dirname "$F/$1")"; printf '%s' "$2" >"$F/$1"; }
mk available_tracers 'wakeup_dl wakeup_rt wakeup preemptirqsoff preemptoff irqsoff nop'
mk current_tracer nop
mk tracing_thresh 0
mk tracing_max_latency 0
mk tracing_on 1
mk options/function-trace 1
mk trace ''
mkdir -p "$F/instances"
# What the trace.dat writer stores besides the text (a kernel's, abridged).
mk trace_clock '[local] global'
mk printk_formats ''
mk saved_cmdlines '2389 sleep'
mk events/header_page "$(printf '\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;')"
mk events/header_event "$(printf '# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28')"
mk events/ftrace/function/format "$(printf 'name: function\nID: 1\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\nprint fmt: " %%ps <-- %%ps", (void *)REC->ip, (void *)REC->parent_ip')"
dump() { (cd "$F" && find . -type f ! -name trace | sort | while read -r f; do
	printf '%s: %s\n' "$f" "$(cat "$f")"; done); }
dump >"$W/before"

# The wakeup_rt example of ftrace.rst, and its irqsoff one.
cat >"$W/wakeup_rt.trace" <<'EOF'
# tracer: wakeup_rt
#
# wakeup_rt latency trace v1.1.5 on 3.8.0-test+
# --------------------------------------------------------------------
# latency: 5 us, #4/4, CPU#3 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)
#    -----------------
#    | task: sleep-2389 (uid:0 nice:0 policy:1 rt_prio:5)
#    -----------------
#
#                  _------=> CPU#
#                 / _-----=> irqs-off
#                | / _----=> need-resched
#                || / _---=> hardirq/softirq
#                ||| / _--=> preempt-depth
#                |||| /     delay
#  cmd     pid   ||||| time  |   caller
#     \   /      |||||  \    |   /
  <idle>-0       3d.h4    0us :      0:120:R   + [003]  2389: 94:R sleep
  <idle>-0       3d.h4    1us+: ttwu_do_activate.constprop.87 <-try_to_wake_up
  <idle>-0       3d..3    5us : __schedule <-schedule
  <idle>-0       3d..3    5us :      0:120:R ==> [003]  2389: 94:R sleep
EOF
cat >"$W/irqsoff.trace" <<'EOF'
# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on 4.0.0-rc2-test+
# --------------------------------------------------------------------
# latency: 16 us, #4/4, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)
#    -----------------
#    | task: swapper/0-0 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: run_timer_softirq
#  => ended at:   run_timer_softirq
#
#
#  cmd     pid   ||||| time  |   caller
#     \   /      |||||  \    |   /
  <idle>-0       0d.s2    0us+: _raw_spin_lock_irq <-run_timer_softirq
  <idle>-0       0dNs3   17us : _raw_spin_unlock_irq <-run_timer_softirq
  <idle>-0       0dNs3   17us+: trace_hardirqs_on <-run_timer_softirq
  <idle>-0       0dNs3   25us : <stack trace>
EOF

# --list: what the tree offers, and why not.
ftlat --list >"$W/list"
is $? 0 "ftlat --list exits 0"
ok "it lists wakeup_rt as there" grep -q '^wakeup_rt  *yes' "$W/list"
ok "and timerlat as missing, naming the kernel option" \
	grep -q "^timerlat  *no .*no 'timerlat' (kernel built without CONFIG_TIMERLAT_TRACER)" "$W/list"
ftlat timerlat -D 0.1 >/dev/null 2>"$W/err"
is $? 2 "a tracer the kernel lacks: exit 2"
ok "... with the reason" grep -q "cannot use the timerlat tracer: .*CONFIG_TIMERLAT_TRACER" "$W/err"
ftlat hwlat -D 0.1 >/dev/null 2>"$W/err"
ok "hwlat: CONFIG_HWLAT_TRACER named" grep -q "CONFIG_HWLAT_TRACER" "$W/err"

# The kernel's part: check what ftlat set, then record a worst case.
cat >"$W/kernel.sh" <<EOF
F=$F
echo "\$(cat \$F/current_tracer) \$(cat \$F/options/function-trace) \$(cat \$F/tracing_thresh) \$(cat \$F/tracing_max_latency)" >$W/seen
echo "\$2" >\$F/tracing_max_latency
cp "\$1" \$F/trace.new && mv \$F/trace.new \$F/trace
EOF
ftlat wakeup_rt -e -t 3 -o "$W/max.dat" -- bash "$W/kernel.sh" "$W/wakeup_rt.trace" 5 \
	>"$W/out" 2>"$W/err"
is $? 0 "ftlat wakeup_rt -e -t 3 -o FILE -- COMMAND exits 0"
is "$(cat "$W/seen")" "wakeup_rt 0 3 0" \
	"while COMMAND ran: the tracer set, function-trace off (-e), tracing_thresh 3, max cleared"
is "$(head -1 "$W/out")" "wakeup_rt: latency 5 us on CPU 3, task sleep-2389 (rt_prio 5)" \
	"the header of the case kept, parsed (with -t: the last above it)"
ok "the kernel's trace follows, naming the woken task and the one it ran after" \
	grep -q '0:120:R ==> \[003\]  2389: 94:R sleep' "$W/out"
dump >"$W/after"
is "$(diff "$W/before" "$W/after")" "" "every file put back"
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$W/max.dat" >"$W/report" 2>&1
	is $? 0 "trace-cmd report reads the -o file"
	ok "... and prints the worst case's trace" grep -q 'task: sleep-2389' "$W/report"
	is "$(sed -n 2p "$W/report")" "# tracer: wakeup_rt" \
		"... from its first byte (no TRACECLOCK option for trace-cmd to misread)"
else
	skip "trace-cmd not installed (apt-get install trace-cmd)"
	skip "trace-cmd not installed"
	skip "trace-cmd not installed"
fi
ftreport "$W/max.dat" >"$W/report2" 2>&1
ok "ftreport reads it too" grep -q '# latency: 5 us' "$W/report2"

# Without -e the function entries are asked for; without -t, new maxima only.
mk tracing_thresh 7
ftlat irqsoff -- bash "$W/kernel.sh" "$W/irqsoff.trace" 16 >"$W/out" 2>"$W/err"
is "$(cat "$W/seen")" "irqsoff 1 0 0" "irqsoff: function-trace on, tracing_thresh 0 (new maxima)"
is "$(head -1 "$W/out")" "irqsoff: worst latency 16 us on CPU 0, task swapper/0-0 (rt_prio 0)" \
	"a comm with '/' in it"
is "$(cat "$F/tracing_thresh")" 7 "tracing_thresh put back"
mk tracing_thresh 0

# --repeat: each new maximum as it comes.
cat >"$W/two.sh" <<EOF
bash $W/kernel.sh $W/irqsoff.trace 16
sleep 0.4
sed 's/latency: 16 us/latency: 40 us/' $W/irqsoff.trace >$W/irqsoff2.trace
bash $W/kernel.sh $W/irqsoff2.trace 40
sleep 0.4
EOF
ftlat preemptirqsoff -r -- bash "$W/two.sh" >"$W/out" 2>"$W/err"
is "$(grep -c 'latency [0-9]* us at' "$W/out")" 2 "--repeat: two maxima, two reports" ||
	diag "$(cat "$W/out" "$W/err")"
ok "... the second is 40 us" grep -q '^preemptirqsoff: latency 40 us at' "$W/out"

# Nothing recorded.
ftlat wakeup -D 0.2 >"$W/out" 2>/dev/null
is "$(cat "$W/out")" "wakeup: no latency recorded" "no latency: said so"
dump >"$W/after"
is "$(diff "$W/before" "$W/after")" "" "every file put back after all runs"

# Usage errors.
ftlat wakeup_rt --hist -D 1 2>/dev/null
is $? 1 "--hist is for osnoise and timerlat"
ftlat timerlat -o x.dat -D 1 2>/dev/null
is $? 1 "-o is for the tracers with a worst case's trace"
ftlat nosuch -D 1 2>/dev/null
is $? 1 "an unknown tracer"
done_testing
