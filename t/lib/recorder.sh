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
