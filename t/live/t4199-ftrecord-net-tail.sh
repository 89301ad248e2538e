#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftrecord --listen and a damaged tail (what an ftkit sender sends after
# the metadata: CMDLINES and PROCMAPS options). A real ftrecord -N
# --file-version 7 --proc-map records $marks marks "mark-1".. and, from a
# task started after the recording began (late-tail), one "late" mark; it
# sends through net-client.py's tee, which passes everything on to the
# collector and keeps what was sent (TINIT, the metadata, each CPU's data,
# the tail). net-client.py then replays that to the same collector, the
# tail intact or damaged: its last option one byte past the tail's end,
# its first option's size 0xffffffff, CMDLINES whose text is longer than
# the option, a PROCMAPS without its final NUL, a tail of 1 to 5 bytes.
# The truth is the real connection's file: ftreport reads the intact
# replay as it; every damaged replay still gives a file that ftreport
# reads with every mark and as many events, the late task without the
# name only the tail carried and no process map, and the collector says
# that it left the tail out; its line counts the same KiB of events, the
# whole pages sent, tail or not. The collector stays up and serves a
# well-behaved sender after them, and writes only trace.*.dat in its -d.
. "$top_srcdir/t/tap.sh"
lane live
need_root
need events instances raw_buffers trace_marker
command -v python3 > /dev/null || skip_all "python3 is not installed"
# (the VM lane's python3 is the host's, with only some of its modules)
python3 -c 'import socket, struct, select, threading' 2> /dev/null ||
	skip_all "python3 has no socket, struct, select or threading module here"
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
client="$top_srcdir/t/helpers/net-client.py"
T=$(tracefs_dir)
root=$(mktemp -d /tmp/ftk-t4199-XXXXXX)
pid=
tpid=
trap '[ -n "$tpid" ] && kill "$tpid" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null
      rm -rf "$root"' EXIT
marks=200
mkdir "$root/dir" "$root/kept" "$root/out"

ftrecord --listen 127.0.0.1:0 -d "$root/dir" 2> "$root/log" &
pid=$!
for _ in $(seq 50); do grep -q 'listening on port' "$root/log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$root/log")
[ -n "$port" ] || bail_out "the collector did not start: $(cat "$root/log")"

# the collector's line for the next connection, once its file is complete
wait_line() {	# AFTER (lines of the log before)
	for _ in $(seq 100); do
		[ "$(wc -l < "$root/log")" -gt "$1" ] && { sed -n "$(($1 + 1))p" "$root/log"; return; }
		sleep 0.1
	done
}
# the one file in -d, moved to out/NAME.dat (the next one may reuse its name)
take() {	# NAME
	local f
	f=$(ls "$root"/dir/trace.*.dat 2>/dev/null)
	[ "$(printf '%s\n' "$f" | grep -c .)" = 1 ] || return 1
	mv "$f" "$root/out/$1.dat"
}
lacks() {	# FILE PATTERN: no line of FILE matches
	! grep -q -- "$2" "$1"
}
only_dat() {
	[ -z "$(ls -A "$root/dir" | grep -v '^trace\.[A-Za-z0-9._:-]*\.dat$')" ]
}

# 1. The real sender, through the tee.
python3 "$client" "$port" tee "$root/kept" "$root/teeport" 2> "$root/tee.err" &
tpid=$!
for _ in $(seq 50); do [ -s "$root/teeport" ] && break; sleep 0.1; done
tport=$(cat "$root/teeport" 2>/dev/null)
[ -n "$tport" ] || bail_out "the tee did not start: $(cat "$root/tee.err")"
printf '#!/bin/sh\necho late > %s/instances/"$FTK_INSTANCE"/trace_marker\n' "$T" \
	> "$root/late-tail"
chmod +x "$root/late-tail"
n=$(wc -l < "$root/log")
ftrecord -q -N "127.0.0.1:$tport" --file-version 7 --proc-map -e sched:sched_process_exit -- \
	sh -c "seq 1 $marks | sed 's/^/mark-/' | ftmark; sleep 0.2; '$root/late-tail'" \
	> "$root/send.log" 2>&1
is "$?" 0 "ftrecord -N --file-version 7 --proc-map through the tee"
wait "$tpid"
is "$?" 0 "the tee passed the connection on and kept it"
tpid=
line=$(wait_line "$n")
ok "the real connection's file is written, version 7" \
	grep -q "wrote '.*' (version 7" <<< "$line"
ok "only trace.*.dat in -d" only_dat
take real || bail_out "no file from the real connection: $line"
ok "the tee kept a tail" test -s "$root/kept/tail"
# the CPU data the sender sent, in whole pages of the page size in its TINIT
kib=$(python3 -c 'import os, struct, sys
d = sys.argv[1]
page = struct.unpack(">I", open(d + "/tinit", "rb").read()[16:20])[0]
print(sum(os.path.getsize(d + "/" + f) // page * page
          for f in os.listdir(d) if f.startswith("cpu")) // 1024)' "$root/kept")
ok "the collector counts the CPU data sent ($kib KiB of events)" \
	grep -q "(version 7, $kib KiB of events," <<< "$line"

# What the real file holds, read by ftreport: the truth for the replays.
ftreport "$root/out/real.dat" > "$root/out/real.txt" 2> "$root/out/real.err"
is "$?" 0 "ftreport reads the real connection's file"
seq 1 $marks | sed 's/^/mark-/' > "$root/out/want-marks"
sed -n 's/.*tracing_mark_write: \(mark-[0-9]*\)$/\1/p' "$root/out/real.txt" \
	> "$root/out/real-marks"
same_file "the real file holds mark-1 to mark-$marks" "$root/out/want-marks" \
	"$root/out/real-marks"
ok "the real file names the late task (from the tail's CMDLINES)" \
	grep -q "^ *late-tail-[0-9]* .*tracing_mark_write: late\$" "$root/out/real.txt"
ftreport --stat "$root/out/real.dat" > "$root/out/real.stat" 2>&1
ok "the real file has the process map (the tail's PROCMAPS)" \
	grep -q "^procmaps: " "$root/out/real.stat"
events=$(grep -c . "$root/out/real.txt")

# 2. Replays: intact, damaged, and a well-behaved one again at the end.
for c in intact overrun hugesize cmdlen procnul short1 short2 short3 short4 short5 intact; do
	n=$(wc -l < "$root/log")
	python3 "$client" "$port" replay "$root/kept" "$c" 2> "$root/out/$c.client"
	is "$?" 0 "$c: the replay is sent"
	line=$(wait_line "$n")
	ok "$c: the collector is up" kill -0 "$pid"
	ok "$c: the file is written ($line)" grep -q "wrote '.*' (version 7" <<< "$line"
	ok "$c: it counts the CPU data alone ($kib KiB)" \
		grep -q "(version 7, $kib KiB of events," <<< "$line"
	ok "$c: only trace.*.dat in -d" only_dat
	take "$c" || { ok "$c: one file" false; continue; }
	ftreport "$root/out/$c.dat" > "$root/out/$c.txt" 2> "$root/out/$c.err"
	is "$?" 0 "$c: ftreport reads it"
	if [ "$c" = intact ]; then
		same_file "intact: ftreport reads it as the real one" "$root/out/real.txt" \
			"$root/out/$c.txt" "$root/out/$c.err"
		ok "intact: the collector says nothing was left out" \
			lacks <(printf '%s\n' "$line") "left out"
		continue
	fi
	sed -n 's/.*tracing_mark_write: \(mark-[0-9]*\)$/\1/p' "$root/out/$c.txt" \
		> "$root/out/$c-marks"
	same_file "$c: mark-1 to mark-$marks are there" "$root/out/want-marks" "$root/out/$c-marks"
	is "$(grep -c . "$root/out/$c.txt")" "$events" "$c: as many lines as the real file's"
	ok "$c: the late mark is there" grep -q "tracing_mark_write: late\$" "$root/out/$c.txt"
	ok "$c: without the late task's name (the tail's CMDLINES left out)" \
		lacks "$root/out/$c.txt" "^ *late-tail-"
	ftreport --stat "$root/out/$c.dat" > "$root/out/$c.stat" 2>&1
	ok "$c: no process map (the tail's PROCMAPS left out)" \
		lacks "$root/out/$c.stat" "^procmaps: "
	ok "$c: the collector says it left the tail out" grep -q "tail.*left out" <<< "$line"
done
ok "the collector wrote nothing beside -d" \
	sh -c "[ \"\$(ls '$root')\" = \"\$(printf 'dir\nkept\nlate-tail\nlog\nout\nsend.log\ntee.err\nteeport')\" ]"

kill -INT "$pid"
wait "$pid"
is "$?" 0 "SIGINT ends the collector with 0"
pid=
done_testing
