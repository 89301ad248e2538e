/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef FTKIT_ELF_LOCAL_H
#define FTKIT_ELF_LOCAL_H

#include <stddef.h>
#include <stdint.h>

/*
 * A mapped, checked ELF file: the header's tables are found and checked
 * against the file size once; every accessor checks again what it reads.
 */
struct elf_file {
	const unsigned char	*map;
	size_t			size;
	int			is64;
	uint64_t		shoff, phoff;
	unsigned int		shnum, phnum, shentsize, phentsize, shstrndx;
	uint16_t		type;		/* ET_EXEC, ET_DYN, ... */
};

/* The fields we need of a section, program header or symbol, either class. */
struct elf_shdr { uint32_t name, type, link; uint64_t addr, off, size, entsize; };
struct elf_phdr { uint32_t type, flags; uint64_t off, vaddr, filesz, memsz; };

/*
 * Read @path's header, tables, symbols, notes and unwind sections into an
 * anonymous mapping of its size (never a SIGBUS when the file shrinks), and
 * check its header. 0, or -ENOENT/-EACCES (open), -ENOEXEC
 * (not ELF of the host's byte order, or a bad header), with the reason in @err.
 */
int elf_open(const char *path, struct elf_file *e, char *err, size_t errlen);
/* elf_open(), with the executable segments' code too (elf_syscall_sites() reads it). */
int elf_open_code(const char *path, struct elf_file *e, char *err, size_t errlen);
/* The same checks on an image in memory, which elf_close() will munmap(). */
int elf_open_mem(const void *map, size_t size, struct elf_file *e, char *err, size_t errlen);
void elf_close(struct elf_file *e);
int elf_shdr(const struct elf_file *e, unsigned int i, struct elf_shdr *s);
int elf_phdr(const struct elf_file *e, unsigned int i, struct elf_phdr *p);
/* Section @name: 1 and its header, 0 when absent, -ENOEXEC when the tables are bad. */
int elf_section(const struct elf_file *e, const char *name, struct elf_shdr *s);
/* Copy @len bytes at link-time address @vaddr from the file's PT_LOAD segments: 0 or -EFAULT. */
int elf_read_vaddr(const struct elf_file *e, uint64_t vaddr, void *buf, size_t len);
/* The GNU build-id note: its length (up to @max bytes copied to @id), 0 when none. */
size_t elf_build_id(const struct elf_file *e, unsigned char *id, size_t max);
/* .gnu_debuglink's file name, pointing into the map (NUL-terminated inside it), or NULL. */
const char *elf_debuglink(const struct elf_file *e);

/* PT_INTERP's path into @buf: 1, 0 when there is none, -ENOEXEC. */
int elf_interp(const struct elf_file *e, char *buf, size_t len);
/*
 * The file offsets of the syscall instructions that make syscall @nr in
 * the executable segments (x86-64: "mov $NR,%eax", argument moves,
 * "syscall"): how many (more than @max if some did not fit), or -ENOEXEC.
 */
long elf_syscall_sites(const struct elf_file *e, unsigned int nr, uint64_t *off, size_t max);

/* A defined function symbol, as elf_functions() gives it. */
struct elf_func {
	uint64_t	value;
	uint64_t	size;
	const char	*name;		/* in the map, NUL-terminated within its string table */
	int		global;		/* global or weak */
	int		typed;		/* FUNC or GNU_IFUNC; 0 for an untyped (NOTYPE) one */
	int		weak;		/* STB_WEAK */
};
/*
 * Call @fn for each defined function (FUNC, GNU_IFUNC, and NOTYPE) of the symbol table
 * of type @type (SHT_SYMTAB or SHT_DYNSYM). Returns the number of symbols
 * the table holds (0 when there is none), -ENOEXEC for a bad table, or
 * @fn's non-zero return.
 */
int elf_functions(const struct elf_file *e, uint32_t type,
		  int (*fn)(const struct elf_func *f, void *ctx), void *ctx);

/*
 * The file offset of @symbol + @add in the ELF file @path, for a uprobe.
 * Returns 0, -ENOENT (no such file or symbol), -ENOEXEC (not ELF),
 * -ERANGE (not in a loaded segment) or another -errno, with the reason
 * in @err. @is64 (if not NULL) says whether the file is ELF64.
 */
int ftk_elf_uprobe_offset(const char *path, const char *symbol, uint64_t add, uint64_t *offset,
			  int *is64, char *err, size_t errlen);

#endif
