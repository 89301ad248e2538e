// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs: control files of the tracing directory and its instances.
 *
 * File I/O here is done by hand rather than with tracefs_instance_file_*():
 * we need the precise errno of the one write(2) the kernel judged, a root
 * that can be a fake tree for unit tests, and a restore journal. libtracefs
 * is used for what it does well: finding and mounting tracefs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "internal.h"
#include "tracefs-local.h"

/*
 * The one lookup of the tracing directory: $FTK_TRACEFS (a copied tree
 * for the tests, or another mount), else libtracefs' mount point, which it
 * mounts if nothing has. Every module that needs tracefs asks here.
 */
const char *ftk_tracefs_find(void)
{
	const char *env = ftk_env(FTK_ENV_TRACEFS);

	if (env && *env)
		return env;
	return tracefs_tracing_dir();
}

/*
 * The one check of a name that becomes a path component under tracefs
 * (an instance, an event group or event, a probe, an option): not empty,
 * no '/', not "." or "..", no control character, at most NAME_MAX bytes.
 * "-B .." would otherwise open the top-level buffer, "-B ../.." /sys/kernel.
 */
int ftk_name_check(const char *name)
{
	const unsigned char *p;

	if (!name || !*name || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) > NAME_MAX)
		return -EINVAL;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f)
			return -EINVAL;
	return 0;
}

/**
 * ftk_tracefs_open() - open the tracing directory or an instance in it
 * @root: the tracing directory; NULL for $FTK_TRACEFS, else the mounted
 *	  tracefs (mounted at /sys/kernel/tracing if it is not)
 * @instance: an instance name, or NULL for the top level
 * @flags: FTK_TRACEFS_CREATE to create a missing instance; the handle then
 *	   removes it again in ftk_tracefs_restore()
 * @out: where the new handle goes
 *
 * Return: 0 and a handle that must be freed with ftk_tracefs_close(), or a
 * negative errno: -ENODEV when no tracefs can be found, -ENOENT for a
 * missing instance, or the error of mkdir(2).
 */
FTK_API int ftk_tracefs_open(const char *root, const char *instance, unsigned int flags,
			     struct ftk_tracefs **out)
{
	struct ftk_tracefs *t;
	struct stat st;
	int ret;

	*out = NULL;
	if (!root)
		root = ftk_tracefs_find();
	if (!root || stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
		pr_debug("no tracefs found (is it mounted? are you root?)\n");
		return ftk_err(-ENODEV);
	}
	if (instance && ftk_name_check(instance))
		return ftk_err(-EINVAL);

	t = calloc(1, sizeof(*t));
	if (!t)
		return ftk_err(-ENOMEM);
	t->root = strdup(root);
	if (!t->root)
		goto nomem;
	if (!instance) {
		t->dir = strdup(root);
		if (!t->dir)
			goto nomem;
		*out = t;
		return 0;
	}
	t->instance = strdup(instance);
	if (!t->instance || asprintf(&t->dir, "%s/instances/%s", root, instance) < 0) {
		t->dir = NULL;
		goto nomem;
	}
	if (stat(t->dir, &st) == 0) {
		*out = t;
		return 0;
	}
	if (!(flags & FTK_TRACEFS_CREATE)) {
		ret = -ENOENT;
		goto error;
	}
	if (mkdir(t->dir, 0750) < 0) {
		ret = -errno;
		goto error;
	}
	ret = ftk_tracefs_undo(t, t->dir, NULL, 0);
	if (ret) {
		rmdir(t->dir);
		goto error;
	}
	t->journal->kind = UNDO_RMDIR;
	*out = t;
	return 0;
nomem:
	ret = -ENOMEM;
error:
	ftk_tracefs_close(t);
	return ftk_err(ret);
}

static void undo_free(struct undo *u)
{
	free(u->file);
	free(u->text);
	free(u);
}

/**
 * ftk_tracefs_close() - free a handle
 * @t: the handle, or NULL
 *
 * The journal is dropped, not replayed: call ftk_tracefs_restore() first
 * to put back what was changed.
 */
FTK_API void ftk_tracefs_close(struct ftk_tracefs *t)
{
	struct undo *u;

	if (!t)
		return;
	while ((u = t->journal)) {
		t->journal = u->prev;
		undo_free(u);
	}
	free(t->root);
	free(t->dir);
	free(t->instance);
	free(t);
}

/** ftk_tracefs_root() - the tracing directory; owned by the handle */
FTK_API const char *ftk_tracefs_root(const struct ftk_tracefs *t)
{
	return t->root;
}

/** ftk_tracefs_dir() - the handle's directory (root or instance); owned by the handle */
FTK_API const char *ftk_tracefs_dir(const struct ftk_tracefs *t)
{
	return t->dir;
}

/** ftk_tracefs_instance() - the instance name, NULL at top level; owned by the handle */
FTK_API const char *ftk_tracefs_instance(const struct ftk_tracefs *t)
{
	return t->instance;
}

/**
 * ftk_tracefs_errmsg() - the text of the handle's last failure
 * @t: the handle
 *
 * Return: "FILE: OPERATION: REASON", with the kernel's error_log entry in
 * parentheses where it wrote one; "" when nothing failed yet. Owned by the
 * handle, valid until its next failing call.
 */
FTK_API const char *ftk_tracefs_errmsg(const struct ftk_tracefs *t)
{
	return t->errmsg;
}

/**
 * ftk_tracefs_errdetail() - the kernel's pointer at what it rejected
 * @t: the handle
 *
 * Return: the "Command:" line and the caret line under it from the
 * error_log entry of the handle's last failed write (each line indented by
 * two spaces, no final newline), or "" when the kernel logged none. Owned by
 * the handle, valid until its next failing call.
 */
FTK_API const char *ftk_tracefs_errdetail(const struct ftk_tracefs *t)
{
	return t->errdetail;
}

/**
 * ftk_tracefs_path() - the full path of a file of the handle
 * @t: the handle
 * @file: a path relative to the handle's directory ("events/sched/enable")
 * @buf: where to write it
 * @len: size of @buf
 *
 * Return: 0, or -ENAMETOOLONG.
 */
FTK_API int ftk_tracefs_path(const struct ftk_tracefs *t, const char *file, char *buf,
			     size_t len)
{
	int n;

	if (file[0] == '/')
		n = snprintf(buf, len, "%s", file);
	else
		n = snprintf(buf, len, "%s/%s", t->dir, file);
	if (n < 0 || (size_t)n >= len)
		return ftk_err(-ENAMETOOLONG);
	return 0;
}

/**
 * ftk_tracefs_exists() - whether a file of the handle exists
 * @t: the handle
 * @file: path relative to the handle's directory
 *
 * Return: 1 if it exists, 0 if not.
 */
FTK_API int ftk_tracefs_exists(const struct ftk_tracefs *t, const char *file)
{
	char path[PATH_MAX];

	if (ftk_tracefs_path(t, file, path, sizeof(path)))
		return 0;
	return access(path, F_OK) == 0;
}

/*
 * The text of error_log's last entry. With @cmd, only if that entry is
 * about @cmd (its "Command:" is part of what we wrote: a trigger's log
 * shows only its filter), so that an old entry is never blamed on a new
 * write. An instance has its own error_log; the top level's is the
 * fallback. With @detail, the entry's "Command:" and caret lines go there.
 */
static int last_log_line(struct ftk_tracefs *t, const char *cmd, char *buf, size_t len,
			 char *detail, size_t dlen)
{
	char path[PATH_MAX], *log, *line, *p, *c, *e;
	size_t cl;
	int ret;

	snprintf(path, sizeof(path), "%s/error_log", t->dir);
	ret = ftk_read_file(path, &log, NULL);
	if (ret == -ENOENT && t->instance) {
		snprintf(path, sizeof(path), "%s/error_log", t->root);
		ret = ftk_read_file(path, &log, NULL);
	}
	if (ret)
		return ret;
	ftk_strstrip(log);
	/* Entries are "[ts] subsys: error: text\n  Command: ...\n  caret\n". */
	line = NULL;
	for (p = log; (p = strstr(p, ": error: ")); p++)
		line = p;
	if (!line) {
		free(log);
		return -ENOENT;
	}
	line += strlen(": error: ");
	c = strstr(line, "Command: ");
	if (cmd) {
		if (!c) {
			free(log);
			return -ENOENT;
		}
		c += 9;
		cl = strcspn(c, "\n");
		while (cl && c[cl - 1] == ' ')
			cl--;
		if (!cl || !memmem(cmd, strlen(cmd), c, cl)) {
			free(log);
			return -ENOENT;
		}
		c -= 9;
	}
	if (detail && dlen) {
		detail[0] = '\0';
		if (c) {
			/* Back to the start of the "  Command:" line, up to the caret's end. */
			while (c > line && c[-1] == ' ')
				c--;
			e = strchr(c, '\n');
			e = e ? strchr(e + 1, '\n') : NULL;
			snprintf(detail, dlen, "%.*s", e ? (int)(e - c) : (int)strlen(c), c);
		}
	}
	p = strchr(line, '\n');
	if (p)
		*p = '\0';
	snprintf(buf, len, "%s", line);
	free(log);
	return 0;
}

int ftk_tracefs_fail(struct ftk_tracefs *t, const char *file, const char *op, int err)
{
	char reason[128], klog[256];
	const char *name = file;
	size_t rl = strlen(t->root);

	/* Name the file as a user sees it in tracefs: relative to the root. */
	if (!strncmp(name, t->root, rl) && name[rl] == '/')
		name += rl + 1;
	else if (t->instance && name[0] != '/')
		snprintf(klog, sizeof(klog), "instances/%s/%s", t->instance, name), name = klog;
	ftk_strerror(err, reason, sizeof(reason));
	t->errdetail[0] = '\0';
	snprintf(t->errmsg, sizeof(t->errmsg), "%s: %s: %s", name, op, reason);
	if (err == -EPERM)
		strncat(t->errmsg, " (the kernel forbids it here: lockdown or no privilege)",
			sizeof(t->errmsg) - strlen(t->errmsg) - 1);
	return err;
}

static int do_write(struct ftk_tracefs *t, const char *file, const char *val, int oflags)
{
	char path[PATH_MAX], klog[256];
	int ret;

	ret = ftk_tracefs_path(t, file, path, sizeof(path));
	if (ret)
		return ftk_tracefs_fail(t, file, "write", ret);
	ret = ftk_write_file(path, oflags, val, strlen(val));
	if (ret) {
		ftk_tracefs_fail(t, file, "write", ret);
		if ((ret == -EINVAL || ret == -ENOENT || ret == -EBUSY || ret == -E2BIG) &&
		    !last_log_line(t, val, klog, sizeof(klog), t->errdetail,
				   sizeof(t->errdetail)) &&
		    strlen(t->errmsg) + strlen(klog) + 12 < sizeof(t->errmsg)) {
			strcat(t->errmsg, ": ");
			strcat(t->errmsg, klog);
		}
	}
	return ret;
}

/**
 * ftk_tracefs_read() - read a whole control file
 * @t: the handle
 * @file: path relative to the handle's directory
 * @out: where the malloc'd NUL-terminated text goes
 *
 * Return: 0 and the text, which must be freed with free(), or a negative
 * errno with the reason in ftk_tracefs_errmsg().
 */
FTK_API int ftk_tracefs_read(struct ftk_tracefs *t, const char *file, char **out)
{
	char path[PATH_MAX];
	int ret;

	*out = NULL;
	ret = ftk_tracefs_path(t, file, path, sizeof(path));
	if (!ret)
		ret = ftk_read_file(path, out, NULL);
	if (ret)
		ftk_tracefs_fail(t, file, "read", ret);
	return ftk_err(ret);
}

/**
 * ftk_tracefs_write() - write a control file, truncating it first
 * @t: the handle
 * @file: path relative to the handle's directory
 * @val: the text, written with one write(2)
 *
 * Nothing is journaled: see ftk_tracefs_set().
 *
 * Return: 0, or the negative errno of the write with the reason (and the
 * kernel's error_log text) in ftk_tracefs_errmsg().
 */
FTK_API int ftk_tracefs_write(struct ftk_tracefs *t, const char *file, const char *val)
{
	return ftk_err(do_write(t, file, val, O_TRUNC));
}

/**
 * ftk_tracefs_append() - append to a control file (set_event, kprobe_events...)
 * @t: the handle
 * @file: path relative to the handle's directory
 * @val: the text, written with one write(2)
 *
 * Return: as ftk_tracefs_write().
 */
FTK_API int ftk_tracefs_append(struct ftk_tracefs *t, const char *file, const char *val)
{
	return ftk_err(do_write(t, file, val, O_APPEND));
}

/* The ring buffer's page (sub-buffer) of @t: buffer_subbuf_size_kb where there is one. */
size_t ftk_tracefs_page_size(struct ftk_tracefs *t)
{
	size_t size = sysconf(_SC_PAGESIZE);
	char *text;

	if (ftk_tracefs_exists(t, "buffer_subbuf_size_kb") &&
	    !ftk_tracefs_read(t, "buffer_subbuf_size_kb", &text)) {
		long kb = strtol(text, NULL, 10);

		if (kb > 0)
			size = kb * 1024;
		free(text);
	}
	return size;
}

/**
 * ftk_tracefs_choice() - the selected word of a "a [b] c" control file
 * @text: the file's contents (trace_clock, current_tracer, ...)
 *
 * Return: the word in brackets, or the first word if there are none, in a
 * malloc'd string to free(); NULL with errno ENOMEM.
 */
FTK_API char *ftk_tracefs_choice(const char *text)
{
	const char *b = strchr(text, '['), *e;

	if (b && (e = strchr(b, ']')))
		return strndup(b + 1, e - b - 1);
	while (isspace((unsigned char)*text))
		text++;
	for (e = text; *e && !isspace((unsigned char)*e); e++)
		;
	return strndup(text, e - text);
}

/* What to write back to make @file read @old again. */
static int old_to_undo(const char *file, char *old, char **text, enum undo_kind *kind)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

	ftk_strstrip(old);
	*kind = UNDO_WRITE;
	/* set_ftrace_pid and set_ftrace_notrace_pid read "no pid" when empty. */
	if (!strncmp(base, "set_", 4) && !strcmp(old, "no pid"))
		old[0] = '\0';
	if (!strncmp(base, "set_", 4)) {
		/* Lists (whose lines may hold "[module]"): clear, then add back each line. */
		*kind = UNDO_LINES;
		*text = strdup(old);
	} else if (strchr(old, '[')) {			/* trace_clock and the like */
		*text = ftk_tracefs_choice(old);
	} else if (!strcmp(base, "filter") && !strcmp(old, "none")) {
		*text = strdup("0");
	} else if (!strcmp(base, "buffer_size_kb")) {	/* "1408 (expanded: ...)" */
		*text = strndup(old, strspn(old, "0123456789"));
	} else if (strchr(old, '\n') || !strcmp(base, "set_event") ||
		   !strncmp(base, "set_", 4)) {
		*kind = UNDO_LINES;		/* lists: clear, then add back each line */
		*text = strdup(old);
	} else {
		*text = strdup(old);
	}
	return *text ? 0 : -ENOMEM;
}

/**
 * ftk_tracefs_undo() - add a write to the restore journal
 * @t: the handle
 * @file: path relative to the handle's directory
 * @undo: the text to write at restore time
 * @flags: FTK_UNDO_APPEND to append rather than truncate
 *
 * For changes ftk_tracefs_set() cannot undo by rewriting an old value:
 * a trigger is undone by appending "!trigger", a probe by "-:group/name".
 *
 * Return: 0 or -ENOMEM.
 */
FTK_API int ftk_tracefs_undo(struct ftk_tracefs *t, const char *file, const char *undo,
			     unsigned int flags)
{
	struct undo *u = calloc(1, sizeof(*u));

	if (!u)
		return ftk_err(-ENOMEM);
	u->file = strdup(file);
	u->text = ftk_strdup(undo);
	u->kind = flags & FTK_UNDO_APPEND ? UNDO_APPEND : UNDO_WRITE;
	if (!u->file || (undo && !u->text)) {
		undo_free(u);
		return ftk_err(-ENOMEM);
	}
	u->prev = t->journal;
	t->journal = u;
	return 0;
}

/**
 * ftk_tracefs_set() - write a control file and journal its old value
 * @t: the handle
 * @file: path relative to the handle's directory
 * @val: the new text
 *
 * The old value is read first and put in the journal in the form the file
 * takes back: the bracketed choice of trace_clock, "0" for a filter of
 * "none", the size of buffer_size_kb, and list files (set_event,
 * set_ftrace_filter, ...) cleared and re-filled line by line.
 *
 * Return: 0, or a negative errno with the reason in ftk_tracefs_errmsg();
 * on failure nothing is journaled.
 */
FTK_API int ftk_tracefs_set(struct ftk_tracefs *t, const char *file, const char *val)
{
	enum undo_kind kind;
	char *old, *text;
	int ret;

	ret = ftk_tracefs_read(t, file, &old);
	if (ret)
		return ret;
	ret = old_to_undo(file, old, &text, &kind);
	free(old);
	if (ret)
		return ftk_err(ret);
	ret = do_write(t, file, val, O_TRUNC);
	if (!ret)
		ret = ftk_tracefs_undo(t, file, text, 0);
	if (!ret)
		t->journal->kind = kind;
	free(text);
	return ftk_err(ret);
}

static int replay(struct ftk_tracefs *t, struct undo *u)
{
	char *line, *next;
	int ret = 0, r;

	switch (u->kind) {
	case UNDO_WRITE:
		return do_write(t, u->file, u->text, O_TRUNC);
	case UNDO_APPEND:
		return do_write(t, u->file, u->text, O_APPEND);
	case UNDO_RMDIR:
		/*
		 * Any process that has a file of the instance open (a tool
		 * dumping every instance, say) makes rmdir fail with EBUSY
		 * for that moment: try again for up to a second.
		 */
		for (r = 0; rmdir(u->file) < 0; r++) {
			if (errno == ENOENT)
				break;
			if (errno != EBUSY || r == 50)
				return ftk_tracefs_fail(t, u->file, "rmdir", -errno);
			usleep(20000);
		}
		return 0;
	case UNDO_LINES:
		ret = do_write(t, u->file, "", O_TRUNC);
		for (line = u->text; line && *line; line = next) {
			size_t n = strcspn(line, "\n");
			char one[4096];

			next = line[n] ? line + n + 1 : line + n;
			if (*line == '#' || !n)
				continue;
			/* One entry a write, newline-terminated as the kernel prints them. */
			snprintf(one, sizeof(one), "%.*s\n", (int)n, line);
			r = do_write(t, u->file, one, O_APPEND);
			if (r && !ret)
				ret = r;
		}
		return ret;
	}
	return 0;
}

struct undo *ftk_tracefs_mark(struct ftk_tracefs *t)
{
	return t->journal;
}

/*
 * Replay the journal newest first down to @mark (NULL: all of it), each
 * entry freed; a failing undo is warned about and the rest still runs.
 * Return: 0, or the first failure.
 */
static int replay_to(struct ftk_tracefs *t, struct undo *mark)
{
	struct undo *u;
	int ret = 0, r;

	while ((u = t->journal) && u != mark) {
		t->journal = u->prev;
		r = replay(t, u);
		if (r) {
			pr_warn("cannot restore %s\n", t->errmsg);
			if (!ret)
				ret = r;
		}
		undo_free(u);
	}
	return ret;
}

int ftk_tracefs_rollback(struct ftk_tracefs *t, struct undo *mark)
{
	char msg[sizeof(t->errmsg)], detail[sizeof(t->errdetail)];
	int ret;

	memcpy(msg, t->errmsg, sizeof(msg));
	memcpy(detail, t->errdetail, sizeof(detail));
	ret = replay_to(t, mark);
	memcpy(t->errmsg, msg, sizeof(msg));
	memcpy(t->errdetail, detail, sizeof(detail));
	return ret;
}

/**
 * ftk_tracefs_restore() - put back everything the journal recorded
 * @t: the handle
 *
 * Replays the journal newest first and empties it. A failing undo is
 * logged as a warning and the rest still runs. An instance the handle
 * created is removed first when it can be, and what lay in it is not
 * put back one file at a time.
 *
 * Context: async-signal-unsafe; call it from the main flow after a signal
 * handler set a flag, not from the handler.
 *
 * Return: 0, or the first failure's negative errno (its text in
 * ftk_tracefs_errmsg()).
 */
FTK_API int ftk_tracefs_restore(struct ftk_tracefs *t)
{
	struct undo *u;
	int ret = 0, r;

	/*
	 * An instance the handle made goes first, when nothing holds it:
	 * the kernel clears its triggers, pid lists and events before it
	 * removes it (event_trace_del_tracer()), and its files go with it.
	 * Putting back its trace_clock, buffer size and the like first cost
	 * a buffer reset and an RCU grace period each, for nothing. What the
	 * journal holds outside the instance is still put back, in order.
	 */
	for (u = t->journal; u && u->prev; u = u->prev)
		;
	if (u && u->kind == UNDO_RMDIR && t->instance && !strcmp(u->file, t->dir) &&
	    rmdir(t->dir) == 0) {
		size_t n = strlen(t->dir);

		while ((u = t->journal)) {
			t->journal = u->prev;
			if (u->kind != UNDO_RMDIR && u->file[0] == '/' &&
			    !(!strncmp(u->file, t->dir, n) && u->file[n] == '/') &&
			    (r = replay(t, u))) {
				pr_warn("cannot restore %s\n", t->errmsg);
				if (!ret)
					ret = r;
			}
			undo_free(u);
		}
		return ftk_err(ret);
	}
	return ftk_err(replay_to(t, NULL));
}

/**
 * ftk_tracefs_error_log() - the kernel's last error_log entry
 * @t: the handle
 * @out: where the malloc'd text goes ("error: ..." line only)
 *
 * Return: 0, -ENOENT when the log is empty, or the read error.
 */
FTK_API int ftk_tracefs_error_log(struct ftk_tracefs *t, char **out)
{
	char buf[256];
	int ret;

	*out = NULL;
	ret = last_log_line(t, NULL, buf, sizeof(buf), NULL, 0);
	if (ret)
		return ftk_err(ret);
	*out = strdup(buf);
	return *out ? 0 : ftk_err(-ENOMEM);
}
