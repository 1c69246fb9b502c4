/* SPDX-License-Identifier: MIT */
#include "topology.h"

#include <stdio.h>

static bool read_int(int cpu, const char *file, int *value)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fscanf(f, "%d", value) == 1;
	fclose(f);
	return ok;
}

bool topology_core_of(int cpu, int *package, int *core)
{
	return read_int(cpu, "physical_package_id", package) && read_int(cpu, "core_id", core);
}
