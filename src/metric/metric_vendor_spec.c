/* SPDX-License-Identifier: MIT */
/*
 * The events a selection of vendor metrics reads, as a spec (tally_vendor_metrics_spec), grouped as perf
 * 6.1's metricgroup.c groups them: a metric's events, its references' followed and the branches not taken
 * on this machine left out (perf's compute_ids), in one weak group "{...}:W" so that its ratio comes from
 * one window and a group too large for the counters is split rather than refused; a metric whose events a
 * group already holds reads that group (perf's merge, unless --metric-no-merge); loose events with
 * --metric-no-group or a MetricConstraint that asks for it; the tool events outside any group.
 */
#include "metric/metric_vendor.h"

#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct set {
	const struct tly_vendor_event **v;
	size_t n, cap;
};

static int set_add(struct set *s, const struct tly_vendor_event *e)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == e)
			return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		const struct tly_vendor_event **v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = e;
	return 0;
}

static bool set_holds(const struct set *big, const struct set *small)
{
	for (size_t i = 0; i < small->n; i++) {
		size_t j = 0;
		while (j < big->n && big->v[j] != small->v[i])
			j++;
		if (j == big->n)
			return false;
	}
	return true;
}

struct collect {
	const struct tally_vendor_metrics *vm;
	struct tly_expr_env env;
	unsigned char *visited; /* per metric: its names are in the set (references met twice, or a cycle) */
	struct set *grouped, *tools;
};

static int collect_metric(struct collect *c, size_t i);

static int collect_name(void *ctx, const char *name)
{
	struct collect *c = ctx;
	int m = tly_metric_table_find(c->vm->table, name);
	if (m >= 0)
		return collect_metric(c, (size_t)m);
	const struct tly_vendor_event *e;
	int err = tly_vendor_event(c->vm, name, &e);
	if (err || !e->parsed)
		return err; /* one this machine cannot name is left out: the metric says so */
	return set_add(e->tool ? c->tools : c->grouped, e);
}

static int collect_metric(struct collect *c, size_t i)
{
	const struct tly_expr *e = c->visited[i] ? NULL : tly_metric_table_expr(c->vm->table, i, NULL);
	c->visited[i] = 1;
	return e ? tly_expr_names_taken(e, &c->env, collect_name, c) : 0;
}

/* Whether metric i's events go loose: perf's --metric-no-group, or its MetricConstraint where it applies. */
static bool loose(const struct tally_vendor_metrics *vm, size_t i, unsigned flags)
{
	const char *c = vm->defs[i].constraint;
	return (flags & TALLY_VENDOR_NO_GROUP) || strcmp(c, "NO_GROUP_EVENTS") == 0 ||
	       (strcmp(c, "NO_GROUP_EVENTS_NMI") == 0 && vm->nmi_watchdog) ||
	       (strcmp(c, "NO_GROUP_EVENTS_SMT") == 0 && vm->facts.smt_on == 1);
}

struct out {
	char *text;
	size_t len, cap;
	int err;
};

static void put(struct out *o, const char *s)
{
	size_t n = strlen(s);
	if (o->err || (o->len + n + 1 > o->cap && !(o->text = realloc(o->text, o->cap = 2 * (o->len + n + 1))))) {
		o->err = -ENOMEM;
		return;
	}
	memcpy(o->text + o->len, s, n + 1);
	o->len += n;
}

/* The event's text in a spec: its name with '@' as '/'. */
static void put_event(struct out *o, const struct tly_vendor_event *e)
{
	char spec[1024];
	if (o->len && o->text[o->len - 1] != '{')
		put(o, ",");
	if (!tly_expr_event_spec(e->name, spec, sizeof(spec)))
		put(o, spec);
}

struct layout {
	struct set *groups; /* one per group emitted */
	size_t nr_groups;
	struct set loose;
};

/* Places one metric's events: in a group that holds them all, else a new one; or loose. */
static int place(struct layout *l, struct set *events, bool as_loose, unsigned flags)
{
	if (as_loose) {
		for (size_t i = 0; i < events->n; i++)
			if (set_add(&l->loose, events->v[i]))
				return -ENOMEM;
		return 0;
	}
	for (size_t g = 0; !(flags & TALLY_VENDOR_NO_MERGE) && g < l->nr_groups; g++)
		if (set_holds(&l->groups[g], events))
			return 0;
	struct set *groups = realloc(l->groups, (l->nr_groups + 1) * sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	l->groups = groups;
	l->groups[l->nr_groups++] = *events;
	*events = (struct set){ 0 };
	return 0;
}

static void write_layout(const struct layout *l, const struct set *tools, struct out *o)
{
	for (size_t g = 0; g < l->nr_groups; g++) {
		put(o, o->len ? ",{" : "{");
		for (size_t i = 0; i < l->groups[g].n; i++)
			put_event(o, l->groups[g].v[i]);
		put(o, "}:W");
	}
	for (size_t i = 0; i < l->loose.n; i++)
		put_event(o, l->loose.v[i]);
	for (size_t i = 0; i < tools->n; i++)
		put_event(o, tools->v[i]);
}

int tally_vendor_metrics_spec(const tally_vendor_metrics *vm, const size_t *indices, size_t n, unsigned flags,
                              char *buf, size_t size)
{
	if (!vm || (!indices && n) || (!buf && size))
		return tly_null_arg(__func__);
	for (size_t k = 0; k < n; k++) {
		int err = tly_vendor_check(vm, indices[k], __func__);
		if (err)
			return err;
	}
	struct layout l = { 0 };
	struct set tools = { 0 };
	struct out o = { 0 };
	struct tly_vendor_eval constants = { vm, NULL, NULL };
	struct collect c = { .vm = vm, .visited = calloc(vm->n + 1, 1), .tools = &tools };
	tly_vendor_env(&constants, &c.env);
	struct set *sets = calloc(n + 1, sizeof(*sets));
	int err = c.visited && sets ? 0 : -ENOMEM;
	for (size_t k = 0; !err && k < n; k++) {
		memset(c.visited, 0, vm->n);
		c.grouped = &sets[k];
		err = collect_metric(&c, indices[k]);
	}
	/* the largest first, so that a metric whose events another's group holds reads that group, whichever
	 * was named first (perf sorts its metrics so before merging) */
	for (size_t done = 0; !err && done < n; done++) {
		size_t k = SIZE_MAX;
		for (size_t j = 0; j < n; j++)
			if (sets[j].v && (k == SIZE_MAX || sets[j].n > sets[k].n))
				k = j;
		if (k == SIZE_MAX)
			break;
		err = place(&l, &sets[k], loose(vm, indices[k], flags), flags);
		free(sets[k].v);
		sets[k].v = NULL;
	}
	for (size_t k = 0; k < n; k++)
		free(sets[k].v);
	free(sets);
	if (!err) {
		put(&o, "");
		write_layout(&l, &tools, &o);
		err = o.err;
	}
	if (!err && size)
		snprintf(buf, size, "%s", o.text);
	size_t len = o.len;
	for (size_t g = 0; g < l.nr_groups; g++)
		free(l.groups[g].v);
	free(l.groups);
	free(l.loose.v);
	free(tools.v);
	free(c.visited);
	free(o.text);
	if (err)
		return err == -ENOMEM ? err : tly_error(err, "%s: cannot resolve the metrics' events", __func__);
	return len > (size_t)INT32_MAX ? -ERANGE : (int)len;
}
