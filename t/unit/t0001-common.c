// SPDX-License-Identifier: LGPL-2.1-or-later
/* Error texts, string lists, log levels and the choice parser. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/ftkit.h>

#include "internal.h"
#include "tap.h"

static int printed;

static int count_print(enum ftk_log_level level, const char *fmt, va_list ap)
{
	printed++;
	return 0;
}

int main(void)
{
	char buf[128], **list = NULL, *s;

	need_lane("unit");

	is_str(ftk_strerror(-EPERM, buf, sizeof(buf)), "Operation not permitted",
	       "ftk_strerror of a negative errno");
	is_str(ftk_strerror(-FTK_E_TRUNC, buf, sizeof(buf)), "file is truncated",
	       "ftk_strerror of an ftkit code");
	is_str(ftk_strerror(FTK_E_FORMAT, buf, sizeof(buf)), "malformed data",
	       "ftk_strerror takes either sign");
	ok(FTK_E_FIRST > 4095, "ftkit codes sit above every errno");

	is_int(ftk_list_len(NULL), 0, "empty list has no entries");
	ok(ftk_list_add(&list, "a") == 0 && ftk_list_add(&list, "b") == 0, "list grows");
	is_int(ftk_list_len(list), 2, "list has two entries");
	is_str(list[1], "b", "list keeps order");
	ftk_list_free(list);
	ftk_list_free(NULL);

	s = ftk_tracefs_choice("[local] global counter\n");
	is_str(s, "local", "choice in brackets at the start");
	free(s);
	s = ftk_tracefs_choice("local global [x86-tsc]");
	is_str(s, "x86-tsc", "choice in brackets at the end");
	free(s);
	s = ftk_tracefs_choice("nop\n");
	is_str(s, "nop", "choice of a plain value");
	free(s);

	unsetenv("FTK_LOG_LEVEL");
	ftk_set_print(count_print);
	ftk_set_log_level(FTK_LOG_WARN);
	ftk_log(FTK_LOG_INFO, "hidden\n");
	ftk_log(FTK_LOG_WARN, "shown\n");
	is_int(printed, 1, "messages above the level are dropped");
	setenv("FTK_LOG_LEVEL", "debug", 1);
	ftk_log(FTK_LOG_DEBUG, "shown\n");
	is_int(printed, 2, "FTK_LOG_LEVEL overrides the level");
	ok(ftk_set_print(NULL) == count_print, "ftk_set_print returns the previous callback");
	ftk_log(FTK_LOG_ERROR, "nowhere\n");
	is_int(printed, 2, "a NULL callback silences the library");

	errno = 0;
	is_int(ftk_err(-EINVAL), -EINVAL, "ftk_err returns the code");
	is_int(errno, EINVAL, "ftk_err sets errno");
	return done_testing();
}
