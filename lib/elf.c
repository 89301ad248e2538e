// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ELF symbol lookup for uprobes: symbol name -> file offset.
 *
 * Written by hand over <elf.h> rather than with libelf: the job is one
 * symbol table walk and one program header walk, libelf is not among
 * ftkit's dependencies (see DESIGN.md), and libtracefs has no ELF code.
 * The file is mapped read-only and every table is bounds-checked against
 * the file size, so a truncated or hostile file gives -ENOEXEC, never a
 * crash. Only the host's byte order is read (uprobes go on binaries that
 * run here).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "elf-local.h"

/* The fields we need of a section, program header or symbol, either class. */
struct shdr { uint32_t type, link; uint64_t off, size, entsize; };
struct phdr { uint32_t type, flags; uint64_t off, vaddr, filesz, memsz; };
struct sym { uint32_t name; unsigned char info; uint16_t shndx; uint64_t value; };

struct elf {
	const unsigned char	*map;
	size_t			size;
	int			is64;
};

static int in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static int get_shdr(const struct elf *e, uint64_t off, struct shdr *s)
{
	if (e->is64) {
		Elf64_Shdr h;

		if (!in_file(e, off, sizeof(h)))
			return -ENOEXEC;
		memcpy(&h, e->map + off, sizeof(h));
		*s = (struct shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
	} else {
		Elf32_Shdr h;

		if (!in_file(e, off, sizeof(h)))
			return -ENOEXEC;
		memcpy(&h, e->map + off, sizeof(h));
		*s = (struct shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
	}
	return 0;
}

static int get_phdr(const struct elf *e, uint64_t off, struct phdr *p)
{
	if (e->is64) {
		Elf64_Phdr h;

		if (!in_file(e, off, sizeof(h)))
			return -ENOEXEC;
		memcpy(&h, e->map + off, sizeof(h));
		*p = (struct phdr){ h.p_type, h.p_flags, h.p_offset, h.p_vaddr, h.p_filesz,
				    h.p_memsz };
	} else {
		Elf32_Phdr h;

		if (!in_file(e, off, sizeof(h)))
			return -ENOEXEC;
		memcpy(&h, e->map + off, sizeof(h));
		*p = (struct phdr){ h.p_type, h.p_flags, h.p_offset, h.p_vaddr, h.p_filesz,
				    h.p_memsz };
	}
	return 0;
}

static void get_sym(const struct elf *e, uint64_t off, struct sym *s)
{
	if (e->is64) {
		Elf64_Sym h;

		memcpy(&h, e->map + off, sizeof(h));
		*s = (struct sym){ h.st_name, h.st_info, h.st_shndx, h.st_value };
	} else {
		Elf32_Sym h;

		memcpy(&h, e->map + off, sizeof(h));
		*s = (struct sym){ h.st_name, h.st_info, h.st_shndx, h.st_value };
	}
}

/* Does the symbol table name @sname match what the user asked for? "malloc" matches
 * "malloc" and the versioned "malloc@@GLIBC_2.2.5"; "malloc@GLIBC_2.2.5" only itself. */
static int name_match(const char *sname, size_t maxlen, const char *want)
{
	size_t n = strlen(want);

	if (n > maxlen || strncmp(sname, want, n))
		return 0;
	return sname[n] == '\0' || (!strchr(want, '@') && sname[n] == '@');
}

/*
 * Look @name up in the symbol table of section type @type. Defined function
 * (or ifunc, or untyped) symbols only; a global or weak one wins over a local
 * one of the same name. Returns 1 and the value, 0 if absent, or -ENOEXEC.
 */
static int find_in(const struct elf *e, uint64_t shoff, unsigned int shnum, uint64_t shentsize,
		   uint32_t type, const char *name, uint64_t *value, int *nsyms)
{
	int found = 0, best_bind = -1;
	unsigned int i;

	for (i = 0; i < shnum; i++) {
		struct shdr s, str;
		uint64_t j, n, esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

		if (get_shdr(e, shoff + i * shentsize, &s))
			return -ENOEXEC;
		if (s.type != type)
			continue;
		if (s.link >= shnum || get_shdr(e, shoff + (uint64_t)s.link * shentsize, &str))
			return -ENOEXEC;
		if (!in_file(e, s.off, s.size) || !in_file(e, str.off, str.size))
			return -ENOEXEC;
		if (s.entsize && s.entsize != esz)
			return -ENOEXEC;
		n = s.size / esz;
		*nsyms += n;
		for (j = 0; j < n; j++) {
			struct sym y;
			int st, bind;

			get_sym(e, s.off + j * esz, &y);
			st = e->is64 ? ELF64_ST_TYPE(y.info) : ELF32_ST_TYPE(y.info);
			bind = e->is64 ? ELF64_ST_BIND(y.info) : ELF32_ST_BIND(y.info);
			if (y.shndx == SHN_UNDEF || y.name >= str.size)
				continue;
			if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
				continue;
			if (!name_match((const char *)e->map + str.off + y.name,
					str.size - y.name - 1, name))
				continue;
			bind = bind == STB_LOCAL ? 0 : 1;
			if (bind > best_bind) {
				best_bind = bind;
				*value = y.value;
				found = 1;
			}
		}
	}
	return found;
}

int ftk_elf_uprobe_offset(const char *path, const char *symbol, uint64_t add, uint64_t *offset,
			  int *is64, char *err, size_t errlen)
{
	uint64_t shoff, phoff, vaddr = 0;
	unsigned int shnum, phnum, shentsize, phentsize, i;
	struct elf e = { 0 };
	int fd, ret, nsyms = 0;
	struct stat st;
	void *map;

	/* O_NONBLOCK: a FIFO without a writer must not hang open(); it is refused below. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "'%s' is not a regular file: an ELF file is needed", path);
		return -ENOEXEC;
	}
	if (st.st_size < EI_NIDENT) {
		close(fd);
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		return -ENOEXEC;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "cannot map '%s': %s", path, strerror(-ret));
		return ret;
	}
	e.map = map;
	e.size = st.st_size;

	ret = -ENOEXEC;
	if (memcmp(e.map, ELFMAG, SELFMAG)) {
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		goto out;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e.map[EI_DATA] != ELFDATA2LSB) {
#else
	if (e.map[EI_DATA] != ELFDATA2MSB) {
#endif
		snprintf(err, errlen, "'%s' has a foreign byte order", path);
		goto out;
	}
	e.is64 = e.map[EI_CLASS] == ELFCLASS64;
	if (is64)
		*is64 = e.is64;
	if (e.is64) {
		Elf64_Ehdr h;

		if (!in_file(&e, 0, sizeof(h)))
			goto bad;
		memcpy(&h, e.map, sizeof(h));
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else if (e.map[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;

		if (!in_file(&e, 0, sizeof(h)))
			goto bad;
		memcpy(&h, e.map, sizeof(h));
		shoff = h.e_shoff, shnum = h.e_shnum, shentsize = h.e_shentsize;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else {
		goto bad;
	}
	if (shnum && shentsize < (e.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		goto bad;
	if (phentsize < (e.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		goto bad;

	/* .symtab first (it has the static functions too), then .dynsym (stripped files). */
	ret = find_in(&e, shoff, shnum, shentsize, SHT_SYMTAB, symbol, &vaddr, &nsyms);
	if (ret == 0)
		ret = find_in(&e, shoff, shnum, shentsize, SHT_DYNSYM, symbol, &vaddr, &nsyms);
	if (ret < 0)
		goto bad;
	if (ret == 0) {
		snprintf(err, errlen, "no function '%s' in '%s' (%s)", symbol, path,
			 nsyms ? "not in .symtab or .dynsym" : "it has no symbol table");
		ret = -ENOENT;
		goto out;
	}
	vaddr += add;

	/*
	 * uprobes take a file offset: find the loadable segment that holds the
	 * address. This is the same for executables, PIE executables and
	 * shared libraries: p_vaddr and p_offset are both link-time values.
	 */
	for (i = 0; i < phnum; i++) {
		struct phdr p;

		if (get_phdr(&e, phoff + (uint64_t)i * phentsize, &p))
			goto bad;
		if (p.type != PT_LOAD || vaddr < p.vaddr || vaddr >= p.vaddr + p.filesz)
			continue;
		*offset = vaddr - p.vaddr + p.off;
		ret = 0;
		goto out;
	}
	snprintf(err, errlen, "'%s'+%#llx in '%s' is not in a loaded segment", symbol,
		 (unsigned long long)add, path);
	ret = -ERANGE;
	goto out;
bad:
	ret = -ENOEXEC;
	snprintf(err, errlen, "'%s' is not a valid ELF file", path);
out:
	munmap(map, st.st_size);
	return ret;
}
