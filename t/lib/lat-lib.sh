# SPDX-License-Identifier: GPL-2.0-or-later
# For the latency tools' tests: run a reference (perf stat) on a COMMAND in
# the environment the tool gives its COMMAND. In the build tree the tools
# are libtool wrappers that add an LD_LIBRARY_PATH, whose search makes the
# dynamic loader fail openat calls: the reference must see the same.
#
#   lat_env_of TOOL     remember the LD_LIBRARY_PATH TOOL's COMMAND gets
#   lat_env CMD...      run CMD with it
# The workload helper: make check exports LAT_WORK; the VM lane's image has
# the build tree at the same relative path.
: "${LAT_WORK:=$top_builddir/t/helpers/lat-work}"
[ -x "$LAT_WORK" ] || skip_all "t/helpers/lat-work is not built (make check builds it)"

lat_env_of() {
	_lat_ldlp=${tmp:-/tmp}/lat-ldlp.$$
	"$1" -- sh -c 'printenv LD_LIBRARY_PATH >"$0"' "$_lat_ldlp" >/dev/null 2>&1
}

lat_env() {
	if [ -s "$_lat_ldlp" ]; then
		LD_LIBRARY_PATH=$(cat "$_lat_ldlp") "$@"
	else
		env -u LD_LIBRARY_PATH "$@"
	fi
}

# json_ok: true when python3 can parse the tools' JSON here (the VM has none).
json_ok() {
	command -v python3 >/dev/null
}

# heatmap_check SVG COUNT WHAT: the heat map parses as XML (where python3
# has its xml module: not in the VM), its cells' counts sum to COUNT (the
# same run's histogram), and it has tooltips and a legend. Four checks.
heatmap_check() {
	local svg=$1 count=$2 what=$3 cells
	if command -v python3 >/dev/null && python3 -c 'import xml.etree.ElementTree' 2>/dev/null; then
		ok "$what: the heat map parses as XML" python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
sys.exit(root.tag != "{http://www.w3.org/2000/svg}svg")' "$svg"
	else
		skip "$what: no python3 xml module here to parse the SVG"
	fi
	cells=$(grep -o 'class="cell"[^>]*data-count="[0-9]*"' "$svg" |
		sed 's/.*data-count="//; s/"//' | awk '{ s += $1 } END { print s + 0 }')
	is "$cells" "$count" "$what: the heat map's cells sum to the histogram's $count"
	ok "$what: every cell has a tooltip" test "$(grep -c '<rect class="cell".*<title>.*</title></rect>' "$svg")" = \
		"$(grep -c '<rect class="cell"' "$svg")"
	ok "$what: a legend" grep -q 'count per cell:' "$svg"
}

# The latency tools' kernel path (synthetic events and hists on them):
#   synth_left ROOT        how many of their synthetic events are left in ROOT
#   kernel_path_skip N ERR N skips with the reason the tool gave (-v) in ERR
synth_left() {
	grep -Ec '^ftkit_[^ ]*_(sys|io|rq[wnp]) ' "$1/synthetic_events" 2>/dev/null
}
kernel_path_skip() {
	local n=$1 why i
	why=$(grep -o 'no kernel path: .*' "$2" | head -1)
	for i in $(seq 1 "$n"); do
		skip "${why:-no kernel path here}"
	done
}
