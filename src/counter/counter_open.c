/* SPDX-License-Identifier: MIT */
/* Opening a counter: the plan of groups, and the open/retry state machine that reshapes it as the kernel
 * answers (a full group splits, an unsupported event leaves its group, kernel mode or perf's exclude_guest
 * refused are retried without them); closing. */
#include "counter/counter.h"

#include "core/error.h"
#include "core/opts.h"
#include "core/sys.h"
#include "diagnose/diagnose.h"
#include "evsel/group_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the kernel's answer to opening an event means for the counter. */
enum open_outcome { UNSUPPORTED, NO_ROOM, RETRY_USER_ONLY, RETRY_WITHOUT_GUEST_BITS, FATAL };

static enum open_outcome classify(tally_counter *c, struct tly_counter_event *e, int err, bool packed_member)
{
	switch (-err) {
	case EACCES:
	case EPERM: {
		if (c->no_user_only_retry || e->attr.exclude_kernel)
			return FATAL;
		struct tly_diag d = { .op = TLY_DIAG_OPEN, .err = -err, .event = e->name, .attr = &e->attr,
			              .cpu_wide = c->target.cpu_wide, .facts = tly_facts_cache_get(&c->facts) };
		return tly_diag_retry_user_only(&d) ? RETRY_USER_ONLY : FATAL;
	}
	case EINVAL:
	case ENOSPC:
		/* A member that does not fit: the group is full. (Alone, EINVAL means the event itself.) */
		if (packed_member)
			return NO_ROOM;
		/* Every event carries perf's default exclude_guest, and PMUs that count no guest/host split
		 * (x86 msr, many uncore PMUs) refuse it with EINVAL: drop both bits and try again, as perf stat
		 * does ("switching off exclude_guest, exclude_host"). */
		if (-err == EINVAL && (e->attr.exclude_guest || e->attr.exclude_host))
			return RETRY_WITHOUT_GUEST_BITS;
		return -err == EINVAL ? UNSUPPORTED : FATAL;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case ENXIO:
	case TALLY_ENOPMU:
		return UNSUPPORTED;
	default:
		return FATAL;
	}
}

void tly_counter_drop_group(tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	tly_counter_user_drop(c, g);
	/* Members first, so that freeing the leader finds no members left to detach. */
	for (size_t k = tly_plan_size(&c->plan, g); k-- > 0;) {
		tally_evsel_free(c->ev[m[k]].evsel);
		c->ev[m[k]].evsel = NULL;
		/* No readings either: a result of an event without an evsel is made of none. */
		c->ev[m[k]].nr_counts = 0;
	}
	/* The read(2) lean plan read the group's descriptors and buffer. */
	tly_counter_lean_refresh(c);
}

struct perf_event_attr tly_counter_attr(const struct tly_counter_event *e, bool leader, bool inherit, bool enable_on_exec)
{
	struct perf_event_attr attr = e->attr;
	/* perf's arrangement: the leader starts disabled and enables the group; members follow it. */
	attr.disabled = leader;
	attr.inherit = inherit;
	attr.enable_on_exec = leader && enable_on_exec;
	/* The PMU term that grants reads from user space (arm64's rdpmc), where the open chose them. */
	if (e->user_term_mask) {
		__u64 *config[] = { &attr.config, &attr.config1, &attr.config2 };
		*config[e->user_term_field] |= e->user_term_mask;
	}
	return attr;
}

static int make_evsel(tally_counter *c, size_t i, bool leader)
{
	struct tly_counter_event *e = &c->ev[i];
	/* Only before the command's exec: after it, enable_on_exec would never fire. */
	struct perf_event_attr attr = tly_counter_attr(e, leader, c->target.inherit,
	                                               c->target.enable_on_exec && !c->target.command.released);
	int err = e->tool ? tly_evsel_new_tool(&attr, e->tool, tly_target_cpu_time, &c->target, &e->evsel)
	                  : tally_evsel_new(&attr, &e->evsel);
	if (!err)
		err = tally_evsel_set_name(e->evsel, e->name);
	return err;
}

static int open_member(tally_counter *c, size_t i)
{
	return tally_evsel_open(c->ev[i].evsel, NULL, NULL);
}

static int open_leader(tally_counter *c, size_t i)
{
	tally_cpus *cpus = NULL;
	int err = tly_target_event_cpus(&c->target, c->ev[i].mask, &cpus);
	if (err == -ENODEV)
		return tly_error(-ENODEV, "event '%s': none of the requested CPUs is in its PMU's cpumask (%s)",
		                 c->ev[i].name, c->ev[i].mask);
	if (!err)
		err = tally_evsel_open(c->ev[i].evsel, cpus, c->target.threads);
	tally_cpus_free(cpus);
	return err;
}

/* Explains the failed open of member k of group g (cause and fix from the machine's facts, in the group's
 * context) as the last error. Returns the code to report. A failure the layer below already diagnosed
 * (no hardware PMU) keeps its text. */
static int explain_open_failure(tally_counter *c, size_t g, size_t k, int err)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	size_t size = tly_plan_size(&c->plan, g);
	const struct tly_counter_event *e = &c->ev[m[k]];
	if (err <= -TALLY_EBASE)
		return err;
	/* A CPU-wide event of a PMU with a cpumask gets ENODEV from open_leader, which said why. */
	if (err == -ENODEV && c->target.cpu_wide && e->mask)
		return err;
	struct tly_diag d = {
		.op = TLY_DIAG_OPEN,
		.err = -err,
		.event = e->name,
		.attr = &e->attr,
		.pmu = e->pmu_name,
		.leader = size > 1 ? c->ev[m[0]].name : NULL,
		.leader_pmu = size > 1 ? c->ev[m[0]].pmu_name : NULL,
		.group_size = size,
		.group_index = k,
		.leader_read_format = tly_evsel_read_format(c->ev[m[0]].attr.read_format, size > 1),
		.cpu_wide = c->target.cpu_wide,
		.fds_needed = c->nr * tally_cpus_count(c->target.cpus) * tally_threads_count(c->target.threads),
		.facts = tly_facts_cache_get(&c->facts),
	};
	return tly_diag_error(&d);
}

/* Marks event i not supported with the current last error as its reason. */
static int mark_unsupported(tally_counter *c, size_t i, int err)
{
	struct tly_counter_event *e = &c->ev[i];
	e->error = err;
	tly_counter_note_add(e, "%s", tally_last_error());
	if (c->unsupported_is_error)
		return err;
	tly_log(TALLY_LOG_INFO, "%s: not supported: %s", e->name, tally_last_error());
	return 0;
}

/* Slots could not lead group g (just removed from it): its metric events cannot open either (the kernel
 * opens one only after slots), so they are marked not supported too, unopened, instead of being tried
 * as leaders or alone. Returns 1 when group g is left with other events, 0 when it went with its last
 * metric event, or a fatal code (unsupported_is_error). */
static int drop_orphan_metrics(tally_counter *c, size_t g, const char *slots, int err)
{
	for (size_t k = 0; k < tly_plan_size(&c->plan, g);) {
		size_t i = tly_plan_members(&c->plan, g)[k];
		if (c->ev[i].topdown != TLY_TOPDOWN_METRIC) {
			k++;
			continue;
		}
		tly_error(err, "'%s' opens only in a group led by slots (the kernel's rule for topdown metrics), "
		          "and '%s' cannot be counted here", c->ev[i].name, slots);
		int fatal = mark_unsupported(c, i, err);
		if (fatal)
			return fatal;
		bool last = tly_plan_size(&c->plan, g) == 1;
		tly_plan_remove(&c->plan, g, k);
		if (last)
			return 0;
	}
	return 1;
}

/* Remembers, for the members left in an explicit group, the first leader it lost. */
static void leader_gone(tally_counter *c, size_t g, const char *gone)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	for (size_t k = 0; k < tly_plan_size(&c->plan, g); k++)
		if (!c->ev[m[k]].lost_leader)
			c->ev[m[k]].lost_leader = gone;
}

/* Once every group is open: one note per counted event whose explicit group lost its leader, naming the
 * leader it has now. A member that could not be opened either says only why (its leader does not matter). */
static void note_regrouped(tally_counter *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		struct tly_counter_event *e = &c->ev[i];
		if (e->lost_leader && !e->error && e->group >= 0)
			tly_counter_note_add(e, "'%s' could not lead its group here, so the other members were opened "
			                     "as a group of their own, led by '%s'", e->lost_leader, c->ev[e->group].name);
	}
}

/* Group g is open: its events learn their group, where their readings go and their (new) window. */
static void group_opened(tally_counter *c, size_t g)
{
	size_t size = tly_plan_size(&c->plan, g), k;
	const size_t *m = tly_plan_members(&c->plan, g);
	for (k = 0; k < size; k++)
		c->ev[m[k]].group = (int)m[0];
	struct tly_counter_event *leader = &c->ev[m[0]];
	leader->ncpus = tally_cpus_count(tally_evsel_cpus(leader->evsel));
	leader->nthreads = tally_threads_count(tally_evsel_threads(leader->evsel));
	leader->idle_enabled = 0;
	/* New descriptors: their times start at zero (also when a never-run group reopens). */
	struct tly_window *window = c->windows + m[0] * c->max_slots;
	memset(window, 0, leader->ncpus * leader->nthreads * sizeof(*window));
	uint64_t epoch = ++c->epochs;
	memset(c->bases + c->plan.first[g] * c->max_slots, 0,
	       leader->ncpus * leader->nthreads * size * sizeof(*c->bases));
	leader->has_bases = false;
	for (k = 0; k < size; k++) {
		struct tly_counter_event *e = &c->ev[m[k]];
		e->counts = c->counts + c->plan.first[g] * c->max_slots + k;
		e->stride = size;
		e->nr_counts = 0;
		e->window = window;
		e->epoch = epoch;
	}
	tly_counter_user_setup(c, g);
}

/* Opens group g of the plan, reshaping the plan as the kernel answers: a packed group that is too big
 * splits, an unsupported event leaves its group. Returns 1 when group g is open, 0 when it was removed
 * (no event left), or a fatal negative code (nothing of group g open). */
int tly_counter_open_group(tally_counter *c, size_t g)
{
	for (;;) {
		size_t size = tly_plan_size(&c->plan, g);
		const size_t *m = tly_plan_members(&c->plan, g);
		bool packed = c->plan.packed[g];
		int err = 0;
		for (size_t k = 0; k < size && !err; k++)
			err = make_evsel(c, m[k], k == 0);
		for (size_t k = 1; k < size && !err; k++)
			err = tally_evsel_set_leader(c->ev[m[k]].evsel, c->ev[m[0]].evsel);
		if (err) {
			tly_counter_drop_group(c, g);
			return err;
		}

		size_t k = 0;
		for (; k < size; k++) {
			err = k == 0 ? open_leader(c, m[0]) : open_member(c, m[k]);
			if (err)
				break;
		}
		if (k == size) {
			group_opened(c, g);
			return 1;
		}
		/* Event k failed: what the kernel's answer means decides how the plan changes. The thread it
		 * refused as gone is kept before the evsel goes, for tally_counter_open to leave out. */
		if (err == -ESRCH)
			c->target.refused = c->ev[m[k]].evsel->failed.tid;
		enum open_outcome outcome = classify(c, &c->ev[m[k]], err, packed && k > 0);
		tly_counter_drop_group(c, g);
		if (outcome == UNSUPPORTED || outcome == FATAL)
			err = explain_open_failure(c, g, k, err);

		struct tly_counter_event *e = &c->ev[m[k]];
		switch (outcome) {
		case RETRY_USER_ONLY: {
			char note[NOTE_MAX];
			tly_diag_user_only_note(e->name, tly_facts_cache_get(&c->facts), note, sizeof(note));
			e->attr.exclude_kernel = 1;
			e->user_only = true;
			tly_counter_note_add(e, "%s", note);
			tly_log(TALLY_LOG_INFO, "%s", note);
			continue;
		}
		case RETRY_WITHOUT_GUEST_BITS:
			tly_log(TALLY_LOG_DEBUG, "'%s' refuses exclude_guest/exclude_host: opening it without them",
			        e->name);
			e->attr.exclude_guest = 0;
			e->attr.exclude_host = 0;
			continue;
		case NO_ROOM:
			tly_log(TALLY_LOG_DEBUG, "group led by '%s' is full at %zu events; '%s' starts another",
			        c->ev[m[0]].name, k, e->name);
			tly_plan_split(&c->plan, g, k);
			continue;
		case UNSUPPORTED: {
			int fatal = mark_unsupported(c, m[k], err);
			if (fatal)
				return fatal;
			const char *gone = e->name;
			bool slots_gone = k == 0 && e->topdown == TLY_TOPDOWN_SLOTS;
			tly_plan_remove(&c->plan, g, k);
			if (size == 1)
				return 0;
			if (slots_gone) {
				int left = drop_orphan_metrics(c, g, gone, err);
				if (left <= 0)
					return left;
			}
			if (k == 0 && !packed)
				leader_gone(c, g, gone);
			continue;
		}
		case FATAL:
			return err;
		}
	}
}

static void close_events(tally_counter *c)
{
	for (size_t g = 0; g < c->plan.nr_groups; g++)
		tly_counter_drop_group(c, g);
	for (size_t i = 0; i < c->nr; i++) {
		c->ev[i].counts = NULL;
		c->ev[i].nr_counts = 0;
		c->ev[i].window = NULL;
	}
	free(c->counts);
	free(c->windows);
	free(c->bases);
	free(c->value_results);
	free(c->lean);
	c->lean = c->lean_end = c->syscall_end = NULL;
	c->counts = NULL;
	c->windows = NULL;
	c->bases = NULL;
	c->value_results = NULL;
}

/* Room for the readings and windows of every event: at most every CPU of the target times every thread
 * each. */
static int alloc_counts(tally_counter *c)
{
	c->max_slots = tally_cpus_count(c->target.cpus) * tally_threads_count(c->target.threads);
	c->counts = calloc(c->nr * c->max_slots, sizeof(*c->counts));
	c->windows = calloc(c->nr * c->max_slots, sizeof(*c->windows));
	c->bases = calloc(c->nr * c->max_slots, sizeof(*c->bases));
	c->value_results = calloc(c->nr ? c->nr : 1, sizeof(*c->value_results));
	c->lean = calloc(c->nr ? c->nr : 1, sizeof(*c->lean)); /* a group has one event at least */
	/* No lean plan until a group sets one up (a counter without events never does). */
	c->lean_end = c->syscall_end = c->lean;
	if (!c->counts || !c->windows || !c->bases || !c->value_results || !c->lean)
		return tly_error(-ENOMEM, "out of memory");
	return 0;
}

/* The first event's reason when nothing could be opened. */
static int nothing_opened(tally_counter *c)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->ev[i].error)
			return tly_error(c->ev[i].error, "none of the events can be counted here; '%s': %s",
			                 c->ev[i].name, c->ev[i].note);
	return tly_error(-EINVAL, "no event to open");
}

size_t tly_counter_max_group(void)
{
	/* Parsed events ask for no read_format of their own. */
	return tly_read_max_group(tly_evsel_read_format(0, true));
}

int tly_counter_plan_init(const tally_counter *c, struct tly_plan *plan)
{
	struct tly_pack_event *pack = calloc(c->nr, sizeof(*pack));
	if (!pack)
		return tly_error(-ENOMEM, "out of memory");
	/* A tool event has no descriptor to group: it stands alone, as a brace group of one (numbered past
	 * every group of the spec), also when the spec puts it in braces. */
	for (size_t i = 0; i < c->nr; i++)
		pack[i] = (struct tly_pack_event){ .pmu = c->ev[i].pmu, .weak = c->ev[i].weak, .counters = c->ev[i].counters,
			                           .spec_group = c->ev[i].tool ? (int)(c->nr + i) : c->ev[i].spec_group,
			                           .topdown = c->ev[i].topdown };
	int err = tly_plan_init(plan, pack, c->nr, !c->no_packing, tly_counter_max_group());
	free(pack);
	return err;
}

/* Every event back to its state before any open: no note, error or group, the attr as parsed (a user-only
 * retry of a previous open may have narrowed it). */
static void reset_events(tally_counter *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		struct tly_counter_event *e = &c->ev[i];
		e->note[0] = '\0';
		e->has_note = false;
		e->error = 0;
		e->user_only = false;
		e->gone = false;
		e->lost_leader = NULL;
		e->group = -1;
		struct tally_event_info info = { .sz = sizeof(info) };
		if (tally_events_at(c->events, i, &info) == 0)
			e->attr = *info.attr;
	}
	/* Facts are probed anew for each open: the machine's settings may have changed in between. */
	c->facts = (struct tly_facts_cache){ .sysfs_root = c->sysfs_root };
}

/* Plans and opens every group on the resolved target. On failure nothing of it stays open (the target
 * does) and the last error says why. */
static int open_groups(tally_counter *c)
{
	tly_counter_user_prepare(c);
	int err = tly_counter_plan_init(c, &c->plan);
	if (!err)
		tly_counter_plan_select(c, &c->plan);
	if (!err)
		err = alloc_counts(c);
	if (!err)
		tly_target_raise_nofile(c->nr * c->max_slots);
	for (size_t g = 0; !err && g < c->plan.nr_groups;) {
		int r = tly_counter_open_group(c, g);
		if (r < 0)
			err = r;
		else
			g += (size_t)r;
	}
	if (!err && c->plan.nr_groups == 0 && !c->open_without_events)
		err = nothing_opened(c);
	if (err) {
		/* Keep the explanation: closing may log but must not overwrite it. */
		struct tly_error_saved why;
		tly_error_save(&why);
		close_events(c);
		tly_plan_fini(&c->plan);
		tly_error_restore(&why);
	}
	return err;
}

int tally_counter_open(tally_counter *c, const struct tally_target *target)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_open: NULL counter");
	if (c->open)
		return tly_counter_fail(c, tly_error(-TALLY_ESTATE, "tally_counter_open: the counter is already open"));
	/* Failures the open recovers from (retries, unsupported events that read as such) must not show in
	 * tally_last_error() when it succeeds. */
	struct tly_error_saved before;
	tly_error_save(&before);
	reset_events(c);
	int err = tly_target_resolve(target, c->sysfs_root, c->no_inherit, &c->target);
	if (err)
		return tly_counter_fail(c, err);
	err = open_groups(c);
	/* Threads listed from /proc (every thread of the system, or of a process): one that exited between
	 * the listing and its open is left out, and the rest opened again (perf drops it from its thread map
	 * the same way, for -a --per-thread and -p). No fixed number of attempts: a busy machine ends threads
	 * all the time, and each attempt drops at least the thread the kernel refused, so the attempts end
	 * (the list holds no thread created after it was made). */
	while (err == -ESRCH && tly_target_prune_gone(&c->target) > 0) {
		reset_events(c);
		err = open_groups(c);
	}
	if (err) {
		tly_counter_fail(c, err);
		tly_target_fini(&c->target);
		return err;
	}
	note_regrouped(c);
	c->open = true;
	c->started = false;
	c->windowed = false;
	tly_error_restore(&before);
	return 0;
}

int tally_counter_close(tally_counter *c)
{
	if (!c || !c->open)
		return 0;
	close_events(c);
	tly_plan_fini(&c->plan);
	tly_target_fini(&c->target);
	c->open = false;
	c->started = false;
	return 0;
}
