/* SPDX-License-Identifier: MIT */
#include "counter/aggregate.h"

#include <tally/counter.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;
	return s < a ? UINT64_MAX : s;
}

static enum tally_status status_of(enum tally_count_status s)
{
	switch (s) {
	case TALLY_COUNT_EXACT:
		return TALLY_STATUS_EXACT;
	case TALLY_COUNT_SCALED:
		return TALLY_STATUS_SCALED;
	case TALLY_COUNT_NOT_COUNTED:
		break;
	}
	return TALLY_STATUS_NOT_COUNTED;
}

static double ratio_of(uint64_t running, uint64_t enabled)
{
	if (enabled == 0 || running == 0)
		return 0.0;
	return running >= enabled ? 1.0 : (double)running / (double)enabled;
}

/* count with the times of its window. */
static struct tally_count in_window(const struct tally_count *count, const struct tly_window *window)
{
	struct tally_count c = *count;
	c.enabled = window->enabled;
	c.running = window->running;
	return c;
}

void tly_sum_add(struct tly_sum *sum, const struct tally_count *part)
{
	uint64_t s;
	enum tally_count_status status = tally_count_scale(part, &s);
	/* A part whose thread or CPU never ran with the event enabled says nothing; one that was enabled and
	 * never ran has no value to add. */
	sum->any_counted |= status != TALLY_COUNT_NOT_COUNTED;
	sum->any_scaled |= status == TALLY_COUNT_SCALED;
	sum->value = add_sat(sum->value, part->value);
	sum->enabled = add_sat(sum->enabled, part->enabled);
	sum->running = add_sat(sum->running, part->running);
	sum->scaled = add_sat(sum->scaled, s);
	sum->n++;
}

void tly_sum_result(const struct tly_sum *sum, struct tally_result *r)
{
	r->value = sum->value;
	r->enabled = sum->enabled;
	r->running = sum->running;
	r->scaled = sum->scaled;
	r->status = !sum->any_counted ? TALLY_STATUS_NOT_COUNTED
	          : sum->any_scaled  ? TALLY_STATUS_SCALED
	                             : TALLY_STATUS_EXACT;
	r->ratio = ratio_of(sum->running, sum->enabled);
	r->nr_parts = sum->n;
}

void tly_sum_add_in(struct tly_sum *sum, const struct tally_count *count, const struct tly_window *window)
{
	struct tally_count part = in_window(count, window);
	tly_sum_add(sum, &part);
}

void tly_aggregate_sum_parts(const struct tally_count *counts, size_t stride, const struct tly_window *windows,
                             size_t n, struct tally_result *r)
{
	struct tly_sum sum = { 0 };
	for (size_t i = 0; i < n; i++)
		tly_sum_add_in(&sum, &counts[i * stride], &windows[i]);
	tly_sum_result(&sum, r);
}

void tly_aggregate_part(const struct tally_count *count, const struct tly_window *window, int cpu, pid_t tid, int cgroup,
                        struct tally_part *out)
{
	struct tally_count part = in_window(count, window);
	out->cpu = cpu;
	out->tid = tid;
	out->cgroup = cgroup;
	out->value = part.value;
	out->enabled = part.enabled;
	out->running = part.running;
	out->status = status_of(tally_count_scale(&part, &out->scaled));
}

/* The order in which statuses win when halves are combined: any counted half makes a value. */
static int rank(enum tally_status s)
{
	switch (s) {
	case TALLY_STATUS_SCALED:
		return 3;
	case TALLY_STATUS_EXACT:
		return 2;
	case TALLY_STATUS_NOT_COUNTED:
		return 1;
	case TALLY_STATUS_NOT_SUPPORTED:
		break;
	}
	return 0;
}

void tly_aggregate_add(struct tally_result *acc, const struct tally_result *r, bool first)
{
	if (first) {
		*acc = *r;
		return;
	}
	acc->value = add_sat(acc->value, r->value);
	acc->enabled = add_sat(acc->enabled, r->enabled);
	acc->running = add_sat(acc->running, r->running);
	acc->scaled = add_sat(acc->scaled, r->scaled);
	acc->nr_parts += r->nr_parts;
	acc->user_only |= r->user_only;
	acc->has_note |= r->has_note;
	if (rank(r->status) > rank(acc->status))
		acc->status = r->status;
	/* The error stays only while no half counted. */
	if (acc->status != TALLY_STATUS_NOT_SUPPORTED)
		acc->error = 0;
	acc->ratio = ratio_of(acc->running, acc->enabled);
}

/* The words of tally stat -j (docs/json-schema.json, $defs/status), in every format: the library's one
 * table of them, beside the rule that gives each status, public so that the CLI and the region writers
 * write the same (tools/report/report.h report_status_name, region/region_write.c). */
const char *tally_status_name(enum tally_status status)
{
	switch (status) {
	case TALLY_STATUS_EXACT: return "counted";
	case TALLY_STATUS_SCALED: return "scaled";
	case TALLY_STATUS_NOT_COUNTED: return "not-counted";
	case TALLY_STATUS_NOT_SUPPORTED: return "not-supported";
	}
	return "unknown";
}
