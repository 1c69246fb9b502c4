#!/usr/bin/env bash
# tally encode: the --c output compiles, and each attr it initializes is, field by field and byte by byte,
# the attr the library plans for tally stat of a command (encode_spec -p); on this machine and on captured
# fixture trees ($TALLY_SYSFS_ROOT). JSON parses and says the same; text names the key fields; a bad spec
# is tally stat's caret error with exit 2; and nothing is opened (perf_event_open kills it under seccomp).
set -uo pipefail
source "$(dirname "$0")/cli_helpers/common.sh"
: "${TALLY_SOURCE:?}"
ENCODE_SPEC=$TALLY_BUILD/tests/encode_spec
NO_PERF_OPEN=$TALLY_BUILD/tests/no_perf_open
FIXTURES=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }

# compare_c ROOT SPEC: compiles `tally encode --c SPEC` (against sysfs ROOT, "" for this machine) with a
# main that dumps each attr, and diffs that with the library's plan.
compare_c() {
	local root=$1 spec=$2 label=${1##*/}
	label=${label:-this machine}
	local src=$WORK/encoded.c
	if ! TALLY_SYSFS_ROOT=$root "$TALLY" encode --c "$spec" >"$src" 2>"$WORK/err"; then
		fail "encode --c '$spec' on $label: $(cat "$WORK/err")"
		return
	fi
	local n
	n=$(grep -c '^struct perf_event_attr attr_' "$src")
	{
		echo '#include "attr_dump.h"'
		echo 'int main(void) {'
		for ((k = 0; k < n; k++)); do echo "	attr_dump(\"attr_$k\", &attr_$k);"; done
		echo '	return 0; }'
	} >>"$src"
	if ! cc -std=gnu11 -Wall -Wextra -Werror -I"$TALLY_SOURCE/tests" -I"$TALLY_SOURCE/tools" -o "$WORK/encoded" \
		"$src" "$TALLY_SOURCE/tools/describe/attr_names.c" 2>"$WORK/cc.err"; then
		fail "encode --c '$spec' on $label does not compile: $(head -5 "$WORK/cc.err")"
		return
	fi
	"$WORK/encoded" >"$WORK/compiled.txt"
	"$ENCODE_SPEC" ${root:+-s "$root"} -p "$spec" >"$WORK/library.txt"
	if diff "$WORK/library.txt" "$WORK/compiled.txt" >"$WORK/diff"; then
		ok "encode --c '$spec' on $label compiles to the library's $n attr(s)"
	else
		fail "encode --c '$spec' on $label differs from the library's plan:"$'\n'"$(cat "$WORK/diff")"
	fi
}

compare_c "" 'task-clock,page-faults,cs'
compare_c "" '{task-clock,page-faults}:u,minor-faults:k,major-faults'
compare_c "" 'cpu-clock:uk,{cs,cpu-migrations},alignment-faults:H'
compare_c "" 'software/config=1/,software/config=2/u,r0:k'
compare_c "$FIXTURES/intel" 'cycles,instructions,r1c2:u,{branches,branch-misses}:k'
compare_c "$FIXTURES/intel" 'L1-dcache-load-misses,dTLB-loads:u,cpu/event=0x3c,umask=0/,uncore_imc_0/cas_count_read/'
compare_c "$FIXTURES/hybrid" 'cycles,instructions'
compare_c "$FIXTURES/hybrid" '{cycles,instructions}:u,cpu_atom/branches/'
compare_c "$FIXTURES/arm64" 'cycles,armv8_pmuv3/event=0x11/,r8'
compare_c "$FIXTURES/amd" 'amd_df/event=0x7,umask=0x38/,cycles:k'

# The --c output names what the headers name.
out=$(TALLY_SYSFS_ROOT=$FIXTURES/hybrid "$TALLY" encode --c cycles 2>&1)
grep -qF '.config = (4ULL << PERF_PMU_TYPE_SHIFT) | PERF_COUNT_HW_CPU_CYCLES,' <<<"$out" &&
	grep -qF '.type = PERF_TYPE_HARDWARE,' <<<"$out" && grep -qF '.size = sizeof(struct perf_event_attr),' <<<"$out" &&
	grep -qF 'PERF_FORMAT_TOTAL_TIME_ENABLED' <<<"$out" && grep -qF '/* cpu_core/cycles/: PMU cpu_core (type 4), CPUs 0-15' <<<"$out" &&
	ok "--c spells cpu_core cycles with PERF_PMU_TYPE_SHIFT" || fail "--c of hybrid cycles: $out"
[ "$(TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode --c L1-dcache-load-misses | grep '\.config')" = \
	"$(printf '\t.config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),')" ] &&
	ok "--c spells a cache event by its three parts" || fail "--c of L1-dcache-load-misses"

# Text: the key fields of each event, and the packing with its reason.
out=$(TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode 'cycles,instructions' 2>&1)
grep -qE '^    type +0 +PERF_TYPE_HARDWARE$' <<<"$out" && grep -qE '^    config +0 +PERF_COUNT_HW_CPU_CYCLES$' <<<"$out" &&
	grep -qE '^    config +0x1 +PERF_COUNT_HW_INSTRUCTIONS$' <<<"$out" &&
	grep -qF 'group 0 (2 events, leader cycles): packed by tally: the events outside braces that PMU cpu (type 4) counts' <<<"$out" &&
	grep -qE '^  attr_1: instructions \(member\)$' <<<"$out" && grep -qE '^    enable_on_exec +1$' <<<"$out" &&
	ok "text on the Intel fixture: cycles and instructions are type 0 config 0 and 1, packed into one group" ||
	fail "text of cycles,instructions on intel: $out"
out=$(TALLY_SYSFS_ROOT=$FIXTURES/hybrid "$TALLY" encode 'cycles' 2>&1)
grep -qF 'attr_0: cpu_atom/cycles/' <<<"$out" && grep -qF 'attr_1: cpu_core/cycles/' <<<"$out" &&
	grep -qE '^    cpus +16-23$' <<<"$out" &&
	ok "text on the hybrid fixture: cycles expands to cpu_atom and cpu_core" || fail "hybrid cycles: $out"
out=$(TALLY_SYSFS_ROOT=$FIXTURES/hybrid "$TALLY" encode '{cycles,instructions},task-clock' 2>&1)
[ "$(grep -c 'a {...} group of the spec, copied for each core PMU' <<<"$out")" = 2 ] &&
	grep -qF 'group 2 (1 event, leader task-clock): alone' <<<"$out" &&
	ok "text on the hybrid fixture: a group copied for each core PMU says so" || fail "hybrid group: $out"
out=$("$TALLY" encode -a -i --no-group 'task-clock,page-faults' 2>&1)
grep -qF 'alone: automatic groups are off (--no-group)' <<<"$out" && ! grep -qE '^    (inherit|enable_on_exec) ' <<<"$out" &&
	ok "-a -i --no-group: each alone, no inherit, no enable_on_exec" || fail "-a -i --no-group: $out"

# JSON: parses, and holds what the text says.
TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode --json '{cycles,instructions}:u,uncore_imc_0/cas_count_read/' >"$WORK/e.json" 2>&1
if python3 - "$WORK/e.json" <<'PY'; then ok "--json parses and describes each attr"; else fail "--json: $(cat "$WORK/e.json")"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["target"] == "command", d
ev = d["events"]
assert [e["canonical"] for e in ev] == ["cycles:u", "instructions:u", "uncore_imc_0/cas_count_read/"], ev
assert ev[0]["attr"]["type"] == 0 and ev[0]["attr"]["config"] == 0 and ev[1]["attr"]["config"] == 1
assert ev[0]["attr"]["exclude_kernel"] == 1 and ev[0]["attr"]["read_format"] == 15 and ev[1]["attr"]["read_format"] == 7
assert ev[0]["grouping"] == "braces" and ev[1]["leader"] == 0 and ev[1]["group_index"] == 1 and ev[1]["leader_name"] == "cycles"
assert ev[0]["symbols"]["config"] == "PERF_COUNT_HW_CPU_CYCLES"
assert ev[2]["pmu"] == "uncore_imc_0" and ev[2]["cpus"] == "0" and ev[2]["attr"]["type"] == ev[2]["pmu_type"]
assert ev[2]["grouping"] == "packed" and ev[2]["group_size"] == 1 and "alone" in ev[2]["reason"]
PY

# A bad spec: the caret error of tally stat, exit 2; no spec or two formats: a usage error.
"$TALLY" encode 'task-clock,bogus-event' >"$WORK/out" 2>"$WORK/encode.err"
rc=$?
"$TALLY" stat -e 'task-clock,bogus-event' -- true 2>"$WORK/stat.err"
[ $rc -eq 2 ] && [ ! -s "$WORK/out" ] && grep -q '\^' "$WORK/encode.err" &&
	diff <(sed 1d "$WORK/encode.err") <(sed 1d "$WORK/stat.err") >/dev/null &&
	ok "a bad spec: tally stat's caret error, exit 2" || fail "bad spec: rc $rc: $(cat "$WORK/encode.err")"
"$TALLY" encode >/dev/null 2>"$WORK/err"
[ $? -eq 2 ] && grep -q 'an event spec is needed' "$WORK/err" && ok "no spec: usage error" || fail "no spec: $(cat "$WORK/err")"
"$TALLY" encode --c --json task-clock >/dev/null 2>&1
[ $? -eq 2 ] && ok "--c with --json: usage error" || fail "--c --json accepted"
"$TALLY" encode --help | grep -q 'usage: tally encode' && ok "--help" || fail "--help"
"$TALLY" encode task-clock --json | python3 -c 'import json,sys; json.load(sys.stdin)' &&
	ok "options may follow the spec" || fail "tally encode task-clock --json"

# Held to perf stat -vv (tally(1)): the same bits, all but read_format and sample_type, where the groups are
# the same.
# perf_agrees SPEC [FLAG]: FLAG given to both (-i), or --no-group to tally alone (perf groups braces only).
perf_agrees() {
	local spec=$1 flag=${2:-} perf_flag=${2:-}
	[ "$flag" = --no-group ] && perf_flag=
	perf stat -vv $perf_flag -e "$spec" true 2>"$WORK/perf.txt" >/dev/null || { echo "skip: perf stat -e '$spec' fails here"; return; }
	"$TALLY" encode --json $flag "$spec" >"$WORK/tally.json"
	if python3 - "$WORK/perf.txt" "$WORK/tally.json" <<'PY'; then ok "perf stat -vv agrees on '$spec' $flag"; else fail "perf stat -vv differs on '$spec' $flag"; fi
import json, sys
fields = ["type", "config", "config1", "config2", "exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle",
          "exclude_host", "exclude_guest", "disabled", "inherit", "enable_on_exec", "pinned", "exclusive", "precise_ip"]
perf, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("perf_event_attr:"):
        cur = {}
        perf.append(cur)
    elif cur is not None and line.startswith("  ") and len(line.split()) == 2:
        k, v = line.split()
        if k in fields:
            cur[k] = int(v, 0)
    elif line.startswith("---"):
        cur = None
tally = [{k: e["attr"].get(k, 0) for k in fields} for e in json.load(open(sys.argv[2]))["events"]]
perf = [{k: p.get(k, 0) for k in fields} for p in perf]
if perf != tally:
    print("perf: ", perf, "\ntally:", tally)
    sys.exit(1)
PY
}
if command -v perf >/dev/null; then
	perf_agrees '{task-clock,page-faults}:u,cs'
	perf_agrees 'task-clock:k,minor-faults,cpu-migrations:u' --no-group
	perf_agrees 'cpu-clock,{cs,page-faults}' -i
else
	echo "skip: no perf here"
fi

# Intel topdown on the Ice Lake fixture (the kernel opens a metric event only in a group led by slots): slots
# leads {topdown-retiring,slots}, is added where missing, and leads the metric events outside braces also
# with --no-group; on the Alder Lake fixture only cpu_core has them.
out=$(TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode '{topdown-retiring,slots}' 2>&1)
grep -qF 'group 0 (2 events, leader slots): a {...} group of the spec' <<<"$out" &&
	grep -qE '^  attr_0: slots \(leader\)$' <<<"$out" && grep -qE '^  attr_1: topdown-retiring \(member\)$' <<<"$out" &&
	grep -qE '^    config +0x400$' <<<"$out" &&
	ok "{topdown-retiring,slots} on the Ice Lake fixture: slots leads" || fail "{topdown-retiring,slots}: $out"
out=$(TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode --no-group '{topdown-be-bound},cycles,topdown-retiring,topdown-fe-bound' 2>&1)
grep -qF 'group 0 (2 events, leader slots): a {...} group of the spec' <<<"$out" &&
	grep -qF 'group 2 (3 events, leader slots): grouped by tally: Intel topdown metric events' <<<"$out" &&
	grep -qE '^  attr_5: topdown-fe-bound \(member\)$' <<<"$out" &&
	ok "--no-group: slots added to a group and before loose metric events, which stay its group" ||
	fail "topdown with --no-group: $out"
out=$(TALLY_SYSFS_ROOT=$FIXTURES/hybrid "$TALLY" encode --json 'topdown-retiring,cycles' 2>&1)
python3 - "$out" <<'PY' && ok "hybrid fixture: topdown on cpu_core only, led by an added slots" || fail "hybrid topdown: $out"
import json, sys
ev = json.loads(sys.argv[1])["events"]
td = [e for e in ev if e["grouping"] == "topdown"]
assert [e["name"] for e in td] == ["slots", "topdown-retiring"], td
assert all(e["pmu"] == "cpu_core" and e["leader_name"] == "slots" for e in td), td
assert [e["pmu"] for e in ev if e["grouping"] == "packed"] == ["cpu_atom", "cpu_core"], ev
PY
compare_c "$FIXTURES/intel" '{instructions,topdown-retiring,slots}:u,topdown-be-bound,cycles'
compare_c "$FIXTURES/hybrid" '{cpu_core/topdown-retiring/,cycles}'
# perf 6.1 on the same fixture (bind-mounted over /sys/bus/event_source/devices in a mount namespace) opens
# the same leader first; its open fails here (no such PMU), so the leader is all it shows.
fixture_perf() {
	unshare -m sh -c 'mount --bind "$1" /sys/bus/event_source/devices && shift && exec perf "$@"' sh \
		"$FIXTURES/intel/bus/event_source/devices" "$@"
}
if command -v perf >/dev/null && command -v unshare >/dev/null && fixture_perf --version >/dev/null 2>&1; then
	fixture_perf stat -vv -e '{instructions,topdown-retiring,slots}' true >/dev/null 2>"$WORK/perf.txt"
	first=$(sed -n '/^perf_event_attr:/,/^---/p' "$WORK/perf.txt" | awk '$1 == "config" { print $2; exit }')
	leader=$(TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode --json '{instructions,topdown-retiring,slots}' |
		python3 -c 'import json,sys; print(hex(json.load(sys.stdin)["events"][0]["attr"]["config"]))')
	[ "$first" = 0x400 ] && [ "$leader" = 0x400 ] &&
		ok "perf 6.1 on the Ice Lake fixture also opens slots first" || fail "leaders: perf $first, tally $leader"
else
	echo "skip: perf cannot run on a fixture mount here"
fi

# A braced group is kept as written even across PMUs, as perf 6.1 keeps it (the kernel decides): one
# uncore instance's event (intel-server's single uncore_imc_free_running_0 has dclk) beside cycles is not
# a family's expansion, which alone is regrouped per instance.
out=$(TALLY_SYSFS_ROOT=$FIXTURES/intel-server "$TALLY" encode '{cycles,dclk}' 2>&1)
grep -q '^group 0 (2 events, leader cycles): a {...} group of the spec' <<<"$out" && ! grep -q '^group 1' <<<"$out" &&
	ok "encode {cycles,dclk}: one group as written" || fail "encode {cycles,dclk}: $out"

# tally(1)'s example is this build's output, and compiles.
man=$TALLY_SOURCE/docs/man/tally.1
sed -n '/^\$ cat attrs.c$/,/^\$ cc /p' "$man" | sed '1d;$d' | sed 's/\\-/-/g; s/\\e/\\/g' >"$WORK/man_example.c"
TALLY_SYSFS_ROOT=$FIXTURES/intel "$TALLY" encode --c '{cycles,instructions}:u' >"$WORK/example.c"
if diff "$WORK/man_example.c" "$WORK/example.c" >"$WORK/diff" && cc -c -Wall -Wextra -Werror -o "$WORK/example.o" "$WORK/example.c"; then
	ok "tally(1)'s encode example is what tally encode --c prints, and it compiles"
else
	fail "tally(1)'s encode example is stale:"$'\n'"$(cat "$WORK/diff")"
fi

# tally(1)'s topdown example too (its first lines, up to the member).
sed -n "/^\$ TALLY_SYSFS_ROOT=tests\/fixtures\/sysfs\/intel TALLY_CPUID=.* tally encode '{topdown/,/^\.ft\$/p" "$man" |
	sed '1d;$d' | sed 's/\\-/-/g' >"$WORK/man_topdown.txt"
TALLY_SYSFS_ROOT=$FIXTURES/intel TALLY_CPUID=GenuineIntel-6-7E-5 "$TALLY" encode '{topdown-retiring,slots}' |
	head -n "$(wc -l <"$WORK/man_topdown.txt")" >"$WORK/topdown.txt"
[ -s "$WORK/man_topdown.txt" ] && diff "$WORK/man_topdown.txt" "$WORK/topdown.txt" >"$WORK/diff" &&
	ok "tally(1)'s topdown example is what tally encode prints" ||
	fail "tally(1)'s topdown example is stale:"$'\n'"$(cat "$WORK/diff")"

# Opens nothing: under a filter that kills at the first perf_event_open, encode runs to its end (and
# tally stat, as a check of the filter, does not).
"$NO_PERF_OPEN" true
case $? in
77) echo "skip: seccomp refused here" ;;
0)
	"$NO_PERF_OPEN" "$TALLY" encode --c 'task-clock,{cs,page-faults}:u' >/dev/null 2>&1 &&
		TALLY_SYSFS_ROOT=$FIXTURES/hybrid "$NO_PERF_OPEN" "$TALLY" encode --json 'cycles,instructions' >/dev/null 2>&1 &&
		ok "encode makes no perf_event_open call" || fail "encode called perf_event_open (killed by seccomp)"
	rc=$({ "$NO_PERF_OPEN" "$TALLY" stat -e task-clock -- true >/dev/null 2>&1; echo $?; } 2>/dev/null)
	[ "$rc" -ne 0 ] && ok "the seccomp filter does kill tally stat" || fail "the seccomp filter let perf_event_open through"
	;;
*) fail "no_perf_open true failed" ;;
esac
finish
