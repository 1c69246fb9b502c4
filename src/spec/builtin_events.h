/* SPDX-License-Identifier: MIT */
/* The event names tally knows without sysfs: generic hardware, software and hardware cache events. */
#ifndef TLY_BUILTIN_EVENTS_H
#define TLY_BUILTIN_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/events.h>

/* perf's tool events, named here and counted by the evsel layer (evsel/tool_events.h); perf's enum
 * perf_tool_event order (tools/perf/util/evsel.h, 6.1). */
enum tly_tool_kind {
	TLY_TOOL_NONE,
	TLY_TOOL_DURATION_TIME,
	TLY_TOOL_USER_TIME,
	TLY_TOOL_SYSTEM_TIME,
};

struct tly_builtin {
	const char *name;
	const char *alias;  /* another accepted spelling, or NULL */
	enum tally_builtin_kind kind;
	uint32_t type;
	uint64_t config;
	enum tly_tool_kind tool;  /* a tool event's kind (TALLY_BUILTIN_TOOL), else TLY_TOOL_NONE */
};

/* Every builtin event, the hardware cache ones under their perf-list spellings. */
size_t tly_builtin_nr(void);
const struct tly_builtin *tly_builtin_get(size_t i);

/* A generic hardware or software event by exact name or alias; NULL when name is neither. Cache events
 * are not matched here: perf spells them flexibly, see tly_cache_parse(). */
const struct tly_builtin *tly_builtin_find(const char *name, size_t len);

/* A hardware cache event name, split the way perf reads "<cache>[-<op>][-<result>]". */
struct tly_cache_name {
	unsigned cache;   /* PERF_COUNT_HW_CACHE_L1D ... */
	unsigned op;      /* PERF_COUNT_HW_CACHE_OP_READ ... */
	unsigned result;  /* PERF_COUNT_HW_CACHE_RESULT_ACCESS ... */
};

enum tly_cache_parse_result {
	TLY_CACHE_NOT_CACHE,  /* the name does not start with a cache name: try other kinds */
	TLY_CACHE_OK,
	TLY_CACHE_BAD_PART,   /* a cache name with a suffix that is no operation or result (or repeats one) */
	TLY_CACHE_BAD_OP,     /* a valid spelling of a combination the kernel does not define (iTLB stores) */
};

/* Parses perf's cache spellings: "L1-dcache-load-misses", "LLC-prefetches", "dTLB-loads", "l1d-miss"
 * (operation defaults to load, result to access). */
enum tly_cache_parse_result tly_cache_parse(const char *name, size_t len, struct tly_cache_name *out);

/* The perf_event_attr.config of a cache event: cache | op << 8 | result << 16. */
uint64_t tly_cache_config(const struct tly_cache_name *c);

/* Names of the parts, for messages: "L1-dcache", "load", "misses"; and the operations a cache has, as
 * text ("loads, stores, prefetches"). */
const char *tly_cache_type_name(unsigned cache);
const char *tly_cache_op_name(unsigned op);
const char *tly_cache_valid_ops(unsigned cache);

#endif
