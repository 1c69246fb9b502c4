/* SPDX-License-Identifier: MIT */
/*
 * perf's tool events (duration_time, user_time, system_time): counted by tally itself, with no
 * perf_event_open, behind an evsel with no descriptor so that windows, snapshots and scaling above the
 * evsel treat them as any other event. Each one is a clock that advances only while the evsel is
 * enabled, as a kernel counter does: the wall clock (CLOCK_MONOTONIC) for duration_time, the target's
 * user or system CPU time (a callback from the counter, which knows the target) for the other two. Its
 * enabled and running times are the wall time it was enabled, so it scales by identity.
 */
#ifndef TLY_TOOL_EVENTS_H
#define TLY_TOOL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/evsel.h>

#include "spec/builtin_events.h"

/* The CPU time of a target so far, ns in user and in system mode, and whether the target has ended (it
 * can use no more: an exited command, reaped or not). 0, or a negative code when it cannot be read now
 * (a target gone): the tool then keeps its latest reading. */
typedef int (*tly_tool_cpu_time_fn)(void *arg, uint64_t *user_ns, uint64_t *system_ns, bool *ended);

struct tly_tool {
	enum tly_tool_kind kind;
	tly_tool_cpu_time_fn cpu_time;
	void *arg;
	bool on;
	/* The value's clock runs on after a disable that found the target ended: all it adds then was used
	 * before the disable, and the exact figure (a command's rusage, in us) comes only once it is reaped,
	 * while /proc gave clock ticks until then. */
	bool value_on;
	bool ended;
	uint64_t time, value;          /* enabled ns and counted ns up to the latest enable */
	uint64_t time_at, value_at;    /* the two clocks at the latest enable */
	uint64_t user, system;         /* the target's CPU time at the latest reading that succeeded */
};

/* Starts and stops the tool's clocks; enabling an enabled tool (or disabling a disabled one) changes
 * nothing. */
int tly_tool_enable(struct tly_tool *tool);
int tly_tool_disable(struct tly_tool *tool);

/* The count so far: value, and enabled == running == the wall time it was enabled. */
int tly_tool_read(struct tly_tool *tool, struct tally_count *count);

#endif
