/* SPDX-License-Identifier: MIT */
#include "exporter/metric_set.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <tally/common.h>
#include <tally/events.h>

/* The units the vendor tables and the catalogue write, to Prometheus's base units (its naming practices:
 * seconds, bytes, hertz, a ratio of 0 to 1 rather than a percentage), and the suffix the family's name
 * then ends in. A unit not listed ("insn per cycle", "per_instr", "MPKI") has no base unit: the family's
 * name has no suffix and its HELP gives the unit. */
static const struct unit_rule {
	const char *unit;
	bool prefix;         /* unit is a prefix ("percent of slots", "%slots") */
	const char *suffix;
	const char *words;   /* the base unit, for the HELP text */
	double factor;
} unit_rules[] = {
	{ "%", true, "ratio", "a ratio, 0 to 1", 0.01 },
	{ "percent", true, "ratio", "a ratio, 0 to 1", 0.01 },
	{ "GHz", false, "hertz", "hertz", 1e9 },
	{ "MHz", false, "hertz", "hertz", 1e6 },
	{ "ns", false, "seconds", "seconds", 1e-9 },
	{ "us", false, "seconds", "seconds", 1e-6 },
	{ "ms", false, "seconds", "seconds", 1e-3 },
	{ "MB/s", false, "bytes_per_second", "bytes per second", 1e6 },
	{ "MB/sec", false, "bytes_per_second", "bytes per second", 1e6 },
	{ "GB/s", false, "bytes_per_second", "bytes per second", 1e9 },
	{ "GB/sec", false, "bytes_per_second", "bytes per second", 1e9 },
	{ "MiB", false, "bytes", "bytes", 1048576 },
	{ "Bytes", false, "bytes", "bytes", 1 },
	{ "/sec", false, "per_second", "per second", 1 },
};

static const struct unit_rule *unit_rule(const char *unit)
{
	for (size_t i = 0; unit && i < sizeof(unit_rules) / sizeof(unit_rules[0]); i++) {
		const struct unit_rule *r = &unit_rules[i];
		if (r->prefix ? strncmp(unit, r->unit, strlen(r->unit)) == 0 : strcmp(unit, r->unit) == 0)
			return r;
	}
	return NULL;
}

/* "tally_metric_" and the metric's name in lower case, each character a metric name may not hold an
 * underscore, then the unit's suffix unless the name ends in it already (page_faults_per_second). */
static void family_name(char *out, size_t len, const char *name, const char *suffix)
{
	int n = snprintf(out, len, "tally_metric_");
	for (const char *p = name; *p && (size_t)n + 1 < len; p++)
		out[n++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	out[n] = '\0';
	size_t have = strlen(out), tail = suffix ? strlen(suffix) : 0;
	bool ends = suffix && have > tail && strcmp(out + have - tail, suffix) == 0 && out[have - tail - 1] == '_';
	if (suffix && !ends)
		snprintf(out + have, len - have, "_%s", suffix);
}

static int add_gauge(struct metric_set *set, const char *name, bool vendor, size_t index, const char *unit,
                     const char *source, const char *description)
{
	struct metric_gauge *grown = realloc(set->gauges, (set->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	set->gauges = grown;
	struct metric_gauge *g = &set->gauges[set->nr++];
	memset(g, 0, sizeof(*g));
	const struct unit_rule *rule = unit_rule(unit);
	g->name = name;
	g->vendor = vendor;
	g->index = index;
	g->factor = rule ? rule->factor : 1;
	family_name(g->family, sizeof(g->family), name, rule ? rule->suffix : NULL);
	char unit_text[160];
	if (rule)
		snprintf(unit_text, sizeof(unit_text), "%s (the metric's own: %s)", rule->words, unit);
	else
		snprintf(unit_text, sizeof(unit_text), "%s", unit && *unit ? unit : "none");
	snprintf(g->help, sizeof(g->help), "Metric %s (%s) over the latest interval's scaled counts: %s. Unit: %s.",
	         name, source, description && *description ? description : "no description", unit_text);
	for (char *p = g->help; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return 0;
}

int metric_set_resolve(struct metric_set *set, const char *list, const char *spec, char **counted, char *err,
                       size_t err_len)
{
	memset(set, 0, sizeof(*set));
	*counted = NULL;
	int e = metric_list_resolve(list, 0, 0, NULL, &set->list);
	if (e < 0) {
		snprintf(err, err_len, "metrics: %s", e == -ENOMEM ? "out of memory" : tally_last_error());
		return -1;
	}
	if (set->list.catalogue && tally_metrics_select(set->list.catalogue, NULL, 0) < 0) {
		snprintf(err, err_len, "metrics: %s", tally_last_error());
		return -1;
	}
	const char *extra = set->list.vendor_spec ? set->list.vendor_spec : "";
	size_t len = strlen(spec) + strlen(extra) + 2;
	if (!(*counted = malloc(len))) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	snprintf(*counted, len, "%s%s%s", spec, *spec && *extra ? "," : "", extra);
	return 0;
}

int metric_set_name(struct metric_set *set, const tally_counter *model, char *err, size_t err_len)
{
	int e = 0;
	for (size_t i = 0; !e && i < set->list.nr_vendor; i++) {
		TALLY_OPTS(tally_vendor_metric_info, info);
		size_t k = set->list.vendor_metrics[i];
		char source[96];
		snprintf(source, sizeof(source), "the vendor table of %s", tally_vendor_metrics_model(set->list.vendor));
		e = tally_vendor_metric_at(set->list.vendor, k, &info);
		if (!e)
			e = add_gauge(set, info.name, true, k, info.unit, source, info.description);
		if (!e)
			set->gauges[set->nr - 1].has_threshold = info.threshold && *info.threshold;
	}
	int n = e ? 0 : tally_counter_metrics(model, NULL, 0);
	size_t *idx = n > 0 ? calloc((size_t)n, sizeof(*idx)) : NULL;
	if (n > 0 && !idx)
		e = -ENOMEM;
	if (idx)
		tally_counter_metrics(model, idx, (size_t)n);
	for (int i = 0; !e && idx && i < n; i++) {
		TALLY_OPTS(tally_metric_info, info);
		e = tally_metric_at(idx[i], &info);
		if (!e)
			e = add_gauge(set, info.name, false, idx[i], info.unit, "tally's catalogue", info.description);
	}
	free(idx);
	if (e) {
		snprintf(err, err_len, "metrics: %s", tally_strerror(e));
		return -1;
	}
	for (size_t a = 0; a < set->nr; a++)
		for (size_t b = a + 1; b < set->nr; b++)
			if (strcmp(set->gauges[a].family, set->gauges[b].family) == 0) {
				snprintf(err, err_len, "metrics %s and %s would both be exported as %s: ask for one of them",
				         set->gauges[a].name, set->gauges[b].name, set->gauges[a].family);
				return -1;
			}
	return 0;
}

/* Whether name is one of the items of list (any case): asked for by name, not through a group. */
static bool named_in(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && strncasecmp(p, name, n) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

#define LEFT_OUT "metrics left out, which this machine cannot compute: "

/* Each metric over a reading of distinct nonzero counts, the events this machine cannot count marked so:
 * what is not available then is not available in any interval. */
static int check_sample(struct metric_set *set, const char *list, const tally_counter *model,
                        const enum tally_status *statuses, double *values, char *err, size_t err_len)
{
	size_t n = tally_counter_count(model);
	for (size_t i = 0; i < n; i++)
		values[i] = 1000003.0 + 7919.0 * (double)i;
	TALLY_OPTS(tally_metric_sample, s, .events = tally_counter_events(model), .values = values,
	           .statuses = statuses, .n = n, .seconds = 1.0);
	size_t kept = 0, left_out = 0;
	for (size_t k = 0; k < set->nr; k++) {
		struct metric_gauge *g = &set->gauges[k];
		TALLY_OPTS(tally_metric_value, v);
		int e = g->vendor ? tally_vendor_metric_eval(set->list.vendor, &s, g->index, &v)
		                  : tally_metric_eval(&s, g->index, &v);
		if (e == 0 && v.available) {
			set->gauges[kept++] = *g;
			continue;
		}
		const char *why = e < 0 ? tally_strerror(e) : v.reason;
		if (named_in(list, g->name)) {
			snprintf(err, err_len, "metric %s cannot be computed here: %s", g->name, why);
			return -1;
		}
		size_t used = strlen(set->note);
		snprintf(set->note + used, sizeof(set->note) - used, "%s%s (%s)", used ? "; " : LEFT_OUT, g->name, why);
		left_out++;
	}
	set->nr = kept;
	if (!kept && left_out) {
		snprintf(err, err_len, "no metric of '%s' can be computed here: %s", list, set->note + strlen(LEFT_OUT));
		return -1;
	}
	return 0;
}

int metric_set_check(struct metric_set *set, const char *list, tally_counter *model, int cpu, char *err,
                     size_t err_len)
{
	if (!set->nr)
		return 0;
	char cpus[16];
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	TALLY_OPTS(tally_target, target, .kind = TALLY_TARGET_CPUS, .cpus = cpus);
	if (tally_counter_open(model, &target) < 0)
		return 0;  /* refused for want of privilege: the targets' opens say why (tally_cgroup_up 0, the log) */
	size_t n = tally_counter_count(model);
	struct tally_result *r = calloc(n ? n : 1, sizeof(*r));
	enum tally_status *statuses = calloc(n ? n : 1, sizeof(*statuses));
	double *values = calloc(n ? n : 1, sizeof(*values));
	int status = 0;
	if (!r || !statuses || !values || tally_counter_read(model, r, n, sizeof(*r)) < 0) {
		snprintf(err, err_len, "metrics: %s", !r || !statuses || !values ? "out of memory" : tally_last_error());
		status = -1;
	}
	for (size_t i = 0; status == 0 && i < n; i++)
		statuses[i] = r[i].status == TALLY_STATUS_NOT_SUPPORTED ? TALLY_STATUS_NOT_SUPPORTED : TALLY_STATUS_EXACT;
	if (status == 0)
		status = check_sample(set, list, model, statuses, values, err, err_len);
	tally_counter_close(model);
	free(r);
	free(statuses);
	free(values);
	return status;
}

bool metric_set_eval(const struct metric_set *set, size_t k, const struct tally_metric_sample *sample,
                     double *value, int *threshold)
{
	const struct metric_gauge *g = &set->gauges[k];
	TALLY_OPTS(tally_metric_value, v);
	int e = g->vendor ? tally_vendor_metric_eval(set->list.vendor, sample, g->index, &v)
	                  : tally_metric_eval(sample, g->index, &v);
	if (e < 0 || !v.available || !isfinite(v.value))
		return false;
	*value = v.value * g->factor;
	*threshold = g->has_threshold ? v.threshold : -1;
	return true;
}

void metric_set_free(struct metric_set *set)
{
	metric_list_free(&set->list);
	free(set->gauges);
	memset(set, 0, sizeof(*set));
}
