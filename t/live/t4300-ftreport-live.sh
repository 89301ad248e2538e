#!/bin/bash
# ftreport --live drains an instance's per-CPU raw buffers, merged in time
# order: markers written from alternating CPUs all come out, in the order
# they were written, with non-decreasing stamps; the buffer is empty
# afterwards (reading trace_pipe_raw consumes, as documented).
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers trace_marker
T=$(tracefs_dir)
inst="ftkit-t4100-$$"
dir="$T/instances/$inst"
tmp=$(mktemp -d /tmp/ftk-t4100-XXXXXX)
# The kernel may hold the instance busy for a moment after its raw buffers
# were read: retry the removal.
cleanup() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -d "$dir" ] || break
		rmdir "$dir" 2>/dev/null || sleep 0.5
	done
	[ -d "$dir" ] && echo "# cannot remove instance $inst" >&2
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$dir" || bail_out "cannot create instance $inst"

ncpu=$(nproc)
pin=
command -v taskset > /dev/null && [ "$ncpu" -gt 1 ] && pin=1
for i in $(seq 1 40); do
	if [ -n "$pin" ]; then
		taskset -c $((i % 2)) sh -c "echo ftkit-mark-$i > '$dir/trace_marker'"
	else
		echo "ftkit-mark-$i" > "$dir/trace_marker"
	fi
done
ftreport --live -B "$inst" > "$tmp/out" 2> "$tmp/err"; rc=$?
is "$rc" 0 "ftreport --live exits 0"
# (A string compare, not <(...): the VM has no /dev/fd.)
is "$(head -1 "$tmp/out")" "cpus=$ncpu" "first line gives the CPU count"
got=$(grep -o 'ftkit-mark-[0-9]*' "$tmp/out" | sed 's/ftkit-mark-//' | tr '\n' ' ')
is "$got" "$(seq 1 40 | tr '\n' ' ')" "every marker, in the order written"
if [ -n "$pin" ]; then
	is "$(grep 'ftkit-mark-' "$tmp/out" | grep -o '\[00[0-9]\]' | sort -u | wc -l)" 2 \
		"markers came from two CPUs"
else
	skip "one CPU or no taskset: single-CPU buffer only"
fi
ok "stamps never go backwards" awk '/ftkit-mark-/ { t = $0; sub(/^.*\] +/, "", t); sub(/:.*/, "", t);
	if (t + 0 < last) exit 1; last = t + 0 }' "$tmp/out"
ftreport --live -B "$inst" > "$tmp/again" 2>&1
is "$(grep -c 'ftkit-mark-' "$tmp/again")" 0 "reading consumed the buffer"
ok "no buffer-name prefix on live lines" grep -q '^ *[^ ]*-[0-9]* *\[00[0-9]\] .*ftkit-mark-1$' "$tmp/out"

# Sub-buffers larger than a page (buffer_subbuf_size_kb, kernels 6.8 and later).
if [ -w "$dir/buffer_subbuf_size_kb" ] && echo 8 > "$dir/buffer_subbuf_size_kb" 2>/dev/null &&
   [ "$(cat "$dir/buffer_subbuf_size_kb")" = 8 ]; then
	for i in $(seq 1 300); do echo "ftkit-big-$i" > "$dir/trace_marker"; done
	ftreport --live -B "$inst" > "$tmp/big" 2>&1
	is "$(grep -o 'ftkit-big-[0-9]*' "$tmp/big" | sed 's/ftkit-big-//' | tr '\n' ' ')" \
		"$(seq 1 300 | tr '\n' ' ')" "8 KiB sub-buffers: every marker, in order"
else
	skip "no buffer_subbuf_size_kb to set on this kernel"
fi
# Kernel symbols: the live reader loads kallsyms on the first look-up only;
# the names it prints must be /proc/kallsyms' names for those addresses.
if [ -d "$dir/events/timer/timer_start" ] && echo 1 > "$dir/events/timer/timer_start/enable"; then
	sleep 0.5
	echo 0 > "$dir/events/timer/timer_start/enable"
	ftreport --live -B "$inst" > "$tmp/sym" 2>&1
	fn=$(grep -o 'timer_start: .* function=[^ ]*' "$tmp/sym" | sed 's/.*function=//' | head -1)
	if [ -n "$fn" ]; then
		ok "timer_start's function= is a name, not an address ($fn)" \
			test "${fn#0x}" = "$fn"
		ok "  and /proc/kallsyms has it" grep -q " $fn\$\| $fn	" /proc/kallsyms
	else
		skip "no timer_start record in 0.5 s"
	fi
else
	skip "no timer:timer_start event to enable"
fi
ftreport --live -B "ftkit-no-such-$$" > /dev/null 2> "$tmp/err"; rc=$?
is "$rc" 2 "a missing instance exits 2"
ok "and names it" grep -q "ftkit-no-such-$$" "$tmp/err"
done_testing
