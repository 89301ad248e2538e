#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprobe: uprobes and uretprobes on a test program (PIE and not) and on libc fire
# exactly once per call with the right arguments, and leave nothing behind.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need uprobes
. "$top_srcdir/t/lib/probe-lib.sh"

N=7
before=$(probe_state)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1: resolution agrees with readelf, for PIE and non-PIE builds
for bin in "$TARGET" "$TARGET_NOPIE"; do
	if ! command -v readelf >/dev/null; then
		skip "offset of ftk_target in $(basename "$bin"): no readelf to check it against"
		continue
	fi
	want=$(elf_offset "$bin" ftk_target)
	is "$(probe_offset "$bin" ftk_target)" "$want" \
		"offset of ftk_target in $(basename "$bin") is readelf's ($want)"
done

# 2: the uprobe fires exactly N times with the arguments, the uretprobe returns 2a+b
for bin in "$TARGET" "$TARGET_NOPIE"; do
	name=$(basename "$bin")
	ftprobe -t "$bin:ftk_target a=\$arg1:s32 b=\$arg2:s64" \
		"$bin:ftk_target%return r=\$retval:s32" -- "$bin" $N >"$tmp/out" 2>"$tmp/err"
	is "$?" 0 "$name: ftprobe -t exits 0"
	is "$(grep -c ' ftk_target: ' "$tmp/out")" $N "$name: uprobe hit $N times"
	want=$(for ((i = 0; i < N; i++)); do echo "a=$i b=$((100 + i))"; done)
	is "$(grep ' ftk_target: ' "$tmp/out" | sed 's/.*) //')" "$want" "$name: arguments a=i b=100+i"
	want=$(for ((i = 0; i < N; i++)); do echo "r=$((2 * i + 100 + i))"; done)
	is "$(grep ' ftk_target__return: ' "$tmp/out" | sed 's/.*) //')" "$want" \
		"$name: uretprobe \$retval is 2a+b"
	ok "$name: stderr counts the hits" grep -q "^ftprobe: $N hits of ftk_target$" "$tmp/err"
	is "$(probe_state)" "$before" "$name: tracefs as before"
done

# 3: a libc function, found through -p PID in /proc/PID/maps
"$TARGET" wait &
waiter=$!
libc=$(mapped_libc $waiter)
def=$(ftprobe -n -p $waiter 'libc:strverscmp s=$arg1')
kill $waiter; wait $waiter 2>/dev/null
if command -v readelf >/dev/null; then
	is "${def#p:ftkit/strverscmp }" "$libc:$(elf_offset "$libc" strverscmp) s=%di" \
		"-p PID finds libc in /proc/PID/maps and strverscmp in its .dynsym"
else
	ok "-p PID finds libc in /proc/PID/maps (no readelf to check strverscmp's offset)" \
		grep -qE "^p:ftkit/strverscmp LIBC:0x[0-9a-f]+ s=%di\$" <<<"${def//"$libc"/LIBC}"
fi
ftprobe -t "$libc:strverscmp s=+0(\$arg1):ustring" -- "$TARGET" $N >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "libc uprobe: ftprobe -t exits 0"
want=$(for ((i = 0; i < N; i++)); do echo "s=\"ftkit-$i\""; done)
# Picked by the strings only the target passes, not by the comm the trace shows: the
# kernel saves a task's comm at a context switch, so a target that execs and finishes
# between two switches can show up as its parent's comm, or as <...>.
is "$(grep ' strverscmp: ' "$tmp/out" | grep -o 's="ftkit-[0-9]*"')" "$want" \
	"libc uprobe: the target's $N calls with their strings" ||
	diag "ftprobe's output:" "$(head -20 "$tmp/out")" "its stderr:" "$(head -20 "$tmp/err")"
is "$(probe_state)" "$before" "libc uprobe: tracefs as before"

# 4: -t -p PID: only that process's calls are recorded
"$TARGET" wait &
waiter=$!
ftprobe -t -p $waiter "$TARGET:ftk_target a=\$arg1:s32" -s 30 >"$tmp/out" 2>/dev/null &
tracer=$!
for i in $(seq 100); do
	[ -n "$(cat "$T"/instances/ftkit-probe-${tracer}_*/set_event_pid 2>/dev/null)" ] && break
	sleep 0.1
done
"$TARGET" 5		# another process: not counted
kill -USR1 $waiter
sleep 0.5
kill -INT $tracer; wait $tracer
kill $waiter; wait $waiter 2>/dev/null
is "$(grep ' ftk_target: ' "$tmp/out" | sed 's/.*) //' | tr '\n' ' ')" "a=0 a=1 a=2 " \
	"-p PID: the 3 calls of that process, not the 5 of another"
is "$(probe_state)" "$before" "-p PID: tracefs as before"

# 5: -B: an existing instance is used and kept, its enables put back
inst=ftkit-probe-test-$$
mkdir "$T/instances/$inst"
ftprobe -B $inst -t "$TARGET:ftk_target" -- "$TARGET" 2 >"$tmp/out" 2>/dev/null
is "$(grep -c ' ftk_target: ' "$tmp/out")" 2 "-B instance: 2 hits"
ok "-B instance: the instance is kept" test -d "$T/instances/$inst"
is "$(cat "$T/instances/$inst/set_event")" "" "-B instance: nothing left enabled in it"
rmdir "$T/instances/$inst"
is "$(probe_state)" "$before" "-B instance: tracefs as before"

done_testing
