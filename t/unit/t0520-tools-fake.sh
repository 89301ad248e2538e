#!/bin/bash
# ftfunc, fttrigger, ftsnap and ftreset against a fake tracefs tree of plain
# files (FTK_TRACEFS): what each option writes, that run mode puts it all
# back, and what persistent mode leaves. No root, no kernel: the paths the
# locked-down host cannot run (function tracers, hist, snapshot, synthetic
# events) are checked here for what the tools write; t/live checks the kernel.
. "$top_srcdir/t/tap.sh"
lane unit

W=$(mktemp -d /tmp/ftkit-fake-XXXXXX)
F=$W/tracing		# the fake tree; $F.before and the like are beside it
mkdir "$F"
trap 'rm -rf "$W"' EXIT
export FTK_TRACEFS=$F
mk() { mkdir -p "$(dirname "$F/$1")"; printf '%s' "$2" >"$F/$1"; }
mk available_tracers 'function_graph function nop'
mk current_tracer 'nop'
for f in set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace \
	 set_ftrace_pid set_ftrace_notrace_pid set_event set_event_pid set_event_notrace_pid \
	 trace_pipe synthetic_events snapshot per_cpu/cpu0/snapshot per_cpu/cpu1/snapshot; do
	mk $f ''
done
mk max_graph_depth 0
mk tracing_thresh 0
mk tracing_on 1
mk options/func_stack_trace 0
mk options/funcgraph-proc 0
mk options/function-fork 0
mk available_events 'sched:sched_switch'
mk events/sched/sched_switch/enable 0
mk events/sched/sched_switch/filter none
mk events/sched/sched_switch/trigger ''
mk events/sched/sched_switch/hist '# event histogram'
mkdir -p "$F/instances"
dump() { (cd "$F" && find . -type f | sort | while read -r f; do printf '%s: %s\n' "$f" "$(cat "$f")"; done); }
dump >"$F.before"

# ftfunc, run mode: everything written is put back.
ftfunc -g -G vfs_read -N schedule -d 3 -t 100 -s -o funcgraph-proc -D 0.2 >/dev/null 2>"$F.err"
is $? 0 "ftfunc -g with every option, run mode, exits 0"
ok "function_graph falls back to the top level, saying so" grep -q 'cannot run in an instance' "$F.err"
dump >"$F.after"
is "$(diff "$F.before" "$F.after")" "" "... and puts every file back"
is "$(ls "$F/instances")" "" "... and removes its instance"

# ftfunc, persistent mode at the top level.
ftfunc -T -g -f 'vfs_*' -f '*:mod:ext4' -G vfs_read -d 3 -t 100 -s -o funcgraph-proc=1 2>/dev/null
is $? 0 "ftfunc -T -g exits 0"
is "$(cat "$F/current_tracer")" function_graph "the tracer is set and stays"
is "$(cat "$F/set_ftrace_filter" | tr '\n' ' ')" 'vfs_* *:mod:ext4 ' \
	"both filters written, the second appended, each ending its line"
is "$(cat "$F/set_graph_function")" vfs_read "graph function"
is "$(cat "$F/max_graph_depth")/$(cat "$F/tracing_thresh")" 3/100 "depth and threshold"
is "$(cat "$F/options/func_stack_trace")/$(cat "$F/options/funcgraph-proc")" 1/1 "options"
mk set_ftrace_pid 'no pid'
ftfunc -T -p 42 -o funcgraph-proc=0 -D 0.1 >/dev/null 2>&1
is "$(cat "$F/set_ftrace_pid")" '' "a PID list that read 'no pid' is put back empty"
ftfunc -T -f 'a b' 2>/dev/null
is $? 2 "a glob with a space is refused"
ftfunc -T --stop
is "$(cat "$F/current_tracer")" nop "--stop sets nop"
ftfunc -T -o no-such-option 2>/dev/null
is $? 2 "an unknown option exits 2"
is "$(cat "$F/current_tracer")" nop "... without starting the tracer"

# ftreset puts the lists and values back.
ftreset >"$F.out"
is $? 0 "ftreset exits 0"
ok "it clears set_graph_function" grep -q '^set_graph_function: 1 entry -> (empty)' "$F.out"
is "$(cat "$F/max_graph_depth")/$(cat "$F/tracing_thresh")/$(cat "$F/set_graph_function")" 0/0/ \
	"depth, threshold and graph list are back to their defaults"

# fttrigger: the hist builder, function triggers, synthetic events.
fttrigger -T -e sched:sched_switch -k prev_pid --vals prev_prio --sort hitcount.descending \
	--size 1024 --name ftkit_h --if 'prev_pid > 0' 2>/dev/null
is "$(cat "$F/events/sched/sched_switch/trigger")" \
	'hist:keys=prev_pid:vals=prev_prio:sort=hitcount.descending:size=1024:name=ftkit_h if prev_pid > 0' \
	"-k and its options build the hist trigger"
is "$(fttrigger -T -e sched:sched_switch -H)" '# event histogram' "-H prints the hist file"
fttrigger -T -e sched:sched_switch --pause 2>"$F.err"
is "$?/$(tail -c 200 "$F/events/sched/sched_switch/trigger" | grep -c 'hist:keys=prev_pid.*:pause')" 0/1 \
	"--pause appends ':pause' to the hist trigger"
mk events/sched/sched_switch/trigger ''
fttrigger --synth 'ftkit_lat u64 lat' -e sched:sched_switch --pause -D 0.1 >/dev/null 2>&1
is $? 2 "--pause without a hist trigger exits 2"
is "$(cat "$F/synthetic_events")" 'ftkit_lat u64 lat!ftkit_lat' \
	"a synthetic event of a failed run is removed again"
mk synthetic_events ''
fttrigger --synth 'ftkit_lat u64 lat' -D 0.1 >/dev/null 2>&1
is "$(cat "$F/synthetic_events")" 'ftkit_lat u64 lat!ftkit_lat' "... and of a run that ends well"
fttrigger -T --func 'vfs_read:traceoff:3' 2>/dev/null
is "$(cat "$F/set_ftrace_filter")" 'vfs_read:traceoff:3' "a function trigger goes to set_ftrace_filter"
fttrigger -T -R
is "$(cat "$F/set_ftrace_filter")" 'vfs_read:traceoff:3!vfs_read:traceoff:0' \
	"-R removes it with ':0' (it had a count)"
fttrigger -T --func 'vfs read:traceoff' 2>"$F.err"
is $? 2 "a function name with a space is refused"
ok "... saying so" grep -q "bad function trigger 'vfs read:traceoff'" "$F.err"

# ftsnap writes 1 (take), 2 (clear), 0 (free), per CPU too.
ftsnap -t; is "$(cat "$F/snapshot")" 1 "take writes 1"
ftsnap -x -c 1; is "$(cat "$F/per_cpu/cpu1/snapshot")" 2 "clear of CPU 1 writes 2 there"
ftsnap -f; is "$(cat "$F/snapshot")" 0 "free writes 0"
ftsnap -t -c 7 2>"$F.err"; is $? 2 "a CPU that does not exist exits 2"
ok "... naming it" grep -q 'cpu7' "$F.err"
done_testing
