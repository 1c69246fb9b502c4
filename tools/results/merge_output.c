/* SPDX-License-Identifier: MIT */
/*
 * tally merge's writers: a table for people, CSV (one record per scope, region and event) and one JSON
 * document. Each walks the same rows: every event, then every region's events, for all ranks and then for
 * each host. Values are display values (msec for task-clock, as tally stat shows them).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <tally/common.h>

#include "lib/json_writer.h"
#include "lib/text_escape.h"
#include "report/number_format.h"
#include "results/merge.h"

/* "4 counted", "3 counted, 1 not-counted": every status any rank had, never only the best; joined by
 * `join` (CSV's "; ", so that a comma separator does not split the field). */
static void status_mix(const struct merge_stat *st, const char *join, char *text, size_t cap)
{
	size_t len = 0;
	text[0] = '\0';
	for (enum report_status s = REPORT_COUNTED; s <= REPORT_NOT_SUPPORTED && len < cap; s++)
		if (st->status[s])
			len += (size_t)snprintf(text + len, cap - len, "%s%u %s", len ? join : "", st->status[s],
			                        report_status_name(s));
}

static const char *unit_of(const struct merge *m, long region, size_t i)
{
	return region < 0 ? m->model->units[i] : "";
}

static const char *event_of(const struct merge *m, long region, size_t i)
{
	return region < 0 ? m->model->event_names[i] : m->regions_model->region_event_names[i];
}

static size_t events_in(const struct merge *m, long region)
{
	return region < 0 ? m->model->nr_events : m->regions_model->nr_region_events;
}

/* A display value: counts grouped without decimals, msec and scaled units with two. */
static void number(double v, bool decimals, const struct number_style *ns, char *text, size_t cap)
{
	if (decimals)
		number_format_grouped_double(v, 2, ns, text, cap);
	else
		number_format_grouped(count_of(v), ns, text, cap);
}

/* One event's line of the table; numbers in the locale's style (ns), as tally stat's table. */
static void table_line(FILE *out, const struct merge *m, long region, size_t i, const struct merge_stat *st,
                       const struct number_style *ns)
{
	const char *unit = unit_of(m, region, i);
	bool decimals = *unit != '\0';
	char sum[NUMBER_FORMAT_MAX], mean[NUMBER_FORMAT_MAX], min[NUMBER_FORMAT_MAX], max[NUMBER_FORMAT_MAX],
		sd[NUMBER_FORMAT_MAX], min_at[64] = "", max_at[64] = "", mix[128];
	status_mix(st, ", ", mix, sizeof(mix));
	if (st->n == 0) {
		/* As tally stat says it: <not supported> when no rank could open the event at all. */
		bool opened = st->status[REPORT_NOT_COUNTED] > 0;
		fprintf(out, "%18s %-6s ", opened ? "<not counted>" : "<not supported>", unit);
		text_escape_pad(out, event_of(m, region, i), 24);
		fprintf(out, " %s\n", mix);
		return;
	}
	number(st->sum, decimals, ns, sum, sizeof(sum));
	number_format_grouped_double(st->mean, decimals ? 2 : 1, ns, mean, sizeof(mean));
	number(st->min, decimals, ns, min, sizeof(min));
	number(st->max, decimals, ns, max, sizeof(max));
	number_format_grouped_double(st->stddev, decimals ? 2 : 1, ns, sd, sizeof(sd));
	merge_rank_label(st->min_at, min_at, sizeof(min_at));
	merge_rank_label(st->max_at, max_at, sizeof(max_at));
	fprintf(out, "%18s %-6s ", sum, unit);
	text_escape_pad(out, event_of(m, region, i), 24);
	fprintf(out, " %16s %14s (%s) %14s (%s) %14s", mean, min, min_at, max, max_at, sd);
	if (isnan(st->imbalance))
		fprintf(out, " %9s", "-");
	else
		fprintf(out, " %9s", number_format_fixed(st->imbalance, 3, ns, sum, sizeof(sum)));
	fprintf(out, "  %s\n", mix);
}

static void table_scope(FILE *out, const struct merge *m, const struct merge_scope *sc, const struct number_style *ns)
{
	fputs(sc->host ? "\n host " : "\n all ranks", out);
	if (sc->host)
		text_escape_write(out, sc->host);
	fprintf(out, " (%zu rank%s):\n", sc->nr, sc->nr == 1 ? "" : "s");
	fprintf(out, "%18s %-6s %-24s %16s %14s (rank) %14s (rank) %14s %9s  %s\n", "sum", "unit", "event", "mean",
	        "min", "max", "stddev", "imbalance", "status");
	struct merge_stat st;
	for (size_t i = 0; i < events_in(m, -1); i++) {
		merge_stat_of(m, sc, -1, i, &st);
		table_line(out, m, -1, i, &st, ns);
	}
	for (size_t g = 0; g < m->nr_region_names; g++) {
		merge_stat_of(m, sc, (long)g, 0, &st);
		fputs("  region ", out);
		text_escape_write(out, m->region_names[g]);
		fprintf(out, ": %" PRIu64 " calls\n", st.calls);
		for (size_t i = 0; i < events_in(m, (long)g); i++) {
			merge_stat_of(m, sc, (long)g, i, &st);
			table_line(out, m, (long)g, i, &st, ns);
		}
	}
}

static void write_table(const struct merge *m, FILE *out)
{
	struct number_style ns;
	number_style_of_locale(&ns, true);
	fprintf(out, "\n tally merge: %zu file%s", m->nr_ranks, m->nr_ranks == 1 ? "" : "s");
	if (m->size >= 0)
		fprintf(out, ", %zu of %ld ranks", (size_t)m->size - m->missing, m->size);
	fprintf(out, " on %zu host%s", m->nr_scopes - 1, m->nr_scopes == 2 ? " (" : "s");
	if (m->nr_scopes == 2) {
		text_escape_write(out, m->scopes[1].host);
		fputc(')', out);
	}
	if (m->model->job) {
		fputs(", job ", out);
		text_escape_write(out, m->model->job);
	}
	fputc('\n', out);
	if (m->missing) {
		fprintf(out, " (rank%s", m->missing == 1 ? "" : "s");
		for (size_t k = 0; k < m->nr_missing_listed; k++)
			fprintf(out, "%s %ld", k ? "," : "", m->missing_listed[k]);
		if (m->missing > m->nr_missing_listed)
			fprintf(out, " and %zu more", m->missing - m->nr_missing_listed);
		fprintf(out, " of the job %s no file: the sums leave %s out)\n", m->missing == 1 ? "has" : "have",
		        m->missing == 1 ? "it" : "them");
	}
	table_scope(out, m, &m->scopes[0], &ns);
	/* One host's block would repeat the all-ranks block line for line. */
	for (size_t h = 1; m->nr_scopes > 2 && h < m->nr_scopes; h++)
		table_scope(out, m, &m->scopes[h], &ns);
	fputc('\n', out);
}

static void csv_line(FILE *out, const char *sep, const struct merge *m, const struct merge_scope *sc, long region,
                     size_t i)
{
	struct merge_stat st;
	char mix[128], min_at[64] = "", max_at[64] = "";
	merge_stat_of(m, sc, region, i, &st);
	status_mix(&st, "; ", mix, sizeof(mix));
	if (st.n) {
		merge_rank_label(st.min_at, min_at, sizeof(min_at));
		merge_rank_label(st.max_at, max_at, sizeof(max_at));
	}
	text_escape_field(out, sc->host ? sc->host : "all", sep);
	fputs(sep, out);
	text_escape_field(out, region < 0 ? "" : m->region_names[region], sep);
	fputs(sep, out);
	text_escape_field(out, event_of(m, region, i), sep);
	fputs(sep, out);
	text_escape_field(out, unit_of(m, region, i), sep);
	fprintf(out, "%s%zu%s%.15g%s%.15g%s%.15g%s", sep, st.n, sep, st.sum, sep, st.mean, sep, st.min, sep);
	text_escape_field(out, min_at, sep);
	fprintf(out, "%s%.15g%s", sep, st.max, sep);
	text_escape_field(out, max_at, sep);
	fprintf(out, "%s%.15g%s", sep, st.stddev, sep);
	if (!isnan(st.imbalance))
		fprintf(out, "%.6f", st.imbalance);
	fputs(sep, out);
	text_escape_field(out, mix, sep);
	fputc('\n', out);
}

static void write_csv(const struct merge *m, const char *sep, FILE *out)
{
	const char *cols[] = { "host", "region", "event", "unit", "ranks", "sum", "mean", "min", "min_rank", "max",
		               "max_rank", "stddev", "imbalance", "status" };
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(out, "%s%s", c ? sep : "", cols[c]);
	fputc('\n', out);
	for (size_t h = 0; h < m->nr_scopes; h++) {
		for (size_t i = 0; i < events_in(m, -1); i++)
			csv_line(out, sep, m, &m->scopes[h], -1, i);
		for (size_t g = 0; g < m->nr_region_names; g++)
			for (size_t i = 0; i < events_in(m, (long)g); i++)
				csv_line(out, sep, m, &m->scopes[h], (long)g, i);
	}
}

static void json_rank_ref(struct json_writer *w, const char *key, const struct merge_rank *r)
{
	json_key(w, key);
	if (!r) {
		json_null(w);
		return;
	}
	json_begin_object(w);
	json_key(w, "rank");
	if (r->rank >= 0)
		json_int(w, r->rank);
	else
		json_null(w);
	json_member_string(w, "file", r->file);
	json_member_string(w, "host", r->host);
	json_end_object(w);
}

static void json_stat(struct json_writer *w, const struct merge *m, const struct merge_scope *sc, long region,
                      size_t i)
{
	struct merge_stat st;
	merge_stat_of(m, sc, region, i, &st);
	json_begin_object(w);
	json_member_string(w, "event", event_of(m, region, i));
	json_member_string(w, "unit", unit_of(m, region, i));
	json_member_uint(w, "ranks", st.n);
	json_member_double(w, "sum", st.sum);
	json_member_double(w, "mean", st.mean);
	json_member_double(w, "min", st.min);
	json_rank_ref(w, "min_at", st.min_at);
	json_member_double(w, "max", st.max);
	json_rank_ref(w, "max_at", st.max_at);
	json_member_double(w, "stddev", st.stddev);
	json_member_double(w, "imbalance", st.imbalance); /* null when the mean is 0 */
	json_key(w, "statuses");
	json_begin_object(w);
	for (enum report_status s = REPORT_COUNTED; s <= REPORT_NOT_SUPPORTED; s++)
		json_member_uint(w, report_status_name(s), st.status[s]);
	json_end_object(w);
	json_end_object(w);
}

static void json_scope(struct json_writer *w, const struct merge *m, const struct merge_scope *sc)
{
	json_begin_object(w);
	json_member_string(w, "host", sc->host);
	json_key(w, "ranks");
	json_begin_array(w);
	for (size_t k = 0; k < sc->nr; k++)
		if (sc->ranks[k]->rank >= 0)
			json_int(w, sc->ranks[k]->rank);
		else
			json_null(w);
	json_end_array(w);
	json_key(w, "events");
	json_begin_array(w);
	for (size_t i = 0; i < events_in(m, -1); i++)
		json_stat(w, m, sc, -1, i);
	json_end_array(w);
	json_key(w, "regions");
	json_begin_array(w);
	for (size_t g = 0; g < m->nr_region_names; g++) {
		struct merge_stat st;
		merge_stat_of(m, sc, (long)g, 0, &st);
		json_begin_object(w);
		json_member_string(w, "name", m->region_names[g]);
		json_member_uint(w, "calls", st.calls);
		json_key(w, "events");
		json_begin_array(w);
		for (size_t i = 0; i < events_in(m, (long)g); i++)
			json_stat(w, m, sc, (long)g, i);
		json_end_array(w);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

static void write_json(const struct merge *m, FILE *out)
{
	struct json_writer w;
	json_init(&w, out);
	json_begin_object(&w);
	json_member_int(&w, "merge_version", 1);
	json_member_string(&w, "tally_version", tally_version());
	json_member_string(&w, "kind", m->model->kind == MERGE_STAT ? "stat" : "regions");
	json_member_string(&w, "job", m->model->job);
	json_key(&w, "size");
	if (m->size >= 0)
		json_int(&w, m->size);
	else
		json_null(&w);
	json_member_uint(&w, "missing_ranks", m->missing);
	json_key(&w, "missing");
	json_begin_array(&w);
	for (size_t k = 0; k < m->nr_missing_listed; k++)
		json_int(&w, m->missing_listed[k]);
	json_end_array(&w);
	json_key(&w, "files");
	json_begin_array(&w);
	for (size_t k = 0; k < m->nr_ranks; k++)
		json_string(&w, m->ranks[k].file);
	json_end_array(&w);
	json_key(&w, "all");
	json_scope(&w, m, &m->scopes[0]);
	json_key(&w, "hosts");
	json_begin_array(&w);
	for (size_t h = 1; h < m->nr_scopes; h++)
		json_scope(&w, m, &m->scopes[h]);
	json_end_array(&w);
	json_end_object(&w);
	fputc('\n', out);
}

void merge_write(const struct merge *m, enum merge_format format, const char *separator, FILE *out)
{
	switch (format) {
	case MERGE_TABLE: write_table(m, out); break;
	case MERGE_CSV: write_csv(m, separator, out); break;
	case MERGE_JSON: write_json(m, out); break;
	}
}
