/* SPDX-License-Identifier: MIT */
/* Which core and package a CPU belongs to, for --per-core (from sysfs topology files). */
#ifndef TALLY_TOOLS_TOPOLOGY_H
#define TALLY_TOOLS_TOPOLOGY_H

#include <stdbool.h>

/* Reads /sys/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}. False when unreadable. */
bool topology_core_of(int cpu, int *package, int *core);

#endif
