#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Configure and build ftkit out of tree in ./build (or $FTK_BUILD).
#   contrib/build.sh [configure options...]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=${FTK_BUILD:-$top/build}
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ] || [ $# -gt 0 ]; then
	"$top/configure" "$@"
fi
make -j"$(nproc)"
