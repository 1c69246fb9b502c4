#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Groups that fit the PMU's counters, by the vendor tables (issues 24, 25): tally encode -M of every metric
# of Skylake-SP's and Ice Lake-SP's tables on the server fixture gives groups whose events each get a
# counter of their own (checked here by a matching of the counters encode lists, not by the library's),
# the metrics too large for one group split into several; perf 6.1 puts the same events in one weak group
# that the kernel would refuse. tally stat warns of a {...} group of the spec that cannot be scheduled, and
# leaves it as written; without counts (AMD) nothing changes.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
FIXTURES=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs
export TALLY_SYSFS_ROOT=$FIXTURES/intel-server
unset TALLY_PMU_EVENTS

# check_fits MODEL CPUID: encode -j -M of all the model's metrics; every group fits, some metric split.
check_fits() {
	local names
	names=$(cut -f1 "$TALLY_SOURCE/data/pmu-events/x86/$1.metrics" | paste -sd, -)
	TALLY_CPUID=$2 "$TALLY" encode -j -M "$names" >"$WORK/$1.json" 2>"$WORK/$1.err" ||
		{ fail "$1: encode -M: $(head -c 300 "$WORK/$1.err")"; return; }
	python3 - "$WORK/$1.json" <<'PY' && ok "$1: every group of its metrics fits the counters" || fail "$1: see above"
import json, sys
events = json.load(open(sys.argv[1]))['events']
groups = {}
for e in events:
    groups.setdefault(e['group'], []).append(e)

def fits(sets):
    owner = {}
    def take(i, seen):
        for c in sets[i]:
            if c not in seen:
                seen.add(c)
                if c not in owner or take(owner[c], seen):
                    owner[c] = i
                    return True
        return False
    return all(take(i, set()) for i in range(len(sets)))

bad = 0
counted = 0
for g, members in groups.items():
    sets = [[('g', i) for i in m['counters']['generic']] + [('f', i) for i in m['counters']['fixed']]
            for m in members if m['counters']]
    counted += bool(sets)
    if not fits(sets) or not all(m['group_fits'] for m in members):
        bad += 1
        print('group', g, [m['name'] for m in members])
assert counted > 10, counted
assert bad == 0, bad
PY
}
check_fits skylakex GenuineIntel-6-55-4
check_fits icelakex GenuineIntel-6-6A-0

# tma_backend_bound on Skylake-SP: six events, five of them generic-only, where the core has 4 generic
# counters: two groups, CPU_CLK_UNHALTED.THREAD on its fixed counter.
out=$(TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" encode -M tma_backend_bound 2>&1)
[ "$(grep -c '^group ' <<<"$out")" = 2 ] && grep -q '^group 0 (5 events, .*a part of a {...}:W group of the spec, which tally split into groups the counters of PMU cpu (4 generic and 3 fixed counters, by the vendor table) can take' <<<"$out" &&
	grep -q '^    counters  *generic 0-3, fixed 1$' <<<"$out" &&
	ok "encode -M tma_backend_bound: split in two, the counters each event may take" ||
	fail "tma_backend_bound: $out"
json=$(TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" encode -j -M tma_backend_bound)
tally_events=$(python3 -c 'import json, sys; print(",".join(sorted(e["name"].upper() for e in json.loads(sys.argv[1])["events"])))' "$json")

# perf 6.1 on the same fixture (bind-mounted over /sys/bus/event_source/devices; its own 6.1 tables, by
# PERF_CPUID) builds one weak group of the same six events, which Skylake-SP's kernel would refuse whole.
if command -v perf >/dev/null && unshare -m true 2>/dev/null; then
	perf_groups=$(PERF_CPUID=GenuineIntel-6-55-4 unshare -m sh -c \
		'mount --bind "$0/bus/event_source/devices" /sys/bus/event_source/devices && exec perf "$@"' \
		"$TALLY_SYSFS_ROOT" stat -vv -M tma_backend_bound -- true 2>&1 | sed -n "s/^Parsing metric events '\(.*\)'$/\1/p")
	perf_events=$(python3 -c 'import re, sys; s = sys.argv[1]; assert s.count("{") == 1 and s.endswith("}:W"), s; print(",".join(sorted(e.split("/")[0].upper() for e in s[1:-3].split(","))))' "$perf_groups")
	[ -n "$perf_events" ] && [ "$perf_events" = "$tally_events" ] &&
		ok "perf 6.1: the same six events, in one weak group" || fail "perf: '$perf_groups', tally: $tally_events"
else
	echo "skip: perf cannot run on a fixture mount here"
fi

# tally stat: a {...} group of the spec too large for the counters is said and left as written; a weak
# one, or loose events, are split, so nothing is said. The counts come from the vendor table, read when
# the spec names one of its events (mem_load_retired.l3_miss); a spec of raw events alone reads none.
TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" stat -e '{r01c2,r02c2,r04c2,r08c2,r10c2},mem_load_retired.l3_miss' -- true >/dev/null 2>"$WORK/err"
grep -q "^tally stat: warning: the group led by r01c2 (5 events) needs more counters than its PMU has (4 generic and 3 fixed, by the vendor table)" "$WORK/err" &&
	ok "stat: an unschedulable group of the spec is said" || fail "stat warning: $(cat "$WORK/err")"
TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" stat -q -e '{r01c2,r02c2,r04c2,r08c2,r10c2},mem_load_retired.l3_miss' -- true >/dev/null 2>"$WORK/err"
[ ! -s "$WORK/err" ] && ok "stat -q: nothing said" || fail "stat -q: $(cat "$WORK/err")"
for spec in '{r01c2,r02c2,r04c2,r08c2,r10c2}:W,mem_load_retired.l3_miss' 'r01c2,r02c2,r04c2,r08c2,r10c2,mem_load_retired.l3_miss' \
	'{r01c2,r02c2,r04c2,cycles},mem_load_retired.l3_miss' '{r01c2,r02c2,r04c2,r08c2,r10c2}'; do
	TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" stat -e "$spec" -- true >/dev/null 2>"$WORK/err"
	grep -q "warning: the group" "$WORK/err" && fail "stat $spec warns: $(cat "$WORK/err")" ||
		ok "stat $spec: no warning"
done
TALLY_CPUID=GenuineIntel-6-55-4 "$TALLY" encode -j '{r01c2,r02c2,r04c2,r08c2,r10c2},mem_load_retired.l3_miss' |
	python3 -c 'import json, sys; e = json.load(sys.stdin)["events"][:5]; assert len({x["group"] for x in e}) == 1 and not any(x["group_fits"] for x in e)' &&
	ok "encode: that group as written, group_fits false" || fail "encode of the unschedulable group"

# No counts (AMD's tables have no counter.json): no counters line, the loose events in one group as before.
out=$(TALLY_SYSFS_ROOT=$FIXTURES/amd TALLY_CPUID=AuthenticAMD-23-31-0 "$TALLY" encode 'r01c2,r02c2,r04c2,r08c2,r10c2,r20c2,r40c2')
[ "$(grep -c '^group ' <<<"$out")" = 1 ] && ! grep -q '^    counters ' <<<"$out" &&
	ok "no counts: one packed group, as before" || fail "AMD: $out"
finish
