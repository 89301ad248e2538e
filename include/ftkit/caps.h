/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * caps: what this kernel and its tracefs allow, found by trying.
 *
 * ftk_caps_probe() tries each feature the way a tool would use it (in a
 * scratch instance where it can) and puts everything back. Each entry is
 * usable or not, with the kernel's reason when not.
 */
#ifndef FTKIT_CAPS_H
#define FTKIT_CAPS_H

#include <ftkit/common.h>
#include <ftkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftk_caps;

struct ftk_cap {
	const char	*name;		/* stable key: "function", "kprobes", ... */
	const char	*group;		/* "tracefs", "tracers", "probes", "perf", ... */
	const char	*value;		/* what it is, or NULL: "local", "1408 KiB" */
	const char	*reason;	/* why not usable; NULL when usable */
	int		usable;
};

FTK_API int ftk_caps_probe(struct ftk_tracefs *t, struct ftk_caps **out);
FTK_API void ftk_caps_free(struct ftk_caps *caps);
FTK_API size_t ftk_caps_count(const struct ftk_caps *caps);
FTK_API const struct ftk_cap *ftk_caps_at(const struct ftk_caps *caps, size_t i);
FTK_API const struct ftk_cap *ftk_caps_get(const struct ftk_caps *caps, const char *name);

#ifdef __cplusplus
}
#endif
#endif
