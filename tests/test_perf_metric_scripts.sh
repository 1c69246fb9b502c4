#!/usr/bin/env bash
# perf 6.1's own tests of every metric and metric group (tools/perf/tests/shell/stat_all_metrics.sh and
# stat_all_metricgroups.sh) run against tally: a `perf` first in PATH that is tally, on the intel-server
# fixture with Ice Lake server's table (the built-in tables) and the fake PMU, so that each metric has
# counts. stat_all_metrics.sh wants each metric of `perf list --raw-dump metrics` printed by
# `perf stat -M NAME true`; stat_all_metricgroups.sh each group of `--raw-dump metricgroups` to run.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
source "$(dirname "$0")/cli_helpers/kernel_tree.sh"
TREE=${TALLY_KERNEL_61:-$(kernel_tree 6.1)}/tools/perf/tests/shell
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
[ -f "$TREE/stat_all_metrics.sh" ] || { echo "SKIP: no perf 6.1 source tree with tools/perf/tests/shell (linux-source-6.1 extracted, or TALLY_KERNEL_61)"; exit 77; }
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' && { echo "SKIP: tally is built with a sanitizer"; exit 77; }
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$TALLY" >"$WORK/bin/perf"
chmod +x "$WORK/bin/perf"
export PATH=$WORK/bin:$PATH LD_PRELOAD=$FAKE TALLY_CPUID=GenuineIntel-6-6A-0
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server
n=$(perf list --raw-dump metrics | wc -w)
g=$(perf list --raw-dump metricgroups | wc -w)
[ "$n" -gt 250 ] || fail "--raw-dump metrics: $n names"
bash "$TREE/stat_all_metrics.sh" >"$WORK/m" 2>&1 && ok "stat_all_metrics.sh: $n metrics printed" ||
	fail "stat_all_metrics.sh: $(grep -A3 "not printed" "$WORK/m" | head -20)"
sh "$TREE/stat_all_metricgroups.sh" >"$WORK/g" 2>&1 && ok "stat_all_metricgroups.sh: $g groups run" ||
	fail "stat_all_metricgroups.sh: $(tail -5 "$WORK/g")"
finish
