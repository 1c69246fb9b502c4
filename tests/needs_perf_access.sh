#!/usr/bin/env bash
# Runs a test that counts as CI does, as root (system-wide events, kernel-side counts, other processes),
# or skips it (exit 77, with the reason) where this process may not: not root, no CAP_PERFMON and
# perf_event_paranoid above 0, or perf_event_open refused outright (Debian's kernels' paranoid 3, a
# container's seccomp filter), as on a package's build machine. Not a test itself: tests/CMakeLists.txt
# puts it before the commands of TALLY_TESTS_NEED_PERF_ACCESS. Usage: needs_perf_access.sh COMMAND [ARGS...]
set -uo pipefail
: "${TALLY_BUILD:?}"
if ! err=$("$TALLY_BUILD/tools/tally" stat -a -e task-clock -- true 2>&1 >/dev/null); then
	echo "SKIP: this test counts system-wide, which this process may not here: $(head -n 1 <<<"$err")"
	exit 77
fi
exec "$@"
