#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The vendor tables against perf 6.1's own compiled tables, x86 and arm64, with no perf at hand for
arm64 (x86's perf carries only x86 tables) and no root (test_pmu_events_jevents.sh runs this): perf 6.1's
jevents.py compiles perf 6.1's tree into the C tables a perf 6.1 of that arch carries; a small driver
compiled with them prints every table's events (name, PMU, terms, brief and long descriptions as perf's
alias takes them).
  - arm64: for every model of that mapfile, tally reading the same tree (TALLY_PMU_EVENTS) on the arm64
    fixture (TALLY_CPUID = the model's MIDR) must list each core event with perf's terms and
    descriptions, and encode it (tests/encode_spec) to the config its event= term gives through the
    fixture's format (config:0-15);
  - x86: for every model, on the fixture of its kind (tests/pmu_events_models.py), each event of a PMU
    the fixture has must be listed with perf's terms and descriptions (encodings: the agreement test);
  - with the built-in tables (6.12's JSON) the differences are counted, never failed on.
Then every event of every built-in arm64 model is encoded and checked against 6.12's JSON read here on
its own: EventCode, or that of the ArchStdEvent it names, found in the arch's common files (the
architected and recommended events, arm64/*.json).
Usage: pmu_events_jevents.py TALLY ENCODE_SPEC PERF61_ARCH_DIR PERF612_ARCH_DIR SOURCE_DIR WORK_DIR CC
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

from pmu_events_models import core_rows, cpuid_for, family, tally_listing

tally, encode, perf61, perf612, src, work, cc = sys.argv[1:8]
fixtures = os.path.join(src, 'tests/fixtures/sysfs')
root = os.path.join(fixtures, 'arm64')
BATCH = 400
# The terms of jevents' field list (JsonEvent's event_fields), which 6.12 leaves out when zero.
FIELDS = ('any', 'ch_mask', 'cmask', 'edge', 'fc_mask', 'inv', 'umask')

DRIVER = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu-events.c"
char *perf_pmu__getcpuid(struct perf_pmu *pmu) { (void)pmu; return NULL; }
int strcmp_cpuid_str(const char *a, const char *b) { return strcmp(a, b); }
/* A field with its backslashes, tabs and newlines escaped; the record ends with a newline. */
static void field(const char *s)
{
	for (; s && *s; s++)
		fputs(*s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : (char[]){ *s, 0 }, stdout);
	putchar('\t');
}
static int one(const struct pmu_event *pe, const struct pmu_events_table *t, void *cpuid)
{
	(void)t;
	if (!pe->name)
		return 0;  /* a metric: 6.1's tables hold them among the events */
	field(cpuid); field(pe->name); field(pe->pmu); field(pe->event); field(pe->desc);
	/* perf's __perf_pmu__new_alias: no long description is the brief one. */
	field(pe->long_desc ? pe->long_desc : pe->desc); field(pe->deprecated); putchar('\n');
	return 0;
}
static int sys_one(const struct pmu_event *pe, const struct pmu_events_table *t, void *data)
{
	char key[256];
	(void)data;
	if (!pe->name || !pe->compat)
		return 0;
	snprintf(key, sizeof(key), "sys:%s", pe->compat);
	return one(pe, t, key);
}
int main(void)
{
	for (const struct pmu_events_map *m = pmu_events_map; m->arch; m++)
		pmu_events_table_for_each_event(&m->table, one, (void *)m->cpuid);
	/* The system PMUs' tables, each event under its Compat; not jevents' own test table. */
	for (const struct pmu_sys_events *s = pmu_sys_event_tables; s->name; s++)
		if (!strstr(s->name, "test_soc"))
			pmu_events_table_for_each_event(&s->table, sys_one, NULL);
	return 0;
}
'''


def perf61_tables(arch):
    """{mapfile cpuid: {(name, pmu): (terms, desc, long_desc)}} as perf 6.1's jevents compiles them (the
    first of a name and PMU, as perf's alias list keeps it)."""
    gen = os.path.join(work, 'jevents-' + arch)
    os.makedirs(os.path.join(gen, 'util'), exist_ok=True)
    # The two perf headers the generated file includes, reduced to what it uses of them.
    stubs = {'header.h': '#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))\n',
             'pmu.h': 'struct perf_pmu;\nchar *perf_pmu__getcpuid(struct perf_pmu *pmu);\n'
                      'int strcmp_cpuid_str(const char *a, const char *b);\n'}
    for stub, text in stubs.items():
        with open(os.path.join(gen, 'util', stub), 'w') as f:
            f.write(text)
    jevents = os.path.join(perf61, '..', 'jevents.py')
    subprocess.run([sys.executable, jevents, arch, perf61, os.path.join(gen, 'pmu-events.c')], check=True)
    with open(os.path.join(gen, 'driver.c'), 'w') as f:
        f.write(DRIVER)
    perf_dir = os.path.normpath(os.path.join(perf61, '..', '..'))
    exe = os.path.join(gen, 'driver')
    subprocess.run([cc, '-w', '-I', gen, '-I', perf_dir, '-I', os.path.join(perf_dir, 'pmu-events'), '-o', exe,
                    os.path.join(gen, 'driver.c')], check=True)
    tables = {}
    unescape = {'\\\\': '\\', '\\t': '\t', '\\n': '\n'}
    # Bytes, not text: universal newlines would split a record at a description's carriage return.
    out = subprocess.run([exe], check=True, capture_output=True).stdout.decode('utf-8', 'replace')
    for line in out.split('\n')[:-1]:
        fields = [re.sub(r'\\[\\tn]', lambda m: unescape[m.group(0)], f) for f in line.split('\t')]
        cpuid, name, pmu, event, desc, long_desc, _ = fields[:7]
        tables.setdefault(cpuid, {}).setdefault((name, pmu), (event, desc, long_desc))
    return tables


def is_zero(value):
    try:
        return int(value, 0) == 0
    except ValueError:
        return False


def perf_terms(event):
    """perf 6.1's terms as tally writes them: without period= (a sampling setting), and without a field
    of value 0 ("umask=0x00"), which perf 6.1 keeps when it is not written "0" and 6.12's jevents
    (is_zero), whose field list generate.py follows, leaves out: the same encoding either way."""
    terms = [t.split('=', 1) for t in event.split(',')]
    return ','.join('='.join(t) for i, t in enumerate(terms) if t[0] != 'period' and
                    not (i and t[0] in FIELDS and is_zero(t[-1])))


def perf_text(text):
    """A description of perf's as tally stores it: its carriage returns dropped (generate.py: one on a
    terminal moves the cursor), the blank after a Unit too."""
    return text.replace('\r', '').rstrip()


def tally_configs(cpuid, names, tables):
    """{name: (type, config)} as tally encodes them on the fixture."""
    env = dict(os.environ, TALLY_CPUID=cpuid)
    env.pop('TALLY_PMU_EVENTS', None)
    if tables:
        env['TALLY_PMU_EVENTS'] = tables
    out = {}
    for i in range(0, len(names), BATCH):
        p = subprocess.run([encode, '-s', root, ','.join(names[i:i + BATCH])], env=env, capture_output=True, text=True)
        if p.returncode:
            raise SystemExit('encode_spec failed for %s: %s' % (cpuid, p.stdout + p.stderr))
        for line in p.stdout.splitlines():
            cols = line.split('\t')
            f = dict(kv.split('=', 1) for kv in cols[0].split(','))
            out[cols[2]] = (int(f.get('type', '0'), 0), int(f.get('config', '0'), 0))
    return out


def pmu_type():
    with open(os.path.join(root, 'bus/event_source/devices/armv8_pmuv3/type')) as f:
        return int(f.read())


def event_config(terms):
    """config from terms of event= alone (the fixture's format: event is config:0-15), else None."""
    m = re.fullmatch(r'event=(0x[0-9a-fA-F]+|[0-9]+)', terms)
    return int(m.group(1), 0) if m else None


def same(e, perf_event):
    event, desc, long_desc = perf_event
    return e['terms'] == perf_terms(event) and e['desc'] == perf_text(desc) and \
        e['long_desc'] == perf_text(long_desc)


def compare_model(label, cpuid, fixture, events, core_pmu, core_type=None, tally_cpuid=None):
    """One model's events perf 6.1 compiles, against tally with perf 6.1's tree and with the built-in
    tables: (events compared, failures, equal with the built-in tables). Compared: the events of the
    PMUs the fixture has (core_pmu for those of no Unit); with core_type (arm64) each core event's
    config too."""
    tally_cpuid = tally_cpuid or cpuid
    ours = tally_listing(tally, tally_cpuid, fixture, perf61)
    here = {k[1] for k in ours} | {core_pmu}
    keyed = {(name, pmu or core_pmu): v for (name, pmu), v in events.items()}
    compared = {k: v for k, v in keyed.items() if k[1] in here}
    configs = tally_configs(cpuid, sorted(n for n, p in compared if p == core_pmu), perf61) if core_type else {}
    bad = []
    for key, perf_event in sorted(compared.items()):
        e, want = ours.get(key), perf_terms(perf_event[0])
        if e is None:
            bad.append('%s/%s: not listed' % (key[1], key[0]))
        elif not same(e, perf_event):
            bad.append('%s/%s:\n      perf  %s [%s] [%s]\n      tally %s [%s] [%s]' %
                       (key[1], key[0], want, perf_event[1], perf_event[2], e['terms'], e['desc'], e['long_desc']))
        elif core_type is not None and key[1] == core_pmu and (
                event_config(want) is None or configs.get(key[0]) != (core_type, event_config(want))):
            bad.append('%s: encoded %s, its terms %s' % (key[0], configs.get(key[0]), want))
    builtin = tally_listing(tally, tally_cpuid, fixture, None)
    equal = sum(1 for k, v in compared.items() if k in builtin and same(builtin[k], v))
    print('%-16s %-22s %5d events, %5d on the fixture\'s PMUs: perf 6.1 tree %d differ; built-in tables %d differ' %
          (label, cpuid, len(events), len(compared), len(bad), len(compared) - equal))
    for b in bad[:4]:
        print('  FAIL ' + b)
    return len(compared), len(bad), equal


def unit_family(unit):
    """The family name of the fixture PMU made for a Unit: "hisi_sccl,ddrc" -> hisi_sccl0_ddrc (its
    instance hisi_sccl0_ddrc_0, which perf's rule gives the Unit's events), "imx8_ddr" -> imx8_ddr."""
    return unit.replace(',', '0_')


def unit_fixture(name, units, identifier=None):
    """The arm64 fixture with an instance PMU of each Unit (format event=config:0-7), whose sysfs
    identifier is identifier when given."""
    top = os.path.join(work, name)
    shutil.copytree(root, top, symlinks=True)
    for i, unit in enumerate(sorted(units)):
        d = os.path.join(top, 'bus/event_source/devices', unit_family(unit) + '_0')
        os.makedirs(os.path.join(d, 'format'))
        files = {'type': str(100 + i), 'cpumask': '0', 'format/event': 'config:0-7'}
        if identifier:
            files['identifier'] = identifier
        for file, text in files.items():
            with open(os.path.join(d, file), 'w') as f:
                f.write(text + '\n')
    return top


def with_unit_pmus(events):
    """events keyed by the fixture PMU families of their Units."""
    return {(name, unit_family(pmu) if pmu else pmu): v for (name, pmu), v in events.items()}


def compare_arm64(perf, core_type):
    totals = [0, 0, 0]
    models = [c for c in sorted(perf) if c.startswith('0x')]  # not jevents' own test table
    for cpuid in models:
        # A model with uncore Units (hip08's hisi_sccl,ddrc ...) is compared on a fixture that has them.
        units = {pmu for _, pmu in perf[cpuid] if pmu}
        fixture = unit_fixture('fx-' + cpuid, units) if units else root
        for i, v in enumerate(compare_model('arm64', cpuid, fixture, with_unit_pmus(perf[cpuid]), 'armv8_pmuv3',
                                            core_type)):
            totals[i] += v
    print('perf 6.1 jevents, arm64: %d models, %d events compared (terms, config, brief and long descriptions): '
          '%d equal with perf 6.1\'s tree; %d with the built-in tables' %
          (len(models), totals[0], totals[0] - totals[1], totals[2]))
    return totals[1]


def compare_sys(perf):
    """Each system table perf 6.1 compiles (an SoC's sys/ folder), on a fixture whose PMUs of its Units
    have its Compat as their identifier: tally must list every event, as perf does (TALLY_CPUID any core:
    the table is the PMU's, not the CPU's)."""
    totals, keys = [0, 0, 0], sorted(k for k in perf if k.startswith('sys:'))
    for key in keys:
        compat, events = key[4:], perf[key]
        fixture = unit_fixture('fx-' + re.sub(r'[^A-Za-z0-9]', '_', key), {pmu for _, pmu in events}, compat)
        for i, v in enumerate(compare_model('arm64 sys', compat, fixture, with_unit_pmus(events), 'armv8_pmuv3',
                                            tally_cpuid='0x00000000410fd0c0')):
            totals[i] += v
    print('perf 6.1 jevents, arm64 system PMUs: %d tables, %d events compared (terms, brief and long '
          'descriptions): %d equal with perf 6.1\'s tree; %d with the built-in tables' %
          (len(keys), totals[0], totals[0] - totals[1], totals[2]))
    return totals[1] + (len(keys) == 0)


def compare_x86(perf):
    totals, seen = [0, 0, 0], set()
    rows = core_rows(perf61)
    for index, row in enumerate(rows):
        if row[2] in seen:
            continue
        seen.add(row[2])
        cpuid, events = cpuid_for(rows, index), perf[row[0]]
        kind = 'hybrid' if any(p == 'cpu_core' for _, p in events) else \
            'amd' if cpuid.startswith('AuthenticAMD') else 'intel-server'
        for i, v in enumerate(compare_model(row[2], cpuid, os.path.join(fixtures, kind), events, 'cpu')):
            totals[i] += v
    print('perf 6.1 jevents, x86: %d models, %d events of the fixtures\' PMUs compared (terms, brief and long '
          'descriptions): %d equal with perf 6.1\'s tree; %d with the built-in tables' %
          (len(seen), totals[0], totals[0] - totals[1], totals[2]))
    return totals[1]


def load(path):
    with open(path, encoding='utf-8') as f:
        data = json.load(f)
    return data if isinstance(data, list) else []


def builtin_models():
    """The built-in arm64 rows: (MIDR, model folder) of 6.12's mapfile, one per folder."""
    with open(os.path.join(perf612, 'arm64/mapfile.csv'), encoding='utf-8') as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith(('#', 'Family-model')) and r[3].strip() == 'core']
    seen, out = set(), []
    for r in rows:
        if r[2] not in seen:
            seen.add(r[2])
            out.append((r[0].strip(), r[2].strip()))
    return out


def check_builtin(core_type):
    """Every core event of every built-in arm64 model encoded as 6.12's JSON says, ArchStdEvent resolved
    from the common files here, independently of generate.py."""
    common, top = {}, os.path.join(perf612, 'arm64')
    for item in sorted(os.listdir(top)):
        if item.endswith('.json'):
            for jd in load(os.path.join(top, item)):
                # A metric may be referenced too (sbsa.json's topdown): it is no event.
                name = jd.get('EventName') or jd.get('MetricName')
                if name:
                    common[name.lower()] = jd
    failed = total = refs = 0
    for cpuid, folder in builtin_models():
        want = {}
        for dirpath, _, files in os.walk(os.path.join(perf612, 'arm64', folder)):
            for item in sorted(files):
                if not item.endswith('.json') or item == 'metricgroups.json':
                    continue
                for jd in load(os.path.join(dirpath, item)):
                    ref = jd.get('ArchStdEvent')
                    base = common.get(ref.lower()) if ref else jd
                    if base is None:
                        print('  FAIL %s: ArchStdEvent %s is in no common file' % (folder, ref))
                        failed += 1
                        continue
                    # A reference names the event through the common file (it carries no EventName).
                    name = jd.get('EventName') or base.get('EventName')
                    if not name or jd.get('Unit') or base.get('Unit') or 'EventCode' not in base:
                        continue
                    refs += ref is not None
                    want.setdefault(name.lower(), int(base['EventCode'], 0))
        got = tally_configs(cpuid, sorted(want), None)
        bad = [n for n in sorted(want) if got.get(n) != (core_type, want[n])]
        total += len(want)
        print('%-24s %s %4d core events: %d encoded otherwise than the JSON says%s' %
              (folder, cpuid, len(want), len(bad), ''.join(' %s=%s (JSON 0x%x)' % (n, got.get(n), want[n]) for n in bad[:3])))
        failed += len(bad)
    print('built-in tables: %d arm64 models, %d core events (%d through an ArchStdEvent): %d encoded as the 6.12 '
          'JSON says' % (len(builtin_models()), total, refs, total - failed))
    return failed


def main():
    core_type = pmu_type()
    arm64 = perf61_tables('arm64')
    failed = compare_arm64(arm64, core_type)
    failed += compare_sys(arm64)
    failed += compare_x86(perf61_tables('x86'))
    failed += check_builtin(core_type)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
