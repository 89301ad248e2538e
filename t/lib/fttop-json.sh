# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers of fttop's batch tests (t63xx): waiting on a tool's output (t7000
# too), and reading its JSON frames.
#
#   wait_for FILE PATTERN   until a line of FILE matches (at most a minute;
#                           no verdict on time: 1 when it never does)
#   wait_lines FILE N       until FILE has at least N lines
#   json FILE EXPR          EXPR, in python, of the last frame (f) of FILE
#   fttop_live NAME [CAP...]  the preamble of a live fttop test: lane, root,
#                           instances and raw buffers (and each CAP), python3;
#                           T (tracefs), tmp (a fresh directory), pids (killed
#                           at exit), inst (an instance removed at exit, if
#                           set), snap_before

wait_for() {
	local i
	for i in $(seq 1 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

wait_lines() {
	local i
	for i in $(seq 1 600); do
		[ "$(wc -l < "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

json() {
	python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
f = json.loads(lines[-1])
print(eval(sys.argv[2]))' "$1" "$2"
}

fttop_live() {
	lane live
	need_root
	need instances raw_buffers "${@:2}"
	command -v python3 > /dev/null || skip_all "python3 not installed (contrib/install-deps.sh --test)"
	T=$(tracefs_dir)
	tmp=$(mktemp -d "/tmp/ftk-$1-XXXXXX")
	pids=
	inst=
	trap _fttop_cleanup EXIT
	snap_before=$(tracefs_snap "$T")
}

_fttop_cleanup() {
	local p
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -z "$inst" ] || rmdir_instance "$inst" 2>/dev/null
	rm -rf "$tmp"
}
