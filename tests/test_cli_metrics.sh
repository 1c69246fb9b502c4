#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat -M and tally list --metrics end to end: the metrics' events counted, metric lines in the table,
# CSV and JSON; on a machine without a hardware PMU, -M IPC still runs the command and says why IPC is not
# available; software metrics computed; an unknown metric refused with the closest name before anything
# runs; the comment column (from the library) as before.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
SCHEMA=${TALLY_SOURCE:?}/docs/json-schema.json
VALIDATE=$TALLY_SOURCE/tests/cli_helpers/validate_json_schema.py

# --- -M IPC: the command runs; IPC has a value or says why not ----------------------------------------
"$TALLY" stat -M IPC -- sh -c 'echo ran > "$0"' "$WORK/ran" 2>"$WORK/err"; st=$?
[ $st -eq 0 ] && [ -s "$WORK/ran" ] && ok "-M IPC runs the command (exit 0)" || fail "-M IPC: exit $st, ran: $(cat "$WORK/ran" 2>/dev/null)"
grep -Eq "^ +(<not supported>|[0-9,]+) +instructions" "$WORK/err" && grep -Eq "^ +(<not supported>|[0-9,]+) +cycles" "$WORK/err" &&
	ok "-M IPC counts instructions and cycles" || fail "-M IPC events: $(cat "$WORK/err")"
if grep -q "<not supported>.*cycles" "$WORK/err"; then
	grep -Eq "^ +<not available> +IPC +# insn per cycle" "$WORK/err" && ok "IPC line: <not available>" ||
		fail "IPC line: $(cat "$WORK/err")"
	grep -q "<not available> IPC: .*not supported on this machine" "$WORK/err" && ok "IPC: the reason under the table" ||
		fail "IPC reason: $(cat "$WORK/err")"
else
	grep -Eq "^ +[0-9.,]+ +IPC +# insn per cycle" "$WORK/err" && ok "IPC line: a value" || fail "IPC value: $(cat "$WORK/err")"
fi
# Case-insensitive, as perf's -M; --metrics is the long form.
"$TALLY" stat --metrics ipc -- true 2>"$WORK/err2" && grep -q " IPC " "$WORK/err2" && ok "--metrics ipc" ||
	fail "--metrics ipc: $(cat "$WORK/err2")"

# --- software metrics have values here ---------------------------------------------------------------
"$TALLY" stat -e task-clock -M CPUs_utilized,cs_per_second,page_faults_per_second -- sh -c 'for i in 1 2 3; do :; done' \
	2>"$WORK/err"
[ "$(grep -c ' task-clock ' "$WORK/err")" -eq 1 ] && ok "task-clock counted once beside -M CPUs_utilized" ||
	fail "task-clock lines: $(cat "$WORK/err")"
grep -Eq "^ +[0-9.,]+ +CPUs_utilized +# CPUs utilized" "$WORK/err" && ok "CPUs_utilized has a value" ||
	fail "CPUs_utilized: $(cat "$WORK/err")"
grep -Eq "^ +[0-9.,]+ +page_faults_per_second +# /sec" "$WORK/err" && ok "page_faults_per_second has a value" ||
	fail "page_faults_per_second: $(cat "$WORK/err")"
# The comment column beside the events is unchanged (computed by the library now).
grep -Eq "task-clock +# +[0-9.]+ CPUs utilized" "$WORK/err" && grep -Eq "page-faults +# +[0-9.]+ [KM]?/sec" "$WORK/err" &&
	ok "comment column beside task-clock and page-faults" || fail "comment column: $(cat "$WORK/err")"

# --- unknown metric: refused before the command runs ---------------------------------------------------
"$TALLY" stat -M IPCC -- sh -c 'echo ran > "$0"' "$WORK/ran2" 2>"$WORK/err"; st=$?
[ $st -eq 2 ] && [ ! -e "$WORK/ran2" ] && ok "unknown metric: exit 2, the command not run" || fail "unknown metric: exit $st"
grep -q "unknown metric or metric group 'IPCC' — did you mean 'IPC'?" "$WORK/err" && ok "unknown metric: did you mean" ||
	fail "unknown metric text: $(cat "$WORK/err")"
"$TALLY" stat -M '' -- true 2>/dev/null; [ $? -eq 2 ] && ok "-M '' refused" || fail "-M '' accepted"

# --- CSV: one record per metric ------------------------------------------------------------------------
"$TALLY" stat -x, --csv-header -e page-faults -M page_faults_per_second,IPC -- true 2>"$WORK/csv"
grep -Eq '^,,page_faults_per_second,,,[0-9.]+,/sec$' "$WORK/csv" && ok "CSV: a metric record with its value" ||
	fail "CSV metric: $(cat "$WORK/csv")"
fields=$(head -1 "$WORK/csv" | awk -F, '{ print NF }')
bad=$(awk -F, -v n="$fields" 'NF != n' "$WORK/csv")
[ -z "$bad" ] && ok "CSV: every record has the header's fields" || fail "CSV field counts: $bad"
if grep -q "<not supported>.*cycles" "$WORK/csv"; then
	grep -q '^,,IPC,,,<not available>,insn per cycle$' "$WORK/csv" && ok "CSV: IPC <not available>" || fail "CSV IPC: $(cat "$WORK/csv")"
fi

# --- JSON: the metrics arrays (schema 3), also per run with -r and per interval --------------------------
"$TALLY" stat -j -r 2 -e task-clock -M CPUs_utilized,IPC -- true 2>"$WORK/m.json"
if python3 "$VALIDATE" "$SCHEMA" "$WORK/m.json" >"$WORK/why"; then ok "JSON with -M: valid (schema 3)"; else
	fail "JSON schema: $(head -5 "$WORK/why")"; fi
python3 - "$WORK/m.json" <<'PY' && ok "JSON: name, value, unit, inputs; per run too" || fail "JSON metrics content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 3
m = {x["name"]: x for x in d["metrics"]}
cpu = m["CPUs_utilized"]
assert cpu["available"] and cpu["value"] > 0 and cpu["unit"] == "CPUs utilized" and cpu["reason"] is None, cpu
assert cpu["inputs"] == [{"event": "task-clock", "value": cpu["inputs"][0]["value"], "status": "counted"}], cpu
ipc = m["IPC"]
assert [i["event"] for i in ipc["inputs"]] == ["instructions", "cycles"], ipc
if not d["machine"]["core_pmus"]:
    assert ipc["value"] is None and not ipc["available"] and "not supported" in ipc["reason"], ipc
assert all([x["name"] for x in r["metrics"]] == ["CPUs_utilized", "IPC"] for r in d["runs"]), d["runs"]
PY
"$TALLY" stat -j -I 100 -M CPUs_utilized -- sleep 0.25 2>"$WORK/i.json"
python3 - "$WORK/i.json" <<'PY' && ok "JSON -I: metrics per interval" || fail "JSON -I metrics: $(head -c 400 "$WORK/i.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["intervals"] and all(len(i["metrics"]) == 1 for i in d["intervals"]), d["intervals"]
PY
# Without -M: empty arrays.
"$TALLY" stat -j -e task-clock -- true 2>"$WORK/plain.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["metrics"] == []' "$WORK/plain.json" &&
	ok "JSON without -M: metrics []" || fail "JSON without -M"

# --- -I table: metric lines per interval ------------------------------------------------------------------
"$TALLY" stat -I 100 -M CPUs_utilized -- sleep 0.25 2>"$WORK/err"
[ "$(grep -Ec '^ +[0-9]+\.[0-9]{9} .*CPUs_utilized' "$WORK/err")" -ge 2 ] && ok "-I: a metric line per interval" ||
	fail "-I metric lines: $(cat "$WORK/err")"

# --- tally list --metrics -----------------------------------------------------------------------------
"$TALLY" list --metrics >"$WORK/list" 2>&1
for name in IPC CPI tma_retiring tma_bad_speculation tma_frontend_bound tma_backend_bound tma_heavy_operations \
	tma_light_operations tma_branch_mispredicts tma_machine_clears tma_fetch_latency tma_fetch_bandwidth \
	tma_memory_bound tma_core_bound CPUs_utilized cycles_frequency branch_miss_rate cache_miss_rate; do
	grep -q "^  $name " "$WORK/list" || fail "list --metrics lacks $name"
done
grep -q "instructions / cycles (insn per cycle) over {instructions,cycles}" "$WORK/list" &&
	ok "list --metrics: names, formulas, units, events" || fail "list --metrics: $(head -20 "$WORK/list")"
"$TALLY" list --metrics topdownl2 >"$WORK/l2"
[ "$(grep -c '^  tma_' "$WORK/l2")" -eq 8 ] && ok "list --metrics GROUP: its 8 metrics" || fail "list TopdownL2: $(cat "$WORK/l2")"
"$TALLY" list --metrics --json >"$WORK/list.json"
python3 - "$WORK/list.json" <<'PY' && ok "list --metrics --json" || fail "list --metrics --json"
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in d["metrics"]}
assert m["IPC"]["events"] == "{instructions,cycles}" and "Summary" in m["IPC"]["groups"], m["IPC"]
assert m["tma_retiring"]["groups"][0] == "TopdownL1" and m["tma_retiring"]["unit"] == "%"
assert all(set(x) >= {"name", "groups", "unit", "description", "formula", "events", "applies", "events_here"} for x in d["metrics"])
PY
"$TALLY" list >"$WORK/all" 2>&1
grep -q "tally list --metrics lists the" "$WORK/all" && ok "tally list points to --metrics" || fail "tally list: no pointer"

# Each -M adds to the list, as each of perf's does (perf 6.1 parses every -M; later ones append them).
"$TALLY" stat -x, -M IPC -M CPI --topdown -- true 2>"$WORK/two"
grep -q ",IPC," "$WORK/two" && grep -q ",CPI," "$WORK/two" && grep -q ",tma_retiring," "$WORK/two" &&
	ok "-M IPC -M CPI --topdown: all three" || fail "two -M: $(cat "$WORK/two")"

# A name with a control byte is echoed escaped, not sent to the terminal.
"$TALLY" stat -M "$(printf 'x\033[31m')" -- true 2>"$WORK/esc"
[ $? -eq 2 ] && grep -q "'x\\\\x1b\[31m'" "$WORK/esc" && ! grep -q "$(printf '\033')" "$WORK/esc" &&
	ok "-M with an escape byte: escaped in the message" || fail "-M escape: $(od -c "$WORK/esc" | head -5)"

# With parts (-A), the metric's value ends in the events' value column.
"$TALLY" stat -a -A -M cs_per_second -- true 2>"$WORK/parts"
python3 - "$WORK/parts" <<'PY' && ok "-A: the metric line's value aligned with the events'" || fail "-A alignment: $(cat "$WORK/parts")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def value_end(line, name):
    m = re.search(r"(\S+)\s+" + name + r"\b", line)
    return m.end(1)
event = [value_end(l, "context-switches") for l in lines if l.startswith("CPU") and "context-switches" in l]
metric = [value_end(l, "cs_per_second") for l in lines if "cs_per_second" in l and "#" in l]
assert event and metric and set(metric) == {event[0]}, (event, metric)
PY

finish
