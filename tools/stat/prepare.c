/* SPDX-License-Identifier: MIT */
/* tally stat before anything runs: the CPU list checked, the counter made (spec.c), the report model
 * (report_lines.c), the results' stream opened, the report's settings; whatever is refused is refused here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <tally/counter.h>

#include "report/number_format.h"
#include "stat/session.h"

/* -C names CPUs this machine has online, all of them: an event cannot be opened on the others (the kernel
 * says EINVAL or ENODEV), and one such CPU would fail the whole list. Refused before anything runs, with
 * the CPUs that can be counted. Returns -1 to go on, or an exit status. */
static int check_cpu_list(const char *list)
{
	tally_cpus *wanted = NULL;
	int status = -1;
	if (tally_cpus_parse(list, &wanted) < 0) {
		fprintf(stderr, "tally stat: -C %s: %s\n", list, tally_last_error());
		status = EXIT_FAILED;
	} else {
		int err = tally_cpus_check_online(NULL, wanted);
		if (err < 0) {
			fprintf(stderr, "tally stat: -C %s: %s\n%s", list, tally_last_error(),
			        err == -ENODEV ? "(see tally stat --help)\n" : "");
			status = err == -ENODEV ? EXIT_USAGE : EXIT_FAILED;
		}
	}
	tally_cpus_free(wanted);
	return status;
}

/* --pin's CPUs as a list for the library ("0,2,3"; malloc'd), NULL without --pin. */
static char *pin_list(const tally_cpus *cpus)
{
	if (!cpus)
		return NULL;
	size_t n = tally_cpus_count(cpus), used = 0;
	char *text = malloc(n * 12 + 1);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(text + used, 13, "%s%d", i ? "," : "", tally_cpus_at(cpus, i));
	return text;
}

/* The report model: the events' and metrics' lines (-G's per cgroup), the statistics of the runs, the
 * readings, the target's heading, --pin's list. Returns -1 to go on, or an exit status. */
static int describe(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	if (stat_describe_metrics(s) < 0 || stat_describe_events(s) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	int planned = cgroup_lines_plan(&s->cgroups, o, s->counter, s->events);
	if (planned == -1)
		return EXIT_USAGE;
	if (s->cgroups.nr_lines) {
		s->report.events = s->cgroups.events;
		s->report.nr_events = s->cgroups.nr_lines;
		s->report.cgroups = true;
		s->report.line_event = s->cgroups.event;
		s->report.line_cgroup = s->cgroups.cgroup;
		s->report.cgroup_names = s->cgroups.names;
		s->report.nr_cgroups = s->cgroups.nr_names;
	}
	if (planned < 0 || stat_alloc_statistics(s) < 0 ||
	    readings_init(&s->rd, s->counter, o->aggregation, o->no_scale, s->lines) < 0) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	stat_describe_target(s);
	s->pin = pin_list(o->pin);
	if (o->pin && !s->pin) {
		fprintf(stderr, "tally stat: out of memory\n");
		return EXIT_FAILED;
	}
	return -1;
}

/* Where the results go: -o's path (its placeholders expanded), --log-fd's descriptor or stderr. Returns -1
 * to go on, or an exit status. */
static int open_results(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	if (stat_describe_rank(s) < 0)
		return EXIT_USAGE;
	s->file = o->log_fd >= 0 ? stat_report_stream(o->log_fd)
	          : o->output    ? fopen(s->output, o->append ? "ae" : "we")
	                         : stat_report_stream(STDERR_FILENO);
	if (!s->file && o->log_fd >= 0)
		fprintf(stderr, "tally stat: --log-fd %d: %s%s\n", o->log_fd, tally_strerror(errno),
		        /* fdopen's answer to a descriptor open for reading, or to none at all */
		        errno == EINVAL ? ": it is not open for writing (open it so, e.g. `3>file` or `3>&1`)"
		        : errno == EBADF ? ": no such descriptor is open (open it in the shell, e.g. `3>file`)" : "");
	else if (!s->file)
		fprintf(stderr, "tally stat: cannot write %s: %s\n", s->output, tally_strerror(errno));
	return s->file ? -1 : EXIT_USAGE;
}

/* The report's settings from the options, and the writer. Returns -1 to go on, or an exit status. */
static int set_report(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	/* perf 6.1 writes the clearing sequence to standard output whatever it is (6.2 asks isatty of the
	 * results' stream): tally writes it with the results, and only to a terminal, where it means
	 * something; in a file or a pipe it would be two stray escape sequences an interval. */
	s->clear_screen = o->interval_clear && isatty(fileno(s->file));
	s->report.interval_headers = o->interval_clear;
	s->rd.all_threads = o->aggregation == AGGR_THREAD && o->all_cpus;
	s->rd.cache_level = o->cache_level;
	s->report.show_parts = o->aggregation != AGGR_GLOBAL;
	s->report.show_nr_cpus = o->aggregation >= AGGR_CORE;
	s->report.show_pmus = o->per_pmu;
	s->report.verbose = o->verbose;
	number_style_of_locale(&s->report.numbers, !o->no_big_num);
	s->report.metric_only = o->metric_only;
	s->report.summary = o->summary;
	s->report.csv_summary_field = !o->no_csv_summary;
	static const char *const part_keys[] = { [AGGR_NONE] = "cpu", [AGGR_THREAD] = "thread", [AGGR_CORE] = "core",
		                                 [AGGR_SOCKET] = "socket", [AGGR_DIE] = "die",
		                                 [AGGR_NODE] = "node", [AGGR_CACHE] = "cache" };
	s->report.part_key = part_keys[o->aggregation];
	s->report.csv_header = o->csv_header;
	s->report.separator = o->separator;
	if (o->json)
		machine_describe(&s->machine, s->pmus, &s->report);
	int err = o->regions ? regions_prepare(&s->regions, o->events, o->metrics, o->json, o->separator != NULL) : 0;
	if (err < 0) {
		fprintf(stderr, "tally stat: --regions: cannot make its temporary file: %s\n", tally_strerror(err));
		return EXIT_FAILED;
	}
	s->out.ops = o->perf_json  ? &output_perf_json_ops
	             : o->json     ? &output_json_ops
	             : o->separator ? &output_csv_ops
	                           : &output_table_ops;
	s->out.out = s->file;
	s->out.report = &s->report;
	return -1;
}

/* Everything that can be refused is checked here, before the command is started. Returns -1 to go on,
 * or an exit status. */
int stat_prepare(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	int status = o->cpu_list ? check_cpu_list(o->cpu_list) : -1;
	if (status < 0)
		status = stat_make_counter(s);
	if (status < 0)
		status = describe(s);
	if (status < 0)
		status = open_results(s);
	return status < 0 ? set_report(s) : status;
}
