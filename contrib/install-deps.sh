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
# perf-tools-unstable's syscount is t/bench/lat-bench.sh's anchor for ftsyscount.
test="trace-cmd libtracecmd-dev linux-perf mandoc python3 qemu-system-x86 busybox-static cpio
	util-linux procps file binutils time tmux perf-tools-unstable"

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
