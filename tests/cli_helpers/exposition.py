# SPDX-License-Identifier: MIT
"""Reads a Prometheus text exposition (0.0.4) with the independent parser of python3-prometheus-client
and checks what tally exporter promises: a HELP and a TYPE line before every family's samples, counters
named *_total, unique label sets. Prints one line per sample, "name{k=v,...} value" with the labels
sorted, for the shell tests to pick from; exits 1 with the reason when the text is wrong.
Usage: exposition.py FILE"""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    helped, typed = set(), set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split()[2])
        elif line.startswith("# TYPE "):
            typed.add(line.split()[2])
        elif line and not line.startswith("#"):
            name = line.split("{")[0].split()[0]
            family = name
            if name not in typed and name.endswith("_total"):
                family = name[: -len("_total")]
            if name not in typed and family + "_total" not in typed:
                sys.exit("sample %s before its TYPE line" % name)
            if name not in helped:
                sys.exit("sample %s without a HELP line" % name)
    seen = set()
    for family in text_string_to_metric_families(text):
        if not family.documentation:
            sys.exit("family %s has no HELP text" % family.name)
        if family.type not in ("counter", "gauge"):
            sys.exit("family %s has type %s" % (family.name, family.type))
        for s in family.samples:
            if family.type == "counter" and not s.name.endswith("_total"):
                sys.exit("counter sample %s does not end in _total" % s.name)
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in seen:
                sys.exit("sample %s%s twice" % key)
            seen.add(key)
            labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
            print("%s{%s} %r" % (s.name, labels, s.value))


main()
