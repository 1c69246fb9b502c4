/* SPDX-License-Identifier: MIT */
/*
 * tally stat: counts events while a command runs (or on -p/-t/-a/-C targets until their tasks exit, a signal
 * or --duration) and prints the result as a table, CSV or JSON, with perf stat's flags and exit statuses:
 * the command's own status, 128 + signal when it was killed, 127 when it could not be executed, 2 for a
 * usage error or a bad event spec (found before anything runs), 128 + signal when tally itself was
 * ended by SIGINT, SIGTERM, SIGHUP or SIGPIPE (130 for Ctrl-C, after passing the signal on to the command,
 * waiting for it and printing what was counted), 1 when counting failed. Results that cannot be written
 * (-o on a full disk) are said lost on stderr, and the status stays the command's: a tally failure never
 * changes the measured program's exit status (perf 6.1 does not check its writes at all).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tally/counter.h>

#include "lib/signals.h"
#include "lib/text_escape.h"
#include "stat/session.h"
#include "stat/stat.h"

/* A failure said on stderr, "tally stat: " and its context first: the library's explanation may carry
 * what the user gave (a cgroup name, an event as written, a path), so its control bytes are escaped as
 * every such text is (newlines pass). */
void stat_say_failure(const char *context, const char *text)
{
	fprintf(stderr, "tally stat: %s", context);
	text_escape_lines(stderr, text);
	fputc('\n', stderr);
}

static void session_free(struct stat_session *s)
{
	readings_free(&s->rd);
	cgroup_lines_free(&s->cgroups);
	tally_counter_free(s->counter);
	metric_list_free(&s->mlist); /* before the snapshot its table came from */
	tally_pmus_free(s->pmus);
	stat_close_results(s);
	free(s->events);
	free(s->encodings);
	free(s->lines);
	free(s->names);
	free(s->runs);
	free(s->pmu_runs);
	free(s->mean_counts);
	free(s->mean_pmu_counts);
	free(s->stddev);
	free(s->pmu_stddev);
	free(s->run_elapsed);
	free(s->regions_text);
	free(s->metrics);
	if (s->regions.path[0])
		unlink(s->regions.path);
	free(s->pin);
	group_sets_free(&s->sets);
	free(s->spec);
	free(s->kept_names);
	tally_events_free(s->cputype_list);
	options_free(&s->opt);
}

/* Whether a SIGPIPE reached tally's handler and was not handled yet (the signals noted since the last
 * wait; each is read once). */
static bool sigpipe_raised(void)
{
	for (int signo; (signo = signals_wait(0)) != 0;)
		if (signo == SIGPIPE)
			return true;
	return false;
}

int command_stat(int argc, char **argv)
{
	struct stat_session s;
	memset(&s, 0, sizeof(s));
	switch (options_parse_stat(argc, argv, &s.opt)) {
	case OPTIONS_DONE: options_free(&s.opt); return 0;
	case OPTIONS_USAGE_ERROR: options_free(&s.opt); return EXIT_USAGE;
	case OPTIONS_RUN: break;
	}
	int status = stat_prepare(&s);
	if (status >= 0) {
		session_free(&s);
		return status;
	}
	if (s.opt.no_multiplex)
		status = stat_count_group_sets(&s);
	for (unsigned run = 1; !s.opt.no_multiplex && run <= s.opt.repeat && status < 0; run++)
		status = stat_count_once(&s, run);
	if (s.elapsed.n > 0) {
		stat_finish(&s);
		if (status < 0)
			status = s.exit_status;
	}
	if (status < 0)
		status = EXIT_FAILED;
	stat_close_results(&s);
	/* The last writes, once the command had ended, raised SIGPIPE (the reader went away): that ends tally
	 * as it does while the command runs, with 141. Any other failure to write leaves the command's status
	 * (results_lost said it on stderr). */
	if (s.output_error && !s.interrupted && sigpipe_raised()) {
		s.interrupted = SIGPIPE;
		status = 128 + SIGPIPE;
	}
	session_free(&s);
	return status;
}
