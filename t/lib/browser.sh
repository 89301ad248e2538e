# SPDX-License-Identifier: GPL-2.0-or-later
# The browser tests' shell side (t6120, t6130): headless Chromium driven
# by a node script with puppeteer-core (t/helpers/browser-tap.js).
#
#   need_browser     skip_all unless node, Chromium and puppeteer-core are
#                    here; sets chromium, exports NODE_PATH (the npm
#                    packages contrib/install-deps.sh --test installs in
#                    /usr/local/lib/ftkit-node; FTK_NODE_MODULES overrides)
#   tap_merge FILE [PREFIX]   the node script's TAP lines in FILE, renumbered
#                    into this test's, names prefixed with "PREFIX: "

need_browser() {
	command -v node >/dev/null || skip_all "node is not installed (contrib/install-deps.sh --test)"
	chromium=${FTK_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
	[ -n "$chromium" ] && [ -x "$chromium" ] ||
		skip_all "chromium is not installed (contrib/install-deps.sh --test)"
	NODE_PATH=${FTK_NODE_MODULES:-/usr/local/lib/ftkit-node/node_modules}
	export NODE_PATH
	node -e 'require("puppeteer-core")' 2>/dev/null ||
		skip_all "puppeteer-core is not in $NODE_PATH (contrib/install-deps.sh --test)"
}

tap_merge() {
	local line pre=${2:+$2: }
	while IFS= read -r line; do
		case $line in
		"ok "*) _tap_result 0 "$pre${line#ok * - }" ;;
		"not ok "*) _tap_result 1 "$pre${line#not ok * - }" ;;
		*) echo "$line" ;;
		esac
	done < "$1"
}
