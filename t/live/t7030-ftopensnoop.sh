#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftopensnoop sees N opens of a named file with their path and result, the
# failed ones with -x and their errno, and every openat perf stat counts.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events
need uprobes
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/lat-lib.sh"
# microseconds of the wall clock, from bash itself (the VM's date has no %N);
# bounds from it are orders of events, never thresholds of speed
now_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }
. "$top_srcdir/t/lib/probe-lib.sh"
. "$top_srcdir/t/lib/fttop-json.sh"	# wait_for

N=40
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$(tracefs_dir)
before=$(tracefs_snap "$root")
probes_before=$(probe_state)
file=$tmp/known-file
echo data >"$file"

ftopensnoop -v -- "$LAT_WORK" open "$file" $N >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftopensnoop -- COMMAND exits 0"
is "$(awk -v f="$file" '$NF == f && $3 >= 0 && $4 == 0' "$tmp/out" | wc -l)" $N \
	"$N successful opens of $file, with the path"
is "$(awk -v f="$file" '$NF == f { print $5 }' "$tmp/out" | sort -u)" "O_RDONLY|O_CLOEXEC" \
	"their flags"
ok "-v says where the paths come from" grep -Eq '^ftopensnoop: stream: .*paths from [1-9][0-9]* (uprobes|eprobes)' "$tmp/err"

# The dynamic loader's opens (issue 24): named from the call, as strace
# names them, never from a descriptor read back from /proc afterwards
# (which named both /dev/null) and never "?" for the failed ones.
lat_env_of ftopensnoop
lat_env strace -f -qq -e trace=openat -o "$tmp/strace" "$LAT_WORK" open "$file" 1 2>/dev/null
libc=$(awk -F'"' '/libc\.so\.6"/ && !/= -1/ { print $2; exit }' "$tmp/strace" 2>/dev/null)
cache=$(awk -F'"' '/"\/etc\/ld\.so\.cache"/ && !/= -1/ { print $2; exit }' "$tmp/strace" 2>/dev/null)
ftopensnoop -- "$LAT_WORK" open "$file" 1 >"$tmp/ld" 2>"$tmp/err"
# the program's pid: the one that opened the file (its name may lag behind its exec)
pid=$(awk -v f="$file" '$NF == f { print $1; exit }' "$tmp/ld")
if [ -n "$libc" ]; then
	is "$(awk -v p="$pid" -v f="$libc" '$1 == p && $NF == f && $3 >= 0' "$tmp/ld" | wc -l)" 1 \
		"the loader's open of $libc, with its path" || diag "$(cat "$tmp/ld" "$tmp/err")"
else
	skip "strace does not show the loader opening libc.so.6 here"
fi
# (a system without /etc/ld.so.cache, as the VM lane's initramfs, has no such open)
if [ -n "$cache" ]; then
	is "$(awk -v p="$pid" '$1 == p && $NF == "/etc/ld.so.cache" && $3 >= 0' "$tmp/ld" | wc -l)" 1 \
		"the loader's open of /etc/ld.so.cache, with its path"
else
	skip "strace does not show the loader opening /etc/ld.so.cache here"
fi
is "$(awk -v p="$pid" 'NR > 1 && $1 == p && ($NF == "?" || $NF == "[unknown]" || $NF == "/dev/null")' \
	"$tmp/ld" | wc -l)" 0 "no open of lat-work without its path, none named /dev/null"

ftopensnoop -x -- "$LAT_WORK" open "$tmp/missing" $N >"$tmp/x" 2>"$tmp/err"
is "$(awk -v f="$tmp/missing" '$NF == f && $3 == -1 && $4 == 2' "$tmp/x" | wc -l)" $N \
	"-x: $N failed opens of the missing file, errno 2 (ENOENT)"
is "$(awk 'NR > 1 && $4 == 0' "$tmp/x" | wc -l)" 0 "-x: no successful open shown"

# every openat of the command, as perf stat counts them (same environment)
ftopensnoop -- "$LAT_WORK" open "$file" $N >"$tmp/all" 2>"$tmp/err"
got=$(awk '$2 == "lat-work"' "$tmp/all" | wc -l)
lat_env_of ftopensnoop
if lat_env perf stat -x, -e syscalls:sys_exit_openat -e syscalls:sys_exit_open -o "$tmp/perf" -- \
	"$LAT_WORK" open "$file" $N 2>/dev/null; then
	is "$got" "$(awk -F, '/sys_exit/ { s += $1 } END { print s }' "$tmp/perf")" \
		"as many opens of lat-work as perf stat counts"
else
	skip "perf stat cannot count syscalls:sys_exit_openat here"
fi

# A file name with a newline, an escape sequence and a byte past ASCII: shown
# with strace's escapes, on its own line, no line forged from it.
hfile=$tmp/$(printf 'a\nroot 1 0 0 sbin-fake\033[2J\377')
echo data >"$hfile"
ftopensnoop -- "$LAT_WORK" open "$hfile" 3 >"$tmp/h" 2>"$tmp/err"
strace -qq -e trace=write -s 300 -o "$tmp/strace" printf %s "$hfile" >/dev/null 2>&1
esc=$(sed -n 's/^write(1, "\(.*\)", [0-9]*) *= [0-9]*$/\1/p' "$tmp/strace")
if [ -n "$esc" ]; then
	is "$(grep -cF -- " $esc" "$tmp/h")" 3 "a hostile file name with strace's escapes ($esc)"
else
	skip "strace did not run here"
fi
is "$(grep -c '^root 1 0 0' "$tmp/h")" 0 "no line forged by a newline in a file name"
ok "no control byte but newline in the text" \
	bash -c "! LC_ALL=C grep -q \$'[\\x01-\\x09\\x0b-\\x1f\\x7f-\\xff]' '$tmp/h'"

# -t counts from the start of tracing (with a command, just before its
# exec), as every latency tool's -t: the loader's first open a moment after
# zero (the first event was the zero), the file opened after a half-second
# sleep half a second on, within what the test's own clock measured.
t0=$(now_us)
ftopensnoop -t -- bash -c 'sleep 0.5; exec "$1" open "$2" 1' sh "$LAT_WORK" "$file" \
	>"$tmp/t" 2>"$tmp/err"
is "$?" 0 "ftopensnoop -t -- COMMAND exits 0" || sed 's/^/# /' "$tmp/err"
took=$(($(now_us) - t0))
first=$(awk 'NR == 2 { print $1 }' "$tmp/t")
late=$(awk -v f="$file" '$NF == f { print $1 }' "$tmp/t")
ok "-t: the first open after zero, within the run ($first s, the run took $took us)" \
	awk -v t="$first" -v w="$took" 'BEGIN { exit !(t >= 0 && t * 1e6 < w) }'
ok "-t: the open after 'sleep 0.5' at least 0.5 s on, within the run ($late s, the run took $took us)" \
	awk -v t="$late" -v w="$took" 'BEGIN { exit !(t >= 0.5 && t * 1e6 < w) }'

# -p PID: from the start too, before the tool says "Tracing...". The process
# waits on a fifo, opened before the tool starts; told to go half a second
# after that line, it opens the file at least 0.5 s on, and no more than
# the test's clock says passed since the tool was started. (The first event
# was the zero: the file's open was about its first, a moment after 0.)
rm -f "$tmp/go"
mkfifo "$tmp/go"
bash -c 'read x <"$0"; exec "$1" open "$2" 1' "$tmp/go" "$LAT_WORK" "$file" & wpid=$!
t0=$(now_us)
ftopensnoop -t -p $wpid >"$tmp/p" 2>"$tmp/perr" & tool=$!
wait_for "$tmp/perr" '^Tracing' || echo "no Tracing... line" >>"$tmp/perr"
sleep 0.5
echo go >"$tmp/go"
wait $wpid
took=$(($(now_us) - t0))
wait $tool
is "$?" 0 "ftopensnoop -t -p PID exits 0 as the process ends" || sed 's/^/# /' "$tmp/perr"
late=$(awk -v f="$file" '$NF == f { print $1 }' "$tmp/p")
ok "-t -p: the open 0.5 s after 'Tracing...' at least 0.5 s on ($late s, $took us since the tool's start)" \
	awk -v t="$late" -v w="$took" 'BEGIN { exit !(t >= 0.5 && t * 1e6 < w) }'

ftopensnoop -n nomatch -- "$LAT_WORK" open "$file" 3 >"$tmp/n" 2>"$tmp/err"
is "$(wc -l <"$tmp/n")" 1 "-n: a name that matches nothing shows only the header"

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(probe_state)" "$probes_before" "no probe left behind"
is "$(instances_snap 'ftkit-opensnoop-')" "" "no instance left behind"
done_testing
