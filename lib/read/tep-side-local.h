/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tep-side.c: what ftkit keeps beside a libtraceevent handle. A tep has
 * no slot for a caller's data, and the printers, the tally and the live
 * reader are given only the tep; the readers bind this to it at open.
 */
#ifndef FTKIT_TEP_SIDE_LOCAL_H
#define FTKIT_TEP_SIDE_LOCAL_H

struct tep_handle;
struct ftk_comms;

struct ftk_tep_side {
	struct ftk_tep_side	*next;		/* the registry */
	struct tep_handle	*tep;
	struct ftk_comms	*comms;		/* pid -> comm (comm.c) */
	char			*printk;	/* printk formats text (print-printk.c), or NULL */
};

/* Bind a side, with an empty comm table, to @tep; NULL with errno set. */
struct ftk_tep_side *ftk_tep_side_new(struct tep_handle *tep);
/* Unbind @s and free it, its comms and its text; NULL is fine. */
void ftk_tep_side_free(struct ftk_tep_side *s);
/* The side bound to @tep, or NULL. */
struct ftk_tep_side *ftk_tep_side_of(const struct tep_handle *tep);
/* Add @text (printk formats, as given to tep_parse_printk_formats()) to @tep's; 0 or -ENOMEM. */
int ftk_printk_keep(struct tep_handle *tep, const char *text);

#endif
