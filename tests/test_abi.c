/* SPDX-License-Identifier: MIT */
/*
 * The rules that let the ABI grow (libtally(3), CONVENTIONS): every struct that carries its size (options
 * going in, info coming out) is checked up to the end of its last known field, not sizeof; a size beyond
 * TALLY_OPTS_MAX_SZ is refused before any byte past the struct is touched; TALLY_OPTS zeroes padding.
 */
#include "fixture_tree.h"
#include "harness.h"

#include <stdalign.h>
#include <tally.h>

#define offsetofend(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
#define KNOWN(type) offsetofend(struct type, type##__last_field)

/* A size no struct will reach: the library must refuse it without reading or writing that far. */
#define HUGE_SZ ((size_t)1 << 30)

static tally_pmus *intel;
static const tally_pmu *intel_cpu;
static tally_events *events;

/* Each sz-carrying struct, with a call that hands the library a struct of that type (buf, sz first) and
 * returns the library's answer. buf is large enough for any sz the cases below pass by their own size. */
struct sized_struct {
	const char *name;
	size_t size;  /* sizeof */
	size_t known; /* offsetofend of the last field, from the header's <type>__last_field */
	size_t align;
	bool is_info; /* filled by the library (info) rather than read (options) */
	int (*call)(void *buf);
};

static int call_parse_opts(void *buf)
{
	tally_events *list = NULL;
	int err = tally_events_parse("task-clock", buf, &list);
	tally_events_free(list);
	return err;
}

static int call_pmus_opts(void *buf)
{
	tally_pmus *pmus = NULL;
	int err = tally_pmus_load(buf, &pmus);
	tally_pmus_free(pmus);
	return err;
}

static int call_counter_opts(void *buf)
{
	tally_counter *c = NULL;
	int err = tally_counter_new("task-clock", buf, &c);
	tally_counter_free(c);
	return err;
}

static int call_target(void *buf)
{
	tally_counter *c = NULL;
	int err = tally_counter_new("task-clock", NULL, &c);
	if (!err)
		err = tally_counter_open(c, buf);
	tally_counter_free(c);
	return err;
}

static int call_facts_opts(void *buf)
{
	TALLY_OPTS(tally_facts, f);
	return tally_facts_probe(buf, &f);
}

static int call_facts(void *buf)
{
	return tally_facts_probe(NULL, buf);
}

static int call_event_info(void *buf)
{
	return tally_events_at(events, 0, buf);
}

static int call_builtin_info(void *buf)
{
	return tally_builtin_at(0, buf);
}

static int call_pmu_info(void *buf)
{
	return tally_pmu_get_info(intel_cpu, buf);
}

static int call_format_info(void *buf)
{
	return tally_pmu_format_at(intel_cpu, 0, buf);
}

static int call_alias_info(void *buf)
{
	return tally_pmu_alias_at(intel_cpu, 0, buf);
}

static int call_cpu_topology(void *buf)
{
	return tally_cpu_topology(NULL, 0, buf);
}

static int call_region_opts(void *buf)
{
	tally_region_set *set = NULL;
	int err = tally_region_set_new("page-faults", buf, &set);
	tally_region_set_free(set);
	return err;
}

static int call_region_info(void *buf)
{
	static tally_region_set *set;
	if (!set && (tally_region_set_new("page-faults", NULL, &set) != 0 || tally_region_id(set, "r") != 0))
		return -ENOMEM;
	int n = tally_region_set_read(set, 0, TALLY_REGION_ALL_THREADS, buf, NULL, 0, 0);
	return n < 0 ? n : 0;
}

static int call_metric_info(void *buf)
{
	return tally_metric_at(0, buf);
}

static int call_metric_value(void *buf)
{
	TALLY_OPTS(tally_metric_sample, s, .events = events);
	return tally_metric_eval(&s, 0, buf);
}

#define SIZED(type, info, fn) { #type, sizeof(struct type), KNOWN(type), alignof(struct type), info, fn }

static const struct sized_struct sized[] = {
	SIZED(tally_parse_opts, false, call_parse_opts),
	SIZED(tally_pmus_opts, false, call_pmus_opts),
	SIZED(tally_counter_opts, false, call_counter_opts),
	SIZED(tally_target, false, call_target),
	SIZED(tally_facts_opts, false, call_facts_opts),
	SIZED(tally_facts, true, call_facts),
	SIZED(tally_event_info, true, call_event_info),
	SIZED(tally_builtin_info, true, call_builtin_info),
	SIZED(tally_pmu_info, true, call_pmu_info),
	SIZED(tally_format_info, true, call_format_info),
	SIZED(tally_alias_info, true, call_alias_info),
	SIZED(tally_cpu_topology, true, call_cpu_topology),
	SIZED(tally_region_opts, false, call_region_opts),
	SIZED(tally_region_info, true, call_region_info),
	SIZED(tally_metric_info, true, call_metric_info),
	SIZED(tally_metric_value, true, call_metric_value),
};
#define NR_SIZED (sizeof(sized) / sizeof(sized[0]))

/* Room for the largest struct and a newer caller's tail; aligned for any of them. */
static _Alignas(max_align_t) unsigned char buf[4096];

static int call_with(const struct sized_struct *s, size_t sz)
{
	memcpy(buf, &sz, sizeof(sz));
	return s->call(buf);
}

/* <type>__last_field names the last field: only trailing padding may follow it. A field added after it
 * (outside the padding) without moving the macro would fail here. */
static void last_field_macros_name_the_last_field(void)
{
	for (size_t i = 0; i < NR_SIZED; i++) {
		harness_case = sized[i].name;
		CHECK(sized[i].known <= sized[i].size);
		CHECK(sized[i].size - sized[i].known < sized[i].align);
	}
}

/* Today's struct, declared with TALLY_OPTS, is accepted (info: filled). */
static void current_size_is_accepted(void)
{
	for (size_t i = 0; i < NR_SIZED; i++) {
		harness_case = sized[i].name;
		memset(buf, 0, sizeof(buf));
		int err = call_with(&sized[i], sized[i].size);
		if (err)
			fprintf(stderr, "  %s: %s\n", sized[i].name, tally_last_error());
		CHECK_INT(err, 0);
	}
}

/* sz = 1 << 30 is refused with -TALLY_EOPTS and a text naming the struct; the library neither reads
 * nor clears that far (which crashed tally_events_at before). */
static void huge_size_is_refused(void)
{
	for (size_t i = 0; i < NR_SIZED; i++) {
		harness_case = sized[i].name;
		memset(buf, 0, sizeof(buf));
		CHECK_INT(call_with(&sized[i], HUGE_SZ), -TALLY_EOPTS);
		CHECK_CONTAINS(tally_last_error(), sized[i].name);
		CHECK_CONTAINS(tally_last_error(), "sz");
		/* Just above the documented bound: refused too; at the bound, with a zero tail: accepted. */
		CHECK_INT(call_with(&sized[i], TALLY_OPTS_MAX_SZ + 1), -TALLY_EOPTS);
		memset(buf, 0, sizeof(buf));
		CHECK_INT(call_with(&sized[i], TALLY_OPTS_MAX_SZ), 0);
	}
}

/* A newer caller's field placed in what is this build's trailing padding (the way `bool
 * open_without_events` went into padding of tally_counter_opts): an options struct that sets it is
 * refused, as sizeof would not show. Every byte between the last field and sz counts. */
static void set_byte_past_last_field_is_refused(void)
{
	for (size_t i = 0; i < NR_SIZED; i++) {
		if (sized[i].is_info)
			continue;
		harness_case = sized[i].name;
		for (size_t byte = sized[i].known; byte < sized[i].size + 8; byte++) {
			memset(buf, 0, sizeof(buf));
			buf[byte] = 1;
			CHECK_INT(call_with(&sized[i], sized[i].size + 8), -TALLY_EOPTS);
			CHECK_CONTAINS(tally_last_error(), sized[i].name);
		}
	}
	/* A struct whose last field leaves trailing padding (a bool last, as tally_target's): its first byte,
	 * with sizeof as sz. */
	for (size_t i = 0; i < NR_SIZED; i++) {
		if (sized[i].is_info || sized[i].size == sized[i].known)
			continue;
		harness_case = sized[i].name;
		memset(buf, 0, sizeof(buf));
		buf[sized[i].known] = 1;
		CHECK_INT(call_with(&sized[i], sized[i].size), -TALLY_EOPTS);
		CHECK_CONTAINS(tally_last_error(), sized[i].name);
	}
}

/* An older caller's smaller struct (ending at its first field after sz) is accepted; an info struct is
 * filled no further than its sz: the bytes past it stay as the caller left them. A newer caller's larger
 * info struct has the tail this build does not know cleared. */
static void older_and_newer_sizes(void)
{
	for (size_t i = 0; i < NR_SIZED; i++) {
		harness_case = sized[i].name;
		size_t older = sized[i].known > 16 ? 16 : sized[i].known;
		memset(buf, 0, sizeof(buf));
		if (sized[i].is_info)
			memset(buf + older, 0xa5, 64);
		CHECK_INT(call_with(&sized[i], older), 0);
		if (sized[i].is_info) {
			for (size_t b = older; b < older + 64; b++)
				CHECK_INT(buf[b], 0xa5);
			memset(buf, 0xa5, sizeof(buf));
			CHECK_INT(call_with(&sized[i], sized[i].size + 64), 0);
			for (size_t b = sized[i].known; b < sized[i].size + 64; b++)
				CHECK_INT(buf[b], 0);
			CHECK_INT(buf[sized[i].size + 64], 0xa5);
		}
	}
	/* Below the size of sz itself: refused. */
	for (size_t i = 0; i < NR_SIZED; i++) {
		harness_case = sized[i].name;
		memset(buf, 0, sizeof(buf));
		CHECK_INT(call_with(&sized[i], 0), -TALLY_EOPTS);
	}
}

/* Garbage on the stack where the struct will live, so that padding TALLY_OPTS did not clear shows. */
__attribute__((noinline)) static void dirty_stack(void)
{
	volatile unsigned char junk[512];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xff;
}

__attribute__((noinline)) static void declare_and_check(void)
{
	TALLY_OPTS(tally_counter_opts, o, .no_packing = true);
	const unsigned char *bytes = (const unsigned char *)&o;
	/* The padding between the bools and the (0.4) metrics pointer, and after the last field. */
	for (size_t b = offsetofend(struct tally_counter_opts, no_user_reads); b < offsetof(struct tally_counter_opts, metrics);
	     b++)
		CHECK_INT(bytes[b], 0);
	for (size_t b = KNOWN(tally_counter_opts); b < sizeof(o); b++)
		CHECK_INT(bytes[b], 0);
	CHECK_INT(o.sz, sizeof(o));
	CHECK(o.no_packing);
	CHECK(o.pmus == NULL);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("task-clock", &o, &c), 0);
	tally_counter_free(c);
}

static void tally_opts_zeroes_padding(void)
{
	dirty_stack();
	declare_and_check();
}

int main(void)
{
	intel = fixture_pmus("intel");
	intel_cpu = intel ? tally_pmus_find(intel, "cpu") : NULL;
	if (!intel_cpu)
		return 1;
	if (tally_events_parse("task-clock", NULL, &events)) {
		fprintf(stderr, "%s\n", tally_last_error());
		return 1;
	}
	static const struct harness_case cases[] = {
		{ "last_field_macros_name_the_last_field", last_field_macros_name_the_last_field },
		{ "current_size_is_accepted", current_size_is_accepted },
		{ "huge_size_is_refused", huge_size_is_refused },
		{ "set_byte_past_last_field_is_refused", set_byte_past_last_field_is_refused },
		{ "older_and_newer_sizes", older_and_newer_sizes },
		{ "tally_opts_zeroes_padding", tally_opts_zeroes_padding },
		{ NULL, NULL },
	};
	int status = harness_run(cases);
	tally_events_free(events);
	tally_pmus_free(intel);
	return status;
}
