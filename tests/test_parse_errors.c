/* SPDX-License-Identifier: MIT */
/* Rejected event specs: every error class with its message, the caret under the bad byte, the offset
 * reported through the options, and nothing leaked on the way out (run under ASan). */
#include "fixture_tree.h"
#include "harness.h"

#include <stdbool.h>
#include <tally/events.h>
#include <tally/pmu.h>

enum machine { INTEL, AMD, ARM64, BIGLITTLE, NR_MACHINES };
static const char *const machine_dirs[NR_MACHINES] = { "intel", "amd", "arm64", "arm64-biglittle" };
static tally_pmus *machines[NR_MACHINES];

static tally_pmus *machine(enum machine m)
{
	if (!machines[m])
		machines[m] = fixture_pmus(machine_dirs[m]);
	return machines[m];
}

struct row {
	enum machine machine;
	const char *spec;
	size_t offset;        /* where the caret goes */
	const char *message;  /* part of the first line */
};

static const struct row rows[] = {
	/* unknown names, with the closest known one */
	{ INTEL, "cylces,instructions", 0, "unknown event 'cylces' — did you mean 'cycles'?" },
	{ INTEL, "cycles,instrucitons", 7, "unknown event 'instrucitons' — did you mean 'instructions'?" },
	{ INTEL, "topdown-retirin", 0, "did you mean 'topdown-retiring'?" },
	{ INTEL, "L1-dcache-lod-misses", 0, "did you mean 'L1-dcache-load-misses'?" },
	{ INTEL, "xyzzyplugh", 0, "unknown event 'xyzzyplugh' (`tally list` shows the events of this machine)" },
	{ INTEL, "L1-dcache-load-store", 0, "unknown event 'L1-dcache-load-store'" },
	{ INTEL, "r12345678901234567", 0, "unknown event 'r12345678901234567'" },
	{ INTEL, "cpux/event=1/", 0, "unknown PMU 'cpux' — did you mean 'cpu'?" },
	{ INTEL, "nothing/event=1/", 0, "unknown PMU 'nothing' (this machine's PMUs are under " },
	/* terms */
	{ INTEL, "cpu/evnt=1/", 4, "unknown term 'evnt' for PMU 'cpu' — did you mean 'event'? (valid terms: " },
	{ INTEL, "cpu/zzz=1/", 4, "unknown term 'zzz' for PMU 'cpu' (valid terms: cmask, edge, event, " },
	{ INTEL, "msr/cycles/", 4, "unknown term 'cycles' for PMU 'msr'" },
	{ INTEL, "cpu/event=0x100/", 10, "value 0x100 of term 'event' does not fit its 8 bits (config:0-7)" },
	{ AMD, "cpu/event=0x1000/", 10, "value 0x1000 of term 'event' does not fit its 12 bits (config:0-7,32-35)" },
	{ INTEL, "cpu/edge=2/", 9, "value 0x2 of term 'edge' does not fit its 1 bit (config:18)" },
	{ INTEL, "cpu/event=0xzz/", 10, "value '0xzz' of term 'event' is not a number" },
	{ INTEL, "cpu/config=0x10000000000000000/", 11, "does not fit 64 bits" },
	{ INTEL, "cpu/name/", 4, "term 'name' needs a value" },
	{ INTEL, "cpu/period=1000/", 4, "perf's term 'period' is not supported" },
	{ INTEL, "cpu/event=1,event=2/", 12, "term 'event' is given twice" },
	{ INTEL, "cpu/event=1,,umask=1/", 12, "empty term" },
	{ INTEL, "cpu/event=1,/", 11, "term list ends with ','" },
	{ INTEL, "cpu/event=/", 10, "expected a value after '='" },
	{ INTEL, "cpu/ev ent=1/", 7, "expected ',' or '=' after the term name" },
	{ INTEL, "cpu/event=0x3c umask=1/", 15, "expected ',' after the value" },
	{ INTEL, "cpu/event=1, /", 11, "term list ends with ','" },
	{ INTEL, "cpu/event='0x3c'/", 11, "value '0x3c' of term 'event' is not a number" },
	{ INTEL, "cpu/event=nosuch/", 10, "value 'nosuch' of term 'event' is not a number" },
	{ INTEL, "cpu/name='x/", 9, "this quote is never closed" },
	{ INTEL, "cpu/name=''/", 11, "expected a value between the quotes" },
	{ INTEL, "cpu/=1/", 4, "expected a term" },
	{ INTEL, "cpu/event=1", 3, "the term list of 'cpu' is not closed with '/'" },
	{ INTEL, "cpu/topdown-retiring=2/", 4, "'topdown-retiring' is an event of PMU 'cpu', not a term" },
	/* terms after an event of no PMU: perf's config, config1, config2, name and rNNNN only */
	{ INTEL, "cycles/event=1/", 7, "unknown term 'event' for an event of no PMU" },
	{ INTEL, "cycles/period=1/", 7, "perf's term 'period' is not supported" },
	{ INTEL, "1:1/freq=10/", 4, "perf's term 'freq' is not supported" },
	{ INTEL, "task-clock/name/", 11, "term 'name' needs a value" },
	{ INTEL, "cycles/name=x", 6, "the term list of 'cycles' is not closed with '/'" },
	{ INTEL, "nosuch/config=1/", 0, "unknown PMU 'nosuch'" },
	{ BIGLITTLE, "cycles/config=1/", 0, "sets configs of a generic event, which a hybrid machine opens on every core" },
	/* the numeric form TYPE:CONFIG */
	{ INTEL, "1/config=1/", 0, "a PMU is named, not numbered" },
	{ INTEL, "1", 0, "a number starts the numeric form TYPE:CONFIG" },
	{ INTEL, "1:u", 2, "expected the config (a number) after '1:'" },
	{ INTEL, "0x100000000:1", 0, "type 0x100000000 does not fit the attr's 32 bits" },
	/* past 64 bits: what does not fit, never "expected a number" nor an unknown tracepoint */
	{ INTEL, "1:99999999999999999999", 2, "config 99999999999999999999 does not fit 64 bits" },
	{ INTEL, "1:0x10000000000000000", 2, "config 0x10000000000000000 does not fit 64 bits" },
	{ INTEL, "99999999999999999999:1", 0, "type 99999999999999999999 does not fit the attr's 32 bits" },
	{ INTEL, "1:1:x", 4, "unknown modifier 'x'" },
	{ INTEL, "cpu/cycles,event=1/", 4, "generic event 'cycles' cannot be combined with other event terms" },
	/* modifiers */
	{ INTEL, "cycles:x", 7, "unknown modifier 'x' (valid: u k h G H I D e p W)" },
	{ INTEL, "cpu/event=1/x", 12, "unknown modifier 'x'" },
	{ INTEL, "cycles:uu", 8, "modifier 'u' is given twice" },
	{ INTEL, "cycles:pppp", 7, "precise level 4 is too high: at most ppp" },
	{ INTEL, "{cycles:pp}:pp", 12, "precise level of 'cycles:pp' would pass ppp" },
	{ INTEL, "cycles:S", 7, "modifier 'S' (read group members on each sample) is for sampling" },
	{ INTEL, "cycles:P", 7, "modifier 'P' (highest precise level the PMU allows) is not supported" },
	{ INTEL, "cycles:b", 7, "modifier 'b' (count through BPF" },
	{ INTEL, "cycles:", 7, "expected modifier letters" },
	{ INTEL, "cycles:u:k", 8, "unexpected ':' after an event" },
	{ INTEL, "1:1:S", 4, "modifier 'S' (read group members on each sample) is for sampling" },
	{ INTEL, "g{cycles}:S", 10, "modifier 'S' (read group members on each sample) is for sampling" },
	{ INTEL, "cycles//b", 8, "modifier 'b' (count through BPF" },
	/* a libpfm4 PMU::EVENT separator after an event name is a typo of ':' */
	{ INTEL, "cycles::u", 6, "'::' follows a libpfm4 PMU (PMU::EVENT), and 'cycles' is an event" },
	{ INTEL, "task-clock,r1c2::k", 15, "and 'r1c2' is an event" },
	{ INTEL, "1::u", 1, "'::' follows a libpfm4 PMU" },
	/* bytes no spec holds but a name= value, shown whole */
	{ INTEL, "cycles\xef\xbc\x8cinstructions", 6, "unexpected '\xef\xbc\x8c' (U+FF0C, a look-alike of ',') in an event "
	                                               "name: names are ASCII" },
	{ INTEL, "{cycles:u\xe3\x80\x81instructions}", 9,
	  "unexpected '\xe3\x80\x81' (U+3001, a look-alike of ',') in a group" },
	{ INTEL, "cycles:k\xef\xbc\x8c", 8, "unexpected '\xef\xbc\x8c' (U+FF0C, a look-alike of ',') after an event" },
	{ INTEL, "cycl\xc3\xa9s", 4, "unexpected '\xc3\xa9' (U+00E9) in an event name" },
	{ INTEL, "cycles:\xef\xbd\x95", 7, "expected modifier letters (u k h G H I D e p W) after ':', found '\xef\xbd\x95' "
	                                "(U+FF55)" },
	{ INTEL, "cpu/event=1\xef\xbc\x8cumask=1/", 11, "expected ',' after the value, found '\xef\xbc\x8c' (U+FF0C" },
	{ INTEL, "\xef\xbd\x9b" "cycles}", 0, "expected an event name, found '\xef\xbd\x9b' (U+FF5B, a look-alike of '{')" },
	{ INTEL, "cycles\xef", 6, "unexpected byte 0xef (not UTF-8)" },
	{ INTEL, "cycles\xc0\xafx", 6, "unexpected byte 0xc0 (not UTF-8)" },
	{ INTEL, "cycles\x01", 6, "unexpected control character 0x01" },
	/* structure */
	{ INTEL, "", 0, "empty event specification" },
	{ INTEL, "{cycles", 0, "unbalanced braces: this '{' is never closed" },
	{ INTEL, "cycles,{instructions,branches", 7, "unbalanced braces: this '{' is never closed" },
	{ INTEL, "cycles}", 6, "unbalanced braces: '}' without a '{'" },
	{ INTEL, "}", 0, "unbalanced braces: '}' without a '{'" },
	{ INTEL, "{{cycles}}", 1, "nested braces" },
	{ INTEL, "{cycles,{instructions}}", 8, "nested braces" },
	{ INTEL, "{}", 0, "empty group" },
	{ INTEL, ",cycles", 0, "empty event (nothing before this ',')" },
	{ INTEL, "cycles,,instructions", 7, "empty event (nothing before this ',')" },
	{ INTEL, "cycles,", 6, "trailing comma" },
	{ INTEL, "{cycles,}", 7, "trailing comma before '}'" },
	{ INTEL, "{,cycles}", 1, "empty event" },
	{ INTEL, "cycles instructions", 7, "unexpected 'i' after an event" },
	{ INTEL, "{cycles instructions}", 8, "unexpected 'i' in a group" },
	{ INTEL, "cycles, ", 6, "trailing comma" },
	{ INTEL, " , cycles", 1, "empty event (nothing before this ',')" },
	{ INTEL, " \t ", 0, "empty event specification" },
	{ INTEL, "{cycles , }", 8, "trailing comma before '}'" },
	{ INTEL, "{ }", 0, "empty group" },
	/* named groups */
	{ INTEL, "cycles{instructions}", 0, "'cycles' is an event, not a group name: put a ',' between" },
	{ INTEL, "{cycles,g{instructions}}", 8, "nested braces" },
	{ INTEL, "g{cycles", 1, "unbalanced braces: this '{' is never closed" },
	{ INTEL, "my-group{cycles}", 0, "'my-group' cannot name a group (a group name is a letter or '_'" },
	{ INTEL, "{cycles,my-group {instructions}}", 8, "'my-group' cannot name a group" },
	{ INTEL, "=cycles", 0, "expected an event name, found '='" },
	/* cache combinations the kernel does not define */
	{ INTEL, "iTLB-stores", 0, "'iTLB-stores' is not a cache event the kernel defines: iTLB has no store events "
	                           "(it has: loads)" },
	{ INTEL, "L1-icache-stores", 0, "L1-icache has no store events (it has: loads, prefetches)" },
	{ INTEL, "branch-prefetches", 0, "branch has no prefetch events" },
	{ INTEL, "cycles,i-tlb-write-miss", 7, "iTLB has no store events" },
	/* generic events the arm64 PMUv3 map lacks */
	{ BIGLITTLE, "ref-cycles", 0, "'ref-cycles' has no architectural event on core PMU 'armv8_cortex_a53'" },
	{ BIGLITTLE, "cycles,L1-dcache-stores", 7, "'L1-dcache-stores' has no architectural event on core PMU" },
	{ ARM64, "armv8_pmuv3/ref-cycles/", 12, "'ref-cycles' has no architectural event on PMU 'armv8_pmuv3'" },
};

/* The message has three lines: the text, the spec, and the caret under spec[offset]. */
static void check_caret(const char *message, const char *spec, size_t offset)
{
	const char *line2 = strchr(message, '\n');
	const char *line3 = line2 ? strchr(line2 + 1, '\n') : NULL;
	CHECK(line2 && line3);
	if (!line2 || !line3)
		return;
	CHECK_INT(strncmp(line2 + 1, "  ", 2), 0);
	CHECK_INT((size_t)(line3 - line2 - 3), strlen(spec));
	CHECK_INT(strncmp(line2 + 3, spec, strlen(spec)), 0);
	const char *caret = strchr(line3, '^');
	CHECK(caret != NULL);
	if (caret)
		CHECK_INT((size_t)(caret - (line3 + 3)), offset);
}

static void test_table(void)
{
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *row = &rows[r];
		size_t offset = (size_t)-1;
		TALLY_OPTS(tally_parse_opts, opts, .pmus = machine(row->machine), .error_offset = &offset);
		tally_events *events = (tally_events *)&offset; /* must come back NULL */
		int ret = tally_events_parse(row->spec, &opts, &events);
		const char *message = tally_last_error();
		if (ret != -TALLY_ESPEC || offset != row->offset || !strstr(message, row->message))
			fprintf(stderr, "  spec '%s': %d\n%s\n", row->spec, ret, message);
		CHECK_INT(ret, -TALLY_ESPEC);
		CHECK(events == NULL);
		CHECK_INT(offset, row->offset);
		CHECK_INT(strncmp(message, "invalid event spec: ", 20), 0);
		CHECK_CONTAINS(message, row->message);
		check_caret(message, row->spec, row->offset);
	}
}

/* The exact text, as the README shows it. */
static void test_full_message(void)
{
	TALLY_OPTS(tally_parse_opts, opts, .pmus = machine(INTEL));
	tally_events *events;
	CHECK_INT(tally_events_parse("cylces,instructions", &opts, &events), -TALLY_ESPEC);
	CHECK_STR(tally_last_error(), "invalid event spec: unknown event 'cylces' — did you mean 'cycles'?\n"
	                              "  cylces,instructions\n"
	                              "  ^~~~~~");
	CHECK_INT(tally_events_parse("cycles,{instructions", &opts, &events), -TALLY_ESPEC);
	CHECK_STR(tally_last_error(), "invalid event spec: unbalanced braces: this '{' is never closed\n"
	                              "  cycles,{instructions\n"
	                              "         ^");
}

/* libpfm4 names: a clear refusal in a build without libpfm4, libpfm4's own reason in one with it. */
static void test_pfm_names(void)
{
	size_t offset = 0;
	TALLY_OPTS(tally_parse_opts, opts, .pmus = machine(INTEL), .error_offset = &offset);
	tally_events *events;
	int ret = tally_events_parse("cycles,nosuchpmu::NO_EVENT:u", &opts, &events);
	CHECK_INT(offset, 7);
	if (tally_have_libpfm()) {
		CHECK_INT(ret, -TALLY_ESPEC);
		CHECK_CONTAINS(tally_last_error(), "libpfm4 cannot encode 'nosuchpmu::NO_EVENT:u'");
	} else {
		CHECK_INT(ret, -TALLY_ENOPFM);
		CHECK_CONTAINS(tally_last_error(), "built without libpfm4");
	}
	CHECK_CONTAINS(tally_last_error(), "\n  cycles,nosuchpmu::NO_EVENT:u\n         ^~~~");
}

/* Options from a newer caller with unknown fields set are refused; NULL arguments too. */
static void test_bad_arguments(void)
{
	/* Zeroed whole, as TALLY_OPTS zeroes a struct: padding included (tally_parse_opts ends in a 4-byte
	 * enum, and clang leaves the padding after it as it finds it under an initializer). */
	struct {
		struct tally_parse_opts opts;
		long newer_field;
	} bigger;
	memset(&bigger, 0, sizeof(bigger));
	bigger.opts.sz = sizeof(bigger);
	bigger.opts.pmus = machine(INTEL);
	bigger.newer_field = 1;
	tally_events *events;
	CHECK_INT(tally_events_parse("cycles", &bigger.opts, &events), -TALLY_EOPTS);
	bigger.newer_field = 0;
	CHECK_INT(tally_events_parse("cycles", &bigger.opts, &events), 0);
	tally_events_free(events);
	CHECK_INT(tally_events_parse("cycles", NULL, NULL), -EINVAL);
	/* Without sysfs, a generic event is the kernel's generic encoding (as perf opens it) with no PMU named;
	 * a spec that names a PMU fails with the listing's error. */
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = "/nonexistent/tally-sysfs");
	CHECK_INT(tally_events_parse("cycles", &opts, &events), 0);
	TALLY_OPTS(tally_event_info, info);
	CHECK_INT(tally_events_at(events, 0, &info), 0);
	CHECK_INT(info.attr->type, PERF_TYPE_HARDWARE);
	CHECK(info.pmu == NULL);
	tally_events_free(events);
	CHECK_INT(tally_events_parse("cpu/cycles/", &opts, &events), -ENOENT);
	CHECK_CONTAINS(tally_last_error(), "/nonexistent/tally-sysfs/bus/event_source/devices");
}

static void free_machines(void)
{
	for (int m = 0; m < NR_MACHINES; m++)
		tally_pmus_free(machines[m]);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "table", test_table },
		{ "full_message", test_full_message },
		{ "pfm_names", test_pfm_names },
		{ "bad_arguments", test_bad_arguments },
		{ NULL, NULL },
	};
	int ret = harness_run(cases);
	free_machines();
	return ret;
}
