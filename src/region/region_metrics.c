/* SPDX-License-Identifier: MIT */
/*
 * The metrics a region set is asked for (tally_region_opts.metrics, TALLY_METRICS), split as tally stat -M
 * splits them: an item the machine's vendor table names (a metric or metric group, any case) is the
 * table's, whose events are appended to the set's spec in the groups tally_vendor_metrics_spec makes;
 * every other item is the catalogue's, which each thread's counter adds itself
 * (tally_counter_opts.metrics). The table's metrics are evaluated by region_write.c from each row's sums.
 */
#include "region/region.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* The items of list the table names (table) or not, as a string of their own: NULL when none. */
static int pick(const tally_vendor_metrics *vm, const char *list, bool table, char **out)
{
	*out = NULL;
	int len = tally_vendor_metrics_filter(vm, list, table, NULL, 0);
	if (len <= 0)
		return len;
	if (!(*out = malloc((size_t)len + 1)))
		return tly_error(-ENOMEM, "out of memory");
	tally_vendor_metrics_filter(vm, list, table, *out, (size_t)len + 1);
	return 0;
}

/* The spec the counters count: the set's, then the table's metrics' events. */
static int counting_spec(tally_region_set *s)
{
	unsigned flags = 0;
	int len = tally_vendor_metrics_spec(s->vendor, s->vendor_idx, s->nr_vendor, flags, NULL, 0);
	if (len <= 0)
		return len; /* no event of theirs can be named here: each reads not available, with the reason */
	size_t own = strlen(s->spec);
	if (!(s->counting = malloc(own + 1 + (size_t)len + 1)))
		return tly_error(-ENOMEM, "out of memory");
	memcpy(s->counting, s->spec, own);
	s->counting[own] = ',';
	len = tally_vendor_metrics_spec(s->vendor, s->vendor_idx, s->nr_vendor, flags, s->counting + own + 1,
	                                (size_t)len + 1);
	return len < 0 ? len : 0;
}

/* The table's metrics of vendor_list (non-empty, every item the table's): their indices and events. */
static int take_vendor(tally_region_set *s, const char *vendor_list)
{
	int n = tally_vendor_metrics_select(s->vendor, vendor_list, NULL, 0);
	if (n <= 0)
		return n;
	if (!(s->vendor_idx = calloc((size_t)n, sizeof(*s->vendor_idx))))
		return tly_error(-ENOMEM, "out of memory");
	s->nr_vendor = (size_t)tally_vendor_metrics_select(s->vendor, vendor_list, s->vendor_idx, (size_t)n);
	return counting_spec(s);
}

int tly_region_metrics_init(tally_region_set *s, const char *list)
{
	if (!list)
		return 0;
	TALLY_OPTS(tally_vendor_metrics_opts, vopts, .sysfs_root = s->sysfs_root);
	if (tally_vendor_metrics_load(&vopts, &s->vendor) < 0)
		s->vendor = NULL; /* no table here: every item is the catalogue's */
	char *vendor_list;
	int err = pick(s->vendor, list, true, &vendor_list);
	if (!err)
		err = pick(s->vendor, list, false, &s->metrics);
	if (!err && vendor_list)
		err = take_vendor(s, vendor_list);
	free(vendor_list);
	if (!err && !s->nr_vendor) {
		tally_vendor_metrics_free(s->vendor);
		s->vendor = NULL;
	}
	return err;
}

void tly_region_metrics_free(tally_region_set *s)
{
	tally_vendor_metrics_free(s->vendor);
	free(s->vendor_idx);
	free(s->counting);
	free(s->metrics);
}
