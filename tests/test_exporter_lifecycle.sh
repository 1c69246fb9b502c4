#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter as cgroups come, go and come back (issue 23), against the real exporter on 127.0.0.1:
# a cgroup removed and made again under the same name is another cgroup, counted, its counts added to
# the same total; a --cgroup removed reads down and is counted again once made again; cgroups skipped
# for want of descriptors are opened when descriptors free up, tally_cgroups_skipped saying how many
# are skipped now; a cgroup named with bytes that are not UTF-8 leaves an exposition the real promtool
# accepts. Then the messages: CPUs not online (at the start and at SIGHUP, which keeps the running
# configuration and its totals), a certificate and key that do not match, a directory given as a file,
# the reload of the whole machine. Waits are bounded polls (20 s), never assertions on time.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
PAGES=2000

source "$HELPERS/exporter.sh"
source "$HELPERS/cgroups.sh"

top=tally-exporter-life-$$
mkdir "$mount/$top" "$mount/$top/svc" "$mount/$top-given" "$mount/$top-budget" || skip "cannot make cgroups under $mount"
pids=()
cleanup() {
	for p in "${pids[@]}"; do [ -n "$p" ] && kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for d in "$mount/$top"/*/ "$mount/$top-budget"/*/; do rmdir "$d" 2>/dev/null; done
	rmdir "$mount/$top" "$mount/$top-given" "$mount/$top-budget" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
run_in() { sh -c "echo \$\$ > '$mount/$1/cgroup.procs' && exec '$WORK/touch' $2"; }

exporter_url 7
samples() {
	"$PY" -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())' \
		"$url" > "$WORK/metrics.txt" 2>/dev/null || return 1
	"$PY" "$HELPERS/exposition.py" "$WORK/metrics.txt" > "$WORK/samples.txt" || return 1
	cat "$WORK/samples.txt"
}
value() { samples | K="$1{$2}" awk '$1 == ENVIRON["K"] { print $2 }'; }  # ENVIRON: no escapes read
int_value() { local v; v=$(value "$@"); v=${v%.*}; [[ "$v" =~ ^[0-9]+$ ]] && echo "$v"; }
faults() { int_value tally_event_total "cgroup=$1,event=page-faults,pmu=software"; }
at_least() { local v; v=$(faults "$1") && (( v >= $2 )); }
# Runs the workload in CGROUP (up to 40 times: the first may end before the exporter opened a new
# cgroup) until its total reaches AT_LEAST, and never falls below FLOOR on the way.
work_until() { # CGROUP AT_LEAST FLOOR
	local i v
	for ((i = 0; i < 40; i++)); do
		run_in "$1" $PAGES
		# No series while it is down (a scan saw it gone): nothing to compare.
		v=$(faults "$1") || { v=none; sleep 0.1; continue; }
		(( v < $3 )) && { fail "$1: the total fell to $v, below $3"; return 1; }
		(( v >= $2 )) && return 0
		sleep 0.1
	done
	fail "$1: the total stayed at $v, never $2"
	return 1
}
up_is() { [ "$(value tally_cgroup_up "cgroup=$1")" = "$2" ]; }
start() { # LOG ARGS...: an exporter on $url, its pid in $exporter
	local log=$1
	shift
	"$TALLY" exporter --listen "127.0.0.1:$port" --interval 100 "$@" 2> "$log" &
	exporter=$!
	pids+=("$exporter")
	"$PY" "$HELPERS/scrape.py" wait "$url" 20 || { fail "the exporter never answered: $(cat "$log")"; finish; }
}
stop() { kill -TERM "$exporter"; wait "$exporter"; pids=("${pids[@]/$exporter}"); }

# 1, 2: a cgroup is its directory, not its name.
echo "cgroups-under $top" > "$WORK/exporter.conf"
start "$WORK/exporter.log" -e page-faults --config "$WORK/exporter.conf" --cgroup "$top-given"
wait_for "$top/svc opened" up_is "$top/svc" 1.0
run_in "$top/svc" $PAGES
wait_for "$top/svc counted" at_least "$top/svc" $PAGES
before=$(faults "$top/svc")
rmdir "$mount/$top/svc" && mkdir "$mount/$top/svc"
# Counted again, past the old total (a scan between rmdir and mkdir drops the series, which starts
# again from 0; none in between carries the total on).
work_until "$top/svc" $((before + PAGES)) 0 && up_is "$top/svc" 1.0 &&
	ok "--cgroups-under: $top/svc removed and made again is counted: $before -> $(faults "$top/svc")"

run_in "$top-given" $PAGES
wait_for "--cgroup $top-given counted" at_least "$top-given" $PAGES
before=$(faults "$top-given")
rmdir "$mount/$top-given" && mkdir "$mount/$top-given"
work_until "$top-given" $((before + PAGES)) "$before" &&
	ok "--cgroup: $top-given removed and made again: its total went on from $before to $(faults "$top-given")"
before=$(faults "$top-given")
rmdir "$mount/$top-given"
wait_for "--cgroup: $top-given removed reads down" up_is "$top-given" 0.0 &&
	ok "--cgroup: $top-given removed: tally_cgroup_up 0"
grep -q "cgroup $top-given: not counted: its directory is gone" "$WORK/exporter.log" &&
	ok "the log says $top-given is gone" || fail "the log: $(cat "$WORK/exporter.log")"
mkdir "$mount/$top-given"
wait_for "--cgroup: $top-given back up" up_is "$top-given" 1.0
work_until "$top-given" $((before + PAGES)) "$before" &&
	ok "--cgroup: $top-given made again after a scan saw it gone: counted, total $before -> $(faults "$top-given")"

# 4: a name that is not UTF-8.
mkdir "$mount/$top/"$'bad\xff\xfe'
odd_up() { up_is "$top/bad\\xff\\xfe" 1.0; }
wait_for "the cgroup named bad\\xff\\xfe up, its name escaped" odd_up &&
	ok "a cgroup named with the bytes \\xff\\xfe: written as the text \\xff\\xfe"
if command -v promtool >/dev/null 2>&1; then
	samples > /dev/null
	promtool check metrics < "$WORK/metrics.txt" > "$WORK/promtool.out" 2>&1 &&
		ok "promtool check metrics accepts the exposition" || fail "promtool: $(cat "$WORK/promtool.out")"
else
	echo "SKIP (part): no promtool (apt-get install prometheus)"
fi
rmdir "$mount/$top/"$'bad\xff\xfe'
# A quote and a backslash in a name (cgroupfs refuses a line feed) are escaped as the text format says:
# the independent parser gives the name back as itself (a backslash left raw would read \n as a line feed).
mkdir "$mount/$top/"'q"b\n'
quoted_up() { up_is "$top/"'q"b\n' 1.0; }
wait_for "the cgroup named q\"b\\n up, read back as itself" quoted_up &&
	ok "a cgroup named with a quote and a backslash: the parser reads the name back"
rmdir "$mount/$top/"'q"b\n'

# 6: CPUs that are not online, at SIGHUP: the running configuration and its totals stay.
online=$(getconf _NPROCESSORS_CONF)
before=$(faults "$top/svc")
echo "cpus 0-$((online + 5))" >> "$WORK/exporter.conf"
kill -HUP "$exporter"
kept() { grep -q "SIGHUP: .*not online here.*the running configuration stays" "$WORK/exporter.log"; }
wait_for "SIGHUP with CPUs not online refused" kept && ok "SIGHUP: cpus 0-$((online + 5)) refused: $(grep -o 'not online here[^:]*: [0-9,-]*' "$WORK/exporter.log" | head -1)"
work_until "$top/svc" $((before + PAGES)) "$before" &&
	ok "the running configuration counts on: $top/svc $before -> $(faults "$top/svc")"
stop

"$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults -C "0-$((online + 5))" 2> "$WORK/cpus.log"
status=$?
[ $status != 0 ] && grep -q "not online here (absent or offline): $online-$((online + 5)); the online CPUs are " "$WORK/cpus.log" &&
	ok "-C 0-$((online + 5)) refused at the start: $(cat "$WORK/cpus.log")" || fail "-C: status $status: $(cat "$WORK/cpus.log")"

# 3: cgroups skipped for want of descriptors are opened when descriptors free up.
for i in $(seq 1 40); do mkdir "$mount/$top-budget/n$i"; done
(ulimit -n 200; exec "$TALLY" exporter --listen "127.0.0.1:$port" --interval 100 -e page-faults,task-clock \
	--cgroups-under "$top-budget" 2> "$WORK/budget.log") &
exporter=$!
pids+=("$exporter")
"$PY" "$HELPERS/scrape.py" wait "$url" 20 || fail "the exporter never answered: $(cat "$WORK/budget.log")"
cpus=$(int_value tally_machine_cpus "")
fit=$(( (200 - 128) / (2 * cpus + 1) ))
if (( fit < 1 || fit >= 20 )); then
	echo "SKIP (part): $cpus CPUs: $fit cgroups fit in 200 descriptors, not between 1 and 19"
else
	counts() { # UP SKIPPED
		[ "$(samples | grep -c "^tally_cgroup_up{cgroup=$top-budget/.*} 1.0$")" = "$1" ] &&
			[ "$(value tally_cgroups_skipped "")" = "$2.0" ]
	}
	wait_for "$fit of 40 up, $((40 - fit)) skipped" counts "$fit" $((40 - fit))
	sleep 0.5  # several scans on: the gauge still says how many are skipped
	counts "$fit" $((40 - fit)) && ok "40 cgroups, room for $fit: tally_cgroups_skipped $((40 - fit)), scan after scan" ||
		fail "after more scans: $(grep -c "^tally_cgroup_up.* 1.0$" "$WORK/samples.txt") up, skipped $(value tally_cgroups_skipped "")"
	for d in $(grep "^tally_cgroup_up{cgroup=$top-budget/.*} 1.0$" "$WORK/samples.txt" | sed 's/.*\/\(n[0-9]*\)}.*/\1/'); do
		rmdir "$mount/$top-budget/$d"
	done
	left=$((40 - fit))
	now=$(( fit < left ? fit : left ))
	wait_for "the skipped cgroups opened as descriptors freed up" counts "$now" $((left - now)) &&
		ok "$fit cgroups removed: $now of the $left skipped opened, tally_cgroups_skipped $((left - now))"
fi
stop

# One cgroup however it is written: --cgroup NAME, the path, a trailing or repeated slash, "./" give
# one series labelled by the name (and a --cgroups-under path the same labels as its name).
start "$WORK/names.log" -e page-faults --cgroup "$top-given" --cgroup "$mount/$top-given/" \
	--cgroup "$mount//./$top-given" --cgroups-under "$mount/$top/"
series=$(samples | awk -F'[{}]' '$1 == "tally_cgroup_up" { print $2 }' | sort | tr '\n' ' ')
[ "$series" = "cgroup=$top-given cgroup=$top/svc " ] &&
	ok "--cgroup as a name, a path, with / and ./: one series; --cgroups-under as a path: $series" ||
	fail "cgroups named as paths: the series are $series"
stop

# 7: the messages say what is wrong.
msg() { "$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults "$@" 2>&1 >/dev/null; }
out=$(msg --config "$WORK")
[[ "$out" == *"cannot read $WORK: Is a directory"* ]] && ok "--config DIR: $out" || fail "--config DIR: $out"
out=$(msg --basic-auth-file "$WORK")
[[ "$out" == *"Is a directory"* ]] && ok "--basic-auth-file DIR: $out" || fail "--basic-auth-file DIR: $out"
if command -v openssl >/dev/null 2>&1; then
	for k in 1 2; do
		openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -days 2 -keyout "$WORK/key$k.pem" \
			-out "$WORK/cert$k.pem" 2>/dev/null
	done
	out=$(msg --tls-cert "$WORK/cert1.pem" --tls-key "$WORK/key2.pem")
	[[ "$out" == *"certificate and key were refused"*"do not match"* && "$out" != *"port in use"* ]] &&
		ok "a key of another certificate: $out" || fail "a mismatched key: $out"
else
	echo "SKIP (part): no openssl to make a certificate"
fi
start "$WORK/machine.log" -e page-faults
kill -HUP "$exporter"
reloaded() { grep -q "SIGHUP: reloaded" "$WORK/machine.log"; }
wait_for "SIGHUP of the whole machine" reloaded
grep -q "SIGHUP: reloaded: counting the whole machine" "$WORK/machine.log" &&
	ok "SIGHUP without cgroups: $(grep reloaded "$WORK/machine.log")" || fail "the reload: $(cat "$WORK/machine.log")"
stop
finish
