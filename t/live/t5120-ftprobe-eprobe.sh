#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprobe: an eprobe on sched:sched_process_exec shows the file exec'd.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need eprobes
. "$top_srcdir/t/lib/probe-lib.sh"

before=$(probe_state)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ftprobe -t 'e sched.sched_process_exec file=$filename:string' -- /bin/true >"$tmp/out" 2>"$tmp/err"
is "$?" 0 "ftprobe -t exits 0"
ok "the eprobe shows the program exec'd" grep -q 'sched_process_exec: .*file="/bin/true"' "$tmp/out"
is "$(probe_state)" "$before" "tracefs as before"

ftprobe -a 'e nosuchsys.nosuchevent' 2>"$tmp/err"
ok "an eprobe on a missing event: non-zero exit" test $? != 0
is "$(probe_state)" "$before" "... and nothing left"

done_testing
