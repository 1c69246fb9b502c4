#!/bin/bash
# SPDX-License-Identifier: MIT
# What the tally CLI makes the dynamic loader do, which is most of what `tally stat -e task-clock -- true`
# costs beyond the command (bench/bench_cli.c measures it against perf): libtally is linked in (no
# libtally.so to find and bind), and libpfm4 (41,000 relocations, 2 MiB) is loaded only by a spec that
# names a libpfm4 event, never by software events, `tally list` or the start-up itself.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# The files the loader opened for one run of tally (and of its command), one log per process.
loaded() {
	rm -rf "$WORK/ld" && mkdir "$WORK/ld"
	LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/ld/log" "$TALLY" "$@" >"$WORK/out" 2>&1
	local st=$?
	cat "$WORK/ld"/log.* 2>/dev/null >"$WORK/files"
	return $st
}

loaded --version || fail "tally --version under LD_DEBUG"
grep -q "file=libc.so" "$WORK/files" || { echo "SKIP: $TALLY is statically linked: no dynamic loader to ask"; exit 77; }

loaded stat -e task-clock -- true && ok "stat -e task-clock: exit 0" || fail "stat -e task-clock: $(cat "$WORK/out")"
grep -q "task-clock" "$WORK/out" || fail "stat -e task-clock printed no count: $(cat "$WORK/out")"
grep -q "file=libtally" "$WORK/files" && fail "the CLI loads libtally.so: $(grep -m1 libtally "$WORK/files")" ||
	ok "libtally is linked in"
grep -q "file=libpfm" "$WORK/files" && fail "a software event loaded libpfm4" || ok "software events: no libpfm4"
loaded list || fail "tally list under LD_DEBUG"
grep -q "file=libpfm" "$WORK/files" && fail "tally list loaded libpfm4" || ok "list: no libpfm4"
loaded stat -e no-such-event -- true
[ $? -eq 2 ] || fail "an unknown name is a usage error (exit 2)"

if "$TALLY" list | grep -q "libpfm4 names (PMU::EVENT:UMASK) are accepted"; then
	loaded stat -x, -e perf::PERF_COUNT_SW_TASK_CLOCK -- true || fail "stat with a libpfm4 name: $(cat "$WORK/out")"
	grep -q "perf::PERF_COUNT_SW_TASK_CLOCK" "$WORK/out" || fail "no libpfm4 count printed: $(cat "$WORK/out")"
	grep -q "file=libpfm.so.4 .*dynamically loaded" "$WORK/files" && ok "a libpfm4 name loads libpfm4 on demand" ||
		fail "a libpfm4 name did not dlopen libpfm.so.4: $(grep libpfm "$WORK/files")"
else
	ok "built without libpfm4: nothing to load on demand"
fi

finish "all start-up checks passed"
