#!/bin/bash
# SPDX-License-Identifier: MIT
# tally exporter's HTTP basic authentication (issue 23, 7b), against the real exporter on 127.0.0.1:
# --basic-auth-file entries hashed with bcrypt (made here: python3's crypt, htpasswd -nbB or mkpasswd;
# a known fixture else) and yescrypt (where one can be made) let in their password and refuse a wrong
# one, a prefix of it and the empty one; a password kept in the clear works, is refused in the same
# cases, and is warned about once at the start and again at SIGHUP, which reads the file again; a hash
# of a kind not accepted, or cut short, stops the start. Waits are bounded polls, never timings.
set -u
source "$(dirname "$0")/cli_helpers/common.sh"
HELPERS=$(dirname "$0")/cli_helpers
source "$HELPERS/exporter.sh"

exporter_url 11
status() { "$PY" "$HELPERS/scrape.py" status "$url" "$@" 2>/dev/null; }

# hash_of METHOD PASSWORD: a crypt(5) hash (bcrypt of the lowest cost: the test checks, not guards), or
# nothing where no tool here makes one.
hash_of() {
	"$PY" -W ignore - "$@" <<'EOP' 2>/dev/null && return
import crypt, sys
method, password = sys.argv[1:]
setting = crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16) if method == "bcrypt" else "$y$j9T$" + crypt.mksalt(crypt.METHOD_SHA256)[3:19]
h = crypt.crypt(password, setting)
sys.exit(1 if not h or h.startswith("*") else print(h))
EOP
	if [ "$1" = bcrypt ] && command -v htpasswd >/dev/null 2>&1; then
		htpasswd -nbBC 4 x "$2" | sed -n 's/^x://p'
	elif command -v mkpasswd >/dev/null 2>&1; then
		mkpasswd -m "$([ "$1" = bcrypt ] && echo bcrypt || echo yescrypt)" "$2"
	fi
}
bcrypt=$(hash_of bcrypt "right horse")
# The fixture: "right horse" under bcrypt cost 4 (made with python3's crypt once).
[[ "$bcrypt" == '$2'[aby]'$'* ]] || bcrypt='$2b$04$qx75goorNCrhIUpKLyc1XuQI8ZoO90BiDSSw/wup8tHC0wtPlzfD.'
yescrypt=$(hash_of yescrypt "battery staple")

{
	echo "# users"
	echo "hashed:$bcrypt"
	echo "plain:s3cret"
	[ -n "$yescrypt" ] && echo "yes:$yescrypt"
} > "$WORK/auth"
"$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults --basic-auth-file "$WORK/auth" 2> "$WORK/exporter.log" &
exporter=$!
pids+=("$exporter")
answers() { [ "$(status hashed:"right horse")" = 200 ]; }
wait_for "bcrypt: 200 with the password" answers || { cat "$WORK/exporter.log"; finish; }
ok "bcrypt ($bcrypt): 200 with the password"

refuses() { # WHAT USER:PASSWORD...: each one answered 401
	local what=$1 got
	shift
	for c in "$@"; do
		got=$(status "$c")
		[ "$got" = 401 ] || { fail "$what: '$c' answered $got, not 401"; return; }
	done
	ok "$what: 401 for $*"
}
refuses "bcrypt, refused" "hashed:wrong horse" "hashed:right hors" "hashed:right" "hashed:" "hashed:right horse "
refuses "no credentials or an unknown user" "" "nobody:right horse" "hashe:right horse" ":right horse"
[ "$(status plain:s3cret)" = 200 ] && ok "a password in the clear: 200" || fail "plain:s3cret: $(status plain:s3cret)"
refuses "in the clear, refused" "plain:s3cre" "plain:" "plain:s3cret!" "plai:s3cret" "plain:S3CRET"
if [ -n "$yescrypt" ]; then
	[ "$(status "yes:battery staple")" = 200 ] && ok "yescrypt: 200 with the password" ||
		fail "yescrypt ($yescrypt): $(status "yes:battery staple")"
	refuses "yescrypt, refused" "yes:battery stapl" "yes:" "yes:right horse"
else
	echo "SKIP (part): nothing here makes a yescrypt hash"
fi

warned() { grep -c "warning: --basic-auth-file $WORK/auth: user $1's password is kept in the clear" "$WORK/exporter.log"; }
[ "$(warned plain)" = 1 ] && [ "$(warned hashed)" = 0 ] && [ "$(warned yes)" = 0 ] &&
	ok "warned once, at the start, of the password in the clear alone: $(grep warning "$WORK/exporter.log")" ||
	fail "the warnings: $(cat "$WORK/exporter.log")"

# SIGHUP reads the file again: another password in the clear, warned about; the old one refused.
sed -i 's/^plain:s3cret$/plain:0ther/' "$WORK/auth"
kill -HUP "$exporter"
reread() { [ "$(warned plain)" = 2 ]; }
wait_for "SIGHUP: the file read again and the password in the clear warned about" reread &&
	ok "SIGHUP: the warning said again"
new_password() { [ "$(status plain:0ther)" = 200 ]; }
wait_for "SIGHUP: the new password" new_password && refuses "SIGHUP: the old password" "plain:s3cret" &&
	[ "$(status hashed:"right horse")" = 200 ] && ok "SIGHUP: the new password lets in, the hashed one still"
echo "plain" > "$WORK/auth"
kill -HUP "$exporter"
kept() { grep -q "SIGHUP: --basic-auth-file $WORK/auth:1: expected user:password.*the running users stay" "$WORK/exporter.log"; }
wait_for "SIGHUP: a malformed file keeps the running users" kept &&
	[ "$(status plain:0ther)" = 200 ] && ok "SIGHUP: a malformed file is refused, the running users stay"
kill -TERM "$exporter"
wait "$exporter"
pids=("${pids[@]/$exporter}")

# Hashes that cannot be checked stop the start, saying why.
for bad in 'md5:$1$saltsalt$abcdefghijklmnopqrstuv' "cut:${bcrypt:0:40}"; do
	echo "$bad" > "$WORK/bad"
	# Bounded: an exporter that took the file would serve on (and is stopped at 20 s).
	out=$(timeout 20 "$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults --basic-auth-file "$WORK/bad" 2>&1 >/dev/null)
	st=$?
	[ $st = 2 ] && [[ "$out" == *"--basic-auth-file $WORK/bad:1: user ${bad%%:*}: "* ]] && ok "refused at the start: $out" ||
		fail "${bad%%:*}: status $st: $out"
done
# An empty password would let in whoever sends the name alone: refused at the start too.
echo "nopw:" > "$WORK/bad"
out=$(timeout 20 "$TALLY" exporter --listen "127.0.0.1:$port" -e page-faults --basic-auth-file "$WORK/bad" 2>&1 >/dev/null)
st=$?
[ $st = 2 ] && [[ "$out" == *"--basic-auth-file $WORK/bad:1: user nopw has an empty password"* ]] &&
	ok "an empty password refused at the start: $out" || fail "an empty password: status $st: $out"
finish
