#!/usr/bin/env python3
"""Compares two `eubatch compile --stats` JSON-lines files shader by shader.

usage: scripts/stats-lines-diff.py BEFORE.json AFTER.json

Prints how many shader lines each has, how many of BEFORE's are missing from AFTER or
differ there (byte for byte), and the new ones by stage and width. Exit status 1 when a
line of BEFORE is missing or differs: a change that adds shaders (a new pipeline for a
back end) must leave the others' lines identical.
"""
import json
import sys
from collections import Counter


def load(path):
    lines = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if "shader" in record:
                lines[record["shader"]["key"]] = line
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    missing = [k for k in a if k not in b]
    differ = [k for k in a if k in b and a[k] != b[k]]
    new = Counter(
        (json.loads(b[k])["shader"]["stage"], json.loads(b[k])["shader"]["simd"])
        for k in b
        if k not in a
    )
    print(
        f"{len(a)} shader lines before, {len(b)} after: {len(missing)} missing, "
        f"{len(differ)} differ, {sum(new.values())} new"
    )
    for (stage, simd), n in sorted(new.items(), key=str):
        print(f"  new: {n} {stage} {'vec4' if simd is None else f'SIMD{simd}'}")
    for k in (missing + differ)[:10]:
        print(f"  {'missing' if k in missing else 'differs'}: {k}")
    sys.exit(1 if missing or differ else 0)


if __name__ == "__main__":
    main()
