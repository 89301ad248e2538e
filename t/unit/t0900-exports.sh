#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The library exports exactly what the headers mark FTK_API, the version
# script lists exactly that, and libftkit(3) names every one of them.
. "$top_srcdir/t/tap.sh"
lane unit

so=$(ls "$top_builddir"/lib/.libs/libftkit.so.* 2>/dev/null | head -1)
[ -n "$so" ] || skip_all "no shared libftkit built"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sed 's/@.*//' |
	grep -v '^_' | sort -u > "$tmp/exported"
sed -n '/global:/,/local:/p' "$top_srcdir/lib/libftkit.map" | grep -o 'ftk_[a-z0-9_]*' |
	sort -u > "$tmp/map"
# FTK_API declarations: the function name before the first '('.
cat "$top_srcdir"/include/ftkit/*.h |
	perl -0ne 'while (/FTK_API[^;{(]*?\b(ftk_\w+)\s*\(/g) { print "$1\n" }' |
	sort -u > "$tmp/api"
grep -o 'ftk_[a-z0-9_]*' "$top_srcdir/man/man3/libftkit.3" 2>/dev/null | sort -u > "$tmp/man"

ok "exported symbols are the version script's" diff -u "$tmp/map" "$tmp/exported"
ok "the version script lists every FTK_API function" diff -u "$tmp/api" "$tmp/map"
ok "libftkit(3) names every FTK_API function" \
	bash -c "comm -23 '$tmp/api' '$tmp/man' | sed 's/^/missing: /' | grep . && exit 1 || exit 0"
ok "every symbol is versioned FTKIT_*" \
	bash -c "nm -D --defined-only '$so' | grep ' ftk_' | grep -v '@@FTKIT_' | grep . && exit 1 || exit 0"
# Issue 11.11: the library owns no process-wide signal disposition (no
# handlers, no jumping out of a library call); formats that would crash
# libtraceevent are refused before it sees them (lib/format-check.c).
ok "libftkit imports none of sigaction, signal, siglongjmp" \
	bash -c "nm -D '$so' | grep -E 'sigaction|signal|siglongjmp|sigsetjmp' && exit 1 || exit 0"

soname=$(objdump -p "$so" | awk '/SONAME/ { print $2 }')
is "$soname" "libftkit.so.0" "soname carries the interface major"
pkgver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$top_builddir/config.h")
is "$(ftinfo --version)" "ftinfo (ftkit) $pkgver" "the tools report AC_INIT's version"
done_testing
