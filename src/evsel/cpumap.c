/* SPDX-License-Identifier: MIT */
/* CPU maps: parsed CPU lists, the online CPUs, the "any CPU" dummy, and PMU cpumask intersection. */
#include "evsel/cpumap.h"

#include "core/error.h"
#include "core/sysfs_file.h"
#include "machine/pmu.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Far above any machine Linux runs on (CONFIG_NR_CPUS tops out at 8192); bounds what a malformed or
 * hostile list such as "0-2000000000" can make us allocate. */
#define TLY_MAX_CPU (1 << 20)

/* A CPU list of sysfs (`online`, a PMU's `cpumask`) is short; a few KiB covers thousands of CPUs. */
#define TLY_CPULIST_MAX 16384

static tally_cpus *cpus_alloc(size_t nr)
{
	tally_cpus *cpus = malloc(sizeof(*cpus) + nr * sizeof(cpus->cpu[0]));
	if (cpus)
		cpus->nr = nr;
	return cpus;
}

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return p;
}

static int parse_cpu_number(const char **p, const char *list, int *cpu)
{
	const char *s = skip_space(*p);
	if (*s < '0' || *s > '9')
		return tly_error(-EINVAL, "CPU list \"%s\": expected a CPU number at offset %zu", list,
		                 (size_t)(s - list));
	long v = 0;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v >= TLY_MAX_CPU)
			return tly_error(-ERANGE, "CPU list \"%s\": CPU number too large (limit %d)", list,
			                 TLY_MAX_CPU - 1);
		s++;
	}
	*cpu = (int)v;
	*p = skip_space(s);
	return 0;
}

int tally_cpus_parse(const char *list, tally_cpus **out)
{
	if (!list || !out)
		return tly_error(-EINVAL, "tally_cpus_parse: NULL argument");
	*out = NULL;
	if (*skip_space(list) == '\0')
		return tly_error(-EINVAL, "CPU list is empty");
	/* First pass: validate and count, so that the map is allocated once at its final size. */
	size_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		tally_cpus *cpus = NULL;
		if (pass == 1) {
			cpus = cpus_alloc(total);
			if (!cpus)
				return tly_error(-ENOMEM, "CPU list \"%s\": out of memory", list);
		}
		size_t n = 0;
		const char *p = skip_space(list);
		for (;;) {
			int first, last;
			int err = parse_cpu_number(&p, list, &first);
			last = first;
			if (!err && *p == '-') {
				p++;
				err = parse_cpu_number(&p, list, &last);
				if (!err && last < first)
					err = tly_error(-EINVAL, "CPU list \"%s\": range %d-%d runs backwards", list,
					                first, last);
			}
			/* The map holds each CPU once, so a list naming more than TLY_MAX_CPU repeats itself
			 * ("0-1048575,0-1048575,...": 4 MiB of map per 10 bytes of list); refused before the
			 * second pass allocates and fills it. */
			if (!err && n + (size_t)(last - first) + 1 > TLY_MAX_CPU)
				err = tly_error(-ERANGE, "CPU list \"%s\": names more than %d CPUs", list, TLY_MAX_CPU);
			if (err) {
				free(cpus);
				return err;
			}
			for (int c = first; c <= last; c++) {
				if (cpus)
					cpus->cpu[n] = c;
				n++;
			}
			if (*p == '\0')
				break;
			if (*p != ',') {
				free(cpus);
				return tly_error(-EINVAL, "CPU list \"%s\": unexpected '%c' at offset %zu", list, *p,
				                 (size_t)(p - list));
			}
			p++;
		}
		if (pass == 0) {
			total = n;
			continue;
		}
		qsort(cpus->cpu, n, sizeof(cpus->cpu[0]), compare_int);
		size_t unique = 0;
		for (size_t i = 0; i < n; i++)
			if (unique == 0 || cpus->cpu[unique - 1] != cpus->cpu[i])
				cpus->cpu[unique++] = cpus->cpu[i];
		cpus->nr = unique;
		*out = cpus;
	}
	return 0;
}

int tally_cpus_any(tally_cpus **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_cpus_any: NULL argument");
	*out = cpus_alloc(1);
	if (!*out)
		return tly_error(-ENOMEM, "CPU map: out of memory");
	(*out)->cpu[0] = -1;
	return 0;
}

int tally_cpus_online(const char *sysfs_root, tally_cpus **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_cpus_online: NULL argument");
	*out = NULL;
	if (!sysfs_root)
		sysfs_root = tly_default_sysfs_root();
	char path[PATH_MAX];
	if (tly_path_join(path, sizeof(path), sysfs_root, "devices/system/cpu/online"))
		return tly_error(-ENAMETOOLONG, "sysfs root \"%.64s...\" is too long (a path under it exceeds %zu bytes)",
		                 sysfs_root, sizeof(path) - 1);
	char *text = malloc(TLY_CPULIST_MAX);
	if (!text)
		return tly_error(-ENOMEM, "online CPUs: out of memory");
	int len = tly_sysfs_read(path, text, TLY_CPULIST_MAX, TLY_SYSFS_WHOLE);
	int err = len < 0 ? tly_sysfs_error(path, len, TLY_CPULIST_MAX) : tally_cpus_parse(text, out);
	if (err < 0 && len >= 0)
		tly_error_append(" (in %s)", path);
	free(text);
	return err;
}

static bool is_dummy(const tally_cpus *cpus)
{
	return cpus->nr == 1 && cpus->cpu[0] == -1;
}

int tally_cpus_intersect_mask(const tally_cpus *cpus, const char *cpumask, tally_cpus **out)
{
	if (!out || !cpumask)
		return tly_error(-EINVAL, "tally_cpus_intersect_mask: NULL argument");
	*out = NULL;
	tally_cpus *mask;
	int err = tally_cpus_parse(cpumask, &mask);
	if (err)
		return err;
	if (!cpus || is_dummy(cpus)) {
		*out = mask;
		return 0;
	}
	/* Both sorted: merge. The result is never larger than the mask, so it reuses the mask's storage. */
	size_t n = 0;
	for (size_t i = 0, j = 0; i < cpus->nr && j < mask->nr;) {
		if (cpus->cpu[i] < mask->cpu[j]) {
			i++;
		} else if (cpus->cpu[i] > mask->cpu[j]) {
			j++;
		} else {
			mask->cpu[n++] = cpus->cpu[i];
			i++;
			j++;
		}
	}
	if (n == 0) {
		free(mask);
		return tly_error(-ENODEV, "none of the requested CPUs is in the PMU's cpumask \"%s\"", cpumask);
	}
	mask->nr = n;
	*out = mask;
	return 0;
}

int tally_cpus_subtract(const tally_cpus *cpus, const tally_cpus *minus, tally_cpus **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_cpus_subtract: NULL out");
	*out = NULL;
	if (!cpus || !minus || is_dummy(cpus) || is_dummy(minus))
		return tly_error(-EINVAL, "tally_cpus_subtract: a NULL or dummy (any CPU) map");
	tally_cpus *d = cpus_alloc(cpus->nr);
	if (!d)
		return tly_error(-ENOMEM, "CPU map: out of memory");
	/* Both sorted: one merge walk. */
	size_t n = 0;
	for (size_t i = 0, j = 0; i < cpus->nr; i++) {
		while (j < minus->nr && minus->cpu[j] < cpus->cpu[i])
			j++;
		if (j == minus->nr || minus->cpu[j] != cpus->cpu[i])
			d->cpu[n++] = cpus->cpu[i];
	}
	d->nr = n;
	*out = d;
	return 0;
}

int tally_cpus_check_online(const char *sysfs_root, const tally_cpus *cpus)
{
	tally_cpus *online = NULL, *missing = NULL;
	bool any = !cpus || is_dummy(cpus);  /* NULL counts as the dummy map, as in tally_cpus_count */
	int err = any ? 0 : tally_cpus_online(sysfs_root, &online);
	if (!err && !any)
		err = tally_cpus_subtract(cpus, online, &missing);
	if (!err && missing && tally_cpus_count(missing)) {
		char absent[256], have[256];
		tally_cpus_format(missing, absent, sizeof(absent));
		tally_cpus_format(online, have, sizeof(have));
		err = tly_error(-ENODEV, "not online here (absent or offline): %s; the online CPUs are %s", absent,
		                have);
	}
	tally_cpus_free(missing);
	tally_cpus_free(online);
	return err;
}

int tally_cpus_format(const tally_cpus *cpus, char *buf, size_t len)
{
	size_t nr = cpus ? cpus->nr : 1;
	const int *cpu = cpus ? cpus->cpu : (const int[]){ -1 };
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < nr;) {
		size_t j = i;
		while (j + 1 < nr && cpu[j + 1] == cpu[j] + 1)
			j++;
		char item[32];
		int n = j == i ? snprintf(item, sizeof(item), "%s%d", i ? "," : "", cpu[i])
		               : snprintf(item, sizeof(item), "%s%d-%d", i ? "," : "", cpu[i], cpu[j]);
		if (used < len)
			snprintf(buf + used, len - used, "%s", item);
		used += (size_t)n;
		i = j + 1;
	}
	return used > INT_MAX ? INT_MAX : (int)used;
}

int tly_cpus_dup(const tally_cpus *cpus, tally_cpus **out)
{
	if (!cpus)
		return tally_cpus_any(out);
	*out = cpus_alloc(cpus->nr);
	if (!*out)
		return tly_error(-ENOMEM, "CPU map: out of memory");
	memcpy((*out)->cpu, cpus->cpu, cpus->nr * sizeof(cpus->cpu[0]));
	return 0;
}

size_t tally_cpus_count(const tally_cpus *cpus)
{
	return cpus ? cpus->nr : 1;
}

int tally_cpus_at(const tally_cpus *cpus, size_t i)
{
	if (!cpus || i >= cpus->nr)
		return -1;
	return cpus->cpu[i];
}

int tally_cpus_index(const tally_cpus *cpus, int cpu)
{
	size_t nr = tally_cpus_count(cpus);
	for (size_t i = 0; i < nr; i++)
		if (tally_cpus_at(cpus, i) == cpu)
			return (int)i;
	return -ENOENT;
}

void tally_cpus_free(tally_cpus *cpus)
{
	free(cpus);
}
