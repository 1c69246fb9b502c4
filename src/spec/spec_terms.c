/* SPDX-License-Identifier: MIT */
#include "spec/spec_terms.h"

#include "spec/builtin_events.h"
#include "spec/hybrid.h"
#include "spec/spec_error.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool is_term_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static size_t skip_space(const char *text, size_t len, size_t p)
{
	while (p < len && is_space(text[p]))
		p++;
	return p;
}

/* The value after '=' at text[p]: quoted (to the closing quote) or a run up to ',', whitespace or a byte
 * no spec holds. A name is free text: unquoted it runs to ',' (its own spaces and bytes kept, the trailing
 * whitespace not), so that output of any name can be tested. */
static const char *read_value(const char *text, size_t len, size_t *pos, struct tly_term *term)
{
	bool free_text = term->name_len == 4 && memcmp(term->name, "name", 4) == 0;
	size_t p = *pos;
	char quote = p < len && (text[p] == '\'' || text[p] == '"') ? text[p] : 0;
	if (quote) {
		const char *close = memchr(text + p + 1, quote, len - p - 1);
		if (!close)
			return "this quote is never closed";
		term->quoted = true;
		term->value = text + p + 1;
		term->value_offset = p + 1;
		term->value_len = (size_t)(close - term->value);
		*pos = (size_t)(close - text) + 1;
		return term->value_len ? NULL : "expected a value between the quotes";
	}
	term->value = text + p;
	term->value_offset = p;
	while (p < len && text[p] != ',' && (free_text || (!is_space(text[p]) && !tly_spec_foreign(text[p]))))
		p++;
	*pos = p;
	while (p > term->value_offset && is_space(text[p - 1]))
		p--;
	term->value_len = p - term->value_offset;
	return term->value_len ? NULL : "expected a value after '='";
}

int tly_terms_next(const char *text, size_t len, size_t *pos, struct tly_term *term, const char **why)
{
	size_t p = skip_space(text, len, *pos);
	/* A comma asks for one more term: "pmu/ /" is an empty list, "pmu/a, /" is not. */
	bool after_comma = *pos > 0 && text[*pos - 1] == ',';
	if (p >= len && !after_comma)
		return 0;
	if (p >= len) {
		*pos -= 1;
		*why = "term list ends with ','";
		return -1;
	}
	memset(term, 0, sizeof(*term));
	term->name = text + p;
	term->offset = p;
	while (p < len && is_term_char(text[p]))
		p++;
	term->name_len = p - term->offset;
	p = skip_space(text, len, p);
	*why = NULL;
	if (term->name_len == 0)
		*why = text[p] == ',' ? "empty term" : "expected a term (name or name=value) here";
	else if (p < len && text[p] == '=') {
		p = skip_space(text, len, p + 1);
		*why = read_value(text, len, &p, term);
		if (!*why)
			p = skip_space(text, len, p);
	}
	if (!*why && p < len && text[p] != ',')
		*why = term->value ? "expected ',' after the value" : "expected ',' or '=' after the term name";
	if (*why) {
		*pos = p;
		return -1;
	}
	*pos = p < len ? p + 1 : p; /* past the comma */
	return 1;
}

bool tly_raw_parse(const char *s, size_t len, bool hex_prefix, uint64_t *config)
{
	size_t i = 1;
	if (hex_prefix && len > 3 && s[1] == '0' && (s[2] == 'x' || s[2] == 'X'))
		i = 3;
	if (len < i + 1 || len > i + 16 || s[0] != 'r')
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*config = v;
	return true;
}

int tly_term_number(const struct tly_term *term, uint64_t *value)
{
	const char *s = term->value;
	size_t n = term->value_len, i = 0;
	if (term->quoted)
		return -EINVAL;
	unsigned base = 10;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	uint64_t v = 0;
	for (; i < n; i++) {
		unsigned digit;
		char c = s[i];
		if (c >= '0' && c <= '9')
			digit = (unsigned)(c - '0');
		else if (base == 16 && isxdigit((unsigned char)c))
			digit = (unsigned)(tolower((unsigned char)c) - 'a' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - digit) / base)
			return -ERANGE;
		v = v * base + digit;
	}
	*value = v;
	return 0;
}

static int fail(struct tly_term_error *err, size_t offset, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct tly_term_error *err, size_t offset, size_t len, const char *fmt, ...)
{
	err->offset = offset;
	err->len = len;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -TALLY_ESPEC;
}

static bool term_is(const struct tly_term *t, const char *s)
{
	return strlen(s) == t->name_len && memcmp(t->name, s, t->name_len) == 0;
}

/* perf's own terms (parse-events.c config_term_names) that configure sampling, recording or metric
 * grouping. tally counts; it names them instead of calling them unknown. */
static const char *const perf_only_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size", "no-inherit", "inherit",
	"max-stack", "nr", "no-overwrite", "overwrite", "driver-config", "percore", "aux-output",
	"aux-sample-size", "metric-id",
};

static const char *const config_fields[TLY_NR_CONFIG_FIELDS] = { "config", "config1", "config2" };

static __u64 *config_field(struct perf_event_attr *attr, enum tly_config_field f)
{
	return f == TLY_CONFIG ? &attr->config : f == TLY_CONFIG1 ? &attr->config1 : &attr->config2;
}

/* Longest name tally looks up in a PMU's tables; longer words cannot be one of them. */
#define MAX_NAME 256

static int unknown_term(const struct tally_pmu *pmu, const struct tly_term *t, struct tly_term_error *err)
{
	char valid[TLY_ERROR_MAX / 4] = "";
	size_t used = 0;
	struct tly_suggest suggest;
	tly_suggest_init(&suggest, t->name, t->name_len);
	for (size_t i = 0; i < pmu->nr_formats; i++) {
		tly_suggest_offer(&suggest, pmu->formats[i].name);
		if (used < sizeof(valid))
			used += (size_t)snprintf(valid + used, sizeof(valid) - used, "%s, ", pmu->formats[i].name);
	}
	for (size_t i = 0; i < pmu->nr_aliases; i++)
		tly_suggest_offer(&suggest, pmu->aliases[i].name);
	for (int f = 0; f < TLY_NR_CONFIG_FIELDS; f++)
		tly_suggest_offer(&suggest, config_fields[f]);
	if (suggest.best)
		return fail(err, t->offset, t->name_len,
		            "unknown term '%.*s' for PMU '%s' — did you mean '%s'? (valid terms: %sconfig, config1, "
		            "config2, name)",
		            (int)t->name_len, t->name, pmu->name, suggest.best, valid);
	return fail(err, t->offset, t->name_len,
	            "unknown term '%.*s' for PMU '%s' (valid terms: %sconfig, config1, config2, name%s)",
	            (int)t->name_len, t->name, pmu->name, valid, pmu->nr_aliases ? ", or one of its events" : "");
}

static int term_value(const struct tly_term *t, uint64_t *value, struct tly_term_error *err)
{
	if (!t->value) {
		*value = 1; /* a bare format term sets its field to 1, as perf does for flags like "edge" */
		return 0;
	}
	int ret = tly_term_number(t, value);
	if (ret == -ERANGE)
		return fail(err, t->value_offset, t->value_len, "value '%.*s' of term '%.*s' does not fit 64 bits",
		            (int)t->value_len, t->value, (int)t->name_len, t->name);
	if (ret)
		return fail(err, t->value_offset, t->value_len,
		            "value '%.*s' of term '%.*s' is not a number (decimal or 0x hex)", (int)t->value_len,
		            t->value, (int)t->name_len, t->name);
	return 0;
}

static int apply_format(const struct tly_format *format, const struct tly_term *t, struct tly_pmu_event *ev,
                        struct tly_term_error *err)
{
	uint64_t value;
	int ret = term_value(t, &value, err);
	if (ret)
		return ret;
	__u64 *field = config_field(&ev->attr, format->field);
	/* A later term overrides an earlier one over the same bits (a user term over an alias's). */
	uint64_t cleared = *field & ~format->mask;
	if (tly_format_deposit(format->mask, value, &cleared) < 0) {
		size_t off = t->value ? t->value_offset : t->offset;
		size_t len = t->value ? t->value_len : t->name_len;
		unsigned width = tly_format_width(format->mask);
		return fail(err, off, len, "value %#llx of term '%s' does not fit its %u bit%s (%s)",
		            (unsigned long long)value, format->name, width, width == 1 ? "" : "s", format->text);
	}
	*field = cleared;
	return 0;
}

static int apply_list(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const char *text, size_t len,
                      bool in_alias, struct tly_pmu_event *ev, struct tly_term_error *err);

static int apply_alias(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const struct tly_alias *alias,
                       const struct tly_term *t, struct tly_pmu_event *ev, struct tly_term_error *err)
{
	struct tly_term_error inner;
	/* The alias counts as the one term the user wrote, whatever terms its file holds. */
	unsigned nr_selectors = ev->nr_selectors;
	int ret = apply_list(pmus, pmu, alias->terms, strlen(alias->terms), true, ev, &inner);
	ev->nr_selectors = nr_selectors;
	if (ret)
		return fail(err, t->offset, t->name_len, "sysfs event %s/%s (\"%s\") cannot be used: %s", pmu->name,
		            alias->name, alias->terms, inner.message);
	ev->alias = alias;
	return 0;
}

static int apply_generic(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const struct tly_term *t,
                         struct tly_pmu_event *ev, struct tly_term_error *err, bool *matched)
{
	const struct tly_builtin *b = tly_builtin_find(t->name, t->name_len);
	struct tly_cache_name cache;
	uint32_t type;
	uint64_t config;
	*matched = true;
	if (b && b->kind == TALLY_BUILTIN_HARDWARE) {
		type = b->type;
		config = b->config;
	} else if (!b && tly_cache_parse(t->name, t->name_len, &cache) == TLY_CACHE_OK) {
		type = PERF_TYPE_HW_CACHE;
		config = tly_cache_config(&cache);
	} else {
		*matched = false;
		return 0;
	}
	if (tly_generic_for_pmu(pmus, pmu, type, config, &ev->attr) < 0)
		return fail(err, t->offset, t->name_len,
		            "'%.*s' has no architectural event on PMU '%s' (the kernel's PMUv3 map lacks it)",
		            (int)t->name_len, t->name, pmu->name);
	ev->generic = t->name;
	ev->generic_len = t->name_len;
	return 0;
}

/* A generic event named by term t, applied: true (with its result in *ret) when t named one. */
static bool generic_term(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const struct tly_term *t,
                         struct tly_pmu_event *ev, struct tly_term_error *err, int *ret)
{
	bool matched;
	*ret = apply_generic(pmus, pmu, t, ev, err, &matched);
	if (!*ret && !matched)
		return false;
	ev->nr_selectors++;
	return true;
}

/* Most terms a list may hold; far more than any PMU has format fields. */
#define MAX_TERMS 64

static int set_config(struct tly_pmu_event *ev, enum tly_config_field f, uint64_t value)
{
	*config_field(&ev->attr, f) = value;
	ev->configs_set |= 1u << f;
	ev->nr_selectors++;
	return 0;
}

/* The terms perf takes on every event, with or without a PMU: config, config1 and config2 (bare: 1, as
 * perf's lexer gives a bare term the value 1), name, and its sampling terms, refused by name. Returns 1
 * when t was none of them. */
static int apply_common(const struct tly_term *t, bool in_alias, struct tly_pmu_event *ev,
                        struct tly_term_error *err)
{
	for (int f = 0; f < TLY_NR_CONFIG_FIELDS; f++) {
		if (!term_is(t, config_fields[f]))
			continue;
		uint64_t value;
		int ret = term_value(t, &value, err);
		return ret ? ret : set_config(ev, (enum tly_config_field)f, value);
	}
	if (term_is(t, "name")) {
		if (!t->value)
			return fail(err, t->offset, t->name_len, "term 'name' needs a value (name=...)");
		if (!in_alias) {
			ev->name = t->value;
			ev->name_len = t->value_len;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(perf_only_terms) / sizeof(perf_only_terms[0]); i++)
		if (term_is(t, perf_only_terms[i]))
			return fail(err, t->offset, t->name_len,
			            "perf's term '%s' is not supported: it configures sampling or recording, and "
			            "tally only counts",
			            perf_only_terms[i]);
	return 1;
}

/* A bare "rNNNN" (or "r0xNNNN") sets the whole config, as perf's lexer reads a raw code in a term list. */
static bool raw_term(const struct tly_term *t, struct tly_pmu_event *ev)
{
	uint64_t config;
	if (t->value || !tly_raw_parse(t->name, t->name_len, true, &config))
		return false;
	set_config(ev, TLY_CONFIG, config);
	return true;
}

const struct tly_alias *tly_alias_find(const struct tally_pmu *pmu, const char *name)
{
	const struct tly_alias *alias = tly_pmu_alias(pmu, name);
	for (size_t i = 0; !alias && i < pmu->nr_aliases; i++)
		if (strcasecmp(pmu->aliases[i].name, name) == 0)
			alias = &pmu->aliases[i];
	/* The vendor table's events come after sysfs's: perf 6.1 merges a JSON event into a sysfs alias of
	 * the same name and keeps the sysfs terms (pmu.c perf_pmu_update_alias). A table that cannot be read
	 * leaves the name unknown; unknown_event says why. */
	if (!alias && tly_pmu_table_alias(pmu, name, &alias))
		alias = NULL;
	return alias;
}

/* The sysfs event a user term names, as perf's pmu_find_alias() finds it: "event=ALIAS" (a value that is
 * no number), or "ALIAS=1" where no format has the name; the bare "ALIAS" is looked up by the caller. */
static const struct tly_alias *alias_by_value(const struct tally_pmu *pmu, const struct tly_term *t,
                                              const char *name)
{
	uint64_t value;
	bool number = tly_term_number(t, &value) == 0;
	char word[MAX_NAME];
	if (!number && t->name_len == strlen("event") && strncasecmp(t->name, "event", t->name_len) == 0 &&
	    t->value_len < sizeof(word)) {
		memcpy(word, t->value, t->value_len);
		word[t->value_len] = '\0';
		return tly_alias_find(pmu, word);
	}
	return number && value == 1 && !tly_pmu_format(pmu, name) ? tly_alias_find(pmu, name) : NULL;
}

static int apply_term(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const struct tly_term *t,
                      bool in_alias, struct tly_pmu_event *ev, struct tly_term_error *err)
{
	int ret = apply_common(t, in_alias, ev, err);
	if (ret <= 0)
		return ret;
	if (!pmu) {
		if (raw_term(t, ev))
			return 0;
		return fail(err, t->offset, t->name_len,
		            "unknown term '%.*s' for an event of no PMU (valid terms: config, config1, config2, name, "
		            "rNNNN; a PMU's own terms go in PMU/terms/)",
		            (int)t->name_len, t->name);
	}

	char name[MAX_NAME];
	if (t->name_len >= sizeof(name))
		return unknown_term(pmu, t, err);
	memcpy(name, t->name, t->name_len);
	name[t->name_len] = '\0';

	const struct tly_alias *alias = in_alias || !t->value ? NULL : alias_by_value(pmu, t, name);
	if (alias) {
		ev->nr_selectors++;
		return apply_alias(pmus, pmu, alias, t, ev, err);
	}
	const struct tly_format *format = tly_pmu_format(pmu, name);
	if (format) {
		ev->nr_selectors++;
		return apply_format(format, t, ev, err);
	}
	/* A bare word in a core PMU's terms may be a generic event ("cpu/cycles/"). On a hybrid machine it is
	 * the generic event, as perf 6.1 reads "cpu_atom/instructions/", even where the PMU has a sysfs event
	 * of that name; elsewhere the sysfs event comes first. */
	bool maybe_generic = !in_alias && !t->value && pmu->is_core, hybrid = tly_hybrid(pmus);
	if (maybe_generic && hybrid && generic_term(pmus, pmu, t, ev, err, &ret))
		return ret;
	alias = in_alias ? NULL : tly_alias_find(pmu, name);
	if (alias) {
		if (t->value)
			return fail(err, t->offset, t->name_len + 1 + t->value_len,
			            "'%s' is an event of PMU '%s', not a term: write it without '='", name, pmu->name);
		ev->nr_selectors++;
		return apply_alias(pmus, pmu, alias, t, ev, err);
	}
	if (maybe_generic && !hybrid && generic_term(pmus, pmu, t, ev, err, &ret))
		return ret;
	if (!in_alias && raw_term(t, ev))
		return 0;
	return unknown_term(pmu, t, err);
}

static int apply_list(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const char *text, size_t len,
                      bool in_alias, struct tly_pmu_event *ev, struct tly_term_error *err)
{
	struct tly_term seen[MAX_TERMS];
	size_t nr = 0, pos = 0;
	const struct tly_term *generic_term = NULL;
	for (;;) {
		struct tly_term *t = &seen[nr];
		const char *why;
		int more = tly_terms_next(text, len, &pos, t, &why);
		if (more == 0)
			break;
		if (more < 0 && pos < len && tly_spec_foreign(text[pos])) {
			char found[64];
			tly_spec_char(text + pos, len - pos, found, sizeof(found));
			return fail(err, pos, 1, "%s, found %s", why, found);
		}
		if (more < 0)
			return fail(err, pos, 1, "%s", why);
		for (size_t i = 0; i < nr; i++)
			if (seen[i].name_len == t->name_len && memcmp(seen[i].name, t->name, t->name_len) == 0)
				return fail(err, t->offset, t->name_len, "term '%.*s' is given twice", (int)t->name_len,
				            t->name);
		const char *generic_before = ev->generic;
		int ret = apply_term(pmus, pmu, t, in_alias, ev, err);
		if (ret)
			return ret;
		if (ev->generic != generic_before)
			generic_term = t;
		if (++nr == MAX_TERMS && pos < len)
			return fail(err, pos, 1, "more than %d terms", MAX_TERMS);
	}
	if (generic_term && ev->nr_selectors > 1)
		return fail(err, generic_term->offset, generic_term->name_len,
		            "generic event '%.*s' cannot be combined with other event terms", (int)generic_term->name_len,
		            generic_term->name);
	return 0;
}

int tly_terms_apply(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const char *text, size_t len,
                    struct tly_pmu_event *ev, struct tly_term_error *err)
{
	return apply_list(pmus, pmu, text, len, false, ev, err);
}

int tly_terms_apply_legacy(const char *text, size_t len, struct tly_pmu_event *ev, struct tly_term_error *err)
{
	return apply_list(NULL, NULL, text, len, false, ev, err);
}
