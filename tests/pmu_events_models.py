# SPDX-License-Identifier: MIT
"""The x86 models of a perf pmu-events tree as the perf 6.1 comparisons take them (imported by
pmu_events_agreement.py and pmu_events_descriptions.py; not a test itself): the mapfile's core rows, a CPU
id that selects each model as perf's strcmp_cpuid_str matches, the fixture sysfs tree of its kind, and
the bind mount that shows perf a fixture's PMUs (the caller runs inside `unshare -m`)."""
import csv
import os
import re
import subprocess

DEVICES = '/sys/bus/event_source/devices'


def core_rows(arch_dir):
    """The mapfile's rows of core tables: [cpuid regex, version, model folder, type]."""
    with open(os.path.join(arch_dir, 'x86/mapfile.csv'), encoding='utf-8') as f:
        return [r for r in csv.reader(f) if r and not r[0].startswith(('#', 'Family-model')) and r[3] == 'core']


def matches(row, cpuid):
    full_row = row.count('-') == 3
    want = cpuid if full_row else cpuid[:cpuid.rfind('-')]
    m = re.match(row.replace('[[:xdigit:]]', '[0-9A-Fa-f]'), cpuid)
    return m is not None and len(m.group(0)) == len(want)


def cpuid_for(rows, index):
    """A CPU id whose first matching row is rows[index], as perf's strcmp_cpuid_str matches."""
    regex = rows[index][0]
    vendor, family = regex.split('-')[0:2]
    for model in range(256):
        for step in range(16):
            cpuid = '%s-%s-%X-%X' % (vendor, family, model, step)
            first = next((i for i, r in enumerate(rows) if matches(r[0], cpuid)), None)
            if first == index:
                return cpuid
    return None


def fixture_for(vendor, events_file):
    """The fixture tree of a model's kind (a converted table's .events file tells a hybrid one)."""
    with open(events_file, encoding='utf-8') as f:
        hybrid = any('\tcpu_core\t' in line for line in f)
    if hybrid:
        return 'hybrid'
    return 'amd' if vendor == 'AuthenticAMD' else 'intel-server'


class Mount:
    """The fixture bound over DEVICES, rebound only when the fixture changes."""

    def __init__(self, fixtures):
        self.fixtures, self.bound = fixtures, None

    def show(self, fixture):
        if self.bound == fixture:
            return
        self.release()
        subprocess.run(['mount', '--bind', os.path.join(self.fixtures, fixture, 'bus/event_source/devices'), DEVICES],
                       check=True)
        self.bound = fixture

    def release(self):
        if self.bound:
            subprocess.run(['umount', DEVICES], check=True)
            self.bound = None
