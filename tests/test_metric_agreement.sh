#!/usr/bin/env bash
# tally's vendor metrics against perf 6.1's, on identical inputs (the fake PMU, tests/fake_pmu.c): for each
# model below, every metric perf lists (PERF_CPUID) on a fixture tree, tally reading perf 6.1's own tables
# (TALLY_PMU_EVENTS naming its pmu-events tree, whose JSON the library reads at run time); each value perf
# prints, tally prints to perf's digits (tests/metric_agreement.py). Then how many of Ice Lake server's
# metrics the built-in (6.12) tables define otherwise than 6.1. Hybrid Alder Lake is not compared: its
# tables give cpu_core and cpu_atom metrics of one name, which -x, output does not tell apart.
#
# Known to differ: where an expression adds a term to an alias's field (cpu@EXE_ACTIVITY.3_PORTS_UTIL\,
# umask\=0x80@), perf 6.1 ORs the term into the alias's umask (0x08 | 0x80: config 0x88a6) and tally's
# spec parser replaces it (0x80a6), as the metric means: tma_ports_utilization, tma_ports_utilized_0.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
: "${TALLY_SOURCE:?}"
source "$(dirname "$0")/cli_helpers/kernel_tree.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
FIXTURES=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
[ -n "${TALLY_KERNEL_61:-}" ] && PERF61_PMU_EVENTS=${PERF61_PMU_EVENTS:-$TALLY_KERNEL_61/tools/perf/pmu-events/arch}
perf61_oracle
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
# clang links its sanitizer runtimes statically (no libasan for ldd to show): the runtime's own symbols tell.
{ ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' || grep -qa '__asan_init\|__tsan_init' "$TALLY"; } &&
	{ echo "SKIP: tally is built with a sanitizer"; exit 77; }
TABLES=$PERF61_TREE

PORTS="tma_ports_utilization tma_ports_utilized_0"
# fixture, PERF_CPUID, the metrics known to differ
models=(
	"intel-server GenuineIntel-6-6A-0 $PORTS"
	"intel GenuineIntel-6-7E-5 $PORTS"
	"skylake GenuineIntel-6-5E-3"
	"broadwell-4.9 GenuineIntel-6-4F-1"
	"amd AuthenticAMD-23-31-0"
)
for m in "${models[@]}"; do
	set -- $m
	fixture=$FIXTURES/$1 cpuid=$2
	shift 2
	if python3 "$TALLY_SOURCE/tests/metric_agreement.py" "$TALLY" "$FAKE" "$fixture" "$cpuid" "$TABLES" \
		"$@" >"$WORK/out"; then
		ok "${fixture##*/} ($cpuid) against perf 6.1: $(tail -1 "$WORK/out")"
	else
		fail "${fixture##*/} ($cpuid) against perf 6.1: $(cat "$WORK/out")"
	fi
	grep '^known' "$WORK/out"
done
changed=$(python3 - "$TABLES/x86/icelakex" "$TALLY_SOURCE/data/pmu-events/x86/icelakex.metrics" <<'PY'
import json, os, sys
old = {}
for f in os.listdir(sys.argv[1]):
    for r in json.load(open(os.path.join(sys.argv[1], f))):
        if 'MetricName' in r:
            old[r['MetricName']] = ' '.join(r.get('MetricExpr', '').split())
unescape = lambda t: t.replace('\\t', '\t').replace('\\n', '\n').replace('\\\\', '\\')
new = {l.split('\t')[0]: ' '.join(unescape(l.split('\t')[2]).split()) for l in open(sys.argv[2])}
print('%d of 6.1\'s %d metrics are defined otherwise in the built-in 6.12 tables, %d gone, %d new' %
      (sum(1 for m in old if m in new and new[m] != old[m]), len(old), sum(1 for m in old if m not in new),
       sum(1 for m in new if m not in old)))
PY
)
echo "note: $changed"
finish
