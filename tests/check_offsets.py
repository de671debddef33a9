#!/usr/bin/env python3
"""An independent reader: check that every 8-byte word of FILE[start:end]
holds its own byte offset (little-endian), iomoon's "offset" pattern.
Prints the number of bad words and the first bad offset; exit 1 if any."""
import struct
import sys

path, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bad, first = 0, None
with open(path, "rb") as f:
    f.seek(start)
    off = start
    while off < end:
        chunk = f.read(min(1 << 20, end - off))
        if not chunk:
            break
        words = struct.unpack("<%dQ" % (len(chunk) // 8), chunk)
        for i, w in enumerate(words):
            if w != off + 8 * i:
                bad += 1
                if first is None:
                    first = off + 8 * i
        off += len(chunk)
print(bad, first)
sys.exit(1 if bad or off < end else 0)
