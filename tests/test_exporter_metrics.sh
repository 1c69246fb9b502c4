#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter --metrics (issue 25), against the real exporter on 127.0.0.1, the exposition read by
# python3-prometheus-client's parser and promtool: each metric a gauge family of its own named with its
# base unit (tally_metric_ipc, tally_metric_tma_fb_full_ratio), computed per interval from the interval's
# scaled deltas; a vendor metric's MetricThreshold as tally_metric_over_threshold; a metric with no value
# in an interval (0 / 0) left out of the scrape, its HELP and TYPE kept. Exact values come from the fake
# PMU (tests/fake_pmu.c with FAKE_PMU_GROWTH: each read of an event adds its count once, so an interval's
# delta is its count times the reads, the same for every event): IPC is instructions' count over cycles'
# in every interval, for the machine and for each CPU (--per-cpu); a vendor metric of Ice Lake server's
# table on its fixture tree (TALLY_CPUID, TALLY_SYSFS_ROOT) is its events' counts' ratio. Software metrics
# of the catalogue per cgroup (root: cgroups made here): a busy cgroup has CPUs_utilized, an idle one none.
# --config's "metrics" lines, SIGHUP (a new list starts afresh as new events do; a list that does not
# resolve keeps the running one), and the messages: an unknown metric, a metric whose events this
# machine cannot count (exit 1, as a spec that cannot be counted). Waits are bounded polls, never
# assertions on time.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
source "$HELPERS/exporter.sh"
EXPORTER=$TALLY_BUILD/tools/tally-exporter
FAKE=$TALLY_BUILD/tests/libfake_pmu.so
FIXTURES=${TALLY_FIXTURES:-$TALLY_SOURCE/tests/fixtures}/sysfs
exporter_url 11

samples() {
	"$PY" "$HELPERS/scrape.py" get "$url" > "$WORK/metrics.txt" 2>/dev/null || return 1
	"$PY" "$HELPERS/exposition.py" "$WORK/metrics.txt" > "$WORK/samples.txt" || return 1
	cat "$WORK/samples.txt"
}
value() { samples | K="$1{$2}" awk '$1 == ENVIRON["K"] { print $2 }'; }
has() { [ -n "$(value "$1" "$2")" ]; }
start() { # LOG ARGS...: an exporter on $url (environment as the caller's), its pid in $exporter
	local log=$1
	shift
	"$EXPORTER" --listen "127.0.0.1:$port" --interval 100 "$@" 2> "$log" &
	exporter=$!
	pids+=("$exporter")
	"$PY" "$HELPERS/scrape.py" wait "$url" 20 || { fail "the exporter never answered: $(cat "$log")"; return 1; }
}
stop() { kill -TERM "$exporter"; wait "$exporter"; pids=("${pids[@]/$exporter}"); }
# The fake PMU's count of the event of TYPE and CONFIG (as FAKE_PMU_LOG lists them).
count_of() { awk -v t="$1" -v c="$2" '$1 == t && $2 == c { print $5; exit }' "$WORK/fake.log"; }
# Whether A / B, as a double, is the exporter's value V (printed to 17 digits: exact).
ratio_is() { "$PY" -c 'import sys; a, b, v = sys.argv[1:]; sys.exit(0 if float(a) / float(b) == float(v) else 1)' "$@"; }
promtool_ok() {
	if [ ! -s "$WORK/metrics.txt" ]; then
		fail "$1: no exposition to check"
	elif command -v promtool >/dev/null 2>&1; then
		promtool check metrics < "$WORK/metrics.txt" > "$WORK/promtool.out" 2>&1 &&
			ok "$1: promtool check metrics accepts the exposition, its names included" ||
			fail "$1: promtool: $(cat "$WORK/promtool.out")"
	else
		echo "SKIP (part): no promtool (apt-get install prometheus)"
	fi
}

# The messages: exit 1, as for a spec that cannot be counted; nothing is served.
msg() { "$EXPORTER" --listen "127.0.0.1:$port" "$@" 2>&1 >/dev/null; echo "status $?"; }
out=$(msg -e task-clock --metrics IPCC)
[[ "$out" == *"metrics: unknown metric"*"'IPCC'"*"did you mean 'IPC'"*"status 1" ]] &&
	ok "an unknown metric: ${out//$'\n'/ | }" || fail "an unknown metric: $out"
echo "metrics CPUs_utilized,bogus_metric" > "$WORK/bad.conf"
out=$(msg -e task-clock --config "$WORK/bad.conf")
[[ "$out" == *"unknown metric"*"'bogus_metric'"*"status 1" ]] &&
	ok "an unknown metric in --config: ${out//$'\n'/ | }" || fail "an unknown metric in --config: $out"
out=$(msg --metrics "")
[[ "$out" == *"--metrics needs"*"status 2" ]] && ok "--metrics '': ${out//$'\n'/ | }" || fail "--metrics '': $out"
if "$TALLY" stat -e cycles -x, -- true 2>&1 | grep -q "not supported"; then
	out=$(msg -e task-clock --metrics CPUs_utilized,IPC)
	[[ "$out" == *"metric IPC cannot be computed here"*"instructions"*"not supported"*"status 1" ]] &&
		ok "a metric whose events this machine cannot count: ${out//$'\n'/ | }" ||
		fail "a metric of uncountable events: $out"
else
	echo "SKIP (part): this machine counts cycles: no metric of events it cannot count"
fi

# Software metrics of the catalogue: the machine's task-clock over the interval's wall time.
start "$WORK/sw.log" -e page-faults --metrics CPUs_utilized,page_faults_per_second
cpus=$(value tally_machine_cpus "")
cpus=${cpus%.*}
wait_for "tally_metric_cpus_utilized" has tally_metric_cpus_utilized ""
v=$(value tally_metric_cpus_utilized "")
"$PY" -c 'import sys; v, n = float(sys.argv[1]), int(sys.argv[2]); sys.exit(0 if n / 2 < v < n * 1.5 else 1)' "$v" "$cpus" &&
	ok "CPUs_utilized of the machine: $v for $cpus CPUs" || fail "CPUs_utilized of the machine: $v for $cpus CPUs"
grep -q '^# HELP tally_metric_cpus_utilized .*CPUs utilized' "$WORK/metrics.txt" &&
	grep -q '^# TYPE tally_metric_cpus_utilized gauge$' "$WORK/metrics.txt" &&
	grep -q '^# TYPE tally_metric_page_faults_per_second gauge$' "$WORK/metrics.txt" &&
	ok "one gauge family per metric, the unit in the HELP text" || fail "families: $(grep tally_metric "$WORK/metrics.txt")"
[ "$(grep -c '^tally_event_total{event="task-clock"' "$WORK/metrics.txt")" = 1 ] &&
	[ "$(grep -c '^tally_event_total{event="page-faults"' "$WORK/metrics.txt")" = 1 ] &&
	ok "the metrics' events are counted and shown once (task-clock added, page-faults shared)" ||
	fail "events shown: $(grep '^tally_event_total{' "$WORK/metrics.txt")"
promtool_ok "software metrics"
stop
# A scrape reads the counters but ends no interval: with an hour's --interval, no value yet.
start "$WORK/hour.log" --metrics CPUs_utilized --interval 3600000
for i in 1 2 3; do samples > /dev/null; done
grep -q '^# TYPE tally_metric_cpus_utilized gauge$' "$WORK/metrics.txt" && ! grep -q '^tally_metric_cpus_utilized' "$WORK/metrics.txt" &&
	grep -q '^tally_event_total{event="task-clock"' "$WORK/metrics.txt" &&
	ok "scrapes before the first --interval's end: task-clock counted, no metric value (an interval is the schedule's)" ||
	fail "scrapes before the first interval: $(grep tally_metric_cpus "$WORK/metrics.txt")"
stop
# --metrics without -e counts the metrics' events alone, as perf stat -M does (not the default events).
start "$WORK/alone.log" --metrics CPUs_utilized
wait_for "CPUs_utilized alone" has tally_metric_cpus_utilized ""
events=$(grep -o '^tally_event_total{event="[^"]*"' "$WORK/metrics.txt" | sort -u | tr '\n' ' ')
[ "$events" = 'tally_event_total{event="task-clock" ' ] && ok "--metrics CPUs_utilized alone counts task-clock alone" ||
	fail "--metrics alone counts: $events"
stop

# The fake PMU: exact values.
if [ ! -f "$FAKE" ]; then
	echo "SKIP (part): $FAKE not built: no exact values"
elif { ldd "$EXPORTER" 2>/dev/null | grep -q 'libasan\|libtsan' || grep -qa '__asan_init\|__tsan_init' "$EXPORTER"; }; then
	echo "SKIP (part): the exporter is built with a sanitizer (the fake PMU is preloaded): no exact values"
else
	export FAKE_PMU_GROWTH=1 FAKE_PMU_LOG=$WORK/fake.log
	LD_PRELOAD=$FAKE start "$WORK/fake.log.err" -e cycles,page-faults --metrics IPC,CPI
	instructions=$(count_of 0 0x1) cycles=$(count_of 0 0)
	ipc_exact() { local v; v=$(value tally_metric_ipc "") && [ -n "$v" ] && ratio_is "$instructions" "$cycles" "$v"; }
	wait_for "IPC is instructions over cycles" ipc_exact &&
		ok "IPC of an interval: $(value tally_metric_ipc "") = $instructions / $cycles, exactly"
	v=$(value tally_metric_cpi "")
	ratio_is "$cycles" "$instructions" "$v" && ok "CPI: $v = $cycles / $instructions" || fail "CPI: $v"
	sleep 0.3  # more intervals, scrapes between them: each interval's value is the same ratio
	v=$(value tally_metric_ipc "")
	ratio_is "$instructions" "$cycles" "$v" && ok "IPC after more intervals and scrapes: $v" || fail "IPC later: $v"
	grep -q '^# HELP tally_metric_ipc .*insn per cycle' "$WORK/metrics.txt" && ok "IPC's HELP gives its unit" ||
		fail "IPC's HELP: $(grep 'HELP tally_metric_ipc' "$WORK/metrics.txt")"
	[ "$(grep -c '^tally_event_total{event="cycles"' "$WORK/metrics.txt")" = 1 ] &&
		[ "$(grep -c '^tally_event_total{event="instructions"' "$WORK/metrics.txt")" = 1 ] &&
		ok "cycles (given and IPC's) and instructions (IPC's and CPI's) shown once each" ||
		fail "events: $(grep '^tally_event_total{' "$WORK/metrics.txt")"
	promtool_ok "IPC and CPI"
	stop

	LD_PRELOAD=$FAKE start "$WORK/percpu.log" -e page-faults --metrics IPC --per-cpu
	per_cpu_exact() {
		local c v
		(( cpus > 0 )) || return 1
		for ((c = 0; c < cpus; c++)); do
			v=$(value tally_metric_ipc "cpu=$c") && [ -n "$v" ] && ratio_is "$instructions" "$cycles" "$v" || return 1
		done
		[ -z "$(value tally_metric_ipc "")" ]
	}
	wait_for "--per-cpu: IPC per CPU" per_cpu_exact && ok "--per-cpu: IPC of each of the $cpus CPUs, exactly"
	stop

	# 0 / 0: every count 0, so IPC has no value: its series is left out, its family stays.
	FAKE_PMU_BASE=0 FAKE_PMU_SPREAD=0 LD_PRELOAD=$FAKE start "$WORK/zero.log" -e cycles --metrics IPC
	counted() { samples | grep -q '^tally_event_status{event=cycles,.*status=counted} 1.0$'; }
	wait_for "cycles counted (0 each interval)" counted
	sleep 0.3
	samples > /dev/null
	grep -q '^# TYPE tally_metric_ipc gauge$' "$WORK/metrics.txt" && ! grep -q '^tally_metric_ipc' "$WORK/metrics.txt" &&
		ok "IPC of 0 instructions over 0 cycles: no sample (not NaN), the family's HELP and TYPE kept" ||
		fail "IPC of 0 / 0: $(grep tally_metric_ipc "$WORK/metrics.txt")"
	stop

	# A vendor metric: Ice Lake server's table on its fixture tree.
	rm -f "$WORK/fake.log"
	TALLY_CPUID=GenuineIntel-6-6A-0 TALLY_SYSFS_ROOT=$FIXTURES/intel-server LD_PRELOAD=$FAKE \
		start "$WORK/vendor.log" -e page-faults --cpus 0 --metrics tma_fb_full,tma_info_bad_spec_ipmispredict
	fb_full=$(count_of 4 0x248) clks=$(count_of 4 0x3c) inst=$(count_of 4 0xc0) misp=$(count_of 4 0xc5)
	vendor_exact() { local v; v=$(value tally_metric_tma_fb_full_ratio "") && [ -n "$v" ] && ratio_is "$fb_full" "$clks" "$v"; }
	wait_for "tma_fb_full is L1D_PEND_MISS.FB_FULL / CPU_CLK_UNHALTED.THREAD" vendor_exact &&
		ok "vendor tma_fb_full (100%): $(value tally_metric_tma_fb_full_ratio "") = $fb_full / $clks as a ratio"
	v=$(value tally_metric_tma_info_bad_spec_ipmispredict "")
	ratio_is "$inst" "$misp" "$v" && ok "vendor tma_info_bad_spec_ipmispredict: $v = $inst / $misp" ||
		fail "tma_info_bad_spec_ipmispredict: $v, not $inst / $misp"
	over=$("$PY" -c 'import sys; print("1.0" if float(sys.argv[1]) < 200 else "0.0")' "$v")
	[ "$(value tally_metric_over_threshold "metric=tma_info_bad_spec_ipmispredict")" = "$over" ] &&
		ok "its MetricThreshold ($v < 200): tally_metric_over_threshold $over" ||
		fail "threshold: $(grep over_threshold "$WORK/metrics.txt")"
	fb=$("$PY" -c 'import sys; print("1.0" if float(sys.argv[1]) > 0.3 else "0.0")' "$(value tally_metric_tma_fb_full_ratio "")")
	[ "$(value tally_metric_over_threshold "metric=tma_fb_full")" = "$fb" ] &&
		ok "tma_fb_full's threshold (> 0.3 of the ratio, 30%): $fb" || fail "tma_fb_full's threshold: $(grep over_threshold "$WORK/metrics.txt")"
	grep -q '^# HELP tally_metric_tma_fb_full_ratio .*tma_fb_full' "$WORK/metrics.txt" &&
		ok "the vendor metric's HELP names it" || fail "HELP: $(grep 'HELP tally_metric_tma' "$WORK/metrics.txt")"
	promtool_ok "vendor metrics"
	stop

	# --config's metrics and SIGHUP.
	echo "metrics IPC" > "$WORK/exporter.conf"
	LD_PRELOAD=$FAKE start "$WORK/hup.log" -e page-faults --config "$WORK/exporter.conf"
	wait_for "--config's metrics IPC" ipc_exact && ok "--config 'metrics IPC': IPC exact"
	echo "metrics CPI" > "$WORK/exporter.conf"
	kill -HUP "$exporter"
	cpi_only() { has tally_metric_cpi "" && ! grep -q '^# HELP tally_metric_ipc ' "$WORK/metrics.txt"; }
	wait_for "SIGHUP: CPI instead of IPC" cpi_only && ok "SIGHUP: metrics CPI replaces IPC"
	echo "metrics CPI,nonsense" > "$WORK/exporter.conf"
	kill -HUP "$exporter"
	kept() { grep -q "SIGHUP: .*unknown metric.*'nonsense'.*the running configuration stays" "$WORK/hup.log"; }
	wait_for "SIGHUP with an unknown metric refused" kept && has tally_metric_cpi "" &&
		ok "SIGHUP with an unknown metric: the running configuration stays ($(grep -o "unknown metric[^(]*" "$WORK/hup.log" | head -1))"
	stop
	unset FAKE_PMU_GROWTH FAKE_PMU_LOG
fi

# Per cgroup: a busy cgroup has a value, an idle one none in that interval.
if [ "$(id -u)" != 0 ]; then
	echo "SKIP (part): making cgroups needs root"
else
	source "$HELPERS/cgroups.sh"
	top=tally-exporter-metrics-$$
	if mkdir "$mount/$top" "$mount/$top/busy" "$mount/$top/idle"; then
		sh -c "echo \$\$ > '$mount/$top/busy/cgroup.procs' && exec sh -c 'while :; do :; done'" &
		busy=$!
		pids+=("$busy")
		start "$WORK/cg.log" -e page-faults --cgroups-under "$top" --metrics CPUs_utilized,cs_per_second
		busy_has() { has tally_metric_cpus_utilized "cgroup=$top/busy"; }
		wait_for "the busy cgroup's CPUs_utilized" busy_has
		v=$(value tally_metric_cpus_utilized "cgroup=$top/busy")
		# One busy loop uses at most one CPU; how much of it depends on the machine's load.
		"$PY" -c 'import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v < 1.1 else 1)' "$v" &&
			ok "a cgroup running one busy loop: CPUs_utilized $v (0 to 1)" || fail "the busy cgroup's CPUs_utilized: $v"
		[ -z "$(value tally_metric_cpus_utilized "cgroup=$top/idle")" ] &&
			[ "$(value tally_cgroup_up "cgroup=$top/idle")" = 1.0 ] &&
			ok "the idle cgroup (up, no task-clock): no CPUs_utilized sample" ||
			fail "the idle cgroup: $(grep "idle" "$WORK/metrics.txt")"
		promtool_ok "cgroup metrics"
		stop
		if "$TALLY" stat -e cycles -x, -- true 2>&1 | grep -q "not supported"; then
			out=$(msg -e page-faults --cgroup "$top/idle" --metrics CPUs_utilized,IPC)
			[[ "$out" == *"metric IPC cannot be computed here"*"status 1" ]] &&
				ok "per cgroup too, a metric of events this machine lacks stops the start: ${out//$'\n'/ | }" ||
				fail "--cgroup with IPC: $out"
		fi
		# Without CAP_PERFMON the cgroup reads down and the log says why, as without --metrics.
		nobody="--reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all"
		if command -v setpriv >/dev/null 2>&1 && setpriv $nobody test -x "$EXPORTER" &&
			[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
			setpriv $nobody "$EXPORTER" --listen "127.0.0.1:$port" --interval 100 -e page-faults \
				--cgroup "$top/idle" --metrics CPUs_utilized 2> "$WORK/nopriv.log" &
			exporter=$!
			pids+=("$exporter")
			"$PY" "$HELPERS/scrape.py" wait "$url" 20
			down() { [ "$(value tally_cgroup_up "cgroup=$top/idle")" = 0.0 ] && grep -q CAP_PERFMON "$WORK/nopriv.log"; }
			wait_for "without CAP_PERFMON: served, the cgroup down" down &&
				ok "--metrics without CAP_PERFMON: served, the cgroup down and the log says what to grant"
			stop
		else
			echo "SKIP (part): no setpriv, the exporter not reachable by nobody, or paranoid below 1"
		fi
		kill -KILL "$busy"
		wait "$busy" 2>/dev/null
		pids=("${pids[@]/$busy}")
	else
		echo "SKIP (part): cannot make cgroups under $mount"
	fi
	rmdir "$mount/$top/busy" "$mount/$top/idle" "$mount/$top" 2>/dev/null
fi
finish
