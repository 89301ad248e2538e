/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks an event format from a file passes before libtraceevent parses it. */
#ifndef FTKIT_FORMAT_CHECK_H
#define FTKIT_FORMAT_CHECK_H

#include <stddef.h>

int ftk_format_check(const char *buf, size_t size, size_t *keep, const char **why);

/* The token types of libtraceevent's tokenizer (event-parse.c __read_token()). */
enum tok_type { T_NONE, T_SPACE, T_NEWLINE, T_DELIM, T_OP, T_ITEM, T_DQUOTE, T_SQUOTE };
/* The type a character starts, as its get_type() says; formats and filters share it. */
enum tok_type ftk_tep_char_type(int ch);

#endif
