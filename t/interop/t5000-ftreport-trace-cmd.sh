#!/bin/bash
# ftreport prints what trace-cmd report prints, byte for byte, for the same
# file: synthetic files from t/mkdat (v6: lost events, time extends, big
# endian with 4-byte longs, 8 KiB sub-buffers, instances, each trace clock)
# and their version 7 conversions by trace-cmd (uncompressed and zstd), in
# the default mode and with -t, -R, -N, --cpu and -F; ftrace function,
# function_graph (leaves and nesting) and kernel_stack events included; guest
# files with TIME_SHIFT, alone and merged with their host. Files recorded by
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
	same_file "$name" "$tmp/want" "$tmp/got" "$tmp/err"
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
# COMM: the comm of the record's pid, from the file's saved_cmdlines and the sched plugin's
same "-F COMM" "$f" -F 'sched_switch: COMM == "bash" || COMM ~ "k*"' -F 'print: COMM != "make"'
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

# A guest's TIME_SHIFT (trace-cmd record -A): one sample, two, several,
# interpolated or stepwise, trace-cmd 2.9's layout (no fraction arrays) and
# 3.x's (scaling and fraction), v6 and v7, with -t; the instance buffer of a
# guest stays on its own clock, as in trace-cmd.
for z in 1,1 1,2 1,5 0,5 1,6,3,1 0,4,5,2 1,12,1,0; do
	"$mkdat" -n 1500 -m -S 41 -Z $z -o "$tmp/z.dat"
	same "TIME_SHIFT [$z] -t" "$tmp/z.dat" -t
	trace-cmd convert --compression zstd -i "$tmp/z.dat" -o "$tmp/z7.dat" >/dev/null 2>&1
	same "TIME_SHIFT [$z] v7 zstd -t" "$tmp/z7.dat" -t
done
"$mkdat" -n 1500 -c 4 -t -x -S 43 -Z 1,7,3,1 -o "$tmp/zi.dat"
same "TIME_SHIFT with an instance, 4 CPUs, time extends" "$tmp/zi.dat" -t
"$mkdat" -n 1500 -k x86-tsc -T 1398101,22 -Z 1,5 -D 0x3e8 -O 777 -S 3 -o "$tmp/zt.dat"
same "TIME_SHIFT, then TSC2NSEC, then DATE and OFFSET" "$tmp/zt.dat" -t
# host and guest merged (the host's events fall among the guest's)
"$mkdat" -n 1200 -S 45 -Z 1,5,3,1 -I 1a2b3c4d -o "$tmp/guest.dat"
"$mkdat" -n 800 -S 47 -I feedf00d12345678 -G guest1,1a2b3c4d,2 -O 1000 -o "$tmp/host.dat"
(cd "$tmp" && trace-cmd report -t -i host.dat -i guest.dat) > "$tmp/want" 2>/dev/null
(cd "$tmp" && ftreport -t -i host.dat -i guest.dat) > "$tmp/got" 2>"$tmp/err"
ok "host and guest merged, -t: trace-cmd report -i HOST -i GUEST's text" cmp -s "$tmp/want" "$tmp/got"
ok "  and they interleave" test "$(awk '{ print $1 }' "$tmp/got" | uniq | wc -l)" -gt 20
# --stat against trace-cmd dump --options
ftreport --stat "$tmp/guest.dat" > "$tmp/stat"
peer=$(trace-cmd dump --options "$tmp/guest.dat" 2>/dev/null | awk '/peer.s trace id/ { print tolower($1) }')
ok "--stat: the host's trace id is trace-cmd dump's ($peer)" \
	grep -q "^guest of:  host trace id $peer:" "$tmp/stat"
n=$(trace-cmd dump --options "$tmp/guest.dat" 2>/dev/null | awk '/samples count for CPU/ { s += $1 } END { print s }')
# trace-cmd dump lists the samples as written; ftreport counts them once per time
ok "--stat: the sample count is trace-cmd dump's less CPU 0's repeated time ($n - 1)" \
	grep -q "^timeshift: 2 cpus, $((n - 1)) samples" "$tmp/stat"

# Files trace-cmd recorded in the VM lane (t/fixtures/trace-cmd-vm), against
# this host's trace-cmd report, with -t too.
for f in "$top_srcdir"/t/fixtures/trace-cmd-vm/*.dat; do
	[ -e "$f" ] || { skip "no trace-cmd-vm fixtures"; break; }
	same "trace-cmd recorded $(basename "$f")" "$f"
	same "trace-cmd recorded $(basename "$f"), -t" "$f" -t
done

done_testing
