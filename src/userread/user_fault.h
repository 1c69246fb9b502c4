/* SPDX-License-Identifier: MIT */
/*
 * A counter read that the machine refuses after the kernel allowed it, survived: the signal it raises at
 * one of tally's own read instructions makes that read "unreadable" (user_read.h), and the group's read
 * goes to read(2), instead of the measured program dying. The page cannot say so in time:
 *
 *   - x86, `echo 0 > /sys/bus/event_source/devices/cpu/rdpmc` while a program runs: set_attr_rdpmc
 *     clears CR4.PCE on every CPU at once (on_each_cpu(cr4_update_pce)), but events already open keep
 *     PERF_EVENT_FLAG_USER_READ_CNT, so their pages keep cap_user_rdpmc and their index
 *     (x86_pmu_event_idx; arch/x86/events/core.c, 6.12): the next rdpmc raises #GP, SIGSEGV;
 *   - x86 hybrid: a thread preempted between reading a page's index and its rdpmc, and moved from a P-core
 *     to an E-core, runs the rdpmc of a cpu_core counter there (fixed counter 3, PERF_METRICS: #GP). The
 *     counts themselves need no CPU check: leaving the P-core schedules the events out, and x86_pmu_del
 *     updates their pages (index 0, the lock moved) before the thread runs elsewhere, where the events
 *     never schedule in (intel_pmu_filter, event_filter_match); so a pass whose locks held still read
 *     its counters on the CPU whose counters they were;
 *   - arm64, sysctl kernel.perf_user_access set to 0 while a program runs: EL0 access is taken away at
 *     once, and the next `mrs` of a counter traps (SIGILL), the page being updated only at the event's
 *     next schedule (the rig's fast_read_user_access_taken_away: the suite died of it before);
 *   - a child made by a raw clone(2), where no atfork handler ran: its thread's token is still its
 *     parent's, but the pages are not there (VM_DONTCOPY): a load from one faults (SIGSEGV, SEGV_MAPERR),
 *     and the handler maps a zero page in its place (tly_user_page_elsewhere), which the protocol reads
 *     as a page without cap_user_rdpmc: read(2) answers.
 *
 * The handler is installed once, when a group is first set up to read from user space; a read at a site
 * that faults costs a signal, and a group whose user-space reads fault twice with no success between is
 * read with read(2) from then on (tly_user_group_revoke). A signal anywhere else goes to the handler
 * that was installed before tally's (called with the same arguments), or takes the default action.
 */
#ifndef TLY_USER_FAULT_H
#define TLY_USER_FAULT_H

#include <stdbool.h>
#include <stdint.h>

/* The calling thread's faults at tally's read sites so far (made by the handler, on that thread). */
extern _Thread_local uint64_t tly_user_faults __attribute__((tls_model("initial-exec")));

/* Installs the handler (of SIGSEGV, and of SIGILL on arm64), once per process; later calls do nothing. */
void tly_user_fault_watch(void);

/* The handler's decision on a signal's context (a ucontext_t): true, with the context changed to go on
 * after the read as an unreadable one, when it stopped at one of tally's read instructions. */
bool tly_user_fault_fixup(int signo, void *context);

#endif
