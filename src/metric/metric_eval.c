/* SPDX-License-Identifier: MIT */
/*
 * A metric evaluated from a sample: each input matched to the sample's events by what they count, per core
 * PMU part or summed over the parts, and "not available" with the reason wherever an input is missing, not
 * counted or not supported, or a denominator is 0.
 */
#include "metric/metric.h"

#include "core/error.h"
#include "core/opts.h"
#include "spec/event_list.h"
#include "spec/hybrid.h"

#include <linux/perf_event.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

/* A generic input is matched by tly_counts_generic (hybrid.c: the PMU's type in config[63:32] on hybrid
 * x86, a cluster's own type and event number on arm64); the part (the PMU) is told by the event's PMU name. */

/* The most core PMUs a summed metric adds up (cpu_core and cpu_atom; arm64 clusters: a few). */
#define MAX_PARTS 16

int tly_metric_sample_check(const struct tally_metric_sample *s, const char *fn)
{
	if (!s)
		return tly_null_arg(fn);
	if (!TLY_OPTS_VALID(s, tally_metric_sample))
		return -TALLY_EOPTS;
	if (!s->events || (!s->results && !s->values && s->n))
		return tly_error(-EINVAL, "%s: the sample has no events, or neither results nor values", fn);
	if (s->results && (s->elem_sz < tly_offsetofend(struct tally_result, status) ||
	                   s->elem_sz % alignof(struct tally_result)))
		return tly_error(-TALLY_EOPTS, "%s: elem_sz %zu is not the size of a struct tally_result (pass "
		                               "sizeof(results[0]))", fn, s->elem_sz);
	return 0;
}

int tly_metric_args(const struct tally_metric_sample *s, const struct tally_metric_value *value, const char *fn)
{
	int err = tly_metric_sample_check(s, fn);
	if (!err && !value)
		err = tly_null_arg(fn);
	return err ? err : tly_info_check(value, "tally_metric_value");
}

size_t tly_metric_sample_count(const struct tally_metric_sample *s)
{
	size_t n = tally_events_count(s->events);
	return s->n < n ? s->n : n;
}

struct tly_reading tly_metric_read(const struct tally_metric_sample *s, size_t i)
{
	if (s->results) {
		const struct tally_result *r = (const void *)((const char *)s->results + i * s->elem_sz);
		return (struct tly_reading){ (double)r->scaled, r->status };
	}
	return (struct tly_reading){ s->values[i], s->statuses ? s->statuses[i] : TALLY_STATUS_EXACT };
}

const struct tly_event *tly_metric_event(const struct tally_metric_sample *s, size_t i)
{
	return &s->events->v[i];
}

bool tly_metric_counted(enum tally_status status)
{
	return status == TALLY_STATUS_EXACT || status == TALLY_STATUS_SCALED;
}

/* Whether an event that counts term t belongs to part (NULL: every part). Software counts for all. */
static bool in_part(const struct tly_metric_term *t, const struct tly_event *info, const char *part)
{
	if (!part || t->kind == TLY_METRIC_SW)
		return true;
	return info->pmu && strcmp(info->pmu, part) == 0;
}

static bool same_modifiers(const struct tly_event *a, const struct tly_event *b)
{
	return a->attr.exclude_user == b->attr.exclude_user && a->attr.exclude_kernel == b->attr.exclude_kernel;
}

/* Event j counting term t of part, in brace group `group` (-1: any group, with ref's modifiers when ref is
 * not NULL), or -1. */
static long find_term(const struct tally_metric_sample *s, const struct tly_metric_term *t, const char *part,
                      int group, const struct tly_event *ref)
{
	size_t n = tly_metric_sample_count(s);
	for (size_t j = 0; j < n; j++) {
		const struct tly_event *info = tly_metric_event(s, j);
		if (!tly_metric_term_matches(t, info) || !in_part(t, info, part) || (group >= 0 && info->group != group))
			continue;
		if (group < 0 && ref && !same_modifiers(info, ref))
			continue;
		return (long)j;
	}
	return -1;
}

/* The events of part that m takes, chosen[k] for term k (-1: none): the brace group that holds every term
 * when there is one (the one tally_counter_new appended: one window), else the first event of each term
 * with the modifiers of the first term found. */
static void pick(const struct tally_metric_sample *s, const struct tly_metric *m, const char *part, long *chosen)
{
	size_t n = tly_metric_sample_count(s);
	int tried = -1;
	for (size_t i = 0; i < n; i++) {
		const struct tly_event *info = tly_metric_event(s, i);
		/* Groups are numbered in spec order, so each is tried once, at its first event. */
		if (info->group <= tried)
			continue;
		tried = info->group;
		size_t k = 0;
		for (; k < m->nr_terms; k++)
			if ((chosen[k] = find_term(s, &m->terms[k], part, info->group, NULL)) < 0)
				break;
		if (k == m->nr_terms)
			return;
	}
	const struct tly_event *have = NULL;
	for (size_t k = 0; k < m->nr_terms; k++) {
		chosen[k] = find_term(s, &m->terms[k], part, -1, have);
		if (chosen[k] >= 0 && !have) {
			have = tly_metric_event(s, (size_t)chosen[k]);
		}
	}
}

/* The distinct PMUs of the events that count m's hardware terms, into parts[0 .. max); returns how many. */
static size_t find_parts(const struct tally_metric_sample *s, const struct tly_metric *m, const char **parts,
                         size_t max)
{
	size_t nr = 0, n = tly_metric_sample_count(s);
	for (size_t j = 0; j < n; j++) {
		const struct tly_event *info = tly_metric_event(s, j);
		bool hardware = false;
		for (size_t k = 0; k < m->nr_terms && !hardware; k++)
			hardware = m->terms[k].kind != TLY_METRIC_SW && tly_metric_term_matches(&m->terms[k], info);
		if (!hardware || !info->pmu)
			continue;
		size_t p = 0;
		while (p < nr && p < max && strcmp(parts[p], info->pmu) != 0)
			p++;
		if (p == nr) {
			if (nr < max)
				parts[nr] = info->pmu;
			nr++;
		}
	}
	return nr;
}

static enum tally_status worse(enum tally_status a, enum tally_status b)
{
	return a > b ? a : b;
}

/* Whether a part's events make a summand: every hardware input found, and not all of them "not counted"
 * (the task never ran on those cores: their counts are zero, not unknown). */
static bool part_counts(const struct tally_metric_sample *s, const struct tly_metric *m, const long *chosen)
{
	bool idle = true;
	for (size_t k = 0; k < m->nr_terms; k++) {
		if (m->terms[k].kind == TLY_METRIC_SW)
			continue;
		if (chosen[k] < 0)
			return false;
		idle &= tly_metric_read(s, (size_t)chosen[k]).status == TALLY_STATUS_NOT_COUNTED;
	}
	return !idle;
}

/* Adds a part's chosen events into v's inputs; the software ones (every part's) only from the first. */
static void add_part(const struct tally_metric_sample *s, const struct tly_metric *m, const long *chosen,
                     bool first, struct tally_metric_value *v)
{
	for (size_t k = 0; k < m->nr_terms; k++) {
		struct tally_metric_input *in = &v->inputs[k];
		if (chosen[k] < 0 || (m->terms[k].kind == TLY_METRIC_SW && !first))
			continue;
		struct tly_reading r = tly_metric_read(s, (size_t)chosen[k]);
		in->status = in->found ? worse(in->status, r.status) : r.status;
		if (!in->found)
			in->first_event = (size_t)chosen[k];
		in->found = true;
		in->nr_events++;
		if (tly_metric_counted(r.status))
			in->value += r.value;
	}
}

/* Why the inputs give no value, into v->reason; false when they do. */
static bool unusable(const struct tally_metric_sample *s, const struct tly_metric *m, struct tally_metric_value *v)
{
	for (size_t k = 0; k < m->nr_terms; k++) {
		const struct tally_metric_input *in = &v->inputs[k];
		if (!in->found) {
			snprintf(v->reason, sizeof(v->reason), "needs %s, which is not among the events (applies to: %s)",
			         in->event, m->applies);
			return true;
		}
		if (tly_metric_counted(in->status))
			continue;
		const struct tly_event *info = tly_metric_event(s, in->first_event);
		snprintf(v->reason, sizeof(v->reason), "%s: %s", info->name,
		         in->status == TALLY_STATUS_NOT_SUPPORTED ? "not supported on this machine" : "not counted");
		return true;
	}
	if (m->needs_seconds && !(s->seconds > 0)) {
		snprintf(v->reason, sizeof(v->reason), "the wall-clock time of the sample is not known");
		return true;
	}
	return false;
}

static void evaluate(const struct tally_metric_sample *s, const struct tly_metric *m, struct tally_metric_value *v)
{
	*v = (struct tally_metric_value){ .sz = sizeof(*v), .name = m->name, .nr_inputs = m->nr_terms,
	                                  .threshold = -1 };
	snprintf(v->unit, sizeof(v->unit), "%s", m->unit);
	for (size_t k = 0; k < m->nr_terms; k++)
		v->inputs[k] = (struct tally_metric_input){ .event = m->terms[k].name };
	/* Summed: the parts that counted add up (a ratio of sums, as perf's hybrid totals); with none, the
	 * first part alone says why not. */
	const char *parts[MAX_PARTS] = { s->pmu };
	size_t nr_parts = s->pmu ? 1 : find_parts(s, m, parts, MAX_PARTS);
	if (nr_parts > MAX_PARTS)
		nr_parts = MAX_PARTS;
	if (nr_parts == 0)
		nr_parts = 1; /* parts[0] is NULL: any event */
	long chosen[MAX_PARTS][TALLY_METRIC_MAX_INPUTS];
	bool use[MAX_PARTS], any = false;
	for (size_t p = 0; p < nr_parts; p++) {
		pick(s, m, parts[p], chosen[p]);
		any |= use[p] = nr_parts == 1 || part_counts(s, m, chosen[p]);
	}
	use[0] |= !any;
	bool first = true;
	for (size_t p = 0; p < nr_parts; p++)
		if (use[p]) {
			add_part(s, m, chosen[p], first, v);
			first = false;
		}
	if (unusable(s, m, v))
		return;
	double in[TALLY_METRIC_MAX_INPUTS];
	for (size_t k = 0; k < m->nr_terms; k++) {
		in[k] = v->inputs[k].value;
		v->scaled |= v->inputs[k].status == TALLY_STATUS_SCALED;
	}
	struct tly_metric_calc calc = { in, s->seconds, v->reason, sizeof(v->reason) };
	double value;
	if (m->compute(m, &calc, &value)) {
		v->available = true;
		v->value = value;
	}
}

int tally_metric_eval(const struct tally_metric_sample *sample, size_t metric, struct tally_metric_value *value)
{
	int err = tly_metric_args(sample, value, __func__);
	if (!err && metric >= tly_nr_metrics)
		err = tly_error(-ERANGE, "tally_metric_eval: no metric %zu (the catalogue has %zu)", metric, tly_nr_metrics);
	if (err)
		return err;
	struct tally_metric_value full;
	evaluate(sample, &tly_metrics[metric], &full);
	return TLY_INFO_COPY(value, &full, tally_metric_value);
}

int tally_metric_parts(const struct tally_metric_sample *sample, size_t metric, const char **pmus, size_t n)
{
	int err = tly_metric_sample_check(sample, __func__);
	if (!err && !pmus && n)
		err = tly_null_arg(__func__);
	if (!err && metric >= tly_nr_metrics)
		err = tly_error(-ERANGE, "tally_metric_parts: no metric %zu (the catalogue has %zu)", metric, tly_nr_metrics);
	return err ? err : (int)find_parts(sample, &tly_metrics[metric], pmus, n);
}
