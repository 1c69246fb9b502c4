#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter takes the vendor tables' names as tally stat does (the one spec parser): on the
# intel-server fixture as a Skylake-SP (TALLY_CPUID, TALLY_SYSFS_ROOT), with the fake PMU
# (tests/fake_pmu.c) grown by each read (FAKE_PMU_GROWTH=1: the k-th read gives k steps of FAKE_PMU_BASE,
# FAKE_PMU_SPREAD 0), mem_load_retired.l3_miss and
# offcore_response.demand_data_rd.l3_miss.any_snoop (a name only the table knows: its MSRValue goes to
# config1) are opened as the table encodes them (in the fake's log), their series on 127.0.0.1 counted
# and growing in whole steps; a misspelt name is refused at the start with the table's "did you mean", on
# stderr, nothing served. Waits are bounded polls (20 s), never assertions on time.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
source "$HELPERS/exporter.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
[ -f "$FAKE" ] || skip "$FAKE not built"
{ ldd "$TALLY_BUILD/tools/tally-exporter" 2>/dev/null | grep -q 'libasan\|libtsan' ||
	grep -qa '__asan_init\|__tsan_init' "$TALLY_BUILD/tools/tally-exporter"; } &&
	skip "built with a sanitizer (the fake PMU is an LD_PRELOAD)"
unset TALLY_PMU_EVENTS
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:?}/sysfs/intel-server TALLY_CPUID=GenuineIntel-6-55-4
STEP=1000
exporter_url 11

FAKE_PMU_GROWTH=1 FAKE_PMU_SPREAD=0 FAKE_PMU_BASE=$STEP FAKE_PMU_LOG=$WORK/fake.log LD_PRELOAD=$FAKE \
	"$TALLY" exporter --listen "127.0.0.1:$port" -e mem_load_retired.l3_miss,offcore_response.demand_data_rd.l3_miss.any_snoop -C 0 --interval 100 2>"$WORK/exporter.log" &
pids+=($!)
"$PY" "$HELPERS/scrape.py" wait "$url" 20 || { fail "the exporter never answered: $(cat "$WORK/exporter.log")"; finish; }
value() { # NAME LABELS (sorted, k=v,...)
	"$PY" "$HELPERS/scrape.py" get "$url" >"$WORK/metrics.txt" && "$PY" "$HELPERS/exposition.py" "$WORK/metrics.txt" |
		K="$1{$2}" awk '$1 == ENVIRON["K"] { print $2 }'
}
grep -q '^4 0x20d1 0 0 ' "$WORK/fake.log" && grep -q '^4 0x1b7 0x3fbc000001 0 ' "$WORK/fake.log" &&
	! grep -qv '^4 0x20d1 0 0 \|^4 0x1b7 0x3fbc000001 0 ' "$WORK/fake.log" &&
	ok "opened as the table encodes them (type 4: 0x20d1; 0x1b7 with config1 0x3fbc000001)" ||
	fail "the fake PMU's log: $(cat "$WORK/fake.log" 2>&1)"
for name in mem_load_retired.l3_miss offcore_response.demand_data_rd.l3_miss.any_snoop; do
	labels="event=$name,pmu=cpu"
	[ "$(value tally_event_status "$labels,status=counted")" = 1.0 ] && ok "$name: status counted" ||
		fail "$name status: $(grep "$name" "$WORK/metrics.txt")"
	grown() { local v; v=$(value tally_event_total "$labels"); v=${v%.0}; [[ "$v" =~ ^[0-9]+$ ]] && ((v >= 3 * STEP)); }
	wait_for "$name grown by three steps" grown
	total=$(value tally_event_total "$labels")
	total=${total%.0}
	[[ "$total" =~ ^[0-9]+$ ]] && ((total >= 3 * STEP && total % STEP == 0)) &&
		ok "$name counted: tally_event_total $total, whole steps of $STEP" || fail "$name: tally_event_total '$total'"
done
kill -TERM "${pids[0]}"
wait "${pids[0]}"
pids=()

exporter_url 12
"$TALLY" exporter --listen "127.0.0.1:$port" -e mem_load_retired.l3_mis -C 0 >"$WORK/out" 2>"$WORK/err" &
pids+=($!)
wait "${pids[0]}"
st=$?
pids=()
[ $st -ne 0 ] && [ ! -s "$WORK/out" ] &&
	grep -q "unknown event 'mem_load_retired.l3_mis' — did you mean 'mem_load_retired.l3_miss'?" "$WORK/err" &&
	ok "misspelt: refused at the start with the table's suggestion (status $st)" ||
	fail "misspelt: status $st, stdout '$(head -c 200 "$WORK/out")', stderr '$(cat "$WORK/err")'"
finish
