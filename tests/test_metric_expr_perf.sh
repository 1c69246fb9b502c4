#!/usr/bin/env bash
# Every MetricExpr and MetricThreshold of perf's vendor tables (6.1 and 6.12, every architecture, from
# the kernel source trees kernel_tree finds, or $TALLY_KERNEL_TREES) parses with tally's metric expression
# parser: the count per tree is printed, and any expression that does not parse fails the test.
set -uo pipefail
: "${TALLY_BUILD:?}"
CHECK=$TALLY_BUILD/tests/metric_expr_check
[ -x "$CHECK" ] || { echo "SKIP: $CHECK not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0 trees=0
source "$(dirname "$0")/cli_helpers/kernel_tree.sh"
for tree in ${TALLY_KERNEL_TREES:-$(kernel_tree 6.1) $(kernel_tree 6.12)}; do
	arch=$tree/tools/perf/pmu-events/arch
	[ -d "$arch" ] || continue
	trees=$((trees + 1))
	python3 - "$arch" >"$WORK/exprs" <<'PY'
import json, os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in sorted(files):
        if not f.endswith('.json'):
            continue
        try:
            records = json.load(open(os.path.join(root, f)))
        except ValueError:
            continue
        for r in records if isinstance(records, list) else []:
            for key in ('MetricExpr', 'MetricThreshold'):
                if isinstance(r, dict) and r.get(key):
                    print(' '.join(r[key].split()))
PY
	if out=$("$CHECK" <"$WORK/exprs"); then
		echo "ok   ${tree##*/}: ${out##*$'\n'} (MetricExpr and MetricThreshold, every architecture)"
	else
		echo "FAIL: ${tree##*/}:"
		echo "$out" | head -40
		failures=$((failures + 1))
	fi
done
[ $trees -gt 0 ] || { echo "SKIP: no kernel source tree with perf's pmu-events"; exit 77; }
[ $failures -eq 0 ] || exit 1
echo "all passed"
