#!/bin/bash
# SPDX-License-Identifier: MIT
# The regions' TALLY_EVENTS (src/region/region_session.c) takes the vendor tables' names as tally stat
# does (the one spec parser): on the intel-server fixture as a Skylake-SP (TALLY_CPUID, TALLY_SYSFS_ROOT),
# with the fake PMU (tests/fake_pmu.c) grown by each read (FAKE_PMU_GROWTH=1: the k-th read gives k
# steps of FAKE_PMU_BASE, FAKE_PMU_SPREAD 0), mem_load_retired.l3_miss and
# offcore_response.demand_data_rd.l3_miss.any_snoop (a name only the table knows: its MSRValue goes to
# config1) open as the table encodes them (in the fake's log) and each region call counts exactly one
# step (begin and end are one read each); a misspelt name is not counted, the output giving the table's
# "did you mean". The program's stdout and exit status never change.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
PROG=$TALLY_BUILD/examples/regions
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
[ -x "$PROG" ] || { echo "SKIP: $PROG not built"; exit 77; }
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
# clang links its sanitizer runtimes statically (no libasan for ldd to show): the runtime's own symbols tell.
{ ldd "$PROG" 2>/dev/null | grep -q 'libasan\|libtsan' || grep -qa '__asan_init\|__tsan_init' "$PROG"; } &&
	{ echo "SKIP: built with a sanitizer (the fake PMU is an LD_PRELOAD)"; exit 77; }
unset TALLY_OUTPUT TALLY_PMU_EVENTS TALLY_METRICS
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:?}/sysfs/intel-server TALLY_CPUID=GenuineIntel-6-55-4
EXPECT="sum 2147450880"
STEP=1000

OFFCORE=offcore_response.demand_data_rd.l3_miss.any_snoop
TALLY_EVENTS=mem_load_retired.l3_miss,$OFFCORE,page-faults FAKE_PMU_GROWTH=1 FAKE_PMU_SPREAD=0 FAKE_PMU_BASE=$STEP \
	FAKE_PMU_LOG=$WORK/fake.log LD_PRELOAD=$FAKE "$PROG" 3 >"$WORK/out" 2>"$WORK/err"
st=$?
[ $st = 3 ] && [ "$(cat "$WORK/out")" = "$EXPECT" ] && ok "the program's status and stdout unchanged" ||
	fail "status $st, stdout '$(head -c 200 "$WORK/out")'"
grep -q '^4 0x20d1 0 0 ' "$WORK/fake.log" && grep -q '^4 0x1b7 0x3fbc000001 0 ' "$WORK/fake.log" &&
	! grep -qv '^4 0x20d1 0 0 \|^4 0x1b7 0x3fbc000001 0 ' "$WORK/fake.log" &&
	ok "opened as the table encodes them (type 4: 0x20d1; 0x1b7 with config1 0x3fbc000001)" ||
	fail "the fake PMU's log: $(cat "$WORK/fake.log" 2>&1)"
# touch: 200 calls over two threads, each call one step.
for name in mem_load_retired.l3_miss $OFFCORE; do
	grep -Eq "^touch +all +200 +[0-9.]+ +$name +$((200 * STEP)) +$STEP\.0 +0\.0 +$STEP +$STEP +counted" "$WORK/err" &&
		ok "a region counts $name: 200 calls, $((200 * STEP)) (one step a call)" ||
		fail "$name in the regions' table: $(cat "$WORK/err")"
done

TALLY_EVENTS=mem_load_retired.l3_mis,page-faults "$PROG" 3 >"$WORK/out" 2>"$WORK/err"
st=$?
[ $st = 3 ] && [ "$(cat "$WORK/out")" = "$EXPECT" ] && ok "misspelt: the program's status and stdout unchanged" ||
	fail "misspelt: status $st, stdout '$(head -c 200 "$WORK/out")'"
grep -q "^# not counting: .*unknown event 'mem_load_retired.l3_mis' — did you mean 'mem_load_retired.l3_miss'?" "$WORK/err" &&
	ok "misspelt: the output gives the table's suggestion" || fail "misspelt: $(head -5 "$WORK/err")"
finish
