/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Strings from the traced system (process names, paths, argv, symbols)
 * as output. Such a string is any bytes but NUL: these writers make it
 * valid JSON, or safe terminal text, whatever it holds (lib/util/escape.c).
 */
#ifndef FTKIT_TEXT_H
#define FTKIT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * @s (at most @len bytes, or up to its NUL) as a JSON string, quotes
 * included: valid UTF-8 as it is, anything else as U+FFFD.
 */
FTK_API void ftk_json_str(FILE *f, const char *s, size_t len);

/*
 * @s as terminal text with strace's escapes ("\n", "\t", "\33", "\303"):
 * into @buf (returns the full length, as snprintf), or to @f.
 */
FTK_API size_t ftk_text_escape(char *buf, size_t size, const char *s, size_t len);
FTK_API void ftk_text_str(FILE *f, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
