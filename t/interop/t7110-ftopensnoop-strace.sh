# SPDX-License-Identifier: GPL-2.0-or-later
# ftopensnoop against strace's openat lines on the SAME run: ftopensnoop's
# command is strace running a dynamically linked workload, so both see the
# same opens. For the workload's pid, the list of (path, result) is
# strace's, line for line: the dynamic loader's opens (/etc/ld.so.cache,
# libc.so.6), its failed searches, and the workload's own successful and
# failed opens (issue 24: the loader's showed /dev/null, its failures ?).
. "$top_srcdir/t/tap.sh"
lane interop
need_root
need events
need uprobes
command -v strace >/dev/null 2>&1 || skip_all "no strace (contrib/install-deps.sh --test installs it)"
. "$top_srcdir/t/lib/lat-lib.sh"

tmp=$(mktemp -d /tmp/ftkit-t7110.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo data >"$tmp/known"
N=7

# opens CMD...: ftopensnoop -- strace -f -o $tmp/s CMD..., into $tmp/o
opens() {
	ftopensnoop -- strace -f -qq -o "$tmp/s" -e trace=open,openat "$@" >"$tmp/o" 2>"$tmp/err"
}

# strace's lines as "PID RESULT PATH": the fd, or -ERRNO-NAME's number
strace_list() {
	awk '{
		if (!match($0, /"[^"]*"/)) next
		path = substr($0, RSTART + 1, RLENGTH - 2)
		if (match($0, /= -1 [A-Z]+/)) res = -1; else { n = split($0, f, "= "); split(f[n], g, " "); res = g[1] }
		print $1, res, path }' "$1"
}

# ftopensnoop's lines of pid $2 as "PID RESULT PATH"
snoop_list() {
	awk -v p="$2" '$1 == p { print $1, $3, $NF }' "$1"
}

for pass in 1 2; do
	if [ $pass = 1 ]; then
		what="dynamically linked lat-work, $N opens of a file"
		opens "$LAT_WORK" open "$tmp/known" $N
	else
		what="$N failed opens"
		opens "$LAT_WORK" open "$tmp/missing" $N
	fi
	strace_list "$tmp/s" >"$tmp/sl"
	# strace -f prefixes the pid; the workload is the pid that opened the file
	pid=$(awk -v f="$tmp/$([ $pass = 1 ] && echo known || echo missing)" '$3 == f { print $1; exit }' "$tmp/sl")
	ok "$what: strace sees the workload's opens" test -n "$pid"
	awk -v p="$pid" '$1 == p' "$tmp/sl" >"$tmp/want"
	snoop_list "$tmp/o" "$pid" >"$tmp/got"
	ok "$what: the paths and results are strace's, line for line ($(wc -l <"$tmp/want") opens)" \
		diff -u "$tmp/want" "$tmp/got"
	ok "$what: the loader's open of /etc/ld.so.cache is among them" \
		grep -q " /etc/ld.so.cache\$" "$tmp/got"
	ok "$what: and of libc.so.6" grep -Eq " [0-9]+ /.*/libc\\.so\\.6\$" "$tmp/got"
	is "$(grep -c '\[unknown\]\|/dev/null' "$tmp/got")" 0 "$what: no [unknown] path, none named /dev/null"
done
# the failed opens are there with their path: -1 and the file
is "$(grep -c -- "-1 $tmp/missing\$" "$tmp/got")" $N "$N failed opens of the missing file, by path"
done_testing
