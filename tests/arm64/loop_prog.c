/* SPDX-License-Identifier: MIT */
/*
 * loop N: the workload of the CLI cases (cli_* in tests/arm64/suite.c), a freestanding static aarch64 program
 * (built with -nostdlib -static: no libc start-up, no dynamic loader) whose user-mode instruction count
 * is known from its listing alone:
 *
 *     instructions = 2 x N + 5 x D + 10        (N >= 1 written with D decimal digits, no sign)
 *
 *   - 4 set-up: ldr argv[1], cbz on a missing argument, two movs;
 *   - 5 per digit (ldrb, cbz, sub, madd, b) and 2 for the terminating NUL (ldrb, cbz);
 *   - 1 cbz that skips the loop when N is 0, then N iterations of subs + b.ne = 2 x N;
 *   - 3 to leave: mov, mov, svc (exit_group). QEMU counts the svc as retired at EL0, the instruction
 *     that traps; nothing after it runs in user mode.
 *
 * Counting starts at the exec (the CLI opens its events with enable_on_exec), so these are all the user
 * instructions of the process. Without an argument it exits 2 after 5 instructions; it never prints.
 */
#if !defined(__aarch64__)
#error "loop_prog is an aarch64 program"
#endif

__asm__(".text\n"
        ".globl _start\n"
        ".type _start, %function\n"
        "_start:\n"
        "	ldr x1, [sp, #16]\n" /* argv[1]: sp holds argc, argv[0], argv[1], ... */
        "	cbz x1, 5f\n"
        "	mov x0, #0\n"
        "	mov x3, #10\n"
        "1:	ldrb w2, [x1], #1\n"
        "	cbz w2, 2f\n"
        "	sub w2, w2, #48\n" /* '0' */
        "	madd x0, x0, x3, x2\n"
        "	b 1b\n"
        "2:	cbz x0, 4f\n"
        "3:	subs x0, x0, #1\n"
        "	b.ne 3b\n"
        "4:	mov x0, #0\n"
        "	mov x8, #94\n" /* __NR_exit_group */
        "	svc #0\n"
        "5:	mov x0, #2\n"
        "	mov x8, #94\n"
        "	svc #0\n"
        ".size _start, . - _start\n");
