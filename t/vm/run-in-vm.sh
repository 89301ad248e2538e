#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-in-vm.sh: boot Debian's stock kernel under qemu (software emulation) with the ftkit
# initramfs, run SCRIPT inside with bash, bring the guest's $FTK_OUT directory back to OUTDIR.
#
# usage: t/vm/run-in-vm.sh [-t SECS] [-l LOG] [-e VAR=VALUE]... [-v] SCRIPT [OUTDIR]
#
# Inside the VM the script runs as root in /tmp with PATH holding the built ftkit tools
# (top_builddir=/ftk/build) and trace-cmd, the tests under top_srcdir=/ftk/src/t, tracefs at
# /sys/kernel/tracing, debugfs, and FTK_OUT=/out: whatever it leaves there comes back to
# OUTDIR (through a raw disk image given as a second drive, written as a tar stream).
#
#   -t SECS   wall-clock limit for the whole VM run (default $FTK_VM_TIMEOUT or 600)
#   -l LOG    where to keep the console (default $top_builddir/t/vm/console.log)
#   -e V=X    export V=X in the guest (repeatable)
#   -v        stream the console to stderr while it runs
#
# Exit: 0 the job ran and exited 0; 1 usage; 2 the VM failed (timeout, panic, no end marker:
# the last 50 console lines are on stderr); 3 the job exited non-zero.
# Environment: see t/vm/vm.sh (FTK_VM_CACHE, FTK_VM_KERNEL_PKG, FTK_VM_HANG=1, FTK_VM_NET=1).
set -u
. "$(dirname "$0")/vm.sh"

usage() {	# to stdout for -h, to stderr after a usage error
	if [ "${1:-1}" = 0 ]; then
		sed -n 's/^# usage: /usage: /p' "$0"
	else
		sed -n 's/^# usage: /usage: /p' "$0" >&2
	fi
	exit "${1:-1}"
}

limit=${FTK_VM_TIMEOUT:-600}
log=
envs=()
while getopts 't:l:e:vh' o; do
	case $o in
	t) limit=$OPTARG ;;
	l) log=$OPTARG ;;
	e) envs+=("$OPTARG") ;;
	v) FTK_VM_VERBOSE=1 ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || usage
script=$1
outdir=${2:-}
[ -r "$script" ] || vm_die "cannot read '$script'"
why=$(vm_need) || vm_die "$why"
[ -n "$log" ] || log=$top_builddir/t/vm/console.log
mkdir -p "$(dirname "$log")" "$FTK_VM_CACHE" || exit 2

work=$(mktemp -d "$FTK_VM_CACHE/run.XXXXXX") || exit 2
cleanup() {
	vm_kill
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

vm_lock 9 || vm_die "cannot lock $FTK_VM_CACHE"
vm_kernel || exit 2
base=$(vm_base_initramfs) || exit 2
exec 9>&-

img=
[ "${FTK_VM_NET:-}" = 1 ] && envs+=(FTK_VM_NET=1)
if [ -n "$outdir" ]; then
	envs+=(FTK_VM_OUT=1)
	img=$work/out.img
	truncate -s "${FTK_VM_OUT_SIZE:-512M}" "$img" || exit 2
fi
vm_job_initramfs "$script" "$work/job.cpio.gz" "${envs[@]}" || vm_die "cannot build the job initramfs"
cat "$base" "$work/job.cpio.gz" > "$work/initrd.gz" || exit 2

vm_boot "$work/initrd.gz" "$log" "$limit" "$img"
rc=$?
[ $rc = 0 ] || exit 2

if [ -n "$outdir" ]; then
	mkdir -p "$outdir" && tar -xf "$img" -C "$outdir" ||
		vm_die "cannot extract the output disk into '$outdir'"
fi
[ "${vm_job_rc:-1}" = 0 ] || { vm_log "the job exited with status ${vm_job_rc:-?}"; exit 3; }
exit 0
