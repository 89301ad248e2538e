/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* comm.c: pid -> comm tables, bound to a tep by tep-side.c, with libtraceevent's answers. */
#ifndef FTKIT_COMM_LOCAL_H
#define FTKIT_COMM_LOCAL_H

#include <stddef.h>

struct tep_handle;
struct ftk_comms;

struct ftk_comms *ftk_comms_new(void);
void ftk_comms_free(struct ftk_comms *c);
/* saved_cmdlines' text into @c; @text is taken over. 0 or -ENOMEM. */
int ftk_comms_parse(struct ftk_comms *c, char *text);
const char *ftk_comms_get(struct ftk_comms *c, struct tep_handle *tep, int pid);
int ftk_comms_add(struct ftk_comms *c, struct tep_handle *tep, const char *comm, size_t len,
		  int pid);
int ftk_comms_hand_over(struct ftk_comms *c, struct tep_handle *tep);

/* By the tep the table is bound to (tep-side.c, which sits above this file). */
struct ftk_comms *ftk_comms_of(const struct tep_handle *tep);
const char *ftk_comm(struct tep_handle *tep, int pid);
int ftk_comms_to_tep(struct tep_handle *tep);

#endif
