/* SPDX-License-Identifier: MIT */
/*
 * A metric expression evaluated. Where perf 6.1 computes NaN or prints nothing (an event it could not
 * count, a division by 0), the value here is not available and says why: a metric is never 0, infinite or
 * NaN for want of data. d_ratio is perf's division that is 0 when the divisor is. An if/else evaluates its
 * condition and then only the branch taken, so a guarded input (`X if has_event(X) else 0`) is not needed
 * on the machines that take the other branch.
 */
#include "metric/metric_expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

struct tly_expr_val tly_expr_fail(char *reason, const char *fmt, ...)
{
	if (!reason[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(reason, TLY_EXPR_REASON, fmt, ap);
		va_end(ap);
	}
	return (struct tly_expr_val){ .ok = false };
}

struct eval {
	const struct tly_expr *expr;
	const struct tly_expr_env *env;
	char *reason;
};

static struct tly_expr_val value(double v, bool scaled)
{
	return (struct tly_expr_val){ .v = v, .ok = true, .scaled = scaled };
}

/* The node's text, for a reason ("INST_RETIRED.ANY is 0"). */
static int span_len(const struct tly_expr_node *n)
{
	int len = (int)(n->end - n->start);
	return len > 60 ? 60 : len;
}

static struct tly_expr_val eval_node(const struct eval *ev, uint32_t i);

static struct tly_expr_val divide(const struct eval *ev, const struct tly_expr_node *n, struct tly_expr_val a,
                                  struct tly_expr_val b)
{
	/* % is of the integer parts, as perf's (long) casts; fmod gives C's sign and no overflow */
	double divisor = n->op == TLY_EXPR_MOD ? trunc(b.v) : b.v;
	if (divisor == 0) {
		const struct tly_expr_node *d = &ev->expr->nodes[n->b];
		return tly_expr_fail(ev->reason, "%.*s is 0", span_len(d), ev->expr->text + d->start);
	}
	if (n->op == TLY_EXPR_MOD)
		return value(fmod(trunc(a.v), divisor), a.scaled || b.scaled);
	return value(a.v / divisor, a.scaled || b.scaled);
}

static struct tly_expr_val binary(const struct eval *ev, const struct tly_expr_node *n)
{
	if (n->op == TLY_EXPR_D_RATIO) {
		/* a divisor of 0 makes 0 whatever the dividend (perf needs no events for it either) */
		struct tly_expr_val b = eval_node(ev, n->b);
		if (b.ok && b.v == 0)
			return value(0, b.scaled);
	}
	struct tly_expr_val a = eval_node(ev, n->a);
	/* |, & decided by their left side need no right side (perf folds the same constants) */
	if (a.ok && ((n->op == TLY_EXPR_OR && a.v != 0) || (n->op == TLY_EXPR_AND && a.v == 0)))
		return value(n->op == TLY_EXPR_OR, a.scaled);
	if (!a.ok)
		return a;
	struct tly_expr_val b = eval_node(ev, n->b);
	if (!b.ok)
		return b;
	bool s = a.scaled || b.scaled;
	switch (n->op) {
	case TLY_EXPR_OR: return value(b.v != 0, s);
	case TLY_EXPR_AND: return value(b.v != 0, s);
	case TLY_EXPR_XOR: return value((a.v != 0) != (b.v != 0), s);
	case TLY_EXPR_LT: return value(a.v < b.v, s);
	case TLY_EXPR_GT: return value(a.v > b.v, s);
	case TLY_EXPR_ADD: return value(a.v + b.v, s);
	case TLY_EXPR_SUB: return value(a.v - b.v, s);
	case TLY_EXPR_MUL: return value(a.v * b.v, s);
	case TLY_EXPR_MIN: return value(a.v < b.v ? a.v : b.v, s);
	case TLY_EXPR_MAX: return value(a.v > b.v ? a.v : b.v, s);
	default: return divide(ev, n, a, b);
	}
}

/* has_event and strcmp_cpuid_str: 1 or 0, not available when the environment cannot tell. */
static struct tly_expr_val query(const struct eval *ev, const struct tly_expr_node *n)
{
	int (*fn)(void *, const char *) = n->op == TLY_EXPR_HAS_EVENT ? ev->env->has_event : ev->env->cpuid_match;
	int r = fn ? fn(ev->env->ctx, n->name) : -1;
	if (r < 0)
		return tly_expr_fail(ev->reason, "%s(%s): unknown here",
		                     n->op == TLY_EXPR_HAS_EVENT ? "has_event" : "strcmp_cpuid_str", n->name);
	return value(r > 0, false);
}

static struct tly_expr_val eval_node(const struct eval *ev, uint32_t i)
{
	const struct tly_expr_node *n = &ev->expr->nodes[i];
	switch (n->op) {
	case TLY_EXPR_NUM:
		if (isnan(n->num))
			return tly_expr_fail(ev->reason, "the expression is NaN (undefined) here");
		return value(n->num, false);
	case TLY_EXPR_LITERAL: {
		double v = tly_metric_literal(ev->env->facts, n->name);
		return isnan(v) ? tly_expr_fail(ev->reason, "%s: unknown on this machine", n->name) : value(v, false);
	}
	case TLY_EXPR_NAME:
	case TLY_EXPR_SOURCE_COUNT: {
		struct tly_expr_val v = ev->env->name(ev->env->ctx, n->name, n->op == TLY_EXPR_SOURCE_COUNT,
		                                      ev->reason);
		if (v.ok && !isfinite(v.v))
			return tly_expr_fail(ev->reason, "%s is not a finite number", n->name);
		return v;
	}
	case TLY_EXPR_HAS_EVENT:
	case TLY_EXPR_CPUID: return query(ev, n);
	case TLY_EXPR_NEG: {
		struct tly_expr_val a = eval_node(ev, n->a);
		a.v = -a.v;
		return a;
	}
	case TLY_EXPR_IF: {
		struct tly_expr_val c = eval_node(ev, n->b);
		if (!c.ok)
			return c;
		struct tly_expr_val v = eval_node(ev, c.v != 0 ? n->a : n->c);
		v.scaled = v.scaled || c.scaled;
		return v;
	}
	default: return binary(ev, n);
	}
}

struct tly_expr_val tly_expr_eval(const struct tly_expr *expr, const struct tly_expr_env *env, char *reason)
{
	reason[0] = '\0';
	struct eval ev = { expr, env, reason };
	struct tly_expr_val v = eval_node(&ev, expr->root);
	if (v.ok && !isfinite(v.v))
		return tly_expr_fail(reason, "the value is not finite");
	return v;
}

static struct tly_expr_val no_name(void *ctx, const char *name, bool source_count, char *reason)
{
	(void)ctx, (void)source_count;
	return tly_expr_fail(reason, "%s is not a constant", name);
}

struct taken {
	struct eval constant; /* an evaluation without names' values */
	int (*fn)(void *ctx, const char *name);
	void *ctx;
};

/* The value of node i when it is a constant here, else ok false. */
static struct tly_expr_val constant(const struct taken *t, uint32_t i)
{
	t->constant.reason[0] = '\0';
	return eval_node(&t->constant, i);
}

static int walk_taken(const struct taken *t, uint32_t i)
{
	if (i == TLY_EXPR_NONE)
		return 0;
	const struct tly_expr_node *n = &t->constant.expr->nodes[i];
	if (n->op == TLY_EXPR_NAME || n->op == TLY_EXPR_SOURCE_COUNT)
		return t->fn(t->ctx, n->name);
	if (n->op == TLY_EXPR_IF) {
		struct tly_expr_val c = constant(t, n->b);
		if (c.ok)
			return walk_taken(t, c.v != 0 ? n->a : n->c);
	}
	if (n->op == TLY_EXPR_D_RATIO) {
		struct tly_expr_val d = constant(t, n->b);
		if (d.ok && d.v == 0)
			return 0;
	}
	int r = walk_taken(t, n->a);
	if (!r)
		r = walk_taken(t, n->b);
	if (!r && n->op == TLY_EXPR_IF)
		r = walk_taken(t, n->c);
	return r;
}

int tly_expr_names_taken(const struct tly_expr *expr, const struct tly_expr_env *env,
                         int (*fn)(void *ctx, const char *name), void *ctx)
{
	char reason[TLY_EXPR_REASON];
	struct tly_expr_env constants = *env;
	constants.name = no_name;
	struct taken t = { { expr, &constants, reason }, fn, ctx };
	return walk_taken(&t, expr->root);
}
