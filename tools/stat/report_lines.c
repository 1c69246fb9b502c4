/* SPDX-License-Identifier: MIT */
/* The report model of what tally stat counts: each event's line (a PMU family or hybrid expansion summed
 * on its item's line), the -M metrics, the target's heading, the rank of a parallel job. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/counter.h>
#include <tally/events.h>
#include <tally/rank.h>

#include "report/event_unit.h"
#include "stat/session.h"

/* A spec item counted on several PMUs whose events sum to one thing is one line, the sum, named as written:
 * a PMU family's instances (tally_event_info.family: uncore_imc/cas_count_read/ on uncore_imc_0 ... _5, as
 * perf merges them) and a generic event, raw code or alias on each core PMU of a hybrid machine
 * (.per_core_pmu: cpu_core/cycles/ and cpu_atom/cycles/, arm64 clusters; perf 6.1 shows these apart unless
 * --hybrid-merge). --no-merge and -A show each PMU on its own line, and so does --per-pmu where other
 * parts are shown (--per-thread, --per-core, ...), named as perf's --no-merge names it: the PMU, then the
 * name from its first '/' ("uncore_imc_0/cas_count_read/"), or "name [pmu]" for a name without one (a
 * name= term); a core PMU's expansion is named so by the library already ("cpu_core/cycles/"). */
static int place_summed(struct stat_session *s, const tally_events *list, size_t n)
{
	const struct stat_options *o = &s->opt;
	bool merge = !o->no_merge && (o->aggregation == AGGR_GLOBAL || (o->aggregation != AGGR_NONE && !o->per_pmu));
	size_t *first = malloc((n ? n : 1) * sizeof(*first)); /* by origin: its first event */
	s->lines = merge ? malloc((n ? n : 1) * sizeof(*s->lines)) : NULL;
	s->names = calloc(n ? n : 1, sizeof(*s->names));
	if (!first || (merge && !s->lines) || !s->names) {
		free(first);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		first[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(list, i, &info); /* i is in range: stat_describe_events read it already */
		struct report_event *e = &s->events[i];
		if (first[info.origin] == SIZE_MAX)
			first[info.origin] = i;
		size_t head = first[info.origin];
		e->line = i;
		e->pmu_name = e->name;
		if (s->lines)
			s->lines[i] = i;
		if (info.nr_origins < 2 || !(info.family || info.per_core_pmu))
			continue;
		if (info.family) {
			const char *slash = strchr(e->name, '/');
			if (slash)
				snprintf(s->names[i], sizeof(s->names[i]), "%s%s", e->pmu, slash);
			else
				snprintf(s->names[i], sizeof(s->names[i]), "%s [%s]", e->name, e->pmu);
			e->pmu_name = s->names[i];
		}
		if (!merge) {
			e->name = e->pmu_name;
			continue;
		}
		s->lines[i] = e->line = head;
		e->hidden = head != i;
		s->events[head].summed = true;
		s->events[head].name = info.origin_name;
	}
	free(first);
	return 0;
}

int stat_describe_events(struct stat_session *s)
{
	const tally_events *list = tally_counter_events(s->counter);
	size_t n = tally_counter_count(s->counter);
	s->events = calloc(n ? n : 1, sizeof(*s->events));
	s->encodings = calloc(n ? n : 1, sizeof(*s->encodings));
	if (!s->events || !s->encodings)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_event_info, info);
		int err = tally_events_at(list, i, &info);
		if (err < 0)
			return err;
		struct report_event *e = &s->events[i];
		e->name = i < s->nr_kept ? s->kept_names[i] : tally_counter_name(s->counter, i);
		e->canonical = info.canonical;
		e->pmu = info.pmu;
		e->type = info.attr->type;
		e->config = info.attr->config;
		e->config1 = info.attr->config1;
		e->config2 = info.attr->config2;
		e->exclude_user = info.attr->exclude_user;
		e->exclude_kernel = info.attr->exclude_kernel;
		e->group = info.group;
		e->optional = s->added_from <= info.origin && info.origin < s->added_to;
		if (tally_events_encoding(list, i, s->encodings[i], sizeof(s->encodings[i])) >= 0)
			e->encoding = s->encodings[i];
		event_unit(&info, &e->unit, &e->unit_scale);
	}
	s->report.nr_events = n;
	s->report.events = s->events;
	return place_summed(s, list, n);
}

/* The metrics the counter was asked for (-M), which the writers compute through the library. */
int stat_describe_metrics(struct stat_session *s)
{
	s->report.list = tally_counter_events(s->counter);
	int n = tally_counter_metrics(s->counter, NULL, 0);
	if (n < 0)
		n = 0;
	const struct metric_list *ml = &s->mlist;
	if (n + ml->nr_vendor == 0)
		return 0;
	s->metrics = calloc((size_t)n + ml->nr_vendor, sizeof(*s->metrics));
	if (!s->metrics)
		return -ENOMEM;
	s->report.nr_catalog = n ? (size_t)tally_counter_metrics(s->counter, s->metrics, (size_t)n) : 0;
	if (ml->nr_vendor)  /* memcpy's source may not be NULL, even for no bytes */
		memcpy(s->metrics + s->report.nr_catalog, ml->vendor_metrics, ml->nr_vendor * sizeof(*s->metrics));
	s->report.nr_metrics = s->report.nr_catalog + ml->nr_vendor;
	s->report.metrics = s->metrics;
	s->report.vendor = ml->vendor;
	s->report.drilldown = s->opt.drilldown;
	s->report.td_level = s->opt.topdown_levels;
	return 0;
}

bool stat_system_wide(const struct stat_options *o)
{
	return o->all_cpus || o->cpu_list;
}

/* The command is the events' target, unless they count something else (-a/-C, -p/-t) while the command
 * only sets how long, as in perf's `perf stat -p PID -- sleep 5`; the library launches it either way. */
bool stat_counts_command(const struct stat_options *o)
{
	return o->argv && !stat_system_wide(o) && !o->nr_pids && !o->nr_tids;
}

/* Appends to the target's heading what fits: a long command line is cut, never overrun. */
static void target_append(struct stat_session *s, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void target_append(struct stat_session *s, size_t *used, const char *fmt, ...)
{
	if (*used >= sizeof(s->target))
		return;
	va_list ap;
	va_start(ap, fmt);
	*used += (size_t)vsnprintf(s->target + *used, sizeof(s->target) - *used, fmt, ap);
	va_end(ap);
}

/* "'1234,1235'": the tasks of -p or -t. */
static void target_append_ids(struct stat_session *s, size_t *used, const int *ids, size_t n)
{
	target_append(s, used, "'");
	for (size_t i = 0; i < n; i++)
		target_append(s, used, "%s%d", i ? "," : "", ids[i]);
	target_append(s, used, "'");
}

/* "'sleep 0.1'", "process id '1234'", "'system wide'", ... as perf heads its table. */
void stat_describe_target(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	size_t used = 0;
	if (stat_system_wide(o)) {
		s->report.target_kind = "cpus";
		if (o->all_cpus)
			target_append(s, &used, "'system wide'");
		else
			target_append(s, &used, "'CPU(s) %s'", o->cpu_list);
	} else if (stat_counts_command(o)) {
		s->report.target_kind = "command";
		target_append(s, &used, "'");
		for (char **a = o->argv; *a; a++)
			target_append(s, &used, "%s%s", a == o->argv ? "" : " ", *a);
		target_append(s, &used, "'");
	} else if (o->nr_pids) {
		s->report.target_kind = "pid";
		target_append(s, &used, "process id ");
		target_append_ids(s, &used, o->pids, o->nr_pids);
	} else {
		s->report.target_kind = "tid";
		target_append(s, &used, "thread id ");
		target_append_ids(s, &used, o->tids, o->nr_tids);
	}
	s->report.target = s->target;
	s->report.argv = o->argv;
}

/* The rank, size, host and job for the headers, and -o's path made from them: a placeholder without a value
 * (%r outside mpirun) is a usage error that names the variables tried, before anything runs. */
int stat_describe_rank(struct stat_session *s)
{
	s->rank = (struct tally_rank){ .sz = sizeof(s->rank) };
	int len = tally_rank_get(&s->rank);
	if (len == 0 && s->opt.output)
		len = tally_path_expand(s->opt.output, s->output, sizeof(s->output));
	if (len < 0) {
		stat_say_failure("", tally_last_error());
		return len;
	}
	if ((size_t)len >= sizeof(s->output)) {
		fprintf(stderr, "tally stat: -o %s: the path is %d bytes long once expanded\n", s->opt.output, len);
		return -ENAMETOOLONG;
	}
	s->report.rank = s->rank.rank;
	s->report.size = s->rank.size;
	s->report.host = s->rank.host;
	s->report.job = s->rank.job;
	return 0;
}
