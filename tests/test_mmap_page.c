/* SPDX-License-Identifier: MIT */
/*
 * The user-space read protocol (mmap_page.h) against simulated pages: the counter and the clock are read
 * through fake functions over a simulated PMU, and a writer thread plays the kernel (seqlock updates,
 * reprogrammed counters near their wrap, scheduling out and in, the times) while the reader runs.
 */
#include "harness.h"
#include "userread/mmap_page.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#define MAXN 4

static struct perf_event_mmap_page page[MAXN];

static uint64_t mask_of(unsigned width)
{
	return width == 64 ? UINT64_MAX : ((uint64_t)1 << width) - 1;
}

/* ---- the simulated PMU: member k counts (k + 1) x truth ----------------------------------------- */

static _Atomic uint64_t truth, clock_now, out_total;
static _Atomic uint64_t raw0[MAXN], t0[MAXN];
static unsigned sim_width;
static uint64_t sim_high; /* bits above the width that the register also holds (arm64 PMUv3p5's bias) */

/* The highest index the simulated architecture reads (arm64's is 32); 0 never. */
static uint32_t sim_top = UINT32_MAX;

static uint64_t sim_read_pmc(uint32_t index, uint32_t *unreadable)
{
	if (index == 0 || index > sim_top) {
		*unreadable = 1;
		return 0;
	}
	size_t k = (index - 1) % MAXN;
	uint64_t count = (atomic_load(&truth) - atomic_load(&t0[k])) * (k + 1);
	return ((atomic_load(&raw0[k]) + count) & mask_of(sim_width)) | sim_high;
}

static uint64_t sim_read_clock(void)
{
	return atomic_load(&clock_now);
}

static void fill_caps(struct perf_event_mmap_page *p, bool rdpmc, bool time, bool time_short)
{
	p->capabilities = 0;
	p->cap_user_rdpmc = rdpmc;
	p->cap_user_time = time;
	p->cap_user_time_short = time_short;
}

static const uint64_t ids[MAXN] = { 11, 12, 13, 14 };

static enum tly_user_outcome read_sim(size_t n, struct tally_count *c)
{
	tly_page *pages[MAXN] = { &page[0], &page[1], &page[2], &page[3] };
	return tly_mmap_read_group(pages, n, ids, sim_read_pmc, sim_read_clock, c);
}

/* The kernel's update of member k (perf_event_update_userpage): the counter reprogrammed to raw, the
 * count so far folded into offset, the times as of now; index 0 while the group is off the PMU. */
static void update_page(size_t k, uint64_t raw, bool on)
{
	struct perf_event_mmap_page *p = &page[k];
	uint32_t seq = p->lock;
	__atomic_store_n(&p->lock, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	uint64_t now = atomic_load(&truth), c = atomic_load(&clock_now);
	atomic_store(&raw0[k], raw & mask_of(sim_width));
	atomic_store(&t0[k], now);
	p->index = on ? (uint32_t)(k + 1 + MAXN * (rand() % 4)) : 0;
	p->pmc_width = (uint16_t)sim_width;
	p->offset = (int64_t)(now * (k + 1)) - tly_sign_extend(raw & mask_of(sim_width), sim_width);
	p->time_enabled = c;
	p->time_running = c - atomic_load(&out_total);
	p->time_offset = -c; /* one clock tick per ns: time_mult 1, time_shift 0 */
	p->time_mult = 1;
	p->time_shift = 0;
	fill_caps(p, true, true, false);
	__atomic_store_n(&p->lock, seq + 2, __ATOMIC_RELEASE);
}

static void sim_reset(unsigned width, uint64_t high, size_t n)
{
	memset(page, 0, sizeof(page));
	sim_width = width;
	sim_high = high;
	atomic_store(&truth, 1000);
	atomic_store(&clock_now, 5000);
	atomic_store(&out_total, 0);
	for (size_t k = 0; k < n; k++)
		update_page(k, mask_of(width) - 20, true);
}

/* ---- deterministic cases ------------------------------------------------------------------------ */

/* The masks used on the hot path are the uapi header's bitfields. */
static void capability_bits_match_the_header(void)
{
	struct perf_event_mmap_page p;
	memset(&p, 0, sizeof(p));
	p.cap_user_rdpmc = 1;
	CHECK_U64(p.capabilities, TLY_CAP_USER_RDPMC);
	p.capabilities = 0;
	p.cap_user_time = 1;
	CHECK_U64(p.capabilities, TLY_CAP_USER_TIME);
	p.capabilities = 0;
	p.cap_user_time_short = 1;
	CHECK_U64(p.capabilities, TLY_CAP_USER_TIME_SHORT);
	p.capabilities = 0;
	p.cap_user_time_zero = 1;
	CHECK_U64(p.capabilities, TLY_CAP_USER_TIME_ZERO);
}

/* A counter reprogrammed 20 counts below its wrap counts 40 across it: every width reads the exact count
 * on both sides (zero extension would jump by 2^width at the wrap). 32 bits also with the upper half of
 * the register set, as arm64 leaves it for a 32-bit event on a PMUv3p5 counter. */
static void widths_across_a_wrap(void)
{
	static const struct {
		unsigned width;
		uint64_t high;
	} cases[] = { { 32, 0 }, { 32, 0xffffffff00000000 }, { 40, 0 }, { 48, 0 }, { 64, 0 } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sim_reset(cases[i].width, cases[i].high, 1);
		for (uint64_t step = 0; step <= 40; step++) {
			struct tally_count c;
			atomic_store(&truth, 1000 + step);
			CHECK_INT(read_sim(1, &c), TLY_USER_OK);
			CHECK_U64(c.value, 1000 + step);
			CHECK_U64(c.id, ids[0]);
		}
		uint32_t unreadable = 0;
		uint64_t raw = sim_read_pmc(page[0].index, &unreadable) & mask_of(cases[i].width);
		CHECK_U64(raw, 19); /* it did wrap: 20 below it, 40 counted */
	}
}

static void index_zero_and_capabilities_fall_back(void)
{
	sim_reset(48, 0, 2);
	struct tally_count c[2];
	CHECK_INT(read_sim(2, c), TLY_USER_OK);
	page[1].index = 0;
	CHECK_INT(read_sim(2, c), TLY_USER_NOT_ON_COUNTER);
	update_page(1, 0, true);
	/* The leader's capability speaks for the group (every member's was checked when the pages were
	 * mapped): taken away there, no member is read. */
	page[0].cap_user_rdpmc = 0;
	CHECK_INT(read_sim(2, c), TLY_USER_NO_RDPMC);
	CHECK_INT(read_sim(1, c), TLY_USER_NO_RDPMC);
	page[0].cap_user_rdpmc = 1;
	page[0].cap_user_time = 0;
	CHECK_INT(read_sim(2, c), TLY_USER_NO_TIME);
	page[0].cap_user_time = 1;
	tly_page *pages[] = { &page[0], &page[1] };
	/* An index above what the architecture reads (arm64: above the cycle counter's 32). */
	sim_top = 32;
	page[1].index = 33;
	CHECK_INT(tly_mmap_read_group(pages, 2, ids, sim_read_pmc, sim_read_clock, c), TLY_USER_NOT_ON_COUNTER);
	/* 32 itself (the cycle counter) is read. */
	page[1].index = 32;
	CHECK_INT(tly_mmap_read_group(pages, 2, ids, sim_read_pmc, sim_read_clock, c), TLY_USER_OK);
	/* A group of more than 4 (read in a loop): 33 and 0 are refused there too. */
	sim_reset(48, 0, MAXN);
	tly_page *five[] = { &page[0], &page[1], &page[2], &page[3], &page[0] };
	const uint64_t five_ids[] = { 11, 12, 13, 14, 11 };
	struct tally_count c5[5];
	CHECK_INT(tly_mmap_read_group(five, 5, five_ids, sim_read_pmc, sim_read_clock, c5), TLY_USER_OK);
	uint32_t on = page[3].index;
	page[3].index = 33;
	CHECK_INT(tly_mmap_read_group(five, 5, five_ids, sim_read_pmc, sim_read_clock, c5), TLY_USER_NOT_ON_COUNTER);
	page[3].index = 0;
	CHECK_INT(tly_mmap_read_group(five, 5, five_ids, sim_read_pmc, sim_read_clock, c5), TLY_USER_NOT_ON_COUNTER);
	page[3].index = on;
	CHECK_INT(tly_mmap_read_group(five, 5, five_ids, sim_read_pmc, sim_read_clock, c5), TLY_USER_OK);
	sim_top = UINT32_MAX;
}

/* Time extrapolation against values computed independently, in 128-bit arithmetic from the definition
 * (ns = time_offset + cyc x time_mult / 2^time_shift, rounded down), with clocks large enough that
 * cyc x time_mult overflows 64 bits: x86's TSC form, and arm64's short form (a 56-bit CNTVCT that
 * wrapped since time_cycles). The perf clock the pass gives a region's wall time (time_zero in place of
 * time_offset) is the same reading, from the pass and from the page alone (tly_page_now). */
static void time_extrapolation_matches_reference(void)
{
	static const struct {
		uint64_t cyc, time_offset, time_cycles, time_mask;
		uint32_t mult;
		uint16_t shift;
		bool time_short;
	} cases[] = {
		/* a 2.1 GHz TSC (mult/2^shift = 1/2.1 ns per cycle) a month after boot */
		{ 5443200000000000ull, (uint64_t)-2592000000000000ll, 0, 0, 511305630, 30, false },
		{ 0xfffffffffffull, (uint64_t)-5, 0, 0, 0xffffffffu, 31, false },
		{ 12345, 1000, 0, 0, 1 << 20, 20, false },
		/* arm64: 62.5 MHz counter (16 ns per tick = 2^31 x 16 / 2^31), 56 bits, wrapped: raw 50 is
		 * 2^56 - 100 + 150 ticks after time_cycles */
		{ 50, (uint64_t)-123456789, (1ull << 56) - 100, (1ull << 56) - 1, 0x80000000u, 27, true },
		{ (1ull << 55) + 7, 42, 1ull << 55, (1ull << 56) - 1, 0x80000000u, 31, true },
	};
	sim_reset(48, 0, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_mmap_page *p = &page[0];
		p->time_offset = cases[i].time_offset;
		p->time_cycles = cases[i].time_cycles;
		p->time_mask = cases[i].time_mask;
		p->time_mult = cases[i].mult;
		p->time_shift = cases[i].shift;
		p->time_enabled = 7000000;
		p->time_running = 3000000; /* multiplexed: both advance while on a counter */
		p->time_zero = 1000000000000ull * (i + 1);
		fill_caps(p, true, true, cases[i].time_short);
		p->cap_user_time_zero = 1;
		atomic_store(&clock_now, cases[i].cyc);
		unsigned __int128 cyc = cases[i].cyc;
		if (cases[i].time_short) {
			/* The ticks since time_cycles, through the wrap of the mask's width. */
			unsigned __int128 period = (unsigned __int128)cases[i].time_mask + 1;
			unsigned __int128 since = (cyc + period - cases[i].time_cycles) % period;
			cyc = cases[i].time_cycles + since;
		}
		uint64_t delta = cases[i].time_offset + (uint64_t)((cyc * cases[i].mult) >> cases[i].shift);
		struct tally_count c;
		CHECK_INT(read_sim(1, &c), TLY_USER_OK);
		CHECK_U64(c.enabled, 7000000 + delta);
		CHECK_U64(c.running, 3000000 + delta);
		uint64_t now = 0, value, enabled = 0, running = 0, want = p->time_zero + (delta - cases[i].time_offset);
		tly_page *pages[1] = { p };
		struct tly_mmap_pass pass = { .pages = pages, .n = 1, .read_pmc = sim_read_pmc, .read_clock = sim_read_clock,
			                      .values = &value, .stride = 1, .times = true, .tries = 1,
			                      .enabled = &enabled, .running = &running, .now = &now };
		CHECK_INT(tly_mmap_read(pass), TLY_USER_OK);
		CHECK_U64(now, want);
		/* Without times: those of the page's latest update, whose difference is the extrapolated one's. */
		pass.times = false;
		pass.tries = TLY_USER_TRIES;
		CHECK_INT(tly_mmap_read(pass), TLY_USER_OK);
		CHECK_U64(enabled, 7000000);
		CHECK_U64(running, 3000000);
		CHECK_U64(tly_page_now(p, sim_read_clock), want);
		p->cap_user_time_zero = 0;
		CHECK_U64(tly_page_now(p, sim_read_clock), 0);
	}
}

/* A page that changes during every pass: the read gives up after TLY_USER_TRIES passes, never loops. */
static unsigned bumps;

static uint64_t bumping_read_pmc(uint32_t index, uint32_t *unreadable)
{
	(void)unreadable;
	bumps++;
	page[(index - 1) % MAXN].lock += 2;
	return 0;
}

static void retry_is_bounded(void)
{
	sim_reset(48, 0, 3);
	tly_page *pages[] = { &page[0], &page[1], &page[2] };
	struct tally_count c[3];
	bumps = 0;
	CHECK_INT(tly_mmap_read_group(pages, 3, ids, bumping_read_pmc, sim_read_clock, c),
	          TLY_USER_BUSY);
	CHECK_INT(bumps, TLY_USER_TRIES * 3);
	/* A lock left odd (an update that never finishes, seen from another CPU) is never read through. */
	sim_reset(48, 0, 1);
	page[0].lock = 7;
	CHECK_INT(read_sim(1, c), TLY_USER_BUSY);
}

/* A member's page updated in the middle of a pass (the last member here, after the leader was read):
 * the pass is thrown away and the group read again, whole. */
static unsigned calls;

static uint64_t member_moves_once(uint32_t index, uint32_t *unreadable)
{
	size_t k = (index - 1) % MAXN;
	if (++calls == 3) {
		atomic_store(&truth, 2000);
		update_page(2, 77, true);
	}
	return sim_read_pmc((uint32_t)(k + 1), unreadable);
}

static void group_retried_when_a_member_moved(void)
{
	sim_reset(40, 0, 3);
	tly_page *pages[] = { &page[0], &page[1], &page[2] };
	struct tally_count c[3];
	calls = 0;
	CHECK_INT(tly_mmap_read_group(pages, 3, ids, member_moves_once, sim_read_clock, c),
	          TLY_USER_OK);
	CHECK_INT(calls, 6);
	/* Every member from the second pass: the truth after the update. */
	for (size_t k = 0; k < 3; k++) {
		CHECK_U64(c[k].value, 2000 * (k + 1));
		CHECK_U64(c[k].id, ids[k]);
	}
	/* A read of one pass (the lean paths') gives the moved pass up, for its caller's general path. */
	sim_reset(40, 0, 3);
	calls = 0;
	uint64_t values[3], enabled, running, now;
	CHECK_INT(tly_mmap_read((struct tly_mmap_pass){ .pages = pages, .n = 3, .read_pmc = member_moves_once,
	                                                .read_clock = sim_read_clock, .values = values, .stride = 1,
	                                                .times = true, .tries = 1, .enabled = &enabled,
	                                                .running = &running, .now = &now }),
	          TLY_USER_BUSY);
	CHECK_INT(calls, 3);
}

/* ---- the race ----------------------------------------------------------------------------------- */

static atomic_bool stop;
static atomic_uint updates;

/* The kernel's side: counting, the clock advancing, and updates of every page (a reprogramming near the
 * wrap, or the group scheduled out or back in) at random moments. */
static void *writer(void *arg)
{
	size_t n = *(const size_t *)arg;
	unsigned seed = 1;
	bool on = true;
	uint64_t went_out = 0;
	while (!atomic_load(&stop)) {
		atomic_fetch_add(&truth, 1 + rand_r(&seed) % 50);
		atomic_fetch_add(&clock_now, 1 + rand_r(&seed) % 100);
		if (rand_r(&seed) % 32)
			continue;
		bool next = rand_r(&seed) % 8 != 0;
		if (next && !on)
			atomic_fetch_add(&out_total, atomic_load(&clock_now) - went_out);
		if (!next && on)
			went_out = atomic_load(&clock_now);
		on = next;
		uint64_t raw = mask_of(sim_width) - (uint64_t)(rand_r(&seed) % 4096);
		for (size_t k = 0; k < n; k++)
			update_page(k, raw + k * 1000, on);
		atomic_fetch_add(&updates, 1);
	}
	return NULL;
}

/* Every read that succeeds gives, for every member, a count the member had at some moment during the
 * read, and times of that moment: a torn read (a new offset with an old counter, new times with an old
 * offset) lands far outside. */
static void race(unsigned width, size_t n)
{
	sim_reset(width, 0, n);
	atomic_store(&stop, false);
	atomic_store(&updates, 0);
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, writer, &n), 0);
	while (atomic_load(&truth) == 1000) /* the writer runs before the reads begin */
		sched_yield();
	/* Reads until the writer has updated the pages 20,000 times and 100 reads succeeded, whatever the
	 * scheduler does (valgrind runs one thread at a time, long enough for all 20,000 updates); a bound on
	 * the reads makes a reader that never succeeds fail, not hang. */
	unsigned ok = 0, bad = 0, i = 0;
	for (; (atomic_load(&updates) < 20000 || ok < 100) && i < 50000000; i++) {
		uint64_t t1 = atomic_load(&truth), c1 = atomic_load(&clock_now), o1 = atomic_load(&out_total);
		struct tally_count c[MAXN];
		enum tly_user_outcome r = read_sim(n, c);
		uint64_t t2 = atomic_load(&truth), c2 = atomic_load(&clock_now), o2 = atomic_load(&out_total);
		/* A read that met the writer mid-update: let the writer finish (valgrind runs one thread at a
		 * time, and a reader spinning through its slice can find the same half-done update each time). */
		if (r != TLY_USER_OK) {
			sched_yield();
			continue;
		}
		ok++;
		for (size_t k = 0; k < n; k++) {
			if (c[k].value < t1 * (k + 1) || c[k].value > t2 * (k + 1) || c[k].enabled < c1 ||
			    c[k].enabled > c2 || c[k].enabled - c[k].running < o1 || c[k].enabled - c[k].running > o2) {
				if (bad++ < 5)
					fprintf(stderr, "width %u member %zu: value %llu not in [%llu, %llu], enabled %llu "
					        "in [%llu, %llu], out %llu in [%llu, %llu]\n", width, k,
					        (unsigned long long)c[k].value, (unsigned long long)(t1 * (k + 1)),
					        (unsigned long long)(t2 * (k + 1)), (unsigned long long)c[k].enabled,
					        (unsigned long long)c1, (unsigned long long)c2,
					        (unsigned long long)(c[k].enabled - c[k].running),
					        (unsigned long long)o1, (unsigned long long)o2);
			}
		}
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	printf("width %u, group of %zu: %u of %u reads from user space, %u torn\n", width, n, ok, i, bad);
	CHECK_INT(bad, 0);
	CHECK(ok > 0);
}

static void racing_writer_never_tears(void)
{
	static const unsigned widths[] = { 32, 40, 48, 64 };
	for (size_t i = 0; i < 4; i++)
		race(widths[i], 1 + i % 3);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "capability_bits_match_the_header", capability_bits_match_the_header },
		{ "widths_across_a_wrap", widths_across_a_wrap },
		{ "index_zero_and_capabilities_fall_back", index_zero_and_capabilities_fall_back },
		{ "time_extrapolation_matches_reference", time_extrapolation_matches_reference },
		{ "retry_is_bounded", retry_is_bounded },
		{ "group_retried_when_a_member_moved", group_retried_when_a_member_moved },
		{ "racing_writer_never_tears", racing_writer_never_tears },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
