#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The arm64 tables against perf 6.1's own output, without an arm64 perf (test_pmu_events_arm64.sh runs
this): perf 6.1's jevents.py compiles perf 6.1's arm64 tree into the C tables an arm64 perf 6.1 carries;
a small driver compiled with them prints every core table's events (name, terms, brief and long
descriptions as perf's alias takes them). For every arm64 model of that mapfile, tally reading the same
tree (TALLY_PMU_EVENTS) on the arm64 fixture (TALLY_CPUID = the model's MIDR) must list each event with
perf's terms and descriptions, and encode it (tests/encode_spec) to the config its event= term gives
through the fixture's format (config:0-15). With the built-in tables (6.12's JSON) the differences are
counted, never failed on. Then every event of every built-in arm64 model is encoded and checked against
6.12's JSON read here on its own: EventCode, or that of the ArchStdEvent it names, found in the arch's
common files (the architected and recommended events, arm64/*.json).
Usage: pmu_events_arm64.py TALLY ENCODE_SPEC PERF61_ARCH_DIR PERF612_ARCH_DIR SOURCE_DIR WORK_DIR CC
"""
import csv
import json
import os
import re
import subprocess
import sys

tally, encode, perf61, perf612, src, work, cc = sys.argv[1:8]
root = os.path.join(src, 'tests/fixtures/sysfs/arm64')
BATCH = 400

DRIVER = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu-events.c"
char *perf_pmu__getcpuid(struct perf_pmu *pmu) { (void)pmu; return NULL; }
int strcmp_cpuid_str(const char *a, const char *b) { return strcmp(a, b); }
static void field(const char *s) { for (; s && *s; s++) putchar(*s == '\t' || *s == '\n' ? ' ' : *s); putchar('\t'); }
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
int main(void)
{
	for (const struct pmu_events_map *m = pmu_events_map; m->arch; m++)
		pmu_events_table_for_each_event(&m->table, one, (void *)m->cpuid);
	return 0;
}
'''


def perf61_tables():
    """{MIDR: {name: (pmu, terms, desc, long_desc)}} as perf 6.1's jevents compiles them."""
    gen = os.path.join(work, 'jevents')
    os.makedirs(os.path.join(gen, 'util'), exist_ok=True)
    # The two perf headers the generated file includes, reduced to what it uses of them.
    stubs = {'header.h': '#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))\n',
             'pmu.h': 'struct perf_pmu;\nchar *perf_pmu__getcpuid(struct perf_pmu *pmu);\n'
                      'int strcmp_cpuid_str(const char *a, const char *b);\n'}
    for stub, text in stubs.items():
        with open(os.path.join(gen, 'util', stub), 'w') as f:
            f.write(text)
    jevents = os.path.join(perf61, '..', 'jevents.py')
    subprocess.run([sys.executable, jevents, 'arm64', perf61, os.path.join(gen, 'pmu-events.c')], check=True)
    with open(os.path.join(gen, 'driver.c'), 'w') as f:
        f.write(DRIVER)
    perf_dir = os.path.normpath(os.path.join(perf61, '..', '..'))
    exe = os.path.join(gen, 'driver')
    subprocess.run([cc, '-w', '-I', gen, '-I', perf_dir, '-I', os.path.join(perf_dir, 'pmu-events'), '-o', exe,
                    os.path.join(gen, 'driver.c')], check=True)
    tables = {}
    for line in subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines():
        cpuid, name, pmu, event, desc, long_desc, _ = line.split('\t')[:7]
        tables.setdefault(cpuid, {})[name] = (pmu, event, desc, long_desc)
    return tables


def terms_without_period(event):
    return ','.join(t for t in event.split(',') if not t.startswith('period='))


def tally_listing(cpuid, tables):
    env = dict(os.environ, TALLY_CPUID=cpuid, TALLY_SYSFS_ROOT=root)
    env.pop('TALLY_PMU_EVENTS', None)
    if tables:
        env['TALLY_PMU_EVENTS'] = tables
    p = subprocess.run([tally, 'list', '--json', '--deprecated'], env=env, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit('tally list failed for %s: %s' % (cpuid, p.stderr))
    return {e['name']: e for e in json.loads(p.stdout)['events'] if e['kind'] == 'vendor'}


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


def compare_perf61(perf, core_type):
    failed = events = compared = builtin_same = builtin_compared = 0
    for cpuid in sorted(perf):
        if not cpuid.startswith('0x'):
            continue  # jevents' own test table
        core = {n: v for n, v in perf[cpuid].items() if not v[0]}
        ours = tally_listing(cpuid, perf61)
        configs = tally_configs(cpuid, sorted(core), perf61)
        bad = []
        for name, (_, event, desc, long_desc) in sorted(core.items()):
            e = ours.get(name)
            want = terms_without_period(event)
            config = event_config(want)
            if e is None:
                bad.append('%s: not listed' % name)
            elif e['terms'] != want:
                bad.append('%s: terms %s, perf 6.1 %s' % (name, e['terms'], want))
            elif e['desc'] != desc.rstrip() or e['long_desc'] != long_desc.rstrip():
                bad.append('%s: descriptions\n      perf  [%s] [%s]\n      tally [%s] [%s]' %
                           (name, desc, long_desc, e['desc'], e['long_desc']))
            elif config is None or configs.get(name) != (core_type, config):
                bad.append('%s: encoded %s, its terms %s' % (name, configs.get(name), want))
        builtin = tally_listing(cpuid, None)
        same = sum(1 for n, (_, ev, d, ld) in core.items() if n in builtin and
                   builtin[n]['terms'] == terms_without_period(ev) and builtin[n]['desc'] == d.rstrip() and
                   builtin[n]['long_desc'] == ld.rstrip())
        events += len(perf[cpuid])
        compared += len(core)
        builtin_compared += len(core)
        builtin_same += same
        print('%s %5d events (%d of other PMUs, not on the fixture): perf 6.1 tree %d differ; built-in tables %d '
              'differ' % (cpuid, len(perf[cpuid]), len(perf[cpuid]) - len(core), len(bad), len(core) - same))
        for b in bad[:4]:
            print('  FAIL ' + b)
        failed += len(bad)
    print('perf 6.1 jevents: %d arm64 models, %d core events compared (terms, config, brief and long '
          'descriptions): %d equal with perf 6.1\'s tree; %d of %d with the built-in tables' %
          (sum(1 for c in perf if c.startswith('0x')), compared, compared - failed, builtin_same, builtin_compared))
    return failed


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
    failed = compare_perf61(perf61_tables(), core_type)
    failed += check_builtin(core_type)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
