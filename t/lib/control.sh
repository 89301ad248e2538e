# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared by the control tools' live tests (ftevent, fttrigger, ftfunc, ftsnap,
# ftreset). Source after t/tap.sh, need_root and lane.

T=$(tracefs_dir) || skip_all "no tracefs"
# dump_tracefs DIR: t/lib/dump-tracefs.sh of DIR (the top level or one instance). At
# the top level, leave out the instances and dynamic events: other users of this
# machine change those while a test runs.
dump_tracefs() {
	if [ "$1" = "$T" ]; then
		"$top_srcdir/t/lib/dump-tracefs.sh" "$1" |
			grep -v -e '^instances' -e '^kprobe_events: ' -e '^uprobe_events: ' \
				-e '^dynamic_events: ' -e '^synthetic_events: '
	else
		"$top_srcdir/t/lib/dump-tracefs.sh" "$1"
	fi
}
# Scratch instances of this test: removed at exit whatever happens.
SCRATCH=
scratch() {	# scratch VAR SUFFIX: VAR=a fresh instance name (not created), removed at exit
	local _s="ftkit-t$$-$2"
	SCRATCH="$SCRATCH $_s"
	eval "$1=\$_s"
}
cleanup_scratch() {
	local n
	for n in $SCRATCH; do
		[ -d "$T/instances/$n" ] && { ftreset -q -B "$n" -i 2>&1 | sed "s/^/# cleanup: /"; }
		[ -d "$T/instances/$n" ] && rmdir "$T/instances/$n" 2>/dev/null
	done
	rm -rf "$TMPD"
}
TMPD=$(mktemp -d)
trap cleanup_scratch EXIT

# no_instance_of TOOL PID: true when no ftkit-TOOL-PID instance is left.
# (The name ends in an owner tag: ftkit-TOOL-PID_NS_START.)
no_instance_of() { ! compgen -G "$T/instances/ftkit-$1-$2_*" >/dev/null; }

# same_dump BEFORE AFTER NAME: the two dumps are equal (diff in the TAP log otherwise).
same_dump() {
	if cmp -s "$1" "$2"; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		diag "$(diff "$1" "$2" | head -20)"
		# (An empty one: /tmp was full, the last time.)
		[ -s "$2" ] || diag "empty dump: T='$T'" "$("$top_srcdir/t/lib/dump-tracefs.sh" "$T" 2>&1 | head -3)" \
			"$(df "$2" 2>&1)"
	fi
}

# wait_for_instance TOOL PID: until the tool's private instance exists (max ~10 s)
# or the tool has exited.
wait_for_instance() {
	local i=0
	while no_instance_of "$1" "$2" && [ $i -lt 100 ] && kill -0 "$2" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	! no_instance_of "$1" "$2"
}

# interrupted TOOL SIGNAL ARGS...: start TOOL in the background, wait until it has
# its private instance, send SIGNAL; sets $rc and $pid.
interrupted() {
	local tool=$1 sig=$2; shift 2
	"$tool" "$@" >"$TMPD/out" 2>"$TMPD/err" &
	pid=$!
	wait_for_instance "$tool" "$pid"
	sleep 0.3
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
}

# can_be_nobody: true when as_nobody really runs a command as UID 65534.
can_be_nobody() { [ "$(as_nobody id -u 2>/dev/null)" = 65534 ]; }

# as_nobody CMD...: run CMD as UID/GID 65534 (nobody; numeric: the VM has no passwd).
as_nobody() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		su -s /bin/sh nobody -c "$(printf '%q ' "$@")"
	fi
}
