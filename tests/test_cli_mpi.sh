#!/bin/bash
# SPDX-License-Identifier: MIT
# Per-rank output under a real launcher, Open MPI's mpirun (Debian's openmpi-bin; .ci/run installs it):
#   mpirun -n 4 tally stat -j -o out.%r.json -e page-faults -- ./touch N
# gives four files, ranks 0-3 of size 4, and tally merge sums them to 4 x one run's count (within the few
# faults a process start varies by here); an MPI program built with mpicc and using regions writes per-rank
# region output (TALLY_OUTPUT=reg.%r.json) that merges by name, with rank r's (r + 1) * 100 pages.
# SKIPs (77), saying so, when mpirun or mpicc is missing, or mpicc cannot link an MPI program.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
MPIRUN=$(command -v mpirun) || { echo "SKIP: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
MPICC=$(command -v mpicc) || { echo "SKIP: mpicc not found (apt-get install libopenmpi-dev)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read the results"; exit 77; }
cd "$WORK" || exit 1
# mpicc without the MPI development libraries (openmpi-bin without libopenmpi-dev) exists but cannot link:
# a machine that cannot build an MPI program SKIPs, with mpicc's own reason, rather than FAILs.
cat >probe.c <<'C'
#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
C
"$MPICC" -o probe probe.c >probe.err 2>&1 ||
	{ echo "SKIP: mpicc cannot build an MPI program (apt-get install libopenmpi-dev): $(head -c 600 probe.err)"; exit 77; }
unset TALLY_OUTPUT SLURM_PROCID SLURM_NTASKS SLURM_JOB_ID PMI_RANK PMI_SIZE PMIX_RANK
# As root (the CI runs so), in a container without a network: shared memory between local ranks only.
MPI=("$MPIRUN" --oversubscribe --allow-run-as-root --mca btl self,vader -n 4)

"$MPICC" -O1 -o touch "$TALLY_SOURCE/tests/cli_helpers/touch_pages.c" || { fail "mpicc touch_pages.c"; finish; }
PAGES=2000
"$TALLY" stat -j -o one.json -e page-faults -- ./touch $PAGES
"${MPI[@]}" "$TALLY" stat -j -o "out.%r.json" -e page-faults -- ./touch $PAGES >mpirun.out 2>&1
st=$?
[ $st -eq 0 ] && [ "$(ls out.*.json 2>/dev/null | wc -l)" = 4 ] && ok "mpirun -n 4 tally stat -o out.%r.json: four files" ||
	fail "mpirun: status $st, files: $(ls), $(tail -20 mpirun.out)"
python3 - one.json out.*.json <<'PY' && ok "each file says its rank (0-3), size 4 and the host" || fail "ranks"
import json, socket, sys
docs = [json.load(open(f)) for f in sys.argv[2:]]
assert sorted(d["rank"] for d in docs) == [0, 1, 2, 3], [d["rank"] for d in docs]
assert all(d["size"] == 4 and d["host"] == socket.gethostname() and d["schema_version"] == 3 for d in docs)
PY
"$TALLY" merge -j out.*.json >merged.json 2>err
python3 - one.json merged.json <<'PY' && ok "tally merge: the sum is 4 x one run's page faults (within 2%)" || fail "merge: $(cat err)"
import json, sys
one = json.load(open(sys.argv[1]))["events"][0]["scaled"]
m = json.load(open(sys.argv[2]))["all"]["events"][0]
assert m["ranks"] == 4 and m["statuses"]["counted"] == 4, m
assert abs(m["sum"] - 4 * one) <= 0.02 * 4 * one, (m["sum"], one)
assert m["min"] >= 2000 and m["imbalance"] < 1.05, m
PY
"$TALLY" merge out.*.json

# An MPI program with regions: per-rank region output, merged by name. A libtally built with sanitizers
# (make check-asan: clang's runtime) cannot be linked by mpicc's compiler: that build says so and stops here.
if nm -D "$TALLY_BUILD/libtally.so" 2>/dev/null | grep -q " U __asan_init"; then
	echo "SKIP part: libtally.so is built with sanitizers; the mpicc program is checked by make test"
	finish
	exit 0
fi
"$MPICC" -O1 -o mpi_regions "$TALLY_SOURCE/tests/mpi_regions.c" -I"$TALLY_SOURCE/include" -L"$TALLY_BUILD" -ltally \
	-Wl,-rpath,"$TALLY_BUILD" || { fail "mpicc mpi_regions.c"; finish; }
TALLY_OUTPUT="reg.%r.json" TALLY_EVENTS=page-faults "${MPI[@]}" -x TALLY_OUTPUT -x TALLY_EVENTS ./mpi_regions >mpirun.out 2>&1
st=$?
[ $st -eq 0 ] && [ "$(ls reg.*.json 2>/dev/null | wc -l)" = 4 ] && ok "an mpicc program with regions: four region files" ||
	fail "regions under mpirun: status $st, files: $(ls), $(tail -20 mpirun.out)"
"$TALLY" merge -j reg.*.json >regmerged.json 2>err
python3 - regmerged.json <<'PY' && ok "the region merged: 4 calls, rank 0's 100 pages the least, rank 3's 400 the most" || fail "region merge: $(cat err regmerged.json)"
import json, sys
m = json.load(open(sys.argv[1]))
work = [r for r in m["all"]["regions"] if r["name"] == "work"][0]
e = work["events"][0]
assert work["calls"] == 4 and e["ranks"] == 4, work
assert e["min_at"]["rank"] == 0 and e["max_at"]["rank"] == 3, e
assert 100 <= e["min"] <= 110 and 400 <= e["max"] <= 410 and 1000 <= e["sum"] <= 1040, e
PY
"$TALLY" merge reg.*.json
finish
