#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every error path the suite knows, for every tool: the tool exits with the
# right code (1 usage, 2 runtime, 126/127 for a COMMAND that cannot run or
# is not found) and its message says why, "TOOL: REASON" with a reason,
# never a bare "TOOL: ".
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances

T=$(tracefs_dir)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || bail_out "cannot cd to $tmp"
printf 'echo not run\n' > noexec
chmod 644 noexec
# Other runs may make instances meanwhile: look at the names used here.
ours() { ls "$T/instances" | grep -E "^(x|ftk-err-$$|$NI)\$"; }
inst_before=$(ours)
NI=ftk-no-such-instance-$$

fails() {	# EXIT-CODE TOOL ARGS...
	local want=$1 tool=$2 rc reason args
	shift 2
	"$tool" "$@" </dev/null >out 2>err
	rc=$?
	args="$*"
	args=${args//$'\n'/\\n}
	is "$rc" "$want" "$tool $args -> exit $want"
	reason=$(grep -m1 "^$tool: " err)
	reason=${reason#"$tool: "}
	ok "  says why: ${reason:0:90}" test -n "${reason// /}"
	ok "  no line without a reason" bash -c '! grep -Eq "^$0: *\$" err' "$tool"
}

# ftevent
fails 1 ftevent --no-such-option
fails 1 ftevent -e
fails 1 ftevent -f 'pid == 1'
fails 1 ftevent -p abc -e sched:sched_switch
fails 1 ftevent -P 1x -e sched:sched_switch
fails 1 ftevent -D 0 -e sched:sched_switch
fails 1 ftevent -l --format
fails 1 ftevent -l -e sched:sched_switch
fails 1 ftevent --format
fails 1 ftevent
fails 1 ftevent -F -e sched:sched_switch
fails 1 ftevent -B x -T -e sched:sched_switch
fails 1 ftevent -B 'a;b' -e sched:sched_switch -D 0.1
fails 1 ftevent -B .. -e sched:sched_switch -D 0.1
fails 2 ftevent -l ftk_no_such_event
fails 2 ftevent --format ftk_no:ftk_no
fails 2 ftevent -e ftk_no_such_system:ftk_no_such_event -D 0.1
fails 2 ftevent -e sched:sched_switch -f 'ftk_no_such_field == 1' -D 0.1
fails 2 ftevent -e sched:sched_switch -f $'a\nb' -D 0.1
fails 127 ftevent -e sched:sched_process_exec -- ftk-no-such-command-$$
fails 126 ftevent -e sched:sched_process_exec -- ./noexec

# fttrigger
fails 1 fttrigger --no-such-option
fails 1 fttrigger -t traceoff
fails 1 fttrigger -e sched:sched_switch --vals x
fails 1 fttrigger --all
fails 1 fttrigger -l -e sched:sched_switch -t traceoff
fails 1 fttrigger
fails 1 fttrigger -R -e sched:sched_switch -t traceoff -B x -T
fails 1 fttrigger --func vfs_read -D 0.1
fails 2 fttrigger -B ftk-err-$$ -e sched:sched_switch -r '!traceoff'
fails 2 fttrigger -e sched:sched_switch -t 'traceoff if ftk_no_such_field == 1' -D 0.1
fails 2 fttrigger -e sched:sched_switch -t ftk_no_such_command -D 0.1
fails 2 fttrigger -e sched:ftk_no_such_event -t traceoff -D 0.1
fails 2 fttrigger -e '../../sched:x' -t traceon -D 0.1
fails 127 fttrigger -e sched:sched_process_exec -t stacktrace -- ftk-no-such-command-$$

# ftfunc
fails 1 ftfunc --no-such-option
fails 1 ftfunc -G vfs_read
fails 1 ftfunc -p abc
fails 1 ftfunc -g -d abc
fails 1 ftfunc --show --stop
fails 1 ftfunc --show -D 1
if has function; then
	fails 127 ftfunc -f vfs_read -- ftk-no-such-command-$$
else
	fails 2 ftfunc -D 0.1
	fails 2 ftfunc -f vfs_read -- true
fi

# ftprobe
fails 1 ftprobe --bogus-option
fails 1 ftprobe
fails 1 ftprobe -a -t x
fails 1 ftprobe -d
fails 1 ftprobe -l extra
fails 1 ftprobe -B x -a /bin/sh:main
fails 1 ftprobe --all -g x -D
fails 1 ftprobe -s 0 -t x
fails 1 ftprobe -D 5 -a /bin/sh:main
fails 1 ftprobe -a 'r:'
fails 1 ftprobe -a 'e nonsense'
fails 1 ftprobe -p abc -a libc:malloc
fails 2 ftprobe -a /nonexistent/bin:main
fails 2 ftprobe -a "$top_srcdir/t/tap.sh:main"
bash=$(command -v bash)
if ftprobe -n "$bash:readline" >/dev/null 2>&1 && has uprobes; then
	fails 127 ftprobe -t "$bash:readline" -- ftk-no-such-command-$$
else
	skip "no uprobe on $bash:readline here"
	skip "no uprobe on $bash:readline here"
	skip "no uprobe on $bash:readline here"
fi

# ftrecord
fails 1 ftrecord --no-such-option true
fails 1 ftrecord -f 'pid == 1' true
fails 1 ftrecord --file-version 5 true
fails 1 ftrecord --compression lz77 true
fails 1 ftrecord --file-version 6 --compression zstd true
fails 1 ftrecord -F
fails 1 ftrecord -l schedule true
fails 1 ftrecord -P 0 true
fails 1 ftrecord -D x true
fails 1 ftrecord -e ftk_no_such_system:ftk_no_such_event true
fails 1 ftrecord -O ftk_no_such_option true
fails 1 ftrecord --date --ts-offset 10 true
fails 1 ftrecord --ts-offset 1x true
fails 1 ftrecord --proc-map -e sched
fails 1 ftrecord -B ftk-a -e sched -B ftk-a -e irq true
fails 1 ftrecord -e sched -B ftk-a -e irq -m 64 true
fails 1 ftrecord --flight --repeat 2 -o - true
fails 2 ftrecord -o /nonexistent/dir/out.dat true
fails 127 ftrecord -q -o out.dat ftk-no-such-command-$$
fails 126 ftrecord -q -o out.dat ./noexec

# ftreport
fails 1 ftreport --bogus-option
fails 1 ftreport -B x
fails 1 ftreport --stat a.dat b.dat --offset c.dat=5
fails 1 ftreport -o yaml x.dat
fails 1 ftreport --cpu abc x.dat
fails 1 ftreport --live x.dat
fails 1 ftreport --live -B ..
fails 2 ftreport /nonexistent.dat
fails 2 ftreport noexec
# A readable file for the two checks below (the VM's image has no t/fixtures).
fx="$top_srcdir/t/fixtures/synth-v7-zstd-inst.dat"
if [ -r "$fx" ]; then
	fails 1 ftreport -F 'sched_switch:(' "$fx"
	fails 2 ftreport "$fx" --output /nonexistent/dir/x
else
	skip "ftreport -F and --output errors: no $fx here"
fi

# ftsnap
fails 1 ftsnap extra
fails 1 ftsnap -f -c 1
fails 1 ftsnap -c abc
fails 2 ftsnap -B $NI

# ftmark
fails 1 ftmark -r abc hello
fails 1 ftmark -B a/b hello
fails 2 ftmark -B $NI hello

# ftinfo
fails 1 ftinfo --need
fails 1 ftinfo extra
fails 1 ftinfo --need ftk_no_such_capability

# ftreset
fails 1 ftreset extra
fails 1 ftreset -B a/b
fails 2 ftreset -B $NI

is "$(ours)" "$inst_before" "no instance left behind, none created"
done_testing
