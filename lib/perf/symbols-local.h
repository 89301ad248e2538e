/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the unwind module needs of the symbols module; never installed. */
#ifndef FTKIT_SYMBOLS_LOCAL_H
#define FTKIT_SYMBOLS_LOCAL_H

#include <stdint.h>
#include <sys/types.h>

#include <ftkit/symbols.h>

#include "elf-local.h"

/* The mapping that holds an address, and its object's unwind tables. */
struct sym_where {
	uint64_t		start, end;	/* the object's PT_LOADs, in the process */
	uint64_t		bias;		/* process address - object vaddr */
	const struct elf_file	*elf;		/* the object's file, mapped; NULL for anon */
	uint64_t		eh_hdr_vaddr;	/* .eh_frame_hdr (object vaddr), 0 if none */
	uint64_t		eh_hdr_size;
	uint64_t		lo, hi;		/* the object's executable span (process addresses) */
	const char		*path;
};

/* 0 and *@w for the mapping of @pid that holds @addr; -ENOENT when none. */
int symbols_where(struct ftk_symbols *s, pid_t pid, uint64_t addr, struct sym_where *w);

#endif
