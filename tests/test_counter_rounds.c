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
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	uint64_t round1 = r[0].enabled;
	CHECK(round1 >= 45 * MS);

	CHECK_INT(tally_counter_start(c), 0);
	spin(10 * MS);
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	printf("  round 1 enabled %.1f ms; round 2 enabled %.1f ms, running %.1f ms, task-clock %.1f ms\n",
	       (double)round1 / MS, (double)r[0].enabled / MS, (double)r[0].running / MS, (double)r[0].value / MS);
	for (int i = 0; i < 2; i++) {
		CHECK(r[i].enabled >= 9 * MS);
		CHECK(r[i].enabled < 30 * MS); /* not round 1's 50 ms on top */
		CHECK_U64(r[i].running, r[i].enabled);
		CHECK_INT(r[i].status, TALLY_STATUS_EXACT);
		CHECK_U64(r[i].scaled, r[i].value);
		CHECK_U64(r[i].delta, r[i].scaled);
	}
	/* task-clock counts the time its window was enabled (the same context clock). */
	CHECK(r[0].value >= r[0].enabled / 10 * 9 && r[0].value <= r[0].enabled / 10 * 11);
	/* The parts say the same. */
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1), 1);
	CHECK_U64(part.enabled, r[0].enabled);

	/* Stopped, a read again is the same window: nothing more, delta 0. */
	struct tally_result again[2];
	CHECK_INT(tally_counter_read(c, again, 2), 2);
	CHECK_U64(again[0].enabled, r[0].enabled);
	CHECK_U64(again[0].delta, 0);
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
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	CHECK(r[0].enabled >= 45 * MS);
	CHECK_INT(tally_counter_reset(c), 0);
	spin(10 * MS);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	uint64_t first = r[0].enabled;
	CHECK(first >= 9 * MS && first < 30 * MS);
	CHECK_U64(r[0].delta, r[0].scaled); /* a new window: the delta starts again */
	/* Two reads in one window: the second covers the whole window, its delta the part after the first. */
	spin(5 * MS);
	struct tally_result later[2];
	CHECK_INT(tally_counter_read(c, later, 2), 2);
	CHECK(later[0].enabled >= first + 4 * MS && later[0].enabled < 40 * MS);
	CHECK_U64(later[0].delta, later[0].scaled - r[0].scaled);
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
                   uint64_t scaled, uint64_t delta)
{
	CHECK_U64(r->value, value);
	CHECK_U64(r->enabled, enabled);
	CHECK_U64(r->running, running);
	CHECK_U64(r->scaled, scaled);
	CHECK_U64(r->delta, delta);
	CHECK_INT(r->status, TALLY_STATUS_SCALED);
}

static void multiplexed_rounds_scale_exactly(void)
{
	fake.leader_fd = -1;
	fake.value[0] = fake.value[1] = fake.enabled = fake.running = 0;
	struct tly_sys table = tly_sys_real;
	table.perf_event_open = fake_open;
	table.ioctl = fake_ioctl;
	table.read = fake_read;
	tly_sys_replace(&table);

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
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 1000, 2000, 1000, 2000, 2000);
	expect(&r[1], 10, 2000, 1000, 20, 20);

	/* Round 2: a third of the time. The kernel now says enabled 2900, running 1300; the window is
	 * 900 and 300, so 300 scales to 900 (not to 300 x 2900 / 1300 = 669). */
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(300, 3, 900, 300);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 300, 900, 300, 900, 900);
	expect(&r[1], 3, 900, 300, 9, 9);
	CHECK(r[0].ratio > 0.333 && r[0].ratio < 0.334);

	/* A second read in the same round: the whole window, the delta since the first read. */
	fake_work(100, 1, 300, 100);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 400, 1200, 400, 1200, 300);
	expect(&r[1], 4, 1200, 400, 12, 3);
	struct tally_part part;
	CHECK_INT(tally_counter_parts(c, 0, &part, 1), 1);
	CHECK_U64(part.enabled, 1200);
	CHECK_U64(part.scaled, 1200);

	/* Stopped and read again: the same window, nothing new. */
	CHECK_INT(tally_counter_stop(c), 0);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 400, 1200, 400, 1200, 0);

	/* A reset without a start: a new window too. */
	CHECK_INT(tally_counter_reset(c), 0);
	fake_work(50, 2, 100, 50);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 50, 100, 50, 100, 100);
	expect(&r[1], 2, 100, 50, 4, 4);

	/* Closed and opened again: fresh descriptors, whose times start at zero. */
	CHECK_INT(tally_counter_close(c), 0);
	fake.value[0] = fake.value[1] = fake.enabled = fake.running = 0;
	CHECK_INT(tally_counter_open(c, NULL), 0);
	CHECK_INT(tally_counter_start(c), 0);
	fake_work(70, 7, 400, 100);
	CHECK_INT(tally_counter_read(c, r, 2), 2);
	expect(&r[0], 70, 400, 100, 280, 280);
	tally_counter_free(c);
	tly_sys_replace(NULL);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "second_round_has_its_own_times", second_round_has_its_own_times },
		{ "reset_while_running_begins_a_window", reset_while_running_begins_a_window },
		{ "multiplexed_rounds_scale_exactly", multiplexed_rounds_scale_exactly },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
