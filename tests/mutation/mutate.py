#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing: how many single-point changes of the kind bugs make does the suite notice?

Picks COUNT sites at random (seeded, so a run is repeatable) among the operators of src/ and tools/ C
code, and for each: applies one change (== for !=, < for <=, && for ||, + 1 for - 1, true for false, ...),
rebuilds, runs the suite (ctest, stopping at the first failure; the tests named like the file first, for a
quick kill) and puts the source back. A mutant the
suite fails is killed; one it passes survived; one that does not compile is stillborn and not counted.
Prints each mutant's fate, the survivors with their file, line and change, and the score.

Usage: mutate.py [--count N] [--seed S] [--build DIR] [--timeout S] [--only PATH_PREFIX]
Run it in a clone of the tree you can spare (the make test build there must exist): it edits the
sources in place and puts each back, but a killed run of this script can leave one changed."""
import argparse
import os
import random
import re
import subprocess
import sys
import time

# Each operator and what it becomes: the changes a slip of the hand or of the mind makes.
SWAPS = [
    (r"==", "!="), (r"!=", "=="),
    (r"(?<![<>=!])<(?![<=])", "<="), (r"<=", "<"),
    (r"(?<![<>=!-])>(?![>=])", ">="), (r">=", ">"),
    (r"&&", "||"), (r"\|\|", "&&"),
    (r"\+ 1\b", "- 1"), (r"- 1\b", "+ 1"),
    (r"\btrue\b", "false"), (r"\bfalse\b", "true"),
]
SKIP_LINE = re.compile(r'^\s*(#|/\*|\*|//)|"')  # preprocessor, comments, strings: no operators to mutate


def sites(root, only):
    found = []
    for top in ("src", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.relpath(os.path.join(d, name), root)
                if only and not path.startswith(only):
                    continue
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for no, line in enumerate(f, 1):
                        if SKIP_LINE.search(line):
                            continue
                        for pat, to in SWAPS:
                            for m in re.finditer(pat, line):
                                found.append((path, no, m.start(), m.end(), to))
    found.sort()
    return found


def run(cmd, cwd, timeout, show_failure=False):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1
    if p.returncode and show_failure:
        sys.stdout.write(p.stdout.decode(errors="replace")[-6000:])
    return p.returncode


def related(path):
    """A regex of the tests whose names share a word with the mutated file's path (src/region/region_set.c:
    region, set), the likely killers, or None."""
    words = {w for w in re.split(r"[/_.]", path) if len(w) > 2} - {"src", "tools", "lib"}
    return "|".join(sorted(words)) or None


def suite(build, root, path, timeout):
    """The suite's verdict on a mutant: the related tests first, a quick kill where one fails, then every
    test (the verdict is always the whole suite's: a mutant survives only when every test passes)."""
    ctest = ["ctest", "--test-dir", build, "-j2", "--stop-on-failure", "--timeout", "300"]
    pattern = related(path)
    if pattern and run(ctest + ["-R", pattern], root, timeout) != 0:
        return 1
    return run(ctest, root, timeout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--build", default="build")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    build = os.path.join(root, a.build)
    # A suite that fails unchanged would "kill" every mutant: it must pass first.
    if run(["cmake", "--build", build, "-j2"], root, a.timeout) != 0 or \
            run(["ctest", "--test-dir", build, "-j2", "--timeout", "300", "--output-on-failure"], root, a.timeout,
                show_failure=True) != 0:
        print("mutation: the suite does not pass on the unchanged tree; fix that first")
        return 1
    every = sites(root, a.only)
    chosen = random.Random(a.seed).sample(every, min(a.count, len(every)))
    print("mutation: %d sites in src/ and tools/, %d chosen (seed %d)" % (len(every), len(chosen), a.seed))
    killed, survived, stillborn = 0, [], 0
    for path, no, start, end, to in chosen:
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            text = f.readlines()
        original = text[no - 1]
        text[no - 1] = original[:start] + to + original[end:]
        change = "%s:%d: %s -> %s" % (path, no, original.strip(), text[no - 1].strip())
        t0 = time.time()
        try:
            with open(full, "w", encoding="utf-8") as f:
                f.writelines(text)
            if run(["cmake", "--build", build, "-j2"], root, a.timeout) != 0:
                stillborn += 1
                print("stillborn %s" % change, flush=True)
                continue
            rc = suite(build, root, path, a.timeout)
            if rc == 0:
                survived.append(change)
                print("SURVIVED  %s (%.0f s)" % (change, time.time() - t0), flush=True)
            else:
                killed += 1
                print("killed    %s (%.0f s)" % (change, time.time() - t0), flush=True)
        finally:
            text[no - 1] = original
            with open(full, "w", encoding="utf-8") as f:
                f.writelines(text)
    run(["cmake", "--build", build, "-j2"], root, a.timeout)
    counted = killed + len(survived)
    print("survivors:")
    for s in survived:
        print("  " + s)
    print("mutation: %d killed of %d (%.1f%%), %d stillborn" %
          (killed, counted, 100.0 * killed / counted if counted else 0.0, stillborn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
