// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stacks: folded call stacks and what is drawn from them.
 *
 * A stack is its folded text, "root;...;leaf", the key of a hash table
 * that sums weights. The top table and the flame graph are made from
 * that table when asked. The SVG is written here, in C, with its script
 * inline: the flame graph tools people use (flamegraph.pl, inferno) are a
 * Perl script or a Rust program, and a profiler that needs either to draw
 * its own picture is what issue 12 set out to avoid.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftkit/stacks.h>

#include "internal.h"

struct entry {
	char		*key;
	uint64_t	weight;
	uint64_t	hash;
};

struct ftk_stacks {
	struct entry	*v;		/* open addressing; key NULL = free */
	size_t		cap, nr;
	uint64_t	total;
	unsigned int	flags;		/* FTK_STACKS_* */
};

static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

/** ftk_stacks_new() - an empty set of stacks; 0 or -ENOMEM. Free it with ftk_stacks_free(). */
FTK_API int ftk_stacks_new(struct ftk_stacks **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : ftk_err(-ENOMEM);
}

/** ftk_stacks_free() - free the stacks; NULL is fine */
FTK_API void ftk_stacks_free(struct ftk_stacks *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->cap; i++)
		free(st->v[i].key);
	free(st->v);
	free(st);
}

static int grow(struct ftk_stacks *st)
{
	size_t cap = st->cap ? st->cap * 2 : 1024, i;
	struct entry *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < st->cap; i++) {
		size_t j;

		if (!st->v[i].key)
			continue;
		for (j = st->v[i].hash & (cap - 1); v[j].key; j = (j + 1) & (cap - 1))
			;
		v[j] = st->v[i];
	}
	free(st->v);
	st->v = v;
	st->cap = cap;
	return 0;
}

static struct entry *lookup(const struct ftk_stacks *st, const char *key, size_t n, uint64_t h)
{
	size_t j;

	if (!st->cap)
		return NULL;
	for (j = h & (st->cap - 1); st->v[j].key; j = (j + 1) & (st->cap - 1))
		if (st->v[j].hash == h && !strncmp(st->v[j].key, key, n) && !st->v[j].key[n])
			return &st->v[j];
	return NULL;
}

static int add_n(struct ftk_stacks *st, const char *key, size_t n, uint64_t weight)
{
	uint64_t h = hash_str(key, n);
	struct entry *e = lookup(st, key, n, h);
	size_t j;

	if (!e) {
		if ((st->nr + 1) * 4 > st->cap * 3 && grow(st))
			return -ENOMEM;
		for (j = h & (st->cap - 1); st->v[j].key; j = (j + 1) & (st->cap - 1))
			;
		e = &st->v[j];
		e->key = strndup(key, n);
		if (!e->key)
			return -ENOMEM;
		e->hash = h;
		e->weight = 0;
		st->nr++;
	}
	e->weight += weight;
	st->total += weight;
	return 0;
}

/**
 * ftk_stacks_add() - add weight to a stack
 * @st: the stacks
 * @folded: the stack, outermost frame first, frames separated by ';'
 * @weight: samples, or microseconds for off-CPU time
 *
 * Return: 0, -EINVAL for an empty stack, or -ENOMEM.
 */
FTK_API int ftk_stacks_add(struct ftk_stacks *st, const char *folded, uint64_t weight)
{
	size_t n = strlen(folded);

	if (!n)
		return ftk_err(-EINVAL);
	return ftk_err(add_n(st, folded, n, weight));
}

/* The largest weight, and sum of weights, a folded file may give (2^53). */
#define FOLDED_WEIGHT_MAX	(1ULL << 53)

/**
 * ftk_stacks_set_flags() - say what the weights are
 * @st: the stacks
 * @flags: FTK_STACKS_WAITS: off-CPU waits, whose leaves are all the
 *	   scheduler's; ftk_stacks_top() gives each stack's self to the
 *	   frame that waited (the first above the scheduler) instead
 */
FTK_API void ftk_stacks_set_flags(struct ftk_stacks *st, unsigned int flags)
{
	st->flags = flags;
}

/**
 * ftk_stacks_read() - add the stacks of a folded file
 * @st: the stacks
 * @f: the file: lines "frame;frame;... WEIGHT" (the weight after the last space)
 * @name: its name, for messages
 * @err: where to put the reason of a failure ("FILE:LINE: no weight")
 * @errlen: room at @err
 *
 * Blank lines and lines starting with '#' are skipped. A line without a
 * weight, or with a weight (or a running sum) above 2^53, is no folded
 * stack: the read stops there, naming the line.
 *
 * Return: 0, -EINVAL for a malformed line, or -ENOMEM.
 */
FTK_API int ftk_stacks_read(struct ftk_stacks *st, FILE *f, const char *name, char *err,
			    size_t errlen)
{
	size_t cap = 0, lineno = 0;
	char *line = NULL;
	ssize_t len;
	int ret = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		unsigned long long w;
		char *sp, *end;
		int big;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		sp = strrchr(line, ' ');
		errno = 0;
		/*
		 * A weight is a count of samples or microseconds: above 2^53 it
		 * is no count (a program's "done 13803471505900157720" mixed
		 * into the stacks), and no consumer holding weights in doubles
		 * (SVG widths, speedscope's JSON) could take it exactly.
		 */
		big = 0;
		if (!sp || sp == line || !isdigit((unsigned char)sp[1]) ||
		    (w = strtoull(sp + 1, &end, 10), *end) ||
		    (big = errno || w > FOLDED_WEIGHT_MAX || st->total + w > FOLDED_WEIGHT_MAX)) {
			snprintf(err, errlen, "%s:%zu: not a folded stack line (\"frames COUNT\"%s)",
				 name, lineno, big ? ", COUNT at most 2^53" : "");
			ret = -EINVAL;
			break;
		}
		ret = add_n(st, line, sp - line, w);
		if (ret) {
			snprintf(err, errlen, "%s: out of memory", name);
			break;
		}
	}
	free(line);
	return ftk_err(ret);
}

/**
 * ftk_stacks_clear() - forget every stack, keeping the room they took
 * @st: the stacks
 *
 * For a tool that shows intervals: take what it needs of the stacks
 * (ftk_stacks_top()), then clear them for the next interval.
 */
FTK_API void ftk_stacks_clear(struct ftk_stacks *st)
{
	size_t i;

	for (i = 0; i < st->cap; i++) {
		free(st->v[i].key);
		st->v[i].key = NULL;
	}
	st->nr = 0;
	st->total = 0;
}

/** ftk_stacks_total() - the sum of every stack's weight */
FTK_API uint64_t ftk_stacks_total(const struct ftk_stacks *st)
{
	return st->total;
}

/** ftk_stacks_nr() - the number of distinct stacks */
FTK_API size_t ftk_stacks_nr(const struct ftk_stacks *st)
{
	return st->nr;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct entry *const *)a)->key, (*(const struct entry *const *)b)->key);
}

/* The entries, sorted by key; NULL (errno ENOMEM) or an array to free. */
static const struct entry **sorted(const struct ftk_stacks *st)
{
	const struct entry **v = malloc((st->nr + 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < st->cap; i++)
		if (st->v[i].key)
			v[n++] = &st->v[i];
	qsort(v, n, sizeof(*v), key_cmp);
	return v;
}

/*
 * 0, or the -errno of the failed write (ENOSPC, EPIPE: what the user can
 * act on; the writer clears errno first), -EIO when it is not known.
 */
static int write_end(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

/**
 * ftk_stacks_write_folded() - write "stack weight" lines, sorted by stack
 * @st: the stacks
 * @f: where
 *
 * Return: 0, -ENOMEM, or the -errno of a failed write (-EIO when unknown).
 */
FTK_API int ftk_stacks_write_folded(const struct ftk_stacks *st, FILE *f)
{
	const struct entry **v = sorted(st);
	size_t i;

	if (!v)
		return ftk_err(-ENOMEM);
	errno = 0;
	for (i = 0; i < st->nr; i++)
		fprintf(f, "%s %" PRIu64 "\n", v[i]->key, v[i]->weight);
	free(v);
	return ftk_err(write_end(f));
}

/* ---------------------------------------------------------------- top */

struct func {
	const char	*name;		/* in a stack's key, not copied: @len bytes */
	size_t		len;
	uint64_t	self, total;
	uint64_t	hash;
	uint64_t	seen;		/* the stack number that last counted it in total */
};

struct funcs {
	struct func	*v;
	size_t		cap, nr;
};

static struct func *func_get(struct funcs *fs, const char *name, size_t n)
{
	uint64_t h = hash_str(name, n);
	size_t j;

	if ((fs->nr + 1) * 4 > fs->cap * 3) {
		size_t cap = fs->cap ? fs->cap * 2 : 1024, i;
		struct func *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < fs->cap; i++) {
			if (!fs->v[i].name)
				continue;
			for (j = fs->v[i].hash & (cap - 1); v[j].name; j = (j + 1) & (cap - 1))
				;
			v[j] = fs->v[i];
		}
		free(fs->v);
		fs->v = v;
		fs->cap = cap;
	}
	for (j = h & (fs->cap - 1); fs->v[j].name; j = (j + 1) & (fs->cap - 1))
		if (fs->v[j].hash == h && fs->v[j].len == n && !memcmp(fs->v[j].name, name, n))
			return &fs->v[j];
	fs->v[j].name = name;
	fs->v[j].len = n;
	fs->v[j].hash = h;
	fs->v[j].seen = ~0ULL;
	fs->nr++;
	return &fs->v[j];
}

/*
 * A kernel frame of the switch itself, under every off-CPU stack: the
 * scheduler's entry points (the kernel's __sched functions that only
 * call into the switch: schedule*, __schedule, io_schedule*,
 * preempt_schedule*, __cond_resched, finish_task_switch) and the
 * sched_switch tracepoint's own frames (__traceiter_sched_switch,
 * perf_trace_*, trace_event_raw_event_*). Named by what they are: the
 * stack is folded, the addresses are gone.
 */
static int sched_frame(const char *name, size_t n)
{
	static const char *const prefix[] = {
		"schedule", "__schedule", "io_schedule", "preempt_schedule", "__cond_resched",
		"_cond_resched", "finish_task_switch", "__traceiter_", "perf_trace_",
		"trace_event_raw_event_", "perf_tp_event",
	};
	size_t i;

	if (n < 4 || memcmp(name + n - 4, "_[k]", 4))
		return 0;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
	size_t n;
	int c;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	n = x->len < y->len ? x->len : y->len;
	c = memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/**
 * ftk_stacks_top() - the functions of the stacks, by self weight, with their total
 * @st: the stacks
 * @out: receives the table, one allocation (names included) to free()
 *
 * Self is the weight of the stacks a function is the leaf of; total (perf
 * report's "Children") that of the stacks it is anywhere in, counted once
 * per stack however deep it recurses. The first frame of each stack (the
 * command name) is not a function and is not listed. A function is named
 * as its frame is folded (NAME_[k] for the kernel). The table is sorted by
 * self weight, then total, then name. With FTK_STACKS_WAITS, self goes to
 * the innermost frame that is not the scheduler's or the sched_switch
 * tracepoint's (do_nanosleep, not __schedule), as the kernel's wchan
 * names what a task waits in.
 *
 * Return: the number of functions (0 for no stacks, *@out then still to
 * free), or -ENOMEM with *@out NULL.
 */
FTK_API long ftk_stacks_top(const struct ftk_stacks *st, struct ftk_stacks_func **out)
{
	struct ftk_stacks_func *tab = NULL;
	struct funcs fs = { 0 };
	struct func **v = NULL;
	size_t i, n = 0, k = 0, names = 0;
	char *at;
	long ret = 0;

	*out = NULL;
	for (i = 0; i < st->cap; i++) {
		const char *key = st->v[i].key, *p, *semi;
		struct func *fn = NULL, *self = NULL;

		if (!key)
			continue;
		k++;
		p = strchr(key, ';');
		if (!p)
			continue;
		for (p++; *p; p = semi + 1) {
			semi = strchr(p, ';');
			if (!semi)
				semi = p + strlen(p);
			fn = func_get(&fs, p, semi - p);
			if (!fn) {
				ret = -ENOMEM;
				goto out;
			}
			if (fn->seen != k) {
				fn->total += st->v[i].weight;
				fn->seen = k;
			}
			if (!self || !(st->flags & FTK_STACKS_WAITS) || !sched_frame(p, semi - p))
				self = fn;
			if (!*semi)
				break;
		}
		if (self)
			self->self += st->v[i].weight;
	}
	v = malloc((fs.nr + 1) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < fs.cap; i++) {
		if (fs.v[i].name) {
			v[n++] = &fs.v[i];
			names += fs.v[i].len + 1;
		}
	}
	qsort(v, n, sizeof(*v), func_cmp);
	tab = malloc(n * sizeof(*tab) + names + 1);
	if (!tab) {
		ret = -ENOMEM;
		goto out;
	}
	at = (char *)(tab + n);
	for (i = 0; i < n; i++) {
		size_t len = v[i]->len + 1;

		memcpy(at, v[i]->name, len - 1);
		at[len - 1] = '\0';
		tab[i] = (struct ftk_stacks_func){ at, v[i]->self, v[i]->total };
		at += len;
	}
	*out = tab;
	ret = n;
out:
	free(fs.v);
	free(v);
	return ret < 0 ? ftk_err(ret) : ret;
}

/**
 * ftk_stacks_write_top() - a table of functions by self weight, with their total
 * @st: the stacks
 * @f: where
 * @rows: how many functions (0: all)
 * @unit: what a weight counts ("samples", "us"), for the header
 *
 * The functions and weights of ftk_stacks_top(), with their shares of all
 * the stacks' weight.
 *
 * Return: 0, -ENOMEM, or the -errno of a failed write (-EIO when unknown).
 */
FTK_API int ftk_stacks_write_top(const struct ftk_stacks *st, FILE *f, size_t rows,
				 const char *unit)
{
	struct ftk_stacks_func *v;
	long n = ftk_stacks_top(st, &v), i;

	if (n < 0)
		return ftk_err(n);
	errno = 0;
	fprintf(f, "# %" PRIu64 " %s in %zu stacks\n", st->total, unit ? unit : "samples", st->nr);
	fprintf(f, "#    Self     Total  %12s  Function\n", unit ? unit : "samples");
	for (i = 0; i < n && (!rows || (size_t)i < rows); i++)
		fprintf(f, "%8.2f%% %8.2f%%  %12" PRIu64 "  %s\n",
			st->total ? 100.0 * v[i].self / st->total : 0,
			st->total ? 100.0 * v[i].total / st->total : 0, v[i].self, v[i].name);
	free(v);
	return ftk_err(write_end(f));
}

/* ---------------------------------------------------------------- SVG */

/*
 * The flame graph's tree. Every walk of it is a loop over parent links, not
 * a recursion: a folded line of 100k frames is a tree 100k deep, and the
 * stack would not hold the calls. A child is found by its parent and name
 * in one hash table for the whole tree, so that a node with many children
 * (60k processes under "all") costs a lookup, not a scan.
 */
struct node {
	const char	*name;		/* points into a stack key */
	size_t		len;
	uint64_t	weight;
	double		base;		/* the base profile's weight here, scaled */
	double		x;		/* where it is drawn (svg_draw()) */
	uint64_t	hash;		/* of the parent and the name */
	struct node	*parent, *child, *next;	/* children sorted by name once built */
};

struct tree {
	struct node	root;
	struct node	**tab;		/* open addressing, every node but the root */
	size_t		cap, nr;
};

static uint64_t node_hash(const struct node *parent, const char *name, size_t len)
{
	return hash_str(name, len) ^ ((uintptr_t)parent * 0x9e3779b97f4a7c15ULL);
}

static struct node *node_find(const struct tree *t, const struct node *parent, const char *name,
			      size_t len, uint64_t h, size_t *slot)
{
	size_t j;

	if (!t->cap)
		return NULL;
	for (j = h & (t->cap - 1); t->tab[j]; j = (j + 1) & (t->cap - 1)) {
		const struct node *c = t->tab[j];

		if (c->hash == h && c->parent == parent && c->len == len && !memcmp(c->name, name, len))
			return t->tab[j];
	}
	if (slot)
		*slot = j;
	return NULL;
}

static struct node *node_child(struct tree *t, struct node *n, const char *name, size_t len)
{
	uint64_t h = node_hash(n, name, len);
	struct node *c = node_find(t, n, name, len, h, NULL);
	size_t j;

	if (c)
		return c;
	if ((t->nr + 1) * 4 > t->cap * 3) {
		size_t cap = t->cap ? t->cap * 2 : 1024, i;
		struct node **v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			if (!t->tab[i])
				continue;
			for (j = t->tab[i]->hash & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
				;
			v[j] = t->tab[i];
		}
		free(t->tab);
		t->tab = v;
		t->cap = cap;
	}
	node_find(t, n, name, len, h, &j);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->len = len;
	c->hash = h;
	c->parent = n;
	c->next = n->child;	/* sort_children() puts them in order */
	n->child = c;
	t->tab[j] = c;
	t->nr++;
	return c;
}

static void tree_free(struct tree *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->tab[i]);
	free(t->tab);
}

/* The node after @n in a depth-first walk from the root; @into: descend into @n's children. */
static struct node *walk_next(struct node *n, int into, int *depth)
{
	if (into && n->child) {
		++*depth;
		return n->child;
	}
	while (n && !n->next) {
		n = n->parent;
		--*depth;
	}
	return n ? n->next : NULL;
}

/* Add the stack @key (weight @w to the tree, or @base to its base weights). */
static int tree_add(struct tree *t, const char *key, uint64_t w, double base, int is_base)
{
	struct node *n = &t->root;
	const char *p = key, *semi;

	if (is_base)
		n->base += base;
	else
		n->weight += w;
	for (;;) {
		semi = strchr(p, ';');
		if (!semi)
			semi = p + strlen(p);
		if (is_base) {
			n = node_find(t, n, p, semi - p, node_hash(n, p, semi - p), NULL);
			if (!n)
				return 0;	/* gone in this profile: nothing to draw it on */
			n->base += base;
		} else {
			n = node_child(t, n, p, semi - p);
			if (!n)
				return -ENOMEM;
			n->weight += w;
		}
		if (!*semi)
			return 0;
		p = semi + 1;
	}
}

static int name_cmp(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Children sorted by name, as flamegraph.pl draws them; the tree's depth in *@depth. */
static int sort_children(struct tree *t, int *depth)
{
	struct node *n = &t->root, *c, **v = NULL;
	size_t k, i, cap = 0;
	int d = 1;

	*depth = 1;
	for (; n; n = walk_next(n, 1, &d)) {
		if (d > *depth)
			*depth = d;
		for (c = n->child, k = 0; c; c = c->next)
			k++;
		if (k < 2)
			continue;
		if (k > cap) {
			struct node **nv = realloc(v, k * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap = k;
		}
		for (c = n->child, i = 0; c; c = c->next)
			v[i++] = c;
		qsort(v, k, sizeof(*v), name_cmp);
		for (i = 0; i + 1 < k; i++)
			v[i]->next = v[i + 1];
		v[k - 1]->next = NULL;
		n->child = v[0];
	}
	free(v);
	return 0;
}

static int ends_with(const struct node *n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n->len >= k && !memcmp(n->name + n->len - k, suffix, k);
}

/* flamegraph.pl's palettes: warm for user code, orange kernel, green JIT, grey unknown. */
static void colour(const struct node *n, int diff, double delta, char *buf, size_t len)
{
	uint64_t h = hash_str(n->name, n->len);
	unsigned int v1 = h & 0xff, v2 = (h >> 8) & 0xff, v3 = (h >> 16) & 0xff;

	if (diff) {
		/* Red grew, blue shrank, white unchanged; @delta in [-1, 1]. */
		double d = delta < -1 ? -1 : delta > 1 ? 1 : delta;
		unsigned int fade = 255 - (unsigned int)(d < 0 ? -d * 210 : d * 210);

		if (d > 0)
			snprintf(buf, len, "rgb(255,%u,%u)", fade, fade);
		else
			snprintf(buf, len, "rgb(%u,%u,255)", fade, fade);
		return;
	}
	if (ends_with(n, "_[k]"))
		snprintf(buf, len, "rgb(%u,%u,%u)", 200 + v1 % 55, 100 + v2 % 60, 0 + v3 % 40);
	else if (ends_with(n, "_[j]"))
		snprintf(buf, len, "rgb(%u,%u,%u)", 50 + v1 % 60, 180 + v2 % 60, 50 + v3 % 60);
	else if (n->len >= 9 && !memcmp(n->name, "[unknown]", 9))
		snprintf(buf, len, "rgb(%u,%u,%u)", 160 + v1 % 30, 160 + v1 % 30, 160 + v1 % 30);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + v1 % 50, v2 % 230, v3 % 55);
}

#define SVG_WIDTH	1200
#define SVG_PAD		10
#define FRAME_H		16
#define SVG_TOP		50
#define SVG_BOTTOM	34

struct svg {
	FILE		*f;
	double		scale;		/* pixels per unit of weight */
	int		height;
	int		diff;
	double		base_ratio;	/* this total / base total */
	uint64_t	total;
	const char	*unit;
};

static void svg_node(struct svg *s, const struct node *n, int depth)
{
	double w = n->weight * s->scale, x = n->x, delta = 0;
	int y = s->height - SVG_BOTTOM - (depth + 1) * FRAME_H;
	char fill[48];

	if (s->diff && n->weight)
		delta = (n->weight - n->base * s->base_ratio) / (double)n->weight;
	colour(n, s->diff, delta, fill, sizeof(fill));
	fprintf(s->f, "<g class=\"f\" data-n=\"");
	ftk_xml_put(s->f, n->name, n->len);
	fprintf(s->f, "\"><title>");
	ftk_xml_put(s->f, n->name, n->len);
	fprintf(s->f, " (%" PRIu64 " %s, %.2f%%", n->weight, s->unit,
		s->total ? 100.0 * n->weight / s->total : 0);
	if (s->diff)
		fprintf(s->f, ", %+.2f%% against the base", 100.0 * delta);
	fprintf(s->f, ")</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%d\"></text></g>\n", x, y, w, FRAME_H - 1, fill,
		x + 3, y + FRAME_H - 4);
}

/* Every frame 0.1 pixel wide or wider, parents before children, siblings left to right. */
static void svg_draw(struct svg *s, struct tree *t)
{
	struct node *n = &t->root, *c;
	int depth = 0, wide;

	n->x = SVG_PAD;
	for (; n; n = walk_next(n, wide, &depth)) {
		wide = n->weight * s->scale >= 0.1;
		if (!wide)
			continue;	/* nor are its children */
		svg_node(s, n, depth);
		for (c = n->child; c; c = c->next)
			c->x = c == n->child ? n->x : 0;
		for (c = n->child; c && c->next; c = c->next)
			c->next->x = c->x + c->weight * s->scale;
	}
}

/*
 * x and width are written with two decimals, so a child's end can pass its
 * parent's by 0.01: zoom() compares with E = 0.03, under the 0.1-pixel
 * narrowest frame, so that a sibling never passes for a descendant.
 */
static const char svg_script[] =
"<script type=\"text/ecmascript\"><![CDATA[\n"
"var W=%d,P=%d,fr=[],base=[],matchedText,zoomed=null;\n"
"function R(g){return g.getElementsByTagName('rect')[0];}\n"
"function T(g){return g.getElementsByTagName('text')[0];}\n"
"function label(g){var r=R(g),w=+r.getAttribute('width'),n=Math.floor((w-6)/7),s=g.getAttribute('data-n');\n"
" T(g).setAttribute('x',+r.getAttribute('x')+3);T(g).textContent=n<3?'':(s.length>n?s.slice(0,n-2)+'..':s);}\n"
"function init(){fr=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
" fr.forEach(function(g){var r=R(g);g.ox=+r.getAttribute('x');g.ow=+r.getAttribute('width');g.oy=+r.getAttribute('y');\n"
"  g.of=r.getAttribute('fill');label(g);g.addEventListener('click',function(){zoom(g);});});\n"
" matchedText=document.getElementById('matched');\n"
" document.getElementById('reset').addEventListener('click',reset);\n"
" document.getElementById('search').addEventListener('click',function(){var t=prompt('Search (regular expression)','');if(t)search(t);});\n"
" document.getElementById('clear').addEventListener('click',clearSearch);}\n"
"function zoom(z){var x0=z.ox,w0=z.ow,k=(W-2*P)/w0,E=0.03;zoomed=z;\n"
" fr.forEach(function(g){var r=R(g);\n"
"  if(g.oy>z.oy&&g.ox<=x0+E&&g.ox+g.ow>=x0+w0-E){g.style.display='';g.style.opacity='0.6';r.setAttribute('x',P);r.setAttribute('width',W-2*P);}\n"
"  else if(g.oy<=z.oy&&g.ox>=x0-E&&g.ox+g.ow<=x0+w0+E){g.style.display='';g.style.opacity='';r.setAttribute('x',P+(g.ox-x0)*k);r.setAttribute('width',g.ow*k);}\n"
"  else g.style.display='none';label(g);});\n"
" document.getElementById('reset').style.opacity='1';}\n"
"function reset(){zoomed=null;fr.forEach(function(g){var r=R(g);g.style.display='';g.style.opacity='';\n"
"  r.setAttribute('x',g.ox);r.setAttribute('width',g.ow);label(g);});document.getElementById('reset').style.opacity='0.3';}\n"
"function search(t){var re=new RegExp(t),m=[];fr.forEach(function(g){var r=R(g);\n"
"  if(re.test(g.getAttribute('data-n'))){r.setAttribute('fill','rgb(230,0,230)');g.setAttribute('data-m','1');m.push([g.ox,g.ox+g.ow]);}\n"
"  else{r.setAttribute('fill',g.of);g.removeAttribute('data-m');}});\n"
" m.sort(function(a,b){return a[0]-b[0];});var sum=0,end=-1;\n"
" m.forEach(function(iv){if(iv[0]>=end){sum+=iv[1]-iv[0];end=iv[1];}else if(iv[1]>end){sum+=iv[1]-end;end=iv[1];}});\n"
" matchedText.textContent='Matched: '+(100*sum/(W-2*P)).toFixed(2)+'%%';return sum/(W-2*P);}\n"
"function clearSearch(){fr.forEach(function(g){R(g).setAttribute('fill',g.of);g.removeAttribute('data-m');});matchedText.textContent='';}\n"
"window.addEventListener('load',init);\n"
"]]></script>\n";

/**
 * ftk_stacks_write_svg() - an interactive flame graph
 * @st: the stacks
 * @base: a base profile for a differential graph (red: grew, blue: shrank,
 *	  widths are @st's), or NULL
 * @f: where
 * @title: the heading
 * @unit: what a weight counts ("samples", "us")
 *
 * The SVG stands alone (no external script, style or font): click a frame
 * to zoom it to the full width, "Reset Zoom" to undo, "Search" for a
 * regular expression (matches turn magenta and their share is shown),
 * tooltips give each frame's weight and share. Frames narrower than 0.1
 * pixel are left out, as flamegraph.pl does.
 *
 * Return: 0, -ENOMEM, or the -errno of a failed write (-EIO when unknown).
 */
FTK_API int ftk_stacks_write_svg(const struct ftk_stacks *st, const struct ftk_stacks *base,
				 FILE *f, const char *title, const char *unit)
{
	struct tree t = { .root = { .name = "all", .len = 3 } };
	struct svg s = { .f = f, .unit = unit ? unit : "samples", .total = st->total };
	const struct entry **v = sorted(st);
	size_t i;
	int ret = 0, depth = 0;

	if (!v)
		return ftk_err(-ENOMEM);
	for (i = 0; i < st->nr && !ret; i++)
		ret = tree_add(&t, v[i]->key, v[i]->weight, 0, 0);
	free(v);
	if (!ret && base) {
		s.diff = 1;
		s.base_ratio = base->total ? (double)st->total / base->total : 0;
		for (i = 0; i < base->cap; i++)
			if (base->v[i].key)
				tree_add(&t, base->v[i].key, 0, base->v[i].weight, 1);
	}
	if (!ret)
		ret = sort_children(&t, &depth);
	if (ret)
		goto out;
	s.height = SVG_TOP + depth * FRAME_H + SVG_BOTTOM;
	s.scale = st->total ? (SVG_WIDTH - 2.0 * SVG_PAD) / st->total : 0;
	errno = 0;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", SVG_WIDTH, s.height, SVG_WIDTH, s.height);
	fprintf(f, "<style type=\"text/css\">text{font-family:monospace;font-size:12px;fill:#000}"
		"g.f:hover rect{stroke:#000;stroke-width:0.5;cursor:pointer}"
		".b{cursor:pointer;fill:#333}#title{font-size:17px;text-anchor:middle}</style>\n");
	fprintf(f, svg_script, SVG_WIDTH, SVG_PAD);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n", SVG_WIDTH,
		s.height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", SVG_WIDTH / 2);
	ftk_xml_put(f, title ? title : "Flame Graph", strlen(title ? title : "Flame Graph"));
	fprintf(f, "</text>\n<text id=\"reset\" class=\"b\" x=\"%d\" y=\"24\" style=\"opacity:0.3\">"
		"Reset Zoom</text>\n", SVG_PAD);
	fprintf(f, "<text id=\"search\" class=\"b\" x=\"%d\" y=\"24\">Search</text>\n",
		SVG_WIDTH - SVG_PAD - 110);
	fprintf(f, "<text id=\"clear\" class=\"b\" x=\"%d\" y=\"24\">Clear</text>\n",
		SVG_WIDTH - SVG_PAD - 50);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n", SVG_WIDTH - SVG_PAD - 200,
		s.height - 10);
	fprintf(f, "<text x=\"%d\" y=\"%d\">%" PRIu64 " %s</text>\n", SVG_PAD, s.height - 10,
		st->total, s.unit);
	svg_draw(&s, &t);
	fprintf(f, "</svg>\n");
	ret = write_end(f);
out:
	tree_free(&t);
	return ftk_err(ret);
}
