/* SPDX-License-Identifier: MIT */
/* --control: perf's protocol, commands read from a descriptor or FIFO, "enable" and "disable" acted on,
 * each acknowledged on the ACK descriptor. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tally/counter.h>

#include "stat/session.h"

/* Enables or disables the events for --control, as perf's "enable" and "disable": said on stderr as perf
 * says it. The counts add up every stretch between an enable and a disable (tally_counter_resume), as
 * perf's do; under -D -1 the first enable begins the window (tally_counter_start), so that what ran
 * before it, from the command's exec to the disable at once after, is left out. */
int stat_control_switch(struct stat_session *s, bool enable)
{
	if (enable == !s->disabled)
		return 0;
	bool first = enable && s->held_from_start;
	int err = !enable ? tally_counter_stop(s->counter)
	          : first ? tally_counter_start(s->counter)
	                  : tally_counter_resume(s->counter);
	if (err < 0)
		return err;
	if (first)
		readings_restart(&s->rd);
	s->held_from_start &= !enable;
	s->disabled = !enable;
	fprintf(stderr, "Events %s\n", enable ? "enabled" : "disabled");
	return 0;
}

/* One line of --control: perf's commands. enable and disable act; snapshot, evlist, stop and ping have
 * nothing to do in stat; each known one is acknowledged with "ack\n" on the ACK descriptor. */
static int control_command(struct stat_session *s, const char *line)
{
	static const char *const known[] = { "enable", "disable", "snapshot", "evlist", "stop", "ping" };
	size_t k = 0;
	while (k < sizeof(known) / sizeof(known[0]) && strncmp(line, known[k], strlen(known[k])) != 0)
		k++;
	if (k == sizeof(known) / sizeof(known[0]))
		return 0;
	int err = k < 2 ? stat_control_switch(s, k == 0) : 0;
	if (s->opt.ack_fd >= 0 && write(s->opt.ack_fd, "ack\n", 4) < 0)
		fprintf(stderr, "tally stat: --control: cannot write the ack: %s\n", tally_strerror(errno));
	return err;
}

/* Reads what the control descriptor holds and runs each whole line ('\n' or '\0' ends one, as in perf). */
int stat_control_read(struct stat_session *s)
{
	char buf[256];
	ssize_t got = read(s->opt.control_fd, buf, sizeof(buf));
	/* Its writers gone (a pipe's end closed): nothing more can come, and poll would report it forever. */
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
		s->control_closed = true;
	for (ssize_t i = 0; i < got; i++) {
		if (buf[i] != '\n' && buf[i] != '\0') {
			if (s->control_used < sizeof(s->control_line) - 1)
				s->control_line[s->control_used++] = buf[i];
			continue;
		}
		s->control_line[s->control_used] = '\0';
		s->control_used = 0;
		int err = control_command(s, s->control_line);
		if (err < 0)
			return err;
	}
	return 0;
}
