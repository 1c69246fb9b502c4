/* SPDX-License-Identifier: MIT */
/*
 * -M's list split between the vendors' metrics and the library's catalogue: an item that names a metric or
 * a metric group of the machine's vendor table (tally_vendor_metrics_select, any case) is the table's, its
 * events appended to the spec as the library groups them (--metric-no-group, --metric-no-merge); any other
 * item stays for the catalogue (the counter adds its events), so a machine without a table keeps tally's
 * own metrics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/metrics.h>

#include "stat/session.h"

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

/* Splits o->metrics into the vendor table's items (*vendor) and the catalogue's (*catalogue). */
static int split(const tally_vendor_metrics *vm, const char *metrics, char **vendor, char **catalogue)
{
	for (const char *item = metrics; *item;) {
		size_t len = strcspn(item, ",");
		char one[256];
		snprintf(one, sizeof(one), "%.*s", (int)len, item);
		int err = list_add(len && vm && tally_vendor_metrics_select(vm, one, NULL, 0) > 0 ? vendor : catalogue,
		                   item, len);
		if (err)
			return err;
		item += len + (item[len] == ',');
	}
	return 0;
}

static int append_spec(struct stat_session *s, const char *events)
{
	char *spec = NULL;
	if (asprintf(&spec, "%s%s%s", s->spec, *s->spec && *events ? "," : "", events) < 0)
		return -ENOMEM;
	free(s->spec);
	s->spec = spec;
	return 0;
}

int stat_vendor_metrics(struct stat_session *s, char **catalogue)
{
	const struct stat_options *o = &s->opt;
	*catalogue = NULL;
	if (!o->metrics)
		return 0;
	TALLY_OPTS(tally_vendor_metrics_opts, vopts);
	if (tally_vendor_metrics_load(&vopts, &s->vendor) < 0)
		s->vendor = NULL; /* no table here: every item is the catalogue's */
	char *vendor = NULL;
	int err = split(s->vendor, o->metrics, &vendor, catalogue);
	int n = err || !vendor ? 0 : tally_vendor_metrics_select(s->vendor, vendor, NULL, 0);
	if (n > 0 && !(s->vendor_metrics = calloc((size_t)n, sizeof(*s->vendor_metrics))))
		err = -ENOMEM;
	if (!err && n > 0) {
		s->nr_vendor_metrics = (size_t)tally_vendor_metrics_select(s->vendor, vendor, s->vendor_metrics, (size_t)n);
		unsigned flags = (o->metric_no_group ? TALLY_VENDOR_NO_GROUP : 0) |
		                 (o->metric_no_merge ? TALLY_VENDOR_NO_MERGE : 0);
		int len = tally_vendor_metrics_spec(s->vendor, s->vendor_metrics, s->nr_vendor_metrics, flags, NULL, 0);
		char *events = len < 0 ? NULL : malloc((size_t)len + 1);
		err = len < 0 ? len : !events ? -ENOMEM : 0;
		if (!err)
			tally_vendor_metrics_spec(s->vendor, s->vendor_metrics, s->nr_vendor_metrics, flags, events,
			                          (size_t)len + 1);
		if (!err)
			err = append_spec(s, events);
		free(events);
	}
	free(vendor);
	return err;
}
