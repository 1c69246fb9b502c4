/* SPDX-License-Identifier: MIT */
/*
 * arm64's table of counter reads (user_read.h's tly_arch_read_pmc), one entry for each value of the
 * index's low byte: entry k + 1 reads PMEVCNTR<k>_EL0 (k = 0 .. 30) and entry 32 PMCCNTR_EL0, into x16;
 * entry 0 (off its counter) and 33 .. 255 (no counter this reads) set w17 to 1, the read's "unreadable".
 * Each returns. Elsewhere the counter is read inline (x86's rdpmc), and this file is empty.
 */
#include "userread/user_read.h"

#if defined(__aarch64__)

#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define ENTRY(mrs) "\thint 34\n\t" mrs "\n\tret\n\tnop\n" /* bti c: a target of blr */
#else
#define ENTRY(mrs) "\t" mrs "\n\tret\n"
#endif
#define EVENT_COUNTER(k) ENTRY("mrs x16, pmevcntr" #k "_el0")
#define NAME_OF(table) #table
#define NAME(table) NAME_OF(table)

__asm__(".pushsection .text." NAME(TLY_PMC_TABLE) ",\"ax\",%progbits\n"
        ".p2align 4\n"
        ".globl " NAME(TLY_PMC_TABLE) "\n"
        ".hidden " NAME(TLY_PMC_TABLE) "\n"
        ".type " NAME(TLY_PMC_TABLE) ", %function\n"
        NAME(TLY_PMC_TABLE) ":\n"
        ENTRY("mov w17, #1")
        EVENT_COUNTER(0) EVENT_COUNTER(1) EVENT_COUNTER(2) EVENT_COUNTER(3) EVENT_COUNTER(4)
        EVENT_COUNTER(5) EVENT_COUNTER(6) EVENT_COUNTER(7) EVENT_COUNTER(8) EVENT_COUNTER(9)
        EVENT_COUNTER(10) EVENT_COUNTER(11) EVENT_COUNTER(12) EVENT_COUNTER(13) EVENT_COUNTER(14)
        EVENT_COUNTER(15) EVENT_COUNTER(16) EVENT_COUNTER(17) EVENT_COUNTER(18) EVENT_COUNTER(19)
        EVENT_COUNTER(20) EVENT_COUNTER(21) EVENT_COUNTER(22) EVENT_COUNTER(23) EVENT_COUNTER(24)
        EVENT_COUNTER(25) EVENT_COUNTER(26) EVENT_COUNTER(27) EVENT_COUNTER(28) EVENT_COUNTER(29)
        EVENT_COUNTER(30)
        ENTRY("mrs x16, pmccntr_el0")
        ".rept 256 - 33\n"
        ENTRY("mov w17, #1")
        ".endr\n"
        ".size " NAME(TLY_PMC_TABLE) ", . - " NAME(TLY_PMC_TABLE) "\n"
        ".popsection\n");

#endif
