#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprobe: a kprobe on do_sys_openat2 shows the file a command opens; a kretprobe
# its return value. Needs kprobes (the VM lane on a locked-down host).
. "$top_srcdir/t/tap.sh"
lane live
need_root
need kprobes
. "$top_srcdir/t/lib/probe-lib.sh"

before=$(probe_state)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/ftkit-kprobe-$$
echo hi >"$f"

# The opener is named by $comm (the task at the hit), not by the trace's
# "cat-PID" column: the kernel fills that from saved_cmdlines, which skips a
# task when its lock is contended and prints "<...>" (seen once in the VM).
ftprobe -t 'do_sys_openat2 file=+0($arg2):ustring who=$comm' 'do_sys_openat2%return ret=$retval:s32' \
	-- cat "$f" >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftprobe -t exits 0"
ok "the kprobe shows the file cat opened" grep -q "do_sys_openat2: .*file=\"$f\"" "$tmp/out"
n=$(grep -c "file=\"$f\" who=\"cat\"" "$tmp/out")
is "$n" 1 "cat opened it once" || diag "$(grep -F "$f" "$tmp/out")"
ok "the kretprobe shows a return value" grep -Eq "do_sys_openat2__return: .*ret=[0-9]+" "$tmp/out"
is "$(probe_state)" "$before" "tracefs as before"

ftprobe -a 'p:ftkit/no_such_fn_ftkit no_such_function_ftkit' 2>"$tmp/err"
ok "a missing kernel symbol: non-zero exit" test $? != 0
ok "... with the kernel's words" grep -q "kprobe_events" "$tmp/err"
is "$(probe_state)" "$before" "... and nothing left"

done_testing
