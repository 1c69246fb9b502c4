#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The host's half of the arm64 suite's JSON cases (tests/arm64/suite.c, json_for_host): the guest has no
JSON parser, so it prints each `tally stat -j` document to the console between two marker lines

    tally-arm64-json-begin CASE runs=R SPEC=VALUE...
    { ... }
    tally-arm64-json-end CASE

and this script parses it, validates it against docs/json-schema.json, and checks that the document holds
R runs and that the event with each canonical SPEC reads exactly VALUE, counted all the time, in every run
and as the mean (with a standard deviation of 0: QEMU's -icount makes every run count the same).
With mux=1 every event with a canonical SPEC was multiplexed: it ran part of its enabled time
(0 < running < enabled, status "scaled"), its scaled value is value x enabled / running, and it lies where
the event's own times put a multiplexed count of VALUE instructions of insn_ns ns each (the arm64 suite's
expect_scaled, tests/arm64/suite.c, says why). In every document no event or part ran longer than it was
enabled.

usage: check_json.py CONSOLE_LOG SCHEMA
Prints "ok   CASE.json" or "FAIL CASE.json" (then the reasons) per document, as the suite's harness
prints its cases; exit status 1 when any failed."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli_helpers"))
from validate_json_schema import validate  # noqa: E402

KERNEL_LINE = re.compile(r"^\[ *\d+\.\d+\] ")


def check_event(where, events, spec, want, errors, mean):
    found = [e for e in events if e.get("canonical") == spec]
    if len(found) != 1:
        errors.append(f"{where}: {len(found)} events with canonical spec {spec}")
        return
    e = found[0]
    if e["status"] != "counted":
        errors.append(f"{where}: {spec}: status {e['status']}, reason {e.get('reason')}")
    for key in ("value", "scaled"):
        if e[key] != want:
            errors.append(f"{where}: {spec}: {key} {e[key]}, expected {want}")
    if e["running"] != e["enabled"]:
        errors.append(f"{where}: {spec}: ran {e['running']} of {e['enabled']} ns")
    if mean and e.get("stddev") != 0:
        errors.append(f"{where}: {spec}: stddev {e.get('stddev')} over identical runs")


def multiplexed_interval(enabled, running, want, insn_ns):
    """Where scaled / want - 1 of a correct count lies (suite.c's expect_scaled): the workload's user time
    is want x insn_ns of the enabled time, the rest is the kernel's, where a :u event counts nothing; the
    event ran through all of that (low) or none of it (high)."""
    user = want * insn_ns
    return (1 - (enabled - user) / running) * enabled / user - 1, enabled / user - 1


def check_multiplexed(where, events, spec, want, insn_ns, errors, notes):
    found = [e for e in events if e.get("canonical") == spec]
    worst = None
    if not found:
        errors.append(f"{where}: no event with canonical spec {spec}")
    for k, e in enumerate(found):
        at = f"{where}: {spec} #{k}"
        if e["status"] != "scaled":
            errors.append(f"{at}: status {e['status']}, expected scaled (multiplexed)")
        if not 0 < e["running"] < e["enabled"]:
            errors.append(f"{at}: ran {e['running']} of {e['enabled']} ns, expected a part of it")
            continue
        extrapolated = e["value"] * e["enabled"] / e["running"]
        if abs(e["scaled"] - extrapolated) > max(1.0, 1e-9 * extrapolated):
            errors.append(f"{at}: scaled {e['scaled']}, but value x enabled / running is {extrapolated:.0f}")
        error = e["scaled"] / want - 1
        low, high = multiplexed_interval(e["enabled"], e["running"], want, insn_ns)
        if not low - 1e-6 <= error <= high + 1e-6:
            errors.append(f"{at}: scaled {e['scaled']} is {100 * error:+.4f}% off {want}; a count multiplexed"
                          f" in this window lies within {100 * low:+.4f}% to {100 * high:+.4f}%")
        if worst is None or abs(error) > abs(worst[0]):
            worst = (error, low, high)
    if worst:
        # How close the run came to the bounds, in every log.
        notes.append(f"worst scaled error {100 * worst[0]:+.4f}% (allowed {100 * worst[1]:+.4f}% to"
                     f" {100 * worst[2]:+.4f}%)")


def check_times(doc, errors):
    """running <= enabled for every event and part of every record: a swap of the two fails here."""
    records = [("events", doc["events"])]
    for key in ("runs", "intervals"):
        records += [(f"{key}[{i}].events", r["events"]) for i, r in enumerate(doc.get(key) or [])]
    for where, events in records:
        for e in events:
            for p in [e] + (e.get("parts") or []):
                if p["running"] > p["enabled"]:
                    errors.append(f"{where}: {e['canonical']}: ran {p['running']} ns of {p['enabled']} enabled")


def check_document(schema, text, expect, notes):
    try:
        doc = json.loads(text)
    except ValueError as err:
        return [f"not one JSON document: {err}"]
    errors = []
    validate(schema, schema, doc, "$", errors)
    if errors:
        return errors
    runs = int(expect.pop("runs"))
    multiplexed = expect.pop("mux", "0") == "1"
    insn_ns = int(expect.pop("insn_ns", "0"))
    if multiplexed and insn_ns <= 0:
        return ["mux=1 without insn_ns, the guest time of one instruction"]
    check_times(doc, errors)
    if doc["nr_runs"] != runs or len(doc["runs"]) != runs:
        return [f"nr_runs {doc['nr_runs']} and {len(doc['runs'])} runs, expected {runs}"]
    if doc["exit_status"] != 0:
        errors.append(f"exit_status {doc['exit_status']}")
    for spec, value in expect.items():
        if multiplexed:
            check_multiplexed("events", doc["events"], spec, int(value), insn_ns, errors, notes)
            continue
        for i, run in enumerate(doc["runs"]):
            check_event(f"runs[{i}]", run["events"], spec, int(value), errors, False)
        check_event("events", doc["events"], spec, int(value), errors, True)
    return errors


def main():
    log, schema_path = sys.argv[1], sys.argv[2]
    schema = json.load(open(schema_path))
    lines = [line for line in open(log, errors="replace").read().split("\n") if not KERNEL_LINE.match(line)]
    failed = 0
    i = 0
    while i < len(lines):
        words = lines[i].split()
        i += 1
        if not words or words[0] != "tally-arm64-json-begin":
            continue
        case, expect = words[1], dict(word.split("=", 1) for word in words[2:])
        body = []
        while i < len(lines) and lines[i] != f"tally-arm64-json-end {case}":
            body.append(lines[i])
            i += 1
        errors = ["no end marker: the document was cut"] if i == len(lines) else []
        notes = []
        errors = errors or check_document(schema, "\n".join(body), expect, notes)
        print(f"{'FAIL' if errors else 'ok  '} {case}.json")
        for line in errors + notes:
            print(f"  {line}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
