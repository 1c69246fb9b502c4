#!/bin/bash
# SPDX-License-Identifier: MIT
# CSV and JSON numbers use '.' whatever the locale says, and the table follows the locale as perf stat's
# does (its thousands separator and decimal point): run under a comma-decimal locale (de_DE.UTF-8, generated
# into a private LOCPATH when the system lacks it) and en_US.UTF-8, and check both.
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
grep -qE '^ +[0-9]\.[0-9]{3} +page-faults' "$WORK/table" && ok "de_DE table groups thousands with '.'" ||
	fail "table under de_DE: $(grep page-faults "$WORK/table")"
grep -qE '^ +[0-9]+,[0-9]{9} seconds time elapsed' "$WORK/table" && ok "de_DE table times use ','" ||
	fail "table times: $(cat "$WORK/table")"
grep -qE '# +[0-9]+,[0-9]{3} K/sec' "$WORK/table" && ok "de_DE table metric uses ','" || fail "table metric: $(cat "$WORK/table")"
"$TALLY" stat -B -e page-faults -- dd if=/dev/zero of=/dev/null bs=16M count=1 2>"$WORK/table"
grep -qE '^ +[0-9]{4,} +page-faults' "$WORK/table" && ok "-B under de_DE: no separator" || fail "-B: $(cat "$WORK/table")"
if [ "$(LC_ALL=en_US.UTF-8 locale thousands_sep 2>/dev/null)" != "," ] && [ -n "${LOCPATH:-}" ]; then
	localedef -i en_US -f UTF-8 "$LOCPATH/en_US.UTF-8" >/dev/null 2>&1
fi
if [ "$(LC_ALL=en_US.UTF-8 locale thousands_sep 2>/dev/null)" = "," ]; then
	LC_ALL=en_US.UTF-8 "$TALLY" stat -e page-faults -- dd if=/dev/zero of=/dev/null bs=16M count=1 2>"$WORK/table"
	grep -qE '^ +[0-9],[0-9]{3} +page-faults' "$WORK/table" && ok "en_US table groups thousands with ','" ||
		fail "table under en_US: $(grep page-faults "$WORK/table")"
else
	echo "SKIP part: en_US.UTF-8 cannot be had here"
fi
"$TALLY" stat -j -e task-clock -- true 2>"$WORK/json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d['elapsed'], float)" "$WORK/json" &&
	ok "JSON parses (no comma decimals)" || fail "JSON under de_DE"

finish
