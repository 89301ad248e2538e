/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The checks an event format from a file passes before libtraceevent parses it. */
#ifndef FTKIT_FORMAT_CHECK_H
#define FTKIT_FORMAT_CHECK_H

#include <stddef.h>

int ftk_format_check(const char *buf, size_t size, size_t *keep, const char **why);

#endif
