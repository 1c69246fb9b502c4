/* SPDX-License-Identifier: MIT */
/*
 * The user-space read protocol of a counting event's mmap'd struct perf_event_mmap_page, as
 * include/uapi/linux/perf_event.h documents it, for a whole group at once:
 *
 *   - a seqlock on `lock`: the kernel increments it before and after every update of the page
 *     (perf_event_update_userpage, with preemption off on the counted task's CPU), so a pass whose lock
 *     reads the same, even value before and after saw one version of every field;
 *   - value = `offset` + the hardware counter `index - 1`, sign-extended from `pmc_width` bits: the kernel
 *     keeps offset = count - prev_count, so a counter narrower than 64 bits (32 on arm64 without
 *     PMUv3p5, 48 on x86) is negative relative to its offset right after a wrap that the overflow
 *     interrupt has not folded in yet; zero extension would jump by 2^width;
 *   - `index == 0`: the event is not on a counter now (multiplexed out, disabled) or user reads are not
 *     granted; `cap_user_rdpmc == 0`: the counter may not be read from user space at all;
 *   - the times: time_enabled and time_running are those of the latest update, extrapolated to now with
 *     the clock the page describes (cap_user_time: time_offset + cyc * time_mult >> time_shift, cyc the
 *     TSC on x86 or CNTVCT_EL0 on arm64; cap_user_time_short: cyc first reduced to the time_mask bits
 *     above time_cycles); enabled always advances, running only while the event is on a counter.
 *
 * The counter and the clock are read through functions given by the caller: user_read.h has the real
 * ones (rdpmc, mrs), tests give functions over a simulated page. Inline and allocation-free: it is the
 * read path of tally_counter_read, called with the real functions, which the compiler then inlines.
 */
#ifndef TLY_MMAP_PAGE_H
#define TLY_MMAP_PAGE_H

#include "machine/topdown.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <tally/evsel.h>

typedef const volatile struct perf_event_mmap_page tly_page;

/* The capability bits of perf_event_mmap_page (bitfields in the uapi header, in the little-endian order
 * of x86 and arm64; test_mmap_page checks these against the bitfields). */
#define TLY_CAP_USER_RDPMC ((uint64_t)1 << 2)
#define TLY_CAP_USER_TIME ((uint64_t)1 << 3)
#define TLY_CAP_USER_TIME_ZERO ((uint64_t)1 << 4)
#define TLY_CAP_USER_TIME_SHORT ((uint64_t)1 << 5)

/* Whether pages usually have cap_user_time_short: arm64's do (arch_perf_update_userpage sets it, its
 * clock's counter being narrower than 64 bits), x86's do not (the TSC is whole). */
#if defined(__aarch64__)
#define TLY_TIME_SHORT_USUAL 1
#else
#define TLY_TIME_SHORT_USUAL 0
#endif

/* Passes over a group before giving up on it for this read (read(2) then answers): a pass is retried
 * only when the kernel updated a member's page during it, which takes an interrupt, a context switch or
 * a multiplexing rotation on this CPU in the few dozen instructions of a pass. Eight in a row means
 * something keeps interrupting; read(2) is then the better answer, and the bound keeps a read finite. */
#define TLY_USER_TRIES 8

/* Why a group read from user space gave up (the caller then reads with read(2)). */
enum tly_user_outcome {
	TLY_USER_OK,
	TLY_USER_NOT_ON_COUNTER, /* a member's index is 0 (or one this architecture cannot read) */
	TLY_USER_NO_RDPMC,       /* a member's cap_user_rdpmc is 0 */
	TLY_USER_NO_TIME,        /* the leader's page has no cap_user_time: its times cannot be extrapolated */
	TLY_USER_BUSY,           /* the pages changed during every one of its passes */
};

/* Reads the counter that a page's index names; where the index names none that this architecture reads
 * from user space (0, an event off its counter, among them), sets *unreadable to non-zero instead, without
 * faulting, and its value means nothing: the pass then leaves the group to read(2). The function, not the
 * pass, knows which indexes are readable, so that arm64's reads through a table make no check at all. */
typedef uint64_t (*tly_read_pmc_fn)(uint32_t index, uint32_t *unreadable);
typedef uint64_t (*tly_read_clock_fn)(void);

/* v's low `width` bits as a signed number (width 1 .. 64). The arithmetic right shift of a negative
 * number is implementation-defined in C11; GCC and Clang define it as arithmetic. */
static inline int64_t tly_sign_extend(uint64_t v, unsigned width)
{
#if defined(__aarch64__)
	/* lsl and asr by a register shift by its value modulo 64, so -width is the shift 64 - width as it
	 * is: three instructions where C's shifts, defined below 64 only, take a mask more. */
	uint64_t shift, r;
	__asm__("neg %w1, %w3\n\tlsl %0, %2, %1\n\tasr %0, %0, %1" : "=&r"(r), "=&r"(shift) : "r"(v), "r"(width));
	return (int64_t)r;
#else
	unsigned shift = (64 - width) & 63;
	return (int64_t)(v << shift) >> shift;
#endif
}

/* v >> shift (right) or v << shift for a shift the page gives (time_shift, at most 32 in every kernel):
 * C defines them below 64 only; arm64's shifts by a register take it modulo 64 as they are, where C's
 * need a mask more. right is a constant where inlined. */
static inline uint64_t tly_shift_by(uint64_t v, unsigned shift, bool right)
{
#if defined(__aarch64__)
	uint64_t r;
	if (right)
		__asm__("lsr %0, %1, %2" : "=r"(r) : "r"(v), "r"((uint64_t)shift));
	else
		__asm__("lsl %0, %1, %2" : "=r"(r) : "r"(v), "r"((uint64_t)shift));
	return r;
#else
	shift &= 63;
	return right ? v >> shift : v << shift;
#endif
}

/* The clock reading cyc in nanoseconds by the page's time_mult and time_shift: the uapi header's formula,
 * with cyc split at time_shift so that cyc * time_mult never overflows (time_shift is at most 32). Plus
 * time_offset, the time since the page's latest update; plus time_zero, the kernel's perf clock. */
static inline uint64_t tly_page_clock_ns(uint64_t cyc, uint64_t time_mult, unsigned time_shift)
{
	uint64_t quot = tly_shift_by(cyc, time_shift, true), rem = cyc - tly_shift_by(quot, time_shift, false);
	return quot * time_mult + tly_shift_by(rem * time_mult, time_shift, true);
}

/* cyc reduced as cap_user_time_short asks (arm64: the counter's valid bits above time_cycles). */
static inline uint64_t tly_page_short_cycles(uint64_t cyc, uint64_t time_cycles, uint64_t time_mask)
{
	return time_cycles + ((cyc - time_cycles) & time_mask);
}

/* How a member of a group is read (tly_mmap_pass.td): by the protocol, or (Intel topdown) as
 * the register itself: the kernel gives fixed counter 3 ((1 << 30) | 3) as the index of slots and
 * PERF_METRICS (1 << 29) as the index of every metric event, but its offset does not apply to them (the
 * kernel folds their counts in at every context switch and restores the registers, which keep counting
 * from the group's last reset), so they are read raw. 0 .. 7: a metric event, its PERF_METRICS byte. */
#define TLY_READ_PLAIN (-1)
#define TLY_READ_SLOTS (-2)

/* A pass over a group: what it reads and how. */
struct tly_mmap_pass {
	tly_page *const *pages;       /* one per member, the leader's first */
	size_t n;                     /* members; a constant where the caller knows it (TLY_GROUP_SIZED) */
	const int8_t *td;             /* how each member is read (TLY_READ_*, a metric's byte); NULL: by the
	                               * protocol, every one */
	tly_read_pmc_fn read_pmc;
	tly_read_clock_fn read_clock;
	uint64_t *values;             /* member k's value into values[k x stride]; nothing else there is written */
	size_t stride;
	/* The times extrapolated to now, and the perf clock; false (a constant): the times of the page's
	 * latest update, whose difference is the extrapolated ones', and no clock. */
	bool times;
	unsigned tries;               /* passes before giving up (TLY_USER_BUSY); 1 on the lean paths */
	/* Where a pass that succeeds gives, once for the group, the leader's enabled and running times (a
	 * group read gives the leader's times to every member, as the kernel's does) and, with times, the
	 * perf clock now (ns of time_zero: sched_clock). Pointers, not a struct of the three: a caller's
	 * locals stay scalars in registers. */
	uint64_t *enabled, *running, *now;
};

/* CALL(k) for a group of n members, with k a constant where n is 1 .. 4, else ANY: where CALL inlines a
 * pass, the usual group's read is straight-line code that holds its pages and values in registers,
 * without the loops' counting and branching. The likelier sizes are tested first: 4 (the default events
 * of a region set, a usual group), then 2 (a ratio's pair: {instructions,cycles}), 1, 3. n is evaluated
 * more than once. */
#define TLY_GROUP_SIZED(n, CALL, ANY)                                                                      \
	((n) == 4 ? CALL(4) : (n) == 2 ? CALL(2) : (n) == 1 ? CALL(1) : (n) == 3 ? CALL(3) : (ANY))

/* The core of a group read, pass p: each member's value into p.values, and the group's times into
 * p.enabled, p.running (and p.now); on success only.
 *
 * Consistency: a pass reads every member's lock, then their fields and counters, and at its end every
 * lock again; the pass is kept only if no lock moved and none was odd (an update in progress, which a reader
 * on the counted thread never sees but a simulated writer on another CPU does). So each member's value
 * is one the kernel's page described between two of its updates, and no member's page (the leader's
 * times included) changed from the first read of the pass to the last: no member was scheduled in or
 * out, rotated or folded an overflow in between. The members' counters are read a few instructions
 * apart, not at one instant (the kernel's own group read reads them one by one as well). The locks only
 * grow, so their sum moves exactly when one of them does, short of 2^32 updates within one pass. */
static inline __attribute__((always_inline)) enum tly_user_outcome
tly_mmap_read_pass(const struct tly_mmap_pass p)
{
	const size_t n = p.n;
	const size_t stride = p.stride;
	uint64_t *const values = p.values;
	tly_page *const *const pages = p.pages;
	/* A group of up to 4 holds its pages in locals (registers, when n is a constant): the fences below
	 * would otherwise make every use load them again from pages. */
	tly_page *held[4] = { 0 };
	if (n <= 4) {
#pragma GCC unroll 4
		for (size_t k = 0; k < n; k++)
			held[k] = pages[k];
	}
#define TLY_PAGE(k) (n <= 4 ? held[k] : pages[k])
	tly_page *lead = TLY_PAGE(0);
	/* Between the fences, the fields but the lock and the index are read as plain memory, as the kernel's
	 * own readers read them (the locks' second reading tells whether they held still), so that the
	 * compiler may pair and order their loads; the index is read once, volatile, as it picks the
	 * register read and must be the value checked. */
	const struct perf_event_mmap_page *lead_fields = (const struct perf_event_mmap_page *)lead;
	for (unsigned pass = 0; pass < p.tries; pass++) {
		/* Every lock first, as plain volatile loads (the kernel's readers' READ_ONCE), then one fence for
		 * all of them (their smp_rmb): no field below is read before its lock. */
		uint32_t seq_sum = 0, odd = 0;
#pragma GCC unroll 4
		for (size_t k = 0; k < n; k++) {
			uint32_t seq = TLY_PAGE(k)->lock;
			seq_sum += seq;
			odd |= seq;
		}
		/* Their sum and OR made now: the compiler otherwise keeps every lock live to the pass's end. */
		__asm__("" : "+r"(seq_sum), "+r"(odd));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		/* An odd lock: its page is being updated (by another CPU). Checked now, so that no lock is kept. */
		if (odd & 1)
			continue;
		/* The leader's capability stands for the group's: tly_user_group_new found it in every member's
		 * page, and what can take it away later is the PMU's alone (x86's rdpmc setting, arm64's
		 * perf_user_access), the same for every member, whose pages the kernel updates with the
		 * leader's as the group is scheduled. */
		uint64_t caps = lead_fields->capabilities;
		if (!(caps & TLY_CAP_USER_RDPMC))
			return TLY_USER_NO_RDPMC;
		/* Each index is read once: it picks the register read_pmc reads, which says whether it could;
		 * a member it could not read (off its counter, index 0) leaves the group after the reads. */
		uint32_t unreadable = 0;
#pragma GCC unroll 4
		for (size_t k = 0; k < n; k++) {
			uint64_t raw = p.read_pmc(TLY_PAGE(k)->index, &unreadable);
			const struct perf_event_mmap_page *fields = (const struct perf_event_mmap_page *)TLY_PAGE(k);
			values[k * stride] = p.td && p.td[k] != TLY_READ_PLAIN ? raw
			                                                   : (uint64_t)fields->offset +
			                                                             (uint64_t)tly_sign_extend(raw, fields->pmc_width);
		}
		if (unreadable)
			return TLY_USER_NOT_ON_COUNTER;
		/* The times and the clock after the counters, in the same section, and extrapolated at once:
		 * three results live across the locks' second reading, not the page's seven time fields. */
		uint64_t out_enabled = lead_fields->time_enabled, out_running = lead_fields->time_running, out_now = 0;
		if (p.times) {
			uint64_t cyc = p.read_clock();
			if (__builtin_expect((caps & TLY_CAP_USER_TIME_SHORT) != 0, TLY_TIME_SHORT_USUAL))
				cyc = tly_page_short_cycles(cyc, lead_fields->time_cycles, lead_fields->time_mask);
			uint64_t clock = tly_page_clock_ns(cyc, lead_fields->time_mult, lead_fields->time_shift);
			uint64_t since_update = lead_fields->time_offset + clock;
			out_enabled += since_update;
			out_running += since_update;
			out_now = lead_fields->time_zero + clock;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint32_t end_sum = 0;
#pragma GCC unroll 4
		for (size_t k = 0; k < n; k++)
			end_sum += TLY_PAGE(k)->lock;
		if (end_sum != seq_sum)
			continue;
		if (!(caps & TLY_CAP_USER_TIME))
			return TLY_USER_NO_TIME;
		*p.enabled = out_enabled;
		*p.running = out_running;
		if (p.times)
			*p.now = out_now;
		return TLY_USER_OK;
	}
	return TLY_USER_BUSY;
#undef TLY_PAGE
}

/* The page's perf clock now alone (tly_mmap_read_pass's *now), whatever the state of its counter: the
 * clock of a region whose group read fell back to read(2). 0 without cap_user_time_zero. The lock is odd
 * or moves only while the kernel updates the page, a few instructions on another CPU or an interrupt
 * here: the loop ends as perf's own readers' do. */
static inline uint64_t tly_page_now(tly_page *pc, tly_read_clock_fn read_clock)
{
	for (;;) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		uint64_t caps = pc->capabilities, time_zero = pc->time_zero, time_cycles = pc->time_cycles,
			 time_mask = pc->time_mask;
		uint32_t time_mult = pc->time_mult;
		uint16_t time_shift = pc->time_shift;
		uint64_t cyc = read_clock();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pc->lock == seq && !(seq & 1))
			return caps & TLY_CAP_USER_TIME_ZERO
			               ? time_zero + tly_page_clock_ns(caps & TLY_CAP_USER_TIME_SHORT
			                                                       ? tly_page_short_cycles(cyc, time_cycles, time_mask)
			                                                       : cyc,
			                                               time_mult, time_shift)
			               : 0;
	}
}

/* tly_mmap_read_pass with the group's size a constant where it is 1 .. 4 (TLY_GROUP_SIZED). */
static inline __attribute__((always_inline)) enum tly_user_outcome tly_mmap_read(struct tly_mmap_pass p)
{
	const size_t n = p.n;
#define TLY_PASS_OF(size) (p.n = (size), tly_mmap_read_pass(p))
	return TLY_GROUP_SIZED(n, TLY_PASS_OF, tly_mmap_read_pass(p));
#undef TLY_PASS_OF
}

/* A group led by Intel's slots with metric events (td as tly_mmap_read_pass's, td[0] TLY_READ_SLOTS),
 * each value since the group's last reset (open, ioctl reset or read(2)): slots as fixed counter 3 counts
 * them, each metric event's slots decoded from PERF_METRICS as the kernel decodes them
 * (tly_topdown_value), the other members by the protocol. */
static inline __attribute__((always_inline)) enum tly_user_outcome
tly_mmap_read_topdown(const struct tly_mmap_pass p)
{
	enum tly_user_outcome r = tly_mmap_read_pass(p);
	for (size_t k = 1; r == TLY_USER_OK && k < p.n; k++)
		if (p.td[k] >= 0)
			p.values[k * p.stride] = tly_topdown_value(p.values[0], p.values[k * p.stride],
			                                           (enum tly_topdown_metric)p.td[k]);
	return r;
}

/* Completes the counts of a group read from user space (values in place) as read(2) gives them: the
 * leader's times, ids[k] as the id, no loss. */
static inline void tly_mmap_complete(struct tally_count *counts, size_t n, const uint64_t *ids, uint64_t enabled,
                                     uint64_t running)
{
	for (size_t k = 0; k < n; k++) {
		counts[k].enabled = enabled;
		counts[k].running = running;
		counts[k].id = ids[k];
		counts[k].lost = 0;
	}
}

/* The general read of a group (up to TLY_USER_TRIES passes): each member's counts complete
 * (tly_mmap_complete), as read(2) gives them. */
static inline __attribute__((always_inline)) enum tly_user_outcome
tly_mmap_read_group(tly_page *const *pages, size_t n, const uint64_t *ids, tly_read_pmc_fn read_pmc,
                    tly_read_clock_fn read_clock, struct tally_count *counts)
{
	uint64_t enabled, running, now;
	enum tly_user_outcome r = tly_mmap_read((struct tly_mmap_pass){
		.pages = pages, .n = n, .read_pmc = read_pmc, .read_clock = read_clock, .values = (uint64_t *)counts,
		.stride = sizeof(*counts) / sizeof(counts->value), .times = true, .tries = TLY_USER_TRIES,
		.enabled = &enabled, .running = &running, .now = &now });
	if (r == TLY_USER_OK)
		tly_mmap_complete(counts, n, ids, enabled, running);
	return r;
}

#endif
