# SPDX-License-Identifier: GPL-2.0-or-later
# ftiolat against perf-tools' iolatency (Debian perf-tools-unstable's
# iolatency-perf) on the SAME I/O: a loop device of our own, so that
# nothing else does I/O on it; iolatency traces it (-d) for a window that
# holds ftiolat's whole run of dd writing N blocks with O_DIRECT (one
# request each). Both count every one of the N: no more, no less.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
IOLAT=$(command -v iolatency-perf || command -v iolatency) ||
	skip_all "no iolatency (apt-get install perf-tools-unstable)"
command -v losetup >/dev/null 2>&1 || skip_all "no losetup"
. "$top_srcdir/t/lib/lat-lib.sh"
json_ok || skip_all "no python3 to read the JSON"

tmp=$(mktemp -d /tmp/ftkit-t7140.XXXXXX)
dev=
iopid=
# iolatency sets the top level's buffer size and tracer and takes snapshots
# there, and leaves them so: put back what it changes
root=$(tracefs_dir)
size=$(cat "$root/buffer_size_kb")
tracer=$(cat "$root/current_tracer")
snap_freed=$(grep -c 'Snapshot is freed' "$root/snapshot" 2>/dev/null)
restore() {
	[ "$(cat "$root/buffer_size_kb")" = "$size" ] || echo "$size" >"$root/buffer_size_kb"
	[ "$(cat "$root/current_tracer")" = "$tracer" ] || echo "$tracer" >"$root/current_tracer"
	[ "$snap_freed" = 1 ] && echo 0 >"$root/snapshot"
}
cleanup() {
	[ -n "$iopid" ] && kill "$iopid" 2>/dev/null && wait "$iopid" 2>/dev/null
	[ -n "$dev" ] && losetup -d "$dev"
	restore
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 32M "$tmp/img"
dev=$(losetup -f --show "$tmp/img" 2>/dev/null) || skip_all "cannot make a loop device here"
name=${dev#/dev/}
majmin=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ' | tr : ,)	# iolatency takes "7,0"
[ -e /var/tmp/.ftrace-lock ] && skip_all "iolatency's ftrace lock is held ($(cat /var/tmp/.ftrace-lock))"

N=600
# iolatency: one summary of a 6 s window; it prints "Tracing" once its events are on
"$IOLAT" -d "$majmin" 6 1 >"$tmp/io" 2>"$tmp/ioerr" &
iopid=$!
for i in $(seq 50); do grep -q '^Tracing' "$tmp/io" && break; sleep 0.1; done
grep -q '^Tracing' "$tmp/io" || bail_out "iolatency did not start: $(cat "$tmp/io" "$tmp/ioerr")"
sleep 1	# its buffer is cleared after that line
ftiolat --json --disk "$name" -- dd if=/dev/zero of="$dev" bs=4k count=$N oflag=direct \
	>"$tmp/ft" 2>"$tmp/err"
is "$?" 0 "ftiolat --disk $name -- dd exits 0" || diag "$(cat "$tmp/err")"
wait "$iopid"
iopid=
io=$(awk '/ -> / { s += $5 } END { print s + 0 }' "$tmp/io")
ft=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["latency"]["count"])' "$tmp/ft")
diag "iolatency: $io I/Os; ftiolat: $ft"
is "$ft" "$io" "ftiolat counts the I/Os iolatency counts on $name"
is "$ft" $N "and both the $N O_DIRECT writes of dd"
ok "ftiolat's sum has every nanosecond" python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))["latency"]
sys.exit(not (l["min"] > 0 and abs(l["sum"] / l["count"] - l["mean"]) < 0.001))' "$tmp/ft"
restore
is "$(cat "$root/buffer_size_kb") $(cat "$root/current_tracer")" "$size $tracer" \
	"the top level's buffer size and tracer as before iolatency"
done_testing
