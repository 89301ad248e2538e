/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * syscall: the names and numbers of this machine's system calls.
 */
#ifndef FTKIT_SYSCALL_H
#define FTKIT_SYSCALL_H


#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name of syscall @nr of this machine's native ABI ("openat"), or NULL if unknown. */
FTK_API const char *ftk_syscall_name(long nr);
/* The number of syscall @name, or -ENOENT. */
FTK_API long ftk_syscall_nr(const char *name);

#ifdef __cplusplus
}
#endif
#endif
