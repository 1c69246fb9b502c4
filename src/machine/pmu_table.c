/* SPDX-License-Identifier: MIT */
/*
 * A PMU's events from the vendor table, as perf 6.1 adds them to its aliases (util/pmu.c
 * pmu_add_cpu_aliases_table): the table is the one of the PMU's first CPU (x86: the one cpuid of the
 * machine; arm64: each cluster's MIDR, so a big.LITTLE machine's PMUs take each their own table); a
 * record without a Unit is an event of the core PMU ("cpu" on x86, every core PMU on arm64), one with a
 * Unit of the PMU that Unit names or of its family's instances (uncore_imc for uncore_imc_0 .. _5).
 *
 * Nothing is read before a spec needs a name no earlier source has: the PMU's table is chosen and its file
 * mapped at the first such lookup; each event found is kept as a struct tly_alias on the PMU, so the spec
 * layer applies it exactly as a sysfs alias (its terms through the PMU's format/ files, its scale and
 * unit). Opened tables are shared by the snapshot's PMUs (one per model).
 */
#include "machine/pmu.h"
#include "machine/pmu_events.h"
#include "machine/pmu_family.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tly_table_alias {
	struct tly_alias alias;
	struct tly_table_alias *next;
};

/* One CPU identification's choice, shared by the snapshot's PMUs of that CPU: its table, or why none. */
struct tly_pmu_tables {
	char cpuid[128];
	struct tly_pmu_events *table;
	int err;
	char *error;
	struct tly_pmu_tables *next;
};

void tly_pmu_tables_free(struct tly_pmu_tables *tables)
{
	while (tables) {
		struct tly_pmu_tables *next = tables->next;
		tly_pmu_events_close(tables->table);
		free(tables->error);
		free(tables);
		tables = next;
	}
}

void tly_pmu_table_release(struct tally_pmu *pmu)
{
	for (struct tly_table_alias *a = pmu->table_aliases, *next; a; a = next) {
		next = a->next;
		free(a->alias.name);
		free(a->alias.terms);
		free(a->alias.unit);
		free(a);
	}
	pmu->table_aliases = NULL;
	free(pmu->table_error);
	pmu->table_error = NULL;
}

/* The snapshot's choice for cpuid, made now if no PMU of that CPU made it. Under the owner's lock. Returns
 * NULL when out of memory. */
static struct tly_pmu_tables *choice_for(struct tally_pmus *owner, const char *cpuid)
{
	for (struct tly_pmu_tables *t = owner->tables; t; t = t->next)
		if (strcmp(t->cpuid, cpuid) == 0)
			return t;
	struct tly_pmu_tables *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	snprintf(t->cpuid, sizeof(t->cpuid), "%s", cpuid);
	char stem[128], version[64];
	const char *dir = tly_pmu_events_dir();
	t->err = tly_pmu_events_find_model(dir, cpuid, stem, sizeof(stem), version, sizeof(version));
	if (!t->err)
		t->err = tly_pmu_events_open(dir, tly_cpuid_arch(cpuid), stem, version, &t->table);
	if (t->err)
		t->error = strdup(tally_last_error());
	t->next = owner->tables;
	owner->tables = t;
	return t;
}

/* Whether a PMU may take a table's events at all: not the software context's (their events are the
 * kernel's, never a vendor's). */
static bool takes_tables(const struct tally_pmu *pmu)
{
	return !tly_pmu_is_software_context(pmu->name) && strcmp(pmu->name, "power") != 0 &&
	       strncmp(pmu->name, "cstate_", 7) != 0;
}

/* Chooses pmu's table: sets table_state, table and table_error. Under the owner's lock; the PMU's CORE
 * part read. */
static void choose_table(struct tally_pmu *pmu)
{
	char cpuid[128];
	int err = tly_cpuid(pmu->owner->sysfs_root, pmu->cpus, cpuid, sizeof(cpuid));
	struct tly_pmu_tables *choice = err ? NULL : choice_for(pmu->owner, cpuid);
	if (!err && !choice)
		err = tly_error(-ENOMEM, "out of memory");
	if (choice) {
		err = choice->err;
		pmu->table = choice->table;
	}
	pmu->table_state = err ? err : 1;
	if (err)
		pmu->table_error = strdup(choice && choice->error ? choice->error : tally_last_error());
}

int tly_pmu_table(const struct tally_pmu *cpmu, const struct tly_pmu_events **table, const char **why)
{
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	*table = NULL;
	*why = NULL;
	if (!takes_tables(pmu))
		return -ENOENT;
	int err = tly_pmu_read(pmu, TLY_PMU_CORE);
	if (err)
		return err;
	pthread_mutex_lock(&pmu->owner->lock);
	if (!pmu->table_state)
		choose_table(pmu);
	*table = pmu->table;
	*why = pmu->table_error;
	err = pmu->table_state < 0 ? pmu->table_state : 0;
	pthread_mutex_unlock(&pmu->owner->lock);
	return err;
}

bool tly_pmu_table_takes(const struct tally_pmu *pmu, const struct tly_pmu_events *table, struct tly_span rec_pmu)
{
	if (!rec_pmu.len)
		return strcmp(tly_pmu_events_arch(table), "arm64") == 0 ? pmu->is_core : strcmp(pmu->name, "cpu") == 0;
	return (strlen(pmu->name) == rec_pmu.len && strncmp(pmu->name, rec_pmu.s, rec_pmu.len) == 0) ||
	       tly_pmu_family_member(rec_pmu.s, rec_pmu.len, pmu->name);
}

/* ScaleUnit "6.103515625e-5MiB": the scale, then the unit, as perf's convert_scale splits it. */
static int scale_unit(struct tly_span text, struct tly_alias *alias)
{
	alias->scale = 1.0;
	if (!text.len)
		return 0;
	size_t n = strspn(text.s, "0123456789.eE+-");
	n = n > text.len ? text.len : n;
	char number[64];
	if (n && n < sizeof(number)) {
		memcpy(number, text.s, n);
		number[n] = '\0';
		if (tly_alias_parse_scale(number, &alias->scale))
			alias->scale = 1.0;
	}
	if (n < text.len && !(alias->unit = tly_span_dup((struct tly_span){ text.s + n, text.len - n })))
		return -ENOMEM;
	return 0;
}

/* Keeps rec as an alias of pmu. Under the owner's lock. */
static int keep_alias(struct tally_pmu *pmu, const struct tly_pmu_events_rec *rec, const struct tly_alias **out)
{
	struct tly_table_alias *a = calloc(1, sizeof(*a));
	if (!a || !(a->alias.name = tly_span_dup(rec->name)) || !(a->alias.terms = tly_span_dup(rec->terms)) ||
	    scale_unit(rec->scale_unit, &a->alias)) {
		if (a) {
			free(a->alias.name);
			free(a->alias.terms);
			free(a);
		}
		return tly_error(-ENOMEM, "out of memory");
	}
	a->alias.per_pkg = rec->per_pkg;
	a->next = pmu->table_aliases;
	pmu->table_aliases = a;
	*out = &a->alias;
	return 0;
}

/* Looks name up in pmu's table. Under the owner's lock, with the table chosen. */
static int lookup(struct tally_pmu *pmu, const char *name, const struct tly_alias **out)
{
	for (struct tly_table_alias *a = pmu->table_aliases; a; a = a->next) {
		if (strcasecmp(a->alias.name, name) == 0) {
			*out = &a->alias;
			return 0;
		}
	}
	struct tly_pmu_events_rec rec;
	size_t pos = tly_pmu_events_seek(pmu->table, name);
	int ret;
	while ((ret = tly_pmu_events_next(pmu->table, &pos, &rec)) == 1 && tly_pmu_events_named(&rec, name)) {
		if (tly_pmu_table_takes(pmu, pmu->table, rec.pmu))
			return keep_alias(pmu, &rec, out);
	}
	return ret < 0 ? ret : 0;
}

int tly_pmu_table_alias(const struct tally_pmu *cpmu, const char *name, const struct tly_alias **out)
{
	const struct tly_pmu_events *table;
	const char *why;
	*out = NULL;
	if (tly_pmu_table(cpmu, &table, &why) || !table)
		return 0;
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	pthread_mutex_lock(&pmu->owner->lock);
	int err = lookup(pmu, name, out);
	if (err < 0 && pmu->table_state == 1) {
		/* A corrupt table: the PMU's names from it are given up, and the reason kept for the error that
		 * says the name is unknown. */
		pmu->table_state = err;
		pmu->table = NULL;
		pmu->table_error = strdup(tally_last_error());
	}
	pthread_mutex_unlock(&pmu->owner->lock);
	return err;
}
