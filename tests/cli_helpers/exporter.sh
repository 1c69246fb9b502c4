# SPDX-License-Identifier: MIT
# Sourced by the exporter tests after common.sh (not a test itself): SKIPs (exit 77, naming what is
# missing) unless tally-exporter is built and a python3 has prometheus_client, which goes to $PY; and
# wait_for, the bounded poll the tests use instead of any assertion on time; pids, exporter_url.
skip() { echo "SKIP: $*"; echo "SKIP: $*" >&2; exit 77; }
[ -x "$TALLY_BUILD/tools/tally-exporter" ] || skip "tally-exporter is not built (libmicrohttpd-dev or libcrypt-dev was not found)"
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import prometheus_client' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || skip "no python3 with prometheus_client (apt-get install python3-prometheus-client)"
wait_for() { # DESCRIPTION COMMAND...: polls (up to 20 s) until the command succeeds
	local what=$1 i
	shift
	for ((i = 0; i < 400; i++)); do "$@" && return 0; sleep 0.05; done
	fail "$what: never happened"
	return 1
}
# pids: the processes a test started, killed at its exit (a test with more to clean traps EXIT itself).
pids=()
kill_pids() { local p; for p in "${pids[@]}"; do [ -n "$p" ] && kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; }
trap 'kill_pids; rm -rf "$WORK"' EXIT
# exporter_url OFFSET: $port and $url, its /metrics on 127.0.0.1. The port and the one after it (a test may
# run a second server there) are free when asked, and below the kernel's ephemeral range: a port in that
# range can be taken at any moment by another test's outgoing connection (seen once in CI under load:
# "Address already in use" on 34514). Tests running at once start from different places (process id and
# OFFSET) and pass over a port another holds.
exporter_url() {
	local low=32768 high i
	read -r low high < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
	local span=$((low > 12000 ? low - 10000 : 2000))
	for ((i = 0; i < 200; i++)); do
		port=$((10000 + (($$ * 7 + $1 * 211 + i * 2) % span)))
		"$PY" -c 'import socket, sys
for p in (int(sys.argv[1]), int(sys.argv[1]) + 1):
    s = socket.socket(); s.bind(("127.0.0.1", p)); s.close()' "$port" 2>/dev/null && break
	done
	url=http://127.0.0.1:$port/metrics
}
