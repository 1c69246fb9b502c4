/* SPDX-License-Identifier: MIT */
#include "spec_parse.h"

#include "builtin_events.h"
#include "error.h"
#include "hybrid.h"
#include "pfm.h"
#include "spec_error.h"
#include "spec_modifiers.h"
#include "spec_terms.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *spec;
	size_t len;
	size_t pos;
	const struct tally_pmus *pmus;
	struct tally_events *list;
	size_t *error_offset;
	unsigned next_origin;
	int group;      /* index of the group being parsed, -1 outside braces */
	int nr_groups;
};

#define SPEC_ERROR(p, off, len, ...) tly_spec_error(-TALLY_ESPEC, (p)->spec, off, len, (p)->error_offset, __VA_ARGS__)

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static char *dup_range(const char *s, size_t len)
{
	char *copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

static char *format_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format_text(const char *fmt, ...)
{
	char *text;
	va_list ap;
	va_start(ap, fmt);
	int ret = vasprintf(&text, fmt, ap);
	va_end(ap);
	return ret < 0 ? NULL : text;
}

/* ---- modifiers ------------------------------------------------------------------------------------ */

struct modifiers {
	size_t offset;  /* of the first letter in the spec */
	size_t len;     /* 0: none */
};

/* perf's modifier letters tally does not take, each with the reason. */
static const struct {
	char letter;
	const char *why;
} refused_modifiers[] = {
	{ 'P', "'P' (highest precise level the PMU allows) is not supported: write p, pp or ppp" },
	{ 'S', "'S' (read group members on each sample) is for sampling; tally counts" },
	{ 'W', "'W' (weak group) is not supported: tally does not split groups that fail to open" },
	{ 'b', "'b' (count through BPF, perf stat --bpf-counters) is not supported" },
};


/* Reads the letters at p->pos and checks them: known, not repeated (p may repeat up to TLY_MAX_PRECISE). */
static int parse_modifiers(struct parser *p, struct modifiers *mods)
{
	mods->offset = p->pos;
	while (p->pos < p->len && isalpha((unsigned char)p->spec[p->pos]))
		p->pos++;
	mods->len = p->pos - mods->offset;
	if (mods->len == 0)
		return SPEC_ERROR(p, mods->offset, 1, "expected modifier letters (u k h G H I D e p) after ':'");
	unsigned precise = 0;
	for (size_t i = mods->offset; i < p->pos; i++) {
		char c = p->spec[i];
		for (size_t r = 0; r < sizeof(refused_modifiers) / sizeof(refused_modifiers[0]); r++)
			if (c == refused_modifiers[r].letter)
				return SPEC_ERROR(p, i, 1, "modifier %s", refused_modifiers[r].why);
		if (!strchr("ukhGHIDep", c))
			return SPEC_ERROR(p, i, 1, "unknown modifier '%c' (valid: u k h G H I D e p)", c);
		if (c == 'p') {
			if (++precise > TLY_MAX_PRECISE)
				return SPEC_ERROR(p, mods->offset, mods->len, "precise level %u is too high: at most ppp",
				                  precise);
		} else if (memchr(p->spec + mods->offset, c, i - mods->offset)) {
			return SPEC_ERROR(p, i, 1, "modifier '%c' is given twice", c);
		}
	}
	return 0;
}

/* Applies modifiers to the events added since first: an event's own (fresh: replacing the defaults, as
 * perf does) or a group's (on top of what each member has; D and e on the leader, the event at first,
 * only). */
static int apply_modifiers(struct parser *p, size_t first, const struct modifiers *mods, bool fresh)
{
	if (!mods->len)
		return 0;
	for (size_t i = first; i < p->list->nr; i++) {
		struct tly_event *ev = &p->list->v[i];
		if (fresh)
			tly_modifiers_clear(&ev->attr, &ev->exclude_gh);
		bool leader = fresh || i == first;
		if (tly_modifiers_apply(&ev->attr, &ev->exclude_gh, p->spec + mods->offset, mods->len, leader) < 0)
			return SPEC_ERROR(p, mods->offset, mods->len,
			                  "precise level of '%s' would pass ppp with these modifiers", ev->name);
	}
	return 0;
}

/* Modifiers right after an event: ":letters", or for the pmu/.../ form also the letters directly. */
static int event_modifiers(struct parser *p, bool pmu_form, struct modifiers *mods)
{
	mods->offset = p->pos;
	mods->len = 0;
	if (p->pos < p->len && p->spec[p->pos] == ':') {
		p->pos++;
		return parse_modifiers(p, mods);
	}
	if (pmu_form && p->pos < p->len && isalpha((unsigned char)p->spec[p->pos]))
		return parse_modifiers(p, mods);
	return 0;
}

/* ---- adding events -------------------------------------------------------------------------------- */

/* The PMU an attr of the given type belongs to: the one with that type, else the only core PMU for the
 * generic types; NULL when none (a VM without a virtual PMU). */
static const char *pmu_name_for(const struct tally_pmus *pmus, uint32_t type)
{
	/* The kernel registers these under fixed names: looking there first reads one PMU's type, not all. */
	const char *fixed = type == PERF_TYPE_SOFTWARE     ? "software"
	                    : type == PERF_TYPE_TRACEPOINT ? "tracepoint"
	                    : type == PERF_TYPE_BREAKPOINT ? "breakpoint"
	                                                   : NULL;
	const struct tally_pmu *named = fixed ? tally_pmus_find(pmus, fixed) : NULL;
	if (named && tly_pmu_read(named, TLY_PMU_TYPE) == 0 && named->type == type)
		return named->name;
	/* The generic types are the core PMUs' (x86's "cpu" registers as PERF_TYPE_RAW): no other PMU's type
	 * need be read for them. */
	bool generic = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
	const struct tally_pmu *core = NULL;
	size_t nr_core = 0;
	for (size_t i = 0; i < pmus->nr; i++) {
		const struct tally_pmu *pmu = &pmus->pmus[i];
		if (generic && !tly_pmu_is_core(pmu))
			continue;
		if (tly_pmu_read(pmu, TLY_PMU_TYPE) == 0 && pmu->type == type)
			return pmu->name;
		core = pmu;
		nr_core++;
	}
	return generic && nr_core == 1 ? core->name : NULL;
}

/* Appends one event; takes the strings (freed on failure). */
static int add_event(struct parser *p, const struct perf_event_attr *attr, char *name, char *base, const char *pmu,
                     bool pmu_form, unsigned origin, const struct tly_alias *alias, bool libpfm)
{
	struct tly_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.attr = *attr;
	ev.attr.size = sizeof(ev.attr);
	if (!libpfm)
		tly_modifiers_defaults(&ev.attr);
	ev.name = name;
	ev.base = base;
	ev.pmu = pmu ? strdup(pmu) : NULL;
	ev.scale = alias ? alias->scale : 1.0;
	ev.unit = alias && alias->unit ? strdup(alias->unit) : NULL;
	ev.group = p->group;
	ev.origin = origin;
	ev.nr_origins = 1;
	ev.pmu_form = pmu_form;
	ev.libpfm = libpfm;
	if (!name || !base || (pmu && !ev.pmu) || (alias && alias->unit && !ev.unit)) {
		tly_event_release(&ev);
		return tly_error(-ENOMEM, "out of memory while parsing an event spec");
	}
	return tly_events_push(p->list, &ev);
}

/* Sets nr_origins on the events of one spec item once all its expansions are in. */
static void close_origin(struct parser *p, size_t first)
{
	for (size_t i = first; i < p->list->nr; i++)
		p->list->v[i].nr_origins = (unsigned)(p->list->nr - first);
}

/* The canonical spelling of a generic hardware or cache event. */
static const char *generic_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < tly_builtin_nr(); i++) {
		const struct tly_builtin *b = tly_builtin_get(i);
		if (b->type == type && b->config == config)
			return b->name;
	}
	return NULL;
}

/* A generic hardware or cache event: one attr, or one per core PMU on a hybrid machine. */
static int add_generic(struct parser *p, size_t start, size_t len, size_t item_len, uint32_t type,
                       uint64_t config)
{
	const char *canonical = generic_name(type, config);
	const char *item = p->spec + start;
	unsigned origin = p->next_origin++;
	if (!tly_hybrid(p->pmus)) {
		struct perf_event_attr attr = { .type = type, .config = config };
		return add_event(p, &attr, dup_range(item, item_len), strdup(canonical), pmu_name_for(p->pmus, type),
		                 false, origin, NULL, false);
	}
	size_t first = p->list->nr;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if (!tly_pmu_is_core(pmu))
			continue;
		int err = tly_pmu_read(pmu, TLY_PMU_TYPE);
		if (err)
			return err;
		struct perf_event_attr attr = { 0 };
		if (tly_generic_for_pmu(p->pmus, pmu, type, config, &attr) < 0)
			return SPEC_ERROR(p, start, len,
			                  "'%.*s' has no architectural event on core PMU '%s' (the kernel's PMUv3 map "
			                  "lacks it); name a PMU event instead",
			                  (int)len, item, pmu->name);
		int ret = add_event(p, &attr, format_text("%s/%.*s/", pmu->name, (int)item_len, item),
		                    format_text("%s/%s/", pmu->name, canonical), pmu->name, true, origin, NULL, false);
		if (ret)
			return ret;
	}
	close_origin(p, first);
	return 0;
}

/* Raw "rNNNN": the core PMU's config, PERF_TYPE_RAW; on a hybrid machine once per core PMU with the
 * PMU's own type, since a raw config fills all 64 bits and leaves no room for an extended type. */
static int add_raw(struct parser *p, size_t start, size_t item_len, uint64_t config)
{
	const char *item = p->spec + start;
	unsigned origin = p->next_origin++;
	if (!tly_hybrid(p->pmus)) {
		struct perf_event_attr attr = { .type = PERF_TYPE_RAW, .config = config };
		return add_event(p, &attr, dup_range(item, item_len), format_text("r%llx", (unsigned long long)config),
		                 pmu_name_for(p->pmus, PERF_TYPE_RAW), false, origin, NULL, false);
	}
	size_t first = p->list->nr;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if (!tly_pmu_is_core(pmu))
			continue;
		int err = tly_pmu_read(pmu, TLY_PMU_TYPE);
		if (err)
			return err;
		struct perf_event_attr attr = { .type = pmu->type, .config = config };
		int ret = add_event(p, &attr, format_text("%s/%.*s/", pmu->name, (int)item_len, item),
		                    format_text("%s/config=%#llx/", pmu->name, (unsigned long long)config), pmu->name,
		                    true, origin, NULL, false);
		if (ret)
			return ret;
	}
	close_origin(p, first);
	return 0;
}

static int term_error(struct parser *p, size_t base, const struct tly_term_error *err)
{
	return SPEC_ERROR(p, base + err->offset, err->len, "%s", err->message);
}

/* Canonical text of a pmu/terms/ event: the alias or generic name when the list was just that, else the
 * configs that reproduce the attr. */
static char *pmu_event_base(const struct tally_pmu *pmu, const struct tly_pmu_event *pe)
{
	char name_term[TLY_ERROR_MAX / 4] = "";
	if (pe->name)
		snprintf(name_term, sizeof(name_term), ",name=%.*s", (int)pe->name_len, pe->name);
	if (pe->nr_selectors == 1 && pe->alias)
		return format_text("%s/%s%s/", pmu->name, pe->alias->name, name_term);
	if (pe->nr_selectors == 1 && pe->generic)
		return format_text("%s/%.*s%s/", pmu->name, (int)pe->generic_len, pe->generic, name_term);
	char extra[64] = "";
	if (pe->attr.config1 || pe->attr.config2)
		snprintf(extra, sizeof(extra), ",config1=%#llx,config2=%#llx", (unsigned long long)pe->attr.config1,
		         (unsigned long long)pe->attr.config2);
	return format_text("%s/config=%#llx%s%s/", pmu->name, (unsigned long long)pe->attr.config, extra, name_term);
}

/* "pmu/terms/": terms_start..terms_end is the text between the slashes, item_end where the item ends. */
static int add_pmu_event(struct parser *p, const struct tally_pmu *pmu, size_t start, size_t terms_start,
                         size_t terms_end, size_t item_end)
{
	int ret = tly_pmu_details(pmu);
	if (ret)
		return ret;
	struct tly_pmu_event pe;
	memset(&pe, 0, sizeof(pe));
	pe.attr.type = pmu->type;
	struct tly_term_error err;
	if (tly_terms_apply(p->pmus, pmu, p->spec + terms_start, terms_end - terms_start, &pe, &err))
		return term_error(p, terms_start, &err);
	char *name = pe.name ? dup_range(pe.name, pe.name_len) : dup_range(p->spec + start, item_end - start);
	return add_event(p, &pe.attr, name, pmu_event_base(pmu, &pe), pmu->name, true, p->next_origin++, pe.alias, false);
}

/* A bare name that is a sysfs event of PMUs: of the core PMUs that have it, else of every PMU that has
 * it (perf takes "tsc" for msr/tsc/). Returns 1 when added, 0 when no PMU has the name. */
static int add_bare_alias(struct parser *p, size_t start, size_t len, size_t item_len)
{
	char name[256];
	if (len >= sizeof(name))
		return 0;
	memcpy(name, p->spec + start, len);
	name[len] = '\0';
	size_t nr_core = 0, nr_all = 0;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		/* A bare name may be any PMU's event: every PMU's details are read (once per snapshot). */
		int err = tly_pmu_details(&p->pmus->pmus[i]);
		if (err)
			return err;
		if (tly_pmu_alias(&p->pmus->pmus[i], name)) {
			nr_all++;
			nr_core += p->pmus->pmus[i].is_core;
		}
	}
	if (!nr_all)
		return 0;
	size_t nr = nr_core ? nr_core : nr_all;
	unsigned origin = p->next_origin++;
	size_t first = p->list->nr;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if ((nr_core && !pmu->is_core) || !tly_pmu_alias(pmu, name))
			continue;
		struct tly_pmu_event pe;
		memset(&pe, 0, sizeof(pe));
		pe.attr.type = pmu->type;
		struct tly_term_error err;
		if (tly_terms_apply(p->pmus, pmu, name, len, &pe, &err))
			return term_error(p, start, &err);
		char *display = nr > 1 ? format_text("%s/%.*s/", pmu->name, (int)item_len, p->spec + start)
		                       : dup_range(p->spec + start, item_len);
		int ret = add_event(p, &pe.attr, display, format_text("%s/%s/", pmu->name, name), pmu->name, true, origin,
		                    pe.alias, false);
		if (ret)
			return ret;
	}
	close_origin(p, first);
	return 1;
}

/* "PMU::EVENT..." through libpfm4; text_len covers the whole name with libpfm4's own modifiers. */
static int add_pfm(struct parser *p, size_t start, size_t text_len, bool fallback)
{
	char *name = dup_range(p->spec + start, text_len);
	if (!name)
		return tly_error(-ENOMEM, "out of memory while parsing an event spec");
	struct perf_event_attr attr = { 0 };
	int ret = tly_pfm_encode(name, &attr);
	if (ret) {
		free(name);
		if (fallback)
			return 0;
		/* Keep libpfm4's explanation and add where in the spec it applies. */
		char why[TLY_ERROR_MAX / 2];
		snprintf(why, sizeof(why), "%s", tally_last_error());
		return tly_spec_error(ret, p->spec, start, text_len, p->error_offset, "%s", why);
	}
	ret = add_event(p, &attr, name, strdup(name), pmu_name_for(p->pmus, attr.type), false, p->next_origin++,
	                NULL, true);
	return ret ? ret : 1;
}

static int unknown_event(struct parser *p, size_t start, size_t len)
{
	struct tly_suggest s;
	tly_suggest_init(&s, p->spec + start, len);
	for (size_t i = 0; i < tly_builtin_nr(); i++) {
		tly_suggest_offer(&s, tly_builtin_get(i)->name);
		if (tly_builtin_get(i)->alias)
			tly_suggest_offer(&s, tly_builtin_get(i)->alias);
	}
	for (size_t i = 0; i < p->pmus->nr; i++) {
		int err = tly_pmu_details(&p->pmus->pmus[i]);
		if (err)
			return err;
		for (size_t j = 0; j < p->pmus->pmus[i].nr_aliases; j++)
			tly_suggest_offer(&s, p->pmus->pmus[i].aliases[j].name);
	}
	if (s.best)
		return SPEC_ERROR(p, start, len, "unknown event '%.*s' — did you mean '%s'?", (int)len, p->spec + start,
		                  s.best);
	return SPEC_ERROR(p, start, len, "unknown event '%.*s' (`tally list` shows the events of this machine)",
	                  (int)len, p->spec + start);
}

/* Raw codes: 'r' and 1 to 16 hex digits. */
static bool parse_raw(const char *s, size_t len, uint64_t *config)
{
	if (len < 2 || len > 17 || s[0] != 'r')
		return false;
	uint64_t v = 0;
	for (size_t i = 1; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*config = v;
	return true;
}

/* One of perf's tool events: the dummy's attr (as perf opens it), PMU "tool", unit ns (perf's evsel->unit
 * for them), counted by tally. Modifiers apply to the attr and name as perf 6.1 applies them, and change
 * nothing of the count (perf's own reading ignores them too). */
static int add_tool(struct parser *p, const struct tly_builtin *b, size_t start, size_t item_len)
{
	struct perf_event_attr attr = { .type = b->type, .config = b->config };
	int ret = add_event(p, &attr, dup_range(p->spec + start, item_len), strdup(b->name), "tool", false,
	                    p->next_origin++, NULL, false);
	if (ret)
		return ret;
	struct tly_event *ev = &p->list->v[p->list->nr - 1];
	ev->tool = b->tool;
	ev->unit = strdup("ns");
	return ev->unit ? 0 : tly_error(-ENOMEM, "out of memory while parsing an event spec");
}

/* A bare name: generic, software, cache, raw, sysfs alias, then libpfm4 as the last resort. */
static int add_named(struct parser *p, size_t start, size_t len, size_t item_len)
{
	const char *name = p->spec + start;
	const struct tly_builtin *b = tly_builtin_find(name, len);
	if (b && b->kind == TALLY_BUILTIN_HARDWARE)
		return add_generic(p, start, len, item_len, b->type, b->config);
	if (b && b->kind == TALLY_BUILTIN_TOOL)
		return add_tool(p, b, start, item_len);
	if (b) {
		struct perf_event_attr attr = { .type = b->type, .config = b->config };
		return add_event(p, &attr, dup_range(name, item_len), strdup(b->name), pmu_name_for(p->pmus, b->type),
		                 false, p->next_origin++, NULL, false);
	}
	struct tly_cache_name cache;
	switch (tly_cache_parse(name, len, &cache)) {
	case TLY_CACHE_OK:
		return add_generic(p, start, len, item_len, PERF_TYPE_HW_CACHE, tly_cache_config(&cache));
	case TLY_CACHE_BAD_OP:
		return SPEC_ERROR(p, start, len,
		                  "'%.*s' is not a cache event the kernel defines: %s has no %s events (it has: %s)",
		                  (int)len, name, tly_cache_type_name(cache.cache), tly_cache_op_name(cache.op),
		                  tly_cache_valid_ops(cache.cache));
	default:
		break;
	}
	uint64_t raw;
	if (parse_raw(name, len, &raw))
		return add_raw(p, start, item_len, raw);
	int ret = add_bare_alias(p, start, len, item_len);
	if (ret)
		return ret < 0 ? ret : 0;
	if (tally_have_libpfm()) {
		ret = add_pfm(p, start, len, true);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return unknown_event(p, start, len);
}

static int unknown_pmu(struct parser *p, size_t start, size_t len)
{
	struct tly_suggest s;
	tly_suggest_init(&s, p->spec + start, len);
	for (size_t i = 0; i < p->pmus->nr; i++)
		tly_suggest_offer(&s, p->pmus->pmus[i].name);
	if (s.best)
		return SPEC_ERROR(p, start, len, "unknown PMU '%.*s' — did you mean '%s'?", (int)len, p->spec + start,
		                  s.best);
	return SPEC_ERROR(p, start, len, "unknown PMU '%.*s' (this machine's PMUs are under %s/bus/event_source/devices)",
	                  (int)len, p->spec + start, p->pmus->sysfs_root ? p->pmus->sysfs_root : "/sys");
}

static bool at_item_end(const struct parser *p)
{
	return p->pos == p->len || p->spec[p->pos] == ',' || p->spec[p->pos] == '}';
}

/* One event (outside or inside braces), with its own modifiers. */
static int parse_event(struct parser *p)
{
	size_t start = p->pos;
	while (p->pos < p->len && is_name_char(p->spec[p->pos]))
		p->pos++;
	size_t name_len = p->pos - start;
	if (name_len == 0) {
		if (at_item_end(p))
			return SPEC_ERROR(p, start, 1, "empty event");
		return SPEC_ERROR(p, start, 1, "expected an event name, found '%c'", p->spec[start]);
	}
	size_t first = p->list->nr;
	struct modifiers mods = { 0 };
	int ret;
	if (p->len - p->pos >= 2 && p->spec[p->pos] == ':' && p->spec[p->pos + 1] == ':') {
		/* libpfm4 names carry their own ':' modifiers: the name runs to the end of the item. */
		while (!at_item_end(p))
			p->pos++;
		ret = add_pfm(p, start, p->pos - start, false);
		return ret < 0 ? ret : 0;
	}
	if (p->pos < p->len && p->spec[p->pos] == '/') {
		size_t open = p->pos, terms_start = open + 1;
		const char *close = memchr(p->spec + terms_start, '/', p->len - terms_start);
		char pmu_name[256];
		if (name_len >= sizeof(pmu_name))
			return unknown_pmu(p, start, name_len);
		memcpy(pmu_name, p->spec + start, name_len);
		pmu_name[name_len] = '\0';
		const struct tally_pmu *pmu = tally_pmus_find(p->pmus, pmu_name);
		if (!pmu)
			return unknown_pmu(p, start, name_len);
		if (!close)
			return SPEC_ERROR(p, open, 1, "the term list of PMU '%s' is not closed with '/'", pmu_name);
		size_t terms_end = (size_t)(close - p->spec);
		p->pos = terms_end + 1;
		ret = event_modifiers(p, true, &mods);
		if (ret)
			return ret;
		ret = add_pmu_event(p, pmu, start, terms_start, terms_end, p->pos);
	} else {
		ret = event_modifiers(p, false, &mods);
		if (ret)
			return ret;
		ret = add_named(p, start, name_len, p->pos - start);
	}
	if (ret)
		return ret;
	return apply_modifiers(p, first, &mods, true);
}

/* Index of a core PMU among the core PMUs, from 1; non-core PMUs go with the first core PMU's group. */
static unsigned group_key(const struct tally_pmus *pmus, const struct tly_event *ev)
{
	unsigned k = 0;
	for (size_t i = 0; i < pmus->nr; i++) {
		if (!tly_pmu_is_core(&pmus->pmus[i]))
			continue;
		k++;
		if (ev->pmu && strcmp(ev->pmu, pmus->pmus[i].name) == 0)
			return k;
	}
	return 1;
}

/* A group may not span PMUs (the kernel refuses), so on a hybrid machine a group whose members expanded
 * over several core PMUs becomes one group per core PMU, members kept in order within each. */
static void split_group(struct parser *p, size_t first)
{
	struct tly_event *v = p->list->v;
	size_t n = p->list->nr;
	for (size_t i = first + 1; i < n; i++) {
		struct tly_event moving = v[i];
		unsigned key = group_key(p->pmus, &moving);
		size_t j = i;
		for (; j > first && group_key(p->pmus, &v[j - 1]) > key; j--)
			v[j] = v[j - 1];
		v[j] = moving;
	}
	int group = p->group;
	for (size_t i = first; i < n; i++) {
		bool leader = i == first || group_key(p->pmus, &v[i]) != group_key(p->pmus, &v[i - 1]);
		if (leader && i != first)
			group = p->nr_groups++;
		v[i].group = group;
		v[i].leader = leader;
	}
}

static int parse_group(struct parser *p)
{
	size_t open = p->pos++;
	size_t first = p->list->nr;
	p->group = p->nr_groups++;
	for (;;) {
		if (p->pos == p->len)
			return SPEC_ERROR(p, open, 1, "unbalanced braces: this '{' is never closed");
		char c = p->spec[p->pos];
		if (c == '{')
			return SPEC_ERROR(p, p->pos, 1, "nested braces: groups cannot contain groups");
		if (c == '}') {
			if (p->list->nr == first)
				return SPEC_ERROR(p, open, p->pos - open + 1, "empty group");
			break;
		}
		int ret = parse_event(p);
		if (ret)
			return ret;
		if (p->pos == p->len)
			return SPEC_ERROR(p, open, 1, "unbalanced braces: this '{' is never closed");
		c = p->spec[p->pos];
		if (c == ',') {
			p->pos++;
			if (p->pos < p->len && p->spec[p->pos] == '}')
				return SPEC_ERROR(p, p->pos - 1, 1, "trailing comma before '}'");
		} else if (c != '}') {
			return SPEC_ERROR(p, p->pos, 1, "unexpected '%c' in a group (expected ',' or '}')", c);
		}
	}
	p->pos++; /* the '}' */
	struct modifiers mods = { 0 };
	if (p->pos < p->len && p->spec[p->pos] == ':') {
		p->pos++;
		int ret = parse_modifiers(p, &mods);
		if (ret)
			return ret;
	}
	int ret = apply_modifiers(p, first, &mods, false);
	if (ret)
		return ret;
	split_group(p, first);
	p->group = -1;
	return 0;
}

int tly_spec_parse(const char *spec, const struct tally_pmus *pmus, struct tally_events *list,
                   size_t *error_offset)
{
	struct parser p = {
		.spec = spec,
		.len = strlen(spec),
		.pmus = pmus,
		.list = list,
		.error_offset = error_offset,
		.group = -1,
	};
	if (p.len == 0)
		return SPEC_ERROR(&p, 0, 1, "empty event specification");
	for (;;) {
		char c = spec[p.pos];
		int ret;
		if (c == ',')
			return SPEC_ERROR(&p, p.pos, 1, "empty event (nothing before this ',')");
		if (c == '}')
			return SPEC_ERROR(&p, p.pos, 1, "unbalanced braces: '}' without a '{'");
		ret = c == '{' ? parse_group(&p) : parse_event(&p);
		if (ret)
			return ret;
		if (p.pos == p.len)
			return 0;
		c = spec[p.pos];
		if (c == '}')
			return SPEC_ERROR(&p, p.pos, 1, "unbalanced braces: '}' without a '{'");
		if (c != ',')
			return SPEC_ERROR(&p, p.pos, 1, "unexpected '%c' after an event (expected ',')", c);
		if (++p.pos == p.len)
			return SPEC_ERROR(&p, p.pos - 1, 1, "trailing comma");
	}
}
