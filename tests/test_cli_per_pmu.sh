#!/bin/bash
# SPDX-License-Identifier: MIT
# Events expanded over several core PMUs in `tally stat` (issue 12), on sysfs trees of both vendors'
# layouts: Intel hybrid (cpu_atom on CPU 0, cpu_core on CPU 1) and arm64 big.LITTLE (armv8_cortex_a53 on
# CPU 0, armv8_cortex_a72 on CPU 1). A raw code opens once per core PMU with the PMU's type; the PMUs here
# are software ones (type 1), so that r2 counts page faults for real on any machine: a core PMU's shape
# with counts this machine has. One line per spec item, the sum; --per-pmu adds each PMU's line after it
# (CSV records named after the PMU); --no-merge gives perf 6.1's rows; JSON carries the PMUs always;
# --per-core counts each CPU of a core once; --per-pmu with --per-socket shows each PMU's rows apart. The
# committed Alder Lake and RK3399 trees give the same lines for generic events (none opens here).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# make_tree DIR PMU_ON_CPU0 PMU_ON_CPU1
make_tree() {
	local root=$1 devices=$1/bus/event_source/devices
	mkdir -p "$devices/software"
	echo 1 >"$devices/software/type"
	local cpu=0
	for pmu in "$2" "$3"; do
		mkdir -p "$devices/$pmu/format" "$root/devices/system/cpu/cpu$cpu/topology"
		echo 1 >"$devices/$pmu/type"
		echo $cpu >"$devices/$pmu/cpus"
		echo config:0-15 >"$devices/$pmu/format/event"
		echo 0 >"$root/devices/system/cpu/cpu$cpu/topology/physical_package_id"
		echo 0 >"$root/devices/system/cpu/cpu$cpu/topology/die_id"
		echo $cpu >"$root/devices/system/cpu/cpu$cpu/topology/core_id"
		cpu=$((cpu + 1))
	done
	echo 0-1 >"$root/devices/system/cpu/online"
}

# check_layout NAME FIRST SECOND: FIRST and SECOND are the core PMUs in the library's (name) order.
check_layout() {
	local name=$1 first=$2 second=$3
	export TALLY_SYSFS_ROOT=$WORK/$name
	stat() { "$TALLY" stat "$@" 2>"$WORK/err"; }

	stat -x, -e r2,task-clock -- true
	[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "r2 task-clock " ] &&
		ok "$name: one line per spec item, named as written" || fail "$name: summed: $(cat "$WORK/err")"

	stat -x, --per-pmu -e r2,task-clock -- true
	[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "r2 $first/r2/ $second/r2/ task-clock " ] &&
		ok "$name: --per-pmu: the sum, then each PMU's line" || fail "$name: --per-pmu: $(cat "$WORK/err")"
	awk -F, 'NR == 1 { sum = $1 } NR == 2 || NR == 3 { parts += $1 } END { exit !(sum == parts && sum > 0) }' \
		"$WORK/err" && ok "$name: the sum is its PMUs' counts" || fail "$name: sum: $(cat "$WORK/err")"

	stat -x, --no-merge -e r2 -- true
	[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "$first/r2/ $second/r2/ " ] &&
		ok "$name: --no-merge: perf 6.1's rows" || fail "$name: --no-merge: $(cat "$WORK/err")"

	stat -j -e r2 -- true
	python3 - "$WORK/err" "$first" "$second" <<'PY' && ok "$name: JSON: the sum with its PMUs" ||
import json, sys
doc = json.load(open(sys.argv[1]))
(e,) = doc["events"]
assert e["name"] == "r2" and e["pmu"] is None, e
assert [(p["pmu"], p["name"]) for p in e["pmus"]] == [(sys.argv[2], sys.argv[2] + "/r2/"),
                                                     (sys.argv[3], sys.argv[3] + "/r2/")], e["pmus"]
assert e["value"] == sum(p["value"] for p in e["pmus"]) > 0, e
assert e["enabled"] == sum(p["enabled"] for p in e["pmus"]), e
assert all(p["status"] == "counted" and p["metric"] for p in e["pmus"]), e["pmus"]
PY
		fail "$name: JSON: $(cat "$WORK/err")"
	if [ -f "$(dirname "$0")/cli_helpers/validate_json_schema.py" ]; then
		python3 "$(dirname "$0")/cli_helpers/validate_json_schema.py" "$(dirname "$0")/../docs/json-schema.json" \
			"$WORK/err" >"$WORK/v" 2>&1 && ok "$name: JSON valid against the schema" ||
			fail "$name: schema: $(cat "$WORK/v")"
	fi

	stat -x, -r 3 --per-pmu -e r2 -- true
	[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "r2 $first/r2/ $second/r2/ " ] &&
		grep -q "^[0-9]*,,$second/r2/,[0-9.]*%," "$WORK/err" && ok "$name: -r: each PMU's mean and deviation" ||
		fail "$name: -r: $(cat "$WORK/err")"

	if [ "$system_wide" = yes ]; then
		# --no-group: these PMUs share type 1, which real core PMUs never do, and events of one type
		# are packed into one group (opened on its leader's CPUs).
		stat -a --no-group -A -x, -e r2 -- sleep 0.01
		[ "$(cut -d, -f1,4 "$WORK/err" | tr '\n' ' ')" = "CPU0,$first/r2/ CPU1,$second/r2/ " ] &&
			ok "$name: -A: each PMU on its CPU" || fail "$name: -A: $(cat "$WORK/err")"
		stat -a --no-group --per-core -x, -e r2 -- sleep 0.01
		[ "$(cut -d, -f1,2,5 "$WORK/err" | tr '\n' ' ')" = "S0-D0-C0,1,r2 S0-D0-C1,1,r2 " ] &&
			ok "$name: --per-core: each core's CPU counted once, from whichever PMU has it" ||
			fail "$name: --per-core: $(cat "$WORK/err")"
		stat -a --no-group --per-socket -x, -e r2 -- sleep 0.01
		[ "$(cut -d, -f1,2,5 "$WORK/err" | tr '\n' ' ')" = "S0,2,r2 " ] &&
			ok "$name: --per-socket: both PMUs' CPUs in the socket" || fail "$name: --per-socket: $(cat "$WORK/err")"
		stat -a --no-group --per-socket --per-pmu -x, -e r2 -- sleep 0.01
		[ "$(cut -d, -f1,2,5 "$WORK/err" | tr '\n' ' ')" = "S0,1,$first/r2/ S0,1,$second/r2/ " ] &&
			ok "$name: --per-socket --per-pmu: each PMU's rows apart" ||
			fail "$name: --per-socket --per-pmu: $(cat "$WORK/err")"
	fi
}

# The committed fixture trees of both layouts (Alder Lake, RK3399): the generic events expand over their core
# PMUs and are summed and named alike; on this machine none of them opens, each PMU saying why.
fixtures=${TALLY_FIXTURES:-$(dirname "$0")/fixtures}/sysfs
for tree in "hybrid cpu_atom cpu_core" "arm64-biglittle armv8_cortex_a53 armv8_cortex_a72"; do
	set -- $tree
	TALLY_SYSFS_ROOT=$fixtures/$1 "$TALLY" stat --per-pmu -x, -e cycles,instructions -- true 2>"$WORK/err"
	[ "$(cut -d, -f3 "$WORK/err" | tr '\n' ' ')" = "cycles $2/cycles/ $3/cycles/ instructions $2/instructions/ $3/instructions/ " ] &&
		ok "$1 fixture: each item summed over its core PMUs, each PMU after it" || fail "$1 fixture: $(cat "$WORK/err")"
	TALLY_SYSFS_ROOT=$fixtures/$1 "$TALLY" stat --per-pmu -e cycles -- true 2>"$WORK/err"
	grep -q "^ <not supported> $3/cycles/: cannot open event" "$WORK/err" &&
		ok "$1 fixture: a PMU's reason under the table" || fail "$1 fixture reasons: $(cat "$WORK/err")"
done

system_wide=no
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && "$TALLY" stat -a -e cpu-clock --duration 0.01 >/dev/null 2>&1; then
	system_wide=yes
else
	echo "note: the -a cases are skipped (needs CPUs 0 and 1 and CPU-wide events)"
fi
make_tree "$WORK/intel" cpu_atom cpu_core
make_tree "$WORK/arm64" armv8_cortex_a53 armv8_cortex_a72
check_layout intel cpu_atom cpu_core
check_layout arm64 armv8_cortex_a53 armv8_cortex_a72
finish
