#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh Debian 12 machine, as root: install the dependencies, build,
# and run ftkit's main job on a built-in default.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/contrib/install-deps.sh"
"$top/contrib/build.sh" >/dev/null
echo
echo "== ftinfo: what this kernel's tracing allows"
"$top/build/tools/ftinfo"
