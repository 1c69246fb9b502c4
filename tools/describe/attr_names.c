/* SPDX-License-Identifier: MIT */
#include "describe/attr_names.h"

#include <stdio.h>
#include <string.h>

/* The one-bit (and precise_ip's two-bit) fields, in the struct's order. */
#define ATTR_BITFIELDS(X)                                                                                \
	X(disabled) X(inherit) X(pinned) X(exclusive) X(exclude_user) X(exclude_kernel) X(exclude_hv)     \
	X(exclude_idle) X(mmap) X(comm) X(freq) X(inherit_stat) X(enable_on_exec) X(task) X(watermark)    \
	X(precise_ip) X(mmap_data) X(sample_id_all) X(exclude_host) X(exclude_guest)                      \
	X(exclude_callchain_kernel) X(exclude_callchain_user) X(mmap2) X(comm_exec) X(use_clockid)        \
	X(context_switch) X(write_backward) X(namespaces) X(ksymbol) X(bpf_event) X(aux_output) X(cgroup) \
	X(text_poke) X(build_id) X(inherit_thread) X(remove_on_exec) X(sigtrap)

/* Names by value, for the enums of <linux/perf_event.h>. */
#define NAME(x) [x] = #x
static const char *const type_names[] = {
	NAME(PERF_TYPE_HARDWARE), NAME(PERF_TYPE_SOFTWARE), NAME(PERF_TYPE_TRACEPOINT),
	NAME(PERF_TYPE_HW_CACHE), NAME(PERF_TYPE_RAW),      NAME(PERF_TYPE_BREAKPOINT),
};
static const char *const hw_names[] = {
	NAME(PERF_COUNT_HW_CPU_CYCLES),          NAME(PERF_COUNT_HW_INSTRUCTIONS),
	NAME(PERF_COUNT_HW_CACHE_REFERENCES),    NAME(PERF_COUNT_HW_CACHE_MISSES),
	NAME(PERF_COUNT_HW_BRANCH_INSTRUCTIONS), NAME(PERF_COUNT_HW_BRANCH_MISSES),
	NAME(PERF_COUNT_HW_BUS_CYCLES),          NAME(PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
	NAME(PERF_COUNT_HW_STALLED_CYCLES_BACKEND), NAME(PERF_COUNT_HW_REF_CPU_CYCLES),
};
static const char *const sw_names[] = {
	NAME(PERF_COUNT_SW_CPU_CLOCK),        NAME(PERF_COUNT_SW_TASK_CLOCK),
	NAME(PERF_COUNT_SW_PAGE_FAULTS),      NAME(PERF_COUNT_SW_CONTEXT_SWITCHES),
	NAME(PERF_COUNT_SW_CPU_MIGRATIONS),   NAME(PERF_COUNT_SW_PAGE_FAULTS_MIN),
	NAME(PERF_COUNT_SW_PAGE_FAULTS_MAJ),  NAME(PERF_COUNT_SW_ALIGNMENT_FAULTS),
	NAME(PERF_COUNT_SW_EMULATION_FAULTS), NAME(PERF_COUNT_SW_DUMMY),
	NAME(PERF_COUNT_SW_BPF_OUTPUT),       NAME(PERF_COUNT_SW_CGROUP_SWITCHES),
};
static const char *const cache_ids[] = {
	NAME(PERF_COUNT_HW_CACHE_L1D), NAME(PERF_COUNT_HW_CACHE_L1I), NAME(PERF_COUNT_HW_CACHE_LL),
	NAME(PERF_COUNT_HW_CACHE_DTLB), NAME(PERF_COUNT_HW_CACHE_ITLB), NAME(PERF_COUNT_HW_CACHE_BPU),
	NAME(PERF_COUNT_HW_CACHE_NODE),
};
static const char *const cache_ops[] = {
	NAME(PERF_COUNT_HW_CACHE_OP_READ), NAME(PERF_COUNT_HW_CACHE_OP_WRITE),
	NAME(PERF_COUNT_HW_CACHE_OP_PREFETCH),
};
static const char *const cache_results[] = {
	NAME(PERF_COUNT_HW_CACHE_RESULT_ACCESS), NAME(PERF_COUNT_HW_CACHE_RESULT_MISS),
};
static const char *const read_format_bits[] = {
	"PERF_FORMAT_TOTAL_TIME_ENABLED", "PERF_FORMAT_TOTAL_TIME_RUNNING", "PERF_FORMAT_ID",
	"PERF_FORMAT_GROUP", "PERF_FORMAT_LOST",
};
/* <linux/hw_breakpoint.h>: bp_type is a mask of R, W and X; perf's mem:ADDR:rw is HW_BREAKPOINT_RW. */
static const char *const bp_types[] = {
	[1] = "HW_BREAKPOINT_R", [2] = "HW_BREAKPOINT_W", [3] = "HW_BREAKPOINT_RW", [4] = "HW_BREAKPOINT_X",
};
#undef NAME
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(const char *const *names, size_t n, uint64_t v)
{
	return v < n && names[v] ? names[v] : NULL;
}

/* A generic hardware or cache event's config: the event in the low 32 bits and, on a hybrid machine, the
 * PMU's type above PERF_PMU_TYPE_SHIFT (Linux 5.13). */
static void generic_config(struct attr_field *f, uint32_t type)
{
	uint64_t v = f->value & PERF_HW_EVENT_MASK;
	char event[128] = "";
	const char *name = type == PERF_TYPE_HARDWARE ? lookup(hw_names, COUNT(hw_names), v) : NULL;
	if (name) {
		snprintf(event, sizeof(event), "%s", name);
	} else if (type == PERF_TYPE_HW_CACHE && v >> 24 == 0) {
		const char *id = lookup(cache_ids, COUNT(cache_ids), v & 0xff);
		const char *op = lookup(cache_ops, COUNT(cache_ops), (v >> 8) & 0xff);
		const char *result = lookup(cache_results, COUNT(cache_results), (v >> 16) & 0xff);
		if (id && op && result)
			snprintf(event, sizeof(event), "%s | (%s << 8) | (%s << 16)", id, op, result);
	}
	if (!event[0])
		return;
	uint64_t pmu = f->value >> PERF_PMU_TYPE_SHIFT;
	if (pmu)
		snprintf(f->symbol, sizeof(f->symbol), "(%lluULL << PERF_PMU_TYPE_SHIFT) | %s", (unsigned long long)pmu,
		         event);
	else
		snprintf(f->symbol, sizeof(f->symbol), "%s", event);
}

/* A mask of read_format bits, each named; "" when a bit has no name. */
static void read_format_symbol(struct attr_field *f)
{
	if (f->value >> COUNT(read_format_bits))
		return;
	size_t used = 0;
	for (size_t b = 0; b < COUNT(read_format_bits); b++)
		if (f->value & (1ULL << b))
			used += (size_t)snprintf(f->symbol + used, sizeof(f->symbol) - used, "%s%s", used ? " | " : "",
			                         read_format_bits[b]);
}

static void field_symbol(struct attr_field *f, const struct perf_event_attr *a)
{
	const char *name = NULL;
	if (strcmp(f->name, "type") == 0) {
		name = lookup(type_names, COUNT(type_names), f->value);
	} else if (strcmp(f->name, "size") == 0) {
		name = f->value == sizeof(*a) ? "sizeof(struct perf_event_attr)" : NULL;
	} else if (strcmp(f->name, "config") == 0) {
		if (a->type == PERF_TYPE_SOFTWARE)
			name = lookup(sw_names, COUNT(sw_names), f->value);
		else if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE)
			generic_config(f, a->type);
	} else if (strcmp(f->name, "read_format") == 0) {
		read_format_symbol(f);
	} else if (strcmp(f->name, "bp_type") == 0) {
		name = lookup(bp_types, COUNT(bp_types), f->value);
		f->needs_hw_breakpoint_h = name != NULL;
	} else if (strcmp(f->name, "bp_len") == 0 && f->value >= 1 && f->value <= 8) {
		snprintf(f->symbol, sizeof(f->symbol), "HW_BREAKPOINT_LEN_%llu", (unsigned long long)f->value);
		f->needs_hw_breakpoint_h = true;
	}
	if (name)
		snprintf(f->symbol, sizeof(f->symbol), "%s", name);
}

/* Every field that is not zero; type, size and config always, so that cycles (type 0, config 0) reads
 * as what it is rather than as an attr left empty. */
static void emit(const struct perf_event_attr *a, const char *name, uint64_t value, bool hex,
                 void (*fn)(const struct attr_field *, void *), void *arg)
{
	bool always = strcmp(name, "type") == 0 || strcmp(name, "size") == 0 || strcmp(name, "config") == 0;
	if (!value && !always)
		return;
	struct attr_field f = { .name = name, .value = value, .hex = hex };
	field_symbol(&f, a);
	fn(&f, arg);
}

void attr_fields_each(const struct perf_event_attr *a, void (*fn)(const struct attr_field *field, void *arg),
                      void *arg)
{
	/* The unions are named by the member the other fields select: a breakpoint's bp_addr and bp_len
	 * are config1 and config2 of every other type, freq picks sample_freq, watermark wakeup_watermark. */
	bool bp = a->type == PERF_TYPE_BREAKPOINT;
	emit(a, "type", a->type, false, fn, arg);
	emit(a, "size", a->size, false, fn, arg);
	emit(a, "config", a->config, true, fn, arg);
	emit(a, a->freq ? "sample_freq" : "sample_period", a->sample_period, false, fn, arg);
	emit(a, "sample_type", a->sample_type, true, fn, arg);
	emit(a, "read_format", a->read_format, true, fn, arg);
#define EMIT_BIT(field) emit(a, #field, a->field, false, fn, arg);
	ATTR_BITFIELDS(EMIT_BIT)
#undef EMIT_BIT
	emit(a, a->watermark ? "wakeup_watermark" : "wakeup_events", a->wakeup_events, false, fn, arg);
	emit(a, "bp_type", a->bp_type, true, fn, arg);
	emit(a, bp ? "bp_addr" : "config1", a->config1, true, fn, arg);
	emit(a, bp ? "bp_len" : "config2", a->config2, !bp, fn, arg);
	emit(a, "branch_sample_type", a->branch_sample_type, true, fn, arg);
	emit(a, "sample_regs_user", a->sample_regs_user, true, fn, arg);
	emit(a, "sample_stack_user", a->sample_stack_user, false, fn, arg);
	if (a->clockid) {
		struct attr_field f = { .name = "clockid", .value = (uint64_t)(int64_t)a->clockid, .is_signed = true };
		fn(&f, arg);
	}
	emit(a, "sample_regs_intr", a->sample_regs_intr, true, fn, arg);
	emit(a, "aux_watermark", a->aux_watermark, false, fn, arg);
	emit(a, "sample_max_stack", a->sample_max_stack, false, fn, arg);
	emit(a, "aux_sample_size", a->aux_sample_size, false, fn, arg);
	emit(a, "sig_data", a->sig_data, true, fn, arg);
#ifdef PERF_ATTR_SIZE_VER8
	/* Linux 6.3's config3 (headers before it have no such field). */
	emit(a, "config3", a->config3, true, fn, arg);
#endif
}
