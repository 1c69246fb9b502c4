/* SPDX-License-Identifier: MIT */
/* Automatic grouping: the plan from constructed events, and how it reshapes (split, remove). */
#include "counter/packing.h"
#include "fixture_tree.h"
#include "harness.h"

#include <linux/perf_event.h>
#include <tally/events.h>

enum { SW = PERF_TYPE_SOFTWARE, HW = PERF_TYPE_HARDWARE, TP = PERF_TYPE_TRACEPOINT };
/* An event of a PMU in {...} group `group` (-1: outside braces); SLOTS and METRIC for topdown ones. */
#define E(pmu, group) { pmu, group, TLY_TOPDOWN_NONE, false, 0 }
#define SLOTS(pmu, group) { pmu, group, TLY_TOPDOWN_SLOTS, false, 0 }
#define METRIC(pmu, group) { pmu, group, TLY_TOPDOWN_METRIC, false, 0 }
#define WEAK(pmu, group) { pmu, group, TLY_TOPDOWN_NONE, true, 0 }
/* Events that take counters (machine/pmu_counters.h's sets), outside braces (C) or in a weak group (WC). */
#define C(pmu, group, counters) { pmu, group, TLY_TOPDOWN_NONE, false, counters }
#define WC(pmu, group, counters) { pmu, group, TLY_TOPDOWN_NONE, true, counters }
/* Skylake's core PMU (its counter.json: 4 generic, 3 fixed): any generic counter; instructions (fixed 0
 * or generic), cycles (fixed 1 or generic), ref-cycles (fixed 2 only), an event of counter 2 only. */
#define GP 0xfULL
#define INST (GP | 1ULL << 32)
#define CYC (GP | 1ULL << 33)
#define REF (1ULL << 34)
#define ONLY2 0x4ULL

/* Writes the plan as "[0,1][2]" (P marks packed groups) for compact checks. */
static const char *show(const struct tly_plan *p)
{
	static char buf[256];
	size_t len = 0;
	buf[0] = '\0';
	for (size_t g = 0; g < p->nr_groups; g++) {
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s[", p->packed[g] ? "P" : "");
		for (size_t k = 0; k < tly_plan_size(p, g); k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%zu", k ? "," : "",
			                        tly_plan_members(p, g)[k]);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "]");
	}
	return buf;
}

/* The packing key of every event of spec on a fixture machine, as "k,k,...". */
static const char *pack_keys(const char *machine, const char *spec)
{
	static char buf[256];
	buf[0] = '\0';
	tally_pmus *pmus = fixture_pmus(machine);
	TALLY_OPTS(tally_parse_opts, opts, .pmus = pmus);
	tally_events *events = NULL;
	if (pmus && tally_events_parse(spec, &opts, &events) == 0) {
		size_t len = 0;
		for (size_t i = 0; i < tally_events_count(events); i++) {
			TALLY_OPTS(tally_event_info, info);
			tally_events_at(events, i, &info);
			const tally_pmu *pmu = info.pmu ? tally_pmus_find(pmus, info.pmu) : NULL;
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "," : "",
			                        tly_pack_pmu(info.attr, pmu));
		}
	} else {
		fprintf(stderr, "%s on %s: %s\n", spec, machine, tally_last_error());
	}
	tally_events_free(events);
	tally_pmus_free(pmus);
	return buf;
}

/* The key is the counting PMU, not attr.type: one core PMU's generic (type 0), cache (3), raw (4) and
 * sysfs events share it; hybrid x86 expansions (type 0 both, PMU in config[63:32]) and big.LITTLE
 * clusters do not; without a core PMU a hardware event keeps its attr.type. */
static void key_is_the_counting_pmu(void)
{
	CHECK_STR(pack_keys("intel", "cycles,L1-dcache-loads,r1c2,cpu/event=0x3c/,topdown-retiring,task-clock"),
	          "4,4,4,4,4,4,1"); /* with the slots event the parser adds */
	/* Expansions come in PMU-name order: cpu_atom (type 10), then cpu_core (4). */
	CHECK_STR(pack_keys("hybrid", "cycles,instructions"), "10,4,10,4");
	CHECK_STR(pack_keys("arm64-biglittle", "cycles,inst_retired"), "8,9,8,9");
	CHECK_STR(pack_keys("novpmu", "cycles,page-faults"), "0,1");
}

static void packs_by_pmu_in_spec_order(void)
{
	const struct tly_pack_event ev[] = {
		E(SW, -1), E(HW, -1), E(SW, -1), E(TP, -1), E(HW, -1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 5, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,2]P[1,4]P[3]");
	CHECK_INT(p.nr, 5);
	tly_plan_fini(&p);
}

/* perf's weak group ({...}:W) may be split as tally's own groups are (P), unless it holds a topdown event:
 * a metric must stay behind slots. Outside events are never packed into it. */
static void weak_groups_may_be_split(void)
{
	const struct tly_pack_event ev[] = {
		WEAK(HW, 0), WEAK(HW, 0), E(HW, -1), E(HW, 1), E(HW, 1),
		{ HW, 2, TLY_TOPDOWN_SLOTS, true, 0 }, { HW, 2, TLY_TOPDOWN_METRIC, true, 0 },
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 7, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,1]P[2][3,4][5,6]");
	tly_plan_fini(&p);
}

/* A packed group stops at max_group events (the kernel's limit on a group's read) and its PMU's next
 * events start another; explicit groups are left as written, even past it (the kernel is the judge). */
static void packed_groups_stay_within_the_limit(void)
{
	const struct tly_pack_event ev[] = {
		E(SW, -1), E(HW, -1), E(SW, -1), E(SW, -1), E(SW, -1), E(HW, -1), E(SW, 0), E(SW, 0),
		E(SW, 0), E(SW, -1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 10, true, 2), 0);
	CHECK_STR(show(&p), "P[0,2]P[1,5]P[3,4][6,7,8]P[9]");
	tly_plan_fini(&p);

	/* 1100 software events with tally's layout: 1022 (tly_read_max_group) and 78. */
	enum { N = 1100 };
	static struct tly_pack_event many[N];
	for (size_t i = 0; i < N; i++)
		many[i] = (struct tly_pack_event)E(SW, -1);
	CHECK_INT(tly_plan_init(&p, many, N, true, 1022), 0);
	CHECK_INT(p.nr_groups, 2);
	CHECK_INT(tly_plan_size(&p, 0), 1022);
	CHECK_INT(tly_plan_size(&p, 1), 78);
	CHECK_INT(tly_plan_members(&p, 1)[0], 1022);
	tly_plan_fini(&p);
}

static void braces_stay_as_written(void)
{
	/* task-clock,{cycles,page-faults},minor-faults,{instructions}: the explicit groups keep a software
	 * member next to a hardware leader (seed 000); outside braces software events pack together. */
	const struct tly_pack_event ev[] = {
		E(SW, -1), E(HW, 0), E(SW, 0), E(SW, -1), E(HW, 1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 5, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,3][1,2][4]");
	tly_plan_fini(&p);
}

static void no_packing_opens_each_alone(void)
{
	const struct tly_pack_event ev[] = {
		E(SW, -1), E(SW, -1), E(HW, 0), E(SW, 0), E(SW, -1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 5, false, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0]P[1][2,3]P[4]");
	tly_plan_fini(&p);
}

static void split_makes_a_packed_group(void)
{
	const struct tly_pack_event ev[] = {
		E(SW, -1), E(SW, -1), E(SW, -1), E(SW, -1), E(HW, 0), E(SW, 0),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 6, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,1,2,3][4,5]");
	/* The kernel refused member 3: it starts the next group. */
	tly_plan_split(&p, 0, 3);
	CHECK_STR(show(&p), "P[0,1,2]P[3][4,5]");
	tly_plan_split(&p, 2, 1);
	CHECK_STR(show(&p), "P[0,1,2]P[3][4]P[5]");
	CHECK_INT(p.nr_groups, 4);
	CHECK_INT(p.nr, 6);
	tly_plan_fini(&p);
}

static void halving_until_alone(void)
{
	struct tly_pack_event ev[8];
	for (size_t i = 0; i < 8; i++)
		ev[i] = (struct tly_pack_event)E(SW, -1);
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 8, true, SIZE_MAX), 0);
	/* What the never-run handling does: halve any group of more than one, until none is left. */
	for (size_t g = 0; g < p.nr_groups;) {
		size_t size = tly_plan_size(&p, g);
		if (size > 1)
			tly_plan_split(&p, g, size / 2);
		else
			g++;
	}
	CHECK_STR(show(&p), "P[0]P[1]P[2]P[3]P[4]P[5]P[6]P[7]");
	tly_plan_fini(&p);
}

static void remove_keeps_the_rest(void)
{
	const struct tly_pack_event ev[] = {
		E(HW, 0), E(SW, 0), E(SW, 0), E(SW, -1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 4, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "[0,1,2]P[3]");
	/* An unsupported leader (cycles in a VM): the members stay a group, led by the next one. */
	tly_plan_remove(&p, 0, 0);
	CHECK_STR(show(&p), "[1,2]P[3]");
	tly_plan_remove(&p, 0, 1);
	CHECK_STR(show(&p), "[1]P[3]");
	/* The last event of a group: the group goes. */
	tly_plan_remove(&p, 0, 0);
	CHECK_STR(show(&p), "P[3]");
	CHECK_INT(p.nr, 1);
	tly_plan_remove(&p, 0, 0);
	CHECK_INT(p.nr_groups, 0);
	CHECK_INT(p.nr, 0);
	tly_plan_fini(&p);
}

/* Topdown metric events outside braces go into one group per PMU led by its first slots event outside
 * braces, laid out first, with or without packing; it is not a packed group (never split), and other
 * events of the PMU are packed apart from it. A second slots event, and slots without metric events,
 * are ordinary events. */
static void topdown_groups_are_led_by_slots(void)
{
	enum { CPU = 4 };
	/* cycles, topdown-retiring, task-clock, slots, topdown-fe-bound, slots, instructions */
	const struct tly_pack_event ev[] = {
		E(CPU, -1), METRIC(CPU, -1), E(SW, -1), SLOTS(CPU, -1), METRIC(CPU, -1), SLOTS(CPU, -1), E(CPU, -1),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 7, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,5,6][3,1,4]P[2]");
	tly_plan_fini(&p);
	/* no_packing: everything alone but the topdown group. */
	CHECK_INT(tly_plan_init(&p, ev, 7, false, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0][3,1,4]P[2]P[5]P[6]");
	tly_plan_fini(&p);
	/* Even past max_group, and one group per PMU (a hybrid's cpu_core, type 8, and cpu). */
	const struct tly_pack_event two[] = {
		METRIC(CPU, -1), METRIC(8, -1), SLOTS(8, -1), SLOTS(CPU, -1), METRIC(CPU, -1),
	};
	CHECK_INT(tly_plan_init(&p, two, 5, true, 2), 0);
	CHECK_STR(show(&p), "[3,0,4][2,1]");
	tly_plan_fini(&p);
	/* Slots without metric events outside braces packs as any event; braces stay as written. */
	const struct tly_pack_event plain[] = { SLOTS(CPU, -1), E(CPU, -1), METRIC(CPU, 0), SLOTS(CPU, 0) };
	CHECK_INT(tly_plan_init(&p, plain, 4, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,1][2,3]");
	tly_plan_fini(&p);
}

/* Whether each event gets a counter of its own: a matching, not a count (the kernel's question). */
static void counters_fit_as_a_matching(void)
{
	CHECK(tly_counters_fit((const uint64_t[]){ 0x1, 0x1 }, 2) == false); /* both only counter 0 */
	CHECK(tly_counters_fit((const uint64_t[]){ 0x1, 0x3 }, 2));
	CHECK(tly_counters_fit((const uint64_t[]){ 0x3, 0x1 }, 2));          /* the first moves to counter 1 */
	CHECK(tly_counters_fit((const uint64_t[]){ 0x3, 0x3, 0x1 }, 3) == false);
	CHECK(tly_counters_fit((const uint64_t[]){ GP, GP, GP, GP, INST, CYC, REF }, 7));
	CHECK(tly_counters_fit((const uint64_t[]){ GP, GP, GP, GP, GP, INST, CYC }, 7) == false);
	CHECK(tly_counters_fit((const uint64_t[]){ REF, REF }, 2) == false);
	CHECK(tly_counters_fit((const uint64_t[]){ 0, 0, 0, 0x1, 0, 0 }, 6)); /* sets of 0 take none */
	CHECK(tly_counters_fit(NULL, 0));
	uint64_t all[65];
	for (size_t i = 0; i < 65; i++)
		all[i] = UINT64_MAX;
	CHECK(tly_counters_fit(all, 64));
	CHECK(tly_counters_fit(all, 65) == false);
}

/* Outside braces, each event joins the first packed group of its PMU it fits: fixed-counter events count
 * against the fixed counters, never two of counter 2 alone in one group; events whose counters are not
 * known (software, a PMU without counts) fit anywhere, as before the tables had counts. */
static void packed_groups_fit_the_counters(void)
{
	const struct tly_pack_event ev[] = {
		C(HW, -1, INST), C(HW, -1, CYC), C(HW, -1, GP), C(HW, -1, GP), C(HW, -1, GP), C(HW, -1, GP),
		C(HW, -1, GP), C(HW, -1, GP), C(HW, -1, REF), E(SW, -1), C(HW, -1, ONLY2), C(HW, -1, ONLY2),
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 12, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,1,2,3,4,5,8]P[6,7,10]P[9]P[11]");
	tly_plan_fini(&p);
	/* No packing: alone as ever. */
	CHECK_INT(tly_plan_init(&p, ev, 4, false, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0]P[1]P[2]P[3]");
	tly_plan_fini(&p);
}

/* A weak group ({...}:W, a vendor metric's) becomes as many groups as its counters need, each event in the
 * first it fits; its pieces take no outside event. A plain {...} group stays as written even when it cannot
 * be scheduled (perf leaves it too; the open drops what the kernel refuses). A weak group's topdown events
 * stay in one piece, slots first, which is never split at open (a metric must stay behind slots). */
static void weak_groups_split_by_the_counters(void)
{
	const struct tly_pack_event ev[] = {
		WC(HW, 0, GP), WC(HW, 0, ONLY2), WC(HW, 0, GP), WC(HW, 0, ONLY2), WC(HW, 0, GP), WC(HW, 0, GP),
		WC(HW, 0, GP), WEAK(SW, 0), C(HW, -1, GP),
		C(HW, 1, GP), C(HW, 1, GP), C(HW, 1, GP), C(HW, 1, GP), C(HW, 1, GP),
		{ HW, 2, TLY_TOPDOWN_SLOTS, true, 1ULL << 35 }, WC(HW, 2, GP), WC(HW, 2, GP), WC(HW, 2, GP),
		WC(HW, 2, GP), WC(HW, 2, GP), { HW, 2, TLY_TOPDOWN_METRIC, true, 0 },
	};
	struct tly_plan p;
	CHECK_INT(tly_plan_init(&p, ev, 21, true, SIZE_MAX), 0);
	CHECK_STR(show(&p), "P[0,1,2,4,7]P[3,5,6]P[8][9,10,11,12,13][14,15,16,17,18,20]P[19]");
	tly_plan_fini(&p);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "key_is_the_counting_pmu", key_is_the_counting_pmu },
		{ "packs_by_pmu_in_spec_order", packs_by_pmu_in_spec_order },
		{ "weak_groups_may_be_split", weak_groups_may_be_split },
		{ "packed_groups_stay_within_the_limit", packed_groups_stay_within_the_limit },
		{ "braces_stay_as_written", braces_stay_as_written },
		{ "no_packing_opens_each_alone", no_packing_opens_each_alone },
		{ "split_makes_a_packed_group", split_makes_a_packed_group },
		{ "halving_until_alone", halving_until_alone },
		{ "remove_keeps_the_rest", remove_keeps_the_rest },
		{ "topdown_groups_are_led_by_slots", topdown_groups_are_led_by_slots },
		{ "counters_fit_as_a_matching", counters_fit_as_a_matching },
		{ "packed_groups_fit_the_counters", packed_groups_fit_the_counters },
		{ "weak_groups_split_by_the_counters", weak_groups_split_by_the_counters },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
