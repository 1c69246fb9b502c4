/* SPDX-License-Identifier: MIT */
/*
 * The metrics a counter is asked for (tally_counter_opts.metrics): each metric's events appended to the
 * spec as one brace group, so that its ratio comes from one window (the parser makes one group per core
 * PMU on a hybrid machine), each group once. A metric of software events only (CPUs_utilized,
 * cs_per_second) needs no group, since those never multiplex: only the events the spec lacks are added,
 * alone, so that `-e task-clock -M CPUs_utilized` counts task-clock once.
 */
#include "counter/counter.h"
#include "spec/metric_catalog.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether every event of group spec a ("{x,y}") is also in group spec b. */
static bool group_within(const char *a, const char *b)
{
	for (const char *p = a + 1; *p && *p != '}';) {
		size_t len = strcspn(p, ",}");
		bool found = false;
		for (const char *q = b + 1; *q && *q != '}' && !found;) {
			size_t l = strcspn(q, ",}");
			found = l == len && strncmp(p, q, len) == 0;
			q += l + (q[l] == ',');
		}
		if (!found)
			return false;
		p += len + (p[len] == ',');
	}
	return true;
}

/* Parses spec on the counter's PMUs, keeping the caller's last error: NULL when it does not parse. */
static tally_events *parse_quietly(const char *spec, const tally_pmus *pmus, const char *root)
{
	struct tly_error_saved saved;
	tly_error_save(&saved);
	TALLY_OPTS(tally_parse_opts, parse, .pmus = pmus, .sysfs_root = root);
	tally_events *events = NULL;
	if (tally_events_parse(spec, &parse, &events) != 0)
		events = NULL;
	tly_error_restore(&saved);
	return events;
}

static bool software_only(const struct tly_metric *m)
{
	for (size_t k = 0; k < m->nr_terms; k++)
		if (m->terms[k].kind != TLY_METRIC_SW)
			return false;
	return true;
}

/* Appends to out (used bytes of len) the software events of m that the spec so far lacks. */
static size_t add_missing(const struct tly_metric *m, char *out, size_t used, size_t len, const tally_pmus *pmus,
                          const char *root)
{
	for (size_t k = 0; k < m->nr_terms; k++) {
		tally_events *so_far = used ? parse_quietly(out, pmus, root) : NULL;
		bool present = so_far && tly_metric_term_present(so_far, &m->terms[k]);
		tally_events_free(so_far);
		if (!present)
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", m->terms[k].name);
	}
	return used;
}

/* Whether metric k's group is to be added: it names events this machine has, and no other requested
 * metric's group holds it (the level-1 topdown group beside a level-2 one), nor an earlier one that is
 * the same. */
static bool adds_group(const size_t *metrics, size_t nr, size_t k, const tally_pmus *pmus, const char *root)
{
	const char *own = tly_metrics[metrics[k]].events;
	for (size_t j = 0; j < nr; j++) {
		const char *other = tly_metrics[metrics[j]].events;
		bool same = strcmp(own, other) == 0;
		if ((same && j < k) || (!same && group_within(own, other)))
			return false;
	}
	/* A group this machine cannot even name (topdown-* without PERF_METRICS) is left out: the metric
	 * then evaluates as not available, saying which event it needs and where it applies. */
	tally_events *probe = parse_quietly(own, pmus, root);
	if (!probe)
		tly_log(TALLY_LOG_INFO, "metric %s: its events %s are not all known here, so it is not counted",
		        tly_metrics[metrics[k]].name, own);
	tally_events_free(probe);
	return probe != NULL;
}

int tly_counter_metrics_spec(tally_counter *c, const char *spec, const char *list, const tally_pmus *pmus,
                             const char *root, char **combined)
{
	*combined = NULL;
	int nr = tly_metrics_select(list, NULL, 0);
	if (nr < 0)
		return nr;
	c->metrics = calloc((size_t)nr, sizeof(*c->metrics));
	if (!c->metrics)
		return tly_error(-ENOMEM, "out of memory");
	c->nr_metrics = (size_t)tly_metrics_select(list, c->metrics, (size_t)nr);
	size_t len = strlen(spec) + 1;
	for (size_t k = 0; k < c->nr_metrics; k++)
		len += strlen(tly_metrics[c->metrics[k]].events) + 1;
	char *out = malloc(len);
	if (!out)
		return tly_error(-ENOMEM, "out of memory");
	size_t used = (size_t)snprintf(out, len, "%s", spec);
	for (size_t k = 0; k < c->nr_metrics; k++) {
		const struct tly_metric *m = &tly_metrics[c->metrics[k]];
		if (software_only(m))
			used = add_missing(m, out, used, len, pmus, root);
		else if (adds_group(c->metrics, c->nr_metrics, k, pmus, root))
			used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", m->events);
	}
	if (used == 0) {
		free(out);
		const struct tly_metric *m = &tly_metrics[c->metrics[0]];
		return tly_error(-TALLY_ESPEC, "no event to count: the spec is empty and the events of metric %s (%s) "
		                               "do not exist on this machine (it applies to: %s)", m->name, m->events,
		                 m->applies);
	}
	*combined = out;
	return 0;
}

int tally_counter_metrics(const tally_counter *c, size_t *indices, size_t n)
{
	if (!c || (!indices && n))
		return tly_null_arg(__func__);
	for (size_t k = 0; k < c->nr_metrics && k < n; k++)
		indices[k] = c->metrics[k];
	return (int)c->nr_metrics;
}
