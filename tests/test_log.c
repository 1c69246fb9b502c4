/* SPDX-License-Identifier: MIT */
/*
 * The log callback: formatted text and the caller's pointer, levels that mean what common.h says. A
 * failure the library recovers from (the exclude_guest retry) is DEBUG and leaves tally_last_error() as
 * it was; a call that gives up logs its explanation once at ERROR.
 */
#include "core/sys.h"
#include "harness.h"

#include <tally.h>

struct log_record {
	int calls;
	int by_level[TALLY_LOG_DEBUG + 1];
	void *user_seen;
	char last_error_text[4096]; /* the latest ERROR message */
	bool saw_guest_retry;
	bool newline_at_end;
};

static void record(enum tally_log_level level, const char *text, void *user)
{
	struct log_record *r = user;
	r->calls++;
	r->user_seen = user;
	if (level <= TALLY_LOG_DEBUG)
		r->by_level[level]++;
	size_t len = strlen(text);
	if (len && text[len - 1] == '\n')
		r->newline_at_end = true;
	if (level == TALLY_LOG_ERROR)
		snprintf(r->last_error_text, sizeof(r->last_error_text), "%s", text);
	if (strstr(text, "exclude_guest"))
		r->saw_guest_retry = true;
}

static void callback_gets_text_and_user(void)
{
	struct log_record r = { 0 };
	tally_set_log(record, &r);
	tally_cpus *cpus = NULL;
	CHECK(tally_cpus_parse("0-x", &cpus) < 0);
	tally_set_log(NULL, NULL);
	CHECK(r.calls > 0);
	CHECK(r.user_seen == &r);
	CHECK(!r.newline_at_end);
	/* A parse failure is the caller's to report (through the return code): not logged above DEBUG. */
	CHECK_INT(r.by_level[TALLY_LOG_ERROR] + r.by_level[TALLY_LOG_WARN], 0);
	/* NULL silences: nothing more arrives. */
	int before = r.calls;
	CHECK(tally_cpus_parse("0-x", &cpus) < 0);
	CHECK_INT(r.calls, before);
}

/* perf_event_open refuses exclude_guest with EINVAL, as x86's msr PMU and many uncore PMUs do. */
static unsigned long refused_guest_bits;
static int refuse_guest_bits(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                             unsigned long flags)
{
	if (attr->exclude_guest || attr->exclude_host) {
		refused_guest_bits++;
		errno = EINVAL;
		return -1;
	}
	return tly_sys_real.perf_event_open(attr, pid, cpu, group_fd, flags);
}

static int refuse_all(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	(void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	errno = EBADF;
	return -1;
}

/* Leaves a known text in tally_last_error(), from a failure the test provokes on purpose. */
static void set_known_last_error(char *copy, size_t len)
{
	tally_cpus *cpus = NULL;
	CHECK(tally_cpus_parse("known-failure", &cpus) < 0);
	snprintf(copy, len, "%s", tally_last_error());
	CHECK(copy[0] != '\0');
}

static void open_spec(const char *spec, struct log_record *r, char *known, size_t known_len, int *open_err)
{
	tally_counter *c = NULL;
	int err = tally_counter_new(spec, NULL, &c);
	CHECK_INT(err, 0);
	if (err)
		return;
	set_known_last_error(known, known_len);
	tally_set_log(record, r);
	*open_err = tally_counter_open(c, NULL);
	tally_set_log(NULL, NULL);
	tally_counter_free(c);
}

static void recovered_retry_is_debug_and_leaves_last_error(void)
{
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = refuse_guest_bits;
	const struct tly_sys *saved = tly_sys_replace(&table);
	struct log_record r = { 0 };
	char known[4096];
	int err = -1;
	open_spec("task-clock", &r, known, sizeof(known), &err);
	tly_sys_replace(saved);
	if (err == -EACCES || err == -EPERM)
		SKIP("perf_event_open refused here: %s", tally_last_error());
	CHECK_INT(err, 0);
	CHECK(refused_guest_bits > 0);
	CHECK(r.saw_guest_retry);
	CHECK_INT(r.by_level[TALLY_LOG_ERROR], 0);
	CHECK_INT(r.by_level[TALLY_LOG_WARN], 0);
	CHECK_STR(tally_last_error(), known);
}

/* The same on a real PMU that refuses exclude_guest, where this machine has one (x86's msr). */
static void msr_tsc_retry_is_quiet(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/msr/events/tsc", "r");
	if (!f)
		SKIP("no msr/tsc/ here");
	fclose(f);
	struct log_record r = { 0 };
	char known[4096];
	int err = -1;
	open_spec("msr/tsc/", &r, known, sizeof(known), &err);
	if (err)
		SKIP("msr/tsc/ does not open here: %s", tally_last_error());
	CHECK(r.saw_guest_retry);
	CHECK_INT(r.by_level[TALLY_LOG_ERROR], 0);
	CHECK_INT(r.by_level[TALLY_LOG_WARN], 0);
	CHECK_STR(tally_last_error(), known);
}

/* An open that gives up logs its explanation at ERROR, once, and it is tally_last_error()'s text. */
static void giving_up_logs_error_once(void)
{
	static struct tly_sys table;
	table = tly_sys_real;
	table.perf_event_open = refuse_all;
	const struct tly_sys *saved = tly_sys_replace(&table);
	struct log_record r = { 0 };
	char known[4096];
	int err = 0;
	open_spec("task-clock", &r, known, sizeof(known), &err);
	tly_sys_replace(saved);
	CHECK_INT(err, -EBADF);
	CHECK_INT(r.by_level[TALLY_LOG_ERROR], 1);
	CHECK_STR(r.last_error_text, tally_last_error());
	CHECK_CONTAINS(r.last_error_text, "task-clock");
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "callback_gets_text_and_user", callback_gets_text_and_user },
		{ "recovered_retry_is_debug_and_leaves_last_error", recovered_retry_is_debug_and_leaves_last_error },
		{ "msr_tsc_retry_is_quiet", msr_tsc_retry_is_quiet },
		{ "giving_up_logs_error_once", giving_up_logs_error_once },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
