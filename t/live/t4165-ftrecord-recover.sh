#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing lost to a crash (issue 16, item 3): a ftrecord killed with SIGKILL
# leaves its spools in FILE.spool/; the next run in that directory says a
# recording can be recovered; `ftrecord --recover FILE` makes FILE of them,
# which trace-cmd report and ftreport read, holding every marker of the
# pages that reached the disk: all the markers written before the kill but
# those of the page the kernel was still filling.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need instances raw_buffers trace_marker

T=$(tracefs_dir)
I=ftkit-t4165-$$
tmp=$(mktemp -d)
rec=
cleanup() {
	[ -n "$rec" ] && kill -9 "$rec" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
	rm_instance "$T/instances/$I"
}
trap cleanup EXIT
mkdir "$T/instances/$I"
nocopy=
[ -e "$T/options/copy_trace_marker" ] && nocopy="-O nocopy_trace_marker"

# Wake on every page (--buffer-percent 0): each full page is stored at once.
# -b 8192: room for all 3 MB in the ring, so that a reader slowed by a busy machine
# loses nothing to the kernel (a loss would show as DROPPED, not as a recovery fault).
ftrecord -B "$I" -b 8192 --no-kallsyms $nocopy --buffer-percent 0 -o "$tmp/o.dat" 2> "$tmp/err" &
rec=$!
for i in $(seq 1 100); do
	grep -q 'Ctrl-C to end' "$tmp/err" && break
	sleep 0.1
done
ok "the spools are named files in o.dat.spool/" test -f "$tmp/o.dat.spool/cpu0" -a -f "$tmp/o.dat.spool/template"
# 3000 numbered 1000-byte markers (about 3 MB, 3 to a page), from one CPU.
W=3000
pin=; command -v taskset >/dev/null && pin="taskset -c 0"
$pin bash -c 'for ((n = 0; n < $1; n++)); do printf "ftk4165 %08d %0990d\n" $n 0; done > "$2"' \
	x $W "$T/instances/$I/trace_marker"
# Until the spools stop growing: every full page reached the disk.
prev=-1
for i in $(seq 1 100); do
	size=$(cat "$tmp"/o.dat.spool/cpu* | wc -c)
	[ "$size" = "$prev" ] && break
	prev=$size
	sleep 0.3
done
kill -9 $rec; wait $rec 2>/dev/null; rec=
diag "spools at the kill: $size bytes"
ok "the spools stay after kill -9" test -d "$tmp/o.dat.spool"
ok "no file was written" test ! -e "$tmp/o.dat"

# The next run in that directory says so, and leaves it alone.
ftrecord --no-kallsyms -o "$tmp/other.dat" -D 0.1 2> "$tmp/err2"
sed 's/^/# /' "$tmp/err2"
ok "the next ftrecord says a recording can be recovered" \
	grep -q "o.dat.spool' holds a recording that did not finish: 'ftrecord --recover $tmp/o.dat'" "$tmp/err2"
ftrecord -B "$I" -o "$tmp/o.dat" -D 0.1 2> "$tmp/err3"; rc=$?
is "$rc" 2 "a new recording into o.dat is refused while its spools wait"
ok "... saying why" grep -q 'recover it first' "$tmp/err3"

# What the disk may hold besides pages: zeros written at a spool's end (a
# power cut), and a spool made sparse (truncate -s 1G): neither is copied.
head -c 65536 /dev/zero >> "$tmp/o.dat.spool/cpu0"
last=$(ls "$tmp"/o.dat.spool/cpu* | sort -V | tail -1)
truncate -s 1G "$last"
ftrecord --recover "$tmp/o.dat" 2> "$tmp/err4"; rc=$?
sed 's/^/# /' "$tmp/err4"
is "$rc" 0 "ftrecord --recover exits 0"
ok "the spool directory is gone" test ! -e "$tmp/o.dat.spool"
rsize=$(stat -c %s "$tmp/o.dat")
diag "recovered file: $rsize bytes of spools of $size bytes"
ok "the 1 GB hole and the zero pages are not copied ($rsize bytes)" \
	test "$rsize" -le $((size + (8 << 20)))
ftreport "$tmp/o.dat" > "$tmp/report" 2> "$tmp/rerr"; rc=$?
is "$rc" 0 "ftreport reads the recovered file"
# Without leading zeros, as text (some awks read "00000010" as octal).
got=$(grep -o 'ftk4165 [0-9]*' "$tmp/report" | sed 's/^ftk4165 0*//; s/^$/0/')
n=$(printf '%s\n' "$got" | grep -c .)
diag "recovered $n of $W markers"
# A page holds three markers: only the one the kernel was filling is missing.
ok "it holds the markers of every stored page ($n of $W, at least $((W - 3)))" test "$n" -ge $((W - 3))
ok "from the first, in order, without a gap" test "$got" = "$(seq 0 $((n - 1)))"
if command -v trace-cmd >/dev/null; then
	tc=$(trace-cmd report "$tmp/o.dat" 2>/dev/null | grep -c 'ftk4165 ')
	is "$tc" "$n" "trace-cmd report reads it: the same $n markers"
else
	skip "no trace-cmd"
fi
ftrecord --recover "$tmp/o.dat" 2> "$tmp/err5"; rc=$?
is "$rc" 2 "--recover with nothing to recover exits 2"
ok "... naming what is missing" grep -q "o.dat.spool/template" "$tmp/err5"
done_testing
