# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP for shell tests. Source it, then:
#   lane live          skip the file unless FTK_LANES picks the lane
#   need_root          skip the file unless root
#   need CAP...        skip the file unless ftinfo calls each capability usable
#   plan N | ok COND-CMD... | is GOT WANT NAME | skip REASON | done_testing
# Every check runs even after one fails; a failure prints the script line.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
case ":$PATH:" in *":$top_builddir/tools:"*) ;; *) PATH="$top_builddir/tools:$PATH" ;; esac
export top_srcdir top_builddir PATH

tap_run=0
tap_failed=0
tap_planned=

plan() { tap_planned=$1; echo "1..$1"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
bail_out() { echo "Bail out! $*"; exit 255; }

_tap_result() {	# 0|1 name
	tap_run=$((tap_run + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_run - $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_run - $2"
		echo "#   failed at ${BASH_SOURCE[2]:-$0}:${BASH_LINENO[1]:-?}"
	fi
}

# ok NAME CMD...: passes when CMD succeeds.
ok() {
	local name=$1; shift
	"$@"
	_tap_result $? "$name"
}

# is GOT WANT NAME
is() {
	if [ "$1" = "$2" ]; then
		_tap_result 0 "$3"
	else
		_tap_result 1 "$3"
		diag "   got: '$1'" "  want: '$2'"
		return 1
	fi
}

# same_file NAME WANT GOT [ERR]: GOT is WANT byte for byte, and WANT is not
# empty; else the first lines of the difference, and ERR (the stderr kept).
same_file() {
	if cmp -s "$2" "$3" && [ -s "$2" ]; then
		_tap_result 0 "$1"
	else
		_tap_result 1 "$1"
		diff "$2" "$3" | head -5 | sed 's/^/# /'
		[ -z "$4" ] || sed 's/^/# /' "$4"
		return 1
	fi
}

skip() { tap_run=$((tap_run + 1)); echo "ok $tap_run # SKIP $*"; }

done_testing() {
	if [ -z "$tap_planned" ]; then
		echo "1..$tap_run"
	elif [ "$tap_planned" != "$tap_run" ]; then
		echo "# planned $tap_planned tests but ran $tap_run"
		tap_failed=$((tap_failed + 1))
	fi
	[ "$tap_failed" = 0 ]
	exit $?
}

lane() {
	[ -z "${FTK_LANES:-}" ] && return 0
	case " ${FTK_LANES//,/ } " in *" $1 "*) return 0 ;; esac
	skip_all "lane '$1' not in FTK_LANES='$FTK_LANES'"
}

need_root() {
	[ "$(id -u)" = 0 ] || skip_all "not root"
}

# need CAP...: ask ftinfo; skip the whole file with its reason when one is missing.
need() {
	local why
	why=$(ftinfo --need "$@" 2>&1) || skip_all "$why"
}

# has CAP: true when usable; the reason goes to $why otherwise.
has() {
	why=$(ftinfo --need "$1" 2>&1)
}

# The tracing directory (mounted by ftinfo if needed).
tracefs_dir() {
	local d
	for d in ${FTK_TRACEFS:-} /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/trace" ] && { echo "$d"; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && echo /sys/kernel/tracing
}

# rm_instance DIR: remove an instance, waiting while another process has
# one of its files open (rmdir says EBUSY then).
rm_instance() {
	local i
	for i in $(seq 50); do
		rmdir "$1" 2>/dev/null && return 0
		[ -d "$1" ] || return 0
		sleep 0.1
	done
	echo "# cannot remove instance $1" >&2
	return 1
}
