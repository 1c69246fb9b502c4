/* SPDX-License-Identifier: MIT */
#include "report_metrics.h"

#include <stdio.h>
#include <stdlib.h>

static enum tally_status library_status(enum report_status status)
{
	switch (status) {
	case REPORT_COUNTED: return TALLY_STATUS_EXACT;
	case REPORT_SCALED: return TALLY_STATUS_SCALED;
	case REPORT_NOT_COUNTED: return TALLY_STATUS_NOT_COUNTED;
	case REPORT_NOT_SUPPORTED: return TALLY_STATUS_NOT_SUPPORTED;
	}
	return TALLY_STATUS_NOT_SUPPORTED;
}

/* The reading as the library's sample: the counts' scaled values (means with -r) and statuses, keyed by
 * the report's events list. Returns false without memory (or without a list); free sample->values. */
static bool make_sample(const struct report *r, const struct report_count *counts, double seconds,
                        struct tally_metric_sample *sample)
{
	size_t n = r->nr_events;
	if (!r->list)
		return false;
	/* One block: the values, then the statuses (a double's alignment suits the enum). */
	double *values = malloc((n ? n : 1) * (sizeof(double) + sizeof(enum tally_status)));
	if (!values)
		return false;
	enum tally_status *statuses = (enum tally_status *)(values + n);
	for (size_t i = 0; i < n; i++) {
		values[i] = counts[i].scaled;
		statuses[i] = library_status(counts[i].status);
	}
	*sample = (struct tally_metric_sample){ .sz = sizeof(*sample), .events = r->list, .values = values,
		                                .statuses = statuses, .n = n, .seconds = seconds };
	return true;
}

bool report_comment(const struct report *r, const struct report_count *counts, size_t i, double seconds,
                    struct tally_metric_value *v)
{
	struct tally_metric_sample sample;
	*v = (struct tally_metric_value){ .sz = sizeof(*v) };
	if (!make_sample(r, counts, seconds, &sample))
		return false;
	int ret = tally_metric_comment(&sample, i, v);
	free((double *)sample.values);
	return ret == 1;
}

void report_metric(const struct report *r, const struct report_count *counts, double seconds, size_t k,
                   const char *pmu, struct tally_metric_value *v)
{
	struct tally_metric_sample sample;
	*v = (struct tally_metric_value){ .sz = sizeof(*v) };
	TALLY_OPTS(tally_metric_info, info);
	tally_metric_at(r->metrics[k], &info);
	v->name = info.name;
	snprintf(v->unit, sizeof(v->unit), "%s", info.unit);
	if (!make_sample(r, counts, seconds, &sample)) {
		snprintf(v->reason, sizeof(v->reason), "out of memory");
		return;
	}
	sample.pmu = pmu;
	if (tally_metric_eval(&sample, r->metrics[k], v) < 0)
		snprintf(v->reason, sizeof(v->reason), "%s", tally_last_error());
	free((double *)sample.values);
}

size_t report_metric_parts(const struct report *r, const struct report_count *counts, size_t k, const char **pmus,
                           size_t n)
{
	struct tally_metric_sample sample;
	if (!make_sample(r, counts, 0, &sample))
		return 0;
	int nr = tally_metric_parts(&sample, r->metrics[k], pmus, n);
	free((double *)sample.values);
	return nr < 0 ? 0 : (size_t)nr;
}
