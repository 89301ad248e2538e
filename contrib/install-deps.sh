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
# chromium and node run ftprofile's SVG flame graph in a browser (t6120), with
# puppeteer-core from npm (below).
# perf-tools-unstable's syscount is t/bench/lat-bench.sh's anchor for ftsyscount.
test="trace-cmd libtracecmd-dev linux-perf mandoc python3 qemu-system-x86 busybox-static cpio
	util-linux procps file binutils time tmux chromium nodejs perf-tools-unstable"

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

# puppeteer-core (the DevTools protocol client t6120 drives Chromium with)
# from npm, outside the source tree, where the tests look for it. npm comes
# with nodejs from NodeSource; Debian's nodejs needs the npm package too.
node_dir=/usr/local/lib/ftkit-node
if [ "${1:-}" = --test ] &&
   ! NODE_PATH=$node_dir/node_modules node -e 'require("puppeteer-core")' 2>/dev/null; then
	command -v npm >/dev/null || apt-get install -y -q --no-install-recommends npm
	mkdir -p "$node_dir"
	[ -f "$node_dir/package.json" ] ||
		echo '{ "name": "ftkit-node", "private": true }' > "$node_dir/package.json"
	echo "install-deps.sh: installing puppeteer-core in $node_dir"
	npm install --prefix "$node_dir" --no-audit --no-fund puppeteer-core@24
fi
