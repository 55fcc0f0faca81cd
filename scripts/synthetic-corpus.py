#!/usr/bin/env python3
"""Make a synthetic corpus of N shaders from a real one, to measure the driver at scale.

    scripts/synthetic-corpus.py SRC DST N

Takes every start dump (`*-00-00-start`) under SRC and lays out N of them under DST as
`DST/NNNNNN/<the dump's directory under SRC>/<its name>`, cycling through the real dumps in
sorted order, so a corpus of 100,000 shaders is about 50 copies of shader-db's 2001 SKL
variants, each copy in a directory of its own (keys stay unique). Files are hard links
where the file system allows (a 100k-shader corpus then costs directory entries, not
gigabytes) and copies otherwise. DST keeps the corpus name of SRC's last component at
its end (`.../shaderdb-skl`) when given as such, so the target is still guessed.
"""

import os
import shutil
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    dumps = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith("-00-00-start"):
                dumps.append(os.path.relpath(os.path.join(root, f), src))
    if not dumps:
        sys.exit(f"{src}: no start dumps (*-00-00-start) found")
    if os.path.exists(dst):
        sys.exit(f"{dst} exists: remove it first")
    per_copy = len(dumps)
    link = True
    for i in range(n):
        rel = dumps[i % per_copy]
        out = os.path.join(dst, f"{i // per_copy:06d}", rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if link:
            try:
                os.link(os.path.join(src, rel), out)
                continue
            except OSError:
                link = False
        shutil.copyfile(os.path.join(src, rel), out)
    print(f"{n} shaders from {per_copy} real ones under {dst} ({'hard links' if link else 'copies'})")


if __name__ == "__main__":
    main()
