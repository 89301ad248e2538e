#!/bin/bash
# ftreport prints what trace-cmd report prints, byte for byte, for the same
# file: synthetic files from t/mkdat (v6: lost events, time extends, big
# endian with 4-byte longs, 8 KiB sub-buffers, instances, each trace clock)
# and their version 7 conversions by trace-cmd (uncompressed and zstd), in
# the default mode and with -t, -R, -N, --cpu and -F; ftrace function,
# function_graph (leaves and nesting) and kernel_stack events included. Files recorded by
# trace-cmd itself in the VM lane (t/fixtures/trace-cmd-vm) are compared too.
. "$top_srcdir/t/tap.sh"
lane interop
command -v trace-cmd >/dev/null || skip_all "trace-cmd is not installed"
mkdat="$top_builddir/t/mkdat"
[ -x "$mkdat" ] || skip_all "t/mkdat not built (make check builds it)"

tmp=$(mktemp -d /tmp/ftk-t5000-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

same() {	# name file [options...]
	local name=$1 f=$2
	shift 2
	trace-cmd report "$@" "$f" > "$tmp/want" 2>/dev/null
	ftreport "$@" "$f" > "$tmp/got" 2>"$tmp/err"
	if cmp -s "$tmp/want" "$tmp/got" && [ -s "$tmp/want" ]; then
		_tap_result 0 "$name"
	else
		_tap_result 1 "$name"
		diff "$tmp/want" "$tmp/got" | head -5 | sed 's/^/# /'
		sed 's/^/# /' "$tmp/err"
	fi
}

n=0
for opts in "" "-m -x" "-E -l 4 -m -x" "-s 8192 -m" "-c 4 -t" "-l 4" "-g -c 3" "-g -x -m"; do
	n=$((n + 1))
	f="$tmp/s$n.dat"
	"$mkdat" -n 3000 -S $n $opts -o "$f"
	same "v6 [$opts]" "$f"
	if [[ "$opts" != *-E* ]]; then
		trace-cmd convert --compression none -i "$f" -o "$tmp/s$n-v7.dat" >/dev/null 2>&1
		same "v7 uncompressed [$opts]" "$tmp/s$n-v7.dat"
		trace-cmd convert --compression zstd -i "$f" -o "$tmp/s$n-zstd.dat" >/dev/null 2>&1
		same "v7 zstd [$opts]" "$tmp/s$n-zstd.dat"
		if command -v python3 > /dev/null; then
			# trace-cmd here has no zlib: its text of the uncompressed twin
			python3 "$top_srcdir/t/v7-recompress.py" "$tmp/s$n-v7.dat" "$tmp/s$n-zlib.dat"
			trace-cmd report "$tmp/s$n-v7.dat" > "$tmp/want" 2>/dev/null
			ftreport "$tmp/s$n-zlib.dat" > "$tmp/got" 2>&1
			ok "v7 zlib [$opts]" cmp -s "$tmp/want" "$tmp/got"
		else
			skip "python3 not installed: no zlib file"
		fi
	fi
done

f="$tmp/s2.dat"
same "-t full stamps" "$f" -t
same "-R raw fields" "$f" -R
same "-N no plugins" "$f" -N
same "--cpu 1" "$f" --cpu 1
same "-F sched_switch" "$f" -F sched_switch
same "-F with a field condition" "$f" -F 'sched_wakeup:prio>120'
# A filter is parsed once per event it names, and a word that is not a field
# of an event is false for it: sched_wakeup has no prev_pid.
same "-F system filter, a field only some events have" "$f" -F 'sched: prev_pid > 100'
same "-F system filter that keeps nothing" "$f" -F 'sched: prev_pid == 0'
same "-F regex event names" "$f" -F 'sched_w.*,.*/sched_sw.*: prev_prio < 120 || prio < 120'
same "-F per-event filters" "$f" -F 'sched_switch: next_pid > 100' -F 'sched_wakeup: target_cpu == 1'
same "-F a word that is no field, in a comparison" "$f" -F 'sched_switch: nosuch == 1 || prev_pid > 100'
same "-F strings and regexes" "$f" -F 'sched: prev_comm =~ "^[a-k]" && next_comm != "bash" || comm ~ "*o*"'
same "-F arithmetic and negation" "$f" -F 'sched_switch: !(prev_state & 1) && prev_pid > 100 || prev_state & 2'
f="$tmp/s7.dat"
same "function_graph with -t" "$f" -t
same "function_graph with -N (no trace-cmd handlers)" "$f" -N
same "function_graph with -R" "$f" -R
same "function_graph, -F funcgraph_exit" "$f" -F funcgraph_exit

for clk in local global counter uptime perf mono mono_raw boot tai x86-tsc; do
	"$mkdat" -n 500 -k $clk -o "$tmp/c.dat"
	same "clock $clk" "$tmp/c.dat"
done

"$mkdat" -n 500 -D 0x5f5e100 -o "$tmp/d.dat"
same "DATE option shifts the stamps" "$tmp/d.dat"
"$mkdat" -n 500 -O 123456789 -o "$tmp/o.dat"
same "OFFSET option shifts the stamps" "$tmp/o.dat"

"$mkdat" -n 500 -k x86-tsc -T 1398101,22 -o "$tmp/t.dat"
same "TSC2NSEC option converts x86-tsc stamps" "$tmp/t.dat"

# Files trace-cmd recorded in the VM lane (t/fixtures/trace-cmd-vm), against
# this host's trace-cmd report, with -t too.
for f in "$top_srcdir"/t/fixtures/trace-cmd-vm/*.dat; do
	[ -e "$f" ] || { skip "no trace-cmd-vm fixtures"; break; }
	same "trace-cmd recorded $(basename "$f")" "$f"
	same "trace-cmd recorded $(basename "$f"), -t" "$f" -t
done

done_testing
