#!/bin/bash
# SPDX-License-Identifier: MIT
# tally merge over per-rank results made here without a launcher (its variables set by hand; the real
# mpirun is tests/test_cli_mpi.sh): the statistics of every scope checked against values python computes
# from the same files, per host, status mixes, regions by name, the three formats; and every malformed input
# (a truncated file, a non-tally JSON, mixed schema versions, an old schema, an empty list, an empty file,
# other events, a rank twice, another job, text that is not JSON, a missing file) refused with its own
# message, exit 2 and nothing on stdout.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to check the statistics"; exit 77; }
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE SLURM_PROCID SLURM_NTASKS \
	MV2_COMM_WORLD_RANK MV2_COMM_WORLD_SIZE SLURM_JOB_ID PBS_JOBID LSB_JOBID FLUX_JOB_ID JOB_ID TALLY_OUTPUT
cd "$WORK" || exit 1

# Four ranks of job 77, each faulting in a buffer of its own size (dd's bs), so that min and max differ.
for r in 0 1 2 3; do
	SLURM_PROCID=$r SLURM_NTASKS=4 SLURM_JOB_ID=77 "$TALLY" stat -j -o "out.%r.json" -e page-faults,task-clock -- \
		dd if=/dev/zero of=/dev/null bs=$(((r + 1) * 256))k count=1 2>/dev/null
done
[ "$(ls out.*.json | wc -l)" = 4 ] && ok "four per-rank files" || fail "files: $(ls)"

# The expected statistics, computed from the files by python (population stddev over the ranks).
cat >expect.py <<'PY'
import json, math, sys
def stats(values):
    vals = [v for _, v in values]
    n = len(vals); mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / n)
    lo = min(values, key=lambda x: x[1]); hi = max(values, key=lambda x: x[1])
    return dict(ranks=n, sum=sum(vals), mean=mean, min=lo[1], min_rank=lo[0], max=hi[1], max_rank=hi[0],
                stddev=sd, imbalance=hi[1] / mean if mean else None)
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))
def check(got, want, what):
    for k in ("ranks", "sum", "mean", "min", "max", "stddev"):
        assert close(got[k], want[k]), (what, k, got[k], want[k])
    assert got["min_at"]["rank"] == want["min_rank"] and got["max_at"]["rank"] == want["max_rank"], (what, got)
    assert (got["imbalance"] is None) == (want["imbalance"] is None) and (want["imbalance"] is None or close(got["imbalance"], want["imbalance"])), what
PY

"$TALLY" merge -j out.*.json >merged.json 2>err
st=$?
python3 - merged.json out.*.json <<'PY' && [ $st -eq 0 ] && ok "merge -j: sum, mean, min/max with rank, stddev, imbalance as python computes them" || fail "merge -j: $st $(cat err)"
import json, sys
exec(open("expect.py").read())
m = json.load(open(sys.argv[1]))
docs = [json.load(open(f)) for f in sys.argv[2:]]
assert m["size"] == 4 and m["job"] == "77" and m["missing_ranks"] == 0 and m["all"]["ranks"] == [0, 1, 2, 3], m
for i, ev in enumerate(m["all"]["events"]):
    name = docs[0]["events"][i]["name"]
    vals = [(d["rank"], d["events"][i]["scaled"] * d["events"][i]["unit_scale"]) for d in docs]
    check(ev, stats(vals), name)
    assert ev["statuses"]["counted"] == 4, ev
assert len(m["hosts"]) == 1 and m["hosts"][0]["ranks"] == [0, 1, 2, 3]
PY

"$TALLY" merge out.*.json >table 2>err
grep -q "4 files, 4 of 4 ranks on 1 host ($(hostname)), job 77" table && grep -Eq "^ +[0-9,]+ +page-faults +[0-9,.]+ +[0-9,]+ \(0\) +[0-9,]+ \([0-3]\) .* 4 counted$" table &&
	ok "merge: the table" || fail "table: $(cat table err)"
"$TALLY" merge -x';' out.*.json >csv
[ "$(head -1 csv)" = "host;region;event;unit;ranks;sum;mean;min;min_rank;max;max_rank;stddev;imbalance;status" ] &&
	grep -q "^all;;page-faults;;4;" csv && grep -q "^all;;task-clock;msec;4;" csv && ok "merge -x: CSV" || fail "csv: $(cat csv)"

"$TALLY" merge out.0.json out.1.json out.3.json >table 2>err
grep -q "3 files, 3 of 4 ranks" table && grep -q "(rank 2 of the job has no file: the sums leave it out)" table &&
	"$TALLY" merge -j out.0.json out.1.json out.3.json | python3 -c 'import json, sys; assert json.load(sys.stdin)["missing_ranks"] == 1' &&
	ok "a rank without a file: said" || fail "missing rank: $(cat table err)"

# Two hosts and a rank that was not counted: per-host statistics, and the status mix shown.
python3 - <<'PY'
import json
for r in (2, 3):
    d = json.load(open("out.%d.json" % r)); d["host"] = "node-b"
    if r == 3:
        d["events"][0]["status"] = "not-counted"; d["events"][0]["scaled"] = 0
    json.dump(d, open("out.%d.json" % r, "w"))
PY
"$TALLY" merge -j out.*.json >merged.json 2>err
python3 - merged.json out.*.json <<'PY' && ok "per host, and a rank not counted: left out of the statistics, shown in the statuses" || fail "hosts: $(cat err)"
import json, sys
exec(open("expect.py").read())
m = json.load(open(sys.argv[1]))
docs = [json.load(open(f)) for f in sys.argv[2:]]
hosts = {h["host"]: h for h in m["hosts"]}
assert len(hosts) == 2 and hosts["node-b"]["ranks"] == [2, 3], hosts.keys()
pf = m["all"]["events"][0]
assert pf["statuses"] == {"counted": 3, "scaled": 0, "not-counted": 1, "not-supported": 0}, pf
check(pf, stats([(d["rank"], d["events"][0]["scaled"]) for d in docs[:3]]), "page-faults, 3 counted")
b = hosts["node-b"]["events"][1]
check(b, stats([(d["rank"], d["events"][1]["scaled"] * 1e-6) for d in docs[2:]]), "task-clock on node-b")
PY
"$TALLY" merge out.*.json >table
grep -q "3 counted, 1 not-counted" table && grep -q "^ host node-b (2 ranks):" table &&
	ok "table: per-host blocks and the status mix" || fail "mix table: $(cat table)"
# An event no rank could open reads <not supported>, as tally stat says it, not <not counted>.
for r in 0 1; do SLURM_PROCID=$r SLURM_NTASKS=2 "$TALLY" stat -j -o "ns.$r.json" -e page-faults,cycles -- true; done
"$TALLY" merge ns.0.json ns.1.json >ns.txt 2>err
grep -Eq "^ +<not supported> +cycles +2 not-supported$" ns.txt && ! grep -q "not counted" ns.txt &&
	ok "an event no rank supports: <not supported>" || fail "not supported: $(cat ns.txt err)"
"$TALLY" merge -x, out.*.json >mix.csv
awk -F, 'NF != 14 { bad = 1 } END { exit bad }' mix.csv && grep -q "^all,,page-faults,,3,.*,3 counted; 1 not-counted$" mix.csv &&
	ok "merge -x,: a status mix stays one field" || fail "mix csv: $(cat mix.csv)"

# Region output of four ranks, merged by name.
PROG=$TALLY_BUILD/examples/regions
if [ -x "$PROG" ]; then
	for r in 0 1 2 3; do
		TALLY_OUTPUT="reg.%r.json" TALLY_EVENTS=page-faults PMI_RANK=$r PMI_SIZE=4 "$PROG" >/dev/null
	done
	"$TALLY" merge -j reg.*.json >regmerged.json 2>err
	python3 - regmerged.json reg.*.json <<'PY' && ok "regions merged by name, as python computes them" || fail "regions: $(cat err)"
import json, sys
exec(open("expect.py").read())
m = json.load(open(sys.argv[1]))
docs = [json.load(open(f)) for f in sys.argv[2:]]
assert m["kind"] == "regions" and m["all"]["events"] == []
regions = {r["name"]: r for r in m["all"]["regions"]}
assert set(regions) == {"fill", "touch", "sum"}, regions.keys()
for name, reg in regions.items():
    rows = [(d["rank"], [x for x in d["regions"] if x["name"] == name][0]) for d in docs]
    assert reg["calls"] == sum(r["calls"] for _, r in rows), name
    check(reg["events"][0], stats([(rank, r["events"][0]["sum"]) for rank, r in rows]), name)
assert regions["touch"]["events"][0]["min"] >= 4 * 200
PY
	"$TALLY" merge reg.*.json >table && grep -q "region touch: 800 calls" table && ok "regions in the table" || fail "$(cat table)"
fi

# Malformed inputs: each its own message, exit 2, nothing on stdout.
cp out.0.json good.0.json
cp out.1.json good.1.json
head -c 300 good.1.json >cut.json
refused merge "an empty list" "no files to merge"
refused merge "a truncated file" "cut.json: truncated: the JSON ends after 300 bytes" good.0.json cut.json
echo '{"name": "x", "values": [1, 2]}' >other.json
refused merge "a JSON that is not tally's" "other.json: not a tally result" good.0.json other.json
echo '[1, 2]' >array.json
refused merge "a JSON array" "array.json: not a tally result" array.json
python3 -c 'import json; d = json.load(open("good.1.json")); d["schema_version"] = 2; json.dump(d, open("v2.json", "w"))'
refused merge "mixed schema versions" "mixed schema versions: v2.json has version 2, good.0.json has version 3" good.0.json v2.json
refused merge "an old schema alone" "v2.json: a tally stat -j document of version 2: tally merge reads version 3" v2.json
: >empty.json
refused merge "an empty file" "empty.json: not JSON: no JSON document (the file is empty or blank)" good.0.json empty.json
echo 'page-faults 12' >text.json
refused merge "text that is not JSON" "text.json: not JSON: unexpected character 'p' at line 1, column 1" text.json
# A byte that is no printable character is named, not written to the terminal (an escape sequence, a NUL
# that would cut the message).
printf '\033]0;owned\007' >esc.json
refused merge "a file of control bytes" "esc.json: not JSON: unexpected byte 0x1b at line 1, column 1" esc.json
printf '\000x' >nul.json
refused merge "a file starting with NUL" "nul.json: not JSON: unexpected byte 0x00 at line 1, column 1" nul.json
printf '{"\\u001b[31m": 1, "\\u001b[31m": 2}' >member.json
refused merge "a control character quoted from the file" 'member.json: not JSON: a second member named "\\x1b\[31m"' member.json
grep -q "$(printf '\033')" "$WORK/refused.err" && fail "the file's escape byte reached the terminal: $(od -c "$WORK/refused.err")"
refused merge "a missing file" "nothere.json: cannot open: No such file or directory" good.0.json nothere.json
refused merge "a file given twice" "good.0.json and good.0.json both hold rank 0" good.0.json good.0.json
SLURM_PROCID=2 SLURM_NTASKS=4 SLURM_JOB_ID=77 "$TALLY" stat -j -o ev.json -e page-faults -- true
refused merge "other events" "ev.json counted other events than good.0.json" good.0.json ev.json
SLURM_PROCID=1 SLURM_NTASKS=4 SLURM_JOB_ID=78 "$TALLY" stat -j -o job.json -e page-faults,task-clock -- true
refused merge "another job" "job.json is from job 78, good.0.json from job 77" good.0.json job.json
refused merge "two kinds" "is region output (TALLY_OUTPUT) but good.0.json is a tally stat -j document" good.0.json reg.0.json
# Numbers tally never writes: a count is an integer 0 to 2^64-1, a scaled value finite and >= 0 (and, in a
# document of one run, a whole count: the library's scaled count is one), rank below size, size at least 1.
# Each is refused with its own message rather than printed as inf, -nan, 0 or 18446744073709551615.
set_member() { # FILE OUT PYTHON-STATEMENT-ON-d
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[3]); open(sys.argv[2], "w").write(json.dumps(d).replace("\"@", "").replace("@\"", ""))' "$@"
}
# One case a line: the file written, the change made to good.1.json (python on d; "@...@" a bare literal),
# and the message wanted.
while IFS='|' read -r out change want; do
	set_member good.1.json "$out" "$change"
	refused merge "$out: $change" "$out: $want" good.0.json "$out"
done <<'CASES'
inf.json|d["events"][0]["scaled"] = "@1e400@"|event page-faults: "scaled" 1e400 is not a finite number
neg.json|d["events"][0]["scaled"] = -5|event page-faults: "scaled" -5 is negative
big.json|d["events"][0]["scaled"] = "@18446744073709551621@"|event page-faults: "scaled" 18446744073709551621 is above 2^64-1
half.json|d["events"][0]["scaled"] = 0.5|event page-faults: "scaled" 0.5 is not a whole count in a document of one run
vneg.json|d["events"][0]["value"] = -5|event page-faults: "value" -5 is negative
vbig.json|d["events"][0]["value"] = "@18446744073709551621@"|event page-faults: "value" 18446744073709551621 is above 2^64-1
vhalf.json|d["events"][0]["value"] = 0.5|event page-faults: "value" 0.5 is not an integer
vother.json|d["events"][0]["value"] += 7|event page-faults: counted, but "scaled" .* is not its count
unit.json|d["events"][1]["unit_scale"] = 0|event task-clock: "unit_scale" 0 is not a positive finite number
rank7.json|d["rank"] = 7|rank 7 in a job of size 4 (ranks 0 to 3)
size0.json|d["size"] = 0|size 0: a job has at least one rank
CASES
[ -f reg.1.json ] && set_member reg.1.json regsum.json 'd["regions"][0]["events"][0]["sum"] = -3' &&
	refused merge "a region's negative sum" 'regsum.json: region .*: "sum" -3 is negative' reg.0.json regsum.json
# "regions": null is a document without regions (the schema allows it), merged as one; a "regions" that
# is no regions object is refused.
set_member good.1.json regnull.json 'd["regions"] = None'
"$TALLY" merge -j good.0.json regnull.json >regnull.txt 2>err && ok '"regions": null: merged as a document without regions' ||
	fail "\"regions\": null: $(cat err)"
set_member good.1.json regbad.json 'd["regions"] = 7'
refused merge "a \"regions\" that is a number" 'regbad.json: .*a "regions" member that is not a regions object' good.0.json regbad.json
# A -r document's closing scaled value is a mean: fractional, and accepted.
for r in 0 1; do SLURM_PROCID=$r SLURM_NTASKS=2 "$TALLY" stat -j -r 3 -o "r3.$r.json" -e page-faults -- true; done
set_member r3.1.json r3f.1.json 'd["events"][0]["scaled"] = d["events"][0]["value"] + 0.25'
"$TALLY" merge r3.0.json r3f.1.json >r3.txt 2>err && ok "a -r document's fractional mean: accepted" || fail "-r mean: $(cat err)"
# Ranks 1 to 3 of 4: rank 0 is the one without a file, and is named; so with no size known.
cp out.1.json n1.json; cp out.2.json n2.json; cp out.3.json n3.json
"$TALLY" merge n1.json n2.json n3.json >norank0.txt 2>err
grep -q "3 of 4 ranks" norank0.txt && grep -q "(rank 0 of the job has no file: the sums leave it out)" norank0.txt &&
	"$TALLY" merge -j n1.json n2.json n3.json | python3 -c '
import json, sys; m = json.load(sys.stdin); assert m["missing_ranks"] == 1 and m["missing"] == [0], m' &&
	ok "ranks 1 to 3 of 4: rank 0 said missing" || fail "no rank 0: $(cat norank0.txt err)"
for f in n1 n2 n3; do set_member $f.json $f.json 'd["size"] = None'; done
"$TALLY" merge n1.json n2.json n3.json >norank0.txt 2>err
grep -q "(rank 0 of the job has no file: the sums leave it out)" norank0.txt &&
	ok "ranks 1 to 3 of no known size: rank 0 said missing" || fail "no rank 0, no size: $(cat norank0.txt err)"
"$TALLY" merge --bogus good.0.json >/dev/null 2>&1; [ $? -eq 2 ] && ok "an unknown option: exit 2" || fail "unknown option"
finish
