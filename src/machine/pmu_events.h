/* SPDX-License-Identifier: MIT */
/*
 * The vendors' event tables: perf's pmu-events data (Intel, AMD, Arm) as the data files that
 * tools/pmu_events/generate.py writes (data/pmu-events/README.md gives the format), read at run time and
 * never compiled in (the kernel tree's copy is GPL-2.0; libtally is MIT). One model's table is its
 * `<stem>.events` file, mapped whole and searched in place: lines sorted by lower-cased name, so a name is
 * a binary search, with no parse of anything but the lines it lands on.
 *
 * Which table a CPU has (pmu_events_map.c): x86's vendor-family-model-stepping and arm64's MIDR, matched
 * against the arch's mapfile.csv as perf matches them; TALLY_CPUID overrides (perf's PERF_CPUID format),
 * TALLY_PMU_EVENTS names another tables folder. Which PMU takes which records: pmu_table.c.
 */
#ifndef TLY_PMU_EVENTS_H
#define TLY_PMU_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A part of a mapped line: not NUL-terminated, still escaped as the file stores it (\\, \t, \n). */
struct tly_span {
	const char *s;
	size_t len;
};

/* One event of a table. */
struct tly_pmu_events_rec {
	struct tly_span name;       /* lower-cased, as perf's jevents.py stores it */
	struct tly_span pmu;        /* empty: the core PMU; else the Unit's PMU (uncore_imc, cpu_atom, amd_df) */
	struct tly_span terms;      /* "event=0xd1,umask=0x20": perf's terms for the PMU's format/ files */
	struct tly_span scale_unit; /* ScaleUnit: "6.103515625e-5MiB", or empty */
	struct tly_span counter;    /* Counter: "0,1,2,3", "Fixed counter 0", or empty */
	uint64_t desc_offset;       /* of its line in the arch's descriptions file */
	bool deprecated, per_pkg, experimental;
};

/* The texts of a record's description line, unescaped; free with tly_pmu_events_desc_free. */
struct tly_pmu_events_desc {
	char *topic, *brief, *public_desc;
};

/* One metric record, fields unescaped and as the upstream JSON has them (empty when absent), all in one
 * malloc'd block. For the metric expression layer (src/metric/), which reads a table's metrics through
 * tly_pmu_events_metrics and keeps them without copying again: -M loads a table's every metric, and a
 * block per record is one allocation and one free where a string per field would be eight. */
struct tly_pmu_metric {
	const char *name, *group, *expr, *threshold, *scale_unit, *constraint, *brief, *public_desc;
	char *text; /* the block the fields point into */
};

struct tly_pmu_events;

/* Where the tables are: $TALLY_PMU_EVENTS (unless set-id), else the installed folder, else the build
 * tree's copy (an uninstalled tally). Never NULL. */
const char *tly_pmu_events_dir(void);

/* Whether $TALLY_PMU_EVENTS chose the tables (tly_pmu_events_dir is the caller's folder): a bare name
 * is then the table's or unknown, never libpfm4's (spec_parse.c). */
bool tly_pmu_events_chosen(void);

/* Opens dir/arch/stem.events (a model of mapfile.csv: model is its stem, version its Version). Returns
 * 0, -ENOENT (recorded: the file is missing), -EBADMSG (recorded: not a table file), -ENOMEM. */
int tly_pmu_events_open(const char *dir, const char *arch, const char *stem, const char *version,
                        struct tly_pmu_events **out);
void tly_pmu_events_close(struct tly_pmu_events *t);

/* A table's four texts in the files' format, malloc'd: events, descriptions, metrics, counts. */
struct tly_pmu_events_text {
	char *part[4];
	size_t len[4];
};

/* A table made of text (a perf-format tree converted at run time: pmu_events_tree.c), which it takes
 * (text's parts are NULL after); source: the model folder under dir/arch, which its path names. Returns
 * 0, -EBADMSG (recorded), -ENOMEM. */
int tly_pmu_events_adopt(const char *dir, const char *arch, const char *stem, const char *source,
                         const char *version, struct tly_pmu_events_text *text, struct tly_pmu_events **out);

const char *tly_pmu_events_model(const struct tly_pmu_events *t);
const char *tly_pmu_events_version(const struct tly_pmu_events *t);
const char *tly_pmu_events_path(const struct tly_pmu_events *t);
const char *tly_pmu_events_arch(const struct tly_pmu_events *t);  /* "x86", "arm64" */

/* The number of records (counts the lines: for doctor and list, not for a lookup). */
size_t tly_pmu_events_count(const struct tly_pmu_events *t);

/* The offset of the first record whose name is not below name (compared lower-cased): where
 * tly_pmu_events_next finds name's records, if it has any. */
size_t tly_pmu_events_seek(const struct tly_pmu_events *t, const char *name);

/* The record at *pos, *pos moved past it. Returns 1, 0 at the end, -EBADMSG (recorded, naming the file
 * and line offset) for a line not of the format. */
int tly_pmu_events_next(const struct tly_pmu_events *t, size_t *pos, struct tly_pmu_events_rec *rec);

/* Whether rec's name is name, which the caller has in any case. */
bool tly_pmu_events_named(const struct tly_pmu_events_rec *rec, const char *name);

/* Copies span, unescaped, into a new string (NULL when out of memory). */
char *tly_span_dup(struct tly_span span);
/* span unescaped into out (room for span.len + 1), NUL-terminated; returns the byte after the NUL. */
char *tly_span_unescape(char *out, struct tly_span span);

/* rec's topic and descriptions, from the arch's descriptions file. Returns 0, -ENOENT or -EBADMSG
 * (recorded), -ENOMEM. */
int tly_pmu_events_describe(const struct tly_pmu_events *t, const struct tly_pmu_events_rec *rec,
                            struct tly_pmu_events_desc *out);
void tly_pmu_events_desc_free(struct tly_pmu_events_desc *d);

/* The numbers of counters one PMU of a model has, as its counter.json gives them (perf 6.12's tables have
 * one for most Intel models: CountersNumGeneric, CountersNumFixed per Unit). */
struct tly_pmu_events_counts {
	struct tly_span pmu;   /* as a record's pmu: empty for the core PMU (the JSON's Unit "core") */
	unsigned generic, fixed;
};

/* The counts at *pos (from 0), *pos moved past them. Returns 1, 0 at the end (at once for a model without
 * counter.json), -EBADMSG (recorded) for a line not of the format. */
int tly_pmu_events_counts_next(const struct tly_pmu_events *t, size_t *pos, struct tly_pmu_events_counts *rec);

/* Calls cb for every metric of t's model, in name order, until cb returns non-zero (returned). cb may
 * keep the record's block (m->text, set NULL then); else it is freed when cb returns.
 * Returns 0, cb's value, or a negative code (recorded): -ENOENT (no metrics file), -EBADMSG, -ENOMEM. */
int tly_pmu_events_metrics(const struct tly_pmu_events *t, int (*cb)(struct tly_pmu_metric *m, void *arg),
                           void *arg);

/* ---- A perf-format tree read at run time (pmu_events_json.c, pmu_events_tree.c) ---- */

/* One JSON object of a pmu-events file: its members in order; a nested value's is NULL. */
struct tly_json_object {
	char **key, **value;
	size_t nr;
};

struct tly_json_objects {
	struct tly_json_object *v;
	size_t nr;
};

/* Parses text[0, len): a top-level array of objects into *out (empty when the text is no array: a file of
 * another shape). Returns 0, or -EBADMSG with *at the offset of the fault (nothing recorded). */
int tly_json_objects_parse(const char *text, size_t len, struct tly_json_objects *out, size_t *at);
void tly_json_objects_free(struct tly_json_objects *list);

/* The value of member key, or NULL (absent, or nested). */
const char *tly_json_get(const struct tly_json_object *o, const char *key);

/* The table of the model folder dir/arch/path (a mapfile row's Filename), its JSON files converted in
 * memory by generate.py's rules. Returns 0, -ENOENT or -EBADMSG (recorded: the file and offset), -ENOMEM. */
int tly_pmu_events_convert(const char *dir, const char *arch, const char *path, const char *version,
                           struct tly_pmu_events **out);

/* The map of a perf-format tree's system PMU tables (every <vendor>/<model>/sys/ folder of dir/arch),
 * in the form of generate.py's sysmap file, each row's model the folder ("arm/cmn/sys"): sorted lines
 * "pmu TAB compat TAB folder", one per event of a Unit and a Compat, duplicates dropped. Returns 0 with
 * *out allocated ("" when there are none), or a negative code (recorded: a malformed file). */
int tly_pmu_events_tree_sysmap(const char *dir, const char *arch, char **out);

/* Whether dir is a perf-format tree (no MANIFEST of converted tables): its JSON is read at run time. */
bool tly_pmu_events_is_tree(const char *dir);

/* ---- Which table (pmu_events_map.c) ---- */

/* The arch whose tables a cpuid belongs to: "arm64" for a MIDR ("0x..."), else "x86". */
const char *tly_cpuid_arch(const char *cpuid);

/* The CPU's identification as perf builds it: $TALLY_CPUID when set; else on x86 "vendor-family-model-
 * stepping" from the cpuid instruction ("GenuineIntel-6-6A-6"), on arm64 the MIDR of the first CPU of
 * cpus (a sysfs CPU list; NULL or empty: CPU 0) read from <sysfs_root>/devices/system/cpu/cpuN/regs/
 * identification/midr_el1, whole ("0x00000000414fd0c1", Neoverse N1 r4p1), as perf 6.12 keeps it. Returns
 * 0, or -ENOENT (recorded) when the CPU cannot be identified. */
int tly_cpuid(const char *sysfs_root, const char *cpus, char *buf, size_t size);

/* Whether an arm64 MIDR is the part that map_id names, of its version or a later one, as perf 6.12's
 * strcmp_cpuid_str compares them (tools/perf/arch/arm64/util/header.c): every field but Variant[23:20]
 * and Revision[3:0] equal, and (variant, revision) at least map_id's, so that a row or a metric written
 * for r0p0 takes every revision of the part and one for r0p3 only r0p3 and later. Both in hex. */
bool tly_midr_at_least(const char *map_id, const char *midr);

/* The model of dir/<arch>/mapfile.csv that cpuid matches, as perf 6.1 matches (x86: the row's regex
 * over the whole string, the stepping ignored unless the row names one; arm64: the same over the MIDR),
 * among its "core" rows (comments and perf's header row skipped). Returns 0 with stem (the row's
 * model: a converted folder's file stem, or a perf tree's model folder "arm/cortex-a53") and version
 * filled, -ENOENT (recorded: the folder or its mapfile is missing, or no
 * row matches, each said), -EBADMSG (recorded: a row is malformed). */
int tly_pmu_events_find_model(const char *dir, const char *cpuid, char *stem, size_t stem_size, char *version,
                              size_t version_size);

/* The map of dir's system PMU tables for arch: its sysmap file (generate.py), or the sys/ folders of a
 * perf-format tree (tly_pmu_events_tree_sysmap). Returns 0 with *out allocated ("" when the arch has
 * none), or a negative code (recorded). */
int tly_pmu_events_sysmap(const char *dir, const char *arch, char **out);

/* Whether a row of sysmap (tly_pmu_events_sysmap's text) is for the PMU named pmu_name: its pmu the name
 * or one of its instances (tly_pmu_unit_member). Only such a PMU's sysfs `identifier` is worth reading. */
bool tly_pmu_sysmap_names(const char *sysmap, const char *pmu_name);

/* The model of the first row of sysmap for pmu_name whose compat, a POSIX extended regex, matches the
 * whole of identifier, as perf 6.12's pmu_uncore_identifier_match (6.1 compares the strings; the tables'
 * literal compats match alike). Returns 0 with model filled, -ENOENT (nothing recorded) when none. */
int tly_pmu_sysmap_find(const char *sysmap, const char *pmu_name, const char *identifier, char *model,
                        size_t model_size);

#endif
