/* SPDX-License-Identifier: MIT */
/*
 * Counting windows: every start (and every reset) begins a window, and each reading covers that window
 * only: its counts, its enabled and running times, and so its scaling. The kernel's PERF_EVENT_IOC_RESET
 * zeroes counts but not times, which made the second round of a multiplexed counter scale one round's
 * count by the times of all rounds (found on arm64: ratio 0.50 in round 1, 0.33 in round 2, scaled 20%
 * low). On real software events (which never multiplex) the times of a round must be that round's own;
 * through a table that plays a multiplexing kernel, the scaled values must be exact.
 */
#include "fault.h"
#include "harness.h"

#include <tally/counter.h>
#include <tally/snapshot.h>
#include <time.h>

#define MS 1000000ull

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Keeps this thread on the CPU for ns of its own CPU time: a thread's events are enabled only while it
 * runs, and this holds on a loaded machine too. (perf's context clock and the thread's CPU clock differ
 * by a few us either way, so the bounds below leave 10%.) */
static void spin(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	while (thread_cpu_ns() < end)
		;
}

static tally_counter *open_counter(const char *spec)
{
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new(spec, NULL, &c), 0);
	if (c && tally_counter_open(c, NULL) != 0) {
		fprintf(stderr, "%s\n", tally_counter_last_error(c));
		CHECK(!"tally_counter_open");
		tally_counter_free(c);
		return NULL;
	}
	return c;
}

/* ---- real software events ------------------------------------------------------------------------- */

static void second_round_has_its_own_times(void)
{
	tally_counter *c = open_counter("task-clock,context-switches");
	if (!c)
		return;
	struct tally_result r[2];
	CHECK_INT(tally_counter_start(c), 0);
	spin(50 * MS);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	uint64_t round1 = r[0].enabled;
	CHECK(round1 >= 45 * MS);

	CHECK_INT(tally_counter_start(c), 0);
	spin(10 * MS);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	printf("  round 1 enabled %.1f ms; round 2 enabled %.1f ms, running %.1f ms, task-clock %.1f ms\n",
	       (double)round1 / MS, (double)r[0].enabled / MS, (double)r[0].running / MS, (double)r[0].value / MS);
	for (int i = 0; i < 2; i++) {
		CHECK(r[i].enabled >= 9 * MS);
		CHECK(r[i].enabled < 30 * MS); /* not round 1's 50 ms on top */
		CHECK_U64(r[i].running, r[i].enabled);
		CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
		CHECK_U64(r[i].scaled, r[i].value);
	}
	/* task-clock counts the time its window was enabled (the same context clock). */
	CHECK(r[0].value >= r[0].enabled / 10 * 9 && r[0].value <= r[0].enabled / 10 * 11);
	/* The parts say the same. */
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1, sizeof(part)), 1);
	CHECK_U64(part.enabled, r[0].enabled);

	/* Stopped, a read again is the same window: nothing more. */
	struct tally_result again[2];
	CHECK_INT(tally_counter_read(c, again, 2, sizeof(again[0])), 2);
	CHECK_U64(again[0].enabled, r[0].enabled);
	CHECK_U64(again[0].value, r[0].value);
	tally_counter_free(c);
}

static void reset_while_running_begins_a_window(void)
{
	tally_counter *c = open_counter("{task-clock,page-faults}");
	if (!c)
		return;
	struct tally_result r[2];
	CHECK_INT(tally_counter_start(c), 0);
	spin(50 * MS);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK(r[0].enabled >= 45 * MS);
	CHECK_INT(tally_counter_reset(c), 0);
	spin(10 * MS);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	uint64_t first = r[0].enabled;
	CHECK(first >= 9 * MS && first < 30 * MS);
	/* Two reads in one window: the second covers the whole window. */
	spin(5 * MS);
	struct tally_result later[2];
	CHECK_INT(tally_counter_read(c, later, 2, sizeof(later[0])), 2);
	CHECK(later[0].enabled >= first + 4 * MS && later[0].enabled < 40 * MS);
	CHECK_INT(tally_counter_stop(c), 0);
	tally_counter_free(c);
}

/* ---- a multiplexing kernel, played through the syscall table ------------------------------------- */

/* What a kernel would hold for one 2-event group: counts that a reset zeroes, and times that nothing
 * but the work advances; running < enabled, as when the group shares its counters. */
static struct {
	int leader_fd;
	uint64_t value[2], enabled, running;
} fake;

static void fake_work(uint64_t leader, uint64_t member, uint64_t enabled, uint64_t running)
{
	fake.value[0] += leader;
	fake.value[1] += member;
	fake.enabled += enabled;
	fake.running += running;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	int fd = tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
	if (fd >= 0 && (attr->read_format & PERF_FORMAT_GROUP))
		fake.leader_fd = fd;
	return fd;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	if (fd == fake.leader_fd && request == PERF_EVENT_IOC_RESET)
		fake.value[0] = fake.value[1] = 0;
	return tly_sys_real.ioctl(fd, request, arg);
}

/* The real read (so ids and layout are the kernel's), with the fake counts and times written over it:
 * { nr, time_enabled, time_running, { value, id, (lost) } x nr }, the leader's entry first. */
static ssize_t fake_read(int fd, void *buf, size_t count)
{
	ssize_t n = tly_sys_real.read(fd, buf, count);
	uint64_t *v = buf;
	if (fd != fake.leader_fd || n < 24 || v[0] != 2)
		return n;
	size_t per = ((size_t)n / 8 - 3) / 2;
	v[1] = fake.enabled;
	v[2] = fake.running;
	v[3] = fake.value[0];
	v[3 + per] = fake.value[1];
	return n;
}

static void expect(const struct tally_result *r, uint64_t value, uint64_t enabled, uint64_t running,
                   uint64_t scaled)
{
	CHECK_U64(r->value, value);
	CHECK_U64(r->enabled, enabled);
	CHECK_U64(r->running, running);
	CHECK_U64(r->scaled, scaled);
	CHECK_INT(r->status, TALLY_STATUS_SCALED);
}

/* A fresh fake group (nothing counted yet) behind the syscall table; tly_sys_replace(NULL) undoes it. */
static void install_fake(void)
{
	fake.leader_fd = -1;
	fake.value[0] = fake.value[1] = fake.enabled = fake.running = 0;
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = fake_open;
	table.ioctl = fake_ioctl;
	table.read = fake_read;
	tly_sys_replace(&table);
}

static void multiplexed_rounds_scale_exactly(void)
{
	install_fake();

	tally_counter *c = open_counter("{task-clock,page-faults}");
	if (!c) {
		tly_sys_replace(NULL);
		return;
	}
	CHECK(fake.leader_fd >= 0);
	struct tally_result r[2];

	/* Round 1: on the counters half the time. */
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(1000, 10, 2000, 1000);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 1000, 2000, 1000, 2000);
	expect(&r[1], 10, 2000, 1000, 20);

	/* Round 2: a third of the time. The kernel now says enabled 2900, running 1300; the window is
	 * 900 and 300, so 300 scales to 900 (not to 300 x 2900 / 1300 = 669). */
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(300, 3, 900, 300);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 300, 900, 300, 900);
	expect(&r[1], 3, 900, 300, 9);
	CHECK(r[0].ratio > 0.333 && r[0].ratio < 0.334);

	/* A second read in the same round: the whole window. */
	fake_work(100, 1, 300, 100);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 400, 1200, 400, 1200);
	expect(&r[1], 4, 1200, 400, 12);
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1, sizeof(part)), 1);
	CHECK_U64(part.enabled, 1200);
	CHECK_U64(part.scaled, 1200);

	/* Stopped and read again: the same window, nothing new. */
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 400, 1200, 400, 1200);

	/* A reset without a start: a new window too. */
	CHECK_INT(tally_counter_reset(c), 0);
	fake_work(50, 2, 100, 50);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 50, 100, 50, 100);
	expect(&r[1], 2, 100, 50, 4);

	/* Closed and opened again: fresh descriptors, whose times start at zero. */
	CHECK_INT(tally_counter_close(c), 0);
	fake.value[0] = fake.value[1] = fake.enabled = fake.running = 0;
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(70, 7, 400, 100);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 70, 400, 100, 280);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}


/* The counts between two snapshots under multiplexing, with the numbers of issue 8: the raw differences
 * scaled by the differences of the times, never a difference of two scaled values. */
static void delta_of(const tally_snapshot *a, const tally_snapshot *b, struct tally_result r[2])
{
	CHECK_INT(tally_snapshot_delta(a, b, r, 2, sizeof(r[0])), 2);
}

static void expect_delta(const struct tally_result *r, uint64_t value, uint64_t enabled, uint64_t running,
                         uint64_t scaled, enum tally_status status)
{
	CHECK_U64(r->value, value);
	CHECK_U64(r->enabled, enabled);
	CHECK_U64(r->running, running);
	CHECK_U64(r->scaled, scaled);
	CHECK_INT(r->status, status);
	CHECK_U64(r->nr_parts, 1);
}

static void snapshot_deltas_scale_the_difference(void)
{
	install_fake();
	tally_counter *c = open_counter("{task-clock,page-faults}");
	tally_snapshot *zero = NULL, *s[5] = { NULL };
	if (!c)
		goto out;
	CHECK_INT(tally_snapshot_new(c, &zero), 0);
	for (int k = 0; k < 5; k++)
		CHECK_INT(tally_snapshot_new(c, &s[k]), 0);
	struct tally_result r[2];

	/* (100, 10, 1) then (110, 20, 10): the interval counted 10 in 9 of its 10 ns, about 11, where the
	 * difference of the scaled values (1000, then 220) is negative and was taken whole: 220. */
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(100, 4, 10, 1);
	CHECK_INT(tally_counter_snapshot(c, s[0]), 0);
	fake_work(10, 9, 10, 9);
	CHECK_INT(tally_counter_snapshot(c, s[1]), 0);
	delta_of(zero, s[0], r);
	expect_delta(&r[0], 100, 10, 1, 1000, TALLY_STATUS_SCALED);
	expect_delta(&r[1], 4, 10, 1, 40, TALLY_STATUS_SCALED);
	delta_of(s[0], s[1], r);
	expect_delta(&r[0], 10, 10, 9, 11, TALLY_STATUS_SCALED);
	expect_delta(&r[1], 9, 10, 9, 10, TALLY_STATUS_SCALED);
	CHECK(r[0].ratio > 0.89 && r[0].ratio < 0.91);
	/* The window as a whole is still the read's business: 110 over 20 / 10. */
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	expect(&r[0], 110, 20, 10, 220);
	/* Snapshots leave the latest read alone: its parts stay the read's (110 over 20 / 10). */
	fake_work(5, 0, 10, 10);
	CHECK_INT(tally_counter_snapshot(c, s[2]), 0);
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1, sizeof(part)), 1);
	CHECK_U64(part.value, 110);
	CHECK_U64(part.scaled, 220);

	/* (1000, 10, 5) -> (1050, 20, 15) -> (2050, 30, 25) in a new window: 2000 (scaled), then 50 and
	 * 1000 exactly (each interval ran all its time), where differences of scaled values gave 1400 and
	 * 1060. */
	CHECK_INT(tally_counter_reset(c), 0);
	fake_work(1000, 0, 10, 5);
	CHECK_INT(tally_counter_snapshot(c, s[2]), 0);
	fake_work(50, 0, 10, 10);
	CHECK_INT(tally_counter_snapshot(c, s[3]), 0);
	fake_work(1000, 0, 10, 10);
	CHECK_INT(tally_counter_snapshot(c, s[4]), 0);
	delta_of(s[2], s[3], r);
	expect_delta(&r[0], 50, 10, 10, 50, TALLY_STATUS_EXACT);
	delta_of(s[3], s[4], r);
	expect_delta(&r[0], 1000, 10, 10, 1000, TALLY_STATUS_EXACT);
	/* Across the reset the window began anew: the later snapshot counts from it. */
	delta_of(s[1], s[2], r);
	expect_delta(&r[0], 1000, 10, 5, 2000, TALLY_STATUS_SCALED);
	delta_of(zero, s[2], r);
	expect_delta(&r[0], 1000, 10, 5, 2000, TALLY_STATUS_SCALED);

	/* Enabled but never on a counter in the interval: not counted there, no value. */
	fake_work(0, 0, 10, 0);
	CHECK_INT(tally_counter_snapshot(c, s[2]), 0);
	delta_of(s[4], s[2], r);
	expect_delta(&r[0], 0, 10, 0, 0, TALLY_STATUS_NOT_COUNTED);
	CHECK_INT(tally_snapshot_delta_parts(s[4], s[2], 0, &part, 1, sizeof(part)), 1);
	CHECK_INT(part.status, TALLY_STATUS_NOT_COUNTED);
	CHECK_U64(part.enabled, 10);
	CHECK_INT(tally_snapshot_delta_parts(s[0], s[1], 0, &part, 1, sizeof(part)), 1);
	CHECK_U64(part.scaled, 11);
	CHECK_INT(part.status, TALLY_STATUS_SCALED);

	/* An element smaller than the first version is refused; a larger one gets zeros past the fields. */
	CHECK_INT(tally_snapshot_delta(s[0], s[1], r, 2, sizeof(r[0]) - 8), -TALLY_EOPTS);
	struct {
		struct tally_result r;
		uint64_t newer[3];
	} grown[2];
	memset(grown, 0xff, sizeof(grown));
	CHECK_INT(tally_snapshot_delta(s[0], s[1], &grown[0].r, 2, sizeof(grown[0])), 2);
	CHECK_U64(grown[1].r.scaled, 10);
	CHECK_U64(grown[0].newer[0] | grown[0].newer[2] | grown[1].newer[2], 0);

	/* Snapshots of two counters do not mix. */
	tally_counter *other = open_counter("task-clock");
	tally_snapshot *theirs = NULL;
	if (other && tally_snapshot_new(other, &theirs) == 0) {
		CHECK_INT(tally_snapshot_delta(s[0], theirs, r, 2, sizeof(r[0])), -EINVAL);
		CHECK_INT(tally_counter_snapshot(c, theirs), -EINVAL);
	}
	tally_snapshot_free(theirs);
	tally_counter_free(other);
out:
	tally_snapshot_free(zero);
	for (int k = 0; k < 5; k++)
		tally_snapshot_free(s[k]);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

/* Growable output: a newer caller's larger elements get zeros past the fields this library knows; a size
 * below the first version is refused before anything is written. */
static void reads_into_larger_elements(void)
{
	tally_counter *c = open_counter("{task-clock,page-faults}");
	if (!c)
		return;
	struct {
		struct tally_result r;
		uint64_t newer[2];
	} grown[2];
	memset(grown, 0xff, sizeof(grown));
	CHECK_INT(tally_counter_start(c), 0);
	spin(MS);
	CHECK_INT(tally_counter_read(c, &grown[0].r, 2, sizeof(grown[0])), 2);
	CHECK_INT(grown[1].r.status, TALLY_STATUS_EXACT);
	CHECK_INT(grown[1].r.group, 0);
	CHECK_U64(grown[0].newer[0] | grown[0].newer[1] | grown[1].newer[0] | grown[1].newer[1], 0);
	/* The trailing padding of the first version is zeroed too: a field added there reads 0. */
	const unsigned char *tail = (const unsigned char *)&grown[0].r.has_note + 1;
	for (size_t k = 0; k < sizeof(grown[0].r) - offsetof(struct tally_result, has_note) - 1; k++)
		CHECK_INT(tail[k], 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0]) - 8), -TALLY_EOPTS);
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0]) + 4), -TALLY_EOPTS); /* misaligned elements */
	CHECK_INT(tally_counter_read(c, r, 2, (size_t)1 << 30), -TALLY_EOPTS);
	struct {
		struct tally_part p;
		uint64_t newer;
	} part;
	memset(&part, 0xff, sizeof(part));
	CHECK_INT(tally_counter_parts(c, 0, &part.p, 1, sizeof(part)), 1);
	CHECK_U64(part.newer, 0);
	CHECK_INT(tally_counter_parts(c, 0, &part.p, 1, 8), -TALLY_EOPTS);
	__typeof__(grown) origins;
	memset(origins, 0xff, sizeof(origins));
	CHECK_INT(tally_counter_sum_origins(c, &grown[0].r, 2, &origins[0].r, 2, sizeof(grown[0])), 2);
	CHECK_U64(origins[1].r.value, grown[1].r.value);
	CHECK_U64(origins[1].newer[1], 0);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "second_round_has_its_own_times", second_round_has_its_own_times },
		{ "reset_while_running_begins_a_window", reset_while_running_begins_a_window },
		{ "multiplexed_rounds_scale_exactly", multiplexed_rounds_scale_exactly },
		{ "snapshot_deltas_scale_the_difference", snapshot_deltas_scale_the_difference },
		{ "reads_into_larger_elements", reads_into_larger_elements },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
