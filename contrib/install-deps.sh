#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what ftkit needs on Debian 12, as root.
#   contrib/install-deps.sh          build dependencies
#   contrib/install-deps.sh --test   and what the test suite uses
set -e

build="build-essential autoconf automake libtool pkg-config
	libtracefs-dev libtraceevent-dev libtraceevent1-plugin
	libncurses-dev libunwind-dev libiberty-dev libzstd-dev zlib1g-dev"
# trace-cmd and perf are the references the interop tests compare against, and
# libtracecmd-dev (trace-cmd's own reader library) a second trace.dat reader;
# qemu, busybox and cpio run the full-kernel lane; mandoc lints man pages;
# tmux drives fttop's screen; time's /usr/bin/time measures peak memory (t0160);
# chromium and node run ftprofile's SVG flame graph (t6120) and ftkit's
# profiles in speedscope (t6130) in a browser, and DuckDB (t5040), with npm
# packages (below).
# perf-tools-unstable's syscount is t/bench/lat-bench.sh's anchor for ftsyscount.
# strace's escapes and libxml2-utils' xmllint check the writers of foreign names (t0003).
# rtla is the reference of ftlat's timerlat and osnoise views (in the VM, t8030).
test="trace-cmd libtracecmd-dev linux-perf mandoc python3 qemu-system-x86 busybox-static cpio
	util-linux procps file binutils time tmux chromium nodejs perf-tools-unstable
	strace libxml2-utils rtla"
# The kernels the VM lane boots: Debian's stock one, and its PREEMPT_RT one (built
# with CONFIG_SCHED_TRACER, osnoise, timerlat and hwlat: t8030). t/vm/vm.sh fetches
# them with apt-get download into the build tree; they are never installed here
# (that would put kernels in /boot and run update-grub), only checked to be known.
vm_kernels="linux-image-amd64 linux-image-rt-amd64"

pkgs=$build
[ "${1:-}" = --test ] && pkgs="$build $test"

if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get)" >&2
	exit 2
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "install-deps.sh: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

if [ "${1:-}" = --test ]; then
	for k in $vm_kernels; do
		apt-cache depends "$k" 2>/dev/null | grep -q 'Depends: linux-image-[0-9]' ||
			echo "install-deps.sh: apt knows no $k: the VM lane cannot fetch it" >&2
	done
fi

# puppeteer-core (the DevTools protocol client t6120 and t6130 drive
# Chromium with), speedscope (t6130 opens ftkit's profiles in its built
# web app, dist/release/index.html) and DuckDB's node client (t5040 loads
# ftreport -o csv and -o json into it; Debian has no DuckDB, and its Python
# package would need pip) from npm, outside the source tree, where
# the tests look for them. npm comes with nodejs from NodeSource; Debian's
# nodejs needs the npm package too.
node_dir=/usr/local/lib/ftkit-node
npm_add() {	# npm_add PACKAGE@VERSION TEST-FILE
	[ -e "$node_dir/node_modules/${1%@*}/$2" ] && return 0
	command -v npm >/dev/null || apt-get install -y -q --no-install-recommends npm
	mkdir -p "$node_dir"
	[ -f "$node_dir/package.json" ] ||
		echo '{ "name": "ftkit-node", "private": true }' > "$node_dir/package.json"
	echo "install-deps.sh: installing ${1%@*} in $node_dir"
	npm install --prefix "$node_dir" --no-audit --no-fund "$1"
}
if [ "${1:-}" = --test ]; then
	npm_add puppeteer-core@24 package.json
	npm_add speedscope@1 dist/release/index.html
	# its native binding comes as @duckdb/node-bindings-linux-x64
	npm_add @duckdb/node-api@1.5.6-r.1 package.json
fi
