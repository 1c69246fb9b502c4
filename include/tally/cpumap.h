/* SPDX-License-Identifier: MIT */
/*
 * tally: CPU maps, the CPUs an event is opened on (or the "any CPU" dummy, -1), and the CPU facts that go
 * with them (online CPUs, topology). Part of the lower layer (see tally/evlist.h). Maps are immutable once
 * made: any number of threads may query one concurrently.
 */
#ifndef TALLY_CPUMAP_H
#define TALLY_CPUMAP_H

#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_cpus tally_cpus;

/* ---- CPU maps ------------------------------------------------------------------------------------ */
/* Thread-safety: every function below is thread-safe; a map never changes once made (free it once). */

/* Parses a CPU list as sysfs writes them: "0-3,8,10-11" (ranges, single CPUs, commas; white space around
 * items allowed). The result is sorted with duplicates removed. "" or a malformed list: -EINVAL. */
TALLY_API int tally_cpus_parse(const char *list, tally_cpus **out);

/* All online CPUs, from <sysfs_root>/devices/system/cpu/online. sysfs_root NULL means $TALLY_SYSFS_ROOT
 * when set, else "/sys". */
TALLY_API int tally_cpus_online(const char *sysfs_root, tally_cpus **out);

/* Where a CPU sits, for per-core and per-socket aggregation: from
 * <sysfs_root>/devices/system/cpu/cpu<N>/topology/{physical_package_id,die_id,core_id} (sysfs_root as for
 * tally_cpus_online). die is -1 where the kernel has no die_id (before 5.2). A CPU without topology
 * files: the read's negative errno (-ENOENT). */
struct tally_cpu_topology {
	size_t sz;
	int package;
	int die;
	int core;
	int node; /* (0.4) its NUMA node (the cpu<N>/node<M> link); 0 on a kernel without NUMA: one node */
};
#define tally_cpu_topology__last_field node
TALLY_API int tally_cpu_topology(const char *sysfs_root, int cpu, struct tally_cpu_topology *out);

/* (0.4) The id of the data or unified cache of `level` (1 to 4) that CPU cpu uses, from
 * <sysfs_root>/devices/system/cpu/cpu<N>/cache/index<K>/{level,type,id}: the CPUs that share a cache share
 * its id (perf stat --per-cache). level 0: the highest level the CPU has; *level_out (optional) receives
 * the level looked up. -ENOENT when the CPU has no such cache (or the kernel no id file, before 5.0), with
 * a last-error text; -EINVAL for a bad level or cpu. Thread-safe. */
TALLY_API int tally_cpu_cache_id(const char *sysfs_root, int cpu, int level, int *id, int *level_out);

/* The dummy map {-1}: events open on "any CPU" and follow their threads. */
TALLY_API int tally_cpus_any(tally_cpus **out);

/* The CPUs of `cpus` that a PMU's cpumask text (its sysfs `cpumask` file, a CPU list) names: uncore-style
 * PMUs count only there. The dummy map intersected with a mask gives the mask. An empty result is
 * -ENODEV (none of the requested CPUs can count this PMU). */
TALLY_API int tally_cpus_intersect_mask(const tally_cpus *cpus, const char *cpumask, tally_cpus **out);

/* The CPUs of `cpus` that are not in `minus` (both real maps, not the dummy), as a new map in *out, which
 * may be empty: "which CPUs of a -C list are not online here" is the difference with tally_cpus_online().
 * -EINVAL for a NULL or dummy argument. Thread-safe. (0.4) */
TALLY_API int tally_cpus_subtract(const tally_cpus *cpus, const tally_cpus *minus, tally_cpus **out);

/* (0.5) 0 when every CPU of `cpus` is online (<sysfs_root>/devices/system/cpu/online, sysfs_root as for
 * tally_cpus_online; the dummy map always is), else -ENODEV with the text "not online here (absent or
 * offline): 2-7; the online CPUs are 0-1": an event cannot be opened on such a CPU, and the kernel's
 * answer (ENODEV or EINVAL) would read as a bad encoding. tally_counter_open checks a target's CPU list
 * so. Thread-safe. */
TALLY_API int tally_cpus_check_online(const char *sysfs_root, const tally_cpus *cpus);

/* The map as perf writes a CPU list, ranges joined ("0-3,8"; "-1" for the dummy map, "" for an empty one),
 * into buf, cut to fit and terminated when len > 0. Returns the length of the whole text (snprintf's
 * rule: a result of len or more means it was cut). Thread-safe. (0.4) */
TALLY_API int tally_cpus_format(const tally_cpus *cpus, char *buf, size_t len);

/* Number of entries (1 for the dummy map). NULL counts as the dummy map. */
TALLY_API size_t tally_cpus_count(const tally_cpus *cpus);

/* The CPU number at index i, or -1 for the dummy map. i must be below tally_cpus_count(); beyond it, -1. */
TALLY_API int tally_cpus_at(const tally_cpus *cpus, size_t i);

/* The index of CPU `cpu` in the map, or -ENOENT. */
TALLY_API int tally_cpus_index(const tally_cpus *cpus, int cpu);

TALLY_API void tally_cpus_free(tally_cpus *cpus);

#ifdef __cplusplus
}
#endif
#endif
