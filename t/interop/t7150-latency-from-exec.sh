#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The latency tools count a COMMAND from its exec on, as strace and perf
# stat do: nothing of the tool's own work before the exec (its PATH search,
# its start pipe, its environment) is charged to the command (issue 24,
# item 4). Names come from what the tool saw (issue 24, item 2): a process
# that renames itself, two programs with the same PID one after the other.
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
command -v strace >/dev/null || skip_all "no strace here (apt-get install strace)"
. "$top_srcdir/t/lib/lat-lib.sh"

tmp=$(mktemp -d /tmp/ftkit-t7100.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
lat_env_of ftsyscount

# strace -c -f of CMD...: "syscall calls" lines, sorted
strace_counts() {
	lat_env strace -f -qq -c -o "$tmp/strace" -- "$@" >/dev/null 2>&1
	awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $4 ~ /^[0-9]+$/ { print $NF, $4 }' \
		"$tmp/strace" | sort
}

# 1: ftexecsnoop shows the execs strace -f shows, sh's failed one too, and
# none of the runner's PATH search
cmd=(sh -c '/nonexistent/ftkit-x 2>/dev/null; exit 3')
ftexecsnoop -- "${cmd[@]}" >"$tmp/es" 2>"$tmp/err"
is "$?" 3 "ftexecsnoop -- sh -c 'exit 3' exits 3"
strace -f -qq -e trace=execve -o "$tmp/st" -- "${cmd[@]}"
want=$(grep -c 'execve(' "$tmp/st")
is "$(($(wc -l <"$tmp/es") - 1))" "$want" "ftexecsnoop: as many execs as strace -f ($want)"
is "$(awk 'NR > 1 && $4 != 0' "$tmp/es" | wc -l)" "$(grep 'execve(' "$tmp/st" | grep -c '= -1')" \
	"ftexecsnoop: as many failed execs as strace -f"
ppid=$(awk 'NR == 2 { print $3 }' "$tmp/es")
ok "ftexecsnoop: the command's parent is a process, not 0 ($ppid)" test "${ppid:-0}" -gt 0

# 2: ftsyscount, both paths, against strace -c -f on the same workload
want=$(strace_counts "$LAT_WORK" getppid 1000)
ftsyscount -- "$LAT_WORK" getppid 1000 >"$tmp/sc" 2>"$tmp/err"
got=$(awk 'NR > 1 { print $1, $2 }' "$tmp/sc" | sort)
is "$got" "$want" "ftsyscount (counters): every syscall counted as strace -c -f counts it"
ftsyscount --stream -- "$LAT_WORK" getppid 1000 >"$tmp/sc" 2>"$tmp/err"
got=$(awk 'NR > 1 { print $1, $2 }' "$tmp/sc" | sort)
is "$got" "$want" "ftsyscount --stream: every syscall counted as strace -c -f counts it"
is "$(awk '$1 == "read" { print $2 }' "$tmp/sc")" "$(awk '$1 == "read" { print $2 }' <<<"$want")" \
	"ftsyscount --stream: read as strace counts it (not the runner's start pipe)"

# 3: ftfunccount against perf stat on a perf probe -x uprobe
libc=$(ldd "$LAT_WORK" | awk '$1 == "libc.so.6" { print $3 }')
if command -v perf >/dev/null && [ -n "$libc" ] && ftinfo --need uprobes >/dev/null 2>&1 &&
	perf probe -q -x "$libc" -a ftkit_t7100=malloc >/dev/null 2>&1; then
	lat_env perf stat -x, -e probe_libc:ftkit_t7100 -o "$tmp/perf" -- \
		"$LAT_WORK" getppid 10 >/dev/null 2>&1
	want=$(awk -F, '/ftkit_t7100/ { print $1 }' "$tmp/perf")
	perf probe -q -d probe_libc:ftkit_t7100 >/dev/null 2>&1
	ftfunccount "$libc:malloc" -- "$LAT_WORK" getppid 10 >"$tmp/fc" 2>"$tmp/err"
	got=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' "$tmp/fc")
	is "$got" "${want:-?}" "ftfunccount libc malloc: as perf stat counts it on a perf probe"
else
	skip "no perf probe -x uprobe on libc here"
fi

# 4: names. A process that renames itself (after 100 calls and a pause)
# is named by its new name, on both paths.
total=$(strace_counts "$LAT_WORK" rename zzrenamed 100 | awk '{ s += $2 } END { print s }')
for path in --stream ""; do
	ftsyscount $path -P -- "$LAT_WORK" rename zzrenamed 100 >"$tmp/P" 2>"$tmp/err"
	is "$(awk 'NR > 1 { print $2, $3 }' "$tmp/P")" "zzrenamed $total" \
		"ftsyscount ${path:-(kernel)} -P: the process by the name it gave itself, its $total calls"
done
# The issue's case: a program gone by the end, its name from its exec
cp "$LAT_WORK" "$tmp/zzlister"
(cd "$tmp" && ftsyscount -P -- sh -c './zzlister getppid 10 >/dev/null') >"$tmp/P" 2>"$tmp/err"
names=$(awk 'NR > 1 { print $2 }' "$tmp/P" | sort -u | tr '\n' ' ')
ok "ftsyscount -P -- sh -c './zzlister': zzlister named ($names)" grep -qw zzlister <<<"$names"
is "$(tr ' ' '\n' <<<"$names" | grep -v -x -e sh -e zzlister -e '')" "" \
	"ftsyscount -P -- sh -c './zzlister': no name but sh and zzlister"
# Two programs with the same PID, one after the other: each exec by its own name
cp "$LAT_WORK" "$tmp/zzfirst"
cp "$LAT_WORK" "$tmp/zzsecond"
ftexecsnoop -- "$LAT_WORK" reuse "$tmp/zzfirst" "$tmp/zzsecond" >"$tmp/re" 2>"$tmp/err"
code=$?
if [ $code = 77 ]; then
	skip "no child got the first one's PID again (ns_last_pid) in 200 tries"
else
	parent=$(awk '$5 ~ /lat-work$/ && $6 == "reuse" { print $2 }' "$tmp/re")
	is "$(awk '$5 ~ /zz(first|second)$/ { print $1, $3 }' "$tmp/re" | tr '\n' ' ')" \
		"zzfirst $parent zzsecond $parent " \
		"a reused PID: each program by its own name, with its parent" ||
		diag "$(head -4 "$tmp/re")"
	is "$(awk '$5 ~ /zz(first|second)$/ { print $2 }' "$tmp/re" | sort -u | wc -l)" 1 \
		"and it was the same PID"
fi
done_testing
