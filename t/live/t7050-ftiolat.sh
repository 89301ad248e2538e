#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftiolat on N direct-I/O reads of a loop device: exactly N requests of
# that disk, all reads, as the disk's own /sys/block/DEV/stat counts them
# in the same run; per disk and flags, --disk, --json and the text shape.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/lat-lib.sh"

N=200
root=$(tracefs_dir)
[ -d "$root/events/block/block_rq_issue" ] && [ -d "$root/events/block/block_rq_complete" ] ||
	skip_all "this kernel has no block:block_rq_issue/complete events"
command -v losetup >/dev/null || skip_all "no losetup here"
command -v dd >/dev/null || skip_all "no dd here"
tmp=$(mktemp -d)
dev=
cleanup() {
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# the backing file on disk if TMPDIR is a tmpfs that refuses O_DIRECT: the
# loop device's reads are direct either way (dd iflag=direct on /dev/loopN)
dd if=/dev/zero of="$tmp/disk.img" bs=1M count=4 status=none ||
	skip_all "cannot write a 4 MiB image in $tmp"
# No free loop device: load the driver (the VM's busybox has no udev, and its
# /dev may miss the nodes the kernel made: devtmpfs makes them, else mknod
# them from sysfs), then ask again.
loop_nodes() {
	local d n
	[ -e /dev/loop-control ] || [ ! -r /sys/class/misc/loop-control/dev ] ||
		mknod /dev/loop-control c $(tr ':' ' ' < /sys/class/misc/loop-control/dev) 2>/dev/null
	for d in /sys/block/loop*; do
		[ -r "$d/dev" ] || continue
		n=/dev/${d##*/}
		[ -e "$n" ] || mknod "$n" b $(tr ':' ' ' < "$d/dev") 2>/dev/null
	done
}
free_loop() { losetup -f 2>"$tmp/loerr"; }
# two steps, as util-linux and busybox losetup both take them (busybox has no --show)
dev=$(free_loop) && [ -b "$dev" ] || {
	{ modprobe loop || { [ -f /lib/modules/loop.ko ] && insmod /lib/modules/loop.ko; }; } \
		>"$tmp/moderr" 2>&1
	loop_nodes
	dev=$(free_loop) && [ -b "$dev" ] ||
		{ dev=; skip_all "no free loop device: $(head -1 "$tmp/loerr"); loading loop: $(head -1 "$tmp/moderr")"; }
}
losetup "$dev" "$tmp/disk.img" 2>"$tmp/loerr" ||
	{ dev=; skip_all "losetup cannot attach $dev: $(head -1 "$tmp/loerr")"; }
name=${dev##*/}
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
# the disk's own count of completed reads (field 1 of /sys/block/DEV/stat)
reads() { awk '{ print $1 }' "/sys/block/$name/stat"; }
dd if="$dev" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>"$tmp/dderr" ||
	skip_all "dd cannot read $dev with iflag=direct: $(head -1 "$tmp/dderr")"
before=$(tracefs_snap "$root")

# 1: per disk and flags, JSON: the loop disk's rows hold N reads, nothing else
r0=$(reads)
ftiolat -k -F --json -v -- dd if="$dev" of=/dev/null bs=4096 count=$N iflag=direct status=none \
	>"$tmp/json" 2>"$tmp/err"
is "$?" 0 "ftiolat -k -F --json -- dd exits 0"
is "$(( $(reads) - r0 ))" $N "the disk itself counts $N reads in that run (the truth)"
ok "-v names the path" grep -q '^ftiolat: stream: block_rq_issue paired with block_rq_complete' "$tmp/err"
if json_ok; then
	read -r total_r other lost <<<"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["disk"] == sys.argv[2]]
print(sum(r["latency"]["count"] for r in rows if r["flags"].startswith("R")),
      sum(r["latency"]["count"] for r in rows if not r["flags"].startswith("R")), d["lost"])' \
	"$tmp/json" "$name")"
	is "$total_r" $N "ftiolat: $N reads of $name"
	is "$other" 0 "ftiolat: no other operation on $name"
	is "$lost" 0 "no event lost"
else
	skip "no python3 here to read the JSON"
	skip "no python3 here to read the JSON"
	skip "no python3 here to read the JSON"
fi

# 2: --disk, text: bcc's shape, the rows sum to N, every request once
r0=$(reads)
ftiolat --disk "$name" -k -F -- dd if="$dev" of=/dev/null bs=4096 count=$N iflag=direct \
	status=none >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftiolat --disk $name exits 0"
is "$(( $(reads) - r0 ))" $N "the disk counts $N reads again"
ok "a 'disk = $name, flags = R...' histogram" grep -q "^disk = $name, flags = R" "$tmp/out"
ok "bcc's header in usecs" grep -q '^     usecs               : count     distribution$' "$tmp/out"
is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/out")" $N \
	"--disk $name: the rows sum to $N"
is "$(grep -c '^disk = ' "$tmp/out")" 1 "--disk: one disk only"

# 3: -m: the same count in msecs
ftiolat -m --disk "$name" -- dd if="$dev" of=/dev/null bs=4096 count=$N iflag=direct \
	status=none >"$tmp/ms" 2>"$tmp/err"
ok "-m: msecs header" grep -q '^     msecs ' "$tmp/ms"
is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/ms")" $N "-m: $N requests"

# 4: -i with -D: a histogram an interval, and -T stamps
ftiolat -T -i 0.5 -D 1.2 --disk "$name" >"$tmp/int" 2>"$tmp/err"
is "$?" 0 "-i 0.5 -D 1.2 exits 0"
ok "-T: at least two stamped intervals" \
	test "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}' "$tmp/int")" -ge 2

# 5: --heatmap: its cells sum to the same run's histogram, N requests
ftiolat --disk "$name" --heatmap "$tmp/io.svg" -- dd if="$dev" of=/dev/null bs=4096 count=$N \
	iflag=direct status=none >"$tmp/h" 2>"$tmp/err"
is "$?" 0 "ftiolat --heatmap exits 0"
is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/h")" $N "--heatmap run: $N requests"
heatmap_check "$tmp/io.svg" $N ftiolat

# 6: the kernel path (a synthetic event from block_rq_issue to
# block_rq_complete by dev,sector, a hist on it) and --stream: both count
# the N reads of the disk, per disk too, in the same rows as the disk counts
r0=$(reads)
ftiolat -v --disk "$name" -- dd if="$dev" of=/dev/null bs=4096 count=$N iflag=direct \
	status=none >"$tmp/k" 2>"$tmp/kerr"
kr=$(( $(reads) - r0 ))
if grep -q '^ftiolat: kernel: ' "$tmp/kerr"; then
	is "$kr" $N "kernel path run: the disk counts $N reads"
	is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/k")" $N \
		"kernel path: $N requests in the histogram"
	ok "kernel path: -v counts $N paired" grep -q "^ftiolat: $N issued, $N completed" "$tmp/kerr"
	r0=$(reads)
	ftiolat -v --stream --disk "$name" -- dd if="$dev" of=/dev/null bs=4096 count=$N \
		iflag=direct status=none >"$tmp/s" 2>"$tmp/serr"
	ok "--stream: the stream path" grep -q '^ftiolat: stream: ' "$tmp/serr"
	is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/s")" $(( $(reads) - r0 )) \
		"stream path: as many requests as the disk counts ($N)"
	ftiolat -k --disk "$name" -- dd if="$dev" of=/dev/null bs=4096 count=$N iflag=direct \
		status=none >"$tmp/kk" 2>"$tmp/kerr"
	ok "kernel path -k: a 'disk = $name' histogram" grep -q "^disk = $name\$" "$tmp/kk"
	is "$(awk '$2 == "->" { s += $5 } END { print s + 0 }' "$tmp/kk")" $N \
		"kernel path -k: $N requests"
	is "$(synth_left "$root")" 0 "no synthetic event left behind"
else
	kernel_path_skip 8 "$tmp/kerr"
fi

# 7: bad input
ftiolat --disk no-such-disk -D 1 >/dev/null 2>"$tmp/err"
is "$?" 2 "--disk of no disk: exit 2"
ok "... naming it" grep -q "no disk 'no-such-disk'" "$tmp/err"
ftiolat --disk ../sda -D 1 >/dev/null 2>"$tmp/err"
is "$?" 1 "--disk with a path: usage error"
ftiolat -x 2>/dev/null
is "$?" 1 "an unknown option: usage error"

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(instances_snap 'ftkit-iolat')" "" "no instance left behind"
done_testing
