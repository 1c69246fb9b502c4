/* SPDX-License-Identifier: MIT */
/*
 * How the counter reads a group's counts at one (cpu, thread): the one internal interface of the read
 * path, so that windows, snapshots, never-run detection and scaling above it do not depend on the
 * mechanism. Today there is one backend, read(2) of the group's leader (PERF_FORMAT_GROUP | ID | both
 * times, decoded in place, matched by id); the other reads the group from user space (the mmap'd
 * perf_event pages with rdpmc on x86, user access on arm64: user_group.h), falling back to the first
 * read by read. The counter chooses the kind per group at open (counter_user.c), records it in the
 * group's leader, and every read goes through tly_read_backend_group, except tally_counter_read's lean
 * path for counters read from user space alone (counter_read.c), which asks user_group.h for the values
 * and times only and comes back here for whatever it does not read itself.
 */
#ifndef TLY_READ_BACKEND_H
#define TLY_READ_BACKEND_H

#include "evsel/evsel.h"
#include "userread/user_group.h"

#include <errno.h>

enum tly_read_backend {
	TLY_READ_SYSCALL, /* read(2) of the leader's fd: every kernel, every PMU */
	TLY_READ_USER,    /* the members' mmap'd pages and counter registers; read(2) when they cannot */
};

/* Reads the group led by `leader` (user: its user-space state, for TLY_READ_USER) at fd-grid slot `slot` into counts[0 .. 1 + nr_members): value, enabled,
 * running and id of each. Inline: the read path is held to the cost of a bare read(2). */
static inline int tly_read_backend_group(enum tly_read_backend backend, tally_evsel *leader,
                                         struct tly_user_group *user, size_t slot, struct tally_count *counts)
{
	switch (backend) {
	case TLY_READ_SYSCALL:
		return tly_evsel_read_group_slot(leader, slot, counts);
	case TLY_READ_USER:
		return tly_user_group_read(user, leader, slot, counts);
	}
	return -EINVAL; /* -Wswitch makes every new kind add its case above */
}

#endif
