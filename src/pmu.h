/* SPDX-License-Identifier: MIT */
/* PMU snapshot internals shared by sysfs discovery (pmu*.c) and the spec parser. */
#ifndef TLY_PMU_H
#define TLY_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/pmu.h>

/* perf_event_attr fields a format term can fill. (config3 arrived in 6.3 headers; not used yet.) */
enum tly_config_field { TLY_CONFIG, TLY_CONFIG1, TLY_CONFIG2, TLY_NR_CONFIG_FIELDS };

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
};

struct tly_cap {
	char *name;
	char *value;
};

struct tally_pmu {
	char *name;
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
};

struct tally_pmus {
	char *sysfs_root;
	struct tally_pmu *pmus;      /* sorted by name */
	size_t nr;
};

/* Parses a format file's content ("config:0-7,32-35", "config1:0", "config2:3-5"). */
int tly_format_parse(const char *text, enum tly_config_field *field, uint64_t *mask);

/* Deposits value into the bits of mask (lowest value bit into lowest mask bit). Returns -ERANGE when
 * value has bits beyond the mask's width. */
int tly_format_deposit(uint64_t mask, uint64_t value, uint64_t *config);

/* Number of bits set in a mask: the width of a format term. */
unsigned tly_format_width(uint64_t mask);

const struct tly_format *tly_pmu_format(const struct tally_pmu *pmu, const char *name);
const struct tly_alias *tly_pmu_alias(const struct tally_pmu *pmu, const char *name);

/* The sysfs root a NULL option means: $TALLY_SYSFS_ROOT, else "/sys". */
const char *tly_default_sysfs_root(void);

#endif
