#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tally's encodings of the vendor tables' events against perf 6.1's (test_pmu_events_agreement.sh runs it
inside `unshare -m`).

For every x86 model of perf 6.1's mapfile: a CPU id that selects it (PERF_CPUID / TALLY_CPUID), a fixture
sysfs tree of its kind (Intel server, AMD, hybrid) bound over /sys/bus/event_source/devices for perf and
given to tally as its sysfs root; the table events `perf list --raw-dump pmu` names there; their attrs as
`perf stat -vv` prints them (type, config, config1, config2) against tally's (tests/encode_spec), in
batches, a differing batch again event by event:
  - with TALLY_PMU_EVENTS at perf 6.1's own tree (its JSON converted by libtally at run time, the rules of
    tools/pmu_events/generate.py, whose conversion of the same tree is used to pick the fixtures): no
    exception;
  - with the built-in tables (6.12's data): the differences, counted and listed per model (upstream
    changed those events since 6.1), never skipped silently.
Usage: pmu_events_agreement.py SOURCE_DIR ENCODE_SPEC PERF61_ARCH_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys
import time

from pmu_events_models import Mount, core_rows, models

BATCH = 1000
# Names tally refuses (the fixtures lack some formats perf's tables use: any, uncore filters) are checked
# against perf one by one; all of them with TALLY_AGREEMENT_ALL=1 (minutes), else a sample per model.
ALL = os.environ.get('TALLY_AGREEMENT_ALL') == '1'
REFUSED_SAMPLE = 2

src, encode, perf61, work = sys.argv[1:5]
fixtures = os.path.join(src, 'tests/fixtures/sysfs')


def perf_attrs(text):
    """`perf stat -vv` output as {event name: sorted attrs (type, config, config1, config2)}: each attr block
    is named by the warning that follows its failed open (the fixture's PMU types are not this kernel's)."""
    out, cur, block = {}, None, None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('perf_event_attr:'):
            cur = {}
        elif cur is not None and line.startswith('-----'):
            block = (cur.get('type', 0), cur.get('config', 0), cur.get('config1', 0), cur.get('config2', 0))
            cur = None
        elif cur is not None:
            m = re.match(r'\s*(type|config|\{ bp_addr, config1 \}|\{ bp_len, config2 \})\s+(\S+)$', line)
            if m:
                key = {'{ bp_addr, config1 }': 'config1', '{ bp_len, config2 }': 'config2'}.get(m.group(1), m.group(1))
                cur[key] = int(m.group(2), 0)
        elif block and line == 'Warning:' and i + 1 < len(lines) and lines[i + 1].endswith(' event is not supported by the kernel.'):
            out.setdefault(lines[i + 1].split(' ')[0], []).append(block)
            block = None
    return {k: sorted(v) for k, v in out.items()}


def tally_attrs(text):
    out = {}
    for line in text.splitlines():
        cols = line.split('\t')
        f = dict(kv.split('=', 1) for kv in cols[0].split(','))
        # A name on several core PMUs (hybrid) shows as cpu_core/NAME/ and cpu_atom/NAME/.
        name = re.sub(r'^[a-z_]+/(.*)/$', r'\1', cols[2])
        out.setdefault(name, []).append(tuple(int(f.get(k, '0'), 0) for k in ('type', 'config', 'config1', 'config2')))
    return {k: sorted(v) for k, v in out.items()}


perf_memo = {}
calls = {'perf': 0, 'tally': 0}


def run_perf(cpuid, names):
    key = (cpuid, tuple(names))
    if key not in perf_memo:
        calls['perf'] += 1
        env = dict(os.environ, PERF_CPUID=cpuid)
        p = subprocess.run(['perf', 'stat', '-vv', '-e', ','.join(names), 'true'], env=env, capture_output=True, errors='replace',
                           text=True)
        text = p.stdout + p.stderr
        perf_memo[key] = perf_attrs(text) if 'perf_event_attr:' in text else None
    return perf_memo[key]


def run_tally(cpuid, root, names, tables):
    calls['tally'] += 1
    env = dict(os.environ, TALLY_CPUID=cpuid)
    env.pop('TALLY_PMU_EVENTS', None)
    if tables:
        env['TALLY_PMU_EVENTS'] = tables
    p = subprocess.run([encode, '-s', root, ','.join(names)], env=env, capture_output=True, text=True, errors='replace')
    return tally_attrs(p.stdout) if p.returncode == 0 else None


def compare_batch(cpuid, root, names, tables):
    """The names whose attrs differ, or that one side refuses. A list perf or tally refuses (perf refuses a
    whole list for one event whose terms the fixture's formats lack) is halved until the refused ones
    stand alone."""
    perf, ours = run_perf(cpuid, names), run_tally(cpuid, root, names, tables)
    if perf is None or ours is None:
        if len(names) == 1:
            return [] if perf is None and ours is None else names
        half = len(names) // 2
        return compare_batch(cpuid, root, names[:half], tables) + compare_batch(cpuid, root, names[half:], tables)
    return [n for n in names if perf.get(n) != ours.get(n)]


def tally_split(cpuid, root, names, tables):
    """names as (those tally encodes, those it refuses), halving refused lists (tally is fast)."""
    if run_tally(cpuid, root, names, tables) is not None:
        return names, []
    if len(names) == 1:
        return [], names
    half = len(names) // 2
    a, b = tally_split(cpuid, root, names[:half], tables), tally_split(cpuid, root, names[half:], tables)
    return a[0] + b[0], a[1] + b[1]


def compare(cpuid, root, names, tables, split_with=None):
    """(names that differ, names compared). Refused names: perf must refuse them too, each alone; without
    TALLY_AGREEMENT_ALL only REFUSED_SAMPLE of them per model, spread over the list. split_with: the
    tables that split the names into those tally encodes and refuses, when not these (a perf tree read
    at run time is converted at each tally run: the split is made with its converted folder, and a batch
    these tables refuse is halved all the same)."""
    accepted, refused = tally_split(cpuid, root, names, split_with or tables)
    differ = []
    for i in range(0, len(accepted), BATCH):
        differ += compare_batch(cpuid, root, accepted[i:i + BATCH], tables)
    if not ALL and len(refused) > REFUSED_SAMPLE:
        refused = refused[::len(refused) // REFUSED_SAMPLE][:REFUSED_SAMPLE]
    differ += [n for n in refused if run_perf(cpuid, [n]) is not None or
               (split_with and run_tally(cpuid, root, [n], tables) is not None)]
    return differ, len(accepted) + len(refused)


# perf's own test table (arch/test/test_soc/sys, compiled into every perf 6.1): system PMU events that a
# PMU takes by its sysfs identifier. The fixture: intel-server with a PMU of each Unit whose identifier is
# the Compat, one of another identifier and one with none, which must take nothing.
SYS_PMUS = (('uncore_sys_ddr_pmu0', 40, 'v8'), ('uncore_sys_ddr_pmu1', 41, 'v7'), ('uncore_sys_ccn_pmu4', 42, '0x01'),
            ('uncore_sys_ccn_pmu', 43, None))


def sys_fixture():
    root = os.path.join(work, 'sys-fixture')
    shutil.copytree(os.path.join(fixtures, 'intel-server'), root, symlinks=True)
    for name, pmu_type, identifier in SYS_PMUS:
        d = os.path.join(root, 'bus/event_source/devices', name)
        os.makedirs(os.path.join(d, 'format'))
        for file, text in (('type', '%d' % pmu_type), ('cpumask', '0'), ('format/event', 'config:0-7')):
            with open(os.path.join(d, file), 'w') as f:
                f.write(text + '\n')
        if identifier:
            with open(os.path.join(d, 'identifier'), 'w') as f:
                f.write(identifier + '\n')
    return root


def sys_tree():
    """perf 6.1's x86 tree with its test sys/ folder inside (x86/test/test_soc/sys), made of links."""
    tree = os.path.join(work, 'sys-tree')
    os.makedirs(os.path.join(tree, 'x86/test/test_soc'))
    for item in os.listdir(os.path.join(perf61, 'x86')):
        os.symlink(os.path.join(perf61, 'x86', item), os.path.join(tree, 'x86', item))
    os.symlink(os.path.join(perf61, 'test/test_soc/sys'), os.path.join(tree, 'x86/test/test_soc/sys'))
    return tree


def compare_sys(cpuid):
    """perf 6.1's test system table against tally with the same data, as a tree and converted. Returns the
    number of failures."""
    root, tree = sys_fixture(), sys_tree()
    converted = os.path.join(work, 'sys-converted')
    subprocess.run([sys.executable, os.path.join(src, 'tools/pmu_events/generate.py'), tree, converted,
                    '--source', 'perf 6.1 with test_soc'], check=True)
    mount = Mount(work)
    mount.show('sys-fixture')
    env = dict(os.environ, PERF_CPUID=cpuid)
    listed = subprocess.run(['perf', 'list', '--raw-dump', 'pmu'], env=env, capture_output=True, text=True, errors='replace').stdout
    mount_names = sorted(set(n for n in listed.split() if n.startswith('sys_')))
    failed = 0
    if mount_names != ['sys_ccn_pmu.read_cycles', 'sys_ddr_pmu.write_cycles']:
        print('FAIL system PMUs: perf 6.1 lists %s, not its test table\'s two events' % mount_names)
        failed += 1
    for tables, split in ((tree, converted), (converted, None)):
        differ, checked = compare(cpuid, root, mount_names, tables, split)
        ours = run_tally(cpuid, root, mount_names, tables) or {}
        print('system PMUs (%s): %d events, %d compared, %d differ; tally opens %s' %
              ('perf tree' if split else 'converted', len(mount_names), checked, len(differ),
               ', '.join('%s on type %s' % (n, '+'.join(str(a[0]) for a in ours[n])) for n in sorted(ours))))
        for name in differ:
            print('  FAIL %s: tally differs from perf 6.1' % name)
        failed += len(differ) + (checked != len(mount_names))
    mount.release()
    return failed


def main():
    ours = os.path.join(work, 'perf61')
    subprocess.run([sys.executable, os.path.join(src, 'tools/pmu_events/generate.py'), perf61, ours,
                    '--source', 'perf 6.1'], check=True)
    rows = core_rows(perf61)
    mount = Mount(fixtures)
    total = total_builtin = failed = 0
    each = list(models(rows, ours))
    for model, cpuid, fixture in each:
        start = time.monotonic()
        if not cpuid:
            print('FAIL %s: no CPU id selects it' % model)
            failed += 1
            continue
        root = os.path.join(fixtures, fixture)
        mount.show(fixture)
        env = dict(os.environ, PERF_CPUID=cpuid)
        listed = subprocess.run(['perf', 'list', '--raw-dump', 'pmu'], env=env, capture_output=True, text=True, errors='replace').stdout
        names = sorted(set(n for n in listed.split() if '/' not in n))
        same, checked = compare(cpuid, root, names, perf61, ours)
        changed, checked_builtin = compare(cpuid, root, names, None)
        total += checked
        total_builtin += checked_builtin - len(changed)
        print('%-16s %-22s %-12s %4d events, %4d compared: perf 6.1 tree %d differ; built-in tables %d differ%s [%.1f s]' %
              (model, cpuid, fixture, len(names), checked, len(same), len(changed),
               (' (changed upstream since 6.1: %s%s)' % (' '.join(changed[:6]), ' ...' if len(changed) > 6 else ''))
               if changed else '', time.monotonic() - start))
        for name in same:
            print('  FAIL %s: tally with perf 6.1\'s tree differs from perf 6.1' % name)
        failed += len(same)
    mount.release()
    print('%d models, %d table events compared%s: %d equal to perf 6.1 with its own tree, %d with the built-in '
          'tables' % (len(each), total, '' if ALL else ' (refused names sampled)', total - failed, total_builtin))
    failed += compare_sys('GenuineIntel-6-55-4')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
