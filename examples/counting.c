/* SPDX-License-Identifier: MIT */
/*
 * libperf's counting walk-through (libperf-counting(7)) on tally's lower layer: two software events on the
 * calling thread, enabled around a busy loop, then read and printed as "count N, enabled N, run N".
 *
 *   cc -o counting counting.c -ltally && ./counting
 */
#include <inttypes.h>
#include <stdio.h>
#include <tally.h>

/* Messages up to INFO (decisions that change what is counted); DEBUG would show every open. */
static void print_log(enum tally_log_level level, const char *text, void *user)
{
	if (level <= TALLY_LOG_INFO)
		fprintf(user, "libtally: %s\n", text);
}

static int add_software_event(tally_evlist *evlist, uint64_t config, const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = 1,
	};
	tally_evsel *evsel;
	int err = tally_evsel_new(&attr, &evsel);
	if (!err)
		err = tally_evsel_set_name(evsel, name);
	if (err) {
		tally_evsel_free(evsel);
		return err;
	}
	return tally_evlist_add(evlist, evsel);
}

int main(void)
{
	tally_set_log(print_log, stderr);

	tally_threads *threads = NULL;
	tally_evlist *evlist = NULL;
	int err = tally_threads_self(&threads);
	if (!err)
		err = tally_evlist_new(&evlist);
	if (!err)
		err = add_software_event(evlist, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	if (!err)
		err = add_software_event(evlist, PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	if (!err)
		err = tally_evlist_set_maps(evlist, NULL, threads);
	if (!err)
		err = tally_evlist_open(evlist);
	if (!err)
		err = tally_evlist_enable(evlist);
	if (!err) {
		volatile unsigned long count = 100000000;
		while (count--)
			;
		err = tally_evlist_disable(evlist);
	}
	for (size_t i = 0; !err && i < tally_evlist_count(evlist); i++) {
		struct tally_count counts;
		err = tally_evsel_read(tally_evlist_at(evlist, i), 0, 0, &counts, sizeof(counts));
		if (!err)
			printf("count %" PRIu64 ", enabled %" PRIu64 ", run %" PRIu64 "\n", counts.value,
			       counts.enabled, counts.running);
	}
	if (err)
		fprintf(stderr, "counting: %s\n", tally_last_error());
	tally_evlist_free(evlist);
	tally_threads_free(threads);
	return err ? 1 : 0;
}
