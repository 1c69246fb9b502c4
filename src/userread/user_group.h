/* SPDX-License-Identifier: MIT */
/*
 * A group read from user space: the mapped perf_event_mmap_page of each member, the thread allowed to
 * read them, and what its reads did. Set up when the group opens (the counter decides whether it may),
 * read through read_backend.h, torn down with the group. The protocol itself is mmap_page.h; the counter
 * and clock reads, user_read.h.
 */
#ifndef TLY_USER_GROUP_H
#define TLY_USER_GROUP_H

#include "evsel/evsel.h"
#include "userread/mmap_page.h"
#include "userread/user_fault.h"
#include "userread/user_read.h"

#include <stdbool.h>
#include <sys/types.h>
#include <tally/read_path.h>

/* How often a topdown group read from user space is reset (tly_user_group_topdown_fold): PERF_METRICS
 * holds 8-bit fractions of every slot since the last reset, so the longer it runs, the coarser the
 * difference of two reads; the kernel's documentation (tools/perf/Documentation/topdown.txt) advises
 * resetting every few seconds. In the group's running time. */
#define TLY_TOPDOWN_RESET_NS 2000000000ULL

struct tly_user_group {
	tly_page **pages;      /* one per member, the leader's first */
	size_t n;
	size_t page_size;
	/* An Intel topdown group (slots leading metric events), else NULL: how each member is read
	 * (mmap_page.h's TLY_READ_*, or a metric's byte). Its slots and metrics registers count from the
	 * group's last reset (which read(2) also is): td_base holds each member's count at that reset, which
	 * tally made at td_reset_running (the leader's running time) with an ioctl on fd. */
	int8_t *td;
	uint64_t *td_base;
	uint64_t td_reset_running;
	int fd;
	/* Since that reset, each member's highest count given (td_high: the metrics are 8-bit fractions made
	 * again at every read, and one can drop as slots grow; the kernel too adds a metric's difference only
	 * where it grew, __icl_update_topdown_event in arch/x86/events/intel/core.c, 6.12), and the values the
	 * registers held when they stood for the reset (td_last: 0, unless td_rebase). A reset of a group off
	 * its counters zeroes the kernel's counts but not the registers' saved values, which the next
	 * schedule-in writes back (icl_set_topdown_event_period): td_rebase then makes the first user-space
	 * read after it the registers' zero, as the kernel subtracts `last` from them. */
	uint64_t *td_high, *td_last;
	bool td_rebase;
	/* Only the opening thread reads the pages: on another thread the register would be that thread's
	 * CPU's counter of another context (or trap, on arm64, where user access is per task). The opening
	 * thread's tly_thread_token, and its process: the kernel maps the pages VM_DONTCOPY
	 * (kernel/events/core.c, perf_mmap, 6.12), so a child has none, and the addresses may hold other
	 * memory there; tly_user_group_free unmaps in the owning process alone. */
	uint64_t owner;
	pid_t pid;
	/* The token whose reads may use the pages now: owner, or TLY_USER_NO_READER while the counter is
	 * stopped (tly_user_group_stop) or after the counter read faulted (tly_user_group_revoke), so that
	 * the reads' one comparison of tokens sends those to read(2) at no cost of their own. */
	uint64_t reader;
	bool stopped;
	enum tally_read_reason revoked; /* why the pages are no longer read, else TALLY_READ_REASON_NONE */
	/* The opening thread's tly_user_faults when a read of this group last fell back after a fault, and
	 * user_reads then (faulted: there was one). */
	uint64_t faults_seen, fault_reads;
	bool faulted;
	/* The list of groups with pages mapped, for tly_user_page_elsewhere. */
	struct tly_user_group *next_mapped, **pprev_mapped;
	/* The reads so far by each path; the latest read(2)'s reason, and user_reads as it was then: the
	 * latest read was from user space exactly when user_reads has grown since (so that a read from user
	 * space writes its count alone). */
	uint64_t user_reads, syscall_reads;
	enum tally_read_reason syscall_reason;
	uint64_t syscall_at;
};

/* No thread's token (they count up from 1), not even a forked child's 0. */
#define TLY_USER_NO_READER UINT64_MAX

/* Whether the latest read of u was from user space (else read(2), or none yet). */
static inline bool tly_user_group_last_was_user(const struct tly_user_group *u)
{
	return u->user_reads > u->syscall_at;
}

/* Each thread's number, given by tly_user_group_new to a thread that has none (0): one TLS load, no
 * call, names the thread. A forked child inherits its forking thread's number with the pages, but the
 * counters count the parent's thread: pthread_atfork sets the child's back to 0, so its reads of them go
 * through read(2). initial-exec: in the shared library the default model would call __tls_get_addr on
 * every read; one word of the static TLS glibc keeps for libraries loaded with dlopen is enough. */
extern _Thread_local uint64_t tly_thread_token __attribute__((tls_model("initial-exec")));

/* The reason an outcome of the protocol gives for the read(2) that follows it. */
enum tally_read_reason tly_user_reason_of(enum tly_user_outcome outcome);

/* The reason of a read(2) by a thread whose token is not u's reader: another thread or process, or the
 * counter stopped, or the pages revoked. */
enum tally_read_reason tly_user_reason_away(const struct tly_user_group *u);

/* Maps the page of every member of the open group led by `leader` (one slot: the calling thread) and
 * checks the kernel lets user space read them. Returns TALLY_READ_REASON_NONE with *out set (to free
 * with tly_user_group_free), or the reason it cannot, with *out NULL and nothing left mapped.
 * sysfs_root: where to look for x86's rdpmc setting when the kernel says no. topdown: the leader is
 * Intel's slots with metric events among the members (spec_topdown.c made it so). */
enum tally_read_reason tly_user_group_new(tally_evsel *leader, const char *sysfs_root, bool topdown,
                                          struct tly_user_group **out);

/* A topdown group's values, each since its last reset, made counts since the window began (less
 * td_last, at least td_high, td_base added); every TLY_TOPDOWN_RESET_NS of running (running: the
 * leader's, now) the group is reset (one ioctl) and the counts so far become the new base. Out of line:
 * one call a read, for topdown groups only. */
void tly_user_group_topdown_fold(struct tly_user_group *u, uint64_t *values, size_t stride, uint64_t running);

/* A topdown group was read with read(2) (counts: since its last reset), which resets its registers: the
 * counts are folded into td_base and the group reset, so that the registers and the kernel's counts
 * start again together and no later read counts anything twice. Returns 0 or the ioctl's negative code. */
int tly_user_group_topdown_syscall(struct tly_user_group *u, struct tally_count *counts);

/* The counter began a window on the group (reset, then read(2) into counts, which resets the topdown
 * registers but not the kernel's counts): the group is reset once more, so that registers and counts
 * start together, and every member's count at the window's start is 0. Returns 0 or the ioctl's
 * negative code. */
int tly_user_group_topdown_begin(struct tly_user_group *u, struct tally_count *counts);

/* The read of a topdown group from user space (tly_mmap_read_topdown, then tly_user_group_topdown_fold),
 * without counting the read; its outcome. Out of line, for tly_user_group_read_outline and
 * tly_user_group_read alike, so that the inlined reads of other groups carry none of its per-member
 * decisions (the compiler otherwise merges both passes into one that makes them). */
enum tly_user_outcome tly_user_group_read_topdown(struct tly_user_group *u, uint64_t *values, size_t stride,
                                                  uint64_t *enabled, uint64_t *running, uint64_t *now);

/* Unmaps (in the process that mapped the pages only) and frees; NULL is a no-op. */
void tly_user_group_free(struct tly_user_group *u);

/* Whether addr lies in a page of a group mapped by another process than this one, this being a child
 * made by a raw clone(2) (no atfork handler ran, so the thread's token is still its parent's, and the
 * pages, which the kernel maps VM_DONTCOPY, are not there); the page's address and size then. For the
 * fault handler (user_fault.c), which maps a zero page there: the protocol reads it as a page without
 * cap_user_rdpmc, so the read is read(2)'s. Async-signal-safe; walks the list only in such a child (one
 * copy of its parent's list, which nothing else there changes). */
bool tly_user_page_elsewhere(const void *addr, void **page, size_t *size);

/* The counter stopped (stopped true) or started its events. While stopped, every read is read(2)'s
 * (reason NOT_ON_COUNTER), by rule rather than by the page's index: a disabled event's page is updated
 * when its event is scheduled out (x86_pmu_del and armpmu_del call perf_event_update_userpage, 6.12), but
 * it is the time fields of that moment, extrapolated by every later user read, and nothing in the
 * protocol says a stopped event is stopped; read(2) gives its counts and times as they stand. */
void tly_user_group_stop(struct tly_user_group *u, bool stopped);

/* The pages may no longer be read (a counter read faulted: user access was taken away while they were
 * mapped, user_fault.h): every later read is read(2)'s, for `reason`. */
void tly_user_group_revoke(struct tly_user_group *u, enum tally_read_reason reason);

/* A read of u by its reader fell back, and the thread's counter reads faulted since u last looked
 * (user_fault.h): a second time with no user-space read between, the machine refuses them for good (x86's
 * rdpmc setting, arm64's perf_user_access), and u is revoked, its pages replaced by zero pages; once is a
 * thread moved between core types mid-read (x86 hybrid), which the next read survives. Out of line: only
 * after a fault. */
void tly_user_group_faulted(struct tly_user_group *u);

/* A pass over group u, which is not topdown (u->td NULL), read by its opening thread (the caller checked
 * both), with this machine's counter and clock reads (user_read.h), counted where it succeeds; its
 * arguments are tly_mmap_pass's (n: u->n, which a caller that knows it as a constant passes as one;
 * tries: TLY_USER_TRIES, or 1 on the lean paths, whose read is then straight-line code, and which give a
 * read that finds the pages moving to their general path, which retries). The pass is made here, in a
 * function of its own: GCC then makes its fields scalars before the caller's code joins them (a pass
 * made in a larger function keeps part of it on the stack, and more registers saved). */
static inline __attribute__((always_inline)) bool
tly_user_group_read_plain(struct tly_user_group *u, size_t n, uint64_t *values, size_t stride, bool times,
                          unsigned tries, uint64_t *enabled, uint64_t *running, uint64_t *now)
{
	if (tly_mmap_read((struct tly_mmap_pass){ .pages = (tly_page *const *)u->pages, .n = n,
	                                          .read_pmc = tly_arch_read_pmc, .read_clock = tly_arch_read_clock,
	                                          .values = values, .stride = stride, .times = times, .tries = tries,
	                                          .enabled = enabled, .running = running, .now = now }) !=
	    TLY_USER_OK)
		return false;
	u->user_reads++;
	return true;
}

/* The group read from user space: each member's value into values[k x stride], the group's times into
 * *enabled and *running and the perf clock into *now (mmap_page.h, with times); false,
 * with nothing counted, when it cannot (another thread, a member off its counter...). Out of line: for
 * reads that take this path only when their lean one (a region's pass, region_set.c) does not apply, so
 * that their inlined code stays small. */
bool tly_user_group_read_outline(struct tly_user_group *u, uint64_t *values, size_t stride, uint64_t *enabled,
                                 uint64_t *running, uint64_t *now);

/* Reads the group into counts (value, enabled, running, id of each member, as read(2) gives them) from
 * user space when it can, else with read(2) of the leader's slot; counts which it did and why. */
static inline int tly_user_group_read(struct tly_user_group *u, tally_evsel *leader, size_t slot,
                                      struct tally_count *counts)
{
	enum tly_user_outcome r = TLY_USER_BUSY;
	bool here = tly_thread_token == u->reader;
	if (here && u->td) {
		uint64_t enabled, running, now;
		r = tly_user_group_read_topdown(u, (uint64_t *)counts, sizeof(*counts) / sizeof(counts->value), &enabled,
		                                &running, &now);
		if (r == TLY_USER_OK)
			tly_mmap_complete(counts, u->n, &leader->group_ids[slot * u->n], enabled, running);
	} else if (here) {
		r = tly_mmap_read_group((tly_page *const *)u->pages, u->n, &leader->group_ids[slot * u->n],
		                        tly_arch_read_pmc, tly_arch_read_clock, counts);
	}
	if (r == TLY_USER_OK) {
		u->user_reads++;
		return 0;
	}
	if (here && r == TLY_USER_NOT_ON_COUNTER && __builtin_expect(tly_user_faults != u->faults_seen, 0)) {
		tly_user_group_faulted(u);
		here = tly_thread_token == u->reader;
	}
	u->syscall_reads++;
	u->syscall_reason = here ? tly_user_reason_of(r) : tly_user_reason_away(u);
	u->syscall_at = u->user_reads;
	int err = tly_evsel_read_group_slot(leader, slot, counts);
	return err || !u->td ? err : tly_user_group_topdown_syscall(u, counts);
}

#endif
