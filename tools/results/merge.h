/* SPDX-License-Identifier: MIT */
/*
 * tally merge's model (merge_model.c): per-rank results (merge_input.h) checked to be one measurement, and
 * their statistics over ranks, overall and per host: what the writers (merge_output.c) print.
 */
#ifndef TALLY_TOOLS_MERGE_H
#define TALLY_TOOLS_MERGE_H

#include <stdio.h>

#include "results/merge_input.h"

/* The missing ranks named in the report: the lowest 16 (a job of thousands would fill a screen). */
#define MERGE_MISSING_LISTED 16

/* One event (or one region's event) over a set of ranks. Only ranks that counted it (counted or scaled)
 * are in the statistics; status[] says how many ranks had each status, so a rank that was not counted is
 * shown, never silently left out of the sum. */
struct merge_stat {
	size_t n;                  /* ranks with a value */
	double sum, mean;
	double stddev;             /* population standard deviation over those ranks (all of them are there,
	                            * not a sample) */
	double min, max;
	const struct merge_rank *min_at, *max_at; /* the first rank holding each */
	double imbalance;          /* max / mean; NaN when the mean is 0 or n is 0 */
	unsigned status[REPORT_NOT_SUPPORTED + 1]; /* ranks per status (absent ranks not counted anywhere) */
	uint64_t calls;            /* regions: calls summed over the ranks */
};

/* A set of ranks: all of them, or one host's. */
struct merge_scope {
	const char *host;          /* NULL for all ranks */
	size_t nr;
	const struct merge_rank **ranks;
};

struct merge {
	size_t nr_ranks;
	struct merge_rank *ranks;  /* in the order given */
	size_t nr_scopes;
	struct merge_scope *scopes; /* [0] is every rank; then one per host, in order of first appearance */
	size_t nr_region_names;
	const char **region_names; /* every region any rank used, in order of first appearance */
	const struct merge_rank *model; /* the first file: events, units, region events */
	const struct merge_rank *regions_model; /* the first file with regions, or NULL */
	long size;                 /* the job's size as the files say it, -1 when none does */
	size_t missing;            /* ranks that no file holds: under size, or under the highest rank when no
	                            * file says the size (rank 0 of ranks 1..N is missing either way) */
	size_t nr_missing_listed;
	long missing_listed[MERGE_MISSING_LISTED]; /* the lowest of them, in order */
};

/* Reads every file (each bad one says why on stderr), then checks they are one measurement: 0, or -1 when
 * they are not (m is then to be freed all the same). m starts as { .size = -1 }. */
int merge_load(struct merge *m, char **files, size_t n);
void merge_free(struct merge *m);

/* The statistics of event i (region < 0) or of region `region`'s event i over scope sc. */
void merge_stat_of(const struct merge *m, const struct merge_scope *sc, long region, size_t i,
                   struct merge_stat *out);

/* How a rank is named in min/max: "3" for rank 3, its file name when it has no rank. */
void merge_rank_label(const struct merge_rank *r, char *text, size_t cap);

enum merge_format { MERGE_TABLE, MERGE_CSV, MERGE_JSON };

void merge_write(const struct merge *m, enum merge_format format, const char *separator, FILE *out);

#endif
