// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * comm: which command a pid ran, as libtraceevent keeps them, for less.
 *
 * A trace file's saved_cmdlines has thousands of lines. Each given to
 * tep_register_comm() costs two mallocs, and its first look-up frees
 * them again and sorts them through a callback: 8.7M of the 12.2M
 * instructions ftreport spent on a 24-event file. Here the names stay in
 * their text (or in an arena, for those registered later), in one array
 * sorted by a radix sort.
 *
 * The answers are libtraceevent 1.7.1's, also for a pid listed twice:
 * until the first look-up of a pid other than 0, comms are kept as they
 * come; that look-up sorts them by pid, stably, the newest first among
 * equal pids (its list is newest first), and every look-up is glibc's
 * bsearch() over that array. After it, a comm for a pid already there is
 * dropped, and a new pid goes in its place in the order.
 *
 * A table is bound to a tep, the handle every printer and counter has
 * (tep-side.c): ftk_comm() and ftk_comms_add() use the tep's table when
 * it has one, and libtraceevent's own comms otherwise, or for a pid the table
 * lacks (a libtraceevent plugin on the slow path registers there).
 * ftk_comms_to_tep() gives libtraceevent every comm, for the COMM of its
 * filters, and from then on the table only passes calls on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "comm-local.h"
#include "tep-side-local.h"

struct comm_ent {
	int		pid;
	const char	*comm;
};

#define ARENA_CHUNK	(16U << 10)

struct comm_arena {
	struct comm_arena	*next;
	size_t			used, cap;
	char			buf[];
};

struct ftk_comms {
	struct comm_ent		*e;		/* as they came, then sorted */
	size_t			n, cap;
	int			sorted;		/* a pid other than 0 was looked up */
	int			in_tep;		/* handed to libtraceevent: pass calls on */
	char			**texts;	/* saved_cmdlines texts the names lie in */
	size_t			ntexts;
	struct comm_arena	*arena;		/* names registered one by one */
};

/* An empty table, or NULL. */
struct ftk_comms *ftk_comms_new(void)
{
	return calloc(1, sizeof(struct ftk_comms));
}

/* Free @c; NULL is fine. */
void ftk_comms_free(struct ftk_comms *c)
{
	struct comm_arena *a, *an;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->ntexts; i++)
		free(c->texts[i]);
	free(c->texts);
	for (a = c->arena; a; a = an) {
		an = a->next;
		free(a);
	}
	free(c->e);
	free(c);
}

static int grow(struct ftk_comms *c, size_t more)
{
	struct comm_ent *ne;
	size_t cap = c->cap ? c->cap : 1024;

	if (c->n + more <= c->cap)
		return 0;
	while (cap < c->n + more)
		cap *= 2;
	ne = realloc(c->e, cap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	c->e = ne;
	c->cap = cap;
	return 0;
}

/* A copy of @comm (@len bytes) that lives as long as @c. */
static const char *keep_name(struct ftk_comms *c, const char *comm, size_t len)
{
	struct comm_arena *a = c->arena;
	char *s;

	if (!a || a->cap - a->used < len + 1) {
		size_t cap = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;

		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		a->used = 0;
		a->cap = cap;
		a->next = c->arena;
		c->arena = a;
	}
	s = a->buf + a->used;
	memcpy(s, comm, len);
	s[len] = '\0';
	a->used += len + 1;
	return s;
}

/*
 * libtraceevent's cmdline_init(): its list (newest first) sorted stably
 * by pid. A radix sort of the entries in reverse, 11 bits a pass, on the
 * pid with its sign flipped (an int's order).
 */
static int comms_sort(struct ftk_comms *c)
{
	struct comm_ent *t, *from, *to, *x;
	size_t count[2048], i, k, sum, n = c->n;
	int shift;

	c->sorted = 1;
	if (n < 2)
		return 0;
	t = malloc(n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t[i] = c->e[n - 1 - i];
	from = t;
	to = c->e;
	for (shift = 0; shift < 33; shift += 11) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(((uint32_t)from[i].pid ^ 0x80000000U) >> shift) & 2047]++;
		for (k = 0, sum = 0; k < 2048; k++) {
			size_t c0 = count[k];

			count[k] = sum;
			sum += c0;
		}
		for (i = 0; i < n; i++)
			to[count[(((uint32_t)from[i].pid ^ 0x80000000U) >> shift) & 2047]++] = from[i];
		x = from;
		from = to;
		to = x;
	}
	if (from != c->e)	/* an odd number of passes ends in c->e */
		memcpy(c->e, from, n * sizeof(*t));
	free(t);
	return 0;
}

/* glibc's bsearch() over the sorted entries, as libtraceevent calls it. */
static struct comm_ent *comms_find(const struct ftk_comms *c, int pid)
{
	size_t l = 0, u = c->n, i;

	while (l < u) {
		i = (l + u) / 2;
		if (pid < c->e[i].pid)
			u = i;
		else if (pid > c->e[i].pid)
			l = i + 1;
		else
			return &c->e[i];
	}
	return NULL;
}

/* Add @pid's @comm (@len bytes; @keep: it lives as long as @c) as tep_register_comm() would. */
static int comms_add(struct ftk_comms *c, const char *comm, size_t len, int pid, int keep)
{
	size_t at;

	if (c->sorted) {
		if (!pid)
			return 0;
		if (comms_find(c, pid))
			return -EEXIST;
	}
	if (grow(c, 1))
		return -ENOMEM;
	if (!keep && !(comm = keep_name(c, comm, len)))
		return -ENOMEM;
	if (!c->sorted) {
		c->e[c->n++] = (struct comm_ent){ .pid = pid, .comm = comm };
		return 0;
	}
	/* its place: after every smaller pid (the array has none equal) */
	{
		size_t l = 0, u = c->n;

		while (l < u) {
			at = (l + u) / 2;
			if (c->e[at].pid < pid)
				l = at + 1;
			else
				u = at;
		}
		at = l;
	}
	memmove(c->e + at + 1, c->e + at, (c->n - at) * sizeof(*c->e));
	c->e[at] = (struct comm_ent){ .pid = pid, .comm = comm };
	c->n++;
	return 0;
}

/* libtraceevent's find_cmdline() over @c. */
static const char *comms_get(struct ftk_comms *c, int pid)
{
	struct comm_ent *e;

	if (!pid)
		return "<idle>";
	if (!c->sorted && comms_sort(c))
		return "<not enough memory for cmdlines!>";
	e = comms_find(c, pid);
	return e ? e->comm : NULL;
}

/* ftk_comm() with the table looked up already (@c may be NULL). */
const char *ftk_comms_get(struct ftk_comms *c, struct tep_handle *tep, int pid)
{
	const char *s;

	if (!c || c->in_tep)
		return tep_data_comm_from_pid(tep, pid);
	s = comms_get(c, pid);
	return s ? s : tep_data_comm_from_pid(tep, pid);
}

/**
 * ftk_comms_add() - tep_register_comm() for a table (NULL: for @tep)
 * @c: the table of @tep, or NULL
 * @tep: the handle
 * @comm: the name, @len bytes, not necessarily NUL-terminated
 * @len: its length
 * @pid: the pid
 *
 * Return: 0, -EEXIST (the pid has a comm, which stays), or -ENOMEM.
 */
int ftk_comms_add(struct ftk_comms *c, struct tep_handle *tep, const char *comm, size_t len,
		  int pid)
{
	char buf[256];

	if (c && !c->in_tep)
		return comms_add(c, comm, len, pid, 0);
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, comm, len);
	buf[len] = '\0';
	return tep_register_comm(tep, buf, pid) ? (errno ? -errno : -EINVAL) : 0;
}

/* ftk_comms_to_tep() for the table @c of @tep (NULL: nothing to do). */
int ftk_comms_hand_over(struct ftk_comms *c, struct tep_handle *tep)
{
	size_t i;

	if (!c || c->in_tep)
		return 0;
	/*
	 * libtraceevent lists them newest first and sorts stably. Not
	 * sorted yet, they are given as they came. Sorted, in reverse: its
	 * list is then our order, which its sort keeps; and it is sorted
	 * there now too, so that later comms are handled alike.
	 */
	for (i = 0; i < c->n; i++) {
		struct comm_ent *e = &c->e[c->sorted ? c->n - 1 - i : i];

		if (tep_register_comm(tep, e->comm, e->pid))
			return -ENOMEM;
	}
	if (c->sorted)
		tep_data_comm_from_pid(tep, 1);
	c->in_tep = 1;
	return 0;
}

/*
 * tep_parse_saved_cmdlines() itself, from @text on: lines as strtok(3)
 * splits them, each read with its sscanf(3), names copied.
 */
static int parse_slow(struct ftk_comms *c, char *text)
{
	char *line, *next = NULL, *comm;
	int pid, n, ret = 0;

	for (line = strtok_r(text, "\n", &next); line && !ret;
	     line = strtok_r(NULL, "\n", &next)) {
		comm = NULL;
		errno = 0;
		n = sscanf(line, "%d %m[^\n]s", &pid, &comm);
		if (errno || n != 2 || !comm) {
			free(comm);
			break;
		}
		ret = comms_add(c, comm, strlen(comm), pid, 0);
		free(comm);
		if (ret == -EEXIST)
			ret = 0;
	}
	return ret;
}

/*
 * The lines of saved_cmdlines ("PID COMM") into @c, as
 * tep_parse_saved_cmdlines() reads them: split as strtok(3) splits them,
 * each read as sscanf's "%d %m[^\n]", stopping at the first line that
 * does not read. Written by hand because sscanf (and its malloc per comm)
 * was 13M of the 57M instructions ftreport spent on a 62-event file. From
 * a line of a form other than blanks, 1-9 digits, blanks, a name on, the
 * text is read with sscanf (parse_slow()). @text is taken over (its
 * newlines cut), also on failure.
 */
int ftk_comms_parse(struct ftk_comms *c, char *text)
{
	char *p = text, *line, *nl, *comm, **nt;
	int pid, digits, keep, ret = 0;
	long long v;

	/*
	 * Before the first look-up the names stay in @text. After it (the
	 * live reader reads saved_cmdlines again) only new pids are added:
	 * their names are copied and @text is dropped, so that memory grows
	 * with the pids, not with the reads.
	 */
	keep = !c->sorted;
	if (keep) {
		nt = realloc(c->texts, (c->ntexts + 1) * sizeof(*nt));
		if (!nt) {
			free(text);
			return -ENOMEM;
		}
		c->texts = nt;
		c->texts[c->ntexts++] = text;
	}
	for (;;) {
		while (*p == '\n')
			p++;
		if (!*p)
			break;
		line = p;
		while (*p != '\n' && *p && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
			p++;
		/* a tenth digit only marks the line as one for sscanf */
		for (v = 0, digits = 0; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
			v = v * 10 + (*p - '0');
		pid = (int)v;
		comm = p;
		while (*comm != '\n' && *comm && (*comm == ' ' || (*comm >= '\t' && *comm <= '\r')))
			comm++;
		if (!digits || digits > 9 || !*comm || *comm == '\n') {
			ret = parse_slow(c, line);
			break;
		}
		nl = strchr(comm, '\n');
		if (nl)
			*nl = '\0';
		ret = comms_add(c, comm, keep ? 0 : strlen(comm), pid, keep);
		if (ret == -ENOMEM)
			break;
		ret = 0;
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!keep)
		free(text);
	return ret;
}
