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
