/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * symbols: naming the addresses of running (or recently run) processes
 * and of the kernel.
 *
 *	ftk_symbols_new(0, &s);
 *	ftk_symbols_load_pid(s, pid);			from /proc/PID/maps
 *	ftk_symbols_mmap(s, pid, start, len, pgoff, path, maj, min, ino);	MMAP2 records
 *	ftk_symbols_fork(s, ppid, pid); ftk_symbols_exec(s, pid);	FORK, COMM exec
 *	ftk_symbols_resolve(s, pid, addr, &f);		f.name, f.object, f.offset
 *	ftk_symbols_free(s);
 *
 * Each object (executable, shared library, debug file) is mapped and
 * indexed once, however many processes map it, and looked up by binary
 * search. Names come from .symtab, else .dynsym, of the object or of its
 * separate debug file (/usr/lib/debug/.build-id/xx/yyyy.debug, then
 * .gnu_debuglink); kernel names from /proc/kallsyms (modules included);
 * JIT code from /tmp/perf-PID.map. Objects of processes in other mount
 * namespaces are opened through /proc/PID/root. C++ and Rust names are
 * demangled (libiberty's cplus_demangle).
 */
#ifndef FTKIT_SYMBOLS_H
#define FTKIT_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_symbols;

enum ftk_symbols_flags {
	FTK_SYMBOLS_NO_DEMANGLE	= 1 << 0,	/* keep mangled names */
	FTK_SYMBOLS_NO_KERNEL	= 1 << 1,	/* do not read /proc/kallsyms */
	FTK_SYMBOLS_NO_PROC	= 1 << 2,	/* processes of the past (a perf.data file):
						 * never read /proc/PID, only what is given */
};

/* The longest demangled name taken; a longer one stays mangled (a C++ name can demangle to GBs). */
#define FTK_DEMANGLE_MAX	4096

enum ftk_frame_kind {
	FTK_FRAME_USER,		/* named from an ELF object */
	FTK_FRAME_KERNEL,	/* named from kallsyms */
	FTK_FRAME_JIT,		/* named from /tmp/perf-PID.map */
	FTK_FRAME_UNKNOWN,	/* no name: print "[unknown]" with object and offset */
};

/* What an address is. Strings are owned by the handle and live as long as it. */
struct ftk_frame {
	const char		*name;		/* the function, demangled; "[unknown]" when unnamed */
	const char		*object;	/* the object's path, "[kernel.kallsyms]", "[MOD]",
						 * "[anon]", "[jit]", or "[unmapped]" */
	uint64_t		offset;		/* from the function's start; when unnamed, the
						 * offset in the object (file offset) */
	enum ftk_frame_kind	kind;
};

FTK_API int ftk_symbols_new(unsigned int flags, struct ftk_symbols **out);
FTK_API void ftk_symbols_free(struct ftk_symbols *s);
FTK_API const char *ftk_symbols_errmsg(const struct ftk_symbols *s);
FTK_API const char *ftk_symbols_kernel_note(struct ftk_symbols *s);
FTK_API int ftk_symbols_load_pid(struct ftk_symbols *s, pid_t pid);
FTK_API int ftk_symbols_mmap(struct ftk_symbols *s, pid_t pid, uint64_t start, uint64_t len,
			     uint64_t pgoff, const char *path, uint32_t maj, uint32_t min,
			     uint64_t ino);
FTK_API int ftk_symbols_fork(struct ftk_symbols *s, pid_t ppid, pid_t pid);
FTK_API void ftk_symbols_exec(struct ftk_symbols *s, pid_t pid);
FTK_API void ftk_symbols_exit(struct ftk_symbols *s, pid_t pid);
FTK_API int ftk_symbols_resolve(struct ftk_symbols *s, pid_t pid, uint64_t addr,
				struct ftk_frame *f);
FTK_API char *ftk_symbols_demangle(const char *name);

#ifdef __cplusplus
}
#endif
#endif
