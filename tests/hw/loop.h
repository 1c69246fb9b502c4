/* SPDX-License-Identifier: MIT */
/*
 * A loop whose user-mode instruction count is known from its listing: hw_loop_run(n) retires
 * HW_LOOP_INSNS_PER_ITER x n instructions in its body (x86: dec + jnz; arm64: subs + b.ne), plus a few for
 * entry and exit. The hardware check (tests/hw/) counts it with tally, read(2) and perf. Elsewhere the
 * body is a volatile C loop, whose count per iteration is not known: HW_LOOP_EXACT is 0 there.
 */
#ifndef TALLY_HW_LOOP_H
#define TALLY_HW_LOOP_H

#include <stdint.h>

#define HW_LOOP_INSNS_PER_ITER 2

#if defined(__x86_64__)
#define HW_LOOP_EXACT 1
static inline void hw_loop_run(uint64_t n)
{
	if (n == 0)
		return;
	__asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}
#elif defined(__aarch64__)
#define HW_LOOP_EXACT 1
static inline void hw_loop_run(uint64_t n)
{
	if (n == 0)
		return;
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}
#else
#define HW_LOOP_EXACT 0
static inline void hw_loop_run(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i++)
		;
}
#endif

#endif
