#!/bin/bash
# ftrecord --listen against senders written from the protocol (loopback
# only, no tracing): a v6 trace.dat sent whole and cut short comes out as
# ftreport reads the original (up to the break); hostile clients
# (truncated handshakes, protocol v1, absurd sizes and counts, names with
# / and .., metadata that points outside itself or loops, a tail after the
# metadata over its limit or twice, garbage, a
# silent client, 200 connections at once) are dropped while the collector
# stays up, within a fixed memory, and writes only trace.*.dat in its -d.
. "$top_srcdir/t/tap.sh"
lane unit
command -v python3 > /dev/null || skip_all "python3 is not installed"
command -v ftrecord > /dev/null || skip_all "ftrecord is not built here"
client="$top_srcdir/t/helpers/net-client.py"
fix="$top_srcdir/t/fixtures/synth-v6.dat"
root=$(mktemp -d /tmp/ftk-t0700-XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$root"' EXIT
mkdir "$root/dir"

ftrecord --listen 127.0.0.1:0 -d "$root/dir" --max-clients 16 --client-timeout 2 \
	2> "$root/log" &
pid=$!
for _ in $(seq 50); do grep -q 'listening on port' "$root/log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$root/log")
[ -n "$port" ] || bail_out "the collector did not start: $(cat "$root/log")"

# log lines for a sender's local port, once its connection ended
wait_line() {	# PATTERN
	for _ in $(seq 100); do grep -q -- "$1" "$root/log" && return 0; sleep 0.1; done
	return 1
}
nlines() { wc -l < "$root/log"; }

# A well-formed v6 sender: the file is the fixture's events.
ftreport "$fix" > "$root/want" 2>/dev/null
n=$(nlines)
python3 "$client" "$port" send "$fix"
ok "a v6 sender's file is written" wait_line "wrote '$root/dir/trace\..*:[0-9]*\.dat' (version 6"
f=$(ls "$root"/dir/trace.*.dat | head -1)
ftreport "$f" > "$root/got" 2> "$root/err"
same_file "ftreport reads the collected file as the sent one" "$root/want" "$root/got" "$root/err"
trace-cmd report "$f" > "$root/tc" 2>/dev/null && trace-cmd report "$fix" > "$root/tcwant" 2>/dev/null
if command -v trace-cmd > /dev/null; then
	same_file "trace-cmd report reads it as the sent one" "$root/tcwant" "$root/tc"
else
	skip "trace-cmd is not installed"
fi
rm -f "$root"/dir/trace.*.dat

# Cut short: half of each CPU's data and a partial page, no CLOSE.
python3 "$client" "$port" send "$fix" break
ok "a broken sender's file is kept" wait_line "up to a break"
f=$(ls "$root"/dir/trace.*.dat | head -1)
ftreport "$f" > "$root/got" 2> "$root/err"; rc=$?
is "$rc" 0 "ftreport reads the file of a broken connection"
got=$(grep -c . "$root/got"); want=$(grep -c . "$root/want")
ok "it holds some of the events, not more ($got of $want lines)" \
	test "$got" -gt 1 -a "$got" -lt "$want"
# every line it printed is one of the original's (a prefix per CPU)
ok "and only events that were sent" \
	sh -c "grep -v '^cpus=' '$root/got' | grep -vxF -f '$root/want' | grep -q . && exit 1 || exit 0"
rm -f "$root"/dir/trace.*.dat

# Hostile clients: each dropped with a reason, the collector still up.
for c in truncated v1 badmagic noversion cpus pagesize optcount hugemsg cmdsize names \
	 badmeta metaloop bigtail twotails garbage stall; do
	n=$(nlines)
	r=$(python3 "$client" "$port" hostile "$c")
	is "$r" closed "hostile '$c': the connection is closed"
	ok "hostile '$c': the collector says why" \
		sh -c "for i in \$(seq 100); do [ \$(wc -l < '$root/log') -gt $n ] && exit 0; sleep 0.1; done; exit 1"
	ok "hostile '$c': the collector is still up" kill -0 "$pid"
done
ok "protocol v1 is refused with a message" grep -q "protocol v1" "$root/log"
ok "an absurd CPU count is named" grep -q "4294967295 CPUs" "$root/log"
ok "metadata that points outside itself or loops is refused" grep -q "out of order or outside it" "$root/log"
ok "a tail over the limit is refused" grep -q "a tail longer than the limit" "$root/log"
ok "a second tail is refused" grep -q "a second tail" "$root/log"
ok "a silent sender is dropped" grep -q "Connection timed out\|timed out\|no metadata" \
	"$root/log"
ok "no file is left by the hostile clients" \
	sh -c "! ls '$root'/dir/trace.*.dat 2>/dev/null | grep -q ."
ok "the names client left files only as trace.HOST:PORT.dat in -d" \
	sh -c "[ -z \"\$(ls '$root/dir' | grep -v '^trace\.[A-Za-z0-9._:-]*\.dat\$')\" ]"
ok "nothing was written beside -d" sh -c "[ \"\$(ls '$root')\" = \"\$(printf 'dir\nerr\ngot\nlog\ntc\ntcwant\nwant')\" ]"
ok "no file named evil anywhere under /tmp" sh -c "! ls /tmp/evil 2>/dev/null"

# 200 connections at once, sending nothing: 16 served, the rest refused at
# once; the collector's memory stays within a fixed bound (threads with
# 256 KiB stacks and 8 KiB buffers: well under 64 MiB resident).
python3 "$client" "$port" many 200 3 > "$root/many" &
mpid=$!
sleep 1.5
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
ok "200 connections: the collector is up" kill -0 "$pid"
ok "200 connections: resident memory $rss KiB < 65536 KiB" test "${rss:-999999}" -lt 65536
wait "$mpid"
ok "past --max-clients, connections are refused" grep -q "too many senders" "$root/log"
sleep 2.5
n=$(nlines)
python3 "$client" "$port" send "$fix"
ok "after them, a sender is served again" wait_line "wrote '$root/dir/trace\..*(version 6"
ok "and its file is whole" sh -c "ftreport $root/dir/trace.*.dat 2>/dev/null | cmp -s - '$root/want'"

# What -N refuses, before any tracing: exit 1 and the reason. (--flight
# goes with -N: a connection per window, t4192.)
for c in "-m 100:kept on the box's disk" \
	 "--proc-map --file-version 6:version 6 file cannot take"; do
	ftrecord -N "127.0.0.1:$port" ${c%%:*} true 2> "$root/err"
	is "$?" 1 "-N ${c%%:*}: a usage error"
	ok "-N ${c%%:*}: says why" grep -q -- "${c#*:}" "$root/err"
done
rm -f "$root/err"

kill -INT "$pid"
wait "$pid"; rc=$?
pid=
is "$rc" 0 "SIGINT ends the collector with 0"
done_testing
