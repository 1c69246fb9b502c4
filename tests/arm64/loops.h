/* SPDX-License-Identifier: MIT */
/*
 * Loops of aarch64 instructions whose user-mode instruction count is known exactly: run(n) retires
 * insns_per_iter x n instructions plus a fixed number for entry and exit, the same for every n >= 1.
 * Under QEMU with -icount the PMU counts them exactly, so the suite compares differences between two
 * lengths against insns_per_iter x (n2 - n1).
 */
#ifndef TALLY_ARM64_LOOPS_H
#define TALLY_ARM64_LOOPS_H

#include <stddef.h>
#include <stdint.h>

struct loop_shape {
	const char *name;
	unsigned insns_per_iter;
	void (*run)(uint64_t n); /* n >= 1 */
};

extern const struct loop_shape loop_shapes[];
extern const size_t nr_loop_shapes;

#endif
