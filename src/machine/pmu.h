/* SPDX-License-Identifier: MIT */
/* PMU snapshot internals shared by sysfs discovery (pmu*.c) and the spec parser. */
#ifndef TLY_PMU_H
#define TLY_PMU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <tally/pmu.h>

#include "machine/pmu_events.h"

/* perf_event_attr fields a format term can fill. (config3 arrived in 6.3 headers; not used yet.) */
enum tly_config_field { TLY_CONFIG, TLY_CONFIG1, TLY_CONFIG2, TLY_NR_CONFIG_FIELDS };

/* formats are sorted by name, as are caps. */
struct tly_format {
	char *name;
	char *text;          /* "config:0-7,32-35" */
	enum tly_config_field field;
	uint64_t mask;
};

struct tly_alias {
	char *name;
	char *terms;         /* "event=0x3c,umask=0x00" */
	char *unit;          /* NULL when absent */
	double scale;        /* 1.0 when absent */
	bool per_pkg;
	bool snapshot;
	uint64_t counters;   /* a vendor table record's: the counters its Counter field lists (pmu_counters.h
	                      * tly_counter_list), 0 for none or a sysfs alias */
};

struct tly_table_alias;
struct tly_table_listing;
struct tly_pmu_tables;

struct tly_cap {
	char *name;
	char *value;
};

/* The parts of a PMU, each read from sysfs the first time it is asked for (tly_pmu_read), so that a spec
 * naming one PMU does not pay for every PMU's files: tally_pmus_load reads only the names. */
enum tly_pmu_part {
	TLY_PMU_TYPE,    /* type */
	TLY_PMU_CORE,    /* is_core, cpus */
	TLY_PMU_DETAILS, /* cpumask, formats, aliases, caps; reading them reads the other parts too */
	TLY_PMU_NR_PARTS
};

struct tally_pmu {
	char *name;
	struct tally_pmus *owner;
	/* Per part: 0 until read, then 1, or the negative code of the read that failed, whose message error[]
	 * keeps to be given again at every use. Under owner->lock. */
	int state[TLY_PMU_NR_PARTS];
	char *error[TLY_PMU_NR_PARTS];
	uint32_t type;
	bool is_core;
	char *cpus;          /* text of `cpus`, or NULL */
	char *cpumask;       /* text of `cpumask`, or NULL */
	struct tly_format *formats;
	size_t nr_formats;
	struct tly_alias *aliases;   /* sorted by name */
	size_t nr_aliases;
	struct tly_cap *caps;
	size_t nr_caps;
	/* The vendor table's events (pmu_table.c), under owner->lock: 0 until the table is chosen, then 1, or
	 * the negative code of why there is none, whose message table_error keeps. */
	int table_state;
	char *table_error;
	struct tly_pmu_events *table;           /* owned by owner->tables */
	struct tly_table_alias *table_aliases;  /* the table's events looked up so far, as aliases */
	struct tly_table_listing *table_listing; /* every event of the table for this PMU, once listed */
};

struct tally_pmus {
	char *sysfs_root;
	pthread_mutex_t lock;        /* held while the list or a part of a PMU is read */
	/* The names are listed on first use (tly_pmus_list) in the library's own snapshots (tly_pmus_new): a
	 * spec of software events ('task-clock') needs no PMU's files, and the listing is the dearest sysfs
	 * read of a start-up. 0 until listed, then 1, or the negative code of the listing, whose message
	 * list_error keeps. */
	int list_state;
	char *list_error;
	struct tally_pmu *pmus;      /* sorted by name; valid after tly_pmus_list returned 0 */
	size_t nr;
	struct tly_pmu_tables *tables; /* the vendor tables its PMUs opened (pmu_table.c), or NULL */
	/* The system PMU tables' map (tly_pmu_events_sysmap), read when a PMU that is not a core one first
	 * looks a name up: 0 until read, then 1 (sysmap set), or the negative code of the read. */
	int sysmap_state;
	char *sysmap;
};

/* A snapshot whose names are listed on first use (tally_pmus_load lists them at once): for the library's
 * own snapshots, of which a spec of software events then reads nothing, and which need no sysfs at all
 * until a spec names a PMU (NULL root: $TALLY_SYSFS_ROOT or /sys). Returns 0 or -ENOMEM. */
int tly_pmus_new(const char *sysfs_root, tally_pmus **out);

/* Lists the PMUs' names unless they are listed already; pmus->pmus and pmus->nr may be used after a 0.
 * Returns 0, or the error of the listing (recorded again as the last error at every call). Thread-safe. */
int tly_pmus_list(const struct tally_pmus *pmus);

/* Reads a part of pmu unless it is read already; the fields of that part may be used after a 0. Returns 0,
 * or the error of that read (recorded again as the last error at every call). Thread-safe: the snapshot
 * stays shareable between threads. */
int tly_pmu_read(const struct tally_pmu *pmu, enum tly_pmu_part part);

/* tly_pmu_read(pmu, TLY_PMU_DETAILS): every field of pmu. */
int tly_pmu_details(const struct tally_pmu *pmu);

/* Whether pmu is a core PMU; false when that cannot be read. */
bool tly_pmu_is_core(const struct tally_pmu *pmu);

/* Parses a format file's content ("config:0-7,32-35", "config1:0", "config2:3-5"). Returns 0, or
 * -EINVAL (not of that form, or a reversed range), -ERANGE (a bit beyond 63), -EEXIST (a bit listed
 * twice), -EOPNOTSUPP (a well-formed config3 term: kernels since 6.3 have them, perf_event_attr fields
 * tally does not fill yet). On failure *field and *mask are unchanged. Thread-safe. */
int tly_format_parse(const char *text, enum tly_config_field *field, uint64_t *mask);

/* A phrase saying why tly_format_parse returned err, for error messages ("names a bit beyond 63"). */
const char *tly_format_reason(int err);

/* Deposits value into the bits of mask (lowest value bit into lowest mask bit), replacing what *config
 * held in those bits and keeping the others. Returns -ERANGE, leaving *config alone, when value has bits
 * beyond the mask's width. */
int tly_format_deposit(uint64_t mask, uint64_t value, uint64_t *config);

/* Number of bits set in a mask: the width of a format term. */
unsigned tly_format_width(uint64_t mask);

/* Lookups by exact name (formats and aliases are sorted by name); NULL when absent, or when the PMU's
 * details cannot be read (call tly_pmu_details first to tell the two apart). Thread-safe. */
const struct tly_format *tly_pmu_format(const struct tally_pmu *pmu, const char *name);
const struct tly_alias *tly_pmu_alias(const struct tally_pmu *pmu, const char *name);

/* Companion files of an events/ alias. <name>.scale holds a decimal or exponent number ("6.103515625e-5"),
 * read in the C locale whatever the process's locale; it must be finite and positive. <name>.per-pkg and
 * <name>.snapshot hold "1" or "0". Return 0 or -EINVAL (-ENOMEM when no C locale could be made). */
int tly_alias_parse_scale(const char *text, double *scale);
int tly_alias_parse_flag(const char *text, bool *flag);

/* True for the PMUs whose events live in the kernel's software context (task_ctx_nr == perf_sw_context):
 * software, tracepoint, breakpoint, kprobe, uprobe, and x86's msr, which only reads free-running MSRs
 * (tsc, aperf, mperf) and exists in VMs without a virtual PMU. Their events take no hardware counter, so
 * they may join any group, and a machine that has only these PMUs has no hardware PMU. None is a core PMU:
 * the kernel gives them no `cpus` file. */
bool tly_pmu_is_software_context(const char *pmu);

/* ---- The vendor tables' events of a PMU (pmu_table.c) ---- */

/* The event of pmu's vendor table (chosen and opened on first use: the table of the CPU of the PMU's
 * first CPU) called name in any case, as an alias (*out; NULL when the table has no such event for this
 * PMU, or the PMU has no table). Core events (no Unit) go to x86's "cpu" and arm64's core PMUs, others to
 * the PMU their Unit names or to the instances of that family. Returns 0, or the negative code of a table
 * that cannot be read (recorded). Thread-safe. */
int tly_pmu_table_alias(const struct tally_pmu *pmu, const char *name, const struct tly_alias **out);

/* pmu's table (NULL: none) and, when none, why (*why: the recorded text, or NULL when the PMU takes no
 * table's events, as software PMUs). Returns 0 or the code of why there is none. Thread-safe. */
int tly_pmu_table(const struct tally_pmu *pmu, const struct tly_pmu_events **table, const char **why);

/* pmu's table where one was chosen already (a name of it resolved: tly_pmu_table_alias), else NULL;
 * never chooses one. Thread-safe. */
const struct tly_pmu_events *tly_pmu_table_chosen(const struct tally_pmu *pmu);

/* pmu's system PMU table (its sysfs identifier matched a sysmap row), or NULL: a PMU no row of the
 * arch's sysmap names is not read at all (its CPU's table is not chosen). Thread-safe. */
const struct tly_pmu_events *tly_pmu_sys_table(const struct tally_pmu *pmu);

/* Whether table record rec (its pmu field) is an event of pmu. */
bool tly_pmu_table_takes(const struct tally_pmu *pmu, const struct tly_pmu_events *table, struct tly_span rec_pmu);

/* Frees what pmu_table.c kept for pmu, and for pmus. */
void tly_pmu_table_release(struct tally_pmu *pmu);
void tly_pmu_tables_free(struct tly_pmu_tables *tables);

/* The sysfs root a NULL option means: $TALLY_SYSFS_ROOT, else "/sys". */
const char *tly_default_sysfs_root(void);

/* Root of procfs: $TALLY_PROCFS_ROOT (unless set-id) else "/proc" (facts.c). */
const char *tly_default_procfs_root(void);

#endif
