#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprobe: persistent add/list/delete, removal of stale runs' probes, SIGINT and
# SIGTERM in the middle of -t, bad input, and non-root users: no partial state.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need uprobes
GROUP=ftkit_test_$$
. "$top_srcdir/t/lib/probe-lib.sh"

before=$(probe_state)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; ftprobe -q -D -g $GROUP 2>/dev/null' EXIT

# 1: add keeps the probe after exit; list shows it; -D -g removes the group
out=$(ftprobe -q -g $GROUP -a "$TARGET:ftk_target" "r:$GROUP/g $TARGET:ftk_target" 2>&1)
ok "add exits 0" test $? = 0
ok "added probe is an event" test -d "$T/events/$GROUP/ftk_target"
ok "named return probe is an event" test -d "$T/events/$GROUP/g"
ok "ftprobe -l lists it as a uprobe" bash -c "ftprobe -l -g $GROUP | grep -q '^$GROUP:ftk_target  *uprobe '"
ftprobe -q -D -g $GROUP
is "$(ls "$T/events/$GROUP" 2>/dev/null)" "" "-D -g removes the group's probes"

# 2: all or nothing: one good and one bad spec add nothing
ftprobe -q -g $GROUP -a "$TARGET:ftk_target" "$TARGET:ftk_target x=\$nonsense" 2>"$tmp/err"
is "$?" 2 "a spec the kernel refuses: exit 2"
ok "the kernel's error_log text is shown" grep -q "uprobe_events.*Invalid" "$tmp/err"
ok "the good probe was taken back" test ! -d "$T/events/$GROUP"

# 3: -d refuses probes of groups that are not ftkit's without --all
off=$(probe_offset "$TARGET" ftk_target)
echo "p:other_$$/x $TARGET:$off" >>"$T/uprobe_events"
ok "a probe of another group, made by hand" test -d "$T/events/other_$$/x"
ftprobe -d other_$$:x 2>"$tmp/err"
ok "-d on another group's probe fails" test $? != 0
ok "... and says why" grep -q "not ftkit's" "$tmp/err"
ok "... and leaves it" test -d "$T/events/other_$$/x"
ftprobe -q --all -d other_$$:x
ok "--all -d removes it" test ! -d "$T/events/other_$$/x"

# 4: probes and instances of a dead run are removed, a live run's are kept
ns=$(stat -Lc %i /proc/self/ns/pid)
sh -c 'exit 0' & dead=$!; wait $dead
echo "p:ftkit_${dead}_$ns/x $TARGET:$off" >>"$T/uprobe_events"
mkdir "$T/instances/ftkit-probe-${dead}_$ns"
echo "p:ftkit_$$_$ns/x $TARGET:$off" >>"$T/uprobe_events"
ok "a dead run's probe and instance and a live run's probe, made by hand" \
	test -d "$T/events/ftkit_${dead}_$ns/x" -a -d "$T/instances/ftkit-probe-${dead}_$ns" \
	-a -d "$T/events/ftkit_$$_$ns/x"
ftprobe -q --gc
ok "--gc removes a dead run's probe" test ! -d "$T/events/ftkit_${dead}_$ns"
ok "--gc removes a dead run's instance" test ! -d "$T/instances/ftkit-probe-${dead}_$ns"
ok "--gc keeps a live run's probe" test -d "$T/events/ftkit_$$_$ns/x"
echo "-:ftkit_$$_$ns/x" >>"$T/uprobe_events"

# 5: SIGINT and SIGTERM in the middle of -t (waiting, and running a command)
for sig in INT TERM; do
	for mode in wait command; do
		if [ $mode = wait ]; then
			ftprobe -t "$TARGET:ftk_target" >/dev/null 2>&1 &
		else
			ftprobe -t "$TARGET:ftk_target" -- "$TARGET" wait >/dev/null 2>&1 &
		fi
		pid=$!
		for i in $(seq 100); do
			ls "$T/instances" | grep -q "^ftkit-probe-${pid}_" &&
				[ -n "$(cat "$T/instances/ftkit-probe-${pid}_"*/set_event 2>/dev/null)" ] && break
			sleep 0.1
		done
		ok "SIG$sig ($mode): the run was tracing" test "$i" -lt 100
		[ $mode = command ] && sleep 0.3
		kill -$sig $pid
		wait $pid
		rc=$?
		ok "SIG$sig ($mode): ftprobe ends (rc $rc)" test $rc -lt 128
		is "$(probe_state)" "$before" "SIG$sig ($mode): tracefs as before"
	done
done

# 6: bad input: a clear message, non-zero exit, nothing left
bad() {	# EXIT-CODE MESSAGE-REGEX ARGS...
	local want=$1 re=$2; shift 2
	ftprobe "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$? args="$*"
	args=${args//$'\n'/\\n}
	ok "ftprobe $args -> exit $want" test $rc = "$want"
	ok "  says: $re" grep -Eq "$re" "$tmp/err"
	is "$(probe_state)" "$before" "  tracefs as before"
}
bad 2 "cannot find binary '/nonexistent/bin'" -a "/nonexistent/bin:main"
bad 2 "no function 'no_such_function'" -a "$TARGET:no_such_function"
bad 2 "not an ELF file" -a "$top_srcdir/t/tap.sh:main"
bad 1 "bad (event|group) name" -a "p:x;touch\$IFS$tmp/pwned $TARGET:ftk_target"
bad 1 "bad group name" -g 'a`id`' -a "$TARGET:ftk_target"
bad 1 "bad symbol name" -a "$TARGET:foo;id"
bad 1 "bad argument name" -a "$TARGET:ftk_target \$(id)=\$arg1"
bad 1 "one line" -a "$TARGET:ftk_target
-:ftkit/ftk_target"
bad 1 "bad kernel symbol" -a "r:"
bad 1 "eprobes attach to" -a "e nonsense"
bad 2 "no file named 'libnosuch'" -p $$ -a "libnosuch:foo"
bad 1 "usage:" --bogus-option
ok "metacharacters were never run" test ! -e "$tmp/pwned"

# 7: a user who is not root gets a clear error and exit 2
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$top_builddir/tools/ftprobe" -a "$TARGET:ftk_target" >/dev/null 2>"$tmp/err"
	is "$?" 2 "non-root: exit 2"
	ok "non-root: says root is needed" grep -Eq "root|ermission" "$tmp/err"
	is "$(probe_state)" "$before" "non-root: tracefs as before"
else
	skip "no setpriv that can drop to uid 65534"
fi

done_testing
