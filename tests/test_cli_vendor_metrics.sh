#!/usr/bin/env bash
# tally stat -M with a vendor table: the intel-server fixture with Ice Lake server's table
# (TALLY_CPUID=GenuineIntel-6-6A-0), counts from the fake PMU (tests/fake_pmu.c). TopdownL1 in any case
# gives the table's four level-1 metrics, each the value its expression gives over the printed counts;
# the thresholds are marked in the table, CSV and JSON; a name the table lacks is the catalogue's; a
# system PMU's own table's metrics join the cores' (arm64-soc).
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server
export TALLY_CPUID=GenuineIntel-6-6A-0
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' && { echo "SKIP: tally is built with a sanitizer"; exit 77; }
run() { LD_PRELOAD=$FAKE "$TALLY" stat "$@" -- true 2>&1; }

csv=$(run -x, -M topdownl1)
python3 - "$csv" <<'PY' && ok "-M topdownl1: the table's level 1, from the counts" || fail "-M topdownl1: $csv"
import sys
rows = [l.split(',') for l in sys.argv[1].splitlines()]
count = {r[2]: float(r[0]) for r in rows if r[0]}
metric = {r[2]: float(r[5]) for r in rows if not r[0] and r[2].startswith('tma_')}
fe, bs, ret, be = (count['topdown-' + n] for n in ('fe-bound', 'bad-spec', 'retiring', 'be-bound'))
total = fe + bs + ret + be
want = {'tma_retiring': 100 * ret / total,
        'tma_frontend_bound': 100 * (fe / total - count['INT_MISC.UOP_DROPPING'] / count['TOPDOWN.SLOTS'])}
assert sorted(metric) == ['tma_backend_bound', 'tma_bad_speculation', 'tma_frontend_bound', 'tma_retiring'], metric
for name, value in want.items():
    assert abs(metric[name] - value) < 5e-4, (name, metric[name], value)
PY
grep -q '^,,tma_frontend_bound,,,[0-9.]*,%,over-threshold$' <<<"$csv" &&
	ok "CSV: a metric over its threshold has the field" || fail "CSV threshold: $csv"
table=$(run -M TopdownL1)
grep -q 'tma_frontend_bound  *# %  (over its threshold)' <<<"$table" && ok "table: marked" || fail "table: $table"
json=$(run -j -M tma_frontend_bound)
python3 -c 'import json, sys; m = json.loads(sys.argv[1])["metrics"][0]; assert m["over_threshold"] is True, m' "$json" &&
	ok "JSON: over_threshold" || fail "JSON: $json"
# Several -M add up; a name the table lacks (IPC: 6.12 calls it tma_info_thread_ipc) is the catalogue's.
out=$(run -x, -M tma_retiring -M IPC)
grep -q '^,,tma_retiring,' <<<"$out" && grep -q '^,,IPC,,,[0-9.]*,insn per cycle' <<<"$out" &&
	ok "-M tma_retiring -M IPC: the table's and the catalogue's" || fail "two -M: $out"
# An event the fixture's table names but this machine cannot open: not available, with the reason.
out=$(TALLY_SYSFS_ROOT=$TALLY_SYSFS_ROOT "$TALLY" stat -M tma_info_thread_ipc -- true 2>&1)
grep -q '<not available> tma_info_thread_ipc: .*not supported on this machine' <<<"$out" &&
	ok "without the fake PMU: not available, with the reason" || fail "no PMU: $out"
# --drilldown: the tree; a node's children only under a node over its threshold (or above --td-level), the
# '>' path a chain from level 1 down, each node one over its threshold.
tree() { sed -n '/Top-down drill-down/,/seconds time elapsed/p' <<<"$1" | grep '%  *tma_'; }
check_tree() {
	python3 - "$1" "$2" <<'PY'
import re, sys
levels, over, path = [], [], []
for line in sys.argv[1].splitlines():
    m = re.match(r' ([> ]) +(\S+|<not available>) %( +)(tma_\w+)(  \(over its threshold\))?$', line)
    assert m, line
    levels.append((len(m.group(3)) - 1) // 2 + 1)
    over.append(bool(m.group(5)))
    path.append(m.group(1) == '>')
td = int(sys.argv[2])
assert levels and levels[0] == 1
for i in range(1, len(levels)):
    parent = max(j for j in range(i) if levels[j] == levels[i] - 1) if levels[i] > 1 else None
    assert levels[i] <= levels[i - 1] + 1
    if parent is not None:
        assert over[parent] or levels[parent] < td, (i, parent)
        assert not path[i] or path[parent], ('path', i)
assert all(over[i] for i in range(len(path)) if path[i])
print(len(levels))
PY
}
out=$(FAKE_PMU_SPREAD=1000000 run --drilldown)
n=$(check_tree "$(tree "$out")" 1) && ok "--drilldown: $n nodes, children under nodes over their threshold" ||
	fail "--drilldown: $out"
out=$(FAKE_PMU_SPREAD=1000000 run --drilldown --td-level 6)
all=$(check_tree "$(tree "$out")" 6) && [ "$all" -ge "$n" ] && ok "--drilldown --td-level 6: all $all nodes" ||
	fail "--drilldown --td-level 6: $all nodes, $n by threshold"
# A table without the top-down tree (AMD Zen 1's has no tma_* metrics): --drilldown prints no tree
# heading, only the metrics it counted (the catalogue's level 1).
out=$(TALLY_CPUID=AuthenticAMD-23-01-0 run --drilldown -M IPC)
grep -q 'tma_retiring' <<<"$out" && ! grep -q 'Top-down drill-down' <<<"$out" &&
	ok "--drilldown with a table without a TMA tree: no tree" || fail "--drilldown without a tree: $out"

# tally encode -M: the events a metric set opens, grouped as tally stat -M counts them.
out=$("$TALLY" encode -M TopdownL1 2>&1)
grep -q '^group 0 (7 events, leader TOPDOWN.SLOTS)' <<<"$out" && ! grep -q '^group 1' <<<"$out" &&
	ok "encode -M TopdownL1: one group of 7, slots first" || fail "encode -M TopdownL1: $out"
out=$("$TALLY" encode -M tma_info_thread_ipc cs 2>&1)
grep -q '^# cs,{INST_RETIRED.ANY,CPU_CLK_UNHALTED.THREAD}:W' <<<"$out" &&
	ok "encode SPEC -M: the spec, then the metrics' group" || fail "encode -M with a spec: $(head -3 <<<"$out")"

# The system PMUs' own tables' metrics (the arm64-soc fixture: an i.MX8MM DDR controller, a CMN-700),
# beside the cores': each the value its expression gives over the printed counts, with its ScaleUnit.
soc=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/arm64-soc
csv=$(TALLY_SYSFS_ROOT=$soc TALLY_CPUID= run -x, -M imx8mm_ddr_read.all,slc_miss_rate)
python3 - "$csv" <<'PY' && ok "system tables' metrics: imx8mm_ddr_read.all (KB) and slc_miss_rate (%) from their counts" ||
import sys
rows = [line.split(',') for line in sys.argv[1].splitlines()]
count = {r[2]: float(r[0]) for r in rows if len(r) > 2 and r[0]}
value = {r[2]: (float(r[5]), r[6]) for r in rows if len(r) > 6 and not r[0] and r[5]}
ddr = count['imx8mm_ddr.read_cycles'] * 4 * 4 * 9.765625e-4
miss = count['hnf_cache_miss'] / count['hnf_slc_sf_cache_access'] * 100
ok = abs(value['imx8mm_ddr_read.all'][0] - ddr) <= 0.5e-3 and value['imx8mm_ddr_read.all'][1] == 'KB' and \
    abs(value['slc_miss_rate'][0] - miss) <= 0.5e-3 and value['slc_miss_rate'][1] == '%'
sys.exit(0 if ok else 1)
PY
	fail "system tables' metrics: $csv"
out=$(TALLY_SYSFS_ROOT=$soc TALLY_CPUID= "$TALLY" list --metrics 2>&1)
grep -q '^  imx8mm_ddr_read.all ' <<<"$out" && grep -q '^  slc_miss_rate ' <<<"$out" && ! grep -q 'imx8mq_ddr' <<<"$out" &&
	ok "list --metrics: the metrics of the tables this machine's system PMUs take, not another i.MX's" ||
	fail "list --metrics of system PMUs: $(grep -c . <<<"$out") lines"
finish
