#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter against real components: cgroups made here (root), workloads with known page-fault
# counts, the exposition read by python3-prometheus-client's parser at every step, and a real Prometheus
# (Debian's, on 127.0.0.1, scraping every 100 ms) queried through its HTTP API. Then 100 cgroups created
# and removed under --cgroups-under while 8 scrapers hammer /metrics: the series follow, every scrape
# answers, and the exporter's descriptors (/proc/PID/fd) come back to their count. SIGHUP reloads
# --config keeping the totals; SIGTERM stops with status 0; a descriptor budget over RLIMIT_NOFILE is
# refused with the arithmetic. Each missing component SKIPs the test with its name.
# Tolerance: a workload's page faults are its pages plus its exec's own: at least the pages, at most 300
# more. The waits below are bounded polls for something to happen, never assertions on time.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
A_PAGES=3000
B_PAGES=7000

source "$HELPERS/exporter.sh"
source "$HELPERS/cgroups.sh"

top=tally-exporter-$$
mkdir "$mount/$top" "$mount/$top/a" "$mount/$top/b" "$mount/$top-other" ||
	skip "cannot make cgroups under $mount"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for d in "$mount/$top"/*/; do rmdir "$d" 2>/dev/null; done
	rmdir "$mount/$top" "$mount/$top-other" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

run_in() { sh -c "echo \$\$ > '$mount/$1/cgroup.procs' && exec '$WORK/touch' $2"; }

exporter_url 0
echo "cgroups-under $top" > "$WORK/exporter.conf"
"$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults,task-clock --config "$WORK/exporter.conf" \
	--interval 100 2> "$WORK/exporter.log" &
exporter=$!
pids+=("$exporter")
"$PY" "$HELPERS/scrape.py" wait "$url" 20 || { cat "$WORK/exporter.log"; fail "the exporter never answered"; finish; }

# The exposition, parsed: every family with HELP and TYPE, unique series. Echoes the samples.
samples() {
	"$PY" "$HELPERS/scrape.py" get "$url" > "$WORK/metrics.txt" || return 1
	"$PY" "$HELPERS/exposition.py" "$WORK/metrics.txt" > "$WORK/samples.txt" || return 1
	cat "$WORK/samples.txt"
}
value() { # NAME LABELS (sorted, k=v,...)
	samples | awk -v k="$1{$2}" '$1 == k { print $2 }'
}
cgroups_up() { [ "$(samples | grep -c '^tally_cgroup_up{.*} 1.0$')" = "$1" ]; }

samples > /dev/null && ok "the exposition parses (python3-prometheus-client), HELP and TYPE for every family" ||
	fail "the exposition: $(cat "$WORK/metrics.txt" | head -5)"
grep -q '^# TYPE tally_event_total counter$' "$WORK/metrics.txt" && ok "tally_event_total is a counter" ||
	fail "no counter TYPE for tally_event_total"
wait_for "both cgroups under $top opened" cgroups_up 2 && ok "--cgroups-under found $top/a and $top/b"
# A name with the characters a label value escapes (a quote and a backslash; cgroupfs refuses a line
# feed): the parser reads it back as it is.
weird='we"ird\x y'
mkdir "$mount/$top/$weird"
weird_back() { "$PY" - "$WORK/metrics.txt" "$top/$weird" <<'EOP'
import sys
from prometheus_client.parser import text_string_to_metric_families
names = {s.labels.get("cgroup") for f in text_string_to_metric_families(open(sys.argv[1]).read()) for s in f.samples}
sys.exit(0 if sys.argv[2] in names else 1)
EOP
}
escaped() { cgroups_up 3 && weird_back; }
wait_for "a cgroup named with a quote and a backslash" escaped &&
	ok "a cgroup named with a quote and a backslash: escaped, parsed back as it is"
rmdir "$mount/$top/$weird"
wait_for "the oddly named cgroup dropped" cgroups_up 2

# A real Prometheus scraping every 100 ms.
if command -v prometheus >/dev/null 2>&1; then
	pport=$((port + 1))
	cat > "$WORK/prometheus.yml" <<EOY
global:
  scrape_interval: 100ms
  scrape_timeout: 100ms
scrape_configs:
  - job_name: tally
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOY
	prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
		--web.listen-address="127.0.0.1:$pport" > "$WORK/prometheus.log" 2>&1 &
	pids+=($!)
	prom=http://127.0.0.1:$pport
	query() { "$PY" "$HELPERS/scrape.py" query "$prom" "$1"; }
	if "$PY" "$HELPERS/scrape.py" wait "$prom/-/ready" 30; then
		baseline() { [ "$(query "tally_cgroup_up{cgroup=~\"$top/.*\"}" | grep -c ' 1$')" = 2 ]; }
		wait_for "Prometheus scraped both cgroups" baseline
	else
		fail "Prometheus never became ready: $(tail -3 "$WORK/prometheus.log")"
	fi
else
	echo "SKIP (part): prometheus is not installed (apt-get install prometheus): no end-to-end check"
	prom=
fi

run_in "$top/a" $A_PAGES
run_in "$top/b" $B_PAGES
for c in "a:$A_PAGES" "b:$B_PAGES"; do
	name=$top/${c%%:*} pages=${c##*:}
	got() { local v; v=$(value tally_event_total "cgroup=$name,event=page-faults,pmu=software"); v=${v%.*}
		[[ "$v" =~ ^[0-9]+$ ]] && (( v >= pages && v <= pages + 300 )); }
	wait_for "exporter: page faults of $name" got &&
		ok "exporter: $name counted $(value tally_event_total "cgroup=$name,event=page-faults,pmu=software") page faults for $pages pages"
	if [ -n "$prom" ]; then
		expr="max_over_time(tally_event_total{cgroup=\"$name\",event=\"page-faults\"}[10m]) - min_over_time(tally_event_total{cgroup=\"$name\",event=\"page-faults\"}[10m])"
		seen() { local v; v=$(query "$expr" | awk '{ print $2 }'); v=${v%.*}
			[[ "$v" =~ ^[0-9]+$ ]] && (( v >= pages && v <= pages + 300 )); }
		wait_for "Prometheus: the increase of $name" seen &&
			ok "Prometheus: $name increased by $(query "$expr" | awk '{ print $2 }') page faults ($pages pages)"
	fi
done

# 100 cgroups created and removed while 8 scrapers hammer /metrics: series follow, no descriptor leaks.
fds() { ls "/proc/$exporter/fd" | wc -l; }
before=$(fds)
"$PY" "$HELPERS/scrape.py" hammer "$url" 8 40 > "$WORK/hammer.out" 2>&1 &
hammer=$!
for i in $(seq 1 100); do mkdir "$mount/$top/c$i"; done
wait_for "100 new cgroups opened" cgroups_up 102 && ok "the 100 new cgroups were opened"
for i in $(seq 1 100); do rmdir "$mount/$top/c$i"; done
wait_for "100 removed cgroups dropped" cgroups_up 2 && ok "the 100 removed cgroups were closed and their series dropped"
wait "$hammer" && ok "8 concurrent scrapers, $(cat "$WORK/hammer.out") scrapes all answered" ||
	fail "concurrent scrapes: $(cat "$WORK/hammer.out")"
"$PY" "$HELPERS/scrape.py" slow "$url" 16 20 && ok "16 slow clients holding half a request: 20 scrapes answered" ||
	fail "scrapes beside slow clients"
samples | grep -q "c[0-9]" && fail "series of removed cgroups remain" || ok "no series of a removed cgroup remains"
settled() { [ "$(fds)" = "$before" ]; }
wait_for "descriptors back to $before (now $(fds))" settled && ok "descriptors back to $before after 100 cgroups"

# SIGHUP: another cgroup in the configuration; the totals of the others go on.
a_total=$(value tally_event_total "cgroup=$top/a,event=page-faults,pmu=software")
echo "cgroup $top-other" >> "$WORK/exporter.conf"
kill -HUP "$exporter"
other_up() { [ "$(value tally_cgroup_up "cgroup=$top-other")" = 1.0 ]; }
wait_for "SIGHUP: $top-other counted" other_up && ok "SIGHUP reloaded --config: $top-other counted"
[ "$(value tally_event_total "cgroup=$top/a,event=page-faults,pmu=software")" = "$a_total" ] &&
	ok "SIGHUP kept $top/a's total ($a_total)" || fail "SIGHUP changed $top/a's total from $a_total"

# SIGTERM: a clean stop.
kill -TERM "$exporter"
wait "$exporter"
status=$?
pids=("${pids[@]/$exporter}")
[ $status = 0 ] && grep -q "SIGTERM: stopping" "$WORK/exporter.log" && ok "SIGTERM: stopped with status 0" ||
	fail "SIGTERM: status $status: $(tail -3 "$WORK/exporter.log")"

# With CAP_PERFMON and no other privilege (the systemd unit's DynamicUser + AmbientCapabilities): a
# cgroup is counted; without it, not counted, and the log says what to grant.
nobody() { # CAPS: setpriv's arguments for user nobody with only these capabilities
	echo --reuid=65534 --regid=65534 --clear-groups --inh-caps="-all$1" --ambient-caps="-all$1" --bounding-set="-all$1"
}
exporter_bin=$TALLY_BUILD/tools/tally-exporter
if ! command -v setpriv >/dev/null 2>&1 || ! setpriv $(nobody "") test -x "$exporter_bin"; then
	echo "SKIP (part): no setpriv, or $exporter_bin is not reachable by nobody: no CAP_PERFMON check"
else
	for caps in ",+perfmon" ""; do
		# setpriv execs the exporter: $! is the exporter itself, which the signals below reach.
		setpriv $(nobody "$caps") "$exporter_bin" --listen "127.0.0.1:$port" -e page-faults --cgroup "$top/a" \
			--interval 100 2> "$WORK/perfmon.log" &
		p=$!
		pids+=("$p")
		"$PY" "$HELPERS/scrape.py" wait "$url" 20
		run_in "$top/a" $A_PAGES
		if [ -n "$caps" ]; then
			perfmon_counts() { local v; v=$(value tally_event_total "cgroup=$top/a,event=page-faults,pmu=software")
				v=${v%.*}; [[ "$v" =~ ^[0-9]+$ ]] && (( v >= A_PAGES && v <= A_PAGES + 300 )); }
			wait_for "CAP_PERFMON alone: $top/a counted" perfmon_counts && ok "CAP_PERFMON alone counts a cgroup"
		else
			explained() { [ "$(value tally_cgroup_up "cgroup=$top/a")" = 0.0 ] && grep -q "CAP_PERFMON" "$WORK/perfmon.log"; }
			wait_for "without CAP_PERFMON: not counted, explained" explained &&
				ok "without CAP_PERFMON: not counted, and the log says to grant it"
		fi
		kill -TERM "$p"
		wait "$p"
	done
fi

# HTTPS and basic authentication, through libmicrohttpd: a certificate made here, checked by the client.
if command -v openssl >/dev/null 2>&1 &&
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 2 \
		-keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null; then
	echo "scraper:s3cret" > "$WORK/auth"
	"$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
		--basic-auth-file "$WORK/auth" 2> "$WORK/tls.log" &
	p=$!
	pids+=("$p")
	https=https://127.0.0.1:$port/metrics
	status() { SCRAPE_CA=$WORK/cert.pem "$PY" "$HELPERS/scrape.py" status "$@" 2>/dev/null; }
	answers() { [ "$(status "$https" scraper:s3cret)" = 200 ]; }
	wait_for "HTTPS with the password" answers && ok "HTTPS: 200 with the password"
	[ "$(status "$https")" = 401 ] && [ "$(status "$https" scraper:wrong)" = 401 ] &&
		ok "HTTPS: 401 without the password and with a wrong one" || fail "basic authentication not enforced"
	kill -TERM "$p"
	wait "$p"
else
	echo "SKIP (part): no openssl to make a certificate: no HTTPS check"
fi

# The descriptor budget: cgroups that cannot fit under RLIMIT_NOFILE are refused with the arithmetic.
# 40 names (absent ones too: the budget is checked before any is opened), each needing 1 x CPUs + 1.
many=$(for i in $(seq 1 40); do printf "%s," "$top/n$i"; done)
(ulimit -n 150; "$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults --cgroup "$many" 2> "$WORK/budget.log")
status=$?
[ $status = 1 ] && grep -q "RLIMIT_NOFILE allows 150" "$WORK/budget.log" && ok "budget over RLIMIT_NOFILE refused: $(head -c 160 "$WORK/budget.log")..." ||
	fail "budget: status $status: $(cat "$WORK/budget.log")"
finish
