/* SPDX-License-Identifier: MIT */
/*
 * tally encode [options] SPEC: what each event of a spec becomes, as the struct perf_event_attr `tally stat`
 * would pass to perf_event_open(2) on its first try, with its PMU and the group it would open in (and, for
 * the groups tally packs itself, why). As text, as JSON (--json) or as C initializers to paste (--c).
 * Opens nothing: it reads the PMUs of sysfs ($TALLY_SYSFS_ROOT: another machine's captured tree) and asks
 * the library for its plan (tally_counter_plan).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tally/counter.h>
#include <tally/pmu.h>

#include "describe/attr_names.h"
#include "describe/describe.h"
#include "lib/json_writer.h"
#include "lib/text_escape.h"
#include "report/metric_list.h"

enum encode_format { FORMAT_TEXT, FORMAT_C, FORMAT_JSON };

struct encode_options {
	enum encode_format format;
	enum tally_target_kind target;
	bool no_inherit, no_group;
	const char *spec;        /* NULL with -M alone */
	const char *metrics;     /* -M: the metrics' events, grouped as tally stat -M counts them */
};

/* One planned event with what is printed about it. */
struct encoded {
	struct tally_planned_event plan;
	struct tally_event_info event;
	const char *leader_name;
	bool split;        /* its {...} group of the spec is in several groups of the plan */
	char reason[320];
};

enum { OPT_C = 256, OPT_NO_GROUP };

static void usage(FILE *out)
{
	fputs("usage: tally encode [options] SPEC | -M METRICS [SPEC]\n"
	      "  the perf_event_attr of each event of SPEC as tally stat would open it (opens nothing;\n"
	      "  $TALLY_SYSFS_ROOT encodes for another machine's sysfs tree)\n"
	      "\n"
	      "      --c                  C initializers, ready to paste\n"
	      "  -j, --json               one JSON document\n"
	      "  -a, --all-cpus           as tally stat -a opens them (system wide)\n"
	      "  -i, --no-inherit         as tally stat -i opens them (children not counted)\n"
	      "      --no-group           as tally stat --no-group opens them (no automatic groups)\n"
	      "  -M, --metrics LIST       the events of the metrics and metric groups of LIST, grouped as\n"
	      "                           tally stat -M LIST counts them\n"
	      "  -h, --help               this text\n",
	      out);
}

static int usage_error(const char *message)
{
	fprintf(stderr, "tally encode: %s\n(see tally encode --help)\n", message);
	return 2;
}

/* 0: run; 1: --help done; 2: usage error. */
static int parse_options(int argc, char **argv, struct encode_options *o)
{
	static const struct option longs[] = {
		{ "c", no_argument, NULL, OPT_C },
		{ "json", no_argument, NULL, 'j' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "no-group", no_argument, NULL, OPT_NO_GROUP },
		{ "metrics", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct encode_options){ .target = TALLY_TARGET_COMMAND };
	bool c = false, json = false;
	opterr = 0;
	optind = 1;
	for (int opt; (opt = getopt_long(argc, argv, "jaihM:", longs, NULL)) != -1;) {
		switch (opt) {
		case OPT_C: c = true; break;
		case 'j': json = true; break;
		case 'a': o->target = TALLY_TARGET_CPUS; break;
		case 'i': o->no_inherit = true; break;
		case OPT_NO_GROUP: o->no_group = true; break;
		case 'M': o->metrics = optarg; break;
		case 'h': usage(stdout); return 1;
		default: return usage_error("unknown option (tally encode takes --c, --json, -a, -i, --no-group, -M)");
		}
	}
	if (c && json)
		return usage_error("--c and --json are two output formats: choose one");
	o->format = c ? FORMAT_C : json ? FORMAT_JSON : FORMAT_TEXT;
	if (optind != argc - 1 && !(o->metrics && optind == argc))
		return usage_error(optind == argc ? "an event spec is needed: tally encode SPEC (or -M METRICS)"
		                                  : "one event spec only (join events with commas)");
	o->spec = optind < argc ? argv[optind] : NULL;
	return 0;
}

static const char *grouping_name(enum tally_grouping g)
{
	switch (g) {
	case TALLY_GROUPING_ALONE: return "alone";
	case TALLY_GROUPING_BRACES: return "braces";
	case TALLY_GROUPING_PACKED: return "packed";
	case TALLY_GROUPING_TOOL: return "tool";
	case TALLY_GROUPING_TOPDOWN: return "topdown";
	}
	return "unknown";
}

/* The PMU that counts the event, for people: a generic event on a machine without a core PMU has none. */
static const char *pmu_label(const struct encoded *e)
{
	return e->event.pmu ? e->event.pmu : "none on this machine";
}

/* A set of counters (tally_planned_event.counters) for people: "generic 0-3, fixed 1". */
static void counters_text(uint64_t counters, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int kind = 0; kind < 2; kind++) {
		uint32_t bits = (uint32_t)(counters >> (kind ? 32 : 0));
		if (!bits)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", kind ? "fixed" : "generic");
		for (int i = 0; i < 32 && len < size; i++) {
			if (!(bits >> i & 1) || (i && bits >> (i - 1) & 1))
				continue;
			int last = i;
			while (last < 31 && bits >> (last + 1) & 1)
				last++;
			len += (size_t)snprintf(buf + len, size - len, last > i ? " %d-%d" : " %d", i, last);
		}
	}
}

/* What the vendor table says of the event's PMU's counters, for the grouping's reason ("" when nothing). */
static void counts_text(const struct tally_planned_event *p, char *buf, size_t size)
{
	buf[0] = '\0';
	if (p->generic_counters || p->fixed_counters)
		snprintf(buf, size, " (%u generic and %u fixed counters, by the vendor table)", p->generic_counters,
		         p->fixed_counters);
}

/* Why the event is in a {...} group of the spec, in words. */
static void explain_braces(struct encoded *e, const char *pmu, const char *counts)
{
	if (!e->plan.group_fits)
		snprintf(e->reason, sizeof(e->reason),
		         "a {...} group of the spec, left as written, although PMU %s%s cannot schedule it whole: "
		         "the kernel refuses the members that do not fit", pmu, counts);
	else if (e->split)
		snprintf(e->reason, sizeof(e->reason), "a part of a {...}:W group of the spec, which tally split "
		         "into groups the counters of PMU %s%s can take", pmu, counts);
	else
		/* On a hybrid machine the parser copies such a group once per core PMU. */
		snprintf(e->reason, sizeof(e->reason), "a {...} group of the spec%s",
		         e->event.nr_origins > 1 ? ", copied for each core PMU (a kernel group cannot span PMUs)" : "");
}

/* Why the event is in its group, in words. */
static void explain_grouping(struct encoded *e)
{
	const struct tally_planned_event *p = &e->plan;
	const char *pmu = pmu_label(e);
	char counts[96];
	counts_text(p, counts, sizeof(counts));
	switch (p->grouping) {
	case TALLY_GROUPING_ALONE:
		snprintf(e->reason, sizeof(e->reason), "alone: automatic groups are off (--no-group)");
		return;
	case TALLY_GROUPING_TOOL:
		snprintf(e->reason, sizeof(e->reason),
		         "alone: a tool event, counted by tally itself (nothing is opened; the attr is perf's)");
		return;
	case TALLY_GROUPING_BRACES:
		explain_braces(e, pmu, counts);
		return;
	case TALLY_GROUPING_TOPDOWN:
		snprintf(e->reason, sizeof(e->reason),
		         "grouped by tally: Intel topdown metric events outside braces open only in a group led by "
		         "slots (the kernel's rule), so those of PMU %s (type %u) are one group, slots first, also "
		         "with --no-group", pmu, p->pmu_type);
		return;
	case TALLY_GROUPING_PACKED:
		if (p->group_size == 1)
			snprintf(e->reason, sizeof(e->reason),
			         "alone: no other event outside braces of PMU %s (type %u) is left to pack with it "
			         "(tally packs those of one PMU into groups)", pmu, p->pmu_type);
		else
			snprintf(e->reason, sizeof(e->reason),
			         "packed by tally: the events outside braces that PMU %s (type %u) counts, in spec "
			         "order, at most %zu to a group%s%s; where the PMU has no room for a member, the open "
			         "splits the group there", pmu, p->pmu_type, p->max_group,
			         counts[0] ? ", each in the first whose counters it fits with" : "", counts);
		return;
	}
}

static const char *target_name(const struct encode_options *o)
{
	return o->target == TALLY_TARGET_CPUS ? "all CPUs (tally stat -a)" : "a command (tally stat -- command)";
}

/* ---- text --------------------------------------------------------------------------------------- */

static void text_field(const struct attr_field *f, void *arg)
{
	(void)arg;
	char value[32];
	if (f->is_signed)
		snprintf(value, sizeof(value), "%lld", (long long)(int64_t)f->value);
	else
		snprintf(value, sizeof(value), f->hex ? "%#llx" : "%llu", (unsigned long long)f->value);
	if (f->symbol[0])
		printf("    %-24s %-20s %s\n", f->name, value, f->symbol);
	else
		printf("    %-24s %s\n", f->name, value);
}

static void print_text(const struct encode_options *o, const struct encoded *ev, size_t n)
{
	fputs("# ", stdout);
	text_escape_write(stdout, o->spec);
	printf(", as tally stat opens them for %s; nothing opened\n", target_name(o));
	for (size_t k = 0; k < n; k++) {
		const struct encoded *e = &ev[k];
		if (e->plan.group_index == 0) {
			printf("\ngroup %zu (%zu event%s, leader ", e->plan.group, e->plan.group_size,
			       e->plan.group_size == 1 ? "" : "s");
			text_escape_write(stdout, e->leader_name);
			printf("): %s\n", e->reason);
		}
		printf("  attr_%zu: ", k);
		text_escape_write(stdout, e->event.name);
		printf(" (%s)\n", e->plan.group_index == 0 ? "leader" : "member");
		printf("    %-24s ", "pmu");
		text_escape_write(stdout, pmu_label(e));
		printf(" (type %u)\n", e->plan.pmu_type);
		if (e->plan.cpus)
			printf("    %-24s %s\n", "cpus", e->plan.cpus);
		if (e->plan.counters) {
			char counters[256];
			counters_text(e->plan.counters, counters, sizeof(counters));
			printf("    %-24s %s\n", "counters", counters);
		}
		attr_fields_each(e->plan.attr, text_field, NULL);
	}
}

/* ---- C ------------------------------------------------------------------------------------------ */

/* Text inside a C comment: printable ASCII as it is, anything else as \xNN, and never a closing '*' '/'. */
static void c_comment(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '*' && p[1] == '/')
			fputs("*\\", stdout);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

static void c_field(const struct attr_field *f, void *arg)
{
	(void)arg;
	printf("\t.%s = ", f->name);
	if (f->symbol[0])
		fputs(f->symbol, stdout);
	else if (f->is_signed)
		printf("%lld", (long long)(int64_t)f->value);
	else
		printf(f->hex ? "%#llx" : "%llu", (unsigned long long)f->value);
	puts(",");
}

static void needs_hw_breakpoint_h(const struct attr_field *f, void *arg)
{
	if (f->needs_hw_breakpoint_h)
		*(bool *)arg = true;
}

static void print_c(const struct encode_options *o, const struct encoded *ev, size_t n)
{
	bool bp = false;
	for (size_t k = 0; k < n; k++)
		attr_fields_each(ev[k].plan.attr, needs_hw_breakpoint_h, &bp);
	fputs("/* tally encode: ", stdout);
	c_comment(o->spec);
	printf(", as tally stat opens them for %s.\n", target_name(o));
	puts(" * Open each leader with group_fd -1, then its members with the leader's fd as group_fd; pid and cpu\n"
	     " * are the target's (an event whose PMU lists CPUs opens once on each of them). */");
	puts("#include <linux/perf_event.h>");
	if (bp)
		puts("#include <linux/hw_breakpoint.h>");
	for (size_t k = 0; k < n; k++) {
		const struct encoded *e = &ev[k];
		fputs("\n/* ", stdout);
		c_comment(e->event.name);
		fputs(": PMU ", stdout);
		c_comment(pmu_label(e));
		printf(" (type %u)", e->plan.pmu_type);
		if (e->plan.cpus)
			printf(", CPUs %s", e->plan.cpus);
		printf("; group %zu, ", e->plan.group);
		if (e->plan.group_index == 0)
			printf("leader of %zu", e->plan.group_size);
		else
			printf("member %zu of %zu, leader attr_%zu", e->plan.group_index, e->plan.group_size,
			       k - e->plan.group_index);
		fputs(" (", stdout);
		c_comment(e->reason);
		puts(") */");
		printf("struct perf_event_attr attr_%zu = {\n", k);
		attr_fields_each(e->plan.attr, c_field, NULL);
		puts("};");
	}
}

/* ---- JSON --------------------------------------------------------------------------------------- */

static void json_field(const struct attr_field *f, void *arg)
{
	struct json_writer *w = arg;
	if (f->is_signed)
		json_member_int(w, f->name, (int64_t)f->value);
	else
		json_member_uint(w, f->name, f->value);
}

static void json_symbol(const struct attr_field *f, void *arg)
{
	if (f->symbol[0])
		json_member_string(arg, f->name, f->symbol);
}

/* A set of counters as {"generic": [...], "fixed": [...]}, or null when not known. */
static void json_counters(struct json_writer *w, uint64_t counters)
{
	if (!counters) {
		json_null(w);
		return;
	}
	json_begin_object(w);
	for (int kind = 0; kind < 2; kind++) {
		json_key(w, kind ? "fixed" : "generic");
		json_begin_array(w);
		for (unsigned i = 0; i < 32; i++)
			if (counters >> (kind * 32 + i) & 1)
				json_uint(w, i);
		json_end_array(w);
	}
	json_end_object(w);
}

static void print_json(const struct encode_options *o, const struct encoded *ev, size_t n)
{
	struct json_writer w;
	json_init(&w, stdout);
	json_begin_object(&w);
	json_member_int(&w, "schema_version", 1);
	json_member_string(&w, "spec", o->spec);
	json_member_string(&w, "target", o->target == TALLY_TARGET_CPUS ? "cpus" : "command");
	json_key(&w, "events");
	json_begin_array(&w);
	for (size_t k = 0; k < n; k++) {
		const struct encoded *e = &ev[k];
		json_begin_object(&w);
		json_member_uint(&w, "index", k);
		json_member_uint(&w, "event", e->plan.event);
		json_member_string(&w, "name", e->event.name);
		json_member_string(&w, "canonical", e->event.canonical);
		json_member_string(&w, "pmu", e->event.pmu);
		json_member_uint(&w, "pmu_type", e->plan.pmu_type);
		json_member_string(&w, "cpus", e->plan.cpus);
		json_member_uint(&w, "group", e->plan.group);
		json_member_uint(&w, "leader", k - e->plan.group_index);
		json_member_string(&w, "leader_name", e->leader_name);
		json_member_uint(&w, "group_index", e->plan.group_index);
		json_member_uint(&w, "group_size", e->plan.group_size);
		json_member_string(&w, "grouping", grouping_name(e->plan.grouping));
		json_member_string(&w, "reason", e->reason);
		json_key(&w, "counters");
		json_counters(&w, e->plan.counters);
		json_member_bool(&w, "group_fits", e->plan.group_fits);
		json_key(&w, "attr");
		json_begin_object(&w);
		attr_fields_each(e->plan.attr, json_field, &w);
		json_end_object(&w);
		json_key(&w, "symbols");
		json_begin_object(&w);
		attr_fields_each(e->plan.attr, json_symbol, &w);
		json_end_object(&w);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	fputc('\n', stdout);
}

/* The plan of every event, in the order of the open. */
static int plan_events(tally_counter *counter, const struct encode_options *o, struct encoded *ev, size_t n)
{
	const tally_events *events = tally_counter_events(counter);
	for (size_t k = 0; k < n; k++) {
		struct encoded *e = &ev[k];
		e->plan = (struct tally_planned_event){ .sz = sizeof(e->plan) };
		e->event = (struct tally_event_info){ .sz = sizeof(e->event) };
		if (tally_counter_plan(counter, o->target, k, &e->plan) < 0 ||
		    tally_events_at(events, e->plan.event, &e->event) < 0)
			return -1;
		e->leader_name = tally_counter_name(counter, e->plan.leader);
	}
	/* A {...} group is split when another group of the plan holds one of its events. */
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n && ev[k].event.group >= 0 && !ev[k].split; j++)
			ev[k].split = ev[j].event.group == ev[k].event.group && ev[j].plan.group != ev[k].plan.group;
	for (size_t k = 0; k < n; k++)
		explain_grouping(&ev[k]);
	return 0;
}

int command_encode(int argc, char **argv)
{
	struct encode_options o;
	int status = parse_options(argc, argv, &o);
	if (status)
		return status == 1 ? 0 : status;
	tally_pmus *pmus;
	if (tally_pmus_load(NULL, &pmus) < 0) {
		fprintf(stderr, "tally encode: %s\n", tally_last_error());
		return 1;
	}
	/* -M: the vendor table's metrics' events join the spec, the catalogue's the counter adds */
	struct metric_list ml;
	char *spec = NULL;
	if (metric_list_resolve(o.metrics, 0, 0, pmus, &ml) < 0 ||
	    asprintf(&spec, "%s%s%s", o.spec ? o.spec : "", o.spec && *ml.vendor_spec ? "," : "", ml.vendor_spec) < 0) {
		fprintf(stderr, "tally encode: -M: %s\n", tally_last_error());
		tally_pmus_free(pmus);
		return 1;
	}
	TALLY_OPTS(tally_counter_opts, copts, .pmus = pmus, .no_packing = o.no_group, .no_inherit = o.no_inherit,
	           .metrics = ml.catalogue);
	tally_counter *counter;
	int err = tally_counter_new(spec, &copts, &counter);
	metric_list_free(&ml);
	o.spec = spec; /* what is printed: with -M, the metrics' events too */
	if (err < 0) {
		/* As tally stat reports it: the spec, a caret, what was expected. */
		fputs("tally encode: bad event spec:\n", stderr);
		text_escape_lines(stderr, tally_last_error());
		fputc('\n', stderr);
		tally_pmus_free(pmus);
		free(spec);
		return 2;
	}
	size_t n = tally_counter_count(counter);
	struct encoded *ev = calloc(n, sizeof(*ev));
	status = 0;
	if (!ev || plan_events(counter, &o, ev, n) < 0) {
		fprintf(stderr, "tally encode: %s\n", ev ? tally_last_error() : "out of memory");
		status = 1;
	} else if (o.format == FORMAT_C) {
		print_c(&o, ev, n);
	} else if (o.format == FORMAT_JSON) {
		print_json(&o, ev, n);
	} else {
		print_text(&o, ev, n);
	}
	free(ev);
	free(spec);
	tally_counter_free(counter);
	tally_pmus_free(pmus);
	return status;
}
