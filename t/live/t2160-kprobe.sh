#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A kprobe event, by hand: probe do_sys_openat2 with the file name as a fetch arg, enable it
# in an instance of our own, open a file, find its name in the trace, delete the probe.
# A locked-down kernel refuses kprobes: the file skips with ftinfo's reason; the full-kernel
# VM lane (t/vm) runs it.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need kprobes
T=$(tracefs_dir) || skip_all "no tracefs"
kfile=kprobe_events
[ -e "$T/$kfile" ] || kfile=dynamic_events
grp=ftkit_t2110_$$
ev=$grp/open
# do_sys_openat2(int dfd, const char __user *filename, struct open_how *how)
def="p:$ev do_sys_openat2 dfd=\$arg1:s32 filename=+0(\$arg2):ustring"

I=$T/instances/ftkit-t2110-$$
mkdir "$I" || bail_out "cannot create instance $I"
file=${TMPDIR:-/tmp}/ftkit-t2110-$$.txt
cleanup() {
	if [ -d "$I" ]; then
		echo 0 > "$I/events/$ev/enable" 2>/dev/null
		rmdir "$I"
	fi
	grep -q "^p:$ev " "$T/$kfile" 2>/dev/null && echo "-:$ev" >> "$T/$kfile"
	rm -f "$file"
}
trap cleanup EXIT

ok "the kprobe is accepted" sh -c "echo '$def' >> '$T/$kfile'"
ok "$kfile lists it" grep -q "^p:$ev do_sys_openat2" "$T/$kfile"
ok "its event is in the instance" test -d "$I/events/$ev"
ok "its format has the filename field" grep -q 'filename' "$I/events/$ev/format"

echo hello > "$file"
echo 1 > "$I/events/$ev/enable"
cat "$file" > /dev/null
echo 0 > "$I/events/$ev/enable"
ok "the trace shows the opened file's name" grep -qF "filename=\"$file\"" "$I/trace"
ok "with dfd AT_FDCWD (-100)" grep -qF "dfd=-100 filename=\"$file\"" "$I/trace"

rmdir "$I"
ok "the instance is gone" test ! -e "$I"
echo "-:$ev" >> "$T/$kfile"
ok "the kprobe is deleted" sh -c "! grep -q '$grp' '$T/$kfile'"
ok "its events are gone" test ! -e "$T/events/$grp"
done_testing
