#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tally list's descriptions of the vendor tables' events against perf 6.1's `perf list` (its test
test_pmu_events_descriptions.sh runs this inside `unshare -m`).

For every x86 model of perf 6.1's mapfile (tests/pmu_events_models.py: a CPU id that selects it, a
fixture sysfs tree of its kind bound over /sys/bus/event_source/devices for perf): each event `perf list
--deprecated --details` lists from its table, its description (`perf list`) and long description (`perf
list --long-desc`) against `tally list --json --deprecated`'s desc and long_desc, words compared (perf
wraps its text and collapses blanks). Twice:
  - with TALLY_PMU_EVENTS at perf 6.1's own tree (the same JSON perf 6.1 was built from): no exception;
  - with the built-in tables (6.12's JSON): the differences counted per model (upstream's texts moved
    since 6.1), never failed on.
Usage: pmu_events_descriptions.py TALLY PERF61_ARCH_DIR SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

from pmu_events_models import Mount, core_rows, family, models, tally_listing

tally, perf61, src, work = sys.argv[1:5]
fixtures = os.path.join(src, 'tests/fixtures/sysfs')


def words(text):
    return ' '.join(text.split()) if text is not None else None


def perf_listing(cpuid, long_desc):
    """{(name, PMU family): description} of the table events perf lists (those shown with a PMU/terms/
    line and a description); the text between '[' and the last ']' of each entry, words joined."""
    args = ['perf', 'list', '--deprecated', '--details'] + (['--long-desc'] if long_desc else [])
    env = dict(os.environ, PERF_CPUID=cpuid, COLUMNS='1000000')
    out = subprocess.run(args, env=env, capture_output=True, text=True, errors='replace').stdout
    listing, entry = {}, None
    for line in out.splitlines():
        if entry is None or entry[1] is None:
            m = re.match(r'^  (\S+)\s*$', line)
            if m:
                entry = [m.group(1), None]
            elif entry and line.startswith('       ['):
                entry[1] = line[8:]
            continue
        if not entry[1].endswith(']'):
            entry[1] += '\n' + line
            continue
        m = re.match(r'^        ([^/ ]+)/', line)
        if m:
            listing[(entry[0], family(m.group(1)))] = words(entry[1][:-1])
        entry = None
    return listing


def described(listing):
    """tally's listing as {(name, PMU family): (description, long description)}, in perf's words."""
    return {k: (words(e['desc']), words(e['long_desc'])) for k, e in listing.items()}


def compare(perf, ours):
    """(events compared, descriptions that differ, the first few differences)."""
    differ, shown = 0, []
    for key, (desc, long_desc) in perf.items():
        mine = ours.get(key, (None, None))
        for kind, want, got in (('desc', desc, mine[0]), ('long_desc', long_desc, mine[1])):
            if want != got:
                differ += 1
                if len(shown) < 4:
                    shown.append('%s/%s %s:\n      perf  [%s]\n      tally [%s]' % (key[1], key[0], kind, want, got))
    return len(perf), differ, shown


def main():
    ours = os.path.join(work, 'perf61')
    subprocess.run([sys.executable, os.path.join(src, 'tools/pmu_events/generate.py'), perf61, ours,
                    '--source', 'perf 6.1'], check=True, stdout=subprocess.DEVNULL)
    rows = core_rows(perf61)
    mount = Mount(fixtures)
    failed = 0
    totals = {'events': 0, 'descriptions': 0, 'same': 0, 'builtin_same': 0, 'builtin_compared': 0}
    each = list(models(rows, ours))
    for model, cpuid, fixture in each:
        if not cpuid:
            print('FAIL %s: no CPU id selects it' % model)
            failed += 1
            continue
        mount.show(fixture)
        short, long = perf_listing(cpuid, False), perf_listing(cpuid, True)
        perf = {k: (short[k], long.get(k)) for k in short}
        root = os.path.join(fixtures, fixture)
        n, differ, shown = compare(perf, described(tally_listing(tally, cpuid, root, perf61)))
        _, builtin_differ, _ = compare(perf, described(tally_listing(tally, cpuid, root, None)))
        totals['events'] += n
        totals['descriptions'] += 2 * n
        totals['same'] += 2 * n - differ
        totals['builtin_compared'] += 2 * n
        totals['builtin_same'] += 2 * n - builtin_differ
        print('%-16s %-22s %-12s %4d events: perf 6.1 tree %d descriptions differ; built-in tables %d' %
              (model, cpuid, fixture, n, differ, builtin_differ))
        for s in shown:
            print('  FAIL ' + s)
        if not n:
            print('  FAIL perf lists no table event for %s: the fixture mount did not take' % model)
            failed += 1
        failed += differ
    mount.release()
    print('%d models, %d events, %d descriptions (brief and long) compared: %d equal to perf 6.1 with its own '
          'tree, %d of %d with the built-in tables' % (len(each), totals['events'], totals['descriptions'],
                                                        totals['same'], totals['builtin_same'],
                                                        totals['builtin_compared']))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
