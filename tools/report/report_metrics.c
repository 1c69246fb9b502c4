/* SPDX-License-Identifier: MIT */
#include "report/report_metrics.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The line of event j in cgroup g (-G, --for-each-cgroup: a line per event and cgroup), or SIZE_MAX
 * where the event is not counted in it. */
static size_t cgroup_line(const struct report *r, size_t j, size_t g)
{
	for (size_t k = 0; k < r->nr_events; k++)
		if (r->line_event[k] == j && r->line_cgroup[k] == g)
			return k;
	return SIZE_MAX;
}

/* The reading as the library's sample: the counts' scaled values (means with -r) and statuses, keyed by
 * the report's events list. With cgroups, the counts of cgroup g's lines (perf rates a cgroup's events
 * over that cgroup's task-clock). Returns false without memory (or without a list); free sample->values. */
static bool make_sample(const struct report *r, const struct report_count *counts, double seconds, size_t g,
                        struct tally_metric_sample *sample)
{
	if (!r->list)
		return false;
	size_t n = r->line_event ? tally_events_count(r->list) : r->nr_events;
	/* One block: the values, then the statuses (a double's alignment suits the enum). */
	double *values = malloc((n ? n : 1) * (sizeof(double) + sizeof(enum tally_status)));
	if (!values)
		return false;
	enum tally_status *statuses = (enum tally_status *)(values + n);
	for (size_t i = 0; i < n; i++) {
		size_t line = r->line_event ? cgroup_line(r, i, g) : i;
		values[i] = line == SIZE_MAX ? 0 : counts[line].scaled;
		statuses[i] = line == SIZE_MAX ? TALLY_STATUS_NOT_COUNTED : report_status_library(counts[line].status);
	}
	*sample = (struct tally_metric_sample){ .sz = sizeof(*sample), .events = r->list, .values = values,
		                                .statuses = statuses, .n = n, .seconds = seconds };
	return true;
}

/* Whether the report's metric k is the vendor table's (the ones after the catalogue's). */
static bool is_vendor(const struct report *r, size_t k)
{
	return r->vendor && k >= r->nr_catalog;
}

bool report_comment(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                    struct tally_metric_value *v)
{
	struct tally_metric_sample sample;
	*v = (struct tally_metric_value){ .sz = sizeof(*v) };
	if (!make_sample(r, counts, seconds, r->line_cgroup ? r->line_cgroup[i] : 0, &sample))
		return false;
	int ret = tally_metric_comment(&sample, r->line_event ? r->line_event[i] : i, v);
	free((double *)sample.values);
	return ret == 1;
}

size_t report_metric_cgroups(const struct report *r)
{
	return r->cgroups ? r->nr_cgroups : 1;
}

bool report_metric(const struct report *r, const struct report_count *counts, double seconds, size_t k,
                   const char *pmu, size_t g, struct tally_metric_value *v)
{
	struct tally_metric_sample sample;
	bool vendor = is_vendor(r, k);
	*v = (struct tally_metric_value){ .sz = sizeof(*v), .threshold = -1 };
	if (vendor) {
		TALLY_OPTS(tally_vendor_metric_info, info);
		tally_vendor_metric_at(r->vendor, r->metrics[k], &info);
		v->name = info.name;
		snprintf(v->unit, sizeof(v->unit), "%s", info.unit);
	} else {
		TALLY_OPTS(tally_metric_info, info);
		tally_metric_at(r->metrics[k], &info);
		v->name = info.name;
		snprintf(v->unit, sizeof(v->unit), "%s", info.unit);
	}
	if (!make_sample(r, counts, seconds, g, &sample)) {
		snprintf(v->reason, sizeof(v->reason), "out of memory");
		return true;
	}
	sample.pmu = pmu;
	int err = vendor ? tally_vendor_metric_eval(r->vendor, &sample, r->metrics[k], v)
	                 : tally_metric_eval(&sample, r->metrics[k], v);
	if (err < 0)
		snprintf(v->reason, sizeof(v->reason), "%s", tally_last_error());
	free((double *)sample.values);
	if (!r->line_event)
		return true;
	/* The events the evaluation took: shown in the cgroup they count in; where -G gave them different
	 * cgroups, a value would mix two cgroups' counts. */
	const char *elsewhere = NULL;
	bool here = false;
	for (size_t j = 0; j < v->nr_inputs; j++) {
		if (!v->inputs[j].found)
			continue;
		if (cgroup_line(r, v->inputs[j].first_event, g) != SIZE_MAX)
			here = true;
		else if (!elsewhere)
			elsewhere = v->inputs[j].event;
	}
	if (here && elsewhere) {
		v->available = false;
		v->value = 0;
		snprintf(v->reason, sizeof(v->reason), "%s is not counted in this cgroup (-G gave the metric's events "
		         "different cgroups: give -e every event it reads before -G)", elsewhere);
	}
	return here;
}

size_t report_metric_parts(const struct report *r, const struct report_count *counts, size_t k, const char **pmus,
                           size_t n)
{
	struct tally_metric_sample sample;
	if (is_vendor(r, k) || !make_sample(r, counts, 0, 0, &sample))
		return 0; /* a vendor metric is the core PMU's table's: one part */
	int nr = tally_metric_parts(&sample, r->metrics[k], pmus, n);
	free((double *)sample.values);
	return nr < 0 ? 0 : (size_t)nr;
}

struct metric_window report_metric_window(const struct report *r, const struct report_count *counts, size_t g,
                                          const struct tally_metric_value *v)
{
	struct metric_window w = { 0 };
	bool any = false, scaled = false, groups_differ = false, runs_differ = false;
	int group = -1;
	for (size_t j = 0; j < v->nr_inputs; j++) {
		const struct tally_metric_input *in = &v->inputs[j];
		size_t line = !in->found ? SIZE_MAX : r->line_event ? cgroup_line(r, in->first_event, g) : in->first_event;
		if (line == SIZE_MAX || line >= r->nr_events)
			continue;
		const struct report_count *c = &counts[line];
		if (c->status != REPORT_COUNTED && c->status != REPORT_SCALED)
			continue;
		scaled |= c->status == REPORT_SCALED;
		groups_differ |= any && c->group != group;
		runs_differ |= any && c->run != w.run;
		group = c->group;
		w.run = c->run;
		any = true;
	}
	w.mixed = runs_differ || (groups_differ && scaled);
	if (runs_differ)
		w.run = 0;
	return w;
}
