#!/bin/bash
# SPDX-License-Identifier: MIT
# tally refuses to run set-uid or set-gid (exit 2, saying how to grant access instead), runs when given
# CAP_PERFMON with setcap (that also sets AT_SECURE: the refusal looks at the ids, not AT_SECURE), and
# tally doctor gives the same advice to an unprivileged user. Copies of the binary, run as nobody with
# setpriv. SKIP without root, setpriv, or on a filesystem mounted nosuid.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to make set-uid copies"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) is not installed"; exit 77; }
findmnt -n -o OPTIONS -T "$WORK" | grep -qw nosuid && { echo "SKIP: $WORK is on a nosuid mount"; exit 77; }
chmod 755 "$WORK"
cp "$TALLY" "$WORK/tally"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

for bits in 4755 2755 6755; do
	chmod "$bits" "$WORK/tally"
	as_nobody "$WORK/tally" stat -e task-clock -- touch "$WORK/ran" >"$WORK/out" 2>&1; st=$?
	[ $st -eq 2 ] && ok "mode $bits: exit 2" || fail "mode $bits: exit $st, expected 2"
	grep -q "refusing to run set-uid or set-gid" "$WORK/out" || fail "mode $bits: no refusal: $(cat "$WORK/out")"
	grep -q "setcap cap_perfmon=ep" "$WORK/out" || fail "mode $bits: no setcap advice"
	grep -q "perf_event_paranoid" "$WORK/out" || fail "mode $bits: no perf_event_paranoid advice"
	[ -e "$WORK/ran" ] && fail "mode $bits: the command ran"
	as_nobody "$WORK/tally" --version >/dev/null 2>&1; st=$?
	[ $st -eq 2 ] && ok "mode $bits: even --version refused" || fail "mode $bits: --version exit $st"
done

chmod 755 "$WORK/tally"
as_nobody "$WORK/tally" --version >/dev/null 2>&1 && ok "plain copy as nobody runs" || fail "plain copy refused"
if command -v setcap >/dev/null && setcap cap_perfmon=ep "$WORK/tally" 2>/dev/null; then
	as_nobody "$WORK/tally" --version >"$WORK/out" 2>&1; st=$?
	[ $st -eq 0 ] && ok "setcap cap_perfmon=ep copy as nobody runs" || fail "setcap copy: exit $st: $(cat "$WORK/out")"
	setcap -r "$WORK/tally"
else
	echo "note: setcap unavailable here; the CAP_PERFMON copy is not tried"
fi

# An unprivileged user's doctor advice names setcap and warns off set-uid.
as_nobody "$WORK/tally" doctor >"$WORK/doctor" 2>&1
grep -q "setcap cap_perfmon=ep" "$WORK/doctor" && ok "doctor: setcap advice" || fail "doctor: no setcap advice"
grep -q "set-uid" "$WORK/doctor" && ok "doctor: warns off set-uid" || fail "doctor: no set-uid warning"
finish
