/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef FTKIT_TRACEFS_LOCAL_H
#define FTKIT_TRACEFS_LOCAL_H

#include <ftkit/tracefs.h>

enum undo_kind {
	UNDO_WRITE,		/* write text, truncating */
	UNDO_APPEND,		/* append text */
	UNDO_LINES,		/* truncate, then append each line */
	UNDO_RMDIR,		/* remove the instance directory */
};

struct undo {
	struct undo	*prev;
	char		*file;		/* relative to the handle's dir, or absolute for RMDIR */
	char		*text;
	enum undo_kind	kind;
};

struct ftk_tracefs {
	char		*root;		/* the tracing directory */
	char		*dir;		/* root, or root/instances/NAME */
	char		*instance;	/* NULL for the top level */
	struct undo	*journal;	/* newest first */
	char		errmsg[512];
	char		errdetail[512];	/* error_log's "Command:" and caret lines, or "" */
};

/* Record a failure on @t: "FILE: OP: REASON[ (kernel: LOG)]"; returns @err. */
int ftk_tracefs_fail(struct ftk_tracefs *t, const char *file, const char *op, int err);

/* The ring buffer's page of @t: the sub-buffer size (buffer_subbuf_size_kb), else the page size. */
size_t ftk_tracefs_page_size(struct ftk_tracefs *t);

/* The journal's newest entry: a mark to roll back to. */
struct undo *ftk_tracefs_mark(struct ftk_tracefs *t);
/*
 * Replay and drop the journal entries newer than @mark, so that a library
 * call that fails half-way leaves nothing behind; the handle's error text
 * (of the failure that caused it) is kept. Returns the first undo failure.
 */
int ftk_tracefs_rollback(struct ftk_tracefs *t, struct undo *mark);

#endif
