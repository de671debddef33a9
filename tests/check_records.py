#!/usr/bin/env python3
"""An independent look at what reached the disk, as storage that compresses
records and deduplicates sectors would see it: FILE's 512-byte sectors
counted distinct by sha256, and its records of each SIZE (default 4k, 128k
and 1m; up to 256 of each, evenly spread) compressed one by one with the
real lz4 and zstd tools (`lz4 -m`, `zstd -3`, one file a record, frame
headers counted) and with zlib level 6. Prints one line:
  sectors distinct dedupe  SIZE:lz4,zstd,zlib ...
the ratios being bytes before over bytes after."""
import hashlib
import os
import subprocess
import sys
import tempfile
import zlib

path = sys.argv[1]
sizes = [int(s) for s in sys.argv[2:]] or [4096, 131072, 1048576]
data = open(path, "rb").read()
seen = set()
n = len(data) // 512
for i in range(n):
    seen.add(hashlib.sha256(data[i * 512:(i + 1) * 512]).digest())
out = ["%d %d %.4f" % (n, len(seen), n / len(seen))]
with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
    for size in sizes:
        count = len(data) // size
        pick = sorted({i * count // min(count, 256) for i in range(min(count, 256))})
        names = []
        for k in pick:
            nm = os.path.join(d, "r%d_%06d" % (size, k))
            with open(nm, "wb") as o:
                o.write(data[k * size:(k + 1) * size])
            names.append(nm)
        subprocess.run(["lz4", "-q", "-m"] + names, check=True)
        subprocess.run(["zstd", "-q", "-3", "--no-progress"] + names, check=True)
        raw = len(names) * size
        lz = sum(os.path.getsize(x + ".lz4") for x in names)
        zs = sum(os.path.getsize(x + ".zst") for x in names)
        zl = sum(len(zlib.compress(data[k * size:(k + 1) * size], 6)) for k in pick)
        out.append("%d:%.4f,%.4f,%.4f" % (size, raw / lz, raw / zs, raw / zl))
print(" ".join(out))
