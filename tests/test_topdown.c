/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown without such a CPU: PERF_METRICS decoding from constructed register values, what each
 * fixture machine has of topdown, and the counter's groups against a simulated kernel that judges topdown
 * events as intel_pmu_hw_config does (a metric event opens only in a group led by slots), each event
 * counting task-clock underneath so that the groups open and read here.
 */
#include "fault.h"
#include "fixture_tree.h"
#include "harness.h"
#include "machine/pmu.h"
#include "machine/topdown.h"
#include "userread/mmap_page.h"
#include "userread/user_group.h"

#include <math.h>
#include <sys/syscall.h>
#include <tally/counter.h>
#include <tally/read_path.h>
#include <unistd.h>

/* ---- decoding -------------------------------------------------------------------------------------- */

/* PERF_METRICS with byte n = f[n]. */
static uint64_t metrics_of(const unsigned f[TLY_TD_NR_METRICS])
{
	uint64_t m = 0;
	for (unsigned n = 0; n < TLY_TD_NR_METRICS; n++)
		m |= (uint64_t)f[n] << (8 * n);
	return m;
}

static void values_are_the_kernels(void)
{
	/* 0x33 of 0xff is 1/5 exactly; 0x80 of 1000 slots is 501.96..., rounded down as mul_u64_u32_div. */
	const unsigned f[TLY_TD_NR_METRICS] = { 0x33, 0x80, 0x2c, 0x20, 0x11, 0x7f, 0x01, 0xff };
	uint64_t m = metrics_of(f);
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_RETIRING), 200);
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_BAD_SPEC), 501);
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_FE_BOUND), 172); /* 172.54 */
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_BE_BOUND), 125); /* 125.49 */
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_HEAVY_OPS), 66); /* 66.67 */
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_BR_MISPREDICT), 498);
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_FETCH_LAT), 3);
	CHECK_U64(tly_topdown_value(1000, m, TLY_TD_MEM_BOUND), 1000); /* 0xff: every slot */
	/* A fraction of 1 below 255 slots rounds to nothing. */
	CHECK_U64(tly_topdown_value(254, m, TLY_TD_FETCH_LAT), 0);
	CHECK_U64(tly_topdown_value(255, m, TLY_TD_FETCH_LAT), 1);
	/* No slots, no metric; the whole 64-bit range without overflow. */
	for (unsigned n = 0; n < TLY_TD_NR_METRICS; n++)
		CHECK_U64(tly_topdown_value(0, m, (enum tly_topdown_metric)n), 0);
	CHECK_U64(tly_topdown_value(UINT64_MAX, m, TLY_TD_MEM_BOUND), UINT64_MAX);
	CHECK_U64(tly_topdown_value(UINT64_MAX, m, TLY_TD_RETIRING), UINT64_MAX / 5);
	CHECK_U64(tly_topdown_value(UINT64_MAX, 0, TLY_TD_RETIRING), 0);
}

/* The hardware's level-1 fractions need not sum to 0xff: each metric is decoded on its own, so their
 * counts need not sum to slots (perf's tma_* formulas divide by their sum for that). */
static void fractions_that_do_not_sum_to_one(void)
{
	const unsigned over[TLY_TD_NR_METRICS] = { 0x40, 0x40, 0x40, 0x40 }; /* 0x100 */
	const unsigned under[TLY_TD_NR_METRICS] = { 0x3f, 0x3f, 0x3f, 0x3f }; /* 0xfc */
	uint64_t sum_over = 0, sum_under = 0;
	for (unsigned n = TLY_TD_RETIRING; n <= TLY_TD_BE_BOUND; n++) {
		sum_over += tly_topdown_value(1020, metrics_of(over), (enum tly_topdown_metric)n);
		sum_under += tly_topdown_value(1020, metrics_of(under), (enum tly_topdown_metric)n);
	}
	CHECK_U64(sum_over, 1024);  /* 4 x 256 */
	CHECK_U64(sum_under, 1008); /* 4 x 252 */
}

/* Level 2 the hardware gives as a part of its parent: the other part is the difference, and never
 * negative where rounding (or the hardware) puts the part above its parent. */
static void level_two_differences(void)
{
	const unsigned f[TLY_TD_NR_METRICS] = { 0x80, 0x20, 0x40, 0x1f, 0x30, 0x21, 0x10, 0x1f };
	uint64_t counts[TLY_TD_NR_METRICS];
	for (unsigned n = 0; n < TLY_TD_NR_METRICS; n++)
		counts[n] = tly_topdown_value(2550, metrics_of(f), (enum tly_topdown_metric)n);
	CHECK_U64(tly_topdown_derived(counts, TLY_TD_LIGHT_OPS), 1280 - 480);
	CHECK_U64(tly_topdown_derived(counts, TLY_TD_MACHINE_CLEARS), 0); /* mispredicts 330 > bad spec 320 */
	CHECK_U64(tly_topdown_derived(counts, TLY_TD_FETCH_BW), 640 - 160);
	CHECK_U64(tly_topdown_derived(counts, TLY_TD_CORE_BOUND), 0); /* memory bound is all of it */
}

static void kinds_by_event_and_umask(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_RAW, .config = 0x0400 };
	enum tly_topdown_metric m = TLY_TD_NR_METRICS;
	CHECK_INT(tly_topdown_kind(&a, &m), TLY_TOPDOWN_SLOTS);
	a.config = 0x8300;
	CHECK_INT(tly_topdown_kind(&a, &m), TLY_TOPDOWN_METRIC);
	CHECK_INT(m, TLY_TD_BE_BOUND);
	a.config = 0x8700 | (1ULL << 32); /* bits above the event select and umask do not count */
	CHECK_INT(tly_topdown_kind(&a, &m), TLY_TOPDOWN_METRIC);
	CHECK_INT(m, TLY_TD_MEM_BOUND);
	a.config = 0x8800;
	CHECK_INT(tly_topdown_kind(&a, NULL), TLY_TOPDOWN_NONE);
	a.config = 0x8001; /* event 1 */
	CHECK_INT(tly_topdown_kind(&a, NULL), TLY_TOPDOWN_NONE);
	a.config = 0x003c;
	CHECK_INT(tly_topdown_kind(&a, NULL), TLY_TOPDOWN_NONE);
}

/* ---- user-space reads: constructed pages and registers --------------------------------------------- */

/* The registers rdpmc reads, by the index the kernel gives each page (x86_pmu_event_idx: the rdpmc
 * number + 1): fixed counter 3 for slots, PERF_METRICS for every metric event, general counter 0. */
#define IDX_SLOTS (((1u << 30) | 3) + 1)
#define IDX_METRICS ((1u << 29) + 1)
#define IDX_PMC0 1
static uint64_t reg_slots, reg_metrics, reg_pmc0;
static unsigned reg_reads;

static uint64_t regs_read_pmc(uint32_t index, uint32_t *unreadable)
{
	reg_reads++;
	if (index == 0)
		*unreadable = 1;
	switch (index) {
	case IDX_SLOTS:
		return reg_slots;
	case IDX_METRICS:
		return reg_metrics;
	case IDX_PMC0:
		return reg_pmc0;
	}
	return 0xdead;
}

static uint64_t clock_ns;

static uint64_t regs_read_clock(void)
{
	return clock_ns;
}

static struct perf_event_mmap_page td_page[4];

/* Pages of slots, topdown-retiring, topdown-be-bound and r3c, as the kernel fills them for a group on
 * the PMU: offsets of their own (slots' and the metrics' meaningless to user space), times at ns 1000. */
static void td_pages(void)
{
	static const uint32_t index[4] = { IDX_SLOTS, IDX_METRICS, IDX_METRICS, IDX_PMC0 };
	memset(td_page, 0, sizeof(td_page));
	for (size_t k = 0; k < 4; k++) {
		td_page[k].index = index[k];
		td_page[k].offset = 1000000 * (int64_t)(k + 1);
		td_page[k].pmc_width = 48;
		td_page[k].cap_user_rdpmc = 1;
		td_page[k].cap_user_time = 1;
		td_page[k].time_enabled = td_page[k].time_running = 1000;
		td_page[k].time_mult = 1;
	}
	clock_ns = 0;
}

static const int8_t td_layout[4] = { TLY_READ_SLOTS, TLY_TD_RETIRING, TLY_TD_BE_BOUND, TLY_READ_PLAIN };

static enum tly_user_outcome read_td(uint64_t values[4], uint64_t *running)
{
	tly_page *pages[4] = { &td_page[0], &td_page[1], &td_page[2], &td_page[3] };
	uint64_t enabled, now;
	return tly_mmap_read_topdown((struct tly_mmap_pass){
		.pages = pages, .n = 4, .td = td_layout, .read_pmc = regs_read_pmc, .read_clock = regs_read_clock,
		.values = values, .stride = 1, .times = true, .tries = TLY_USER_TRIES, .enabled = &enabled,
		.running = running, .now = &now });
}

/* rdpmc of (1 << 30) | 3 and 1 << 29 through the pages' own indexes, the registers taken as they are
 * (no offset), each metric decoded as the kernel does; the ordinary member by the protocol. */
static void user_read_decodes_the_registers(void)
{
	td_pages();
	reg_slots = 5100;
	const unsigned f[TLY_TD_NR_METRICS] = { 0x80, 0x10, 0x30, 0x3f };
	reg_metrics = metrics_of(f);
	reg_pmc0 = 77;
	uint64_t v[4], running = 0;
	CHECK_INT(read_td(v, &running), TLY_USER_OK);
	CHECK_U64(v[0], 5100);
	CHECK_U64(v[1], 2560);  /* 5100 x 0x80 / 0xff */
	CHECK_U64(v[2], 1260);  /* 5100 x 0x3f / 0xff */
	CHECK_U64(v[3], 4000077); /* offset + counter */
	CHECK_U64(running, 1000);
	/* No slots yet: every metric 0, whatever PERF_METRICS holds. */
	reg_slots = 0;
	CHECK_INT(read_td(v, &running), TLY_USER_OK);
	CHECK_U64(v[1], 0);
	CHECK_U64(v[2], 0);
	/* A member off the PMU: the protocol's answer, read(2) then. */
	td_page[2].index = 0;
	CHECK_INT(read_td(v, &running), TLY_USER_NOT_ON_COUNTER);
}

/* A software event's descriptor to reset (the ioctl a topdown group gets), -1 when none opens. */
static int reset_target(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_DUMMY };
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* The kernel's reset of the group as its pages show it (perf_event_update_userpage of each member in
 * _perf_event_reset): the leader's lock up by 2 and its index 0 where the group is off its counters
 * (sim_off); sim_moves more updates in between (scheduled in or out before tally looks). Over fault.h's
 * counting table, whose ioctl it calls first (so that fault_arm fails it). */
static const struct tly_sys *sim_under;
static struct tly_sys sim_table;
static bool sim_off;
static uint32_t sim_moves;

static int sim_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int r = sim_under->ioctl(fd, request, arg);
	if (r == 0 && request == PERF_EVENT_IOC_RESET) {
		td_page[0].lock += 2 + 2 * sim_moves;
		td_page[0].index = sim_off ? 0 : IDX_SLOTS;
	}
	return r;
}

static void sim_install(void)
{
	fault_install();
	fault_reset();
	sim_under = tly_sys;
	sim_table = *sim_under;
	sim_table.ioctl = sim_ioctl;
	tly_sys_replace(&sim_table);
	sim_off = false;
	sim_moves = 0;
}

/* A topdown group of 4 over td_page (td_pages()), with its arrays, resetting a software event. */
struct td_group {
	struct tly_user_group u;
	tly_page *pages[4];
	int8_t td[4];
	uint64_t base[4], high[4], last[4];
};

static bool td_group_init(struct td_group *g)
{
	td_pages();
	*g = (struct td_group){ .pages = { &td_page[0], &td_page[1], &td_page[2], &td_page[3] } };
	memcpy(g->td, td_layout, sizeof(g->td));
	g->u = (struct tly_user_group){ .pages = g->pages, .n = 4, .td = g->td, .td_base = g->base,
		                        .td_high = g->high, .td_last = g->last, .fd = reset_target() };
	return g->u.fd >= 0;
}

/* Bases: each read adds the counts at the group's last reset; every TLY_TOPDOWN_RESET_NS of running the
 * group is reset (one ioctl) and the counts so far become the base, so that the counts go on rising
 * across it; a failed reset changes nothing and is tried again. */
static void user_reads_reset_every_few_seconds(void)
{
	struct td_group g;
	uint64_t *base = g.base;
	if (!td_group_init(&g))
		SKIP("no perf_event_open here");
	sim_install();
	uint64_t v[4] = { 1000, 400, 200, 50 };
	tly_user_group_topdown_fold(&g.u, v, 1, TLY_TOPDOWN_RESET_NS - 1);
	CHECK_INT(fault_calls(FAULT_IOCTL), 0);
	CHECK_U64(v[0], 1000);
	tly_user_group_topdown_fold(&g.u, v, 1, TLY_TOPDOWN_RESET_NS);
	CHECK_INT(fault_calls(FAULT_IOCTL), 1);
	CHECK_U64(base[0], 1000);
	CHECK_U64(base[1], 400);
	CHECK_U64(base[3], 50);
	/* After the reset the registers count from 0: the counts go on from the base. */
	uint64_t w[4] = { 10, 4, 2, 1 };
	tly_user_group_topdown_fold(&g.u, w, 1, TLY_TOPDOWN_RESET_NS + 5);
	CHECK_U64(w[0], 1010);
	CHECK_U64(w[1], 404);
	CHECK_U64(w[3], 51);
	CHECK_INT(fault_calls(FAULT_IOCTL), 1);
	/* A reset that fails: bases kept, tried at the next read. */
	fault_arm(FAULT_IOCTL, 1, EBADF);
	uint64_t x[4] = { 20, 8, 4, 2 };
	tly_user_group_topdown_fold(&g.u, x, 1, 2 * TLY_TOPDOWN_RESET_NS + 5);
	CHECK(fault_fired());
	CHECK_U64(base[0], 1000);
	CHECK_U64(x[0], 1020);
	uint64_t y[4] = { 30, 12, 6, 3 };
	tly_user_group_topdown_fold(&g.u, y, 1, 2 * TLY_TOPDOWN_RESET_NS + 6);
	CHECK_U64(base[0], 1030);
	CHECK_U64(g.u.td_reset_running, 2 * TLY_TOPDOWN_RESET_NS + 6);
	fault_uninstall();
	close(g.u.fd);
}

/* A read(2) of a topdown group resets its registers: its counts (since the group's last reset) are
 * carried into the bases and the group is reset at once, so that a later user-space read goes on from
 * them instead of counting from a register the read(2) zeroed behind its back. */
static void a_syscall_read_is_folded_and_reset(void)
{
	struct td_group g;
	uint64_t *base = g.base;
	if (!td_group_init(&g))
		SKIP("no perf_event_open here");
	memcpy(base, (uint64_t[4]){ 100, 40, 20, 5 }, sizeof(g.base));
	sim_install();
	struct tally_count counts[4] = { { .value = 7, .running = 99 }, { .value = 3 }, { .value = 1 }, { .value = 2 } };
	CHECK_INT(tly_user_group_topdown_syscall(&g.u, counts), 0);
	CHECK_INT(fault_calls(FAULT_IOCTL), 1);
	CHECK_U64(counts[0].value, 107);
	CHECK_U64(counts[1].value, 43);
	CHECK_U64(base[0], 107);
	CHECK_U64(base[3], 7);
	CHECK_U64(g.u.td_reset_running, 99);
	/* The window's start: every count 0, the group reset again, no base. */
	struct tally_count start[4] = { { .value = 9, .running = 120 }, { .value = 9 }, { .value = 9 }, { .value = 9 } };
	CHECK_INT(tly_user_group_topdown_begin(&g.u, start), 0);
	CHECK_INT(fault_calls(FAULT_IOCTL), 2);
	for (size_t k = 0; k < 4; k++) {
		CHECK_U64(start[k].value, 0);
		CHECK_U64(base[k], 0);
	}
	/* The reset fails: said, and the read fails with it. */
	fault_arm(FAULT_IOCTL, 1, ENODEV);
	CHECK_INT(tly_user_group_topdown_syscall(&g.u, counts), -ENODEV);
	CHECK_CONTAINS(tally_last_error(), "resetting a topdown group");
	fault_uninstall();
	close(g.u.fd);
}

/* A reset of the group while it is off its counters zeroes the kernel's counts, not the registers'
 * saved values, which its next schedule-in writes back: the first user-space read after it is the
 * registers' zero (as the kernel subtracts `last`), not counts since the reset. So too where the
 * leader's page moved more than the reset's one update (it may have been scheduled in since). */
static void a_reset_off_the_counters_rebases(void)
{
	struct td_group g;
	for (uint32_t round = 0; round < 3; round++) {
		if (!td_group_init(&g))
			SKIP("no perf_event_open here");
		sim_install();
		sim_off = round == 0;
		sim_moves = round == 1;
		uint64_t v[4] = { 1000, 400, 200, 50 };
		tly_user_group_topdown_fold(&g.u, v, 1, TLY_TOPDOWN_RESET_NS);
		CHECK_U64(g.base[0], 1000);
		CHECK_INT(g.u.td_rebase, round < 2);
		/* Scheduled in again: off its counters at the reset, the registers hold the 900 slots (and 300,
		 * 150) saved before it; on them, they count from 0. */
		uint64_t at = round < 2 ? 900 : 0;
		uint64_t w[4] = { at + 10, at / 3 + 4, at / 6 + 2, 51 };
		tly_user_group_topdown_fold(&g.u, w, 1, TLY_TOPDOWN_RESET_NS + 5);
		CHECK_U64(w[0], round < 2 ? 1000 : 1010);
		CHECK_U64(w[1], round < 2 ? 400 : 404);
		CHECK_U64(w[3], 101); /* by the protocol: the kernel's count since the reset, rebased never */
		uint64_t x[4] = { at + 30, at / 3 + 10, at / 6 + 10, 53 };
		tly_user_group_topdown_fold(&g.u, x, 1, TLY_TOPDOWN_RESET_NS + 9);
		CHECK_U64(x[0], round < 2 ? 1020 : 1030);
		CHECK_U64(x[1], round < 2 ? 406 : 410);
		CHECK_U64(x[2], round < 2 ? 208 : 210);
		fault_uninstall();
		close(g.u.fd);
	}
}

/* A metric's 8-bit fraction made again at every read can drop as slots grow: the count given does not
 * go down (the kernel adds a difference only where it grew), and a read(2) below it keeps it too. */
static void metric_counts_never_go_down(void)
{
	struct td_group g;
	if (!td_group_init(&g))
		SKIP("no perf_event_open here");
	sim_install();
	uint64_t v[4] = { 1000, 400, 200, 50 };
	tly_user_group_topdown_fold(&g.u, v, 1, 10);
	uint64_t w[4] = { 1010, 396, 210, 51 };
	tly_user_group_topdown_fold(&g.u, w, 1, 20);
	CHECK_U64(w[1], 400);
	CHECK_U64(w[2], 210);
	uint64_t x[4] = { 1030, 404, 205, 52 };
	tly_user_group_topdown_fold(&g.u, x, 1, 30);
	CHECK_U64(x[1], 404);
	CHECK_U64(x[2], 210);
	struct tally_count counts[4] = { { .value = 1040, .running = 40 }, { .value = 402 }, { .value = 212 }, { .value = 53 } };
	CHECK_INT(tly_user_group_topdown_syscall(&g.u, counts), 0);
	CHECK_U64(counts[1].value, 404);
	CHECK_U64(counts[2].value, 212);
	CHECK_U64(g.base[1], 404);
	fault_uninstall();
	close(g.u.fd);
}

/* ---- what each machine has ------------------------------------------------------------------------- */

/* What PMU pmu_name of a fixture machine has of topdown; the machine's best with pmu_name NULL. */
static void support_of(const char *machine, const char *pmu_name, struct tly_topdown_support *s)
{
	tally_pmus *pmus = fixture_pmus(machine);
	const tally_pmu *pmu = pmus && pmu_name ? tally_pmus_find(pmus, pmu_name) : NULL;
	CHECK(pmus != NULL && (pmu || !pmu_name));
	*s = (struct tly_topdown_support){ .source = TLY_TD_SOURCE_NONE };
	if (pmu)
		CHECK_INT(tly_topdown_support(pmu, s), 0);
	else if (pmus)
		CHECK_INT(tly_topdown_machine(pmus, s), 0);
	tally_pmus_free(pmus);
}

static void support_on_each_fixture(void)
{
	struct tly_topdown_support s;
	support_of("intel", "cpu", &s); /* Ice Lake: level 1 */
	CHECK_INT(s.source, TLY_TD_SOURCE_PERF_METRICS);
	CHECK_INT(s.levels, 1);
	CHECK_CONTAINS(s.why, "topdown-heavy-ops");
	support_of("hybrid", "cpu_core", &s); /* Alder Lake's P-cores: level 2 */
	CHECK_INT(s.source, TLY_TD_SOURCE_PERF_METRICS);
	CHECK_INT(s.levels, 2);
	support_of("hybrid", "cpu_atom", &s); /* its E-cores: none */
	CHECK_INT(s.source, TLY_TD_SOURCE_NONE);
	CHECK_INT(s.levels, 0);
	CHECK_CONTAINS(s.why, "not available on this CPU: core PMU cpu_atom has neither PERF_METRICS");
	support_of("skylake", "cpu", &s); /* before Ice Lake: level 1 from five events */
	CHECK_INT(s.source, TLY_TD_SOURCE_EVENTS);
	CHECK_INT(s.levels, 1);
	support_of("amd", "cpu", &s);
	CHECK_INT(s.source, TLY_TD_SOURCE_NONE);
	CHECK_CONTAINS(s.why, "not available on this CPU");
	support_of("intel", "power", &s);
	CHECK_CONTAINS(s.why, "not a CPU's core PMU");
}

/* The machine's best core PMU: a hybrid's P-cores; a VM without a PMU says why. */
static void support_of_each_machine(void)
{
	struct tly_topdown_support s;
	support_of("hybrid", NULL, &s);
	CHECK_INT(s.source, TLY_TD_SOURCE_PERF_METRICS);
	CHECK_INT(s.levels, 2);
	support_of("intel", NULL, &s);
	CHECK_INT(s.levels, 1);
	support_of("skylake", NULL, &s);
	CHECK_INT(s.source, TLY_TD_SOURCE_EVENTS);
	support_of("arm64-biglittle", NULL, &s);
	CHECK_INT(s.source, TLY_TD_SOURCE_NONE);
	CHECK_CONTAINS(s.why, "core PMU armv8_cortex_a53 has neither");
	support_of("novpmu", NULL, &s);
	CHECK_INT(s.source, TLY_TD_SOURCE_NONE);
	CHECK_CONTAINS(s.why, "no CPU core PMU");
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

/* Skylake's level 1, perf 6.1's formulas, from counts with their .scale applied. */
static void level_one_from_events(void)
{
	double out[4] = { -1, -1, -1, -1 };
	struct tly_topdown_events in = { .total_slots = 1000, .slots_issued = 600, .slots_retired = 500,
		                         .fetch_bubbles = 150, .recovery_bubbles = 40 };
	CHECK(tly_topdown_events_level1(&in, out));
	CHECK(near(out[TLY_TD_RETIRING], 0.5));
	CHECK(near(out[TLY_TD_BAD_SPEC], 0.14));
	CHECK(near(out[TLY_TD_FE_BOUND], 0.15));
	CHECK(near(out[TLY_TD_BE_BOUND], 0.21));
	/* Skew takes backend bound just below 0: it reads 0, as perf's sanitize_val has it. */
	in.fetch_bubbles = 370;
	CHECK(tly_topdown_events_level1(&in, out));
	CHECK(out[TLY_TD_BE_BOUND] == 0.0);
	/* No slots: nothing to divide by, out untouched. */
	in.total_slots = 0;
	out[0] = -1;
	CHECK(!tly_topdown_events_level1(&in, out));
	CHECK(out[0] == -1);
}

/* ---- the counter's groups against a simulated kernel ----------------------------------------------- */

#define MAX_FD 1024
static int fd_code[MAX_FD];       /* config & 0xffff of each type-4 fd, -1 for others */
static bool refuse_slots;         /* the PMU has no fixed counter 3 for slots (ENOENT) */
static bool never_runs;           /* groups led by slots read running 0 */
static char opened[512];          /* "code<-leader code;" per type-4 open, in order */
static unsigned opens_alone;      /* metric events tried without a slots leader */

static int topdown_kernel_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (attr->type != PERF_TYPE_RAW) {
		int fd = fault_perf_event_open(attr, pid, cpu, group_fd, flags);
		if (fd >= 0 && fd < MAX_FD)
			fd_code[fd] = -1;
		return fd;
	}
	int code = (int)(attr->config & 0xffff);
	int lead = group_fd >= 0 && group_fd < MAX_FD ? fd_code[group_fd] : -1;
	size_t len = strlen(opened);
	snprintf(opened + len, sizeof(opened) - len, "%#x<-%s%x;", code, lead < 0 ? "-" : "0x", lead < 0 ? 0 : lead);
	if (code == 0x400 && refuse_slots) {
		errno = ENOENT;
		return -1;
	}
	if (code >= 0x8000 && code <= 0x8700 && !(code & 0xff) && lead != 0x400) {
		opens_alone++;
		errno = EINVAL;
		return -1;
	}
	struct perf_event_attr sw = *attr;
	sw.type = PERF_TYPE_SOFTWARE;
	sw.config = PERF_COUNT_SW_TASK_CLOCK;
	int fd = fault_perf_event_open(&sw, pid, cpu, group_fd, flags);
	if (fd >= 0 && fd < MAX_FD)
		fd_code[fd] = code;
	return fd;
}

static ssize_t topdown_kernel_read(int fd, void *buf, size_t count)
{
	ssize_t n = fault_read(fd, buf, count);
	uint64_t *v = buf;
	/* PERF_FORMAT_GROUP with both times: nr, time_enabled, time_running, ... */
	if (never_runs && n >= 24 && fd >= 0 && fd < MAX_FD && fd_code[fd] == 0x400)
		v[2] = 0;
	return n;
}

/* With user_pages, the pages of type-4 events are constructed ones that let user space read them but say
 * the event is off its counter (index 0), so every read falls back to read(2) (rdpmc itself would fault
 * on this machine). */
static bool user_pages;
static struct perf_event_mmap_page fake_page[8];
static size_t fake_pages_used;

static void *topdown_kernel_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	if (!user_pages || fd < 0 || fd >= MAX_FD || fd_code[fd] < 0 || fake_pages_used == 8)
		return fault_mmap(addr, length, prot, flags, fd, offset);
	struct perf_event_mmap_page *p = &fake_page[fake_pages_used++];
	memset(p, 0, sizeof(*p));
	p->cap_user_rdpmc = 1;
	p->cap_user_time = 1;
	return p;
}

static int topdown_kernel_munmap(void *addr, size_t length)
{
	char *a = addr;
	if (a >= (char *)fake_page && a < (char *)(fake_page + 8))
		return 0;
	return fault_munmap(addr, length);
}

static tally_counter *open_simulated(const char *spec, bool no_packing)
{
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "intel"),
	           .no_packing = no_packing);
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new(spec, &opts, &c), 0);
	opened[0] = '\0';
	opens_alone = 0;
	fault_install();
	/* Static: the counter calls through it until close_simulated, long after this function returns. */
	static struct tly_sys table;
	table = *tly_sys;
	table.perf_event_open = topdown_kernel_open;
	table.read = topdown_kernel_read;
	table.mmap = topdown_kernel_mmap;
	table.munmap = topdown_kernel_munmap;
	fake_pages_used = 0;
	tly_sys_replace(&table);
	if (c && tally_counter_open(c, NULL) != 0) {
		fprintf(stderr, "%s: %s\n", spec, tally_counter_last_error(c));
		CHECK(false);
	}
	return c;
}

static void close_simulated(tally_counter *c)
{
	tally_counter_free(c);
	fault_uninstall();
	refuse_slots = never_runs = user_pages = false;
}

/* Each result's group leader's name, as "name>leader;". */
static const char *groups_of(tally_counter *c)
{
	static char buf[512];
	buf[0] = '\0';
	size_t n = tally_counter_count(c), len = 0;
	struct tally_result r[16];
	if (n > 16 || tally_counter_read(c, r, n, sizeof(r[0])) != (int)n)
		return "unreadable";
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s>%s;", tally_counter_name(c, i),
		                        r[i].group < 0 ? "-" : tally_counter_name(c, (size_t)r[i].group));
	return buf;
}

/* The kernel accepts every group tally opens: slots first in braces, slots added, loose metric events in
 * a slots-led group with and without packing; no metric event is ever tried without slots leading. */
static void the_kernel_accepts_every_group(void)
{
	static const struct {
		const char *spec;
		bool no_packing;
		const char *opened, *groups;
	} cases[] = {
		{ "{topdown-retiring,slots}", false, "0x400<--0;0x8000<-0x400;", "slots>slots;topdown-retiring>slots;" },
		{ "{topdown-be-bound}", false, "0x400<--0;0x8300<-0x400;", "slots>slots;topdown-be-bound>slots;" },
		{ "topdown-retiring,r3c,topdown-fe-bound", true, "0x400<--0;0x8000<-0x400;0x8200<-0x400;0x3c<--0;",
		  "slots>slots;topdown-retiring>slots;r3c>r3c;topdown-fe-bound>slots;" },
		{ "r3c,topdown-fe-bound,slots,r3c", false, "0x3c<--0;0x3c<-0x3c;0x400<--0;0x8200<-0x400;",
		  "r3c>r3c;topdown-fe-bound>slots;slots>slots;r3c>r3c;" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tally_counter *c = open_simulated(cases[i].spec, cases[i].no_packing);
		CHECK_STR(opened, cases[i].opened);
		CHECK_INT(opens_alone, 0);
		if (c) {
			CHECK_INT(tally_counter_start(c), 0);
			CHECK_STR(groups_of(c), cases[i].groups);
		}
		close_simulated(c);
	}
}

/* Slots cannot be counted: its metric events are not supported either, with the reason, and are never
 * tried as leaders or alone; the group's other events stay a group. */
static void no_slots_no_metrics(void)
{
	refuse_slots = true;
	tally_counter *c = open_simulated("{r3c,topdown-retiring,slots,task-clock},topdown-be-bound", false);
	CHECK_INT(opens_alone, 0);
	if (c) {
		struct tally_result r[6];
		CHECK_INT(tally_counter_start(c), 0);
		CHECK_INT(tally_counter_read(c, r, 6, sizeof(r[0])), 6);
		/* slots, r3c, topdown-retiring, task-clock, then the added slots, topdown-be-bound */
		CHECK_STR(tally_counter_name(c, 2), "topdown-retiring");
		CHECK_INT(r[2].status, TALLY_STATUS_NOT_SUPPORTED);
		CHECK_CONTAINS(tally_counter_note(c, 2), "opens only in a group led by slots");
		CHECK_INT(r[5].status, TALLY_STATUS_NOT_SUPPORTED);
		CHECK_INT(r[0].status, TALLY_STATUS_NOT_SUPPORTED);
		CHECK_INT(r[4].status, TALLY_STATUS_NOT_SUPPORTED);
		CHECK_INT(r[1].status, TALLY_STATUS_EXACT);
		CHECK_INT(r[3].group, 1); /* task-clock, led by r3c */
	}
	close_simulated(c);
}

/* A slots-led group that never runs is explained, not split: halving it would leave metric events
 * without their leader. */
static void never_run_topdown_group_is_not_split(void)
{
	never_runs = true;
	tally_counter *c = open_simulated("topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound", false);
	if (c) {
		CHECK_INT(tally_counter_start(c), 0);
		struct tally_result r[5];
		for (int round = 0; round < 2; round++) {
			CHECK_INT(tally_counter_read(c, r, 5, sizeof(r[0])), 5);
			for (size_t i = 0; i < 5; i++) {
				CHECK_INT(r[i].status, TALLY_STATUS_NOT_COUNTED);
				CHECK_INT(r[i].group, 0);
				CHECK(strstr(tally_counter_note(c, i), "tally split") == NULL);
				if (i > 0)
					CHECK_CONTAINS(tally_counter_note(c, i), "so this group is not split");
			}
		}
	}
	close_simulated(c);
}

/* A topdown group on the calling thread takes the user-space path (the registers, not read(2) alone),
 * and a read that falls back to read(2), which resets the kernel's registers, resets the group at once
 * and carries its counts over: every read(2) is followed by one group reset, and the counts go on
 * rising. */
static void syscall_reads_of_a_topdown_group_are_folded(void)
{
	user_pages = true;
	tally_counter *c = open_simulated("{topdown-retiring,slots,r3c}", false);
	if (c) {
		for (size_t i = 0; i < 3; i++) {
			TALLY_OPTS(tally_read_info, info);
			CHECK_INT(tally_counter_read_info(c, i, &info), 0);
			CHECK_INT(info.path, TALLY_READ_USER);
		}
		CHECK_INT(tally_counter_start(c), 0);
		struct tally_result r[3];
		uint64_t last[3] = { 0 };
		for (int round = 0; round < 3; round++) {
			for (volatile int spin = 0; spin < 200000; spin++)
				;
			unsigned long ioctls = fault_calls(FAULT_IOCTL), reads = fault_calls(FAULT_READ);
			CHECK_INT(tally_counter_read(c, r, 3, sizeof(r[0])), 3);
			CHECK_INT(fault_calls(FAULT_READ) - reads, 1);
			CHECK_INT(fault_calls(FAULT_IOCTL) - ioctls, 1); /* the reset after it */
			for (size_t i = 0; i < 3; i++) {
				CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
				CHECK(r[i].value > last[i]);
				last[i] = r[i].value;
				/* Each counts task-clock underneath, so about the time the group was enabled (its
				 * members read a few hundred ns apart); a count carried over twice would pass twice it. */
				CHECK(r[i].value < 2 * r[i].enabled);
			}
		}
		TALLY_OPTS(tally_read_info, info);
		CHECK_INT(tally_counter_read_info(c, 1, &info), 0);
		CHECK_INT(info.last_reason, TALLY_READ_REASON_NOT_ON_COUNTER);
		CHECK_U64(info.syscall_reads, 3);
	}
	close_simulated(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "values_are_the_kernels", values_are_the_kernels },
		{ "fractions_that_do_not_sum_to_one", fractions_that_do_not_sum_to_one },
		{ "level_two_differences", level_two_differences },
		{ "kinds_by_event_and_umask", kinds_by_event_and_umask },
		{ "user_read_decodes_the_registers", user_read_decodes_the_registers },
		{ "user_reads_reset_every_few_seconds", user_reads_reset_every_few_seconds },
		{ "a_syscall_read_is_folded_and_reset", a_syscall_read_is_folded_and_reset },
		{ "a_reset_off_the_counters_rebases", a_reset_off_the_counters_rebases },
		{ "metric_counts_never_go_down", metric_counts_never_go_down },
		{ "support_on_each_fixture", support_on_each_fixture },
		{ "support_of_each_machine", support_of_each_machine },
		{ "level_one_from_events", level_one_from_events },
		{ "the_kernel_accepts_every_group", the_kernel_accepts_every_group },
		{ "no_slots_no_metrics", no_slots_no_metrics },
		{ "never_run_topdown_group_is_not_split", never_run_topdown_group_is_not_split },
		{ "syscall_reads_of_a_topdown_group_are_folded", syscall_reads_of_a_topdown_group_are_folded },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
