#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a perf-format pmu-events tree into the data files libtally reads without parsing JSON.

Input: ARCH_DIR/<arch>/mapfile.csv and the model folders of JSON it names (the kernel's
tools/perf/pmu-events/arch, or a vendor's perf export), for the arches x86 and arm64.
Output, per arch under OUT/<arch>/:
  mapfile.csv       the upstream rows, the model folder flattened to one file stem ("arm/cortex-a53" ->
                    "arm-cortex-a53"): cpuid regex (x86) or MIDR (arm64), version, stem, type
  <stem>.events     one line per event, sorted by (lower-cased name, PMU), so that a lookup is a binary
                    search over the mapped file: name TAB pmu TAB terms TAB flags TAB scale-unit TAB
                    counter TAB description-offset
  descriptions      at each offset one line: topic TAB desc TAB long_desc (empty when the same as the brief
                    one), each line once for all the arch's models: Brief- and PublicDescription as perf
                    6.1 lists them (descriptions() below)
  <stem>.metrics    one line per metric, sorted by lower-cased name: MetricName TAB MetricGroup TAB
                    MetricExpr TAB MetricThreshold TAB ScaleUnit TAB MetricConstraint TAB
                    BriefDescription TAB PublicDescription (verbatim)
  sysmap            the tables of system PMUs (a sys/ folder: arm/cmn/sys -> stem "arm-cmn-sys"), one line
                    per (PMU, Compat) pair, sorted: pmu TAB compat TAB stem. A PMU whose name is the pmu or
                    one of its instances, and whose sysfs `identifier` the compat regex matches whole (perf
                    6.12's pmu_uncore_identifier_match), takes that stem's events instead of its CPU's, and
                    its metrics join the CPU's
  <stem>.counters   only for a model with a counter.json (perf 6.12's, Intel's): one line per Unit, sorted
                    by PMU: pmu TAB CountersNumGeneric TAB CountersNumFixed, the PMU named as in .events
                    (empty for the core PMU, the JSON's "core")
Fields escape backslash, tab and newline as \\\\, \\t, \\n. The terms are those perf 6.1's jevents.py builds
(tools/perf/pmu-events/jevents.py: JsonEvent), without period= (a sampling setting; tally counts), with
ArchStdEvent references resolved against the arch's top-level JSON files as jevents does.
Usage: generate.py ARCH_DIR OUT [--source TEXT] [--licence SPDX]
"""
import argparse
import csv
import json
import os
import sys

ARCHES = ('x86', 'arm64')

# jevents.py's unit_to_pmu table (perf 6.12), for the units not named uncore_<unit lower-cased>.
UNIT_PMU = {
    'CBO': 'uncore_cbox', 'QPI LL': 'uncore_qpi', 'SBO': 'uncore_sbox', 'iMPH-U': 'uncore_arb',
    'UPI LL': 'uncore_upi', 'L3PMC': 'amd_l3', 'DFPMC': 'amd_df', 'UMCPMC': 'amd_umc',
    'cpu_core': 'cpu_core', 'cpu_atom': 'cpu_atom', 'arm_cmn': 'arm_cmn', 'ali_drw': 'ali_drw',
    'imx8_ddr': 'imx8_ddr', 'imx9_ddr': 'imx9_ddr',
    'hisi_sicl,cpa': 'hisi_sicl,cpa', 'hisi_sccl,ddrc': 'hisi_sccl,ddrc', 'hisi_sccl,hha': 'hisi_sccl,hha',
    'hisi_sccl,l3c': 'hisi_sccl,l3c',
}
MSR_TERM = {0x3F6: 'ldlat=', 0x1A6: 'offcore_rsp=', 0x1A7: 'offcore_rsp=', 0x3F7: 'frontend='}
# Event names whose encoding jevents fixes whatever the JSON says (the fixed counters' events).
FIXED = {
    'inst_retired.any': 'event=0xc0', 'inst_retired.any_p': 'event=0xc0',
    'cpu_clk_unhalted.ref': 'event=0x0,umask=0x03', 'cpu_clk_unhalted.thread': 'event=0x3c',
    'cpu_clk_unhalted.core': 'event=0x3c', 'cpu_clk_unhalted.thread_any': 'event=0x3c,any=1',
}
FIELDS = (('AnyThread', 'any='), ('PortMask', 'ch_mask='), ('CounterMask', 'cmask='), ('EdgeDetect', 'edge='),
          ('FCMask', 'fc_mask='), ('Invert', 'inv='), ('UMask', 'umask='), ('NodeType', 'type='),
          ('RdWrMask', 'rdwrmask='), ('EnAllCores', 'enallcores='), ('EnAllSlices', 'enallslices='),
          ('SliceId', 'sliceid='), ('ThreadMask', 'threadmask='))


def esc(s):
    return '' if s is None else str(s).replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '')


def is_zero(v):
    try:
        return int(v, 0) == 0
    except ValueError:
        return False


def unit_pmu(unit):
    if not unit:
        return ''
    return UNIT_PMU.get(unit, 'uncore_' + unit.lower())


def llx(x):
    """A number as jevents.py writes it into terms: "0", else %#llx's form ("0x11")."""
    return '0' if x == 0 else hex(x)


def terms_of(jd):
    code = int(jd['EventCode'].split(',', 1)[0], 0) if 'EventCode' in jd else 0
    if 'ExtSel' in jd:
        code |= int(jd['ExtSel']) << 8
    if 'ConfigCode' in jd:
        terms = 'config=' + llx(int(jd['ConfigCode'], 0))
    elif 'EventidCode' in jd:
        terms = 'eventid=' + llx(int(jd['EventidCode'], 0))
    else:
        terms = 'event=' + llx(code)
    for key, term in FIELDS:
        if key in jd and not is_zero(jd[key]):
            terms += ',' + term + jd[key]
    if jd.get('Filter'):
        terms += ',' + jd['Filter']
    if jd.get('MSRIndex'):
        terms += ',' + MSR_TERM[int(jd['MSRIndex'].split(',', 1)[0], 0)] + jd.get('MSRValue', '0')
    name = jd['EventName'].lower()
    return FIXED.get(name, terms)


def load(path):
    with open(path, encoding='utf-8') as f:
        data = json.load(f)
    return data if isinstance(data, list) else []


def arch_std(arch_dir):
    std = {}
    for item in sorted(os.listdir(arch_dir)):
        if item.endswith('.json'):
            for jd in load(os.path.join(arch_dir, item)):
                name = jd.get('EventName') or jd.get('MetricName')
                if name:
                    std[name.lower()] = jd
    return std


def resolve(jd, std):
    ref = jd.get('ArchStdEvent')
    if not ref:
        return jd
    base = std.get(ref.lower())
    if base is None:
        raise SystemExit('unknown ArchStdEvent %s' % ref)
    merged = dict(base)
    merged.update({k: v for k, v in jd.items() if v not in (None, '')})
    # jevents takes the standard event's encoding whatever the model's entry says.
    for key in ('EventCode', 'UMask', 'ConfigCode'):
        if key in base:
            merged[key] = base[key]
    return merged


def fixdesc(text):
    """A description as perf 6.1's jevents.py fixdesc leaves it: one final '.  ', '. ' or '.' cut."""
    if not text:
        return ''
    for suffix in ('.  ', '. ', '.'):
        text = text[:-len(suffix)] if text.endswith(suffix) else text
    return text


def own_descriptions(jd):
    """(desc, long_desc) of one JSON object as perf 6.1's JsonEvent makes them: the brief and public texts
    with what jevents appends (the address and precise notes, the erratum, and to the brief one the PMU
    of a Unit), before any ArchStdEvent fills what is empty."""
    desc, long_desc = fixdesc(jd.get('BriefDescription')), fixdesc(jd.get('PublicDescription'))
    extra = ''
    if 'Data_LA' in jd:
        extra += '  Supports address when precise' + ('.' if 'Errata' in jd else '')
    if 'Errata' in jd:
        extra += '  Spec update: ' + jd['Errata']
    precise = jd.get('PEBS')
    if precise and desc and '(Precise Event)' not in desc:
        extra += ' (Must be precise)' if precise == '2' else ' (Precise event)'
    if desc and extra:
        desc += extra
    if long_desc and extra:
        long_desc += extra
    pmu = unit_pmu(jd.get('Unit'))
    if pmu:
        desc = (desc if not desc or desc.endswith('. ') else desc + '. ') + 'Unit: ' + pmu + ' '
    return desc, long_desc


def descriptions(jd, std):
    """(desc, long_desc) as perf 6.1 lists them: the event's own, else its ArchStdEvent's; the long one
    the brief one when it has none (perf's __perf_pmu__new_alias); the blank jevents leaves after the
    Unit cut (perf list does not show it)."""
    desc, long_desc = own_descriptions(jd)
    base = std.get(jd['ArchStdEvent'].lower()) if jd.get('ArchStdEvent') else None
    if base is not None:
        base_desc, base_long = own_descriptions(base)
        desc, long_desc = desc or base_desc, long_desc or base_long
    blank = ' \t\n\r\f\v'  # C's isspace, as pmu_events_tree.c strips
    return desc.rstrip(blank), (long_desc or desc).rstrip(blank)


def model(folder, std):
    """The JSON files of one folder, not of its subfolders: jevents makes a subfolder (sys/) a table of its own."""
    events, metrics, counters = [], [], []
    for item in sorted(os.listdir(folder)):
        if not item.endswith('.json') or item == 'metricgroups.json' or not os.path.isfile(os.path.join(folder, item)):
            continue
        topic = 'metrics' if item.endswith('metrics.json') else item[:-5].replace('-', ' ')
        for own in load(os.path.join(folder, item)):
            if 'CountersNumGeneric' in own:
                counters.append(own)
                continue
            jd = resolve(own, std)
            if 'MetricName' in jd:
                metrics.append(jd)
            if 'EventName' in jd:
                events.append((topic, jd, descriptions(own, std)))
    return events, metrics, counters


def sys_folders(arch_dir):
    """The folders of system PMUs' tables (arm/cmn/sys, freescale/imx8mm/sys): relative paths, sorted."""
    found = []
    for root, dirs, files in os.walk(arch_dir, followlinks=True):
        dirs.sort()
        if os.path.basename(root) == 'sys' and root != arch_dir:
            found.append(os.path.relpath(root, arch_dir))
    return found


def sys_model(arch_dir, path, std):
    """A sys/ folder's events and metrics of a Unit and a Compat (perf ignores the others there), and
    their (PMU, Compat) pairs: the identification a PMU must have to take them."""
    events, metrics, _ = model(os.path.join(arch_dir, path), std)
    events = [e for e in events if e[1].get('Unit') and e[1].get('Compat')]
    metrics = [m for m in metrics if m.get('Unit') and m.get('Compat')]
    return events, metrics, {(unit_pmu(jd['Unit']), jd['Compat']) for jd in [e[1] for e in events] + metrics}


class Descriptions:
    """An arch's descriptions, each stored once whichever models share it (uncore tables repeat them)."""

    def __init__(self):
        self.lines, self.at, self.size = [], {}, 0

    def offset(self, line):
        if line not in self.at:
            self.at[line] = self.size
            self.lines.append(line)
            self.size += len(line.encode('utf-8'))
        return self.at[line]


def write_counters(out, stem, counters):
    """The PMUs' numbers of counters (counter.json: the tables' own count of what each Unit has)."""
    rows = {}
    for jd in counters:
        unit = jd.get('Unit', '')
        pmu = '' if unit == 'core' else unit_pmu(unit)
        rows.setdefault(pmu, (int(str(jd['CountersNumGeneric']), 0), int(str(jd.get('CountersNumFixed', 0)), 0)))
    if rows:
        with open(os.path.join(out, stem + '.counters'), 'w', encoding='utf-8', newline='\n') as f:
            for pmu in sorted(rows, key=lambda p: p.encode()):
                f.write('%s\t%d\t%d\n' % ((esc(pmu),) + rows[pmu]))


def write_model(out, stem, events, metrics, descs):
    """Writes stem.events and stem.metrics; returns their numbers of lines."""
    rows = []
    for topic, jd, (brief, public) in events:
        desc = '%s\t%s\t%s\n' % (esc(topic), esc(brief), esc(public if public != brief else ''))
        flags = ('D' if jd.get('Deprecated') == '1' else '') + ('P' if jd.get('PerPkg') == '1' else '') + \
                ('X' if jd.get('Experimental') == '1' else '')
        rows.append((jd['EventName'].lower(), unit_pmu(jd.get('Unit')), terms_of(jd), flags,
                     jd.get('ScaleUnit', ''), jd.get('Counter', ''), descs.offset(desc)))
    seen = set()
    with open(os.path.join(out, stem + '.events'), 'w', encoding='utf-8', newline='\n') as f:
        for r in sorted(rows, key=lambda r: (r[0].encode(), r[1].encode())):
            if (r[0], r[1]) in seen:
                continue
            seen.add((r[0], r[1]))
            f.write('\t'.join(esc(x) for x in r[:6]) + '\t%d\n' % r[6])
    keys = ('MetricName', 'MetricGroup', 'MetricExpr', 'MetricThreshold', 'ScaleUnit', 'MetricConstraint',
            'BriefDescription', 'PublicDescription')
    with open(os.path.join(out, stem + '.metrics'), 'w', encoding='utf-8', newline='\n') as f:
        for jd in sorted(metrics, key=lambda m: m['MetricName'].lower().encode()):
            f.write('\t'.join(esc(jd.get(k, '')) for k in keys) + '\n')
    return len(seen), len(metrics)


def generate(src, out, source, licence):
    manifest = []
    for arch in ARCHES:
        arch_dir = os.path.join(src, arch)
        if not os.path.isdir(arch_dir):
            continue
        std = arch_std(arch_dir)
        os.makedirs(os.path.join(out, arch), exist_ok=True)
        rows, done, descs = [], {}, Descriptions()
        with open(os.path.join(arch_dir, 'mapfile.csv'), encoding='utf-8') as f:
            for row in csv.reader(f):
                if not row or row[0].startswith('#') or row[0] == 'Family-model' or len(row) < 4:
                    continue
                cpuid, version, path, kind = (x.strip() for x in row[:4])
                if kind != 'core':
                    continue
                stem = path.replace('/', '-')
                if stem not in done:
                    events, metrics, counters = model(os.path.join(arch_dir, path), std)
                    done[stem] = write_model(os.path.join(out, arch), stem, events, metrics, descs)
                    write_counters(os.path.join(out, arch), stem, counters)
                rows.append((cpuid, version, stem, kind))
                manifest.append((arch, stem, version, done[stem]))
        sysmap = []
        for path in sys_folders(arch_dir):
            events, metrics, pairs = sys_model(arch_dir, path, std)
            if not pairs:
                continue
            stem = path.replace('/', '-')
            manifest.append((arch, stem, 'sys', write_model(os.path.join(out, arch), stem, events, metrics, descs)))
            sysmap += [(pmu, compat, stem) for pmu, compat in pairs]
        if sysmap:
            with open(os.path.join(out, arch, 'sysmap'), 'w', encoding='utf-8', newline='\n') as f:
                for row in sorted(sysmap, key=lambda r: tuple(x.encode() for x in r)):
                    f.write('\t'.join(esc(x) for x in row) + '\n')
        with open(os.path.join(out, arch, 'descriptions'), 'w', encoding='utf-8', newline='\n') as f:
            f.writelines(descs.lines)
        with open(os.path.join(out, arch, 'mapfile.csv'), 'w', encoding='utf-8', newline='\n') as f:
            for r in rows:
                f.write(','.join(r) + '\n')
    with open(os.path.join(out, 'MANIFEST'), 'w', encoding='utf-8', newline='\n') as f:
        f.write('# Generated by tools/pmu_events/generate.py; do not edit.\n')
        f.write('source: %s\nlicence: %s\n' % (source, licence))
        f.write('# arch model version events metrics\n')
        for arch, stem, version, (nr_events, nr_metrics) in sorted(set(manifest)):
            f.write('%s %s %s %d %d\n' % (arch, stem, version, nr_events, nr_metrics))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('arch_dir', help="a perf-format tree: the kernel's tools/perf/pmu-events/arch")
    ap.add_argument('out', help='the folder to write (data/pmu-events)')
    ap.add_argument('--source', default='unknown', help='the upstream, recorded in MANIFEST')
    ap.add_argument('--licence', default='GPL-2.0-only', help="the data's licence, recorded in MANIFEST")
    args = ap.parse_args()
    generate(args.arch_dir, args.out, args.source, args.licence)
    return 0


if __name__ == '__main__':
    sys.exit(main())
