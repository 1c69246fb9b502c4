/* SPDX-License-Identifier: MIT */
/* The counting engine: a spec's events opened as groups on a target, started, read, stopped, closed. */
#include "aggregate.h"
#include "diagnose.h"
#include "error.h"
#include "evsel.h"
#include "opts.h"
#include "out_array.h"
#include "packing.h"
#include "snapshot.h"
#include "sys.h"
#include "target.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <tally/counter.h>
#include <tally/evlist.h>

/* The output structs as they are now are the first versions: a field added later (at the end) makes these
 * fail, and then the code that fills the struct writes the new field only where elem_sz has room. */
_Static_assert(sizeof(struct tally_result) == TLY_RESULT_SZ_V1, "tally_result grew: see out_array.h");
_Static_assert(sizeof(struct tally_part) == TLY_PART_SZ_V1, "tally_part grew: see out_array.h");
_Static_assert(sizeof(struct tally_exit) == TLY_EXIT_SZ_V1, "tally_exit grew: see out_array.h");

/* Room for one event's note: a diagnosis (a few lines) plus a line on how it was regrouped. */
#define NOTE_MAX 1024

struct event {
	/* While open; what a read touches comes first, so that it shares as few cache lines as it can. */
	tally_evsel *evsel;          /* NULL when not open (not supported, or closed) */
	/* Raw readings of the latest read, slot s (cpu_idx x nthreads + thread_idx) at counts[s * stride]: a
	 * group reads into one block per slot, members side by side, so reads decode in place (in
	 * counter->counts). Their times since the window began are in window[s]. */
	struct tally_count *counts;
	size_t stride;               /* the size of its group */
	size_t nr_counts;            /* slots in the latest read */
	struct tly_window *window;   /* its leader's, per slot (in counter->windows); zero from the open on */
	size_t ncpus, nthreads;      /* a leader's maps, kept at open so that reads look nothing up */
	uint64_t idle_enabled;       /* a leader's: its group's enabled time in the latest read if it never
	                              * ran in it, else 0 */
	uint64_t epoch;              /* the counter's number of its current window (snapshots compare it) */
	unsigned origin;
	int group;                   /* the leader's event index */
	int error;                   /* not supported: the open's code */
	bool user_only;
	bool has_note;               /* note is not empty; kept apart so that reads never touch the text */
	char *note;                  /* NOTE_MAX bytes in counter->notes */

	/* From tally_counter_new on. */
	struct perf_event_attr attr; /* as parsed; exclude_kernel set by a user-only retry */
	const char *name;            /* owned by counter->events */
	const char *pmu_name;        /* its PMU's name, NULL for none (owned by counter->events) */
	char *mask;                  /* its PMU's cpumask (or hybrid `cpus`), NULL for none */
	uint32_t pmu;                /* the type of the PMU that counts it: what automatic groups share */
	int spec_group;
};

struct tally_counter {
	tally_events *events;
	struct event *ev;
	size_t nr;
	unsigned nr_origins;
	char *sysfs_root;
	bool no_packing, no_inherit, no_user_only_retry, unsupported_is_error, open_without_events;

	bool open;
	bool started;
	struct tly_target target;
	struct tly_plan plan;
	/* While open: room for max_slots slots of every event. Group g reads into the counts from
	 * plan.first[g] x max_slots on, and its windows are at its leader's index x max_slots. */
	struct tally_count *counts;
	struct tly_window *windows;
	/* Each count's value when its window began (laid out as counts): PERF_EVENT_IOC_RESET zeroes the
	 * counts of the event and of its inherited children still alive, but not what children that exited
	 * before it added to the event (child_count, unchanged since 2.6.31), so that part of a reading is
	 * taken relative to the reading at the window's start, as the times are. */
	uint64_t *bases;
	size_t max_slots;
	char *notes;
	uint64_t epochs;              /* windows begun so far, over every open: numbers each new one */
	struct tly_facts_cache facts; /* for explaining failures: probed once per open, at the first one */
	char last_error[TLY_ERROR_MAX];
};

/* Every public call that fails on a handle keeps the explanation on it too. */
static int fail(tally_counter *c, int err)
{
	snprintf(c->last_error, sizeof(c->last_error), "%s", tally_last_error());
	return tly_give_up(err);
}

static void note_add(struct event *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(struct event *e, const char *fmt, ...)
{
	e->has_note = true;
	size_t used = strlen(e->note);
	if (used && used + 1 < NOTE_MAX)
		e->note[used++] = '\n', e->note[used] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->note + used, NOTE_MAX - used, fmt, ap);
	va_end(ap);
}

/* ---- new / free ------------------------------------------------------------------------------------ */

static int copy_events(tally_counter *c, const tally_pmus *pmus)
{
	for (size_t i = 0; i < c->nr; i++) {
		struct tally_event_info info = { .sz = sizeof(info) };
		int err = tally_events_at(c->events, i, &info);
		if (err)
			return err;
		struct event *e = &c->ev[i];
		e->attr = *info.attr;
		e->name = info.name;
		e->pmu_name = info.pmu;
		e->origin = info.origin;
		e->spec_group = info.group;
		if (info.origin + 1 > c->nr_origins)
			c->nr_origins = info.origin + 1;
		const tally_pmu *pmu = info.pmu ? tally_pmus_find(pmus, info.pmu) : NULL;
		e->pmu = tly_pack_pmu(&e->attr, pmu);
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
		TALLY_OPTS(tally_pmus_opts, po, .sysfs_root = root);
		err = tally_pmus_load(&po, &loaded);
		pmus = loaded;
	}
	if (!err) {
		TALLY_OPTS(tally_parse_opts, parse, .pmus = pmus, .sysfs_root = root);
		err = tally_events_parse(spec, &parse, &c->events);
	}
	if (!err) {
		c->nr = tally_events_count(c->events);
		c->ev = calloc(c->nr ? c->nr : 1, sizeof(*c->ev));
		c->notes = calloc(c->nr ? c->nr : 1, NOTE_MAX);
		if (!c->ev || !c->notes)
			err = tly_error(-ENOMEM, "out of memory");
	}
	if (!err && c->nr == 0)
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
	free(c->sysfs_root);
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

/* ---- opening groups ------------------------------------------------------------------------------- */

/* What the kernel's answer to opening an event means for the counter. */
enum open_outcome { OPENED, UNSUPPORTED, NO_ROOM, RETRY_USER_ONLY, RETRY_WITHOUT_GUEST_BITS, FATAL };

static enum open_outcome classify(tally_counter *c, struct event *e, int err, bool packed_member)
{
	if (err == 0)
		return OPENED;
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

static void drop_group_evsels(tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	/* Members first, so that freeing the leader finds no members left to detach. */
	for (size_t k = tly_plan_size(&c->plan, g); k-- > 0;) {
		tally_evsel_free(c->ev[m[k]].evsel);
		c->ev[m[k]].evsel = NULL;
		/* No readings either: a result of an event without an evsel is made of none. */
		c->ev[m[k]].nr_counts = 0;
	}
}

static int make_evsel(tally_counter *c, size_t i, bool leader)
{
	struct event *e = &c->ev[i];
	struct perf_event_attr attr = e->attr;
	/* perf's arrangement: the leader starts disabled and enables the group; members follow it. */
	attr.disabled = leader;
	attr.inherit = c->target.inherit;
	/* Only before the command's exec: after it, enable_on_exec would never fire. */
	attr.enable_on_exec = leader && c->target.enable_on_exec && !c->target.command.released;
	int err = tally_evsel_new(&attr, &e->evsel);
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
	const struct event *e = &c->ev[m[k]];
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
	struct event *e = &c->ev[i];
	e->error = err;
	note_add(e, "%s", tally_last_error());
	if (c->unsupported_is_error)
		return err;
	tly_log(TALLY_LOG_INFO, "%s: not supported: %s", e->name, tally_last_error());
	return 0;
}

/* Tells the members of an explicit group that they now count without the leader that was removed. */
static void note_leader_gone(tally_counter *c, size_t g, const char *gone)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	for (size_t k = 0; k < tly_plan_size(&c->plan, g); k++)
		note_add(&c->ev[m[k]], "'%s' could not lead its group here, so the other members were opened as a "
		         "group of their own, led by '%s'", gone, c->ev[m[0]].name);
}

/* Opens group g of the plan, reshaping the plan as the kernel answers: a packed group that is too big
 * splits, an unsupported event leaves its group. Returns 1 when group g is open, 0 when it was removed
 * (no event left), or a fatal negative code (nothing of group g open). */
static int open_group(tally_counter *c, size_t g)
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
			drop_group_evsels(c, g);
			return err;
		}

		size_t k = 0;
		enum open_outcome outcome = OPENED;
		for (; k < size; k++) {
			err = k == 0 ? open_leader(c, m[0]) : open_member(c, m[k]);
			outcome = classify(c, &c->ev[m[k]], err, packed && k > 0);
			if (outcome != OPENED)
				break;
		}
		if (outcome == OPENED) {
			for (k = 0; k < size; k++)
				c->ev[m[k]].group = (int)m[0];
			struct event *leader = &c->ev[m[0]];
			leader->ncpus = tally_cpus_count(tally_evsel_cpus(leader->evsel));
			leader->nthreads = tally_threads_count(tally_evsel_threads(leader->evsel));
			leader->idle_enabled = 0;
			/* New descriptors: their times start at zero (also when a never-run group reopens). */
			struct tly_window *window = c->windows + m[0] * c->max_slots;
			memset(window, 0, leader->ncpus * leader->nthreads * sizeof(*window));
			uint64_t epoch = ++c->epochs;
			memset(c->bases + c->plan.first[g] * c->max_slots, 0,
			       leader->ncpus * leader->nthreads * size * sizeof(*c->bases));
			for (k = 0; k < size; k++) {
				struct event *e = &c->ev[m[k]];
				e->counts = c->counts + c->plan.first[g] * c->max_slots + k;
				e->stride = size;
				e->nr_counts = 0;
				e->window = window;
				e->epoch = epoch;
			}
			return 1;
		}
		drop_group_evsels(c, g);
		if (outcome == UNSUPPORTED || outcome == FATAL)
			err = explain_open_failure(c, g, k, err);

		struct event *e = &c->ev[m[k]];
		switch (outcome) {
		case OPENED:
			break;
		case RETRY_USER_ONLY: {
			char note[NOTE_MAX];
			tly_diag_user_only_note(e->name, tly_facts_cache_get(&c->facts), note, sizeof(note));
			e->attr.exclude_kernel = 1;
			e->user_only = true;
			note_add(e, "%s", note);
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
			tly_plan_remove(&c->plan, g, k);
			if (size == 1)
				return 0;
			if (k == 0 && !packed)
				note_leader_gone(c, g, gone);
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
		drop_group_evsels(c, g);
	for (size_t i = 0; i < c->nr; i++) {
		c->ev[i].counts = NULL;
		c->ev[i].nr_counts = 0;
		c->ev[i].window = NULL;
	}
	free(c->counts);
	free(c->windows);
	free(c->bases);
	c->counts = NULL;
	c->windows = NULL;
	c->bases = NULL;
}

/* Room for the readings and windows of every event: at most every CPU of the target times every thread
 * each. */
static int alloc_counts(tally_counter *c)
{
	c->max_slots = tally_cpus_count(c->target.cpus) * tally_threads_count(c->target.threads);
	c->counts = calloc(c->nr * c->max_slots, sizeof(*c->counts));
	c->windows = calloc(c->nr * c->max_slots, sizeof(*c->windows));
	c->bases = calloc(c->nr * c->max_slots, sizeof(*c->bases));
	if (!c->counts || !c->windows || !c->bases)
		return tly_error(-ENOMEM, "out of memory");
	return 0;
}

/* Descriptors left to the rest of the process below the soft RLIMIT_NOFILE (stdio, its own files) when
 * deciding whether the counter's descriptors fit. */
#define NOFILE_ROOM 64

/* When the counter's descriptors (one per event, CPU and thread) do not fit under the soft RLIMIT_NOFILE
 * with room for the rest of the process, raises the soft limit by that many, up to the hard limit, as
 * perf does; a limit that cannot be raised is left to the open's EMFILE, which explains it. */
static void raise_nofile(size_t need)
{
	struct rlimit rl;
	if (tly_sys->getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    need + NOFILE_ROOM <= rl.rlim_cur || rl.rlim_cur >= rl.rlim_max)
		return;
	rlim_t old = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max - old > need ? old + need : rl.rlim_max;
	if (tly_sys->setrlimit(RLIMIT_NOFILE, &rl) == 0)
		tly_log(TALLY_LOG_DEBUG, "raised the soft RLIMIT_NOFILE from %llu to %llu for %zu descriptors\n",
		        (unsigned long long)old, (unsigned long long)rl.rlim_cur, need);
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

int tally_counter_open(tally_counter *c, const struct tally_target *target)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_open: NULL counter");
	if (c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_open: the counter is already open"));
	/* Failures the open recovers from (retries, unsupported events that read as such) must not show in
	 * tally_last_error() when it succeeds. */
	struct tly_error_saved before;
	tly_error_save(&before);
	for (size_t i = 0; i < c->nr; i++) {
		struct event *e = &c->ev[i];
		e->note[0] = '\0';
		e->has_note = false;
		e->error = 0;
		e->user_only = false;
		e->group = -1;
		/* Back to the attr as parsed: a user-only retry of the previous open may have narrowed it. */
		struct tally_event_info info = { .sz = sizeof(info) };
		if (tally_events_at(c->events, i, &info) == 0)
			e->attr = *info.attr;
	}
	/* Facts are probed anew for each open: the machine's settings may have changed in between. */
	c->facts = (struct tly_facts_cache){ .sysfs_root = c->sysfs_root };
	int err = tly_target_resolve(target, c->sysfs_root, c->no_inherit, &c->target);
	if (err)
		return fail(c, err);

	struct tly_pack_event *pack = calloc(c->nr, sizeof(*pack));
	err = pack ? 0 : tly_error(-ENOMEM, "out of memory");
	for (size_t i = 0; pack && i < c->nr; i++)
		pack[i] = (struct tly_pack_event){ .pmu = c->ev[i].pmu, .spec_group = c->ev[i].spec_group };
	if (!err)
		err = tly_plan_init(&c->plan, pack, c->nr, !c->no_packing,
		                    /* Parsed events ask for no read_format of their own. */
		                    tly_read_max_group(tly_evsel_read_format(0, true)));
	free(pack);
	if (!err)
		err = alloc_counts(c);
	if (!err)
		raise_nofile(c->nr * c->max_slots);
	for (size_t g = 0; !err && g < c->plan.nr_groups;) {
		int r = open_group(c, g);
		if (r < 0)
			err = r;
		else
			g += (size_t)r;
	}
	if (!err && c->plan.nr_groups == 0 && !c->open_without_events)
		err = nothing_opened(c);
	if (err) {
		/* Keep the explanation: closing may log but must not overwrite it. */
		fail(c, err);
		close_events(c);
		tly_plan_fini(&c->plan);
		tly_target_fini(&c->target);
		return err;
	}
	c->open = true;
	c->started = false;
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

/* ---- start / stop / reset ------------------------------------------------------------------------- */

static tally_evsel *leader_of(const tally_counter *c, size_t g)
{
	return c->ev[tly_plan_members(&c->plan, g)[0]].evsel;
}

/* A system call on group g failed with err, and the counter gives up: the cause and fix of the failure
 * the evsel layer recorded, with the facts of this open. */
static int explain_group_failure(tally_counter *c, size_t g, int err)
{
	return tly_diag_evsel(leader_of(c, g), err, tly_facts_cache_get(&c->facts));
}

static int each_leader(tally_counter *c, int (*op)(tally_evsel *))
{
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = op(leader_of(c, g));
		if (err)
			return explain_group_failure(c, g, err);
	}
	return 0;
}

/* Resets group g and notes its times as the start of a new window, slot by slot: one read(2) each.
 * Stopped, the times stand still between the reset and the next enable, so the window is exact; running
 * (tally_counter_reset), it begins at this read, a few hundred ns after the reset. */
static int begin_window(tally_counter *c, size_t g)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	struct event *leader = &c->ev[m[0]];
	size_t size = leader->stride, slot = 0;
	uint64_t epoch = ++c->epochs;
	for (size_t k = 0; k < size; k++)
		c->ev[m[k]].epoch = epoch;
	uint64_t *bases = c->bases + (leader->counts - c->counts);
	int err = tally_evsel_reset(leader->evsel);
	for (size_t ci = 0; ci < leader->ncpus && !err; ci++) {
		for (size_t ti = 0; ti < leader->nthreads && !err; ti++, slot++) {
			struct tally_count *block = leader->counts + slot * size;
			err = tally_evsel_read_group(leader->evsel, ci, ti, block, size, sizeof(*block));
			if (err)
				break;
			leader->window[slot] = (struct tly_window){ .start_enabled = block->enabled,
				                                    .start_running = block->running };
			for (size_t k = 0; k < size; k++)
				bases[slot * size + k] = block[k].value;
		}
	}
	return err;
}

/* Every group begins a new window: reads count from zero. */
static int begin_windows(tally_counter *c)
{
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = begin_window(c, g);
		if (err)
			return explain_group_failure(c, g, err);
	}
	return 0;
}

int tally_counter_start(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_start: NULL counter");
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_start: the counter is not open"));
	struct tly_command *cmd = &c->target.command;
	bool launch = cmd->pid > 0 && !cmd->released;
	if (launch && c->target.kind == TALLY_TARGET_COMMAND) {
		/* enable_on_exec starts the counting at the exec itself; the times are still those of the open
		 * (zero), so the windows need no reading. */
		c->started = true;
		int err = tly_command_release(cmd);
		return err ? fail(c, err) : 0;
	}
	/* Reset every group before enabling any, so that the groups' windows differ as little as possible. */
	int err = begin_windows(c);
	if (!err)
		err = each_leader(c, tally_evsel_enable);
	if (err)
		return fail(c, err);
	c->started = true;
	/* A command that only bounds the counting of another target starts once the events count, as perf
	 * stat starts its workload. */
	if (launch) {
		err = tly_command_release(cmd);
		if (err)
			return fail(c, err);
	}
	return 0;
}

int tally_counter_stop(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_stop: NULL counter");
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_stop: the counter is not open"));
	int err = each_leader(c, tally_evsel_disable);
	if (err)
		return fail(c, err);
	c->started = false;
	return 0;
}

int tally_counter_reset(tally_counter *c)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_reset: NULL counter");
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_reset: the counter is not open"));
	int err = begin_windows(c);
	return err ? fail(c, err) : 0;
}

/* ---- reads ---------------------------------------------------------------------------------------- */

/* Reads one (cpu, thread) slot of a group into block (one read(2)), each value and the group's times made
 * relative to the start of the current window. */
static int read_window_slot(const tally_counter *c, const struct event *leader, size_t slot,
                            struct tally_count *block, uint64_t *enabled, uint64_t *running)
{
	size_t size = leader->stride;
	int err = tly_evsel_read_group_slot(leader->evsel, slot, block);
	if (err)
		return err;
	const uint64_t *bases = c->bases + (leader->counts - c->counts) + slot * size;
	for (size_t k = 0; k < size; k++)
		block[k].value = tly_window_since(block[k].value, bases[k]);
	const struct tly_window *w = &leader->window[slot];
	*enabled = tly_window_since(block->enabled, w->start_enabled);
	*running = tly_window_since(block->running, w->start_running);
	return 0;
}

/* Reads group g at every (cpu, thread) with one read(2) each, decoded in place into its events' counts,
 * and the times of its windows. Notes in the leader whether the group was enabled in its window but
 * never ran, and then sets *any_idle. */
static int read_group(tally_counter *c, size_t g, bool *any_idle)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	struct event *leader = &c->ev[m[0]];
	size_t size = leader->stride, slots = leader->ncpus * leader->nthreads;
	uint64_t enabled = 0, running = 0;
	for (size_t slot = 0; slot < slots; slot++) {
		struct tly_window *w = &leader->window[slot];
		int err = read_window_slot(c, leader, slot, leader->counts + slot * size, &w->enabled, &w->running);
		if (err)
			return err;
		enabled += w->enabled;
		running += w->running;
	}
	/* Only the first read after an open changes it (from 0). */
	if (leader->nr_counts != slots)
		for (size_t k = 0; k < size; k++)
			c->ev[m[k]].nr_counts = slots;
	leader->idle_enabled = running == 0 ? enabled : 0;
	*any_idle |= leader->idle_enabled != 0;
	return 0;
}

/* A group that was enabled but never ran: explain it on every member and, when tally made the group,
 * halve it and reopen both halves (enabled if the counter runs). */
static int handle_idle_group(tally_counter *c, size_t g, uint64_t enabled, size_t *next)
{
	const size_t *m = tly_plan_members(&c->plan, g);
	size_t size = tly_plan_size(&c->plan, g);
	char why[NOTE_MAX];
	/* A read probes nothing: the facts only if a failure of this open already probed them. */
	tly_diagnose_not_counted(c->ev[m[0]].name, size, enabled, c->facts.probed ? &c->facts.facts : NULL, why,
	                         sizeof(why));
	bool split = c->plan.packed[g] && size > 1;
	for (size_t k = 0; k < size; k++) {
		struct event *e = &c->ev[m[k]];
		e->note[0] = '\0';
		note_add(e, "%s", why);
		if (split)
			note_add(e, "tally split this group of %zu in two and reopened it; the next read counts it",
			         size);
	}
	*next = g + 1;
	if (!split)
		return 0;

	drop_group_evsels(c, g);
	tly_plan_split(&c->plan, g, size / 2);
	size_t h = g;
	for (int half = 0; half < 2 && h < c->plan.nr_groups; half++) {
		int r = open_group(c, h);
		if (r < 0)
			return r;
		if (r == 1 && c->started) {
			int err = tally_evsel_enable(leader_of(c, h));
			if (err)
				return err;
		}
		h += (size_t)r;
	}
	*next = h;
	return 0;
}

/* restrict: the result and the event never overlap, and without saying so every store into the result
 * (uint64_t fields, as the event's) would make the compiler load the event's fields again. Every field
 * written lies within the first version's size, which every caller's element has; a newer caller's bytes
 * past the fields known here read zero. */
static void fill_result(const struct event *restrict e, struct tally_result *restrict r, size_t elem_sz)
{
	r->origin = e->origin;
	r->group = e->group;
	r->user_only = e->user_only;
	r->has_note = e->has_note;
	r->error = e->error;
	/* An event that is not supported has no parts: zero counts, then its own status. */
	tly_aggregate_parts(e->counts, e->stride, e->window, e->nr_counts, r);
	if (!e->evsel)
		r->status = TALLY_STATUS_NOT_SUPPORTED;
	const size_t known = TLY_KNOWN_SIZE(tally_result);
	memset((char *)r + known, 0, elem_sz - known);
}

int tally_counter_read(tally_counter *c, struct tally_result *results, size_t n, size_t elem_sz)
{
	if (!c || (n && !results))
		return tly_error(-EINVAL, "tally_counter_read: NULL counter or results");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return fail(c, -TALLY_EOPTS);
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_read: the counter is not open"));
	bool any_idle = false;
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = read_group(c, g, &any_idle);
		if (err)
			return fail(c, explain_group_failure(c, g, err));
	}
	size_t count = n < c->nr ? n : c->nr;
	for (size_t i = 0; i < count; i++)
		fill_result(&c->ev[i], tly_out_at(results, i, elem_sz), elem_sz);

	/* Only now reshape never-run groups: the results above already say NOT_COUNTED for them. */
	for (size_t g = 0; any_idle && g < c->plan.nr_groups;) {
		uint64_t enabled = c->ev[tly_plan_members(&c->plan, g)[0]].idle_enabled;
		size_t next = g + 1;
		if (enabled) {
			int err = handle_idle_group(c, g, enabled, &next);
			for (size_t i = 0; i < count; i++)
				((struct tally_result *)tly_out_at(results, i, elem_sz))->has_note = c->ev[i].has_note;
			if (err)
				return fail(c, err);
		}
		g = next;
	}
	return (int)count;
}

int tally_counter_parts(const tally_counter *c, size_t i, struct tally_part *parts, size_t n, size_t elem_sz)
{
	if (!c || i >= c->nr || (n && !parts))
		return tly_error(-EINVAL, "tally_counter_parts: NULL counter or event %zu out of range", i);
	if (!tly_out_valid(elem_sz, TLY_PART_SZ_V1, alignof(struct tally_part), "tally_part"))
		return -TALLY_EOPTS;
	const struct event *e = &c->ev[i];
	if (!c->open || !e->evsel)
		return 0;
	const tally_cpus *cpus = tally_evsel_cpus(e->evsel);
	const tally_threads *threads = tally_evsel_threads(e->evsel);
	size_t nthreads = tally_threads_count(threads);
	for (size_t s = 0; s < e->nr_counts && s < n; s++) {
		struct tally_part p;
		tly_aggregate_part(&e->counts[s * e->stride], &e->window[s], tally_cpus_at(cpus, s / nthreads),
		                   tally_threads_at(threads, s % nthreads), &p);
		tly_out_put(tly_out_at(parts, s, elem_sz), elem_sz, &p, TLY_KNOWN_SIZE(tally_part));
	}
	return (int)e->nr_counts;
}

int tally_counter_sum_origins(const tally_counter *c, const struct tally_result *results, size_t n_results,
                              struct tally_result *out, size_t n_out, size_t elem_sz)
{
	if (!c || (n_results && !results) || (n_out && !out))
		return tly_error(-EINVAL, "tally_counter_sum_origins: NULL argument");
	if (!tly_out_valid(elem_sz, TLY_RESULT_SZ_V1, alignof(struct tally_result), "tally_result"))
		return -TALLY_EOPTS;
	const size_t known = TLY_KNOWN_SIZE(tally_result);
	for (unsigned o = 0; o < c->nr_origins && o < n_out; o++) {
		struct tally_result acc;
		memset(&acc, 0, sizeof(acc));
		bool first = true;
		for (size_t i = 0; i < n_results && i < c->nr; i++) {
			struct tally_result r;
			tly_in_get(&r, known, tly_out_at_const(results, i, elem_sz), elem_sz);
			if (r.origin != o)
				continue;
			tly_aggregate_add(&acc, &r, first);
			first = false;
		}
		tly_out_put(tly_out_at(out, o, elem_sz), elem_sz, &acc, known);
	}
	return (int)c->nr_origins;
}

/* ---- snapshots ------------------------------------------------------------------------------------ */

int tally_snapshot_new(const tally_counter *c, tally_snapshot **out)
{
	if (!c || !out)
		return tly_error(-EINVAL, "tally_snapshot_new: NULL counter or out");
	*out = NULL;
	if (!c->open)
		return tly_error(-TALLY_ESTATE, "tally_snapshot_new: the counter is not open");
	return tly_snapshot_alloc(c, c->nr, c->max_slots, out);
}

/* Reads group g into the snapshot, laid out as the counter's own readings, with the times of its window:
 * the counter's latest read (tally_counter_read, _parts) stays as it was. */
static int snapshot_group(const tally_counter *c, size_t g, tally_snapshot *snap)
{
	const struct event *leader = &c->ev[tly_plan_members(&c->plan, g)[0]];
	struct tally_count *counts = snap->counts + (leader->counts - c->counts);
	struct tly_snapshot_slot *slots = snap->slots + (leader->window - c->windows);
	const tally_cpus *cpus = tally_evsel_cpus(leader->evsel);
	const tally_threads *threads = tally_evsel_threads(leader->evsel);
	for (size_t slot = 0; slot < leader->ncpus * leader->nthreads; slot++) {
		struct tly_snapshot_slot *out = &slots[slot];
		int err = read_window_slot(c, leader, slot, counts + slot * leader->stride, &out->enabled,
		                           &out->running);
		if (err)
			return err;
		out->cpu = tally_cpus_at(cpus, slot / leader->nthreads);
		out->tid = tally_threads_at(threads, slot % leader->nthreads);
	}
	return 0;
}

int tally_counter_snapshot(tally_counter *c, tally_snapshot *snap)
{
	if (!c || !snap)
		return tly_error(-EINVAL, "tally_counter_snapshot: NULL counter or snapshot");
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_snapshot: the counter is not open"));
	if (snap->owner != c || snap->nr_events != c->nr)
		return fail(c, tly_error(-EINVAL, "tally_counter_snapshot: the snapshot was made for another counter"));
	if (snap->max_slots < c->max_slots)
		return fail(c, tly_error(-ENOSPC, "tally_counter_snapshot: the snapshot was made for a smaller "
		                         "target (%zu positions, now %zu): make a new one", snap->max_slots,
		                         c->max_slots));
	for (size_t g = 0; g < c->plan.nr_groups; g++) {
		int err = snapshot_group(c, g, snap);
		if (err)
			return fail(c, err);
	}
	for (size_t i = 0; i < c->nr; i++) {
		const struct event *e = &c->ev[i];
		const struct event *leader = e->evsel ? &c->ev[e->group] : NULL;
		snap->ev[i] = (struct tly_snapshot_event){
			.counts_at = leader ? (size_t)(e->counts - c->counts) : 0,
			.stride = e->stride,
			.slots_at = leader ? (size_t)(e->window - c->windows) : 0,
			.nr_slots = leader ? leader->ncpus * leader->nthreads : 0,
			.epoch = e->epoch,
			.origin = e->origin,
			.group = e->group,
			.error = e->error,
			.user_only = e->user_only,
			.has_note = e->has_note,
			.supported = e->evsel != NULL,
		};
	}
	return 0;
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
		return fail(c, -TALLY_EOPTS);
	if (!c->open || c->target.command.pid <= 0 || !c->target.command.released)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_wait: no launched command has been started"));
	int err = tly_command_wait(&c->target.command);
	if (err)
		return fail(c, err);
	tly_out_put(exit, exit_sz, &c->target.command.exit, TLY_KNOWN_SIZE(tally_exit));
	return 0;
}

int tally_counter_wait_tasks(tally_counter *c, int timeout_ms, int wake_fd)
{
	if (!c)
		return tly_error(-EINVAL, "tally_counter_wait_tasks: NULL counter");
	if (!c->open)
		return fail(c, tly_error(-TALLY_ESTATE, "tally_counter_wait_tasks: the counter is not open"));
	int r = tly_target_wait_tasks(&c->target, timeout_ms, wake_fd);
	return r < 0 ? fail(c, r) : r;
}
