/* SPDX-License-Identifier: MIT */
/*
 * -M's list split between the vendors' metrics and the library's catalogue: an item that names a metric or
 * a metric group of the machine's vendor table (tally_vendor_metrics_select, any case) is the table's, its
 * events given as a spec that groups them as the library does (--metric-no-group, --metric-no-merge); any
 * other item stays for the catalogue (the counter adds its events), so that a machine without a table keeps
 * tally's own metrics.
 */
#include "report/metric_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library's answers are computed whole at each call (snprintf-style): a first buffer of this size takes
 * most at once, so that the size query is made only for a larger one. */
enum { FIRST_GUESS = 4096 };

/* The items of list that vm's table names (table) or that it does not, into *out (NULL when none). */
static int pick(const tally_vendor_metrics *vm, const char *list, bool table, char **out)
{
	char *text = malloc(FIRST_GUESS);
	if (!text)
		return -ENOMEM;
	int len = tally_vendor_metrics_filter(vm, list, table, text, FIRST_GUESS);
	if (len >= FIRST_GUESS) {
		char *grown = realloc(text, (size_t)len + 1);
		if (!grown) {
			free(text);
			return -ENOMEM;
		}
		text = grown;
		len = tally_vendor_metrics_filter(vm, list, table, text, (size_t)len + 1);
	}
	if (len <= 0) {
		free(text);
		return len;
	}
	*out = text;
	return 0;
}

/* Appends item (len bytes) to the comma-separated *list. */
static int list_add(char **list, const char *item, size_t len)
{
	size_t old = *list ? strlen(*list) : 0;
	char *grown = realloc(*list, old + len + 2);
	if (!grown)
		return -ENOMEM;
	if (old)
		grown[old++] = ',';
	memcpy(grown + old, item, len);
	grown[old + len] = '\0';
	*list = grown;
	return 0;
}

/* The events of m's vendor metrics into m->vendor_spec. */
static int vendor_spec(struct metric_list *m, unsigned flags)
{
	if (!(m->vendor_spec = malloc(FIRST_GUESS)))
		return -ENOMEM;
	int len = tally_vendor_metrics_spec(m->vendor, m->vendor_metrics, m->nr_vendor, flags, m->vendor_spec,
	                                    FIRST_GUESS);
	if (len >= FIRST_GUESS) {
		char *grown = realloc(m->vendor_spec, (size_t)len + 1);
		if (!grown)
			return -ENOMEM;
		m->vendor_spec = grown;
		len = tally_vendor_metrics_spec(m->vendor, m->vendor_metrics, m->nr_vendor, flags, m->vendor_spec,
		                                (size_t)len + 1);
	}
	return len < 0 ? len : 0;
}

/* The vendor table's groups TopdownL1 .. TopdownL<levels>, appended to *vendor. */
static int add_levels(const tally_vendor_metrics *vm, unsigned levels, char **vendor)
{
	for (unsigned l = 1; vm && l <= levels; l++) {
		char group[16];
		int len = snprintf(group, sizeof(group), "TopdownL%u", l);
		int err = tally_vendor_metrics_select(vm, group, NULL, 0) > 0 ? list_add(vendor, group, (size_t)len) : 0;
		if (err)
			return err;
	}
	return 0;
}

int metric_list_resolve(const char *list, unsigned flags, unsigned levels, const tally_pmus *pmus,
                        struct metric_list *m)
{
	*m = (struct metric_list){ 0 };
	if (!list)
		return (m->vendor_spec = strdup("")) ? 0 : -ENOMEM;
	TALLY_OPTS(tally_vendor_metrics_opts, vopts, .pmus = pmus);
	if (tally_vendor_metrics_load(&vopts, &m->vendor) < 0)
		m->vendor = NULL; /* no table here: every item is the catalogue's */
	char *vendor = NULL;
	int err = pick(m->vendor, list, true, &vendor);
	if (!err)
		err = pick(m->vendor, list, false, &m->catalogue);
	if (!err)
		err = add_levels(m->vendor, levels, &vendor);
	size_t room = FIRST_GUESS / sizeof(*m->vendor_metrics);
	if (!err && vendor && !(m->vendor_metrics = calloc(room, sizeof(*m->vendor_metrics))))
		err = -ENOMEM;
	int n = err || !vendor ? 0 : tally_vendor_metrics_select(m->vendor, vendor, m->vendor_metrics, room);
	if (n > 0 && (size_t)n > room) {
		size_t *grown = realloc(m->vendor_metrics, (size_t)n * sizeof(*grown));
		if (!grown)
			err = -ENOMEM;
		else
			n = tally_vendor_metrics_select(m->vendor, vendor, m->vendor_metrics = grown, (size_t)n);
	}
	if (!err && n > 0)
		m->nr_vendor = (size_t)n;
	free(vendor);
	if (!err)
		err = n > 0 ? vendor_spec(m, flags) : (m->vendor_spec = strdup("")) ? 0 : -ENOMEM;
	if (err)
		metric_list_free(m);
	return err;
}

void metric_list_free(struct metric_list *m)
{
	tally_vendor_metrics_free(m->vendor);
	free(m->vendor_metrics);
	free(m->vendor_spec);
	free(m->catalogue);
	*m = (struct metric_list){ 0 };
}
