/* SPDX-License-Identifier: MIT */
/* Facts about the machine for the JSON document: kernel, CPU model, paranoid level, PMUs. */
#ifndef TALLY_TOOLS_MACHINE_H
#define TALLY_TOOLS_MACHINE_H

#include <stdint.h>
#include <tally/pmu.h>

#include "report/report.h"

struct machine {
	char kernel[65];
	char cpu_model[128];
	int paranoid;
	size_t nr_pmus;            /* PMUs used by the events */
	const char *pmu_names[32];
	uint32_t pmu_types[32];
	size_t nr_core_pmus;
	const char *core_pmu_names[8];
};

/* Fills m from the library's facts (tally_facts_probe over pmus), with the PMUs the report's events use (names point
 * into pmus), and points the report's metadata fields at it. */
void machine_describe(struct machine *m, const tally_pmus *pmus, struct report *r);

#endif
