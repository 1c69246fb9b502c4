/* SPDX-License-Identifier: MIT */
/* A list of evsels sharing CPU and thread maps: groups, open/close, ioctls and reads of the whole list. */
#include "core/error.h"
#include "core/out_array.h"
#include "evsel/cpumap.h"
#include "evsel/evsel.h"
#include "evsel/threadmap.h"

#include <stdalign.h>
#include <stdlib.h>

struct tally_evlist {
	tally_evsel **evsels;
	size_t nr;
	tally_cpus *cpus;        /* NULL: the dummy "any CPU" map */
	tally_threads *threads;  /* NULL: the calling thread */
	bool open;
	size_t nr_counts;        /* slots of tally_evlist_read, known once open */
};

int tally_evlist_new(tally_evlist **out)
{
	if (!out)
		return tly_error(-EINVAL, "tally_evlist_new: NULL argument");
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : tly_error(-ENOMEM, "event list: out of memory");
}

void tally_evlist_free(tally_evlist *evlist)
{
	if (!evlist)
		return;
	tally_evlist_close(evlist);
	for (size_t i = 0; i < evlist->nr; i++)
		tally_evsel_free(evlist->evsels[i]);
	free(evlist->evsels);
	tally_cpus_free(evlist->cpus);
	tally_threads_free(evlist->threads);
	free(evlist);
}

static bool in_list(const tally_evlist *evlist, const tally_evsel *evsel)
{
	for (size_t i = 0; i < evlist->nr; i++)
		if (evlist->evsels[i] == evsel)
			return true;
	return false;
}

int tally_evlist_add(tally_evlist *evlist, tally_evsel *evsel)
{
	if (!evlist || !evsel) {
		tally_evsel_free(evsel);
		return tly_error(-EINVAL, "tally_evlist_add: NULL argument");
	}
	/* Already the list's: freeing it here, or listing it twice, would free it twice. */
	if (in_list(evlist, evsel))
		return tly_error(-EINVAL, "event '%s' is already in the list", tally_evsel_name(evsel));
	if (evlist->open) {
		int err = tly_error(-TALLY_ESTATE, "event '%s': cannot join an open event list",
		                    tally_evsel_name(evsel));
		tally_evsel_free(evsel);
		return err;
	}
	tally_evsel **grown = realloc(evlist->evsels, (evlist->nr + 1) * sizeof(*grown));
	if (!grown) {
		int err = tly_error(-ENOMEM, "event '%s': out of memory", tally_evsel_name(evsel));
		tally_evsel_free(evsel);
		return err;
	}
	evlist->evsels = grown;
	evlist->evsels[evlist->nr++] = evsel;
	return 0;
}

size_t tally_evlist_count(const tally_evlist *evlist)
{
	return evlist ? evlist->nr : 0;
}

tally_evsel *tally_evlist_at(const tally_evlist *evlist, size_t i)
{
	return evlist && i < evlist->nr ? evlist->evsels[i] : NULL;
}

int tally_evlist_set_maps(tally_evlist *evlist, const tally_cpus *cpus, const tally_threads *threads)
{
	if (!evlist)
		return tly_error(-EINVAL, "tally_evlist_set_maps: NULL evlist");
	if (evlist->open)
		return tly_error(-TALLY_ESTATE, "the maps of an open event list cannot change");
	tally_cpus *cpus_copy = NULL;
	tally_threads *threads_copy = NULL;
	int err = cpus ? tly_cpus_dup(cpus, &cpus_copy) : 0;
	if (!err && threads)
		err = tly_threads_dup(threads, &threads_copy);
	if (err) {
		tally_cpus_free(cpus_copy);
		return err;
	}
	tally_cpus_free(evlist->cpus);
	tally_threads_free(evlist->threads);
	evlist->cpus = cpus_copy;
	evlist->threads = threads_copy;
	return 0;
}

int tally_evlist_set_leader(tally_evlist *evlist)
{
	if (!evlist)
		return tly_error(-EINVAL, "tally_evlist_set_leader: NULL evlist");
	if (evlist->open)
		return tly_error(-TALLY_ESTATE, "the groups of an open event list cannot change");
	/* Dissolve whatever groups exist, then gather everything under the first. */
	for (size_t i = 0; i < evlist->nr; i++) {
		int err = tally_evsel_set_leader(evlist->evsels[i], NULL);
		if (err)
			return err;
	}
	for (size_t i = 1; i < evlist->nr; i++) {
		int err = tally_evsel_set_leader(evlist->evsels[i], evlist->evsels[0]);
		if (err)
			return err;
	}
	return 0;
}

/* tally_evlist_read fills members' slots from their leader's read: both must be in the list. */
static int check_groups_in_list(const tally_evlist *evlist)
{
	for (size_t i = 0; i < evlist->nr; i++) {
		tally_evsel *e = evlist->evsels[i];
		if (!in_list(evlist, e->leader))
			return tly_error(-EINVAL, "event '%s' belongs to the group of '%s', which is not in the list",
			                 e->name, e->leader->name);
		for (size_t k = 0; k < e->nr_members; k++)
			if (!in_list(evlist, e->members[k]))
				return tly_error(-EINVAL, "group member '%s' of '%s' is not in the list",
				                 e->members[k]->name, e->name);
	}
	return 0;
}

int tally_evlist_open(tally_evlist *evlist)
{
	if (!evlist)
		return tly_error(-EINVAL, "tally_evlist_open: NULL evlist");
	if (evlist->open)
		return tly_error(-TALLY_ESTATE, "the event list is already open");
	int err = check_groups_in_list(evlist);
	/* Leaders (and lone events) first, so that every member finds its leader's fds. */
	for (int members = 0; members < 2 && !err; members++)
		for (size_t i = 0; i < evlist->nr && !err; i++) {
			tally_evsel *e = evlist->evsels[i];
			if ((e->leader != e) == members)
				err = tally_evsel_open(e, evlist->cpus, evlist->threads);
		}
	if (err) {
		for (size_t i = 0; i < evlist->nr; i++)
			tally_evsel_close(evlist->evsels[i]);
		return err;
	}
	size_t slot = 0;
	for (size_t i = 0; i < evlist->nr; i++) {
		tally_evsel *e = evlist->evsels[i];
		e->evlist_slot = slot;
		slot += e->grid.ncpus * e->grid.nthreads;
	}
	evlist->nr_counts = slot;
	evlist->open = true;
	tly_log(TALLY_LOG_DEBUG, "opened an event list of %zu events, %zu counts", evlist->nr, slot);
	return 0;
}

void tally_evlist_close(tally_evlist *evlist)
{
	if (!evlist)
		return;
	for (size_t i = 0; i < evlist->nr; i++)
		tally_evsel_close(evlist->evsels[i]);
	evlist->open = false;
	evlist->nr_counts = 0;
}

/* Leaders carry PERF_IOC_FLAG_GROUP to their members, so one call per group leader covers the list. */
static int for_each_leader(tally_evlist *evlist, int (*op)(tally_evsel *), const char *what)
{
	if (!evlist)
		return tly_error(-EINVAL, "%s: NULL evlist", what);
	if (!evlist->open)
		return tly_error(-TALLY_ESTATE, "%s: the event list is not open", what);
	for (size_t i = 0; i < evlist->nr; i++) {
		tally_evsel *e = evlist->evsels[i];
		if (e->leader != e)
			continue;
		int err = op(e);
		if (err)
			return err;
	}
	return 0;
}

int tally_evlist_enable(tally_evlist *evlist)
{
	return for_each_leader(evlist, tally_evsel_enable, "tally_evlist_enable");
}

int tally_evlist_disable(tally_evlist *evlist)
{
	return for_each_leader(evlist, tally_evsel_disable, "tally_evlist_disable");
}

int tally_evlist_reset(tally_evlist *evlist)
{
	return for_each_leader(evlist, tally_evsel_reset, "tally_evlist_reset");
}

size_t tally_evlist_nr_counts(const tally_evlist *evlist)
{
	return evlist && evlist->open ? evlist->nr_counts : 0;
}

size_t tally_evlist_count_index(const tally_evlist *evlist, size_t i, size_t cpu_idx, size_t thread_idx)
{
	if (!evlist || !evlist->open || i >= evlist->nr)
		return (size_t)-1;
	const tally_evsel *e = evlist->evsels[i];
	if (cpu_idx >= e->grid.ncpus || thread_idx >= e->grid.nthreads)
		return (size_t)-1;
	return e->evlist_slot + tly_fdgrid_slot(&e->grid, cpu_idx, thread_idx);
}

int tally_evlist_read(tally_evlist *evlist, struct tally_count *counts, size_t n, size_t count_sz)
{
	if (!evlist || !counts)
		return tly_error(-EINVAL, "tally_evlist_read: NULL argument");
	if (!tly_out_valid(count_sz, TLY_COUNT_SZ_V1, alignof(struct tally_count), "tally_count"))
		return -TALLY_EOPTS;
	if (!evlist->open)
		return tly_error(-TALLY_ESTATE, "tally_evlist_read: the event list is not open");
	if (n < evlist->nr_counts)
		return tly_error(-ENOSPC, "tally_evlist_read: %zu counts needed, %zu given", evlist->nr_counts, n);
	for (size_t i = 0; i < evlist->nr; i++) {
		tally_evsel *e = evlist->evsels[i];
		if (e->leader != e)
			continue;
		size_t group = 1 + e->nr_members;
		for (size_t c = 0; c < e->grid.ncpus; c++)
			for (size_t t = 0; t < e->grid.nthreads; t++) {
				size_t slot = tly_fdgrid_slot(&e->grid, c, t);
				/* Through the leader's scratch (a lone event's own), then out to each member's
				 * slot. */
				struct tally_count one, *dst = group == 1 ? &one : e->group_counts;
				int err = tally_evsel_read_group(e, c, t, dst, group, sizeof(*dst));
				if (err)
					return err;
				tly_out_put(tly_out_at(counts, e->evlist_slot + slot, count_sz), count_sz, &dst[0],
				            sizeof(dst[0]));
				for (size_t k = 0; k < e->nr_members; k++)
					tly_out_put(tly_out_at(counts, e->members[k]->evlist_slot + slot, count_sz), count_sz,
					            &dst[1 + k], sizeof(dst[1 + k]));
			}
	}
	return 0;
}
