#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The vendors' metrics in named regions (TALLY_METRICS, tally stat --regions -M): examples/regions on the
# intel-server fixture with Ice Lake server's table (TALLY_CPUID=GenuineIntel-6-6A-0), counts from the fake
# PMU (tests/fake_pmu.c) grown by each read (FAKE_PMU_GROWTH=1), so that every call of a region that holds
# no other counts each event's fixed count exactly once: "sum" (one call) reads each count, "touch" (200
# calls) 200 times it. Each region's metric is its expression over that region's own sums, to the last
# bit, and the same value tally stat -M prints from the same counts; thresholds are marked as tally stat
# marks them, in the table, CSV and JSON (valid against docs/json-schema.json). Names and groups in any
# case; the table's items and the catalogue's side by side; perf 6.1's tables (IpLoad) through
# TALLY_PMU_EVENTS. Wrong inputs: an unknown metric says so on stderr (the output too), a metric whose
# events this machine cannot count reads not available with the reason; neither touches the program's
# stdout or exit status.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
source "$(dirname "$0")/cli_helpers/kernel_tree.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
PROG=$TALLY_BUILD/examples/regions
SCHEMA=${TALLY_SOURCE:?}/docs/json-schema.json
VALIDATE=$TALLY_SOURCE/tests/cli_helpers/validate_json_schema.py
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
[ -x "$PROG" ] || { echo "SKIP: $PROG not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse JSON"; exit 77; }
ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' && { echo "SKIP: tally is built with a sanitizer"; exit 77; }
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server
export TALLY_CPUID=GenuineIntel-6-6A-0 TMPDIR=$WORK
unset TALLY_OUTPUT TALLY_EVENTS TALLY_METRICS TALLY_PMU_EVENTS
EXPECT="sum 2147450880"

same_program() { # NAME STATUS STDOUT-FILE
	[ "$2" -eq 3 ] && [ "$(cat "$3")" = "$EXPECT" ] && ok "$1: the program's stdout and exit status" ||
		fail "$1: exit status $2, stdout '$(head -c 200 "$3")'"
}
# regions OUTPUT METRICS: the program under the fake PMU, its regions written to OUTPUT
regions() {
	FAKE_PMU_GROWTH=1 LD_PRELOAD=$FAKE TALLY_EVENTS=instructions TALLY_OUTPUT=$1 TALLY_METRICS=$2 "$PROG" 3 \
		>"$WORK/out" 2>"$WORK/err"
}

# Level 1 by its group name in lower case: the table's four metrics in every row, from the row's sums.
regions "$WORK/l1.json" topdownl1; same_program "TALLY_METRICS=topdownl1" $? "$WORK/out"
[ -s "$WORK/err" ] && fail "topdownl1: stderr '$(head -3 "$WORK/err")'"
# A regions document alone (TALLY_OUTPUT=x.json) is the schema's "regions" object.
python3 - "$VALIDATE" "$SCHEMA" "$WORK/l1.json" >"$WORK/why" <<'PY' && ok "topdownl1: JSON valid against the schema" ||
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("v", sys.argv[1])
v = importlib.util.module_from_spec(spec)
spec.loader.exec_module(v)
schema, errors = json.load(open(sys.argv[2])), []
v.validate(schema, schema["$defs"]["regions"], json.load(open(sys.argv[3])), "$", errors)
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
	fail "topdownl1 schema: $(head -5 "$WORK/why")"
python3 - "$WORK/l1.json" <<'PY' && ok "topdownl1: every region's level 1 from its own sums, exactly" ||
import json, sys
d = json.load(open(sys.argv[1]))
regions = {r["name"]: r for r in d["regions"]}
rows = [r for r in d["regions"]] + [t for r in d["regions"] for t in r.get("threads", [])]
assert len(rows) == 7, len(rows)  # fill, touch: all and 2 threads; sum: all
want_names = ["tma_backend_bound", "tma_bad_speculation", "tma_frontend_bound", "tma_retiring"]
for row in rows:
    s = {e["event"]: e["sum"] for e in row["events"]}
    m = {x["name"]: x for x in row["metrics"]}
    assert [x["name"] for x in row["metrics"]] == want_names, row["metrics"]
    fe, bs, ret, be = (s["topdown-" + n] for n in ("fe-bound", "bad-spec", "retiring", "be-bound"))
    total = fe + bs + ret + be
    want = {"tma_retiring": 100 * (ret / total),
            "tma_frontend_bound": 100 * (fe / total - s["INT_MISC.UOP_DROPPING"] / s["TOPDOWN.SLOTS"])}
    for name, value in want.items():
        assert m[name]["available"] and m[name]["unit"] == "%", m[name]
        assert abs(m[name]["value"] - value) <= 1e-12 * abs(value), (name, m[name]["value"], value)
    # tma_retiring's threshold reads tma_heavy_operations, whose events level 1 does not count: none
    assert m["tma_frontend_bound"]["over_threshold"] is True and m["tma_bad_speculation"]["over_threshold"] is False, m
    assert "over_threshold" not in m["tma_retiring"], m
# a call that holds no other region reads each count once: "touch" is 200 times "sum"
one = {e["event"]: e["sum"] for e in regions["sum"]["events"]}
touch = {e["event"]: e["sum"] for e in regions["touch"]["events"]}
assert regions["touch"]["calls"] == 200 and all(touch[k] == 200 * one[k] > 0 for k in one), (one, touch)
PY
	fail "topdownl1 content: $(head -c 600 "$WORK/l1.json")"

# The same values tally stat -M prints over the same counts (it reads each once).
stat=$(LD_PRELOAD=$FAKE "$TALLY" stat -x, -M TopdownL1 -- true 2>&1)
python3 - "$WORK/l1.json" "$stat" <<'PY' && ok "topdownl1: each region's value is tally stat -M's" || fail "stat: $stat"
import json, sys
d = json.load(open(sys.argv[1]))
stat = {r[2]: float(r[5]) for r in (l.split(",") for l in sys.argv[2].splitlines()) if len(r) > 5 and not r[0] and r[5]}
for row in d["regions"]:
    for m in row["metrics"]:
        assert "%.3f" % m["value"] == "%.3f" % stat[m["name"]], (row["name"], m, stat)
PY

# A name and a group of the table and a catalogue name, any case: the table's after the catalogue's, as
# tally stat -M orders them; IPC from the catalogue's own group.
regions "$WORK/mix.txt" 'IPC,TMA_Retiring,tma_info_inst_mix_ipload'; same_program "a mixed list" $? "$WORK/out"
python3 - "$WORK/mix.txt" <<'PY' && ok "a mixed list: the catalogue's IPC, the table's two, thresholds marked" ||
import re, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 5 and f[0] == "sum" and f[1] == "all":
        rows.setdefault(f[4], []).append(line.rstrip("\n"))
s = {k: int(v[0].split()[5]) for k, v in rows.items() if v[0].split()[5].isdigit()}
names = [k for k in rows if k in ("IPC", "tma_retiring", "tma_info_inst_mix_ipload")]
assert names == ["IPC", "tma_retiring", "tma_info_inst_mix_ipload"], list(rows)
ipc = float(rows["IPC"][0].split()[5])
assert "%.3f" % ipc == "%.3f" % (s["instructions"] / s["cycles"]), (ipc, s)
ipload = rows["tma_info_inst_mix_ipload"][0]
assert "%.3f" % float(ipload.split()[5]) == "%.3f" % (s["INST_RETIRED.ANY"] / s["MEM_INST_RETIRED.ALL_LOADS"]), ipload
assert ipload.endswith("(over its threshold)") and rows["tma_retiring"][0].endswith("# %"), rows
PY
	fail "mixed list: $(grep '^sum' "$WORK/mix.txt")"

# CSV: the threshold's column, empty for events, the catalogue's metrics and a threshold not evaluated.
regions "$WORK/mix.csv" 'IPC,TopdownL1'; same_program "CSV" $? "$WORK/out"
head -1 "$WORK/mix.csv" | grep -q ',metric_value,metric_unit,metric_threshold$' &&
	grep -Eq '^sum,all,1,[0-9]+,tma_frontend_bound,(,){12}[0-9.]+,%,over-threshold$' "$WORK/mix.csv" &&
	grep -Eq '^sum,all,1,[0-9]+,tma_bad_speculation,(,){12}[0-9.]+,%,under-threshold$' "$WORK/mix.csv" &&
	grep -Eq '^sum,all,1,[0-9]+,tma_retiring,(,){12}[0-9.]+,%,$' "$WORK/mix.csv" &&
	grep -Eq '^sum,all,1,[0-9]+,cycles,([^,]*,){12},,$' "$WORK/mix.csv" &&
	grep -Eq '^sum,all,1,[0-9]+,IPC,(,){12}[0-9.]+,insn per cycle,$' "$WORK/mix.csv" &&
	ok "CSV: over-threshold, under-threshold, and none for the catalogue's" || fail "CSV: $(grep '^sum' "$WORK/mix.csv")"

# perf 6.1's tables name the metric IpLoad (6.12's tma_info_inst_mix_ipload): TALLY_PMU_EVENTS takes them.
TREE=$(kernel_tree 6.1)
if [ -n "$TREE" ] && [ -d "$TREE/tools/perf/pmu-events/arch" ]; then
	TALLY_PMU_EVENTS=$TREE/tools/perf/pmu-events/arch regions "$WORK/61.json" 'tma_retiring,ipload'
	same_program "perf 6.1's tables" $? "$WORK/out"
	python3 - "$WORK/61.json" <<'PY' && ok "perf 6.1's tables: IpLoad per region" || fail "6.1: $(head -c 600 "$WORK/61.json")"
import json, sys
d = json.load(open(sys.argv[1]))
for row in d["regions"]:
    s = {e["event"]: e["sum"] for e in row["events"]}
    m = {x["name"]: x for x in row["metrics"]}
    assert list(m) == ["tma_retiring", "IpLoad"], m
    want = s["INST_RETIRED.ANY"] / s["MEM_INST_RETIRED.ALL_LOADS"]
    assert abs(m["IpLoad"]["value"] - want) <= 1e-12 * want, (m, want)
    assert "over_threshold" not in m["IpLoad"], m  # perf 6.1's tables have no MetricThreshold
PY
else
	echo "note: no perf 6.1 tree (linux-source-6.1): IpLoad by perf 6.1's name not tried"
fi

# tally stat --regions -M: the command's -M reaches its regions, the table's metrics among them.
LD_PRELOAD=$FAKE FAKE_PMU_GROWTH=1 "$TALLY" stat --regions -j -o "$WORK/stat.json" -e instructions -M TopdownL1 -- \
	"$PROG" 3 >"$WORK/out" 2>"$WORK/err"
same_program "tally stat --regions -M TopdownL1" $? "$WORK/out"
python3 "$VALIDATE" "$SCHEMA" "$WORK/stat.json" >"$WORK/why" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for row in d["regions"]["regions"]:
    names = [m["name"] for m in row["metrics"]]
    assert names == ["tma_backend_bound", "tma_bad_speculation", "tma_frontend_bound", "tma_retiring"], names
    assert all(m["available"] for m in row["metrics"]), row["metrics"]' "$WORK/stat.json" &&
	ok "tally stat --regions -M TopdownL1: each region has the table's level 1" ||
	fail "stat --regions -M: $(head -5 "$WORK/why") $(head -c 400 "$WORK/stat.json")"

# An unknown metric: said on stderr (the results went to a file), which says it too; the program unharmed.
regions "$WORK/bad.json" 'tma_retirin'; same_program "an unknown metric" $? "$WORK/out"
grep -q "^tally regions: not counting: unknown metric or metric group 'tma_retirin' .*did you mean 'tma_retiring'" \
	"$WORK/err" && grep -q 'tma_retirin' "$WORK/bad.json" && ok "an unknown metric: stderr and the file say why" ||
	fail "unknown metric: stderr '$(cat "$WORK/err")'"
FAKE_PMU_GROWTH=1 LD_PRELOAD=$FAKE TALLY_METRICS=tma_retiring,nonesuch "$PROG" 3 >"$WORK/out" 2>"$WORK/err"
same_program "an unknown metric beside a known one" $? "$WORK/out"
grep -q "^# not counting: unknown metric or metric group 'nonesuch'" "$WORK/err" &&
	[ "$(grep -c '^tally regions: ' "$WORK/err")" = 0 ] &&
	ok "an unknown metric beside a known one: the table on stderr says why, once" ||
	fail "unknown beside known: $(head -3 "$WORK/err")"

# Without the fake PMU nothing counts the table's events here: each region reads not available, with why.
TALLY_METRICS=tma_info_thread_ipc TALLY_OUTPUT=$WORK/na.txt "$PROG" 3 >"$WORK/out" 2>"$WORK/err"
same_program "a metric this machine cannot count" $? "$WORK/out"
grep -Eq '^sum +all +1 .* tma_info_thread_ipc +<not available>  # : INST_RETIRED.ANY: not supported on this machine$' \
	"$WORK/na.txt" && [ ! -s "$WORK/err" ] && ok "a metric this machine cannot count: not available, with the reason" ||
	fail "not available: $(grep tma_ "$WORK/na.txt") / $(cat "$WORK/err")"
finish
