/* SPDX-License-Identifier: MIT */
/* What tally stat counts: each -e checked alone, perf's default events and -d's sets added, --cputype's
 * rewriting of the spec, and the counter made of it with -M's metrics. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/counter.h>
#include <tally/events.h>

#include "lib/text_escape.h"
#include "report/default_events.h"
#include "stat/session.h"

/* The parser's message quotes the spec as written: its control bytes are escaped on their way to the
 * terminal (the caret under them may then stand a little to the left). */
static void report_spec_error(const char *detail)
{
	fprintf(stderr, "tally stat: bad event spec%s:\n", detail);
	text_escape_lines(stderr, tally_last_error());
	fputc('\n', stderr);
}

/* A {...} group of the spec that its PMU cannot schedule whole, by the vendor table's counters, is left as
 * written (as perf leaves it), so the kernel refuses its members that do not fit: said once per group
 * before the command runs, as perf says nothing until they read <not supported>. */
static void warn_unschedulable_groups(tally_counter *counter, enum tally_target_kind kind)
{
	size_t n = tally_counter_count(counter);
	for (size_t k = 0; k < n; k++) {
		TALLY_OPTS(tally_planned_event, p);
		if (tally_counter_plan(counter, kind, k, &p) < 0)
			return;
		if (p.group_index != 0 || p.group_fits)
			continue;
		fputs("tally stat: warning: the group led by ", stderr);
		text_escape_write(stderr, tally_counter_name(counter, p.leader));
		fprintf(stderr, " (%zu events) needs more counters than its PMU has (%u generic and %u fixed, by the "
		        "vendor table), or two of its events need the same one: the kernel will refuse the members "
		        "that do not fit; make it smaller, or weak ({...}:W) to let tally split it\n",
		        p.group_size, p.generic_counters, p.fixed_counters);
	}
}

/* Each -e is one spec, as in perf: '-e {a -e b}' must not become the group '{a,b}' once joined. Only
 * several -e are parsed one by one (the joined spec is parsed again by the counter). */
static int check_each_spec(const struct stat_session *s)
{
	for (size_t i = 0; s->opt.nr_specs > 1 && i < s->opt.nr_specs; i++) {
		TALLY_OPTS(tally_parse_opts, popts, .pmus = s->pmus);
		tally_events *alone = NULL;
		int err = tally_events_parse(s->opt.specs[i], &popts, &alone);
		tally_events_free(alone);
		if (err < 0) {
			report_spec_error(" (each -e is a spec of its own)");
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The origins a spec's events come from: its items, hybrid expansions and PMU families counted once. */
static unsigned count_origins(const char *spec, const tally_pmus *pmus)
{
	TALLY_OPTS(tally_parse_opts, popts, .pmus = pmus);
	tally_events *list = NULL;
	unsigned n = 0;
	size_t nr = 0;
	if (tally_events_parse(spec, &popts, &list) == 0 && (nr = tally_events_count(list)) > 0) {
		TALLY_OPTS(tally_event_info, last);
		if (tally_events_at(list, nr - 1, &last) == 0)
			n = last.origin + 1;
	}
	tally_events_free(list);
	return n;
}

/* The items of a plain comma list (no braces, no terms): one origin each. */
static unsigned count_items(const char *list)
{
	unsigned n = 1;
	for (const char *c = list; *c; c++)
		n += *c == ',';
	return n;
}

/* What the counter counts: -e's events, or perf's defaults without -e, -M and -n; then -d's, which perf
 * appends to either (not with -n). The metrics' events follow (the counter adds them). The table leaves
 * out the defaults this machine cannot count, for the note, and -d's where it has no core PMU (the note
 * then names them); on a machine with one, a -d event its PMU lacks (LLC-loads on AMD) shows its
 * <not supported> line, as in perf. */
static int compose_spec(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	bool defaults = !o->events && !o->metrics && !o->null_run;
	const char *base = o->events ? o->events : defaults ? default_events_spec(true, stat_system_wide(o)) : "";
	const char *detailed = o->null_run ? NULL : default_events_detailed(o->detailed);
	if (asprintf(&s->spec, "%s%s%s", base, *base && detailed ? "," : "", detailed ? detailed : "") < 0) {
		s->spec = NULL;
		return -ENOMEM;
	}
	bool has_core = tally_pmus_core_count(s->pmus) > 0;
	unsigned nr_base = 0; /* the origins before -d's; -e's are counted only where they matter */
	if (defaults)
		nr_base = count_items(base);
	else if (o->events && detailed && !has_core)
		nr_base = count_origins(base, s->pmus);
	s->added_from = defaults ? 0 : nr_base;
	s->added_to = nr_base + (detailed && !has_core ? count_items(detailed) : 0);
	if (defaults || detailed)
		s->report.note = default_events_note(has_core, o->detailed);
	return 0;
}

/* Appends to *spec (malloc'd, grown) the text of one item. */
static int spec_append(char **spec, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int spec_append(char **spec, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *item = NULL;
	int n = vasprintf(&item, fmt, ap);
	va_end(ap);
	char *grown = n < 0 ? NULL : realloc(*spec, *len + (size_t)n + 1);
	if (!grown) {
		free(item);
		return -ENOMEM;
	}
	memcpy(grown + *len, item, (size_t)n + 1);
	*spec = grown;
	*len += (size_t)n;
	free(item);
	return 0;
}

/* --cputype: the spec rewritten so that an event expanded over the core PMUs of a hybrid machine counts
 * only on the one named, as perf's PMU filter parses it: each kept expansion as its PMU's own item
 * ("cpu_core/cycles/" and the modifiers of its canonical text), every other event as its canonical text,
 * the groups kept. The lines keep the names as parsed. The -M metrics' events are added by the counter
 * afterwards, on every core PMU. Returns -1 to go on, or an exit status. */
static int keep_to_pmu(struct stat_session *s)
{
	const char *pmu = s->opt.cputype;
	if (!tally_pmus_find(s->pmus, pmu)) {
		fprintf(stderr, "tally stat: --cputype: this machine has no %s PMU (only hybrid CPUs have cpu_core "
		        "and cpu_atom)\n(see tally stat --help)\n", pmu);
		return EXIT_USAGE;
	}
	TALLY_OPTS(tally_parse_opts, popts, .pmus = s->pmus);
	if (tally_events_parse(s->spec, &popts, &s->cputype_list) < 0) {
		report_spec_error("");
		return EXIT_USAGE;
	}
	size_t n = tally_events_count(s->cputype_list), len = 0;
	char *spec = calloc(1, 1);
	s->kept_names = calloc(n ? n : 1, sizeof(*s->kept_names));
	if (!spec || !s->kept_names) {
		free(spec);
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	int open_group = -1, err = 0;
	for (size_t i = 0; i < n && err == 0; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(s->cputype_list, i, &info); /* i is in range */
		if (info.per_core_pmu && (!info.pmu || strcmp(info.pmu, pmu) != 0))
			continue;
		if (open_group >= 0 && info.group != open_group)
			err = spec_append(&spec, &len, "}");
		const char *sep = len ? "," : "";
		if (err == 0 && info.group >= 0 && info.group != open_group)
			err = spec_append(&spec, &len, "%s{", sep), sep = "";
		open_group = info.group;
		const char *mods = strrchr(info.canonical, '/');
		if (err == 0 && info.per_core_pmu)
			err = spec_append(&spec, &len, "%s%s%s", sep, info.name, mods ? mods + 1 : "");
		else if (err == 0)
			err = spec_append(&spec, &len, "%s%s", sep, info.canonical);
		s->kept_names[s->nr_kept++] = info.name;
	}
	if (err == 0 && open_group >= 0)
		err = spec_append(&spec, &len, "}");
	if (err < 0) {
		free(spec);
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	free(s->spec);
	s->spec = spec;
	return -1;
}

/* Appends events (a spec) to s->spec. */
static int append_spec(struct stat_session *s, const char *events)
{
	char *spec = NULL;
	if (!*events)
		return 0;
	if (asprintf(&spec, "%s%s%s", s->spec, *s->spec ? "," : "", events) < 0)
		return -ENOMEM;
	free(s->spec);
	s->spec = spec;
	return 0;
}

/* The spec (-e's or the defaults, then -d's; --cputype's rewriting) and the counter made of it, with
 * -M's metrics. Returns -1 to go on, or an exit status. */
int stat_make_counter(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	/* The PMUs are loaded here only where tally itself asks them something (which default events can
	 * count, the machine of a JSON report): the library reads of them what a spec needs, and nothing of
	 * sysfs for one of software events. */
	if ((!o->events || o->json || o->detailed || o->cputype) && tally_pmus_load(NULL, &s->pmus) < 0) {
		stat_say_failure("", tally_last_error());
		return EXIT_FAILED;
	}
	int status = check_each_spec(s);
	if (status >= 0)
		return status;
	if (compose_spec(s) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	status = o->cputype ? keep_to_pmu(s) : -1;
	if (status >= 0)
		return status;
	/* Like perf stat, a command runs even when none of its events can be counted here: the report then
	 * says <not supported> and why, and the exit status is still the command's. With -n and no -e there
	 * is no event at all: the counter measures the time alone. */
	/* -M's items of the vendor table: their events join the spec; the others are the catalogue's */
	unsigned flags = (o->metric_no_group ? TALLY_VENDOR_NO_GROUP : 0) |
	                 (o->metric_no_merge ? TALLY_VENDOR_NO_MERGE : 0);
	unsigned levels = o->drilldown && o->topdown_levels <= 1 ? TOPDOWN_MAX_LEVEL : o->topdown_levels;
	if (metric_list_resolve(o->metrics, flags, levels, s->pmus, &s->mlist) < 0 || append_spec(s, s->mlist.vendor_spec) < 0) {
		fprintf(stderr, "tally stat: -M: %s\n", tally_last_error());
		return EXIT_FAILED;
	}
	TALLY_OPTS(tally_counter_opts, copts, .pmus = s->pmus, .no_packing = o->no_group,
	           .no_inherit = o->no_inherit, .open_without_events = true, .metrics = s->mlist.catalogue,
	           .space = o->space);
	int err = tally_counter_new(s->spec, &copts, &s->counter);
	/* --topdown where the top-down events do not exist (no PERF_METRICS: a VM, AMD, arm64, an older
	 * Intel): the command still runs, with the default events, and each metric says why it is not
	 * available; perf 6.1 refuses to run. */
	if (err == -TALLY_ESPEC && o->topdown_levels && !o->events) {
		s->report.note = default_events_note(tally_pmus_core_count(s->pmus) > 0, 0);
		err = tally_counter_new(default_events_spec(true, stat_system_wide(o)), &copts, &s->counter);
	}
	if (err == -ENOENT && o->metrics) {
		/* The message quotes the name as given: escaped, as the event spec's are. */
		fputs("tally stat: -M: ", stderr);
		text_escape_lines(stderr, tally_last_error());
		fputc('\n', stderr);
		return EXIT_USAGE;
	}
	if (err < 0) {
		report_spec_error("");
		return EXIT_USAGE;
	}
	if (!o->quiet)
		warn_unschedulable_groups(s->counter, stat_system_wide(o) ? TALLY_TARGET_CPUS : TALLY_TARGET_COMMAND);
	return -1;
}
