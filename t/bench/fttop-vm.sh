#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t/bench/fttop-bench.sh inside the full-kernel VM (not part of make check; prints
# measurements, no pass/fail): the locked-down host refuses `trace-cmd stream` ("Can't
# enable ftrace"), Debian's kernel in t/vm runs it. The VM is qemu TCG (software
# emulation, 10 to 50 times slower than the host, both vCPUs in one host thread): the
# load is lower (RATE, default 50000 getppid calls a second, about 100k events/s) and
# only the ratios between the readers of one run mean anything, not the shares of a core.
#
# usage: t/bench/fttop-vm.sh   (from the source or build tree, after a build;
# RATE, SECS (default 8) and ROUNDS as fttop-bench.sh takes them; FTK_VM_TIMEOUT bounds
# the VM run, default 900 s)
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
	if [ -x "$top_srcdir/build/tools/fttop" ]; then top_builddir=$top_srcdir/build
	else top_builddir=$(pwd); fi
fi
export top_srcdir top_builddir
die() { echo "fttop-vm: $*" >&2; exit 1; }
[ -x "$top_builddir/tools/fttop" ] || die "no $top_builddir/tools/fttop (build first)"
# The load generator: an ELF program under the build tree's t/ goes into the VM's
# initramfs at the same path (t/vm/vm.sh), with the libraries it loads.
mkdir -p "$top_builddir/t/bench" || exit 1
lg=$top_builddir/t/bench/record-loadgen
cc -O2 -static -o "$lg" "$top_srcdir/t/bench/record-loadgen.c" -lpthread 2> /dev/null ||
	cc -O2 -o "$lg" "$top_srcdir/t/bench/record-loadgen.c" -lpthread || exit 1
out=$(mktemp -d "${TMPDIR:-/tmp}/ftk-topvm.XXXXXX") || exit 1
job=$out/job.sh
trap 'rm -rf "$out"' EXIT
# The job: the settings, then the bench itself (the VM has the build tree's real
# binaries at the same paths, libftkit beside them; no make install there).
{
	printf 'export FTTOP=/ftk/build/tools/fttop LOADGEN=/ftk/build/t/bench/record-loadgen\n'
	printf 'export LD_LIBRARY_PATH=/ftk/build/lib/.libs RATE=%s SECS=%s ROUNDS=%s\n' \
		"${RATE:-50000}" "${SECS:-8}" "${ROUNDS:-1}"
	# on the console too, as it goes: a VM run cut short by its time limit brings nothing back
	printf 'bash -s 2>&1 <<'"'"'BENCH'"'"' | tee "$FTK_OUT/report"\n'
	cat "$top_srcdir/t/bench/fttop-bench.sh"
	printf 'BENCH\n'
} > "$job" || exit 1
mkdir "$out/res" || exit 1
"$top_srcdir/t/vm/run-in-vm.sh" -t "${FTK_VM_TIMEOUT:-900}" \
	-l "$top_builddir/t/bench/fttop-vm.console.log" "$job" "$out/res" ||
	die "the VM run failed (console: $top_builddir/t/bench/fttop-vm.console.log)"
echo "fttop-vm: in the VM (qemu TCG, kernel of t/vm): only the ratios of one run mean anything"
cat "$out/res/report"
