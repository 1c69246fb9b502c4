#!/usr/bin/env bash
# perf's consistency rules (TMA level 1 sums to 100%, children to their parent) on tally's evaluation of
# every x86 model's TMA tree in perf 6.12's tables, over constructed counts (tests/metric_rules.py).
set -uo pipefail
: "${TALLY_BUILD:?}" "${TALLY_SOURCE:?}"
source "$(dirname "$0")/cli_helpers/kernel_tree.sh"
TREE=${TALLY_KERNEL_612:-$(kernel_tree 6.12)}
EVAL=$TALLY_BUILD/tests/metric_table_eval
[ -x "$EVAL" ] || { echo "SKIP: $EVAL not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
[ -f "$TREE/tools/perf/tests/shell/lib/perf_metric_validation_rules.json" ] ||
	{ echo "SKIP: no perf 6.12 source tree (linux-source-6.12 extracted, or TALLY_KERNEL_612)"; exit 77; }
python3 "$TALLY_SOURCE/tests/metric_rules.py" "$EVAL" "$TREE"
