/* SPDX-License-Identifier: MIT */
/* The raw read layout of a counter read at one position (raw_read.h): made once, then its slow reads. */
#include "counter/raw_read.h"

#include "counter/counter.h"

#include "core/error.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void tly_raw_layout_free(struct tly_raw_layout *l)
{
	free(l->groups);
	free(l->order);
	free(l->unsupported);
	free(l->block);
	*l = (struct tly_raw_layout){ 0 };
}

int tly_raw_layout_new(const tally_counter *c, struct tly_raw_layout *out)
{
	size_t n = c->nr ? c->nr : 1, groups = c->plan.nr_groups ? c->plan.nr_groups : 1;
	struct tly_raw_layout l = {
		.groups = calloc(groups, sizeof(*l.groups)),
		.order = calloc(n, sizeof(*l.order)),
		.unsupported = calloc(n, sizeof(*l.unsupported)),
		.block = calloc(n, sizeof(*l.block)),
	};
	if (!l.groups || !l.order || !l.unsupported || !l.block) {
		tly_raw_layout_free(&l);
		return tly_error(-ENOMEM, "out of memory");
	}
	l.size = TLY_RAW_NOW + 1;
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		const size_t *m = tly_plan_members(&c->plan, g);
		const struct tly_counter_event *leader = &c->ev[m[0]];
		size_t size = leader->stride;
		if (leader->ncpus * leader->nthreads != 1) {
			tly_raw_layout_free(&l);
			return tly_error(-EINVAL, "a counter read at one position only: group %zu has %zu", g,
			                 leader->ncpus * leader->nthreads);
		}
		const tally_evsel *ev = leader->evsel;
		bool direct = leader->backend == TLY_READ_SYSCALL && !leader->has_bases &&
		              tly_evsel_reads_in_place(ev, size);
		memcpy(l.order + c->plan.first[g], m, size * sizeof(*m));
		size_t stride = direct ? 2 : 1;
		l.groups[g] = (struct tly_raw_group){
			.first = leader->contiguous ? m[0] : SIZE_MAX,
			.leader = leader, .members = l.order + c->plan.first[g], .at = l.size, .nr = size, .stride = stride,
			.fd = direct ? ev->grid.fd[0] : -1, .bytes = ev->read_size, .ids = ev->group_ids,
			.window = leader->window,
			.user = leader->backend == TLY_READ_USER && !ev->tool && !leader->has_bases &&
			                1 + ev->nr_members == size ? leader->user : NULL,
		};
		if (l.groups[g].user)
			l.groups[g].pages = (tly_page *const *)l.groups[g].user->pages;
		/* The kernel gives time_zero with cap_user_time (which user reads need) unless the event has its
		 * own clockid (x86 and arm64's arch_perf_update_userpage), which tally never asks. */
		if (l.groups[g].user && !l.clock && (l.groups[g].user->pages[0]->capabilities & TLY_CAP_USER_TIME_ZERO))
			l.clock = l.groups[g].user->pages[0];
		l.size += 3 + stride * size;
	}
	l.groups_end = l.groups + c->plan.nr_groups;
	l.lean = c->plan.nr_groups > 0;
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		const struct tly_user_group *u = l.groups[g].user;
		l.lean &= u && !u->td && l.groups[g].first != SIZE_MAX &&
		          (u->pages[0]->capabilities & TLY_CAP_USER_TIME_ZERO);
	}
	for (size_t i = 0; i < c->nr; i++)
		if (!c->ev[i].evsel)
			l.unsupported[l.nr_unsupported++] = i;
	*out = l;
	return 0;
}

uint64_t tly_raw_now(const struct tly_raw_layout *l)
{
	/* The page's clock, unless the page gives none: a group revoked to read(2) after faults reads a
	 * zero page (user_group.c), without cap_user_time_zero, and a moment of 0 would make every later
	 * call's begin one not taken, so that its end counted nothing. */
	uint64_t now = l->clock ? tly_page_now(l->clock, tly_arch_read_clock) : 0;
	if (__builtin_expect(now != 0, 1))
		return now;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO: no system call */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int tly_counter_read_raw_slot(tally_counter *c, const struct tly_raw_layout *l, const struct tly_raw_group *gr,
                              uint64_t *buf)
{
	int err = tly_counter_read_slot(c, gr->leader, 0, l->block, &buf[1], &buf[2]);
	if (err)
		return tly_counter_fail(c, err);
	buf[0] = gr->nr;
	buf[1] += gr->window->start_enabled;
	buf[2] += gr->window->start_running;
	for (size_t k = 0; k < gr->nr; k++)
		buf[3 + gr->stride * k] = l->block[k].value;
	return 0;
}
