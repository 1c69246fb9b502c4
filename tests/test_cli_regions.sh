#!/bin/bash
# SPDX-License-Identifier: MIT
# Named regions from outside the program: examples/regions run alone (no configuration: a table on stderr
# at exit), with TALLY_OUTPUT patterns, with a spec that cannot open, and under tally stat --regions (table,
# CSV, JSON valid against docs/json-schema.json). The program's stdout and exit status never change.
# Each call of "touch" faults in 4 fresh pages: the smallest count per call is 4 (a sanitizer's shadow
# memory, or a first use that allocates, adds faults to some calls, so the sums are not checked exactly).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
SCHEMA=${TALLY_SOURCE:?}/docs/json-schema.json
VALIDATE=$TALLY_SOURCE/tests/cli_helpers/validate_json_schema.py
PROG=$TALLY_BUILD/examples/regions
[ -x "$PROG" ] || { echo "SKIP: $PROG not built"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse JSON"; exit 77; }
EXPECT="sum 2147450880"
unset TALLY_OUTPUT TALLY_EVENTS
# tally stat --regions makes its temporary file in $TMPDIR: a folder of this test's own, so that the check
# that none is left sees only this test's (another run on the machine, killed, may have left its own in /tmp).
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"

same_program() { # NAME STATUS STDOUT-FILE
	[ "$2" -eq 3 ] && ok "$1: the program's exit status" || fail "$1: exit status $2, not 3"
	[ "$(cat "$3")" = "$EXPECT" ] && ok "$1: the program's stdout alone" || fail "$1: stdout '$(head -c 200 "$3")'"
}

"$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "no configuration" $? "$WORK/out"
grep -q '^# tally regions, pid' "$WORK/err" && grep -Eq '^touch +all +200 .* page-faults +[0-9]+ +[0-9.]+ +[0-9.]+ +4 ' "$WORK/err" &&
	ok "no configuration: a table on stderr at exit" || fail "no configuration: $(head -5 "$WORK/err")"

TALLY_EVENTS=no-such-event "$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "a spec that cannot open" $? "$WORK/out"
grep -q "^# not counting: .*no-such-event" "$WORK/err" && ok "a spec that cannot open: the output says why" ||
	fail "cannot open: $(head -5 "$WORK/err")"

TALLY_OUTPUT="$WORK/r.%r.%h.%p.csv" SLURM_PROCID=7 "$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "%r %h %p" $? "$WORK/out"
f=$(ls "$WORK"/r.7."$(hostname)".*.csv 2>/dev/null)
[ -n "$f" ] && [ ! -s "$WORK/err" ] && grep -Eq '^touch,all,200,[0-9]+,page-faults,[0-9]+,[0-9.]+,[0-9.]+,4,[0-9]+,200,counted,' "$f" &&
	ok "TALLY_OUTPUT: %r %h %p expanded, CSV by its extension, nothing on stderr" || fail "TALLY_OUTPUT: $(ls "$WORK")"

TALLY_OUTPUT=/nonexistent/dir/x.json "$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "an output that cannot open" $? "$WORK/out"

"$TALLY" stat --regions -e page-faults -- "$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "stat --regions" $? "$WORK/out"
grep -q 'page-faults' "$WORK/err" && grep -Eq '^touch +all +200 .* page-faults +[0-9]+ +[0-9.]+ +[0-9.]+ +4 +[0-9]+  counted' "$WORK/err" &&
	[ "$(grep -n 'Performance counter stats' "$WORK/err" | cut -d: -f1)" -lt "$(grep -n '^# tally regions' "$WORK/err" | cut -d: -f1)" ] &&
	ok "stat --regions: the region table after the command's counts, -e for both" || fail "stat --regions: $(cat "$WORK/err")"

"$TALLY" stat --regions -x, -e page-faults -- "$PROG" 3 >"$WORK/out" 2>"$WORK/err"; same_program "stat --regions -x" $? "$WORK/out"
grep -q '^region,thread,calls,wall_ns,event,sum,mean,stddev,min,max,counted,status,ratio,overhead,low,open,stray_ends,metric_value,metric_unit,metric_threshold$' "$WORK/err" &&
	grep -q '^fill,all,200,' "$WORK/err" && ok "stat --regions -x: the regions as CSV" || fail "-x: $(cat "$WORK/err")"
# Beside each event the figure perf stat prints beside it: page faults per second of the region's time.
grep -Eq '^fill,all,200,[0-9]+,page-faults,([^,]*,){12}[0-9.e+]+,[KMG]?/sec,$' "$WORK/err" &&
	ok "stat --regions -x: a region's metric beside its event" || fail "-x metric: $(grep '^fill' "$WORK/err")"

"$TALLY" stat --regions -j -o "$WORK/r.json" -- "$PROG" 3 >"$WORK/out"; same_program "stat --regions -j" $? "$WORK/out"
python3 "$VALIDATE" "$SCHEMA" "$WORK/r.json" >"$WORK/why" && ok "stat --regions -j: valid against the schema" ||
	fail "-j: $(head -5 "$WORK/why")"
python3 - "$WORK/r.json" <<'PY' && ok "stat --regions -j: the regions section" || fail "-j content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 3
r = d["regions"]
assert r["version"] == 2 and r["error"] == "", r
regions = {x["name"]: x for x in r["regions"]}
assert set(regions) == {"fill", "touch", "sum"}, regions
fill = regions["fill"]
assert fill["calls"] == 200 and len(fill["threads"]) == 2 and all(t["calls"] == 100 for t in fill["threads"])
ev = {e["event"]: e for e in fill["events"]}
assert ev["page-faults"]["sum"] >= 800 and ev["page-faults"]["min"] == 4 and ev["page-faults"]["status"] == "counted"
assert [e["name"] for e in r["events"]] == [e["event"] for e in fill["events"]]
# task-clock's figure is the CPUs its region used, page-faults' a rate per second of that CPU time.
assert ev["task-clock"]["metric"]["unit"] == "CPUs utilized" and ev["task-clock"]["metric"]["value"] > 0, ev
assert ev["page-faults"]["metric"]["unit"].endswith("/sec"), ev
PY

# -M reaches the regions too (TALLY_METRICS): each region row has the metric from its own sums.
"$TALLY" stat --regions -j -o "$WORK/m.json" -M CPUs_utilized -e page-faults -- "$PROG" 3 >"$WORK/out"
same_program "stat --regions -M" $? "$WORK/out"
python3 "$VALIDATE" "$SCHEMA" "$WORK/m.json" >"$WORK/why" && ok "stat --regions -M -j: valid against the schema" ||
	fail "-M -j: $(head -5 "$WORK/why")"
python3 - "$WORK/m.json" <<'PY' && ok "stat --regions -M: each region's CPUs_utilized" || fail "-M content"
import json, sys
d = json.load(open(sys.argv[1]))
for region in d["regions"]["regions"]:
	(m,) = region["metrics"]
	assert m["name"] == "CPUs_utilized" and m["available"] and m["value"] > 0, region
PY

"$TALLY" stat --regions -j -o "$WORK/none.json" -- true
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["regions"] is None' "$WORK/none.json" &&
	ok "stat --regions -j: null when the command used no region" || fail "no regions: $(cat "$WORK/none.json")"
ls "$TMPDIR"/tally-regions-* >/dev/null 2>&1 && fail "a temporary file is left" || ok "no temporary file left"

# What the environment brings (TALLY_EVENTS, TALLY_METRICS) reaches the table escaped: no escape sequence or
# broken line on the terminal.
TALLY_EVENTS=$'page-faults,\e[31m' TALLY_METRICS=$'\e[32m' "$PROG" 3 >/dev/null 2>"$WORK/esc"
! grep -q $'\e' "$WORK/esc" && grep -q 'x1b\[31m' "$WORK/esc" && [ "$(grep -c '^# not counting: ' "$WORK/esc")" = 1 ] &&
	ok "control bytes from the environment are escaped in the table" || fail "escape: $(cat -v "$WORK/esc")"
# So are a C1 control (U+009B, a terminal's CSI) and bytes that are no UTF-8; a valid character is kept.
TALLY_METRICS=$'a\xc2\x9b31mr\xc3\xa9d\xff' "$PROG" 3 >/dev/null 2>"$WORK/esc8"
! grep -q $'\xc2\x9b' "$WORK/esc8" && ! LC_ALL=C grep -q $'\xff' "$WORK/esc8" &&
	grep -q $'x9b31mr\xc3\xa9d\\\\xff' "$WORK/esc8" &&
	ok "C1 controls and bytes that are no UTF-8 are escaped in the table" || fail "escape UTF-8: $(cat -v "$WORK/esc8")"
finish
