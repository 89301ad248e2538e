#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ftprofile's SVG flame graph in a real browser: headless Chromium driven
# by puppeteer-core (t/helpers/svg-browser.js) over the SVG of a recorded
# known call tree (t/helpers/profile-work: main -> a -> b -> spin), drawn
# from the folded stacks of the same run. Checked there: the SVG parses as
# XML and loads as an SVG document, every frame is as wide as its samples
# in the folded stacks, a search for spin highlights its frames and no
# other (and shows its share), a click zooms a frame to the full width
# (its descendants scale, its ancestors span, the rest hide), Clear and
# Reset Zoom restore. contrib/install-deps.sh --test installs Chromium and
# puppeteer-core (in /usr/local/lib/ftkit-node; FTK_NODE_MODULES overrides).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/lib/browser.sh"
lane interop
need perf_software

W=$top_builddir/t/helpers/profile-work
[ -x "$W" ] || skip_all "t/helpers/profile-work is not built (make check builds it)"
need_browser
tmp=$(mktemp -d /tmp/ftk-t6120-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# One run, folded; the SVG from those same stacks.
ftprofile -F 999 -o "$tmp/run.folded" "$W" fixed 3000 2> "$tmp/err"
is "$?" 0 "ftprofile records profile-work" || sed 's/^/# /' "$tmp/err"
ok "the folded stacks have main;a;b;spin" grep -q ';main;a;b;spin [0-9]*$' "$tmp/run.folded"
ftprofile -i "$tmp/run.folded" -f svg --title "profile-work" -o "$tmp/run.svg" 2> "$tmp/err"
is "$?" 0 "ftprofile -i FOLDED -f svg writes the flame graph" || sed 's/^/# /' "$tmp/err"

# The browser's own TAP lines, renumbered into this file's.
timeout 120 node "$top_srcdir/t/helpers/svg-browser.js" "$chromium" "$tmp/run.svg" \
	"$tmp/run.folded" spin > "$tmp/tap" 2> "$tmp/node.err"
rc=$?
tap_merge "$tmp/tap"
is "$rc" 0 "the browser run exits 0" || sed 's/^/# /' "$tmp/node.err" | head -20
done_testing
