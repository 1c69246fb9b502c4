/* SPDX-License-Identifier: MIT */
#include "report/machine.h"

#include <stdio.h>
#include <string.h>

#include <tally/probe.h>

static void add_pmu(struct machine *m, const tally_pmus *pmus, const char *name)
{
	if (!name || m->nr_pmus == sizeof(m->pmu_names) / sizeof(m->pmu_names[0]))
		return;
	for (size_t i = 0; i < m->nr_pmus; i++)
		if (strcmp(m->pmu_names[i], name) == 0)
			return;
	const tally_pmu *pmu = tally_pmus_find(pmus, name);
	TALLY_OPTS(tally_pmu_info, info);
	if (!pmu || tally_pmu_get_info(pmu, &info) < 0)
		return;
	m->pmu_names[m->nr_pmus] = info.name;
	m->pmu_types[m->nr_pmus++] = info.type;
}

void machine_describe(struct machine *m, const tally_pmus *pmus, struct report *r)
{
	memset(m, 0, sizeof(*m));
	/* The snapshot the events were parsed against spares the probe a second scan of sysfs. */
	TALLY_OPTS(tally_facts_opts, opts, .pmus = pmus);
	TALLY_OPTS(tally_facts, f);
	m->paranoid = TALLY_FACT_UNKNOWN;
	if (tally_facts_probe(&opts, &f) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", f.kernel_release);
		snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", f.cpu_model[0] ? f.cpu_model : "unknown");
		m->paranoid = f.perf_event_paranoid;
	}
	for (size_t i = 0; i < r->nr_events; i++)
		add_pmu(m, pmus, r->events[i].pmu);
	for (size_t i = 0; pmus && i < tally_pmus_count(pmus); i++) {
		TALLY_OPTS(tally_pmu_info, info);
		if (tally_pmu_get_info(tally_pmus_at(pmus, i), &info) == 0 && info.is_core &&
		    m->nr_core_pmus < sizeof(m->core_pmu_names) / sizeof(m->core_pmu_names[0]))
			m->core_pmu_names[m->nr_core_pmus++] = info.name;
	}
	r->kernel = m->kernel;
	r->cpu_model = m->cpu_model;
	r->paranoid = m->paranoid;
	r->nr_pmus = m->nr_pmus;
	r->pmu_names = m->pmu_names;
	r->pmu_types = m->pmu_types;
	r->nr_core_pmus = m->nr_core_pmus;
	r->core_pmu_names = m->core_pmu_names;
}
