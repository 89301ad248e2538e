# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the ftprobe live tests: what ftprobe may leave in tracefs.

T=$(tracefs_dir)
TARGET=$top_builddir/t/helpers/uprobe-target
TARGET_NOPIE=$top_builddir/t/helpers/uprobe-target-nopie

# Everything an ftprobe run could leave behind: instances and probe groups of ftprobe
# runs that are over (runs of tests in parallel are still alive), probes of the group
# the test uses, and the top-level switches it could touch.
probe_state() {
	local x pid
	for x in $(ls "$T/instances" | grep -E '^ftkit-probe-[0-9]+_') \
		 $(cat "$T/dynamic_events" "$T/uprobe_events" "$T/kprobe_events" 2>/dev/null |
		   grep -oE ':ftkit_[0-9]+(_[0-9]+)+/[^ ]*' | sort -u); do
		pid=${x#*ftkit[-_]}; pid=${pid#probe-}; pid=${pid%%_*}
		kill -0 "$pid" 2>/dev/null && continue
		# Still there now that its process is gone? (It may have ended meanwhile.)
		case $x in
		:*) x=${x#:}; [ -d "$T/events/$x" ] && echo "left by $pid: $x" ;;
		*) [ -d "$T/instances/$x" ] && echo "left by $pid: $x" ;;
		esac
	done | sort
	cat "$T/dynamic_events" "$T/uprobe_events" "$T/kprobe_events" 2>/dev/null |
		grep -E ':(ftkit|'"${GROUP:-ftkit_none}"')/' | sort
	cat "$T/tracing_on" "$T/current_tracer" "$T/set_event" 2>/dev/null
}

# The file offset of SYMBOL in an ELF file, the way a user checks it by hand:
# st_value from readelf -s, minus p_vaddr plus p_offset of its PT_LOAD segment.
# Without readelf (callers check `command -v readelf`) it fails.
elf_offset() {	# FILE SYMBOL
	local v
	v=$(readelf -sW "$1" | awk -v s="$2" '$8 == s || index($8, s "@@") == 1 { print $2; exit }')
	[ -n "$v" ] || return 1
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' | {
		local off va fsz
		v=$((16#$v))
		while read -r off va fsz; do
			if ((v >= va && v < va + fsz)); then
				printf '0x%x\n' $((v - va + off))
				return 0
			fi
		done
		return 1
	}
}

# The file offset ftprobe resolves for BINARY:SYMBOL (t5100 checks it against readelf).
probe_offset() {	# BINARY SYMBOL
	ftprobe -n "$1:$2" | sed -n "s/.* [^ ]*:\(0x[0-9a-f]*\).*/\1/p"
}

# The path of libc mapped by PID, once the process has loaded it.
mapped_libc() {	# PID
	local i lib
	for i in $(seq 100); do
		lib=$(awk '$6 ~ /\/libc[.-]/ { print $6; exit }' /proc/$1/maps 2>/dev/null)
		[ -n "$lib" ] && { echo "$lib"; return 0; }
		sleep 0.1
	done
	return 1
}
