#!/bin/bash
# SPDX-License-Identifier: MIT
# tally stat -G and --for-each-cgroup against perf stat -G on the same workloads: two cgroups made here
# (root, on the hierarchy perf_event counts on), each running a static program that touches a known
# number of fresh pages, launched by the measured command itself so that every fault falls in the
# window. Checks perf's rules and messages (-G needs -a/-C and events before it; one name for every
# event before it; --for-each-cgroup's cgroup-major order), the cgroup field of the CSV at perf 6.1's
# place (after the event), the JSON member, the per-CPU lines of -A, the intervals of -I, the metrics of -M
# per cgroup (each from its cgroup's counts), and the explained errors.
# Tolerance: a page-fault count is the pages touched plus the exec's own (loader, stack, vDSO): at least
# the pages, at most 300 more; tally and perf within 1% + 32 of each other.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
A_PAGES=3000
B_PAGES=7000

source "$(dirname "$0")/cli_helpers/cgroups.sh"

A=tally-cli-a-$$
B=tally-cli-b-$$
mkdir "$mount/$A" "$mount/$B" || { echo "SKIP: cannot make cgroups under $mount"; exit 77; }
trap 'rmdir "$mount/$A" "$mount/$B" 2>/dev/null; rm -rf "$WORK"' EXIT

# The measured command: each workload joins its cgroup, then execs.
workload="sh -c 'echo \$\$ > $mount/$A/cgroup.procs && exec $WORK/touch $A_PAGES' &
sh -c 'echo \$\$ > $mount/$B/cgroup.procs && exec $WORK/touch $B_PAGES' & wait"

in_range() { # NAME VALUE PAGES
	if [[ "$2" =~ ^[0-9]+$ ]] && (( $2 >= $3 && $2 <= $3 + 300 )); then
		ok "$1: $2 page faults for $3 pages"
	else
		fail "$1: '$2' page faults for $3 pages"
	fi
}
field() { awk -F, -v e="$2" -v g="$3" '$3 == e && $4 == g { print $'"$4"' }' "$1"; }

# --for-each-cgroup, CSV: value,unit,event,cgroup,run time,% running,metric value,metric unit.
"$TALLY" stat -x, -a -e page-faults --for-each-cgroup "$A,$B" -- sh -c "$workload" 2> "$WORK/each.csv" ||
	fail "--for-each-cgroup failed: $(cat "$WORK/each.csv")"
in_range "--for-each-cgroup $A" "$(field "$WORK/each.csv" page-faults "$A" 1)" $A_PAGES
in_range "--for-each-cgroup $B" "$(field "$WORK/each.csv" page-faults "$B" 1)" $B_PAGES
[ "$(awk -F, '{ print $4 }' "$WORK/each.csv" | tr '\n' ' ')" = "$A $B " ] && ok "cgroup-major order, cgroup in field 4" ||
	fail "order or field: $(cat "$WORK/each.csv")"

# A cgroup named twice is counted once, as perf 6.1 does.
"$TALLY" stat -x, -a -e page-faults --for-each-cgroup "$A,$B,$A" -- true 2> "$WORK/dup.csv"
[ "$(awk -F, '{ print $4 }' "$WORK/dup.csv" | tr '\n' ' ')" = "$A $B " ] && ok "--for-each-cgroup a,b,a: a once" ||
	fail "--for-each-cgroup a,b,a: $(cat "$WORK/dup.csv")"

# More cgroups than the soft descriptor limit leaves: their directories are opened after the limit was
# raised toward the hard one (as for the events' descriptors), not refused with EMFILE at the 128th.
many=()
for i in $(seq 200); do mkdir "$mount/$A/m$i" && many+=("$A/m$i") || break; done
names=$(IFS=,; echo "${many[*]}")
hard=$(ulimit -Hn); need=$((200 * ($(nproc --all) + 1) + 128)) # directories, one event per CPU each, stdio
if [ "${#many[@]}" = 200 ] && { [ "$hard" = unlimited ] || (( hard >= need )); }; then
	(ulimit -Sn 128; "$TALLY" stat -x, -a -e page-faults --for-each-cgroup "$names" -- true) 2> "$WORK/many.csv" &&
		[ "$(wc -l < "$WORK/many.csv")" = 200 ] && ok "200 cgroups under a soft limit of 128 descriptors" ||
		fail "200 cgroups, soft limit 128: $(head -3 "$WORK/many.csv")"
else
	echo "SKIP part: cannot make 200 cgroups, or the hard descriptor limit is below what they need"
fi
for d in "${many[@]}"; do rmdir "$mount/$d"; done

# -G: one name for every event before it; the event after it counts everything (an empty field).
"$TALLY" stat -x, -a -e page-faults,task-clock -G "$B" -e page-faults -- sh -c "$workload" 2> "$WORK/g.csv" ||
	fail "-G failed: $(cat "$WORK/g.csv")"
in_range "-G $B" "$(field "$WORK/g.csv" page-faults "$B" 1)" $B_PAGES
tc=$(field "$WORK/g.csv" task-clock "$B" 1)
[[ "$tc" =~ ^[0-9.]+$ ]] && ok "-G one name for both events before it (task-clock $tc msec in $B)" ||
	fail "task-clock in $B: '$tc'"
all=$(field "$WORK/g.csv" page-faults "" 1)
[[ "$all" =~ ^[0-9]+$ ]] && (( all >= A_PAGES + B_PAGES )) && ok "the event after -G counts every task ($all)" ||
	fail "system-wide page-faults after -G: '$all'"

# -G a,b: positional; JSON carries the cgroup.
"$TALLY" stat -j -a -e page-faults,page-faults -G "$A,$B" -- sh -c "$workload" 2> "$WORK/g.json" ||
	fail "-G -j failed"
python3 - "$WORK/g.json" "$A" "$B" <<'EOP' && ok "JSON: a cgroup member per event, schema 3" || fail "JSON: $(head -c 400 "$WORK/g.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 3
assert [e["cgroup"] for e in doc["events"]] == sys.argv[2:4], doc["events"]
EOP

python3 "$(dirname "$0")/cli_helpers/validate_json_schema.py" "${TALLY_SOURCE:-$(dirname "$0")/..}/docs/json-schema.json" \
	"$WORK/g.json" && ok "JSON with cgroups valid against docs/json-schema.json" || fail "JSON schema"
# The table's footnote names the cgroup of a line that did not count.
"$TALLY" stat -a -e page-faults --for-each-cgroup "$A,$B" -- true 2> "$WORK/foot.txt"
grep -q "page-faults in $B: it never ran in this cgroup" "$WORK/foot.txt" && ok "footnote names the cgroup" ||
	fail "footnote: $(cat "$WORK/foot.txt")"
# An event this machine cannot count (cycles without a PMU): its explanation once, the other cgroup's line
# pointing to it, not the kernel's three lines again per cgroup.
"$TALLY" stat -a -e cycles --for-each-cgroup "$A,$B" -- true 2> "$WORK/foot.txt"
if grep -q "<not supported> cycles in $A" "$WORK/foot.txt"; then
	[ "$(grep -c "cannot open event 'cycles'" "$WORK/foot.txt")" = 1 ] &&
		grep -q "<not supported> cycles in $B: as in $A above" "$WORK/foot.txt" &&
		ok "an unsupported event explained once across cgroups" || fail "footnotes: $(cat "$WORK/foot.txt")"
else
	echo "SKIP part: cycles counts here: no unsupported footnote to share"
fi

# -G a,b with such an event: each cgroup's line says <not supported> (the event's own status), never
# <not counted> (what a cgroup in which the event never ran says), in the table and in the CSV.
if "$TALLY" stat -x, -a -e cycles true 2>&1 | grep -q '^<not supported>,'; then
	"$TALLY" stat -a -e cycles,cycles -G "$A,$B" -- true 2> "$WORK/gns.txt"
	"$TALLY" stat -x, -a -e cycles,cycles -G "$A,$B" -- true 2> "$WORK/gns.csv"
	[ "$(grep -Ec "^ +<not supported> +cycles +($A|$B)\$" "$WORK/gns.txt")" = 2 ] &&
		! grep -q "not counted" "$WORK/gns.txt" &&
		grep -q "<not supported> cycles in $A: cannot open event 'cycles'" "$WORK/gns.txt" &&
		[ "$(awk -F, '$1 == "<not supported>" && $3 == "cycles" { print $4 }' "$WORK/gns.csv" | tr '\n' ' ')" = "$A $B " ] &&
		ok "-G a,b with an unsupported event: <not supported> in each cgroup" ||
		fail "-G a,b unsupported: $(cat "$WORK/gns.txt" "$WORK/gns.csv")"
else
	echo "SKIP part: cycles counts here: no unsupported event for -G a,b"
fi

# -A: per CPU lines of a cgroup, summing to its count.
"$TALLY" stat -x, -A -a -e page-faults -G "$A" -- sh -c "$workload" 2> "$WORK/a.csv" || fail "-A -G failed"
sum=$(awk -F, '$4 == "page-faults" && $5 == "'"$A"'" && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$WORK/a.csv")
in_range "-A -G $A (sum over CPUs)" "$sum" $A_PAGES

# -M per cgroup: each cgroup's metric from that cgroup's own lines (page faults over its task-clock),
# as a record with the cgroup field; the library's per-cgroup results, not the sum of every cgroup.
"$TALLY" stat -x, -a -M page_faults_per_second --for-each-cgroup "$A,$B" -- sh -c "$workload" 2> "$WORK/m.csv" ||
	fail "--for-each-cgroup -M failed: $(cat "$WORK/m.csv")"
for name in "$A" "$B"; do
	pf=$(field "$WORK/m.csv" page-faults "$name" 1)
	ms=$(field "$WORK/m.csv" task-clock "$name" 1)
	got=$(field "$WORK/m.csv" page_faults_per_second "$name" 7)
	if [[ "$pf" =~ ^[0-9]+$ && "$ms" =~ ^[0-9.]+$ && "$got" =~ ^[0-9.]+$ ]] &&
		awk -v pf="$pf" -v ms="$ms" -v got="$got" 'BEGIN { want = pf / (ms / 1000); d = got - want
			exit !(ms > 0 && (d < 0 ? -d : d) <= want / 1000 + 1) }'; then
		ok "-M page_faults_per_second in $name: $got = $pf faults / $ms msec of its task-clock"
	else
		fail "-M in $name: metric '$got', page-faults '$pf', task-clock '$ms': $(cat "$WORK/m.csv")"
	fi
done
[ "$(awk -F, '$3 == "page_faults_per_second" { print NF }' "$WORK/m.csv" | sort -u)" = \
  "$(awk -F, '$3 == "page-faults" { print NF }' "$WORK/m.csv" | sort -u)" ] &&
	ok "a metric record has the events' fields" || fail "metric record fields: $(cat "$WORK/m.csv")"

# -G with -M: the metric in the cgroup its events count in.
"$TALLY" stat -a -e page-faults,task-clock -G "$A" -M page_faults_per_second -- sh -c "$workload" 2> "$WORK/gm.txt" ||
	fail "-G -M failed: $(cat "$WORK/gm.txt")"
grep -Eq "^ +[0-9.,]+ +page_faults_per_second +$A # /sec" "$WORK/gm.txt" && ok "-G -M: the metric on a line of $A" ||
	fail "-G -M: $(cat "$WORK/gm.txt")"

# -G giving a metric's events different cgroups (task-clock, which -M adds, counts every task): no value
# that would mix two cgroups' counts, and the reason.
"$TALLY" stat -a -e page-faults -G "$A" -M page_faults_per_second -- sh -c "$workload" 2> "$WORK/gx.txt"
grep -q "page_faults_per_second in $A: task-clock is not counted in this cgroup (-G gave the metric's events different cgroups" \
	"$WORK/gx.txt" && ok "-G -M with the metric's events in two cgroups: not available, explained" ||
	fail "-G -M split: $(cat "$WORK/gx.txt")"

# JSON: a metric record per cgroup, with its cgroup; valid against the schema. perf's JSON: the cgroup key.
"$TALLY" stat -j -a -M page_faults_per_second --for-each-cgroup "$A,$B" -- sh -c "$workload" 2> "$WORK/m.json" ||
	fail "--for-each-cgroup -M -j failed"
python3 - "$WORK/m.json" "$A" "$B" <<'EOP' && ok "JSON: a metric per cgroup, each from its cgroup" || fail "JSON metrics: $(head -c 600 "$WORK/m.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
metrics = doc["metrics"]
assert [m["cgroup"] for m in metrics] == sys.argv[2:4], metrics
for m in metrics:
    pf = [e for e in doc["events"] if e["name"] == "page-faults" and e["cgroup"] == m["cgroup"]][0]
    assert m["available"] and m["inputs"][0]["value"] == pf["scaled"], (m, pf)
EOP
python3 "$(dirname "$0")/cli_helpers/validate_json_schema.py" "${TALLY_SOURCE:-$(dirname "$0")/..}/docs/json-schema.json" \
	"$WORK/m.json" && ok "JSON with per-cgroup metrics valid against docs/json-schema.json" || fail "JSON schema (metrics)"
"$TALLY" stat --json-format=perf -a -M page_faults_per_second --for-each-cgroup "$A" -- sh -c "$workload" 2> "$WORK/m.pjson"
grep -q "\"event\" : \"page-faults\", \"cgroup\" : \"$A\"" "$WORK/m.pjson" &&
	grep -q "\"cgroup\" : \"$A\", \"metric-value\" : [0-9.]*, \"metric-unit\" : \"page_faults_per_second\"" "$WORK/m.pjson" &&
	ok "perf JSON: the cgroup key after the event, and on the metric" || fail "perf JSON: $(cat "$WORK/m.pjson")"

# -I: each interval's per-cgroup count (the library's delta of the cgroup); the intervals add up.
"$TALLY" stat -x, -I 100 -a -e page-faults -G "$A" -- sh -c "$workload" 2> "$WORK/i.csv" || fail "-I -G failed"
sum=$(awk -F, '$4 == "page-faults" && $5 == "'"$A"'" && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' "$WORK/i.csv")
in_range "-I -G $A (sum over intervals)" "$sum" $A_PAGES

# perf stat -G on the same workload: the same counts, the same fields.
if command -v perf >/dev/null 2>&1; then
	perf stat -x, -a -e page-faults --for-each-cgroup "$A,$B" -- sh -c "$workload" 2> "$WORK/perf.csv"
	for g in "$A:$A_PAGES" "$B:$B_PAGES"; do
		name=${g%%:*}
		p=$(field "$WORK/perf.csv" page-faults "$name" 1)
		t=$(field "$WORK/each.csv" page-faults "$name" 1)
		in_range "perf stat --for-each-cgroup $name" "$p" "${g##*:}"
		if [[ "$p" =~ ^[0-9]+$ && "$t" =~ ^[0-9]+$ ]] && (( (p > t ? p - t : t - p) <= p / 100 + 32 )); then
			ok "tally $t and perf $p agree for $name"
		else
			fail "tally '$t' and perf '$p' for $name"
		fi
	done
	pf=$(awk -F, 'NR == 1 { print NF }' "$WORK/perf.csv")
	tf=$(awk -F, 'NR == 1 { print NF }' "$WORK/each.csv")
	[ "$pf" = "$tf" ] && ok "CSV has perf's $pf fields" || fail "CSV fields: tally $tf, perf $pf"
else
	echo "note: perf is not installed: no comparison"
fi

# perf's rules and the explained errors.
expect_error() { # STATUS TEXT ARGS...
	local want=$1 text=$2
	shift 2
	"$TALLY" stat "$@" 2> "$WORK/err"
	local got=$?
	if [ $got = "$want" ] && grep -qF -- "$text" "$WORK/err"; then ok "$* -> $want: $text"; else
		fail "$* -> $got: $(cat "$WORK/err")"; fi
}
expect_error 2 "needs -a or -C" -e page-faults -G "$A" -- true
expect_error 2 "-G names the cgroups of the -e events before it" -a -G "$A" -e page-faults -- true
expect_error 2 "cannot be used together" -a -e page-faults -G "$A" --for-each-cgroup "$A" -- true
expect_error 2 "for 1 event" -a -e page-faults -G "$A,$B" -- true
# A name past the events before its -G is refused (perf 6.1), not given to an event after it.
expect_error 2 "is name 2, for 1 event" -a -e page-faults -G "$A,$B" -e task-clock -- true
expect_error 1 "does not exist" -a -e page-faults -G tally-no-such-cgroup -- true
# A name with a terminal's escape in it is said escaped, never raw.
expect_error 1 'cgroup '"'"'nope\x1b[31mX'"'"' does not exist' -a -e page-faults -G "$(printf 'nope\033[31mX')" -- true
expect_error 1 "climbs out of the perf_event cgroup hierarchy" -a -e page-faults -G "$A/../.." -- true
expect_error 2 "not with --per-pmu" -a -e page-faults -G "$A" --per-pmu -- true
expect_error 2 "not with --metric-only" -a -M page_faults_per_second --for-each-cgroup "$A" --metric-only -- true
finish
