#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# ftlat and ftinfo against this kernel's available_tracers, read here by hand: each
# latency tracer is listed as there exactly when the kernel lists it; one it lacks is
# refused (exit 2) with the kernel option it needs, and nothing is left changed. The
# tracers themselves are run in the VM lane (t/vm/t8030) and on a fake tree (t0530).
. "$top_srcdir/t/tap.sh"
lane live
need_root
T=$(tracefs_dir) || skip_all "no tracefs"
avail=" $(cat "$T/available_tracers") "
ftlat --list > list.out 2>&1
is $? 0 "ftlat --list exits 0"
ftinfo -j > info.json 2>/dev/null || bail_out "ftinfo -j fails"
before=$(cat "$T/current_tracer" "$T/tracing_thresh" "$T/tracing_max_latency" 2>&1; ls "$T/instances")
for t in wakeup wakeup_rt wakeup_dl irqsoff preemptoff preemptirqsoff hwlat osnoise timerlat; do
	case $avail in *" $t "*) want=yes ;; *) want=no ;; esac
	is "$(awk -v t="$t" '$1 == t { print $2 }' list.out)" "$want" "--list: $t $want, as available_tracers says"
	ok "ftinfo has $t in its latency group" grep -q "^\"$t\":{\"group\":\"latency\"" info.json
	if [ "$want" = no ]; then
		ftlat "$t" -D 0.1 > /dev/null 2> err
		rc=$?
		ok "ftlat $t: exit 2 (got $rc) naming the kernel option" \
			sh -c "[ $rc = 2 ] && grep -q 'kernel built without CONFIG_' err"
	fi
done
after=$(cat "$T/current_tracer" "$T/tracing_thresh" "$T/tracing_max_latency" 2>&1; ls "$T/instances")
is "$after" "$before" "nothing left changed, no instance left"
done_testing
