/* SPDX-License-Identifier: MIT */
/*
 * -M's list resolved (tally stat -M, tally encode -M): the items the machine's vendor table names (its
 * metrics and metric groups, any case) and the others, left for the library's catalogue.
 */
#ifndef TALLY_REPORT_METRIC_LIST_H
#define TALLY_REPORT_METRIC_LIST_H

#include <stddef.h>
#include <tally/metrics.h>

struct metric_list {
	tally_vendor_metrics *vendor; /* the table's metrics; NULL where the machine has none */
	size_t *vendor_metrics;       /* the table's metrics asked for: its indices */
	size_t nr_vendor;
	char *vendor_spec;            /* their events, grouped as the library groups them ("" without) */
	char *catalogue;              /* the other items, for tally_counter_opts.metrics; NULL without */
};

/* Resolves list (NULL: nothing) with tally_vendor_spec_flags; where the machine has a vendor table, its
 * groups TopdownL1 to TopdownL<levels> are added (--td-level 3 to 6, --drilldown: the catalogue has
 * levels 1 and 2 only). pmus: the snapshot the counter will use (NULL: the library loads one). 0, or a
 * negative code (last error set). */
int metric_list_resolve(const char *list, unsigned flags, unsigned levels, const tally_pmus *pmus,
                        struct metric_list *out);
void metric_list_free(struct metric_list *m);

#endif
