/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracefs: a handle on the tracing directory, or one instance in it.
 *
 * Reads and writes of control files return 0 or a negative errno, and
 * keep a text that names the file and the reason (ftk_tracefs_errmsg()),
 * with the kernel's own error_log line where it wrote one.
 *
 * Every handle keeps a restore journal: ftk_tracefs_set() saves the old
 * value of a file before it writes the new one, ftk_tracefs_undo() adds
 * an arbitrary undo write, and ftk_tracefs_restore() replays the journal
 * newest first. Tools call ftk_tracefs_restore() on every way out.
 */
#ifndef FTKIT_TRACEFS_H
#define FTKIT_TRACEFS_H

#include <ftkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_tracefs;

enum ftk_tracefs_flags {
	/* Create the instance if it does not exist; it is removed by
	 * ftk_tracefs_restore() if this handle created it. */
	FTK_TRACEFS_CREATE	= 1 << 0,
};

enum ftk_undo_flags {
	/* Append the undo text rather than truncating the file. */
	FTK_UNDO_APPEND		= 1 << 0,
};

FTK_API int ftk_tracefs_open(const char *root, const char *instance, unsigned int flags,
			     struct ftk_tracefs **out);
FTK_API void ftk_tracefs_close(struct ftk_tracefs *t);

FTK_API const char *ftk_tracefs_root(const struct ftk_tracefs *t);
FTK_API const char *ftk_tracefs_dir(const struct ftk_tracefs *t);
FTK_API const char *ftk_tracefs_instance(const struct ftk_tracefs *t);
FTK_API const char *ftk_tracefs_errmsg(const struct ftk_tracefs *t);
FTK_API const char *ftk_tracefs_errdetail(const struct ftk_tracefs *t);

FTK_API int ftk_tracefs_path(const struct ftk_tracefs *t, const char *file, char *buf,
			     size_t len);
FTK_API int ftk_tracefs_exists(const struct ftk_tracefs *t, const char *file);
FTK_API int ftk_tracefs_read(struct ftk_tracefs *t, const char *file, char **out);
FTK_API int ftk_tracefs_write(struct ftk_tracefs *t, const char *file, const char *val);
FTK_API int ftk_tracefs_append(struct ftk_tracefs *t, const char *file, const char *val);

FTK_API int ftk_tracefs_set(struct ftk_tracefs *t, const char *file, const char *val);
FTK_API int ftk_tracefs_undo(struct ftk_tracefs *t, const char *file, const char *undo,
			     unsigned int flags);
FTK_API int ftk_tracefs_restore(struct ftk_tracefs *t);

FTK_API char *ftk_tracefs_choice(const char *text);
FTK_API int ftk_tracefs_error_log(struct ftk_tracefs *t, char **out);

#ifdef __cplusplus
}
#endif
#endif
