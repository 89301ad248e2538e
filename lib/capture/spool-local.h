/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spool.c's calls for the capture: the spool directory's layout stays in spool.c. */
#ifndef FTKIT_SPOOL_LOCAL_H
#define FTKIT_SPOOL_LOCAL_H

#include <stddef.h>

/* The spool of @cpu in the spool directory @dir, made new, never through a link: fd or -errno. */
int ftk_spool_cpu_create(const char *dir, int cpu);
/* That spool opened for more pages: cut to whole pages of @psz, at its end; fd or -errno. */
int ftk_spool_cpu_append(const char *dir, int cpu, size_t psz);
/* Whether @dir holds a recovery template: 1 or 0. */
int ftk_spool_has_template(const char *dir);
/* Remove that spool (a capture that ended). */
void ftk_spool_cpu_remove(const char *dir, int cpu);

#endif
