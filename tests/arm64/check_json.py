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


def check_document(schema, text, expect):
    try:
        doc = json.loads(text)
    except ValueError as err:
        return [f"not one JSON document: {err}"]
    errors = []
    validate(schema, schema, doc, "$", errors)
    if errors:
        return errors
    runs = int(expect.pop("runs"))
    if doc["nr_runs"] != runs or len(doc["runs"]) != runs:
        return [f"nr_runs {doc['nr_runs']} and {len(doc['runs'])} runs, expected {runs}"]
    if doc["exit_status"] != 0:
        errors.append(f"exit_status {doc['exit_status']}")
    for spec, value in expect.items():
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
        errors = errors or check_document(schema, "\n".join(body), expect)
        print(f"{'FAIL' if errors else 'ok  '} {case}.json")
        for err in errors:
            print(f"  {err}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
