#!/bin/bash
# fttop's profile view in batch mode, against workloads whose hot function is
# known: profile-work spins in spin(), called as main -> a -> b -> spin, so
# with -P its frames put spin at the top by self share, user space, with b, a
# and main at least as high by total share (each holds spin in its chain);
# fttop-work making getppid() calls in a loop spends its time in the kernel,
# so its profile has kernel rows, named from kallsyms; a second fttop started
# with --profile-hz samples from its start while showing another view;
# --profile-hz 0 is a usage error; tracefs is as before.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/tracefs-snap.sh"
. "$top_srcdir/t/lib/fttop-json.sh"
fttop_live t6330 perf_software
W=$top_builddir/t/helpers/profile-work
work=$top_builddir/t/helpers/fttop-work
[ -x "$W" ] && [ -x "$work" ] || skip_all "t/helpers/profile-work is not built (make check builds it)"

inst_before=$(instances_snap '^ftkit-top-')

timeout 20 fttop -b --profile-hz 0 > /dev/null 2>&1; is "$?" 1 "--profile-hz 0 is a usage error"

# --- the hot function of a known call tree; 600 s of CPU: ended by the test
"$W" chain 600 &
wpid=$!
pids="$wpid"
fttop -b --json -d 1 -n 3 --view profile -P "$wpid" -e sched:sched_switch > "$tmp/prof" \
	2> "$tmp/prof.err"
is "$?" 0 "fttop -b --view profile -P PID exits 0"
ok "every frame is one JSON object" python3 -c 'import json, sys
for line in open(sys.argv[1]):
	json.loads(line)' "$tmp/prof"
is "$(json "$tmp/prof" 'f["view"]')" profile "the frames are of the profile view"
is "$(json "$tmp/prof" 'f.get("note", "")')" "" "no note: sampling works here"
ok "the last frame has samples" test "$(json "$tmp/prof" 'f.get("samples", 0)')" -gt 0
is "$(json "$tmp/prof" 'f["rows"][0]["name"] if f["rows"] else ""')" spin \
	"the top row is spin, the known hot function"
is "$(json "$tmp/prof" 'f["rows"][0]["comm"] if f["rows"] else ""')" user "  in user space"
ok "  with most of the samples" test "$(json "$tmp/prof" \
	'int(100 * f["rows"][0]["self_share"]) if f["rows"] else 0')" -ge 50
is "$(json "$tmp/prof" '(lambda r: all(r[n]["total_share"] >= r["spin"]["self_share"] for n in ("b", "a", "main")) if all(n in r for n in ("spin", "b", "a", "main")) else sorted(r))({x["name"]: x for x in f["rows"]})')" True \
	"b, a and main hold spin in their chain: total share at least spin's self share"
is "$(json "$tmp/prof" 'sum(r["self"] for r in f["rows"]) == f["samples"]')" True \
	"the rows' self samples add up to the frame's samples"
kill -TERM "$wpid"; wait "$wpid" 2>/dev/null

# --- kernel frames: a process that lives in system calls; sampling from the start
"$work" getppid 2000000000 > "$tmp/work" &
wpid=$!
pids="$wpid"
wait_for "$tmp/work" '^[0-9]' || bail_out "fttop-work did not start"
kill -USR1 "$wpid"
fttop -b --json -d 1 -n 2 --profile-hz 199 -P "$wpid" -e sched:sched_switch > "$tmp/ev" \
	2> "$tmp/ev.err"
is "$?" 0 "fttop --profile-hz 199 on the events view exits 0"
is "$(json "$tmp/ev" 'f["view"]')" events "  the events view is shown"
# The independent truth for the kernel's share: the task's own user and system
# time (/proc/PID/stat fields 14 and 15) over the same run.
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$wpid/stat")
fttop -b --json -d 1 -n 3 --view profile -P "$wpid" -e sched:sched_switch > "$tmp/kern" \
	2> "$tmp/kern.err"
is "$?" 0 "fttop --view profile on a syscall loop exits 0"
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$wpid/stat")
# its signals are blocked while it loops
kill -KILL "$wpid"; wait "$wpid" 2>/dev/null
pids=
is "$(json "$tmp/kern" 'f.get("profile_hz")')" 99 "the default rate is 99 Hz"
ok "kernel rows, named (not [unknown])" test "$(json "$tmp/kern" \
	'len([r for r in f["rows"] if r["comm"] == "kernel" and not r["name"].startswith("[unknown]")])')" -gt 0
kshare=$(json "$tmp/kern" 'int(100 * sum(r["self_share"] for r in f["rows"] if r["comm"] == "kernel"))')
ticks=$(((u1 - u0) + (s1 - s0)))
if [ "$ticks" -gt 0 ]; then
	truth=$((100 * (s1 - s0) / ticks))
	diff=$((kshare - truth)); diff=${diff#-}
	diag "kernel share: $kshare% of the samples; the task's system time: $truth% of $ticks ticks"
	# two samplings of the same split (99 Hz and the tick): within 25 points
	ok "the kernel's share of the samples matches the task's system time ($kshare% vs $truth%)" \
		test "$diff" -le 25
else
	skip "the task's CPU time did not advance (no ticks to compare with)"
fi

is "$(instances_snap '^ftkit-top-')" "$inst_before" "fttop's instances are gone"
snap_is "$(tracefs_snap "$T")" "$snap_before" "the top level is as before"
done_testing
