#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tree is the map (docs/design.md, "Folders"): checks that it stays one.

- No .c file at the top of src/: every file of the library sits in its layer's folder.
- Every quoted include names its folder ("counter/counter.h"), and the folder exists; the CLI (tools/)
  includes none of the library's internal headers, only <tally/...>, its own folders and src/shared/ (the
  source both compile), whose folder is on its include path: no angle include of tools/ names another
  folder of src/.
- The folders, in the order of design.md's folder table (lowest layer first), include only their own
  folder and the folders of earlier rows: no upward arrow, so the folder-level include graph has no
  cycle (checked as well, to name the cycle if the table's order is ever loosened).
- Every folder of src/ and tools/ has its row in that table, and every row names a folder that exists.
- Every public header (include/tally/*.h) is listed in README.md.
- No function in src/ or tools/ is over 100 lines (a body from a '{' alone at column 0 to the next '}'
  at column 0, the style every file of the tree follows).

Prints each violation with its file and line and exits 1; exits 0 when the tree holds.
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 100

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
os.chdir(root)
problems = []

# The folder table: rows "| `src/core/` | ..." or "| `tools/` | ...", in layer order.
rows = []
for line in open('docs/design.md', encoding='utf-8'):
    m = re.match(r'\|\s*`((?:src|tools)/(?:[a-z_]+/)?)`\s*\|', line)
    if m:
        rows.append(m.group(1).rstrip('/'))
rank = {folder: i for i, folder in enumerate(rows)}
if not rows:
    problems.append('docs/design.md: no folder table (rows "| `src/<folder>/` | ... |")')


def folders_of(top):
    found = [top] if top == 'tools' else []
    for entry in sorted(os.listdir(top)):
        if os.path.isdir(os.path.join(top, entry)):
            found.append(top + '/' + entry)
    return found


def sources(folder):
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.endswith(('.c', '.h')) and os.path.isfile(path):
            yield path


for top in ('src', 'tools'):
    for folder in folders_of(top):
        if folder not in rank:
            problems.append('%s/: no row in docs/design.md\'s folder table' % folder)
for folder in rows:
    if not os.path.isdir(folder):
        problems.append('docs/design.md: the folder table names %s/, which does not exist' % folder)

for entry in sorted(os.listdir('src')):
    if entry.endswith('.c'):
        problems.append('src/%s: a .c at the top of src/ (it belongs in its layer\'s folder)' % entry)

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
edges = {}
for top in ('src', 'tools'):
    for folder in folders_of(top):
        for path in sources(folder):
            for n, line in enumerate(open(path, encoding='utf-8'), 1):
                m = include.match(line)
                if not m:
                    continue
                name = m.group(1)
                where = '%s:%d' % (path, n)
                if top == 'src':
                    parts = name.split('/')
                    if len(parts) != 2 or not os.path.isfile(os.path.join('src', name)):
                        problems.append('%s: #include "%s" does not name a header as "folder/file.h" '
                                        'under src/' % (where, name))
                        continue
                    target = 'src/' + parts[0]
                elif name.startswith('shared/') and os.path.isfile(os.path.join('src', name)):
                    target = 'src/shared'
                else:
                    if not os.path.isfile(os.path.join('tools', name)):
                        problems.append('%s: #include "%s" is not a header of tools/ (the CLI uses only '
                                        'the public API, <tally/...>)' % (where, name))
                        continue
                    target = 'tools/' + os.path.dirname(name) if '/' in name else 'tools'
                if target == folder:
                    continue
                edges.setdefault(folder, {}).setdefault(target, where)
                if folder in rank and target in rank and rank[target] > rank[folder]:
                    problems.append('%s: %s/ includes %s/, a layer above it (a later row of docs/design.md\'s '
                                    'folder table)' % (where, folder, target))

# src/ is on the CLI's include path for src/shared/ alone: <core/error.h> would be found through it too.
angle = re.compile(r'^\s*#\s*include\s+<([a-z_]+)/')
internal = {entry for entry in os.listdir('src') if os.path.isdir(os.path.join('src', entry))} - {'shared'}
for folder in folders_of('tools'):
    for path in sources(folder):
        for n, line in enumerate(open(path, encoding='utf-8'), 1):
            m = angle.match(line)
            if m and m.group(1) in internal:
                problems.append('%s:%d: <%s/...> is an internal header of the library (the CLI uses only '
                                'the public API, <tally/...>)' % (path, n, m.group(1)))

# Cycles in the folder graph, named with one include of each arrow.
state = {}


def visit(node, path):
    state[node] = 'open'
    for nxt in sorted(edges.get(node, {})):
        if state.get(nxt) == 'open':
            cycle = path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt]
            problems.append('include cycle between folders: %s (%s)' %
                            (' -> '.join(cycle), edges[node][nxt]))
        elif nxt not in state:
            visit(nxt, path + [node])
    state[node] = 'done'


for node in sorted(edges):
    if node not in state:
        visit(node, [])

readme = open('README.md', encoding='utf-8').read()
for header in sorted(os.listdir('include/tally')):
    if header.endswith('.h') and 'tally/' + header not in readme:
        problems.append('include/tally/%s: not listed in README.md (its layout section lists every public '
                        'header as tally/<name>.h)' % header)

signature = re.compile(r'(\w+)\s*\(')
for top in ('src', 'tools'):
    for dirpath, _, files in os.walk(top):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, f)
            lines = open(path, encoding='utf-8').read().split('\n')
            i = 0
            while i < len(lines):
                if lines[i] == '{' and i > 0:
                    j = i + 1
                    while j < len(lines) and lines[j] != '}':
                        j += 1
                    k = i - 1
                    while k > 0 and '(' not in lines[k]:
                        k -= 1
                    m = signature.search(lines[k])
                    if j - i - 1 > MAX_FUNCTION_LINES:
                        problems.append('%s:%d: %s is %d lines (at most %d: split it by concern)' %
                                        (path, i + 1, m.group(1) if m else '?', j - i - 1, MAX_FUNCTION_LINES))
                    i = j
                i += 1

for p in problems:
    print(p)
print('tree layout: %d folders in layer order, %d folder arrows, %d problems' %
      (len(rows), sum(len(v) for v in edges.values()), len(problems)))
sys.exit(1 if problems else 0)
