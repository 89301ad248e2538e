/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * event: trace events of a tracefs handle (top level or instance):
 * listing, formats, enabling, filters and the event PID lists.
 *
 * Events are named "system:event". A selection ("glob") is one of
 *	system:event	both parts may hold fnmatch(3) wildcards ("sched:*wak*")
 *	system/event	the same
 *	word		a whole system, or an event of that name in any system
 * Changes go through the handle's restore journal, and a call that fails
 * half-way puts back what it had changed before it returns.
 */
#ifndef FTKIT_EVENT_H
#define FTKIT_EVENT_H

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ftk_field_flags {
	FTK_FIELD_SIGNED	= 1 << 0,
	FTK_FIELD_ARRAY		= 1 << 1,
	FTK_FIELD_STRING	= 1 << 2,
	FTK_FIELD_DYNAMIC	= 1 << 3,	/* __data_loc: offset and length in the record */
	FTK_FIELD_COMMON	= 1 << 4,	/* common_pid and the like, in every event */
};

struct ftk_event_field {
	char		*name;
	char		*type;		/* C type as the format file declares it */
	unsigned int	offset;		/* in the record, bytes */
	unsigned int	size;		/* bytes */
	unsigned int	flags;		/* enum ftk_field_flags */
};

struct ftk_tracepoints;

FTK_API int ftk_event_list(struct ftk_tracefs *t, const char *glob, char ***out);
FTK_API int ftk_event_match(const char *glob, const char *event);
FTK_API int ftk_event_enable(struct ftk_tracefs *t, const char *glob, int on);
FTK_API int ftk_event_enabled(struct ftk_tracefs *t, char ***out);
FTK_API void ftk_event_tracepoints(const char *root, struct ftk_tracepoints *tp);
FTK_API int ftk_event_fields(struct ftk_tracefs *t, const char *event,
			     struct ftk_event_field **out, size_t *nr);
FTK_API void ftk_event_fields_free(struct ftk_event_field *fields, size_t nr);
FTK_API int ftk_event_filter_set(struct ftk_tracefs *t, const char *glob, const char *filter);
FTK_API int ftk_event_filter_get(struct ftk_tracefs *t, const char *event, char **out);
FTK_API int ftk_event_filters(struct ftk_tracefs *t, char ***out);
FTK_API int ftk_event_pid_set(struct ftk_tracefs *t, const char *pids, int notrace);

#ifdef __cplusplus
}
#endif
#endif
