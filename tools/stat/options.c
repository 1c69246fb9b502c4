/* SPDX-License-Identifier: MIT */
/* tally stat's options: one table (lib/parse_options.h) that parses them and prints the usage (which
 * tests/test_man_options.sh checks tally(1) against), then the checks of their combinations. */
#include "stat/options.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tally/common.h>

#include "lib/id_list.h"
#include "lib/parse_options.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* perf refuses intervals under 10 ms: the reads themselves would dominate them. */
#define MIN_INTERVAL_MS 10
/* -I, -D and --duration end up as poll(2) timeouts, an int of milliseconds: longer ones are refused
 * rather than wrapped (a cast of a larger double to int is undefined, and poll took it as "forever").
 * Written out, for the messages. */
#define MAX_WAIT_MS 2147483647
#define MAX_DURATION_S 2147483
_Static_assert(MAX_WAIT_MS == INT_MAX && MAX_DURATION_S == INT_MAX / 1000, "poll's int of milliseconds");
/* Ids above this are not pids any kernel hands out (PID_MAX_LIMIT is 4M). */
#define MAX_ID (1 << 22)
/* OPT_SET_INT stores an int. */
_Static_assert(sizeof(enum stat_aggregation) == sizeof(int), "-A and --per-* set an int");

#define PROG "tally stat"

static enum parse_result usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static enum parse_result usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	parse_options_verror(PROG, fmt, ap);
	va_end(ap);
	return PARSE_ERROR;
}

static bool append_spec(struct stat_options *o, const char *spec)
{
	const char **specs = realloc(o->specs, (o->nr_specs + 1) * sizeof(*specs));
	if (!specs)
		return false;
	o->specs = specs;
	o->specs[o->nr_specs++] = spec;
	size_t old = o->events ? strlen(o->events) : 0, add = strlen(spec);
	char *joined = realloc(o->events, old + add + 2);
	if (!joined)
		return false;
	if (old)
		joined[old++] = ',';
	memcpy(joined + old, spec, add + 1);
	o->events = joined;
	return true;
}

static bool parse_list(const char *text, int **list, size_t *n)
{
	free(*list);
	/* Id 0 would make the kernel count the caller, tally itself (perf_event_open's pid 0): never what
	 * -p 0 means. */
	long count = id_list_parse(text, 1, MAX_ID, list);
	if (count < 0)
		return false;
	*n = (size_t)count;
	return true;
}

/* A CPU list as the library reads one (tally_cpus_parse), so that -C and --pin accept what it does. */
static bool parse_cpus(const char *text, tally_cpus **cpus)
{
	tally_cpus_free(*cpus);
	*cpus = NULL;
	return tally_cpus_parse(text, cpus) == 0;
}

/* -G and --for-each-cgroup, perf's rules: cgroup events are per CPU, so the target is -a or -C. */
static enum parse_result check_cgroups(const struct stat_options *o, bool system_wide)
{
	const char *which = o->nr_cgroup_names ? "-G" : "--for-each-cgroup";
	if (!o->nr_cgroup_names && !o->for_each_cgroup)
		return PARSE_OK;
	if (o->nr_cgroup_names && o->for_each_cgroup)
		return usage_error("-G and --for-each-cgroup cannot be used together");
	if (!system_wide)
		return usage_error("%s counts per CPU (the kernel's cgroup events): it needs -a or -C", which);
	if (o->aggregation != AGGR_GLOBAL && o->aggregation != AGGR_NONE)
		return usage_error("%s shows each cgroup's line, or with -A each CPU's: not with --per-*", which);
	/* A line of -G is one event (one PMU's) in one cgroup: there is no sum of PMUs to show apart. */
	if (o->per_pmu)
		return usage_error("%s: not with --per-pmu (each line is one event, on one PMU, in one cgroup "
		                   "already)", which);
	if (o->metric_only)
		return usage_error("%s: not with --metric-only (the metrics are printed per cgroup after the "
		                   "events)", which);
	return PARSE_OK;
}

/* One -G: its names appended to those of the earlier ones (an empty name included: the event in its
 * place counts everything, perf's -G a,,b). */
static bool append_cgroups(struct stat_options *o, const char *list)
{
	if (!o->nr_cgroup_names)
		o->nr_specs_before_g = strchr(list, ',') ? 0 : o->nr_specs;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		char **names = realloc(o->cgroup_names, (o->nr_cgroup_names + 1) * sizeof(*names));
		if (!names)
			return false;
		o->cgroup_names = names;
		if (!(names[o->nr_cgroup_names] = strndup(p, len)))
			return false;
		size_t *specs = realloc(o->cgroup_name_specs, (o->nr_cgroup_names + 1) * sizeof(*specs));
		if (!specs) {
			free(names[o->nr_cgroup_names]);
			return false;
		}
		o->cgroup_name_specs = specs;
		specs[o->nr_cgroup_names] = o->nr_specs;
		o->nr_cgroup_names++;
		p += len;
		if (!*p)
			return true;
	}
}

/* --no-multiplex runs the command again for each set of groups (group_sets.c): only a command it counts
 * can be run again, and only what covers one run combines. */
static enum parse_result check_no_multiplex(const struct stat_options *o, bool other_target)
{
	if (!o->argv)
		return usage_error("--no-multiplex runs a command once per set of groups: give the command to run");
	if (other_target)
		return usage_error("--no-multiplex runs the counted command again: not with -a, -C, -p or -t, whose "
		                   "tasks cannot be run again (count a command of your own instead)");
	if (o->repeat > 1)
		return usage_error("--no-multiplex and -r: not supported (each runs the command several times; "
		                   "choose one)");
	if (o->interval_ms)
		return usage_error("--no-multiplex and -I: not supported (the intervals of different runs do not "
		                   "line up)");
	if (o->control_fd >= 0)
		return usage_error("--no-multiplex and --control: not supported (one control stream, several runs)");
	if (o->regions)
		return usage_error("--no-multiplex and --regions: not supported (each run would write its regions)");
	return PARSE_OK;
}

/* The checks of combinations, once every flag is known. */
static enum parse_result check_combinations(const struct stat_options *o)
{
	bool system_wide = o->all_cpus || o->cpu_list;
	bool attached = o->nr_pids || o->nr_tids;
	if (o->json && o->separator)
		return usage_error("-j and -x are two output formats: choose one");
	if (o->csv_header && !o->separator)
		return usage_error("--csv-header needs -x");
	if (o->output && o->log_fd >= 0)
		return usage_error("-o and --log-fd name two places for the results: choose one");
	if (o->append && !o->output && o->log_fd < 0)
		return usage_error("--append needs -o FILE");
	if (attached && system_wide)
		return usage_error("-p/-t and -a/-C name two different targets: choose one");
	if (o->nr_pids && o->nr_tids)
		return usage_error("-p and -t: choose one");
	if (o->metric_only && !o->metrics)
		return usage_error("--metric-only prints metrics: name them with -M (tally list --metrics)");
	/* Its columns are the totals' metrics: parts or PMUs would be silently left out. */
	if (o->metric_only && (o->aggregation != AGGR_GLOBAL || o->per_pmu))
		return usage_error("--metric-only prints the totals' metrics: not with -A, --per-* or --per-pmu");
	if (o->interval_count && !o->interval_ms)
		return usage_error("--interval-count needs -I");
	if (o->repeat > 1 && !o->argv)
		return usage_error("-r needs a command to run again");
	if (o->repeat > 1 && o->interval_ms)
		return usage_error("-r and -I together are not supported");
	if (o->pin && !o->argv)
		return usage_error("--pin needs a command to pin");
	if (o->duration > 0 && o->argv)
		return usage_error("--duration is for -p/-t/-a/-C without a command");
	if (o->aggregation == AGGR_NONE && !system_wide)
		return usage_error("-A needs -a or -C (one figure per CPU)");
	/* The kernel sums a command's threads and children into one count (inherit), and perf 6.1 refuses
	 * the mode there too; with -a, as perf 6.1, every thread of the system that exists at the start
	 * (TALLY_TARGET_ALL_THREADS). A CPU list has no threads of its own to split by. */
	if (o->aggregation == AGGR_THREAD && !attached && !o->all_cpus)
		return usage_error("--per-thread counts the threads of existing processes: it needs -p, -t or -a "
		                   "(a command's threads are counted together, as in perf)");
	static const char *const per_unit[] = { [AGGR_CORE] = "--per-core", [AGGR_SOCKET] = "--per-socket",
		                                        [AGGR_DIE] = "--per-die", [AGGR_NODE] = "--per-node",
		                                        [AGGR_CACHE] = "--per-cache" };
	if (o->aggregation >= AGGR_CORE && !system_wide)
		return usage_error("%s needs -a or -C", per_unit[o->aggregation]);
	if ((o->delay_ms || o->start_disabled) && !o->argv)
		return usage_error("-D delays the start after the command starts: it needs a command");
	/* Its commands are awaited beside the signals: a -p or -t target's exit is awaited on its own. */
	if (o->control_fd >= 0 && !o->argv && attached)
		return usage_error("--control with -p or -t needs a command to count for");
	if (o->start_disabled && o->control_fd < 0)
		return usage_error("-D -1 starts with the events disabled: it needs --control to enable them");
	if (o->timeout_ms && o->interval_ms)
		return usage_error("--timeout and -I together are not supported (as in perf)");
	if (o->timeout_ms && o->duration > 0)
		return usage_error("--timeout and --duration both set how long: choose one");
	if (o->table && o->repeat < 2)
		return usage_error("--table shows each run of -r: it needs -r 2 or more");
	return o->no_multiplex ? check_no_multiplex(o, system_wide || attached) : check_cgroups(o, system_wide);
}

/* Adds a comma list to -M's: each -M adds its own, as each of perf's does, and --topdown its groups. */
static bool append_metrics(struct stat_options *o, const char *list)
{
	char *joined;
	if (asprintf(&joined, "%s%s%s", o->metrics ? o->metrics : "", o->metrics ? "," : "", list) < 0)
		return false;
	free(o->metrics);
	o->metrics = joined;
	return true;
}

/* --topdown and --td-level: perf's metric groups TopdownL1 (and TopdownL2) added to -M's list. */
static bool add_topdown_groups(struct stat_options *o)
{
	return append_metrics(o, o->topdown_levels >= 2 ? "TopdownL1,TopdownL2" : "TopdownL1");
}

/* A descriptor number of --control fd:CTL[,ACK]. */
static bool parse_fd(const char *text, size_t len, int *fd)
{
	char number[16];
	unsigned v;
	if (len == 0 || len >= sizeof(number))
		return false;
	memcpy(number, text, len);
	number[len] = '\0';
	if (!parse_options_unsigned(number, 0, INT_MAX, &v) || fcntl((int)v, F_GETFD) < 0)
		return false;
	*fd = (int)v;
	return true;
}

/* A FIFO of --control fifo:CTL[,ACK], opened read-write as perf opens it: the open does not wait for the
 * other end, and the reader never sees end-of-file when a writer closes. */
static bool open_fifo(const char *path, size_t len, int *fd)
{
	char *name = strndup(path, len);
	*fd = name ? open(name, O_RDWR | O_NONBLOCK | O_CLOEXEC) : -1;
	free(name);
	return *fd >= 0;
}

/* --control fd:CTL[,ACK] or fifo:CTL[,ACK], perf's syntax. */
static enum parse_result parse_control(struct stat_options *o, const char *arg)
{
	bool fifo = strncmp(arg, "fifo:", 5) == 0;
	if (!fifo && strncmp(arg, "fd:", 3) != 0)
		return usage_error("--control wants fd:CTL[,ACK] or fifo:CTL[,ACK], not '%s'", arg);
	if (o->control_fd >= 0)
		return usage_error("--control: give it once");
	const char *ctl = arg + (fifo ? 5 : 3), *comma = strchr(ctl, ',');
	size_t ctl_len = comma ? (size_t)(comma - ctl) : strlen(ctl);
	bool (*take)(const char *, size_t, int *) = fifo ? open_fifo : parse_fd;
	o->control_fifo = fifo;
	if (!take(ctl, ctl_len, &o->control_fd) || (comma && !take(comma + 1, strlen(comma + 1), &o->ack_fd)))
		return usage_error("--control %s: %s", arg,
		                   fifo ? tally_strerror(errno) : "not an open file descriptor");
	return PARSE_OK;
}

/* The callbacks of the table's entries: dest is the struct stat_options being filled. */

static enum parse_result on_event(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	return append_spec(dest, arg) ? PARSE_OK : usage_error("out of memory");
}

static enum parse_result on_metrics(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	return append_metrics(dest, arg) ? PARSE_OK : usage_error("out of memory");
}

static enum parse_result on_json_format(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	struct stat_options *o = dest;
	if (strcmp(arg, "perf") != 0 && strcmp(arg, "tally") != 0)
		return PARSE_WANTS;
	o->perf_json = strcmp(arg, "perf") == 0;
	o->json = true;
	return PARSE_OK;
}

/* perf's -j: its JSON lines. tally's -j is its own document. */
static enum parse_result on_json_output(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt, (void)arg;
	struct stat_options *o = dest;
	o->json = o->perf_json = true;
	return PARSE_OK;
}

static enum parse_result on_cgroup(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	struct stat_options *o = dest;
	if (!o->nr_specs)
		return usage_error("-G names the cgroups of the -e events before it: give them first");
	return append_cgroups(o, arg) ? PARSE_OK : usage_error("out of memory");
}

/* -p and -t. */
static enum parse_result on_ids(const struct option_entry *opt, void *dest, const char *arg)
{
	struct stat_options *o = dest;
	bool pids = opt->short_name == 'p';
	return parse_list(arg, pids ? &o->pids : &o->tids, pids ? &o->nr_pids : &o->nr_tids) ? PARSE_OK : PARSE_WANTS;
}

static enum parse_result on_cpu(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	tally_cpus *cpus = NULL;
	bool valid = parse_cpus(arg, &cpus);
	tally_cpus_free(cpus);
	if (!valid)
		return PARSE_WANTS;
	((struct stat_options *)dest)->cpu_list = arg;
	return PARSE_OK;
}

static enum parse_result on_pin(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	return parse_cpus(arg, &((struct stat_options *)dest)->pin) ? PARSE_OK : PARSE_WANTS;
}

/* --per-cache[=L2]: "L1" to "L4" or "1" to "4"; none: the highest a CPU has. */
static enum parse_result on_per_cache(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	struct stat_options *o = dest;
	o->aggregation = AGGR_CACHE;
	o->cache_level = 0;
	if (arg && !((arg[0] == 'L' || arg[0] == 'l') && arg[1] >= '1' && arg[1] <= '4' && !arg[2]) &&
	    !(arg[0] >= '1' && arg[0] <= '4' && !arg[1]))
		return PARSE_WANTS;
	if (arg)
		o->cache_level = arg[strlen(arg) - 1] - '0';
	return PARSE_OK;
}

static enum parse_result on_topdown(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt, (void)arg;
	struct stat_options *o = dest;
	if (!o->topdown_levels)
		o->topdown_levels = 1;
	return PARSE_OK;
}

static enum parse_result on_td_level(const struct option_entry *opt, void *dest, const char *arg)
{
	unsigned level;
	if (!parse_options_unsigned(arg, opt->min, opt->max, &level))
		return PARSE_WANTS;
	((struct stat_options *)dest)->topdown_levels = level ? level : TOPDOWN_MAX_LEVEL;
	return PARSE_OK;
}

static enum parse_result on_detailed(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt, (void)arg;
	struct stat_options *o = dest;
	/* perf takes -dddd and more as -ddd. */
	if (o->detailed < DETAILED_MAX_LEVEL)
		o->detailed++;
	return PARSE_OK;
}

/* --all-user and --all-kernel: the entry's value is the space. */
static enum parse_result on_space(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)arg;
	struct stat_options *o = dest;
	enum tally_space space = (enum tally_space)opt->value;
	if (o->space != TALLY_SPACE_AS_WRITTEN && o->space != space)
		return usage_error("--all-user and --all-kernel: choose one");
	o->space = space;
	return PARSE_OK;
}

static enum parse_result on_log_fd(const struct option_entry *opt, void *dest, const char *arg)
{
	unsigned fd;
	if (!parse_options_unsigned(arg, opt->min, opt->max, &fd))
		return PARSE_WANTS;
	((struct stat_options *)dest)->log_fd = (int)fd;
	return PARSE_OK;
}

/* -D MS, or -D -1: start disabled. */
static enum parse_result on_delay(const struct option_entry *opt, void *dest, const char *arg)
{
	struct stat_options *o = dest;
	o->start_disabled = strcmp(arg, "-1") == 0;
	if (!o->start_disabled && !parse_options_unsigned(arg, opt->min, opt->max, &o->delay_ms))
		return PARSE_WANTS;
	return PARSE_OK;
}

static enum parse_result on_timeout(const struct option_entry *opt, void *dest, const char *arg)
{
	struct stat_options *o = dest;
	if (!parse_options_unsigned(arg, opt->min, opt->max, &o->timeout_ms))
		return PARSE_WANTS;
	/* perf's warning: tally's own start and reads are a large part of so short a run. */
	if (o->timeout_ms < 100)
		fputs("tally stat: --timeout under 100 ms: the overhead percentage could be high in some cases\n",
		      stderr);
	return PARSE_OK;
}

static enum parse_result on_cputype(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	struct stat_options *o = dest;
	/* perf's "core" and "atom" name the PMUs cpu_core and cpu_atom. */
	const char *type = strncmp(arg, "cpu_", 4) == 0 ? arg + 4 : arg;
	if (!*type || strchr(type, '/') || strchr(type, ','))
		return PARSE_WANTS;
	free(o->cputype);
	if (asprintf(&o->cputype, "cpu_%s", type) < 0) {
		o->cputype = NULL;
		return usage_error("out of memory");
	}
	return PARSE_OK;
}

static enum parse_result on_control(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	return parse_control(dest, arg);
}

static enum parse_result on_duration(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt;
	struct stat_options *o = dest;
	char *end;
	errno = 0;
	o->duration = strtod(arg, &end);
	/* ERANGE: beyond a double (1e309 reads as inf) or below its precision. */
	if (errno || *end || end == arg || !(o->duration > 0) || !(o->duration <= MAX_DURATION_S))
		return PARSE_WANTS;
	return PARSE_OK;
}

/* The perf stat options whose hardware tally does not count: refused, with the reason (the entry's
 * .wants). */
static enum parse_result refuse_hardware_option(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)dest, (void)arg;
	char name[64];
	if (opt->short_name)
		snprintf(name, sizeof(name), "-%c/--%s", opt->short_name, opt->long_name);
	else
		snprintf(name, sizeof(name), "--%s", opt->long_name);
	return usage_error("%s is not supported: %s (see \"Differences from perf stat\" in tally(1))", name,
	                   opt->wants);
}

static enum parse_result on_help(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt, (void)dest, (void)arg;
	/* One buffer for the whole text (more than the 4 KiB of a file's default), so that a write that fails
	 * fails at the final flush, which says why (ENOSPC), not inside fputs, whose errno stdio forgets.
	 * Nothing was written to stdout before; glibc ignores the size without a buffer. */
	static char usage_buffer[1 << 14];
	setvbuf(stdout, usage_buffer, _IOFBF, sizeof(usage_buffer));
	options_print_stat_usage(stdout);
	return PARSE_DONE;
}

static enum parse_result on_version(const struct option_entry *opt, void *dest, const char *arg)
{
	(void)opt, (void)dest, (void)arg;
	printf("tally %s\n", tally_version());
	return PARSE_DONE;
}

#define F(field) offsetof(struct stat_options, field)
#define CPU_LIST_WANTED "a CPU list such as 0-3,8"

/* Every option of tally stat, in the usage's order; those without help are accepted (or refused) quietly. */
static const struct option_entry stat_entries[] = {
	{ OPT_CALLBACK('e', "event", on_event, "events to count (repeatable; perf's syntax)"), OPT_ARG("SPEC"),
	  .needs = "an event spec" },
	{ OPT_CALLBACK('M', "metrics", on_metrics, "metrics or metric groups to compute (perf's names: IPC,TopdownL1;\n"
	                                           "tally list --metrics); their events are counted as groups"),
	  OPT_ARG("LIST"), .needs = "a metric or metric group name (tally list --metrics)" },
	OPT_BOOLEAN(0, "drilldown", F(drilldown), "the vendor table's top-down metrics (levels 1 to 6, or\n"
	                                          "--td-level's) as a tree: a node's children under it where it is\n"
	                                          "over its threshold, '>' on the bottleneck path"),
	OPT_BOOLEAN(0, "metric-only", F(metric_only), "only the -M metrics (without -M and -e: perf's Default ones),\n"
	                                              "one column each"),
	{ OPT_CALLBACK(0, "topdown", on_topdown, "Intel's top-down level 1 (-M TopdownL1: retiring, bad speculation,\n"
	                                         "frontend bound, backend bound)") },
	{ OPT_CALLBACK(0, "td-level", on_td_level, "top-down levels 1 to N (2: TopdownL2 too; 0: the deepest; 3 to 6\n"
	                                           "from a vendor table)"),
	  OPT_ARG("N"), .min = 0, .max = TOPDOWN_MAX_LEVEL,
	  .wants = "a level from 0 to " STR(TOPDOWN_MAX_LEVEL) " (0: the deepest)" },
	{ OPT_CALLBACK('d', "detailed", on_detailed, "add perf's detailed events: -d the L1 data and last-level cache\n"
	                                             "loads and misses, -dd the L1 instruction cache and TLBs too,\n"
	                                             "-ddd the L1 data cache prefetches too") },
	OPT_BOOLEAN('n', "null", F(null_run), "no default events: the elapsed time only"),
	{ OPT_CALLBACK(0, "all-user", on_space, "every event counts in user space only (as perf's)"),
	  .value = TALLY_SPACE_USER },
	{ OPT_CALLBACK(0, "all-kernel", on_space, "every event counts in kernel space only (as perf's)"),
	  .value = TALLY_SPACE_KERNEL },
	OPT_UNSIGNED('r', "repeat", F(repeat), "N", 1, 100000, "a count from 1 to 100000",
	             "run the command N times: mean and relative stddev"),
	OPT_BOOLEAN(0, "no-multiplex", F(no_multiplex), "a command: run it once per set of groups that the PMU\n"
	                                                "counts together, so that nothing is multiplexed and\n"
	                                                "each metric comes from one run (reproducible workloads)"),
	OPT_BOOLEAN('S', "sync", F(sync), "sync(2) before each run, so that earlier writes are not counted"),
	OPT_UNSIGNED('I', "interval-print", F(interval_ms), "MS", MIN_INTERVAL_MS, MAX_WAIT_MS,
	             "whole milliseconds from " STR(MIN_INTERVAL_MS) " to " STR(MAX_WAIT_MS),
	             "print counts every MS milliseconds (deltas)"),
	OPT_UNSIGNED(0, "interval-count", F(interval_count), "N", 1, UINT_MAX, "a count of 1 or more",
	             "with -I: stop after N intervals"),
	OPT_BOOLEAN(0, "interval-clear", F(interval_clear), "with -I: clear the terminal before each interval"),
	OPT_BOOLEAN(0, "summary", F(summary), "with -I: the totals after the intervals"),
	OPT_BOOLEAN(0, "no-csv-summary", F(no_csv_summary),
	            "with -x and --summary: no \"summary\" field on the totals"),
	OPT_STRING('x', "field-separator", F(separator), "S", "a separator",
	           "CSV output with separator S (perf's field order)"),
	OPT_BOOLEAN(0, "csv-header", F(csv_header), "with -x, a header line first"),
	OPT_BOOLEAN('j', "json", F(json), "one JSON document (see docs/json-schema.json)"),
	{ OPT_CALLBACK(0, "json-format", on_json_format,
	               "tally (the -j document) or perf (perf stat -j's object per line)"),
	  OPT_ARG("FMT"), .wants = "tally or perf" },
	{ OPT_CALLBACK(0, "json-output", on_json_output,
	               "perf's JSON, an object per line (--json-format=perf; perf's -j)") },
	OPT_BOOLEAN('B', "no-big-num", F(no_big_num), "no thousands separators in the table"),
	OPT_CLEAR(0, "big-num", F(no_big_num), NULL),
	OPT_STRING('o', "output", F(output), "FILE", NULL, "results to FILE instead of stderr"),
	OPT_BOOLEAN(0, "append", F(append), "append to the -o FILE"),
	{ OPT_CALLBACK(0, "log-fd", on_log_fd, "results to the open descriptor FD instead of stderr"), OPT_ARG("FD"),
	  .min = 1, .max = INT_MAX, .wants = "the number of an open file descriptor (1 or more)" },
	{ OPT_CALLBACK('p', "pid", on_ids, "count existing processes (comma list)"), OPT_ARG("PIDS"),
	  .wants = "a comma list of process ids (1 or more)" },
	{ OPT_CALLBACK('t', "tid", on_ids, "count existing threads (comma list)"), OPT_ARG("TIDS"),
	  .wants = "a comma list of thread ids (1 or more)" },
	OPT_BOOLEAN('a', "all-cpus", F(all_cpus), "count every CPU, system wide"),
	{ OPT_CALLBACK('C', "cpu", on_cpu, "count these CPUs, system wide (e.g. 0-3,8)"), OPT_ARG("LIST"),
	  .wants = CPU_LIST_WANTED },
	{ OPT_CALLBACK('G', "cgroup", on_cgroup, "the preceding -e events count only in these cgroups, one name\n"
	                                         "per event in order (one name: every event before it); -a or -C"),
	  OPT_ARG("NAMES") },
	OPT_STRING(0, "for-each-cgroup", F(for_each_cgroup), "NAMES", "cgroup names",
	           "every event once per cgroup (with -a or -C)"),
	OPT_SET_INT('A', "no-aggr", F(aggregation), AGGR_NONE, "one figure per CPU"),
	OPT_SET_INT(0, "per-thread", F(aggregation), AGGR_THREAD, "one figure per thread (with -p or -t)"),
	OPT_SET_INT(0, "per-core", F(aggregation), AGGR_CORE, "one figure per core (where topology is readable)"),
	OPT_SET_INT(0, "per-socket", F(aggregation), AGGR_SOCKET, "one figure per socket (package)"),
	OPT_SET_INT(0, "per-die", F(aggregation), AGGR_DIE, "one figure per die"),
	OPT_SET_INT(0, "per-node", F(aggregation), AGGR_NODE, "one figure per NUMA node"),
	{ OPT_CALLBACK(0, "per-cache", on_per_cache, "one figure per cache (L1 to L4; default the highest level)"),
	  OPT_OPTIONAL_ARG("[=L2]"), .wants = "a cache level L1 to L4" },
	OPT_BOOLEAN(0, "no-merge", F(no_merge), "an event counted on several PMUs (cpu_core and cpu_atom,\n"
	                                        "uncore_imc/...) one line per PMU, not summed"),
	OPT_BOOLEAN(0, "per-pmu", F(per_pmu), "the sum, then each PMU's part on a line of its own"),
	OPT_BOOLEAN('i', "no-inherit", F(no_inherit), "children of the command are not counted"),
	OPT_BOOLEAN(0, "no-scale", F(no_scale), "raw counts, not scaled for multiplexing"),
	OPT_CLEAR(0, "scale", F(no_scale), "counts scaled for multiplexing (the default)"),
	/* tally sums a hybrid event's PMUs unless --no-merge: perf 6.1's --hybrid-merge is its default. */
	OPT_CLEAR(0, "hybrid-merge", F(no_merge), "accepted: a hybrid event's PMUs are summed already (--no-merge)"),
	/* perf's: for the vendor tables' metrics; the catalogue's metrics keep one group each. */
	OPT_BOOLEAN(0, "metric-no-group", F(metric_no_group), "the vendor metrics' events not in groups (each\n"
	                                                      "counted on its own: ratios of several windows)"),
	OPT_BOOLEAN(0, "metric-no-merge", F(metric_no_merge), "no group shared between vendor metrics"),
	/* Accepted, changing nothing: perf's flag changes only events with the 'percore' term, which tally's
	 * parser refuses (--per-core gives each core's sum). */
	OPT_NOOP(0, "percore-show-thread", "accepted, no effect: for perf's 'percore' events, which tally\n"
	                                   "refuses"),
	{ OPT_CALLBACK('D', "delay", on_delay, "start counting MS milliseconds after the command starts\n"
	                                       "(-1: start disabled, for --control's \"enable\")"),
	  OPT_ARG("MS"), .min = 0, .max = MAX_WAIT_MS, .wants = "whole milliseconds from 0 to " STR(MAX_WAIT_MS) },
	{ OPT_CALLBACK(0, "control", on_control, "\"enable\" and \"disable\" the events by lines read from CTL;\n"
	                                         "\"ack\" is written to ACK after each (perf's protocol)"),
	  OPT_ARG("fd:CTL[,ACK] | fifo:CTL[,ACK]") },
	{ OPT_CALLBACK(0, "timeout", on_timeout, "end the command (SIGTERM) after MS milliseconds (10 or more)"),
	  OPT_ARG("MS"), .min = MIN_INTERVAL_MS, .max = MAX_WAIT_MS,
	  .wants = "whole milliseconds from " STR(MIN_INTERVAL_MS) " to " STR(MAX_WAIT_MS) },
	OPT_STRING(0, "pre", F(pre_cmd), "CMD", NULL, "run the shell command CMD before each run"),
	OPT_STRING(0, "post", F(post_cmd), "CMD", NULL, "run the shell command CMD after each run"),
	OPT_BOOLEAN(0, "table", F(table), "with -r: each run's elapsed time, as perf's table"),
	{ OPT_CALLBACK(0, "cputype", on_cputype, "hybrid CPUs: the events count only on cpu_TYPE (core or atom)"),
	  OPT_ARG("TYPE"), .wants = "a hybrid CPU type such as core or atom" },
	OPT_BOOLEAN('q', "quiet", F(quiet), "print nothing (the exit status remains)"),
	OPT_BOOLEAN('v', "verbose", F(verbose), "print each event's encoding"),
	OPT_BOOLEAN(0, "no-group", F(no_group), "open every event on its own (no automatic groups)"),
	{ OPT_CALLBACK(0, "pin", on_pin, "run the command pinned to these CPUs"), OPT_ARG("CPULIST"),
	  .wants = CPU_LIST_WANTED },
	OPT_BOOLEAN(0, "regions", F(regions), "then the command's named regions (tally/region.h), same format"),
	{ OPT_CALLBACK(0, "duration", on_duration, "without a command, stop after SECONDS"), OPT_ARG("SECONDS"),
	  .wants = "seconds greater than 0 and at most " STR(MAX_DURATION_S) },
	{ OPT_CALLBACK('h', "help", on_help, "this text") },
	{ OPT_CALLBACK(0, "version", on_version, "tally's version") },
	{ OPT_CALLBACK('T', "transaction", refuse_hardware_option, NULL),
	  .wants = "it counts Intel TSX's transaction events (cpu/tx-start/, cpu/el-start/ ...), which tally has no "
	           "set of" },
	{ OPT_CALLBACK(0, "smi-cost", refuse_hardware_option, NULL),
	  .wants = "it reads Intel's SMI counter (msr/smi/) with freeze_on_smi, which tally does not set" },
	{ OPT_CALLBACK(0, "iostat", refuse_hardware_option, NULL), OPT_OPTIONAL_ARG(NULL),
	  .wants = "it needs Intel's IIO PMUs (uncore_iio_*), which tally has no iostat support for" },
};

static const struct option_table stat_table = {
	.prog = PROG,
	.usage = "usage: tally stat [options] [--] command [args...]\n"
	         "       tally stat [options] {-p PIDS | -t TIDS | -a | -C CPUS} [--duration SECONDS]\n"
	         "\n",
	.entries = stat_entries,
	.nr = sizeof(stat_entries) / sizeof(stat_entries[0]),
};

void options_print_stat_usage(FILE *out)
{
	parse_options_usage(&stat_table, out);
}

enum options_result options_parse_stat(int argc, char **argv, struct stat_options *o)
{
	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	o->log_fd = -1;
	o->control_fd = o->ack_fd = -1;
	int rest;
	enum parse_result r = parse_options(&stat_table, argc, argv, o, &rest);
	if (r == PARSE_DONE)
		return OPTIONS_DONE;
	if (r != PARSE_OK)
		return OPTIONS_USAGE_ERROR;
	if (rest < argc)
		o->argv = argv + rest;
	if (o->drilldown && !o->topdown_levels)
		o->topdown_levels = 1; /* the tree's roots at least; spec.c adds the vendor's deeper levels */
	if (o->topdown_levels && !add_topdown_groups(o))
		return usage_error("out of memory"), OPTIONS_USAGE_ERROR;
	/* --metric-only without -M: the metrics perf prints beside the default events. */
	if (o->metric_only && !o->metrics && !o->events && !append_metrics(o, "Default"))
		return usage_error("out of memory"), OPTIONS_USAGE_ERROR;
	/* Nothing named: the whole system, as perf stat counts it, until a signal or --duration. */
	if (!o->argv && !o->nr_pids && !o->nr_tids && !o->cpu_list)
		o->all_cpus = true;
	return check_combinations(o) == PARSE_OK ? OPTIONS_RUN : OPTIONS_USAGE_ERROR;
}

void options_free(struct stat_options *o)
{
	if (o->control_fifo) {
		close(o->control_fd);
		if (o->ack_fd >= 0)
			close(o->ack_fd);
	}
	free(o->events);
	free(o->metrics);
	free(o->cputype);
	free(o->specs);
	free(o->pids);
	free(o->tids);
	tally_cpus_free(o->pin);
	for (size_t i = 0; i < o->nr_cgroup_names; i++)
		free(o->cgroup_names[i]);
	free(o->cgroup_names);
	free(o->cgroup_name_specs);
	memset(o, 0, sizeof(*o));
}
