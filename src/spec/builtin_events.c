/* SPDX-License-Identifier: MIT */
/* The generic hardware, software and hardware cache events of include/uapi/linux/perf_event.h, under the
 * names perf gives them (tools/perf/util/parse-events.c, evsel.c), so that specs move between the tools. */
#include "spec/builtin_events.h"

#include <string.h>

#define HW(n, a, c) { n, a, TALLY_BUILTIN_HARDWARE, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, TLY_TOOL_NONE }
#define SW(n, a, c) { n, a, TALLY_BUILTIN_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, TLY_TOOL_NONE }
/* perf 6.1 (parse-events.c, add_event_tool) gives a tool event the software dummy's attr. */
#define TOOL(n, k) { n, NULL, TALLY_BUILTIN_TOOL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, TLY_TOOL_##k }

#define CACHE_CONFIG(cache, op, result)                                                            \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 |                          \
	 (uint64_t)PERF_COUNT_HW_CACHE_RESULT_##result << 16)
#define CACHE(n, cache, op, result)                                                                \
	{ n, NULL, TALLY_BUILTIN_CACHE, PERF_TYPE_HW_CACHE, CACHE_CONFIG(cache, op, result), TLY_TOOL_NONE }
/* One operation of one cache: its accesses and its misses, spelled as `perf list` shows them. */
#define CACHE_OP(prefix, cache, plural, singular, op)                                              \
	CACHE(prefix "-" plural, cache, op, ACCESS), CACHE(prefix "-" singular "-misses", cache, op, MISS)

static const struct tly_builtin builtins[] = {
	HW("cycles", "cpu-cycles", CPU_CYCLES),
	HW("instructions", NULL, INSTRUCTIONS),
	HW("cache-references", NULL, CACHE_REFERENCES),
	HW("cache-misses", NULL, CACHE_MISSES),
	HW("branch-instructions", "branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", NULL, BRANCH_MISSES),
	HW("bus-cycles", NULL, BUS_CYCLES),
	HW("stalled-cycles-frontend", "idle-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", "idle-cycles-backend", STALLED_CYCLES_BACKEND),
	HW("ref-cycles", NULL, REF_CPU_CYCLES),

	SW("cpu-clock", NULL, CPU_CLOCK),
	SW("task-clock", NULL, TASK_CLOCK),
	SW("page-faults", "faults", PAGE_FAULTS),
	SW("context-switches", "cs", CONTEXT_SWITCHES),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS),
	SW("minor-faults", NULL, PAGE_FAULTS_MIN),
	SW("major-faults", NULL, PAGE_FAULTS_MAJ),
	SW("alignment-faults", NULL, ALIGNMENT_FAULTS),
	SW("emulation-faults", NULL, EMULATION_FAULTS),
	SW("dummy", NULL, DUMMY),
	SW("bpf-output", NULL, BPF_OUTPUT),
	SW("cgroup-switches", NULL, CGROUP_SWITCHES),

	/* After "dummy", which keeps the name of the attr they share. */
	TOOL("duration_time", DURATION_TIME),
	TOOL("user_time", USER_TIME),
	TOOL("system_time", SYSTEM_TIME),

	/* Only the operations perf's evsel__hw_cache_stat table allows for each cache: the kernel's
	 * generic cache maps define no instruction-cache stores, and no TLB/branch-unit stores or
	 * prefetches for iTLB and the branch unit. */
	CACHE_OP("L1-dcache", L1D, "loads", "load", READ),
	CACHE_OP("L1-dcache", L1D, "stores", "store", WRITE),
	CACHE_OP("L1-dcache", L1D, "prefetches", "prefetch", PREFETCH),
	CACHE_OP("L1-icache", L1I, "loads", "load", READ),
	CACHE_OP("L1-icache", L1I, "prefetches", "prefetch", PREFETCH),
	CACHE_OP("LLC", LL, "loads", "load", READ),
	CACHE_OP("LLC", LL, "stores", "store", WRITE),
	CACHE_OP("LLC", LL, "prefetches", "prefetch", PREFETCH),
	CACHE_OP("dTLB", DTLB, "loads", "load", READ),
	CACHE_OP("dTLB", DTLB, "stores", "store", WRITE),
	CACHE_OP("dTLB", DTLB, "prefetches", "prefetch", PREFETCH),
	CACHE_OP("iTLB", ITLB, "loads", "load", READ),
	CACHE_OP("branch", BPU, "loads", "load", READ),
	CACHE_OP("node", NODE, "loads", "load", READ),
	CACHE_OP("node", NODE, "stores", "store", WRITE),
	CACHE_OP("node", NODE, "prefetches", "prefetch", PREFETCH),
};

size_t tly_builtin_nr(void)
{
	return sizeof(builtins) / sizeof(builtins[0]);
}

const struct tly_builtin *tly_builtin_get(size_t i)
{
	return i < tly_builtin_nr() ? &builtins[i] : NULL;
}

static bool same(const char *name, size_t len, const char *known)
{
	return known && strlen(known) == len && memcmp(name, known, len) == 0;
}

const struct tly_builtin *tly_builtin_find(const char *name, size_t len)
{
	for (size_t i = 0; i < tly_builtin_nr(); i++) {
		const struct tly_builtin *b = &builtins[i];
		if (b->kind != TALLY_BUILTIN_CACHE && (same(name, len, b->name) || same(name, len, b->alias)))
			return b;
	}
	return NULL;
}

/* perf's spellings of each part (evsel__hw_cache, _op, _result); the first is the one messages use. */
#define MAX_SPELLINGS 5
static const char *const cache_spellings[PERF_COUNT_HW_CACHE_MAX][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};
static const char *const op_spellings[PERF_COUNT_HW_CACHE_OP_MAX][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const result_spellings[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_SPELLINGS] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

#define OP_BIT(op) (1u << PERF_COUNT_HW_CACHE_OP_##op)
static const unsigned valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP_BIT(READ) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
};

/* Index of the longest spelling in table that text[0..len) starts with, followed by '-' or the end;
 * its length goes to *used. -1 when none does. */
static int match_part(const char *text, size_t len, const char *const table[][MAX_SPELLINGS], unsigned rows,
                      size_t *used)
{
	int best = -1;
	size_t best_len = 0;
	for (unsigned i = 0; i < rows; i++) {
		for (unsigned j = 0; j < MAX_SPELLINGS && table[i][j]; j++) {
			size_t n = strlen(table[i][j]);
			if (n > best_len && n <= len && memcmp(text, table[i][j], n) == 0 &&
			    (n == len || text[n] == '-')) {
				best = (int)i;
				best_len = n;
			}
		}
	}
	*used = best_len;
	return best;
}

enum tly_cache_parse_result tly_cache_parse(const char *name, size_t len, struct tly_cache_name *out)
{
	size_t used;
	int cache = match_part(name, len, cache_spellings, PERF_COUNT_HW_CACHE_MAX, &used);
	if (cache < 0)
		return TLY_CACHE_NOT_CACHE;
	int op = -1, result = -1;
	size_t pos = used;
	/* Up to two suffixes, operation and result, in either order (perf accepts "L1-dcache-misses-load"). */
	while (pos < len) {
		pos++; /* the '-' */
		int part;
		if (op < 0 && (part = match_part(name + pos, len - pos, op_spellings, PERF_COUNT_HW_CACHE_OP_MAX,
		                                 &used)) >= 0) {
			op = part;
		} else if (result < 0 && (part = match_part(name + pos, len - pos, result_spellings,
		                                            PERF_COUNT_HW_CACHE_RESULT_MAX, &used)) >= 0) {
			result = part;
		} else {
			return TLY_CACHE_BAD_PART;
		}
		pos += used;
	}
	out->cache = (unsigned)cache;
	out->op = op < 0 ? PERF_COUNT_HW_CACHE_OP_READ : (unsigned)op;
	out->result = result < 0 ? PERF_COUNT_HW_CACHE_RESULT_ACCESS : (unsigned)result;
	return valid_ops[cache] & 1u << out->op ? TLY_CACHE_OK : TLY_CACHE_BAD_OP;
}

uint64_t tly_cache_config(const struct tly_cache_name *c)
{
	return c->cache | c->op << 8 | (uint64_t)c->result << 16;
}

const char *tly_cache_type_name(unsigned cache)
{
	return cache < PERF_COUNT_HW_CACHE_MAX ? cache_spellings[cache][0] : "?";
}

const char *tly_cache_op_name(unsigned op)
{
	return op < PERF_COUNT_HW_CACHE_OP_MAX ? op_spellings[op][0] : "?";
}

const char *tly_cache_valid_ops(unsigned cache)
{
	switch (cache < PERF_COUNT_HW_CACHE_MAX ? valid_ops[cache] : 0) {
	case OP_BIT(READ):
		return "loads";
	case OP_BIT(READ) | OP_BIT(PREFETCH):
		return "loads, prefetches";
	default:
		return "loads, stores, prefetches";
	}
}
