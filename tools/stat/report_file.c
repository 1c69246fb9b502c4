/* SPDX-License-Identifier: MIT */
/* The results' stream of tally stat: -o's file, --log-fd's descriptor or a buffered copy of stderr, every
 * piece flushed when written, a write that fails said once (the exit status stays the command's). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "lib/stream.h"
#include "stat/session.h"

static const char *results_name(const struct stat_session *s)
{
	return s->opt.output ? s->output : s->opt.log_fd >= 0 ? "--log-fd's descriptor" : "standard error";
}

/* Says once, at once, that the results are lost, and why. */
static void results_lost(struct stat_session *s, int err)
{
	if (s->output_error)
		return;
	s->output_error = err;
	/* EPIPE: the reader went away, and the SIGPIPE of the same write ends tally with 141 (command_stat). */
	fprintf(stderr, "tally stat: cannot write the results to %s: %s: the results are lost (%s)\n", results_name(s),
	        stream_strerror(err),
	        err == EPIPE ? "their reader went away: tally ends as a SIGPIPE ends it, with 141"
	                     : "the exit status stays the command's");
}

/* The results written so far go out now (they keep their order with the command's own output). A failure
 * is said once (results_lost); counting goes on, and the exit status stays the command's, since the
 * command must not be harmed by tally's loss. */
void stat_flush_results(struct stat_session *s)
{
	int err = stream_flush(s->file);
	if (err != 0)
		results_lost(s, err);
}

/* The last flush and the close of -o's file (where a network file system reports what the writes did
 * not). */
void stat_close_results(struct stat_session *s)
{
	if (!s->file)
		return;
	stat_flush_results(s);
	if (s->file != stderr && fclose(s->file) != 0)
		results_lost(s, errno);
	s->file = NULL;
}

/* The results go to stderr as perf's do (or to --log-fd's descriptor), but through a buffered stream of
 * their own: stderr is unbuffered, and the JSON document, written a token at a time, took 1,400 write(2)
 * calls (0.3 ms of `tally stat -j`). Every piece of output is flushed when written (begin, each interval,
 * each run, the end), so it keeps its order with tally's messages on stderr and with the command's own
 * output. Close-on-exec: the command does not inherit the copy, and inherits fd itself as it was given
 * (as under perf, which writes to --log-fd's descriptor itself). For stderr, plain stderr when no copy can
 * be made (fd 2 closed); for another fd NULL, errno set (EBADF: not open). */
FILE *stat_report_stream(int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	if (f)
		return f;
	int err = errno;
	if (copy >= 0)
		close(copy);
	errno = err;
	return fd == STDERR_FILENO ? stderr : NULL;
}

/* What comes before the results: perf's "# started on" line at the top of a -o file (not in tally's JSON
 * document, which must stay one), and the table's note on stderr, never in the results. */
void stat_begin_results(struct stat_session *s)
{
	const struct stat_options *o = &s->opt;
	bool document = o->json && !o->perf_json;
	if (o->output && !document) {
		time_t now = time(NULL);
		char when[32];
		fprintf(s->file, "# started on %s\n", ctime_r(&now, when) ? when : "?\n");
	}
	if (s->out.ops == &output_table_ops && s->report.note)
		fprintf(stderr, "note: %s\n", s->report.note); /* tally's own text */
}
