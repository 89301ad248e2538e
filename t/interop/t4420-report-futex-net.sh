#!/bin/bash
# A fresh recording of syscalls:sys_enter_futex, net, sock and tcp over
# futex calls and loopback TCP (IPv4 and IPv6) and UDP prints the same with
# ftreport as with trace-cmd report, byte for byte: the text (the futex
# plugin's handler, %pI4 and %pI6c of inet_sock_set_state, %pISpc of
# tcp_probe), -N (no plugins) and -R; the same with the compiled printer's
# text alone (FTK_PRINT_NOCHECK); and none of those events is left to
# libtraceevent (ftreport --stat -v). Recorded by trace-cmd record where this kernel lets
# it, else by ftrecord.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/report-same.sh"
lane interop
need_root
need events instances raw_buffers
command -v trace-cmd > /dev/null || skip_all "trace-cmd is not installed"
command -v python3 > /dev/null || skip_all "python3 is not installed (the workload)"
tmp=$(mktemp -d /tmp/ftk-t4420-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
inst="ftkit-t4420-$$"
work="$top_srcdir/t/lib/futex-net-workload.py"
ev=(-e syscalls:sys_enter_futex -e net -e sock -e tcp)
f="$tmp/fn.dat"

if trace-cmd record -q -o "$f" "${ev[@]}" -- python3 "$work" 1 > "$tmp/rec.log" 2>&1 &&
   [ -s "$f" ]; then
	diag "recorded by trace-cmd record"
elif rm -f "$f" && ftrecord -q -F -c -B "$inst" -b 32768 -o "$f" "${ev[@]}" -- \
	python3 "$work" 1 >> "$tmp/rec.log" 2>&1 && [ -s "$f" ]; then
	diag "recorded by ftrecord (trace-cmd record: $(grep -v '^$' "$tmp/rec.log" | head -1))"
else
	skip_all "cannot record here: $(grep -v '^$' "$tmp/rec.log" | tail -1)"
fi

trace-cmd report "$f" > "$tmp/tc" 2>/dev/null
n=$(grep -c 'sys_enter_futex: *op=FUTEX_' "$tmp/tc")
ok "trace-cmd report prints futex calls by the plugin ($n)" test "$n" -gt 100
ok "  and a TCP connection's states over IPv4 (%pI4, %pI6c of a v4-mapped address)" \
	grep -q 'inet_sock_set_state: .*saddr=127\.0\.0\.1 .*saddrv6=::ffff:127\.0\.0\.1 ' "$tmp/tc"
ok "  and over IPv6" grep -q 'inet_sock_set_state: .*family=AF_INET6 .*saddrv6=::1 ' "$tmp/tc"
ok "  and TCP segments' sockaddrs (%pISpc), IPv4 and IPv6" \
	sh -c "grep -q 'tcp_probe: .*src=127\.0\.0\.1:[0-9]' '$tmp/tc' &&
	       grep -q 'tcp_probe: .*src=\[::1\]:[0-9]' '$tmp/tc'"

report_same "futex and net" "$f" "$tmp"
FTK_PRINT_NOCHECK=1 report_same "futex and net, own text alone" "$f" "$tmp"

ftreport --stat -v "$f" > "$tmp/stat" 2>&1
sed -n '/^slow path/,$p' "$tmp/stat" > "$tmp/slow"
for e in syscalls:sys_enter_futex sock:inet_sock_set_state tcp:tcp_probe; do
	ok "$e: counted by --stat" grep -q "^  $e  *[1-9]" "$tmp/stat"
	if grep -q "^  $e " "$tmp/slow"; then
		_tap_result 1 "$e: not left to libtraceevent"
		sed 's/^/# /' "$tmp/slow"
	else
		_tap_result 0 "$e: not left to libtraceevent"
	fi
done
done_testing
