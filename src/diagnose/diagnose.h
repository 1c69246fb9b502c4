/* SPDX-License-Identifier: MIT */
/*
 * Explanations of failed perf_event_open, ioctl, read and mmap calls: the event, the errno, the most likely
 * cause on this machine (from tally_facts) and the fix. The layer that makes a call only records it with
 * its context (evsel.c: struct tly_evsel_failure); the layer that gives up (the counter, or a caller of the
 * lower layer through tally_evsel_explain) explains it here, once, with the facts of its open:
 *
 *   cannot open event 'cycles' (perf_event_open: No such file or directory, ENOENT):
 *     this machine exposes no hardware PMU (only breakpoint, msr, software, tracepoint, uprobe), ...
 *     Software events (task-clock, page-faults, context-switches) still work; for hardware counters ...
 */
#ifndef TLY_DIAGNOSE_H
#define TLY_DIAGNOSE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/probe.h>

#include "evsel/evsel.h"

/* What the caller knows about a failure. Zero-initialise and fill what applies (designated initialisers). */
struct tly_diag {
	enum tly_diag_op op;
	int err;                             /* errno of the failed call (positive) */
	const char *event;                   /* the event's display name */
	const struct perf_event_attr *attr;  /* its attr: type, config, exclude_*, precise_ip, size; may be NULL */
	const char *pmu;                     /* its PMU's name, NULL: inferred from attr->type */
	const char *request;                 /* TLY_DIAG_IOCTL: the request's name, "PERF_EVENT_IOC_ENABLE" */
	/* Group context: leader NULL means the event is not a member of a group of several. */
	const char *leader;                  /* the group leader's display name */
	const char *leader_pmu;              /* its PMU's name (NULL: unknown) */
	size_t group_size;                   /* events in the group, leader included */
	size_t group_index;                  /* this event's position in it (0 = leader) */
	uint64_t leader_read_format;         /* the leader's read_format (explains E2BIG); 0: unknown */
	bool cpu_wide;                       /* opened with pid == -1 (counts a whole CPU) */
	size_t fds_needed;                   /* descriptors the whole open needs (explains EMFILE) */
	size_t read_size;                    /* TLY_DIAG_READ: bytes the buffer offered (explains ENOSPC) */
	const struct tally_facts *facts;     /* NULL: probed on demand with the default roots */
};

/* Facts probed at most once for a run of failures (one open of a counter): a probe scans sysfs and opens
 * an event, too much to repeat for every event of a spec that fails to open. */
struct tly_facts_cache {
	const char *sysfs_root;   /* NULL: the default root */
	bool probed;
	struct tally_facts facts;
};

/* The cached facts, probed on the first call. */
const struct tally_facts *tly_facts_cache_get(struct tly_facts_cache *cache);

/* Writes the explanation of d: a first line naming the call, event and errno, then indented lines with
 * the likely cause and its fix. snprintf semantics: returns the length the full text needs. */
int tly_diagnose(const struct tly_diag *d, char *buf, size_t len);

/* Records tly_diagnose()'s text as this thread's last error and returns the code the public call should
 * return: -TALLY_ENOPMU when the cause is a machine without a hardware PMU, else -d->err. */
int tly_diag_error(const struct tly_diag *d);

/* Explains the failure recorded on evsel e (or, for a group, on whichever of its events recorded one) as
 * tly_diag_error does, the event's position closing the text, with the given facts (NULL: probed now).
 * Returns the code to report; `err` when no event of the group recorded a failure (the evsel layer's
 * context text then stands). */
int tly_diag_evsel(const tally_evsel *e, int err, const struct tally_facts *facts);

/* The retry policy for perf_event_paranoid 2: true when a permission failure (EACCES/EPERM) of an open is
 * explained by kernel-mode counting alone (the event counts kernel and user mode, the level is 2, the
 * caller holds neither CAP_PERFMON nor CAP_SYS_ADMIN, and the event is not CPU-wide). The caller then
 * retries with attr.exclude_kernel = 1 and, when that works, reports tly_diag_user_only_note() through the
 * log. */
bool tly_diag_retry_user_only(const struct tly_diag *d);

/* The note that says an event was narrowed to user space by that retry, and what would allow kernel mode.
 * snprintf semantics. */
int tly_diag_user_only_note(const char *event, const struct tally_facts *facts, char *buf, size_t len);

/* Explains a group that was enabled for time_enabled ns but never ran on the PMU (time_running == 0),
 * with the NMI-watchdog hint when the watchdog holds a counter; facts NULL (a read, which must not probe
 * the machine) gives the hint as a condition to check. snprintf semantics. */
int tly_diagnose_not_counted(const char *leader, size_t group_size, uint64_t time_enabled,
                             const struct tally_facts *facts, char *buf, size_t len);

#endif
