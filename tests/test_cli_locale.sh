#!/bin/bash
# SPDX-License-Identifier: MIT
# CSV and JSON numbers use '.' whatever the locale says: run under a comma-decimal locale (de_DE.UTF-8,
# generated into a private LOCPATH when the system lacks it) and check the decimal points.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

comma_decimal() { LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null; }
if [ "$(comma_decimal)" != "," ]; then
	# Not installed: build it from the locales package's sources into a private directory.
	if command -v localedef >/dev/null && [ -d /usr/share/i18n/locales ] &&
		mkdir -p "$WORK/loc" && localedef -i de_DE -f UTF-8 "$WORK/loc/de_DE.UTF-8" >/dev/null 2>&1; then
		export LOCPATH=$WORK/loc
	fi
fi
if [ "$(comma_decimal)" != "," ]; then
	echo "SKIP: no comma-decimal locale can be had here (de_DE.UTF-8 missing, localedef or locale sources absent)"
	exit 77
fi
export LC_ALL=de_DE.UTF-8
ok "under LC_ALL=de_DE.UTF-8 the decimal point is $(comma_decimal)"

"$TALLY" stat -x, -e task-clock,page-faults -- true 2>"$WORK/csv"
grep -qE '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9]+\.[0-9]{3},CPUs utilized$' "$WORK/csv" &&
	ok "CSV task-clock uses '.'" || fail "CSV under de_DE: $(cat "$WORK/csv")"
[ "$(awk -F, '{print NF}' "$WORK/csv" | sort -u)" = 7 ] && ok "CSV: 7 fields on every line" || fail "CSV field count"
"$TALLY" stat -e page-faults -- dd if=/dev/zero of=/dev/null bs=16M count=1 2>"$WORK/table"
grep -qE '^ +[0-9],[0-9]{3} +page-faults' "$WORK/table" && ok "table groups thousands with ','" ||
	fail "table under de_DE: $(grep page-faults "$WORK/table")"
grep -qE '^ +[0-9]+\.[0-9]{9} seconds time elapsed' "$WORK/table" && ok "table times use '.'" || fail "table times"
"$TALLY" stat -j -e task-clock -- true 2>"$WORK/json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d['elapsed'], float)" "$WORK/json" &&
	ok "JSON parses (no comma decimals)" || fail "JSON under de_DE"

finish
