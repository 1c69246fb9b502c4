#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Agreement of tally's vendor metrics with perf's, on identical inputs: both tools run `stat -x, -M NAME
-- true` for every metric perf lists for a CPU model, with the fake PMU preloaded (tests/fake_pmu.c: a
fixed count per event) and a fixture sysfs tree (bind-mounted for perf in a mount namespace,
TALLY_SYSFS_ROOT for tally), perf's tables chosen by PERF_CPUID and tally's by TALLY_CPUID from
TALLY_PMU_EVENTS (perf's own tree converted). A metric perf evaluates must print the same value in tally,
to perf's printed digits (tally's value printed to 3 decimals). Usage: metric_agreement.py TALLY FAKE_PMU
FIXTURE CPUID TABLES [KNOWN...]: the KNOWN metrics may differ (the caller says why). Prints one line per
disagreement and a count line; exit 1 when any other disagrees."""
import os, subprocess, sys

tally, fake, fixture, cpuid, tables = sys.argv[1:6]
known = set(sys.argv[6:])

def perf(*args):
    env = dict(os.environ, PERF_CPUID=cpuid, LD_PRELOAD=fake)
    cmd = ['unshare', '-m', 'sh', '-c',
           'mount --bind "$0/bus/event_source/devices" /sys/bus/event_source/devices && exec perf "$@"',
           fixture] + list(args)
    return subprocess.run(cmd, env=env, capture_output=True, text=True)

def tally_stat(name):
    env = dict(os.environ, TALLY_CPUID=cpuid, TALLY_SYSFS_ROOT=fixture, TALLY_PMU_EVENTS=tables, LD_PRELOAD=fake)
    return subprocess.run([tally, 'stat', '-x,', '-M', name, '--', 'true'], env=env, capture_output=True,
                          text=True)

def perf_value(out, name):
    for line in out.splitlines():
        f = line.split(',')
        if len(f) >= 2 and f[-1].strip() and f[-1].split()[-1].lower() == name.lower() and f[-2].strip():
            return f[-2].strip()
    return None

def tally_value(out, name):
    for line in out.splitlines():
        f = line.split(',')
        if len(f) >= 6 and f[0] == '' and f[2].lower() == name.lower():
            return f[5] or None, line
    return None, None

names = perf('list', '--raw-dump', 'metrics').stdout.split()
agree = differ = skipped = timed = known_differ = 0
TIMES = (',duration_time,', ',user_time,', ',system_time,')
for name in names:
    p = perf_value(perf('stat', '-x,', '-M', name, '--', 'true').stderr, name)
    if p is None or p in ('nan', 'inf', '-nan', '-inf'):
        skipped += 1          # perf does not evaluate it here (an event or PMU the fixture lacks)
        continue
    out = tally_stat(name).stderr
    t, line = tally_value(out, name)
    if any(tool in out for tool in TIMES):
        timed += 1            # over the wall or CPU time of a run: each tool's run has its own
        continue
    digits = len(p.split('.')[1]) if '.' in p else 0
    # perf's digits, within what tally's own printing (3 decimals) rounded away
    if t is not None and t[0] != '<' and abs(float(t) - float(p)) <= 0.5 * 10 ** -digits + 0.5e-3:
        agree += 1
    elif name in known:
        known_differ += 1
        print('known  %s: perf %s, tally %s' % (name, p, line))
    else:
        differ += 1
        print('differ %s: perf %s, tally %s' % (name, p, line))
print('%d agree, %d differ (%d known), %d over a run\'s time (not compared), %d not evaluated by perf here '
      '(of %d)' % (agree, differ + known_differ, known_differ, timed, skipped, len(names)))
sys.exit(differ != 0)
