#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every man page lints clean, every tool has one, and every man3 EXAMPLE
# compiles and links against the library.
. "$top_srcdir/t/tap.sh"
lane unit

command -v mandoc >/dev/null || skip_all "mandoc not installed (apt-get install mandoc)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

for page in "$top_srcdir"/man/man[135]/*.[135]; do
	[ -e "$page" ] || continue
	name=${page#"$top_srcdir"/}
	# .so links are lint-checked through their target.
	if head -1 "$page" | grep -q '^\.so '; then
		target="$top_srcdir/man/$(head -1 "$page" | cut -d' ' -f2)"
		ok "$name links to an existing page" test -e "$target"
		continue
	fi
	out=$(mandoc -Tlint -Wwarning "$page" 2>&1)
	is "$out" "" "$name lints clean"
done

for tool in "$top_srcdir"/tools/ft*.c; do
	t=$(basename "$tool" .c)
	ok "$t has a man page" test -e "$top_srcdir/man/man1/$t.1"
	ok "$t --help works" bash -c '"$0" --help >/dev/null' "$top_builddir/tools/$t"
done

# Extract the EXAMPLE section's literal block, undo roff escapes, compile.
for page in "$top_srcdir"/man/man3/*.3; do
	grep -q '^\.S[Hh] EXAMPLE' "$page" || continue
	name=$(basename "$page" .3)
	awk '/^\.S[Hh] EXAMPLE/ { on = 1; next } /^\.S[Hh]/ { on = 0 }
	     on && /^\.(nf|EX|Bd -literal)/ { lit = 1; next }
	     on && /^\.(fi|EE|Ed)/ { lit = 0; next }
	     on && lit { print }' "$page" |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' \
		    -e 's/\\&//g' > "$tmp/$name.c"
	ok "$name(3) EXAMPLE compiles and links" \
		${CC:-cc} -Wall -Werror -I"$top_srcdir/include" -I"$top_builddir/include" \
		-o "$tmp/$name" "$tmp/$name.c" -L"$top_builddir/lib/.libs" -lftkit
done
done_testing
