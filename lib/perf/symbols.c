// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symbols: process maps, ELF objects, kallsyms and JIT maps, indexed once.
 *
 * A process is a sorted array of its executable mappings; a mapping points
 * at an object shared by every process that maps the same file (same
 * device and inode, or same path when those are unknown). An object is
 * mapped read-only once (lib/elf.c), and its function symbols sorted by
 * address once, so that a lookup is two binary searches: the mapping in
 * the process, the symbol in the object.
 *
 * Demangling is libiberty's cplus_demangle() (Debian's libiberty-dev, a
 * static PIC archive linked into libftkit): unlike libstdc++'s
 * __cxa_demangle, it also knows Rust's legacy and v0 manglings, and it
 * keeps libftkit a C library with no C++ runtime dependency.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <elf.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libiberty/demangle.h>
#undef ARRAY_SIZE	/* libiberty.h has its own */

#include <ftkit/symbols.h>

#include "internal.h"
#include "symbols-local.h"

#define KERNEL_START	0xffff800000000000ULL
#define NR_BUCKETS	1024

struct sym {
	uint64_t	start, end;
	const char	*name;
	char		*demangled;	/* NULL: not tried yet; "" after a failed try */
	int		rank;		/* of aliases at one address, the highest is kept */
};

struct symtab {
	struct sym	*v;
	size_t		nr, cap;
};

struct obj {
	struct obj	*next;
	char		*path;		/* as the process names it */
	char		*base;		/* its last component, for "[unknown] (base+0x..)" */
	dev_t		dev;
	uint64_t	ino;
	struct elf_file	elf;		/* map NULL when it could not be read */
	struct elf_file	dbg;		/* the separate debug file, if one was found */
	struct elf_phdr	*loads;
	size_t		nr_loads;
	struct symtab	syms;
	uint64_t	eh_hdr_vaddr, eh_hdr_size;
	uint64_t	exec_lo, exec_hi;	/* executable segments' vaddr span */
};

struct map {
	uint64_t	start, end, pgoff;
	struct obj	*obj;		/* NULL for anonymous memory */
	const char	*name;		/* for anonymous mappings: "[anon]", "[vdso]", ... */
};

struct proc {
	struct proc	*next;
	pid_t		pid;
	struct map	*maps;
	size_t		nr, cap;
	struct symtab	jit;
	char		*jit_text;	/* the perf map file, names point into it */
	off_t		jit_size;	/* of the file when read; -1 before */
};

struct ftk_symbols {
	unsigned int		flags;
	struct proc		*procs[NR_BUCKETS];
	struct obj		*objs;
	struct symtab		kernel;
	char			*kallsyms;	/* names point into it */
	char			**kmods;	/* "[mod]" names, interned */
	size_t			nr_kmods;
	int			kernel_loaded;
	char			knote[256];
	char			*debug_dir;	/* /usr/lib/debug, or $FTK_DEBUG_DIR */
	struct ftk_errmsg	err;
};

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * By address; of aliases at one address the one kept comes first, chosen
 * as perf's choose_best_symbol() chooses, so that both tools print the same
 * name: one with a size, then not weak, then global, then with fewer
 * leading underscores, then the shortest.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if ((x->end > x->start) != (y->end > y->start))
		return (y->end > y->start) - (x->end > x->start);
	if (x->rank != y->rank)
		return y->rank - x->rank;
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int symtab_add(struct symtab *t, uint64_t start, uint64_t size, const char *name,
		      int rank)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->nr++] = (struct sym){ start, start + size, name, NULL, rank };
	return 0;
}

/* Sort, drop duplicates, and give each symbol without a size the room up to the next. */
static void symtab_finish(struct symtab *t, uint64_t limit)
{
	size_t i, n = 0;

	if (!t->nr)
		return;
	qsort(t->v, t->nr, sizeof(*t->v), sym_cmp);
	for (i = 0; i < t->nr; i++) {
		if (n && t->v[n - 1].start == t->v[i].start)
			continue;
		t->v[n++] = t->v[i];
	}
	t->nr = n;
	for (i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? t->v[i + 1].start : limit;

		if (t->v[i].end <= t->v[i].start)
			t->v[i].end = next > t->v[i].start ? next : t->v[i].start + 1;
	}
}

/* The symbol holding @addr: binary search for the last start <= @addr. */
static struct sym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->v[lo - 1].end)
		return NULL;
	return &t->v[lo - 1];
}

static void symtab_release(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i].demangled && t->v[i].demangled[0])
			free(t->v[i].demangled);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/*
 * The demangled text as libiberty's callback interface gives it, up to
 * FTK_DEMANGLE_MAX bytes. Past that the demangling is abandoned with a
 * longjmp out of the callback: that interface allocates nothing (it is made
 * for a terminate handler), so nothing leaks. A 240-byte name of chained
 * back-references demangles to 285 MB, each more reference doubling it;
 * cplus_demangle() has no bound and would build it all.
 */
struct demangled {
	char	*buf;
	size_t	len;
	jmp_buf	too_long;
};

static void demangle_put(const char *s, size_t n, void *ctx)
{
	struct demangled *d = ctx;

	if (n > FTK_DEMANGLE_MAX - d->len)
		longjmp(d->too_long, 1);
	memcpy(d->buf + d->len, s, n);
	d->len += n;
}

/**
 * ftk_symbols_demangle() - a C++ or Rust symbol name, demangled
 * @name: a mangled name ("_ZN3foo3barEv", "_RNvC...")
 *
 * As cplus_demangle() with parameters (Rust's manglings first, then C++'s),
 * bounded: a name whose demangled form passes FTK_DEMANGLE_MAX bytes is
 * left mangled, as c++filt users see it.
 *
 * Return: the demangled name ("foo::bar()") to free(), or NULL when @name is
 * not a mangled name libiberty knows (errno EINVAL), demangles to more than
 * FTK_DEMANGLE_MAX bytes (errno E2BIG), or memory ran out.
 */
FTK_API char *ftk_symbols_demangle(const char *name)
{
	struct demangled d = { NULL, 0 };
	int opts = DMGL_PARAMS | DMGL_ANSI, ok;

	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return ftk_err_ptr(-EINVAL);
	d.buf = malloc(FTK_DEMANGLE_MAX + 1);
	if (!d.buf)
		return ftk_err_ptr(-ENOMEM);
	if (setjmp(d.too_long)) {
		free(d.buf);
		return ftk_err_ptr(-E2BIG);
	}
	/* Legacy Rust names are C++ names too: Rust first, as cplus_demangle() does. */
	ok = rust_demangle_callback(name, opts, demangle_put, &d);
	if (!ok) {
		d.len = 0;
		ok = cplus_demangle_v3_callback(name, opts, demangle_put, &d);
	}
	if (!ok) {
		free(d.buf);
		return ftk_err_ptr(-EINVAL);
	}
	d.buf[d.len] = '\0';
	return realloc(d.buf, d.len + 1) ?: d.buf;
}

static const char *sym_name(struct ftk_symbols *s, struct sym *y)
{
	if (s->flags & FTK_SYMBOLS_NO_DEMANGLE)
		return y->name;
	if (!y->demangled) {
		y->demangled = ftk_symbols_demangle(y->name);
		if (!y->demangled)
			y->demangled = "";
	}
	return y->demangled[0] ? y->demangled : y->name;
}

/**
 * ftk_symbols_new() - an empty symbol index
 * @flags: FTK_SYMBOLS_NO_DEMANGLE, FTK_SYMBOLS_NO_KERNEL, FTK_SYMBOLS_NO_PROC
 * @out: the index
 *
 * Debug files are looked for under $FTK_DEBUG_DIR when set, else
 * /usr/lib/debug.
 *
 * Return: 0 or -ENOMEM. *@out must be freed with ftk_symbols_free().
 */
FTK_API int ftk_symbols_new(unsigned int flags, struct ftk_symbols **out)
{
	const char *dd = getenv("FTK_DEBUG_DIR");
	struct ftk_symbols *s;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return ftk_err(-ENOMEM);
	s->flags = flags;
	s->debug_dir = strdup(dd && *dd ? dd : "/usr/lib/debug");
	if (!s->debug_dir) {
		free(s);
		return ftk_err(-ENOMEM);
	}
	*out = s;
	return 0;
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	symtab_release(&p->jit);
	free(p->jit_text);
	free(p);
}

/**
 * ftk_symbols_free() - unmap every object and free the index
 * @s: the index, or NULL
 */
FTK_API void ftk_symbols_free(struct ftk_symbols *s)
{
	struct obj *o, *on;
	struct proc *p, *pn;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < NR_BUCKETS; i++)
		for (p = s->procs[i]; p; p = pn) {
			pn = p->next;
			proc_free(p);
		}
	for (o = s->objs; o; o = on) {
		on = o->next;
		symtab_release(&o->syms);
		elf_close(&o->elf);
		elf_close(&o->dbg);
		free(o->loads);
		free(o->path);
		free(o);
	}
	symtab_release(&s->kernel);
	free(s->kallsyms);
	for (i = 0; i < s->nr_kmods; i++)
		free(s->kmods[i]);
	free(s->kmods);
	free(s->debug_dir);
	free(s);
}

/** ftk_symbols_errmsg() - the last failure's text (file and reason), owned by @s; "" if none */
FTK_API const char *ftk_symbols_errmsg(const struct ftk_symbols *s)
{
	return s->err.text;
}

static struct proc *proc_get(struct ftk_symbols *s, pid_t pid, int create)
{
	struct proc **b = &s->procs[(unsigned int)pid % NR_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->jit_size = -1;
	p->next = *b;
	*b = p;
	return p;
}

/* Try the debug file @path for @o: it must be ELF and, when both have one, share the build-id. */
static int try_debug(struct obj *o, const char *path, const unsigned char *id, size_t idlen)
{
	unsigned char did[64];
	char err[256];
	size_t dlen;

	if (elf_open(path, &o->dbg, err, sizeof(err)))
		return 0;
	dlen = elf_build_id(&o->dbg, did, sizeof(did));
	if (idlen && dlen && (dlen != idlen || memcmp(id, did, idlen))) {
		elf_close(&o->dbg);
		return 0;
	}
	return 1;
}

/* The separate debug file: by build-id, then by .gnu_debuglink next to the object. */
static void find_debug(struct ftk_symbols *s, struct obj *o, const char *opened)
{
	unsigned char id[64];
	char path[PATH_MAX], dir[PATH_MAX];
	const char *link, *slash;
	size_t n, i, len;

	n = elf_build_id(&o->elf, id, sizeof(id));
	if (n >= 2) {
		len = snprintf(path, sizeof(path), "%s/.build-id/%02x/", s->debug_dir, id[0]);
		for (i = 1; i < n && len + 3 < sizeof(path); i++)
			len += snprintf(path + len, sizeof(path) - len, "%02x", id[i]);
		if (len + 7 < sizeof(path)) {
			strcpy(path + len, ".debug");
			if (try_debug(o, path, id, n))
				return;
		}
	}
	link = elf_debuglink(&o->elf);
	if (!link || strchr(link, '/'))
		return;
	slash = strrchr(opened, '/');
	if (!slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - opened), opened);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, link) < sizeof(path) &&
	    strcmp(path, opened) && try_debug(o, path, id, n))
		return;
	if ((size_t)snprintf(path, sizeof(path), "%s/.debug/%s", dir, link) < sizeof(path) &&
	    try_debug(o, path, id, n))
		return;
	slash = strrchr(o->path, '/');
	if (slash && (size_t)snprintf(path, sizeof(path), "%s%.*s/%s", s->debug_dir,
				      (int)(slash - o->path), o->path, link) < sizeof(path))
		try_debug(o, path, id, n);
}

struct collect {
	struct symtab	*t;
	int		err;
};

static int collect_fn(const struct elf_func *f, void *ctx)
{
	struct collect *c = ctx;

	if (!f->value || (!f->typed && !f->size))
		return 0;
	/* not weak (2) over weak (0), global (1) over local */
	if (symtab_add(c->t, f->value, f->size, f->name, (f->weak ? 0 : 2) + f->global)) {
		c->err = -ENOMEM;
		return 1;
	}
	return 0;
}

/* Index @o's functions: .symtab of the object, else of its debug file, else .dynsym. */
static int index_obj(struct ftk_symbols *s, struct obj *o, const char *opened)
{
	struct collect c = { .t = &o->syms };
	struct elf_shdr sh;
	unsigned int i;
	int n;

	for (i = 0; i < o->elf.phnum; i++) {
		struct elf_phdr p, *nl;

		if (elf_phdr(&o->elf, i, &p))
			return -ENOEXEC;
		if (p.type != PT_LOAD)
			continue;
		nl = realloc(o->loads, (o->nr_loads + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		o->loads = nl;
		o->loads[o->nr_loads++] = p;
		if (p.flags & PF_X) {
			if (!o->exec_hi || p.vaddr < o->exec_lo)
				o->exec_lo = p.vaddr;
			if (p.vaddr + p.memsz > o->exec_hi)
				o->exec_hi = p.vaddr + p.memsz;
		}
	}
	if (elf_section(&o->elf, ".eh_frame_hdr", &sh) == 1) {
		o->eh_hdr_vaddr = sh.addr;
		o->eh_hdr_size = sh.size;
	}
	n = elf_functions(&o->elf, SHT_SYMTAB, collect_fn, &c);
	if (n <= 0 && !c.err) {
		find_debug(s, o, opened);
		if (o->dbg.map)
			n = elf_functions(&o->dbg, SHT_SYMTAB, collect_fn, &c);
		if (n <= 0 && !c.err)
			n = elf_functions(&o->elf, SHT_DYNSYM, collect_fn, &c);
	}
	if (c.err)
		return c.err;
	symtab_finish(&o->syms, o->exec_hi);
	return 0;
}

/*
 * The object for @path as process @pid sees it: through /proc/PID/root
 * first (another mount namespace, a container), then as the path is.
 */
static struct obj *obj_get(struct ftk_symbols *s, pid_t pid, const char *path, dev_t dev,
			   uint64_t ino)
{
	char opened[PATH_MAX + 32], err[256];
	struct stat st;
	struct obj *o;
	const char *sl;
	int ok = 0;

	for (o = s->objs; o; o = o->next) {
		if (ino && o->ino == ino && o->dev == dev)
			return o;
		if ((!ino || !o->ino) && !strcmp(o->path, path))
			return o;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	sl = strrchr(o->path, '/');
	o->base = sl ? (char *)sl + 1 : o->path;
	o->dev = dev;
	o->ino = ino;
	if (path[0] == '/') {
		snprintf(opened, sizeof(opened), "/proc/%d/root%s", pid, path);
		if (pid > 0 && !(s->flags & FTK_SYMBOLS_NO_PROC) && !stat(opened, &st) &&
		    (!ino || st.st_ino == ino))
			ok = !elf_open(opened, &o->elf, err, sizeof(err));
		if (!ok) {
			snprintf(opened, sizeof(opened), "%s", path);
			if (!stat(opened, &st) && (!ino || st.st_ino == ino))
				ok = !elf_open(opened, &o->elf, err, sizeof(err));
			else if (ino)
				snprintf(err, sizeof(err), "'%s': not the file the process mapped",
					 path);
		}
		if (!ok)
			pr_debug("symbols: %s\n", err);
	}
	if (ok && index_obj(s, o, opened))
		pr_debug("symbols: '%s': bad symbol tables\n", path);
	o->next = s->objs;
	s->objs = o;
	return o;
}

/* Put [start, end) into @p's sorted maps, cutting what it overlaps. */
static int proc_map(struct proc *p, const struct map *m)
{
	size_t i, j;

	if (p->nr + 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct map *v = realloc(p->maps, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->maps = v;
		p->cap = cap;
	}
	for (i = 0; i < p->nr; i++) {
		struct map *o = &p->maps[i];

		if (o->end <= m->start || o->start >= m->end)
			continue;
		if (o->start < m->start && o->end > m->end) {
			struct map right = *o;

			right.pgoff += m->end - o->start;
			right.start = m->end;
			o->end = m->start;
			memmove(&p->maps[i + 2], &p->maps[i + 1], (p->nr - i - 1) * sizeof(*o));
			p->maps[i + 1] = right;
			p->nr++;
			i++;
		} else if (o->start < m->start) {
			o->end = m->start;
		} else if (o->end > m->end) {
			o->pgoff += m->end - o->start;
			o->start = m->end;
		} else {
			memmove(o, o + 1, (p->nr - i - 1) * sizeof(*o));
			p->nr--;
			i--;
		}
	}
	for (j = 0; j < p->nr && p->maps[j].start < m->start; j++)
		;
	memmove(&p->maps[j + 1], &p->maps[j], (p->nr - j) * sizeof(*m));
	p->maps[j] = *m;
	p->nr++;
	return 0;
}

static const char *anon_name(const char *path)
{
	if (!path || !*path || !strncmp(path, "//anon", 6) || !strncmp(path, "/memfd:", 7))
		return "[anon]";
	if (!strcmp(path, "[vdso]"))
		return "[vdso]";
	if (!strcmp(path, "[vsyscall]"))
		return "[vsyscall]";
	if (!strncmp(path, "[stack", 6))
		return "[stack]";
	if (!strcmp(path, "[heap]"))
		return "[heap]";
	return "[anon]";
}

/*
 * The vDSO: the kernel maps the same image into every 64-bit process, so
 * ours (at AT_SYSINFO_EHDR, its size from /proc/self/maps) stands for
 * theirs; a copy in an anonymous mapping is indexed like a file.
 */
static struct obj *vdso_obj(struct ftk_symbols *s)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long lo, hi;
	char line[256], err[64];
	struct obj *o;
	size_t size = 0;
	void *copy;
	FILE *f;

	for (o = s->objs; o; o = o->next)
		if (!strcmp(o->path, "[vdso]"))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->path = strdup("[vdso]");
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->base = o->path;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    lo == base)
			size = hi - lo;
	if (f)
		fclose(f);
	if (base && size) {
		copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (copy != MAP_FAILED) {
			memcpy(copy, (const void *)base, size);
			/* elf_open()'s checks, on memory: the same reader for both. */
			if (!elf_open_mem(copy, size, &o->elf, err, sizeof(err)))
				index_obj(s, o, "[vdso]");
		}
	}
	o->next = s->objs;
	s->objs = o;
	return o;
}

static int mmap_into(struct ftk_symbols *s, struct proc *p, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct map m = { start, start + len, pgoff, NULL, NULL };

	if (start + len < start || !len)
		return -EINVAL;
	/*
	 * No file has a longer name (the kernel's MMAP2 names fit PATH_MAX); a
	 * crafted perf.data's 60 KB one would be copied into every frame.
	 */
	if (path && strnlen(path, PATH_MAX) >= PATH_MAX)
		path = NULL;
	if (path && path[0] == '/' && path[1] != '/' && strncmp(path, "/memfd:", 7)) {
		m.obj = obj_get(s, p->pid, path, makedev(maj, min), ino);
		if (!m.obj)
			return -ENOMEM;
	} else if (path && !strcmp(path, "[vdso]")) {
		m.obj = vdso_obj(s);
		if (!m.obj)
			return -ENOMEM;
	} else {
		m.name = anon_name(path);
	}
	return proc_map(p, &m);
}

/* /proc/PID/maps into @p: 0, -errno of the open, or -ENOMEM. */
static int load_maps(struct ftk_symbols *s, struct proc *p)
{
	char path[64], line[PATH_MAX + 128];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	f = fopen(path, "re");
	if (!f)
		return ftk_errmsg_set(&s->err, 0, path, -errno, "%s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned int maj, min;
		char perms[8];
		int n = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj,
			   &min, &ino, &n) < 7 || !n)
			continue;
		if (!strchr(perms, 'x'))
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = '\0';
		/* A file deleted since it was mapped: its path, without the note. */
		if (strlen(name) > 10 && !strcmp(name + strlen(name) - 10, " (deleted)"))
			name[strlen(name) - 10] = '\0';
		ret = mmap_into(s, p, lo, hi - lo, off, name, maj, min, ino);
		if (ret == -ENOMEM)
			break;
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* The process, read from /proc/PID/maps the first time it is met. */
static struct proc *proc_lookup(struct ftk_symbols *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid, 0);

	if (p)
		return p;
	p = proc_get(s, pid, 1);
	if (p && pid > 0 && !(s->flags & FTK_SYMBOLS_NO_PROC))
		load_maps(s, p);
	return p;
}

/**
 * ftk_symbols_mmap() - record an executable mapping of a process
 * @s: the index
 * @pid: the process
 * @start: its first address
 * @len: its length
 * @pgoff: the file offset it maps
 * @path: the file, as the process names it; "//anon", "[vdso]", "" or NULL
 *	  for memory without a file
 * @maj: the file's device major, from PERF_RECORD_MMAP2 or /proc/PID/maps; 0 if unknown
 * @min: its minor
 * @ino: its inode, 0 if unknown; a file whose inode differs is not read
 *
 * The object is opened (through /proc/PID/root when it is there) and
 * indexed on its first mapping, by any process; later ones reuse it. What
 * the new mapping overlaps is cut away, as the kernel does.
 *
 * Return: 0 or -ENOMEM. An object that cannot be read is not an error: its
 * frames print as "[unknown]" with the object and offset.
 */
FTK_API int ftk_symbols_mmap(struct ftk_symbols *s, pid_t pid, uint64_t start, uint64_t len,
			     uint64_t pgoff, const char *path, uint32_t maj, uint32_t min,
			     uint64_t ino)
{
	struct proc *p = proc_lookup(s, pid);

	if (!p)
		return ftk_err(-ENOMEM);
	return ftk_err(mmap_into(s, p, start, len, pgoff, path, maj, min, ino));
}

/**
 * ftk_symbols_load_pid() - record a running process's executable mappings
 * @s: the index
 * @pid: the process
 *
 * Reads /proc/PID/maps: what a process mapped before sampling began.
 *
 * Return: 0, or the negative errno of opening it (-ENOENT: gone), with
 * ftk_symbols_errmsg().
 */
FTK_API int ftk_symbols_load_pid(struct ftk_symbols *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid, 1);

	if (!p)
		return ftk_err(-ENOMEM);
	return ftk_err(load_maps(s, p));
}

/**
 * ftk_symbols_fork() - a new process starts with its parent's mappings
 * @s: the index
 * @ppid: the parent process
 * @pid: the child; a new thread of @ppid (@pid == @ppid) changes nothing
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_symbols_fork(struct ftk_symbols *s, pid_t ppid, pid_t pid)
{
	struct proc *pp, *p;

	if (ppid == pid)
		return 0;
	pp = proc_lookup(s, ppid);
	p = proc_get(s, pid, 1);
	if (!p)
		return ftk_err(-ENOMEM);
	p->nr = 0;
	if (!pp || !pp->nr)
		return 0;
	if (p->cap < pp->nr) {
		struct map *v = realloc(p->maps, pp->nr * sizeof(*v));

		if (!v)
			return ftk_err(-ENOMEM);
		p->maps = v;
		p->cap = pp->nr;
	}
	memcpy(p->maps, pp->maps, pp->nr * sizeof(*p->maps));
	p->nr = pp->nr;
	return 0;
}

/** ftk_symbols_exec() - a process called exec: forget its mappings (new ones follow) */
FTK_API void ftk_symbols_exec(struct ftk_symbols *s, pid_t pid)
{
	struct proc *p = proc_get(s, pid, 0);

	if (p)
		p->nr = 0;
}

/** ftk_symbols_exit() - a process ended: free its mappings (objects stay indexed) */
FTK_API void ftk_symbols_exit(struct ftk_symbols *s, pid_t pid)
{
	struct proc **pp = &s->procs[(unsigned int)pid % NR_BUCKETS], *p;

	for (; (p = *pp); pp = &p->next) {
		if (p->pid == pid) {
			*pp = p->next;
			proc_free(p);
			return;
		}
	}
}

/* kallsyms, once: text symbols of the kernel and its modules. */
static void load_kernel(struct ftk_symbols *s)
{
	char *text, *line, *next;
	size_t len, nonzero = 0;
	int restrict_level = -1;

	s->kernel_loaded = 1;
	if (s->flags & FTK_SYMBOLS_NO_KERNEL)
		return;
	if (ftk_read_file("/proc/kallsyms", &text, &len)) {
		snprintf(s->knote, sizeof(s->knote),
			 "kernel frames are not named: cannot read /proc/kallsyms: %s",
			 strerror(errno));
		return;
	}
	s->kallsyms = text;
	for (line = text; line && *line; line = next) {
		char *name, *mod, *end;
		unsigned long long addr;
		char type;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		mod = strchr(name, '\t');
		if (mod)
			*mod = '\0';
		if (addr)
			nonzero++;
		if (symtab_add(&s->kernel, addr, 0, name, type == 'T' || type == 't' ? 2 : 0))
			break;
	}
	if (!nonzero && s->kernel.nr) {
		char *k = NULL;

		if (!ftk_read_file("/proc/sys/kernel/kptr_restrict", &k, &len))
			restrict_level = atoi(k);
		free(k);
		snprintf(s->knote, sizeof(s->knote),
			 "kernel frames are not named: /proc/kallsyms shows no addresses (kernel.kptr_restrict=%d%s)",
			 restrict_level, restrict_level == 1 ? ", and this is not root" : "");
		s->kernel.nr = 0;
		return;
	}
	symtab_finish(&s->kernel, ~0ULL);
}

/**
 * ftk_symbols_kernel_note() - why kernel frames are not named, if they are not
 * @s: the index
 *
 * Reads kallsyms if that was not done yet.
 *
 * Return: NULL when kernel addresses are named; else a sentence (owned by
 * @s) such as "kernel frames are not named: /proc/kallsyms shows no
 * addresses (kernel.kptr_restrict=2)".
 */
FTK_API const char *ftk_symbols_kernel_note(struct ftk_symbols *s)
{
	if (!s->kernel_loaded)
		load_kernel(s);
	return s->knote[0] ? s->knote : NULL;
}

/*
 * Open a perf map if it can be trusted: a regular file (checked on the file
 * opened, not the name), not a link, owned by root or by @uid, as perf
 * does. Opened without blocking: a FIFO put there must not hang the
 * profiler. The fd, or -1.
 */
static int open_jit(const char *path, uid_t uid, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || (st->st_uid && st->st_uid != uid)) {
		if (st->st_uid && st->st_uid != uid)
			pr_debug("symbols: '%s' is owned by uid %u, not the process's %u or root: not read\n",
				 path, (unsigned int)st->st_uid, (unsigned int)uid);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * /tmp/perf-PID.map ("START SIZE name" in hex), read again when it grew:
 * the process's own /tmp (its mount namespace), trusted when its owner is
 * the process's; else (a process of a perf.data file, or one gone) this
 * machine's /tmp, trusted when its owner is ours.
 */
static void load_jit(struct ftk_symbols *s, struct proc *p)
{
	char path[96], *line, *next, *text = NULL;
	struct stat st;
	size_t len;
	int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d", p->pid);
	if (!(s->flags & FTK_SYMBOLS_NO_PROC) && !stat(path, &st)) {
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", p->pid, p->pid);
		fd = open_jit(path, st.st_uid, &st);
	} else {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", p->pid);
		fd = open_jit(path, geteuid(), &st);
	}
	if (fd < 0)
		return;
	if (st.st_size == p->jit_size || ftk_read_fd(fd, &text, &len)) {
		close(fd);
		return;
	}
	close(fd);
	symtab_release(&p->jit);
	free(p->jit_text);
	p->jit_text = text;
	p->jit_size = st.st_size;
	for (line = p->jit_text; line && *line; line = next) {
		unsigned long long start, size;
		char *end, *e2;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		start = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		size = strtoull(end + 1, &e2, 16);
		if (e2 == end + 1 || *e2 != ' ' || !e2[1])
			continue;
		if (symtab_add(&p->jit, start, size, e2 + 1, 0))
			break;
	}
	symtab_finish(&p->jit, ~0ULL);
}

static struct map *find_map(struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

/* File offset -> object vaddr through the PT_LOAD that holds it; 0 and -1 if none. */
static int obj_vaddr(const struct obj *o, uint64_t foff, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < o->nr_loads; i++) {
		const struct elf_phdr *p = &o->loads[i];

		if (foff >= p->off && foff < p->off + p->filesz) {
			*vaddr = foff - p->off + p->vaddr;
			return 0;
		}
	}
	return -1;
}

/**
 * ftk_symbols_resolve() - name an address
 * @s: the index
 * @pid: the process it is an address of (ignored for kernel addresses)
 * @addr: the address; for a return address, pass it minus 1 so that a call
 *	  at the end of a function is named by that function
 * @f: the frame: function, object, offset and kind
 *
 * Return: 0 when named (from an ELF object, kallsyms or a perf map); 1
 * when not (@f->name "[unknown]", @f->object and @f->offset saying where:
 * the object's path and the file offset, or "[anon]", "[unmapped]").
 */
FTK_API int ftk_symbols_resolve(struct ftk_symbols *s, pid_t pid, uint64_t addr,
				struct ftk_frame *f)
{
	struct proc *p;
	struct map *m;
	struct sym *y;
	uint64_t foff, vaddr;

	f->name = "[unknown]";
	f->offset = addr;
	f->kind = FTK_FRAME_UNKNOWN;
	if (addr >= KERNEL_START) {
		if (!s->kernel_loaded)
			load_kernel(s);
		f->object = "[kernel.kallsyms]";
		y = symtab_find(&s->kernel, addr);
		if (!y)
			return 1;
		f->name = y->name;
		f->offset = addr - y->start;
		f->kind = FTK_FRAME_KERNEL;
		return 0;
	}
	f->object = "[unmapped]";
	p = proc_lookup(s, pid);
	m = p ? find_map(p, addr) : NULL;
	if (!m || !m->obj) {
		if (m)
			f->object = m->name;
		if (p) {
			y = symtab_find(&p->jit, addr);
			if (!y) {
				load_jit(s, p);
				y = symtab_find(&p->jit, addr);
			}
			if (y) {
				f->name = y->name;
				f->object = "[jit]";
				f->offset = addr - y->start;
				f->kind = FTK_FRAME_JIT;
				return 0;
			}
		}
		if (m)
			f->offset = addr - m->start;
		return 1;
	}
	f->object = m->obj->path;
	foff = addr - m->start + m->pgoff;
	f->offset = foff;
	if (obj_vaddr(m->obj, foff, &vaddr))
		return 1;
	y = symtab_find(&m->obj->syms, vaddr);
	if (!y)
		return 1;
	f->name = sym_name(s, y);
	f->offset = vaddr - y->start;
	f->kind = FTK_FRAME_USER;
	return 0;
}

int symbols_where(struct ftk_symbols *s, pid_t pid, uint64_t addr, struct sym_where *w)
{
	struct proc *p = proc_lookup(s, pid);
	struct map *m = p ? find_map(p, addr) : NULL;
	uint64_t vaddr;
	size_t i;

	if (!m || !m->obj || !m->obj->elf.map)
		return -ENOENT;
	if (obj_vaddr(m->obj, addr - m->start + m->pgoff, &vaddr))
		return -ENOENT;
	memset(w, 0, sizeof(*w));
	w->start = m->start;
	w->end = m->end;
	w->bias = addr - vaddr;
	w->elf = &m->obj->elf;
	w->eh_hdr_vaddr = m->obj->eh_hdr_vaddr;
	w->eh_hdr_size = m->obj->eh_hdr_size;
	w->lo = m->obj->exec_lo + w->bias;
	w->hi = m->obj->exec_hi + w->bias;
	w->path = m->obj->path;
	/* The whole object's span in this process (all of its PT_LOADs), for its tables. */
	for (i = 0; i < m->obj->nr_loads; i++) {
		const struct elf_phdr *ph = &m->obj->loads[i];

		if (!i || ph->vaddr + w->bias < w->start)
			w->start = ph->vaddr + w->bias;
		if (!i || ph->vaddr + ph->memsz + w->bias > w->end)
			w->end = ph->vaddr + ph->memsz + w->bias;
	}
	return 0;
}
