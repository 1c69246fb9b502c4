/* SPDX-License-Identifier: MIT */
/* Reading one rank's result file for tally merge (merge_input.h). */
#include "results/merge_input.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_reader.h"
#include "report/number_format.h"
#include "results/result_file.h"

/* 2^64: no count reaches it (the library's counts are 64-bit and saturate). */
#define COUNT_LIMIT 18446744073709551616.0

static int bad(const char *file, const char *why)
{
	return result_file_error("merge", file, "%s", why);
}

static int no_memory(const char *file)
{
	return bad(file, "out of memory");
}

/* Why a member is not a count tally writes (an integer 0 to 2^64-1, in digits), or NULL when it is one. */
static const char *count_problem(const struct json_value *v, uint64_t *out)
{
	if (!v || v->type != JSON_NUMBER)
		return "missing or not a number";
	if (json_as_u64(v, out))
		return NULL;
	if (v->text[0] == '-')
		return "is negative";
	if (v->number != floor(v->number))
		return "is not an integer";
	if (strpbrk(v->text, ".eE"))
		return v->number >= COUNT_LIMIT ? "is above 2^64-1" : "is not written as an integer (in digits)";
	return "is above 2^64-1";
}

/* Member `key` of `item` (what `what` names in messages) as a count; 0, or -1 after a message. */
static int read_count(const char *file, const char *what, const struct json_value *item, const char *key,
                      uint64_t *out)
{
	const struct json_value *v = json_member(item, key);
	const char *why = count_problem(v, out);
	if (!why)
		return 0;
	if (!v || v->type != JSON_NUMBER)
		return result_file_error("merge", file, "%s without its \"%s\" count", what, key);
	return result_file_error("merge", file, "%s: \"%s\" %s %s: a count is an integer 0 to 2^64-1", what, key,
	                         v->text, why);
}

static bool status_of(const char *word, enum report_status *out)
{
	for (enum report_status s = REPORT_COUNTED; s <= REPORT_NOT_SUPPORTED; s++)
		if (word && strcmp(word, report_status_name(s)) == 0) {
			*out = s;
			return true;
		}
	return false;
}

/* A member that is an integer or null (rank, size): -1 for null. */
static bool count_or_null(const struct json_value *v, long *out)
{
	uint64_t n;
	if (v && v->type == JSON_NULL) {
		*out = -1;
		return true;
	}
	if (!json_as_u64(v, &n) || n > (uint64_t)INT32_MAX)
		return false;
	*out = (long)n;
	return true;
}

/* rank, size, host and job of the document (the stat document's top level or the regions object). */
static int read_identity(const char *file, const struct json_value *doc, struct merge_rank *out)
{
	const struct json_value *job = json_member(doc, "job");
	const char *host = json_as_string(json_member(doc, "host"));
	if (!count_or_null(json_member(doc, "rank"), &out->rank) || !count_or_null(json_member(doc, "size"), &out->size) ||
	    !host || !job || (job->type != JSON_NULL && job->type != JSON_STRING))
		return bad(file, "rank, size, host or job missing or not of their type (docs/json-schema.json)");
	if (out->size == 0)
		return bad(file, "size 0: a job has at least one rank");
	if (out->rank >= 0 && out->size > 0 && out->rank >= out->size)
		return result_file_error("merge", file, "rank %ld in a job of size %ld (ranks 0 to %ld)", out->rank,
		                         out->size, out->size - 1);
	out->host = strdup(host);
	out->job = job->type == JSON_STRING ? strdup(job->text) : NULL;
	if (!out->host || (job->type == JSON_STRING && !out->job))
		return no_memory(file);
	return 0;
}

static int read_status(const char *file, const struct json_value *item, enum report_status *out)
{
	if (!status_of(json_as_string(json_member(item, "status")), out))
		return bad(file, "an event without a status tally knows (counted, scaled, not-counted, not-supported)");
	return 0;
}

/* Why a scaled value is not one tally writes, or NULL: finite, 0 to 2^64-1, and in a document of one run a
 * whole count (the library's scaled count is one; only a mean over runs has a fraction). */
static const char *scaled_problem(double scaled, bool one_run)
{
	if (!isfinite(scaled))
		return "is not a finite number";
	if (scaled < 0)
		return "is negative";
	if (scaled >= COUNT_LIMIT)
		return "is above 2^64-1";
	if (one_run && scaled != floor(scaled))
		return "is not a whole count in a document of one run";
	return NULL;
}

/* Event i of the closing events: name, unit, display value (scaled × unit_scale), status, each checked to be
 * what tally writes. */
static int read_stat_event(const char *file, const struct json_value *e, bool one_run, struct merge_rank *out,
                           size_t i)
{
	const char *name = json_as_string(json_member(e, "name"));
	const char *unit = json_as_string(json_member(e, "unit"));
	const struct json_value *scaled_v = json_member(e, "scaled"), *scale_v = json_member(e, "unit_scale");
	double scaled, unit_scale;
	uint64_t value;
	if (!name || !unit || !json_as_double(scaled_v, &scaled) || !json_as_double(scale_v, &unit_scale))
		return bad(file, "an event without its name, unit, scaled value or unit_scale");
	char what[160];
	snprintf(what, sizeof(what), "event %s", name);
	if (read_count(file, what, e, "value", &value) < 0 || read_status(file, e, &out->values[i].status) < 0)
		return -1;
	const char *why = scaled_problem(scaled, one_run);
	if (why)
		return result_file_error("merge", file, "%s: \"scaled\" %s %s", what, scaled_v->text, why);
	/* Counted (never multiplexed): the scaled value is the count itself, or with -r the mean it rounds. */
	if (out->values[i].status == REPORT_COUNTED && count_of(scaled) != value)
		return result_file_error("merge", file, "%s: counted, but \"scaled\" %s is not its count %" PRIu64, what,
		                         scaled_v->text, value);
	if (!isfinite(unit_scale) || unit_scale <= 0)
		return result_file_error("merge", file, "%s: \"unit_scale\" %s is not a positive finite number", what,
		                         scale_v->text);
	out->values[i].value = scaled * unit_scale;
	out->event_names[i] = strdup(name);
	out->units[i] = strdup(unit);
	if (!out->event_names[i] || !out->units[i])
		return no_memory(file);
	return 0;
}

/* The closing "events" of a stat document. */
static int read_stat_events(const char *file, const struct json_value *doc, struct merge_rank *out)
{
	const struct json_value *events = json_member(doc, "events");
	uint64_t runs;
	bool one_run = json_as_u64(json_member(doc, "nr_runs"), &runs) && runs == 1;
	if (!events || events->type != JSON_ARRAY)
		return bad(file, "no \"events\" array");
	out->nr_events = events->n;
	out->event_names = calloc(events->n + 1, sizeof(char *));
	out->units = calloc(events->n + 1, sizeof(char *));
	out->values = calloc(events->n + 1, sizeof(*out->values));
	if (!out->event_names || !out->units || !out->values)
		return no_memory(file);
	for (size_t i = 0; i < events->n; i++)
		if (read_stat_event(file, &events->items[i], one_run, out, i) < 0)
			return -1;
	return 0;
}

/* One region's row summed over threads: calls, and per event its sum and status. */
static int read_region(const char *file, const struct json_value *reg, size_t nr_events, struct merge_region *out)
{
	const char *name = json_as_string(json_member(reg, "name"));
	const struct json_value *events = json_member(reg, "events");
	if (!name || !events || events->type != JSON_ARRAY || events->n != nr_events)
		return bad(file, "a region without its name or one entry per event");
	char what[160];
	snprintf(what, sizeof(what), "region %s", name);
	if (read_count(file, what, reg, "calls", &out->calls) < 0)
		return -1;
	out->name = strdup(name);
	out->values = calloc(nr_events + 1, sizeof(*out->values));
	if (!out->name || !out->values)
		return no_memory(file);
	for (size_t i = 0; i < nr_events; i++) {
		uint64_t sum;
		if (read_count(file, what, &events->items[i], "sum", &sum) < 0)
			return -1;
		if (read_status(file, &events->items[i], &out->values[i].status) < 0)
			return -1;
		out->values[i].value = (double)sum;
	}
	return 0;
}

/* The regions object: its events' names and each region's totals. */
static int read_regions(const char *file, const struct json_value *obj, struct merge_rank *out)
{
	const struct json_value *events = json_member(obj, "events"), *regions = json_member(obj, "regions");
	if (!events || events->type != JSON_ARRAY || !regions || regions->type != JSON_ARRAY)
		return bad(file, "a regions object without its \"events\" and \"regions\" arrays");
	out->has_regions = true;
	out->nr_region_events = events->n;
	out->region_event_names = calloc(events->n + 1, sizeof(char *));
	out->regions = calloc(regions->n + 1, sizeof(*out->regions));
	if (!out->region_event_names || !out->regions)
		return no_memory(file);
	for (size_t i = 0; i < events->n; i++) {
		const char *name = json_as_string(json_member(&events->items[i], "name"));
		if (!name)
			return bad(file, "a region event without its name");
		if (!(out->region_event_names[i] = strdup(name)))
			return no_memory(file);
	}
	for (size_t k = 0; k < regions->n; k++) {
		out->nr_regions = k + 1;
		if (read_region(file, &regions->items[k], events->n, &out->regions[k]) < 0)
			return -1;
	}
	return 0;
}

/* The version a document says it has: false when the member is missing or not a count. */
static bool version_of(const struct json_value *v, int *out)
{
	uint64_t n;
	if (!json_as_u64(v, &n))
		return false;
	*out = n > 1000000 ? 1000000 : (int)n;
	return true;
}

/* The stat document's regions object, whose own version must be the one read too. */
static int read_stat_regions(const char *file, const struct json_value *regions, struct merge_rank *out)
{
	int version;
	if (!regions || regions->type == JSON_NULL)
		return 0;
	if (!version_of(json_member(regions, "version"), &version))
		return bad(file, "a \"regions\" member that is not a regions object");
	if (version != MERGE_REGIONS_VERSION)
		return result_file_error("merge", file, "its regions object has version %d; tally merge reads version %d",
		                         version, MERGE_REGIONS_VERSION);
	return read_regions(file, regions, out);
}

/* What the document is and which version; its content only when the version is the one merge reads (the
 * caller says which files differ, or that the one version is not read). */
static int read_document(const char *file, const struct json_value *doc, struct merge_rank *out)
{
	if (doc->type != JSON_OBJECT)
		return bad(file, "not a tally result (the document is not a JSON object)");
	const struct json_value *schema = json_member(doc, "schema_version");
	if (schema) {
		out->kind = MERGE_STAT;
		if (!version_of(schema, &out->version) || !json_as_string(json_member(doc, "tally_version")))
			return bad(file, "not a tally result (schema_version or tally_version is not of its type)");
		out->supported = out->version == MERGE_STAT_SCHEMA;
		if (!out->supported)
			return 0;
		if (read_identity(file, doc, out) < 0 || read_stat_events(file, doc, out) < 0)
			return -1;
		return read_stat_regions(file, json_member(doc, "regions"), out);
	}
	if (json_member(doc, "version") && json_member(doc, "regions") && json_member(doc, "spec")) {
		out->kind = MERGE_REGIONS;
		if (!version_of(json_member(doc, "version"), &out->version))
			return bad(file, "region output whose version is not a number");
		out->supported = out->version == MERGE_REGIONS_VERSION;
		if (!out->supported)
			return 0;
		if (read_regions(file, doc, out) < 0)
			return -1;
		return read_identity(file, doc, out);
	}
	return bad(file, "not a tally result: neither a tally stat -j document (schema_version) nor region output "
	           "(TALLY_OUTPUT=*.json)");
}

int merge_input_from(const char *file, const struct json_value *doc, struct merge_rank *out)
{
	memset(out, 0, sizeof(*out));
	out->file = file;
	out->rank = out->size = -1;
	return read_document(file, doc, out);
}

int merge_input_read(const char *file, struct merge_rank *out)
{
	struct json_value doc;
	memset(out, 0, sizeof(*out));
	out->file = file;
	if (result_file_read("merge", file, &doc) < 0)
		return -1;
	int status = merge_input_from(file, &doc, out);
	json_value_free(&doc);
	return status;
}

static void free_strings(char **list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

void merge_input_free(struct merge_rank *r)
{
	free(r->host);
	free(r->job);
	free_strings(r->event_names, r->nr_events);
	free_strings(r->units, r->nr_events);
	free(r->values);
	free_strings(r->region_event_names, r->nr_region_events);
	for (size_t k = 0; k < r->nr_regions; k++) {
		free(r->regions[k].name);
		free(r->regions[k].values);
	}
	free(r->regions);
	memset(r, 0, sizeof(*r));
}
