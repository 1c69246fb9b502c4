/* SPDX-License-Identifier: MIT */
/* Tracepoint specs against a fixture tracefs (tests/fixtures/sysfs/novpmu/kernel/tracing): ids, globs in
 * directory order, modifiers, the errors (unknown tracepoint with a caret, a glob matching nothing,
 * tracefs not mounted or not readable: never "unknown event" nor a modifier error), the debugfs fallback,
 * and this machine's tracefs counting N openat calls and N sleeps on the calling thread. */
#include "fault.h"
#include "fixture_tree.h"
#include "harness.h"
#include "machine/tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <tally/counter.h>
#include <tally/events.h>
#include <time.h>
#include <unistd.h>

static tally_events *parse_on(const char *machine, const char *spec)
{
	char root[4096];
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), machine));
	tally_events *events = NULL;
	if (tally_events_parse(spec, &opts, &events))
		fprintf(stderr, "[%s] %s: %s\n", harness_case, spec, tally_last_error());
	return events;
}

static const struct perf_event_attr *attr_at(const tally_events *events, size_t i, const char **name)
{
	TALLY_OPTS(tally_event_info, info);
	*name = NULL;
	if (tally_events_at(events, i, &info))
		return NULL;
	*name = info.name;
	return info.attr;
}

static void ids_from_the_id_file(void)
{
	static const struct {
		const char *spec;
		uint64_t id;
		bool exclude_kernel;
	} rows[] = {
		{ "sched:sched_switch", 372, false },
		{ "syscalls:sys_enter_openat", 782, false },
		{ "sched:sched_switch:u", 372, true },
		{ "sched:sched_switch//", 372, false },
		{ "ftrace:function", 1, false },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		tally_events *events = parse_on("novpmu", rows[r].spec);
		CHECK(events != NULL);
		if (!events)
			continue;
		const char *name;
		const struct perf_event_attr *a = attr_at(events, 0, &name);
		CHECK_INT(tally_events_count(events), 1);
		CHECK_INT(a->type, PERF_TYPE_TRACEPOINT);
		CHECK_U64(a->config, rows[r].id);
		CHECK_INT(a->exclude_kernel, rows[r].exclude_kernel);
		CHECK_INT(a->exclude_guest, 1);
		CHECK_INT(a->sample_period, 0);
		CHECK_STR(name, rows[r].spec);
		tally_events_free(events);
	}
}

/* The fixture's directory order, as readdir gives it (perf's order): the expected glob expansion. */
static size_t readdir_order(const char *dir, char names[][64], size_t max)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sysfs/novpmu/kernel/tracing/events/%s", fixtures_dir(), dir);
	DIR *d = opendir(path);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < max)
		if (e->d_type == DT_DIR && e->d_name[0] != '.')
			snprintf(names[n++], 64, "%.63s", e->d_name);
	if (d)
		closedir(d);
	return n;
}

static void globs_expand_in_directory_order(void)
{
	char expect[8][64];
	size_t n = readdir_order("syscalls", expect, 8);
	tally_events *events = parse_on("novpmu", "syscalls:sys_*:k");
	CHECK(events != NULL);
	if (!events)
		return;
	CHECK_INT(tally_events_count(events), n);
	for (size_t i = 0; i < n && i < tally_events_count(events); i++) {
		TALLY_OPTS(tally_event_info, info);
		tally_events_at(events, i, &info);
		char want[128];
		snprintf(want, sizeof(want), "syscalls:%s:k", expect[i]);
		CHECK_STR(info.name, want);
		CHECK_INT(info.attr->exclude_user, 1);
		/* each match counts apart, as in perf: an origin of its own */
		CHECK_INT(info.nr_origins, 1);
		CHECK_INT(info.origin, i);
	}
	tally_events_free(events);

	static const struct {
		const char *spec;
		size_t count;
	} rows[] = {
		{ "*:*", 8 },                       /* every tracepoint of the fixture */
		{ "sched:*", 3 },
		{ "sched:sched_s?itch", 1 },
		{ "sched:sched_[sw]*", 2 },
		{ "*:sched_switch", 1 },            /* perf 6.1 fails this at the first system without it */
		{ "sys*:sys_enter_open*", 2 },
		{ "{sched:*}:u", 3 },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		events = parse_on("novpmu", rows[r].spec);
		CHECK(events != NULL);
		if (events)
			CHECK_INT(tally_events_count(events), rows[r].count);
		tally_events_free(events);
	}
}

static void group_modifiers_apply_to_tracepoints(void)
{
	tally_events *events = parse_on("novpmu", "{sched:sched_switch,syscalls:sys_enter_openat:k}:u");
	CHECK(events != NULL);
	if (!events)
		return;
	const char *name;
	const struct perf_event_attr *a = attr_at(events, 0, &name);
	CHECK_INT(a->exclude_kernel, 1);
	CHECK_INT(a->exclude_user, 0);
	a = attr_at(events, 1, &name);
	/* k of its own, then the group's u on top: both levels counted, hv excluded */
	CHECK_INT(a->exclude_kernel, 0);
	CHECK_INT(a->exclude_user, 0);
	CHECK_INT(a->exclude_hv, 1);
	tally_events_free(events);
}

struct error_row {
	const char *machine;
	const char *spec;
	size_t offset;
	const char *message;
};

static void check_errors(const struct error_row *rows, size_t nr)
{
	for (size_t r = 0; r < nr; r++) {
		char root[4096];
		size_t offset = (size_t)-1;
		TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), rows[r].machine),
		           .error_offset = &offset);
		tally_events *events = NULL;
		int ret = tally_events_parse(rows[r].spec, &opts, &events);
		CHECK(ret < 0);
		CHECK(events == NULL);
		CHECK_INT(offset, rows[r].offset);
		CHECK_CONTAINS(tally_last_error(), rows[r].message);
		if (!strstr(tally_last_error(), rows[r].message) || offset != rows[r].offset)
			fprintf(stderr, "  spec %s\n", rows[r].spec);
	}
}

static void errors_say_what_is_wrong(void)
{
	static const struct error_row rows[] = {
		{ "novpmu", "sched:sched_swich", 6, "unknown tracepoint 'sched:sched_swich' — did you mean 'sched:sched_switch'?" },
		{ "novpmu", "sched:nothing_like_it", 6, "'sched:nothing_like_it': system 'sched' has no such event" },
		{ "novpmu", "shed:sched_switch", 0, "no system 'shed' — did you mean 'sched'?" },
		{ "novpmu", "task-clock,sched:nosuch*", 11, "no tracepoint matches 'sched:nosuch*'" },
		{ "novpmu", "nosuch*:*", 0, "no tracepoint matches 'nosuch*:*'" },
		{ "novpmu", "sched:sched_switch/name=x/", 18, "tracepoints take no terms" },
		{ "novpmu", "sched:sched_switch:x", 19, "unknown modifier 'x'" },
		/* the name's first half is not looked up ('sched:sch' of 'sched:sch\xc3\xa9d') */
		{ "novpmu", "sched:sch\xc3\xa9" "d", 9, "unexpected '\xc3\xa9' (U+00E9) in a tracepoint name: names are ASCII" },
		{ "novpmu", "sched:sch\xff", 9, "unexpected byte 0xff (not UTF-8) in a tracepoint name" },
		/* the intel fixture has no kernel/tracing: what a captured tree needs, not a mount command into it */
		{ "intel", "sched:sched_switch", 0, "tracefs is not mounted in the sysfs tree " },
		{ "intel", "cycles,sched:sched_switch:u", 7, "holds its machine's tracepoints as kernel/tracing/events/SYSTEM/EVENT/id" },
		/* known events keep their modifier errors; a lone modifier word stays a modifier */
		{ "novpmu", "task-clock:x", 11, "unknown modifier 'x'" },
		{ "novpmu", "sched:u", 0, "unknown event 'sched'" },
	};
	check_errors(rows, sizeof(rows) / sizeof(rows[0]));
	/* never a modifier error for a tracepoint-looking spec, whatever tracefs holds */
	static const char *const specs[] = { "sched:sched_switch", "syscalls:sys_enter_openat", "a:bcd", "x-y:z.w" };
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		for (int m = 0; m < 2; m++) {
			char root[4096];
			TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = fixture_sysfs(root, sizeof(root), m ? "intel" : "novpmu"));
			tally_events *events = NULL;
			if (tally_events_parse(specs[i], &opts, &events) < 0) {
				CHECK(!strstr(tally_last_error(), "modifier"));
				CHECK(!strstr(tally_last_error(), "unknown event"));
			}
			tally_events_free(events);
		}
	}
}

static void unreadable_tracefs_says_permissions(void)
{
	fault_install();
	fault_reset();
	/* The PMU snapshot is listed first (one opendir); the next opendir is tracefs's events directory. */
	char root[4096];
	tally_pmus *pmus = NULL;
	TALLY_OPTS(tally_pmus_opts, popts, .sysfs_root = fixture_sysfs(root, sizeof(root), "novpmu"));
	CHECK_INT(tally_pmus_load(&popts, &pmus), 0);
	fault_arm(FAULT_OPENDIR, 1, EACCES);
	TALLY_OPTS(tally_parse_opts, opts, .pmus = pmus);
	tally_events *events = NULL;
	CHECK_INT(tally_events_parse("sched:sched_switch", &opts, &events), -EACCES);
	CHECK(fault_fired());
	CHECK_CONTAINS(tally_last_error(), "permission denied");
	CHECK_CONTAINS(tally_last_error(), "mount -o remount,mode=755");
	CHECK_CONTAINS(tally_last_error(), "perf_event_paranoid");
	fault_uninstall();
	tally_pmus_free(pmus);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A tree made here: software PMU, tracefs under debugfs only, sched:sched_switch with the given id text. */
static void make_tree(char *root, size_t size, const char *tracing, const char *id)
{
	snprintf(root, size, "/tmp/tally_tracefs_XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	char path[4096];
	const char *dirs[] = { "bus", "bus/event_source", "bus/event_source/devices",
	                       "bus/event_source/devices/software", "kernel", "kernel/debug", tracing, NULL };
	for (size_t i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/software/type", root);
	write_file(path, "1\n");
	const char *sub[] = { "events", "events/sched", "events/sched/sched_switch", NULL };
	for (size_t i = 0; sub[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", root, tracing, sub[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/%s/events/sched/sched_switch/id", root, tracing);
	write_file(path, id);
}

static void remove_tree(const char *root)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

static void debugfs_fallback_and_garbage_ids(void)
{
	char root[4096];
	make_tree(root, sizeof(root), "kernel/debug/tracing", "372\n");
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = root);
	tally_events *events = NULL;
	CHECK_INT(tally_events_parse("sched:sched_switch", &opts, &events), 0);
	const char *name;
	if (events)
		CHECK_U64(attr_at(events, 0, &name)->config, 372);
	tally_events_free(events);
	remove_tree(root);

	make_tree(root, sizeof(root), "kernel/debug/tracing", "x12\n");
	events = NULL;
	CHECK_INT(tally_events_parse("sched:sched_switch", &opts, &events), -TALLY_ESYSFS);
	CHECK_CONTAINS(tally_last_error(), "expected a tracepoint id, found \"x12\"");
	CHECK_CONTAINS(tally_last_error(), "^~~~");
	remove_tree(root);
}

/* An event with a format and no id file (ftrace:bprint and others on recent kernels): its id is the
 * number of the format's "ID: " line, the second (perf 6.1 reads it there for every event). */
static void id_from_the_format_without_an_id_file(void)
{
	char root[4096], path[4200];
	make_tree(root, sizeof(root), "kernel/tracing", "1\n");
	snprintf(path, sizeof(path), "%s/kernel/tracing/events/sched/sched_switch/id", root);
	CHECK_INT(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/kernel/tracing/events/sched/sched_switch/format", root);
	write_file(path, "name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;\t"
	                 "offset:0;\tsize:2;\tsigned:0;\n");
	TALLY_OPTS(tally_parse_opts, opts, .sysfs_root = root);
	tally_events *events = NULL;
	CHECK_INT(tally_events_parse("sched:sched_switch", &opts, &events), 0);
	const char *name;
	if (events) {
		CHECK_U64(attr_at(events, 0, &name)->type, PERF_TYPE_TRACEPOINT);
		CHECK_U64(attr_at(events, 0, &name)->config, 316);
	}
	tally_events_free(events);
	/* A format whose head has no "ID: " line: said, with the file. */
	write_file(path, "name: sched_switch\nformat:\n");
	events = NULL;
	CHECK_INT(tally_events_parse("sched:sched_switch", &opts, &events), -TALLY_ESYSFS);
	CHECK_CONTAINS(tally_last_error(), "sched_switch/format: no \"ID: \" line in its head");
	remove_tree(root);

	/* The machine's own ftrace:bprint, where it has a format and no id: the format's number. */
	const char *dir = "/sys/kernel/tracing/events/ftrace/bprint";
	char text[512] = "";
	snprintf(path, sizeof(path), "%s/format", dir);
	FILE *f = fopen(path, "r");
	snprintf(path, sizeof(path), "%s/id", dir);
	if (!f || access(path, F_OK) == 0) {
		fprintf(stderr, "SKIP part [%s]: no ftrace:bprint with a format and no id here\n", harness_case);
		if (f)
			fclose(f);
		return;
	}
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	const char *at = strstr(text, "\nID: ");
	CHECK(at != NULL);
	TALLY_OPTS(tally_parse_opts, sys, .sysfs_root = "/sys");
	events = NULL;
	CHECK_INT(tally_events_parse("ftrace:bprint", &sys, &events), 0);
	if (events && at)
		CHECK_U64(attr_at(events, 0, &name)->config, strtoull(at + 5, NULL, 10));
	tally_events_free(events);
}

static int collect(const char *system, const char *event, void *arg)
{
	char (*names)[64] = arg;
	size_t i = 0;
	while (names[i][0])
		i++;
	if (i < 15)
		snprintf(names[i], 64, "%.31s:%.31s", system, event);
	return 0;
}

static void listing_walks_tracefs(void)
{
	char root[4096], names[16][64];
	memset(names, 0, sizeof(names));
	CHECK_INT(tally_tracepoints(fixture_sysfs(root, sizeof(root), "novpmu"), collect, names), 0);
	size_t n = 0;
	while (names[n][0])
		n++;
	CHECK_INT(n, 8);
	/* systems in directory order, each system's events in its directory order */
	char systems[8][64], events[8][64];
	size_t nr_systems = readdir_order("", systems, 8), k = 0;
	for (size_t i = 0; i < nr_systems; i++) {
		size_t nr = readdir_order(systems[i], events, 8);
		for (size_t j = 0; j < nr && k < n; j++, k++) {
			char want[130];
			snprintf(want, sizeof(want), "%s:%s", systems[i], events[j]);
			CHECK_STR(names[k], want);
		}
	}
	CHECK_INT(k, n);
	CHECK_INT(tally_tracepoints(fixture_sysfs(root, sizeof(root), "intel"), collect, names), -ENODEV);
	CHECK_CONTAINS(tally_last_error(), "tracefs is not mounted");
	CHECK_INT(tally_tracepoints(NULL, NULL, NULL), -EINVAL);
}

/* This machine's tracefs, the calling thread: N openat calls and N sleeps counted exactly. */
static void counts_openat_and_sleeps(void)
{
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_openat/id", R_OK) != 0 &&
	    access("/sys/kernel/debug/tracing/events/syscalls/sys_enter_openat/id", R_OK) != 0)
		SKIP("no readable tracefs with syscalls:sys_enter_openat here");
	tally_counter *c = NULL;
	TALLY_OPTS(tally_counter_opts, copts, .sysfs_root = "/sys");
	if (tally_counter_new("syscalls:sys_enter_openat,syscalls:sys_enter_clock_nanosleep", &copts, &c)) {
		fprintf(stderr, "%s\n", tally_last_error());
		CHECK(!"the spec parses");
		return;
	}
	TALLY_OPTS(tally_target, t, .kind = TALLY_TARGET_THREAD);
	if (tally_counter_open(c, &t)) {
		tally_counter_free(c);
		SKIP("cannot open tracepoints here: %s", tally_last_error());
	}
	enum { N = 50 };
	CHECK_INT(tally_counter_start(c), 0);
	for (int i = 0; i < N; i++) {
		int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
		struct timespec ts = { 0, 1000 };
		nanosleep(&ts, NULL);
	}
	CHECK_INT(tally_counter_stop(c), 0);
	struct tally_result r[2];
	CHECK_INT(tally_counter_read(c, r, 2, sizeof(r[0])), 2);
	CHECK_U64(r[0].value, N);
	CHECK_U64(r[1].value, N);
	CHECK_INT(r[0].status, TALLY_STATUS_EXACT);
	tally_counter_close(c);
	tally_counter_free(c);
}

/* A sysfs root whose events folder's path would be PATH_MAX bytes long, one more than the buffer holds:
 * refused as too long (snprintf's n == PATH_MAX is a cut path), never looked up cut. One byte shorter,
 * kernel/tracing's fits and it is the longer debugfs path that is too long. */
static void a_path_one_byte_too_long_is_refused(void)
{
	static const char tail[] = "/kernel/tracing/events";
	char root[PATH_MAX + 1];
	struct tly_tracefs tfs;
	for (int shorter = 0; shorter < 2; shorter++) {
		size_t len = PATH_MAX - (sizeof(tail) - 1) - (size_t)shorter;
		memset(root, 'r', len);
		root[0] = '/';
		root[len] = '\0';
		CHECK_INT(tly_tracefs_find(root, &tfs), -ENAMETOOLONG);
		CHECK_CONTAINS(tally_last_error(), shorter ? ".../kernel/debug/tracing/events" : ".../kernel/tracing/events");
	}
}

int main(void)
{
	static const struct harness_case cases[] = {
		{ "ids_from_the_id_file", ids_from_the_id_file },
		{ "globs_expand_in_directory_order", globs_expand_in_directory_order },
		{ "group_modifiers_apply_to_tracepoints", group_modifiers_apply_to_tracepoints },
		{ "errors_say_what_is_wrong", errors_say_what_is_wrong },
		{ "unreadable_tracefs_says_permissions", unreadable_tracefs_says_permissions },
		{ "debugfs_fallback_and_garbage_ids", debugfs_fallback_and_garbage_ids },
		{ "id_from_the_format_without_an_id_file", id_from_the_format_without_an_id_file },
		{ "listing_walks_tracefs", listing_walks_tracefs },
		{ "counts_openat_and_sleeps", counts_openat_and_sleeps },
		{ "a_path_one_byte_too_long_is_refused", a_path_one_byte_too_long_is_refused },
		{ NULL, NULL },
	};
	return harness_run(cases);
}
