#!/usr/bin/env bash
# The fake PMU (tests/fake_pmu.c, LD_PRELOAD): perf 6.1 and tally read identical counts from it on a
# machine without hardware counters, and print the same metric values to perf's printed precision: the
# counts of hardware events, IPC beside instructions, and on the intel-server fixture (bind-mounted over
# /sys/bus/event_source/devices for perf, TALLY_SYSFS_ROOT for tally; perf's tables chosen by PERF_CPUID)
# the metrics both define alike with -M.
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
FIXTURE=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server
[ -f "$FAKE" ] || { echo "SKIP: $FAKE not built"; exit 77; }
command -v perf >/dev/null || { echo "SKIP: perf is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
# A sanitized tally wants its runtime first: a preloaded library ahead of it is refused.
# clang links its sanitizer runtimes statically (no libasan for ldd to show): the runtime's own symbols tell.
{ ldd "$TALLY" 2>/dev/null | grep -q 'libasan\|libtsan' || grep -qa '__asan_init\|__tsan_init' "$TALLY"; } &&
	{ echo "SKIP: tally is built with a sanitizer"; exit 77; }

# metrics FILE: "name value" per metric of a -x, output (perf's: the value in the second-to-last field, the
# name the last word of the last; tally's: the name in the third field of a line without a count).
metrics() {
	python3 - "$1" <<'PY'
import sys
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split(',')
    if len(f) < 6 or line.startswith('#'):
        continue
    if f[0] == '' and f[2]:
        print(f[2], f[5])                       # tally: ,,NAME,,,VALUE,UNIT
    elif f[-1].strip() and f[-2].strip():
        print(f[-1].split()[-1], f[-2])         # perf: ...,VALUE,UNIT  NAME
PY
}

# same LABEL PERF_OUT TALLY_OUT NAMES...: each metric NAME is in both, tally's value rounded to perf's digits
same() {
	local label=$1 p=$2 t=$3
	shift 3
	metrics "$p" >"$WORK/p.m"
	metrics "$t" >"$WORK/t.m"
	python3 - "$WORK/p.m" "$WORK/t.m" "$@" <<'PY'
import sys
p = dict(l.split() for l in open(sys.argv[1]))
t = dict(l.split() for l in open(sys.argv[2]))
bad = 0
for name in sys.argv[3:]:
    if name not in p or name not in t:
        print('missing', name, 'perf' if name not in p else 'tally'); bad += 1; continue
    digits = len(p[name].split('.')[1]) if '.' in p[name] else 0
    if '%.*f' % (digits, float(t[name])) != p[name]:
        print(name, 'perf', p[name], 'tally', t[name]); bad += 1
sys.exit(bad != 0)
PY
	[ $? -eq 0 ] && ok "$label: $*" || fail "$label: $(cat "$p") --- $(cat "$t")"
}

events=instructions,cycles,branches,branch-misses
LD_PRELOAD=$FAKE perf stat -x, -e $events -- true 2>"$WORK/perf" || { echo "SKIP: perf stat fails here"; exit 77; }
LD_PRELOAD=$FAKE "$TALLY" stat -x, -e $events -- true 2>"$WORK/tally"
counts() { grep -E ",(instructions|cycles|branches|branch-misses)," "$1" | cut -d, -f1,3; }
[ -n "$(counts "$WORK/perf")" ] && [ "$(counts "$WORK/perf")" = "$(counts "$WORK/tally")" ] &&
	ok "counts: perf and tally read the same" || fail "counts: $(counts "$WORK/perf") vs $(counts "$WORK/tally")"
ipc() { grep ',instructions,' "$1" | cut -d, -f6; }
p=$(ipc "$WORK/perf") t=$(ipc "$WORK/tally")
[ -n "$p" ] && [ "$(python3 -c "print('%.*f' % (len('$p'.split('.')[1]), $t))")" = "$p" ] &&
	ok "IPC beside instructions: $p" || fail "IPC: perf '$p', tally '$t'"

# -M on a fixture machine: perf's Ice Lake server tables. Only the metrics of tally's own catalogue that
# count what perf's tables count (perf's IPC is INST_RETIRED.ANY over CPU_CLK_UNHALTED.THREAD, other
# attrs than instructions and cycles, and so other fake counts).
if unshare -m true 2>/dev/null; then
	list=tma_retiring
	PERF_CPUID=GenuineIntel-6-6A-0 LD_PRELOAD=$FAKE unshare -m sh -c \
		'mount --bind "$1/bus/event_source/devices" /sys/bus/event_source/devices && shift && exec perf "$@"' \
		sh "$FIXTURE" stat -x, -M $list -- true 2>"$WORK/perf-m"
	TALLY_SYSFS_ROOT=$FIXTURE LD_PRELOAD=$FAKE "$TALLY" stat -x, -M $list -- true 2>"$WORK/tally-m"
	same "-M on intel-server" "$WORK/perf-m" "$WORK/tally-m" tma_retiring
else
	echo "skip -M on a fixture: cannot make a mount namespace here"
fi
finish
