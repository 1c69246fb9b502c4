/* SPDX-License-Identifier: MIT */
/*
 * tally list [PATTERN] [--pfm] [--json]: every event usable here, grouped as perf list groups them. Only
 * PMUs that exist are shown: generic hardware and hardware cache events need a core PMU, so a VM without a
 * virtual PMU lists software events and the sysfs PMUs it has, and says why the rest is missing.
 * Tracepoints come from tracefs, as perf list shows them ("Tracepoint event"); when tracefs cannot be read,
 * the section says why.
 *
 * libpfm4's events are listed on request only (--pfm, or a PATTERN with "::", the libpfm4 form): the
 * listing has to load libpfm4 (dlopen with ~41,000 relocations, then pfm_initialize probing every PMU it
 * knows), which took `tally list` from 1.1 ms to 3.6 ms on the 2-core CI VM, 0.115x `perf list` where
 * bench/bench_cli's goal is 0.1x; the default listing says how to ask for them instead.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <tally/events.h>
#include <tally/metrics.h>
#include <tally/pmu.h>

#include "describe/describe.h"
#include "lib/json_writer.h"
#include "lib/text_escape.h"

struct list_context {
	const char *pattern;
	bool json;
	bool pfm;               /* list libpfm4's events */
	bool long_desc;         /* the vendor events' PublicDescription rather than the brief one */
	bool deprecated;        /* the vendor tables' deprecated events too */
	struct json_writer w;
	unsigned shown;         /* entries printed in the current section */
};

/* A pattern with a glob character is a glob over the whole name; anything else is a substring. Both
 * ignore case, as perf list's filter does. */
static bool matches(const struct list_context *ctx, const char *name, const char *alias, const char *pmu)
{
	if (!ctx->pattern)
		return true;
	const char *candidates[] = { name, alias, pmu };
	bool glob = strpbrk(ctx->pattern, "*?[") != NULL;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		if (!candidates[i])
			continue;
		if (glob ? fnmatch(ctx->pattern, candidates[i], FNM_CASEFOLD) == 0
		         : strcasestr(candidates[i], ctx->pattern) != NULL)
			return true;
	}
	return false;
}

static void section(struct list_context *ctx, const char *title)
{
	ctx->shown = 0;
	if (!ctx->json)
		printf("\n%s:\n", title);
}

static void section_empty_reason(struct list_context *ctx, const char *reason)
{
	if (!ctx->json && ctx->shown == 0)
		printf("  (%s)\n", reason);
}

static const char *builtin_kind_name(enum tally_builtin_kind kind)
{
	switch (kind) {
	case TALLY_BUILTIN_HARDWARE: return "hardware";
	case TALLY_BUILTIN_SOFTWARE: return "software";
	case TALLY_BUILTIN_CACHE: return "cache";
	case TALLY_BUILTIN_TOOL: return "tool";
	}
	return "unknown";
}

static void list_builtins(struct list_context *ctx, enum tally_builtin_kind kind, const char *pmu)
{
	for (size_t i = 0; i < tally_builtin_count(); i++) {
		TALLY_OPTS(tally_builtin_info, info);
		if (tally_builtin_at(i, &info) < 0 || info.kind != kind ||
		    !matches(ctx, info.name, info.alias, pmu))
			continue;
		ctx->shown++;
		if (ctx->json) {
			json_begin_object(&ctx->w);
			json_member_string(&ctx->w, "name", info.name);
			json_member_string(&ctx->w, "alias", info.alias);
			json_member_string(&ctx->w, "kind", builtin_kind_name(kind));
			json_member_string(&ctx->w, "pmu", pmu);
			json_member_uint(&ctx->w, "type", info.type);
			json_member_uint(&ctx->w, "config", info.config);
			json_end_object(&ctx->w);
			continue;
		}
		char label[96];
		if (info.alias)
			snprintf(label, sizeof(label), "%s OR %s", info.name, info.alias);
		else
			snprintf(label, sizeof(label), "%s", info.name);
		/* A tool event's attr is the dummy's: what it counts is tally's own clock, in ns. */
		if (kind == TALLY_BUILTIN_TOOL)
			printf("  %-44s counted by tally, ns\n", label);
		else
			printf("  %-44s type=%" PRIu32 ",config=%#" PRIx64 "\n", label, info.type, info.config);
	}
}

static void list_aliases(struct list_context *ctx, const tally_pmu *pmu, const struct tally_pmu_info *pi)
{
	for (size_t k = 0; k < pi->nr_aliases; k++) {
		TALLY_OPTS(tally_alias_info, alias);
		if (tally_pmu_alias_at(pmu, k, &alias) < 0 || !matches(ctx, alias.name, NULL, pi->name))
			continue;
		ctx->shown++;
		if (ctx->json) {
			json_begin_object(&ctx->w);
			json_key(&ctx->w, "name");
			/* Both are file names (NAME_MAX each): "pmu/alias/" always fits, never a cut name. */
			char full[2 * NAME_MAX + 3];
			snprintf(full, sizeof(full), "%s/%s/", pi->name, alias.name);
			json_string(&ctx->w, full);
			json_member_string(&ctx->w, "alias", alias.name);
			json_member_string(&ctx->w, "kind", "sysfs");
			json_member_string(&ctx->w, "pmu", pi->name);
			json_member_uint(&ctx->w, "type", pi->type);
			json_member_string(&ctx->w, "terms", alias.terms);
			json_member_string(&ctx->w, "unit", alias.unit);
			json_member_double(&ctx->w, "scale", alias.scale);
			json_end_object(&ctx->w);
			continue;
		}
		char label[2 * NAME_MAX + 3];
		snprintf(label, sizeof(label), "%s/%s/", pi->name, alias.name);
		/* Names and terms are a sysfs tree's (another machine's with TALLY_SYSFS_ROOT): escaped. */
		fputs("  ", stdout);
		text_escape_pad(stdout, label, 44);
		putchar(' ');
		text_escape_write(stdout, alias.terms);
		if (alias.unit) {
			fputs("  (unit ", stdout);
			text_escape_write(stdout, alias.unit);
			printf(", scale %g)", alias.scale);
		}
		putchar('\n');
	}
}

static void raw_name(const char *name);

/* Whether pmu is an instance of a family an earlier PMU of the list belongs to (uncore_imc_1 after
 * uncore_imc_0): its vendor events are the first one's, listed once, as perf lists them. */
static bool later_instance(const tally_pmus *pmus, const char *name)
{
	size_t len = strlen(name), base = len;
	while (base && name[base - 1] >= '0' && name[base - 1] <= '9')
		base--;
	if (base == len || base < 2 || name[base - 1] != '_')
		return false;
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		TALLY_OPTS(tally_pmu_info, pi);
		if (tally_pmu_get_info(tally_pmus_at(pmus, i), &pi) || strcmp(pi.name, name) == 0)
			return false;
		if (strncmp(pi.name, name, base) == 0 && pi.name[base] >= '0' && pi.name[base] <= '9')
			return true;
	}
	return false;
}

static int by_topic(const void *a, const void *b)
{
	const struct tally_table_event_info *x = a, *y = b;
	int c = strcmp(x->topic, y->topic);
	return c ? c : strcmp(x->name, y->name);
}

/* A vendor description as perf's list shows it (util/pmu.c wordwrap, without the wrap): its words, split
 * at blanks, one space between them; perf 6.1's jevents joins its notes with two ("  Spec update: "). */
static void description_write(const char *s)
{
	for (s += strspn(s, " \t"); *s; s += strspn(s, " \t")) {
		size_t n = strcspn(s, " \t");
		char *word = strndup(s, n);
		if (word)
			text_escape_write(stdout, word);
		free(word);
		s += n;
		fputs(*s && s[strspn(s, " \t")] ? " " : "", stdout);
	}
}

static void table_event(struct list_context *ctx, const char *pmu, const struct tally_table_event_info *e,
                        const char *topic_before)
{
	ctx->shown++;
	if (ctx->json) {
		json_begin_object(&ctx->w);
		json_member_string(&ctx->w, "name", e->name);
		json_member_string(&ctx->w, "kind", "vendor");
		json_member_string(&ctx->w, "pmu", pmu);
		json_member_string(&ctx->w, "topic", e->topic);
		json_member_string(&ctx->w, "terms", e->terms);
		json_member_string(&ctx->w, "desc", e->desc);
		json_member_string(&ctx->w, "long_desc", e->long_desc);
		json_member_string(&ctx->w, "unit", e->unit);
		json_member_double(&ctx->w, "scale", e->scale);
		json_member_string(&ctx->w, "counter", e->counter);
		json_member_bool(&ctx->w, "deprecated", e->deprecated);
		json_end_object(&ctx->w);
		return;
	}
	if (!topic_before || strcmp(topic_before, e->topic) != 0) {
		fputs(" ", stdout);
		text_escape_write(stdout, e->topic[0] ? e->topic : "other");
		fputs(":\n", stdout);
	}
	fputs("  ", stdout);
	text_escape_write(stdout, e->name);
	fputs("\n       [", stdout);
	description_write(ctx->long_desc ? e->long_desc : e->desc);
	printf("%s]\n", e->deprecated ? " (deprecated)" : "");
}

/* The vendor table's events of each PMU (of a family's first instance), by topic as perf lists them. */
static void list_table_events(struct list_context *ctx, const tally_pmus *pmus)
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		TALLY_OPTS(tally_pmu_table_info, ti);
		if (tally_pmu_get_info(pmu, &pi) || tally_pmu_table_get(pmu, &ti) || !ti.nr_events ||
		    later_instance(pmus, pi.name))
			continue;
		struct tally_table_event_info *v = calloc(ti.nr_events, sizeof(*v));
		size_t nr = 0;
		for (size_t k = 0; v && k < ti.nr_events; k++) {
			v[nr] = (struct tally_table_event_info){ .sz = sizeof(v[nr]) };
			if (tally_pmu_table_event_at(pmu, k, &v[nr]) == 0 && (ctx->deprecated || !v[nr].deprecated) &&
			    matches(ctx, v[nr].name, NULL, pi.name))
				nr++;
		}
		qsort(v, nr, sizeof(*v), by_topic);
		if (nr && !ctx->json) {
			printf(" (%s: table %s %s, %zu events)\n", pi.name, ti.model, ti.version, ti.nr_events);
		}
		for (size_t k = 0; k < nr; k++)
			table_event(ctx, pi.name, &v[k], k ? v[k - 1].topic : NULL);
		free(v);
	}
}

/* Why the section is empty: the first core PMU's reason for having no table (the tables' folder missing,
 * no model for the CPU), else that nothing matches. */
static void table_events_empty(struct list_context *ctx, const tally_pmus *pmus)
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		TALLY_OPTS(tally_pmu_info, pi);
		TALLY_OPTS(tally_pmu_table_info, ti);
		if (tally_pmu_get_info(tally_pmus_at(pmus, i), &pi) == 0 && pi.is_core &&
		    tally_pmu_table_get(tally_pmus_at(pmus, i), &ti) != 0) {
			char why[1024];
			snprintf(why, sizeof(why), "no table for %s: %s", pi.name, tally_last_error());
			section_empty_reason(ctx, why);
			return;
		}
	}
	section_empty_reason(ctx, "none matches");
}

static void raw_table_events(const tally_pmus *pmus)
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		TALLY_OPTS(tally_pmu_table_info, ti);
		if (tally_pmu_get_info(pmu, &pi) || tally_pmu_table_get(pmu, &ti) || later_instance(pmus, pi.name))
			continue;
		for (size_t k = 0; k < ti.nr_events; k++) {
			TALLY_OPTS(tally_table_event_info, e);
			if (tally_pmu_table_event_at(pmu, k, &e) == 0 && !e.deprecated)
				raw_name(e.name);
		}
	}
}

/* The raw form of a PMU: every format term with the bits it fills, e.g. msr/event=N/ (config:0-63). */
static void list_raw_syntax(struct list_context *ctx, const tally_pmu *pmu, const struct tally_pmu_info *pi)
{
	if (pi->nr_formats == 0 || !matches(ctx, pi->name, NULL, NULL))
		return;
	ctx->shown++;
	if (ctx->json) {
		json_begin_object(&ctx->w);
		json_member_string(&ctx->w, "pmu", pi->name);
		json_member_uint(&ctx->w, "type", pi->type);
		json_key(&ctx->w, "formats");
		json_begin_array(&ctx->w);
	} else {
		fputs("  ", stdout);
		text_escape_write(stdout, pi->name);
		putchar('/');
	}
	for (size_t k = 0; k < pi->nr_formats; k++) {
		TALLY_OPTS(tally_format_info, f);
		if (tally_pmu_format_at(pmu, k, &f) < 0)
			continue;
		if (ctx->json) {
			json_begin_object(&ctx->w);
			json_member_string(&ctx->w, "name", f.name);
			json_member_string(&ctx->w, "bits", f.text);
			json_member_uint(&ctx->w, "width", f.width);
			json_end_object(&ctx->w);
		} else {
			fputs(k ? "," : "", stdout);
			text_escape_write(stdout, f.name);
			fputs("=N(", stdout);
			text_escape_write(stdout, f.text);
			putchar(')');
		}
	}
	if (ctx->json) {
		json_end_array(&ctx->w);
		json_end_object(&ctx->w);
	} else {
		printf("/   type=%" PRIu32 "\n", pi->type);
	}
}

/* One libpfm4 event from tally_pfm_events(). The pattern also sees the PMU part alone ("perf"), as the
 * other sections match their PMU's name. Text shows the description's first line (libpfm4's run to
 * several sentences and lines); JSON carries it whole, for programs. */
static int list_pfm_event(const char *name, const char *description, void *arg)
{
	struct list_context *ctx = arg;
	const char *colons = strstr(name, "::");
	char pmu[128];
	snprintf(pmu, sizeof(pmu), "%.*s", colons ? (int)(colons - name) : 0, name);
	if (!matches(ctx, name, NULL, pmu))
		return 0;
	ctx->shown++;
	if (ctx->json) {
		json_begin_object(&ctx->w);
		json_member_string(&ctx->w, "name", name);
		json_member_string(&ctx->w, "pmu", pmu);
		json_member_string(&ctx->w, "description", description);
		json_end_object(&ctx->w);
		return 0;
	}
	int first_line = (int)strcspn(description, "\n");
	if (first_line)
		printf("  %-44s %.*s\n", name, first_line, description);
	else
		printf("  %s\n", name);
	return 0;
}

static void json_array_key(struct list_context *ctx, const char *key)
{
	json_key(&ctx->w, key);
	json_begin_array(&ctx->w);
}

/* One tracepoint from tally_tracepoints(), as the parser takes it: "system:event". */
static int list_tracepoint(const char *system, const char *event, void *arg)
{
	struct list_context *ctx = arg;
	char name[2 * NAME_MAX + 2];
	snprintf(name, sizeof(name), "%s:%s", system, event);
	if (!matches(ctx, name, NULL, system))
		return 0;
	ctx->shown++;
	if (ctx->json) {
		json_begin_object(&ctx->w);
		json_member_string(&ctx->w, "name", name);
		json_member_string(&ctx->w, "system", system);
		json_member_string(&ctx->w, "event", event);
		json_end_object(&ctx->w);
	} else {
		fputs("  ", stdout);
		text_escape_pad(stdout, name, 44);
		puts(" [Tracepoint event]");
	}
	return 0;
}

/* The tracepoints of tracefs, or why there are none (not mounted, not readable: the library's text says
 * how to fix it). */
static void list_tracepoints(struct list_context *ctx)
{
	if (ctx->json)
		json_array_key(ctx, "tracepoints");
	section(ctx, "Tracepoint events (tracefs; SYSTEM:EVENT, globs allowed)");
	const char *unavailable = tally_tracepoints(NULL, list_tracepoint, ctx) < 0 ? tally_last_error() : NULL;
	if (ctx->json) {
		json_end_array(&ctx->w);
		json_member_string(&ctx->w, "tracepoints_unavailable", unavailable);
	} else if (unavailable) {
		printf("  (not available: %s)\n", unavailable);
	} else {
		section_empty_reason(ctx, "none matches");
	}
}

/* The libpfm4 section: its events, or why there are none. A build without libpfm4 costs nothing to ask,
 * so it always says so; a build with it lists only when asked (see the top of this file). */
static void list_pfm(struct list_context *ctx, bool has_core)
{
	bool listed = ctx->pfm || !tally_have_libpfm();
	if (ctx->json) {
		json_member_bool(&ctx->w, "libpfm4_listed", listed);
		json_array_key(ctx, "libpfm4_events");
	}
	const char *unavailable = NULL;
	if (listed) {
		section(ctx, "libpfm4 events (PMU::EVENT[:UMASK...])");
		/* The last error says why none are listed: a build without libpfm4, or no loadable libpfm.so.4. */
		if (tally_pfm_events(list_pfm_event, ctx) < 0)
			unavailable = tally_last_error();
	}
	if (ctx->json) {
		json_end_array(&ctx->w);
		json_member_string(&ctx->w, "libpfm4_unavailable", unavailable);
	} else if (!listed) {
		printf("\nlibpfm4 names (PMU::EVENT:UMASK) are accepted too; tally list --pfm lists them.\n");
	} else if (unavailable) {
		printf("  (not available: %s)\n", unavailable);
	} else if (!has_core && ctx->shown) {
		/* libpfm4 names the CPU's own PMU from CPUID even in a VM whose kernel exposes no hardware PMU. */
		printf("  (no hardware PMU here: of these, only software events count)\n");
	} else {
		section_empty_reason(ctx, "none matches");
	}
}

/* Whether this machine names every event a metric needs (a metric whose events it lacks is listed, marked). */
static bool events_exist(const tally_pmus *pmus, const char *spec)
{
	TALLY_OPTS(tally_parse_opts, popts, .pmus = pmus);
	tally_events *ev = NULL;
	bool ok = tally_events_parse(spec, &popts, &ev) == 0;
	tally_events_free(ev);
	return ok;
}

/* A metric's ';'-separated groups as the JSON array "groups". */
static void json_groups(struct list_context *ctx, const char *groups)
{
	json_key(&ctx->w, "groups");
	json_begin_array(&ctx->w);
	for (const char *g = groups; *g;) {
		size_t len = strcspn(g, ";");
		char group[128];
		snprintf(group, sizeof(group), "%.*s", (int)len, g);
		json_string(&ctx->w, group);
		g += len + (g[len] == ';');
	}
	json_end_array(&ctx->w);
}

/* The vendor table's metrics (tally list --metrics): name, groups, description, expression, threshold,
 * unit and constraint; "vendor_metrics" in JSON. */
static void list_vendor_metrics(struct list_context *ctx, const tally_vendor_metrics *vm)
{
	if (ctx->json)
		json_array_key(ctx, "vendor_metrics");
	char title[400];
	const char *model = tally_vendor_metrics_model(vm);
	snprintf(title, sizeof(title), "Vendor metrics (the %s table%s; tally stat -M NAME or -M GROUP, any case)",
	         model, strchr(model, ',') ? "s" : "");
	section(ctx, title);
	for (size_t i = 0; i < tally_vendor_metrics_count(vm); i++) {
		TALLY_OPTS(tally_vendor_metric_info, m);
		if (tally_vendor_metric_at(vm, i, &m) < 0 || !matches(ctx, m.name, m.groups, NULL))
			continue;
		ctx->shown++;
		if (!ctx->json) {
			printf("  %-24s %s%s%s%s\n", m.name, m.description, *m.groups ? " [" : "", m.groups, *m.groups ? "]" : "");
			printf("  %-24s   %s%s%s%s\n", "", m.expr, *m.unit ? " (" : "", m.unit, *m.unit ? ")" : "");
			if (*m.threshold)
				printf("  %-24s   worth a look when %s\n", "", m.threshold);
			continue;
		}
		json_begin_object(&ctx->w);
		json_member_string(&ctx->w, "name", m.name);
		json_groups(ctx, m.groups);
		json_member_string(&ctx->w, "unit", m.unit);
		json_member_double(&ctx->w, "scale", m.scale);
		json_member_string(&ctx->w, "description", m.description);
		json_member_string(&ctx->w, "expr", m.expr);
		json_member_string(&ctx->w, "threshold", m.threshold);
		json_member_string(&ctx->w, "constraint", m.constraint);
		json_end_object(&ctx->w);
	}
	section_empty_reason(ctx, "none matches");
	if (ctx->json)
		json_end_array(&ctx->w);
}

/* The metric catalogue (tally list --metrics): what `tally stat -M` takes, names and groups. */
static void list_metrics(struct list_context *ctx, const tally_pmus *pmus)
{
	if (ctx->json) {
		json_init(&ctx->w, stdout);
		json_begin_object(&ctx->w);
		json_member_int(&ctx->w, "schema_version", 1);
		json_array_key(ctx, "metrics");
	}
	section(ctx, "Metrics (tally stat -M NAME or -M GROUP; names and groups match in any case)");
	for (size_t i = 0; i < tally_metric_count(); i++) {
		TALLY_OPTS(tally_metric_info, m);
		if (tally_metric_at(i, &m) < 0 || !matches(ctx, m.name, m.groups, NULL))
			continue;
		ctx->shown++;
		bool here = events_exist(pmus, m.events);
		if (ctx->json) {
			json_begin_object(&ctx->w);
			json_member_string(&ctx->w, "name", m.name);
			json_groups(ctx, m.groups);
			json_member_string(&ctx->w, "unit", m.unit);
			json_member_string(&ctx->w, "description", m.description);
			json_member_string(&ctx->w, "formula", m.formula);
			json_member_string(&ctx->w, "events", m.events);
			json_member_string(&ctx->w, "applies", m.applies);
			json_member_bool(&ctx->w, "events_here", here);
			json_end_object(&ctx->w);
			continue;
		}
		printf("  %-24s %s [%s]%s\n", m.name, m.description, m.groups, here ? "" : " (its events do not exist here)");
		printf("  %-24s   %s (%s) over %s\n", "", m.formula, m.unit, m.events);
		printf("  %-24s   applies to: %s\n", "", m.applies);
	}
	section_empty_reason(ctx, "none matches");
	if (ctx->json)
		json_end_array(&ctx->w);
	TALLY_OPTS(tally_vendor_metrics_opts, vopts);
	tally_vendor_metrics *vm = NULL;
	if (tally_vendor_metrics_load(&vopts, &vm) == 0)
		list_vendor_metrics(ctx, vm);
	tally_vendor_metrics_free(vm);
	if (ctx->json)
		json_end_object(&ctx->w);
}

static void for_each_pmu(struct list_context *ctx, const tally_pmus *pmus,
                         void (*fn)(struct list_context *, const tally_pmu *, const struct tally_pmu_info *))
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		if (pmu && tally_pmu_get_info(pmu, &pi) == 0)
			fn(ctx, pmu, &pi);
	}
}

/* perf list --raw-dump [WHAT]: the names alone, space-separated on one line, for scripts (perf's own
 * tests loop over `perf list --raw-dump pmu`). WHAT: hw, sw, cache, tool, pmu, tracepoint; none: all. */
static void raw_name(const char *name)
{
	text_escape_write(stdout, name);
	putchar(' ');
}

static void raw_builtins(enum tally_builtin_kind kind)
{
	for (size_t i = 0; i < tally_builtin_count(); i++) {
		TALLY_OPTS(tally_builtin_info, info);
		if (tally_builtin_at(i, &info) == 0 && info.kind == kind)
			raw_name(info.name);
	}
}

static void raw_aliases(const tally_pmus *pmus)
{
	for (size_t i = 0; i < tally_pmus_count(pmus); i++) {
		const tally_pmu *pmu = tally_pmus_at(pmus, i);
		TALLY_OPTS(tally_pmu_info, pi);
		for (size_t k = 0; pmu && tally_pmu_get_info(pmu, &pi) == 0 && k < pi.nr_aliases; k++) {
			TALLY_OPTS(tally_alias_info, alias);
			char full[2 * NAME_MAX + 3];
			if (tally_pmu_alias_at(pmu, k, &alias) == 0 &&
			    snprintf(full, sizeof(full), "%s/%s/", pi.name, alias.name) < (int)sizeof(full))
				raw_name(full);
		}
	}
}

static int raw_tracepoint(const char *system, const char *event, void *arg)
{
	(void)arg;
	char name[2 * NAME_MAX + 2];
	snprintf(name, sizeof(name), "%s:%s", system, event);
	raw_name(name);
	return 0;
}

/* Whether metric i's events are this machine's: the ones perf lists are its CPU's (a VM without a PMU
 * still lists IPC: its generic events parse and read <not supported>). */
static bool metric_here(const tally_pmus *pmus, size_t i, struct tally_metric_info *info)
{
	info->sz = sizeof(*info);
	return tally_metric_at(i, info) == 0 && events_exist(pmus, info->events);
}

/* Whether the ';'-separated groups hold the group of len bytes at g. */
static bool has_group(const char *groups, const char *g, size_t len)
{
	for (const char *t = groups; *t; t += strcspn(t, ";"), t += *t == ';')
		if (strcspn(t, ";") == len && strncmp(t, g, len) == 0)
			return true;
	return false;
}

/* Whether the vendor table names what tally stat -M would take from it instead (len bytes of name). */
static bool vendor_names(const tally_vendor_metrics *vm, const char *name, size_t len)
{
	char item[256];
	snprintf(item, sizeof(item), "%.*s", (int)len, name);
	return vm && tally_vendor_metrics_select(vm, item, NULL, 0) > 0;
}

/* The catalogue's metrics (metricgroups: their groups, each once) whose events this machine has, but those
 * the vendor table vm also names: -M takes the table's then, listed after. */
static void raw_metrics(const tally_pmus *pmus, bool groups, const tally_vendor_metrics *vm)
{
	for (size_t i = 0; i < tally_metric_count(); i++) {
		struct tally_metric_info info;
		if (!metric_here(pmus, i, &info))
			continue;
		if (!groups) {
			if (!vendor_names(vm, info.name, strlen(info.name)))
				raw_name(info.name);
			continue;
		}
		for (const char *g = info.groups; *g; g += strcspn(g, ";"), g += *g == ';') {
			size_t len = strcspn(g, ";");
			bool seen = vendor_names(vm, g, len);
			for (size_t j = 0; j < i && !seen; j++) {
				struct tally_metric_info earlier;
				seen = metric_here(pmus, j, &earlier) && has_group(earlier.groups, g, len);
			}
			if (!seen && len)
				printf("%.*s ", (int)len, g);
		}
	}
}

/* The vendor table's metrics (metricgroups: their groups, each once), after the catalogue's. */
static void raw_vendor_metrics(const tally_vendor_metrics *vm, bool groups)
{
	size_t n = tally_vendor_metrics_count(vm);
	for (size_t i = 0; i < n; i++) {
		TALLY_OPTS(tally_vendor_metric_info, m);
		tally_vendor_metric_at(vm, i, &m);
		if (!groups) {
			raw_name(m.name);
			continue;
		}
		for (const char *g = m.groups; *g; g += strcspn(g, ";"), g += *g == ';') {
			size_t len = strcspn(g, ";");
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++) {
				TALLY_OPTS(tally_vendor_metric_info, earlier);
				seen = tally_vendor_metric_at(vm, j, &earlier) == 0 && has_group(earlier.groups, g, len);
			}
			if (!seen && len)
				printf("%.*s ", (int)len, g);
		}
	}
}

static int raw_dump(const tally_pmus *pmus, const char *what)
{
	bool all = !what, has_core = tally_pmus_core_count(pmus) > 0;
	static const char *const known[] = { "hw", "sw", "cache", "tool", "pmu", "tracepoint", "metric", "metrics",
		                             "metricgroup", "metricgroups" };
	bool valid = all;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		valid |= what && strcmp(what, known[i]) == 0;
	if (!valid) {
		fprintf(stderr, "tally list: --raw-dump lists hw, sw, cache, tool, pmu, tracepoint, metrics or "
		        "metricgroups, not '%s'\n", what);
		return 2;
	}
	if (what && strncmp(what, "metric", 6) == 0) {
		bool groups = strncmp(what, "metricgroup", 11) == 0;
		TALLY_OPTS(tally_vendor_metrics_opts, vopts, .pmus = pmus);
		tally_vendor_metrics *vm = NULL;
		if (tally_vendor_metrics_load(&vopts, &vm) < 0)
			vm = NULL;
		raw_metrics(pmus, groups, vm);
		raw_vendor_metrics(vm, groups);
		tally_vendor_metrics_free(vm);
		putchar('\n');
		return 0;
	}
	if ((all || strcmp(what, "hw") == 0) && has_core)
		raw_builtins(TALLY_BUILTIN_HARDWARE);
	if ((all || strcmp(what, "sw") == 0) && tally_pmus_find(pmus, "software"))
		raw_builtins(TALLY_BUILTIN_SOFTWARE);
	if (all || strcmp(what, "tool") == 0)
		raw_builtins(TALLY_BUILTIN_TOOL);
	if ((all || strcmp(what, "cache") == 0) && has_core)
		raw_builtins(TALLY_BUILTIN_CACHE);
	if (all || strcmp(what, "pmu") == 0) {
		raw_aliases(pmus);
		raw_table_events(pmus);
	}
	if (all || strcmp(what, "tracepoint") == 0)
		tally_tracepoints(NULL, raw_tracepoint, NULL);
	putchar('\n');
	return 0;
}

static int usage(FILE *out, int status)
{
	fputs("usage: tally list [PATTERN] [--pfm] [--long-desc] [--deprecated] [--json]\n"
	      "       tally list --metrics [PATTERN] [--json]\n"
	      "       tally list --raw-dump [hw|sw|cache|tool|pmu|tracepoint|metrics|metricgroups]\n"
	      "  PATTERN   a glob (cache*, *miss*) or a substring, matched against names and PMUs;\n"
	      "            one with \"::\" (perf::*) also lists libpfm4's events\n"
	      "  --pfm     list libpfm4's events too (PMU::EVENT names; loads libpfm4)\n"
	      "  --long-desc, -v  the vendor events' long descriptions\n"
	      "  --deprecated     the vendor tables' deprecated events too\n"
	      "  --metrics the metrics and metric groups tally stat -M takes, with formulas\n"
	      "  --json    one JSON document\n"
	      "  --raw-dump [WHAT]  the names only, on one line (perf list --raw-dump)\n",
	      out);
	return status;
}

/* The whole listing, section by section, as perf list orders them. */
static void list_all(struct list_context *ctx, const tally_pmus *pmus)
{
	bool has_core = tally_pmus_core_count(pmus) > 0;
	const char *core_name = NULL;
	for (size_t i = 0; has_core && i < tally_pmus_count(pmus); i++) {
		TALLY_OPTS(tally_pmu_info, pi);
		if (tally_pmu_get_info(tally_pmus_at(pmus, i), &pi) == 0 && pi.is_core) {
			core_name = pi.name;
			break;
		}
	}
	const char *no_core = "no hardware PMU on this machine (a VM without a virtual PMU?): none here";

	if (ctx->json) {
		json_init(&ctx->w, stdout);
		json_begin_object(&ctx->w);
		json_member_int(&ctx->w, "schema_version", 1);
		json_member_bool(&ctx->w, "hardware_pmu", has_core);
		json_member_bool(&ctx->w, "libpfm4", tally_have_libpfm());
		json_array_key(ctx, "events");
	}
	section(ctx, "Generic hardware events");
	if (has_core)
		list_builtins(ctx, TALLY_BUILTIN_HARDWARE, core_name);
	section_empty_reason(ctx, has_core ? "none matches" : no_core);
	section(ctx, "Software events");
	if (tally_pmus_find(pmus, "software"))
		list_builtins(ctx, TALLY_BUILTIN_SOFTWARE, "software");
	section_empty_reason(ctx, "none matches");
	/* Where perf 6.1's list has them: counted by tally itself, on every machine. */
	section(ctx, "Tool events");
	list_builtins(ctx, TALLY_BUILTIN_TOOL, "tool");
	section_empty_reason(ctx, "none matches");
	section(ctx, "Hardware cache events");
	if (has_core)
		list_builtins(ctx, TALLY_BUILTIN_CACHE, core_name);
	section_empty_reason(ctx, has_core ? "none matches" : no_core);
	section(ctx, "PMU events (sysfs)");
	for_each_pmu(ctx, pmus, list_aliases);
	section_empty_reason(ctx, "none matches");
	section(ctx, "PMU events (the vendor's tables)");
	list_table_events(ctx, pmus);
	table_events_empty(ctx, pmus);
	if (ctx->json) {
		json_end_array(&ctx->w);
		json_array_key(ctx, "raw");
	}
	section(ctx, "Raw syntax of each PMU (from its format/ files)");
	for_each_pmu(ctx, pmus, list_raw_syntax);
	section_empty_reason(ctx, "none matches");
	if (ctx->json)
		json_end_array(&ctx->w);
	if (!ctx->json)
		printf("\nMetrics (IPC, tma_retiring, ...): tally list --metrics lists the %zu that tally stat -M computes.\n",
		       tally_metric_count());
	list_tracepoints(ctx);
	list_pfm(ctx, has_core);
	if (ctx->json)
		json_end_object(&ctx->w);
}

int command_list(int argc, char **argv)
{
	struct list_context ctx = { 0 };
	bool raw = false;
	bool metrics = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--raw-dump") == 0)
			raw = true;
		else if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
			ctx.json = true;
		else if (strcmp(argv[i], "--pfm") == 0)
			ctx.pfm = true;
		else if (strcmp(argv[i], "--long-desc") == 0 || strcmp(argv[i], "-v") == 0)
			ctx.long_desc = true;
		else if (strcmp(argv[i], "--deprecated") == 0)
			ctx.deprecated = true;
		else if (strcmp(argv[i], "--metrics") == 0)
			metrics = true;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return usage(stdout, 0);
		else if (argv[i][0] == '-' || ctx.pattern)
			return usage(stderr, 2);
		else
			ctx.pattern = argv[i];
	}
	if (ctx.pattern && strstr(ctx.pattern, "::"))
		ctx.pfm = true;
	tally_pmus *pmus;
	int err = tally_pmus_load(NULL, &pmus);
	/* The listing shows every PMU: one that cannot be read fails it before anything is printed. */
	for (size_t i = 0; err == 0 && i < tally_pmus_count(pmus); i++) {
		TALLY_OPTS(tally_pmu_info, pi);
		err = tally_pmu_get_info(tally_pmus_at(pmus, i), &pi);
	}
	if (err < 0) {
		fprintf(stderr, "tally list: %s\n", tally_last_error());
		tally_pmus_free(pmus);
		return 1;
	}
	if (raw) {
		int status = raw_dump(pmus, ctx.pattern);
		tally_pmus_free(pmus);
		return status;
	}
	if (metrics) {
		list_metrics(&ctx, pmus);
		tally_pmus_free(pmus);
		return 0;
	}
	list_all(&ctx, pmus);
	tally_pmus_free(pmus);
	return 0;
}
