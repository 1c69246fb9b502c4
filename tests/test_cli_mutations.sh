#!/bin/bash
# SPDX-License-Identifier: MIT
# Behaviours of tally stat that a mutation pass over the suite found unguarded, checked on the CLI's output
# only (so that they hold whatever computes them): an -I interval in which the command had no time at all
# reads <not counted>, never 0.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_helpers/common.sh"

# A task's events are enabled only while it runs: `sleep 1` is asleep from its first tick to its exit, so
# whole intervals have no time (nine ticks of 100 ms; only the first, with the exec, and the partial last
# one can have any). Which ticks are asleep depends on the machine; that some are does not.
"$TALLY" stat -I 100 -x, -e task-clock -- sleep 1 2>"$WORK/err"; st=$?
idle=$(grep -c '^ *[0-9.]*,<not counted>,msec,task-clock,' "$WORK/err")
# A row that prints 0 for an interval that had no time (its run time, field 5, 0) is the mutation; a short
# last interval may print 0.00 msec for a count that ran (2415 ns, seen in a fresh-clone CI run).
zero=$(awk -F, '$2 ~ /^0(\.0+)?$/ && $4 == "task-clock" && $5 == 0' "$WORK/err" | wc -l)
[ $st -eq 0 ] && [ "$idle" -ge 1 ] && [ "$zero" -eq 0 ] &&
	ok "-I: an interval without time reads <not counted> ($idle of $(wc -l <"$WORK/err"))" ||
	fail "-I over a sleep: exit $st, $idle <not counted>, $zero zero rows: $(cat "$WORK/err")"
# The same in the table: the placeholder, not a number.
"$TALLY" stat -I 100 -e task-clock -- sleep 1 2>"$WORK/err"
grep -qE '^ *[0-9.]+ +<not counted> +msec +task-clock' "$WORK/err" &&
	ok "-I table: <not counted> row" || fail "-I table: $(cat "$WORK/err")"

finish
