/* SPDX-License-Identifier: MIT */
/*
 * tally: the counting engine. A counter is made from an event spec ("{task-clock,page-faults},cycles"),
 * opened on a target (this thread, this process, a pid, tids, a launched command, CPUs), started, read
 * and stopped any number of times, closed and freed, in that order (libuv's handle order):
 *
 *   tally_counter *c;
 *   tally_counter_new("{cycles,page-faults}", NULL, &c);
 *   TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
 *   tally_counter_open(c, &t);
 *   tally_counter_start(c);  ...work...;  tally_counter_stop(c);
 *   struct tally_result r[2];
 *   tally_counter_read(c, r, 2, sizeof(r[0]));
 *   tally_counter_close(c);  tally_counter_free(c);
 *
 * Groups. Braces make explicit groups. Events outside braces are packed automatically into as few groups
 * as the kernel accepts (one PMU per group), so that ratios come from one time window; the capacity of a
 * group is found by opening it. A group that opens but never runs (time_running == 0 while time_enabled
 * > 0, e.g. a counter held by the NMI watchdog) is reported as TALLY_STATUS_NOT_COUNTED with an
 * explanation and, when tally packed it, split in halves and reopened at that read (repeatedly, until
 * every event counts or stands alone). no_packing opens every event on its own (perf stat's default).
 *
 * Events this machine cannot count (cycles in a VM without a virtual PMU) do not fail the counter while
 * other events open: they read as TALLY_STATUS_NOT_SUPPORTED with the reason in tally_counter_note().
 * When such an event leads an explicit group, the remaining members are opened as their own group and the
 * note of each says so. unsupported_is_error turns all of this into a failure of tally_counter_open.
 *
 * Reads. Every group is read with one read(2) of its leader per (CPU, thread), values matched to events
 * by id, or, on the calling thread where the kernel allows it, from user space without a system call
 * (tally/read_path.h: the rules, the thread rule, the fallbacks); results are summed over CPUs and threads, and the parts stay available
 * (tally_counter_parts). A read allocates nothing (except when it reopens a never-run group). Intervals
 * and regions come from two snapshots (tally/snapshot.h), scaled part by part. Failures
 * leave an explanation (event, errno, cause, fix) in tally_last_error() and in tally_counter_last_error().
 *
 * Thread-safety: a counter is used by one thread at a time (reads keep their readings in the handle);
 * distinct counters may be used concurrently. tally_counter_new touches nothing shared and is thread-safe.
 * tally_counter_last_error, _note, _count, _name, _events, _parts, _cgroup_results, _sum_origins and _pid
 * only read the handle: they may run concurrently with each other, not with the calls that change it
 * (open, start, stop, resume, reset, read, read_values, snapshot, wait, wait_tasks, close, free). A counter
 * opened on one thread and read on another reads through read(2): only the opening thread reads from user
 * space.
 */
#ifndef TALLY_COUNTER_H
#define TALLY_COUNTER_H

#include <sys/types.h>
#include <tally/common.h>
#include <tally/events.h>
#include <tally/pmu.h>
#include <tally/read_path.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_counter tally_counter;

struct tally_counter_opts {
	size_t sz;
	/* PMUs to resolve names against; NULL loads them from sysfs_root. Used only during tally_counter_new. */
	const tally_pmus *pmus;
	/* Root of sysfs (PMUs, cpumasks, online CPUs): NULL means $TALLY_SYSFS_ROOT when set, else "/sys". */
	const char *sysfs_root;
	/* Every event on its own fd, no automatic groups (braces still group). */
	bool no_packing;
	/* Command and process targets: do not follow children and threads created after open. */
	bool no_inherit;
	/* Do not retry an event with exclude_kernel when kernel-mode counting is the only thing refused. */
	bool no_user_only_retry;
	/* An event that cannot be opened fails tally_counter_open instead of reading "not supported". */
	bool unsupported_is_error;
	/* tally_counter_open succeeds even when no event at all could be opened (every one reads "not
	 * supported" with its reason), so that a launched command still runs: `tally stat -e cycles -- cmd` on
	 * a machine without a hardware PMU runs cmd and reports, as perf stat does. Without it, such an open
	 * fails with the first event's reason. (0.4) With it, the spec may also name no event at all (""):
	 * the counter then measures the target's time alone (perf stat -n). */
	bool open_without_events;
	/* Every read through read(2), never from user space (see tally/read_path.h): for comparison, or
	 * where user-space counter reads are not trusted. */
	bool no_user_reads;
	/* (0.4) Metrics to count for (tally/metrics.h): a comma-separated list of metric and metric group
	 * names ("IPC,TopdownL1", perf's -M). The events each metric needs are appended to the spec as one
	 * group per metric (on a hybrid machine one per core PMU), so that each ratio comes from one window. An
	 * unknown name fails tally_counter_new (-ENOENT, "did you mean" in tally_last_error()); a metric whose
	 * events this machine cannot name adds nothing and evaluates as not available. NULL: none. */
	const char *metrics;
	/* (0.4) Every event, the metrics' included, counted in user or kernel space only (tally_parse_opts's
	 * space): perf stat's --all-user, --all-kernel. */
	enum tally_space space;
};
#define tally_counter_opts__last_field space

/* Parses spec and prepares a closed counter. A bad spec: -TALLY_ESPEC with the caret text in
 * tally_last_error(). Thread-safe (touches only the new handle). */
TALLY_API int tally_counter_new(const char *spec, const struct tally_counter_opts *opts, tally_counter **out);

/* Closes the counter if open (see tally_counter_close) and frees it. NULL is a no-op. */
TALLY_API void tally_counter_free(tally_counter *counter);

enum tally_target_kind {
	TALLY_TARGET_THREAD,  /* the calling thread only */
	TALLY_TARGET_PROCESS, /* the calling process: its threads now, and (inherit) threads created later */
	TALLY_TARGET_PID,     /* every thread of process `pid` (inherit: and its later threads/children) */
	TALLY_TARGET_TIDS,    /* exactly the threads tids[0 .. nr_tids) (a repeated tid counts once) */
	TALLY_TARGET_COMMAND, /* argv, launched by tally; counted from its exec on, children and threads too */
	TALLY_TARGET_CPUS,    /* everything on the CPUs `cpus` ("0-3,8"; NULL: all online), system-wide */
	TALLY_TARGET_CGROUPS, /* (0.4) the tasks of cgroups[0 .. nr_cgroups) (and of the cgroups below each)
	                       * while they run on the CPUs `cpus` (NULL: all online): one part per cgroup
	                       * and CPU (tally_part.cgroup); see tally/cgroup.h for the names */
	TALLY_TARGET_ALL_THREADS, /* (0.4) every thread of the system that exists when the counter opens,
	                       * each its own part (perf stat -a --per-thread); threads made later are not
	                       * counted, and one that exits before its events are open is left out */
};

struct tally_target {
	size_t sz;
	enum tally_target_kind kind;
	pid_t pid;                /* TALLY_TARGET_PID */
	const pid_t *tids;        /* TALLY_TARGET_TIDS */
	size_t nr_tids;
	char *const *argv;        /* a command to launch (NULL-terminated; argv[0] found as execvp(3) finds
	                           * it, a file without #! run by /bin/sh). TALLY_TARGET_COMMAND counts it;
	                           * any other kind counts its own target while the command runs (perf stat
	                           * -a -- sleep 1): see tally_counter_start and tally_counter_wait */
	const char *cpus;         /* TALLY_TARGET_CPUS: a CPU list, NULL for all online CPUs */
	const pid_t *pids;        /* TALLY_TARGET_PID with several processes (perf stat -p 1,2): when
	                           * nr_pids > 0 these replace `pid`; the threads of all of them are counted */
	size_t nr_pids;
	const char *pin;          /* with argv: a CPU list ("0-3,8") the command is pinned to before its
	                           * exec (sched_setaffinity); NULL: the caller's affinity */
	uint64_t ignored;         /* with argv: signals the command starts with ignored, bit n - 1 for signal
	                           * n (1 << (SIGHUP - 1)); tally stat passes those its own parent left
	                           * ignored: nohup's SIGHUP, a background job's SIGINT and SIGQUIT, which
	                           * perf's command inherits. Every other signal starts at its default. */
	bool inherit_signals;     /* (0.3) with argv: the command starts with the dispositions the exec
	                           * passes on from the caller's process (an ignored signal stays ignored,
	                           * a caught one becomes the default) and those of `ignored` ignored,
	                           * instead of every signal set anew: the child then makes one call per
	                           * signal of `ignored`, not ~60, before its exec. Only for a caller that
	                           * catches no signal when it opens the counter: a handler of the caller's
	                           * would run in the child if its signal came between the child's
	                           * unblocking and its exec. tally stat opens before it installs its own. */
	const char *const *cgroups; /* (0.4) TALLY_TARGET_CGROUPS: cgroup names (tally/cgroup.h), each
	                           * counted on its own; a repeated name counts twice. "" counts every task
	                           * on the CPUs, no cgroup filter (perf stat -G a,,b). The events are opened
	                           * per CPU with PERF_FLAG_PID_CGROUP on each cgroup's directory: events x
	                           * CPUs x cgroups descriptors */
	size_t nr_cgroups;
};
#define tally_target__last_field nr_cgroups

/* Opens every event on the target (NULL: the calling thread), disabled. Events of a PMU with a cpumask
 * (uncore-style) open only on the CPUs that mask names. A command (target->argv) is forked here and
 * waits, not yet exec'd, until tally_counter_start. When the events need more descriptors than the soft
 * RLIMIT_NOFILE leaves, the soft limit of the whole process is raised toward the hard one first (as perf
 * does), and stays raised. Returns 0 when at least one event opened;
 * on failure nothing stays open and the handle is closed (it may be opened again). Already open:
 * -TALLY_ESTATE. */
TALLY_API int tally_counter_open(tally_counter *counter, const struct tally_target *target);

/* (0.6) Which events the following opens count: those whose selected[i] is true (n must be
 * tally_counter_count), or with selected NULL every event again (the default). An event left out is not
 * opened: it reads TALLY_STATUS_NOT_COUNTED, with a note that says so, and its indices, name and metrics
 * are unchanged, so that a caller can count the groups of a large spec a set at a time, one open (one run
 * of a command) each, without multiplexing, and keep each event's reading from the open that counted it
 * (tally stat --no-multiplex). Select whole groups (tally_result.group of an earlier read): the events
 * kept outside braces are packed again at each open. tally_counter_plan shows every event's plan
 * whatever the selection. Only on a closed counter: -TALLY_ESTATE while open; -EINVAL for a NULL counter
 * or another n. Not thread-safe on one counter (it changes the handle). */
TALLY_API int tally_counter_select(tally_counter *counter, const bool *selected, size_t n);

/* Starts counting from zero: PERF_EVENT_IOC_RESET with PERF_IOC_FLAG_GROUP, then PERF_EVENT_IOC_ENABLE
 * per (CPU, thread): the members first, the group's leader last, so the whole group goes on the PMU at
 * once (one ENABLE with PERF_IOC_FLAG_GROUP turns the leader on first, and members then miss counts until
 * the next context switch: see tally_evsel_enable). Each start begins a new window: every read until the next start
 * or reset gives the counts, enabled and running times and scaling of this window only (the kernel's
 * reset leaves the times running on, so tally reads them here, one read(2) per group and (CPU, thread),
 * and subtracts them). For a launched command, the first start lets the command exec and returns the
 * failure of its side, if any (the exec's -ENOENT, -EACCES, ...; a pinning failure; the command then
 * exits with 127): a TALLY_TARGET_COMMAND's events were opened with enable_on_exec, so counting begins
 * at the exec; any other target's events are enabled first, then the command starts. The command
 * starts with an empty signal mask and every signal at its default disposition, whatever the caller
 * blocks, ignores or handles. */
TALLY_API int tally_counter_start(tally_counter *counter);

/* Stops counting: PERF_EVENT_IOC_DISABLE with PERF_IOC_FLAG_GROUP. Values stay readable. */
TALLY_API int tally_counter_stop(tally_counter *counter);

/* (0.4) Counts again after tally_counter_stop in the same window: PERF_EVENT_IOC_ENABLE as start does it,
 * no reset, so that reads add up every stretch between a resume (or the start) and a stop, with the
 * enabled and running times of those stretches only (perf stat --control's "enable" after a "disable").
 * A counter that no start has given a window since its open is started (tally_counter_start); a
 * running one is left as it is. Not thread-safe on one counter (as start and stop). */
TALLY_API int tally_counter_resume(tally_counter *counter);

/* Sets the counts to zero and begins a new window (as start does) without changing whether they run.
 * What children of the target that exited before added is excluded too (the kernel's reset keeps it:
 * tally reads each count at the reset and subtracts it). */
TALLY_API int tally_counter_reset(tally_counter *counter);

/* Closes every fd (the handle can be opened again). A launched command that never got to exec is told
 * to exit without running and is reaped; one that was started and not yet waited for is waited for here
 * (wait first, or signal it through tally_counter_pid, to decide when). Closing a closed counter is a
 * no-op. Returns 0. */
TALLY_API int tally_counter_close(tally_counter *counter);

/* Number of events: one per attr of the spec (a generic event on a hybrid machine counts once per core
 * PMU; such expansions share an origin). Known from tally_counter_new on. */
TALLY_API size_t tally_counter_count(const tally_counter *counter);

/* The parsed spec (names, PMUs, origins, attrs as written), for display. Valid until free. */
TALLY_API const tally_events *tally_counter_events(const tally_counter *counter);

/* The display name of event i ("page-faults", "cpu_core/cycles/"), NULL when out of range. */
TALLY_API const char *tally_counter_name(const tally_counter *counter, size_t i);

enum tally_status {
	TALLY_STATUS_EXACT,         /* ran the whole time it was enabled: the value is the count */
	TALLY_STATUS_SCALED,        /* multiplexed: value extrapolated by enabled / running (see ratio) */
	TALLY_STATUS_NOT_COUNTED,   /* opened and enabled but never ran (or not read yet): no value */
	TALLY_STATUS_NOT_SUPPORTED, /* could not be opened here; tally_counter_note says why */
};

/* (0.4) The status's word in tally's outputs (tally stat -j, the region writers; docs/json-schema.json
 * $defs/status): "counted", "scaled", "not-counted", "not-supported"; "unknown" for any other value, never
 * NULL. Thread-safe. */
TALLY_API const char *tally_status_name(enum tally_status status);

/* One event's reading, summed over its CPUs and threads. Fields are never reordered or removed; new ones
 * come at the end (see "Caller-allocated output" in libtally(3)). */
struct tally_result {
	uint64_t value;      /* raw count */
	uint64_t enabled;    /* ns the event was enabled since the latest start or reset (summed over parts) */
	uint64_t running;    /* ns it was on a counter in that time (summed over parts) */
	uint64_t scaled;     /* value extrapolated to the enabled time, part by part, saturating at 2^64-1 */
	double ratio;        /* running / enabled, 1.0 when exact, 0 when not counted */
	size_t nr_parts;     /* (CPU, thread) positions summed */
	enum tally_status status;
	int error;           /* NOT_SUPPORTED: the open's code (-ENOENT, -TALLY_ENOPMU, ...); else 0 */
	int group;           /* index of the group it was opened in (the leader's event index), -1 if none */
	unsigned origin;     /* the spec item it came from (hybrid expansions share one) */
	bool user_only;      /* kernel mode was refused, so tally retried with exclude_kernel (see note) */
	bool has_note;       /* tally_counter_note(i) has text: why unsupported, narrowed, regrouped, idle */
};
#define tally_result__last_field has_note

/* Reads every event into results[0 .. n) (n may be smaller than tally_counter_count), elements of elem_sz
 * bytes: pass sizeof(results[0]) (see "Caller-allocated output" in libtally(3)). The values are those of
 * the window, since the latest start or reset; for the counts between two moments (intervals), take
 * snapshots (tally/snapshot.h): the difference of two scaled values is not the scaled difference. A group
 * that never ran is reported (NOT_COUNTED + note) and, if packed by tally, split and reopened here (the
 * next read counts it). Returns the number of results written, or a negative code. Not open:
 * -TALLY_ESTATE; elem_sz too small: -TALLY_EOPTS. */
TALLY_API int tally_counter_read(tally_counter *counter, struct tally_result *results, size_t n,
                                 size_t elem_sz);

/* Reads every event's value into values[0 .. n): values[i] is what tally_counter_read gives as
 * results[i].scaled (the count where the event ran all its window, else extrapolated to it; 0 when not
 * counted or not supported), from the same reads with the same fallbacks, without building results:
 * where every group is read from user space and ran all its window, the read is the registers' reads and
 * little else (a window with no time in it yet, which tally_counter_read reports not counted, then
 * reads the counts so far). Statuses, ratios and notes come from tally_counter_read, and
 * tally_counter_parts gives the parts of the latest read that built results. Returns the number of values written, or a negative code
 * (not open: -TALLY_ESTATE). (0.4) */
TALLY_API int tally_counter_read_values(tally_counter *counter, uint64_t *values, size_t n);

/* One (CPU, thread) position of an event in the latest read. New fields come at the end. */
struct tally_part {
	int cpu;             /* -1: any CPU (the event follows its threads) */
	pid_t tid;           /* 0: the calling thread; -1: every task (CPU-wide) */
	uint64_t value, enabled, running, scaled;
	enum tally_status status;
	int cgroup;          /* (0.4) TALLY_TARGET_CGROUPS: the index of the part's cgroup in the target's
	                      * cgroups (tid is then -1); -1 for any other target */
};
#define tally_part__last_field cgroup

/* The parts of event i from the latest read into parts[0 .. n), elements of elem_sz bytes (pass
 * sizeof(parts[0])). Returns the number of parts the event has (which may exceed n: call again with more
 * room), or a negative code. */
TALLY_API int tally_counter_parts(const tally_counter *counter, size_t i, struct tally_part *parts, size_t n,
                                  size_t elem_sz);

/* (0.4) The latest read restricted to one cgroup of a TALLY_TARGET_CGROUPS counter: results[i] is event
 * i summed over its parts in cgroup `cgroup` (an index into tally_target.cgroups, as tally_part.cgroup),
 * by the sum that makes tally_counter_read's results (each part scaled on its own, value / enabled /
 * running / scaled summed saturating, status EXACT, SCALED or NOT_COUNTED as any part of the cgroup
 * counted or was scaled, ratio of the summed times, nr_parts the cgroup's parts: one per CPU); origin,
 * group, error, user_only and has_note are the event's, an event not supported stays NOT_SUPPORTED.
 * Reads nothing itself: call tally_counter_read first (before any read every result is NOT_COUNTED),
 * then this once per cgroup, so that every cgroup comes from the same read. For intervals,
 * tally_snapshot_delta_cgroup (tally/snapshot.h). n and elem_sz as tally_counter_read's. Returns the
 * number of results written, or a negative code: not open, -TALLY_ESTATE; a counter of another target
 * or cgroup >= nr_cgroups, -EINVAL with the explanation in tally_last_error(). Only reads the handle
 * (see Thread-safety above). */
TALLY_API int tally_counter_cgroup_results(const tally_counter *counter, size_t cgroup,
                                           struct tally_result *results, size_t n, size_t elem_sz);

/* Sums results (as tally_counter_read wrote them) by origin: the hybrid expansions of one spec item,
 * or the instances of a PMU family (uncore_imc_0, uncore_imc_1, ... of uncore_imc/cas_count_read/),
 * become one result. out[k] receives origin k; returns the number of origins (which may exceed n_out).
 * Both arrays have elements of elem_sz bytes (pass sizeof(results[0])). */
TALLY_API int tally_counter_sum_origins(const tally_counter *counter, const struct tally_result *results,
                                        size_t n_results, struct tally_result *out, size_t n_out,
                                        size_t elem_sz);

/* Why event i is not supported, was narrowed to user space, was regrouped or never ran; "" when there is
 * nothing to say. Valid until the next open/read/close of the counter. */
TALLY_API const char *tally_counter_note(const tally_counter *counter, size_t i);

/* The explanation of the latest failing call on this counter ("" when none). Valid until the next
 * failing call on it. */
TALLY_API const char *tally_counter_last_error(const tally_counter *counter);

/* ---- the plan of an open, without opening ---------------------------------------------------------- */

/* How an event came to be in its group. */
enum tally_grouping {
	TALLY_GROUPING_ALONE,  /* outside braces with no_packing: on a descriptor of its own */
	TALLY_GROUPING_BRACES, /* a {...} group of the spec (on a hybrid machine, one per core PMU) */
	TALLY_GROUPING_PACKED, /* outside braces, packed by tally: the events one PMU counts (pmu_type), in spec
	                        * order, at most max_group to a group */
	TALLY_GROUPING_TOOL,   /* a tool event (duration_time, user_time, system_time): tally counts it itself,
	                        * alone; nothing is opened for it, and its attr is the one perf shows */
	TALLY_GROUPING_TOPDOWN, /* (0.4) outside braces, an Intel topdown metric event or the slots event that
	                         * leads them: the kernel opens a metric event only in a group led by slots, so
	                         * these are grouped (also with no_packing), slots first, and never split */
};

/* One event as tally_counter_open would first try to open it. */
struct tally_planned_event {
	size_t sz;
	size_t event;       /* the event's index (tally_counter_name, tally_events_at of tally_counter_events) */
	/* The attr perf_event_open(2) would get: as parsed, with size, read_format (times, ids, GROUP on a
	 * leader of members), disabled (the leader only), inherit and enable_on_exec (the leader only) as
	 * the target kind sets them. */
	const struct perf_event_attr *attr;
	size_t group;       /* its group's number, in the order the groups open */
	size_t leader;      /* the event index of its group's leader (event itself for the leader) */
	size_t group_index; /* its position in the group: 0 for the leader */
	size_t group_size;  /* events in the group */
	enum tally_grouping grouping;
	uint32_t pmu_type;  /* the type of the PMU that counts it, what packed groups share: not attr->type
	                     * (generic, cache, raw and sysfs events of one core PMU share it) */
	size_t max_group;   /* the most events tally packs into one group: the kernel refuses a group whose
	                     * read would pass 16 KiB (Linux 6.7+) */
	const char *cpus;   /* the CPUs its PMU restricts it to (sysfs cpumask, or a hybrid core PMU's cpus):
	                     * the open's cpu argument takes them; NULL: any CPU */
	/* The counters of its PMU it may take, by the vendor table (its record's Counter field, the PMU's
	 * numbers of counters from the model's counter.json, the kernel's fixed-counter rules): bit i generic
	 * counter i, bit 32 + i fixed counter i. 0: not known (no table, no counts for its PMU, a software
	 * event), and packing counts it as taking none, as before the tables had counts. */
	uint64_t counters;
	unsigned generic_counters, fixed_counters; /* its PMU's, by the same table; 0 and 0: not known */
	bool group_fits;    /* its group's events can each be on a counter of its own at once, by those sets:
	                     * false only for a {...} group of the spec that needs more counters than the PMU
	                     * has, or two that fit only the same one (tally splits its own groups and weak
	                     * ones to fit); the open leaves it as written, and the kernel refuses the
	                     * members it cannot schedule (they read not supported) */
};
#define tally_planned_event__last_field group_fits

/* Entry k (0 .. tally_counter_count()) of the plan tally_counter_open would start from on a target of this
 * kind, in the order of the open: group after group, the leader first. Opens nothing and makes no system
 * call beyond what tally_counter_new read (the plan needs no PMU hardware). The open may still reshape it
 * as the kernel answers: a packed group splits where the PMU refuses a member (no room), an unsupported
 * event leaves its group, and a refused kernel mode or exclude_guest is retried without it (see
 * tally_counter_open). info is declared with TALLY_OPTS; its pointers stay valid until the counter is
 * freed or called again with another kind. -ERANGE past the end, -ENOMEM. Changes the handle (its first
 * call makes the plan): one thread at a time, as for open. */
TALLY_API int tally_counter_plan(tally_counter *counter, enum tally_target_kind kind, size_t k,
                                 struct tally_planned_event *info);

/* ---- launched commands -------------------------------------------------------------------------- */

/* New fields come at the end. */
struct tally_exit {
	double wall_s;       /* from the exec to the exit */
	double user_s;       /* CPU time of the command and its waited-for children (getrusage) */
	double sys_s;
	pid_t pid;
	int status;          /* as waitpid(2) gives it */
	int code;            /* exit code; 128 + signal number when killed; 127 when the exec failed */
};
#define tally_exit__last_field code

/* The pid of the launched command (0 when the target launches none or is not open). Lets a CLI forward
 * signals to it. */
TALLY_API pid_t tally_counter_pid(const tally_counter *counter);

/* Waits for the launched command to exit (retrying EINTR) and fills `exit`, exit_sz bytes (pass
 * sizeof(*exit)). Counts stay readable until close. No command launched, or not started: -TALLY_ESTATE;
 * exit_sz too small: -TALLY_EOPTS. A caller whose SIGCHLD is SIG_IGN has its children reaped by the
 * kernel, so there is no status to wait for: -ECHILD. */
TALLY_API int tally_counter_wait(tally_counter *counter, struct tally_exit *exit, size_t exit_sz);

/* Waits until every task a TALLY_TARGET_PID target (its processes: each whole thread group) or a
 * TALLY_TARGET_TIDS target (its threads) counts has exited, for at most timeout_ms (-1: no limit), and
 * returns early when wake_fd (-1: none; e.g. a signal handler's self-pipe) is readable or a signal
 * handler runs. Returns 1 when every task is gone, 0 when it returned early or timed out, or a negative
 * code; another kind of target: -TALLY_ESTATE; a wake_fd that is not open: -EBADF. Through pidfds (Linux 5.3; a thread that leads no
 * process needs 6.9's PIDFD_THREAD); a task that has none is looked for in /proc every 100 ms. A
 * process that exited counts as gone while still a zombie. */
TALLY_API int tally_counter_wait_tasks(tally_counter *counter, int timeout_ms, int wake_fd);

#ifdef __cplusplus
}
#endif
#endif
