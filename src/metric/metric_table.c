/* SPDX-License-Identifier: MIT */
/*
 * A table of metric definitions and its evaluation with references between metrics (metric_table.h).
 * References resolve through an environment wrapped around the events' one: the wrapper's name callback
 * answers a metric's name with the metric's value, evaluated recursively and remembered for the sample.
 */
#include "metric/metric_table.h"

#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tly_metric_table_new(const struct tly_metric_def *defs, size_t n, struct tly_metric_table **out)
{
	struct tly_metric_table *t = calloc(1, sizeof(*t));
	if (!t || !(t->exprs = calloc(n + 1, sizeof(*t->exprs))) ||
	    !(t->parse_errors = calloc(n + 1, sizeof(*t->parse_errors))) ||
	    !(t->thresholds = calloc(n + 1, sizeof(*t->thresholds)))) {
		tly_metric_table_free(t);
		return -ENOMEM;
	}
	t->defs = defs;
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		int err = tly_expr_parse(defs[i].expr ? defs[i].expr : "", 0, &t->exprs[i]);
		if (err == -ENOMEM || (err && !(t->parse_errors[i] = strdup(tally_last_error())))) {
			tly_metric_table_free(t);
			return -ENOMEM;
		}
		if (defs[i].threshold && tly_expr_parse(defs[i].threshold, 0, &t->thresholds[i]) == -ENOMEM) {
			tly_metric_table_free(t);
			return -ENOMEM;
		}
	}
	*out = t;
	return 0;
}

void tly_metric_table_free(struct tly_metric_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		if (t->exprs)
			tly_expr_free(t->exprs[i]);
		if (t->thresholds)
			tly_expr_free(t->thresholds[i]);
		if (t->parse_errors)
			free(t->parse_errors[i]);
	}
	free(t->exprs);
	free(t->parse_errors);
	free(t->thresholds);
	free(t);
}

int tly_metric_table_find(const struct tly_metric_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcasecmp(t->defs[i].name, name) == 0)
			return (int)i;
	return -ENOENT;
}

int tly_metric_results_init(struct tly_metric_results *res, size_t n)
{
	*res = (struct tly_metric_results){ .n = n };
	res->vals = calloc(n + 1, sizeof(*res->vals));
	res->reasons = calloc(n + 1, sizeof(*res->reasons));
	res->state = calloc(n + 1, 1);
	if (!res->vals || !res->reasons || !res->state) {
		tly_metric_results_free(res);
		return -ENOMEM;
	}
	return 0;
}

void tly_metric_results_reset(struct tly_metric_results *res)
{
	memset(res->state, 0, res->n);
}

void tly_metric_results_free(struct tly_metric_results *res)
{
	free(res->vals);
	free(res->reasons);
	free(res->state);
	*res = (struct tly_metric_results){ 0 };
}

struct refs {
	const struct tly_metric_table *t;
	const struct tly_expr_env *events;
	struct tly_metric_results *res;
};

static struct tly_expr_val eval_metric(const struct refs *r, size_t i);

static struct tly_expr_val ref_name(void *ctx, const char *name, bool source_count, char *reason)
{
	const struct refs *r = ctx;
	int i = source_count ? -ENOENT : tly_metric_table_find(r->t, name);
	if (i < 0)
		return r->events->name(r->events->ctx, name, source_count, reason);
	if (r->res->state[i] == 1)
		return tly_expr_fail(reason, "metric %s refers to itself (a cycle)", r->t->defs[i].name);
	struct tly_expr_val v = eval_metric(r, (size_t)i);
	if (!v.ok)
		return tly_expr_fail(reason, "%s: %s", r->t->defs[i].name, r->res->reasons[i]);
	return v;
}

static int ref_has_event(void *ctx, const char *name)
{
	const struct refs *r = ctx;
	return r->events->has_event ? r->events->has_event(r->events->ctx, name) : -1;
}

static int ref_cpuid(void *ctx, const char *pattern)
{
	const struct refs *r = ctx;
	return r->events->cpuid_match ? r->events->cpuid_match(r->events->ctx, pattern) : -1;
}

static struct tly_expr_val eval_in(const struct refs *r, const struct tly_expr *e, char *reason)
{
	struct tly_expr_env env = { .ctx = (void *)r, .name = ref_name, .has_event = ref_has_event,
		                    .cpuid_match = ref_cpuid, .facts = r->events->facts };
	return tly_expr_eval(e, &env, reason);
}

static struct tly_expr_val eval_metric(const struct refs *r, size_t i)
{
	struct tly_metric_results *res = r->res;
	if (res->state[i] == 2)
		return res->vals[i];
	res->reasons[i][0] = '\0';
	if (!r->t->exprs[i]) {
		res->vals[i] = tly_expr_fail(res->reasons[i], "%s", r->t->parse_errors[i]);
	} else {
		res->state[i] = 1;
		res->vals[i] = eval_in(r, r->t->exprs[i], res->reasons[i]);
	}
	res->state[i] = 2;
	return res->vals[i];
}

struct tly_expr_val tly_metric_table_eval(const struct tly_metric_table *t, const struct tly_expr_env *events,
                                          struct tly_metric_results *res, size_t i)
{
	struct refs r = { t, events, res };
	return eval_metric(&r, i);
}

int tly_metric_table_threshold(const struct tly_metric_table *t, const struct tly_expr_env *events,
                               struct tly_metric_results *res, size_t i, char *reason)
{
	char local[TLY_EXPR_REASON];
	if (!t->thresholds[i])
		return -ENOENT;
	struct refs r = { t, events, res };
	struct tly_expr_val v = eval_in(&r, t->thresholds[i], reason ? reason : local);
	return v.ok ? v.v != 0 : -ENODATA;
}

double tly_metric_scale(const char *scale_unit, const char **unit)
{
	char *end = (char *)scale_unit;
	double factor = scale_unit ? strtod(scale_unit, &end) : 1;
	if (!scale_unit || end == scale_unit)
		factor = 1;
	if (unit)
		*unit = scale_unit ? end : "";
	return factor;
}
