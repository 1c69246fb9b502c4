#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf's consistency rules for the TMA tree (tools/perf/tests/shell/lib/perf_metric_validation_rules.json:
level 1 sums to 100%, each pair of children to its parent) checked on tally's evaluation
(tests/metric_table_eval) of every x86 model's metrics in a perf source tree, over constructed counts: the
slots split 40/20/10/30 between retiring, frontend, bad speculation and backend, the topdown level-2
events a part of their parent, the clocks 1e9, every other event 1e6 (small beside the clocks, as a
child's events are beside its parent's). Usage: metric_rules.py METRIC_TABLE_EVAL PERF_TREE."""
import json, os, re, subprocess, sys, tempfile

# Constructed counts of a core with PERF_METRICS or without (the fixed-width formulas take the clocks).
BIG_CORE = """* 1000000
CPU_CLK_UNHALTED* 1000000000
TOPDOWN.SLOTS 5000000000
slots 5000000000
topdown-retiring 2000000000
topdown-fe-bound 1000000000
topdown-bad-spec 500000000
topdown-be-bound 1500000000
topdown-heavy-ops 500000000
topdown-br-mispredict 400000000
topdown-fetch-lat 600000000
topdown-mem-bound 700000000
duration_time 1
"""

def atom_core(width):
    """An E-core's topdown events (TOPDOWN_*.ALL_P over width * CPU_CLK_UNHALTED.CORE), children in parts."""
    slots = width * 10**9
    return "\n".join([
        "* 1000000", "CPU_CLK_UNHALTED* 1000000000", "duration_time 1",
        "TOPDOWN_RETIRING.ALL* %d" % (slots * 4 // 10), "TOPDOWN_FE_BOUND.ALL* %d" % (slots * 2 // 10),
        "TOPDOWN_BAD_SPECULATION.ALL* %d" % (slots // 10), "TOPDOWN_BE_BOUND.ALL* %d" % (slots * 3 // 10),
        "TOPDOWN_BAD_SPECULATION.MISPREDICT %d" % (slots // 20),
        "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS %d" % (slots // 20),
        "TOPDOWN_FE_BOUND.FRONTEND_LATENCY %d" % (slots // 10),
        "TOPDOWN_FE_BOUND.FRONTEND_BANDWIDTH %d" % (slots // 10), ""])

def models(arch):
    """(name, unit, records) of every model with a TMA tree; a hybrid model once per core PMU."""
    for m in sorted(os.listdir(arch)):
        d = os.path.join(arch, m)
        if not os.path.isdir(d):
            continue
        recs = []
        for f in sorted(os.listdir(d)):
            if f.endswith('.json'):
                recs += [r for r in json.load(open(os.path.join(d, f))) if 'MetricName' in r and 'MetricExpr' in r]
        units = sorted({r.get('Unit', '') for r in recs if r['MetricName'] == 'tma_retiring'})
        for u in units:
            yield m, u, [r for r in recs if r.get('Unit', '') == u]

def evaluate(tool, recs, tmp):
    j = lambda r, k: ' '.join(r.get(k, '').split())
    with open(os.path.join(tmp, 'defs'), 'w') as f:
        for r in recs:
            f.write('\t'.join([r['MetricName'], j(r, 'MetricExpr'), j(r, 'MetricThreshold'), j(r, 'ScaleUnit')]) + '\n')
    retiring = next(r['MetricExpr'] for r in recs if r['MetricName'] == 'tma_retiring')
    width = re.search(r'(\d+) \* (?:cpu_atom@)?CPU_CLK_UNHALTED\.CORE', retiring)
    with open(os.path.join(tmp, 'values'), 'w') as f:
        f.write(atom_core(int(width.group(1))) if 'TOPDOWN_RETIRING.ALL' in retiring and width else BIG_CORE)
    out = subprocess.run([tool, os.path.join(tmp, 'defs'), os.path.join(tmp, 'values')], check=True,
                         capture_output=True, text=True).stdout
    vals = {}
    for line in out.splitlines():
        name, v, _ = line.split('\t')
        vals[name.lower()] = None if v == 'n/a' else float(v)
    return vals

def check(rules, vals):
    """(rules checked, failure texts)"""
    checked, failures = 0, []
    for r in rules:
        names = [m['Name'] for m in r['Metrics']]
        if not all(n.startswith('tma_') and n in vals for n in names):
            continue
        alias = {m['Alias']: vals[m['Name']] for m in r['Metrics']}
        checked += 1
        if None in alias.values():
            failures.append('rule %s: not available: %s' % (r['RuleIndex'], names))
            continue
        bound = lambda b: alias[b] if b in alias else float(b)
        val, lb, ub = eval(r['Formula'], {}, alias), bound(r['RangeLower']), bound(r['RangeUpper'])
        t = float(r['ErrorThreshold'])
        err = t * ub / 100 if ub != 100 and ub > 0 else t   # as perf_metric_validation.py's get_bounds
        if not lb - err <= val <= ub + err:
            failures.append('rule %s: %s = %g, not in [%g, %g] +- %g (%s)' % (r['RuleIndex'], r['Formula'], val,
                                                                             lb, ub, err, ' '.join(names)))
    return checked, failures

def main():
    tool, tree = sys.argv[1], sys.argv[2]
    rules = json.load(open(os.path.join(tree, 'tools/perf/tests/shell/lib/perf_metric_validation_rules.json')))
    total = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for model, unit, recs in models(os.path.join(tree, 'tools/perf/pmu-events/arch/x86')):
            checked, failures = check(rules['RelationshipRules'], evaluate(tool, recs, tmp))
            label = model + ('/' + unit if unit else '')
            print('%s %s: %d rules' % ('FAIL' if failures or not checked else 'ok  ', label, checked))
            for f in failures:
                print('     ' + f)
            total += checked
            failed += len(failures) + (checked == 0)
    print('%d rules checked, %d failed' % (total, failed))
    return failed != 0

sys.exit(main())
