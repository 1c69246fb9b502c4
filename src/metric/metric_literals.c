/* SPDX-License-Identifier: MIT */
/*
 * The machine's facts behind the vendor tables' #literals, read as perf 6.12 reads them (util/expr.c
 * expr__get_literal, util/smt.c, util/cputopo.c): #num_cpus is the highest present CPU plus one,
 * #num_cpus_online the online CPUs, #num_packages/#num_dies/#num_cores the distinct packages, dies and
 * cores of the online CPUs, #smt_on the kernel's smt/active, #slots a core PMU's caps/slots (arm64 only:
 * perf has no other source), #system_tsc_freq the frequency in /proc/cpuinfo's model name ("@ 2.10GHz"),
 * #has_pmem an ACPI NFIT table. A fact that cannot be read stays NaN: its literal is then not available.
 */
#include "metric/metric_expr.h"

#include "core/sys.h"
#include "core/sysfs_file.h"
#include "machine/pmu.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <tally/cpumap.h>

static const struct {
	const char *name;
	size_t offset;
} literals[] = {
	{ "#smt_on", offsetof(struct tly_metric_facts, smt_on) },
	{ "#num_cpus", offsetof(struct tly_metric_facts, num_cpus) },
	{ "#num_cpus_online", offsetof(struct tly_metric_facts, num_cpus_online) },
	{ "#num_cores", offsetof(struct tly_metric_facts, num_cores) },
	{ "#num_dies", offsetof(struct tly_metric_facts, num_dies) },
	{ "#num_packages", offsetof(struct tly_metric_facts, num_packages) },
	{ "#core_wide", offsetof(struct tly_metric_facts, core_wide) },
	{ "#slots", offsetof(struct tly_metric_facts, slots) },
	{ "#system_tsc_freq", offsetof(struct tly_metric_facts, system_tsc_freq) },
	{ "#has_pmem", offsetof(struct tly_metric_facts, has_pmem) },
};
#define NR_LITERALS (sizeof(literals) / sizeof(literals[0]))

static int literal_index(const char *name)
{
	for (size_t i = 0; i < NR_LITERALS; i++)
		if (strcasecmp(literals[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool tly_metric_literal_known(const char *name)
{
	return literal_index(name) >= 0;
}

/* The topology's facts, read on first use: from root, under lock (evaluations may run on any thread). */
struct tly_metric_topology {
	pthread_mutex_t lock;
	bool read;
	double num_cores, num_dies, num_packages;
	char root[];
};

static void read_topology(const char *root, struct tly_metric_topology *t);

double tly_metric_literal(const struct tly_metric_facts *facts, const char *name)
{
	int i = literal_index(name);
	if (!facts || i < 0)
		return NAN;
	size_t offset = literals[i].offset;
	struct tly_metric_topology *t = facts->topology;
	if (t && (offset == offsetof(struct tly_metric_facts, num_cores) ||
	          offset == offsetof(struct tly_metric_facts, num_dies) ||
	          offset == offsetof(struct tly_metric_facts, num_packages))) {
		pthread_mutex_lock(&t->lock);
		if (!t->read)
			read_topology(t->root, t);
		t->read = true;
		double v = offset == offsetof(struct tly_metric_facts, num_cores)  ? t->num_cores
		           : offset == offsetof(struct tly_metric_facts, num_dies) ? t->num_dies
		                                                                   : t->num_packages;
		pthread_mutex_unlock(&t->lock);
		return v;
	}
	return *(const double *)(const void *)((const char *)facts + offset);
}

static double read_number(const char *root, const char *rel)
{
	char path[4096], buf[64];
	if (tly_path_join(path, sizeof(path), root, rel) || tly_sysfs_read(path, buf, sizeof(buf), TLY_SYSFS_WHOLE) <= 0)
		return NAN;
	char *end;
	double v = strtod(buf, &end);
	return end == buf ? NAN : v;
}

/* The highest CPU of a CPU-list file, plus one. */
static double list_max_plus_one(const char *root, const char *rel)
{
	char path[4096], buf[4096];
	tally_cpus *cpus = NULL;
	if (tly_path_join(path, sizeof(path), root, rel) ||
	    tly_sysfs_read(path, buf, sizeof(buf), TLY_SYSFS_WHOLE) <= 0 || tally_cpus_parse(buf, &cpus))
		return NAN;
	size_t n = tally_cpus_count(cpus);
	double v = n ? tally_cpus_at(cpus, n - 1) + 1 : NAN;
	tally_cpus_free(cpus);
	return v;
}

static size_t count_distinct(long long *keys, size_t n)
{
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < i && keys[j] != keys[i])
			j++;
		distinct += j == i;
	}
	return distinct;
}

/* Packages, dies and cores of the online CPUs, each counted once (NaN where a CPU's files are missing). */
static void read_topology(const char *root, struct tly_metric_topology *topo)
{
	topo->num_packages = topo->num_dies = topo->num_cores = NAN;
	tally_cpus *online = NULL;
	if (tally_cpus_online(root, &online))
		return;
	size_t n = tally_cpus_count(online);
	long long *keys = calloc(3 * (n ? n : 1), sizeof(*keys));
	size_t got = 0;
	for (size_t i = 0; keys && i < n; i++) {
		TALLY_OPTS(tally_cpu_topology, t);
		if (tally_cpu_topology(root, tally_cpus_at(online, i), &t))
			continue;
		long long die = ((long long)t.package << 16) | (t.die & 0xffff);
		keys[got] = t.package;
		keys[n + got] = die;
		keys[2 * n + got] = (die << 24) | (t.core & 0xffffff);
		got++;
	}
	if (got == n && n) {
		topo->num_packages = (double)count_distinct(keys, n);
		topo->num_dies = (double)count_distinct(keys + n, n);
		topo->num_cores = (double)count_distinct(keys + 2 * n, n);
	}
	free(keys);
	tally_cpus_free(online);
}

/* The online CPUs: one file. */
static double count_online(const char *root)
{
	tally_cpus *online = NULL;
	if (tally_cpus_online(root, &online))
		return NAN;
	double n = (double)tally_cpus_count(online);
	tally_cpus_free(online);
	return n;
}

/* Without smt/active (before 4.19): SMT is on where a core lists more than one CPU, as perf 6.1's
 * cpu_topology__smt_on; no topology files, no SMT. */
static double read_siblings(const char *root)
{
	tally_cpus *online = NULL;
	if (tally_cpus_online(root, &online))
		return 0;
	bool smt = false;
	for (size_t i = 0; !smt && i < tally_cpus_count(online); i++) {
		char rel[128], path[4096], buf[1024];
		tally_cpus *siblings = NULL;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_cpus_list", tally_cpus_at(online, i));
		if (!tly_path_join(path, sizeof(path), root, rel) &&
		    tly_sysfs_read(path, buf, sizeof(buf), TLY_SYSFS_WHOLE) > 0 && !tally_cpus_parse(buf, &siblings))
			smt = tally_cpus_count(siblings) > 1;
		tally_cpus_free(siblings);
	}
	tally_cpus_free(online);
	return smt;
}

/* caps/slots of the first PMU that has one (arm64's PMUv3 with FEAT_PMUv3p7 and 5.19 or later). */
static double read_slots(const char *root)
{
	char dir_path[4096];
	if (tly_path_join(dir_path, sizeof(dir_path), root, "bus/event_source/devices"))
		return NAN;
	DIR *dir = tly_sys->opendir(dir_path);
	double slots = NAN;
	for (struct dirent *d; dir && isnan(slots) && (d = tly_sys->readdir(dir));) {
		char rel[512];
		if (d->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/caps/slots", d->d_name);
		slots = read_number(root, rel);
	}
	if (dir)
		tly_sys->closedir(dir);
	return slots;
}

/* "model name : Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz": the TSC runs at the base frequency. */
static double read_tsc_freq(void)
{
	char buf[8192];
	if (tly_sysfs_read("/proc/cpuinfo", buf, sizeof(buf), TLY_SYSFS_HEAD) <= 0)
		return NAN;
	const char *model = strstr(buf, "model name");
	const char *eol = model ? strchr(model, '\n') : NULL;
	const char *at = model ? strchr(model, '@') : NULL;
	if (!at || (eol && at > eol))
		return NAN;
	double ghz = strtod(at + 1, NULL);
	return ghz > 0 ? ghz * 1e9 : NAN;
}

void tly_metric_facts_read(const char *sysfs_root, bool core_wide, struct tly_metric_facts *f)
{
	const char *root = sysfs_root ? sysfs_root : tly_default_sysfs_root();
	f->num_cpus = list_max_plus_one(root, "devices/system/cpu/present");
	f->num_cpus_online = count_online(root);
	f->num_packages = f->num_dies = f->num_cores = NAN; /* tly_metric_literal's, from f->topology */
	size_t len = strlen(root) + 1;
	f->topology = malloc(sizeof(*f->topology) + len);
	if (f->topology) {
		pthread_mutex_init(&f->topology->lock, NULL);
		f->topology->read = false;
		memcpy(f->topology->root, root, len);
	}
	f->smt_on = read_number(root, "devices/system/cpu/smt/active");
	if (isnan(f->smt_on))
		f->smt_on = read_siblings(root);
	f->core_wide = core_wide;
	f->slots = read_slots(root);
	f->system_tsc_freq = read_tsc_freq();
	char path[4096];
	struct stat st;
	f->has_pmem = !tly_path_join(path, sizeof(path), root, "firmware/acpi/tables/NFIT") &&
	              tly_sys->stat(path, &st) == 0;
}

void tly_metric_facts_fini(struct tly_metric_facts *f)
{
	if (f->topology)
		pthread_mutex_destroy(&f->topology->lock);
	free(f->topology);
	f->topology = NULL;
}
