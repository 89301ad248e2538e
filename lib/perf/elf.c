// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A small ELF reader: symbol tables, sections, program headers, the
 * build-id note and .gnu_debuglink. Used for uprobe offsets (probe) and
 * for naming addresses and finding unwind tables (symbols, unwind).
 *
 * Written by hand over <elf.h> rather than with libelf: the jobs are a
 * few table walks over a read-only copy of the parts used (elf_open()),
 * which the symbols module keeps for as long as it needs the object's
 * .eh_frame; libelf would copy
 * sections out and add a dependency for no gain. Every table is
 * bounds-checked against the file size, so a truncated or hostile file
 * gives -ENOEXEC, never a crash. Only the host's byte order is read
 * (uprobes and profiles are of binaries that run here).
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

static int in_file(const struct elf_file *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/*
 * The two classes differ in field widths and order, not in names: one
 * reader per class, the names and the bounds check said once.
 */
#define ELF_COPY(e, off, h)						\
	do {								\
		if (!in_file(e, off, sizeof(h)))			\
			return -ENOEXEC;				\
		memcpy(&(h), (e)->map + (off), sizeof(h));		\
	} while (0)
#define SHDR_FIELDS(h)	(h).sh_name, (h).sh_type, (h).sh_link, (h).sh_addr, (h).sh_offset, \
			(h).sh_size, (h).sh_entsize
#define PHDR_FIELDS(h)	(h).p_type, (h).p_flags, (h).p_offset, (h).p_vaddr, (h).p_filesz, \
			(h).p_memsz

int elf_shdr(const struct elf_file *e, unsigned int i, struct elf_shdr *s)
{
	uint64_t off = e->shoff + (uint64_t)i * e->shentsize;

	if (i >= e->shnum)
		return -ENOEXEC;
	if (e->is64) {
		Elf64_Shdr h;

		ELF_COPY(e, off, h);
		*s = (struct elf_shdr){ SHDR_FIELDS(h) };
	} else {
		Elf32_Shdr h;

		ELF_COPY(e, off, h);
		*s = (struct elf_shdr){ SHDR_FIELDS(h) };
	}
	return 0;
}

int elf_phdr(const struct elf_file *e, unsigned int i, struct elf_phdr *p)
{
	uint64_t off = e->phoff + (uint64_t)i * e->phentsize;

	if (i >= e->phnum)
		return -ENOEXEC;
	if (e->is64) {
		Elf64_Phdr h;

		ELF_COPY(e, off, h);
		*p = (struct elf_phdr){ PHDR_FIELDS(h) };
	} else {
		Elf32_Phdr h;

		ELF_COPY(e, off, h);
		*p = (struct elf_phdr){ PHDR_FIELDS(h) };
	}
	return 0;
}

int elf_read_vaddr(const struct elf_file *e, uint64_t vaddr, void *buf, size_t len)
{
	struct elf_phdr p;
	unsigned int i;

	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &p))
			return -EFAULT;
		if (p.type != PT_LOAD || vaddr < p.vaddr || vaddr - p.vaddr >= p.filesz ||
		    len > p.filesz - (vaddr - p.vaddr))
			continue;
		if (!in_file(e, p.off + (vaddr - p.vaddr), len))
			return -EFAULT;
		memcpy(buf, e->map + p.off + (vaddr - p.vaddr), len);
		return 0;
	}
	return -EFAULT;
}

static int check(const void *map, size_t size, struct elf_file *e, const char *path, char *err,
		 size_t errlen);

void elf_close(struct elf_file *e)
{
	if (e->map)
		munmap((void *)e->map, e->size);
	e->map = NULL;
}

/* Read [@off, @off + @len) of the file into the same place of @map, as far as the file holds it. */
static void load(int fd, unsigned char *map, size_t size, uint64_t off, uint64_t len)
{
	ssize_t r;

	if (off >= size)
		return;
	if (len > size - off)
		len = size - off;
	while (len) {
		r = pread(fd, map + off, len, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;	/* cut short since fstat(): the rest reads as zeros */
		off += r;
		len -= r;
	}
}

/* A section this reader uses: symbols, strings, notes, unwind tables, the debuglink. */
static int wanted(const struct elf_file *e, const struct elf_shdr *s, const struct elf_shdr *str)
{
	static const char *const names[] = { ".eh_frame", ".eh_frame_hdr", ".gnu_debuglink" };
	size_t i, n;

	if (s->type == SHT_SYMTAB || s->type == SHT_DYNSYM || s->type == SHT_STRTAB ||
	    s->type == SHT_NOTE)
		return 1;
	if (!str || s->name >= str->size || !in_file(e, str->off, str->size))
		return 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		n = strlen(names[i]) + 1;
		if (str->size - s->name >= n && !memcmp(e->map + str->off + s->name, names[i], n))
			return 1;
	}
	return 0;
}

/*
 * The file is not mapped: a mapping of a file that shrinks (truncated by
 * its owner, who may be anyone whose program is profiled) raises SIGBUS
 * on the next read. Its parts this reader uses (the header, its tables,
 * and the sections wanted() names) are read into an anonymous mapping as
 * large as the file, whose other pages are never touched: they cost no
 * memory, and read as zeros. A file cut short while it is read is the
 * same: zeros where it ended, which the checks then refuse.
 */
static int open_how(const char *path, struct elf_file *e, int code, char *err, size_t errlen)
{
	struct elf_shdr sh, str;
	struct elf_phdr ph;
	unsigned char *map;
	struct stat st;
	unsigned int i;
	int fd, ret, have_str;

	memset(e, 0, sizeof(*e));
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
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(fd);
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	}
	load(fd, map, st.st_size, 0, sizeof(Elf64_Ehdr));
	ret = check(map, st.st_size, e, path, err, errlen);
	if (ret) {
		close(fd);
		return ret;
	}
	load(fd, map, e->size, e->phoff, (uint64_t)e->phnum * e->phentsize);
	load(fd, map, e->size, e->shoff, (uint64_t)e->shnum * e->shentsize);
	for (i = 0; i < e->phnum && !elf_phdr(e, i, &ph); i++)
		if (ph.type == PT_NOTE || ph.type == PT_GNU_EH_FRAME || ph.type == PT_INTERP ||
		    (code && ph.type == PT_LOAD && (ph.flags & PF_X)))
			load(fd, map, e->size, ph.off, ph.filesz);
	have_str = e->shnum && !elf_shdr(e, e->shstrndx, &str);
	if (have_str)
		load(fd, map, e->size, str.off, str.size);
	for (i = 0; i < e->shnum && !elf_shdr(e, i, &sh); i++)
		if (sh.type != SHT_NOBITS && wanted(e, &sh, have_str ? &str : NULL))
			load(fd, map, e->size, sh.off, sh.size);
	close(fd);
	mprotect(map, e->size, PROT_READ);
	return 0;
}

int elf_open(const char *path, struct elf_file *e, char *err, size_t errlen)
{
	return open_how(path, e, 0, err, errlen);
}

int elf_open_code(const char *path, struct elf_file *e, char *err, size_t errlen)
{
	return open_how(path, e, 1, err, errlen);
}

int elf_open_mem(const void *map, size_t size, struct elf_file *e, char *err, size_t errlen)
{
	return check(map, size, e, "[memory]", err, errlen);
}

/* Check the header of the image at @map and fill @e; on failure @map is unmapped. */
static int check(const void *map, size_t size, struct elf_file *e, const char *path, char *err,
		 size_t errlen)
{
	memset(e, 0, sizeof(*e));
	e->map = map;
	e->size = size;
	if (size < EI_NIDENT || memcmp(e->map, ELFMAG, SELFMAG)) {
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		goto bad;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e->map[EI_DATA] != ELFDATA2LSB) {
#else
	if (e->map[EI_DATA] != ELFDATA2MSB) {
#endif
		snprintf(err, errlen, "'%s' has a foreign byte order", path);
		goto bad;
	}
	e->is64 = e->map[EI_CLASS] == ELFCLASS64;
	if (e->is64) {
		Elf64_Ehdr h;

		if (!in_file(e, 0, sizeof(h)))
			goto invalid;
		memcpy(&h, e->map, sizeof(h));
		e->shoff = h.e_shoff, e->shnum = h.e_shnum, e->shentsize = h.e_shentsize;
		e->phoff = h.e_phoff, e->phnum = h.e_phnum, e->phentsize = h.e_phentsize;
		e->shstrndx = h.e_shstrndx, e->type = h.e_type;
	} else if (e->map[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;

		if (!in_file(e, 0, sizeof(h)))
			goto invalid;
		memcpy(&h, e->map, sizeof(h));
		e->shoff = h.e_shoff, e->shnum = h.e_shnum, e->shentsize = h.e_shentsize;
		e->phoff = h.e_phoff, e->phnum = h.e_phnum, e->phentsize = h.e_phentsize;
		e->shstrndx = h.e_shstrndx, e->type = h.e_type;
	} else {
		goto invalid;
	}
	if (e->shnum && e->shentsize < (e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		goto invalid;
	if (e->phnum && e->phentsize < (e->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		goto invalid;
	return 0;
invalid:
	snprintf(err, errlen, "'%s' is not a valid ELF file", path);
bad:
	elf_close(e);
	return -ENOEXEC;
}

int elf_section(const struct elf_file *e, const char *name, struct elf_shdr *s)
{
	struct elf_shdr str;
	size_t n = strlen(name);
	unsigned int i;

	if (!e->shnum || elf_shdr(e, e->shstrndx, &str) || !in_file(e, str.off, str.size))
		return e->shnum ? -ENOEXEC : 0;
	for (i = 0; i < e->shnum; i++) {
		if (elf_shdr(e, i, s))
			return -ENOEXEC;
		if (s->name >= str.size || str.size - s->name < n + 1)
			continue;
		if (!memcmp(e->map + str.off + s->name, name, n + 1)) {
			if (s->type != SHT_NOBITS && !in_file(e, s->off, s->size))
				return -ENOEXEC;
			return 1;
		}
	}
	return 0;
}

/* Walk the notes of section @s for a GNU build-id. */
static size_t note_build_id(const struct elf_file *e, uint64_t off, uint64_t size,
			    unsigned char *id, size_t max)
{
	uint64_t end = off + size;

	while (off + 12 <= end) {
		uint32_t nh[3];	/* namesz, descsz, type: the same in both classes */
		uint64_t name, desc;

		memcpy(nh, e->map + off, 12);
		name = off + 12;
		desc = name + ((nh[0] + 3ULL) & ~3ULL);
		if (desc > end || nh[1] > end - desc)
			return 0;
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4 && !memcmp(e->map + name, "GNU", 4)) {
			size_t n = nh[1] < max ? nh[1] : max;

			memcpy(id, e->map + desc, n);
			return n;
		}
		off = desc + ((nh[1] + 3ULL) & ~3ULL);
	}
	return 0;
}

size_t elf_build_id(const struct elf_file *e, unsigned char *id, size_t max)
{
	struct elf_shdr s;
	struct elf_phdr p;
	unsigned int i;
	size_t n;

	for (i = 0; i < e->shnum; i++) {
		if (elf_shdr(e, i, &s))
			return 0;
		if (s.type == SHT_NOTE && in_file(e, s.off, s.size)) {
			n = note_build_id(e, s.off, s.size, id, max);
			if (n)
				return n;
		}
	}
	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &p))
			return 0;
		if (p.type == PT_NOTE && in_file(e, p.off, p.filesz)) {
			n = note_build_id(e, p.off, p.filesz, id, max);
			if (n)
				return n;
		}
	}
	return 0;
}

const char *elf_debuglink(const struct elf_file *e)
{
	struct elf_shdr s;

	if (elf_section(e, ".gnu_debuglink", &s) != 1 || !s.size ||
	    !memchr(e->map + s.off, 0, s.size))
		return NULL;
	return (const char *)e->map + s.off;
}

int elf_functions(const struct elf_file *e, uint32_t type,
		  int (*fn)(const struct elf_func *f, void *ctx), void *ctx)
{
	uint64_t esz = e->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	int total = 0, ret;
	unsigned int i;

	for (i = 0; i < e->shnum; i++) {
		struct elf_shdr s, str;
		uint64_t j, n;

		if (elf_shdr(e, i, &s))
			return -ENOEXEC;
		if (s.type != type)
			continue;
		if (s.link >= e->shnum || elf_shdr(e, s.link, &str))
			return -ENOEXEC;
		if (!in_file(e, s.off, s.size) || !in_file(e, str.off, str.size) || !str.size)
			return -ENOEXEC;
		if (s.entsize && s.entsize != esz)
			return -ENOEXEC;
		n = s.size / esz;
		total += n;
		for (j = 0; j < n; j++) {
			uint64_t off = s.off + j * esz;
			struct elf_func f;
			unsigned char info;
			uint32_t name;
			uint16_t shndx;
			int st;

			if (e->is64) {
				Elf64_Sym y;

				memcpy(&y, e->map + off, sizeof(y));
				name = y.st_name, info = y.st_info, shndx = y.st_shndx;
				f.value = y.st_value, f.size = y.st_size;
			} else {
				Elf32_Sym y;

				memcpy(&y, e->map + off, sizeof(y));
				name = y.st_name, info = y.st_info, shndx = y.st_shndx;
				f.value = y.st_value, f.size = y.st_size;
			}
			st = ELF64_ST_TYPE(info);
			if (shndx == SHN_UNDEF || name >= str.size)
				continue;
			if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
				continue;
			/* The name must end inside its string table. */
			if (!memchr(e->map + str.off + name, 0, str.size - name))
				continue;
			f.name = (const char *)e->map + str.off + name;
			f.global = ELF64_ST_BIND(info) != STB_LOCAL;
			f.typed = st != STT_NOTYPE;
			f.weak = ELF64_ST_BIND(info) == STB_WEAK;
			ret = fn(&f, ctx);
			if (ret)
				return ret;
		}
	}
	return total;
}

struct uprobe_find {
	const char	*want;
	uint64_t	value;
	int		best;	/* -1 none, 0 local, 1 global */
};

/* Does the symbol table name @sname match what the user asked for? "malloc" matches
 * "malloc" and the versioned "malloc@@GLIBC_2.2.5"; "malloc@GLIBC_2.2.5" only itself. */
static int name_match(const char *sname, const char *want)
{
	size_t n = strlen(want);

	if (strncmp(sname, want, n))
		return 0;
	return sname[n] == '\0' || (!strchr(want, '@') && sname[n] == '@');
}

/* A global or weak definition wins over a local one of the same name. */
static int uprobe_match(const struct elf_func *f, void *ctx)
{
	struct uprobe_find *u = ctx;

	if (name_match(f->name, u->want) && f->global > u->best) {
		u->best = f->global;
		u->value = f->value;
	}
	return 0;
}

int ftk_elf_uprobe_offset(const char *path, const char *symbol, uint64_t add, uint64_t *offset,
			  int *is64, char *err, size_t errlen)
{
	struct uprobe_find u = { .want = symbol, .best = -1 };
	struct elf_file e;
	int ret, nsyms;
	unsigned int i;
	uint64_t vaddr;

	ret = elf_open(path, &e, err, errlen);
	if (ret)
		return ret;
	if (is64)
		*is64 = e.is64;
	/* .symtab first (it has the static functions too), then .dynsym (stripped files). */
	nsyms = elf_functions(&e, SHT_SYMTAB, uprobe_match, &u);
	if (nsyms >= 0 && u.best < 0) {
		ret = elf_functions(&e, SHT_DYNSYM, uprobe_match, &u);
		nsyms = ret < 0 ? ret : nsyms + ret;
	}
	if (nsyms < 0)
		goto bad;
	if (u.best < 0) {
		snprintf(err, errlen, "no function '%s' in '%s' (%s)", symbol, path,
			 nsyms ? "not in .symtab or .dynsym" : "it has no symbol table");
		ret = -ENOENT;
		goto out;
	}
	vaddr = u.value + add;

	/*
	 * uprobes take a file offset: find the loadable segment that holds the
	 * address. This is the same for executables, PIE executables and
	 * shared libraries: p_vaddr and p_offset are both link-time values.
	 */
	for (i = 0; i < e.phnum; i++) {
		struct elf_phdr p;

		if (elf_phdr(&e, i, &p))
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
	elf_close(&e);
	return ret;
}

/**
 * elf_interp() - the program interpreter (the dynamic loader) of an executable
 * @e: the file
 * @buf: where its path goes
 * @len: the size of @buf
 *
 * Return: 1 with the path of PT_INTERP, 0 for a file without one (a static
 * executable, a library), -ENOEXEC for a bad header.
 */
int elf_interp(const struct elf_file *e, char *buf, size_t len)
{
	struct elf_phdr p;
	unsigned int i;

	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &p))
			return -ENOEXEC;
		if (p.type != PT_INTERP)
			continue;
		if (!p.filesz || !in_file(e, p.off, p.filesz) || !len)
			return -ENOEXEC;
		snprintf(buf, len, "%.*s", (int)(p.filesz < len ? p.filesz : len - 1),
			 (const char *)e->map + p.off);
		return 1;
	}
	return 0;
}

#if defined(__x86_64__)
/*
 * Whole instructions that glibc's inline syscalls put between loading the
 * number and the syscall (the arguments' moves): mov %rdi,%rsi; mov
 * $AT_FDCWD,%edi; mov %rcx,%r10; mov %edx,%r10d... An imm32 is 4 bytes
 * of any value (a length of -4: "4 bytes more").
 */
static const struct { unsigned char len, b[5]; } arg_moves[] = {
	{ 3, { 0x48, 0x89, 0xfe } },		/* mov %rdi,%rsi */
	{ 3, { 0x48, 0x89, 0xf7 } },		/* mov %rsi,%rdi */
	{ 5, { 0xbf, 0x9c, 0xff, 0xff, 0xff } },	/* mov $-100,%edi (AT_FDCWD) */
	{ 3, { 0x49, 0x89, 0xca } },		/* mov %rcx,%r10 */
	{ 3, { 0x41, 0x89, 0xd2 } },		/* mov %edx,%r10d */
	{ 3, { 0x41, 0x89, 0xca } },		/* mov %ecx,%r10d */
	{ 2, { 0x31, 0xd2 } },			/* xor %edx,%edx */
	{ 2, { 0x89, 0xf2 } },			/* mov %esi,%edx */
	{ 2, { 0x89, 0xca } },			/* mov %ecx,%edx */
};

/* The bytes at @p (@n left) are whole argument moves and a syscall: its offset from @p, or -1. */
static long syscall_after(const unsigned char *p, size_t n)
{
	size_t at = 0, i;

	while (at + 2 <= n) {
		if (p[at] == 0x0f && p[at + 1] == 0x05)
			return at;
		for (i = 0; i < ARRAY_SIZE(arg_moves); i++)
			if (at + arg_moves[i].len <= n &&
			    !memcmp(p + at, arg_moves[i].b, arg_moves[i].len))
				break;
		if (i == ARRAY_SIZE(arg_moves))
			return -1;
		at += arg_moves[i].len;
	}
	return -1;
}
#endif

/**
 * elf_syscall_sites() - where an executable's code makes one syscall itself
 * @e: the file (x86-64 code; none is found for others)
 * @nr: the syscall's number
 * @off: receives the file offsets of the syscall instructions
 * @max: room in @off
 *
 * A site is "mov $NR,%eax", then only whole instructions that move the
 * arguments into place (arg_moves), then "syscall": the sequence glibc's
 * inline syscalls compile to, in libc, the dynamic loader and static
 * executables. There the registers hold the syscall's arguments, so a
 * uprobe at the instruction fetches them as the kernel will see them
 * (%si: openat's path). Written by hand, without a disassembler (none is
 * among the dependencies): a match is at least seven bytes of whole
 * instructions that end in the syscall, in an executable segment; the
 * bytes could in principle sit inside other instructions' immediates, so
 * the caller checks the syscall number a probe fetches (%ax) too.
 *
 * Return: the number of sites (more than @max when some did not fit), or
 * -ENOEXEC for a bad header.
 */
long elf_syscall_sites(const struct elf_file *e, unsigned int nr, uint64_t *off, size_t max)
{
	long found = 0;
#if defined(__x86_64__)
	unsigned char mov[5] = { 0xb8, nr & 0xff, (nr >> 8) & 0xff, (nr >> 16) & 0xff, nr >> 24 };
	const unsigned char *seg, *p;
	struct elf_phdr ph;
	unsigned int i;
	size_t n;
	long at;

	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr(e, i, &ph))
			return -ENOEXEC;
		if (ph.type != PT_LOAD || !(ph.flags & PF_X) || !in_file(e, ph.off, ph.filesz))
			continue;
		seg = e->map + ph.off;
		n = ph.filesz;
		for (p = seg; (p = memmem(p, n - (p - seg), mov, sizeof(mov))); p++) {
			/* at most a few moves in between: 32 bytes */
			size_t left = n - (p - seg) - sizeof(mov);

			at = syscall_after(p + sizeof(mov), left < 32 ? left : 32);
			if (at < 0)
				continue;
			if ((size_t)found < max)
				off[found] = ph.off + (p - seg) + sizeof(mov) + at;
			found++;
		}
	}
#else
	(void)e; (void)nr; (void)off; (void)max;
#endif
	return found;
}
