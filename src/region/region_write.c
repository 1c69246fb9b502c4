/* SPDX-License-Identifier: MIT */
/* A region set's results as text: a table for people, CSV, and the JSON object of docs/json-schema.json. */
#include "region/region.h"

#include "core/error.h"
#include "shared/json_escape.h"
#include "shared/utf8.h"

#include <tally/rank.h>

#include <inttypes.h>
#include <tally/metrics.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

/* The JSON object's own version, "regions.version" (docs/json-schema.json): 2 added rank, size, host, job. */
#define REGIONS_JSON_VERSION 2

/* A JSON string of text that need not be UTF-8 (a region's name is the program's bytes): json_escape
 * writes a byte that is no part of a valid sequence as U+FFFD (RFC 8259 asks for UTF-8). */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	json_escape(f, s, strlen(s));
	fputc('"', f);
}

/* A rank or size: null when unknown (-1). */
static void json_count(FILE *f, long n)
{
	if (n >= 0)
		fprintf(f, "%ld", n);
	else
		fputs("null", f);
}

/* Text of the caller's or the environment's (a region's name, TALLY_EVENTS, TALLY_METRICS, a host name) in
 * the table, which a terminal shows: control bytes, C1 controls (U+0080..U+009F: U+009B is a terminal's
 * CSI) and bytes that are no UTF-8 as \xHH, a backslash as \\, so that no escape sequence reaches the
 * terminal and no line is broken; then spaces up to width columns (bytes counted). */
void tly_region_text(FILE *f, const char *s, int width)
{
	int n = 0;
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	while (p < end) {
		uint32_t cp;
		size_t len = utf8_sequence(p, (size_t)(end - p), &cp);
		if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			for (size_t k = 0; k < (len ? len : 1); k++)
				n += fprintf(f, "\\x%02x", p[k]);
			p += len ? len : 1;
		} else if (cp == '\\') {
			n += fprintf(f, "\\\\");
			p++;
		} else {
			n += (int)fwrite(p, 1, len, f);
			p += len;
		}
	}
	for (; n < width; n++)
		fputc(' ', f);
}

/* A CSV field: quoted, quotes doubled, when it holds a separator, a quote or a line break. */
static void csv_string(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\n\r")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* One region on one thread (or all) as the writers see it, with the figure perf stat prints beside each
 * event (tally_metric_comment: IPC beside instructions, a rate beside the others), computed from the
 * region's sums over its wall time. */
struct row {
	struct tally_region_info info;
	struct tally_region_event *ev;
	double *sums;
	enum tally_status *statuses;
	struct tally_metric_value *metric;
	bool *has_metric;
	/* The metrics the set was asked for (tally_region_opts.metrics): the catalogue's (nr_catalogue, their
	 * indices), then the vendor table's (the set's vendor_idx), and their values in this row. */
	size_t nr_named, nr_catalogue;
	size_t *named_idx;
	struct tally_metric_value *named;
};

static void row_free(struct row *r)
{
	free(r->ev);
	free(r->sums);
	free(r->statuses);
	free(r->metric);
	free(r->has_metric);
	free(r->named_idx);
	free(r->named);
}

static void row_metrics(const tally_region_set *s, struct row *r)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		r->sums[i] = (double)r->ev[i].sum;
		r->statuses[i] = r->ev[i].status;
	}
	TALLY_OPTS(tally_metric_sample, sample, .events = tally_counter_events(s->names), .values = r->sums,
	           .statuses = r->statuses, .n = s->nr_events, .seconds = (double)r->info.wall_ns / 1e9);
	for (size_t i = 0; i < s->nr_events; i++) {
		r->metric[i] = (struct tally_metric_value){ .sz = sizeof(r->metric[i]) };
		r->has_metric[i] = tally_metric_comment(&sample, i, &r->metric[i]) == 1;
	}
	for (size_t k = 0; k < r->nr_named; k++) {
		r->named[k] = (struct tally_metric_value){ .sz = sizeof(r->named[k]), .threshold = -1 };
		if (k < r->nr_catalogue)
			tally_metric_eval(&sample, r->named_idx[k], &r->named[k]);
		else
			tally_vendor_metric_eval(s->vendor, &sample, s->vendor_idx[k - r->nr_catalogue], &r->named[k]);
	}
}

/* The asked-for metrics of a row, after its events: value or why it is not available. */
static void table_named(FILE *f, const struct row *r, const char *tid)
{
	for (size_t k = 0; k < r->nr_named; k++) {
		const struct tally_metric_value *m = &r->named[k];
		tly_region_text(f, r->info.name, 20);
		fprintf(f, " %8s %10" PRIu64 " %12.3f  %-20s ", tid, r->info.calls, (double)r->info.wall_ns / 1e6, m->name);
		if (m->available) {
			/* a vendor metric over its MetricThreshold, as tally stat marks it */
			fprintf(f, "%14.3f  # %s%s\n", m->value, m->unit, m->threshold == 1 ? "  (over its threshold)" : "");
		} else {
			fprintf(f, "%14s  # %s: ", "<not available>", m->unit);
			tly_region_text(f, m->reason, 0);
			fputc('\n', f);
		}
	}
}

static void csv_named(FILE *f, const struct row *r)
{
	for (size_t k = 0; k < r->nr_named; k++) {
		const struct tally_metric_value *m = &r->named[k];
		csv_string(f, r->info.name);
		fprintf(f, r->info.tid ? ",%d" : ",all", (int)r->info.tid);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", r->info.calls, r->info.wall_ns);
		csv_string(f, m->name);
		fputs(",,,,,,,,,,,,,", f);
		if (m->available)
			fprintf(f, "%.6g,", m->value);
		else
			fputs("<not available>,", f);
		csv_string(f, m->unit);
		/* a vendor metric's MetricThreshold, in tally stat's words; empty without one */
		fputs(m->threshold < 0 ? ",\n" : m->threshold ? ",over-threshold\n" : ",under-threshold\n", f);
	}
}

static void json_named(FILE *f, const struct row *r)
{
	if (!r->nr_named)
		return;
	fputs(",\"metrics\":[", f);
	for (size_t k = 0; k < r->nr_named; k++) {
		const struct tally_metric_value *m = &r->named[k];
		fputs(k ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, m->name);
		if (m->available)
			fprintf(f, ",\"value\":%.17g,\"unit\":", m->value);
		else
			fputs(",\"value\":null,\"unit\":", f);
		json_string(f, m->unit);
		fprintf(f, ",\"available\":%s,", m->available ? "true" : "false");
		if (m->threshold >= 0) /* a vendor metric's MetricThreshold evaluated */
			fprintf(f, "\"over_threshold\":%s,", m->threshold == 1 ? "true" : "false");
		fputs("\"reason\":", f);
		if (m->available)
			fputs("null}", f);
		else {
			json_string(f, m->reason);
			fputc('}', f);
		}
	}
	fputc(']', f);
}

/* Region's row of thread t (NULL: all threads). */
static bool row_read(const tally_region_set *s, size_t region, const struct tly_region_thread *t, struct row *r)
{
	r->info = (struct tally_region_info){ .sz = sizeof(r->info) };
	if (tly_region_read(s, region, t, &r->info, r->ev, s->nr_events, sizeof(r->ev[0])) < 0)
		return false;
	row_metrics(s, r);
	return true;
}

static const struct tly_region_thread *first_thread(const tally_region_set *s)
{
	return atomic_load_explicit(&s->threads, memory_order_acquire);
}

static const struct tly_region_thread *next_thread(const struct tly_region_thread *t)
{
	return atomic_load_explicit(&t->next, memory_order_acquire);
}

/* Whether thread t has calls of region to show (completed, open or stray). */
static bool thread_used(const struct tly_region_thread *t, size_t region)
{
	const struct tly_region_rec *rec = atomic_load_explicit(&t->recs[region], memory_order_acquire);
	return rec && (rec->calls || rec->depth || rec->stray_ends);
}

/* Per-thread rows are written for a region more than one thread used. */
static bool used_by_threads(const tally_region_set *s, size_t region)
{
	size_t used = 0;
	for (const struct tly_region_thread *t = first_thread(s); t && used < 2; t = next_thread(t))
		used += thread_used(t, region);
	return used > 1;
}

/* Where the process stands in a parallel job, for the headers (tally merge reads it from the JSON). A launcher
 * variable that is not a number leaves the rank and size unknown: the results are still written. */
static void rank_of(struct tally_rank *r)
{
	*r = (struct tally_rank){ .sz = sizeof(*r) };
	if (tally_rank_get(r) < 0)
		*r = (struct tally_rank){ .sz = sizeof(*r), .rank = -1, .size = -1 };
}

static void table_header(const tally_region_set *s, FILE *f)
{
	struct tally_rank r;
	rank_of(&r);
	fprintf(f, "# tally regions, pid %d, events ", (int)getpid());
	tly_region_text(f, s->spec ? s->spec : "", 0);
	if (r.rank >= 0)
		fprintf(f, ", rank %ld", r.rank);
	if (r.rank >= 0 && r.size >= 0)
		fprintf(f, " of %ld", r.size);
	if (r.rank >= 0) {
		fputs(" on ", f);
		tly_region_text(f, r.host, 0);
	}
	if (r.job[0]) {
		fputs(", job ", f);
		tly_region_text(f, r.job, 0);
	}
	fputc('\n', f);
	if (s->error[0]) {
		fputs("# not counting: ", f);
		tly_region_text(f, s->error, 0);
		fputc('\n', f);
	}
	/* A thread whose own counter could not open (no descriptor left) made no record: no row shows it. */
	for (const struct tly_region_thread *t = first_thread(s); t && !s->error[0]; t = next_thread(t)) {
		if (t->error[0]) {
			fprintf(f, "# thread %d not counting: ", (int)t->tid);
			tly_region_text(f, t->error, 0);
			fputc('\n', f);
		}
	}
	if (s->refused)
		fprintf(f, "# %" PRIu64 " region call(s) not counted: their names came after the %zu the set holds\n",
		        (uint64_t)s->refused, s->max_regions);
	fprintf(f, "# overhead of an empty region (begin + end), %s:", s->subtract ? "subtracted" : "not subtracted");
	for (size_t i = 0; i < s->nr_events; i++)
		fprintf(f, " %s %" PRIu64 "%s", tally_region_set_event_name(s, i), s->overhead[i],
		        i + 1 < s->nr_events ? "," : "");
	fprintf(f, "\n%-20s %8s %10s %12s  %-20s %14s %14s %12s %12s %12s  %s\n", "region", "thread", "calls",
	        "wall-ms", "event", "sum", "mean", "stddev", "min", "max", "status");
}

static void table_row(const tally_region_set *s, FILE *f, const struct row *r)
{
	char tid[16];
	snprintf(tid, sizeof(tid), r->info.tid ? "%d" : "all", (int)r->info.tid);
	if (r->info.open || r->info.stray_ends) {
		fputs("# region '", f);
		tly_region_text(f, r->info.name, 0);
		fprintf(f, "' (thread %s): %" PRIu64 " begin(s) without an end, %" PRIu64 " end(s) without a begin\n",
		        tid, r->info.open, r->info.stray_ends);
	}
	if (s->nr_events == 0) {
		tly_region_text(f, r->info.name, 20);
		fprintf(f, " %8s %10" PRIu64 "  not counted: ", tid, r->info.calls);
		tly_region_text(f, s->error, 0);
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct tally_region_event *e = &r->ev[i];
		tly_region_text(f, r->info.name, 20);
		fprintf(f, " %8s %10" PRIu64 " %12.3f  %-20s %14" PRIu64 " %14.1f %12.1f %12" PRIu64
		        " %12" PRIu64 "  %s", tid, r->info.calls, (double)r->info.wall_ns / 1e6,
		        tally_region_set_event_name(s, i), e->sum, e->mean, e->stddev, e->min, e->max,
		        tally_status_name(e->status));
		if (e->status == TALLY_STATUS_SCALED)
			fprintf(f, " (%.1f%%)", e->ratio * 100);
		if (e->low)
			fputs("  low: under 10x the overhead", f);
		/* Last, as perf stat's comment column: "# 0.500 insn per cycle". */
		if (r->has_metric[i])
			fprintf(f, "  # %.3f %s", r->metric[i].value, r->metric[i].unit);
		fputc('\n', f);
	}
	table_named(f, r, tid);
}

static void csv_row(const tally_region_set *s, FILE *f, const struct row *r)
{
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct tally_region_event *e = &r->ev[i];
		csv_string(f, r->info.name);
		fprintf(f, r->info.tid ? ",%d" : ",all", (int)r->info.tid);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", r->info.calls, r->info.wall_ns);
		csv_string(f, tally_region_set_event_name(s, i));
		fprintf(f, ",%" PRIu64 ",%.3f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%.4f,%" PRIu64
		        ",%d,%" PRIu64 ",%" PRIu64 ",", e->sum, e->mean, e->stddev, e->min, e->max, e->counted,
		        tally_status_name(e->status), e->ratio, s->overhead[i], e->low, r->info.open,
		        r->info.stray_ends);
		if (r->has_metric[i]) {
			fprintf(f, "%.6g,", r->metric[i].value);
			csv_string(f, r->metric[i].unit);
		} else {
			fputc(',', f);
		}
		fputs(",\n", f);
	}
	csv_named(f, r);
}

static void json_row(const tally_region_set *s, FILE *f, const struct row *r)
{
	fprintf(f, "\"calls\":%" PRIu64 ",\"wall_ns\":%" PRIu64 ",\"open\":%" PRIu64 ",\"stray_ends\":%" PRIu64
	        ",\"events\":[", r->info.calls, r->info.wall_ns, r->info.open, r->info.stray_ends);
	for (size_t i = 0; i < s->nr_events; i++) {
		const struct tally_region_event *e = &r->ev[i];
		fputs(i ? ",{\"event\":" : "{\"event\":", f);
		json_string(f, tally_region_set_event_name(s, i));
		fprintf(f, ",\"sum\":%" PRIu64 ",\"mean\":%.3f,\"stddev\":%.3f,\"min\":%" PRIu64 ",\"max\":%" PRIu64
		        ",\"counted\":%" PRIu64 ",\"status\":\"%s\",\"ratio\":%.4f,\"low\":%s,\"metric\":", e->sum,
		        e->mean, e->stddev, e->min, e->max, e->counted, tally_status_name(e->status), e->ratio,
		        e->low ? "true" : "false");
		if (r->has_metric[i]) {
			fprintf(f, "{\"value\":%.17g,\"unit\":", r->metric[i].value);
			json_string(f, r->metric[i].unit);
			fputs("}}", f);
		} else {
			fputs("null}", f);
		}
	}
	fputc(']', f);
	json_named(f, r);
}

static void json_head(const tally_region_set *s, FILE *f)
{
	struct tally_rank r;
	rank_of(&r);
	fprintf(f, "{\"version\":%d,\"pid\":%d,\"rank\":", REGIONS_JSON_VERSION, (int)getpid());
	json_count(f, r.rank);
	fputs(",\"size\":", f);
	json_count(f, r.size);
	fputs(",\"host\":", f);
	json_string(f, r.host);
	fputs(",\"job\":", f);
	if (r.job[0])
		json_string(f, r.job);
	else
		fputs("null", f);
	fputs(",\"spec\":", f);
	json_string(f, s->spec ? s->spec : "");
	fputs(",\"error\":", f);
	json_string(f, s->error);
	fprintf(f, ",\"refused_calls\":%" PRIu64 ",\"overhead_subtracted\":%s,\"low_multiple\":%d,\"events\":[",
	        (uint64_t)s->refused, s->subtract ? "true" : "false", TALLY_REGION_LOW_MULTIPLE);
	for (size_t i = 0; i < s->nr_events; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, tally_region_set_event_name(s, i));
		fprintf(f, ",\"overhead\":%" PRIu64 "}", s->overhead[i]);
	}
	fputs("],\"regions\":[", f);
}

static void write_region(const tally_region_set *s, FILE *f, enum tally_region_format format, size_t region,
                         struct row *r)
{
	bool per_thread = used_by_threads(s, region);
	if (format == TALLY_REGION_JSON) {
		fputs(region ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, s->region_names[region]);
		fputc(',', f);
	}
	row_read(s, region, NULL, r);
	if (format == TALLY_REGION_TABLE)
		table_row(s, f, r);
	else if (format == TALLY_REGION_CSV)
		csv_row(s, f, r);
	else
		json_row(s, f, r);
	if (format == TALLY_REGION_JSON)
		fputs(",\"threads\":[", f);
	size_t written = 0;
	for (const struct tly_region_thread *t = first_thread(s); per_thread && t; t = next_thread(t)) {
		if (!thread_used(t, region) || !row_read(s, region, t, r))
			continue;
		if (format == TALLY_REGION_TABLE)
			table_row(s, f, r);
		else if (format == TALLY_REGION_CSV)
			csv_row(s, f, r);
		else {
			fprintf(f, "%s{\"tid\":%d,", written++ ? "," : "", (int)r->info.tid);
			json_row(s, f, r);
			fputc('}', f);
		}
	}
	if (format == TALLY_REGION_JSON)
		fputs("]}", f);
}

int tally_region_set_write(const tally_region_set *s, FILE *f, enum tally_region_format format)
{
	if (!s || !f)
		return tly_null_arg(__func__);
	size_t n = s->nr_events ? s->nr_events : 1;
	struct row r = { .ev = calloc(n, sizeof(*r.ev)), .sums = calloc(n, sizeof(*r.sums)),
		         .statuses = calloc(n, sizeof(*r.statuses)), .metric = calloc(n, sizeof(*r.metric)),
		         .has_metric = calloc(n, sizeof(*r.has_metric)) };
	int catalogue = s->names ? tally_counter_metrics(s->names, NULL, 0) : 0;
	size_t named = (catalogue > 0 ? (size_t)catalogue : 0) + (s->names ? s->nr_vendor : 0);
	if (named > 0 && (r.named_idx = calloc(named, sizeof(*r.named_idx))) &&
	    (r.named = calloc(named, sizeof(*r.named)))) {
		r.nr_catalogue = catalogue > 0 ? (size_t)tally_counter_metrics(s->names, r.named_idx, named) : 0;
		r.nr_named = named;
	}
	/* The program may have set LC_NUMERIC to a decimal comma: JSON and CSV readers expect a point. */
	locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (!r.ev || !r.sums || !r.statuses || !r.metric || !r.has_metric || (named > 0 && !r.nr_named) ||
	    c_locale == (locale_t)0) {
		row_free(&r);
		if (c_locale != (locale_t)0)
			freelocale(c_locale);
		return tly_error(-ENOMEM, "out of memory");
	}
	locale_t caller_locale = uselocale(c_locale);
	if (format == TALLY_REGION_TABLE)
		table_header(s, f);
	else if (format == TALLY_REGION_CSV)
		fputs("region,thread,calls,wall_ns,event,sum,mean,stddev,min,max,counted,status,ratio,overhead,low,"
		      "open,stray_ends,metric_value,metric_unit,metric_threshold\n", f);
	else
		json_head(s, f);
	for (size_t region = 0; region < tally_region_set_regions(s); region++)
		write_region(s, f, format, region, &r);
	if (format == TALLY_REGION_JSON)
		fputs("]}\n", f);
	uselocale(caller_locale);
	freelocale(c_locale);
	row_free(&r);
	return fflush(f) == 0 && !ferror(f) ? 0 : tly_error(-EIO, "writing the region results failed");
}
