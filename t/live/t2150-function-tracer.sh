#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The function tracer, by hand in an instance of our own: filter on one function, set the
# tracer, make the kernel call the function, find the calls in the instance's trace, restore.
# A locked-down kernel refuses the function tracer: the file skips with ftinfo's reason
# (EPERM); the full-kernel VM lane (t/vm) runs it.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need function
T=$(tracefs_dir) || skip_all "no tracefs"
fn=vfs_read

I=$T/instances/ftkit-t2100-$$
mkdir "$I" || bail_out "cannot create instance $I"
cleanup() {
	[ -d "$I" ] || return 0
	echo nop > "$I/current_tracer"
	echo > "$I/set_ftrace_filter"
	rmdir "$I"
}
trap cleanup EXIT
top_tracer=$(cat "$T/current_tracer")

ok "the instance offers the function tracer" grep -qw function "$I/available_tracers"
ok "$fn is in available_filter_functions" grep -q "^$fn\$" "$T/available_filter_functions"
echo "$fn" > "$I/set_ftrace_filter"
is "$(cat "$I/set_ftrace_filter")" "$fn" "set_ftrace_filter holds $fn"
echo function > "$I/current_tracer"
is "$(cat "$I/current_tracer")" function "current_tracer reads back function"

# dd reads with read(2), which calls vfs_read (busybox cat would use sendfile).
dd if=/proc/version of=/dev/null bs=16 2>/dev/null
echo 0 > "$I/tracing_on"
trace=$(grep -v '^#' "$I/trace")
ok "the trace shows dd calling $fn" grep -qE "^ *dd-[0-9]+ +\[[0-9]+\] .* $fn <-" <<< "$trace"
is "$(grep -cv " $fn <-" <<< "$trace")" 0 "every entry is $fn (the filter holds)"
is "$(cat "$T/current_tracer")" "$top_tracer" "the top-level tracer is untouched"

echo nop > "$I/current_tracer"
is "$(cat "$I/current_tracer")" nop "current_tracer is nop again"
echo > "$I/set_ftrace_filter"
ok "set_ftrace_filter is cleared" grep -q '^#### all functions enabled ####' "$I/set_ftrace_filter"
rmdir "$I"
ok "the instance is gone" test ! -e "$I"
done_testing
