# Helpers for tests that watch a running ftrecord (sourced after t/tap.sh; $T is
# the tracing directory).

# rec_start OUT ERR ARGS...: ftrecord ARGS -o OUT in the background, stderr to
# ERR; sets $rec to its PID and returns once it records (or after ~10 s).
rec_start() {
	local out=$1 err=$2 i
	shift 2
	ftrecord "$@" -o "$out" 2> "$err" &
	rec=$!
	for i in $(seq 1 100); do
		grep -q 'Ctrl-C to end' "$err" && return 0
		sleep 0.1
	done
}

# rec_instance PID: the private instance of ftrecord PID, ftkit-rec-PID_NS_START.
rec_instance() {
	(cd "$T/instances" && ls -d "ftkit-rec-${1}_"* 2>/dev/null)
}

# rec_watchdog PID: the PID of the watchdog child of ftrecord PID (comm
# ftk-watchdog), read from /proc (busybox's pgrep has no -P everywhere).
rec_watchdog() {
	awk -v p="$1" '$2 == "(ftk-watchdog)" && $4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}

# rec_ended PID: whether process PID has ended (gone, or a zombie not yet reaped).
rec_ended() {
	[ ! -e "/proc/$1" ] || awk '$3 == "Z" { z = 1 } END { exit !z }' "/proc/$1/stat" 2>/dev/null
}

# rec_cleanup: kill -9 the recorder $rec if it still runs, remove its instance.
rec_cleanup() {
	local i
	[ -n "$rec" ] || return 0
	kill -9 "$rec" 2>/dev/null
	wait "$rec" 2>/dev/null
	for i in "$T"/instances/ftkit-rec-"$rec"_*; do
		[ -d "$i" ] && rm_instance "$i"
	done
}

# rec_victim FILE: write FILE, a command for ftrecord that checks how it is
# ended. `FILE OUT [BOOM]` writes its PID to OUT.pid (with BOOM, then writes
# BOOM into the instance's trace_marker) and waits; on SIGTERM or SIGINT it
# writes to OUT.seen whether the instance was still there ("present" or
# "gone") and exits 0.
rec_victim() {
	cat > "$1" <<'EOS'
#!/bin/bash
echo $$ > "$1.pid"
seen() {
	if [ -d "$TRACEFS/instances/$FTK_INSTANCE" ]; then echo present; else echo gone; fi > "$1.seen"
	exit 0
}
trap 'seen "$1"' TERM INT
[ "${2:-}" = BOOM ] && echo "BOOM" > "$TRACEFS/instances/$FTK_INSTANCE/trace_marker"
while :; do sleep 0.05; done
EOS
	chmod +x "$1"
}
