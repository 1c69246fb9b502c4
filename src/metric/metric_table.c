/* SPDX-License-Identifier: MIT */
/*
 * A table of metric definitions and its evaluation with references between metrics (metric_table.h).
 * References resolve through an environment wrapped around the events' one: the wrapper's name callback
 * answers a metric's name with the metric's value, evaluated recursively and remembered for the sample.
 */
#include "metric/metric_table.h"

#include "core/error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The hash of a name without case (FNV-1a over the lower-cased bytes). */
static size_t hash_nocase(const char *s)
{
	size_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 16777619u;
	return h;
}

/* The slot of name in t's hash: its metric's, or an empty one. */
static size_t name_slot(const struct tly_metric_table *t, const char *name)
{
	size_t i = hash_nocase(name) & (t->cap - 1);
	while (t->by_name[i] && strcasecmp(t->defs[t->by_name[i] - 1].name, name) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Every name in the hash (the first of two equal ones kept, as a search in order finds it). */
static int index_names(struct tly_metric_table *t)
{
	t->cap = 16;
	while (t->cap < 2 * t->n)
		t->cap *= 2;
	if (!(t->by_name = calloc(t->cap, sizeof(*t->by_name))))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t slot = name_slot(t, t->defs[i].name);
		if (!t->by_name[slot])
			t->by_name[slot] = i + 1;
	}
	return 0;
}

int tly_metric_table_new(const struct tly_metric_def *defs, size_t n, struct tly_metric_table **out)
{
	struct tly_metric_table *t = calloc(1, sizeof(*t));
	if (!t || !(t->exprs = calloc(n + 1, sizeof(*t->exprs))) ||
	    !(t->parse_errors = calloc(n + 1, sizeof(*t->parse_errors))) ||
	    !(t->thresholds = calloc(n + 1, sizeof(*t->thresholds))) || !(t->parsed = calloc(n + 1, 1))) {
		tly_metric_table_free(t);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->defs = defs;
	t->n = n;
	if (index_names(t)) {
		tly_metric_table_free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

/* Parses metric i's expression and threshold (t->lock held). */
static void parse_metric(struct tly_metric_table *t, size_t i)
{
	struct tly_error_saved saved;
	tly_error_save(&saved);
	const struct tly_metric_def *d = &t->defs[i];
	int err = tly_expr_parse(d->expr ? d->expr : "", 0, &t->exprs[i]);
	if (err)
		t->parse_errors[i] = strdup(err == -ENOMEM ? "out of memory" : tally_last_error());
	if (d->threshold)
		tly_expr_parse(d->threshold, 0, &t->thresholds[i]);
	tly_error_restore(&saved);
	t->parsed[i] = 1;
}

const struct tly_expr *tly_metric_table_expr(const struct tly_metric_table *ct, size_t i, const char **error)
{
	struct tly_metric_table *t = (struct tly_metric_table *)ct;
	pthread_mutex_lock(&t->lock);
	if (!t->parsed[i])
		parse_metric(t, i);
	pthread_mutex_unlock(&t->lock);
	if (error)
		*error = t->parse_errors[i] ? t->parse_errors[i] : "out of memory";
	return t->exprs[i];
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
	if (t->parsed)
		pthread_mutex_destroy(&t->lock);
	free(t->exprs);
	free(t->parse_errors);
	free(t->thresholds);
	free(t->parsed);
	free(t->by_name);
	free(t);
}

int tly_metric_table_find(const struct tly_metric_table *t, const char *name)
{
	size_t i = t->by_name[name_slot(t, name)];
	return i ? (int)(i - 1) : -ENOENT;
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
	const char *error;
	const struct tly_expr *e = tly_metric_table_expr(r->t, i, &error);
	if (!e) {
		res->vals[i] = tly_expr_fail(res->reasons[i], "%s", error);
	} else {
		res->state[i] = 1;
		res->vals[i] = eval_in(r, e, res->reasons[i]);
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
	tly_metric_table_expr(t, i, NULL);
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
