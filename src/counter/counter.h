/* SPDX-License-Identifier: MIT */
/*
 * Counter internals shared by the files of the counting engine, each one concept:
 *
 *   counter.c          the handle: new, free, names, notes; the launched command's pid and exit
 *   counter_error.c    a call's failure kept on the handle, events' notes (what the other files report through)
 *   counter_open.c     the plan of groups and the open/retry state machine (what the kernel's answers mean)
 *   counter_window.c   start, stop, reset: the windows every read is relative to
 *   counter_read.c     reads: one read per group and (CPU, thread) through the read backend, scaling, parts
 *   counter_cgroup.c   the results of one cgroup of a cgroup target (the latest read's parts of it, summed)
 *   counter_user.c     which groups read from user space, and why not (tally_counter_read_info)
 *   idle_groups.c      groups that were enabled but never ran: explained, and split when tally packed them
 *   snapshot.c         raw snapshots of a counter and the scaled deltas between two
 *   raw_read.c         the raw read layout of a counter read at one position (what regions read)
 *   counter_plan.c     the plan of an open shown without opening (tally_counter_plan, for tally encode)
 *   counter_metrics.c  the metrics asked for (tally_counter_opts.metrics): their events appended as groups
 *   counter_select.c   the events an open leaves out (tally_counter_select: one set of groups per run)
 */
#ifndef TLY_COUNTER_H
#define TLY_COUNTER_H

#include "core/error.h"
#include "counter/aggregate.h"
#include "counter/packing.h"
#include "counter/read_backend.h"
#include "diagnose/diagnose.h"
#include "evsel/evsel.h"
#include "evsel/tool_events.h"
#include "machine/pmu.h"
#include "target/target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/counter.h>
#include <tally/events.h>

/* Room for one event's note: a diagnosis (a few lines) plus a line on how it was regrouped. */
#define NOTE_MAX 1024

struct tly_counter_event {
	/* While open; what a read touches comes first, so that it shares as few cache lines as it can. */
	tally_evsel *evsel;          /* NULL when not open (not supported, or closed) */
	enum tly_read_backend backend; /* a leader's: how its group is read, chosen when it opens */
	struct tly_user_group *user; /* a leader's, with TLY_READ_USER: its pages and what its reads did */
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
	bool has_bases;              /* a leader's: some count of its group was not zero at the window's start
	                              * (what exited children added), so reads subtract counter->bases */
	bool contiguous;             /* a leader's: its group's members are events leader .. leader + size - 1,
	                              * so tally_counter_read_values reads them straight into its values
	                              * (and a lean raw layout counts them in place: tly_raw_group.first) */
	int error;                   /* not supported: the open's code; 0 for an event that opened */
	/* Laid out as the fields of its struct tally_result from `group` to the result's end, so that an
	 * exact result copies them whole in two moves (counter_read.c checks the layout). */
	struct {
		_Alignas(8) int group;       /* the leader's event index */
		unsigned origin;
		bool user_only;
		bool has_note;               /* note is not empty; kept apart so that reads never touch the text */
		uint8_t result_padding[6];   /* zero: never written */
	};
	enum tally_read_reason read_reason; /* why its group is not read from user space (NONE: it is) */
	enum tally_read_reason own_reason;  /* what of that the event itself decides, from the open on */
	char *note;                  /* NOTE_MAX bytes in counter->notes */
	/* The leader first removed from this event's explicit group (it could not be opened): the note that
	 * says so is written once the open knows the group's final leader. */
	const char *lost_leader;

	/* From tally_counter_new on. */
	struct perf_event_attr attr; /* as parsed; exclude_kernel set by a user-only retry */
	const char *name;            /* owned by counter->events */
	const char *pmu_name;        /* its PMU's name, NULL for none (owned by counter->events) */
	char *mask;                  /* its PMU's cpumask (or hybrid `cpus`), NULL for none */
	uint32_t pmu;                /* the type of the PMU that counts it: what automatic groups share */
	uint64_t counters;           /* the PMU counters it may take (machine/pmu_counters.h), 0: none known */
	unsigned nr_generic, nr_fixed; /* its PMU's counters by the vendor table; 0 and 0: not known */
	/* From open on: the format term its PMU asks user reads with (arm64's `rdpmc`), 0 for none. */
	enum tly_config_field user_term_field;
	uint64_t user_term_mask;
	int spec_group;
	enum tly_tool_kind tool;     /* one of perf's tool events (counted by tally, alone), else NONE */
	enum tly_topdown_kind topdown; /* slots or a metric on a PMU with PERF_METRICS, else NONE */
	bool weak;                   /* its {...} group is weak (:W): tally may split it */
	bool left_out;               /* tally_counter_select left it out of the opens: never opened, it reads
	                              * not counted */
	bool gone;                   /* its idle group's halves could not be reopened, the target's tasks gone
	                              * (idle_groups.c): closed until the next open, it reads not counted */
};

/* One group as the lean paths of tally_counter_read and tally_counter_read_values read it (counter_user.c
 * keeps them true): every group from user space (user), or, for tally_counter_read alone, every group with
 * read(2) at its one position (fd). */
struct tly_lean_group {
	/* The thread whose reads take the lean path: its user group's owner where that path may read it now
	 * (not topdown, members side by side, no bases, read once since it opened, so that its results have
	 * their one part), else TLY_NO_READER: one comparison with the reading thread's token decides both. */
	uint64_t reader;
	struct tly_user_group *user;
	/* A group read with read(2): its leader's descriptor where the read(2) lean path may read it now (as
	 * reader says for user, and the kernel's layout being tally's own: no lost, every member in its
	 * read), else -1; its read's bytes, the leader's buffer it reads into, and its members' ids in the
	 * kernel's order. */
	int fd;
	size_t bytes;
	uint64_t *buf;
	const uint64_t *ids;
	size_t n;           /* members, leader included */
	size_t first;       /* its leader's event index: its members' values lie side by side from there */
	const struct tly_counter_event *events; /* its members' events, &counter->ev[first] on */
	size_t results_at;  /* first x sizeof(struct tally_result): where its results start, in bytes */
	uint64_t start_gap; /* enabled - running at its window's start: a read that finds the same ran it all */
	uint64_t start_running;
	struct tally_count *counts; /* its leader's readings, where tally_counter_read reads it to */
	struct tly_window *window;  /* its leader's */
};

/* No thread's token (user_group.h). */
#define TLY_NO_READER TLY_USER_NO_READER

struct tally_counter {
	tally_events *events;
	struct tly_counter_event *ev;
	size_t nr;
	unsigned nr_origins;
	char *sysfs_root;
	bool no_packing, no_inherit, no_user_only_retry, unsupported_is_error, open_without_events, no_user_reads;

	bool open;
	bool started;
	bool windowed;                /* a start began a window since the open (tally_counter_resume) */
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
	struct tally_result *value_results; /* nr: tally_counter_read_values' results where it reads them */
	size_t max_slots;
	char *notes;
	uint64_t epochs;              /* windows begun so far, over every open: numbers each new one */
	size_t user_groups;           /* open groups read from user space (TLY_READ_USER): when that is every
	                               * group and every event is in one, reads take counter_read.c's lean path */
	/* The lean paths of tally_counter_read and _read_values: every group (lean .. lean_end; lean has room
	 * for nr) where each is read from user space and every event is in one, else lean_end is lean; and
	 * tally_counter_read's through read(2): every group (lean .. syscall_end) where none is read from user
	 * space, every event is in one and each is read at one position, else syscall_end is lean. One of
	 * the two at most (tly_counter_lean_refresh). */
	struct tly_lean_group *lean, *lean_end, *syscall_end;
	struct tly_facts_cache facts; /* for explaining failures: probed once per open, at the first one */
	/* tally_counter_plan's, made at its first call: the plan every open starts from, and each planned
	 * event's attr (in plan order) for the target kind of the latest call. */
	struct tly_plan preview;
	struct perf_event_attr *preview_attrs;
	enum tally_target_kind preview_kind;
	size_t *metrics;              /* tally_counter_opts.metrics: catalogue indices (counter_metrics.c) */
	size_t nr_metrics;
	char last_error[TLY_ERROR_MAX];
};

/* Every public call that fails on a handle keeps the explanation on it too, and gives up (ERROR in the
 * log) through here. Returns err. */
int tly_counter_fail(tally_counter *c, int err);

/* The failure of a call (fn) that needs an open counter on a closed one: -TALLY_ESTATE. */
int tly_counter_not_open(tally_counter *c, const char *fn);

/* Appends a line to event e's note (tally_counter_note). */
void tly_counter_note_add(struct tly_counter_event *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The spec tally_counter_new parses when metrics are asked for: spec, then each metric's group (one per
 * group, leaving out those this machine cannot name), in *combined (malloc'd); the selected metrics go to
 * c->metrics. An unknown metric: -ENOENT with "did you mean". Nothing at all to count: -TALLY_ESPEC. */
int tly_counter_metrics_spec(tally_counter *c, const char *spec, const char *list, const tally_pmus *pmus,
                             const char *root, char **combined);

/* The events tally_counter_select left out, removed from a plan made by tly_counter_plan_init, each with
 * its note. */
void tly_counter_plan_select(tally_counter *c, struct tly_plan *plan);

/* The evsel that leads group g of the plan. */
tally_evsel *tly_counter_leader(const tally_counter *c, size_t g);

/* The plan of groups every open starts from: the spec's braces, and the events outside them packed by PMU
 * (or each alone with no_packing). -ENOMEM. */
int tly_counter_plan_init(const tally_counter *c, struct tly_plan *plan);

/* The most events an automatic group holds: its leader's read stays within the kernel's limit. */
size_t tly_counter_max_group(void);

/* Event e's attr as the counter opens it in a group (before the evsel adds size and read_format). */
struct perf_event_attr tly_counter_attr(const struct tly_counter_event *e, bool leader, bool inherit, bool enable_on_exec);

/* Opens group g of the plan, reshaping the plan as the kernel answers (counter_open.c). Returns 1 when
 * group g is open, 0 when it was removed (no event left), or a fatal negative code. */
int tly_counter_open_group(tally_counter *c, size_t g);

/* Closes and frees the evsels of group g; its events read nothing until it is opened again. */
void tly_counter_drop_group(tally_counter *c, size_t g);

/* A system call on group g failed with err and the counter gives up: the recorded failure explained with
 * the facts of this open. Returns the code to report. */
int tly_counter_explain_group_failure(tally_counter *c, size_t g, int err);

/* Reads one (cpu, thread) slot of the group led by `leader` into block through the read backend, each
 * value and the group's times made relative to the start of the current window. Inline: it is the read
 * path of tally_counter_read and tally_counter_snapshot, held to the cost of a bare read(2). */
static inline int tly_counter_read_slot(const tally_counter *c, const struct tly_counter_event *leader, size_t slot,
                                        struct tally_count *block, uint64_t *enabled, uint64_t *running)
{
	size_t size = leader->stride;
	int err = tly_read_backend_group(leader->backend, leader->evsel, leader->user, slot, block);
	if (err)
		return err;
	if (leader->has_bases) {
		const uint64_t *bases = c->bases + (leader->counts - c->counts) + slot * size;
		for (size_t k = 0; k < size; k++)
			block[k].value = tly_window_since(block[k].value, bases[k]);
	}
	const struct tly_window *w = &leader->window[slot];
	*enabled = tly_window_since(block->enabled, w->start_enabled);
	*running = tly_window_since(block->running, w->start_running);
	return 0;
}

/* Before any group opens: each event's reason not to read from user space that the target, the options
 * and the event decide, and the term that asks the kernel for user access where its PMU has one and the
 * machine allows it (counter_user.c). */
void tly_counter_user_prepare(tally_counter *c);

/* Group g just opened: reads it from user space when every member may (mapping their pages), else
 * records why not. */
void tly_counter_user_setup(tally_counter *c, size_t g);

/* The counter stopped (stopped true) or started its events: reads of its user groups go through read(2)
 * while it is stopped (tly_user_group_stop), and the lean plans follow. */
void tly_counter_user_stop(tally_counter *c, bool stopped);

/* Group g is about to close: its pages go. */
void tly_counter_user_drop(tally_counter *c, size_t g);

/* Makes c->lean .. lean_end true again, from what they are made of (the groups' backends, layout,
 * bases, window starts and reads): after every change of one of these, never on a read's lean path. */
void tly_counter_lean_refresh(tally_counter *c);

/* Group g was enabled for `enabled` ns in the latest read but never ran: every member gets the
 * explanation and, when tally packed the group, it is split in halves and reopened. *next is the group
 * to look at after it. */
int tly_counter_split_idle_group(tally_counter *c, size_t g, uint64_t enabled, size_t *next);

#endif
