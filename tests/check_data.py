#!/usr/bin/env python3
"""An independent look at the data a run left in FILE: split it in BLOCK-byte
blocks, count the distinct ones (sha256), and compress each distinct block on
its own with the real lz4 and zstd tools (one file each, `lz4 -m`, `zstd`)
and with zlib. Prints: blocks distinct dedupe lz4 zstd zlib (ratios: bytes
before over bytes after, the tools' frame headers included). With a third
argument "count", only: blocks distinct dedupe."""
import hashlib
import os
import subprocess
import sys
import tempfile
import zlib

path, block = sys.argv[1], int(sys.argv[2])
seen = {}
blocks = 0
with open(path, "rb") as f:
    while True:
        b = f.read(block)
        if len(b) < block:
            break
        blocks += 1
        seen.setdefault(hashlib.sha256(b).digest(), b)
if len(sys.argv) > 3:
    print(blocks, len(seen), "%.3f" % (blocks / len(seen)))
    sys.exit(0)
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
    names = []
    for i, b in enumerate(seen.values()):
        n = os.path.join(d, "b%06d" % i)
        with open(n, "wb") as o:
            o.write(b)
        names.append(n)
    subprocess.run(["lz4", "-q", "-m"] + names, check=True)
    subprocess.run(["zstd", "-q", "--no-progress"] + names, check=True)
    raw = len(seen) * block
    lz4 = sum(os.path.getsize(n + ".lz4") for n in names)
    zst = sum(os.path.getsize(n + ".zst") for n in names)
zl = sum(len(zlib.compress(b, 6)) for b in seen.values())
print(blocks, len(seen), "%.3f %.3f %.3f %.3f" % (blocks / len(seen), raw / lz4, raw / zst, raw / zl))
