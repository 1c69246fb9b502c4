/* SPDX-License-Identifier: MIT */
/*
 * The metric catalogue: perf's names (IPC, CPI, the tma_* of the topdown method; perf's common metrics
 * CPUs_utilized, cs_per_second, ...), groups, units and formulas, each metric's inputs as the events it
 * needs, and the lookup of names and groups (case-insensitive, as perf's -M).
 */
#include "spec/metric_catalog.h"

#include "core/error.h"
#include "core/opts.h"
#include "spec/event_list.h"
#include "spec/hybrid.h"
#include "spec/spec_error.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HW(n, id) { n, TLY_METRIC_HW, PERF_COUNT_HW_##id }
#define SW(n, id) { n, TLY_METRIC_SW, PERF_COUNT_SW_##id }
/* A generic cache event's config: cache | op << 8 | result << 16 (perf_event_open(2)). */
#define CACHE(n, cache, op, result)                                                                      \
	{ n, TLY_METRIC_CACHE,                                                                           \
	  PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 |                               \
		  (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##result << 16 }
/* The topdown events are aliases of the core PMU (cpu, cpu_core) whose configs the kernel fixes in
 * arch/x86/events/intel/core.c since 5.9 (level 2 since 5.17 for Sapphire Rapids, and Alder Lake's P-cores):
 * slots "event=0x00,umask=0x4", topdown-retiring "event=0x00,umask=0x80" and so on up to 0x87. They read
 * as slots x the PERF_METRICS fraction, so a ratio of two of them is a ratio of fractions. */
#define TD(n, umask) { n, TLY_METRIC_CORE, (umask) << 8 }

#define SLOTS TD("slots", 0x04)
#define TD_L1 SLOTS, TD("topdown-retiring", 0x80), TD("topdown-bad-spec", 0x81), TD("topdown-fe-bound", 0x82), \
	TD("topdown-be-bound", 0x83)
/* Every level-1 metric asks for the same group, every level-2 one for the level-1 group and the four
 * level-2 events: tally_counter_new adds each group once (and a level-1 group not at all beside a level-2
 * one), since the PMU has one set of PERF_METRICS for all of them. */
#define TD_L1_SPEC "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}"
#define TD_L2_SPEC "{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound,topdown-heavy-ops," \
	"topdown-br-mispredict,topdown-fetch-lat,topdown-mem-bound}"
#define TD_APPLIES "Intel CPUs with PERF_METRICS (Icelake and later; on hybrid parts the P-cores, cpu_core)"
#define TD_L2_APPLIES "Intel CPUs with level-2 PERF_METRICS (Sapphire Rapids, Alder Lake's P-cores and later)"

/* max(x, 0), perf's clamp of a remainder that rounding made negative. */
static double at_least_zero(double x)
{
	return x > 0 ? x : 0;
}

/* Input positions of the topdown metrics. */
enum { TD_SLOTS, TD_RETIRING, TD_BAD_SPEC, TD_FE_BOUND, TD_BE_BOUND, TD_LEVEL2 };

bool tly_metric_ratio(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	double den = calc->in[m->den];
	if (den == 0) {
		snprintf(calc->why, calc->why_len, "%s is 0", m->terms[m->den].name);
		return false;
	}
	*out = m->factor * calc->in[m->num] / den;
	return true;
}

static bool cpus_utilized(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	*out = calc->in[0] / 1e9 / calc->seconds;
	return true;
}

/* A level-1 fraction in percent: perf's "topdown-X / (topdown-fe-bound + topdown-bad-spec +
 * topdown-retiring + topdown-be-bound)", the sum being slots as the hardware split them. */
static bool td_fraction(struct tly_metric_calc *calc, size_t k, double *out)
{
	const double *in = calc->in;
	double sum = in[TD_FE_BOUND] + in[TD_BAD_SPEC] + in[TD_RETIRING] + in[TD_BE_BOUND];
	if (sum == 0) {
		snprintf(calc->why, calc->why_len, "the topdown events sum to 0 (no slots were counted)");
		return false;
	}
	*out = 100 * in[k] / sum;
	return true;
}

static bool td_retiring(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	return td_fraction(calc, TD_RETIRING, out);
}

static bool td_frontend(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	return td_fraction(calc, TD_FE_BOUND, out);
}

static bool td_backend(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	return td_fraction(calc, TD_BE_BOUND, out);
}

/* perf: max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0). */
static bool td_bad_speculation(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	double fe, be, ret;
	if (!td_fraction(calc, TD_FE_BOUND, &fe) || !td_fraction(calc, TD_BE_BOUND, &be) ||
	    !td_fraction(calc, TD_RETIRING, &ret))
		return false;
	*out = at_least_zero(100 - (fe + be + ret));
	return true;
}

/* A level-2 event's own fraction: perf's "topdown-X / (... the four level-1 events ...)". */
static bool td_level2(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	(void)m;
	return td_fraction(calc, TD_LEVEL2, out);
}

/* A level-2 remainder: perf's max(0, <level-1 parent> - <level-2 sibling>). */
static bool td_remainder(const struct tly_metric *m, struct tly_metric_calc *calc, double *out)
{
	double parent, sibling;
	bool ok = m->num == TD_BAD_SPEC ? td_bad_speculation(m, calc, &parent) : td_fraction(calc, m->num, &parent);
	if (!ok || !td_fraction(calc, TD_LEVEL2, &sibling))
		return false;
	*out = at_least_zero(parent - sibling);
	return true;
}

#define RATIO(n_, d_, f_) .compute = tly_metric_ratio, .num = (n_), .den = (d_), .factor = (f_)
#define TERMS(...) .terms = { __VA_ARGS__ }, .nr_terms = sizeof((struct tly_metric_term[]){ __VA_ARGS__ }) / \
	sizeof(struct tly_metric_term)
#define PER_SECOND(n, event, id, what)                                                                     \
	{ .name = n, .groups = "Default", .unit = "/sec", .description = what " per second of CPU time",   \
	  .formula = event " * 1e9 / task-clock", .events = "{" event ",task-clock}",                          \
	  .applies = "any machine (software events)", TERMS(SW(event, id), SW("task-clock", TASK_CLOCK)),      \
	  RATIO(0, 1, 1e9) }

const struct tly_metric tly_metrics[] = {
	{ .name = "IPC", .groups = "Ret;Summary", .unit = "insn per cycle",
	  .description = "Instructions per cycle", .formula = "instructions / cycles",
	  .events = "{instructions,cycles}", .applies = "any CPU whose PMU counts cycles and instructions",
	  TERMS(HW("instructions", INSTRUCTIONS), HW("cycles", CPU_CYCLES)), RATIO(0, 1, 1) },
	{ .name = "CPI", .groups = "Pipeline;Mem", .unit = "cycles per insn",
	  .description = "Cycles per instruction (1 / IPC)", .formula = "cycles / instructions",
	  .events = "{instructions,cycles}", .applies = "any CPU whose PMU counts cycles and instructions",
	  TERMS(HW("instructions", INSTRUCTIONS), HW("cycles", CPU_CYCLES)), RATIO(1, 0, 1) },
	{ .name = "cycles_frequency", .groups = "Default;Summary", .unit = "GHz",
	  .description = "Cycles per nanosecond of CPU time: the clock while the task ran",
	  .formula = "cycles / task-clock", .events = "{cycles,task-clock}",
	  .applies = "any CPU whose PMU counts cycles",
	  TERMS(HW("cycles", CPU_CYCLES), SW("task-clock", TASK_CLOCK)), RATIO(0, 1, 1) },
	{ .name = "CPUs_utilized", .groups = "Default;Summary", .unit = "CPUs utilized",
	  .description = "CPU time over wall-clock time: how many CPUs were busy on average",
	  .formula = "task-clock / (seconds * 1e9)", .events = "{task-clock}", .applies = "any machine",
	  .needs_seconds = true, TERMS(SW("task-clock", TASK_CLOCK)), .compute = cpus_utilized },
	PER_SECOND("cs_per_second", "context-switches", CONTEXT_SWITCHES, "Context switches"),
	PER_SECOND("migrations_per_second", "cpu-migrations", CPU_MIGRATIONS, "Migrations to another CPU"),
	PER_SECOND("page_faults_per_second", "page-faults", PAGE_FAULTS, "Page faults"),
	{ .name = "branch_miss_rate", .groups = "Default;BrMispredicts", .unit = "%",
	  .description = "Mispredicted branches, in percent of all branches",
	  .formula = "100 * branch-misses / branches", .events = "{branches,branch-misses}",
	  .applies = "any CPU whose PMU counts branches and branch-misses",
	  TERMS(HW("branches", BRANCH_INSTRUCTIONS), HW("branch-misses", BRANCH_MISSES)), RATIO(1, 0, 100) },
	{ .name = "cache_miss_rate", .groups = "Default;Cache", .unit = "%",
	  .description = "Cache misses in percent of cache references (the CPU's choice of cache, often the LLC)",
	  .formula = "100 * cache-misses / cache-references", .events = "{cache-references,cache-misses}",
	  .applies = "any CPU whose PMU counts cache-references and cache-misses",
	  TERMS(HW("cache-references", CACHE_REFERENCES), HW("cache-misses", CACHE_MISSES)), RATIO(1, 0, 100) },
	{ .name = "l1d_miss_rate", .groups = "Cache", .unit = "%",
	  .description = "Level-1 data cache load misses, in percent of its loads",
	  .formula = "100 * L1-dcache-load-misses / L1-dcache-loads",
	  .events = "{L1-dcache-loads,L1-dcache-load-misses}",
	  .applies = "CPUs whose PMU maps both cache events (most x86 and arm64)",
	  TERMS(CACHE("L1-dcache-loads", L1D, READ, ACCESS), CACHE("L1-dcache-load-misses", L1D, READ, MISS)),
	  RATIO(1, 0, 100) },
	{ .name = "llc_miss_rate", .groups = "Cache", .unit = "%",
	  .description = "Last-level cache load misses, in percent of its loads",
	  .formula = "100 * LLC-load-misses / LLC-loads", .events = "{LLC-loads,LLC-load-misses}",
	  .applies = "CPUs whose PMU maps both cache events (Intel; on arm64 where LL_CACHE_RD exists)",
	  TERMS(CACHE("LLC-loads", LL, READ, ACCESS), CACHE("LLC-load-misses", LL, READ, MISS)), RATIO(1, 0, 100) },
	{ .name = "dtlb_miss_rate", .groups = "Cache;MemoryTLB", .unit = "%",
	  .description = "Data TLB load misses, in percent of its loads",
	  .formula = "100 * dTLB-load-misses / dTLB-loads", .events = "{dTLB-loads,dTLB-load-misses}",
	  .applies = "CPUs whose PMU maps both cache events (Intel; arm64 with L1D_TLB)",
	  TERMS(CACHE("dTLB-loads", DTLB, READ, ACCESS), CACHE("dTLB-load-misses", DTLB, READ, MISS)),
	  RATIO(1, 0, 100) },
	{ .name = "frontend_cycles_idle", .groups = "Default;Stalls", .unit = "%",
	  .description = "Cycles the frontend delivered nothing, in percent of all cycles",
	  .formula = "100 * stalled-cycles-frontend / cycles", .events = "{cycles,stalled-cycles-frontend}",
	  .applies = "CPUs that map stalled-cycles-frontend (AMD, arm64's STALL_FRONTEND; not recent Intel)",
	  TERMS(HW("cycles", CPU_CYCLES), HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND)), RATIO(1, 0, 100) },
	{ .name = "backend_cycles_idle", .groups = "Default;Stalls", .unit = "%",
	  .description = "Cycles the backend accepted nothing, in percent of all cycles",
	  .formula = "100 * stalled-cycles-backend / cycles", .events = "{cycles,stalled-cycles-backend}",
	  .applies = "CPUs that map stalled-cycles-backend (AMD, arm64's STALL_BACKEND; not recent Intel)",
	  TERMS(HW("cycles", CPU_CYCLES), HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND)), RATIO(1, 0, 100) },
	{ .name = "tma_retiring", .groups = "TopdownL1;tma_L1_group", .unit = "%",
	  .description = "Slots that retired operations (useful work)",
	  .formula = "100 * topdown-retiring / (topdown-fe-bound + topdown-bad-spec + topdown-retiring + "
	             "topdown-be-bound)",
	  .events = TD_L1_SPEC, .applies = TD_APPLIES, TERMS(TD_L1), .compute = td_retiring },
	{ .name = "tma_bad_speculation", .groups = "TopdownL1;tma_L1_group", .unit = "%",
	  .description = "Slots wasted on incorrect speculation (mispredicted branches, machine clears)",
	  .formula = "max(100 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)",
	  .events = TD_L1_SPEC, .applies = TD_APPLIES, TERMS(TD_L1), .compute = td_bad_speculation },
	{ .name = "tma_frontend_bound", .groups = "TopdownL1;tma_L1_group", .unit = "%",
	  .description = "Slots the frontend left empty while the backend could have taken operations",
	  .formula = "100 * topdown-fe-bound / (topdown-fe-bound + topdown-bad-spec + topdown-retiring + "
	             "topdown-be-bound)",
	  .events = TD_L1_SPEC, .applies = TD_APPLIES, TERMS(TD_L1), .compute = td_frontend },
	{ .name = "tma_backend_bound", .groups = "TopdownL1;tma_L1_group", .unit = "%",
	  .description = "Slots lost because the backend lacked resources to accept operations",
	  .formula = "100 * topdown-be-bound / (topdown-fe-bound + topdown-bad-spec + topdown-retiring + "
	             "topdown-be-bound)",
	  .events = TD_L1_SPEC, .applies = TD_APPLIES, TERMS(TD_L1), .compute = td_backend },
	{ .name = "tma_heavy_operations", .groups = "Retire;TopdownL2;tma_L2_group;tma_retiring_group", .unit = "%",
	  .description = "Slots that retired heavy operations (instructions of more than one uop, microcode)",
	  .formula = "100 * topdown-heavy-ops / (the four level-1 events)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-heavy-ops", 0x84)), .compute = td_level2 },
	{ .name = "tma_light_operations", .groups = "Retire;TopdownL2;tma_L2_group;tma_retiring_group", .unit = "%",
	  .description = "Slots that retired light operations (one uop each)",
	  .formula = "max(tma_retiring - tma_heavy_operations, 0)", .events = TD_L2_SPEC, .applies = TD_L2_APPLIES,
	  TERMS(TD_L1, TD("topdown-heavy-ops", 0x84)), .compute = td_remainder, .num = TD_RETIRING },
	{ .name = "tma_branch_mispredicts", .groups = "BadSpec;BrMispredicts;TopdownL2;tma_L2_group;"
	                                              "tma_bad_speculation_group", .unit = "%",
	  .description = "Slots wasted on mispredicted branches",
	  .formula = "100 * topdown-br-mispredict / (the four level-1 events)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-br-mispredict", 0x85)), .compute = td_level2 },
	{ .name = "tma_machine_clears", .groups = "BadSpec;MachineClears;TopdownL2;tma_L2_group;"
	                                          "tma_bad_speculation_group", .unit = "%",
	  .description = "Slots wasted on machine clears (memory ordering nukes, self-modifying code)",
	  .formula = "max(tma_bad_speculation - tma_branch_mispredicts, 0)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-br-mispredict", 0x85)), .compute = td_remainder,
	  .num = TD_BAD_SPEC },
	{ .name = "tma_fetch_latency", .groups = "Frontend;TopdownL2;tma_L2_group;tma_frontend_bound_group",
	  .unit = "%", .description = "Slots the frontend left empty for latency (i-cache and iTLB misses, resteers)",
	  .formula = "100 * topdown-fetch-lat / (the four level-1 events)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-fetch-lat", 0x86)), .compute = td_level2 },
	{ .name = "tma_fetch_bandwidth", .groups = "FetchBW;Frontend;TopdownL2;tma_L2_group;"
	                                           "tma_frontend_bound_group", .unit = "%",
	  .description = "Slots the frontend left empty for bandwidth (decoders, uop cache)",
	  .formula = "max(tma_frontend_bound - tma_fetch_latency, 0)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-fetch-lat", 0x86)), .compute = td_remainder,
	  .num = TD_FE_BOUND },
	{ .name = "tma_memory_bound", .groups = "Backend;TopdownL2;tma_L2_group;tma_backend_bound_group",
	  .unit = "%", .description = "Slots the backend stalled on the memory subsystem",
	  .formula = "100 * topdown-mem-bound / (the four level-1 events)", .events = TD_L2_SPEC,
	  .applies = TD_L2_APPLIES, TERMS(TD_L1, TD("topdown-mem-bound", 0x87)), .compute = td_level2 },
	{ .name = "tma_core_bound", .groups = "Backend;Compute;TopdownL2;tma_L2_group;tma_backend_bound_group",
	  .unit = "%", .description = "Slots the backend stalled on its execution units (not memory)",
	  .formula = "max(tma_backend_bound - tma_memory_bound, 0)", .events = TD_L2_SPEC, .applies = TD_L2_APPLIES,
	  TERMS(TD_L1, TD("topdown-mem-bound", 0x87)), .compute = td_remainder, .num = TD_BE_BOUND },
};
const size_t tly_nr_metrics = sizeof(tly_metrics) / sizeof(tly_metrics[0]);

size_t tally_metric_count(void)
{
	return tly_nr_metrics;
}

int tally_metric_at(size_t i, struct tally_metric_info *info)
{
	if (!info)
		return tly_null_arg(__func__);
	if (i >= tly_nr_metrics)
		return tly_error(-ERANGE, "tally_metric_at: no metric %zu (the catalogue has %zu)", i, tly_nr_metrics);
	const struct tly_metric *m = &tly_metrics[i];
	struct tally_metric_info filled = {
		.sz = sizeof(filled), .name = m->name, .groups = m->groups, .unit = m->unit,
		.description = m->description, .formula = m->formula, .events = m->events, .applies = m->applies,
		.needs_seconds = m->needs_seconds,
	};
	return TLY_INFO_COPY(info, &filled, tally_metric_info);
}

/* Whether `group` is one of the ';'-separated groups of m (case-insensitive). */
static bool in_group(const struct tly_metric *m, const char *group, size_t len)
{
	for (const char *g = m->groups; *g;) {
		size_t l = strcspn(g, ";");
		if (l == len && strncasecmp(g, group, len) == 0)
			return true;
		g += l + (g[l] == ';');
	}
	return false;
}

static long find_name(const char *name, size_t len)
{
	for (size_t i = 0; i < tly_nr_metrics; i++)
		if (strlen(tly_metrics[i].name) == len && strncasecmp(tly_metrics[i].name, name, len) == 0)
			return (long)i;
	return -1;
}

struct lower_suggest {
	char word[64];
	size_t len;
	const char *best; /* the candidate as the catalogue spells it */
	size_t best_distance;
};

/* Offers candidate (len bytes) in lower case: names match case-insensitively, typos too. */
static void offer(struct lower_suggest *ls, const char *candidate, size_t len)
{
	char lower[64];
	if (len >= sizeof(lower))
		return;
	for (size_t k = 0; k < len; k++)
		lower[k] = (char)tolower((unsigned char)candidate[k]);
	lower[len] = '\0';
	struct tly_suggest s;
	tly_suggest_init(&s, ls->word, ls->len);
	tly_suggest_offer(&s, lower);
	if (s.best && s.best_distance < ls->best_distance) {
		ls->best_distance = s.best_distance;
		ls->best = candidate;
	}
}

/* The metric name or group closest to word, as the catalogue spells it (up to a ';' for a group), or NULL. */
static const char *closest(const char *word, size_t len)
{
	struct lower_suggest ls = { .len = len, .best_distance = (size_t)-1 };
	if (len >= sizeof(ls.word))
		return NULL;
	for (size_t k = 0; k < len; k++)
		ls.word[k] = (char)tolower((unsigned char)word[k]);
	for (size_t i = 0; i < tly_nr_metrics; i++) {
		const struct tly_metric *m = &tly_metrics[i];
		offer(&ls, m->name, strlen(m->name));
		for (const char *g = m->groups; *g;) {
			size_t l = strcspn(g, ";");
			offer(&ls, g, l);
			g += l + (g[l] == ';');
		}
	}
	return ls.best;
}

static int unknown(const char *name, size_t len)
{
	const char *best = closest(name, len);
	if (best)
		return tly_error(-ENOENT, "unknown metric or metric group '%.*s' — did you mean '%.*s'? (tally list --metrics "
		                          "lists them)", (int)len, name, (int)strcspn(best, ";"), best);
	return tly_error(-ENOENT, "unknown metric or metric group '%.*s' (tally list --metrics lists them)", (int)len,
	                 name);
}

int tally_metric_find(const char *name)
{
	if (!name)
		return tly_null_arg(__func__);
	long i = find_name(name, strlen(name));
	return i >= 0 ? (int)i : unknown(name, strlen(name));
}

int tly_metrics_select(const char *list, size_t *indices, size_t n)
{
	size_t count = 0;
	bool chosen[sizeof(tly_metrics) / sizeof(tly_metrics[0])] = { false };
	for (const char *p = list;;) {
		size_t len = strcspn(p, ",");
		const char *item = p;
		size_t item_len = len;
		while (item_len && isspace((unsigned char)*item))
			item++, item_len--;
		while (item_len && isspace((unsigned char)item[item_len - 1]))
			item_len--;
		if (item_len == 0)
			return tly_error(-EINVAL, "metric list '%s': an empty name", list);
		long i = find_name(item, item_len);
		bool any = false;
		for (size_t k = 0; k < tly_nr_metrics; k++) {
			if (!(i >= 0 ? (size_t)i == k : in_group(&tly_metrics[k], item, item_len)))
				continue;
			any = true;
			if (chosen[k])
				continue;
			chosen[k] = true;
			if (count < n)
				indices[count] = k;
			count++;
		}
		if (!any)
			return unknown(item, item_len);
		if (!p[len])
			break;
		p += len + 1;
	}
	return (int)count;
}

int tally_metrics_select(const char *list, size_t *indices, size_t n)
{
	if (!list || (!indices && n))
		return tly_null_arg(__func__);
	return tly_metrics_select(list, indices, n);
}

bool tly_metric_term_matches(const struct tly_metric_term *t, const struct tly_event *info)
{
	const struct perf_event_attr *a = &info->attr;
	switch (t->kind) {
	case TLY_METRIC_HW: return tly_counts_generic(info, PERF_TYPE_HARDWARE, t->config);
	case TLY_METRIC_CACHE: return tly_counts_generic(info, PERF_TYPE_HW_CACHE, t->config);
	case TLY_METRIC_SW: return a->type == PERF_TYPE_SOFTWARE && a->config == t->config;
	case TLY_METRIC_CORE: return a->type >= PERF_TYPE_RAW && a->config == t->config && tly_x86_core_pmu(info->pmu);
	}
	return false;
}

bool tly_metric_term_present(const tally_events *events, const struct tly_metric_term *t)
{
	size_t n = tally_events_count(events);
	for (size_t i = 0; i < n; i++) {
		if (tly_metric_term_matches(t, &events->v[i]))
			return true;
	}
	return false;
}
