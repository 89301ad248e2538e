/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trigger: event triggers (events/SYS/EV/trigger), function triggers
 * (set_ftrace_filter "func:command"), hist output and synthetic events.
 *
 * A trigger is written in the kernel's syntax:
 *	traceon[:COUNT] [if FILTER]		traceoff, stacktrace, snapshot alike
 *	enable_event:SYS:EV[:COUNT] [if FILTER]	disable_event, enable_hist, disable_hist
 *	hist:keys=K[:vals=V][:sort=S][:size=N][:name=N][:pause|:cont|:clear]
 *	     [:onmatch(SYS.EV).trace(SYNTH,ARGS)|:onmax($VAR).save(...)] [if FILTER]
 * The kernel lists them in its own form ("traceon:count=3 if pid==1",
 * "hist:...:size=2048 [active]"); ftk_trigger_removal() turns either form
 * into the "!..." text that removes it.
 */
#ifndef FTKIT_TRIGGER_H
#define FTKIT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_trigger {
	char		*instance;	/* NULL for the top level */
	char		*event;		/* "system:event", or NULL for a function trigger */
	char		*text;		/* as the kernel lists it */
};

FTK_API int ftk_trigger_removal(const char *trigger, char **out);
FTK_API int ftk_trigger_rank(const char *trigger);
FTK_API int ftk_trigger_add(struct ftk_tracefs *t, const char *event, const char *trigger);
FTK_API int ftk_trigger_remove(struct ftk_tracefs *t, const char *event, const char *trigger);
FTK_API int ftk_trigger_list(struct ftk_tracefs *t, const char *glob, struct ftk_trigger **out,
			     size_t *nr);
FTK_API int ftk_trigger_list_all(struct ftk_tracefs *t, struct ftk_trigger **out, size_t *nr);
FTK_API void ftk_trigger_sort(struct ftk_trigger *v, size_t nr);
FTK_API int ftk_trigger_clear(struct ftk_tracefs *t, const char *glob);
FTK_API void ftk_trigger_free(struct ftk_trigger *v, size_t nr);
FTK_API int ftk_trigger_hist(struct ftk_tracefs *t, const char *event, char **out);
FTK_API int ftk_trigger_latency_ok(struct ftk_tracefs *t, struct ftk_tracefs *top,
				   const char *event, char *why, size_t len);
FTK_API int ftk_trigger_hist_state(struct ftk_tracefs *t, const char *event, const char *state);

/*
 * The text of a hist file (ftk_trigger_hist()) read back: each entry line
 * "{ KEY: V, ... } hitcount: N VAL: V ..." as one row, with the numbers of
 * the keys and values asked for by name.
 */
#define FTK_TRIGGER_HIST_MAX	8	/* keys, and values, read per row */
struct ftk_trigger_hist_row {
	uint64_t	key[FTK_TRIGGER_HIST_MAX];	/* as asked for, in order; 0 if absent */
	uint64_t	val[FTK_TRIGGER_HIST_MAX];
	const char	*text;		/* the row's "{ ... }", not NUL-terminated */
	size_t		len;		/* its length, the padding before hitcount left out */
};
struct ftk_trigger_hist_totals {
	uint64_t	hits, entries, dropped;	/* the trigger's "Hits:", "Entries:", "Dropped:" */
};
typedef void (*ftk_trigger_hist_fn)(void *ctx, const struct ftk_trigger_hist_row *row);
FTK_API int ftk_trigger_hist_parse(const char *text, const char *match, const char *keys,
				   const char *vals, ftk_trigger_hist_fn fn, void *ctx,
				   struct ftk_trigger_hist_totals *tot);
FTK_API int ftk_trigger_func_add(struct ftk_tracefs *t, const char *func, const char *command);
FTK_API int ftk_trigger_synth_add(struct ftk_tracefs *t, const char *definition);

/*
 * A latency synthetic event made with libtracefs's tracefs_synth: START
 * and END matched on their keys, "lat" the END's time stamp minus the
 * START's in nanoseconds, and the listed END fields carried along.
 */
struct ftk_trigger_latency_opts {
	size_t		sz;
	const char	*name;		/* the synthetic event */
	const char	*start;		/* "system:event" */
	const char	*end;
	const char	*start_keys;	/* "pid", or "dev,sector": matched in order with end_keys */
	const char	*end_keys;
	const char	*key_name;	/* keep the first key in the event under this name, or NULL */
	const char	*end_fields;	/* "id,ret": END fields carried, or NULL */
	const char	*start_filter;	/* the kernel's filter syntax, or NULL */
	const char	*end_filter;
	unsigned int	size;		/* entries of the two hists (one a key ever seen), 0: the kernel's */
	const char	*clock;		/* their clock= (the kernel sets the instance's to it), or NULL */
};

FTK_API int ftk_trigger_latency_add(struct ftk_tracefs *t,
				    const struct ftk_trigger_latency_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
