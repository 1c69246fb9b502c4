/* SPDX-License-Identifier: MIT */
/* CPU topology from sysfs: which package, die, core and NUMA node a CPU belongs to, and its caches' ids. */
#include "core/error.h"
#include "core/opts.h"
#include "core/sys.h"
#include "core/sysfs_file.h"
#include "machine/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/evlist.h>

/* An integer sysfs file of at least min: 0, a negative errno when it cannot be read, or -TALLY_ESYSFS. */
static int read_int(const char *path, long min, int *value)
{
	char text[32];
	int n = tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE);
	if (n < 0)
		return n;
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || *end != '\0' || v < min || v > INT_MAX)
		return -TALLY_ESYSFS;
	*value = (int)v;
	return 0;
}

/* One topology file of a CPU as an int (its path in path): as read_int, or -ENAMETOOLONG. */
static int read_topology(const char *root, int cpu, const char *file, int *value, char *path, size_t size)
{
	int len = snprintf(path, size, "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, file);
	if (len < 0 || (size_t)len >= size)
		return -ENAMETOOLONG;
	return read_int(path, INT_MIN, value);
}

/* The NUMA node of a CPU: sysfs links devices/system/cpu/cpu<N>/node<M> to it (CONFIG_NUMA); without the
 * link the machine is one node, node 0, as perf counts it. */
static int cpu_node(const char *root, int cpu)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d", root, cpu);
	DIR *dir = len > 0 && (size_t)len < sizeof(path) ? tly_sys->opendir(path) : NULL;
	int node = 0;
	for (struct dirent *d; dir && (d = tly_sys->readdir(dir));) {
		char *end;
		if (strncmp(d->d_name, "node", 4) != 0 || d->d_name[4] < '0' || d->d_name[4] > '9')
			continue;
		long v = strtol(d->d_name + 4, &end, 10);
		if (*end == '\0' && v <= INT_MAX) {
			node = (int)v;
			break;
		}
	}
	if (dir)
		tly_sys->closedir(dir);
	return node;
}

int tally_cpu_topology(const char *sysfs_root, int cpu, struct tally_cpu_topology *out)
{
	if (!out || cpu < 0)
		return tly_error(-EINVAL, "tally_cpu_topology: NULL out or negative CPU %d", cpu);
	const char *root = sysfs_root ? sysfs_root : tly_default_sysfs_root();
	struct tally_cpu_topology t = { .sz = sizeof(t) };
	char path[PATH_MAX];
	int err = read_topology(root, cpu, "physical_package_id", &t.package, path, sizeof(path));
	if (!err)
		err = read_topology(root, cpu, "core_id", &t.core, path, sizeof(path));
	if (err == -ENAMETOOLONG)
		return tly_error(err, "CPU %d: the path of its topology under sysfs root \"%.64s...\" is longer than %zu "
		                 "bytes", cpu, root, sizeof(path) - 1);
	if (err)
		return tly_error(err, "CPU %d: cannot read its topology (%s): %s", cpu, path, tally_strerror(err));
	/* die_id arrived in 5.2; without it a package is one die. */
	char die_path[PATH_MAX];
	if (read_topology(root, cpu, "die_id", &t.die, die_path, sizeof(die_path)) < 0)
		t.die = -1;
	t.node = cpu_node(root, cpu);
	return TLY_INFO_COPY(out, &t, tally_cpu_topology);
}

/* One integer file of cache index k of cpu: 0, or a negative errno. */
static int read_cache_int(const char *root, int cpu, int k, const char *file, int *value)
{
	char path[PATH_MAX];
	int len = snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/%s", root, cpu, k, file);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	return read_int(path, 0, value);
}

/* Whether cache index k of cpu holds data (a data or unified cache, not an instruction cache). */
static bool cache_holds_data(const char *root, int cpu, int k)
{
	char path[PATH_MAX], type[32];
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/type", root, cpu, k);
	return tly_sysfs_read(path, type, sizeof(type), TLY_SYSFS_WHOLE) > 0 && strcmp(type, "Instruction") != 0;
}

/* The kernel lists a CPU's caches as index0, index1, ... with no gap; a few more than any CPU has. */
#define MAX_CACHE_INDEX 16

int tally_cpu_cache_id(const char *sysfs_root, int cpu, int level, int *id, int *level_out)
{
	if (!id || cpu < 0 || level < 0 || level > 4)
		return tly_error(-EINVAL, "tally_cpu_cache_id: CPU %d, level %d (0 to 4), id %p", cpu, level, (void *)id);
	const char *root = sysfs_root ? sysfs_root : tly_default_sysfs_root();
	int best = -1, best_level = 0;
	for (int k = 0; k < MAX_CACHE_INDEX; k++) {
		int l;
		int err = read_cache_int(root, cpu, k, "level", &l);
		if (err == -ENOENT)
			break;
		if (err || !cache_holds_data(root, cpu, k))
			continue;
		if (level ? l == level : l > best_level) {
			best = k;
			best_level = l;
		}
	}
	if (best < 0)
		return level ? tly_error(-ENOENT, "CPU %d: no L%d data cache in %s/devices/system/cpu/cpu%d/cache", cpu,
		                         level, root, cpu)
		             : tly_error(-ENOENT, "CPU %d: no data cache in %s/devices/system/cpu/cpu%d/cache", cpu, root,
		                         cpu);
	int err = read_cache_int(root, cpu, best, "id", id);
	if (err)
		return tly_error(err == -ENOENT ? -ENOENT : err, "CPU %d: its L%d cache has no id (index%d/id: kernel "
		                 "5.0 and later)", cpu, best_level, best);
	if (level_out)
		*level_out = best_level;
	return 0;
}
