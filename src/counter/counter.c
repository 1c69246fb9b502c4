/* SPDX-License-Identifier: MIT */
/* The counter handle: made from a spec, its names and notes, the launched command's pid and exit. It is
 * made here and freed here (closing through counter_open.c); the counting engine's other files are listed
 * in counter.h. */
#include "counter/counter.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/out_array.h"
#include "machine/pmu.h"
#include "machine/pmu_counters.h"
#include "spec/event_list.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_events(tally_counter *c, const tally_pmus *pmus)
{
	for (size_t i = 0; i < c->nr; i++) {
		struct tally_event_info info = { .sz = sizeof(info) };
		int err = tally_events_at(c->events, i, &info);
		if (err)
			return err;
		struct tly_counter_event *e = &c->ev[i];
		e->attr = *info.attr;
		e->name = info.name;
		e->pmu_name = info.pmu;
		e->origin = info.origin;
		e->spec_group = info.group;
		e->tool = c->events->v[i].tool;
		e->topdown = c->events->v[i].topdown;
		e->weak = c->events->v[i].weak;
		if (info.origin + 1 > c->nr_origins)
			c->nr_origins = info.origin + 1;
		/* The software context's PMUs are not looked up: their events carry the PMU's own type, which
		 * is what packing keys on, and count on any CPU, so no cpumask (nor the PMU list) is read. */
		bool software = info.pmu && tly_pmu_is_software_context(info.pmu);
		const tally_pmu *pmu = info.pmu && !software ? tally_pmus_find(pmus, info.pmu) : NULL;
		e->pmu = tly_pack_pmu(&e->attr, pmu);
		/* The counters it may take, where its PMU's vendor table counts them; a topdown metric is read
		 * with slots and takes none of its own. */
		struct tly_pmu_counts counts;
		if (pmu && tly_pmu_counts(pmu, &counts)) {
			e->nr_generic = counts.generic;
			e->nr_fixed = counts.fixed;
			if (e->topdown != TLY_TOPDOWN_METRIC)
				e->counters = tly_pmu_event_counters(pmu, &counts, &e->attr, c->events->v[i].counters);
		}
		/* Only a PMU that may limit its CPUs has a cpumask (or hybrid cpus) to read. */
		struct tally_pmu_info pi = { .sz = sizeof(pi) };
		if (!pmu || tally_pmu_get_info(pmu, &pi) != 0)
			continue;
		const char *mask = pi.cpumask ? pi.cpumask : pi.cpus;
		if (mask && !(e->mask = strdup(mask)))
			return tly_error(-ENOMEM, "out of memory");
	}
	return 0;
}

int tally_counter_new(const char *spec, const struct tally_counter_opts *opts, tally_counter **out)
{
	if (!spec || !out)
		return tly_error(-EINVAL, "tally_counter_new: NULL spec or out");
	*out = NULL;
	if (!TLY_OPTS_VALID(opts, tally_counter_opts))
		return -TALLY_EOPTS;
	tally_counter *c = calloc(1, sizeof(*c));
	if (!c)
		return tly_error(-ENOMEM, "out of memory");
	c->no_packing = TLY_OPT(opts, no_packing, false);
	c->no_inherit = TLY_OPT(opts, no_inherit, false);
	c->no_user_reads = TLY_OPT(opts, no_user_reads, false);
	c->no_user_only_retry = TLY_OPT(opts, no_user_only_retry, false);
	c->unsupported_is_error = TLY_OPT(opts, unsupported_is_error, false);
	c->open_without_events = TLY_OPT(opts, open_without_events, false);
	const char *root = TLY_OPT(opts, sysfs_root, NULL);
	int err = 0;
	if (root && !(c->sysfs_root = strdup(root)))
		err = tly_error(-ENOMEM, "out of memory");

	const tally_pmus *pmus = TLY_OPT(opts, pmus, NULL);
	tally_pmus *loaded = NULL;
	if (!err && !pmus) {
		err = tly_pmus_new(root, &loaded);
		pmus = loaded;
	}
	const char *metrics = TLY_OPT(opts, metrics, NULL);
	char *combined = NULL;
	if (!err && metrics)
		err = tly_counter_metrics_spec(c, spec, metrics, pmus, root, &combined);
	const char *text = combined ? combined : spec;
	if (!err && !*text && c->open_without_events) {
		/* No event at all: a counter of time alone (perf stat -n), which the parser would refuse as an
		 * empty spec. */
		if (!(c->events = calloc(1, sizeof(*c->events))))
			err = tly_error(-ENOMEM, "out of memory");
	} else if (!err) {
		TALLY_OPTS(tally_parse_opts, parse, .pmus = pmus, .sysfs_root = root,
		           .space = TLY_OPT(opts, space, TALLY_SPACE_AS_WRITTEN));
		err = tally_events_parse(text, &parse, &c->events);
	}
	free(combined);
	if (!err) {
		c->nr = tally_events_count(c->events);
		c->ev = calloc(c->nr ? c->nr : 1, sizeof(*c->ev));
		c->notes = calloc(c->nr ? c->nr : 1, NOTE_MAX);
		if (!c->ev || !c->notes)
			err = tly_error(-ENOMEM, "out of memory");
	}
	if (!err && c->nr == 0 && !c->open_without_events)
		err = tly_error(-TALLY_ESPEC, "the event spec '%s' names no event", spec);
	if (!err) {
		for (size_t i = 0; i < c->nr; i++)
			c->ev[i].note = c->notes + i * NOTE_MAX;
		err = copy_events(c, pmus);
	}
	tally_pmus_free(loaded);
	if (err) {
		tally_counter_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void tally_counter_free(tally_counter *c)
{
	if (!c)
		return;
	tally_counter_close(c);
	for (size_t i = 0; c->ev && i < c->nr; i++)
		free(c->ev[i].mask);
	free(c->ev);
	free(c->notes);
	tly_plan_fini(&c->preview);
	free(c->preview_attrs);
	free(c->sysfs_root);
	free(c->metrics);
	tally_events_free(c->events);
	free(c);
}

size_t tally_counter_count(const tally_counter *c)
{
	return c ? c->nr : 0;
}

const tally_events *tally_counter_events(const tally_counter *c)
{
	return c ? c->events : NULL;
}

const char *tally_counter_name(const tally_counter *c, size_t i)
{
	return c && i < c->nr ? c->ev[i].name : NULL;
}

const char *tally_counter_note(const tally_counter *c, size_t i)
{
	return c && i < c->nr ? c->ev[i].note : "";
}

const char *tally_counter_last_error(const tally_counter *c)
{
	return c ? c->last_error : "";
}

/* ---- launched commands ---------------------------------------------------------------------------- */

pid_t tally_counter_pid(const tally_counter *c)
{
	return c && c->open ? c->target.command.pid : 0;
}

int tally_counter_wait(tally_counter *c, struct tally_exit *exit, size_t exit_sz)
{
	if (!c || !exit)
		return tly_error(-EINVAL, "tally_counter_wait: NULL argument");
	if (!tly_out_valid(exit_sz, TLY_EXIT_SZ_V1, alignof(struct tally_exit), "tally_exit"))
		return tly_counter_fail(c, -TALLY_EOPTS);
	if (!c->open || c->target.command.pid <= 0 || !c->target.command.released)
		return tly_counter_fail(c, tly_error(-TALLY_ESTATE,
		                                     "tally_counter_wait: no launched command has been started"));
	int err = tly_command_wait(&c->target.command);
	if (err)
		return tly_counter_fail(c, err);
	tly_out_put(exit, exit_sz, &c->target.command.exit, TLY_KNOWN_SIZE(tally_exit));
	return 0;
}

int tally_counter_wait_tasks(tally_counter *c, int timeout_ms, int wake_fd)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_wait_tasks: NULL counter");
	if (!c->open)
		return tly_counter_not_open(c, "tally_counter_wait_tasks");
	int r = tly_target_wait_tasks(&c->target, timeout_ms, wake_fd);
	return r < 0 ? tly_counter_fail(c, r) : r;
}
