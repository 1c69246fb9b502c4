/* SPDX-License-Identifier: MIT */
/* The loop shapes of loops.h. Each is a separate function so that the compiler cannot merge or unroll
 * them; the asm alone decides how many instructions an iteration retires. */
#include "loops.h"

#if !defined(__aarch64__)
#error "the arm64 hardware suite is built for aarch64 only"
#endif

/* subs + b.ne: the smallest counted loop. */
static __attribute__((noinline)) void loop_branch(uint64_t n)
{
	__asm__ volatile("1: subs %0, %0, #1\n\t"
	                 "b.ne 1b"
	                 : "+r"(n)
	                 :
	                 : "cc");
}

/* Two independent ALU operations between the decrement and the branch. */
static __attribute__((noinline)) void loop_alu(uint64_t n)
{
	uint64_t a = 0, b = 1;
	__asm__ volatile("1: add %1, %1, #3\n\t"
	                 "eor %2, %2, %1\n\t"
	                 "subs %0, %0, #1\n\t"
	                 "b.ne 1b"
	                 : "+r"(n), "+r"(a), "+r"(b)
	                 :
	                 : "cc");
}

/* A load, an add and a store to the stack per iteration. */
static __attribute__((noinline)) void loop_memory(uint64_t n)
{
	uint64_t cell = 0, tmp;
	__asm__ volatile("1: ldr %1, [%2]\n\t"
	                 "add %1, %1, #1\n\t"
	                 "str %1, [%2]\n\t"
	                 "subs %0, %0, #1\n\t"
	                 "b.ne 1b"
	                 : "+r"(n), "=&r"(tmp)
	                 : "r"(&cell)
	                 : "cc", "memory");
}

/* An inner loop of three cbnz iterations inside each outer iteration: mov + 3 x (sub + cbnz) + subs +
 * b.ne = 9. */
static __attribute__((noinline)) void loop_nested(uint64_t n)
{
	uint64_t inner;
	__asm__ volatile("1: mov %1, #3\n\t"
	                 "2: sub %1, %1, #1\n\t"
	                 "cbnz %1, 2b\n\t"
	                 "subs %0, %0, #1\n\t"
	                 "b.ne 1b"
	                 : "+r"(n), "=&r"(inner)
	                 :
	                 : "cc");
}

/* A call and return per iteration: bl + ret + subs + b.ne = 4 (the closing branch over the leaf runs
 * once, outside the loop). */
static __attribute__((noinline)) void loop_call(uint64_t n)
{
	__asm__ volatile("1: bl 2f\n\t"
	                 "subs %0, %0, #1\n\t"
	                 "b.ne 1b\n\t"
	                 "b 3f\n\t"
	                 "2: ret\n\t"
	                 "3:"
	                 : "+r"(n)
	                 :
	                 : "cc", "x30");
}

const struct loop_shape loop_shapes[] = {
	{"branch", 2, loop_branch},
	{"alu", 4, loop_alu},
	{"memory", 5, loop_memory},
	{"nested", 9, loop_nested},
	{"call", 4, loop_call},
};
const size_t nr_loop_shapes = sizeof(loop_shapes) / sizeof(loop_shapes[0]);
