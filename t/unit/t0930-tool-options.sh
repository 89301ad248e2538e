#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every tool's options three ways (issue 24, item 7): what getopt takes
# (FTK_TOOL_OPTIONS=1 TOOL lists the very tables tool_parse() gives
# getopt_long), what the usage line and --help offer, and what the man
# page's OPTIONS section names. Each option of the usage line and --help is
# taken (and "TOOL OPTION [1] -h" does not call it unknown), with a value
# where --help shows one; each option taken is in the usage line (or
# another name of it), in --help and in the man page. t/lib/tool-options.py
# does the reading.
. "$top_srcdir/t/tap.sh"
lane unit

command -v python3 >/dev/null || skip_all "python3 not installed"
command -v mandoc >/dev/null || skip_all "mandoc not installed (apt-get install mandoc)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Nothing a tool's option handler does may reach the real tracefs.
export FTK_TRACEFS=$tmp/no-tracefs

for src in "$top_srcdir"/tools/ft*.c; do
	t=$(basename "$src" .c)
	python3 "$top_srcdir/t/lib/tool-options.py" "$top_builddir/tools/$t" \
		"$top_srcdir/man/man1/$t.1" >"$tmp/out" 2>"$tmp/err"
	ok "$t: its options read" test $? = 0 -a ! -s "$tmp/err" || sed 's/^/# /' "$tmp/err"
	n=$(grep -c '^ok ' "$tmp/out")
	ok "$t: options checked ($n)" test "$n" -gt 10
	while IFS= read -r line; do
		case $line in
		"ok - "*) _tap_result 0 "${line#ok - }" ;;
		"not ok - "*) _tap_result 1 "${line#not ok - }" ;;
		esac
	done <"$tmp/out"
done
done_testing
