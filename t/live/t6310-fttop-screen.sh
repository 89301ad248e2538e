#!/bin/bash
# fttop's screen, driven through tmux: it draws the views, switches them
# with 1-6 (a view's note and reverse order staying its own), shows the
# help (h, ?), sorts with s and F6, filters with /,
# pauses with p, changes the refresh with + and -, scrolls with the arrows,
# PgUp/PgDn and Home/End under TERM=xterm-256color, screen and tmux-256color
# (tmux sends \e[1~ and \e[4~ for Home and End whatever TERM says), adds
# events with e (their formats read on their first record), follows a resize
# of the pane, draws colours unless NO_COLOR, plain frames for TERM=dumb, and
# q, Ctrl-C, SIGTERM, SIGHUP and killing the pane all end it with the
# terminal out of curses mode (no alternate screen, keypad off, cursor on;
# stty sane after q), its instance gone and the top level as before.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
lane live
need_root
need instances raw_buffers
command -v tmux > /dev/null || skip_all "tmux not installed (contrib/install-deps.sh --test)"
T=$(tracefs_dir)
tmp=$(mktemp -d /tmp/ftk-t6110-XXXXXX)
inst="ftkit-t6110-$$"
# a server per session: a new session never meets a server still exiting
nsock=0
sock="ftk-t6110-$$-$nsock"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
sleepers=()
cleanup() {
	local i
	[ ${#sleepers[@]} = 0 ] || kill "${sleepers[@]}" 2>/dev/null
	for i in $(seq 0 $nsock); do tmux -L "ftk-t6110-$$-$i" kill-server 2>/dev/null; done
	rmdir_instance "$inst" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# screen_has PATTERN: until the pane shows a line matching PATTERN (at most a minute).
screen_has() {
	local i
	for i in $(seq 1 300); do
		tm capture-pane -p -t top > "$tmp/screen" 2>/dev/null
		grep -q -- "$1" "$tmp/screen" && return 0
		sleep 0.2
	done
	diag "screen:" "$(cat "$tmp/screen")"
	return 1
}
# press NAME PATTERN KEY...: send the keys; a test that the screen comes to show PATTERN.
press() {
	local name=$1 pat=$2
	shift 2
	tm send-keys -t top "$@"
	ok "$name" screen_has "$pat"
}
# start CMD [LINES]: a fresh session "top" of 120 columns (and 40 lines) running CMD.
start() {
	local i
	tm kill-server 2>/dev/null
	# an fttop the old server's end hung up puts its instance back first
	for i in $(seq 1 100); do [ -d "$T/instances/$inst" ] || break; sleep 0.1; done
	nsock=$((nsock + 1))
	sock="ftk-t6110-$$-$nsock"
	tm new-session -d -x 120 -y "${2:-40}" -s top "$1" \; set-option -t top remain-on-exit on
	screen_has "instance $inst" || return 1
}
# restored: the pane's terminal is out of curses mode.
restored() {
	is "$(tm display -p -t top '#{alternate_on} #{keypad_flag} #{cursor_flag}')" "0 0 1" "$1"
}

snap_before=$(tracefs_snap "$T")
fttop="$(command -v fttop)"
start "env TERM=xterm-256color $fttop -B $inst -d 0.3; echo rc=\$?; stty -a > $tmp/stty; sleep 600" ||
	bail_out "fttop did not start in tmux"
ok "events view: its columns" screen_has 'EVENT  *EV/s  *TOTAL'
ok "events view: sched_switch counted" screen_has '^sched:sched_switch '
press "2: the tasks view" 'PID COMM  *CPU%  *CPU-TIME' 2
press "3: the CPUs view" 'CPU  *EV/s  *EVENTS  *IDLE%' 3
ok "3: a row for cpu 0" screen_has '^ *0  '
press "4: the syscalls view" 'SYSCALL  *CALLS/s  *CALLS  *ERRORS' 4
press "4 again: syscalls by task" '4 syscalls by task' 4
press "6: the profile view" 'SELF%  *TOTAL%  *SAMPLES  *WHERE  *FUNCTION' 6
ok "6: rows of sampled functions" screen_has '^ *[0-9.]\+ \+[0-9.]\+ \+[0-9]\+ \+\(kernel\|user\) '
press "5: the hist view says it has no trigger" 'hist: no trigger' 5
# no_note NAME: the screen just captured has no hist note
no_note() { ok "$1" bash -c "! grep -q 'hist: no trigger' '$tmp/screen'"; }
# the hist view's note is its own: not on the views after it, nor on the help
press "2 after 5: the tasks view" 'PID COMM  *CPU%' 2
no_note "2 after 5: no hist note"
press "5 again: the note again" 'hist: no trigger' 5
press "4 after 5: the syscalls view" 'SYSCALL  *CALLS/s' 4
no_note "4 after 5: no hist note"
press "5 again: the note again" 'hist: no trigger' 5
press "6 after 5: the profile view" 'SELF%  *TOTAL%' 6
no_note "6 after 5: no hist note"
press "5 again: the note again" 'hist: no trigger' 5
press "h after 5: the help" '^fttop keys' h
no_note "h after 5: no hist note on the help"
press "a key leaves the help, back to the hist view" 'hist: no trigger' x
# r reverses the view it is pressed in, not the next
press "1: the events view, in order" 'sort [^ ]*  ' 1
press "r: reversed" 'sort [^ ]* (rev)' r
press "2 after r: the tasks view" 'PID COMM  *CPU%' 2
ok "2 after r: not reversed" grep -q 'sort [^ ]*  ' "$tmp/screen"
press "1 again: still reversed" 'EVENT  *EV/s.*' 1
ok "1 again: still reversed" grep -q 'sort [^ ]* (rev)' "$tmp/screen"
press "r again: in order" 'sort [^ ]*  ' r
press "h: the help" '^fttop keys' h
press "a key leaves the help" 'EVENT  *EV/s' x 1
press "?: the help" '^fttop keys' '?'
press "  and a key leaves it" 'EVENT  *EV/s' x
press "s: sort by the next column" 'sort TOTAL' s
press "F6: sort by the next column (round to the first)" 'sort EVENT\( \|$\)' F6
press "F6 again: the next" 'sort EV/s' F6
press "+: a longer refresh interval" 'refresh 0\.4s' +
press "-: a shorter one" 'refresh 0\.2s' - -
press "/: the filter is shown" 'filter sched_switch' / sched_switch Enter
ok "/: only matching rows" bash -c "sed -n '5,\$p' '$tmp/screen' | grep -v '^\$' | grep -v -q -v sched_switch && exit 1 || exit 0"
ok "/: the matching row stays" grep -q '^sched:sched_switch ' "$tmp/screen"
press "e: events removed by glob, and said so" 'disabled raw_syscalls' / Enter e -raw_syscalls Enter
ok "e: raw_syscalls is off in the instance" \
	bash -c "! grep -q '^raw_syscalls:' '$T/instances/$inst/set_event'"
press "p: paused" '\[paused\]' p
tm send-keys -t top p
tm resize-window -t top -x 70 -y 20
ok "the pane is resized" test "$(tm display -p -t top '#{pane_width}x#{pane_height}')" = 70x20
ok "the screen follows the resize" screen_has 'EVENT  *EV/s'
ok "  no line wider than the pane" bash -c "! awk 'length > 70' '$tmp/screen' | grep -q ."
press "q ends fttop" '^rc=0' q
restored "q: the terminal is out of curses mode"
ok "q: stty is sane again (icanon, echo)" \
	bash -c "grep -qw icanon '$tmp/stty' && grep -qw echo '$tmp/stty'"
ok "q: the instance is gone" test ! -d "$T/instances/$inst"

snap_is "$(tracefs_snap "$T")" "$snap_before" "q: the top level is as before"

# scroll: a pane of 8 rows over the tasks of 30 sleeper loops, paused so
# that the rows stay put; the views line says which rows are shown
for i in $(seq 1 30); do
	(while :; do sleep 0.2; done) > /dev/null 2>&1 &
	sleepers+=($!)
done
for term in xterm-256color screen tmux-256color; do
	infocmp "$term" > /dev/null 2>&1 || { skip "no terminfo entry $term"; continue; }
	start "env TERM=$term $fttop -B $inst -d 0.3 --view tasks; echo rc=\$?; sleep 600" 12 \
		> /dev/null &&
	screen_has 'rows 1-8/\([3-9][0-9]\|[1-9][0-9][0-9]\)' > /dev/null ||
		{ skip "$term: fewer than 30 tasks seen"; tm send-keys -t top q; continue; }
	tm send-keys -t top p
	screen_has '\[paused\]' > /dev/null
	press "$term: Down scrolls a row" 'rows 2-9/' Down
	press "$term: PgDn scrolls a page (7 rows)" 'rows 9-16/' NPage
	press "$term: PgUp scrolls back" 'rows 2-9/' PPage
	press "$term: Up scrolls a row back" 'rows 1-8/' Up
	press "$term: End shows the last rows" 'rows [0-9]*-\([0-9]*\)/\1$' End
	ok "$term:   still in the tasks view" grep -q 'PID COMM  *CPU%' "$tmp/screen"
	press "$term: Home shows the first rows" 'rows 1-8/' Home
	ok "$term:   still in the tasks view" grep -q 'PID COMM  *CPU%' "$tmp/screen"
	press "$term: q ends fttop" '^rc=0' q
	restored "$term: the terminal is out of curses mode"
done
kill "${sleepers[@]}" 2>/dev/null
wait "${sleepers[@]}" 2>/dev/null
sleepers=()

# events added with e after the start: their formats are read on their
# first record, and the syscalls view counts them
start "env TERM=xterm-256color $fttop -B $inst -d 0.3 -e sched:sched_switch; echo rc=\$?; sleep 600" ||
	bail_out "fttop did not start"
ok "-e sched:sched_switch: counted" screen_has '^sched:sched_switch '
press "e raw_syscalls: enabled, and said so" 'enabled raw_syscalls' e raw_syscalls Enter
ok "e raw_syscalls: its events named" screen_has '^raw_syscalls:sys_enter '
tm send-keys -t top 4
ok "e raw_syscalls: the syscalls view counts calls" \
	screen_has '^[a-z_0-9]\+  *[0-9.]\+  *[1-9][0-9]* '
tm send-keys -t top q
screen_has '^rc=0' > /dev/null

for sig in TERM HUP INT; do
	start "env TERM=xterm-256color $fttop -B $inst -d 0.3; echo rc=\$?; sleep 600" ||
		bail_out "fttop did not start"
	if [ $sig = INT ]; then
		# Ctrl-C at the terminal: SIGINT to the foreground process group
		tm send-keys -t top C-c
	else
		# fttop is the pane shell's child
		kill -$sig "$(pgrep -P "$(tm display -p -t top '#{pane_pid}')")"
	fi
	ok "SIG$sig ends fttop with status 0" screen_has '^rc=0'
	restored "SIG$sig: the terminal is out of curses mode"
	ok "SIG$sig: the instance is gone" test ! -d "$T/instances/$inst"
	snap_is "$(tracefs_snap "$T")" "$snap_before" "SIG$sig: the top level is as before"
done

start "exec env TERM=xterm-256color $fttop -B $inst -d 0.3" || bail_out "fttop did not start"
pid=$(tm display -p -t top '#{pane_pid}')
tm kill-pane -t top
for i in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
ok "a killed pane ends fttop" bash -c "! kill -0 $pid 2>/dev/null"
ok "a killed pane: the instance is gone" test ! -d "$T/instances/$inst"
snap_is "$(tracefs_snap "$T")" "$snap_before" "a killed pane: the top level is as before"

# colours: the header is cyan where the terminal has colours, bold without
colours() { tm capture-pane -p -e -t top > "$tmp/esc"; grep -c $'\e\\[[0-9;]*3[0-7][;m]' "$tmp/esc"; }
start "env TERM=xterm-256color $fttop -B $inst -d 0.3; echo rc=\$?; sleep 600" || bail_out "fttop did not start"
screen_has 'EVENT  *EV/s' > /dev/null
ok "colours on a colour terminal" test "$(colours)" -gt 0
tm send-keys -t top q
screen_has '^rc=0' > /dev/null
start "env TERM=xterm-256color NO_COLOR=1 $fttop -B $inst -d 0.3; echo rc=\$?; sleep 600" || bail_out "fttop did not start"
ok "NO_COLOR: the screen is drawn" screen_has 'EVENT  *EV/s'
is "$(colours)" 0 "NO_COLOR: no colours"
ok "NO_COLOR: the header stands out (bold or reverse)" grep -q $'\e\\[[0-9;]*[17]m' "$tmp/esc"
tm send-keys -t top q
screen_has '^rc=0' > /dev/null
tm kill-server
TERM=dumb timeout 60 fttop -B "$inst" -d 0.2 -n 1 > "$tmp/dumb" 2>&1 < /dev/null
ok "TERM=dumb: plain text frames" grep -q '^EVENT  *EV/s' "$tmp/dumb"
ok "  without escape sequences" bash -c "! grep -q $'\e' '$tmp/dumb'"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"
ok "no instance left" test ! -d "$T/instances/$inst"
done_testing
