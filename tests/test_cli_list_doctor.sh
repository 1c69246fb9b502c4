#!/bin/bash
# SPDX-License-Identifier: MIT
# tally list (sections, only PMUs that exist, PATTERN as substring and glob, --json, libpfm4's events on
# request or the reason there are none) and tally doctor
# (checklist, a verdict, exit 0 when the default events count, --json), plus the top-level dispatch.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
has_core=0
ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv8.*|armv7.*)$' && has_core=1

"$TALLY" >/dev/null 2>&1; [ $? -eq 2 ] && ok "no subcommand: exit 2" || fail "no subcommand"
"$TALLY" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok "unknown subcommand: exit 2" || fail "unknown subcommand"
"$TALLY" --version | grep -qE '^tally [0-9]+\.[0-9]+\.[0-9]+$' && ok "--version" || fail "--version"
"$TALLY" --help | grep -q "doctor" && ok "--help" || fail "--help"

"$TALLY" list >"$WORK/list"; st=$?
[ $st -eq 0 ] && ok "list: exit 0" || fail "list: exit $st"
for section in "Generic hardware events" "Software events" "Hardware cache events" "PMU events (sysfs)" "Raw syntax"; do
	grep -q "^$section" "$WORK/list" || fail "list: section '$section' missing"
done
for e in task-clock "page-faults OR faults" "context-switches OR cs" minor-faults; do
	grep -q "^  $e " "$WORK/list" || fail "list: $e missing"
done
grep -q "task-clock *type=1,config=0x1$" "$WORK/list" && ok "list: software events with encodings" || fail "list encodings"
if [ $has_core -eq 0 ]; then
	grep -q "no hardware PMU" "$WORK/list" && ok "list: says why hardware events are absent" || fail "list: no reason"
	grep -qE "^  (cycles|L1-dcache-loads)" "$WORK/list" && fail "list: hardware events shown without a PMU" ||
		ok "list: no hardware or cache events without a PMU"
fi
# Every sysfs PMU with events or formats appears; a PMU that does not exist never does.
for dir in /sys/bus/event_source/devices/*; do
	p=$(basename "$dir")
	for ev in "$dir"/events/*; do
		[ -e "$ev" ] || continue
		case $ev in *.scale|*.unit|*.per-pkg|*.snapshot) continue ;; esac
		grep -q "^  $p/$(basename "$ev")/ " "$WORK/list" || fail "list: $p/$(basename "$ev")/ missing"
	done
	if [ -d "$dir/format" ] && [ -n "$(ls "$dir/format")" ]; then
		grep -q "^  $p/.*type=$(cat "$dir/type")$" "$WORK/list" || fail "list: raw syntax of $p missing"
	fi
done
grep -q "cpu_atom" "$WORK/list" && [ ! -d /sys/bus/event_source/devices/cpu_atom ] && fail "list: a PMU that does not exist"

# Names from a sysfs or tracefs tree reach the terminal escaped, as stat's names do: an ESC in a tracepoint
# or alias name must not be written raw.
esc=$(printf '\033')
tree=$WORK/esc-tree
mkdir -p "$tree/bus/event_source/devices/software/events" "$tree/kernel/tracing/events/sys1/ev${esc}[2J"
echo 1 >"$tree/bus/event_source/devices/software/type"
echo "config=0x2${esc}]0;t" >"$tree/bus/event_source/devices/software/events/al${esc}[2J"
echo 5 >"$tree/kernel/tracing/events/sys1/ev${esc}[2J/id"
TALLY_SYSFS_ROOT=$tree "$TALLY" list >"$WORK/esc" 2>&1
! grep -q "$esc" "$WORK/esc" && grep -qF 'sys1:ev\x1b[2J' "$WORK/esc" && grep -qF 'software/al\x1b[2J/' "$WORK/esc" &&
	ok "list: control bytes of sysfs and tracefs names escaped" || fail "list escaping: $(cat -A "$WORK/esc")"
"$TALLY" list fault >"$WORK/sub"
grep -q "^  minor-faults" "$WORK/sub" && ! grep -q "^  task-clock" "$WORK/sub" && ok "list PATTERN: substring" ||
	fail "list fault: $(cat "$WORK/sub")"
"$TALLY" list 'c*-clock' >"$WORK/glob"
grep -q "^  cpu-clock" "$WORK/glob" && ! grep -q "^  task-clock" "$WORK/glob" && ok "list PATTERN: glob" ||
	fail "list glob: $(cat "$WORK/glob")"
"$TALLY" list --json >"$WORK/list.json"
python3 - "$WORK/list.json" <<'PY' && ok "list --json" || fail "list --json"
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["name"] for e in d["events"]}
assert {"task-clock", "page-faults", "context-switches"} <= names
assert all(e["kind"] in ("hardware", "software", "tool", "cache", "sysfs") for e in d["events"])
assert [e["name"] for e in d["events"] if e["kind"] == "tool"] == ["duration_time", "user_time", "system_time"]
assert isinstance(d["raw"], list) and isinstance(d["hardware_pmu"], bool)
PY

# libpfm4's events: listed with --pfm or a PATTERN with "::" when the build has libpfm4 (the default listing
# says so instead of loading it); without libpfm4 the section says why it is empty.
if grep -q "libpfm4 names (PMU::EVENT:UMASK) are accepted too; tally list --pfm lists them" "$WORK/list"; then
	grep -q "^libpfm4 events" "$WORK/list" && fail "list: libpfm4 events without --pfm" ||
		ok "list: libpfm4 events only on request"
	"$TALLY" list --pfm >"$WORK/pfm"; st=$?
	[ $st -eq 0 ] || fail "list --pfm: exit $st"
	# The libpfm4 section: from its title to the end, every entry one line (descriptions trimmed).
	sed -n '/^libpfm4 events/,$p' "$WORK/pfm" >"$WORK/pfm_section"
	grep -q "^  perf::PERF_COUNT_SW_PAGE_FAULTS  *PERF_COUNT_SW_PAGE_FAULTS$" "$WORK/pfm_section" &&
		ok "list --pfm: perf::PERF_COUNT_SW_PAGE_FAULTS with its description" ||
		fail "list --pfm: no perf::PERF_COUNT_SW_PAGE_FAULTS: $(head -5 "$WORK/pfm_section")"
	tail -n +2 "$WORK/pfm_section" | grep -v "^  " && fail "list --pfm: an entry spans lines"
	grep -q "^Software events:" "$WORK/pfm" && grep -q "^  task-clock " "$WORK/pfm" ||
		fail "list --pfm: the other sections are gone"
	"$TALLY" list 'perf::*PAGE_FAULTS*' >"$WORK/pfm_glob"
	grep -q "^  perf::PERF_COUNT_SW_PAGE_FAULTS_MIN " "$WORK/pfm_glob" &&
		! grep -q "^  perf::PERF_COUNT_SW_CPU_CLOCK" "$WORK/pfm_glob" && ! grep -q "^  task-clock" "$WORK/pfm_glob" &&
		ok "list 'perf::*PAGE_FAULTS*': a PATTERN with :: lists libpfm4 events, filtered" ||
		fail "list 'perf::*PAGE_FAULTS*': $(cat "$WORK/pfm_glob")"
	"$TALLY" list --pfm sw_cpu_clock >"$WORK/pfm_sub"
	[ "$(grep -c '^  perf::' "$WORK/pfm_sub")" -eq 1 ] && grep -q "^  perf::PERF_COUNT_SW_CPU_CLOCK " "$WORK/pfm_sub" &&
		ok "list --pfm PATTERN: substring filter" || fail "list --pfm sw_cpu_clock: $(cat "$WORK/pfm_sub")"
	"$TALLY" list --pfm --json >"$WORK/pfm.json"
	python3 - "$WORK/pfm.json" "$(grep -c '^  [a-z0-9_]*::' "$WORK/pfm_section")" <<'PY' && ok "list --pfm --json" || fail "list --pfm --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["libpfm4"] is True and d["libpfm4_listed"] is True and d["libpfm4_unavailable"] is None
events = d["libpfm4_events"]
assert len(events) == int(sys.argv[2]), (len(events), sys.argv[2])
assert all(e["name"] == e["pmu"] + "::" + e["name"].split("::", 1)[1] for e in events)
assert any(e["name"] == "perf::PERF_COUNT_SW_PAGE_FAULTS" and e["description"] for e in events)
assert {"task-clock", "page-faults"} <= {e["name"] for e in d["events"]}
PY
	python3 - "$WORK/list.json" <<'PY' && ok "list --json: no libpfm4 events without --pfm" || fail "list --json: libpfm4 keys"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["libpfm4_listed"] is False and d["libpfm4_events"] == [] and d["libpfm4_unavailable"] is None
PY
	# A libpfm.so.4 that lacks libpfm4's functions (found first through LD_LIBRARY_PATH): the listing says so.
	if command -v cc >/dev/null && cc -shared -o "$WORK/libpfm.so.4" -x c /dev/null 2>/dev/null; then
		LD_LIBRARY_PATH=$WORK "$TALLY" list --pfm >"$WORK/pfm_broken"; st=$?
		[ $st -eq 0 ] && grep -q "^  (not available: .*libpfm4 cannot be loaded: libpfm.so.4 lacks" "$WORK/pfm_broken" &&
			ok "list --pfm: an unusable libpfm.so.4 is explained" ||
			fail "list --pfm with a broken libpfm.so.4: exit $st: $(sed -n '/^libpfm4 events/,$p' "$WORK/pfm_broken")"
	else
		echo "note: no C compiler to build a broken libpfm.so.4; that case is not checked"
	fi
else
	sed -n '/^libpfm4 events/,$p' "$WORK/list" | grep -q "^  (not available: .*built without it" &&
		ok "list: libpfm4 section says the build has no libpfm4" || fail "list: no libpfm4 reason"
	grep -q "^  [a-z0-9_]*::" "$WORK/list" && fail "list: libpfm4 events without libpfm4"
	python3 - "$WORK/list.json" <<'PY' && ok "list --json: libpfm4 unavailable, with the reason" || fail "list --json: libpfm4 keys"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["libpfm4"] is False and d["libpfm4_events"] == [] and "built without" in d["libpfm4_unavailable"]
PY
fi
"$TALLY" list --bogus >/dev/null 2>&1; [ $? -eq 2 ] && ok "list: bad option exit 2" || fail "list bad option"

"$TALLY" doctor >"$WORK/doctor"; st=$?
[ $st -eq 0 ] && ok "doctor: exit 0 (the default events count here)" || fail "doctor: exit $st: $(cat "$WORK/doctor")"
for c in PMUs perf_event_paranoid capabilities task-clock page-faults nmi_watchdog "open files" kernel; do
	grep -qE "^\[(ok  |info|warn|fail)\] $c " "$WORK/doctor" || fail "doctor: no '$c' line"
done
grep -q "^verdict: " "$WORK/doctor" && ok "doctor: verdict" || fail "doctor: verdict"
if [ $has_core -eq 0 ]; then
	grep -q "VM without a virtual PMU" "$WORK/doctor" && grep -q "fix: " "$WORK/doctor" &&
		ok "doctor: no hardware PMU explained with a fix" || fail "doctor: no-PMU line"
fi
grep -q "^\[ok  \] task-clock *opens and counts" "$WORK/doctor" && ok "doctor: default events tried for real" ||
	fail "doctor: task-clock line"
# Default events that open but never count (the fake PMU with one counter: groups of two never run): each
# a failure, and the verdict says so, exit 1.
if [ -f "$TALLY_BUILD/tests/libfake_pmu.so" ] && ! ldd "$TALLY" 2>/dev/null | grep -q libasan; then
	LD_PRELOAD=$TALLY_BUILD/tests/libfake_pmu.so FAKE_PMU_COUNTERS=1 \
		TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server \
		"$TALLY" doctor >"$WORK/doctor.fake" 2>&1; st=$?
	[ $st -eq 1 ] && grep -q '^\[fail\] cycles  *opens but never counted' "$WORK/doctor.fake" &&
		grep -q '^verdict: the default events do not all count' "$WORK/doctor.fake" &&
		ok "doctor: events that never count fail the verdict" || fail "doctor, never counted: exit $st: $(cat "$WORK/doctor.fake")"
fi
# Default events that cannot be opened (the intel-server fixture names a cpu PMU this VM does not have,
# when there is none): each a failure, and the verdict says so, exit 1.
if [ $has_core -eq 0 ]; then
	TALLY_SYSFS_ROOT=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs/intel-server \
		"$TALLY" doctor >"$WORK/doctor.refused" 2>&1; st=$?
	[ $st -eq 1 ] && grep -q '^\[fail\] cycles  *cannot be opened' "$WORK/doctor.refused" &&
		grep -q '^verdict: the default events do not all count' "$WORK/doctor.refused" &&
		ok "doctor: events that cannot open fail the verdict" || fail "doctor, not opened: exit $st: $(cat "$WORK/doctor.refused")"
fi
"$TALLY" doctor --json >"$WORK/doctor.json"; st=$?
python3 - "$WORK/doctor.json" $st <<'PY' && ok "doctor --json" || fail "doctor --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["default_events_work"] == (sys.argv[2] == "0") and d["verdict"]
assert all(c["verdict"] in ("ok", "info", "warn", "fail") and c["check"] and c["detail"] for c in d["checks"])
PY

finish
