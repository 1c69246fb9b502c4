/* SPDX-License-Identifier: MIT */
/* Breakpoint specs, mem:ADDR[/LEN][:rwx][:mods], read as perf 6.1 reads them (the attrs perf stat -vv
 * prints for the same specs, see test_perf_agreement.sh), their errors, and a write breakpoint on a
 * variable of this test written N times, counted exactly on the calling thread. */
#include "fixture_tree.h"
#include "harness.h"

#include <linux/hw_breakpoint.h>
#include <tally/counter.h>
#include <tally/events.h>

static tally_events *parse(const char *spec)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "novpmu"));
	tally_events *events = NULL;
	if (tally_events_parse(spec, &opts, &events))
		fprintf(stderr, "[%s] %s: %s\n", harness_case, spec, tally_last_error());
	return events;
}

static void attrs_as_perf_sets_them(void)
{
	static const struct {
		const char *spec;
		uint64_t addr, len;
		unsigned type;
		const char *mods; /* modifier letters that reproduce the exclude bits */
		const char *canonical;
	} rows[] = {
		{ "mem:0x1000", 0x1000, 4, HW_BREAKPOINT_RW, "", "mem:0x1000/4:rw" },
		{ "mem:4096", 0x1000, 4, HW_BREAKPOINT_RW, "", "mem:0x1000/4:rw" },
		{ "mem:0x1000:x", 0x1000, sizeof(long), HW_BREAKPOINT_X, "", "mem:0x1000/8:x" },
		{ "mem:0x1000/0:x", 0x1000, sizeof(long), HW_BREAKPOINT_X, "", "mem:0x1000/8:x" },
		{ "mem:0x1000:xw", 0x1000, 4, HW_BREAKPOINT_W | HW_BREAKPOINT_X, "", "mem:0x1000/4:wx" },
		{ "mem:0x1000/8:rw", 0x1000, 8, HW_BREAKPOINT_RW, "", "mem:0x1000/8:rw" },
		{ "mem:0x1000/0x2:w", 0x1000, 2, HW_BREAKPOINT_W, "", "mem:0x1000/2:w" },
		{ "mem:0x1000/3", 0x1000, 3, HW_BREAKPOINT_RW, "", "mem:0x1000/3:rw" }, /* the kernel judges */
		{ "mem:0x1000:w:u", 0x1000, 4, HW_BREAKPOINT_W, "u", "mem:0x1000/4:w:u" },
		{ "mem:0x1000:wu", 0x1000, 4, HW_BREAKPOINT_W, "u", "mem:0x1000/4:w:u" },
		{ "mem:0x1000:ru", 0x1000, 4, HW_BREAKPOINT_R, "u", "mem:0x1000/4:r:u" },
		{ "mem:0x1000:u", 0x1000, 4, HW_BREAKPOINT_RW, "u", "mem:0x1000/4:rw:u" },
		{ "mem:0x1000u", 0x1000, 4, HW_BREAKPOINT_RW, "u", "mem:0x1000/4:rw:u" },
		{ "mem:0x1000/8u", 0x1000, 8, HW_BREAKPOINT_RW, "u", "mem:0x1000/8:rw:u" },
		{ "mem:0x1000/2:w:k", 0x1000, 2, HW_BREAKPOINT_W, "k", "mem:0x1000/2:w:k" },
		{ "mem:0xffffffffffffffff:rwx", UINT64_MAX, 4, 7, "", "mem:0xffffffffffffffff/4:rwx" },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		tally_events *events = parse(rows[r].spec);
		CHECK(events != NULL);
		if (!events)
			continue;
		TALLY_OPTS(tally_event_info, info);
		CHECK_INT(tally_events_count(events), 1);
		tally_events_at(events, 0, &info);
		const struct perf_event_attr *a = info.attr;
		CHECK_INT(a->type, PERF_TYPE_BREAKPOINT);
		CHECK_U64(a->bp_addr, rows[r].addr);
		CHECK_U64(a->bp_len, rows[r].len);
		CHECK_INT(a->bp_type, rows[r].type);
		CHECK_INT(a->config, 0);
		CHECK_INT(a->sample_period, 0);
		bool user = strchr(rows[r].mods, 'u'), kernel = strchr(rows[r].mods, 'k');
		CHECK_INT(a->exclude_kernel, user);
		CHECK_INT(a->exclude_user, kernel);
		CHECK_INT(a->exclude_guest, !kernel);
		CHECK_STR(info.name, rows[r].spec);
		CHECK_STR(info.pmu, "breakpoint");
		CHECK_STR(info.canonical, rows[r].canonical);
		tally_events_free(events);
	}
	/* group modifiers reach breakpoints as any member */
	tally_events *events = parse("{mem:0x1000:w,mem:0x2000:r}:u");
	CHECK(events && tally_events_count(events) == 2);
	for (size_t i = 0; events && i < 2; i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(events, i, &info);
		CHECK_INT(info.attr->exclude_kernel, 1);
		CHECK_INT(info.leader, i == 0);
	}
	tally_events_free(events);
}

static void errors_never_misread_as_modifiers(void)
{
	static const struct {
		const char *spec;
		size_t offset;
		const char *message;
	} rows[] = {
		{ "mem:", 4, "expected the address to watch (decimal or 0x hex)" },
		{ "mem:foo", 4, "expected the address to watch" },
		{ "mem:0x1000/", 11, "expected the length in bytes" },
		{ "mem:0xffffffffffffffffff", 4, "the address to watch does not fit in 64 bits" },
		{ "mem:0x1000:rr", 12, "access 'r' is given twice" },
		{ "mem:0x1000:wxw", 13, "access 'w' is given twice" },
		{ "mem:0X1000", 5, "unexpected 'X' in a breakpoint: mem:ADDR[/LEN][:rwx][:modifiers]" },
		{ "mem:0x1000:z", 11, "expected access letters (r w x) or modifiers after ':', found 'z'" },
		{ "mem:0x1000:rwxr", 14, "unexpected 'r' in a breakpoint" },
		{ "mem:0x1000/8/8", 12, "unexpected '/' in a breakpoint" },
		{ "mem:0x1000:S", 11, "modifier 'S' (read group members on each sample) is for sampling" },
		/* a character, not its first byte ('\xef'), as the other forms name it */
		{ "mem:0x1000\xef\xbc\x8cpage-faults", 10, "unexpected '\xef\xbc\x8c' (U+FF0C, a look-alike of ',') in a breakpoint" },
		{ "mem:0x1000\x01", 10, "unexpected control character 0x01 in a breakpoint" },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char root[4096];
		size_t offset = (size_t)-1;
		TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), "novpmu"),
		           .error_offset = &offset);
		tally_events *events = NULL;
		CHECK_INT(tally_events_parse(rows[r].spec, &opts, &events), -TALLY_ESPEC);
		CHECK_INT(offset, rows[r].offset);
		CHECK_CONTAINS(tally_last_error(), rows[r].message);
		if (offset != rows[r].offset || !strstr(tally_last_error(), rows[r].message))
			fprintf(stderr, "  spec %s\n", rows[r].spec);
	}
}

/* Written through a volatile pointer so that each iteration is one store; aligned for every length. */
static volatile uint64_t watched __attribute__((aligned(8)));

/* Counts n writes to watched with the breakpoint "mem:&watched" + rest. */
static void count_writes(const char *rest, unsigned n, uint64_t expect)
{
	char spec[128];
	snprintf(spec, sizeof(spec), "mem:%#llx%s", (unsigned long long)(uintptr_t)&watched, rest);
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, copts, .sysfs_root = "/sys");
	if (tally_counter_new(spec, &copts, &c)) {
		fprintf(stderr, "%s: %s\n", spec, tally_last_error());
		CHECK(!"the spec parses");
		return;
	}
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
	if (tally_counter_open(c, &t)) {
		fprintf(stderr, "SKIP-worthy: %s: %s\n", spec, tally_last_error());
		harness_skipped++;
		tally_counter_free(c);
		return;
	}
	CHECK_INT(tally_counter_start(c), 0);
	for (unsigned i = 0; i < n; i++)
		watched = i;
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r;
	CHECK_INT(tally_counter_read(c, &r, 1, sizeof(r)), 1);
	CHECK_U64(r.value, expect);
	if (r.value != expect)
		fprintf(stderr, "  spec %s\n", spec);
	tally_counter_close(c);
	tally_counter_free(c);
}

static void write_breakpoint_counts_each_write(void)
{
	enum { N = 1000 };
	count_writes(":w", N, N);
	count_writes("/8:w", N, N);
	count_writes("/1:w:u", N, N);
	count_writes("/2:wu", N, N);
	/* the writes are the user's: a kernel-only breakpoint sees none */
	count_writes(":w:k", N, 0);
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "attrs_as_perf_sets_them", attrs_as_perf_sets_them },
		{ "errors_never_misread_as_modifiers", errors_never_misread_as_modifiers },
		{ "write_breakpoint_counts_each_write", write_breakpoint_counts_each_write },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
