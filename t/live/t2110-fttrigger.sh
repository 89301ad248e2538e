#!/bin/bash
# fttrigger: triggers fire as the kernel says they should; listing covers
# every instance; removal in order; hist where the kernel has it; tracefs
# as it was after every run, also after signals.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events triggers instances
. "$top_srcdir/t/lib/control.sh"

dump_tracefs "$T" >"$TMPD/before"

fttrigger --help >/dev/null; is $? 0 "--help exits 0"
fttrigger -t traceon >/dev/null 2>&1; is $? 1 "-t without -e exits 1"
fttrigger -e sched:sched_switch --vals x >/dev/null 2>&1; is $? 1 "--vals without -k exits 1"

# traceoff:1 fires once: the instance's tracing_on goes to 0, the count to 0.
scratch a trig
fttrigger -B "$a" -e sched:sched_process_exec -t 'traceoff:1 if filename ~ "*/true"' 2>/dev/null
is $? 0 "-B NAME adds a traceoff trigger"
is "$(cat "$T/instances/$a/tracing_on")" 1 "tracing is on before the workload"
/bin/echo >/dev/null
is "$(cat "$T/instances/$a/tracing_on")" 1 "an exec the if-filter rejects does not fire it"
/bin/true
is "$(cat "$T/instances/$a/tracing_on")" 0 "an exec of true fires it: tracing_on is 0"
ok "the kernel lists it with its count used up" grep -q '^traceoff:count=0 if' \
	"$T/instances/$a/events/sched/sched_process_exec/trigger"

# Listing finds triggers in every instance.
scratch b trig2
fttrigger -B "$b" -e sched:sched_process_fork -t stacktrace 2>/dev/null
fttrigger -l >"$TMPD/list"
ok "-l lists the trigger of instance A" grep -Eq "^$a +sched:sched_process_exec +traceoff" "$TMPD/list"
ok "-l lists the trigger of instance B" grep -Eq "^$b +sched:sched_process_fork +stacktrace" "$TMPD/list"

# Remove one, then all, in an instance; the kernel's trigger files empty.
fttrigger -B "$a" -e sched:sched_process_exec -t stacktrace -t 'enable_event:sched:sched_process_exit:2' 2>/dev/null
fttrigger -B "$a" -e sched:sched_process_exec -r 'traceoff:count=0 if filename ~ "*/true"' 2>/dev/null
is $? 0 "-r removes a trigger given as the kernel lists it"
ok "... and it is gone" sh -c "! grep -q traceoff '$T/instances/$a/events/sched/sched_process_exec/trigger'"
fttrigger -B "$a" -R
is $? 0 "-R removes every trigger of the instance"
is "$(grep -vc '^#' "$T/instances/$a/events/sched/sched_process_exec/trigger")" 0 "... the trigger file is empty"
# What enable_event turned on stays on once the trigger is gone (the kernel's
# way); ftreset turns it off.
ftreset -q -B "$a"
is "$(cat "$T/instances/$a/events/sched/sched_process_exit/enable")" 0 \
	"ftreset turns off what enable_event enabled"

# Run mode: enable_event and stacktrace fire while the command runs.
fttrigger -e sched:sched_process_exec -t 'enable_event:sched:sched_process_exit' -t stacktrace \
	-- /bin/true >"$TMPD/out" 2>"$TMPD/err"; rc=$?
is "$rc" 0 "run mode with a COMMAND exits 0"
ok "enable_event fired: the exit of true was recorded" grep -q 'sched_process_exit: comm=true' "$TMPD/out"
ok "stacktrace fired: a kernel stack was recorded" grep -q '<stack trace>' "$TMPD/out"

# Bad triggers: kernel's reason, exit 2, nothing left.
scratch r ref
mkdir "$T/instances/$r"
echo 'traceon if no_such_field == 1' >"$T/instances/$r/events/sched/sched_switch/trigger" 2>/dev/null
kernel_says=$(sed -n 's/.*error: //p' "$T/instances/$r/error_log" | tail -1)
rmdir "$T/instances/$r"
fttrigger -e sched:sched_switch -t 'traceon if no_such_field == 1' -D 1 >/dev/null 2>"$TMPD/err"; rc=$?
is "$rc" 2 "a trigger with a bad filter exits 2"
if [ -n "$kernel_says" ]; then
	ok "... with the kernel's reason ($kernel_says)" grep -qF "$kernel_says" "$TMPD/err"
	ok "... and its caret" grep -q '^ *\^' "$TMPD/err"
else
	skip "this kernel logs nothing in error_log for a trigger's filter"
	skip "this kernel logs nothing in error_log for a trigger's filter"
fi
fttrigger -e sched:sched_switch -t 'no_such_command' -D 1 >/dev/null 2>&1
is $? 2 "an unknown trigger command exits 2"
fttrigger -e 'sched:nosuch' -t traceon -D 1 >/dev/null 2>"$TMPD/err"
is $? 2 "an unknown event exits 2"
ok "... saying so" grep -q "unknown event 'sched:nosuch'" "$TMPD/err"
fttrigger -e '../../sched:x' -t traceon -D 1 >/dev/null 2>&1
is $? 2 "a path in the event name is refused"
# Persistent mode: a failing second trigger takes the first away again.
scratch c half
fttrigger -B "$c" -e sched:sched_switch -t stacktrace -t 'traceon if nope == 1' >/dev/null 2>&1
is $? 2 "a failing second trigger exits 2"
ok "... and leaves no instance behind (it was created for this)" test ! -d "$T/instances/$c"

# hist: counts exactly the events of a known workload.
if has hist_triggers; then
	fttrigger -e sched:sched_process_exec -k filename --if 'filename ~ "*/true"' -- \
		bash -c '/bin/true; /bin/true; /bin/true; /bin/true; /bin/true' >"$TMPD/out" 2>&1
	ok "the hist trigger counts the 5 execs of true" grep -Eq 'filename: .*/bin/true.*hitcount: +5' "$TMPD/out"
	scratch h hist
	fttrigger -B "$h" -e sched:sched_process_exec -k common_pid 2>/dev/null
	fttrigger -B "$h" -e sched:sched_process_exec --pause 2>/dev/null
	ok "--pause pauses it" grep -q 'paused' "$T/instances/$h/events/sched/sched_process_exec/trigger"
	fttrigger -B "$h" -e sched:sched_process_exec -H >"$TMPD/hist"
	ok "-H prints the hist output" grep -q '^# event histogram' "$TMPD/hist"
	# the kernel removes a filtered hist trigger only by its text with the filter
	fttrigger -B "$h" -e sched:sched_process_exec -k filename --if 'common_pid > 0' 2>/dev/null
	ok "a filtered hist trigger is added" grep -q '^hist:keys=filename.* if common_pid > 0' \
		"$T/instances/$h/events/sched/sched_process_exec/trigger"
	fttrigger -B "$h" -R
	is "$(grep -vc '^#' "$T/instances/$h/events/sched/sched_process_exec/trigger")" 0 \
		"-R removes hist triggers too, the filtered one included"
else
	for i in 1 2 3 4 5; do skip "hist triggers: $why"; done
fi

# Function triggers need the function tracer.
if has function; then
	fttrigger --func 'do_sys_openat2:traceoff:1' -D 0.5 >/dev/null 2>&1
	is $? 0 "a function trigger can be set"
else
	fttrigger --func 'do_sys_openat2:traceoff:1' -D 0.5 >/dev/null 2>"$TMPD/err"
	is $? 2 "a function trigger where the kernel forbids it exits 2"
fi

for sig in INT TERM; do
	interrupted fttrigger $sig -e sched:sched_switch -t stacktrace
	is "$rc" $((128 + $(kill -l $sig))) "SIG$sig mid-run: exit 128+signal"
	ok "SIG$sig mid-run: the private instance is gone" no_instance_of fttrigger "$pid"
done

if can_be_nobody; then
	as_nobody "$top_builddir/tools/fttrigger" -l >/dev/null 2>&1
	is $? 2 "as nobody: exit 2"
else
	skip "cannot run a command as nobody here (no setpriv, su refused)"
fi

dump_tracefs "$T" >"$TMPD/after"
same_dump "$TMPD/before" "$TMPD/after" "tracefs top level is as it was"
done_testing
