#!/bin/bash
# ftfunc: where the kernel forbids the function tracers, it says why and
# exits 2 leaving nothing behind; where it allows them, the traced functions
# really show up, filters and graph options hold, and all is put back.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances
. "$top_srcdir/t/lib/control.sh"

dump_tracefs "$T" >"$TMPD/before"

ftfunc --help >/dev/null; is $? 0 "--help exits 0"
ftfunc -G foo >/dev/null 2>&1; is $? 1 "-G without -g exits 1"
ftfunc -p notapid >/dev/null 2>&1; is $? 1 "a bad PID exits 1"

if ! has function; then
	reason=$why
	ftfunc -D 1 >/dev/null 2>"$TMPD/err"; rc=$?
	is "$rc" 2 "function tracer forbidden here: exit 2"
	# ftinfo's reason ends "write: <strerror> (...)": the same strerror must show.
	errtext=$(echo "$reason" | sed -n 's/.*write: \([^(]*\).*/\1/p' | sed 's/ *$//')
	[ -n "$errtext" ] || errtext=$(echo "$reason" | sed 's/^[^:]*: //')
	ok "... and the message says why, as ftinfo does ($errtext)" grep -qF "$errtext" "$TMPD/err"
	ok "... and leaves no instance" no_instance_of ftfunc \
		"$(sed -n 's/.*ftkit-ftfunc-\([0-9]*\).*/\1/p' "$TMPD/err")"
	ftfunc -f 'vfs_*' -- /bin/true >/dev/null 2>&1
	is $? 2 "with a filter and a COMMAND too"
	for i in 1 2 3 4 5 6 7; do skip "function tracer: $reason"; done
else
	# The command's own output goes elsewhere: only the trace is in out.
	ftfunc -f do_sys_openat2 -- sh -c 'cat /proc/version >/dev/null' >"$TMPD/out" 2>"$TMPD/err"; rc=$?
	is "$rc" 0 "function tracer with a filter and a COMMAND exits 0"
	[ "$rc" = 0 ] || diag "$(cat "$TMPD/err")"
	# (The task may print as "<...>": the kernel had not saved its comm yet.)
	ok "do_sys_openat2 of the command is traced" grep -q ': do_sys_openat2 <-' "$TMPD/out"
	grep -q ': do_sys_openat2 <-' "$TMPD/out" || diag "$(head -5 "$TMPD/out")"
	is "$(grep -v '^#' "$TMPD/out" | grep -vc do_sys_openat2)" 0 "the filter lets nothing else through"
	ftfunc -f 'no_such_function_xyz' -D 1 >/dev/null 2>&1
	is $? 2 "a filter matching no function exits 2"
	scratch s stay
	ftfunc -B "$s" -f do_sys_openat2 -s 2>/dev/null
	is "$(cat "$T/instances/$s/current_tracer")" function "-B NAME starts the tracer and keeps it"
	ftfunc -B "$s" --stop
	is "$(cat "$T/instances/$s/current_tracer")" nop "--stop stops it"
	# -s stays too, and on older kernels (6.1) options/func_stack_trace is one flag for
	# all instances and the top level: ftreset puts it back, as ftfunc tells users.
	ftreset -q -B "$s" -i
	is "$(cat "$T/options/func_stack_trace")" \
		"$(sed -n 's/^options\/func_stack_trace://p' "$TMPD/before")" \
		"ftreset -B NAME -i puts func_stack_trace back"
fi

if has function_graph; then
	ftfunc -g -G do_sys_openat2 -d 2 -- sh -c 'cat /proc/version >/dev/null' >"$TMPD/out" 2>"$TMPD/err"
	is $? 0 "function_graph with -G and -d exits 0"
	ok "the graph starts at do_sys_openat2" grep -q 'do_sys_openat2() {' "$TMPD/out"
	grep -q 'do_sys_openat2() {' "$TMPD/out" || diag "$(head -5 "$TMPD/out")"
	is "$(cat "$T/max_graph_depth")" "$(grep max_graph_depth "$TMPD/before" | sed 's/.*: //; s/|$//')" \
		"max_graph_depth is put back"
else
	for i in 1 2 3; do skip "function_graph: $why"; done
fi

interrupted ftfunc TERM -f "vfs_*" -D 30
ok "SIGTERM or refusal: the private instance is gone" no_instance_of ftfunc "$pid"
if has function; then
	# Tracing vfs_* traces ftfunc's own reads of trace_pipe and writes of the
	# trace: trace_pipe never runs dry, and once ftfunc drained it until then
	# and missed the signal, filling /tmp.
	is "$rc" 143 "SIGTERM ends a run whose own reads and writes are traced"
	[ "$rc" = 143 ] || diag "$(ls -l "$TMPD/out"; head -c 300 "$TMPD/err")"
else
	skip "function tracer: $why"
fi

dump_tracefs "$T" >"$TMPD/after"
same_dump "$TMPD/before" "$TMPD/after" "tracefs top level is as it was"
done_testing
