#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/test_cli_mpi.sh where mpirun and mpicc exist but cannot build an MPI program (Debian's openmpi-bin
# without libopenmpi-dev: "cannot find -lmpi"): a fake mpicc that fails to link, and a fake mpirun, first
# in PATH. The MPI test must SKIP (77) saying why, never FAIL: a machine without the MPI libraries is a
# machine that cannot run it, not a broken tally.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/mpicc" <<'SH'
#!/bin/sh
echo "/usr/bin/ld: cannot find -lmpi: No such file or directory" >&2
echo "collect2: error: ld returned 1 exit status" >&2
exit 1
SH
cat >"$WORK/bin/mpirun" <<'SH'
#!/bin/sh
echo "fake mpirun: never to be reached" >&2
exit 1
SH
chmod +x "$WORK/bin/mpicc" "$WORK/bin/mpirun"
PATH="$WORK/bin:$PATH" bash "$TALLY_SOURCE/tests/test_cli_mpi.sh" >"$WORK/mpi.out" 2>&1
st=$?
[ $st -eq 77 ] && grep -q "^SKIP: mpicc cannot build an MPI program" "$WORK/mpi.out" && grep -q "cannot find -lmpi" "$WORK/mpi.out" &&
	ok "mpicc that cannot link: SKIP with the reason" || fail "mpicc that cannot link: status $st, $(cat "$WORK/mpi.out")"
finish
