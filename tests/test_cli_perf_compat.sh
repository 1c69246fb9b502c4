#!/bin/bash
# SPDX-License-Identifier: MIT
# perf stat's options that perf's own shell tests use (issue 14), each against what perf 6.1 prints:
# -B/--no-big-num, --json-format=perf (one object per line, perf's keys, accepted by perf's lint script
# when linux-perf is installed), --interval-count, --summary and --no-csv-summary, --per-node and
# --per-core's S-D-C labels (on a sysfs tree of two NUMA nodes), no target meaning the whole system, and
# tally list --raw-dump.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
require_two_cpus_counted_wide

# -B: no thousands separators (test_cli_locale: the locale's, without it).
"$TALLY" stat -B -e page-faults -- dd if=/dev/zero of=/dev/null bs=16M count=1 2>"$WORK/b"
grep -qE '^ +[0-9]{4,} +page-faults' "$WORK/b" && ok "-B prints the count ungrouped" || fail "-B: $(cat "$WORK/b")"
LC_ALL=C "$TALLY" stat -e page-faults -- dd if=/dev/zero of=/dev/null bs=16M count=1 2>"$WORK/b"
grep -qE '^ +[0-9]{4,} +page-faults' "$WORK/b" && ok "the C locale groups nothing either, as perf" || fail "C: $(cat "$WORK/b")"

# --json-format=perf: every line one object with perf's keys, in perf's order.
"$TALLY" stat --json-format=perf -e task-clock,page-faults -- true 2>"$WORK/j"
python3 - "$WORK/j" <<'PY' && ok "--json-format=perf: perf's keys, one object per line" || fail "perf JSON: $(cat "$WORK/j")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
keys = ["counter-value", "unit", "event", "event-runtime", "pcnt-running", "metric-value", "metric-unit"]
for line in lines:
    d = json.loads(line)
    assert list(d) == keys, list(d)
    float(d["counter-value"])
assert json.loads(lines[0])["unit"] == "msec" and json.loads(lines[1])["event"] == "page-faults"
PY
# With -r, perf 6.1's "variance" (the relative stddev in %, as the table's +- figure) after "event".
"$TALLY" stat --json-format=perf -r 3 -e page-faults -- true 2>"$WORK/j"
python3 - "$WORK/j" <<'PY' && ok "--json-format=perf -r: variance as perf's" || fail "perf JSON -r: $(cat "$WORK/j")"
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert list(d)[:4] == ["counter-value", "unit", "event", "variance"] and d["variance"] >= 0, d
PY
"$TALLY" stat --json-format=perf -A -a -e cpu-clock -I 50 --interval-count 1 2>"$WORK/j"
python3 - "$WORK/j" <<'PY' && ok "--json-format=perf -A -I: interval and cpu keys first" || fail "perf JSON -A: $(cat "$WORK/j")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) >= 2, lines
for line in lines:
    d = json.loads(line)
    assert list(d)[:2] == ["interval", "cpu"] and d["cpu"].isdigit(), d
PY
lint=/usr/lib/perf-core/tests/shell/lib/perf_json_output_lint.py
if [ -f "$lint" ]; then
	"$TALLY" stat --json-format=perf -- true 2>&1 | python3 "$lint" --no-args >/dev/null 2>&1 &&
		ok "perf's own lint accepts it (--no-args)" || fail "perf's lint refuses --json-format=perf"
	"$TALLY" stat --json-format=perf --per-core -a -- true 2>&1 | python3 "$lint" --per-core >/dev/null 2>&1 &&
		ok "perf's own lint accepts it (--per-core)" || fail "perf's lint refuses --per-core"
else
	echo "SKIP part: perf's lint script is not installed (linux-perf)"
fi
"$TALLY" stat --json-format=yaml -- true 2>"$WORK/e"
[ $? = 2 ] && grep -q "tally or perf" "$WORK/e" && ok "--json-format=yaml is refused" || fail "yaml: $(cat "$WORK/e")"

# --interval-count and --summary (perf's csv_summary test), no command: the whole system.
"$TALLY" stat -e cpu-clock -x' ' -I 50 --interval-count 2 --summary 2>"$WORK/s"
[ "$(grep -c '^ *[0-9]' "$WORK/s")" = 2 ] && ok "--interval-count 2: two intervals" || fail "count: $(cat "$WORK/s")"
[ "$(grep -c '^ *summary ' "$WORK/s")" = 1 ] && ok "--summary: one summary line" || fail "summary: $(cat "$WORK/s")"
"$TALLY" stat -e cpu-clock -x, -I 50 --interval-count 1 --summary --no-csv-summary 2>"$WORK/s"
[ "$(wc -l <"$WORK/s")" = 2 ] && ! grep -q summary "$WORK/s" && [ "$(tail -1 "$WORK/s" | cut -d, -f3)" = cpu-clock ] &&
	ok "--no-csv-summary: the totals without the field" || fail "no-csv-summary: $(cat "$WORK/s")"
"$TALLY" stat -e page-faults -I 50 --summary -- sleep 0.12 2>"$WORK/s"
grep -q "Performance counter stats for 'sleep 0.12'" "$WORK/s" && [ "$(grep -c 'page-faults' "$WORK/s")" -ge 3 ] &&
	ok "--summary in the table: the totals block after the intervals" || fail "table summary: $(cat "$WORK/s")"
# Without -I, as perf 6.1: the table as ever, CSV's records with the summary field (a script that always
# passes --summary keeps working).
"$TALLY" stat --summary -e page-faults -- sh -c 'exit 3' 2>"$WORK/e"
st=$?
"$TALLY" stat --summary -x, -e page-faults -- true 2>"$WORK/c"
[ $st = 3 ] && grep -q " page-faults" "$WORK/e" && grep -Eq '^ {9}summary,[0-9]+,,page-faults,' "$WORK/c" &&
	ok "--summary without -I: accepted, CSV's summary field as perf's" || fail "summary without -I: $st $(cat "$WORK/e" "$WORK/c")"
"$TALLY" stat -e cpu-clock -x, --duration 0.05 2>"$WORK/s"
grep -q "^[0-9.]*,msec,cpu-clock," "$WORK/s" && ok "no command, no target: system wide" || fail "no target: $(cat "$WORK/s")"

# --per-node and --per-core on a tree: CPU 0 on node 1, CPU 1 on node 0, one package.
root=$WORK/sys
mkdir -p "$root/bus/event_source/devices/software"
echo 1 >"$root/bus/event_source/devices/software/type"
for n in 0 1; do
	mkdir -p "$root/devices/system/cpu/cpu$n/topology" "$root/devices/system/cpu/cpu$n/node$((1 - n))"
	echo 0 >"$root/devices/system/cpu/cpu$n/topology/physical_package_id"
	echo 0 >"$root/devices/system/cpu/cpu$n/topology/die_id"
	echo "$n" >"$root/devices/system/cpu/cpu$n/topology/core_id"
done
echo 0-1 >"$root/devices/system/cpu/online"
# Caches: each CPU its own L1d, L1i and L2, one L3 for both (index<K>: level, type, id).
cache() { # cpu index level type id
	local d=$root/devices/system/cpu/cpu$1/cache/index$2
	mkdir -p "$d" && echo "$3" >"$d/level" && echo "$4" >"$d/type" && echo "$5" >"$d/id"
}
for n in 0 1; do
	cache $n 0 1 Data $n; cache $n 1 1 Instruction $n; cache $n 2 2 Unified $n; cache $n 3 3 Unified 0
done
TALLY_SYSFS_ROOT=$root "$TALLY" stat -x, --per-cache -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1,2 "$WORK/n" | tr '\n' ' ')" = "S0-D0-L3-ID0,2 " ] && ok "--per-cache: the highest level, one L3 of two CPUs" ||
	fail "--per-cache: $(cat "$WORK/n")"
TALLY_SYSFS_ROOT=$root "$TALLY" stat -x, --per-cache=L2 -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1,2 "$WORK/n" | tr '\n' ' ')" = "S0-D0-L2-ID0,1 S0-D0-L2-ID1,1 " ] && ok "--per-cache=L2: each CPU's own" ||
	fail "--per-cache=L2: $(cat "$WORK/n")"
TALLY_SYSFS_ROOT=$root "$TALLY" stat -x, --per-cache=L1 -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
grep -q "^S0-D0-L1-ID1,1," "$WORK/n" && ok "--per-cache=L1: the data cache, not the instruction one" ||
	fail "--per-cache=L1: $(cat "$WORK/n")"
"$TALLY" stat --per-cache=L5 -a -e cpu-clock --duration 0.01 2>"$WORK/e"
[ $? = 2 ] && grep -q "L1 to L4" "$WORK/e" && ok "--per-cache=L5 is refused" || fail "$(cat "$WORK/e")"
TALLY_SYSFS_ROOT=$root "$TALLY" stat -x, --per-node -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1,2 "$WORK/n" | sort | tr '\n' ' ')" = "N0,1 N1,1 " ] && ok "--per-node: N0 and N1, one CPU each" ||
	fail "--per-node: $(cat "$WORK/n")"
TALLY_SYSFS_ROOT=$root "$TALLY" stat --json-format=perf --per-node -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
grep -q '^{"node" : "N1", "aggregate-number" : 1, ' "$WORK/n" && ok "--per-node in perf's JSON" || fail "$(cat "$WORK/n")"
TALLY_SYSFS_ROOT=$root "$TALLY" stat -x, --per-core -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1 "$WORK/n" | tr '\n' ' ')" = "S0-D0-C0 S0-D0-C1 " ] && ok "--per-core labels as perf's: S0-D0-C0" ||
	fail "--per-core: $(cat "$WORK/n")"
# --per-core with SMT siblings: one line per core, labelled with the core's own id (core_id, not the
# CPU's number), of the CPUs it holds; the same core id in two packages is two cores. Trees of this
# machine's two CPUs: siblings of core 5 of one package, then core 2 of packages 0 and 1.
smt_tree() { # ROOT PKG0 CORE0 PKG1 CORE1 SIBLINGS0 SIBLINGS1
	mkdir -p "$1/bus/event_source/devices/software"
	echo 1 >"$1/bus/event_source/devices/software/type"
	mkdir -p "$1/devices/system/cpu" && echo 0-1 >"$1/devices/system/cpu/online"
	for n in 0 1; do
		local t=$1/devices/system/cpu/cpu$n/topology pkg core sib
		if [ $n = 0 ]; then pkg=$2 core=$3 sib=$6; else pkg=$4 core=$5 sib=$7; fi
		mkdir -p "$t" && echo "$pkg" >"$t/physical_package_id" && echo 0 >"$t/die_id" && echo "$core" >"$t/core_id" &&
			echo "$sib" >"$t/thread_siblings_list" && echo "$sib" >"$t/core_cpus_list"
	done
}
smt_tree "$WORK/smt" 0 5 0 5 0-1 0-1
TALLY_SYSFS_ROOT=$WORK/smt "$TALLY" stat -x, --per-core -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1,2 "$WORK/n" | tr '\n' ' ')" = "S0-D0-C5,2 " ] && ok "--per-core, SMT siblings: one line for core 5, of 2 CPUs" ||
	fail "--per-core, SMT siblings: $(cat "$WORK/n")"
TALLY_SYSFS_ROOT=$WORK/smt "$TALLY" stat --per-core -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(grep -Ec '^S0-D0-C5 +2 +[0-9.,]+ msec cpu-clock' "$WORK/n")" = 1 ] && ! grep -q '^S0-D0-C[^5]' "$WORK/n" &&
	ok "--per-core, SMT siblings, table: one line" || fail "--per-core, SMT siblings, table: $(cat "$WORK/n")"
smt_tree "$WORK/smt2" 0 2 1 2 0 1
TALLY_SYSFS_ROOT=$WORK/smt2 "$TALLY" stat -x, --per-core -a -e cpu-clock -- sleep 0.02 2>"$WORK/n"
[ "$(cut -d, -f1,2 "$WORK/n" | tr '\n' ' ')" = "S0-D0-C2,1 S1-D0-C2,1 " ] && ok "--per-core: core 2 of two packages is two cores" ||
	fail "--per-core, one core id in two packages: $(cat "$WORK/n")"
"$TALLY" stat --per-node -e cpu-clock -- true 2>"$WORK/e"
[ $? = 2 ] && grep -q -- "--per-node needs -a or -C" "$WORK/e" && ok "--per-node without -a is refused" || fail "$(cat "$WORK/e")"

# --metric-only: the metrics alone, a column each (perf's flag); without -M, perf's Default ones.
"$TALLY" stat --metric-only -M CPUs_utilized,page_faults_per_second -- true 2>"$WORK/m"
grep -qE '^ +CPUs_utilized +page_faults_per_second$' "$WORK/m" && grep -qE '^ +[0-9.]+ +[0-9.]+$' "$WORK/m" &&
	! grep -q "task-clock" "$WORK/m" && ok "--metric-only: names over values, no event lines" || fail "metric-only: $(cat "$WORK/m")"
"$TALLY" stat --metric-only -x, --csv-header -M CPUs_utilized,page_faults_per_second -I 50 -- sleep 0.12 2>"$WORK/m"
[ "$(head -1 "$WORK/m")" = "time,CPUs_utilized,page_faults_per_second" ] &&
	[ "$(awk -F, 'NR > 1 { print NF }' "$WORK/m" | sort -u)" = 3 ] && [ "$(wc -l <"$WORK/m")" -ge 3 ] &&
	ok "--metric-only -x, -I: a header, then one record per interval" || fail "metric-only CSV: $(cat "$WORK/m")"
"$TALLY" stat --metric-only -- true 2>"$WORK/m"
grep -q "CPUs_utilized" "$WORK/m" && ok "--metric-only without -M: the Default metrics" || fail "metric-only default: $(cat "$WORK/m")"
"$TALLY" stat --metric-only -e task-clock -- touch "$WORK/ran" 2>"$WORK/e"
[ $? = 2 ] && [ ! -e "$WORK/ran" ] && grep -q "name them with -M" "$WORK/e" &&
	ok "--metric-only with -e alone is refused before anything runs" || fail "metric-only -e: $(cat "$WORK/e")"

"$TALLY" stat --metric-only -A -a -M CPUs_utilized --duration 0.05 2>"$WORK/e"
[ $? = 2 ] && grep -q "not with -A" "$WORK/e" && ok "--metric-only -A is refused (the parts would be left out)" ||
	fail "metric-only -A: $(cat "$WORK/e")"
# -M in perf's JSON: the metric an object of its own, as perf prints it; perf's lint accepts it.
"$TALLY" stat --json-format=perf -M CPUs_utilized -e task-clock -- true 2>"$WORK/j"
tail -1 "$WORK/j" | grep -qE '^\{"metric-value" : [0-9.]+, "metric-unit" : "CPUs_utilized"\}$' &&
	ok "--json-format=perf -M: the metric's own object" || fail "perf JSON -M: $(cat "$WORK/j")"
if [ -f "$lint" ]; then
	python3 "$lint" --no-args <"$WORK/j" >/dev/null 2>&1 && ok "perf's lint accepts it" || fail "lint refuses -M lines"
fi

# tally list --raw-dump: names only, one line.
"$TALLY" list --raw-dump sw >"$WORK/l"
[ "$(wc -l <"$WORK/l")" = 1 ] && grep -qw page-faults "$WORK/l" && ! grep -q cpu_core "$WORK/l" &&
	ok "list --raw-dump sw: one line with page-faults" || fail "raw-dump sw: $(cat "$WORK/l")"
"$TALLY" list --raw-dump tool | grep -qw duration_time && ok "list --raw-dump tool" || fail "raw-dump tool"
"$TALLY" list --raw-dump bogus >/dev/null 2>"$WORK/e"
[ $? = 2 ] && grep -q "not 'bogus'" "$WORK/e" && ok "list --raw-dump bogus is refused" || fail "$(cat "$WORK/e")"
# -I with parts: the header names the part's column (as perf's: CPU, core and cpus, socket, ...) and its
# "counts" ends where the values do.
for agg in "-A:CPU" "--per-core:core cpus" "--per-socket:socket cpus"; do
	"$TALLY" stat -a "${agg%%:*}" -I 50 --interval-count 1 -e task-clock 2>"$WORK/h"
	python3 - "$WORK/h" "${agg#*:}" <<'PY' && ok "-I ${agg%%:*}: the header over its columns" || fail "-I ${agg%%:*} header: $(cat "$WORK/h")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head, row = lines[0], lines[1]
assert head.split()[2:-3] == sys.argv[2].split(), head
assert head.index("counts") + len("counts") == re.search(r"\S+(?= msec task-clock)", row).end(), (head, row)
PY
done
finish
