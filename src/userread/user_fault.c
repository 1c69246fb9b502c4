/* SPDX-License-Identifier: MIT */
/* The signal handler that makes a refused counter read an unreadable one (user_fault.h): where a fault
 * stopped at one of tally's read instructions, and what it changes to go on. */
#include "userread/user_fault.h"

#include "userread/user_group.h"
#include "userread/user_read.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

_Thread_local uint64_t tly_user_faults __attribute__((tls_model("initial-exec")));

#if defined(__x86_64__) || defined(__i386__)

#define FAULT_SIGNAL SIGSEGV
#if defined(__x86_64__)
#define REG_PC REG_RIP
#define REG_SELECT REG_RCX
#else
#define REG_PC REG_EIP
#define REG_SELECT REG_ECX
#endif

/* The linker's bounds of the section of rdpmc sites (user_read.h); weak: a link without any is empty. */
extern const int32_t __start_tly_rdpmc_sites[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_tly_rdpmc_sites[] __attribute__((weak, visibility("hidden")));

/* rdpmc raises #GP (SIGSEGV) where CR4.PCE is clear or the counter does not exist; it reads no memory,
 * so a SIGSEGV at its address is that. Its two bytes (0f 33) are stepped over, and ECX, which rdpmc
 * leaves as it is, becomes all ones: bit 31, which no index - 1 the kernel gives has, is the read's
 * "unreadable". */
bool tly_user_fault_fixup(int signo, void *context)
{
	ucontext_t *uc = context;
	if (signo != SIGSEGV)
		return false;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_PC];
	for (const int32_t *site = __start_tly_rdpmc_sites; site < __stop_tly_rdpmc_sites; site++) {
		if ((uintptr_t)((const char *)site + *site) == pc) {
			uc->uc_mcontext.gregs[REG_SELECT] = -1;
			uc->uc_mcontext.gregs[REG_PC] += 2;
			return true;
		}
	}
	return false;
}

#elif defined(__aarch64__)

#define FAULT_SIGNAL SIGILL

/* An `mrs` of a counter from EL0 without user access traps (SIGILL). The reads' table (user_read.c)
 * holds them at entries 1 .. 32, each at TLY_PMC_MRS_AT in its entry, followed by its `ret`: x17 (the
 * read's "unreadable") gets 1 and the read goes on at the `ret`. */
bool tly_user_fault_fixup(int signo, void *context)
{
	ucontext_t *uc = context;
	uintptr_t at = (uintptr_t)uc->uc_mcontext.pc - (uintptr_t)TLY_PMC_TABLE;
	if (signo != SIGILL || at < TLY_PMC_ENTRY_SIZE || at >= 33 * TLY_PMC_ENTRY_SIZE ||
	    at % TLY_PMC_ENTRY_SIZE != TLY_PMC_MRS_AT)
		return false;
	uc->uc_mcontext.regs[17] = 1;
	uc->uc_mcontext.pc += 4;
	return true;
}

#else

#define FAULT_SIGNAL 0

bool tly_user_fault_fixup(int signo, void *context)
{
	(void)signo, (void)context;
	return false;
}

#endif

/* The dispositions before tally's: of SIGSEGV (a page missing in a raw clone's child, and x86's refused
 * rdpmc), and of SIGILL (arm64's refused mrs). */
static struct sigaction before_segv, before_ill;

/* A load from a page of a group that another process mapped (this one a raw clone's child, where the
 * kernel did not copy it): a zero page there, read by the protocol as one without cap_user_rdpmc, so the
 * read that faulted goes on and ends in read(2). The real mmap, not the system-call table's: a handler
 * must not call what a test swapped in. */
static bool map_missing_page(int signo, const siginfo_t *info)
{
	void *page;
	size_t size;
	return signo == SIGSEGV && info->si_code == SEGV_MAPERR && tly_user_page_elsewhere(info->si_addr, &page, &size) &&
	       mmap(page, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == page;
}

static void on_fault(int signo, siginfo_t *info, void *context)
{
	if (tly_user_fault_fixup(signo, context)) {
		tly_user_faults++;
		return;
	}
	if (map_missing_page(signo, info))
		return;
	const struct sigaction *before = signo == SIGSEGV ? &before_segv : &before_ill;
	if (before->sa_flags & SA_SIGINFO) {
		before->sa_sigaction(signo, info, context);
		return;
	}
	if (before->sa_handler != SIG_DFL && before->sa_handler != SIG_IGN) {
		before->sa_handler(signo);
		return;
	}
	/* The disposition before tally's, back: a fault comes again as this returns, and takes it; a signal
	 * that was sent (si_code SI_USER, SI_TKILL... all <= 0) is sent again. */
	sigaction(signo, before, NULL);
	if (info->si_code <= 0 && before->sa_handler == SIG_DFL)
		raise(signo);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* On the program's alternate stack where it has one (a handler of stack overflows). */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &before_segv);
	if (FAULT_SIGNAL == SIGILL)
		sigaction(SIGILL, &sa, &before_ill);
}

void tly_user_fault_watch(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, install);
}
