#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh Debian 12 machine, as root: install the dependencies, build,
# and run ftkit's main job on a built-in default: record scheduler, irq and
# trace_marker events for a few seconds while a small workload runs, then
# print the report's summary and its first lines.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contrib/install-deps.sh"
"$top/contrib/build.sh" >/dev/null
PATH=$top/build/tools:$PATH
out=$top/build/quickstart.dat

echo "== ftinfo: what this kernel's tracing allows"
ftinfo
echo
echo "== ftrecord: sched, irq and marks of a 3-second workload into $out"
# The workload: marks each step, compresses a little data, sleeps a little.
ftrecord -e sched -e irq -o "$out" -- sh -c '
	i=1
	while [ $i -le 30 ]; do
		ftmark "quickstart step $i"
		head -c 262144 /dev/urandom | gzip -c > /dev/null
		sleep 0.1
		i=$((i + 1))
	done'
echo
echo "== ftreport --stat"
ftreport -i "$out" --stat
echo
echo "== ftreport (first 25 lines; the same text as trace-cmd report)"
ftreport -i "$out" | head -25
echo
echo "The whole trace: ftreport -i $out | less   (or trace-cmd report -i $out)"
