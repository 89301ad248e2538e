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
. "$top_srcdir/t/lib/probe-lib.sh"

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
ok "-v says where the paths come from" grep -q '^ftopensnoop: stream: .*libc uprobes' "$tmp/err"

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

ftopensnoop -n nomatch -- "$LAT_WORK" open "$file" 3 >"$tmp/n" 2>"$tmp/err"
is "$(wc -l <"$tmp/n")" 1 "-n: a name that matches nothing shows only the header"

snap_is "$(tracefs_snap "$root")" "$before" "tracefs as before"
is "$(probe_state)" "$probes_before" "no probe left behind"
is "$(instances_snap 'ftkit-opensnoop-')" "" "no instance left behind"
done_testing
