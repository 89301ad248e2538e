/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small TAP producer for C tests:
 *	plan(3); ok(x == 1, "x is one"); skip("no kprobes"); done_testing();
 * Every check runs even after one fails; a failure prints its file and line.
 */
#ifndef FTK_TAP_H
#define FTK_TAP_H

#include <stdarg.h>

void plan(int n);
int ok_at(const char *file, int line, int cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bail_out(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Prints the plan if none was given and returns the exit code: 0 if all passed. */
int done_testing(void);
/* Skip the whole file unless FTK_LANES (if set) names @lane. */
void need_lane(const char *lane);

#define ok(cond, ...)		ok_at(__FILE__, __LINE__, !!(cond), __VA_ARGS__)
#define is_int(a, b, name)						\
	({ long long _a = (a), _b = (b);					\
	   int _r = ok(_a == _b, "%s", name);				\
	   if (!_r) diag("   got: %lld\n  want: %lld", _a, _b);		\
	   _r; })
#define is_str(a, b, name)						\
	({ const char *_a = (a), *_b = (b);				\
	   int _r = ok(_a && _b && !strcmp(_a, _b), "%s", name);		\
	   if (!_r) diag("   got: '%s'\n  want: '%s'", _a ? _a : "(null)",	\
			 _b ? _b : "(null)");					\
	   _r; })

#endif
