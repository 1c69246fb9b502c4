/* SPDX-License-Identifier: MIT */
/*
 * tally: the PMUs of this machine, as sysfs describes them under /sys/bus/event_source/devices.
 *
 * A tally_pmus is a snapshot taken once (tally_pmus_load); everything returned from it stays valid until
 * tally_pmus_free(). Any number of threads may query a snapshot concurrently: a PMU's files are read on
 * first use, once, under the snapshot's lock.
 */
#ifndef TALLY_PMU_H
#define TALLY_PMU_H

#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_pmus tally_pmus;
typedef struct tally_pmu tally_pmu;

struct tally_pmus_opts {
	size_t sz;
	/* Root of the sysfs tree: NULL means $TALLY_SYSFS_ROOT when set, else "/sys". Tests point this at a
	 * fixture tree holding bus/event_source/devices/... */
	const char *sysfs_root;
};
#define tally_pmus_opts__last_field sysfs_root

/* Lists the PMUs under <root>/bus/event_source/devices; each PMU's files are read when first asked for.
 * A PMU whose files cannot be interpreted fails each use of it (tally_pmu_get_info, tally_pmu_*_at, a
 * spec naming it) with TALLY_ESYSFS and a message naming the file; tally_pmus_core_count counts it as no
 * core PMU. */
TALLY_API int tally_pmus_load(const struct tally_pmus_opts *opts, tally_pmus **out);
TALLY_API void tally_pmus_free(tally_pmus *pmus);

TALLY_API size_t tally_pmus_count(const tally_pmus *pmus);
/* PMUs are sorted by name. NULL when i is out of range. */
TALLY_API const tally_pmu *tally_pmus_at(const tally_pmus *pmus, size_t i);
TALLY_API const tally_pmu *tally_pmus_find(const tally_pmus *pmus, const char *name);
/* Number of core (CPU) PMUs: 0 in a VM without a virtual PMU, 1 on most machines, 2+ on hybrid x86
 * (cpu_core + cpu_atom) and heterogeneous arm64 (one PMU per cluster). */
TALLY_API size_t tally_pmus_core_count(const tally_pmus *pmus);

struct tally_pmu_info {
	size_t sz;
	const char *name;      /* directory name: "cpu", "cpu_core", "armv8_pmuv3_0", "software", ... */
	uint32_t type;         /* the `type` file: perf_event_attr.type for this PMU */
	bool is_core;          /* counts CPU events (has `cpus`, or is the classic "cpu" PMU) */
	const char *cpus;      /* the `cpus` list (core PMUs of hybrid machines) or NULL */
	const char *cpumask;   /* the `cpumask` list (uncore-style PMUs) or NULL */
	size_t nr_formats;     /* files under format/ */
	size_t nr_aliases;     /* event files under events/ (not counting .scale/.unit/...) */
	size_t nr_caps;        /* files under caps/ */
};
#define tally_pmu_info__last_field nr_caps
TALLY_API int tally_pmu_get_info(const tally_pmu *pmu, struct tally_pmu_info *info);

/* One format/ file, e.g. umask = "config:8-15" or a split field "config:0-7,32-35". */
struct tally_format_info {
	size_t sz;
	const char *name;
	const char *text;      /* the file's content, trimmed */
	unsigned field;        /* 0: config, 1: config1, 2: config2 */
	uint64_t mask;         /* bits of that field the term fills (non-contiguous for split ranges) */
	unsigned width;        /* number of bits in mask: the widest value the term takes */
};
#define tally_format_info__last_field width
TALLY_API int tally_pmu_format_at(const tally_pmu *pmu, size_t i, struct tally_format_info *info);

/* One events/ alias, e.g. topdown-retiring = "event=0x00,umask=0x80", with its companion files. */
struct tally_alias_info {
	size_t sz;
	const char *name;
	const char *terms;     /* the file's content, trimmed */
	const char *unit;      /* <name>.unit or NULL */
	double scale;          /* <name>.scale, 1.0 when absent */
	bool per_pkg;          /* <name>.per-pkg says 1 */
	bool snapshot;         /* <name>.snapshot says 1 */
};
#define tally_alias_info__last_field snapshot
TALLY_API int tally_pmu_alias_at(const tally_pmu *pmu, size_t i, struct tally_alias_info *info);

/* One caps/ file: name and trimmed content (e.g. "max_precise" = "3", "pmu_name" = "alderlake_hybrid"). */
TALLY_API int tally_pmu_cap_at(const tally_pmu *pmu, size_t i, const char **name, const char **value);

/* (0.5) The vendor event table of a PMU: perf's pmu-events data for the CPU model of the PMU's CPUs
 * (x86: the cpuid's vendor-family-model-stepping; arm64: the MIDR of the PMU's first CPU; TALLY_CPUID
 * overrides, in perf's PERF_CPUID format), read from the data folder ($TALLY_PMU_EVENTS, else the one
 * installed beside tally) the first time it is asked for. A system PMU (an SoC's DDR controller, Arm's
 * CMN) whose sysfs `identifier` a system table names takes that table instead, whatever the CPU. Its
 * events are names specs take like sysfs events (libtally(3), tally-events(7)). */
struct tally_pmu_table_info {
	size_t sz;
	const char *model;     /* the table's model: "skylakex", "arm-cortex-a53", "arm-cmn-sys" */
	const char *version;   /* the upstream version of the model's data: "v1.33"; "sys" for a system
	                        * PMU's table (upstream versions none) */
	const char *path;      /* the data file read */
	size_t nr_events;      /* this PMU's events in it, deprecated ones included */
};
#define tally_pmu_table_info__last_field nr_events
/* Fills info. Returns 0; -ENOENT when the PMU takes no vendor table's events (software PMUs) or this
 * CPU has none, with tally_last_error() saying which (no model for the CPU id, the data folder missing);
 * -EBADMSG for a corrupt data file. */
TALLY_API int tally_pmu_table_get(const tally_pmu *pmu, struct tally_pmu_table_info *info);

/* (0.5) One event of a PMU's vendor table, with perf's JSON fields. */
struct tally_table_event_info {
	size_t sz;
	const char *name;      /* lower-case, as perf lists it: "mem_load_retired.l3_miss" */
	const char *terms;     /* the PMU's format terms: "event=0xd1,umask=0x20" */
	const char *topic;     /* the upstream file's topic: "cache", "pipeline", "uncore memory" */
	const char *desc;      /* BriefDescription as perf 6.1 lists it (its jevents' notes appended:
	                        * ". Unit: uncore_imc", " (Precise event)", "  Spec update: ..."), "" when none */
	const char *long_desc; /* PublicDescription so (without the Unit), else the brief one */
	const char *unit;      /* from ScaleUnit, or NULL */
	double scale;          /* from ScaleUnit, 1.0 when none */
	const char *counter;   /* Counter: the counters it may use ("0,1,2,3", "Fixed counter 0"), or "" */
	bool deprecated;       /* Deprecated: hidden by tally list unless asked for */
	bool per_pkg;          /* PerPkg: one count per package */
	bool experimental;     /* Experimental */
};
#define tally_table_event_info__last_field experimental
/* Fills info for the PMU's i-th table event (name order, 0 <= i < nr_events). The strings stay valid
 * until tally_pmus_free(). Returns 0, -ERANGE past the end, or tally_pmu_table_get's errors. */
TALLY_API int tally_pmu_table_event_at(const tally_pmu *pmu, size_t i, struct tally_table_event_info *info);

#ifdef __cplusplus
}
#endif
#endif
