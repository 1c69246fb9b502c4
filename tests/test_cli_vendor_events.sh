#!/bin/bash
# SPDX-License-Identifier: MIT
# The vendor tables' names in every command, on the intel-server fixture as a Skylake-SP
# (TALLY_CPUID): tally encode, tally stat (the events cannot open on a fixture: they are parsed,
# planned and said to be unsupported, as sysfs names are), tally list (the section, --json, --raw-dump,
# --long-desc, --deprecated), tally doctor naming the table, and the hint of an unknown name.
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
export TALLY_SYSFS_ROOT=${TALLY_FIXTURES:?}/sysfs/intel-server TALLY_CPUID=GenuineIntel-6-55-4
unset TALLY_PMU_EVENTS

out=$("$TALLY" encode mem_load_retired.l3_miss 2>&1)
grep -qE '^ +config +0x20d1( |$)' <<<"$out" && grep -qE '^ +type +4 ' <<<"$out" &&
	ok "encode mem_load_retired.l3_miss: type 4, config 0x20d1 (perf 6.1's)" || fail "encode: $out"
out=$("$TALLY" encode -j 'cpu/MEM_LOAD_RETIRED.L3_MISS,cmask=2/u' 2>&1)
grep -q '0x20020d1\|33685713' <<<"$out" && ok "encode of an override term in another case" || fail "override: $out"

"$TALLY" stat -e '{mem_load_retired.l3_miss,inst_retired.any}' -- true >/dev/null 2>"$WORK/stat"
grep -q 'mem_load_retired.l3_miss' "$WORK/stat" && ! grep -q 'unknown event' "$WORK/stat" &&
	ok "stat takes table names (in a group)" || fail "stat: $(cat "$WORK/stat")"

"$TALLY" list >"$WORK/list" 2>&1
grep -q "^PMU events (the vendor's tables):" "$WORK/list" && grep -q '^  mem_load_retired.l3_miss$' "$WORK/list" &&
	grep -q '(cpu: table skylakex' "$WORK/list" && ok "list: the vendor section, by topic" || fail "list: $(head -c 2000 "$WORK/list")"
grep -q '^  unc_m_cas_count.rd$' "$WORK/list" && [ "$(grep -c '^  unc_m_cas_count.rd$' "$WORK/list")" = 1 ] &&
	ok "list: an uncore family's events once" || fail "list: uncore events not once"
short=$("$TALLY" list mem_load_retired.l3_miss | grep -A1 '^  mem_load_retired.l3_miss$' | tail -1)
long=$("$TALLY" list --long-desc mem_load_retired.l3_miss | grep -A1 '^  mem_load_retired.l3_miss$' | tail -1)
[ -n "$short" ] && [ "$short" != "$long" ] && ok "list --long-desc: the long description" || fail "long-desc: '$short' / '$long'"
# What perf 6.1's jevents appends (test_pmu_events_descriptions compares every model with perf 6.1), as
# perf list shows it: blanks between words made one.
for want in 'mem_load_retired.l3_miss|Retired load instructions missed L3 cache as data sources Supports address when precise (Precise event)' \
	'inst_retired.prec_dist|Precise instruction retired event with HW to reduce effect of PEBS shadow in IP distribution Spec update: SKL091, SKL044 (Must be precise)' \
	'unc_m_cas_count.rd|All DRAM Read CAS Commands issued (including underfills). Unit: uncore_imc'; do
	name=${want%%|*}
	got=$("$TALLY" list "$name" | grep -A1 "^  $name\$" | tail -1)
	[ "$got" = "       [${want#*|}]" ] && ok "list: $name's description as perf 6.1's" || fail "description of $name: '$got'"
done
"$TALLY" list --json unc_m_cas_count.rd_underfill | python3 -c '
import json, sys
e = [e for e in json.load(sys.stdin)["events"] if e["name"] == "unc_m_cas_count.rd_underfill"][0]
assert e["desc"] == "DRAM Underfill Read CAS Commands issued. Unit: uncore_imc", e
assert e["long_desc"].startswith("Counts CAS (Column Access Select) underfill") and "Unit:" not in e["long_desc"], e
' && ok "list --json: an uncore event's desc names its Unit, its long_desc as perf 6.1's" || fail "list --json descriptions"
dep=$(awk -F'\t' '$4 ~ /D/ && $2 == "" { print $1; exit }' "$TALLY_SOURCE/data/pmu-events/x86/skylakex.events")
if [ -n "$dep" ]; then
	! "$TALLY" list "$dep" | grep -q "^  $dep\$" && "$TALLY" list --deprecated "$dep" | grep -q "^  $dep\$" &&
		ok "list: deprecated $dep only with --deprecated" || fail "deprecated $dep"
fi
"$TALLY" list --json 'mem_load_retired.l3_*' | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = [e for e in d["events"] if e.get("kind") == "vendor"]
assert v and all(e["pmu"] == "cpu" and e["topic"] and e["terms"] for e in v), v
assert any(e["name"] == "mem_load_retired.l3_miss" and e["terms"] == "event=0xd1,umask=0x20" for e in v)
' && ok "list --json: kind vendor with topic and terms" || fail "list --json"
"$TALLY" list --raw-dump pmu | tr ' ' '\n' | grep -qx 'mem_load_retired.l3_miss' &&
	ok "list --raw-dump pmu: the table's names" || fail "raw-dump"

"$TALLY" doctor >"$WORK/doctor" 2>&1
grep -q 'vendor events *cpu: table skylakex v[0-9.]*, [0-9]* events' "$WORK/doctor" &&
	ok "doctor names the table" || fail "doctor: $(grep vendor "$WORK/doctor")"
TALLY_CPUID=GenuineIntel-6-FF-0 "$TALLY" doctor 2>&1 | grep -q 'vendor events *cpu: none (no event table for CPU GenuineIntel-6-FF-0' &&
	ok "doctor says why there is none" || fail "doctor without a table"

# Tables TALLY_PMU_EVENTS names that give this CPU none: a table name is refused with the reason on
# stderr (nothing on stdout), not encoded by libpfm4 instead; libpfm4's own PMU::EVENT names still work.
for bad in "/nonexistent/tables|that TALLY_PMU_EVENTS names is missing" "$TALLY_SOURCE/data/pmu-events|no event table for CPU GenuineIntel-6-FF-0"; do
	TALLY_CPUID=GenuineIntel-6-FF-0 TALLY_PMU_EVENTS=${bad%%|*} "$TALLY" encode mem_load_retired.l3_miss >"$WORK/enc.out" 2>"$WORK/enc.err"
	st=$?
	[ $st = 2 ] && [ ! -s "$WORK/enc.out" ] && grep -q "unknown event 'mem_load_retired.l3_miss'.*${bad#*|}" "$WORK/enc.err" &&
		ok "TALLY_PMU_EVENTS=${bad%%|*} with no table for the CPU: refused, saying why" ||
		fail "TALLY_PMU_EVENTS=${bad%%|*}: status $st, stdout '$(head -c 300 "$WORK/enc.out")', stderr '$(cat "$WORK/enc.err")'"
done
out=$(TALLY_PMU_EVENTS=/nonexistent/tables "$TALLY" list 2>&1 | grep -A1 "^PMU events (the vendor's tables):$" | tail -1)
[ "$out" = "  (no table for cpu: the event tables' folder /nonexistent/tables that TALLY_PMU_EVENTS names is missing)" ] &&
	ok "list: the empty vendor section says why" || fail "list with TALLY_PMU_EVENTS unusable: '$out'"
out=$(TALLY_PMU_EVENTS=/nonexistent/tables "$TALLY" doctor 2>&1 | grep -A1 'vendor events')
grep -q "libpfm4's names only as PMU::EVENT while it is set" <<<"$out" && grep -q "fix: .*or unset it" <<<"$out" &&
	ok "doctor: the unusable TALLY_PMU_EVENTS and its fix" || fail "doctor with TALLY_PMU_EVENTS unusable: $out"
if "$TALLY" list --json | grep -q '"libpfm4": true'; then
	grep -q "libpfm4 takes no bare name while TALLY_PMU_EVENTS is set" "$WORK/enc.err" && ok "the refusal says libpfm4 is not asked" ||
		fail "no word of libpfm4: $(cat "$WORK/enc.err")"
	TALLY_PMU_EVENTS=/nonexistent/tables "$TALLY" encode perf::PERF_COUNT_SW_PAGE_FAULTS >/dev/null 2>&1 &&
		ok "libpfm4's PMU::EVENT names with TALLY_PMU_EVENTS unusable" || fail "perf::PERF_COUNT_SW_PAGE_FAULTS refused"
fi

out=$("$TALLY" encode mem_load_retired.l3_mis 2>&1)
grep -q "did you mean 'mem_load_retired.l3_miss'" <<<"$out" && ok "a hint from the table" || fail "hint: $out"
out=$("$TALLY" encode unc_m_cas_count.r 2>&1)
grep -q "did you mean 'unc_m_cas_count.rd'" <<<"$out" && ok "a hint from an uncore PMU's table names" || fail "uncore hint: $out"

# System PMUs (the arm64-soc fixture): each takes the table its sysfs identifier names, whatever the CPU
# (Cortex-A53 here), in every command.
soc() { TALLY_SYSFS_ROOT=$TALLY_FIXTURES/sysfs/arm64-soc TALLY_CPUID= "$TALLY" "$@"; }
out=$(soc encode hnf_cache_miss 2>&1)
grep -qE '^ +type +12( |$)' <<<"$out" && grep -qE '^ +config +0x10005( |$)' <<<"$out" &&
	ok "encode hnf_cache_miss on arm_cmn_0 (identifier 43c01): type 12, config 0x10005" || fail "encode cmn: $out"
soc doctor >"$WORK/soc-doctor" 2>&1
grep -q 'vendor events *imx8_ddr0: system table freescale-imx8mm-sys, 5 events' "$WORK/soc-doctor" &&
	grep -q 'vendor events *arm_cmn_0: system table arm-cmn-sys, 33 events' "$WORK/soc-doctor" &&
	! grep -q 'vendor events *imx9_ddr0' "$WORK/soc-doctor" &&
	ok "doctor names each system PMU's table (none for imx9_ddr0's imx91)" || fail "doctor: $(grep vendor "$WORK/soc-doctor")"
soc list --json >"$WORK/soc.json"
python3 - "$WORK/soc.json" <<'PY' && ok "list --json: system tables' events under their PMUs, another i.MX's not" || fail "list --json of system PMUs"
import json, sys
ev = {(e['name'], e['pmu']) for e in json.load(open(sys.argv[1]))['events'] if e['kind'] == 'vendor'}
want = {('imx8mm_ddr.read_cycles', 'imx8_ddr0'), ('hnf_cache_miss', 'arm_cmn_0'), ('cpa_cycles', 'hisi_sicl0_cpa0'),
        ('agu_dep_stall', 'armv8_cortex_a53')}
sys.exit(0 if want <= ev and not any(n.startswith(('imx8mq', 'imx93')) for n, _ in ev) else 1)
PY
out=$(soc encode imx8mm_ddr.read_cycle 2>&1)
grep -q "did you mean 'imx8mm_ddr.read_cycles'" <<<"$out" && ok "a hint from a system PMU's table" || fail "soc hint: $out"
out=$(soc stat -a -e imx8mm_ddr.read_cycles -- true 2>&1)
! grep -q 'unknown event' <<<"$out" && grep -q 'imx8mm_ddr.read_cycles' <<<"$out" &&
	ok "stat -a takes a system PMU's name (the fixture's type cannot open: said so)" || fail "soc stat: $out"
finish
