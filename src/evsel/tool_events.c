/* SPDX-License-Identifier: MIT */
/* The clocks of perf's tool events, advanced only while enabled (see tool_events.h). */
#include "evsel/tool_events.h"

#include "core/error.h"
#include "core/sys.h"

#include <errno.h>
#include <time.h>

/* The wall clock, and the tool's own clock (the wall clock again, or the target's CPU time). */
static int clocks(struct tly_tool *t, uint64_t *wall, uint64_t *value)
{
	struct timespec ts;
	*wall = *value = 0;
	if (tly_sys->clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return tly_error(-errno, "tool event: clock_gettime(CLOCK_MONOTONIC): %s", tally_strerror(errno));
	*wall = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (t->kind == TLY_TOOL_DURATION_TIME) {
		*value = *wall;
		return 0;
	}
	uint64_t user, system;
	bool ended = false;
	if (t->cpu_time(t->arg, &user, &system, &ended) == 0) {
		t->user = user;
		t->system = system;
		t->ended = ended;
	}
	*value = t->kind == TLY_TOOL_USER_TIME ? t->user : t->system;
	return 0;
}

/* A CPU time read from /proc in clock ticks while the target runs and from its rusage (microseconds)
 * once it is reaped may step back by less than a tick: the count never does. */
static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

int tly_tool_enable(struct tly_tool *t)
{
	if (t->on)
		return 0;
	uint64_t wall, value;
	int err = clocks(t, &wall, &value);
	if (err)
		return err;
	t->time_at = wall;
	if (t->value_on)
		t->value += since(value, t->value_at);
	t->value_at = value;
	t->on = t->value_on = true;
	return 0;
}

int tly_tool_disable(struct tly_tool *t)
{
	if (!t->on)
		return 0;
	uint64_t wall, value;
	int err = clocks(t, &wall, &value);
	if (err)
		return err;
	t->time += since(wall, t->time_at);
	t->on = false;
	if (t->ended)
		return 0;
	t->value += since(value, t->value_at);
	t->value_on = false;
	return 0;
}

int tly_tool_read(struct tly_tool *t, struct tally_count *count)
{
	uint64_t time = t->time, value = t->value;
	if (t->value_on) {
		uint64_t wall, now;
		int err = clocks(t, &wall, &now);
		if (err)
			return err;
		time += t->on ? since(wall, t->time_at) : 0;
		value += since(now, t->value_at);
	}
	*count = (struct tally_count){ .value = value, .enabled = time, .running = time };
	return 0;
}
