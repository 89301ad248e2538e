#!/bin/bash
# ftreset: after a messy run of several tools, an instance reads exactly like
# a fresh one. The top level is reset only in the VM lane or with
# FTK_RESET_TOP=1: other users share this machine's tracefs.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events triggers instances
. "$top_srcdir/t/lib/control.sh"

ftreset --help >/dev/null; is $? 0 "--help exits 0"
ftreset extra >/dev/null 2>&1; is $? 1 "an extra argument exits 1"
ftreset -B 'no-such-instance-ftkit' >/dev/null 2>&1; is $? 2 "an unknown instance exits 2"

scratch fresh fresh
scratch m messy
mkdir "$T/instances/$fresh"
dump_tracefs "$T/instances/$fresh" >"$TMPD/fresh"
rmdir "$T/instances/$fresh"

# A mess: events, filters, PIDs, triggers, options, clock, buffer size, a trace.
# The PIDs are two sleeps of ours: with event-fork on, the kernel adds the
# children of a listed PID (kthreadd's new kworkers, once), changing the dump.
sleep 600 & idle1=$!
sleep 600 & idle2=$!
trap 'kill $idle1 $idle2 2>/dev/null; cleanup_scratch' EXIT
ftevent -B "$m" -e sched -e irq:irq_handler_entry -f 'irq == 1' -p $idle1 -P $idle2 2>/dev/null
fttrigger -B "$m" -e sched:sched_process_exec -t stacktrace -t 'enable_event:sched:sched_process_exit' \
	-e sched:sched_process_fork -t 'traceoff:5 if parent_pid == 1' 2>/dev/null
echo 1 >"$T/instances/$m/options/event-fork"
echo 0 >"$T/instances/$m/options/overwrite"
other=$(tr -d '[]' <"$T/instances/$m/trace_clock" | tr ' ' '\n' | grep -vx "$(sed 's/.*\[\(.*\)\].*/\1/' "$T/instances/$m/trace_clock")" | head -1)
echo "$other" >"$T/instances/$m/trace_clock"
echo 2048 >"$T/instances/$m/buffer_size_kb"
echo 0 >"$T/instances/$m/tracing_on"
echo 1 >"$T/instances/$m/tracing_on"; echo "ftkit mess" >"$T/instances/$m/trace_marker"; echo 0 >"$T/instances/$m/tracing_on"
dump_tracefs "$T/instances/$m" >"$TMPD/messy"
ok "the mess differs from a fresh instance" sh -c "! cmp -s '$TMPD/fresh' '$TMPD/messy'"

ftreset -n -B "$m" >"$TMPD/dry"; rc=$?
is "$rc" 0 "a dry run exits 0"
dump_tracefs "$T/instances/$m" >"$TMPD/messy2"
same_dump "$TMPD/messy" "$TMPD/messy2" "a dry run changes nothing"
ok "a dry run names the trigger it would remove" grep -q 'sched_process_exec/trigger: stacktrace' "$TMPD/dry"

ftreset -B "$m" >"$TMPD/out"; rc=$?
is "$rc" 0 "ftreset -B NAME exits 0"
ok "it prints what it changed (the clock)" grep -q "trace_clock: $other -> " "$TMPD/out"
ok "it prints what it changed (the trigger)" grep -q 'sched_process_fork/trigger: traceoff' "$TMPD/out"
dump_tracefs "$T/instances/$m" >"$TMPD/reset"
same_dump "$TMPD/fresh" "$TMPD/reset" "after ftreset the instance reads like a fresh one"
ok "the trace holds no event" sh -c "! grep -v '^#' '$T/instances/$m/trace' | grep -q ."
is "$(ftreset -B "$m")" "nothing to reset" "a second ftreset has nothing to do"
ftreset -B "$m" -i >/dev/null
ok "-B NAME -i removes the instance" test ! -d "$T/instances/$m"

# Instances with -i: a stale ftkit one (its creator is gone) would go; a live
# one and one a person named stay. Dry run: the top level is shared.
bash -c 'exit 0' & deadpid=$!; wait $deadpid
stale="ftkit-t$$-$deadpid"; live="ftkit-t2140-$$"; mine="t2140-mine-$$"
SCRATCH="$SCRATCH $stale $live $mine"
mkdir "$T/instances/$stale" "$T/instances/$live" "$T/instances/$mine"
ftreset -n -i >"$TMPD/dry"
if kill -0 $deadpid 2>/dev/null; then
	skip "the dead PID $deadpid was given to a new process: the instance is not stale"
else
	ok "-i would remove the stale ftkit instance" grep -q "instances: $stale -> (removed)" "$TMPD/dry"
fi
ok "... not the one of a running process" sh -c "! grep -q 'instances: $live ' '$TMPD/dry'"
ok "... nor one a person named" sh -c "! grep -q 'instances: $mine ' '$TMPD/dry'"
ftreset -n -i -a >"$TMPD/dry"
ok "-i -a would remove them all" grep -q "instances: $mine -> (removed)" "$TMPD/dry"
ok "... but a running ftkit process's, named with its owner" \
	grep -q "instances/$live: in use by PID $$ " "$TMPD/dry"
ftreset -n -i -a --force >"$TMPD/dry"
ok "... which --force would remove too" grep -q "instances: $live -> (removed)" "$TMPD/dry"
rmdir "$T/instances/$stale" "$T/instances/$live" "$T/instances/$mine"

# A top-level buffer at the boot default (1408 KiB, shown as "7 (expanded:
# 1408)" until first used) is what an instance rounds to 1410 KiB: nothing
# to reset, and a plain ftreset must not allocate it.
top_kb=$(sed 's/.*expanded: //; s/)//' "$T/buffer_size_kb")
if [ "$top_kb" = 1408 ]; then
	ftreset -n >"$TMPD/dry"
	ok "the boot-default top-level buffer is left as it is" \
		sh -c "! grep -q '^would change buffer_size_kb' '$TMPD/dry'"
else
	skip "the top-level buffer is not at the boot default here ($top_kb KiB)"
fi

# Dynamic events: only ftkit's groups, unless --all; checked with a dry run.
if has uprobes; then
	bin=$(readlink -f /bin/true)
	echo "p:ftkit_t$$/probe $bin:0" >>"$T/uprobe_events" 2>/dev/null &&
	echo "p:other_t$$/probe $bin:0" >>"$T/uprobe_events" 2>/dev/null
	ftreset -n >"$TMPD/dry"
	ok "a dry run would remove ftkit's probe" grep -q "ftkit_t$$/probe -> (removed)" "$TMPD/dry"
	ok "... and not another group's" sh -c "! grep -q 'other_t$$/probe' '$TMPD/dry'"
	ftreset -n -a >"$TMPD/dry"
	ok "with --all it would remove the other group's too" grep -q "other_t$$/probe" "$TMPD/dry"
	echo "-:ftkit_t$$/probe" >>"$T/uprobe_events"; echo "-:other_t$$/probe" >>"$T/uprobe_events"
else
	for i in 1 2 3; do skip "uprobes: $why"; done
fi

# The top level: only where nobody else uses tracefs.
if [ "${FTK_RESET_TOP:-}" = 1 ] || case " ${FTK_LANES:-} " in *" vm "*) true ;; *) false ;; esac; then
	dump_tracefs "$T" >"$TMPD/top-before"
	ftevent -T -e sched:sched_switch -f 'prev_pid == 0' 2>/dev/null
	fttrigger -T -e sched:sched_process_exec -t stacktrace 2>/dev/null
	echo 4096 >"$T/buffer_size_kb"
	ftreset >"$TMPD/out"; is $? 0 "ftreset of the top level exits 0"
	dump_tracefs "$T" >"$TMPD/top-after"
	same_dump "$TMPD/top-before" "$TMPD/top-after" "the top level is as before the mess"
	# A machine of our own (the vm lane): a mess of several tools, with probes and
	# instances too, and ftreset -i -a leaves all of tracefs as the kernel booted it.
	if [ -n "${FTK_BOOT_DUMP:-}" ] && [ -r "$FTK_BOOT_DUMP" ]; then
		# Not an ftkit-TOOL-PID name: that of a live owner (this shell) is left alone.
		ftevent -B "mess-$$" -e sched:sched_switch -e 'irq:*' 2>/dev/null
		fttrigger -B "mess-$$" -e sched:sched_switch -t 'traceoff:5' 2>/dev/null
		ftevent -T -e sched:sched_wakeup -f 'pid == 1' 2>/dev/null
		has uprobes && ftprobe -a "$(command -v bash):0x1000" >/dev/null 2>&1
		echo global > "$T/trace_clock"
		echo 2048 > "$T/buffer_size_kb"
		ftreset -i -a > "$TMPD/out2"; is $? 0 "ftreset -i -a after a mess of several tools exits 0"
		"$top_srcdir/t/lib/dump-tracefs.sh" "$T" > "$TMPD/top-after2"
		same_dump "$FTK_BOOT_DUMP" "$TMPD/top-after2" \
			"after ftreset -i -a all of tracefs is as the kernel booted it"
	else
		skip "no dump of tracefs as booted (FTK_BOOT_DUMP: the vm lane makes one)"
		skip "no dump of tracefs as booted"
	fi
else
	skip "resetting the top level: only in the vm lane or with FTK_RESET_TOP=1 (shared tracefs)"
	skip "resetting the top level"
	skip "resetting the top level"
	skip "resetting the top level"
fi
done_testing
