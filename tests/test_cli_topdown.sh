#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat --topdown and --td-level N (issue 12): perf's flags, as -M TopdownL1 (and TopdownL2). Where the
# top-down events do not exist (this VM; AMD, arm64, Intel before Icelake) the command still runs, with the
# default events, and each metric reads <not available> with its reason (perf 6.1 refuses to run); where
# they exist but do not open (the Alder Lake fixture tree on this machine) the same, saying so; level 0 is
# the deepest (2); a deeper level than the catalogue has is a usage error. With -j the metrics are in
# "metrics", not available, each with its reason, and the document is valid against the schema.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
L1="tma_retiring tma_bad_speculation tma_frontend_bound tma_backend_bound"
L2="tma_heavy_operations tma_light_operations tma_branch_mispredicts tma_machine_clears tma_fetch_latency tma_fetch_bandwidth tma_memory_bound tma_core_bound"

# The metric names of a CSV result, in order.
csv_metrics() { grep '^,,tma_' "$1" | cut -d, -f3 | tr '\n' ' ' | sed 's/ $//'; }

"$TALLY" stat --topdown -- sh -c 'exit 3' 2>"$WORK/err"
status=$?
[ $status = 3 ] && grep -q '<not available>      tma_retiring' "$WORK/err" &&
	grep -q '^ <not available> tma_backend_bound: ' "$WORK/err" && ! grep -q tma_heavy_operations "$WORK/err" &&
	ok "--topdown: the command runs (its status), level 1 each with its reason" ||
	fail "--topdown: status $status: $(cat "$WORK/err")"

"$TALLY" stat --topdown -x, -- true 2>"$WORK/err"
[ "$(csv_metrics "$WORK/err")" = "$L1" ] && grep -q '^,,tma_retiring,,,<not available>,%$' "$WORK/err" &&
	ok "--topdown -x,: the four level-1 metrics" || fail "--topdown -x,: $(cat "$WORK/err")"

for level in 2 0; do
	"$TALLY" stat --td-level $level -x, -- true 2>"$WORK/err"
	[ "$(csv_metrics "$WORK/err")" = "$L1 $L2" ] && ok "--td-level $level: levels 1 and 2" ||
		fail "--td-level $level: $(cat "$WORK/err")"
done
"$TALLY" stat --td-level 1 -x, -- true 2>"$WORK/err"
[ "$(csv_metrics "$WORK/err")" = "$L1" ] && ok "--td-level 1: level 1" || fail "--td-level 1: $(cat "$WORK/err")"

"$TALLY" stat --td-level 7 -- true 2>"$WORK/err"
[ $? = 2 ] && grep -q -- '--td-level wants a level from 0 to 6' "$WORK/err" && ok "--td-level 7: a usage error" ||
	fail "--td-level 7: $(cat "$WORK/err")"

# -M and --topdown add up, -M's first.
"$TALLY" stat -M CPUs_utilized --topdown -j -- true 2>"$WORK/err"
python3 - "$WORK/err" "$L1" <<'PY' && ok "-j: -M's metric, then level 1, each not available with a reason" ||
import json, sys
doc = json.load(open(sys.argv[1]))
names = [m["name"] for m in doc["metrics"]]
assert names == ["CPUs_utilized"] + sys.argv[2].split(), names
assert doc["metrics"][0]["available"], doc["metrics"][0]
for m in doc["metrics"][1:]:
	assert not m["available"] and m["value"] is None and m["reason"], m
PY
	fail "-j: $(cat "$WORK/err")"
if [ -f "$(dirname "$0")/cli_helpers/validate_json_schema.py" ]; then
	python3 "$(dirname "$0")/cli_helpers/validate_json_schema.py" "$(dirname "$0")/../docs/json-schema.json" \
		"$WORK/err" >"$WORK/v" 2>&1 && ok "-j: valid against the schema" || fail "schema: $(cat "$WORK/v")"
fi

# Alder Lake's tree: the events exist (on cpu_core) but this machine cannot open them.
TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$(dirname "$0")/fixtures}/sysfs/hybrid "$TALLY" stat --topdown -- true 2>"$WORK/err"
status=$?
# (the catalogue's metric, or the vendor table's where this host's CPU has one: its events then)
[ $status = 0 ] && grep -q '^ <not available> tma_retiring: .*not supported on this machine' "$WORK/err" &&
	ok "--topdown on the Alder Lake tree: the events do not open here, and the metrics say so" ||
	fail "--topdown on hybrid: status $status: $(cat "$WORK/err")"
finish
