/* SPDX-License-Identifier: MIT */
/*
 * The model of tally merge: per-rank results (merge_input.c) checked to be one measurement, grouped into
 * scopes (every rank, each host), and the statistics of each event over a scope. Files that are not one
 * measurement (other events, versions, kinds, jobs, a rank twice) are refused with the first file that
 * differs, and nothing is printed as if it were a result.
 */
#include "results/merge.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void merge_rank_label(const struct merge_rank *r, char *text, size_t cap)
{
	if (r->rank >= 0)
		snprintf(text, cap, "%ld", r->rank);
	else
		snprintf(text, cap, "%s", r->file);
}

/* Rank r's value of event i (region < 0) or of region `region`'s event i; NULL when r did not use it. */
static const struct merge_value *value_of(const struct merge *m, const struct merge_rank *r, long region, size_t i,
                                          uint64_t *calls)
{
	*calls = 0;
	if (region < 0)
		return &r->values[i];
	for (size_t k = 0; k < r->nr_regions; k++)
		if (strcmp(r->regions[k].name, m->region_names[region]) == 0) {
			*calls = r->regions[k].calls;
			return &r->regions[k].values[i];
		}
	return NULL;
}

void merge_stat_of(const struct merge *m, const struct merge_scope *sc, long region, size_t i, struct merge_stat *out)
{
	memset(out, 0, sizeof(*out));
	double sum_sq = 0;
	for (size_t k = 0; k < sc->nr; k++) {
		uint64_t calls;
		const struct merge_value *v = value_of(m, sc->ranks[k], region, i, &calls);
		if (!v)
			continue;
		out->status[v->status]++;
		out->calls += calls;
		if (v->status != REPORT_COUNTED && v->status != REPORT_SCALED)
			continue;
		if (out->n == 0 || v->value < out->min) {
			out->min = v->value;
			out->min_at = sc->ranks[k];
		}
		if (out->n == 0 || v->value > out->max) {
			out->max = v->value;
			out->max_at = sc->ranks[k];
		}
		out->n++;
		out->sum += v->value;
	}
	out->mean = out->n ? out->sum / (double)out->n : 0;
	/* Two passes: the deviations from the mean, not sum of squares minus squared sum, which loses every
	 * digit for counts of 1e9 that differ in the last few. */
	for (size_t k = 0; k < sc->nr; k++) {
		uint64_t calls;
		const struct merge_value *v = value_of(m, sc->ranks[k], region, i, &calls);
		if (v && (v->status == REPORT_COUNTED || v->status == REPORT_SCALED))
			sum_sq += (v->value - out->mean) * (v->value - out->mean);
	}
	out->stddev = out->n ? sqrt(sum_sq / (double)out->n) : 0;
	out->imbalance = out->n && out->mean != 0 ? out->max / out->mean : NAN;
}

static int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tally merge: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

static bool same_names(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

static const char *kind_name(enum merge_kind k)
{
	return k == MERGE_STAT ? "a tally stat -j document" : "region output (TALLY_OUTPUT)";
}

/* Every file the same kind and version as the first, and that version the one merge reads. */
static int check_versions(const struct merge *m)
{
	const struct merge_rank *first = &m->ranks[0];
	for (size_t k = 1; k < m->nr_ranks; k++) {
		const struct merge_rank *r = &m->ranks[k];
		if (r->kind != first->kind)
			return refuse("%s is %s but %s is %s: merge one kind of result at a time", r->file,
			              kind_name(r->kind), first->file, kind_name(first->kind));
		if (r->version != first->version)
			return refuse("mixed schema versions: %s has version %d, %s has version %d (written by different "
			              "tally versions)", r->file, r->version, first->file, first->version);
	}
	if (!first->supported)
		return refuse("%s: %s of version %d: tally merge reads version %d, the one with rank, size, host and "
		              "job (run it again with this tally)", first->file, kind_name(first->kind), first->version,
		              first->kind == MERGE_STAT ? MERGE_STAT_SCHEMA : MERGE_REGIONS_VERSION);
	return 0;
}

static int compare_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* The ranks no file holds, below the size (each file's rank is below it, checked on reading), or below the
 * highest rank when no file says the size: a job's ranks are 0 to size - 1, so rank 0 is missing from files
 * of ranks 1..N whatever the size. Ranks are distinct (checked before). */
static int find_missing(struct merge *m)
{
	long *ranks = calloc(m->nr_ranks + 1, sizeof(*ranks));
	size_t n = 0;
	if (!ranks)
		return refuse("out of memory");
	for (size_t k = 0; k < m->nr_ranks; k++)
		if (m->ranks[k].rank >= 0)
			ranks[n++] = m->ranks[k].rank;
	qsort(ranks, n, sizeof(*ranks), compare_long);
	long extent = m->size >= 0 ? m->size : n ? ranks[n - 1] + 1 : 0;
	m->missing = (size_t)extent - n;
	long next = 0; /* the lowest rank not yet known present or missing */
	for (size_t k = 0; k <= n && m->nr_missing_listed < MERGE_MISSING_LISTED; k++) {
		long end = k < n ? ranks[k] : extent;
		for (; next < end && m->nr_missing_listed < MERGE_MISSING_LISTED; next++)
			m->missing_listed[m->nr_missing_listed++] = next;
		next = end + 1;
	}
	free(ranks);
	return 0;
}

/* Same events (and region events) as the first file, one job, one size, no rank twice. */
static int check_same_measurement(struct merge *m)
{
	const struct merge_rank *first = m->model;
	for (size_t k = 0; k < m->nr_ranks; k++) {
		const struct merge_rank *r = &m->ranks[k];
		if (!same_names(r->event_names, r->nr_events, first->event_names, first->nr_events))
			return refuse("%s counted other events than %s: merge the ranks of one measurement (one -e)",
			              r->file, first->file);
		if (r->has_regions && m->regions_model &&
		    !same_names(r->region_event_names, r->nr_region_events, m->regions_model->region_event_names,
		                m->regions_model->nr_region_events))
			return refuse("%s counted its regions with other events than %s", r->file,
			              m->regions_model->file);
		if ((r->job == NULL) != (first->job == NULL) || (r->job && strcmp(r->job, first->job) != 0))
			return refuse("%s is from job %s, %s from job %s: merge one job's ranks", r->file,
			              r->job ? r->job : "(none)", first->file, first->job ? first->job : "(none)");
		if (r->size != first->size)
			return refuse("%s says the job has %ld ranks, %s says %ld: merge one job's ranks", r->file, r->size,
			              first->file, first->size);
		for (size_t j = 0; j < k; j++)
			if (r->rank >= 0 && m->ranks[j].rank == r->rank)
				return refuse("%s and %s both hold rank %ld: a file given twice, or two runs' files",
				              m->ranks[j].file, r->file, r->rank);
	}
	m->size = first->size;
	return find_missing(m);
}

/* The scopes (all ranks, then each host) and the region names in order of first appearance. */
static int build_scopes(struct merge *m)
{
	size_t n = m->nr_ranks;
	m->scopes = calloc(n + 1, sizeof(*m->scopes));
	const struct merge_rank **all = calloc(n * (n + 1) + 1, sizeof(*all));
	size_t region_cap = 0;
	for (size_t k = 0; k < n; k++)
		region_cap += m->ranks[k].nr_regions;
	m->region_names = calloc(region_cap + 1, sizeof(*m->region_names));
	if (!m->scopes || !all || !m->region_names) {
		free(all);
		return -1;
	}
	m->scopes[0] = (struct merge_scope){ .host = NULL, .ranks = all };
	m->nr_scopes = 1;
	for (size_t k = 0; k < n; k++) {
		const struct merge_rank *r = &m->ranks[k];
		all[m->scopes[0].nr++] = r;
		size_t h = 1;
		while (h < m->nr_scopes && strcmp(m->scopes[h].host, r->host) != 0)
			h++;
		if (h == m->nr_scopes)
			m->scopes[m->nr_scopes++] = (struct merge_scope){ .host = r->host, .ranks = all + n * h };
		m->scopes[h].ranks[m->scopes[h].nr++] = r;
		for (size_t g = 0; g < r->nr_regions; g++) {
			size_t j = 0;
			while (j < m->nr_region_names && strcmp(m->region_names[j], r->regions[g].name) != 0)
				j++;
			if (j == m->nr_region_names)
				m->region_names[m->nr_region_names++] = r->regions[g].name;
		}
	}
	return 0;
}

void merge_free(struct merge *m)
{
	for (size_t k = 0; k < m->nr_ranks; k++)
		merge_input_free(&m->ranks[k]);
	free(m->ranks);
	if (m->scopes)
		free(m->scopes[0].ranks);
	free(m->scopes);
	free(m->region_names);
}

int merge_load(struct merge *m, char **files, size_t n)
{
	m->ranks = calloc(n, sizeof(*m->ranks));
	if (!m->ranks) {
		fputs("tally merge: out of memory\n", stderr);
		return -1;
	}
	int status = 0;
	for (size_t k = 0; k < n; k++, m->nr_ranks++)
		if (merge_input_read(files[k], &m->ranks[k]) < 0)
			status = -1;
	if (status < 0 || check_versions(m) < 0)
		return -1;
	m->model = &m->ranks[0];
	for (size_t k = 0; k < n && !m->regions_model; k++)
		if (m->ranks[k].has_regions)
			m->regions_model = &m->ranks[k];
	if (check_same_measurement(m) < 0)
		return -1;
	if (build_scopes(m) < 0) {
		fputs("tally merge: out of memory\n", stderr);
		return -1;
	}
	return 0;
}
