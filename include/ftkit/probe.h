/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe: kprobe, kretprobe, uprobe, uretprobe and eprobe events.
 *
 *	struct ftk_probe *p = ftk_probe_new();
 *	ftk_probe_parse(p, "/usr/bin/bash:readline%return line=$retval:ustring", NULL);
 *	ftk_probe_create(p, top, FTK_PROBE_JOURNAL);	// removed by ftk_tracefs_restore(top)
 *	... enable events/<group>/<name> in an instance ...
 *	ftk_probe_free(p);
 *
 * A spec is the kernel's definition with friendlier places:
 *	[p|r|e[:[GROUP/]NAME]] PLACE [NAME=FETCHARG[:TYPE]...] [if FILTER]
 * PLACE is SYMBOL[+OFF][%return] (kprobe), PATH:SYMBOL[+OFF][%return] or
 * PATH:0xFILEOFFSET (uprobe; the symbol is looked up in the ELF file) or
 * SYSTEM.EVENT (eprobe, with "e"). Without a type word, %return makes a
 * return probe.
 *
 * Ownership: probes ftkit makes for the length of one run live in the group
 * "ftkit_PID_NS" (creator's PID and PID namespace), so that
 * ftk_probe_gc() can remove them once that process is dead; probes a user
 * adds to keep go to the group FTK_PROBE_GROUP ("ftkit") unless another
 * is given. Nothing outside those is removed without FTK_PROBE_ALL.
 */
#ifndef FTKIT_PROBE_H
#define FTKIT_PROBE_H

#include <stdint.h>

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTK_PROBE_GROUP	"ftkit"

struct ftk_probe;

enum ftk_probe_kind {
	FTK_PROBE_KPROBE,
	FTK_PROBE_KRETPROBE,
	FTK_PROBE_UPROBE,
	FTK_PROBE_URETPROBE,
	FTK_PROBE_EPROBE,
};

enum ftk_probe_flags {
	/* ftk_probe_create(): journal the removal in the handle (see ftk_tracefs_restore()). */
	FTK_PROBE_JOURNAL	= 1 << 0,
	/* ftk_probe_delete_group(): every group, not only the one given. */
	FTK_PROBE_ALL		= 1 << 1,
};

struct ftk_probe_opts {
	size_t		sz;
	const char	*group;		/* NULL: FTK_PROBE_GROUP */
	const char	*name;		/* NULL: from the symbol or event */
	const char	*binary;	/* uprobe target when PLACE is only SYMBOL[+OFF] */
	int		pid;		/* > 0: find libraries (and the binary) through /proc/PID */
};

FTK_API struct ftk_probe *ftk_probe_new(void);
FTK_API void ftk_probe_free(struct ftk_probe *p);
FTK_API int ftk_probe_parse(struct ftk_probe *p, const char *spec,
			    const struct ftk_probe_opts *opts);
FTK_API int ftk_probe_add_arg(struct ftk_probe *p, const char *arg);
FTK_API char *ftk_probe_command(const struct ftk_probe *p);
FTK_API int ftk_probe_create(struct ftk_probe *p, struct ftk_tracefs *t, unsigned int flags);

FTK_API enum ftk_probe_kind ftk_probe_kind(const struct ftk_probe *p);
FTK_API const char *ftk_probe_group(const struct ftk_probe *p);
FTK_API const char *ftk_probe_name(const struct ftk_probe *p);
FTK_API const char *ftk_probe_errmsg(const struct ftk_probe *p);

FTK_API int ftk_probe_owner_group(char *buf, size_t len);
FTK_API int ftk_probe_uprobe_offset(const char *path, const char *symbol, uint64_t *offset);
FTK_API int ftk_probe_find_library(int pid, const char *name, char **path);

/* ---------------------------------------------------------------- the paths of opens */

/* An event that names the path of an open(2) or openat(2) (ftk_probe_open_paths()). */
struct ftk_path_probe {
	char	event[128];	/* "GROUP:NAME", to enable in an instance */
	int	nr;		/* the syscall it was made for; -1: a libc function's entry */
	int	at_enter;	/* 1: an eprobe, after its sys_enter; 0: a uprobe, before */
};

struct ftk_path_probe_opts {
	size_t		sz;
	const char	*group;		/* NULL: ftk_probe_owner_group() */
	const char	*exe;		/* the command run (PATH searched), when no pid */
	int		pid;		/* > 0: the process traced */
};

/*
 * Probes whose events carry "path" (the string) and "ptr" (the pointer the
 * syscall gets) of open and openat, read from the call itself: eprobes on
 * the syscall events where the kernel has them, else uprobes at the
 * syscall instructions of the loader, libc and the executable, else at
 * libc's open functions. Made in @t, journaled. *@out (free()) gets the
 * events; @why what was not reached. Returns their number or -errno.
 */
FTK_API long ftk_probe_open_paths(struct ftk_tracefs *t, const struct ftk_path_probe_opts *opts,
				  struct ftk_path_probe **out, char *why, size_t len);

FTK_API int ftk_probe_list(struct ftk_tracefs *t, char ***out);
FTK_API int ftk_probe_delete(struct ftk_tracefs *t, const char *event);
FTK_API int ftk_probe_delete_group(struct ftk_tracefs *t, const char *group, unsigned int flags,
				   char ***deleted);
FTK_API int ftk_probe_gc(struct ftk_tracefs *t, char ***deleted);

#ifdef __cplusplus
}
#endif
#endif
