#!/bin/bash
# SPDX-License-Identifier: MIT
# The vendor tables against perf 6.1's own compiled ones, with no perf and no root needed (x86's perf
# carries only x86 tables, so arm64 had no comparison at all): perf 6.1's jevents.py compiles its tree
# into the C tables a perf 6.1 carries, read back by a small driver. Every core event of its 28 arm64
# models must be listed by tally (TALLY_PMU_EVENTS at the same tree, the arm64 fixture, TALLY_CPUID the
# model's MIDR) with perf's terms and descriptions and encode to the config its terms say; every event of
# its 33 x86 models on a PMU of the fixture of its kind, with perf's terms and descriptions; the events of
# a model's uncore Units (hip08's hisi_sccl,ddrc ...) on a fixture with a PMU of each; every event of its
# 5 arm64 system PMU tables (sys/ folders) on a fixture whose PMUs have the table's Compat as their sysfs
# identifier. Then every
# core event of the 24 built-in arm64 models encodes as 6.12's JSON says, ArchStdEvent references
# resolved from the common files (tests/pmu_events_jevents.py says how). Needs python3, a C compiler and
# Debian's linux-source-6.1 and -6.12 extracted (tools/perf/pmu-events), or PERF61_PMU_EVENTS /
# PERF612_PMU_EVENTS.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
source=${TALLY_SOURCE:-$(dirname "$0")/..}
source "$source/tests/cli_helpers/kernel_tree.sh"
old=${PERF61_PMU_EVENTS:-$(kernel_tree 6.1)/tools/perf/pmu-events/arch}
new=${PERF612_PMU_EVENTS:-$(kernel_tree 6.12)/tools/perf/pmu-events/arch}
ENCODE=$TALLY_BUILD/tests/encode_spec
CC=${CC:-cc}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler ($CC) to build perf 6.1's generated tables"; exit 77; }
[ -f "$old/arm64/mapfile.csv" ] && [ -f "$old/../jevents.py" ] && [ -f "$old/../pmu-events.h" ] ||
	{ echo "SKIP: no perf 6.1 pmu-events tree with jevents.py (extract linux-source-6.1's tools/perf/pmu-events, or set PERF61_PMU_EVENTS)"; exit 77; }
[ -f "$new/arm64/mapfile.csv" ] ||
	{ echo "SKIP: no perf 6.12 pmu-events tree (extract linux-source-6.12's tools/perf/pmu-events, or set PERF612_PMU_EVENTS)"; exit 77; }
[ -x "$ENCODE" ] || { echo "SKIP: $ENCODE not built"; exit 77; }
python3 "$source/tests/pmu_events_jevents.py" "$TALLY" "$ENCODE" "$old" "$new" "$source" "$WORK" "$CC"
