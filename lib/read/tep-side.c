// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tep-side: what ftkit keeps beside a libtraceevent handle (see
 * tep-side-local.h), found from the handle. A list: a process has a
 * handle or two open, and each user looks its side up once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "comm-local.h"
#include "tep-side-local.h"

static struct ftk_tep_side *sides;
static pthread_mutex_t sides_lock = PTHREAD_MUTEX_INITIALIZER;

struct ftk_tep_side *ftk_tep_side_new(struct tep_handle *tep)
{
	struct ftk_tep_side *s = calloc(1, sizeof(*s));

	if (!s || !(s->comms = ftk_comms_new())) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->tep = tep;
	pthread_mutex_lock(&sides_lock);
	s->next = sides;
	sides = s;
	pthread_mutex_unlock(&sides_lock);
	return s;
}

void ftk_tep_side_free(struct ftk_tep_side *s)
{
	struct ftk_tep_side **pp;

	if (!s)
		return;
	pthread_mutex_lock(&sides_lock);
	for (pp = &sides; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&sides_lock);
	ftk_comms_free(s->comms);
	free(s->printk);
	free(s);
}

struct ftk_tep_side *ftk_tep_side_of(const struct tep_handle *tep)
{
	struct ftk_tep_side *s;

	pthread_mutex_lock(&sides_lock);
	for (s = sides; s && s->tep != tep; s = s->next)
		;
	pthread_mutex_unlock(&sides_lock);
	return s;
}

/* A second text adds to the first, as tep_parse_printk_formats() does. */
int ftk_printk_keep(struct tep_handle *tep, const char *text)
{
	struct ftk_tep_side *s = ftk_tep_side_of(tep);
	size_t n = strlen(text), old;
	char *t;

	if (!s)
		return 0;
	old = s->printk ? strlen(s->printk) : 0;
	t = realloc(s->printk, old + n + 2);
	if (!t)
		return -ENOMEM;
	if (old)
		t[old++] = '\n';
	memcpy(t + old, text, n + 1);
	s->printk = t;
	return 0;
}

/* The comm table of @tep's side, or NULL. */
struct ftk_comms *ftk_comms_of(const struct tep_handle *tep)
{
	struct ftk_tep_side *s = ftk_tep_side_of(tep);

	return s ? s->comms : NULL;
}

/**
 * ftk_comm() - the comm of @pid, as tep_data_comm_from_pid() gives it
 * @tep: the handle
 * @pid: the pid
 *
 * Return: the name, "<idle>" for 0, or "<...>" when none is known; valid
 * until the table is unbound.
 */
const char *ftk_comm(struct tep_handle *tep, int pid)
{
	return ftk_comms_get(ftk_comms_of(tep), tep, pid);
}

/**
 * ftk_comms_to_tep() - register every comm of @tep's table with libtraceevent
 * @tep: the handle
 *
 * For code that asks libtraceevent itself (a filter's COMM). In the order
 * that leaves libtraceevent with the same answers; from then on the
 * table passes every call on to libtraceevent. A tep without a table is
 * left alone.
 *
 * Return: 0 or -ENOMEM.
 */
int ftk_comms_to_tep(struct tep_handle *tep)
{
	return ftk_comms_hand_over(ftk_comms_of(tep), tep);
}
