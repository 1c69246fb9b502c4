/* SPDX-License-Identifier: MIT */
/*
 * The vendors' metrics of the machine (tally/metrics.h, tally_vendor_metrics_*): the metric records of
 * the vendor table the core PMU takes (machine/pmu_table.c) and of the system PMUs' own tables, as a
 * metric table (metric_table.c); -M's
 * names and groups selected as perf's metricgroup.c matches them (the name or any of the groups, without
 * case); and the events the selection reads, as a spec of one weak group per metric (perf's "{...}:W"),
 * shared between metrics as perf merges them. The names an expression reads resolve as event specs on
 * the snapshot's PMUs, once each (metric_vendor_eval.c matches them to a sample's events).
 */
#include "metric/metric_vendor.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sysfs_file.h"
#include "machine/pmu_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Takes the record: its block of strings, which the metric table's definition points into. */
static int take_metric(struct tly_pmu_metric *m, void *arg)
{
	struct tally_vendor_metrics *vm = arg;
	if (vm->n == vm->cap) {
		size_t cap = vm->cap ? vm->cap * 2 : 256;
		struct tly_metric_def *defs = realloc(vm->defs, cap * sizeof(*defs));
		if (defs)
			vm->defs = defs;
		char **texts = defs ? realloc(vm->texts, cap * sizeof(*texts)) : NULL;
		if (!texts)
			return -ENOMEM;
		vm->texts = texts;
		vm->cap = cap;
	}
	/* metric_table.h: NULL for no threshold */
	vm->defs[vm->n] = (struct tly_metric_def){ m->name, m->expr, *m->threshold ? m->threshold : NULL,
		                                   m->scale_unit, m->group, m->constraint, m->brief };
	vm->texts[vm->n++] = m->text;
	m->text = NULL;
	return 0;
}

/* The metrics of the system PMUs' own tables (an i.MX8's DDR bandwidth, a CMN's retry rates), each table
 * once whatever its number of instances, as perf 6.1 adds a sys table's metrics for a PMU whose
 * identifier it names (metricgroup.c metricgroup__add_metric_sys_event_iter). */
static int load_sys_tables(struct tally_vendor_metrics *vm)
{
	const struct tly_pmu_events **seen = NULL;
	size_t nr_seen = 0;
	int err = 0;
	for (size_t i = 0; !err && i < vm->pmus->nr; i++) {
		const struct tly_pmu_events *table = tly_pmu_sys_table(&vm->pmus->pmus[i]);
		size_t k = 0;
		while (k < nr_seen && seen[k] != table)
			k++;
		if (!table || k < nr_seen)
			continue;
		const struct tly_pmu_events **grown = realloc(seen, (nr_seen + 1) * sizeof(*seen));
		if (!grown) {
			err = tly_error(-ENOMEM, "out of memory");
			break;
		}
		seen = grown;
		seen[nr_seen++] = table;
		size_t before = vm->n, len = strlen(vm->model);
		err = tly_pmu_events_metrics(table, take_metric, vm);
		if (!err && vm->n > before)
			snprintf(vm->model + len, sizeof(vm->model) - len, ", %s", tly_pmu_events_model(table));
	}
	free(seen);
	return err;
}

/* The first core PMU's table: on a hybrid machine the P-cores' (perf lists cpu_core's metrics first). */
static int load_table(struct tally_vendor_metrics *vm)
{
	int err = tly_pmus_list(vm->pmus);
	const struct tally_pmu *core = NULL;
	for (size_t i = 0; !err && !core && i < vm->pmus->nr; i++)
		if (tly_pmu_is_core(&vm->pmus->pmus[i]))
			core = &vm->pmus->pmus[i];
	if (err)
		return err;
	if (!core)
		return tly_error(-ENOENT, "no vendor metrics: this machine has no core PMU");
	/* strcmp_cpuid_str's id: the core PMU's CPUs' (an arm64 cluster's MIDR), as perf's expr.c asks it */
	if (tly_cpuid(vm->pmus->sysfs_root, core->cpus, vm->cpuid, sizeof(vm->cpuid)))
		vm->cpuid[0] = '\0';
	const struct tly_pmu_events *table = NULL;
	const char *why = NULL;
	err = tly_pmu_table(core, &table, &why);
	if (err || !table)
		return tly_error(-ENOENT, "no vendor metrics for %s: %s", core->name, why ? why : "no vendor table");
	snprintf(vm->model, sizeof(vm->model), "%s", tly_pmu_events_model(table));
	err = tly_pmu_events_metrics(table, take_metric, vm);
	if (!err)
		err = load_sys_tables(vm);
	if (!err && !vm->n)
		err = tly_error(-ENOENT, "the vendor table %s has no metrics", vm->model);
	return err;
}

int tally_vendor_metrics_load(const struct tally_vendor_metrics_opts *opts, tally_vendor_metrics **out)
{
	if (!out)
		return tly_null_arg(__func__);
	*out = NULL;
	if (!TLY_OPTS_VALID(opts, tally_vendor_metrics_opts))
		return -TALLY_EOPTS;
	struct tally_vendor_metrics *vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	pthread_mutex_init(&vm->lock, NULL);
	pthread_mutex_init(&vm->eval_lock, NULL);
	const char *root = opts && opts->sysfs_root ? opts->sysfs_root : NULL;
	int err = 0;
	if (opts && opts->pmus)
		vm->pmus = opts->pmus;
	else if (!(err = tly_pmus_new(root, &vm->own_pmus)))
		vm->pmus = vm->own_pmus;
	if (!err)
		err = load_table(vm);
	if (!err)
		err = tly_metric_table_new(vm->defs, vm->n, &vm->table);
	if (!err)
		err = tly_metric_results_init(&vm->results, vm->n);
	if (err) {
		tally_vendor_metrics_free(vm);
		return err;
	}
	tly_metric_facts_read(vm->pmus->sysfs_root, false, &vm->facts);
	vm->nmi_watchdog = false;
	char buf[16];
	if (tly_sysfs_read("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf), TLY_SYSFS_WHOLE) > 0)
		vm->nmi_watchdog = atoi(buf) != 0;
	*out = vm;
	return 0;
}

void tally_vendor_metrics_free(tally_vendor_metrics *vm)
{
	if (!vm)
		return;
	tly_metric_table_free(vm->table);
	for (size_t i = 0; i < vm->n; i++)
		free(vm->texts[i]);
	free(vm->texts);
	free(vm->defs);
	for (size_t i = 0; i < vm->cap_events; i++) {
		if (!vm->events[i])
			continue;
		free(vm->events[i]->name);
		free(vm->events[i]->error);
		tally_events_free(vm->events[i]->parsed);
		free(vm->events[i]);
	}
	free(vm->events);
	tally_pmus_free(vm->own_pmus);
	tly_metric_results_free(&vm->results);
	tly_metric_facts_fini(&vm->facts);
	pthread_mutex_destroy(&vm->lock);
	pthread_mutex_destroy(&vm->eval_lock);
	free(vm);
}

size_t tally_vendor_metrics_count(const tally_vendor_metrics *vm)
{
	return vm ? vm->n : 0;
}

const char *tally_vendor_metrics_model(const tally_vendor_metrics *vm)
{
	return vm ? vm->model : NULL;
}

int tly_vendor_check(const struct tally_vendor_metrics *vm, size_t i, const char *fn)
{
	if (!vm)
		return tly_null_arg(fn);
	return i < vm->n ? 0 : tly_error(-ERANGE, "%s: no metric %zu (the table has %zu)", fn, i, vm->n);
}

int tally_vendor_metric_at(const tally_vendor_metrics *vm, size_t i, struct tally_vendor_metric_info *info)
{
	int err = tly_vendor_check(vm, i, __func__);
	if (!err)
		err = info ? tly_info_check(info, "tally_vendor_metric_info") : tly_null_arg(__func__);
	if (err)
		return err;
	const struct tly_metric_def *d = &vm->defs[i];
	const char *unit;
	double scale = tly_metric_scale(d->scale_unit, &unit);
	struct tally_vendor_metric_info full = { .sz = sizeof(full), .name = d->name, .groups = d->groups,
		                                 .expr = d->expr, .threshold = d->threshold ? d->threshold : "",
		                                 .unit = unit, .scale = scale, .constraint = d->constraint,
		                                 .description = d->description };
	return TLY_INFO_COPY(info, &full, tally_vendor_metric_info);
}

/* Whether the ';'-separated groups hold group (any case). */
static bool in_groups(const char *groups, const char *group, size_t len)
{
	for (const char *g = groups; *g;) {
		size_t n = strcspn(g, ";");
		if (n == len && strncasecmp(g, group, len) == 0)
			return true;
		g += n + (g[n] == ';');
	}
	return false;
}

/* Whether metric i of vm is named by item (len bytes): its name or one of its groups, any case. */
static bool names_metric(const tally_vendor_metrics *vm, size_t i, const char *item, size_t len)
{
	return (strlen(vm->defs[i].name) == len && strncasecmp(vm->defs[i].name, item, len) == 0) ||
	       in_groups(vm->defs[i].groups, item, len);
}

/* Whether item (len bytes) names a metric or a metric group of vm. */
static bool names_any(const tally_vendor_metrics *vm, const char *item, size_t len)
{
	for (size_t i = 0; i < vm->n; i++)
		if (names_metric(vm, i, item, len))
			return true;
	return false;
}

static void add_index(size_t *indices, size_t n, size_t *count, size_t i)
{
	for (size_t k = 0; k < *count && k < n; k++)
		if (indices[k] == i)
			return;
	if (*count < n)
		indices[*count] = i;
	(*count)++;
}

int tally_vendor_metrics_select(const tally_vendor_metrics *vm, const char *list, size_t *indices, size_t n)
{
	if (!vm || !list || (!indices && n))
		return tly_null_arg(__func__);
	size_t count = 0;
	for (const char *item = list;;) {
		size_t len = strcspn(item, ",");
		if (len == 0)
			return tly_error(-EINVAL, "%s: an empty item in '%s'", __func__, list);
		size_t before = count;
		for (size_t i = 0; i < vm->n; i++)
			if (names_metric(vm, i, item, len))
				add_index(indices, n, &count, i);
		/* all of an item's metrics may have been added already: an item still must name something */
		if (count == before && !names_any(vm, item, len))
			return tly_error(-ENOENT, "no vendor metric or metric group '%.*s' in %s's table%s", (int)len,
			                 item, vm->model, strchr(vm->model, ',') ? "s" : "");
		if (!item[len])
			break;
		item += len + 1;
	}
	return count > (size_t)INT32_MAX ? -ERANGE : (int)count;
}

int tally_vendor_metrics_filter(const tally_vendor_metrics *vm, const char *list, bool table, char *buf,
                                size_t len)
{
	if (!list || (!buf && len))
		return tly_null_arg(__func__);
	size_t need = 0;
	bool first = true;
	for (const char *item = list;;) {
		size_t n = strcspn(item, ",");
		if (n == 0) /* refused here, as both selections refuse it: no half of the list may lose it */
			return tly_error(-EINVAL, "metric list '%s': an empty name", list);
		if ((vm && names_any(vm, item, n)) == table) {
			for (size_t k = first ? 1 : 0; k <= n; k++, need++)
				if (need < len)
					buf[need] = k ? item[k - 1] : ',';
			first = false;
		}
		if (!item[n])
			break;
		item += n + 1;
	}
	if (len)
		buf[need < len ? need : len - 1] = '\0';
	return need > (size_t)INT32_MAX ? -ERANGE : (int)need;
}

/* ---- the names' events ---- */

static size_t name_hash(const char *s)
{
	size_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of name in the events' hash (open addressing, linear probing): its event or an empty slot. */
static size_t slot_of(struct tly_vendor_event *const *slots, size_t cap, const char *name)
{
	size_t i = name_hash(name) & (cap - 1);
	while (slots[i] && strcmp(slots[i]->name, name) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Doubles the hash (vm->lock held). */
static int grow(struct tally_vendor_metrics *vm)
{
	size_t cap = vm->cap_events ? vm->cap_events * 2 : 256;
	struct tly_vendor_event **slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < vm->cap_events; i++)
		if (vm->events[i])
			slots[slot_of(slots, cap, vm->events[i]->name)] = vm->events[i];
	free(vm->events);
	vm->events = slots;
	vm->cap_events = cap;
	return 0;
}

/* A new event for name, parsed as a spec on vm's PMUs; a name that does not parse here keeps its error
 * (its metrics read not available). */
static struct tly_vendor_event *resolve(const struct tally_vendor_metrics *vm, const char *name)
{
	struct tly_vendor_event *e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return NULL;
	}
	char spec[1024];
	struct tly_error_saved saved;
	tly_error_save(&saved);
	TALLY_OPTS(tally_parse_opts, popts, .pmus = vm->pmus);
	if (tly_expr_event_spec(name, spec, sizeof(spec)))
		e->error = strdup("the name is too long for an event");
	else if (tally_events_parse(spec, &popts, &e->parsed) < 0)
		e->error = strdup(tally_last_error());
	tly_error_restore(&saved);
	e->tool = e->parsed && e->parsed->nr && e->parsed->v[e->parsed->nr - 1].tool != TLY_TOOL_NONE;
	return e;
}

int tly_vendor_event(const struct tally_vendor_metrics *cvm, const char *name, const struct tly_vendor_event **out)
{
	struct tally_vendor_metrics *vm = (struct tally_vendor_metrics *)cvm;
	int err = 0;
	pthread_mutex_lock(&vm->lock);
	if (2 * (vm->nr_events + 1) > vm->cap_events)
		err = grow(vm);
	size_t i = err ? 0 : slot_of(vm->events, vm->cap_events, name);
	if (!err && !vm->events[i]) {
		vm->events[i] = resolve(vm, name);
		err = vm->events[i] ? 0 : -ENOMEM;
		vm->nr_events += !err;
	}
	if (!err)
		*out = vm->events[i];
	pthread_mutex_unlock(&vm->lock);
	return err;
}
