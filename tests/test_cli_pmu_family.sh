#!/bin/bash
# SPDX-License-Identifier: MIT
# PMU families in `tally stat` (issue 9): "soft/clock/" on a tree whose PMUs soft_0 and soft_1 have no PMU
# named "soft" is counted on both and shown as one line, summed, in the alias's unit (perf merges a
# family so); --no-merge and -A show each PMU (named as perf's --no-merge names them, soft_0/clock/);
# JSON gives the PMUs as parts of the summed event; --per-socket and --per-die sum by package and die
# with the CPU count perf prints. The PMUs are software ones (type 1, cpu-clock) behind a cpumask "0,1"
# and a topology of two packages, so that they count for real on any machine with two CPUs: an uncore
# PMU's shape (one CPU per package) with counts this machine has.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
require_two_cpus_counted_wide

root=$WORK/sys
devices=$root/bus/event_source/devices
mkdir -p "$devices/software"
echo 1 >"$devices/software/type"
for n in 0 1; do
	mkdir -p "$devices/soft_$n/events" "$root/devices/system/cpu/cpu$n/topology"
	echo 1 >"$devices/soft_$n/type"
	echo 0,1 >"$devices/soft_$n/cpumask"
	echo config=0 >"$devices/soft_$n/events/clock"
	echo 1e-6 >"$devices/soft_$n/events/clock.scale"
	echo msec >"$devices/soft_$n/events/clock.unit"
	echo "$n" >"$root/devices/system/cpu/cpu$n/topology/physical_package_id"
	echo 0 >"$root/devices/system/cpu/cpu$n/topology/die_id"
	echo 0 >"$root/devices/system/cpu/cpu$n/topology/core_id"
done
echo 0-1 >"$root/devices/system/cpu/online"
# One PMU whose cpumask names one CPU: its event opens there only.
mkdir -p "$devices/pkg/events"
echo 1 >"$devices/pkg/type"
echo 1 >"$devices/pkg/cpumask"
echo config=0 >"$devices/pkg/events/clock"
export TALLY_SYSFS_ROOT=$root

stat() { "$TALLY" stat -a "$@" -- sleep 0.02 2>"$WORK/err"; }

stat -x, -e soft/clock/
lines=$(grep -c 'soft' "$WORK/err")
[ "$lines" = 1 ] && grep -q '^[0-9.]*,msec,soft/clock/,' "$WORK/err" && ok "one line for the family, in msec" ||
	fail "merged family: $(cat "$WORK/err")"

stat -x, --no-merge -e soft/clock/
[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "soft_0/clock/ soft_1/clock/ " ] &&
	ok "--no-merge: one line per PMU, named as perf names them" || fail "--no-merge: $(cat "$WORK/err")"

# --no-group: these PMUs share type 1, which real PMUs of different cpumasks never do, and events of one
# type are packed into one group (opened on its leader's CPUs).
stat -x, -A --no-group -e soft/clock/,pkg/clock/
[ "$(cut -d, -f1,4 "$WORK/err" | tr '\n' ' ')" = "CPU0,soft_0/clock/ CPU1,soft_0/clock/ CPU0,soft_1/clock/ CPU1,soft_1/clock/ CPU1,pkg/clock/ " ] &&
	ok "-A: each PMU of the family on each CPU of its cpumask; pkg/ on CPU 1 only" || fail "-A: $(cat "$WORK/err")"

stat -x, --per-socket -e soft/clock/
[ "$(cut -d, -f1,2,5 "$WORK/err" | tr '\n' ' ')" = "S0,1,soft/clock/ S1,1,soft/clock/ " ] &&
	ok "--per-socket: S0 and S1, one CPU each, the family merged" || fail "--per-socket: $(cat "$WORK/err")"

stat -x, --per-die -e soft/clock/
[ "$(cut -d, -f1,2 "$WORK/err" | tr '\n' ' ')" = "S0-D0,1 S1-D0,1 " ] && ok "--per-die" ||
	fail "--per-die: $(cat "$WORK/err")"

stat --per-socket -e soft/clock/
grep -qE '^S1 +1 +[0-9.]+ msec +soft/clock/' "$WORK/err" && ok "--per-socket table: S1, CPUs, value, unit, event" ||
	fail "--per-socket table: $(cat "$WORK/err")"

# JSON: the summed event with its PMUs in pmus; the sum is theirs, the unit the alias's.
stat -j -e soft/clock/
python3 - "$WORK/err" <<'PY' && ok "JSON: one event, its PMUs that sum to it" || fail "JSON: $(cat "$WORK/err")"
import json, sys
doc = json.load(open(sys.argv[1]))
events = doc["events"]
assert len(events) == 1, events
e = events[0]
assert e["name"] == "soft/clock/" and e["unit"] == "msec" and e["unit_scale"] == 1e-6 and e["pmu"] is None, e
assert [(p["pmu"], p["name"]) for p in e["pmus"]] == [("soft_0", "soft_0/clock/"), ("soft_1", "soft_1/clock/")], e
assert e["value"] == sum(p["value"] for p in e["pmus"]) and e["value"] > 0, e
assert e["status"] == "counted" and "parts" not in e, e
PY
stat -j --per-socket -e soft/clock/
python3 - "$WORK/err" <<'PY' && ok "JSON --per-socket: parts S0, S1 with nr_cpus" || fail "JSON --per-socket: $(cat "$WORK/err")"
import json, sys
e = json.load(open(sys.argv[1]))["events"][0]
assert [(p["label"], p["nr_cpus"]) for p in e["parts"]] == [("S0", 1), ("S1", 1)], e["parts"]
assert e["value"] == sum(p["value"] for p in e["parts"]), e
PY
if command -v python3 >/dev/null && [ -f "$(dirname "$0")/cli_helpers/validate_json_schema.py" ]; then
	python3 "$(dirname "$0")/cli_helpers/validate_json_schema.py" "$(dirname "$0")/../docs/json-schema.json" "$WORK/err" \
		>"$WORK/v" 2>&1 && ok "JSON valid against the schema" || fail "schema: $(cat "$WORK/v")"
fi

"$TALLY" stat --per-socket -e soft/clock/ -- true 2>"$WORK/err"
[ $? = 2 ] && grep -q -- '--per-socket needs -a or -C' "$WORK/err" && ok "--per-socket without -a/-C is refused" ||
	fail "--per-socket without -a: $(cat "$WORK/err")"
finish
