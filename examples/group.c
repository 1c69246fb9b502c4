/* SPDX-License-Identifier: MIT */
/*
 * Seed 000's program on tally: a group led by cycles with page-faults as a member, counted around
 * do_something() (touching 100 MiB) and read at once. The spec, one line, replaces the attrs, the
 * PERF_EVENT_IOC_ID calls and the decoding of the group read by id.
 *
 * Where cycles cannot be counted (a VM without a virtual PMU), tally opens page-faults without its
 * leader and this program prints why cycles is missing instead of a made-up number.
 *
 *   cc -o group group.c -ltally && ./group
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <tally.h>

#define WORK_BYTES (100 * 1024 * 1024)

static void do_something(void)
{
	char *ptr = malloc(WORK_BYTES);
	if (!ptr)
		return;
	for (int i = 0; i < WORK_BYTES; i++)
		((volatile char *)ptr)[i] = (char)(i & 0xff); /* page faults */
	free(ptr);
}

int main(void)
{
	tally_counter *counter;
	/* The group of the seed, user space only (:u), as its exclude_kernel = 1 asked. */
	int err = tally_counter_new("{cycles,page-faults}:u", NULL, &counter);
	if (!err)
		err = tally_counter_open(counter, NULL);
	if (err) {
		fprintf(stderr, "group: %s\n", counter ? tally_counter_last_error(counter) : tally_last_error());
		tally_counter_free(counter);
		return 1;
	}

	struct tally_result r[2];
	err = tally_counter_start(counter);
	do_something();
	if (!err)
		err = tally_counter_stop(counter);
	if (!err && tally_counter_read(counter, r, 2, sizeof(r[0])) < 0)
		err = -1;
	if (err) {
		fprintf(stderr, "group: %s\n", tally_counter_last_error(counter));
		tally_counter_free(counter);
		return 1;
	}

	if (r[0].status == TALLY_STATUS_NOT_SUPPORTED)
		printf("cycles: not supported\n");
	else
		printf("cycles: %" PRIu64 "\n", r[0].scaled);
	printf("page faults: %" PRIu64 "\n", r[1].scaled);
	/* Why an event is missing, or how it was counted differently from what was asked. */
	for (int i = 0; i < 2; i++)
		if (r[i].has_note)
			printf("\nnote on %s:\n%s\n", tally_counter_name(counter, (size_t)i),
			       tally_counter_note(counter, (size_t)i));
	tally_counter_free(counter);
	return 0;
}
