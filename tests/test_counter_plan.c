/* SPDX-License-Identifier: MIT */
/* tally_counter_plan: the plan of an open without opening (tally encode). Each attr it gives is the one
 * tally_counter_open passes to perf_event_open(2) on its first try, byte for byte, for every target kind;
 * its groups are the open's; and it makes no perf_event_open or ioctl call at all. */
#include "fault.h"
#include "fixture_tree.h"
#include "harness.h"

#include <tally/counter.h>

/* The attrs perf_event_open received, in order. */
#define MAX_SEEN 16
static struct perf_event_attr seen[MAX_SEEN];
static size_t nr_seen;

static int recording_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (nr_seen < MAX_SEEN)
		seen[nr_seen++] = *attr;
	return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

/* Opens spec on a target of this kind with perf_event_open recorded and checks that plan entry k is the
 * k-th attr opened, byte for byte. */
static void check_plan_is_the_open(const char *spec, enum tally_target_kind kind, bool no_inherit)
{
	TALLY_OPTS(tally_counter_opts, opts, .no_inherit = no_inherit);
	tally_counter *c;
	CHECK_INT(tally_counter_new(spec, &opts, &c), 0);
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = recording_open;
	nr_seen = 0;
	char *const argv[] = { "true", NULL };
	TALLY_OPTS(tally_target, t, .kind = kind, .argv = kind == TALLY_TARGET_COMMAND ? argv : NULL,
	           .cpus = kind == TALLY_TARGET_CPUS ? "0" : NULL);
	tly_sys_replace(&table);
	int err = tally_counter_open(c, &t);
	tly_sys_replace(NULL);
	if (err) {
		tally_counter_free(c);
		SKIP("cannot open %s here: %s", spec, tally_last_error());
	}
	CHECK_INT(nr_seen, tally_counter_count(c));
	for (size_t k = 0; k < nr_seen; k++) {
		TALLY_OPTS(tally_planned_event, p);
		CHECK_INT(tally_counter_plan(c, kind, k, &p), 0);
		if (memcmp(p.attr, &seen[k], sizeof(seen[k])) != 0) {
			fprintf(stderr, "%s, kind %d: plan entry %zu (%s) differs from the attr opened: planned "
			        "read_format %#llx disabled %d inherit %d enable_on_exec %d, opened %#llx %d %d %d\n",
			        spec, (int)kind, k, tally_counter_name(c, p.event), (unsigned long long)p.attr->read_format,
			        p.attr->disabled, p.attr->inherit, p.attr->enable_on_exec,
			        (unsigned long long)seen[k].read_format, seen[k].disabled, seen[k].inherit,
			        seen[k].enable_on_exec);
			harness_failed++;
		}
	}
	tally_counter_free(c);
}

static const char *const open_spec = "task-clock,page-faults,{cs,cpu-migrations}:u,minor-faults";

static void plan_is_the_open_of_a_command(void)
{
	check_plan_is_the_open(open_spec, TALLY_TARGET_COMMAND, false);
	check_plan_is_the_open(open_spec, TALLY_TARGET_COMMAND, true);
}

static void plan_is_the_open_of_other_targets(void)
{
	check_plan_is_the_open(open_spec, TALLY_TARGET_THREAD, false);
	check_plan_is_the_open(open_spec, TALLY_TARGET_PROCESS, false);
	check_plan_is_the_open(open_spec, TALLY_TARGET_CPUS, false);
}

/* A counter of spec on a fixture machine (NULL on failure, reported). */
static tally_counter *fixture_counter(const char *machine, const char *spec, bool no_packing)
{
	char root[4096];
	TALLY_OPTS(tally_counter_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine),
	           .no_packing = no_packing);
	tally_counter *c = NULL;
	if (tally_counter_new(spec, &opts, &c)) {
		fprintf(stderr, "%s on %s: %s\n", spec, machine, tally_last_error());
		harness_failed++;
	}
	return c;
}

/* The plan as "[name,name](P)[name]..." with each group's grouping: P packed, B braces, A alone, T a tool event. */
static const char *show_plan(tally_counter *c)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < tally_counter_count(c); k++) {
		TALLY_OPTS(tally_planned_event, p);
		if (tally_counter_plan(c, TALLY_TARGET_COMMAND, k, &p))
			return tally_last_error();
		bool last = p.group_index + 1 == p.group_size;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s%s", p.group_index ? "," : "[",
		                        tally_counter_name(c, p.event), last ? "]" : "");
		if (last)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%c",
			                        "ABPT"[p.grouping]);
	}
	return buf;
}

static void plan_groups_as_the_open_packs(void)
{
	tally_counter *c = fixture_counter("intel", "cycles,task-clock,instructions,{branches,branch-misses}:u,r1c2",
	                                   false);
	if (!c)
		return;
	CHECK_STR(show_plan(c), "[cycles,instructions,r1c2]P[task-clock]P[branches,branch-misses]B");
	TALLY_OPTS(tally_planned_event, p);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 1, &p), 0);
	CHECK_INT(p.attr->type, PERF_TYPE_HARDWARE);
	CHECK_U64(p.attr->config, PERF_COUNT_HW_INSTRUCTIONS);
	CHECK_INT(p.pmu_type, 4);
	CHECK_INT(p.leader, 0);
	CHECK_INT(p.group, 0);
	CHECK_INT(p.group_index, 1);
	CHECK_INT(p.group_size, 3);
	CHECK(p.max_group > 100);
	CHECK(p.cpus == NULL);
	CHECK_U64(p.attr->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID);
	CHECK_INT(p.attr->disabled, 0);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 0, &p), 0);
	CHECK_U64(p.attr->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
	                               PERF_FORMAT_GROUP);
	CHECK_INT(p.attr->disabled, 1);
	CHECK_INT(p.attr->enable_on_exec, 1);
	/* A lone event reads without PERF_FORMAT_GROUP. */
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 3, &p), 0);
	CHECK_INT(p.group_size, 1);
	CHECK_U64(p.attr->read_format & PERF_FORMAT_GROUP, 0);
	tally_counter_free(c);

	/* Hybrid: one group per core PMU, each with its PMU's CPUs. */
	c = fixture_counter("hybrid", "cycles,instructions", false);
	if (!c)
		return;
	CHECK_STR(show_plan(c), "[cpu_atom/cycles/,cpu_atom/instructions/]P[cpu_core/cycles/,cpu_core/instructions/]P");
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 3, &p), 0);
	CHECK_U64(p.attr->config, (4ULL << PERF_PMU_TYPE_SHIFT) | PERF_COUNT_HW_INSTRUCTIONS);
	CHECK_STR(p.cpus, "0-15");
	tally_counter_free(c);

	/* Tool events stand alone, braces or not, as the open puts them (it planned them packed or in the
	 * spec's braces, with a perf group around them that the open never made). */
	c = fixture_counter("intel", "task-clock,duration_time,{page-faults,user_time}", false);
	if (!c)
		return;
	CHECK_STR(show_plan(c), "[task-clock]P[duration_time]T[page-faults]B[user_time]T");
	tally_counter_free(c);

	/* Uncore: the PMU's cpumask. */
	c = fixture_counter("intel", "uncore_imc_0/cas_count_read/", false);
	if (!c)
		return;
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_CPUS, 0, &p), 0);
	CHECK_STR(p.cpus, "0");
	tally_counter_free(c);
}

static void no_packing_plans_each_alone(void)
{
	tally_counter *c = fixture_counter("intel", "cycles,instructions,{branches,branch-misses}", true);
	if (!c)
		return;
	CHECK_STR(show_plan(c), "[cycles]A[instructions]A[branches,branch-misses]B");
	tally_counter_free(c);
}

static void plan_follows_the_target_kind(void)
{
	tally_counter *c = fixture_counter("intel", "cycles,instructions", false);
	if (!c)
		return;
	TALLY_OPTS(tally_planned_event, p);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_CPUS, 0, &p), 0);
	CHECK_INT(p.attr->inherit, 0);
	CHECK_INT(p.attr->enable_on_exec, 0);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 0, &p), 0);
	CHECK_INT(p.attr->inherit, 1);
	CHECK_INT(p.attr->enable_on_exec, 1);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_PROCESS, 1, &p), 0);
	CHECK_INT(p.attr->inherit, 1);
	CHECK_INT(p.attr->enable_on_exec, 0);
	tally_counter_free(c);
}

/* Encoding needs no PMU: not one perf_event_open or ioctl, on a machine whose PMUs are a fixture's. */
static void plan_opens_nothing(void)
{
	fault_install();
	tally_counter *c = fixture_counter("hybrid", "cycles,{instructions,branches}:u,task-clock", false);
	for (size_t k = 0; c && k < tally_counter_count(c); k++) {
		TALLY_OPTS(tally_planned_event, p);
		CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, k, &p), 0);
	}
	CHECK_INT(fault_calls(FAULT_PERF_EVENT_OPEN), 0);
	CHECK_INT(fault_calls(FAULT_IOCTL), 0);
	CHECK_INT(fault_calls(FAULT_SPAWN), 0);
	tally_counter_free(c);
	fault_uninstall();
}

static void plan_refuses_bad_arguments(void)
{
	tally_counter *c = fixture_counter("intel", "cycles", false);
	if (!c)
		return;
	TALLY_OPTS(tally_planned_event, p);
	CHECK_INT(tally_counter_plan(NULL, TALLY_TARGET_COMMAND, 0, &p), -EINVAL);
	CHECK_CONTAINS(tally_last_error(), "tally_counter_plan");
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 0, NULL), -EINVAL);
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 1, &p), -ERANGE);
	CHECK_INT(tally_counter_plan(c, (enum tally_target_kind)42, 0, &p), -EINVAL);
	p.sz = TALLY_OPTS_MAX_SZ + 1;
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 0, &p), -TALLY_EOPTS);
	/* An older caller's smaller struct gets the fields it has room for. */
	struct tally_planned_event small = { .sz = offsetof(struct tally_planned_event, group) };
	CHECK_INT(tally_counter_plan(c, TALLY_TARGET_COMMAND, 0, &small), 0);
	CHECK(small.attr != NULL);
	CHECK_INT(small.group, 0);
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "plan_is_the_open_of_a_command", plan_is_the_open_of_a_command },
		{ "plan_is_the_open_of_other_targets", plan_is_the_open_of_other_targets },
		{ "plan_groups_as_the_open_packs", plan_groups_as_the_open_packs },
		{ "no_packing_plans_each_alone", no_packing_plans_each_alone },
		{ "plan_follows_the_target_kind", plan_follows_the_target_kind },
		{ "plan_opens_nothing", plan_opens_nothing },
		{ "plan_refuses_bad_arguments", plan_refuses_bad_arguments },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
