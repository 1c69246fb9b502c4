#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat -j: one document, valid against docs/json-schema.json, for a run, -r 5 (every run, mean and
# stddev that agree with the runs), -I (one record per interval), -A (parts), and command arguments with
# bytes that need escaping (quotes, backslashes, control characters, invalid UTF-8).
set -u
SCHEMA=${TALLY_SOURCE:?}/docs/json-schema.json
VALIDATE=$TALLY_SOURCE/tests/cli_helpers/validate_json_schema.py
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse JSON"; exit 77; }

valid() { # valid NAME FILE
	if python3 "$VALIDATE" "$SCHEMA" "$2" >"$WORK/why"; then ok "$1: valid against the schema"; else
		fail "$1: $(head -5 "$WORK/why")"; fi
}

"$TALLY" stat -j -e task-clock,page-faults,cycles -- sh -c 'exit 4' 2>"$WORK/one.json"; st=$?
[ $st -eq 4 ] && ok "exit status kept with -j" || fail "-j exit $st"
valid "one run" "$WORK/one.json"
python3 - "$WORK/one.json" <<'PY' && ok "one run: content" || fail "one run content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 3 and d["command"]["argv"] == ["sh", "-c", "exit 4"], d["command"]
assert d["command"]["exit_status"] == 4 and d["exit_status"] == 4 and d["nr_runs"] == 1
assert len(d["runs"]) == 1
ev = {e["name"]: e for e in d["events"]}
assert ev["page-faults"]["status"] == "counted" and ev["page-faults"]["value"] > 10
assert ev["page-faults"]["encoding"]["type"] == 1 and ev["page-faults"]["encoding"]["config"] == 2
assert ev["task-clock"]["enabled"] >= ev["task-clock"]["running"] > 0
if not d["machine"]["core_pmus"]:
    assert ev["cycles"]["status"] == "not-supported" and ev["cycles"]["reason"], ev["cycles"]
assert d["machine"]["kernel"] and any(p["name"] == "software" and p["type"] == 1 for p in d["machine"]["pmus"])
PY

"$TALLY" stat -j -r 5 -e page-faults,task-clock -- true 2>"$WORK/r5.json"
valid "-r 5" "$WORK/r5.json"
python3 - "$WORK/r5.json" <<'PY' && ok "-r 5: five runs, mean and stddev agree with them" || fail "-r 5 statistics"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
assert d["nr_runs"] == 5 and len(d["runs"]) == 5 and [r["run"] for r in d["runs"]] == [1, 2, 3, 4, 5]
for i, e in enumerate(d["events"]):
    xs = [r["events"][i]["scaled"] for r in d["runs"]]
    assert abs(e["scaled"] - statistics.mean(xs)) <= 1e-6 * max(1, abs(e["scaled"])), (e["scaled"], xs)
    assert abs(e["stddev"] - statistics.stdev(xs)) <= 1e-6 * max(1, e["stddev"]), (e["stddev"], xs)
el = [r["elapsed"] for r in d["runs"]]
assert abs(d["elapsed"] - statistics.mean(el)) < 1e-9 and abs(d["elapsed_stddev"] - statistics.stdev(el)) < 1e-9
PY

"$TALLY" stat -j -I 100 -e task-clock,context-switches -- sleep 0.35 2>"$WORK/i.json"
valid "-I" "$WORK/i.json"
python3 - "$WORK/i.json" <<'PY' && ok "-I: one record per interval, deltas sum to the total" || fail "-I records"
import json, math, sys
d = json.load(open(sys.argv[1]))
iv = d["intervals"]
# Each tick on the 100 ms grid from the start (k x 0.1 s, the last record the command's end, at 0.35 s or
# later): a tick that fires late (a loaded machine) is printed late, and one the run overtook is left out,
# so the count is at most the grid's cells and never two records in one cell.
ts = [i["timestamp"] for i in iv]
assert len(iv) >= 2 and ts[-1] >= 0.35 and len(iv) <= math.ceil(ts[-1] / 0.1 - 1e-9), ts
assert all(t >= 0.1 - 1e-9 for t in ts[:-1]), ts
assert all(math.floor(a / 0.1 + 1e-9) < math.floor(b / 0.1 + 1e-9) for a, b in zip(ts[:-1], ts[1:-1])), ts
assert all(a < b for a, b in zip(ts, ts[1:])), ts
total = sum(i["events"][1]["value"] for i in iv)
assert total == d["events"][1]["value"], (total, d["events"][1]["value"])
PY

"$TALLY" stat -j -a -A -e context-switches -- sleep 0.05 2>"$WORK/a.json"
valid "-a -A" "$WORK/a.json"
python3 - "$WORK/a.json" "$(nproc)" <<'PY' && ok "-A: parts per CPU sum to the total" || fail "-A parts"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["events"][0]
assert len(e["parts"]) == int(sys.argv[2]) and {p["cpu"] for p in e["parts"]} == set(range(int(sys.argv[2])))
assert sum(p["value"] for p in e["parts"]) == e["value"]
PY

# Arguments holding every kind of byte: the document must stay valid and give them back.
weird=$(printf 'q"b\\s\tt\001c\x7f\xc3\xa9\xff\xfez')
"$TALLY" stat -j -e task-clock -- true "$weird" 'line
break' 2>"$WORK/w.json"
valid "escaped arguments" "$WORK/w.json"
python3 - "$WORK/w.json" <<'PY' && ok "arguments round-trip (valid UTF-8 kept, each invalid byte as U+FFFD)" || fail "escaping: $(grep -A4 argv "$WORK/w.json")"
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # the document itself is valid UTF-8
argv = json.loads(raw)["command"]["argv"]
assert argv[1] == 'q"b\\s\tt\x01c\x7f\u00e9\ufffd\ufffdz', repr(argv[1])
assert argv[2] == "line\nbreak"
PY

finish
