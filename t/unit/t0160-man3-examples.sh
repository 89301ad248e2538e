#!/bin/bash
# Each man3 page's EXAMPLE compiles and links against the built libftkit,
# and every exported symbol of the reading modules (stream, merge,
# tracefile reader, print) is named by a man3 page.
. "$top_srcdir/t/tap.sh"
lane unit
cc=${CC:-cc}
command -v "$cc" > /dev/null || skip_all "no C compiler"
tmp=$(mktemp -d /tmp/ftk-t0160-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cflags="-I$top_srcdir/include -I$top_builddir/include $(pkg-config --cflags libtraceevent 2>/dev/null)"
libs="-L$top_builddir/lib/.libs -lftkit $(pkg-config --libs libtraceevent 2>/dev/null)"

for page in "$top_srcdir"/man/man3/ftk_*.3; do
	name=$(basename "$page")
	awk '/^\.Bd -literal/ { on = 1; next } /^\.Ed/ { on = 0 } on' "$page" |
		sed 's/\\e/\\/g' > "$tmp/ex.c"
	ok "$name: EXAMPLE compiles and links" \
		"$cc" -Wall -Werror $cflags -o "$tmp/ex" "$tmp/ex.c" $libs
done
names=$(cat "$top_srcdir"/man/man3/ftk_*.3 | sed -n 's/^\.Nm \([a-z_0-9]*\).*/\1/p' | sort -u)
missing=
for sym in $(grep -ho '^FTK_API [^(]*(' "$top_srcdir"/include/ftkit/{stream,merge,tracefile,print}.h |
	     sed 's/($//; s/.*[ *]//' | sort -u); do
	echo "$names" | grep -qx "$sym" || missing="$missing $sym"
done
is "$missing" "" "every reading-side symbol has a man3 page"
done_testing
