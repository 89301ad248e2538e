// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe: kprobe, kretprobe, uprobe, uretprobe and eprobe definitions,
 * written to kprobe_events, uprobe_events or dynamic_events.
 *
 * libtracefs has tracefs_kprobe_alloc() and tracefs_uprobe_alloc(), but
 * its 1.6 uprobe API takes a file offset the caller must find, it has no
 * eprobe helper of its own before 1.7 and it keeps no error text we can
 * show: we build the one-line definitions ourselves (the kernel format is
 * small and stable, see Documentation/trace/{kprobe,uprobe}tracer.rst) and
 * write them through ftk_tracefs, which adds the kernel's error_log text
 * to our message.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftkit/instance.h>
#include <ftkit/probe.h>

#include "internal.h"
#include "elf-local.h"
#include "tracefs-local.h"

#define NAME_MAX_LEN	63	/* the kernel's MAX_EVENT_NAME_LEN - 1 */

struct ftk_probe {
	enum ftk_probe_kind	kind;
	char			*group;
	char			*name;
	char			*place;		/* as the kernel takes it */
	char			**args;
	char			*filter;	/* eprobes: "if ..." without the "if" */
	int			inside;		/* uprobe not at a function entry: keep $argN */
	unsigned int		maxactive;	/* kretprobes: "r10:" */
	char			errmsg[512];
};

static int fail(struct ftk_probe *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ftk_probe *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
	return ftk_err(err);
}

/**
 * ftk_probe_new() - an empty probe definition
 *
 * Return: a probe to fill with ftk_probe_parse(), to be freed with
 * ftk_probe_free(); NULL with errno ENOMEM.
 */
FTK_API struct ftk_probe *ftk_probe_new(void)
{
	struct ftk_probe *p = calloc(1, sizeof(*p));

	if (!p)
		return ftk_err_ptr(-ENOMEM);
	p->args = calloc(1, sizeof(char *));
	if (!p->args) {
		free(p);
		return ftk_err_ptr(-ENOMEM);
	}
	return p;
}

static void probe_clear(struct ftk_probe *p)
{
	free(p->group);
	free(p->name);
	free(p->place);
	free(p->filter);
	ftk_list_free(p->args);
	p->group = p->name = p->place = p->filter = NULL;
	p->inside = 0;
	p->maxactive = 0;
	p->args = calloc(1, sizeof(char *));
}

/** ftk_probe_free() - free a probe definition (not the kernel's event); NULL is fine */
FTK_API void ftk_probe_free(struct ftk_probe *p)
{
	if (!p)
		return;
	probe_clear(p);
	free(p->args);
	free(p);
}

/* The kernel's is_good_name(): [A-Za-z_][A-Za-z0-9_]*. */
static int good_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > NAME_MAX_LEN || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* Symbols: C and mangled C++ names, GCC's "foo.cold", versions "malloc@GLIBC_2.2.5". */
static int good_symbol(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.@", *s))
			return 0;
	return 1;
}

/* A valid event name made from @s (+@suffix): bad characters become '_'. */
static char *make_name(const char *s, const char *suffix)
{
	char buf[NAME_MAX_LEN + 1];
	size_t i = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		buf[i++] = '_';
	for (; *s && *s != '@' && i < NAME_MAX_LEN; s++)
		buf[i++] = isalnum((unsigned char)*s) ? *s : '_';
	buf[i] = '\0';
	if (suffix)
		snprintf(buf + i, sizeof(buf) - i, "%s", suffix);
	return strdup(buf);
}

static int parse_offset(const char *s, unsigned long long *off)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*off = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

/**
 * ftk_probe_find_library() - the path of a file mapped into a process
 * @pid: the process
 * @name: a library name ("libc", "libc.so.6") or a path
 * @path: where the malloc'd path goes
 *
 * Reads /proc/PID/maps and returns the first mapped file whose name is
 * @name or starts with @name followed by '.' or '-' ("libc" finds
 * libc.so.6 but not libcrypto.so.3). An empty @name gives the program
 * itself (/proc/PID/exe).
 *
 * Return: 0 and the path, to be freed with free(); -ENOENT when no mapping
 * matches; -ESRCH or -EACCES when the process cannot be read.
 */
FTK_API int ftk_probe_find_library(int pid, const char *name, char **path)
{
	char file[64], line[PATH_MAX + 256], *p, *base;
	size_t n = strlen(name);
	FILE *f;

	*path = NULL;
	if (!*name) {
		ssize_t len;

		snprintf(file, sizeof(file), "/proc/%d/exe", pid);
		len = readlink(file, line, sizeof(line) - 1);
		if (len < 0)
			return ftk_err(errno == ENOENT ? -ESRCH : -errno);
		line[len] = '\0';
		*path = strdup(line);
		return *path ? 0 : ftk_err(-ENOMEM);
	}
	snprintf(file, sizeof(file), "/proc/%d/maps", pid);
	f = fopen(file, "re");
	if (!f)
		return ftk_err(errno == ENOENT ? -ESRCH : -errno);
	while (fgets(line, sizeof(line), f)) {
		ftk_strstrip(line);
		p = strchr(line, '/');
		if (!p || strstr(p, " (deleted)"))
			continue;
		base = strrchr(p, '/') + 1;
		if (strchr(name, '/') ? strcmp(p, name) :
		    strncmp(base, name, n) || (base[n] && base[n] != '.' && base[n] != '-'))
			continue;
		*path = strdup(p);
		fclose(f);
		return *path ? 0 : ftk_err(-ENOMEM);
	}
	fclose(f);
	return ftk_err(-ENOENT);
}

/**
 * ftk_probe_uprobe_offset() - the file offset of a function, for a uprobe
 * @path: an ELF executable (PIE or not) or shared library
 * @symbol: a function in its .symtab or .dynsym, optionally "+OFFSET"
 * @offset: where the file offset goes
 *
 * Return: 0, -ENOENT (no such file or symbol), -ENOEXEC (not ELF),
 * -ERANGE (not in a loaded segment) or another negative errno.
 */
FTK_API int ftk_probe_uprobe_offset(const char *path, const char *symbol, uint64_t *offset)
{
	unsigned long long add = 0;
	char err[256], sym[256];
	const char *plus = strchr(symbol, '+');

	snprintf(sym, sizeof(sym), "%.*s", plus ? (int)(plus - symbol) : (int)strlen(symbol),
		 symbol);
	if (plus && parse_offset(plus + 1, &add))
		return ftk_err(-EINVAL);
	return ftk_err(ftk_elf_uprobe_offset(path, sym, add, offset, NULL, err, sizeof(err)));
}

/* uprobes cannot fetch $argN (the kernel does not know it is a function entry): use the
 * calling convention's registers. Returns a malloc'd copy of @arg. */
static char *uprobe_args(const char *arg)
{
#if defined(__x86_64__)
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
#elif defined(__aarch64__)
	static const char *const regs[] = { "%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6",
					    "%x7" };
#else
	static const char *const regs[] = { NULL };
#endif
	char out[1024], *o = out;
	const char *s = arg;

	while (*s && o < out + sizeof(out) - 8) {
		unsigned int n;
		int len;

		if (!strncmp(s, "$arg", 4) && sscanf(s + 4, "%u%n", &n, &len) == 1 &&
		    n >= 1 && n <= ARRAY_SIZE(regs) && regs[n - 1]) {
			o += sprintf(o, "%s", regs[n - 1]);
			s += 4 + len;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return strdup(out);
}

/**
 * ftk_probe_add_arg() - add a fetch argument to a probe
 * @p: the probe
 * @arg: "NAME=FETCHARG[:TYPE]" or "FETCHARG[:TYPE]" ($retval, $comm, $argN, %reg,
 *	+OFF(FETCHARG), @symbol...)
 *
 * For uprobes at a function entry, $argN becomes the register of the
 * N-th argument of the C calling convention (x86_64 and aarch64), since
 * the kernel cannot fetch $argN for uprobes. The kernel checks the rest
 * when the probe is created.
 *
 * Return: 0, -EINVAL for a bad name, white space or a newline (the reason
 * in ftk_probe_errmsg()), or -ENOMEM.
 */
FTK_API int ftk_probe_add_arg(struct ftk_probe *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *copy;
	int ret;

	if (!*arg || strpbrk(arg, " \t\n\r\v\f"))
		return fail(p, -EINVAL, "bad argument '%s': no white space allowed", arg);
	/* Fetch args hold no '=' (but for "\\"imm-string"): what is before one is a name. */
	if (eq && *arg != '\\') {
		char name[NAME_MAX_LEN + 2];

		snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
		if (eq == arg || eq - arg > NAME_MAX_LEN || !good_name(name))
			return fail(p, -EINVAL,
				    "bad argument name '%.*s': use letters, digits and '_'",
				    (int)(eq - arg), arg);
	}
	if (p->kind == FTK_PROBE_UPROBE && !p->inside)
		copy = uprobe_args(arg);
	else
		copy = strdup(arg);
	if (!copy)
		return ftk_err(-ENOMEM);
	ret = ftk_list_add(&p->args, copy);
	free(copy);
	return ftk_err(ret);
}

/* A type word: "p", "r", "r10", "e", each optionally ":[GROUP/]NAME". */
static int type_word(const char *w, char *type, char **group, char **name)
{
	const char *c = w + 1, *colon, *slash;

	if (!strchr("pre", w[0]))
		return 0;
	while (w[0] == 'r' && isdigit((unsigned char)*c))
		c++;
	if (*c && *c != ':')
		return 0;
	*type = w[0];
	if (!*c)
		return 1;
	colon = c;
	slash = strchr(colon, '/');
	if (slash) {
		*group = strndup(colon + 1, slash - colon - 1);
		*name = strdup(slash + 1);
	} else {
		*name = strdup(colon + 1);
	}
	return 1;
}

static int parse_uprobe_place(struct ftk_probe *p, char *place, int ret_probe,
			      const struct ftk_probe_opts *o)
{
	char *colon = strrchr(place, ':'), *file, *what, *path = NULL, *plus;
	unsigned long long add = 0;
	char real[PATH_MAX], err[320];
	uint64_t off;
	int ret, at_entry = 1, is64 = 1;

	if (colon) {
		*colon = '\0';
		file = place;
		what = colon + 1;
	} else {
		file = (char *)(o && o->binary ? o->binary : "");
		what = place;
	}
	if (o && o->pid > 0 && !strchr(file, '/')) {
		ret = ftk_probe_find_library(o->pid, file, &path);
		if (ret == -ENOENT)
			return fail(p, ret, "no file named '%s' is mapped in process %d", file,
				    o->pid);
		if (ret)
			return fail(p, ret, "cannot read /proc/%d/maps: %s", o->pid,
				    strerror(-ret));
		file = path;
	} else if (!*file) {
		return fail(p, -EINVAL, "uprobe '%s' needs a binary: PATH:SYMBOL, or -p PID", what);
	} else if (!strchr(file, '/') && access(file, F_OK)) {
		return fail(p, -ENOENT,
			    "cannot find '%s': give its path, or -p PID to look it up in /proc/PID/maps",
			    file);
	}
	if (!realpath(file, real)) {
		ret = -errno;
		fail(p, ret, "cannot find binary '%s': %s", file, strerror(-ret));
		goto out;
	}
	if (strpbrk(real, " \t\n\r")) {
		ret = fail(p, -EINVAL, "'%s': the kernel takes no white space in a uprobe path",
			   real);
		goto out;
	}
	if (isdigit((unsigned char)*what)) {
		if (parse_offset(what, &add)) {
			ret = fail(p, -EINVAL, "bad file offset '%s'", what);
			goto out;
		}
		off = add;
		if (!p->name)
			p->name = make_name(strrchr(real, '/') + 1, NULL);
	} else {
		plus = strchr(what, '+');
		if (plus) {
			*plus++ = '\0';
			if (parse_offset(plus, &add)) {
				ret = fail(p, -EINVAL, "bad offset '+%s' after '%s'", plus, what);
				goto out;
			}
			at_entry = add == 0;
		}
		if (!good_symbol(what)) {
			ret = fail(p, -EINVAL, "bad symbol name '%s'", what);
			goto out;
		}
		if (ret_probe && add) {
			ret = fail(p, -EINVAL, "a return probe takes no offset ('%s+%llu')", what,
				   add);
			goto out;
		}
		ret = ftk_elf_uprobe_offset(real, what, add, &off, &is64, err, sizeof(err));
		if (ret) {
			fail(p, ret, "%s", err);
			goto out;
		}
		if (!p->name) {
			char sfx[32] = "";

			if (add)
				snprintf(sfx, sizeof(sfx), "_%llu", add);
			if (ret_probe)
				strcat(sfx, "__return");
			p->name = make_name(what, sfx);
		}
	}
	/* Not at a function entry: $argN cannot become registers. */
	/* $argN as registers: only at a function's entry, and only for the host's own
	 * 64-bit calling convention (i386 passes arguments on the stack). */
	p->inside = !at_entry || isdigit((unsigned char)*what) || !is64;
	if (asprintf(&p->place, "%s:%#llx", real, (unsigned long long)off) < 0)
		p->place = NULL;
	ret = p->place && p->name ? 0 : -ENOMEM;
out:
	free(path);
	return ret;
}

static int parse_kprobe_place(struct ftk_probe *p, char *place, int ret_probe)
{
	char *plus = strchr(place, '+');
	unsigned long long add = 0;
	char sfx[32] = "";

	if (isdigit((unsigned char)*place))
		return fail(p, -EINVAL, "give kprobes a symbol, not an address ('%s')", place);
	if (plus) {
		*plus = '\0';
		if (parse_offset(plus + 1, &add))
			return fail(p, -EINVAL, "bad offset '+%s' after '%s'", plus + 1, place);
	}
	if (!good_symbol(place) || strchr(place, '@'))
		return fail(p, -EINVAL, "bad kernel symbol '%s'", place);
	if (ret_probe && add)
		return fail(p, -EINVAL, "a return probe takes no offset ('%s+%llu')", place, add);
	if (add && asprintf(&p->place, "%s+%llu", place, add) < 0)
		return -ENOMEM;
	if (!add)
		p->place = strdup(place);
	if (add)
		snprintf(sfx, sizeof(sfx), "_%llu", add);
	if (ret_probe)
		strcat(sfx, "__return");
	if (!p->name)
		p->name = make_name(place, sfx);
	return p->place && p->name ? 0 : -ENOMEM;
}

static int parse_eprobe_place(struct ftk_probe *p, char *place)
{
	char *sep = strpbrk(place, "./:");

	if (!sep || sep == place || !sep[1])
		return fail(p, -EINVAL, "eprobes attach to SYSTEM.EVENT, not '%s'", place);
	*sep = '\0';
	if (!good_name(place) || !good_name(sep + 1))
		return fail(p, -EINVAL, "bad event '%s.%s'", place, sep + 1);
	if (asprintf(&p->place, "%s.%s", place, sep + 1) < 0)
		return -ENOMEM;
	if (!p->name)
		p->name = strdup(sep + 1);
	return p->name ? 0 : -ENOMEM;
}

/**
 * ftk_probe_parse() - fill a probe from a spec
 * @p: the probe (what it held before is dropped)
 * @spec: "[p|r|e[:[GROUP/]NAME]] PLACE [ARG...] [if FILTER]" (see probe.h)
 * @opts: group, name, binary and pid, or NULL
 *
 * Uprobe symbols are resolved here, to a file offset, from the ELF file's
 * .symtab or .dynsym: so a missing binary or symbol fails now, before
 * anything is written to tracefs. Group and event names must be
 * [A-Za-z_][A-Za-z0-9_]*; a spec with a newline is refused (one write
 * could otherwise define or delete other events).
 *
 * Return: 0, or a negative errno with the reason in ftk_probe_errmsg():
 * -EINVAL (bad spec), -ENOENT (no such binary or symbol), -ENOEXEC (not
 * an ELF file), -ESRCH (no such process).
 */
FTK_API int ftk_probe_parse(struct ftk_probe *p, const char *spec,
			    const struct ftk_probe_opts *opts)
{
	char *copy, *words[128], *save, *w, *group = NULL, *name = NULL, type = 0, *place;
	int n = 0, i, ret, ret_probe = 0;
	size_t len;

	probe_clear(p);
	p->errmsg[0] = '\0';
	if (strpbrk(spec, "\n\r"))
		return fail(p, -EINVAL, "a probe spec is one line");
	copy = strdup(spec);
	if (!copy || !p->args)
		return ftk_err(-ENOMEM);
	for (w = strtok_r(copy, " \t", &save); w && n < (int)ARRAY_SIZE(words);
	     w = strtok_r(NULL, " \t", &save))
		words[n++] = w;
	if (!n) {
		ret = fail(p, -EINVAL, "empty probe spec");
		goto out;
	}
	i = 0;
	if (type_word(words[0], &type, &group, &name)) {
		i = 1;
		/* "r:PLACE" alone: the type and the place in one word. */
		if (n == 1 && (name || group)) {
			words[0] = strchr(words[0], ':') + 1;
			free(group);
			free(name);
			group = name = NULL;
			i = 0;
		}
	}
	if (i >= n) {
		ret = fail(p, -EINVAL, "'%s': where to put the probe is missing", spec);
		goto out;
	}
	place = words[i++];
	len = strlen(place);
	if (len > 7 && !strcmp(place + len - 7, "%return")) {
		place[len - 7] = '\0';
		ret_probe = 1;
	}
	if (type == 'r')
		ret_probe = 1;
	if (type == 'r' && isdigit((unsigned char)spec[strspn(spec, " \t") + 1]))
		p->maxactive = strtoul(spec + strspn(spec, " \t") + 1, NULL, 10);
	if (type == 'e' && ret_probe) {
		ret = fail(p, -EINVAL, "eprobes have no return form");
		goto out;
	}

	p->group = strdup(opts && opts->group ? opts->group : group ? group : FTK_PROBE_GROUP);
	if (opts && opts->name)
		p->name = strdup(opts->name);
	else if (name)
		p->name = strdup(name);
	if (!p->group || ((opts && opts->name) || name ? !p->name : 0)) {
		ret = -ENOMEM;
		goto out;
	}
	if (!good_name(p->group)) {
		ret = fail(p, -EINVAL, "bad group name '%s': use letters, digits and '_'",
			   p->group);
		goto out;
	}
	if (p->name && !good_name(p->name)) {
		ret = fail(p, -EINVAL, "bad event name '%s': use letters, digits and '_'",
			   p->name);
		goto out;
	}

	if (type == 'e') {
		p->kind = FTK_PROBE_EPROBE;
		ret = parse_eprobe_place(p, place);
	} else if (strchr(place, ':') || (opts && (opts->binary || opts->pid > 0))) {
		p->kind = ret_probe ? FTK_PROBE_URETPROBE : FTK_PROBE_UPROBE;
		ret = parse_uprobe_place(p, place, ret_probe, opts);
	} else {
		p->kind = ret_probe ? FTK_PROBE_KRETPROBE : FTK_PROBE_KPROBE;
		ret = parse_kprobe_place(p, place, ret_probe);
	}
	if (ret)
		goto out;

	for (; i < n; i++) {
		if (!strcmp(words[i], "if")) {
			if (p->kind != FTK_PROBE_EPROBE || i + 1 >= n) {
				ret = fail(p, -EINVAL,
					   "'if FILTER' goes with eprobes only, after the arguments");
				goto out;
			}
			break;
		}
		ret = ftk_probe_add_arg(p, words[i]);
		if (ret)
			goto out;
	}
	if (i < n) {
		size_t flen = 0;
		int j;

		for (j = i + 1; j < n; j++)
			flen += strlen(words[j]) + 1;
		p->filter = calloc(1, flen + 1);
		if (!p->filter) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = i + 1; j < n; j++) {
			if (j > i + 1)
				strcat(p->filter, " ");
			strcat(p->filter, words[j]);
		}
	}
	ret = 0;
out:
	free(copy);
	free(group);
	free(name);
	return ftk_err(ret);
}

/**
 * ftk_probe_command() - the definition line the kernel takes
 * @p: a parsed probe
 *
 * Return: "p:GROUP/NAME PLACE ARGS..." in a malloc'd string to free(), or
 * NULL with errno ENOMEM (EINVAL if @p was never parsed).
 */
FTK_API char *ftk_probe_command(const struct ftk_probe *p)
{
	static const char types[] = { 'p', 'r', 'p', 'r', 'e' };
	size_t len, i;
	char *s;

	if (!p->place)
		return ftk_err_ptr(-EINVAL);
	len = strlen(p->group) + strlen(p->name) + strlen(p->place) + 20;
	for (i = 0; p->args[i]; i++)
		len += strlen(p->args[i]) + 1;
	if (p->filter)
		len += strlen(p->filter) + 4;
	s = malloc(len);
	if (!s)
		return ftk_err_ptr(-ENOMEM);
	if (p->maxactive && p->kind == FTK_PROBE_KRETPROBE)
		sprintf(s, "r%u:%s/%s %s", p->maxactive, p->group, p->name, p->place);
	else
		sprintf(s, "%c:%s/%s %s", types[p->kind], p->group, p->name, p->place);
	for (i = 0; p->args[i]; i++)
		strcat(strcat(s, " "), p->args[i]);
	if (p->filter)
		strcat(strcat(s, " if "), p->filter);
	return s;
}

/* The control file for definitions of @kind, as an absolute path in @buf. */
static int probe_file(struct ftk_tracefs *t, enum ftk_probe_kind kind, char *buf, size_t len)
{
	const char *f = NULL;

	if (kind == FTK_PROBE_KPROBE || kind == FTK_PROBE_KRETPROBE)
		f = "kprobe_events";
	else if (kind == FTK_PROBE_UPROBE || kind == FTK_PROBE_URETPROBE)
		f = "uprobe_events";
	if (f) {
		snprintf(buf, len, "%s/%s", t->root, f);
		if (!access(buf, F_OK))
			return 0;
		if (errno != ENOENT)
			return -errno;
	}
	snprintf(buf, len, "%s/dynamic_events", t->root);
	if (!access(buf, F_OK))
		return 0;
	return errno == ENOENT ? -ENOTSUP : -errno;
}

static const char *kind_text(enum ftk_probe_kind kind)
{
	static const char *const text[] = { "kprobes", "kretprobes", "uprobes", "uretprobes",
					     "eprobes" };

	return text[kind];
}

/**
 * ftk_probe_create() - define the probe's event in the kernel
 * @p: a parsed probe
 * @t: any handle of the tracefs to use (probes live at the top level)
 * @flags: FTK_PROBE_JOURNAL to have ftk_tracefs_restore(@t) remove it again
 *
 * Writes the definition with one write(2) to kprobe_events or
 * uprobe_events (dynamic_events for eprobes, or where the others are
 * absent). The new event is events/GROUP/NAME in every instance, disabled.
 *
 * Return: 0, or a negative errno with the reason, and the kernel's
 * error_log text where it logged one, in ftk_probe_errmsg(): -ENOTSUP
 * (no such probe support), -EPERM (forbidden: lockdown), -EEXIST (the
 * event exists), -EINVAL (the kernel refused the definition).
 */
FTK_API int ftk_probe_create(struct ftk_probe *p, struct ftk_tracefs *t, unsigned int flags)
{
	char path[PATH_MAX], undo[160], *cmd;
	int ret;

	cmd = ftk_probe_command(p);
	if (!cmd)
		return fail(p, -errno, "probe not parsed");
	ret = probe_file(t, p->kind, path, sizeof(path));
	if (ret && ret != -ENOTSUP) {
		fail(p, ret, "cannot write '%s': %s (are you root?)",
		     path + strlen(t->root) + 1, strerror(-ret));
		goto out;
	}
	if (ret) {
		fail(p, ret, "%s are not available: this kernel has no %s nor dynamic_events",
		     kind_text(p->kind), p->kind <= FTK_PROBE_KRETPROBE ? "kprobe_events" :
		     p->kind == FTK_PROBE_EPROBE ? "eprobe support" : "uprobe_events");
		goto out;
	}
	ret = ftk_tracefs_append(t, path, cmd);
	if (ret) {
		const char *hint = "";

		if (ret == -EEXIST || ret == -EBUSY)
			hint = ": an event of that name exists already";
		else if (ret == -EINVAL && p->kind <= FTK_PROBE_KRETPROBE &&
			 strstr(path, "dynamic_events"))
			hint = ": this kernel has no kprobe support";
		else if (ret == -EINVAL && p->kind == FTK_PROBE_EPROBE &&
			 !strstr(ftk_tracefs_errmsg(t), "(kernel"))
			hint = ": no eprobe support, or no such event";
		/* "FILE: write: REASON..." -> "cannot write 'FILE': REASON..." */
		{
			const char *msg = ftk_tracefs_errmsg(t), *w = strstr(msg, ": write: ");

			if (w)
				fail(p, ret, "cannot write '%.*s': %s%s (definition: %s)",
				     (int)(w - msg), msg, w + 9, hint, cmd);
			else
				fail(p, ret, "%s%s (definition: %s)", msg, hint, cmd);
		}
		goto out;
	}
	if (flags & FTK_PROBE_JOURNAL) {
		snprintf(undo, sizeof(undo), "-:%s/%s", p->group, p->name);
		ret = ftk_tracefs_undo(t, path, undo, FTK_UNDO_APPEND);
		if (ret) {
			ftk_tracefs_append(t, path, undo);
			fail(p, ret, "out of memory");
		}
	}
out:
	free(cmd);
	return ftk_err(ret);
}

/** ftk_probe_kind() - what kind of probe @p is */
FTK_API enum ftk_probe_kind ftk_probe_kind(const struct ftk_probe *p)
{
	return p->kind;
}

/** ftk_probe_group() - the probe's group (system); owned by @p, NULL before parsing */
FTK_API const char *ftk_probe_group(const struct ftk_probe *p)
{
	return p->group;
}

/** ftk_probe_name() - the probe's event name; owned by @p, NULL before parsing */
FTK_API const char *ftk_probe_name(const struct ftk_probe *p)
{
	return p->name;
}

/** ftk_probe_errmsg() - the text of @p's last failure; owned by @p, "" if none */
FTK_API const char *ftk_probe_errmsg(const struct ftk_probe *p)
{
	return p->errmsg;
}

/**
 * ftk_probe_owner_group() - the group for probes that live as long as this process
 * @buf: where the name goes
 * @len: size of @buf (64 is enough)
 *
 * "ftkit_PID_NS_START": our PID, the inode of our PID namespace and our
 * start time (see ftk_instance_name()), so that ftk_probe_gc() in another
 * run (even in another container sharing the tracefs) can tell whether the
 * creator is still alive, also after its PID was reused.
 *
 * Return: 0 or -ENAMETOOLONG.
 */
FTK_API int ftk_probe_owner_group(char *buf, size_t len)
{
	char tag[64];
	int n;

	if (ftk_owner_tag(tag, sizeof(tag)))
		return ftk_err(-ENAMETOOLONG);
	n = snprintf(buf, len, FTK_PROBE_GROUP "_%s", tag);
	return n < 0 || (size_t)n >= len ? ftk_err(-ENAMETOOLONG) : 0;
}

static int read_defs(struct ftk_tracefs *t, char **text)
{
	char path[PATH_MAX], *k = NULL, *u = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/dynamic_events", t->root);
	if (!access(path, F_OK))
		return ftk_read_file(path, text, NULL);
	snprintf(path, sizeof(path), "%s/kprobe_events", t->root);
	ret = ftk_read_file(path, &k, NULL);
	if (ret && ret != -ENOENT)
		return ret;
	snprintf(path, sizeof(path), "%s/uprobe_events", t->root);
	ret = ftk_read_file(path, &u, NULL);
	if (ret && ret != -ENOENT) {
		free(k);
		return ret;
	}
	ret = asprintf(text, "%s%s", k ? k : "", u ? u : "") < 0 ? -ENOMEM : 0;
	free(k);
	free(u);
	return ret;
}

/* Group and name of a definition line "r10:grp/name place ..." into @gn ("grp/name"). */
static int line_event(const char *line, char *gn, size_t len, char *type)
{
	const char *c = strchr(line, ':'), *e;

	if (!c || !strchr("pre", line[0]))
		return -EINVAL;
	e = c + strcspn(c, " \t");
	if ((size_t)(e - c) >= len)
		return -EINVAL;
	snprintf(gn, len, "%.*s", (int)(e - c - 1), c + 1);
	*type = line[0];
	return strchr(gn, '/') ? 0 : -EINVAL;
}

/**
 * ftk_probe_list() - every kprobe, uprobe and eprobe defined on the system
 * @t: any handle of the tracefs
 * @out: where the NULL-terminated list of definition lines goes
 *
 * Synthetic events (also in dynamic_events) are left out.
 *
 * Return: 0 and the list, to be freed with ftk_list_free() (empty, not
 * NULL, when there are none), or a negative errno.
 */
FTK_API int ftk_probe_list(struct ftk_tracefs *t, char ***out)
{
	char *text, *line, *next, gn[160], type;
	int ret;

	*out = calloc(1, sizeof(char *));
	if (!*out)
		return ftk_err(-ENOMEM);
	ret = read_defs(t, &text);
	if (ret) {
		ftk_tracefs_fail(t, "dynamic_events", "read", ret);
		ftk_list_free(*out);
		*out = NULL;
		return ftk_err(ret);
	}
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (line_event(line, gn, sizeof(gn), &type))
			continue;
		ret = ftk_list_add(out, line);
		if (ret)
			break;
	}
	free(text);
	if (ret) {
		ftk_list_free(*out);
		*out = NULL;
	}
	return ftk_err(ret);
}

static int delete_one(struct ftk_tracefs *t, char type, const char *gn)
{
	enum ftk_probe_kind kind = type == 'e' ? FTK_PROBE_EPROBE : FTK_PROBE_UPROBE;
	char path[PATH_MAX], cmd[170];
	int ret;

	snprintf(cmd, sizeof(cmd), "-:%s", gn);
	/* dynamic_events removes any kind; without it, try both old files. */
	snprintf(path, sizeof(path), "%s/dynamic_events", t->root);
	if (!access(path, F_OK))
		return ftk_tracefs_append(t, path, cmd);
	ret = probe_file(t, FTK_PROBE_KPROBE, path, sizeof(path));
	if (!ret)
		ret = ftk_tracefs_append(t, path, cmd);
	if (ret && !probe_file(t, kind, path, sizeof(path)))
		ret = ftk_tracefs_append(t, path, cmd);
	return ret;
}

static void busy_hint(struct ftk_tracefs *t, int ret)
{
	size_t n = strlen(t->errmsg);

	if (ret == -EBUSY)
		snprintf(t->errmsg + n, sizeof(t->errmsg) - n,
			 ": the event is in use (enabled in an instance, or by perf)");
}

/**
 * ftk_probe_delete() - remove one probe event
 * @t: any handle of the tracefs
 * @event: "GROUP/NAME", or "NAME" when only one group has it
 *
 * Return: 0, -ENOENT (no such probe), -EBUSY (it is enabled somewhere) or
 * another negative errno, with the reason in ftk_tracefs_errmsg(@t).
 */
FTK_API int ftk_probe_delete(struct ftk_tracefs *t, const char *event)
{
	char **list, gn[160], type, *found = NULL;
	int ret, i, nfound = 0;

	ret = ftk_probe_list(t, &list);
	if (ret)
		return ret;
	for (i = 0; list[i]; i++) {
		const char *slash;

		if (line_event(list[i], gn, sizeof(gn), &type))
			continue;
		slash = strchr(gn, '/');
		if (strchr(event, '/') ? strcmp(gn, event) : strcmp(slash + 1, event))
			continue;
		if (!nfound++)
			found = strdup(gn);
	}
	ftk_list_free(list);
	if (!nfound) {
		snprintf(t->errmsg, sizeof(t->errmsg), "no probe named '%s'", event);
		return ftk_err(-ENOENT);
	}
	if (nfound > 1) {
		snprintf(t->errmsg, sizeof(t->errmsg),
			 "%d probes are named '%s': give GROUP/NAME", nfound, event);
		free(found);
		return ftk_err(-EINVAL);
	}
	if (!found)
		return ftk_err(-ENOMEM);
	ret = delete_one(t, type, found);
	busy_hint(t, ret);
	free(found);
	return ftk_err(ret);
}

static int group_is(const char *gn, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(gn, group, n) && gn[n] == '/';
}

/* Delete the probes of @list that @match picks: eprobes first (they may sit on another
 * probe's event), then the rest. */
static int delete_matching(struct ftk_tracefs *t, char **list,
			   int (*match)(const char *gn, const void *arg), const void *arg,
			   char ***deleted)
{
	char gn[160], type, err[512] = "";
	int pass, i, r, ret = 0, count = 0;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; list[i]; i++) {
			if (line_event(list[i], gn, sizeof(gn), &type))
				continue;
			if ((type == 'e') != (pass == 0) || !match(gn, arg))
				continue;
			r = delete_one(t, type, gn);
			if (r) {
				busy_hint(t, r);
				if (!ret) {
					ret = r;
					snprintf(err, sizeof(err), "%s", t->errmsg);
				}
				continue;
			}
			count++;
			if (deleted)
				ftk_list_add(deleted, gn);
		}
	}
	if (ret) {
		snprintf(t->errmsg, sizeof(t->errmsg), "%s", err);
		return ret;
	}
	return count;
}

static int match_group(const char *gn, const void *arg)
{
	return !arg || group_is(gn, arg);
}

/**
 * ftk_probe_delete_group() - remove every probe of a group
 * @t: any handle of the tracefs
 * @group: the group; NULL means FTK_PROBE_GROUP
 * @flags: FTK_PROBE_ALL to remove the probes of every group instead
 * @deleted: NULL, or a list (made with calloc, or from an earlier call) the
 *	removed "GROUP/NAME"s are added to
 *
 * Eprobes go first, as they may be attached to another probe's event. A
 * probe that cannot go (enabled somewhere: -EBUSY) is reported and the
 * others are still removed.
 *
 * Return: the number removed, or the first failure's negative errno with
 * its reason in ftk_tracefs_errmsg(@t).
 */
FTK_API int ftk_probe_delete_group(struct ftk_tracefs *t, const char *group, unsigned int flags,
				   char ***deleted)
{
	char **list;
	int ret;

	ret = ftk_probe_list(t, &list);
	if (ret)
		return ret;
	ret = delete_matching(t, list, match_group,
			      flags & FTK_PROBE_ALL ? NULL : group ? group : FTK_PROBE_GROUP,
			      deleted);
	ftk_list_free(list);
	return ret < 0 ? ftk_err(ret) : ret;
}

/* "ftkit_TAG" (or "ftkit-probe-TAG" for instances) of a dead process (see ftk_owner_state())? */
static int stale(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(s, prefix, n) && ftk_owner_state(s + n, NULL) == FTK_INSTANCE_STALE;
}

static int match_stale(const char *gn, const void *arg)
{
	return stale(gn, FTK_PROBE_GROUP "_");
}

/**
 * ftk_probe_gc() - remove what dead ftkit runs left behind
 * @t: any handle of the tracefs
 * @deleted: NULL, or a list the removed names are added to
 *
 * Removes the instances "ftkit-probe-TAG" and the probes of the groups
 * "ftkit_TAG" (see ftk_probe_owner_group()) whose owner is gone: a PID of
 * our namespace that no longer runs, or runs a process started later.
 * Nothing else is touched.
 *
 * Return: the number of probes and instances removed, or a negative errno.
 */
FTK_API int ftk_probe_gc(struct ftk_tracefs *t, char ***deleted)
{
	char path[PATH_MAX], **list;
	struct dirent *de;
	int ret, count = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", t->root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char inst[PATH_MAX + 300];

		if (!stale(de->d_name, FTK_PROBE_GROUP "-probe-"))
			continue;
		snprintf(inst, sizeof(inst), "%s/%s", path, de->d_name);
		if (rmdir(inst) == 0) {
			count++;
			if (deleted)
				ftk_list_add(deleted, inst + strlen(t->root) + 1);
		}
	}
	if (d)
		closedir(d);
	ret = ftk_probe_list(t, &list);
	if (ret)
		return ret;
	ret = delete_matching(t, list, match_stale, NULL, deleted);
	ftk_list_free(list);
	return ret < 0 ? ftk_err(ret) : ret + count;
}
