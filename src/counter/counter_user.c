/* SPDX-License-Identifier: MIT */
/* Which groups of a counter read from user space, decided group by group as they open, and why not
 * (tally_counter_read_info). */
#include "counter/counter.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sysfs_file.h"
#include "userread/user_read.h"

#include <stdio.h>
#include <string.h>

/* What the target, the options and the event itself decide, before anything opens. */
static enum tally_read_reason reason_before_open(const tally_counter *c, const struct tly_counter_event *e)
{
	if (c->no_user_reads)
		return TALLY_READ_REASON_FORCED;
	if (!TLY_USER_READ_ARCH)
		return TALLY_READ_REASON_ARCH;
	if (c->target.kind != TALLY_TARGET_THREAD)
		return TALLY_READ_REASON_TARGET;
	if (c->target.inherit)
		return TALLY_READ_REASON_INHERIT;
	if (e->attr.type == PERF_TYPE_SOFTWARE || e->attr.type == PERF_TYPE_TRACEPOINT ||
	    e->attr.type == PERF_TYPE_BREAKPOINT || (e->pmu_name && tly_pmu_is_software_context(e->pmu_name)))
		return TALLY_READ_REASON_NO_PMU;
	return TALLY_READ_REASON_NONE;
}

/* The PMU's `rdpmc` format term (arm64's armv8_pmuv3: config1:1 on 6.1), which an event sets to be
 * readable from user space; false when the PMU has none (x86 needs no such request). */
static bool user_term(const char *sysfs_root, const char *pmu, const char *term, enum tly_config_field *field,
                      uint64_t *mask)
{
	char rel[512], path[4096], text[64];
	if (!pmu || (size_t)snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/format/%s", pmu, term) >= sizeof(rel))
		return false;
	return tly_path_join(path, sizeof(path), sysfs_root, rel) == 0 &&
	       tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE) > 0 &&
	       tly_format_parse(text, field, mask) == 0;
}

/* arm64's sysctl kernel.perf_user_access: 1 lets events that ask read their counters from EL0. */
static bool user_access_allowed(void)
{
	char path[4096], text[16];
	return tly_path_join(path, sizeof(path), tly_default_procfs_root(), "sys/kernel/perf_user_access") == 0 &&
	       tly_sysfs_read(path, text, sizeof(text), TLY_SYSFS_WHOLE) > 0 && strcmp(text, "0") != 0;
}

void tly_counter_user_prepare(tally_counter *c)
{
	const char *sysfs_root = c->sysfs_root ? c->sysfs_root : tly_default_sysfs_root();
	int access = -1; /* perf_user_access, read once, for the first event that needs it */
	c->user_groups = 0;
	for (size_t i = 0; i < c->nr; i++) {
		struct tly_counter_event *e = &c->ev[i];
		e->backend = TLY_READ_SYSCALL;
		e->own_reason = reason_before_open(c, e);
		e->user_term_mask = 0;
		enum tly_config_field field, long_field;
		uint64_t mask, long_mask;
		if (e->own_reason != TALLY_READ_REASON_NONE || !user_term(sysfs_root, e->pmu_name, "rdpmc", &field, &mask))
			continue;
		if (access < 0)
			access = user_access_allowed();
		if (!access) {
			e->own_reason = TALLY_READ_REASON_USER_ACCESS;
			continue;
		}
		/* A 64-bit (`long`) event of a CPU without PMUv3p5 chains two counters, which user space cannot
		 * read: the kernel refuses the open (EOPNOTSUPP) instead of counting it. Left to read(2). */
		uint64_t config[] = { e->attr.config, e->attr.config1, e->attr.config2 };
		if (user_term(sysfs_root, e->pmu_name, "long", &long_field, &long_mask) &&
		    (config[long_field] & long_mask))
			continue;
		e->user_term_field = field;
		e->user_term_mask = mask & -mask; /* the term's value 1 */
	}
}

/* Whether group g has topdown metric events (then led by slots: spec_topdown.c). The kernel resets the
 * slots and PERF_METRICS registers at each read(2) of such a group (seed 002: "rdpmc calls should not
 * be mixed with reading the metrics and slots counters through system calls"), so its user-space reads
 * read those registers themselves and every read(2) of it resets the group (user_group.h). */
static bool topdown_members(const tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	for (size_t k = 1; k < tly_plan_size(&c->plan, g); k++)
		if (c->ev[m[k]].topdown == TLY_TOPDOWN_METRIC)
			return true;
	return false;
}

void tly_counter_user_setup(tally_counter *c, size_t g)
{
	size_t size = tly_plan_size(&c->plan, g);
	const size_t *m = tly_plan_members(&c->plan, g);
	struct tly_counter_event *leader = &c->ev[m[0]];
	leader->backend = TLY_READ_SYSCALL;
	leader->user = NULL;
	leader->contiguous = true;
	for (size_t k = 1; k < size; k++)
		leader->contiguous &= m[k] == m[0] + k;
	/* From each event's own reason again: a group reopened in another shape (split at a read) decides anew. */
	bool all = true;
	for (size_t k = 0; k < size; k++) {
		c->ev[m[k]].read_reason = c->ev[m[k]].own_reason;
		all &= c->ev[m[k]].read_reason == TALLY_READ_REASON_NONE;
	}
	enum tally_read_reason why = TALLY_READ_REASON_GROUP;
	/* A PMU with a cpumask (uncore) counts on CPUs even for the calling thread. */
	if (all && (leader->ncpus != 1 || leader->nthreads != 1 || tally_cpus_at(tally_evsel_cpus(leader->evsel), 0) != -1))
		why = TALLY_READ_REASON_TARGET;
	else if (all)
		why = tly_user_group_new(leader->evsel, c->sysfs_root ? c->sysfs_root : tly_default_sysfs_root(),
		                         leader->topdown == TLY_TOPDOWN_SLOTS && topdown_members(c, g), &leader->user);
	if (why == TALLY_READ_REASON_NONE) {
		leader->backend = TLY_READ_USER;
		tly_user_group_stop(leader->user, !c->started);
		c->user_groups++;
	}
	for (size_t k = 0; k < size && why != TALLY_READ_REASON_NONE; k++)
		if (c->ev[m[k]].read_reason == TALLY_READ_REASON_NONE)
			c->ev[m[k]].read_reason = why;
	tly_counter_lean_refresh(c);
}

void tly_counter_user_stop(tally_counter *c, bool stopped)
{
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		struct tly_user_group *u = c->ev[tly_plan_members(&c->plan, g)[0]].user;
		if (u)
			tly_user_group_stop(u, stopped);
	}
	tly_counter_lean_refresh(c);
}

void tly_counter_user_drop(tally_counter *c, size_t g)
{
	struct tly_counter_event *leader = &c->ev[tly_plan_members(&c->plan, g)[0]];
	c->user_groups -= leader->backend == TLY_READ_USER;
	tly_user_group_free(leader->user);
	leader->user = NULL;
	leader->backend = TLY_READ_SYSCALL;
	tly_counter_lean_refresh(c);
}

/* Group g, open, as both lean paths lay it out: its events, results and window. */
static struct tly_lean_group lean_group(const tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	const struct tly_counter_event *leader = &c->ev[m[0]];
	const struct tly_window *w = leader->window;
	return (struct tly_lean_group){ .reader = TLY_NO_READER,
		                        .fd = -1,
		                        .n = tly_plan_size(&c->plan, g),
		                        .first = m[0],
		                        .events = leader,
		                        .results_at = m[0] * sizeof(struct tally_result),
		                        .start_gap = w->start_enabled - w->start_running,
		                        .start_running = w->start_running,
		                        .counts = leader->counts,
		                        .window = leader->window };
}

void tly_counter_lean_refresh(tally_counter *c)
{
	c->lean_end = c->syscall_end = c->lean;
	if (!c->lean || c->plan.nr != c->nr || c->plan.nr_groups == 0 ||
	    (c->user_groups != 0 && c->user_groups != c->plan.nr_groups))
		return;
	/* While an open or a drop is under way, some groups are not open. */
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		const struct tly_counter_event *leader = &c->ev[tly_plan_members(&c->plan, g)[0]];
		if (!leader->evsel || !leader->window)
			return;
	}
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		struct tly_lean_group *lg = &c->lean[g];
		*lg = lean_group(c, g);
		const struct tly_counter_event *leader = lg->events;
		const tally_evsel *ev = leader->evsel;
		bool common = leader->contiguous && !leader->has_bases && leader->nr_counts == 1;
		if (c->user_groups) {
			/* Read from user space: by its opening thread, not topdown. */
			lg->user = leader->user;
			lg->reader = common && !leader->user->td ? leader->user->reader : TLY_NO_READER;
		} else if (common && leader->ncpus * leader->nthreads == 1 && tly_evsel_reads_in_place(ev, lg->n)) {
			/* Read with read(2) at its one position, in tally's own layout. */
			lg->fd = ev->grid.fd[0];
			lg->bytes = ev->read_size;
			lg->buf = ev->read_buf;
			lg->ids = ev->group_ids;
		}
	}
	if (c->user_groups)
		c->lean_end = c->lean + c->plan.nr_groups;
	else
		c->syscall_end = c->lean + c->plan.nr_groups;
}

int tally_counter_read_info(const tally_counter *c, size_t i, struct tally_read_info *info)
{
	int err = tly_info_check(info, "tally_read_info");
	if (err)
		return err;
	if (!c || i >= c->nr)
		return tly_error(-EINVAL, "tally_counter_read_info: NULL counter or event %zu out of range", i);
	if (!c->open)
		return tly_error(-TALLY_ESTATE, "tally_counter_read_info: the counter is not open");
	const struct tly_counter_event *e = &c->ev[i];
	struct tally_read_info r = { .sz = info->sz };
	const struct tly_user_group *u = e->evsel ? c->ev[e->group].user : NULL;
	if (e->evsel)
		r.reason = e->read_reason;
	if (u) {
		r.path = TALLY_READ_USER;
		bool user = tly_user_group_last_was_user(u);
		r.last_reason = user || !u->syscall_reads ? TALLY_READ_REASON_NONE : u->syscall_reason;
		r.last_path = user ? TALLY_READ_USER : TALLY_READ_SYSCALL;
		r.user_reads = u->user_reads;
		r.syscall_reads = u->syscall_reads;
	} else {
		r.last_reason = r.reason;
	}
	return TLY_INFO_COPY(info, &r, tally_read_info);
}

const char *tally_read_reason_str(enum tally_read_reason reason)
{
	switch (reason) {
	case TALLY_READ_REASON_NONE:
		return "read from user space";
	case TALLY_READ_REASON_FORCED:
		return "read(2) asked for (no_user_reads)";
	case TALLY_READ_REASON_ARCH:
		return "no user-space counter read on this architecture";
	case TALLY_READ_REASON_TARGET:
		return "not the calling thread alone";
	case TALLY_READ_REASON_INHERIT:
		return "inherited by children: the kernel does not map such events";
	case TALLY_READ_REASON_NO_PMU:
		return "not a hardware counter";
	case TALLY_READ_REASON_TOPDOWN:
		return "topdown events (unused since 0.4: topdown groups are read from user space too)";
	case TALLY_READ_REASON_RDPMC_SYSFS:
		return "/sys/bus/event_source/devices/cpu/rdpmc is 0";
	case TALLY_READ_REASON_USER_ACCESS:
		return "sysctl kernel.perf_user_access is 0";
	case TALLY_READ_REASON_CAP_USER_RDPMC:
		return "the kernel does not let user space read it (cap_user_rdpmc 0)";
	case TALLY_READ_REASON_NO_USER_TIME:
		return "the kernel gives no user-space clock (cap_user_time 0)";
	case TALLY_READ_REASON_MMAP:
		return "its page could not be mapped";
	case TALLY_READ_REASON_GROUP:
		return "another event of its group is read with read(2)";
	case TALLY_READ_REASON_NOT_ON_COUNTER:
		return "not on a counter at that read (multiplexed out, stopped)";
	case TALLY_READ_REASON_OTHER_THREAD:
		return "read on another thread than the one that opened it";
	case TALLY_READ_REASON_BUSY:
		return "the kernel kept updating its page during the retries";
	}
	return "unknown reason";
}
