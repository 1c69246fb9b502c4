/* SPDX-License-Identifier: MIT */
#include "exporter/exposition.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <sys/utsname.h>

#include <tally/common.h>
#include <tally/events.h>

#include "shared/utf8.h"

/* A label value: backslash, double quote and line feed escaped, valid UTF-8 as it is. The format is
 * UTF-8 and one invalid byte fails the whole scrape (Prometheus drops it, promtool refuses it), while a
 * cgroup's name is any bytes but '/': a byte that is not UTF-8 is written as the four characters \xHH
 * (its backslash escaped), which keeps two names that differ in such bytes two series. */
static void write_value(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");
	for (size_t n = strlen((const char *)p); *p;) {
		uint32_t cp;
		size_t len = utf8_sequence(p, n, &cp);
		if (len == 0) {
			fprintf(out, "\\\\x%02x", *p);
			len = 1;
		} else if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p, out);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else {
			fwrite(p, 1, len, out);
		}
		p += len;
		n -= len;
	}
}

/* HELP text escapes a backslash and a line feed (a vendor metric's description is the table's text). */
static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s ", name);
	for (const char *p = help; *p; p++)
		if (*p == '\\' || *p == '\n')
			fputs(*p == '\\' ? "\\\\" : "\\n", out);
		else
			fputc(*p, out);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* The labels of an event's series in a target: event, pmu, cgroup (not for the machine), cpu (with
 * --per-cpu, cpu >= 0), status (NULL: none). */
static void labels(FILE *out, const struct fleet *f, const struct fleet_target *t, size_t i, int cpu,
                   const char *status)
{
	TALLY_OPTS(tally_event_info, info);
	tally_events_at(tally_counter_events(f->model), i, &info);
	fputs("{event=\"", out);
	write_value(out, tally_counter_name(f->model, i));
	fputs("\",pmu=\"", out);
	write_value(out, info.pmu);
	fputc('"', out);
	if (t->name) {
		fputs(",cgroup=\"", out);
		write_value(out, t->name);
		fputc('"', out);
	}
	if (cpu >= 0)
		fprintf(out, ",cpu=\"%d\"", cpu);
	if (status)
		fprintf(out, ",status=\"%s\"", status);
	fputc('}', out);
}

enum column { SCALED, VALUE, ENABLED, RUNNING };

static const char *const column_family[] = {
	[SCALED] = "tally_event_total", [VALUE] = "tally_event_value_total",
	[ENABLED] = "tally_event_enabled_seconds_total", [RUNNING] = "tally_event_running_seconds_total",
};

static void sample(FILE *out, const struct fleet *f, const struct fleet_target *t, size_t i, int cpu,
                   enum column col, double v)
{
	fputs(column_family[col], out);
	labels(out, f, t, i, cpu, NULL);
	/* Times to the nanosecond; counts as integers while a double holds them exactly (2^53), which
	 * %.17g prints without an exponent up to 1e17. */
	fprintf(out, col == ENABLED || col == RUNNING ? " %.9f\n" : " %.17g\n", v);
}

/* One family of event series: each counting target's events, summed over CPUs or per CPU. */
static void event_family(FILE *out, const struct fleet *f, bool per_cpu, enum column col)
{
	for (size_t k = 0; k < f->nr_targets; k++) {
		const struct fleet_target *t = f->targets[k];
		if (!t->counter)
			continue;
		for (size_t i = 0; i < f->nr_events; i++) {
			if (t->status[i] == TALLY_STATUS_NOT_SUPPORTED || !f->shown[i])
				continue;
			double sum = 0;
			for (size_t p = 0; p < t->nr_parts; p++) {
				const struct fleet_total *x = &t->totals[i * t->nr_parts + p];
				double v = col == SCALED ? x->scaled : col == VALUE ? (double)x->value
				         : col == ENABLED ? (double)x->enabled / 1e9 : (double)x->running / 1e9;
				if (per_cpu && x->cpu >= 0)
					sample(out, f, t, i, x->cpu, col, v);
				sum += v;
			}
			if (!per_cpu)
				sample(out, f, t, i, -1, col, sum);
		}
	}
}

static void status_family(FILE *out, const struct fleet *f)
{
	static const char *const names[] = {
		[TALLY_STATUS_EXACT] = "counted", [TALLY_STATUS_SCALED] = "scaled",
		[TALLY_STATUS_NOT_COUNTED] = "not_counted", [TALLY_STATUS_NOT_SUPPORTED] = "not_supported",
	};
	for (size_t k = 0; k < f->nr_targets; k++) {
		const struct fleet_target *t = f->targets[k];
		for (size_t i = 0; t->counter && i < f->nr_events; i++)
			for (size_t s = 0; f->shown[i] && s < sizeof(names) / sizeof(names[0]); s++) {
				fputs("tally_event_status", out);
				labels(out, f, t, i, -1, names[s]);
				fprintf(out, " %d\n", t->status[i] == (enum tally_status)s);
			}
	}
}

/* A metric's labels: metric (NULL: none), cgroup (not for the machine), cpu (with --per-cpu). */
static void metric_labels(FILE *out, const struct fleet_target *t, int cpu, const char *metric)
{
	if (!metric && !t->name && cpu < 0)
		return;
	char sep = '{';
	if (metric) {
		fprintf(out, "%cmetric=\"", sep);
		write_value(out, metric);
		fputc('"', out);
		sep = ',';
	}
	if (t->name) {
		fprintf(out, "%ccgroup=\"", sep);
		write_value(out, t->name);
		fputc('"', out);
		sep = ',';
	}
	if (cpu >= 0)
		fprintf(out, "%ccpu=\"%d\"", sep, cpu);
	fputc('}', out);
}

/* The series of metric m (threshold: of its verdicts): each target's, or each CPU's with --per-cpu, where
 * the latest interval gave the metric a value. None where it gave none: a NaN would make every sum and
 * average over the family NaN, and a series absent for an interval is what PromQL skips. */
static void metric_series(FILE *out, const struct fleet *f, size_t m, bool per_cpu, bool threshold)
{
	const struct metric_gauge *g = &f->metrics.gauges[m];
	for (size_t k = 0; k < f->nr_targets; k++) {
		const struct fleet_target *t = f->targets[k];
		size_t first = per_cpu ? 1 : 0, last = per_cpu ? t->nr_parts : 0;
		for (size_t slot = first; t->counter && t->values && slot <= last; slot++) {
			const struct fleet_metric_value *v = &t->values[m * (t->nr_parts + 1) + slot];
			if (!v->available || (threshold && v->threshold < 0))
				continue;
			fputs(threshold ? "tally_metric_over_threshold" : g->family, out);
			metric_labels(out, t, v->cpu, threshold ? g->name : NULL);
			if (threshold)
				fprintf(out, " %d\n", v->threshold);
			else
				fprintf(out, " %.17g\n", v->value);
		}
	}
}

/* A gauge family per metric (one unit each), then one of the vendor metrics' threshold verdicts. */
static void metric_families(FILE *out, const struct fleet *f, bool per_cpu)
{
	bool thresholds = false;
	for (size_t m = 0; m < f->metrics.nr; m++) {
		family(out, f->metrics.gauges[m].family, "gauge", f->metrics.gauges[m].help);
		metric_series(out, f, m, per_cpu, false);
		thresholds |= f->metrics.gauges[m].has_threshold;
	}
	if (!thresholds)
		return;
	family(out, "tally_metric_over_threshold", "gauge",
	       "1 when the vendor metric's latest value is over its MetricThreshold, the expression perf stat "
	       "marks a value by (worth a look; for some metrics a value below a bound), 0 when not.");
	for (size_t m = 0; m < f->metrics.nr; m++)
		if (f->metrics.gauges[m].has_threshold)
			metric_series(out, f, m, per_cpu, true);
}

int exposition_write(FILE *out, const struct fleet *f, const struct exposition_info *info)
{
	static const char *const helps[] = {
		/* Parenthesised: one string each (clang's -Wstring-concatenation asks). */
		[SCALED] = ("Events counted: the sum over intervals of each interval's count scaled for multiplexing "
		            "(delta value x delta enabled / delta running, per CPU), so it only grows and is right "
		            "when counters are shared."),
		[VALUE] = "Events counted while on a hardware counter, not scaled: the raw value the kernel read.",
		[ENABLED] = ("Seconds the event was enabled (summed over CPUs; a cgroup's events are enabled while "
		             "the cgroup runs on the CPU)."),
		[RUNNING] = "Seconds the event was on a counter; below enabled when multiplexed.",
	};
	for (enum column col = SCALED; col <= RUNNING; col++) {
		family(out, column_family[col], "counter", helps[col]);
		event_family(out, f, info->per_cpu, col);
	}
	family(out, "tally_event_status", "gauge",
	       "The event's status in the latest interval, 1 for the one it has: counted (ran all the time), "
	       "scaled (multiplexed), not_counted (did not run), not_supported (cannot be counted here).");
	status_family(out, f);

	metric_families(out, f, info->per_cpu);

	family(out, "tally_cgroup_up", "gauge",
	       "1 when the cgroup's events are open and counting, 0 when they could not be opened (see the "
	       "exporter's log for why).");
	for (size_t k = 0; k < f->nr_targets; k++) {
		if (!f->targets[k]->name)
			continue;
		fputs("tally_cgroup_up{cgroup=\"", out);
		write_value(out, f->targets[k]->name);
		fprintf(out, "\"} %d\n", f->targets[k]->counter != NULL);
	}
	family(out, "tally_cgroups_skipped", "gauge",
	       "Cgroups found under --cgroups-under and left closed because their descriptors would pass "
	       "RLIMIT_NOFILE.");
	fprintf(out, "tally_cgroups_skipped %zu\n", f->skipped);
	family(out, "tally_descriptors", "gauge",
	       "Descriptors the counters hold (events x CPUs per cgroup, and each cgroup's directory), and the "
	       "limit (RLIMIT_NOFILE).");
	fprintf(out, "tally_descriptors{kind=\"used\"} %zu\ntally_descriptors{kind=\"limit\"} %zu\n", f->fds_used,
	        f->fd_limit);
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	family(out, "tally_build_info", "gauge", "The exporter's build: tally's version.");
	fputs("tally_build_info{version=\"", out);
	write_value(out, tally_version());
	fputs("\"} 1\n", out);
	family(out, "tally_machine_info", "gauge", "The machine counted: kernel release and architecture.");
	fputs("tally_machine_info{kernel=\"", out);
	write_value(out, u.release);
	fputs("\",machine=\"", out);
	write_value(out, u.machine);
	fputs("\"} 1\n", out);
	family(out, "tally_machine_cpus", "gauge", "CPUs the events are counted on.");
	fprintf(out, "tally_machine_cpus %ld\n", f->nr_cpus);
	family(out, "tally_scrapes_total", "counter", "Scrapes of /metrics answered, this one included.");
	fprintf(out, "tally_scrapes_total %lu\n", info->scrapes);
	family(out, "tally_scrape_duration_seconds", "gauge",
	       "Seconds the previous scrape took to read every counter and write the exposition.");
	fprintf(out, "tally_scrape_duration_seconds %.9f\n", info->scrape_seconds);
	return ferror(out) ? -1 : 0;
}
