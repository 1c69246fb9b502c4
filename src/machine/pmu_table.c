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
#include "machine/pmu_counters.h"
#include "machine/pmu_events.h"
#include "machine/pmu_family.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sysfs_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tly_table_alias {
	struct tly_alias alias;
	struct tly_table_alias *next;
};

/* What tally_pmu_table_event_at gives: every event of the PMU's table, its strings owned. */
struct tly_table_listing {
	size_t nr;
	struct tally_table_event_info *v;
};

static void listing_free(struct tly_table_listing *l)
{
	for (size_t i = 0; l && i < l->nr; i++) {
		free((char *)l->v[i].name);
		free((char *)l->v[i].terms);
		free((char *)l->v[i].topic);
		free((char *)l->v[i].desc);
		free((char *)l->v[i].long_desc);
		free((char *)l->v[i].unit);
		free((char *)l->v[i].counter);
	}
	if (l)
		free(l->v);
	free(l);
}

/* One CPU identification's choice, shared by the snapshot's PMUs of that CPU: its table, or why none. */
struct tly_pmu_tables {
	char key[PATH_MAX];  /* the cpuid, or "sys:" and a system PMU table's model */
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
	listing_free(pmu->table_listing);
	pmu->table_listing = NULL;
	free(pmu->table_error);
	pmu->table_error = NULL;
}

/* The snapshot's choice for cpuid, or for the system PMU table sys_model of cpuid's arch, made now if no
 * PMU made it. Under the owner's lock. Returns NULL when out of memory. */
static struct tly_pmu_tables *choice_for(struct tally_pmus *owner, const char *cpuid, const char *sys_model)
{
	char key[sizeof(owner->tables->key)];
	if ((size_t)snprintf(key, sizeof(key), "%s%s", sys_model ? "sys:" : "", sys_model ? sys_model : cpuid) >=
	    sizeof(key))
		return NULL;
	for (struct tly_pmu_tables *t = owner->tables; t; t = t->next)
		if (strcmp(t->key, key) == 0)
			return t;
	struct tly_pmu_tables *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	snprintf(t->key, sizeof(t->key), "%s", key);
	char stem[PATH_MAX], version[64] = "sys";
	const char *dir = tly_pmu_events_dir();
	if (sys_model)
		snprintf(stem, sizeof(stem), "%s", sys_model);
	else
		t->err = tly_pmu_events_find_model(dir, cpuid, stem, sizeof(stem), version, sizeof(version));
	/* A perf-format tree (TALLY_PMU_EVENTS at the kernel's pmu-events/arch) is converted now, in memory. */
	if (!t->err)
		t->err = tly_pmu_events_is_tree(dir) ? tly_pmu_events_convert(dir, tly_cpuid_arch(cpuid), stem, version, &t->table)
		                                     : tly_pmu_events_open(dir, tly_cpuid_arch(cpuid), stem, version, &t->table);
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

/* The snapshot's sysmap (of the machine's arch: the first CPU's identification says which), read at its
 * first use: 0, or the read's code. Under the owner's lock. */
static int load_sysmap(struct tally_pmus *owner)
{
	if (!owner->sysmap_state) {
		char cpuid[128];
		int err = tly_cpuid(owner->sysfs_root, NULL, cpuid, sizeof(cpuid));
		if (!err)
			err = tly_pmu_events_sysmap(tly_pmu_events_dir(), tly_cpuid_arch(cpuid), &owner->sysmap);
		owner->sysmap_state = err ? err : 1;
	}
	return owner->sysmap_state < 0 ? owner->sysmap_state : 0;
}

/* The system PMU table pmu takes (perf's pmu_add_sys_aliases): 0 with model set when a row of the arch's
 * sysmap names the PMU and its compat matches the PMU's `identifier`; -ENOENT when none does; another
 * negative code (recorded) when the map cannot be read. Under the owner's lock. */
static int sys_model(struct tally_pmu *pmu, char *model, size_t size)
{
	struct tally_pmus *owner = pmu->owner;
	if (pmu->is_core)
		return -ENOENT;
	int err = load_sysmap(owner);
	if (err)
		return err;
	if (!tly_pmu_sysmap_names(owner->sysmap, pmu->name))
		return -ENOENT;
	char path[PATH_MAX], id[256];
	if ((size_t)snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/identifier", owner->sysfs_root,
	                     pmu->name) >= sizeof(path) ||
	    tly_sysfs_read(path, id, sizeof(id), TLY_SYSFS_WHOLE) < 0)
		return -ENOENT;
	id[strcspn(id, "\n")] = '\0';
	return tly_pmu_sysmap_find(owner->sysmap, pmu->name, id, model, size);
}

/* Chooses pmu's table: sets table_state, table and table_error. Under the owner's lock; the PMU's CORE
 * part read. A system PMU whose identifier a sys table names takes that table; any other its CPU's. */
static void choose_table(struct tally_pmu *pmu)
{
	char cpuid[128], model[PATH_MAX];
	int err = tly_cpuid(pmu->owner->sysfs_root, pmu->cpus, cpuid, sizeof(cpuid));
	int sys = err ? -ENOENT : sys_model(pmu, model, sizeof(model));
	if (sys != 0 && sys != -ENOENT)
		err = sys;
	struct tly_pmu_tables *choice = err ? NULL : choice_for(pmu->owner, cpuid, sys ? NULL : model);
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

const struct tly_pmu_events *tly_pmu_table_chosen(const struct tally_pmu *cpmu)
{
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	if (!pmu->owner)
		return NULL;
	pthread_mutex_lock(&pmu->owner->lock);
	const struct tly_pmu_events *table = pmu->table_state > 0 ? pmu->table : NULL;
	pthread_mutex_unlock(&pmu->owner->lock);
	return table;
}

const struct tly_pmu_events *tly_pmu_sys_table(const struct tally_pmu *cpmu)
{
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	if (!takes_tables(pmu))
		return NULL;
	pthread_mutex_lock(&pmu->owner->lock);
	bool named = load_sysmap(pmu->owner) == 0 && tly_pmu_sysmap_names(pmu->owner->sysmap, pmu->name);
	pthread_mutex_unlock(&pmu->owner->lock);
	const struct tly_pmu_events *table;
	const char *why;
	if (!named || tly_pmu_table(pmu, &table, &why) || !table)
		return NULL;
	return strcmp(tly_pmu_events_version(table), "sys") == 0 ? table : NULL;
}

bool tly_pmu_table_takes(const struct tally_pmu *pmu, const struct tly_pmu_events *table, struct tly_span rec_pmu)
{
	if (!rec_pmu.len)
		return strcmp(tly_pmu_events_arch(table), "arm64") == 0 ? pmu->is_core : strcmp(pmu->name, "cpu") == 0;
	return tly_pmu_unit_member(rec_pmu.s, rec_pmu.len, pmu->name);
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
	a->alias.counters = tly_counter_list(rec->counter);
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

/* The number of t's records that are pmu's events. */
static size_t count_events(const struct tally_pmu *pmu, const struct tly_pmu_events *t)
{
	struct tly_pmu_events_rec rec;
	size_t n = 0;
	for (size_t pos = 0; tly_pmu_events_next(t, &pos, &rec) == 1;)
		n += tly_pmu_table_takes(pmu, t, rec.pmu);
	return n;
}

/* pmu's table for the public calls: 0, or the recorded reason there is none. */
static int public_table(const struct tally_pmu *pmu, const struct tly_pmu_events **t)
{
	const char *why;
	int err = tly_pmu_table(pmu, t, &why);
	if (!err && *t)
		return 0;
	return why ? tly_error(err ? err : -ENOENT, "%s", why)
	           : tly_error(-ENOENT, "PMU %s takes no vendor table's events", pmu->name);
}

int tally_pmu_table_get(const tally_pmu *pmu, struct tally_pmu_table_info *info)
{
	if (!pmu || !info)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	const struct tly_pmu_events *t;
	int err = public_table(pmu, &t);
	if (err)
		return err;
	struct tally_pmu_table_info full = {
		.sz = sizeof(full),
		.model = tly_pmu_events_model(t),
		.version = tly_pmu_events_version(t),
		.path = tly_pmu_events_path(t),
		.nr_events = count_events(pmu, t),
	};
	return TLY_INFO_COPY(info, &full, tally_pmu_table_info);
}

/* One listed event from rec. Returns 0 or a negative code (recorded). */
static int list_one(const struct tly_pmu_events *t, const struct tly_pmu_events_rec *rec,
                    struct tally_table_event_info *e)
{
	struct tly_pmu_events_desc d;
	int err = tly_pmu_events_describe(t, rec, &d);
	if (err)
		return err;
	struct tly_alias unit = { 0 };
	*e = (struct tally_table_event_info){
		.sz = sizeof(*e), .name = tly_span_dup(rec->name), .terms = tly_span_dup(rec->terms), .topic = d.topic,
		.desc = d.brief, .long_desc = d.public_desc[0] ? d.public_desc : strdup(d.brief),
		.counter = tly_span_dup(rec->counter), .deprecated = rec->deprecated, .per_pkg = rec->per_pkg,
		.experimental = rec->experimental,
	};
	if (!d.public_desc[0])
		free(d.public_desc);
	err = scale_unit(rec->scale_unit, &unit);
	e->unit = unit.unit;
	e->scale = unit.scale;
	return err || !e->name || !e->terms || !e->long_desc || !e->counter ? tly_error(-ENOMEM, "out of memory") : 0;
}

/* Lists t's events of pmu into pmu->table_listing. Under the owner's lock. */
static int make_listing(struct tally_pmu *pmu, const struct tly_pmu_events *t)
{
	struct tly_table_listing *l = calloc(1, sizeof(*l));
	size_t nr = count_events(pmu, t);
	if (!l || !(l->v = calloc(nr ? nr : 1, sizeof(*l->v)))) {
		free(l);
		return tly_error(-ENOMEM, "out of memory");
	}
	struct tly_pmu_events_rec rec;
	int err = 0, got;
	for (size_t pos = 0; !err && l->nr < nr && (got = tly_pmu_events_next(t, &pos, &rec)) != 0;) {
		if (got < 0)
			err = got;
		else if (tly_pmu_table_takes(pmu, t, rec.pmu))
			err = list_one(t, &rec, &l->v[l->nr++]);
	}
	if (err) {
		listing_free(l);
		return err;
	}
	pmu->table_listing = l;
	return 0;
}

int tally_pmu_table_event_at(const tally_pmu *cpmu, size_t i, struct tally_table_event_info *info)
{
	if (!cpmu || !info)
		return tly_error(-EINVAL, "%s: NULL argument", __func__);
	struct tally_pmu *pmu = (struct tally_pmu *)cpmu;
	const struct tly_pmu_events *t;
	int err = public_table(pmu, &t);
	if (err)
		return err;
	pthread_mutex_lock(&pmu->owner->lock);
	if (!pmu->table_listing)
		err = make_listing(pmu, t);
	const struct tly_table_listing *l = pmu->table_listing;
	pthread_mutex_unlock(&pmu->owner->lock);
	if (err)
		return err;
	if (i >= l->nr)
		return tly_error(-ERANGE, "%s: index %zu, but PMU %s has %zu", __func__, i, pmu->name, l->nr);
	return TLY_INFO_COPY(info, &l->v[i], tally_table_event_info);
}
