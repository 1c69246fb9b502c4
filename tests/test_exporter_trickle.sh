#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter under slow-request attacks (issue 23, item 5), on 127.0.0.1: clients that send a
# byte a second and never end their headers (tests/cli_helpers/trickle.py, bounded to 64 connections
# and 15-20 s). Linux routes all of 127/8 to lo, so the attackers come from 127.0.0.2 and up and the
# scraper from 127.0.0.1: one address with 64 such connections holds no more than its share, and a
# scrape beside them answers at its first try; 64 addresses with one each fill every connection, and
# each is cut once its request is late, so that a scrape retried answers while the attack goes on.
# Waits are bounded (tries with a 3 s timeout each), never assertions on how long something took.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
source "$HELPERS/exporter.sh"

exporter_url 13
"$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults 2> "$WORK/exporter.log" &
exporter=$!
pids+=("$exporter")
"$PY" "$HELPERS/scrape.py" wait "$url" 20 || { fail "the exporter never answered: $(cat "$WORK/exporter.log")"; finish; }
"$PY" -c 'import socket, sys; c = socket.socket(); c.bind(("127.0.0.65", 0)); c.connect(("127.0.0.1", int(sys.argv[1])))' \
	"$port" 2>/dev/null || skip "cannot connect from 127.0.0.65 to 127.0.0.1 (no 127/8 on lo)"

# timeout: the helper bounds itself; this bounds the helper.
timeout 60 "$PY" "$HELPERS/trickle.py" "$url" 127.0.0.2 1 64 15 1 > "$WORK/one.out" 2>&1 &&
	ok "64 trickling connections from 127.0.0.2: $(paste -sd';' "$WORK/one.out")" ||
	fail "64 trickling connections from one address locked the scraper out: $(paste -sd';' "$WORK/one.out")"
timeout 60 "$PY" "$HELPERS/trickle.py" "$url" 127.0.0.2 64 1 20 6 > "$WORK/many.out" 2>&1 &&
	ok "64 trickling connections from 127.0.0.2-65: $(paste -sd';' "$WORK/many.out")" ||
	fail "64 trickling connections from 64 addresses locked the scraper out: $(paste -sd';' "$WORK/many.out")"
grep -q "^cut 64 of 64$" "$WORK/many.out" && ok "every trickling connection was cut before the attack ended" ||
	fail "trickling connections outlived the attack: $(tail -1 "$WORK/many.out")"
"$PY" "$HELPERS/scrape.py" get "$url" > /dev/null && ok "a scrape after the attacks" || fail "no scrape after the attacks"
kill -TERM "$exporter"
wait "$exporter"
st=$?
pids=("${pids[@]/$exporter}")
[ $st = 0 ] && ok "SIGTERM: stopped with status 0" || fail "SIGTERM: status $st: $(tail -3 "$WORK/exporter.log")"
finish
