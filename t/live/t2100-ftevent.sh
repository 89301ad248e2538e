#!/bin/bash
# ftevent: listing, formats, enabling, filters and PIDs, checked against what
# the kernel records; tracefs as it was after every run, also after signals.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events filters instances
. "$top_srcdir/t/lib/control.sh"

dump_tracefs "$T" >"$TMPD/before"

# --help and usage errors.
out=$(ftevent --help); rc=$?
is "$rc" 0 "--help exits 0"
case $out in usage:*) ok "--help prints the usage on stdout" true ;; *) ok "--help prints the usage on stdout" false ;; esac
ftevent --no-such-option >/dev/null 2>&1; is $? 1 "a bad option exits 1"
ftevent -f 'x == 1' >/dev/null 2>&1; is $? 1 "-f without -e before it exits 1"

# Listing agrees with available_events.
want=$(grep '^sched:sched_wak' "$T/available_events" | sort)
got=$(ftevent -l 'sched:sched_wak*')
is "$got" "$want" "-l 'sched:sched_wak*' lists what available_events has"
is "$(ftevent -l sched | wc -l)" "$(grep -c '^sched:' "$T/available_events")" \
	"-l SYSTEM lists the whole system"
ftevent -l 'nosuch_system_xyz:*' >/dev/null 2>"$TMPD/err"; rc=$?
is "$rc" 2 "-l of an unknown event exits 2"
ok "... and says no event matches" grep -q "no event matches" "$TMPD/err"

# --format shows each field of the format file, with its type.
ftevent --format sched:sched_switch >"$TMPD/fmt"
is $? 0 "--format sched:sched_switch exits 0"
# (A file, not <(...): the VM has no /dev/fd.)
sed -n 's/^[[:space:]]*field:.* \**\([a-z_0-9]*\)\(\[.*\]\)*;.*/\1/p' \
	"$T/events/sched/sched_switch/format" >"$TMPD/names"
missing=
while read -r name; do
	grep -q "^  $name " "$TMPD/fmt" || missing="$missing $name"
done <"$TMPD/names"
is "$(grep -c . "$TMPD/names")" 11 "the format file of sched_switch has its 11 fields"
is "$missing" "" "--format lists every field of the format file"
ok "--format shows prev_pid as pid_t" grep -Eq '^  prev_pid +pid_t ' "$TMPD/fmt"
ftevent --format 'sched:no_such_event' >/dev/null 2>&1; is $? 2 "--format of an unknown event exits 2"

# An enabled event really records: three execs of true, traced with -F.
ftevent -e sched:sched_process_exec -F -- bash -c '/bin/true; /bin/true; /bin/true' \
	>"$TMPD/out" 2>"$TMPD/err"; rc=$?
is "$rc" 0 "run mode with a COMMAND exits 0"
is "$(grep -c 'sched_process_exec: filename=/bin/true' "$TMPD/out")" 3 \
	"every exec of the command is recorded (3 of /bin/true)"
ok "run mode leaves no instance" no_instance_of ftevent "$(sed -n 's/.*ftkit-ftevent-\([0-9]*\).*/\1/p' "$TMPD/err")"

# A filter really filters: the same workload, only execs of a name never run pass.
ftevent -e sched:sched_process_exec -f 'filename ~ "*no-such-binary"' -F -- \
	bash -c '/bin/true; /bin/true' >"$TMPD/out" 2>&1
is "$(grep -c sched_process_exec "$TMPD/out")" 0 "a filter that matches nothing lets nothing through"
ftevent -e sched:sched_process_exec -f 'filename ~ "*/true"' -F -- \
	bash -c '/bin/true; /bin/true; /bin/echo >/dev/null' >"$TMPD/out" 2>&1
is "$(grep -c sched_process_exec "$TMPD/out")" 2 "a filter on the file name passes exactly the 2 execs of true"

# A bad filter: the kernel's own error_log text and caret, exit 2, nothing left.
scratch n ref
mkdir "$T/instances/$n"
echo 'no_such_field == 1' >"$T/instances/$n/events/sched/sched_switch/filter" 2>/dev/null
kernel_says=$(sed -n 's/.*error: //p' "$T/instances/$n/error_log" | tail -1)
rmdir "$T/instances/$n"
ftevent -e sched:sched_switch -f 'no_such_field == 1' -D 1 >/dev/null 2>"$TMPD/err"; rc=$?
is "$rc" 2 "a bad filter exits 2"
if [ -n "$kernel_says" ]; then
	ok "... and shows the kernel's error_log reason ($kernel_says)" grep -qF "$kernel_says" "$TMPD/err"
	ok "... and its caret line" grep -q '^ *\^' "$TMPD/err"
else
	skip "this kernel logs nothing in error_log for a bad filter"
	skip "this kernel logs nothing in error_log for a bad filter"
fi
ok "... and leaves no instance" no_instance_of ftevent "$(sed -n 's/.*ftkit-ftevent-\([0-9]*\).*/\1/p' "$TMPD/err")"

# Unknown events and shell metacharacters: a clear error, no side effect.
ftevent -e 'nosuch:event' -D 1 >/dev/null 2>"$TMPD/err"; rc=$?
is "$rc" 2 "an unknown event exits 2"
ok "... saying so" grep -q "unknown event 'nosuch:event'" "$TMPD/err"
ftevent -e 'sched:$(touch '"$TMPD"'/pwned)' -D 1 >/dev/null 2>&1
ok "a name with shell metacharacters runs nothing" test ! -e "$TMPD/pwned"
ftevent -B 'x;touch pwned' -e sched:sched_switch >/dev/null 2>"$TMPD/err"; rc=$?
is "$rc" 1 "an instance name with shell metacharacters is refused (exit 1)"
ok "... and not created" test ! -e "$T/instances/x;touch pwned"

# Persistent mode: -B NAME keeps the change; ftreset takes it away.
scratch n keep
ftevent -B "$n" -e sched:sched_switch -f 'prev_pid == 0' -p 1,2 2>/dev/null
is $? 0 "-B NAME -e exits 0"
is "$(cat "$T/instances/$n/events/sched/sched_switch/enable")" 1 "... the event stays enabled in NAME"
is "$(cat "$T/instances/$n/events/sched/sched_switch/filter")" "prev_pid == 0" "... with its filter"
is "$(sort -n "$T/instances/$n/set_event_pid" | tr '\n' ' ')" "1 2 " "... and its PID list"
ftevent -s -B "$n" >"$TMPD/show"
ok "-s shows the enabled event" grep -q '^enabled: sched:sched_switch$' "$TMPD/show"
ok "-s shows the filter" grep -q '^filter: sched:sched_switch: prev_pid == 0$' "$TMPD/show"
ftevent -B "$n" -d sched:sched_switch --clear-filter sched:sched_switch 2>/dev/null
is "$(cat "$T/instances/$n/events/sched/sched_switch/enable")" 0 "-d disables it again"
is "$(cat "$T/instances/$n/events/sched/sched_switch/filter")" none "--clear-filter clears the filter"
# A failure half-way in persistent mode undoes the first half.
ftevent -B "$n" -e sched:sched_wakeup -e nosuch:event >/dev/null 2>&1
is "$(cat "$T/instances/$n/events/sched/sched_wakeup/enable")" 0 \
	"a failing second -e undoes the first (nothing half-configured)"

# Signals in the middle of a run: everything put back.
for sig in INT TERM; do
	interrupted ftevent $sig -e sched:sched_switch -e sched:sched_wakeup
	is "$rc" $((128 + $(kill -l $sig))) "SIG$sig mid-run: exit 128+signal"
	ok "SIG$sig mid-run: the private instance is gone" no_instance_of ftevent "$pid"
done

# A reader that stops early ("| head"): the tool stops too and puts everything back.
bash -c 'echo $$ >"$0"; exec ftevent -e sched:sched_switch -D 30 2>/dev/null' "$TMPD/pid" | head -1 >/dev/null
ok "after '| head' the private instance is gone" no_instance_of ftevent "$(cat "$TMPD/pid")"

# Non-root: refused with a reason, nothing changed.
if can_be_nobody; then
	as_nobody "$top_builddir/tools/ftevent" -e sched:sched_switch -D 1 >/dev/null 2>"$TMPD/err"
	is $? 2 "as nobody: exit 2"
	ok "... with a reason" test -s "$TMPD/err"
else
	skip "cannot run a command as nobody here (no setpriv, su refused)"
	skip "cannot run a command as nobody here"
fi

dump_tracefs "$T" >"$TMPD/after"
same_dump "$TMPD/before" "$TMPD/after" "tracefs top level is as it was"
done_testing
