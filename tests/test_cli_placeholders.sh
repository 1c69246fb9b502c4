#!/bin/bash
# SPDX-License-Identifier: MIT
# Per-rank output paths (tally/rank.h): tally stat -o and the regions' TALLY_OUTPUT expand %r %s %h %p %j %%
# from the launcher's variables (Slurm's set by hand here: there is no Slurm on the test machine), a
# placeholder without a value is an error naming the variables tried (exit 2 for tally stat; for the
# regions a message and the results on stderr, the program untouched), and the rank, size, host and job
# are in the JSON (schema 3) and in the table's and CSV's headers.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to parse JSON"; exit 77; }
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE SLURM_PROCID SLURM_NTASKS \
	MV2_COMM_WORLD_RANK MV2_COMM_WORLD_SIZE SLURM_JOB_ID PBS_JOBID LSB_JOBID FLUX_JOB_ID JOB_ID TALLY_OUTPUT
HOST=$(hostname)

"$TALLY" stat -j -o "$WORK/out.%r.json" -e page-faults -- true 2>"$WORK/err"
st=$?
[ $st -eq 2 ] && grep -q "%r has no value here: none of OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID, MV2_COMM_WORLD_RANK is set" "$WORK/err" &&
	! ls "$WORK"/out.* >/dev/null 2>&1 &&
	ok "-o %r outside a launcher: exit 2 naming the variables, no file" || fail "-o %r alone: $st $(cat "$WORK/err")"

SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_JOB_ID=812 "$TALLY" stat -j -o "$WORK/r%r-of-%s.%h.j%j.%%.json" -e page-faults -- true
f="$WORK/r3-of-4.$HOST.j812.%.json"
[ -f "$f" ] && python3 - "$f" "$HOST" <<'PY' && ok "-o with Slurm's variables: path and JSON rank 3, size 4, host, job" || fail "slurm -o: $(ls "$WORK")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 3, d["schema_version"]
assert (d["rank"], d["size"], d["host"], d["job"]) == (3, 4, sys.argv[2], "812"), d
PY

"$TALLY" stat -j -o "$WORK/plain.json" -e page-faults -- true
python3 - "$WORK/plain.json" <<'PY' && ok "no launcher: rank, size and job null, the host given" || fail "plain: $(head -c 400 "$WORK/plain.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rank"] is None and d["size"] is None and d["job"] is None and d["host"], d
PY

OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 "$TALLY" stat -e page-faults -- true 2>"$WORK/err"
grep -q "^# rank 1 of 2 on $HOST\$" "$WORK/err" && ok "table: the rank in the header" || fail "table: $(cat "$WORK/err")"
OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 SLURM_JOB_ID=9 "$TALLY" stat -x, --csv-header -e page-faults -- true 2>"$WORK/err"
[ "$(head -1 "$WORK/err")" = "# rank 1 of 2 on $HOST, job 9" ] && ok "CSV: the rank before the header" || fail "csv: $(cat "$WORK/err")"
"$TALLY" stat -e page-faults -- true 2>"$WORK/err"
grep -q "^# rank" "$WORK/err" && fail "a rank line without a launcher" || ok "no rank line without a launcher"

PMI_RANK=2x "$TALLY" stat -e page-faults -- true 2>"$WORK/err"
st=$?
[ $st -eq 2 ] && grep -q "PMI_RANK='2x' is not a rank" "$WORK/err" && ok "a rank that is not a number: exit 2" || fail "2x: $st $(cat "$WORK/err")"

PROG=$TALLY_BUILD/examples/regions
if [ -x "$PROG" ]; then
	TALLY_OUTPUT="$WORK/reg.%r.json" "$PROG" 3 >"$WORK/out" 2>"$WORK/err"
	st=$?
	[ $st -eq 3 ] && [ "$(cat "$WORK/out")" = "sum 2147450880" ] && grep -q "TALLY_OUTPUT not written.*%r has no value here: none of OMPI_COMM_WORLD_RANK" "$WORK/err" &&
		grep -q "^# tally regions, pid" "$WORK/err" &&
		ok "TALLY_OUTPUT %r outside a launcher: said on stderr, results there, the program untouched" ||
		fail "regions %r: $st $(head -5 "$WORK/err")"
	TALLY_OUTPUT="$WORK/reg.%r.%s.%j.json" MV2_COMM_WORLD_RANK=5 MV2_COMM_WORLD_SIZE=6 PBS_JOBID=77.pbs "$PROG" 3 >/dev/null 2>"$WORK/err"
	python3 - "$WORK/reg.5.6.77.pbs.json" "$HOST" <<'PY' && [ ! -s "$WORK/err" ] && ok "TALLY_OUTPUT: MVAPICH's and PBS's variables, rank in the regions JSON" || fail "regions json: $(ls "$WORK") $(cat "$WORK/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 2 and (d["rank"], d["size"], d["host"], d["job"]) == (5, 6, sys.argv[2], "77.pbs"), d
PY
fi
finish
