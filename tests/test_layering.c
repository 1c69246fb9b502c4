/* SPDX-License-Identifier: MIT */
/*
 * Explaining a failure is the business of the layer that gives up (issue 8, section C): the evsel layer
 * returns the code and a text that says what failed where, and reads no machine facts (no sysfs, no
 * procfs, no probe event); the counter, giving up, explains the same failure with the cause and the fix.
 */
#include "fault.h"
#include "harness.h"

#include <linux/perf_event.h>
#include <tally/counter.h>
#include <tally/evlist.h>

/* The calls a facts probe makes: sysfs/procfs files and directories, a probing perf_event_open. */
static unsigned long fact_reads(void)
{
	return fault_calls(FAULT_OPEN) + fault_calls(FAULT_OPENDIR);
}

static void evsel_reports_context_only(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
		                         .config = PERF_COUNT_SW_PAGE_FAULTS, .disabled = 1 };
	tally_evsel *ev;
	CHECK_INT(tally_evsel_new(&attr, &ev), 0);
	CHECK_INT(tally_evsel_set_name(ev, "page-faults"), 0);
	fault_install();
	fault_reset();
	fault_arm(FAULT_PERF_EVENT_OPEN, 1, EACCES);
	CHECK_INT(tally_evsel_open(ev, NULL, NULL), -EACCES);
	const char *text = tally_last_error();
	CHECK_CONTAINS(text, "page-faults");
	CHECK_CONTAINS(text, "perf_event_open");
	CHECK_CONTAINS(text, "EACCES");
	CHECK_CONTAINS(text, "the opening thread");
	/* No diagnosis at this layer: no facts were read and nothing was opened to probe. */
	CHECK_INT(fact_reads(), 0);
	CHECK_INT(fault_calls(FAULT_PERF_EVENT_OPEN), 1);
	CHECK(strstr(text, "perf_event_paranoid") == NULL);
	fault_uninstall();
	/* Who gives up asks for the explanation: the cause (from the machine's facts) and where. */
	char why[2048];
	int n = tally_evsel_explain(ev, -EACCES, why, sizeof(why));
	CHECK(n > 0 && (size_t)n < sizeof(why));
	CHECK_CONTAINS(why, "cannot open event 'page-faults' (perf_event_open");
	CHECK_CONTAINS(why, "perf_event_paranoid");
	CHECK_CONTAINS(why, "(at any CPU, the opening thread)");
	/* snprintf rule: a short buffer gets a cut, terminated text and the same length. */
	char small[16];
	CHECK_INT(tally_evsel_explain(ev, -EACCES, small, sizeof(small)), n);
	CHECK_INT(strlen(small), sizeof(small) - 1);
	CHECK_INT(tally_evsel_explain(ev, -EBUSY, why, sizeof(why)), -ENOENT);
	tally_evsel_free(ev);
}

static void counter_explains_what_it_gives_up_on(void)
{
	tally_counter *c;
	CHECK_INT(tally_counter_new("{task-clock,page-faults}", NULL, &c), 0);
	CHECK_INT(tally_counter_open(c, NULL), 0);
	fault_install();
	fault_reset();
	/* The start resets every group (one ioctl), reads its window, then enables: the first ioctl fails. */
	fault_arm(FAULT_IOCTL, 1, ENODEV);
	CHECK_INT(tally_counter_start(c), -ENODEV);
	const char *text = tally_counter_last_error(c);
	/* diagnose.c's headline and the position the evsel recorded. */
	CHECK_CONTAINS(text, "cannot control event 'task-clock' (ioctl PERF_EVENT_IOC_RESET");
	CHECK_CONTAINS(text, "ENODEV");
	CHECK_CONTAINS(text, "(at any CPU, the opening thread)");
	CHECK_STR(tally_last_error(), text);
	fault_uninstall();
	tally_counter_free(c);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "evsel_reports_context_only", evsel_reports_context_only },
		{ "counter_explains_what_it_gives_up_on", counter_explains_what_it_gives_up_on },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
