/* SPDX-License-Identifier: MIT */
/*
 * How a counter reads each event: from user space (the event's mmap'd perf_event_mmap_page and the
 * counter register itself: rdpmc on x86, mrs on arm64, no system call) or with read(2), and why not from
 * user space when not.
 *
 * The user-space path is chosen at tally_counter_open for a group when every member allows it: the
 * target is the calling thread (TALLY_TARGET_THREAD, no inherit: any other target's counter lives in
 * another context), the event is on a hardware counter the kernel lets user space read
 * (cap_user_rdpmc; x86: /sys/bus/event_source/devices/cpu/rdpmc not 0; arm64: sysctl
 * kernel.perf_user_access=1, and tally asks for it through the PMU's `rdpmc` format term) and
 * tally_counter_opts.no_user_reads is not set. An Intel topdown group (slots leading metric events) is
 * read as its registers: slots with rdpmc (1 << 30) | 3, PERF_METRICS with rdpmc 1 << 29, each metric
 * decoded as the kernel decodes it; the kernel resets those registers at every read(2), so the two paths
 * never run unaccounted on one group: tally resets the group itself every few seconds (the precision of
 * the 8-bit fractions), and after any read(2) of it, carrying the counts over. Each read then falls
 * back to read(2) by itself (same results) when the group is not on a counter at that moment
 * (multiplexed out, stopped), when it is made on another thread than the one that opened the counter
 * (or in a forked child), or when the kernel kept updating the group's pages through a bounded number of
 * retries (libtally(3)).
 */
#ifndef TALLY_READ_PATH_H
#define TALLY_READ_PATH_H

#include <stdint.h>
#include <tally/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tally_counter tally_counter;

enum tally_read_path {
	TALLY_READ_SYSCALL, /* read(2) of the group's leader */
	TALLY_READ_USER,    /* from user space: the mmap'd page and the counter register */
};

/* Why an event is not (or a read was not) read from user space. New values come at the end. */
enum tally_read_reason {
	TALLY_READ_REASON_NONE,           /* it is */
	TALLY_READ_REASON_FORCED,         /* tally_counter_opts.no_user_reads */
	TALLY_READ_REASON_ARCH,           /* tally has no user-space read for this architecture (x86, arm64 only) */
	TALLY_READ_REASON_TARGET,         /* not the calling thread alone (a process, pid, tids, command, CPUs,
	                                   * or a PMU that counts per CPU) */
	TALLY_READ_REASON_INHERIT,        /* the event follows children: the kernel refuses to map it */
	TALLY_READ_REASON_NO_PMU,         /* not a hardware counter (software event, tracepoint, breakpoint) */
	TALLY_READ_REASON_TOPDOWN,        /* unused since 0.4: topdown groups read from user space too */
	TALLY_READ_REASON_RDPMC_SYSFS,    /* x86: /sys/bus/event_source/devices/cpu/rdpmc is 0 */
	TALLY_READ_REASON_USER_ACCESS,    /* arm64: sysctl kernel.perf_user_access is 0 */
	TALLY_READ_REASON_CAP_USER_RDPMC, /* the kernel does not let user space read this event (cap_user_rdpmc 0) */
	TALLY_READ_REASON_NO_USER_TIME,   /* the kernel gives no clock to extrapolate the times (cap_user_time 0) */
	TALLY_READ_REASON_MMAP,           /* mapping the event's page failed */
	TALLY_READ_REASON_GROUP,          /* another member of its group cannot be read from user space */
	/* Of one read only: */
	TALLY_READ_REASON_NOT_ON_COUNTER, /* not on a counter then (multiplexed out, stopped, not started) */
	TALLY_READ_REASON_OTHER_THREAD,   /* read on another thread than the opening one (or in a forked child) */
	TALLY_READ_REASON_BUSY,           /* the kernel updated the group's pages during every retry */
};

/* New fields come at the end. */
struct tally_read_info {
	size_t sz;
	enum tally_read_path path;          /* the path its reads take when they can (chosen at open) */
	enum tally_read_reason reason;      /* path TALLY_READ_SYSCALL: why */
	enum tally_read_path last_path;     /* the latest read's (tally_counter_read or _snapshot) */
	enum tally_read_reason last_reason; /* last_path TALLY_READ_SYSCALL: why */
	uint64_t user_reads;                /* reads of its group since the open, from user space */
	uint64_t syscall_reads;             /* ... and through read(2) */
};
#define tally_read_info__last_field syscall_reads

/* Fills info (info->sz set by the caller, as TALLY_OPTS does) for event i of an open counter. Not open:
 * -TALLY_ESTATE; i out of range or NULL: -EINVAL. An event that is not supported reads
 * TALLY_READ_SYSCALL with TALLY_READ_REASON_NONE and no reads. */
TALLY_API int tally_counter_read_info(const tally_counter *counter, size_t i, struct tally_read_info *info);

/* A short English text for a reason ("sysctl kernel.perf_user_access is 0"), never NULL. */
TALLY_API const char *tally_read_reason_str(enum tally_read_reason reason);

#ifdef __cplusplus
}
#endif
#endif
