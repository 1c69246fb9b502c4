/* SPDX-License-Identifier: MIT */
/*
 * A vendor metric evaluated from a sample (tally_vendor_metric_eval): each name its expression reads is
 * an event of the sample whose attr is the name's encoding on this machine (type and configs; a tool
 * event by its kind), summed over a PMU family's instances, the first copy of each taken where the
 * sample has several (perf's merged groups); other metrics by their values (metric_table.c); the
 * constants from the machine: has_event (the name parses here), strcmp_cpuid_str (x86: the CPU's id
 * matched against the pattern as a whole, perf 6.1's regex match; arm64: the core PMU's MIDR of the
 * pattern's part, of its version or later, perf 6.12's tly_midr_at_least), the #literals.
 */
#include "metric/metric_vendor.h"

#include "core/error.h"
#include "core/opts.h"
#include "machine/pmu_events.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

static int has_event(void *ctx, const char *name)
{
	const struct tly_vendor_eval *e = ctx;
	const struct tly_vendor_event *ev;
	return tly_vendor_event(e->vm, name, &ev) ? -1 : ev->parsed != NULL;
}

static int cpuid_match(void *ctx, const char *pattern)
{
	const struct tly_vendor_eval *e = ctx;
	if (!e->vm->cpuid[0])
		return -1;
	if (strncmp(e->vm->cpuid, "0x", 2) == 0) /* arm64: a MIDR, compared by part and version */
		return tly_midr_at_least(pattern, e->vm->cpuid);
	regex_t re;
	regmatch_t m;
	if (regcomp(&re, pattern, REG_EXTENDED))
		return -1;
	int r = regexec(&re, e->vm->cpuid, 1, &m, 0) == 0 && m.rm_so == 0 &&
	        (size_t)m.rm_eo == strlen(e->vm->cpuid);
	regfree(&re);
	return r;
}

static bool same_event(const struct tly_event *a, const struct tly_event *b)
{
	return a->attr.type == b->attr.type && a->attr.config == b->attr.config &&
	       a->attr.config1 == b->attr.config1 && a->attr.config2 == b->attr.config2 && a->tool == b->tool;
}

static void note_input(struct tally_metric_value *v, const char *name, double value, enum tally_status st,
                       size_t nr, size_t first)
{
	for (size_t k = 0; k < v->nr_inputs; k++)
		if (strcmp(v->inputs[k].event, name) == 0)
			return;
	if (v->nr_inputs < TALLY_METRIC_MAX_INPUTS)
		v->inputs[v->nr_inputs++] = (struct tally_metric_input){ .event = name, .value = value, .status = st,
			                                                  .found = true, .nr_events = nr,
			                                                  .first_event = first };
}

/* The value of an event name: its instances' first copies in the sample, summed. */
static struct tly_expr_val event_value(void *ctx, const char *name, bool source_count, char *reason)
{
	const struct tly_vendor_eval *e = ctx;
	const struct tly_vendor_event *ev;
	if (tly_vendor_event(e->vm, name, &ev))
		return tly_expr_fail(reason, "out of memory");
	if (!e->s)
		return tly_expr_fail(reason, "%s is not a constant", name);
	if (!ev->parsed)
		return tly_expr_fail(reason, "%s: %s", name, ev->error ? ev->error : "cannot be counted here");
	size_t n = tly_metric_sample_count(e->s), found = 0, first = SIZE_MAX;
	struct tly_expr_val val = { .ok = true };
	enum tally_status worst = TALLY_STATUS_EXACT;
	for (size_t p = 0; p < ev->parsed->nr; p++) {
		if (ev->parsed->v[p].origin != 0)
			continue; /* a slots event the parser added to a topdown one (spec_topdown.c) */
		/* the first instance where the previous sample had it (one sample after another of one list) */
		size_t j = found == 0 && ev->hint < n && same_event(&ev->parsed->v[p], tly_metric_event(e->s, ev->hint))
		                   ? ev->hint : 0;
		while (j < n && !same_event(&ev->parsed->v[p], tly_metric_event(e->s, j)))
			j++;
		if (j == n)
			continue;
		if (found == 0)
			((struct tly_vendor_event *)ev)->hint = j; /* under vm->eval_lock */
		struct tly_reading r = tly_metric_read(e->s, j);
		if (!tly_metric_counted(r.status) && e->v)
			note_input(e->v, ev->name, 0, r.status, 1, j); /* found, not counted: the cgroup lines' test */
		if (!tly_metric_counted(r.status))
			return tly_expr_fail(reason, "%s: %s", name, r.status == TALLY_STATUS_NOT_SUPPORTED ?
			                     "not supported on this machine" : "not counted");
		worst = r.status == TALLY_STATUS_SCALED ? r.status : worst;
		/* perf's expressions read the tool events' times in seconds (perf 6.1 stat-shadow.c scales them
		 * by 1e-9); the events count ns */
		val.v += ev->tool ? r.value * 1e-9 : r.value;
		val.scaled |= r.status == TALLY_STATUS_SCALED;
		first = first == SIZE_MAX ? j : first;
		found++;
	}
	if (!found)
		return tly_expr_fail(reason, "%s: not among the events read", name);
	if (e->v)
		note_input(e->v, ev->name, val.v, worst, found, first);
	if (source_count)
		val.v = (double)found;
	return val;
}

void tly_vendor_env(struct tly_vendor_eval *e, struct tly_expr_env *env)
{
	*env = (struct tly_expr_env){ .ctx = e, .name = event_value, .has_event = has_event,
		                      .cpuid_match = cpuid_match, .facts = &e->vm->facts };
}

int tally_vendor_metric_eval(const tally_vendor_metrics *vm, const struct tally_metric_sample *sample, size_t i,
                             struct tally_metric_value *value)
{
	int err = tly_vendor_check(vm, i, __func__);
	if (!err)
		err = tly_metric_args(sample, value, __func__);
	if (err)
		return err;
	const char *unit;
	double scale = tly_metric_scale(vm->defs[i].scale_unit, &unit);
	struct tally_metric_value full = { .sz = sizeof(full), .name = vm->defs[i].name, .threshold = -1 };
	snprintf(full.unit, sizeof(full.unit), "%s", unit);
	struct tly_vendor_eval e = { vm, sample, &full };
	struct tly_expr_env env;
	tly_vendor_env(&e, &env);
	/* one evaluation at a time: its results (each metric met, once) are vm's, not allocated per call */
	struct tally_vendor_metrics *mvm = (struct tally_vendor_metrics *)vm;
	pthread_mutex_lock(&mvm->eval_lock);
	struct tly_metric_results *res = &mvm->results;
	tly_metric_results_reset(res);
	struct tly_expr_val v = tly_metric_table_eval(vm->table, &env, res, i);
	full.available = v.ok;
	full.scaled = v.scaled;
	full.value = v.ok ? v.v * scale : 0;
	if (!v.ok)
		snprintf(full.reason, sizeof(full.reason), "%s", res->reasons[i]);
	int over = v.ok ? tly_metric_table_threshold(vm->table, &env, res, i, NULL) : -1;
	full.threshold = over < 0 ? -1 : over;
	pthread_mutex_unlock(&mvm->eval_lock);
	return TLY_INFO_COPY(value, &full, tally_metric_value);
}
