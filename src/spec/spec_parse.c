/* SPDX-License-Identifier: MIT */
#include "spec/spec_parse.h"

#include "core/error.h"
#include "machine/pfm.h"
#include "machine/pmu_family.h"
#include "machine/tracefs.h"
#include "spec/breakpoint.h"
#include "spec/builtin_events.h"
#include "spec/hybrid.h"
#include "spec/spec_error.h"
#include "spec/spec_modifiers.h"
#include "spec/spec_terms.h"
#include "spec/spec_topdown.h"

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

/* perf's lexer drops whitespace between the parts of a spec ("cycles, instructions", "pmu/ a=1 /",
 * "{a , b} :u"); a name never holds any. */
static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static size_t space_end(const struct parser *p, size_t pos)
{
	while (pos < p->len && is_space(p->spec[pos]))
		pos++;
	return pos;
}

static void skip_space(struct parser *p)
{
	p->pos = space_end(p, p->pos);
}

/* The character at pos for a message, whole: "'x'", or "'，' (U+FF0C, a look-alike of ',')". */
static const char *char_at(const struct parser *p, size_t pos, char out[static 64])
{
	tly_spec_char(p->spec + pos, p->len - pos, out, 64);
	return out;
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
	{ 'b', "'b' (count through BPF, perf stat --bpf-counters) is not supported" },
};


/* Reads the letters at p->pos and checks them: known, not repeated (p may repeat up to TLY_MAX_PRECISE). */
static int parse_modifiers(struct parser *p, struct modifiers *mods)
{
	mods->offset = p->pos;
	while (p->pos < p->len && isalpha((unsigned char)p->spec[p->pos]))
		p->pos++;
	mods->len = p->pos - mods->offset;
	char found[64];
	if (mods->len == 0 && p->pos < p->len)
		return SPEC_ERROR(p, mods->offset, 1, "expected modifier letters (u k h G H I D e p W) after ':', found %s",
		                  char_at(p, p->pos, found));
	if (mods->len == 0)
		return SPEC_ERROR(p, mods->offset, 1, "expected modifier letters (u k h G H I D e p W) after ':'");
	unsigned precise = 0;
	for (size_t i = mods->offset; i < p->pos; i++) {
		char c = p->spec[i];
		for (size_t r = 0; r < sizeof(refused_modifiers) / sizeof(refused_modifiers[0]); r++)
			if (c == refused_modifiers[r].letter)
				return SPEC_ERROR(p, i, 1, "modifier %s", refused_modifiers[r].why);
		if (!strchr("ukhGHIDepW", c))
			return SPEC_ERROR(p, i, 1, "unknown modifier '%c' (valid: u k h G H I D e p W)", c);
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
	/* W (perf's weak group) sets no attr bit: a group with it may be split where the kernel cannot
	 * schedule it whole (see tly_plan_init). On an event of its own it changes nothing, as in perf. */
	bool weak = memchr(p->spec + mods->offset, 'W', mods->len) != NULL;
	for (size_t i = first; i < p->list->nr; i++) {
		struct tly_event *ev = &p->list->v[i];
		ev->weak |= weak;
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
	size_t at = space_end(p, p->pos);
	mods->offset = at;
	mods->len = 0;
	if (at < p->len && p->spec[at] == ':') {
		p->pos = space_end(p, at + 1);
		return parse_modifiers(p, mods);
	}
	if (pmu_form && at < p->len && isalpha((unsigned char)p->spec[at])) {
		p->pos = at;
		return parse_modifiers(p, mods);
	}
	return 0;
}

/* ---- adding events -------------------------------------------------------------------------------- */

/* The PMU an attr of the given type belongs to: the one with that type, else the only core PMU for the
 * generic types; NULL when none (a VM without a virtual PMU). */
static const char *pmu_name_for(const struct tally_pmus *pmus, uint32_t type)
{
	/* The kernel registers these types under fixed names (kernel/events/core.c: "software", "tracepoint";
	 * kernel/events/hw_breakpoint.c: "breakpoint"), so no PMU need be listed or read for them. */
	if (type == PERF_TYPE_SOFTWARE)
		return "software";
	if (type == PERF_TYPE_TRACEPOINT)
		return "tracepoint";
	if (type == PERF_TYPE_BREAKPOINT)
		return "breakpoint";
	if (tly_pmus_list(pmus))
		return NULL;
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
	ev.counters = alias ? alias->counters : 0;
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

/* Closes the origin of an item expanded over a hybrid machine's core PMUs: each event counts on its PMU's
 * CPUs, and all of them carry the item's own name (`name`, taken), which none of their displays shows. */
static int close_core_split(struct parser *p, size_t first, char *name)
{
	close_origin(p, first);
	for (size_t i = first; i < p->list->nr; i++) {
		struct tly_event *ev = &p->list->v[i];
		ev->per_core_pmu = true;
		ev->origin_name = name ? strdup(name) : NULL;
		if (!ev->origin_name) {
			free(name);
			return tly_error(-ENOMEM, "out of memory while parsing an event spec");
		}
	}
	free(name);
	return 0;
}

/* The canonical spelling of a generic hardware, software or cache event; NULL for another config. */
static const char *generic_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < tly_builtin_nr(); i++) {
		const struct tly_builtin *b = tly_builtin_get(i);
		if (b->type == type && b->config == config)
			return b->name;
	}
	return NULL;
}

/* ",name=..." of a canonical text (empty without a name= term): unquoted where it reads back whole, else
 * in a quote it does not hold. A name holding ',' and both quotes has no spelling; it is left out, as a
 * name does not change the attr the text must reproduce. */
static void name_term(const struct tly_pmu_event *pe, char *out, size_t n)
{
	out[0] = '\0';
	if (!pe || !pe->name)
		return;
	const char *s = pe->name;
	size_t len = pe->name_len;
	bool single = memchr(s, '\'', len), dbl = memchr(s, '"', len);
	bool plain = !memchr(s, ',', len) && !memchr(s, '/', len) && !is_space(s[0]) && !is_space(s[len - 1]) &&
	             s[0] != '\'' && s[0] != '"';
	const char *quote = plain ? "" : !single ? "'" : !dbl ? "\"" : NULL;
	if (quote)
		snprintf(out, n, ",name=%s%.*s%s", quote, (int)len, s, quote);
}

/* ",config1=...,config2=...,name=..." of a canonical text: the terms beyond config (empty: none). */
static void extra_terms(const struct tly_pmu_event *pe, char *out, size_t n)
{
	char name[TLY_ERROR_MAX / 4];
	name_term(pe, name, sizeof(name));
	if (pe && (pe->attr.config1 || pe->attr.config2))
		snprintf(out, n, ",config1=%#llx,config2=%#llx%s", (unsigned long long)pe->attr.config1,
		         (unsigned long long)pe->attr.config2, name);
	else
		snprintf(out, n, "%s", name);
}

/* Canonical text of an event of no PMU written with a term list lt (NULL: none): "cycles", or
 * "cycles/config1=0x2,name=x/", after which modifiers follow without ':' (*slashed). */
static char *legacy_base(const char *event, const struct tly_pmu_event *lt, bool *slashed)
{
	*slashed = false;
	if (!lt)
		return strdup(event);
	char extra[TLY_ERROR_MAX / 2];
	extra_terms(lt, extra, sizeof(extra));
	*slashed = extra[0] != '\0';
	return *slashed ? format_text("%s/%s/", event, extra + 1) : strdup(event);
}

/* The display name: the name= term's value, else the item as written. */
static char *display_name(const struct parser *p, size_t start, size_t item_len, const struct tly_pmu_event *lt)
{
	return lt && lt->name ? dup_range(lt->name, lt->name_len) : dup_range(p->spec + start, item_len);
}

/* The config an event of no PMU gets: the one of its name, or its config term's. */
static uint64_t config_of(const struct tly_pmu_event *lt, uint64_t config)
{
	return lt && lt->configs_set & 1u << TLY_CONFIG ? lt->attr.config : config;
}

/* One attr of a type that needs no PMU expansion (software, TYPE:CONFIG, and generic ones off hybrid
 * machines), with config1/config2 and name from its term list lt (NULL: none). */
static int add_single(struct parser *p, size_t start, size_t item_len, uint32_t type, uint64_t config,
                      const struct tly_pmu_event *lt)
{
	struct perf_event_attr attr = { .type = type, .config = config };
	if (lt) {
		attr.config1 = lt->attr.config1;
		attr.config2 = lt->attr.config2;
	}
	/* The canonical spelling: the generic name, else TYPE:CONFIG. */
	const char *canonical = generic_name(type, config);
	char numeric[40];
	if (!canonical) {
		snprintf(numeric, sizeof(numeric), "%u:%#llx", type, (unsigned long long)config);
		canonical = numeric;
	}
	bool slashed;
	char *base = legacy_base(canonical, lt, &slashed);
	return add_event(p, &attr, display_name(p, start, item_len, lt), base, pmu_name_for(p->pmus, type), slashed,
	                 p->next_origin++, NULL, false);
}

/* Whether the PMUs could be listed for a generic or raw event: 0, or the listing's failure. Without sysfs
 * (no devices directory) such an event is the kernel's generic encoding, as perf opens it; any other
 * failure (permissions, descriptors, memory) fails the spec. */
static int list_for_generic(const struct parser *p)
{
	int err = tly_pmus_list(p->pmus);
	return err == -ENOENT ? 0 : err;
}

/* A generic hardware or cache event: one attr, or one per core PMU on a hybrid machine. */
static int add_generic(struct parser *p, size_t start, size_t len, size_t item_len, uint32_t type,
                       uint64_t config, const struct tly_pmu_event *lt)
{
	int listed = list_for_generic(p);
	if (listed)
		return listed;
	if (!tly_hybrid(p->pmus))
		return add_single(p, start, item_len, type, config, lt);
	const char *item = p->spec + start;
	const char *canonical = generic_name(type, config);
	/* The expansion's canonical texts are PMU/generic-name/, which holds no configs. */
	if (!canonical || (lt && lt->configs_set))
		return SPEC_ERROR(p, start, item_len,
		                  "'%.*s' sets configs of a generic event, which a hybrid machine opens on every core "
		                  "PMU: name one instead (PMU/config=.../)",
		                  (int)item_len, item);
	char name[TLY_ERROR_MAX / 4];
	name_term(lt, name, sizeof(name));
	unsigned origin = p->next_origin++;
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
		char *shown = lt && lt->name ? format_text("%s/%.*s/", pmu->name, (int)lt->name_len, lt->name)
		                             : format_text("%s/%.*s/", pmu->name, (int)item_len, item);
		int ret = add_event(p, &attr, shown, format_text("%s/%s%s/", pmu->name, canonical, name), pmu->name, true,
		                    origin, NULL, false);
		if (ret)
			return ret;
	}
	return close_core_split(p, first, display_name(p, start, item_len, lt));
}

/* Raw "rNNNN": the core PMU's config, PERF_TYPE_RAW; on a hybrid machine once per core PMU with the
 * PMU's own type, since a raw config fills all 64 bits and leaves no room for an extended type. */
static int add_raw(struct parser *p, size_t start, size_t item_len, uint64_t config, const struct tly_pmu_event *lt)
{
	const char *item = p->spec + start;
	int listed = list_for_generic(p);
	if (listed)
		return listed;
	if (!tly_hybrid(p->pmus)) {
		struct perf_event_attr attr = { .type = PERF_TYPE_RAW, .config = config };
		if (lt) {
			attr.config1 = lt->attr.config1;
			attr.config2 = lt->attr.config2;
		}
		char raw[24];
		snprintf(raw, sizeof(raw), "r%llx", (unsigned long long)config);
		bool slashed;
		char *base = legacy_base(raw, lt, &slashed);
		return add_event(p, &attr, display_name(p, start, item_len, lt), base, pmu_name_for(p->pmus, PERF_TYPE_RAW),
		                 slashed, p->next_origin++, NULL, false);
	}
	char extra[TLY_ERROR_MAX / 2];
	extra_terms(lt, extra, sizeof(extra));
	unsigned origin = p->next_origin++;
	size_t first = p->list->nr;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if (!tly_pmu_is_core(pmu))
			continue;
		int err = tly_pmu_read(pmu, TLY_PMU_TYPE);
		if (err)
			return err;
		struct perf_event_attr attr = { .type = pmu->type, .config = config };
		if (lt) {
			attr.config1 = lt->attr.config1;
			attr.config2 = lt->attr.config2;
		}
		char *shown = lt && lt->name ? format_text("%s/%.*s/", pmu->name, (int)lt->name_len, lt->name)
		                             : format_text("%s/%.*s/", pmu->name, (int)item_len, item);
		int ret = add_event(p, &attr, shown,
		                    format_text("%s/config=%#llx%s/", pmu->name, (unsigned long long)config, extra),
		                    pmu->name, true, origin, NULL, false);
		if (ret)
			return ret;
	}
	return close_core_split(p, first, display_name(p, start, item_len, lt));
}

static int term_error(struct parser *p, size_t base, const struct tly_term_error *err)
{
	return SPEC_ERROR(p, base + err->offset, err->len, "%s", err->message);
}

/* Whether "pmu/word/" reads as a generic event: on a hybrid machine's core PMU a generic name wins over
 * an alias of that name (as in perf 6.1), so such an alias, matched in another case ("cpu-cycLes"),
 * cannot be written back by its name. */
static bool reads_as_generic(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const char *word)
{
	if (!tly_hybrid(pmus) || !pmu->is_core)
		return false;
	struct tly_cache_name cache;
	const struct tly_builtin *b = tly_builtin_find(word, strlen(word));
	return b ? b->kind == TALLY_BUILTIN_HARDWARE : tly_cache_parse(word, strlen(word), &cache) == TLY_CACHE_OK;
}

/* Canonical text of a pmu/terms/ event: the alias or generic name when the list was just that, else the
 * configs that reproduce the attr. */
static char *pmu_event_base(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const struct tly_pmu_event *pe)
{
	char name[TLY_ERROR_MAX / 4];
	name_term(pe, name, sizeof(name));
	if (pe->nr_selectors == 1 && pe->alias && !reads_as_generic(pmus, pmu, pe->alias->name))
		return format_text("%s/%s%s/", pmu->name, pe->alias->name, name);
	if (pe->nr_selectors == 1 && pe->generic)
		return format_text("%s/%.*s%s/", pmu->name, (int)pe->generic_len, pe->generic, name);
	char extra[TLY_ERROR_MAX / 2];
	extra_terms(pe, extra, sizeof(extra));
	return format_text("%s/config=%#llx%s/", pmu->name, (unsigned long long)pe->attr.config, extra);
}

/* "pmu/terms/" on one PMU: terms_start..terms_end is the text between the slashes, item_end where the item
 * ends. Returns 0 when added, 1 when the PMU refuses the terms (*err says why), or a negative code. */
static int pmu_event_on(struct parser *p, const struct tally_pmu *pmu, size_t start, size_t terms_start,
                        size_t terms_end, size_t item_end, unsigned origin, struct tly_term_error *err)
{
	int ret = tly_pmu_details(pmu);
	if (ret)
		return ret;
	struct tly_pmu_event pe;
	memset(&pe, 0, sizeof(pe));
	pe.attr.type = pmu->type;
	if (tly_terms_apply(p->pmus, pmu, p->spec + terms_start, terms_end - terms_start, &pe, err))
		return 1;
	char *name = pe.name ? dup_range(pe.name, pe.name_len) : dup_range(p->spec + start, item_end - start);
	return add_event(p, &pe.attr, name, pmu_event_base(p->pmus, pmu, &pe), pmu->name, true, origin, pe.alias, false);
}

static int add_pmu_event(struct parser *p, const struct tally_pmu *pmu, size_t start, size_t terms_start,
                         size_t terms_end, size_t item_end)
{
	struct tly_term_error err;
	int ret = pmu_event_on(p, pmu, start, terms_start, terms_end, item_end, p->next_origin++, &err);
	return ret == 1 ? term_error(p, terms_start, &err) : ret;
}

/* "prefix/terms/" where no PMU is named prefix: the event on every instance of the family (uncore_imc_0,
 * uncore_imc_1, ... for uncore_imc), each instance's terms and aliases resolved in its own sysfs
 * directory. The instances share an origin and the name as written, so that their counts sum into one,
 * as perf merges them; an instance that lacks the alias is left out (as perf leaves it), and the first
 * instance's refusal is the error when none takes the terms. Returns 1 when added, 0 when no PMU is of
 * the family. */
static int add_pmu_family(struct parser *p, size_t start, size_t name_len, size_t terms_start, size_t terms_end,
                          size_t item_end)
{
	unsigned origin = p->next_origin;
	size_t first = p->list->nr;
	bool member = false;
	struct tly_term_error refused = { 0 }, err;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if (!tly_pmu_family_member(p->spec + start, name_len, pmu->name))
			continue;
		int ret = pmu_event_on(p, pmu, start, terms_start, terms_end, item_end, origin, member ? &err : &refused);
		member = true;
		if (ret < 0)
			return ret;
		if (ret == 0)
			p->list->v[p->list->nr - 1].family = true;
	}
	if (!member)
		return 0;
	if (p->list->nr == first)
		return term_error(p, terms_start, &refused);
	p->next_origin++;
	close_origin(p, first);
	return 1;
}

/* Lists the PMUs and reads every one's details (once per snapshot): for a name that may be any PMU's. */
static int read_every_pmu(const struct parser *p)
{
	int err = tly_pmus_list(p->pmus);
	for (size_t i = 0; !err && i < p->pmus->nr; i++)
		err = tly_pmu_details(&p->pmus->pmus[i]);
	return err;
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
	/* A bare name may be any PMU's event, but the core PMUs' come first: when one of them has it, no
	 * other PMU's files need reading (the uncore PMUs' hundreds: the dearest part of such a spec). */
	int read = tly_pmus_list(p->pmus);
	for (size_t i = 0; !read && i < p->pmus->nr; i++)
		if (tly_pmu_is_core(&p->pmus->pmus[i]) && tly_alias_find(&p->pmus->pmus[i], name))
			nr_core++;
	if (!read && !nr_core)
		read = read_every_pmu(p);
	if (read)
		return read;
	for (size_t i = 0; i < p->pmus->nr; i++)
		nr_all += (nr_core ? p->pmus->pmus[i].is_core : true) && tly_alias_find(&p->pmus->pmus[i], name);
	if (!nr_all)
		return 0;
	size_t nr = nr_core ? nr_core : nr_all;
	/* Instances of one family (uncore_imc_0 ... _5, not cstate_core and cstate_pkg) are one event to
	 * the user: named as written, so that they sum into one, as perf merges them. Others are named after
	 * their PMU (cpu_core/topdown-retiring/, cstate_pkg/c6-residency/). */
	const struct tally_pmu *head = NULL;
	bool one_family = !nr_core && nr > 1;
	for (size_t i = 0; one_family && i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if (!tly_alias_find(pmu, name))
			continue;
		size_t base = tly_pmu_family_len(pmu->name);
		head = head ? head : pmu;
		one_family = base < strlen(pmu->name) && base == tly_pmu_family_len(head->name) &&
		             strncmp(pmu->name, head->name, base) == 0;
	}
	unsigned origin = p->next_origin++;
	size_t first = p->list->nr;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tally_pmu *pmu = &p->pmus->pmus[i];
		if ((nr_core && !pmu->is_core) || !tly_alias_find(pmu, name))
			continue;
		struct tly_pmu_event pe;
		memset(&pe, 0, sizeof(pe));
		pe.attr.type = pmu->type;
		struct tly_term_error err;
		if (tly_terms_apply(p->pmus, pmu, name, len, &pe, &err))
			return term_error(p, start, &err);
		char *display = nr > 1 && !one_family ? format_text("%s/%.*s/", pmu->name, (int)item_len, p->spec + start)
		                                      : dup_range(p->spec + start, item_len);
		int ret = add_event(p, &pe.attr, display, pmu_event_base(p->pmus, pmu, &pe), pmu->name, true, origin,
		                    pe.alias, false);
		if (ret)
			return ret;
		p->list->v[p->list->nr - 1].family = one_family;
	}
	if (nr_core > 1) {
		int err = close_core_split(p, first, dup_range(p->spec + start, item_len));
		return err ? err : 1;
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

/* The table PMU i takes (chosen now if not yet), or NULL. */
static const struct tly_pmu_events *table_of(const struct parser *p, size_t i)
{
	const struct tly_pmu_events *table;
	const char *why;
	return tly_pmu_table(&p->pmus->pmus[i], &table, &why) ? NULL : table;
}

/* Whether one of the PMUs takers[0 .. nr) takes rec. */
static bool some_pmu_takes(const struct parser *p, const size_t *takers, size_t nr, const struct tly_pmu_events *table,
                           const struct tly_pmu_events_rec *rec)
{
	for (size_t k = 0; k < nr; k++)
		if (tly_pmu_table_takes(&p->pmus->pmus[takers[k]], table, rec->pmu))
			return true;
	return false;
}

/* Offers to s the names of PMU i's vendor table that a PMU of the snapshot takes (core, uncore and
 * system PMUs alike), each table once however many PMUs share it; keep holds the best, if one is. */
static void offer_table_names(struct tly_suggest *s, const struct parser *p, size_t i, char keep[static 256])
{
	const struct tly_pmu_events *table = table_of(p, i);
	if (!table)
		return;
	for (size_t j = 0; j < i; j++)
		if (table_of(p, j) == table)
			return;
	size_t *takers = malloc(p->pmus->nr * sizeof(*takers)), nr = 0;
	if (!takers)
		return;  /* no suggestion: the error is said all the same */
	for (size_t j = i; j < p->pmus->nr; j++)
		if (table_of(p, j) == table)
			takers[nr++] = j;
	struct tly_pmu_events_rec rec;
	char name[256];
	for (size_t pos = 0; tly_pmu_events_next(table, &pos, &rec) == 1;) {
		if (rec.deprecated || rec.name.len >= sizeof(name) || !some_pmu_takes(p, takers, nr, table, &rec))
			continue;
		memcpy(name, rec.name.s, rec.name.len);
		name[rec.name.len] = '\0';
		tly_suggest_offer(s, name);
		if (s->best == name) {
			memcpy(keep, name, rec.name.len + 1);
			s->best = keep;
		}
	}
	free(takers);
}

/* Why the core PMUs have no vendor table (the first one's reason), or NULL when they have one. */
static const char *no_table_reason(const struct parser *p)
{
	for (size_t i = 0; i < p->pmus->nr; i++) {
		const struct tly_pmu_events *table;
		const char *why;
		if (p->pmus->pmus[i].is_core && tly_pmu_table(&p->pmus->pmus[i], &table, &why) && why)
			return why;
	}
	return NULL;
}

static int unknown_event(struct parser *p, size_t start, size_t len)
{
	struct tly_suggest s;
	char table_best[256];
	tly_suggest_init(&s, p->spec + start, len);
	for (size_t i = 0; i < tly_builtin_nr(); i++) {
		tly_suggest_offer(&s, tly_builtin_get(i)->name);
		if (tly_builtin_get(i)->alias)
			tly_suggest_offer(&s, tly_builtin_get(i)->alias);
	}
	int err = read_every_pmu(p);
	if (err)
		return err;
	for (size_t i = 0; i < p->pmus->nr; i++) {
		for (size_t j = 0; j < p->pmus->pmus[i].nr_aliases; j++)
			tly_suggest_offer(&s, p->pmus->pmus[i].aliases[j].name);
		offer_table_names(&s, p, i, table_best);
	}
	const char *why = no_table_reason(p);
	if (why)
		return SPEC_ERROR(p, start, len, "unknown event '%.*s'%s%s%s (no vendor event names: %s%s)", (int)len,
		                  p->spec + start, s.best ? " — did you mean '" : "", s.best ? s.best : "",
		                  s.best ? "'?" : "", why,
		                  tally_have_libpfm() && tly_pmu_events_chosen()
		                          ? "; libpfm4 takes no bare name while TALLY_PMU_EVENTS is set: unset it, or "
		                            "write libpfm4's PMU::EVENT"
		                          : "");
	if (s.best)
		return SPEC_ERROR(p, start, len, "unknown event '%.*s' — did you mean '%s'?", (int)len, p->spec + start,
		                  s.best);
	return SPEC_ERROR(p, start, len, "unknown event '%.*s' (`tally list` shows the events of this machine)",
	                  (int)len, p->spec + start);
}

static int unknown_pmu(struct parser *p, size_t start, size_t len)
{
	struct tly_suggest s;
	tly_suggest_init(&s, p->spec + start, len);
	int listed = tly_pmus_list(p->pmus);
	if (listed)
		return listed;
	for (size_t i = 0; i < p->pmus->nr; i++)
		tly_suggest_offer(&s, p->pmus->pmus[i].name);
	if (s.best)
		return SPEC_ERROR(p, start, len, "unknown PMU '%.*s' — did you mean '%s'?", (int)len, p->spec + start,
		                  s.best);
	return SPEC_ERROR(p, start, len, "unknown PMU '%.*s' (this machine's PMUs are under %s/bus/event_source/devices)",
	                  (int)len, p->spec + start, p->pmus->sysfs_root ? p->pmus->sysfs_root : "/sys");
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

/* A bare name: generic, software, cache, raw, sysfs alias, then libpfm4 as the last resort; with a term
 * list lt (not NULL) only the first four, the names perf takes "NAME/terms/" after. */
static int add_named(struct parser *p, size_t start, size_t len, size_t item_len, const struct tly_pmu_event *lt)
{
	const char *name = p->spec + start;
	const struct tly_builtin *b = tly_builtin_find(name, len);
	if (b && b->kind == TALLY_BUILTIN_HARDWARE)
		return add_generic(p, start, len, item_len, b->type, config_of(lt, b->config), lt);
	if (b && b->kind == TALLY_BUILTIN_TOOL)
		return add_tool(p, b, start, item_len);
	if (b)
		return add_single(p, start, item_len, b->type, config_of(lt, b->config), lt);
	struct tly_cache_name cache;
	switch (tly_cache_parse(name, len, &cache)) {
	case TLY_CACHE_OK:
		return add_generic(p, start, len, item_len, PERF_TYPE_HW_CACHE, config_of(lt, tly_cache_config(&cache)),
		                   lt);
	case TLY_CACHE_BAD_OP:
		return SPEC_ERROR(p, start, len,
		                  "'%.*s' is not a cache event the kernel defines: %s has no %s events (it has: %s)",
		                  (int)len, name, tly_cache_type_name(cache.cache), tly_cache_op_name(cache.op),
		                  tly_cache_valid_ops(cache.cache));
	default:
		break;
	}
	uint64_t raw;
	if (tly_raw_parse(name, len, false, &raw))
		return add_raw(p, start, item_len, config_of(lt, raw), lt);
	if (lt)
		return unknown_pmu(p, start, len);
	int ret = add_bare_alias(p, start, len, item_len);
	if (ret)
		return ret < 0 ? ret : 0;
	/* Tables the caller chose (TALLY_PMU_EVENTS) that give this CPU none are a mistake to report, not a
	 * gap for libpfm4 to fill with its own encoding: perf, which has no such fallback, refuses the name. */
	if (tally_have_libpfm() && !(tly_pmu_events_chosen() && no_table_reason(p))) {
		ret = add_pfm(p, start, len, true);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return unknown_event(p, start, len);
}

/* Whether spec[start, +len) is an event name that needs no PMU prefix (generic, software, cache, raw or a
 * sysfs event of some PMU): for the messages on a ':' or '{' that cannot follow one. */
static bool names_event(const struct parser *p, size_t start, size_t len)
{
	const char *s = p->spec + start;
	struct tly_cache_name cache;
	uint64_t raw;
	if (tly_builtin_find(s, len) || tly_cache_parse(s, len, &cache) != TLY_CACHE_NOT_CACHE ||
	    tly_raw_parse(s, len, false, &raw))
		return true;
	char name[256];
	if (len >= sizeof(name))
		return false;
	memcpy(name, s, len);
	name[len] = '\0';
	for (size_t i = 0; i < p->pmus->nr; i++)
		if (tly_alias_find(&p->pmus->pmus[i], name))
			return true;
	return false;
}

/* A number as perf's lexer reads one: decimal, or hex after 0x. 0, -EINVAL when s is not a number,
 * -ERANGE when it is one past 64 bits (an error of its own, not another form). */
static int parse_number(const char *s, size_t len, uint64_t *value)
{
	struct tly_term number = { .value = s, .value_len = len };
	return len ? tly_term_number(&number, value) : -EINVAL;
}

static bool at_item_end(const struct parser *p)
{
	return p->pos == p->len || p->spec[p->pos] == ',' || p->spec[p->pos] == '}';
}

/* "TYPE:CONFIG" after the TYPE at start..start+len (p->pos at its end): perf's numeric form, the attr's
 * type and config written out. */
static int numeric_form(struct parser *p, size_t start, size_t len, uint64_t type, uint64_t *config)
{
	size_t colon = space_end(p, p->pos);
	if (colon < p->len && p->spec[colon] == '/')
		return SPEC_ERROR(p, start, len,
		                  "a PMU is named, not numbered (perf refuses '%.*s/.../' too): write its name "
		                  "(PMU/terms/) or the numeric form TYPE:CONFIG",
		                  (int)len, p->spec + start);
	if (colon == p->len || p->spec[colon] != ':')
		return SPEC_ERROR(p, start, len, "a number starts the numeric form TYPE:CONFIG (as in 1:0x1)");
	if (type > UINT32_MAX)
		return SPEC_ERROR(p, start, len, "type %.*s does not fit the attr's 32 bits", (int)len, p->spec + start);
	size_t at = space_end(p, colon + 1), end = at;
	while (end < p->len && is_name_char(p->spec[end]))
		end++;
	int ret = parse_number(p->spec + at, end - at, config);
	if (ret == -ERANGE)
		return SPEC_ERROR(p, at, end - at, "config %.*s does not fit 64 bits", (int)(end - at), p->spec + at);
	if (ret)
		return SPEC_ERROR(p, at, end - at, "expected the config (a number) after '%.*s:' (TYPE:CONFIG)", (int)len,
		                  p->spec + start);
	p->pos = end;
	return 0;
}

/* A term list "/.../" at p->pos, if one is there: *terms_start..*terms_end (between the slashes), p->pos
 * past it. Returns 1 when there is one. */
static int term_list(struct parser *p, size_t name_start, size_t name_len, size_t *terms_start, size_t *terms_end)
{
	size_t open = space_end(p, p->pos);
	if (open == p->len || p->spec[open] != '/')
		return 0;
	/* A quoted value (a quote right after '=') may hold '/' (name='a/b'); a quote left open is the term
	 * parser's to report, and a quote inside an unquoted value (name=it's) is the value's. */
	const char *close = NULL;
	bool after_equals = false;
	for (size_t i = open + 1; i < p->len && !close; i++) {
		char c = p->spec[i];
		const char *quote_end = after_equals && (c == '\'' || c == '"') ?
		                        memchr(p->spec + i + 1, c, p->len - i - 1) : NULL;
		if (quote_end)
			i = (size_t)(quote_end - p->spec);
		else if (c == '/')
			close = p->spec + i;
		after_equals = c == '=' || (after_equals && is_space(c));
	}
	if (!close)
		return SPEC_ERROR(p, open, 1, "the term list of '%.*s' is not closed with '/'", (int)name_len,
		                  p->spec + name_start);
	*terms_start = open + 1;
	*terms_end = (size_t)(close - p->spec);
	p->pos = *terms_end + 1;
	return 1;
}

/* ---- tracepoints and breakpoints ------------------------------------------------------------------ */

/* A word of a tracepoint name: perf's name characters and its glob characters (parse-events.l). */
static size_t tracepoint_word(const struct parser *p, size_t pos)
{
	size_t start = pos;
	while (pos < p->len && (is_name_char(p->spec[pos]) || strchr("*?[]!", p->spec[pos])))
		pos++;
	return pos - start;
}

static bool has_glob(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

/* Whether the item at p->pos is "system:event": perf's lexer takes a second word made only of modifier
 * letters as modifiers (cycles:u, sched:u), anything else as a tracepoint; tally also keeps a known
 * event's modifiers as such, so that cycles:x is an unknown modifier, not an unknown tracepoint. */
static bool is_tracepoint(const struct parser *p, size_t *sys_len, size_t *event_off, size_t *event_len)
{
	/* Spaces may stand around the ':' ("sched : sched_switch"), as perf's lexer drops them. */
	size_t start = p->pos, a = tracepoint_word(p, start), colon = space_end(p, start + a);
	if (!a || colon + 1 >= p->len || p->spec[colon] != ':')
		return false;
	size_t event_at = space_end(p, colon + 1), b = tracepoint_word(p, event_at);
	if (!b)
		return false;
	*sys_len = a;
	*event_off = event_at - start;
	*event_len = b;
	const char *sys = p->spec + start, *event = p->spec + event_at;
	/* Bounded scans: strcspn would run to the end of the spec, a pass over it per item (15,000 "1:2"
	 * took 0.12 s, 20 times 1,500 of them). */
	bool glob = has_glob(sys, a) || has_glob(event, b);
	if (glob)
		return true;
	if (strspn(event, "ukhpPGHSDIWeb") >= b)
		return false;
	struct tly_cache_name cache;
	uint64_t raw;
	return !tly_builtin_find(sys, a) && tly_cache_parse(sys, a, &cache) != TLY_CACHE_OK && !tly_raw_parse(sys, a, false, &raw) &&
	       parse_number(sys, a, &raw) == -EINVAL;
}

struct tracepoint_add {
	struct parser *p;
	const struct tly_tracefs *tfs;
	size_t start, item_len, pattern_len;
	bool glob;
};

/* Adds system:event; each expansion of a glob is its own origin, as perf counts each apart. */
static int add_tracepoint(const char *system, const char *event, void *arg)
{
	struct tracepoint_add *t = arg;
	struct parser *p = t->p;
	uint64_t id;
	int err = tly_tracefs_id(t->tfs, system, event, &id);
	if (err)
		return err;
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .config = id };
	const char *suffix = p->spec + t->start + t->pattern_len;
	char *name = t->glob ? format_text("%s:%s%.*s", system, event, (int)(t->item_len - t->pattern_len), suffix)
	                     : dup_range(p->spec + t->start, t->item_len);
	return add_event(p, &attr, name, format_text("%s:%s", system, event), pmu_name_for(p->pmus, PERF_TYPE_TRACEPOINT),
	                 false, p->next_origin++, NULL, false);
}

static int ignore_name(const char *system, const char *event, void *arg)
{
	(void)system, (void)event, (void)arg;
	return 0;
}

/* A suggestion among tracefs names: they live in readdir's buffer, so the best one is copied. */
struct tracefs_suggest {
	struct tly_suggest s;
	char best[256];
};

static int offer_name(const char *system, const char *event, void *arg)
{
	struct tracefs_suggest *t = arg;
	const char *name = event ? event : system;
	tly_suggest_offer(&t->s, name);
	if (t->s.best == name) {
		snprintf(t->best, sizeof(t->best), "%s", name);
		t->s.best = t->best;
	}
	return 0;
}

/* "unknown tracepoint", with the closest event of the system or, when the system is unknown, the
 * closest system. */
static int unknown_tracepoint(struct parser *p, const struct tly_tracefs *tfs, const char *system,
                              const char *event, size_t start, size_t sys_len, size_t event_at, size_t event_len)
{
	struct tracefs_suggest t;
	tly_suggest_init(&t.s, event, event_len);
	size_t found = 0;
	tly_tracefs_walk(tfs, system, NULL, ignore_name, NULL, &found);
	if (found) {
		tly_tracefs_walk(tfs, system, "*", offer_name, &t, NULL);
		if (t.s.best)
			return SPEC_ERROR(p, event_at, event_len,
			                  "unknown tracepoint '%s:%s' — did you mean '%s:%s'?", system, event, system, t.s.best);
		return SPEC_ERROR(p, event_at, event_len,
		                  "unknown tracepoint '%s:%s': system '%s' has no such event (`tally list %s:*` shows "
		                  "its events)", system, event, system, system);
	}
	tly_suggest_init(&t.s, system, sys_len);
	tly_tracefs_walk(tfs, "*", NULL, offer_name, &t, NULL);
	if (t.s.best)
		return SPEC_ERROR(p, start, sys_len, "unknown tracepoint '%s:%s': no system '%s' — did you mean '%s'?",
		                  system, event, system, t.s.best);
	return SPEC_ERROR(p, start, sys_len, "unknown tracepoint '%s:%s': tracefs (%s) has no system '%s'", system,
	                  event, tfs->events, system);
}

/* "system:event[//][:mods]", either name a glob: every match, in tracefs order. */
static int parse_tracepoint(struct parser *p, size_t sys_len, size_t event_off, size_t event_len,
                            struct modifiers *mods)
{
	size_t start = p->pos, pattern_len = event_off + event_len;
	p->pos += pattern_len;
	/* A byte no name holds is named before the name's first half is looked up ("sch" of "schéd"). */
	char found[64];
	if (p->pos < p->len && tly_spec_foreign(p->spec[p->pos]))
		return SPEC_ERROR(p, p->pos, 1, "unexpected %s in a tracepoint name: names are ASCII",
		                  char_at(p, p->pos, found));
	/* perf takes terms on tracepoints for sampling alone (call-graph, stack-size); an empty list is
	 * harmless. */
	if (p->pos < p->len && p->spec[p->pos] == '/') {
		if (p->pos + 1 < p->len && p->spec[p->pos + 1] == '/')
			p->pos += 2;
		else
			return SPEC_ERROR(p, p->pos, 1, "tracepoints take no terms (perf's call-graph and stack-size "
			                  "are for sampling; tally counts)");
	}
	int ret = event_modifiers(p, true, mods);
	if (ret)
		return ret;
	char *system = dup_range(p->spec + start, sys_len), *event = dup_range(p->spec + start + event_off, event_len);
	struct tly_tracefs tfs;
	struct tracepoint_add t = { .p = p, .tfs = &tfs, .start = start, .item_len = p->pos - start,
	                            .pattern_len = pattern_len,
	                            .glob = system && event && (tly_tracefs_is_glob(system) || tly_tracefs_is_glob(event)) };
	if (!system || !event)
		ret = tly_error(-ENOMEM, "out of memory while parsing an event spec");
	else if ((ret = tly_tracefs_find(p->pmus->sysfs_root, &tfs)) == 0 && t.glob) {
		size_t matched;
		ret = tly_tracefs_walk(&tfs, system, event, add_tracepoint, &t, &matched);
		if (ret == 0 && !matched)
			ret = SPEC_ERROR(p, start, pattern_len, "no tracepoint matches '%s:%s' (`tally list` shows them)",
			                 system, event);
	} else if (ret == 0) {
		ret = add_tracepoint(system, event, &t);
		if (ret == -ENOENT)
			ret = unknown_tracepoint(p, &tfs, system, event, start, sys_len, start + event_off, event_len);
	}
	/* tracefs's own failures (not mounted, not readable, a bad id file) keep their explanation and get
	 * the caret under the tracepoint they stopped. */
	if (ret < 0 && ret != -TALLY_ESPEC && ret != -ENOMEM) {
		char why[TLY_ERROR_MAX / 2];
		snprintf(why, sizeof(why), "%s", tally_last_error());
		ret = tly_spec_error(ret, p->spec, start, pattern_len, p->error_offset, "%s", why);
	}
	free(system);
	free(event);
	return ret;
}

static int parse_breakpoint(struct parser *p, struct modifiers *mods)
{
	size_t start = p->pos, used;
	struct perf_event_attr attr;
	struct tly_term_error err;
	if (tly_breakpoint_parse(p->spec + start, p->len - start, &attr, &used, &err))
		return term_error(p, start, &err);
	p->pos += used;
	int ret = event_modifiers(p, true, mods);
	if (ret)
		return ret;
	return add_event(p, &attr, dup_range(p->spec + start, p->pos - start), tly_breakpoint_text(&attr),
	                 pmu_name_for(p->pmus, PERF_TYPE_BREAKPOINT), false, p->next_origin++, NULL, false);
}

/* Breakpoints and tracepoints, which perf tells apart before any other form: 1 when the item was one
 * (added, or an error returned), 0 when it is another form. */
static int parse_tracepoint_or_breakpoint(struct parser *p, struct modifiers *mods, int *ret)
{
	size_t sys_len, event_off, event_len;
	if (tly_breakpoint_is(p->spec + p->pos, p->len - p->pos))
		*ret = parse_breakpoint(p, mods);
	else if (is_tracepoint(p, &sys_len, &event_off, &event_len))
		*ret = parse_tracepoint(p, sys_len, event_off, event_len, mods);
	else
		return 0;
	return 1;
}

/* One event (outside or inside braces), with its own modifiers. */
static int parse_event(struct parser *p)
{
	size_t first = p->list->nr;
	struct modifiers mods = { 0 };
	int ret;
	if (parse_tracepoint_or_breakpoint(p, &mods, &ret))
		return ret ? ret : apply_modifiers(p, first, &mods, true);
	size_t start = p->pos;
	while (p->pos < p->len && is_name_char(p->spec[p->pos]))
		p->pos++;
	size_t name_len = p->pos - start;
	char found[64];
	if (name_len == 0) {
		if (at_item_end(p))
			return SPEC_ERROR(p, start, 1, "empty event");
		return SPEC_ERROR(p, start, 1, "expected an event name, found %s", char_at(p, start, found));
	}
	/* A name stops at the first byte no name holds: one no part of a spec holds is named here, before the
	 * name's first half is looked up ("cycl" of "cyclés"). */
	if (p->pos < p->len && tly_spec_foreign(p->spec[p->pos]))
		return SPEC_ERROR(p, p->pos, 1, "unexpected %s in an event name: names are ASCII",
		                  char_at(p, p->pos, found));
	const char *name = p->spec + start;
	size_t next = space_end(p, p->pos);
	if (next < p->len && p->spec[next] == '{')
		return SPEC_ERROR(p, start, name_len,
		                  "'%.*s' cannot name a group (a group name is a letter or '_', then letters, digits, '_' "
		                  "and '.'), and an event needs a ',' before the '{'",
		                  (int)name_len, name);
	uint64_t type, config = 0;
	int number = parse_number(name, name_len, &type);
	if (number == -ERANGE)
		return SPEC_ERROR(p, start, name_len, "type %.*s does not fit the attr's 32 bits", (int)name_len, name);
	bool numeric = number == 0;
	if (p->len - p->pos >= 2 && p->spec[p->pos] == ':' && p->spec[p->pos + 1] == ':') {
		/* "cycles::u" is a typo of "cycles:u", not a libpfm4 PMU named cycles. */
		if (numeric || names_event(p, start, name_len))
			return SPEC_ERROR(p, p->pos, 2,
			                  "'::' follows a libpfm4 PMU (PMU::EVENT), and '%.*s' is an event: its modifiers "
			                  "follow one ':'",
			                  (int)name_len, name);
		/* libpfm4 names carry their own ':' modifiers: the name runs to the end of the item. */
		while (!at_item_end(p))
			p->pos++;
		ret = add_pfm(p, start, p->pos - start, false);
		return ret < 0 ? ret : 0;
	}
	ret = numeric ? numeric_form(p, start, name_len, type, &config) : 0;
	if (ret)
		return ret;
	size_t terms_start = 0, terms_end = 0;
	int has_terms = term_list(p, start, name_len, &terms_start, &terms_end);
	if (has_terms < 0)
		return has_terms;
	const struct tally_pmu *pmu = NULL;
	if (has_terms && !numeric) {
		char pmu_name[256];
		if (name_len < sizeof(pmu_name)) {
			memcpy(pmu_name, name, name_len);
			pmu_name[name_len] = '\0';
			pmu = tally_pmus_find(p->pmus, pmu_name);
		}
	}
	/* A term list after a name that is neither a PMU nor an event of no PMU: a PMU family's prefix
	 * (uncore_imc/.../), else an unknown PMU. */
	bool family = has_terms && !pmu && !numeric && !names_event(p, start, name_len);
	struct tly_pmu_event lt;
	memset(&lt, 0, sizeof(lt));
	struct tly_term_error err;
	if (has_terms && !pmu && !family &&
	    tly_terms_apply_legacy(p->spec + terms_start, terms_end - terms_start, &lt, &err))
		return term_error(p, terms_start, &err);
	ret = event_modifiers(p, has_terms, &mods);
	if (ret)
		return ret;
	const struct tly_pmu_event *terms = has_terms ? &lt : NULL;
	if (pmu) {
		ret = add_pmu_event(p, pmu, start, terms_start, terms_end, p->pos);
	} else if (family) {
		ret = add_pmu_family(p, start, name_len, terms_start, terms_end, p->pos);
		if (ret == 0)
			return unknown_pmu(p, start, name_len);
		ret = ret < 0 ? ret : 0;
	} else if (numeric && (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE)) {
		ret = add_generic(p, start, name_len, p->pos - start, (uint32_t)type, config_of(terms, config), terms);
	} else if (numeric) {
		ret = add_single(p, start, p->pos - start, (uint32_t)type, config_of(terms, config), terms);
	} else {
		ret = add_named(p, start, name_len, p->pos - start, terms);
	}
	if (ret)
		return ret;
	return apply_modifiers(p, first, &mods, true);
}

/* The group an event goes to when a brace group is split: its PMU's place in the list (from 1) for a core
 * PMU or a family instance; other PMUs' events go with the first core PMU's group. (Such events are in the
 * list only after the PMUs were listed; unlisted, every key is the same.) */
static size_t group_key(const struct tally_pmus *pmus, const struct tly_event *ev)
{
	size_t first_core = 0;
	for (size_t i = 0; i < pmus->nr; i++) {
		bool core = tly_pmu_is_core(&pmus->pmus[i]);
		if (core && !first_core)
			first_core = i + 1;
		if ((core || ev->family) && ev->pmu && strcmp(ev->pmu, pmus->pmus[i].name) == 0)
			return i + 1;
	}
	return first_core;
}

/* A group may not span PMUs (the kernel refuses), so a group whose members expanded over several core
 * PMUs (hybrid) or family instances becomes one group per core PMU or instance, members kept in order
 * within each: {uncore_imc/cas_count_read/,uncore_imc/cas_count_write/} is one group per uncore_imc_<n>,
 * as perf 6.1 regroups uncore aliases. */
static void split_group(struct parser *p, size_t first)
{
	struct tly_event *v = p->list->v;
	size_t n = p->list->nr;
	for (size_t i = first + 1; i < n; i++) {
		struct tly_event moving = v[i];
		size_t key = group_key(p->pmus, &moving);
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

/* The length of a group name at p->pos that a '{' follows ("group1{...}"; perf's name token: a letter
 * or '_', then letters, digits, '_' and '.'), 0 when no named group starts there. */
static size_t group_name_len(const struct parser *p)
{
	size_t i = p->pos;
	if (i == p->len || !(isalpha((unsigned char)p->spec[i]) || p->spec[i] == '_'))
		return 0;
	while (i < p->len && (isalnum((unsigned char)p->spec[i]) || p->spec[i] == '_' || p->spec[i] == '.'))
		i++;
	size_t len = i - p->pos;
	i = space_end(p, i);
	return i < p->len && p->spec[i] == '{' ? len : 0;
}

/* A group, "{...}" or "name{...}", with its modifiers. perf keeps a group's name for `perf report
 * --group`; `perf stat` shows it nowhere (not in its table, -x or -j output), and neither does tally. */
static int parse_group(struct parser *p)
{
	size_t name_len = group_name_len(p);
	if (name_len && names_event(p, p->pos, name_len))
		return SPEC_ERROR(p, p->pos, name_len,
		                  "'%.*s' is an event, not a group name: put a ',' between it and the '{'",
		                  (int)name_len, p->spec + p->pos);
	p->pos = space_end(p, p->pos + name_len);
	size_t open = p->pos++;
	size_t first = p->list->nr;
	p->group = p->nr_groups++;
	for (;;) {
		skip_space(p);
		if (p->pos == p->len)
			return SPEC_ERROR(p, open, 1, "unbalanced braces: this '{' is never closed");
		char c = p->spec[p->pos];
		if (c == '{' || group_name_len(p))
			return SPEC_ERROR(p, p->pos, 1, "nested braces: groups cannot contain groups");
		if (c == '}') {
			if (p->list->nr == first)
				return SPEC_ERROR(p, open, p->pos - open + 1, "empty group");
			break;
		}
		int ret = parse_event(p);
		if (ret)
			return ret;
		skip_space(p);
		if (p->pos == p->len)
			return SPEC_ERROR(p, open, 1, "unbalanced braces: this '{' is never closed");
		c = p->spec[p->pos];
		if (c == ',') {
			size_t comma = p->pos++;
			skip_space(p);
			if (p->pos < p->len && p->spec[p->pos] == '}')
				return SPEC_ERROR(p, comma, 1, "trailing comma before '}'");
		} else if (c != '}') {
			return SPEC_ERROR(p, p->pos, 1, "unexpected %s in a group (expected ',' or '}')",
			                  char_at(p, p->pos, (char[64]){ 0 }));
		}
	}
	p->pos++; /* the '}' */
	struct modifiers mods = { 0 };
	size_t colon = space_end(p, p->pos);
	if (colon < p->len && p->spec[colon] == ':') {
		p->pos = space_end(p, colon + 1);
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
	skip_space(&p);
	if (p.pos == p.len)
		return SPEC_ERROR(&p, 0, 1, "empty event specification");
	for (;;) {
		char c = spec[p.pos];
		int ret;
		if (c == ',')
			return SPEC_ERROR(&p, p.pos, 1, "empty event (nothing before this ',')");
		if (c == '}')
			return SPEC_ERROR(&p, p.pos, 1, "unbalanced braces: '}' without a '{'");
		ret = c == '{' || group_name_len(&p) ? parse_group(&p) : parse_event(&p);
		if (ret)
			return ret;
		skip_space(&p);
		if (p.pos == p.len)
			return tly_spec_topdown(list, pmus, &p.next_origin);
		c = spec[p.pos];
		if (c == '}')
			return SPEC_ERROR(&p, p.pos, 1, "unbalanced braces: '}' without a '{'");
		if (c != ',')
			return SPEC_ERROR(&p, p.pos, 1, "unexpected %s after an event (expected ',')",
			                  char_at(&p, p.pos, (char[64]){ 0 }));
		size_t comma = p.pos++;
		skip_space(&p);
		if (p.pos == p.len)
			return SPEC_ERROR(&p, comma, 1, "trailing comma");
	}
}
