# SPDX-License-Identifier: LGPL-2.1-or-later
# The full-kernel VM lane, shared code (bash; sourced by run-in-vm.sh).
#
# The host kernel here is locked down (no function tracers, no kprobes). This lane boots
# Debian's stock kernel (package linux-image-amd64, its config has the function and graph
# tracers, kprobes, hist triggers, snapshot, synthetic events, no lockdown) under
# qemu-system-x86_64 software emulation, with a busybox initramfs that holds bash, trace-cmd,
# the built ftkit tools and library, the t/live tests and every shared library they load.
#
#   vm_kernel            download + unpack the kernel once into $FTK_VM_CACHE/kernel (never
#                        into the host's /boot); later runs reuse it without apt
#   vm_base_initramfs    the big common part of the initramfs, cached by content stamp
#   vm_job_initramfs     the small part of one run: the job script and its environment,
#                        appended to the base (the kernel unpacks concatenated cpio archives)
#   vm_boot              run qemu with a wall-clock limit, report boot and job times
#
# Console protocol (lines the guest's /init prints, see t/vm/init):
#   ### FTK-VM-INIT uptime=S kernel=R     /init started (the kernel has booted)
#   ### FTK-VM-JOB-END rc=N uptime=S      the job script returned N
#   ### FTK-VM-DONE rc=N                  everything done, output disk written, powering off
#
# Environment: FTK_VM_CACHE (kernel and initramfs cache, default $top_builddir/t/vm/cache),
# FTK_VM_KERNEL_PKG (a linux-image-* package; default what FTK_VM_KERNEL_META, by default
# linux-image-amd64, depends on; linux-image-rt-amd64 for the PREEMPT_RT kernel of t8030),
# FTK_VM_QEMU (default qemu-system-x86_64), FTK_VM_HANG=1 (the guest's /init hangs on purpose:
# used to test the timeout), FTK_VM_NET=1 (a network card on qemu's user network: the guest,
# 10.0.2.15, reaches the host's loopback addresses at 10.0.2.2).

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
if [ -z "${top_builddir:-}" ]; then
	if [ -x "$top_srcdir/build/tools/ftinfo" ]; then
		top_builddir=$top_srcdir/build
	else
		top_builddir=$top_srcdir
	fi
fi
: "${FTK_VM_CACHE:=$top_builddir/t/vm/cache}"
: "${FTK_VM_QEMU:=qemu-system-x86_64}"
FTK_VM_APPEND="console=ttyS0 quiet panic=-1 trace_clock=local"
# Modules the output disk needs (virtio-blk is a module in Debian's config) and the loop
# driver (t7050 reads a loop device), virtio-net for FTK_VM_NET=1, load order resolved
# from each module's .modinfo depends= at build time.
FTK_VM_MODULES="virtio_pci virtio_blk loop virtio_net"

vm_log() { echo "run-in-vm: $*" >&2; }
vm_die() { echo "run-in-vm: $*" >&2; exit 2; }

# vm_need: say what is missing on the host, with the Debian package to install.
vm_need() {
	local miss= c
	command -v "$FTK_VM_QEMU" >/dev/null || miss="$miss qemu-system-x86"
	command -v cpio >/dev/null || miss="$miss cpio"
	[ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q 'statically linked' ||
		miss="$miss busybox-static"
	command -v trace-cmd >/dev/null || miss="$miss trace-cmd"
	for c in dpkg-deb apt-get flock gzip; do
		command -v $c >/dev/null || miss="$miss $c"
	done
	[ -z "$miss" ] && return 0
	echo "missing on the host:$miss (apt-get install$miss)"
	return 1
}

# vm_lock FD: serialize cache updates between VM runs that make starts in parallel.
vm_lock() {
	mkdir -p "$FTK_VM_CACHE" || return 1
	eval "exec $1>\"\$FTK_VM_CACHE/lock\""
	flock "$1"
}

# vm_kernel: make sure $FTK_VM_CACHE/kernel holds vmlinuz and the modules we load.
vm_kernel() {
	local k=$FTK_VM_CACHE/kernel pkg tmp deb m have=1
	if [ -s "$k/vmlinuz" ] && [ -s "$k/modules.order" ]; then
		for m in $FTK_VM_MODULES; do
			grep -qx "$m" "$k/modules.order" || have=0
		done
		[ "$have" = 1 ] && return 0
		vm_log "the cached kernel lacks some of: $FTK_VM_MODULES"
	fi
	pkg=${FTK_VM_KERNEL_PKG:-$(_vm_kernel_pkg)}
	if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
		# A fresh machine may have no package lists yet.
		vm_log "apt-cache knows no linux-image-amd64: running apt-get update"
		apt-get update -q >&2
		pkg=$(_vm_kernel_pkg)
	fi
	[ -n "$pkg" ] || vm_die "cannot resolve linux-image-amd64 to a kernel package" \
		"(apt-cache depends linux-image-amd64 found nothing: run apt-get update)"
	vm_log "downloading $pkg (once; cached in $k)"
	tmp=$FTK_VM_CACHE/download.$$
	rm -rf "$tmp" "$k" && mkdir -p "$tmp/x" || return 1
	# apt-get download runs unsandboxed as root when _apt cannot write here: hush that.
	(cd "$tmp" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed') >&2
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || vm_die "apt-get download $pkg failed"
	# Only /boot and the virtio drivers: the full module tree is ~400 MB unpacked.
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards './boot/*' \
		'./lib/modules/*/kernel/drivers/virtio/*' \
		'./lib/modules/*/kernel/drivers/block/virtio_blk.ko' \
		'./lib/modules/*/kernel/drivers/block/loop.ko' \
		'./lib/modules/*/kernel/drivers/net/virtio_net.ko' \
		'./lib/modules/*/kernel/drivers/net/net_failover.ko' \
		'./lib/modules/*/kernel/net/core/failover.ko' ||
		vm_die "cannot unpack $deb"
	mkdir -p "$k/modules"
	mv "$tmp"/x/boot/vmlinuz-* "$k/vmlinuz" && mv "$tmp"/x/boot/config-* "$k/config" ||
		vm_die "$deb has no /boot/vmlinuz"
	find "$tmp/x/lib/modules" -name '*.ko' -exec mv {} "$k/modules/" \;
	basename "$deb" .deb > "$k/package"
	_vm_modorder $FTK_VM_MODULES > "$k/modules.order.tmp" && mv "$k/modules.order.tmp" "$k/modules.order"
	rm -rf "$tmp"
	[ -s "$k/modules.order" ] || vm_die "cannot resolve the modules $FTK_VM_MODULES"
}

_vm_kernel_pkg() {
	apt-cache depends "${FTK_VM_KERNEL_META:-linux-image-amd64}" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# _vm_modorder MOD...: the modules with their dependencies first, from .modinfo depends=.
_vm_modorder() {
	local -A seen=()
	_vm_modvisit() {
		local m=$1 d
		[ -n "${seen[$m]:-}" ] && return 0
		seen[$m]=1
		[ -f "$FTK_VM_CACHE/kernel/modules/$m.ko" ] || { vm_log "no module $m.ko"; return 1; }
		for d in $(tr '\0' '\n' < "$FTK_VM_CACHE/kernel/modules/$m.ko" |
			sed -n 's/^depends=//p' | tr ',' ' '); do
			_vm_modvisit "$d" || return 1
		done
		echo "$m"
	}
	local m
	for m in "$@"; do _vm_modvisit "$m" || return 1; done
}

# The host programs the guest gets (with every library they load). Besides busybox: bash
# and trace-cmd, and the GNU tools whose options the tests use where busybox lacks them (dd
# iflag=nonblock; readelf): they go to /usr/local/bin, ahead of busybox in the guest's PATH.
# setpriv runs commands as nobody (t/lib/control.sh as_nobody); ldd (a bash script) finds
# libc for t4140's uprobe.
FTK_VM_GNU_TOOLS="dd diff grep ldd mktemp nm readelf sed setpriv sort stat taskset timeout"
# Debian's python3 (not whatever python3 comes first in PATH) with the few standard modules
# the tests import, found by importing them on the host: about 1 MB, not the 50 MB stdlib.
: "${FTK_VM_PYTHON:=$(readlink -f /usr/bin/python3 2>/dev/null)}"
FTK_VM_PY_MODULES="csv json os sys"
vm_host_programs() {
	local p
	echo /bin/bash
	command -v trace-cmd
	# rtla, the reference of ftlat's timerlat and osnoise views (t8030), where installed
	command -v rtla || true
	for p in $FTK_VM_GNU_TOOLS; do
		p=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v "$p") &&
			echo "$p"
	done
	[ -x "$FTK_VM_PYTHON" ] && echo "$FTK_VM_PYTHON"
}

# _vm_python_files: the standard library files python3 loads for $FTK_VM_PY_MODULES
# (site and its encodings included); none of dist-packages.
_vm_python_files() {
	[ -x "$FTK_VM_PYTHON" ] || return 0
	"$FTK_VM_PYTHON" -c 'import sys
for m in sys.argv[1:]:
    __import__(m)
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f and "-packages/" not in f:
        print(f)' $FTK_VM_PY_MODULES | sort -u
}

# _vm_copy SRC DST: copy a file (following links), making directories.
_vm_copy() {
	mkdir -p "$(dirname "$2")" && cp -L "$1" "$2"
}

# _vm_libs FILE...: the shared libraries the files load, the dynamic loader included.
_vm_libs() {
	local f
	for f in "$@"; do
		LD_LIBRARY_PATH=$top_builddir/lib/.libs ldd "$f" 2>/dev/null
	done | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u
}

# _vm_build_elves: the ELF programs of the build tree (tools, test helpers), as
# "real-binary relative-path" lines. For a libtool wrapper the real binary is .libs/NAME.
_vm_build_elves() {
	local f d n
	for d in tools t; do
		[ -d "$top_builddir/$d" ] || continue
		find "$top_builddir/$d" -path '*/.libs' -prune -o -path '*/vm/cache' -prune -o \
			-type f -perm -u+x -print | while read -r f; do
			n=${f#"$top_builddir"/}
			case $n in *.sh|*.la|*.so*|*/tap-driver*|*.log|*.trs) continue ;; esac
			if head -c4 "$f" | grep -q 'ELF'; then
				echo "$f $n"
			elif [ -x "$(dirname "$f")/.libs/$(basename "$f")" ]; then
				echo "$(dirname "$f")/.libs/$(basename "$f") $n"
			fi
		done
	done
}

# vm_base_initramfs: echo the path of the common initramfs (cpio.gz), rebuilt when an
# input changed (stamp: the paths, sizes and times of every input file).
vm_base_initramfs() {
	local out=$FTK_VM_CACHE/base.cpio.gz stamp root f rel lib new
	local -a progs elves
	mapfile -t progs < <(vm_host_programs)
	mapfile -t elves < <(_vm_build_elves)
	new=$(
		{
			for f in "${progs[@]}" /bin/busybox $(_vm_python_files); do
				stat -L -c '%n %s %Y' "$f"
			done
			for f in "${elves[@]}"; do stat -L -c '%n %s %Y' ${f%% *}; done
			find "$top_srcdir/t/live" "$top_srcdir/t/lib" "$top_srcdir/t/tap.sh" \
				"$top_srcdir/t/vm/init" "$top_builddir/lib/.libs" \
				/usr/lib/x86_64-linux-gnu/traceevent/plugins \
				"$FTK_VM_CACHE/kernel/modules.order" \
				-maxdepth 1 -printf '%p %s %T@\n' 2>/dev/null
		} | md5sum | cut -d' ' -f1)
	if [ -s "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$new" ]; then
		echo "$out"
		return 0
	fi
	vm_log "building the initramfs"
	root=$FTK_VM_CACHE/root.$$
	rm -rf "$root" && mkdir -p "$root" || return 1
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,out,root} \
		"$root/ftk/src/t" "$root/ftk/build/lib/.libs" "$root/lib/modules"
	cp /bin/busybox "$root/bin/busybox"
	for f in "${progs[@]}"; do
		case " $FTK_VM_GNU_TOOLS " in
		*" ${f##*/} "*) _vm_copy "$f" "$root/usr/local/bin/${f##*/}" ;;
		*) _vm_copy "$f" "$root$f" ;;
		esac
	done
	if [ -x "$FTK_VM_PYTHON" ]; then
		ln -sf "${FTK_VM_PYTHON##*/}" "$root${FTK_VM_PYTHON%/*}/python3"
		for f in $(_vm_python_files); do _vm_copy "$f" "$root$f"; done
	fi
	# The build tree's programs at the same relative paths (libtool wrappers replaced by
	# the real binaries), libftkit where the wrappers would have pointed LD_LIBRARY_PATH.
	for f in "${elves[@]}"; do _vm_copy "${f%% *}" "$root/ftk/build/${f#* }"; done
	cp -a "$top_builddir"/lib/.libs/*.so* "$root/ftk/build/lib/.libs/" 2>/dev/null
	# libtraceevent's plugins: trace-cmd and ftkit load them to print events.
	if [ -d /usr/lib/x86_64-linux-gnu/traceevent/plugins ]; then
		mkdir -p "$root/usr/lib/x86_64-linux-gnu/traceevent"
		cp -a /usr/lib/x86_64-linux-gnu/traceevent/plugins "$root/usr/lib/x86_64-linux-gnu/traceevent/"
	fi
	for lib in $(_vm_libs "${progs[@]}" "${elves[@]%% *}" "$root"/ftk/build/lib/.libs/*.so.* \
			"$root"/usr/lib/x86_64-linux-gnu/traceevent/plugins/*.so); do
		case $lib in "$top_builddir"/*|"$root"/*) continue ;; esac
		_vm_copy "$lib" "$root$lib"
	done
	# The tests and their helpers, at the source tree's relative paths.
	cp "$top_srcdir/t/tap.sh" "$root/ftk/src/t/"
	mkdir -p "$root/ftk/src/t/helpers"
	cp "$top_srcdir/t/helpers/net-client.py" "$root/ftk/src/t/helpers/"
	for f in live lib; do
		[ -d "$top_srcdir/t/$f" ] && cp -a "$top_srcdir/t/$f" "$root/ftk/src/t/"
	done
	for f in $(cat "$FTK_VM_CACHE/kernel/modules.order"); do
		cp "$FTK_VM_CACHE/kernel/modules/$f.ko" "$root/lib/modules/"
	done
	cp "$FTK_VM_CACHE/kernel/modules.order" "$root/lib/modules/order"
	cp "$top_srcdir/t/vm/init" "$root/init" && chmod 755 "$root/init"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.tmp" ||
		vm_die "cannot build the initramfs"
	rm -rf "$root"
	mv "$out.tmp" "$out" && echo "$new" > "$out.stamp"
	echo "$out"
}

# vm_job_initramfs SCRIPT OUT.cpio.gz [VAR=VALUE...]: the job script as /ftk/job.sh and the
# environment of the run as /ftk/env.
vm_job_initramfs() {
	local script=$1 out=$2 root v
	shift 2
	root=$(mktemp -d "${out%/*}/job.XXXXXX") || return 1
	# The archive's "." is the guest's "/": mktemp -d made it 0700, and the kernel
	# unpacks this archive last, so no one but root could reach a file (commands
	# run as nobody failed to load their libraries: "Permission denied", exit 127).
	chmod 755 "$root"
	mkdir -p "$root/ftk"
	cp "$script" "$root/ftk/job.sh"
	{
		echo "FTK_VM_HANG='${FTK_VM_HANG:-}'"
		for v in "$@"; do
			printf "export %s='%s'\n" "${v%%=*}" "${v#*=}"
		done
	} > "$root/ftk/env"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out"
	rm -rf "$root"
}

# vm_boot INITRD LOG TIMEOUT [OUT.img]: boot, wait at most TIMEOUT seconds of wall clock,
# kill qemu past it. Returns 0 when the guest printed FTK-VM-DONE, 2 otherwise (after
# printing why and the last 50 console lines on stderr). Sets vm_job_rc, vm_boot_s, vm_job_s.
vm_qemu_pid=
vm_boot() {
	local initrd=$1 log=$2 limit=$3 img=${4:-} t0 now t_init= t_done= why= tpid= qpid
	local -a drive=()
	[ -n "$img" ] && drive=(-drive "file=$img,format=raw,if=virtio")
	# qemu's user network: the guest is 10.0.2.15 and reaches the host's loopback at 10.0.2.2
	[ "${FTK_VM_NET:-}" = 1 ] && drive+=(-nic user,model=virtio-net-pci)
	vm_job_rc= vm_boot_s= vm_job_s=
	: > "$log"
	t0=$(date +%s.%N)
	# Never -enable-kvm: it hangs on these machines. thread=single: multi-threaded TCG
	# locked the guest up now and then while ftrace patched kernel code (t/vm/README).
	# The serial console is qemu's stdout.
	"$FTK_VM_QEMU" -accel "${FTK_VM_ACCEL:-tcg,thread=single}" -cpu "${FTK_VM_CPU:-max}" -smp 2 -m 1024 -nographic -no-reboot -monitor none \
		-kernel "$FTK_VM_CACHE/kernel/vmlinuz" -initrd "$initrd" -append "$FTK_VM_APPEND" \
		"${drive[@]}" < /dev/null > "$log" 2>&1 &
	vm_qemu_pid=$!
	qpid=$!
	vm_log "qemu pid $qpid, wall-clock limit $limit s, console in $log"
	if [ -n "${FTK_VM_VERBOSE:-}" ]; then
		tail -n +1 -f --pid=$qpid "$log" | tr -d '\r' >&2 &
		tpid=$!
	fi
	while kill -0 $qpid 2>/dev/null; do
		now=$(date +%s.%N)
		if [ -z "$t_init" ] && grep -q '### FTK-VM-INIT' "$log"; then
			t_init=$now
		fi
		if awk -v n="$now" -v t="$t0" -v l="$limit" 'BEGIN { exit !(n - t > l) }'; then
			why="timed out after $limit s (wall clock): killed qemu"
			vm_kill
			break
		fi
		sleep 0.5
	done
	wait $qpid 2>/dev/null
	vm_qemu_pid=
	[ -n "$tpid" ] && { sleep 0.3; kill $tpid 2>/dev/null; wait $tpid 2>/dev/null; }
	t_done=$(date +%s.%N)
	[ -z "$t_init" ] && grep -q '### FTK-VM-INIT' "$log" && t_init=$t_done
	vm_total_s=$(awk -v a="$t0" -v b="$t_done" 'BEGIN { printf "%.1f", b - a }')
	[ -n "$t_init" ] && vm_boot_s=$(awk -v a="$t0" -v b="$t_init" 'BEGIN { printf "%.1f", b - a }')
	[ -n "$t_init" ] && vm_job_s=$(awk -v a="$t_init" -v b="$t_done" 'BEGIN { printf "%.1f", b - a }')
	vm_job_rc=$(tr -d '\r' < "$log" | sed -n 's/^.*### FTK-VM-JOB-END rc=\([0-9]*\).*/\1/p' | tail -n1)
	if [ -z "$why" ]; then
		if grep -q 'Kernel panic' "$log"; then
			why="kernel panic: $(tr -d '\r' < "$log" | grep -m1 'Kernel panic')"
		elif ! grep -q '### FTK-VM-DONE' "$log"; then
			why="the VM stopped before /init finished (no FTK-VM-DONE on the console)"
		fi
	fi
	vm_log "boot ${vm_boot_s:-?} s, job ${vm_job_s:-?} s, total $vm_total_s s (kernel $(cat "$FTK_VM_CACHE/kernel/package"))"
	if [ -n "$why" ]; then
		vm_log "FAILED: $why; the last 50 console lines ($log):"
		tr -d '\r' < "$log" | tail -n 50 | sed 's/^/  | /' >&2
		return 2
	fi
	return 0
}

# vm_kill: stop qemu (TERM, then KILL) and reap it. Safe to call twice; used by traps.
vm_kill() {
	local p=$vm_qemu_pid i
	[ -n "$p" ] || return 0
	kill -TERM "$p" 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	vm_qemu_pid=
}
