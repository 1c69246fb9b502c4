/* SPDX-License-Identifier: MIT */
/* "term=value,term,..." lists: the inside of pmu/.../ in a spec and the content of sysfs alias files. */
#ifndef TLY_SPEC_TERMS_H
#define TLY_SPEC_TERMS_H

#include "core/error.h"
#include "machine/pmu.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tly_term {
	const char *name;
	size_t name_len;
	const char *value;   /* NULL for a bare term ("edge", "topdown-retiring"); inside the quotes if quoted */
	size_t value_len;
	size_t offset;       /* of name within the list text */
	size_t value_offset;
	bool quoted;         /* name='...' or name="...": a string, never a number */
};

/* Reads the next term of the list text[*pos .. len). Whitespace around terms, '=' and ',' is skipped, as
 * perf's lexer skips it; a value in single or double quotes may hold ',' ':' and '='. Returns 1 with
 * *term filled and *pos past the term and its comma; 0 at the end of the list; -1 when the list is
 * malformed (empty term, '=' without a name or a value, a character no term name has, a quote never
 * closed, a trailing comma), with *pos at the fault and *why saying what it is. */
int tly_terms_next(const char *text, size_t len, size_t *pos, struct tly_term *term, const char **why);

/* The value of a term as a number: decimal or 0x-prefixed hex (perf's two forms). -EINVAL when it is not
 * a number (a quoted value never is), -ERANGE when it does not fit 64 bits. */
int tly_term_number(const struct tly_term *term, uint64_t *value);

/* A raw code "rNNNN" (1 to 16 hex digits; with hex_prefix also "r0xNNNN", which perf takes inside a term
 * list only). */
bool tly_raw_parse(const char *s, size_t len, bool hex_prefix, uint64_t *config);

/* Where and why a term list was rejected, relative to the list text. */
struct tly_term_error {
	size_t offset;
	size_t len;
	char message[TLY_ERROR_MAX / 2];
};

/* The sysfs event of pmu called name, matched without regard to case as perf's pmu_find_alias() and
 * perf_pmu__parse_check() match ("msr/TSC/", "TSC"); the exact spelling first; else the event of that
 * name in the PMU's vendor table (machine/pmu.h tly_pmu_table_alias). NULL when none. */
const struct tly_alias *tly_alias_find(const struct tally_pmu *pmu, const char *name);

/* What a term list builds for one PMU. */
struct tly_pmu_event {
	struct perf_event_attr attr;     /* type and config, config1, config2 */
	const char *name;                /* the name= value (not NUL-terminated), or NULL */
	size_t name_len;
	const struct tly_alias *alias;   /* the sysfs alias the list named, or NULL */
	const char *generic;             /* the generic event the list named ("cycles"), as written, or NULL */
	size_t generic_len;
	unsigned nr_selectors;           /* terms other than name=: 1 with alias set means "pmu/alias/" */
	unsigned configs_set;            /* bit f: config field f was set by a config term (or a raw one) */
};

/* Applies the term list text[0 .. len) for pmu onto ev (which the caller zeroes, with attr.type set to
 * the PMU's type). Terms: the PMU's format terms (bare means 1), config=, config1=, config2=, name=, the
 * PMU's sysfs aliases and, on core PMUs, generic hardware and cache names. Returns 0, or -TALLY_ESPEC
 * with *err filled. */
int tly_terms_apply(const struct tally_pmus *pmus, const struct tally_pmu *pmu, const char *text, size_t len,
                    struct tly_pmu_event *ev, struct tly_term_error *err);

/* Applies the term list text[0 .. len) written after an event of no PMU ("cycles/name=x/", "r1c2//",
 * "1:1/config1=2/") onto ev (zeroed by the caller): perf's terms for those are config, config1, config2
 * (bare means 1), a raw rNNNN (the config) and name; configs_set says which configs the list set. */
int tly_terms_apply_legacy(const char *text, size_t len, struct tly_pmu_event *ev, struct tly_term_error *err);

#endif
