#!/bin/bash
# SPDX-License-Identifier: MIT
# tally list's descriptions of the vendor tables' events against perf 6.1's `perf list` (what perf 6.1's
# jevents appends: ". Unit: uncore_imc", " (Precise event)", "  Spec update: ..."): every x86 model of
# perf 6.1's mapfile over a fixture sysfs tree, with perf 6.1's own tree (TALLY_PMU_EVENTS) and, the
# differences counted, with the built-in tables (tests/pmu_events_descriptions.py says how).
# Needs perf 6.1, root and `unshare -m` (perf sees the fixture through a bind mount), and perf 6.1's
# pmu-events tree: $PERF61_PMU_EVENTS, else Debian's linux-source-6.1 extracted.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
source=${TALLY_SOURCE:-$(dirname "$0")/..}
source "$source/tests/cli_helpers/kernel_tree.sh"
perf61_oracle
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
unshare -m python3 "$source/tests/pmu_events_descriptions.py" "$TALLY" "$PERF61_TREE" "$source" "$WORK"
