/* SPDX-License-Identifier: MIT */
/*
 * The conventions of libtally(3), CONVENTIONS, over every public function that takes a handle or a
 * buffer, one table row each:
 * - NULL handles: a function returning int gives -EINVAL with a last-error text naming the function;
 *   free and close are no-ops; a query gives its "none" value (NULL, 0, "", -1, (size_t)-1), or, for
 *   CPU and thread maps, answers for the dummy map that NULL stands for.
 * - Buffers too small: a text is cut, NUL-terminated, and the length it needed is returned (snprintf);
 *   a listing returns the number of elements it has and writes what fits; a group or list read needs
 *   room for all of it (the count functions say how much) and otherwise writes nothing: -ENOSPC.
 * Each row runs in a child process, so that a row that crashes fails alone and says so.
 */
#include "harness.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tally.h>
#include <unistd.h>

/* -EINVAL, and the last error names the function that was called. */
#define CHECK_EINVAL(call, fn)                                                                     \
	do {                                                                                       \
		CHECK_INT(call, -EINVAL);                                                          \
		CHECK_CONTAINS(tally_last_error(), fn);                                            \
	} while (0)

static const struct perf_event_attr task_clock = {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_TASK_CLOCK,
	.disabled = 1,
};

/* ---- NULL handles ---------------------------------------------------------------------------------- */

static void null_counter(void)
{
	struct tally_result r[1];
	struct tally_part p[1];
	struct tally_exit e;
	tally_counter *c = NULL;
	CHECK_EINVAL(tally_counter_new(NULL, NULL, &c), "tally_counter_new");
	CHECK_EINVAL(tally_counter_new("task-clock", NULL, NULL), "tally_counter_new");
	tally_counter_free(NULL);
	CHECK_EINVAL(tally_counter_open(NULL, NULL), "tally_counter_open");
	CHECK_EINVAL(tally_counter_start(NULL), "tally_counter_start");
	CHECK_EINVAL(tally_counter_stop(NULL), "tally_counter_stop");
	CHECK_EINVAL(tally_counter_reset(NULL), "tally_counter_reset");
	CHECK_INT(tally_counter_close(NULL), 0);
	CHECK_INT(tally_counter_count(NULL), 0);
	CHECK(tally_counter_events(NULL) == NULL);
	CHECK(tally_counter_name(NULL, 0) == NULL);
	CHECK_EINVAL(tally_counter_read(NULL, r, 1, sizeof(r[0])), "tally_counter_read");
	CHECK_EINVAL(tally_counter_parts(NULL, 0, p, 1, sizeof(p[0])), "tally_counter_parts");
	CHECK_EINVAL(tally_counter_sum_origins(NULL, r, 1, r, 1, sizeof(r[0])), "tally_counter_sum_origins");
	CHECK_STR(tally_counter_note(NULL, 0), "");
	CHECK_STR(tally_counter_last_error(NULL), "");
	CHECK_INT(tally_counter_pid(NULL), 0);
	CHECK_EINVAL(tally_counter_wait(NULL, &e, sizeof(e)), "tally_counter_wait");
	TALLY_OPTS(tally_planned_event, planned);
	CHECK_EINVAL(tally_counter_plan(NULL, TALLY_TARGET_COMMAND, 0, &planned), "tally_counter_plan");
}

static void null_events(void)
{
	TALLY_OPTS(tally_event_info, info);
	char buf[64];
	tally_events *ev = NULL;
	CHECK_EINVAL(tally_events_parse(NULL, NULL, &ev), "tally_events_parse");
	CHECK_EINVAL(tally_events_parse("task-clock", NULL, NULL), "tally_events_parse");
	tally_events_free(NULL);
	CHECK_INT(tally_events_count(NULL), 0);
	CHECK_EINVAL(tally_events_at(NULL, 0, &info), "tally_events_at");
	CHECK_EINVAL(tally_events_encoding(NULL, 0, buf, sizeof(buf)), "tally_events_encoding");
	CHECK_EINVAL(tally_builtin_at(0, NULL), "tally_builtin_at");
	CHECK_EINVAL(tally_pfm_events(NULL, NULL), "tally_pfm_events");
}

static void null_pmus(void)
{
	TALLY_OPTS(tally_pmu_info, info);
	TALLY_OPTS(tally_format_info, format);
	TALLY_OPTS(tally_alias_info, alias);
	const char *name, *value;
	CHECK_EINVAL(tally_pmus_load(NULL, NULL), "tally_pmus_load");
	tally_pmus_free(NULL);
	CHECK_INT(tally_pmus_count(NULL), 0);
	CHECK(tally_pmus_at(NULL, 0) == NULL);
	CHECK(tally_pmus_find(NULL, "cpu") == NULL);
	CHECK_INT(tally_pmus_core_count(NULL), 0);
	CHECK_EINVAL(tally_pmu_get_info(NULL, &info), "tally_pmu_get_info");
	CHECK_EINVAL(tally_pmu_format_at(NULL, 0, &format), "tally_pmu_format_at");
	CHECK_EINVAL(tally_pmu_alias_at(NULL, 0, &alias), "tally_pmu_alias_at");
	CHECK_EINVAL(tally_pmu_cap_at(NULL, 0, &name, &value), "tally_pmu_cap_at");
	tally_pmus *pmus = NULL;
	CHECK_INT(tally_pmus_load(NULL, &pmus), 0);
	CHECK(tally_pmus_find(pmus, NULL) == NULL);
	const tally_pmu *software = tally_pmus_find(pmus, "software");
	CHECK(software != NULL);
	CHECK_EINVAL(tally_pmu_get_info(software, NULL), "tally_pmu_get_info");
	tally_pmus_free(pmus);
	CHECK_EINVAL(tally_facts_probe(NULL, NULL), "tally_facts_probe");
}

static void null_regions(void)
{
	struct tally_region_info info = { .sz = sizeof(info) };
	struct tally_region_event e[1];
	tally_region_set *s = NULL;
	CHECK_EINVAL(tally_region_set_new(NULL, NULL, NULL), "tally_region_set_new");
	tally_region_set_free(NULL);
	CHECK_STR(tally_region_set_error(NULL), "");
	CHECK_EINVAL(tally_region_id(NULL, "r"), "tally_region_id");
	CHECK_EINVAL(tally_region_begin_id(NULL, 0), "tally_region_begin_id");
	CHECK_EINVAL(tally_region_end_id(NULL, 0), "tally_region_end_id");
	CHECK_INT(tally_region_set_regions(NULL), 0);
	CHECK_INT(tally_region_set_threads(NULL), 0);
	CHECK_INT(tally_region_set_events(NULL), 0);
	CHECK(tally_region_set_name(NULL, 0) == NULL);
	CHECK(tally_region_set_event_name(NULL, 0) == NULL);
	CHECK_INT(tally_region_set_overhead(NULL, 0), 0);
	CHECK_EINVAL(tally_region_set_read(NULL, 0, 0, &info, e, 1, sizeof(e[0])), "tally_region_set_read");
	CHECK_EINVAL(tally_region_set_write(NULL, stderr, TALLY_REGION_TABLE), "tally_region_set_write");
	CHECK_INT(tally_region_set_new("task-clock", NULL, &s), 0);
	CHECK_EINVAL(tally_region_id(s, NULL), "tally_region_id");
	CHECK_EINVAL(tally_region_begin_id(s, 0), "tally_region_begin_id"); /* no such id yet */
	tally_region_set_free(s);
}

static void null_maps(void)
{
	TALLY_OPTS(tally_cpu_topology, topology);
	tally_cpus *cpus = NULL;
	tally_threads *threads = NULL;
	CHECK_EINVAL(tally_cpus_parse(NULL, &cpus), "tally_cpus_parse");
	CHECK_EINVAL(tally_cpus_parse("0", NULL), "tally_cpus_parse");
	CHECK_EINVAL(tally_cpus_online(NULL, NULL), "tally_cpus_online");
	CHECK_EINVAL(tally_cpu_topology(NULL, 0, NULL), "tally_cpu_topology");
	int id;
	CHECK_EINVAL(tally_cpu_cache_id(NULL, 0, 0, NULL, NULL), "tally_cpu_cache_id");
	CHECK_EINVAL(tally_cpu_cache_id(NULL, 0, 5, &id, NULL), "tally_cpu_cache_id");
	CHECK_EINVAL(tally_cpu_cache_id(NULL, -1, 0, &id, NULL), "tally_cpu_cache_id");
	(void)topology;
	CHECK_EINVAL(tally_cpus_any(NULL), "tally_cpus_any");
	CHECK_EINVAL(tally_cpus_intersect_mask(NULL, NULL, &cpus), "tally_cpus_intersect_mask");
	CHECK_EINVAL(tally_cpus_intersect_mask(NULL, "0", NULL), "tally_cpus_intersect_mask");
	/* NULL is the dummy map {-1}. */
	CHECK_INT(tally_cpus_count(NULL), 1);
	CHECK_INT(tally_cpus_at(NULL, 0), -1);
	CHECK_INT(tally_cpus_at(NULL, 1), -1);
	CHECK_INT(tally_cpus_index(NULL, -1), 0);
	CHECK_INT(tally_cpus_index(NULL, 0), -ENOENT);
	tally_cpus_free(NULL);

	pid_t tid = 1;
	CHECK_EINVAL(tally_threads_new(NULL, 1, &threads), "tally_threads_new");
	CHECK_EINVAL(tally_threads_new(&tid, 1, NULL), "tally_threads_new");
	CHECK_EINVAL(tally_threads_self(NULL), "tally_threads_self");
	CHECK_EINVAL(tally_threads_any(NULL), "tally_threads_any");
	CHECK_EINVAL(tally_threads_of_pid(getpid(), NULL), "tally_threads_of_pid");
	CHECK_EINVAL(tally_thread_name(getpid(), NULL, 16), "tally_thread_name");
	/* NULL is the dummy map {0}. */
	CHECK_INT(tally_threads_count(NULL), 1);
	CHECK_INT(tally_threads_at(NULL, 0), 0);
	CHECK_INT(tally_threads_at(NULL, 1), -1);
	tally_threads_free(NULL);
}

static void null_counts(void)
{
	struct tally_count a = { 0 };
	uint64_t scaled = 7;
	CHECK_INT(tally_count_scale(NULL, &scaled), TALLY_COUNT_NOT_COUNTED);
	CHECK_U64(scaled, 0);
	CHECK_INT(tally_count_scale(&a, NULL), TALLY_COUNT_NOT_COUNTED);
	CHECK_EINVAL(tally_count_delta(NULL, &a, &a, sizeof(a)), "tally_count_delta");
	CHECK_EINVAL(tally_count_delta(&a, NULL, &a, sizeof(a)), "tally_count_delta");
	CHECK_EINVAL(tally_count_delta(&a, &a, NULL, sizeof(a)), "tally_count_delta");
}

static void null_evsel(void)
{
	struct tally_count count[2];
	tally_evsel *ev = NULL;
	CHECK_EINVAL(tally_evsel_new(NULL, &ev), "tally_evsel_new");
	CHECK_EINVAL(tally_evsel_new(&task_clock, NULL), "tally_evsel_new");
	tally_evsel_free(NULL);
	CHECK_EINVAL(tally_evsel_set_name(NULL, "x"), "tally_evsel_set_name");
	CHECK(tally_evsel_name(NULL) == NULL);
	CHECK(tally_evsel_attr(NULL) == NULL);
	CHECK_EINVAL(tally_evsel_set_leader(NULL, NULL), "tally_evsel_set_leader");
	CHECK(tally_evsel_leader(NULL) == NULL);
	CHECK_INT(tally_evsel_nr_members(NULL), 0);
	CHECK_EINVAL(tally_evsel_open(NULL, NULL, NULL), "tally_evsel_open");
	tally_evsel_close(NULL);
	CHECK(tally_evsel_cpus(NULL) == NULL);
	CHECK(tally_evsel_threads(NULL) == NULL);
	CHECK_INT(tally_evsel_fd(NULL, 0, 0), -1);
	CHECK_U64(tally_evsel_id(NULL, 0, 0), 0);
	CHECK_EINVAL(tally_evsel_enable(NULL), "tally_evsel_enable");
	CHECK_EINVAL(tally_evsel_disable(NULL), "tally_evsel_disable");
	CHECK_EINVAL(tally_evsel_reset(NULL), "tally_evsel_reset");
	CHECK_EINVAL(tally_evsel_read(NULL, 0, 0, count, sizeof(struct tally_count)), "tally_evsel_read");
	CHECK_EINVAL(tally_evsel_read_group(NULL, 0, 0, count, 2, sizeof(struct tally_count)), "tally_evsel_read_group");
	CHECK_EINVAL(tally_evsel_explain(NULL, -EINVAL, NULL, 0), "tally_evsel_explain");
	CHECK_INT(tally_evsel_new(&task_clock, &ev), 0);
	CHECK_EINVAL(tally_evsel_set_name(ev, NULL), "tally_evsel_set_name");
	CHECK_INT(tally_evsel_open(ev, NULL, NULL), 0);
	CHECK_EINVAL(tally_evsel_read(ev, 0, 0, NULL, sizeof(struct tally_count)), "tally_evsel_read");
	CHECK_EINVAL(tally_evsel_read_group(ev, 0, 0, NULL, 1, sizeof(struct tally_count)), "tally_evsel_read_group");
	tally_evsel_free(ev);
}

static void null_evlist(void)
{
	struct tally_count count[1];
	CHECK_EINVAL(tally_evlist_new(NULL), "tally_evlist_new");
	tally_evlist_free(NULL);
	CHECK_EINVAL(tally_evlist_add(NULL, NULL), "tally_evlist_add");
	CHECK_INT(tally_evlist_count(NULL), 0);
	CHECK(tally_evlist_at(NULL, 0) == NULL);
	CHECK_EINVAL(tally_evlist_set_maps(NULL, NULL, NULL), "tally_evlist_set_maps");
	CHECK_EINVAL(tally_evlist_set_leader(NULL), "tally_evlist_set_leader");
	CHECK_EINVAL(tally_evlist_open(NULL), "tally_evlist_open");
	tally_evlist_close(NULL);
	CHECK_EINVAL(tally_evlist_enable(NULL), "tally_evlist_enable");
	CHECK_EINVAL(tally_evlist_disable(NULL), "tally_evlist_disable");
	CHECK_EINVAL(tally_evlist_reset(NULL), "tally_evlist_reset");
	CHECK_INT(tally_evlist_nr_counts(NULL), 0);
	CHECK_U64(tally_evlist_count_index(NULL, 0, 0, 0), (size_t)-1);
	CHECK_EINVAL(tally_evlist_read(NULL, count, 1, sizeof(struct tally_count)), "tally_evlist_read");
	tally_evlist *list = NULL;
	CHECK_INT(tally_evlist_new(&list), 0);
	CHECK_EINVAL(tally_evlist_add(list, NULL), "tally_evlist_add");
	tally_evlist_free(list);
}

/* ---- buffers too small --------------------------------------------------------------------------- */

static void text_buffers_are_cut_like_snprintf(void)
{
	tally_events *ev = NULL;
	CHECK_INT(tally_events_parse("task-clock", NULL, &ev), 0);
	char full[256], cut[8];
	int need = tally_events_encoding(ev, 0, full, sizeof(full));
	CHECK(need > (int)sizeof(cut));
	CHECK_INT(strlen(full), need);
	memset(cut, 'x', sizeof(cut));
	CHECK_INT(tally_events_encoding(ev, 0, cut, sizeof(cut)), need);
	CHECK_INT(cut[sizeof(cut) - 1], '\0');
	CHECK(strncmp(cut, full, sizeof(cut) - 1) == 0);
	CHECK_INT(tally_events_encoding(ev, 0, NULL, 0), need);
	tally_events_free(ev);

	/* A thread's name: this thread's is "test_convention" (comm keeps 15 characters). */
	pid_t self = (pid_t)syscall(SYS_gettid);
	char name[32], small[5];
	need = tally_thread_name(self, name, sizeof(name));
	CHECK_INT(need, (int)strlen(name));
	CHECK(need >= (int)sizeof(small));
	memset(small, 'x', sizeof(small));
	CHECK_INT(tally_thread_name(self, small, sizeof(small)), need);
	CHECK_INT(small[sizeof(small) - 1], '\0');
	CHECK(strncmp(small, name, sizeof(small) - 1) == 0);
	CHECK_INT(tally_thread_name(self, NULL, 0), need);
}

static void listings_return_their_size(void)
{
	tally_counter *c = NULL;
	CHECK_INT(tally_counter_new("task-clock,page-faults", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	/* One part per event on the calling thread; n == 0 asks for the count. */
	CHECK_INT(tally_counter_parts(c, 0, NULL, 0, sizeof(struct tally_part)), 1);
	CHECK_INT(tally_counter_sum_origins(c, r, 2, NULL, 0, sizeof(r[0])), 2);
	tally_counter_free(c);
}

static void reads_need_room_for_all(void)
{
	tally_evsel *leader = NULL, *member = NULL;
	tally_evlist *list = NULL;
	CHECK_INT(tally_evlist_new(&list), 0);
	CHECK_INT(tally_evsel_new(&task_clock, &leader), 0);
	CHECK_INT(tally_evsel_new(&task_clock, &member), 0);
	CHECK_INT(tally_evlist_add(list, leader), 0);
	CHECK_INT(tally_evlist_add(list, member), 0);
	CHECK_INT(tally_evlist_set_leader(list), 0);
	CHECK_INT(tally_evlist_open(list), 0);
	struct tally_count counts[2];
	memset(counts, 0xa5, sizeof(counts));
	CHECK_INT(tally_evsel_read_group(leader, 0, 0, counts, 1, sizeof(counts[0])), -ENOSPC);
	CHECK_INT(tally_evlist_read(list, counts, tally_evlist_nr_counts(list) - 1, sizeof(counts[0])), -ENOSPC);
	CHECK_U64(counts[0].value, 0xa5a5a5a5a5a5a5a5u);
	CHECK_INT(tally_evlist_read(list, counts, tally_evlist_nr_counts(list), sizeof(counts[0])), 0);
	tally_evlist_free(list);
}

/* ---- the table ----------------------------------------------------------------------------------- */

static const struct harness_case rows[] = {
	{ "null_counter", null_counter },
	{ "null_events", null_events },
	{ "null_pmus", null_pmus },
	{ "null_maps", null_maps },
		{ "null_regions", null_regions },
	{ "null_counts", null_counts },
	{ "null_evsel", null_evsel },
	{ "null_evlist", null_evlist },
	{ "text_buffers_are_cut_like_snprintf", text_buffers_are_cut_like_snprintf },
	{ "listings_return_their_size", listings_return_their_size },
	{ "reads_need_room_for_all", reads_need_room_for_all },
	{ NULL, NULL },
};

/* Runs one row in a child: its checks print there, a crash is reported here. */
static void run_isolated(size_t i)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		harness_case = rows[i].name;
		harness_failed = 0;
		rows[i].fn();
		fflush(NULL);
		_exit(harness_failed ? 1 : 0);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "[%s] crashed: %s\n", rows[i].name, strsignal(WTERMSIG(status)));
		harness_failed++;
	} else if (WEXITSTATUS(status) != 0) {
		harness_failed++;
	}
}

#define ISOLATED(i)                                                                                \
	static void isolated_##i(void)                                                             \
	{                                                                                          \
		run_isolated(i);                                                                   \
	}
ISOLATED(0)
ISOLATED(1)
ISOLATED(2)
ISOLATED(3)
ISOLATED(4)
ISOLATED(5)
ISOLATED(6)
ISOLATED(7)
ISOLATED(8)
ISOLATED(9)

int main(void)
{
	static const struct harness_case cases[] = {
		{ "null_counter", isolated_0 },
		{ "null_events", isolated_1 },
		{ "null_pmus", isolated_2 },
		{ "null_maps", isolated_3 },
		{ "null_counts", isolated_4 },
		{ "null_evsel", isolated_5 },
		{ "null_evlist", isolated_6 },
		{ "text_buffers_are_cut_like_snprintf", isolated_7 },
		{ "listings_return_their_size", isolated_8 },
		{ "reads_need_room_for_all", isolated_9 },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
