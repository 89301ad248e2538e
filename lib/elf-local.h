/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef FTKIT_ELF_LOCAL_H
#define FTKIT_ELF_LOCAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The file offset of @symbol + @add in the ELF file @path, for a uprobe.
 * Returns 0, -ENOENT (no such file or symbol), -ENOEXEC (not ELF),
 * -ERANGE (not in a loaded segment) or another -errno, with the reason
 * in @err. @is64 (if not NULL) says whether the file is ELF64.
 */
int ftk_elf_uprobe_offset(const char *path, const char *symbol, uint64_t add, uint64_t *offset,
			  int *is64, char *err, size_t errlen);

#endif
