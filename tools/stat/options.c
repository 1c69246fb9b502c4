/* SPDX-License-Identifier: MIT */
#include "stat/options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tally/common.h>

#include "lib/id_list.h"

/* perf refuses intervals under 10 ms: the reads themselves would dominate them. */
#define MIN_INTERVAL_MS 10
/* -I, -D and --duration end up as poll(2) timeouts, an int of milliseconds: longer ones are refused
 * rather than wrapped (a cast of a larger double to int is undefined, and poll took it as "forever"). */
#define MAX_WAIT_MS INT_MAX
#define MAX_DURATION_S (INT_MAX / 1000)
/* Ids above this are not pids any kernel hands out (PID_MAX_LIMIT is 4M). */
#define MAX_ID (1 << 22)

enum long_only {
	OPT_APPEND = 256,
	OPT_PER_THREAD,
	OPT_PER_CORE,
	OPT_PER_SOCKET,
	OPT_PER_DIE,
	OPT_PER_NODE,
	OPT_PER_CACHE,
	OPT_NO_MERGE,
	OPT_PER_PMU,
	OPT_METRIC_ONLY,
	OPT_TOPDOWN,
	OPT_TD_LEVEL,
	OPT_NO_SCALE,
	OPT_NO_GROUP,
	OPT_PIN,
	OPT_DURATION,
	OPT_CSV_HEADER,
	OPT_VERSION,
	OPT_REGIONS,
	OPT_JSON_FORMAT,
	OPT_BIG_NUM,
	OPT_INTERVAL_COUNT,
	OPT_SUMMARY,
	OPT_NO_CSV_SUMMARY,
	OPT_FOR_EACH_CGROUP,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_INTERVAL_CLEAR,
	OPT_LOG_FD,
	OPT_JSON_OUTPUT,
	OPT_TIMEOUT,
	OPT_PRE,
	OPT_POST,
	OPT_TABLE,
	OPT_SCALE,
	OPT_HYBRID_MERGE,
	OPT_METRIC_NO_GROUP,
	OPT_METRIC_NO_MERGE,
	OPT_PERCORE_SHOW_THREAD,
	OPT_CPUTYPE,
	OPT_CONTROL,
	OPT_SMI_COST,
	OPT_IOSTAT,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "no-csv-summary", no_argument, NULL, OPT_NO_CSV_SUMMARY },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "csv-header", no_argument, NULL, OPT_CSV_HEADER },
	{ "json", no_argument, NULL, 'j' },
	{ "json-format", required_argument, NULL, OPT_JSON_FORMAT },
	{ "no-big-num", no_argument, NULL, 'B' },
	{ "big-num", no_argument, NULL, OPT_BIG_NUM },
	{ "output", required_argument, NULL, 'o' },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "per-core", no_argument, NULL, OPT_PER_CORE },
	{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
	{ "per-die", no_argument, NULL, OPT_PER_DIE },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ "per-cache", optional_argument, NULL, OPT_PER_CACHE },
	{ "no-merge", no_argument, NULL, OPT_NO_MERGE },
	{ "per-pmu", no_argument, NULL, OPT_PER_PMU },
	{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
	{ "topdown", no_argument, NULL, OPT_TOPDOWN },
	{ "td-level", required_argument, NULL, OPT_TD_LEVEL },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "no-scale", no_argument, NULL, OPT_NO_SCALE },
	{ "delay", required_argument, NULL, 'D' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "no-group", no_argument, NULL, OPT_NO_GROUP },
	{ "pin", required_argument, NULL, OPT_PIN },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "regions", no_argument, NULL, OPT_REGIONS },
	{ "metrics", required_argument, NULL, 'M' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "for-each-cgroup", required_argument, NULL, OPT_FOR_EACH_CGROUP },
	{ "detailed", no_argument, NULL, 'd' },
	{ "null", no_argument, NULL, 'n' },
	{ "sync", no_argument, NULL, 'S' },
	{ "all-user", no_argument, NULL, OPT_ALL_USER },
	{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
	{ "interval-clear", no_argument, NULL, OPT_INTERVAL_CLEAR },
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "json-output", no_argument, NULL, OPT_JSON_OUTPUT },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "pre", required_argument, NULL, OPT_PRE },
	{ "post", required_argument, NULL, OPT_POST },
	{ "table", no_argument, NULL, OPT_TABLE },
	{ "scale", no_argument, NULL, OPT_SCALE },
	{ "hybrid-merge", no_argument, NULL, OPT_HYBRID_MERGE },
	{ "metric-no-group", no_argument, NULL, OPT_METRIC_NO_GROUP },
	{ "metric-no-merge", no_argument, NULL, OPT_METRIC_NO_MERGE },
	{ "percore-show-thread", no_argument, NULL, OPT_PERCORE_SHOW_THREAD },
	{ "cputype", required_argument, NULL, OPT_CPUTYPE },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "transaction", no_argument, NULL, 'T' },
	{ "smi-cost", no_argument, NULL, OPT_SMI_COST },
	{ "iostat", optional_argument, NULL, OPT_IOSTAT },
	{ NULL, 0, NULL, 0 },
};

void options_print_stat_usage(FILE *out)
{
	fputs("usage: tally stat [options] [--] command [args...]\n"
	      "       tally stat [options] {-p PIDS | -t TIDS | -a | -C CPUS} [--duration SECONDS]\n"
	      "\n"
	      "  -e, --event SPEC         events to count (repeatable; perf's syntax)\n"
	      "  -M, --metrics LIST       metrics or metric groups to compute (perf's names: IPC,TopdownL1;\n"
	      "                           tally list --metrics); their events are counted as groups\n"
	      "      --metric-only        only the -M metrics (without -M and -e: perf's Default ones),\n"
	      "                           one column each\n"
	      "      --topdown            Intel's top-down level 1 (-M TopdownL1: retiring, bad speculation,\n"
	      "                           frontend bound, backend bound)\n"
	      "      --td-level N         top-down levels 1 to N (2: TopdownL2 too; 0: the deepest, 2)\n"
	      "  -d, --detailed           add perf's detailed events: -d the L1 data and last-level cache\n"
	      "                           loads and misses, -dd the L1 instruction cache and TLBs too,\n"
	      "                           -ddd the L1 data cache prefetches too\n"
	      "  -n, --null               no default events: the elapsed time only\n"
	      "      --all-user           every event counts in user space only (as perf's)\n"
	      "      --all-kernel         every event counts in kernel space only (as perf's)\n"
	      "  -r, --repeat N           run the command N times: mean and relative stddev\n"
	      "  -S, --sync               sync(2) before each run, so that earlier writes are not counted\n"
	      "  -I, --interval-print MS  print counts every MS milliseconds (deltas)\n"
	      "      --interval-count N   with -I: stop after N intervals\n"
	      "      --interval-clear     with -I: clear the terminal before each interval\n"
	      "      --summary            with -I: the totals after the intervals\n"
	      "      --no-csv-summary     with -x and --summary: no \"summary\" field on the totals\n"
	      "  -x, --field-separator S  CSV output with separator S (perf's field order)\n"
	      "      --csv-header         with -x, a header line first\n"
	      "  -j, --json               one JSON document (see docs/json-schema.json)\n"
	      "      --json-format FMT    tally (the -j document) or perf (perf stat -j's object per line)\n"
	      "      --json-output        perf's JSON, an object per line (--json-format=perf; perf's -j)\n"
	      "  -B, --no-big-num         no thousands separators in the table\n"
	      "  -o, --output FILE        results to FILE instead of stderr\n"
	      "      --append             append to the -o FILE\n"
	      "      --log-fd FD          results to the open descriptor FD instead of stderr\n"
	      "  -p, --pid PIDS           count existing processes (comma list)\n"
	      "  -t, --tid TIDS           count existing threads (comma list)\n"
	      "  -a, --all-cpus           count every CPU, system wide\n"
	      "  -C, --cpu LIST           count these CPUs, system wide (e.g. 0-3,8)\n"
	      "  -G, --cgroup NAMES       the preceding -e events count only in these cgroups, one name\n"
	      "                           per event in order (one name: every event before it); -a or -C\n"
	      "      --for-each-cgroup NAMES  every event once per cgroup (with -a or -C)\n"
	      "  -A, --no-aggr            one figure per CPU\n"
	      "      --per-thread         one figure per thread (with -p or -t)\n"
	      "      --per-core           one figure per core (where topology is readable)\n"
	      "      --per-socket         one figure per socket (package)\n"
	      "      --per-die            one figure per die\n"
	      "      --per-node           one figure per NUMA node\n"
	      "      --per-cache[=L2]     one figure per cache (L1 to L4; default the highest level)\n"
	      "      --no-merge           an event counted on several PMUs (cpu_core and cpu_atom,\n"
	      "                           uncore_imc/...) one line per PMU, not summed\n"
	      "      --per-pmu            the sum, then each PMU's part on a line of its own\n"
	      "  -i, --no-inherit         children of the command are not counted\n"
	      "      --no-scale           raw counts, not scaled for multiplexing\n"
	      "      --scale              counts scaled for multiplexing (the default)\n"
	      "      --hybrid-merge       accepted: a hybrid event's PMUs are summed already (--no-merge)\n"
	      "      --metric-no-group    accepted, no effect: each -M metric's events stay one group\n"
	      "      --metric-no-merge    accepted: tally never shares a group between metrics\n"
	      "      --percore-show-thread  accepted, no effect: for perf's 'percore' events, which tally\n"
	      "                           refuses\n"
	      "  -D, --delay MS           start counting MS milliseconds after the command starts\n"
	      "                           (-1: start disabled, for --control's \"enable\")\n"
	      "      --control fd:CTL[,ACK] | fifo:CTL[,ACK]\n"
	      "                           \"enable\" and \"disable\" the events by lines read from CTL;\n"
	      "                           \"ack\" is written to ACK after each (perf's protocol)\n"
	      "      --timeout MS         end the command (SIGTERM) after MS milliseconds (10 or more)\n"
	      "      --pre CMD            run the shell command CMD before each run\n"
	      "      --post CMD           run the shell command CMD after each run\n"
	      "      --table              with -r: each run's elapsed time, as perf's table\n"
	      "      --cputype TYPE       hybrid CPUs: the events count only on cpu_TYPE (core or atom)\n"
	      "  -q, --quiet              print nothing (the exit status remains)\n"
	      "  -v, --verbose            print each event's encoding\n"
	      "      --no-group           open every event on its own (no automatic groups)\n"
	      "      --pin CPULIST        run the command pinned to these CPUs\n"
	      "      --regions            then the command's named regions (tally/region.h), same format\n"
	      "      --duration SECONDS   without a command, stop after SECONDS\n"
	      "  -h, --help               this text\n"
	      "      --version            tally's version\n",
	      out);
}

static enum options_result usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static enum options_result usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tally stat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n(see tally stat --help)\n", stderr);
	va_end(ap);
	return OPTIONS_USAGE_ERROR;
}

/* A whole non-negative decimal number in [min, max]. */
static bool parse_unsigned(const char *text, unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	errno = 0;
	if (text[0] < '0' || text[0] > '9')
		return false;
	unsigned long v = strtoul(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (unsigned)v;
	return true;
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
static enum options_result check_cgroups(const struct stat_options *o, bool system_wide)
{
	const char *which = o->nr_cgroup_names ? "-G" : "--for-each-cgroup";
	if (!o->nr_cgroup_names && !o->for_each_cgroup)
		return OPTIONS_RUN;
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
	return OPTIONS_RUN;
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

/* The checks of combinations, once every flag is known. */
static enum options_result check_combinations(const struct stat_options *o)
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
	return check_cgroups(o, system_wide);
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
	if (!parse_unsigned(number, 0, INT_MAX, &v) || fcntl((int)v, F_GETFD) < 0)
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
static enum options_result parse_control(struct stat_options *o, const char *arg)
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
	return OPTIONS_RUN;
}

/* The perf stat options whose hardware tally does not count: refused, with the reason. */
static enum options_result refuse_hardware_option(const char *option, const char *why)
{
	return usage_error("%s is not supported: %s (see \"Differences from perf stat\" in tally(1))", option,
	                   why);
}

enum options_result options_parse_stat(int argc, char **argv, struct stat_options *o)
{
	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	o->log_fd = -1;
	o->control_fd = o->ack_fd = -1;
	/* '+': stop at the first non-option, so the command's own flags are left to it. ':': report a
	 * missing argument distinctly. optind = 0 makes glibc start afresh. */
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+:e:M:r:I:x:jBo:p:t:aC:AiD:qvhG:dnST", long_options, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg)
				return usage_error("-e needs an event spec");
			if (!append_spec(o, optarg))
				return usage_error("out of memory");
			break;
		case 'M':
			if (!*optarg)
				return usage_error("-M needs a metric or metric group name (tally list --metrics)");
			if (!append_metrics(o, optarg))
				return usage_error("out of memory");
			break;
		case 'r':
			if (!parse_unsigned(optarg, 1, 100000, &o->repeat))
				return usage_error("-r wants a count from 1 to 100000, not '%s'", optarg);
			break;
		case 'I':
			if (!parse_unsigned(optarg, MIN_INTERVAL_MS, MAX_WAIT_MS, &o->interval_ms))
				return usage_error("-I wants whole milliseconds from %d to %d, not '%s'", MIN_INTERVAL_MS,
				                   MAX_WAIT_MS, optarg);
			break;
		case OPT_INTERVAL_COUNT:
			if (!parse_unsigned(optarg, 1, UINT_MAX, &o->interval_count))
				return usage_error("--interval-count wants a count of 1 or more, not '%s'", optarg);
			break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_NO_CSV_SUMMARY: o->no_csv_summary = true; break;
		case 'x':
			if (!*optarg)
				return usage_error("-x needs a separator");
			o->separator = optarg;
			break;
		case OPT_CSV_HEADER: o->csv_header = true; break;
		case 'j': o->json = true; break;
		case OPT_JSON_FORMAT:
			if (strcmp(optarg, "perf") == 0)
				o->perf_json = true;
			else if (strcmp(optarg, "tally") != 0)
				return usage_error("--json-format wants tally or perf, not '%s'", optarg);
			else
				o->perf_json = false;
			o->json = true;
			break;
		case OPT_JSON_OUTPUT:
			/* perf's -j: its JSON lines. tally's -j is its own document. */
			o->json = o->perf_json = true;
			break;
		case 'B': o->no_big_num = true; break;
		case OPT_BIG_NUM: o->no_big_num = false; break;
		case OPT_REGIONS: o->regions = true; break;
		case 'G':
			if (!o->nr_specs)
				return usage_error("-G names the cgroups of the -e events before it: give them first");
			if (!append_cgroups(o, optarg))
				return usage_error("out of memory");
			break;
		case OPT_FOR_EACH_CGROUP:
			if (!*optarg)
				return usage_error("--for-each-cgroup needs cgroup names");
			o->for_each_cgroup = optarg;
			break;
		case 'o': o->output = optarg; break;
		case OPT_APPEND: o->append = true; break;
		case 'p':
			if (!parse_list(optarg, &o->pids, &o->nr_pids))
				return usage_error("-p wants a comma list of process ids (1 or more), not '%s'", optarg);
			break;
		case 't':
			if (!parse_list(optarg, &o->tids, &o->nr_tids))
				return usage_error("-t wants a comma list of thread ids (1 or more), not '%s'", optarg);
			break;
		case 'a': o->all_cpus = true; break;
		case 'C': {
			tally_cpus *cpus = NULL;
			bool valid = parse_cpus(optarg, &cpus);
			tally_cpus_free(cpus);
			if (!valid)
				return usage_error("-C wants a CPU list such as 0-3,8, not '%s'", optarg);
			o->cpu_list = optarg;
			break;
		}
		case 'A': o->aggregation = AGGR_NONE; break;
		case OPT_PER_THREAD: o->aggregation = AGGR_THREAD; break;
		case OPT_PER_CORE: o->aggregation = AGGR_CORE; break;
		case OPT_PER_SOCKET: o->aggregation = AGGR_SOCKET; break;
		case OPT_PER_DIE: o->aggregation = AGGR_DIE; break;
		case OPT_PER_NODE: o->aggregation = AGGR_NODE; break;
		case OPT_PER_CACHE:
			o->aggregation = AGGR_CACHE;
			o->cache_level = 0;
			if (optarg && !((optarg[0] == 'L' || optarg[0] == 'l') && optarg[1] >= '1' && optarg[1] <= '4' &&
			                !optarg[2]) && !(optarg[0] >= '1' && optarg[0] <= '4' && !optarg[1]))
				return usage_error("--per-cache wants a cache level L1 to L4, not '%s'", optarg);
			if (optarg)
				o->cache_level = optarg[strlen(optarg) - 1] - '0';
			break;
		case OPT_NO_MERGE: o->no_merge = true; break;
		case OPT_PER_PMU: o->per_pmu = true; break;
		case OPT_METRIC_ONLY: o->metric_only = true; break;
		case OPT_TOPDOWN:
			if (!o->topdown_levels)
				o->topdown_levels = 1;
			break;
		case OPT_TD_LEVEL: {
			unsigned level;
			if (!parse_unsigned(optarg, 0, TOPDOWN_MAX_LEVEL, &level))
				return usage_error("--td-level wants a level from 0 to %d (0: the deepest), not '%s'",
				                   TOPDOWN_MAX_LEVEL, optarg);
			o->topdown_levels = level ? level : TOPDOWN_MAX_LEVEL;
			break;
		}
		case 'd':
			/* perf takes -dddd and more as -ddd. */
			if (o->detailed < DETAILED_MAX_LEVEL)
				o->detailed++;
			break;
		case 'n': o->null_run = true; break;
		case 'S': o->sync = true; break;
		case OPT_ALL_USER:
		case OPT_ALL_KERNEL: {
			enum tally_space space = c == OPT_ALL_USER ? TALLY_SPACE_USER : TALLY_SPACE_KERNEL;
			if (o->space != TALLY_SPACE_AS_WRITTEN && o->space != space)
				return usage_error("--all-user and --all-kernel: choose one");
			o->space = space;
			break;
		}
		case OPT_INTERVAL_CLEAR: o->interval_clear = true; break;
		case OPT_LOG_FD: {
			unsigned fd;
			if (!parse_unsigned(optarg, 1, INT_MAX, &fd))
				return usage_error("--log-fd wants the number of an open file descriptor (1 or more), not '%s'",
				                   optarg);
			o->log_fd = (int)fd;
			break;
		}
		case 'i': o->no_inherit = true; break;
		case OPT_NO_SCALE: o->no_scale = true; break;
		case 'D':
			o->start_disabled = strcmp(optarg, "-1") == 0;
			if (!o->start_disabled && !parse_unsigned(optarg, 0, MAX_WAIT_MS, &o->delay_ms))
				return usage_error("-D wants whole milliseconds from 0 to %d, not '%s'", MAX_WAIT_MS,
				                   optarg);
			break;
		case OPT_TIMEOUT:
			if (!parse_unsigned(optarg, MIN_INTERVAL_MS, MAX_WAIT_MS, &o->timeout_ms))
				return usage_error("--timeout wants whole milliseconds from %d to %d, not '%s'",
				                   MIN_INTERVAL_MS, MAX_WAIT_MS, optarg);
			/* perf's warning: tally's own start and reads are a large part of so short a run. */
			if (o->timeout_ms < 100)
				fputs("tally stat: --timeout under 100 ms: the overhead percentage could be high in some "
				      "cases\n", stderr);
			break;
		case OPT_PRE: o->pre_cmd = optarg; break;
		case OPT_POST: o->post_cmd = optarg; break;
		case OPT_TABLE: o->table = true; break;
		case OPT_SCALE: o->no_scale = false; break;
		/* tally sums a hybrid event's PMUs unless --no-merge: perf 6.1's --hybrid-merge is its default. */
		case OPT_HYBRID_MERGE: o->no_merge = false; break;
		/* Accepted, changing nothing: the library groups each metric's events (one window per ratio) and
		 * has no way to open them apart; perf's --metric-no-merge is tally's way already, each metric's
		 * group on its own, never shared with another metric's. */
		case OPT_METRIC_NO_GROUP:
		case OPT_METRIC_NO_MERGE: break;
		/* Accepted, changing nothing: perf's flag changes only events with the 'percore' term, which
		 * tally's parser refuses (--per-core gives each core's sum). */
		case OPT_PERCORE_SHOW_THREAD: break;
		case OPT_CPUTYPE: {
			/* perf's "core" and "atom" name the PMUs cpu_core and cpu_atom. */
			const char *type = strncmp(optarg, "cpu_", 4) == 0 ? optarg + 4 : optarg;
			if (!*type || strchr(type, '/') || strchr(type, ','))
				return usage_error("--cputype wants a hybrid CPU type such as core or atom, not '%s'", optarg);
			free(o->cputype);
			if (asprintf(&o->cputype, "cpu_%s", type) < 0) {
				o->cputype = NULL;
				return usage_error("out of memory");
			}
			break;
		}
		case OPT_CONTROL:
			if (parse_control(o, optarg) != OPTIONS_RUN)
				return OPTIONS_USAGE_ERROR;
			break;
		case 'T':
			return refuse_hardware_option("-T/--transaction", "it counts Intel TSX's transaction events "
			                              "(cpu/tx-start/, cpu/el-start/ ...), which tally has no set of");
		case OPT_SMI_COST:
			return refuse_hardware_option("--smi-cost", "it reads Intel's SMI counter (msr/smi/) with "
			                              "freeze_on_smi, which tally does not set");
		case OPT_IOSTAT:
			return refuse_hardware_option("--iostat", "it needs Intel's IIO PMUs (uncore_iio_*), which "
			                              "tally has no iostat support for");
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case OPT_NO_GROUP: o->no_group = true; break;
		case OPT_PIN:
			if (!parse_cpus(optarg, &o->pin))
				return usage_error("--pin wants a CPU list such as 0-3,8, not '%s'", optarg);
			break;
		case OPT_DURATION: {
			char *end;
			errno = 0;
			o->duration = strtod(optarg, &end);
			/* ERANGE: beyond a double (1e309 reads as inf) or below its precision. */
			if (errno || *end || end == optarg || !(o->duration > 0) || !(o->duration <= MAX_DURATION_S))
				return usage_error("--duration wants seconds greater than 0 and at most %d, not '%s'",
				                   MAX_DURATION_S, optarg);
			break;
		}
		case 'h': {
			/* One buffer for the whole text (more than the 4 KiB of a file's default), so that a write that
			 * fails fails at the final flush, which says why (ENOSPC), not inside fputs, whose errno
			 * stdio forgets. Nothing was written to stdout before; glibc ignores the size without a
			 * buffer. */
			static char usage_buffer[1 << 14];
			setvbuf(stdout, usage_buffer, _IOFBF, sizeof(usage_buffer));
			options_print_stat_usage(stdout);
			return OPTIONS_DONE;
		}
		case OPT_VERSION:
			printf("tally %s\n", tally_version());
			return OPTIONS_DONE;
		case ':':
			return usage_error("%s needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return usage_error("unknown option -%c", optopt);
			return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->topdown_levels && !add_topdown_groups(o))
		return usage_error("out of memory");
	/* --metric-only without -M: the metrics perf prints beside the default events. */
	if (o->metric_only && !o->metrics && !o->events && !append_metrics(o, "Default"))
		return usage_error("out of memory");
	/* Nothing named: the whole system, as perf stat counts it, until a signal or --duration. */
	if (!o->argv && !o->nr_pids && !o->nr_tids && !o->cpu_list)
		o->all_cpus = true;
	return check_combinations(o);
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
