/* SPDX-License-Identifier: MIT */
/*
 * --drilldown: the vendor table's top-down (TMA) metrics of a reading printed as their tree, as toplev
 * shows it. A node's level is its TopdownL<N> group, its parent the metric its tma_<parent>_group names;
 * a node's children are shown where the node is over its MetricThreshold (toplev's default view), or
 * down to --td-level N for every node; the bottleneck path (from the largest level-1 node over its
 * threshold, the largest child over its threshold at each level) is marked with '>'.
 */
#include "report/drilldown.h"

#include "lib/text_escape.h"
#include "report/number_format.h"
#include "report/report_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	size_t k;           /* the report's metric */
	const char *name;
	unsigned level;     /* 0: not a top-down node */
	size_t parent;      /* index in the nodes, SIZE_MAX for a level-1 node */
	struct tally_metric_value value;
	bool on_path;
};

/* The N of a TopdownL<N> group, 0 without. */
static unsigned level_of(const char *groups)
{
	for (const char *g = groups; *g; g += strcspn(g, ";"), g += *g == ';')
		if (strncmp(g, "TopdownL", 8) == 0 && g[8] >= '1' && g[8] <= '9' && (g[9] == ';' || !g[9]))
			return (unsigned)(g[8] - '0');
	return 0;
}

/* The parent of node i: the node whose name its tma_<name>_group names. */
static size_t parent_of(const struct node *nodes, size_t n, const char *groups)
{
	for (const char *g = groups; *g; g += strcspn(g, ";"), g += *g == ';') {
		size_t len = strcspn(g, ";");
		if (len <= 6 || strncmp(g + len - 6, "_group", 6) != 0)
			continue;
		for (size_t j = 0; j < n; j++)
			if (strlen(nodes[j].name) == len - 6 && strncmp(nodes[j].name, g, len - 6) == 0)
				return j;
	}
	return SIZE_MAX;
}

static bool over(const struct node *nd)
{
	return nd->value.available && nd->value.threshold == 1;
}

/* Marks the bottleneck path: the largest node over its threshold among parent's children, then its own. */
static void mark_path(struct node *nodes, size_t n, size_t parent)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (nodes[i].level && nodes[i].parent == parent && over(&nodes[i]) &&
		    (best == SIZE_MAX || nodes[i].value.value > nodes[best].value.value))
			best = i;
	if (best == SIZE_MAX)
		return;
	nodes[best].on_path = true;
	mark_path(nodes, n, best);
}

static void print_node(struct output *o, const struct node *nodes, size_t n, size_t i, unsigned td_level)
{
	const struct node *nd = &nodes[i];
	char text[NUMBER_FORMAT_MAX];
	if (nd->value.available)
		number_format_grouped_double(nd->value.value, 2, &o->report->numbers, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "<not available>");
	fprintf(o->out, " %c %18s %-2s %*s", nd->on_path ? '>' : ' ', text, nd->value.unit,
	        (int)(2 * (nd->level - 1)), "");
	text_escape_write(o->out, nd->name);
	fputs(over(nd) ? "  (over its threshold)\n" : "\n", o->out);
	if (!(over(nd) || nd->level < td_level))
		return;
	for (size_t j = 0; j < n; j++)
		if (nodes[j].level && nodes[j].parent == i)
			print_node(o, nodes, n, j, td_level);
}

void drilldown_print(struct output *o, const struct output_reading *reading, unsigned td_level)
{
	const struct report *r = o->report;
	if (!r->vendor || r->nr_metrics <= r->nr_catalog)
		return;
	size_t n = r->nr_metrics - r->nr_catalog;
	struct node *nodes = calloc(n, sizeof(*nodes));
	if (!nodes)
		return;
	const struct report_count *counts = report_metric_counts(r, reading->counts, reading->pmu_counts);
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_vendor_metric_info, info);
		tally_vendor_metric_at(r->vendor, r->metrics[r->nr_catalog + i], &info);
		nodes[i] = (struct node){ .k = r->nr_catalog + i, .name = info.name, .level = level_of(info.groups) };
		report_metric(r, counts, reading->seconds, nodes[i].k, NULL, 0, &nodes[i].value);
	}
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_vendor_metric_info, info);
		tally_vendor_metric_at(r->vendor, r->metrics[nodes[i].k], &info);
		nodes[i].parent = nodes[i].level > 1 ? parent_of(nodes, n, info.groups) : SIZE_MAX;
		if (nodes[i].level > 1 && nodes[i].parent == SIZE_MAX)
			nodes[i].level = 0; /* its parent is not among the metrics: not in the tree */
	}
	mark_path(nodes, n, SIZE_MAX);
	fputs("\n Top-down drill-down (children shown under a node over its threshold; '>' the bottleneck path):\n\n",
	      o->out);
	for (size_t i = 0; i < n; i++)
		if (nodes[i].level == 1)
			print_node(o, nodes, n, i, td_level);
	free(nodes);
}
