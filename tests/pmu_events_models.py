# SPDX-License-Identifier: MIT
"""The x86 models of a perf pmu-events tree as the perf 6.1 comparisons take them (imported by
pmu_events_agreement.py, pmu_events_descriptions.py and pmu_events_jevents.py; not a test itself): the
mapfile's core rows, a CPU id that selects each model as perf's strcmp_cpuid_str matches, the fixture
sysfs tree of its kind, the bind mount that shows perf a fixture's PMUs (the caller runs inside
`unshare -m`), and tally's own listing of a model's table events."""
import csv
import json
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


def models(rows, converted):
    """Each model of rows once, in mapfile order: (model, its CPU id or None when no id selects it, the
    fixture of its kind or None), converted being the tree generate.py made of those rows' tables."""
    seen = set()
    for index, row in enumerate(rows):
        model = row[2].replace('/', '-')
        if model in seen:
            continue
        seen.add(model)
        cpuid = cpuid_for(rows, index)
        fixture = fixture_for(cpuid.split('-')[0], os.path.join(converted, 'x86', model + '.events')) if cpuid else None
        yield model, cpuid, fixture


def family(pmu):
    """uncore_imc_0 -> uncore_imc: perf and tally list a family's events once, under its first instance."""
    return re.sub(r'_[0-9]+$', '', pmu)


def tally_listing(tally, cpuid, root, tables):
    """{(name, PMU family): tally list --json's entry} of the vendor table events on the sysfs tree root,
    from the tables folder (TALLY_PMU_EVENTS; None: the built-in tables)."""
    env = dict(os.environ, TALLY_CPUID=cpuid, TALLY_SYSFS_ROOT=root)
    env.pop('TALLY_PMU_EVENTS', None)
    if tables:
        env['TALLY_PMU_EVENTS'] = tables
    p = subprocess.run([tally, 'list', '--json', '--deprecated'], env=env, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit('tally list failed for %s: %s' % (cpuid, p.stderr))
    return {(e['name'], family(e['pmu'])): e for e in json.loads(p.stdout)['events'] if e['kind'] == 'vendor'}


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
