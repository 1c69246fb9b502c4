/* SPDX-License-Identifier: MIT */
/*
 * tally: event specifications, as perf writes them, turned into perf_event_attr values.
 *
 *   cycles,instructions:u            generic hardware events with modifiers
 *   task-clock,page-faults           software events
 *   L1-dcache-load-misses            hardware cache events
 *   r01c2                            raw codes for the core PMU
 *   cpu/event=0x3c,umask=0,name=x/   terms through the PMU's sysfs format/
 *   cpu/topdown-retiring/            sysfs aliases (also bare: topdown-retiring)
 *   {cycles,instructions}:u          a group; modifiers after the brace apply to every member
 *   pfm:: names                      PMU::EVENT:UMASK through libpfm4, when built with it
 *   sched:sched_switch, sched:*      tracepoints from tracefs (globs expand to every match)
 *   mem:0x1000/8:w                   hardware breakpoints: mem:ADDR[/LEN][:rwx]
 *
 * Parsing reads nothing but the PMU snapshot it is given; the resulting list is read-only and may be
 * queried from several threads at once.
 */
#ifndef TALLY_EVENTS_H
#define TALLY_EVENTS_H

#include <linux/perf_event.h>
#include <tally/common.h>
#include <tally/pmu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_events tally_events;

/* (0.4) Where every event of a list counts, over what its own modifiers say: perf stat's --all-user and
 * --all-kernel. */
enum tally_space {
	TALLY_SPACE_AS_WRITTEN, /* as each event's modifiers say (the default) */
	TALLY_SPACE_USER,       /* user space only: exclude_kernel set, exclude_user cleared */
	TALLY_SPACE_KERNEL,     /* kernel space only: exclude_user set, exclude_kernel cleared */
};

struct tally_parse_opts {
	size_t sz;
	/* PMUs to resolve names against; NULL loads them from sysfs_root (see tally_pmus_opts). The list
	 * keeps no pointer into a caller's snapshot beyond its own lifetime: it copies what it needs. */
	const tally_pmus *pmus;
	const char *sysfs_root;
	/* On a rejected spec: receives the byte offset of the bad character (optional). */
	size_t *error_offset;
	/* (0.4) Every event counted in user or kernel space only, whatever its modifiers (other bits, such as
	 * exclude_hv of ":u", stay as they are, as perf sets them); names stay as written, canonical texts
	 * carry the modifiers that give the bits. */
	enum tally_space space;
};
#define tally_parse_opts__last_field space

/* Parses a comma-separated spec. On failure returns -TALLY_ESPEC (or -ENOMEM, -TALLY_ENOPFM, ...) and
 * tally_last_error() holds the message: the spec, a caret under the bad character, and what was
 * expected or the closest known names; *out is then NULL. The attrs carry the bits `perf stat` would
 * set for the same spec (exclude_guest on events without modifiers included). On a hybrid machine a
 * group whose members expand over several core PMUs becomes one group per core PMU (a kernel group
 * cannot span PMUs). Thread-safe: reentrant, no shared state; several threads may parse at once, also
 * against one snapshot. */
TALLY_API int tally_events_parse(const char *spec, const struct tally_parse_opts *opts, tally_events **out);
/* Frees a list (NULL is fine). Not while other threads still query it. */
TALLY_API void tally_events_free(tally_events *events);

/* Number of attrs: a generic event on a hybrid machine counts once per core PMU. Thread-safe. */
TALLY_API size_t tally_events_count(const tally_events *events);

struct tally_event_info {
	size_t sz;
	const char *name;       /* display name: the spec item as written, or the name= term; hybrid
	                         * expansions get the PMU: "cycles" -> "cpu_core/cycles/", "cpu_atom/cycles/" */
	const char *canonical;  /* normalized spec text that parses back to the same attr */
	const char *pmu;        /* PMU name ("cpu", "software", "cpu_atom", ...); NULL for a type with none */
	const struct perf_event_attr *attr; /* type, config, config1, config2, exclude_*, pinned, precise_ip */
	int group;              /* index of the {...} group this event belongs to, -1 when outside braces */
	bool leader;            /* first member of its group */
	unsigned origin;        /* index of the spec item it came from; hybrid expansions and the instances
	                         * of a PMU family (uncore_imc/x/ on uncore_imc_0, _1, ...) share one origin */
	unsigned nr_origins;    /* how many attrs share this origin (1 unless expanded per core PMU or
	                         * per instance of a PMU family) */
	const char *unit;       /* from a sysfs alias's .unit or a vendor event's ScaleUnit, else NULL */
	double scale;           /* from a sysfs alias's .scale or a vendor event's ScaleUnit, else 1.0 */
	bool family;            /* (0.3) one instance of a PMU family (uncore_imc_N/cas_count_read/): the
	                         * events of its origin are one event to a user, to be summed (perf merges
	                         * them) */
	bool per_core_pmu;      /* (0.4) one of the attrs a generic event, raw code or core PMU alias became
	                         * on each core PMU of a hybrid machine (cpu_core/cycles/, cpu_atom/cycles/;
	                         * arm64 clusters armv8_cortex_a53/cycles/, ...): each counts on its own PMU's
	                         * CPUs, so the events of its origin sum to the whole, as a family's do */
	const char *origin_name; /* (0.4) the name of the spec item the event came from, shared by every
	                         * event of its origin: "cycles" for cpu_core/cycles/ and cpu_atom/cycles/
	                         * (the name= term where there is one); the display name where the item
	                         * became one event or a family's instances */
};
#define tally_event_info__last_field origin_name
/* Fills info (declared with TALLY_OPTS) for attr i; the pointers stay valid until tally_events_free().
 * -ERANGE past the end. Thread-safe. */
TALLY_API int tally_events_at(const tally_events *events, size_t i, struct tally_event_info *info);

/* Writes the encoding of event i as one line of text, e.g. for "r1c2:u"
 * "type=4,config=0x1c2,config1=0,config2=0,exclude_kernel=1,exclude_hv=1,exclude_guest=1" (only set
 * exclude_*, pinned, exclusive and precise_ip bits are listed, and a breakpoint's bp_type; its bp_addr
 * and bp_len are config1 and config2). The bits are those `perf stat` sets for the same spec, including
 * exclude_guest on an event without modifiers. Returns the length it needed
 * (snprintf semantics) or a negative code. Thread-safe. */
TALLY_API int tally_events_encoding(const tally_events *events, size_t i, char *buf, size_t len);

/* The names tally knows without sysfs (generic hardware, software, hardware cache, and perf's tool events
 * duration_time, user_time, system_time, which tally counts itself: their type and config are those of
 * the software dummy event, as perf's attr for them), for `tally list`. */
enum tally_builtin_kind { TALLY_BUILTIN_HARDWARE, TALLY_BUILTIN_SOFTWARE, TALLY_BUILTIN_CACHE, TALLY_BUILTIN_TOOL };
struct tally_builtin_info {
	size_t sz;
	const char *name;
	const char *alias;            /* another accepted spelling, or NULL ("cs" for context-switches) */
	enum tally_builtin_kind kind;
	uint32_t type;                /* PERF_TYPE_HARDWARE / _SOFTWARE / _HW_CACHE */
	uint64_t config;
};
#define tally_builtin_info__last_field config
/* Thread-safe (static tables). */
TALLY_API size_t tally_builtin_count(void);
TALLY_API int tally_builtin_at(size_t i, struct tally_builtin_info *info);

/* Whether this build can encode libpfm4 names. Says nothing about libpfm.so.4 being loadable: it loads
 * nothing (a build with libpfm4 loads it on the first libpfm4 name or listing). Thread-safe. */
TALLY_API bool tally_have_libpfm(void);

/* Receives one libpfm4 event: name as "pmu::event" (the form the parser takes), description (libpfm4's,
 * possibly several lines; "" when it has none). Both are valid only during the call. Non-zero stops the
 * walk. */
typedef int (*tally_pfm_event_fn)(const char *name, const char *description, void *arg);
/* Calls fn for every event of every PMU that libpfm4 finds present on this machine (its generic perf::
 * PMU always; a CPU's own PMU as libpfm4 detects it from CPUID, which a VM without a virtual PMU may
 * still report: its events then fail to open). Loads libpfm4 on first use. Returns 0 after the last
 * event; fn's non-zero value when fn stopped the walk (return a positive value to tell it from the
 * walk's own errors); -TALLY_ENOPFM when the build has no libpfm4 or libpfm.so.4 cannot be loaded or
 * initialised, -EINVAL for a NULL fn, -EIO when libpfm4 cannot describe an event it lists; each with a
 * last-error text. Thread-safe: libpfm4 is initialised once
 * (pthread_once) and the walk only reads its tables; fn may run on several threads at once. */
TALLY_API int tally_pfm_events(tally_pfm_event_fn fn, void *arg);

/* Receives one tracepoint: its system and event ("sched", "sched_switch"; the parser takes
 * "sched:sched_switch"), valid only during the call. Non-zero stops the walk. */
typedef int (*tally_tracepoint_fn)(const char *system, const char *event, void *arg);
/* Calls fn for every tracepoint of tracefs, in its directory order (the order a glob expands in):
 * <root>/kernel/tracing/events, else <root>/kernel/debug/tracing/events, root being sysfs_root, else
 * $TALLY_SYSFS_ROOT, else /sys. Reads directory names only, no id file. Returns 0 after the last; fn's
 * non-zero value when fn stopped the walk; -ENODEV when tracefs is not mounted, -EACCES when it is not
 * readable (each with a last error that says how to fix it), another negative code when a directory
 * cannot be listed; -EINVAL for a NULL fn. Thread-safe. */
TALLY_API int tally_tracepoints(const char *sysfs_root, tally_tracepoint_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
