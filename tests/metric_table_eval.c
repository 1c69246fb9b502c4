/* SPDX-License-Identifier: MIT */
/*
 * Evaluates a table of metric definitions over constructed counts (tests/test_metric_rules.sh): argv[1]
 * holds one definition per line, "name<TAB>expr<TAB>threshold<TAB>scale_unit" (empty fields allowed);
 * argv[2] one event per line, "name value", where the name "*" gives every other event's value and a
 * name ending in '*' every event of that prefix; an event of a named PMU ("cpu_atom@EVENT@") is looked up
 * as EVENT. Prints per metric "name<TAB>value<TAB>over|under|-" (the
 * value scaled by its ScaleUnit) or "name<TAB>n/a<TAB>reason".
 */
#include "metric/metric_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ROWS 4096

struct value {
	char name[256];
	double v;
};
static struct value values[MAX_ROWS];
static size_t nr_values;

static struct tly_expr_val event(void *ctx, const char *full, bool source_count, char *reason)
{
	(void)ctx;
	char name[256];
	const char *at = strchr(full, '@');
	snprintf(name, sizeof(name), "%s", at ? at + 1 : full);
	if (at)
		name[strcspn(name, "@")] = '\0';
	const struct value *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < nr_values; i++) {
		size_t len = strlen(values[i].name);
		bool prefix = len && values[i].name[len - 1] == '*';
		if ((!prefix && strcasecmp(values[i].name, name) == 0) ||
		    (prefix && strncasecmp(values[i].name, name, len - 1) == 0 && len > best_len)) {
			best = &values[i];
			best_len = prefix ? len : SIZE_MAX;
		}
	}
	if (!best)
		return tly_expr_fail(reason, "%s: no value", name);
	return (struct tly_expr_val){ .v = source_count ? 1 : best->v, .ok = true };
}

static int has_event(void *ctx, const char *name)
{
	char reason[TLY_EXPR_REASON] = "";
	return event(ctx, name, false, reason).ok;
}

static char *field(char **line)
{
	char *f = *line, *tab = f ? strchr(f, '\t') : NULL;
	*line = tab ? tab + 1 : NULL;
	if (tab)
		*tab = '\0';
	return f && *f ? strdup(f) : NULL;
}

int main(int argc, char **argv)
{
	static struct tly_metric_def defs[MAX_ROWS];
	static char line[1 << 16];
	size_t n = 0;
	FILE *d = argc == 3 ? fopen(argv[1], "r") : NULL, *v = argc == 3 ? fopen(argv[2], "r") : NULL;
	if (!d || !v) {
		fprintf(stderr, "usage: metric_table_eval DEFINITIONS VALUES\n");
		return 2;
	}
	while (n < MAX_ROWS && fgets(line, sizeof(line), d)) {
		line[strcspn(line, "\n")] = '\0';
		char *rest = line;
		defs[n].name = field(&rest);
		defs[n].expr = field(&rest);
		defs[n].threshold = field(&rest);
		defs[n].scale_unit = field(&rest);
		n += defs[n].name != NULL;
	}
	while (nr_values < MAX_ROWS && fscanf(v, "%255s %lf", values[nr_values].name, &values[nr_values].v) == 2)
		nr_values++;
	fclose(d);
	fclose(v);
	struct tly_metric_facts facts = { .smt_on = 0, .num_cpus = 8, .num_cpus_online = 8, .num_cores = 8,
		                          .num_dies = 1, .num_packages = 1, .core_wide = 0, .slots = 6,
		                          .system_tsc_freq = 2e9, .has_pmem = 0 };
	struct tly_expr_env env = { .name = event, .has_event = has_event, .facts = &facts };
	struct tly_metric_table *t = NULL;
	struct tly_metric_results res;
	if (tly_metric_table_new(defs, n, &t) || tly_metric_results_init(&res, n))
		return 2;
	for (size_t i = 0; i < n; i++) {
		struct tly_expr_val val = tly_metric_table_eval(t, &env, &res, i);
		if (!val.ok) {
			printf("%s\tn/a\t%s\n", defs[i].name, res.reasons[i]);
			continue;
		}
		int over = tly_metric_table_threshold(t, &env, &res, i, NULL);
		printf("%s\t%.17g\t%s\n", defs[i].name, val.v * tly_metric_scale(defs[i].scale_unit, NULL),
		       over == 1 ? "over" : over == 0 ? "under" : "-");
	}
	tly_metric_results_free(&res);
	tly_metric_table_free(t);
	for (size_t i = 0; i < n; i++) {
		free((char *)defs[i].name);
		free((char *)defs[i].expr);
		free((char *)defs[i].threshold);
		free((char *)defs[i].scale_unit);
	}
	return 0;
}
