#!/bin/bash
# SPDX-License-Identifier: MIT
# perf's tool events in the CLI: `tally stat -e duration_time,user_time,system_time` prints them as perf
# stat does (unit ns, no rate beside them) in the table, -x and JSON; `tally list` has perf's "Tool
# events"; a command's user_time and system_time are the "seconds user/sys" of its rusage, to the
# nanosecond; perf and tally accept and refuse the same spellings, and label them alike in -x output.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
events=duration_time,user_time,system_time
busy=(sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done')

out=$("$TALLY" stat -e $events -- true 2>&1); rc=$?
[ $rc -eq 0 ] && ok "stat -e $events runs" || fail "stat rc $rc: $out"
for ev in duration_time user_time system_time; do
	line=$(grep " $ev" <<<"$out")
	if [[ "$line" =~ ^\ +[0-9,]+\ ns\ +$ev\ *$ ]]; then ok "table: '$ev' in ns, no rate"
	else fail "table line of $ev: '$line'"; fi
done

csv=$("$TALLY" stat -x, -e $events -- "${busy[@]}" 2>&1 >/dev/null)
for ev in duration_time user_time system_time; do
	IFS=, read -r value unit name _ <<<"$(grep ",$ev," <<<"$csv")"
	if [[ "$value" =~ ^[0-9]+$ && "$unit" == ns && "$name" == "$ev" ]]; then ok "-x: $ev $value ns"
	else fail "-x line of $ev: '$value,$unit,$name'"; fi
done

# The rusage of the command, in JSON: user_time == user, system_time == sys (both from microseconds).
json=$("$TALLY" stat -j -e $events -- "${busy[@]}" 2>&1 >/dev/null)
check=$(python3 -c '
import json, sys
d = json.loads(sys.argv[1]); run = d["runs"][0]; ev = {e["name"]: e for e in run["events"]}
bad = [n for n in ev if ev[n]["pmu"] != "tool" or ev[n]["unit"] != "ns" or ev[n]["metric"] is not None]
if bad: print("not tool/ns/no metric:", bad)
if ev["user_time"]["value"] != round(run["user"] * 1e6) * 1000: print("user_time", ev["user_time"]["value"], "user", run["user"])
if ev["system_time"]["value"] != round(run["sys"] * 1e6) * 1000: print("system_time", ev["system_time"]["value"], "sys", run["sys"])
if ev["user_time"]["value"] == 0: print("a busy loop with no user time")
' "$json" 2>&1)
[ -z "$check" ] && ok "JSON: pmu tool, unit ns, user_time/system_time = the command's rusage" || fail "JSON: $check"

list=$("$TALLY" list 2>&1)
tools=$(sed -n '/^Tool events:/,/^$/p' <<<"$list" | awk 'NF { print $1 }' | tr '\n' ' ')
[ "$tools" == "Tool duration_time user_time system_time " ] && ok "list: Tool events" || fail "list: '$tools'"

# perf 6.1 against tally: the same spellings accepted and refused, the same unit and name in -x output.
command -v perf >/dev/null || { finish "all passed (perf not installed: agreement not checked)"; exit 0; }
for spec in duration_time duration_time:u user_time:k system_time:G '{duration_time,task-clock}' \
	'{task-clock,duration_time}:u' DURATION_TIME duration_time:q user-time; do
	perf stat -x, -e "$spec" -- true >/dev/null 2>&1; p=$?
	"$TALLY" stat -x, -e "$spec" -- true >/dev/null 2>&1; t=$?
	if [ $((p == 0)) -eq $((t == 0)) ]; then ok "'$spec': perf rc $p, tally rc $t"
	else fail "'$spec': perf rc $p, tally rc $t"; fi
done
p=$(perf stat -x, -e $events -- true 2>&1 >/dev/null | cut -d, -f2,3 | grep -v '^$')
t=$("$TALLY" stat -x, -e $events -- true 2>&1 >/dev/null | cut -d, -f2,3)
[ "$p" == "$t" ] && ok "-x unit and name fields as perf's: $(tr '\n' ' ' <<<"$t")" || fail "-x: perf '$p' tally '$t'"
finish
