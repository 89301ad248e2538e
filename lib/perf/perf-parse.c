// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perf's event syntax, parsed into perf_event_attr:
 *
 *	list	:= item { ',' item }
 *	item	:= event | '{' event { ',' event } '}' [ ':' mods ]
 *	event	:= name [ ':' mods ]		task-clock, cs, cycles, L1-dcache-load-misses,
 *						or a PMU's sysfs alias: tsc (msr/tsc/)
 *		 | 'r' HEX [ ':' mods ]		raw config for the CPU PMU
 *		 | pmu '/' terms '/' [ [':'] mods ]	msr/tsc/, cpu/event=0x3c,umask=0x1/
 *		 | sys ':' ev [ ':' mods ]	tracepoints; both parts may be globs
 *	mods	:= { u | k | h | G | H | p | D }
 *
 * libtraceevent and libtracefs know nothing of perf's names, and libperf
 * (whose parser lives in the perf tool, not the library) is not packaged
 * for Debian 12, so this is written here. PMU terms follow the layout the
 * kernel publishes in /sys/bus/event_source/devices/PMU/format/TERM
 * ("config:0-7,21"), aliases come from PMU/events/NAME; tracepoint ids
 * from the caller's struct ftk_tracepoints (the control side reads them
 * from tracefs: the perf side never does).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include <ftkit/perfstat.h>

#include "perf-local.h"

#define HW(n)	PERF_TYPE_HARDWARE, PERF_COUNT_HW_##n
#define SW(n)	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##n

/* perf's symbolic names, aliases included (perf list's "Hardware event" and "Software event"). */
static const struct symbol {
	const char	*name;
	uint32_t	type;
	uint64_t	config;
} symbols[] = {
	{ "cpu-cycles",			HW(CPU_CYCLES) },
	{ "cycles",			HW(CPU_CYCLES) },
	{ "instructions",		HW(INSTRUCTIONS) },
	{ "cache-references",		HW(CACHE_REFERENCES) },
	{ "cache-misses",		HW(CACHE_MISSES) },
	{ "branch-instructions",	HW(BRANCH_INSTRUCTIONS) },
	{ "branches",			HW(BRANCH_INSTRUCTIONS) },
	{ "branch-misses",		HW(BRANCH_MISSES) },
	{ "bus-cycles",			HW(BUS_CYCLES) },
	{ "stalled-cycles-frontend",	HW(STALLED_CYCLES_FRONTEND) },
	{ "idle-cycles-frontend",	HW(STALLED_CYCLES_FRONTEND) },
	{ "stalled-cycles-backend",	HW(STALLED_CYCLES_BACKEND) },
	{ "idle-cycles-backend",	HW(STALLED_CYCLES_BACKEND) },
	{ "ref-cycles",			HW(REF_CPU_CYCLES) },
	{ "cpu-clock",			SW(CPU_CLOCK) },
	{ "task-clock",			SW(TASK_CLOCK) },
	{ "page-faults",		SW(PAGE_FAULTS) },
	{ "faults",			SW(PAGE_FAULTS) },
	{ "context-switches",		SW(CONTEXT_SWITCHES) },
	{ "cs",				SW(CONTEXT_SWITCHES) },
	{ "cpu-migrations",		SW(CPU_MIGRATIONS) },
	{ "migrations",			SW(CPU_MIGRATIONS) },
	{ "minor-faults",		SW(PAGE_FAULTS_MIN) },
	{ "major-faults",		SW(PAGE_FAULTS_MAJ) },
	{ "alignment-faults",		SW(ALIGNMENT_FAULTS) },
	{ "emulation-faults",		SW(EMULATION_FAULTS) },
	{ "dummy",			SW(DUMMY) },
	{ "bpf-output",			SW(BPF_OUTPUT) },
	{ "cgroup-switches",		SW(CGROUP_SWITCHES) },
};

/* Generic cache events: CACHE[-OP][-RESULT], names as perf spells them. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][6] = {
	[PERF_COUNT_HW_CACHE_L1D]	= { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I]	= { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL]	= { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB]	= { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB]	= { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU]	= { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE]	= { "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ]		= { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE]		= { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH]	= { "prefetch", "prefetches", "speculative-read",
						    "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS]	= { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS]	= { "misses", "miss" },
};

/* Match one of @names at the start of @s, ending at '-' or the end; returns its length. */
static size_t match_prefix(const char *s, const char *const *names, size_t nr)
{
	size_t i, len, best = 0;

	for (i = 0; i < nr && names[i]; i++) {
		len = strlen(names[i]);
		if (!strncasecmp(s, names[i], len) && (s[len] == '-' || !s[len]) && len > best)
			best = len;
	}
	return best;
}

static int match_table(const char *s, const char *const (*tab)[5], size_t rows, size_t *len)
{
	size_t i, l;

	for (i = 0; i < rows; i++) {
		l = match_prefix(s, tab[i], 5);
		if (l) {
			*len = l;
			return i;
		}
	}
	return -1;
}

static int parse_cache(const char *s, uint64_t *config)
{
	int cache = -1, op = -1, res = -1, i;
	size_t len = 0, l;

	for (i = 0; i < PERF_COUNT_HW_CACHE_MAX; i++) {
		l = match_prefix(s, cache_names[i], 6);
		if (l > len) {
			len = l;
			cache = i;
		}
	}
	if (cache < 0)
		return -1;
	s += len;
	while (*s == '-') {
		s++;
		if (op < 0 && (i = match_table(s, cache_ops, PERF_COUNT_HW_CACHE_OP_MAX, &l)) >= 0)
			op = i;
		else if (res < 0 &&
			 (i = match_table(s, cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX, &l)) >= 0)
			res = i;
		else
			return -1;
		s += l;
	}
	if (*s)
		return -1;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	*config = cache | (op << 8) | ((uint64_t)res << 16);
	return 0;
}

/* A name without ':' or '/': symbolic, cache or raw. */
static int parse_name(const char *s, struct perf_event_attr *attr)
{
	uint64_t config;
	size_t i;
	char *end;

	for (i = 0; i < ARRAY_SIZE(symbols); i++) {
		if (!strcasecmp(s, symbols[i].name)) {
			attr->type = symbols[i].type;
			attr->config = symbols[i].config;
			return 0;
		}
	}
	if (s[0] == 'r' && isxdigit((unsigned char)s[1])) {
		errno = 0;
		config = strtoull(s + 1, &end, 16);
		if (!*end && !errno) {
			attr->type = PERF_TYPE_RAW;
			attr->config = config;
			return 0;
		}
	}
	if (!parse_cache(s, &config)) {
		attr->type = PERF_TYPE_HW_CACHE;
		attr->config = config;
		return 0;
	}
	return -1;
}

static int valid_mods(const char *m)
{
	if (!*m)
		return 0;
	for (; *m; m++)
		if (!strchr("ukhGHpD", *m))
			return 0;
	return 1;
}

/* Apply modifiers the way perf does: naming any of u/k/h excludes the others. */
static void apply_mods(struct perf_event_attr *attr, const char *m)
{
	int u = 0, k = 0, h = 0, G = 0, H = 0, p = 0;

	for (; *m; m++) {
		switch (*m) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'G': G = 1; break;
		case 'H': H = 1; break;
		case 'p': p++; break;
		case 'D': attr->pinned = 1; break;
		}
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (G || H) {
		attr->exclude_guest = !G;
		attr->exclude_host = !H;
	}
	if (p)
		attr->precise_ip = p > 3 ? 3 : p;
}

/*
 * Put @val into the bits a PMU's format file describes: "config:0-7,21",
 * "config1:0-63". Values wider than the field are refused.
 */
static int apply_format(struct perf_event_attr *attr, const char *fmt, uint64_t val)
{
	const char *s = strchr(fmt, ':');
	__u64 *field;
	unsigned int lo, hi, b;
	int pos = 0, n;

	if (!s)
		return -1;
	if (!strncmp(fmt, "config:", 7))
		field = &attr->config;
	else if (!strncmp(fmt, "config1:", 8))
		field = &attr->config1;
	else if (!strncmp(fmt, "config2:", 8))
		field = &attr->config2;
	else
		return -1;
	for (s++; *s && !isspace((unsigned char)*s); s += n) {
		if (sscanf(s, "%u-%u%n", &lo, &hi, &n) == 2) {
			;
		} else if (sscanf(s, "%u%n", &lo, &n) == 1) {
			hi = lo;
		} else {
			return -1;
		}
		if (hi > 63 || lo > hi)
			return -1;
		for (b = lo; b <= hi; b++, pos++) {
			if (val & (1ULL << pos))
				*field |= 1ULL << b;
			else
				*field &= ~(1ULL << b);
		}
		if (s[n] == ',')
			n++;
	}
	if (pos < 64 && (val >> pos))
		return -2;
	return 0;
}

static int read_sysfs(struct ftk_perf *p, const char *pmu, const char *file, char **out)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/%s", p->sysfs, pmu, file);
	return ftk_read_file(path, out, NULL);
}

static int apply_terms(struct ftk_perf *p, const char *ev, const char *pmu, char *terms,
		       struct perf_event_attr *attr, char **name, int depth);

static int apply_term(struct ftk_perf *p, const char *ev, const char *pmu, char *term,
		      struct perf_event_attr *attr, char **name, int depth)
{
	char *eq = strchr(term, '='), *end, *text = NULL, file[300];
	uint64_t val = 1;
	int ret;

	if (eq) {
		*eq++ = '\0';
		if (!strcmp(term, "name")) {
			free(*name);
			*name = strdup(eq);
			return *name ? 0 : -ENOMEM;
		}
		errno = 0;
		val = strtoull(eq, &end, 0);
		if (*end || errno || !*eq)
			return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': bad value '%s' for term '%s'",
					 ev, eq, term);
	}
	if (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2")) {
		if (!strcmp(term, "config"))
			attr->config = val;
		else if (!strcmp(term, "config1"))
			attr->config1 = val;
		else
			attr->config2 = val;
		return 0;
	}
	if (!strcmp(term, "period")) {
		attr->sample_period = val;
		return 0;
	}
	if (strchr(term, '/') || !*term)
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': bad term '%s'", ev, term);
	snprintf(file, sizeof(file), "format/%s", term);
	ret = read_sysfs(p, pmu, file, &text);
	if (!ret) {
		ret = apply_format(attr, text, val);
		free(text);
		if (ret == -2)
			return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': value 0x%llx too big for term '%s'",
					 ev, (unsigned long long)val, term);
		if (ret)
			return perf_fail(p, -FTK_E_PARSE, "%s/%s/format/%s: cannot parse the format",
					 p->sysfs, pmu, term);
		return 0;
	}
	/* Not a format term: an event alias of this PMU, itself a list of terms. */
	snprintf(file, sizeof(file), "events/%s", term);
	ret = read_sysfs(p, pmu, file, &text);
	if (!ret && !eq && depth < 2) {
		ret = apply_terms(p, ev, pmu, ftk_strstrip(text), attr, name, depth + 1);
		free(text);
		return ret;
	}
	free(text);
	return perf_fail(p, -FTK_E_NOEVENT, "event syntax error: '%s': PMU '%s' has no term or event '%s' (%s/%s/format, events)",
			 ev, pmu, term, p->sysfs, pmu);
}

static int apply_terms(struct ftk_perf *p, const char *ev, const char *pmu, char *terms,
		       struct perf_event_attr *attr, char **name, int depth)
{
	char *term, *save = NULL;
	int ret;

	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		ret = apply_term(p, ev, pmu, term, attr, name, depth);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The unit and scale sysfs gives an alias among @terms (power/energy-pkg/:
 * "Joules", 2.3283064365386962890625e-10), which perf applies to the count.
 */
static int alias_unit(struct ftk_perf *p, const char *pmu, char *terms, struct perf_ev *e)
{
	char *term, *save = NULL, file[300], *text, *end;
	double scale;

	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		if (strchr(term, '='))
			continue;
		snprintf(file, sizeof(file), "events/%s.unit", term);
		if (!read_sysfs(p, pmu, file, &text)) {
			free(e->unit);
			e->unit = strdup(ftk_strstrip(text));
			free(text);
			if (!e->unit)
				return -ENOMEM;
		}
		snprintf(file, sizeof(file), "events/%s.scale", term);
		if (!read_sysfs(p, pmu, file, &text)) {
			scale = strtod(text, &end);
			if (end != text && scale > 0)
				e->scale = scale;
			free(text);
		}
	}
	return 0;
}

/* pmu/terms/[[:]mods], printed as @display if not NULL, else as written. */
static int parse_pmu(struct ftk_perf *p, char *ev, const char *display, int leader, int *added)
{
	char *s1 = strchr(ev, '/'), *s2 = strrchr(ev, '/'), *mods = NULL, *pmu, *terms;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *orig = strdup(ev), *text = NULL, *name = NULL, *end, *tcopy = NULL;
	unsigned long type;
	int ret;

	if (!orig)
		return -ENOMEM;
	if (s1 == s2) {
		ret = perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': missing '/' after the terms", orig);
		goto out;
	}
	if (s2[1] == ':' && valid_mods(s2 + 2)) {
		mods = s2 + 2;
	} else if (valid_mods(s2 + 1)) {
		mods = s2 + 1;		/* perf takes msr/tsc/u as well as msr/tsc/:u */
	} else if (s2[1]) {
		ret = perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': junk after the terms", orig);
		goto out;
	}
	*s1 = *s2 = '\0';
	pmu = ev;
	terms = s1 + 1;
	if (!*pmu || strchr(pmu, '.') || strchr(pmu, ':')) {
		ret = perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': bad PMU name", orig);
		goto out;
	}
	ret = read_sysfs(p, pmu, "type", &text);
	if (ret) {
		ret = perf_fail(p, -FTK_E_NOEVENT, "event syntax error: '%s': no PMU '%s' (%s/%s/type: %s)",
				orig, pmu, p->sysfs, pmu, strerror(-ret));
		goto out;
	}
	type = strtoul(text, &end, 10);
	if (end == text) {
		ret = perf_fail(p, -FTK_E_FORMAT, "%s/%s/type: not a number", p->sysfs, pmu);
		goto out;
	}
	attr.type = type;
	tcopy = strdup(terms);
	if (!tcopy) {
		ret = -ENOMEM;
		goto out;
	}
	ret = apply_terms(p, orig, pmu, terms, &attr, &name, 0);
	if (ret)
		goto out;
	if (mods)
		apply_mods(&attr, mods);
	ret = perf_ev_add(p, &attr, name ? name : display ? display : orig, leader);
	if (ret)
		goto out;
	(*added)++;
	ret = alias_unit(p, pmu, tcopy, &p->ev[p->nr_ev - 1]);
out:
	free(tcopy);
	free(text);
	free(name);
	free(orig);
	return ret;
}

/*
 * A bare name that no table knows may be an event a PMU names in sysfs
 * ("tsc" is msr/tsc/): one event for each PMU that has it, as perf does.
 * Returns 1 when there was none.
 */
static int parse_pmu_alias(struct ftk_perf *p, const char *ev, const char *mods,
			   const char *display, int leader, int *added)
{
	struct dirent **pmus = NULL;
	char path[4096], *spec;
	int n, i, ret = 0, found = 0;

	if (!*ev || strchr(ev, '.'))
		return 1;
	n = scandir(p->sysfs, &pmus, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/events/%s", p->sysfs, pmus[i]->d_name, ev);
		if (!ret && pmus[i]->d_name[0] != '.' && !access(path, R_OK)) {
			found++;
			if (asprintf(&spec, "%s/%s/%s%s", pmus[i]->d_name, ev, mods ? ":" : "",
				     mods ? mods : "") < 0) {
				ret = -ENOMEM;
			} else {
				ret = parse_pmu(p, spec, display, leader, added);
				free(spec);
			}
		}
		free(pmus[i]);
	}
	free(pmus);
	return ret ? ret : !found;
}

static int dir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* What one tracepoint look-up adds. */
struct tp_add {
	struct ftk_perf	*p;
	const char	*mods;
	int		leader;
	int		*added;
	int		found;
	int		err;	/* perf_ev_add()'s failure: the look-up stopped */
};

static int tp_found(void *ctx, const char *sys, const char *ev, uint64_t id)
{
	/* Counting only: a sample period would make every hit an overflow to handle. */
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT, .config = id,
	};
	struct tp_add *a = ctx;
	char name[600];

	if (a->mods)
		apply_mods(&attr, a->mods);
	snprintf(name, sizeof(name), "%s:%s%s%s", sys, ev, a->mods ? ":" : "",
		 a->mods ? a->mods : "");
	a->err = perf_ev_add(a->p, &attr, name, a->leader);
	if (a->err)
		return a->err;
	(*a->added)++;
	a->found++;
	return 0;
}

/*
 * sys:ev[:mods], either part a glob; matches in sorted order, as perf lists
 * them. The ids are the caller's look-up's (p->tp): the perf side reads no
 * tracefs.
 */
static int parse_tracepoint(struct ftk_perf *p, const char *sys, const char *ev,
			    const char *mods, int leader, int *added)
{
	struct tp_add a = { .p = p, .mods = mods, .leader = leader, .added = added };
	int ret;

	if (!p->tp.ids)
		return perf_fail(p, -FTK_E_NOEVENT, "'%s:%s': no tracepoints were handed in "
				 "(ftk_event_tracepoints())", sys, ev);
	ret = p->tp.ids(p->tp.arg, sys, ev, tp_found, &a);
	if (a.err)
		return a.err;
	if (ret)
		return perf_fail(p, ret, "tracepoint '%s:%s': cannot look it up: %s%s", sys, ev,
				 strerror(-ret), ret == -ENODEV || ret == -ENOENT ?
				 " (no tracefs found: mount -t tracefs nodev /sys/kernel/tracing)" : "");
	if (!a.found)
		return perf_fail(p, -FTK_E_NOEVENT, "event syntax error: '%s:%s': unknown tracepoint",
				 sys, ev);
	return 0;
}

/* One event: everything but a group. */
static int parse_event(struct ftk_perf *p, char *ev, int leader, int *added)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char *c1, *c2, *orig = ev, *base;
	int ret;

	if (!*ev)
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: empty event name");
	if (strchr(ev, '/'))
		return parse_pmu(p, ev, NULL, leader, added);
	c1 = strchr(ev, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2 && strchr(c2 + 1, ':'))
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': too many ':'", ev);
	if (!c1 || (!c2 && valid_mods(c1 + 1))) {
		if (c1)
			*c1 = '\0';
		ret = parse_name(ev, &attr);
		if (c1)
			*c1 = ':';
		if (!ret) {
			if (c1)
				apply_mods(&attr, c1 + 1);
			ret = perf_ev_add(p, &attr, orig, leader);
			if (!ret)
				(*added)++;
			return ret;
		}
		base = strndup(ev, c1 ? (size_t)(c1 - ev) : strlen(ev));
		if (!base)
			return -ENOMEM;
		ret = parse_pmu_alias(p, base, c1 ? c1 + 1 : NULL, orig, leader, added);
		free(base);
		if (ret <= 0)
			return ret;
		if (!c1)
			return perf_fail(p, -FTK_E_NOEVENT, "event syntax error: '%s': unknown event (see ftstat --list)",
					 ev);
	}
	if (c2 && !valid_mods(c2 + 1))
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': bad modifier '%s'",
				 ev, c2 + 1);
	*c1 = '\0';
	if (c2)
		*c2 = '\0';
	ret = parse_tracepoint(p, ev, c1 + 1, c2 ? c2 + 1 : NULL, leader, added);
	*c1 = ':';
	if (c2)
		*c2 = ':';
	return ret;
}

/* The next item of a comma list, honouring {} and pmu/.../; NUL-terminates it. */
static char *next_item(char **sp)
{
	char *s = *sp, *start = s;
	int depth = 0, slash = 0;

	if (!s)
		return NULL;
	for (; *s; s++) {
		if (*s == '{')
			depth++;
		else if (*s == '}')
			depth--;
		else if (*s == '/')
			slash = !slash;
		else if (*s == ',' && !depth && !slash)
			break;
	}
	if (*s) {
		*s = '\0';
		*sp = s + 1;
	} else {
		*sp = NULL;
	}
	return start;
}

static int append_mods(struct ftk_perf *p, size_t from, const char *mods)
{
	size_t i;
	char *n;

	for (i = from; i < p->nr_ev; i++) {
		apply_mods(&p->ev[i].attr, mods);
		if (asprintf(&n, "%s:%s", p->ev[i].name, mods) < 0)
			return -ENOMEM;
		free(p->ev[i].name);
		p->ev[i].name = n;
	}
	return 0;
}

static int parse_group(struct ftk_perf *p, char *item)
{
	char *close = strrchr(item, '}'), *mods = NULL, *rest, *ev;
	size_t first = p->nr_ev;
	int ret, added = 0;

	if (!close)
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': missing '}'", item);
	if (close[1] == ':' && valid_mods(close + 2))
		mods = close + 2;
	else if (close[1])
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': junk after '}'", item);
	*close = '\0';
	rest = item + 1;
	while ((ev = next_item(&rest))) {
		if (strchr(ev, '{') || strchr(ev, '}'))
			return perf_fail(p, -FTK_E_PARSE, "event syntax error: groups do not nest");
		ret = parse_event(p, ev, added ? (int)first : -1, &added);
		if (ret)
			return ret;
		/* A glob that matched several tracepoints: all but the first follow it. */
		for (size_t i = first + 1; i < p->nr_ev; i++)
			p->ev[i].leader = first;
	}
	if (!added)
		return perf_fail(p, -FTK_E_PARSE, "event syntax error: empty group");
	return mods ? append_mods(p, first, mods) : 0;
}

/**
 * ftk_perf_add() - parse events in perf's syntax and add them to the list
 * @p: the handle, not opened yet
 * @spec: a comma list of events and {groups}, as `perf stat -e` takes
 *
 * Each event outside braces leads its own group; a tracepoint glob adds one
 * event per match, in sorted order. Names are kept as written, which is how
 * perf prints them. Only sysfs (PMUs) is read, and tracepoint ids are looked
 * up through the handle's struct ftk_tracepoints: whether the kernel
 * supports an event is found out by ftk_perf_open().
 *
 * Return: 0, or a negative code with ftk_perf_errmsg() saying which event and
 * why: -FTK_E_NOEVENT for an unknown name, PMU or tracepoint, -FTK_E_PARSE
 * for bad syntax, -ENOMEM. Events parsed before the error stay added.
 */
FTK_API int ftk_perf_add(struct ftk_perf *p, const char *spec)
{
	char *copy, *rest, *item;
	int ret = 0, added;

	if (p->opened)
		return ftk_err(perf_fail(p, -EBUSY, "events cannot be added after the open"));
	copy = strdup(spec);
	if (!copy)
		return ftk_err(-ENOMEM);
	rest = copy;
	if (!*rest)
		ret = perf_fail(p, -FTK_E_PARSE, "event syntax error: empty event list");
	while (!ret && (item = next_item(&rest))) {
		added = 0;
		if (item[0] == '{') {
			ret = parse_group(p, item);
		} else if (strchr(item, '}')) {
			ret = perf_fail(p, -FTK_E_PARSE, "event syntax error: '%s': unbalanced '}'",
					item);
		} else {
			size_t first = p->nr_ev, i;

			ret = parse_event(p, item, -1, &added);
			/* Globbed tracepoints outside braces each lead their own group. */
			for (i = first; !ret && i < p->nr_ev; i++)
				p->ev[i].leader = i;
		}
	}
	free(copy);
	return ftk_err(ret);
}

/* perf's cache events by cache: which operations the generic cache events name (perf list). */
static const unsigned char cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]	= 7,	/* read, write, prefetch */
	[PERF_COUNT_HW_CACHE_L1I]	= 5,	/* read, prefetch */
	[PERF_COUNT_HW_CACHE_LL]	= 7,
	[PERF_COUNT_HW_CACHE_DTLB]	= 7,
	[PERF_COUNT_HW_CACHE_ITLB]	= 1,	/* read */
	[PERF_COUNT_HW_CACHE_BPU]	= 1,
	[PERF_COUNT_HW_CACHE_NODE]	= 7,
};

static int list_symbols(uint32_t type, char ***names)
{
	char line[128];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(symbols); i++) {
		if (symbols[i].type != type)
			continue;
		snprintf(line, sizeof(line), "%s", symbols[i].name);
		/* Aliases follow their name in the table: "cpu-cycles OR cycles". */
		while (i + 1 < ARRAY_SIZE(symbols) && symbols[i + 1].type == type &&
		       symbols[i + 1].config == symbols[i].config) {
			i++;
			snprintf(line + strlen(line), sizeof(line) - strlen(line), " OR %s",
				 symbols[i].name);
		}
		ret = ftk_list_add(names, line);
	}
	return ret;
}

static int list_cache(char ***names)
{
	char line[128];
	int c, op, ret = 0;

	for (c = 0; !ret && c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (op = 0; !ret && op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(cache_ops_valid[c] & (1 << op)))
				continue;
			/* As perf names them: L1-dcache-loads, L1-dcache-load-misses. */
			snprintf(line, sizeof(line), "%s-%s", cache_names[c][0], cache_ops[op][1]);
			ret = ftk_list_add(names, line);
			snprintf(line, sizeof(line), "%s-%s-%s", cache_names[c][0], cache_ops[op][0],
				 cache_results[PERF_COUNT_HW_CACHE_RESULT_MISS][0]);
			if (!ret)
				ret = ftk_list_add(names, line);
		}
	}
	return ret;
}

static int list_pmus(const struct ftk_perf *p, char ***names)
{
	struct dirent **pmus = NULL, **evs;
	char path[4096], line[600];
	int n, m, i, j, ret = 0;

	n = scandir(p->sysfs, &pmus, dir_filter, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/events", p->sysfs, pmus[i]->d_name);
		m = ret ? -1 : scandir(path, &evs, dir_filter, alphasort);
		for (j = 0; j < m; j++) {
			/* NAME.scale and NAME.unit describe the event NAME; they are not events. */
			if (!ret && !strchr(evs[j]->d_name, '.')) {
				snprintf(line, sizeof(line), "%s/%s/", pmus[i]->d_name,
					 evs[j]->d_name);
				ret = ftk_list_add(names, line);
			}
			free(evs[j]);
		}
		if (m >= 0)
			free(evs);
		free(pmus[i]);
	}
	free(pmus);
	return ret;
}

/**
 * ftk_perf_list() - the event names perf list shows, of one kind
 * @p: a handle (its sysfs directory is read for FTK_PERF_KIND_PMU)
 * @kind: FTK_PERF_KIND_HARDWARE, _SOFTWARE, _CACHE or _PMU
 * @names: a NULL-terminated list, to free with ftk_list_free()
 *
 * The symbolic names ftk_perf_add() takes, aliases joined by " OR " as perf
 * list prints them ("context-switches OR cs"); the generic cache events as
 * perf names them; or every event a PMU of this machine names in
 * PMU/events, as "PMU/NAME/". Listing does not ask the kernel whether an
 * event can be counted here. A kind without names is an empty list.
 *
 * Return: 0, -EINVAL for an unknown kind, -ENOMEM.
 */
FTK_API int ftk_perf_list(const struct ftk_perf *p, enum ftk_perf_kind kind, char ***names)
{
	int ret;

	*names = calloc(1, sizeof(**names));
	if (!*names)
		return ftk_err(-ENOMEM);
	switch (kind) {
	case FTK_PERF_KIND_HARDWARE:
		ret = list_symbols(PERF_TYPE_HARDWARE, names);
		break;
	case FTK_PERF_KIND_SOFTWARE:
		ret = list_symbols(PERF_TYPE_SOFTWARE, names);
		break;
	case FTK_PERF_KIND_CACHE:
		ret = list_cache(names);
		break;
	case FTK_PERF_KIND_PMU:
		ret = list_pmus(p, names);
		break;
	default:
		ret = -EINVAL;
	}
	if (ret) {
		ftk_list_free(*names);
		*names = NULL;
	}
	return ftk_err(ret);
}
