#!/bin/bash
# Files trace-cmd 3.1.6 recorded in the full-kernel VM (t/fixtures/trace-cmd-vm,
# see t/fixtures/README): ftreport prints each of them, by default, with -N
# and with -R, byte for byte as trace-cmd report printed them (the
# .report*.txt files): v6, v7, zstd, two CPUs, the global, counter and
# x86-tsc clocks, the function and function_graph tracers, a kprobe, markers,
# and a mix of sched (every sched_switch state, casts), irq and syscalls events.
. "$top_srcdir/t/tap.sh"
lane unit
dir="$top_srcdir/t/fixtures/trace-cmd-vm"
ls "$dir"/*.dat > /dev/null 2>&1 || skip_all "no trace-cmd-vm fixtures"
tmp=$(mktemp -d /tmp/ftk-t0170-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# nocheck: with FTK_PRINT_NOCHECK, the text ftkit formats itself is never
# compared with libtraceevent's (which replaces it where they differ): the
# own formatter's text alone must be trace-cmd's too.
for f in "$dir"/*.dat; do
	b=${f%.dat}
	for m in "" -N -R nocheck; do
		want="$b.report${m#nocheck}.txt"
		[ -e "$want" ] || { skip "$(basename "$want") missing"; continue; }
		if [ "$m" = nocheck ]; then
			FTK_PRINT_NOCHECK=1 ftreport "$f" > "$tmp/got" 2> "$tmp/err"
		else
			ftreport $m "$f" > "$tmp/got" 2> "$tmp/err"
		fi
		same_file "$(basename "$f") ${m:-default}" "$want" "$tmp/got" "$tmp/err"
	done
done
done_testing
